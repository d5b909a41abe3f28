"""Every figure the report shows is the command's figure: for each study kind (play --out,
fpa, tournament, sweep) a small study is run through the command line, and the tables the
report's functions (reports.balance) compute from the stored results, read back through the
store, equal the command's CSV / JSON figures, point and interval.  Includes no win at all:
0 of 200 is [0, 0.0188] in both, never [0, 0]."""
import json

import numpy as np
import pandas as pd
import pytest

from experiments.store import open_results
from playlab.cli import main
from reports import balance as B

# both sides come from the same integer tallies; the means from moments merged chunk by chunk
# against all at once, so far below the printed 4 decimals
ATOL = 1e-9
WILSON_0_OF_200 = 0.018846  # z^2 / (n + z^2), z = 1.96
WILSON_0_OF_100 = 0.036993


def cli(capsys, *args):
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert exc.value.code == 0, err
    return out


def study(path, kind=None):
    """The study as the report reads it: through the store, every chunk verified."""
    if kind == "play":
        results = open_results(path, warn=False)
        record = {"kind": "play", "seed": results.manifest["study"]["seed"], "runs": results.manifest["study"]["runs"]}
        return B.load_study(path.name, path, results, record)
    record = json.loads((path / "study.json").read_text())
    return B.load_study(path.name, path, open_results(path / "results", warn=False), record)


def same(a, b):
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), atol=ATOL, rtol=0, equal_nan=True)


def test_play_seats_and_a_zero_win_interval(capsys, tmp_path):
    out_dir = tmp_path / "play"
    args = ["play", "shifting-stones", "--bots", "random,greedy", "--games", "200", "--seed", "4", "--out", out_dir]
    text = cli(capsys, *args)
    seats = pd.DataFrame(json.loads(cli(capsys, *args, "--json"))["seats"])
    st = study(out_dir, "play")
    assert [(s, p is st) for s, p in B.split_settings(st)] == [("", True)]  # nothing to split
    adv = B.seat_advantage(st, None)
    same(adv["win_rate"], seats["win_rate"])
    same(adv["rate_low"], seats["ci_low"])
    same(adv["rate_high"], seats["ci_high"])
    same(adv["win_share"], seats["win_share"])
    same(adv["ci_low"], seats["share_low"])
    same(adv["ci_high"], seats["share_high"])
    # random never beats greedy here: 0 wins of 200, and the interval is not [0, 0]
    assert seats.loc[0, "wins"] == 0 and seats.loc[0, "games"] == 200
    assert adv.loc[0, "ci_low"] == 0 and abs(adv.loc[0, "ci_high"] - WILSON_0_OF_200) < 1e-6
    assert "[0.0000, 0.0188]" in text.splitlines()[2]
    assert B.ci_text((adv.loc[0, "win_share"], adv.loc[0, "ci_low"], adv.loc[0, "ci_high"])) == "0.0% [0.0, 1.9]"


@pytest.mark.parametrize("game,players", [("shifting-stones", "2-3"), ("moon", None)])
def test_fpa_seat_table_and_moon_positions(capsys, tmp_path, game, players):
    out_dir = tmp_path / "fpa"
    cli(capsys, "fpa", game, "--bots", "random", *(["--players", players] if players else []), "--games", "150",
        "--seed", "2", "--no-progress", "--out", out_dir)
    fpa = pd.read_csv(out_dir / "fpa.csv")
    st = study(out_dir)
    from simcore.games import load_game

    adv = B.seat_advantage(st, getattr(load_game(game).INFO, "first_player_column", None))
    assert adv[["players", "position"]].values.tolist() == fpa[["players", "seat"]].values.tolist()
    for mine, theirs in (("games", "games"), ("wins", "wins"), ("shared_wins", "shared_wins"),
                         ("win_rate", "win_rate"), ("rate_low", "ci_low"), ("rate_high", "ci_high"),
                         ("win_share", "win_share"), ("ci_low", "share_low"), ("ci_high", "share_high")):
        same(adv[mine], fpa[theirs])
    tests = pd.read_csv(out_dir / "fpa_tests.csv")
    same(adv.groupby("players")["p_equal_seats"].first().to_numpy(), tests["p_equal_seats"])
    assert (adv["bots"] == "random").all()
    if game == "moon":
        cli_pos = pd.read_csv(out_dir / "fpa_moon_positions.csv")
        rep = B.moon_tables(st)["positions"]
        for col in ("points_per_hand", "contracts", "made", "make_rate", "ci_low", "ci_high"):
            same(rep[col], cli_pos[col])
        by_bid = B.moon_tables(st)["by_bid"]
        # every bid level is listed, those no contract was won at with 0 contracts and no rate
        from simcore.games.moon import BID_LEVEL_NAMES

        assert list(by_bid["bid"]) == list(BID_LEVEL_NAMES)
        never = by_bid["contracts"] == 0
        assert by_bid.loc[never, "make_rate"].isna().all() and by_bid.loc[~never, "ci_high"].notna().all()


