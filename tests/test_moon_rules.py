"""Each rule of rules/moon.md in a hand-built position."""
import numpy as np
import pytest

from simcore.games import moon as m

from moon_helpers import (DEFAULT_PARAMS, bid_action, fresh, legal, legal_tiles, mask, names, params, play,
                          play_position)


# ---- tiles, suits and following ----------------------------------------------------------------
def test_set_has_22_tiles_without_blank_suit_except_double_blank():
    assert len(m.TILES) == 22
    assert (0, 0) in m.TILES
    assert all(lo >= 1 for hi, lo in m.TILES if (hi, lo) != (0, 0))


def test_plain_lead_is_the_higher_end_and_must_be_followed():
    # trump 1; seat 0 leads 5-2 (suit 5): seat 1 holds 5-4 and 6-2, must play the five
    s = play_position({0: ["5-2"], 1: ["5-4", "6-2"], 2: ["6-6", "4-3"]}, trump=1, leader=0)
    play(s, "5-2")
    assert legal_tiles(s) == {"5-4"}


def test_led_two_end_does_not_bind_when_high_end_leads():
    # 5-2 leads suit 5, not 2: a hand of twos without fives may play anything
    s = play_position({0: ["5-2"], 1: ["2-2", "2-1"], 2: ["6-6"]}, trump=6, leader=0)
    play(s, "5-2")
    assert legal_tiles(s) == {"2-2", "2-1"}


def test_a_trump_containing_the_led_number_is_not_a_follower():
    # trump 3: 5-3 is a trump, so it does not follow a lead of fives
    s = play_position({0: ["5-4"], 1: ["5-3", "6-1"], 2: ["6-6"]}, trump=3, leader=0)
    play(s, "5-4")
    assert legal_tiles(s) == {"5-3", "6-1"}


def test_trump_lead_must_be_followed_by_any_trump():
    s = play_position({0: ["4-1"], 1: ["6-1", "5-5", "4-2"], 2: ["6-6"]}, trump=1, leader=0)
    play(s, "4-1")  # contains 1: a trump lead
    assert legal_tiles(s) == {"6-1"}


def test_follow_under_number_of_lead_double():
    # a double leads its own number: 4-4 leads fours
    s = play_position({0: ["4-4"], 1: ["4-2", "6-5"], 2: ["6-6"]}, trump=1, leader=0)
    play(s, "4-4")
    assert legal_tiles(s) == {"4-2"}


def test_doubles_trump_doubles_leave_number_suits():
    # doubles trump: 5-5 is a trump and does not follow fives; 5-1 belongs to fives and ones
    s = play_position({0: ["5-2"], 1: ["5-5", "6-1"], 2: ["5-1", "3-1"]}, trump="doubles", leader=0)
    play(s, "5-2")
    assert legal_tiles(s) == {"5-5", "6-1"}  # cannot follow: anything
    play(s, "6-1")
    assert legal_tiles(s) == {"5-1"}


def test_doubles_trump_led_double_calls_for_doubles():
    s = play_position({0: ["2-2"], 1: ["0-0", "2-1"], 2: ["6-6"]}, trump="doubles", leader=0)
    play(s, "2-2")
    assert legal_tiles(s) == {"0-0"}


def test_no_trump_double_highest_in_its_suit():
    s = play_position({0: ["6-5"], 1: ["5-5", "1-1"], 2: ["5-4", "6-6"]}, trump="none", leader=0)
    play(s, "6-5")  # leads sixes
    assert legal_tiles(s) == {"5-5", "1-1"}  # 5-5 is a five only: cannot follow
    play(s, "5-5")
    assert legal_tiles(s) == {"6-6"}
    play(s, "6-6")
    assert s[m.LAST_TRICK_WINNER] == 2  # the double six beats 6-5


def test_no_trump_double_beats_other_tiles_of_its_suit():
    s = play_position({0: ["5-1"], 1: ["5-5"], 2: ["6-5"]}, trump="none", leader=0)
    play(s, "5-1")  # leads fives? no: 5-1 leads its higher end, five
    play(s, "5-5")
    play(s, "6-5")  # 6-5 follows fives too (contains 5) but ranks below the double
    assert s[m.LAST_TRICK_WINNER] == 1


