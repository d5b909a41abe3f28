"""The information-set view hides exactly what a seat cannot know, and determinization
samples only from that view."""
import numpy as np

from simcore.games import moon as m
from simcore.protocol import HIDDEN

from moon_helpers import DEFAULT_PARAMS, bid_action, fresh


def test_view_hides_other_hands_widow_deck_and_chance_stream():
    s = fresh(21)
    me = int(s[m.ACTOR])
    view = np.zeros_like(s)
    m.observe(s, me, view)
    assert view[m.HAND + me] == s[m.HAND + me]
    for other in range(3):
        if other != me:
            assert view[m.HAND + other] == HIDDEN
    assert view[m.WIDOW] == HIDDEN and view[m.RNG] == HIDDEN
    assert (view[m.DECK:m.DECK + m.NUM_TILES] == HIDDEN).all()


def test_bidder_sees_widow_and_own_discard_others_do_not():
    s = fresh(22)
    b = int(s[m.ACTOR])
    m.apply(s, DEFAULT_PARAMS, bid_action(21))
    m.apply(s, DEFAULT_PARAMS, m.DISCARD_BASE + int(s[m.WIDOW]))
    view = np.zeros_like(s)
    m.observe(s, b, view)
    assert view[m.WIDOW] == s[m.WIDOW] and view[m.DISCARDED] == s[m.DISCARDED]
    m.observe(s, (b + 1) % 3, view)
    assert view[m.WIDOW] == HIDDEN and view[m.DISCARDED] == HIDDEN


def sample(s, player, key):
    view = np.zeros_like(s)
    m.observe(s, player, view)
    out = np.zeros_like(s)
    rng = np.array([key], dtype=np.int64)
    m.determinize(view, DEFAULT_PARAMS, player, rng, 0, out)
    return view, out


def test_determinization_is_consistent_and_never_reads_hidden_tiles():
    s = fresh(23)
    me = int(s[m.ACTOR])
    view, out = sample(s, me, 99)
    # own hand kept, all 22 tiles placed exactly once
    assert out[m.HAND + me] == s[m.HAND + me]
    hands = [int(out[m.HAND + i]) for i in range(3)]
    assert all(bin(h).count("1") == 7 for h in hands)
    assert (hands[0] | hands[1] | hands[2] | (1 << int(out[m.WIDOW]))) == m.ALL_TILES
    # a different hidden deal with the same view gives the same sample: nothing leaks
    other = s.copy()
    others = [i for i in range(3) if i != me]
    other[m.HAND + others[0]], other[m.HAND + others[1]] = s[m.HAND + others[1]], s[m.HAND + others[0]]
    _, out2 = sample(other, me, 99)
    assert np.array_equal(out, out2)


def test_determinization_respects_shown_voids_in_play():
    # play a whole game until some seat shows a void, then check samples never give that
    # seat a tile of the suit it could not follow
    rng = np.array([5, 6, 7], dtype=np.int64)
    for seed in range(40):
        s = fresh(seed)
        while not m.is_terminal(s) and s[m.HAND_NO] == 1:
            if s[m.PHASE] == m.PHASE_PLAY and any(s[m.VOID + i] for i in range(3)):
                me = int(s[m.ACTOR])
                for key in range(5):
                    _, out = sample(s, me, key)
                    trump = int(out[m.TRUMP])
                    for seat in range(3):
                        if seat == me:
                            continue
                        for code in range(m.NUM_LED):
                            if s[m.VOID + seat] >> code & 1:
                                assert out[m.HAND + seat] & m.FOLLOW_MASK[trump, code] == 0
                return
            m.apply(s, DEFAULT_PARAMS, m.random_action(s, DEFAULT_PARAMS, rng, int(s[m.ACTOR])))
    raise AssertionError("no void shown in 40 hands")