def test_tournament_win_rates_and_pairwise(capsys, tmp_path):
    out_dir = tmp_path / "tour"
    cli(capsys, "tournament", "shifting-stones", "--bots", "random,greedy", "--games", "100", "--seed", "2",
        "--no-progress", "--out", out_dir)
    st = study(out_dir)
    win = pd.read_csv(out_dir / "win_rates.csv")
    rep = B.bot_win_rates(st)
    assert list(rep["bot"]) == list(win["bot"])
    for col in ("games", "win_share_per_seat", "ci_low", "ci_high", "win_rate_per_seat", "rate_low", "rate_high"):
        same(rep[col], win[col])
    # random never wins against greedy in its 200 games, two seatings of each of 100 deals;
    # each deal counts once (its seatings replay the same cards): [0, 0.0370]
    r = rep.set_index("bot").loc["random"]
    assert r["games"] == 200 and r["deals"] == 100 and r["win_share_per_seat"] == 0
    assert abs(r["ci_high"] - WILSON_0_OF_100) < 1e-6
    pw = pd.read_csv(out_dir / "pairwise.csv")
    ww = B.weaker_wins(st)
    assert ww.loc[0, "weaker"] == "random"
    same([ww.loc[0, "weaker_ahead"], ww.loc[0, "ci_low"], ww.loc[0, "ci_high"]],
         [pw.loc[0, "win_rate_a"] if pw.loc[0, "bot_a"] == "random" else 1 - pw.loc[0, "win_rate_a"],
          *(sorted([pw.loc[0, "ci_low"], pw.loc[0, "ci_high"]]) if pw.loc[0, "bot_a"] == "random"
            else sorted([1 - pw.loc[0, "ci_high"], 1 - pw.loc[0, "ci_low"]]))])


def test_a_bot_in_two_seats_counts_each_game_once_in_the_pairwise_table(capsys, tmp_path):
    """3 players, 2 bots: a seating puts one bot in two seats, and the pairwise table counted
    each of its seats against the other bot as a game of its own (60 "games", and a Wilson
    interval of 60, from 30 games).  Each game counts once: a's score in it is the mean over
    its seats' comparisons with b's (ties half), recomputed here from the stored rows; the
    interval reads the spread over deals."""

    out_dir = tmp_path / "tour2of3"
    cli(capsys, "tournament", "shifting-stones", "--bots", "greedy,random", "--players", "3", "--games", "10",
        "--seed", "1", "--no-progress", "--out", out_dir)
    frame = study(out_dir).frame
    decided = frame[~frame["truncated"].astype(bool)]
    pw = pd.read_csv(out_dir / "pairwise.csv").iloc[0]
    a = pw["bot_a"]
    total = 0.0
    by_deal: dict[int, list] = {}
    for _, g in decided.iterrows():
        scores = [float(g[f"score_{s}"]) for s in range(3)]
        mine = [s for s in range(3) if g[f"bot_{s}"] == a]
        theirs = [s for s in range(3) if g[f"bot_{s}"] != a]
        outcomes = [(scores[x] > scores[y]) + 0.5 * (scores[x] == scores[y]) for x in mine for y in theirs]
        total += np.mean(outcomes)
        by_deal.setdefault(int(g["index"]), []).append(np.mean(outcomes))
    assert pw["games"] == len(decided) == 60
    assert pw["win_rate_a"] == pytest.approx(total / len(decided))
    # the interval reads the spread of the 10 deals' means (their six seatings replay their cards)
    from experiments.tables import clustered_wilson
    assert pw["deals"] == len(by_deal) == 10
    lo, hi = clustered_wilson(total / 60, 10, np.var([np.mean(v) for v in by_deal.values()], ddof=1), 60)
    assert (pw["ci_low"], pw["ci_high"]) == (pytest.approx(lo), pytest.approx(hi))
    skill = pd.read_csv(out_dir / "skill_chance.csv")
    assert list(skill["games"]) == [60, 60]