# ---- trick winners ---------------------------------------------------------------------------
def test_highest_trump_wins():
    s = play_position({0: ["6-5"], 1: ["2-1"], 2: ["2-2"]}, trump=2, leader=0)
    play(s, "6-5")
    play(s, "2-1")  # void in sixes: trumps
    play(s, "2-2")  # the double trump is the highest trump
    assert s[m.LAST_TRICK_WINNER] == 2
    assert s[m.TRICKS + 2] == 1 and s[m.LEADER] == 2 and s[m.ACTOR] == 2


def test_trump_ranks_by_other_end():
    s = play_position({0: ["3-2"], 1: ["6-3"], 2: ["5-3"]}, trump=3, leader=0)
    play(s, "3-2")
    play(s, "6-3")
    play(s, "5-3")
    assert s[m.LAST_TRICK_WINNER] == 1


def test_highest_of_led_suit_wins_and_offsuit_never_wins():
    s = play_position({0: ["6-2"], 1: ["6-4"], 2: ["5-5"]}, trump=1, leader=0)
    play(s, "6-2")
    play(s, "6-4")
    play(s, "5-5")  # off suit, although a double
    assert s[m.LAST_TRICK_WINNER] == 1


def test_plain_suit_rank_uses_other_end():
    # in the suit of fives: 5-4 beats 6-5? No: 6-5 in fives ranks by its other end 6
    s = play_position({0: ["5-4"], 1: ["6-5"], 2: ["5-3"]}, trump=1, leader=0)
    play(s, "5-4")
    play(s, "6-5")
    play(s, "5-3")
    assert s[m.LAST_TRICK_WINNER] == 1


# ---- bidding ---------------------------------------------------------------------------------
def test_each_player_bids_once_and_must_raise():
    s = fresh(3)
    first = int(s[m.FIRST_BIDDER])
    assert s[m.ACTOR] == first
    assert legal(s) == [m.PASS] + [bid_action(k) for k in range(4, 8)] + [m.BID_MOON_ACTION]
    m.apply(s, DEFAULT_PARAMS, bid_action(5))
    assert s[m.ACTOR] == (first + 1) % 3
    assert legal(s) == [m.PASS, bid_action(6), bid_action(7), m.BID_MOON_ACTION]
    m.apply(s, DEFAULT_PARAMS, bid_action(None))
    m.apply(s, DEFAULT_PARAMS, bid_action(7))
    assert s[m.BIDDER] == (first + 2) % 3 and s[m.HIGH_BID] == 7
    assert s[m.PHASE] == m.PHASE_DISCARD


def test_21_ends_the_bidding_at_once():
    s = fresh(4)
    first = int(s[m.FIRST_BIDDER])
    m.apply(s, DEFAULT_PARAMS, bid_action(21))
    assert s[m.PHASE] == m.PHASE_DISCARD
    assert s[m.BIDDER] == first and s[m.HIGH_BID] == 21
    assert s[m.MOON_TRIES + first] == 1


def test_all_pass_redeals_and_rotates_first_bidder():
    s = fresh(5)
    first = int(s[m.FIRST_BIDDER])
    old_hands = s[m.HAND:m.HAND + 3].copy()
    for _ in range(3):
        m.apply(s, DEFAULT_PARAMS, m.PASS)
    assert s[m.HAND_NO] == 2 and s[m.REDEALS] == 1
    assert s[m.FIRST_BIDDER] == (first + 1) % 3 and s[m.ACTOR] == (first + 1) % 3
    assert s[m.PHASE] == m.PHASE_BID
    assert not np.array_equal(old_hands, s[m.HAND:m.HAND + 3])  # a new deal


def test_all_pass_force_last_speaker_may_not_pass():
    p = params(all_pass="force")
    s = fresh(5, p)
    m.apply(s, p, m.PASS)
    m.apply(s, p, m.PASS)
    acts = legal(s, p)
    assert m.PASS not in acts and acts[0] == bid_action(4)
    # when somebody bid, the last may pass
    s = fresh(5, p)
    m.apply(s, p, bid_action(4))
    m.apply(s, p, m.PASS)
    assert m.PASS in legal(s, p)


def test_min_bid_option():
    p = params(min_bid=2)
    s = fresh(6, p)
    assert legal(s, p)[:2] == [m.PASS, bid_action(2)]