def test_tournament_ratings_and_skill_chance_recomputed_from_the_store(capsys, tmp_path):
    """The report's ratings and skill-against-chance tables are recomputed from the stored
    rows (not read from the CSVs): the same as the command's, with its own --boot and a game
    whose resolved options hold a path option's empty default (Shifting Stones' deck)."""
    out_dir = tmp_path / "tour3"
    cli(capsys, "tournament", "shifting-stones", "--bots", "random,greedy", "--players", "3",
        "--games", "40", "--boot", "50", "--seed", "3", "--variant", "hand_size=3", "--no-progress",
        "--out", out_dir)
    st = study(out_dir)
    assert st.record["boot"] == 50
    tables = st.tournament_tables()
    for name in ("ratings", "skill_chance"):
        cmd = pd.read_csv(out_dir / f"{name}.csv")
        mine = tables[name]
        key = "bot" if name == "ratings" else "pair"
        assert list(mine[key]) == list(cmd[key])
        for col in cmd.columns:
            if col != key and pd.api.types.is_numeric_dtype(cmd[col]):
                np.testing.assert_allclose(mine[col].to_numpy(float), cmd[col].to_numpy(float), rtol=1e-9,
                                           atol=1e-9, equal_nan=True, err_msg=f"{name}.{col}")


def test_sweep_every_setting_and_seat(capsys, tmp_path):
    out_dir = tmp_path / "sweep"
    cli(capsys, "sweep", "shifting-stones", "--vary", "end_trigger=6,8", "--vary", "bonus_points=0,3",
        "--bots", "random,greedy:depth=1", "--games", "120", "--seed", "5", "--no-progress", "--out", out_dir)
    sw = pd.read_csv(out_dir / "sweep.csv")
    st = study(out_dir)
    # every row labelled with every varied option, one row per setting
    assert sw["setting"].tolist() == ["end_trigger=0, bonus_points=3 (baseline)", "end_trigger=6, bonus_points=0",
                                      "end_trigger=6, bonus_points=3", "end_trigger=8, bonus_points=0",
                                      "end_trigger=8, bonus_points=3"]
    adv = B.seat_advantage(st, None)
    assert sorted(adv["setting"].unique()) == sorted(sw["setting"])
    ln = B.lengths(st).set_index("setting")
    wr = B.bot_win_rates(st)
    for row in sw.itertuples():
        a = adv[adv["setting"] == row.setting].set_index("position")
        for k in range(2):
            same([a.loc[k, "win_share"], a.loc[k, "ci_low"], a.loc[k, "ci_high"]],
                 [getattr(row, f"seat{k}_share"), getattr(row, f"seat{k}_share_low"),
                  getattr(row, f"seat{k}_share_high")])
        same(a["p_equal_seats"], [row.p_equal_seats] * 2)
        same([a.loc[0, "win_rate"], a.loc[0, "rate_low"], a.loc[0, "rate_high"]],
             [row.seat0_win_rate, row.ci_low, row.ci_high])
        same([ln.loc[row.setting, c] for c in ("mean_turns", "turns_low", "turns_high", "truncated_share",
                                               "trunc_low", "trunc_high")],
             [row.mean_turns, row.turns_low, row.turns_high, row.truncated_share, row.trunc_low, row.trunc_high])
        w = wr[wr["setting"] == row.setting].set_index("bot")
        s = sw.set_index("setting").loc[row.setting]
        for b in ("random", "greedy:depth=1"):
            same([w.loc[b, "win_share_per_seat"], w.loc[b, "ci_low"], w.loc[b, "ci_high"]],
                 [s[f"win_share:{b}"], s[f"win_share:{b}:low"], s[f"win_share:{b}:high"]])
            same([w.loc[b, "win_rate_per_seat"], w.loc[b, "rate_low"], w.loc[b, "rate_high"]],
                 [s[f"win_rate:{b}"], s[f"win_rate:{b}:low"], s[f"win_rate:{b}:high"]])


def test_deal_spread_reaches_one_when_bots_sit_out_seatings():
    """Three bots in two seats: each sits out a third of the seatings, which must not count as
    losing them: a bot winning every seating it plays against one never winning spans 1."""
    import itertools
    from pathlib import Path

    rows = []
    for run, (x, y) in enumerate(itertools.permutations("abc", 2)):
        for deal in range(10):
            winner = min(x, y)  # a beats everyone, b beats c
            rows.append({"run": run, "players": 2, "index": deal, "truncated": False, "bot_0": x, "bot_1": y,
                         "win_0": int(x == winner), "win_1": int(y == winner), "setting": ""})
    st = B.StudyData("t", Path("."), Path("."), {"kind": "tournament"}, [{"game": "shifting-stones"}] * 6,
                     pd.DataFrame(rows))
    sp = B.deal_spread(st)
    assert len(sp) == 10 and (sp["span"] == 1.0).all() and (sp["seatings"] == 6).all()
    # the winner over the six seatings: a in 4, b in 2
    assert sp["entropy"].to_numpy() == pytest.approx(-(2 / 3 * np.log2(2 / 3) + 1 / 3 * np.log2(1 / 3)))


def test_split_settings_keeps_every_setting_apart(capsys, tmp_path):
    out_dir = tmp_path / "sweep"
    cli(capsys, "sweep", "shifting-stones", "--vary", "bonus_points=0", "--vary", "end_trigger=6",
        "--bots", "greedy", "--games", "60", "--seed", "1", "--no-progress", "--out", out_dir)
    st = study(out_dir)
    parts = dict(B.split_settings(st))
    assert sorted(parts) == sorted(pd.read_csv(out_dir / "sweep.csv")["setting"])
    pooled = B.stones_tables(st)["cards"]
    per = {s: B.stones_tables(p)["cards"] for s, p in parts.items()}
    assert all((c["games"] == 60).all() for c in per.values()) and (pooled["games"] == 120).all()
    # the parts add up to the pooled study, card by card
    same(sum(c["scored"].to_numpy() for c in per.values()), pooled["scored"])
    assert "setting" not in pooled and all((c["setting"] == s).all() for s, c in per.items())
    bonus = {s: B.stones_tables(p)["bonus"] for s, p in parts.items()}
    assert all(len(b) == 1 and b["setting"].iloc[0] == s for s, b in bonus.items())


def test_play_by_position_for_a_game_that_draws_its_first_player(capsys, tmp_path):
    out_dir = tmp_path / "moon-play"
    r = json.loads(cli(capsys, "play", "moon", "--bots", "random", "--games", "150", "--seed", "3", "--out", out_dir,
                       "--json"))
    pos = pd.DataFrame(r["positions"])
    adv = B.seat_advantage(study(out_dir, "play"), "first_bidder")
    for mine, theirs in (("position", "position"), ("wins", "wins"), ("win_rate", "win_rate"),
                         ("rate_low", "ci_low"), ("rate_high", "ci_high"), ("win_share", "win_share"),
                         ("ci_low", "share_low"), ("ci_high", "share_high")):
        same(adv[mine], pos[theirs])
    assert pos["games"].iloc[0] == r["games"] - r["truncated"]["games"]


def test_pooled_text_says_what_a_section_pools(capsys, tmp_path):
    cli(capsys, "tournament", "sequence-stacks", "--bots", "random,greedy", "--games", "20", "--seed", "1",
        "--no-progress", "--out", tmp_path / "t")
    assert B.pooled_text(study(tmp_path / "t")) == "every game of the bots greedy, random together"
    cli(capsys, "sweep", "sequence-stacks", "--vary", "chips_to_win=4", "--bots", "greedy", "--games", "20",
        "--no-progress", "--out", tmp_path / "s")
    sw = study(tmp_path / "s")
    assert B.pooled_text(sw) == "the 2 settings chips_to_win=5 (baseline); chips_to_win=4"
    assert all(B.pooled_text(part) == "" for _, part in B.split_settings(sw))


def test_moon_make_rate_by_bot_tells_a_tournament_s_bots_apart(capsys, tmp_path):
    cli(capsys, "tournament", "moon", "--bots", "random,greedy", "--games", "30", "--seed", "1", "--no-progress",
        "--out", tmp_path / "t")
    st = study(tmp_path / "t")
    t = B.moon_tables(st)
    bb = t["by_bot"].set_index("bot")
    f = st.frame
    # the bots' contracts add up to every contract of the tournament, by bid level
    bids = [c for c in f.columns if c.startswith("bid_") and c.endswith("_contracts")]
    assert bb["contracts"].sum() == int(f[bids].to_numpy().sum()) == t["by_bid"]["contracts"].sum()
    assert bb["made"].sum() == t["by_bid"]["made"].sum()
    for b in ("random", "greedy"):
        r = bb.loc[b]
        same([r["make_rate"], r["ci_low"], r["ci_high"]], list(B.wilson(r["made"], r["contracts"])))
    assert bb.loc["greedy", "make_rate"] > bb.loc["random", "make_rate"]