# ---- widow and trump -------------------------------------------------------------------------
def test_widow_taken_and_one_tile_discarded_out_of_play():
    s = fresh(7)
    b = int(s[m.FIRST_BIDDER])
    widow = int(s[m.WIDOW])
    m.apply(s, DEFAULT_PARAMS, bid_action(21))
    hand = int(s[m.HAND + b])
    assert hand >> widow & 1 and bin(hand).count("1") == 8
    # discarding the widow itself is allowed
    assert m.DISCARD_BASE + widow in legal(s)
    m.apply(s, DEFAULT_PARAMS, m.DISCARD_BASE + widow)
    assert bin(int(s[m.HAND + b])).count("1") == 7
    assert s[m.DISCARDED] == widow and s[m.PHASE] == m.PHASE_TRUMP
    all_hands = int(s[m.HAND]) | int(s[m.HAND + 1]) | int(s[m.HAND + 2])
    assert not all_hands >> widow & 1  # out of play
    trumps = [a - m.TRUMP_BASE for a in legal(s)]
    assert trumps == list(range(9))  # 0..6, doubles, no-trump
    m.apply(s, DEFAULT_PARAMS, m.TRUMP_BASE + 4)
    assert s[m.PHASE] == m.PHASE_PLAY and s[m.ACTOR] == b and s[m.TRUMP] == 4


def test_doubles_trump_option_off():
    p = params(doubles_trump=False)
    s = fresh(7, p)
    m.apply(s, p, bid_action(21))
    m.apply(s, p, m.DISCARD_BASE + int(s[m.WIDOW]))
    trumps = [a - m.TRUMP_BASE for a in legal(s, p)]
    assert m.TRUMP_DOUBLES not in trumps and len(trumps) == 8


def test_trump_before_widow_order():
    p = params(trump_before_widow=True)
    s = fresh(8, p)
    b = int(s[m.FIRST_BIDDER])
    m.apply(s, p, bid_action(21))
    assert s[m.PHASE] == m.PHASE_TRUMP and s[m.WIDOW_TAKEN] == 0
    assert bin(int(s[m.HAND + b])).count("1") == 7
    m.apply(s, p, m.TRUMP_BASE + m.TRUMP_NONE)
    assert s[m.PHASE] == m.PHASE_DISCARD and s[m.WIDOW_TAKEN] == 1
    assert bin(int(s[m.HAND + b])).count("1") == 8
    m.apply(s, p, m.DISCARD_BASE + int(s[m.WIDOW]))
    assert s[m.PHASE] == m.PHASE_PLAY and s[m.ACTOR] == b


# ---- scoring ---------------------------------------------------------------------------------
def last_trick(bid, bidder_tricks_before, p=DEFAULT_PARAMS, scores=(0, 0, 0), bidder_wins=True):
    """Seat 0 bid ``bid``; six tricks are done; the last trick is 6-6 (led by 0) vs two low tiles."""
    others = 6 - bidder_tricks_before
    tricks = (bidder_tricks_before, others, 0)
    hands = {0: ["6-6"], 1: ["2-1"], 2: ["3-1"]} if bidder_wins else {0: ["2-1"], 1: ["6-6"], 2: ["3-1"]}
    s = play_position(hands, trump=6, leader=0, bidder=0, bid=bid, trick_no=6, tricks=tricks,
                      scores=scores, p=p)
    for t in (hands[0][0], hands[1][0], hands[2][0]):
        play(s, t, p)
    return s


def test_made_bid_scores_bid_without_overtricks_and_defenders_score_tricks():
    s = last_trick(bid=4, bidder_tricks_before=5)  # 6 tricks: made, no overtricks
    assert list(s[m.HAND_POINTS:m.HAND_POINTS + 3]) == [4, 1, 0]
    assert list(s[m.SCORE:m.SCORE + 3]) == [4, 1, 0]
    assert s[m.BIDS_MADE] == 1 and s[m.BIDS_FAILED] == 0


def test_set_bid_scores_minus_bid():
    s = last_trick(bid=6, bidder_tricks_before=3, bidder_wins=False)  # 3 tricks < 6
    assert list(s[m.HAND_POINTS:m.HAND_POINTS + 3]) == [-6, 4, 0]
    assert s[m.BIDS_FAILED] == 1


def test_moon_needs_all_seven_and_wins_at_once():
    s = last_trick(bid=21, bidder_tricks_before=6)
    assert s[m.PHASE] == m.PHASE_OVER and s[m.WINNER] == 0
    assert s[m.SCORE] == 21 and s[m.MOONS_MADE] == 1


def test_failed_moon_scores_minus_21():
    s = last_trick(bid=21, bidder_tricks_before=5, bidder_wins=True)  # 6 of 7
    assert s[m.HAND_POINTS] == -21 and s[m.PHASE] != m.PHASE_OVER