def test_every_table_of_a_sweep_has_one_labelled_row_set_per_setting(capsys, tmp_path):
    cli(capsys, "sweep", "sequence-stacks", "--vary", "chips_to_win=4", "--vary", "hand_size=4", "--bots",
        "random,greedy", "--games", "40", "--seed", "2", "--no-progress", "--out", tmp_path / "s")
    st = study(tmp_path / "s")
    settings = set(pd.read_csv(tmp_path / "s" / "sweep.csv")["setting"])
    assert settings == {"chips_to_win=5, hand_size=5 (baseline)", "chips_to_win=4, hand_size=4"}
    t = B.stacks_tables(st)
    frames = {"seat advantage": B.seat_advantage(st, None), "bot win rates": B.bot_win_rates(st),
              "lengths": B.lengths(st), **t}
    for name, frame in frames.items():
        assert set(frame["setting"]) == settings, name
        sizes = frame.groupby("setting").size()
        assert sizes.nunique() == 1, name  # the same rows under every setting: none dropped
    # every action card is listed under every setting, played or not
    actions = t["actions"]
    assert len(actions) == 2 * len(B.STACKS_ACTIONS)


def test_stones_card_rounds_and_value_classes_are_the_library_intervals_of_the_stored_games(capsys, tmp_path):
    """The cards table's mean round a card is scored in, and the classes table's share of each
    value class scored per game, are read chunk by chunk; their intervals equal scipy's t
    interval over the same values taken from the whole frame at once."""
    import scipy.stats as sps

    out_dir = tmp_path / "stones"
    cli(capsys, "play", "shifting-stones", "--bots", "greedy", "--players", "3", "--games", "400", "--chunk", "150",
        "--seed", "4", "--out", out_dir, "--no-progress")
    st = study(out_dir, "play")
    t = B.stones_tables(st)
    frame = open_results(out_dir, warn=False).frame()
    frame = frame[~frame["truncated"].astype(bool)]
    m = frame[[f"card_{c + 1}_scored" for c in range(72)]].to_numpy(np.int64)
    cards = t["cards"].set_index("card")
    checked = 0
    for c in range(72):
        rounds = m[m[:, c] >= 0, c] // 8
        row = cards.loc[c + 1]
        if len(rounds) < 2 or rounds.std() == 0:
            continue
        lo, hi = sps.t.interval(0.95, len(rounds) - 1, loc=rounds.mean(), scale=sps.sem(rounds))
        assert (row["mean_round"], row["round_low"], row["round_high"]) == pytest.approx((rounds.mean(), lo, hi),
                                                                                        abs=ATOL)
        checked += 1
    assert checked > 60
    points = np.array([int(cards.loc[c + 1, "points"]) for c in range(72)])
    for _, row in t["classes"].iterrows():
        share = (m[:, points == row["points"]] >= 0).mean(axis=1)
        lo, hi = sps.t.interval(0.95, len(share) - 1, loc=share.mean(), scale=sps.sem(share))
        assert (row["scored_rate"], row["ci_low"], row["ci_high"]) == pytest.approx((share.mean(), lo, hi), abs=ATOL)
    assert len(t["classes"]) == 4


def test_one_deal_gives_the_win_rate_difference_without_its_spread(capsys, tmp_path):
    """With one deal the paired difference is known (greedy won both seatings, random
    none: 1 - 0), only its standard errors need two deals (it was NaN)."""
    out_dir = tmp_path / "one"
    cli(capsys, "tournament", "shifting-stones", "--bots", "greedy,random", "--games", "1", "--seed", "1",
        "--no-progress", "--out", out_dir)
    pw = pd.read_csv(out_dir / "pairwise.csv").iloc[0]
    frame = study(out_dir).frame
    won = {b: frame[[f"win_{s}" for s in range(2)]].to_numpy()[frame[["bot_0", "bot_1"]].to_numpy() == b].mean()
           for b in ("greedy", "random")}
    assert pw["win_rate_diff"] == pytest.approx(won[pw["bot_a"]] - won[pw["bot_b"]])
    assert np.isnan(pw["se_paired"]) and np.isnan(pw["se_unpaired"])
    # nor its interval: one deal tells no bot apart
    assert np.isnan(pw["diff_low"]) and np.isnan(pw["diff_high"])