def test_moon_instant_win_off_scores_21_and_plays_on():
    p = params(moon_instant_win=False)
    s = last_trick(bid=21, bidder_tricks_before=6, p=p, scores=(-10, 30, 0))
    assert s[m.HAND_POINTS] == 21 and s[m.SCORE] == 11
    assert s[m.WINNER] == 1  # seat 1 already led alone at 30
    s = last_trick(bid=21, bidder_tricks_before=6, p=p, scores=(-10, 0, 0))
    assert s[m.PHASE] == m.PHASE_BID  # 11 points: not yet a win


def test_reaching_21_alone_wins():
    s = last_trick(bid=4, bidder_tricks_before=6, scores=(17, 5, 3))
    assert s[m.WINNER] == 0 and s[m.PHASE] == m.PHASE_OVER


def test_tie_at_the_top_continues():
    # seat 0 makes 4 to reach 21; seat 1 (one trick) also reaches 21: tied, play on
    s = last_trick(bid=4, bidder_tricks_before=5, scores=(17, 20, 0))
    assert list(s[m.SCORE:m.SCORE + 3]) == [21, 21, 0]
    assert s[m.WINNER] == -1 and s[m.PHASE] == m.PHASE_BID and s[m.HAND_NO] == 2


def test_bidder_goes_out_option_breaks_the_tie_for_the_bidder():
    p = params(bidder_goes_out=True)
    s = last_trick(bid=4, bidder_tricks_before=5, p=p, scores=(17, 20, 0))
    assert s[m.WINNER] == 0 and s[m.PHASE] == m.PHASE_OVER
    # even when the other player finishes higher
    s = last_trick(bid=4, bidder_tricks_before=5, p=p, scores=(17, 22, 0))
    assert s[m.WINNER] == 0


def test_higher_score_wins_when_bidder_goes_out_is_off():
    s = last_trick(bid=4, bidder_tricks_before=5, scores=(17, 22, 0))
    assert s[m.WINNER] == 1


def test_target_score_option():
    p = params(target_score=5)
    s = last_trick(bid=4, bidder_tricks_before=6, p=p, scores=(1, 0, 0))
    assert s[m.WINNER] == 0


def test_hand_cap_truncates_and_counts_redeals():
    p = params(hand_cap=2)
    s = fresh(9, p)
    for _ in range(3):
        m.apply(s, p, m.PASS)
    assert s[m.HAND_NO] == 2 and s[m.PHASE] == m.PHASE_BID
    for _ in range(3):
        m.apply(s, p, m.PASS)
    assert s[m.PHASE] == m.PHASE_OVER and s[m.TRUNCATED] == 1 and s[m.WINNER] == -1
    row = np.zeros(len(m.INFO.result_columns(3)), dtype=np.int64)
    m.summarize(s, p, 3, row)
    cols = dict(zip(m.INFO.result_columns(3), row))
    assert cols["truncated"] == 1 and cols["hands"] == 2 and cols["redeals"] == 2
    assert cols["win_0"] + cols["win_1"] + cols["win_2"] == 0


def test_all_seven_tricks_played_after_the_bid_is_decided():
    s = play_position({0: ["6-6", "5-5"], 1: ["2-1", "3-2"], 2: ["3-1", "4-1"]}, trump=6, leader=0,
                      bid=4, trick_no=5, tricks=(5, 0, 0))
    for t in ("6-6", "2-1", "3-1"):
        play(s, t)
    assert s[m.PHASE] == m.PHASE_PLAY and s[m.TRICK_NO] == 6  # bid made, still playing


@pytest.mark.parametrize("name", [o.name for o in m.OPTIONS])
def test_every_option_is_tested_here(name):
    """Guard: a new option must come with a rule test in this file."""
    import inspect
    import sys

    source = inspect.getsource(sys.modules[__name__])
    assert source.count(name) >= 2, f"option {name} has no test"


def test_action_names():
    assert m.action_name(m.PASS) == "pass"
    assert m.action_name(bid_action(21)) == "bid 21"
    assert m.action_name(m.PLAY_BASE + m.TILE_BY_NAME["6-4"]) == "play 6-4"
    assert m.action_name(m.TRUMP_BASE + m.TRUMP_DOUBLES) == "trump doubles"
    assert m.action_name(m.DISCARD_BASE) == "discard 0-0"
    with pytest.raises(ValueError):
        m.action_name(m.NUM_ACTIONS)


def test_mask_helpers_roundtrip():
    assert names(mask("6-4", "0-0")) == {"6-4", "0-0"}
