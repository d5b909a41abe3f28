"""`playlab report`: a report built from small real studies has every section and plot,
opens in headless Chromium with its plots laid out and no label overlapping another or cut
off (measured by the browser), and bad input is one error line with no report left behind.
Also the plots' binning and ranges, and the balance columns the report reads from the kernels."""
import html as html_mod
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from playlab.cli import main
from runtime.runner import Batch, RunConfig


def run(capsys, *args):
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in args])
    out, err = capsys.readouterr()
    return exc.value.code, out, err


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    """Small real studies of every kind and game: fpa, tournament, play --out."""
    root = tmp_path_factory.mktemp("studies")
    common = ["--seed", "3", "--no-progress"]
    for args in (["fpa", "moon", "--bots", "greedy", "--games", "300", "--out", root / "moon-fpa"],
                 ["play", "moon", "--bots", "random", "--games", "200", "--out", root / "moon-play"],
                 ["fpa", "shifting-stones", "--bots", "greedy", "--players", "2-3", "--games", "200",
                  "--out", root / "stones-fpa"],
                 ["tournament", "sequence-stacks", "--bots", "greedy,random", "--games", "100",
                  "--out", root / "stacks-tournament"],
                 ["fpa", "sequence-stacks", "--bots", "greedy", "--players", "2,3", "--games", "200",
                  "--out", root / "stacks-fpa"],
                 ["sweep", "shifting-stones", "--vary", "end_trigger=5,7", "--players", "2", "--bots", "greedy",
                  "--games", "150", "--out", root / "stones-sweep"]):
        with pytest.raises(SystemExit) as exc:
            main([str(a) for a in args] + (common if args[0] != "play" else ["--seed", "3"]))
        assert exc.value.code == 0, args
    return root


@pytest.fixture(scope="module")
def report_html(studies, tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.html"
    with pytest.raises(SystemExit) as exc:
        main(["report", str(studies), "--out", str(out)])
    assert exc.value.code == 0
    return out


def figures(text):
    """(alt text, inline SVG) of every figure of a report."""
    return re.findall(r'<figure role="img" aria-label="([^"]*)">\s*(<svg class="plot".*?</svg>)', text, re.S)


def browser():
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, "headless Chromium is required (Debian package chromium; .ci/run installs it)"
    return found


LAYOUT_CHECK = Path(__file__).with_name("layout_check.js")


def layout_problems(page: str, tmp_path) -> dict:
    """The page opened in headless Chromium with tests/layout_check.js run in it: every
    figure's texts measured by the browser; returns its findings."""
    path = tmp_path / "checked.html"
    path.write_text(page.replace("</body>", f"<script>{LAYOUT_CHECK.read_text()}</script></body>"))
    proc = subprocess.run([browser(), "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1200,2000",
                           "--dump-dom", path.as_uri()], capture_output=True, text=True, timeout=300)
    found = re.findall(r'<pre id="layout-check">(.*?)</pre>', proc.stdout, re.S)
    assert found, proc.stderr[-2000:]
    return json.loads(html_mod.unescape(found[-1]))


def svg_numbers(svg: str, axis: str) -> list[float]:
    """The numbers of an SVG figure's ``axis`` ("x" or "y") tick labels (text kept as text)."""
    out = []
    for chunk in re.split(rf'<g class="{axis}tick_\d+">', svg)[1:]:
        label = re.search(r"<text[^>]*>([^<]+)</text>", chunk.split('tick_', 1)[0])
        if label:
            out.append(float(label.group(1).replace("\u2212", "-")))
    return out


def test_report_has_every_section_and_plot(report_html, studies):
    from PIL import Image

    text = report_html.read_text()
    for sid in ("run", "summary", "study-moon-fpa", "study-moon-play", "study-stones-fpa",
                "study-stacks-tournament", "study-stacks-fpa", "study-stones-sweep", "luck-skill"):
        assert f'<section id="{sid}">' in text, sid
    # a sweep's settings are kept apart in its seat advantage
    sweep = text.split('<section id="study-stones-sweep">')[1].split("</section>")[0]
    for label in ("end_trigger=5", "end_trigger=7"):
        assert label in sweep
    headings = set(re.findall(r"<h3>([^<]+)</h3>", text))
    for h in ("Seat advantage", "Score distributions", "Game length and truncated games", "Win rates per bot",
              "Ratings", "Moon: make rate by bid level", "Moon: make rate by trump", "Moon: what the widow is worth",
              "Moon: shooting the moon", "Moon: points per hand by bidding position",
              "Shifting Stones: the 72 cards at 2 players", "Shifting Stones: points per value class",
              "Shifting Stones: the 1-point bonus and skips", "Sequence Stacks: chips by colour",
              "Sequence Stacks: sequences blocked", "Sequence Stacks: action cards",
              "Sequence Stacks: game length by player count",
              "Sequence Stacks (stacks-tournament): how often the weaker bot wins",
              "Sequence Stacks (stacks-tournament): outcome spread per deal under rotated seatings",
              "Three-Player Moon (the rules as written): first-player advantage by bot skill",
              'Sequence Stacks: skill against chance (the X%-coin-flip scale)'):
        assert h in headings, h
    # the tournament's figure is the one its command wrote, beside the shipped ladder's
    chance = text.split('<h3>Sequence Stacks: skill against chance')[1].split("</table>")[0]
    written = pd.read_csv(studies / "stacks-tournament" / "skill_chance.csv").iloc[-1]
    assert f"{written.coin_flip * 100:.1f}% [{written.ci_low * 100:.1f}, {written.ci_high * 100:.1f}]" in chance
    assert "skill ladder (shipped)" in chance
    figs = figures(text)
    assert len(figs) >= 30 and len(figs) == text.count("<figure")
    for alt, svg in figs:
        w, h = (float(v) for v in re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg).groups())
        assert w >= 360 and h >= 140, alt  # points: at least 5 x 2 inches
        # drawn: marks, and labels kept as text (not glyph outlines)
        assert svg.count("<path") + svg.count("<use") >= 10 and svg.count("<text") >= 6, f"plot {alt!r} is blank"
    assert not re.search(r"<g id=", text), "figure element ids would repeat across the page"
    # integer quantities: medians as integers, one run is one run
    lengths = text.split("Game length and truncated games", 2)[2].split("</table>")[0]
    assert "median_turns" in lengths and not re.search(r"<td>\d+\.000</td>", lengths)
    assert "(1 runs)" not in text and "1 runs," not in text and "(1 run)" in text
    # a sweep's scores: one panel per setting, titled by it
    sweep_scores = sweep.split("Score distributions", 1)[1].split("</figure>")[0]
    assert sweep_scores.count('class="axes_') == 3
    assert "end_trigger=5" in sweep_scores and "end_trigger=7" in sweep_scores
    # Moon's greedy never bids 7 or names no-trump: those rows stay, said to have never happened
    bid_table = text.split("Moon: make rate by bid level", 1)[1].split("</table>")[0]
    assert "<td>7</td>" in bid_table and "never happened in these games" in bid_table
    # the widow's share of contracts, a rate a person reads, with its interval
    assert re.search(r"widow kept in \d+\.\d% \[\d+\.\d, \d+\.\d\] of contracts", text)
    # a value class's scored share keeps its interval inside [0, 100%]
    classes = text.split("Shifting Stones: points per value class", 1)[1].split("</table>")[0]
    assert "[-" not in classes and not re.search(r"\b(10[1-9]|1[1-9]\d)\.\d\]", classes)
    # every Shifting Stones card in a sortable table, its pattern drawn
    cards = text.split("Shifting Stones: every card at 2 players", 1)[1].split("</table>")[0]
    assert 'class="sortable"' in cards and cards.count("<tr>") == 73 and '<pre class="pattern">' in cards
    # a table without a figure keeps its caption (the template printed captions in figures only)
    assert '<p class="caption">Click a column to sort.' in cards
    # findings carry intervals; the page loads nothing from the network
    summary = text.split('<section id="summary">')[1].split("</section>")[0]
    items = re.findall(r"<li>(.*?)</li>", summary, re.S)
    assert len(items) >= 10 and all("[" in i for i in items)
    assert not re.search(r'(src|href)="https?:', text)


def test_report_renders_in_headless_chromium(report_html, tmp_path):
    from PIL import Image

    shot = tmp_path / "shot.png"
    proc = subprocess.run([browser(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           "--window-size=1200,5000", f"--screenshot={shot}", report_html.as_uri()],
                          capture_output=True, text=True, timeout=180)
    assert shot.exists(), proc.stderr[-2000:]
    im = Image.open(shot).convert("L")
    assert im.size == (1200, 5000)
    a = np.asarray(im, dtype=float)
    assert a.std() > 20
    # the plots are laid out: many rows carry ink, and large framed figures are among them
    inked = (a < 200).sum(axis=1)
    assert (inked > 0).mean() > 0.5
    assert (inked > 300).sum() > 20, "no wide figure (plot frame) in the rendered page"


def test_the_page_is_the_same_drawn_here_or_in_workers(report_html, studies, tmp_path, monkeypatch):
    """Sections and figures computed in forked workers give the page one process gives,
    byte for byte (clip-path ids salted by where a figure sits, not by who drew it), and
    no clip-path id repeats in it."""
    import os

    assert (os.cpu_count() or 1) >= 2 and "fork" in __import__("multiprocessing").get_all_start_methods()
    monkeypatch.setenv("PLAYLAB_REPORT_WORKERS", "1")
    out = tmp_path / "one.html"
    with pytest.raises(SystemExit) as exc:
        main(["report", str(studies), "--out", str(out)])
    assert exc.value.code == 0
    text = report_html.read_text()
    assert out.read_text() == text
    ids = re.findall(r'<clipPath id="([^"]+)"', text)
    assert len(ids) > 30 and len(set(ids)) == len(ids)


def test_no_label_overlaps_another_or_leaves_its_figure(report_html, tmp_path):
    """Every text of every figure (tick labels, axis labels, titles, legends) as Chromium
    lays it out at the report's width: none overlaps another, none reaches outside."""
    text = report_html.read_text()
    found = layout_problems(text, tmp_path)
    assert found["figures"] == len(figures(text)) >= 30 and found["texts"] > 8 * found["figures"]
    assert found["problems"] == [], found["problems"][:10]


def test_the_layout_check_finds_overlaps_and_clipping(tmp_path):
    """The check above can fail: a figure with two labels on top of each other and one cut
    off at the edge is reported, and the same figure laid out by the report's plots is not."""
    from reports import plots

    good = plots.groups_plot({"a": ([0, 1, 2], [40, 45, 50], [38, 43, 48], [42, 47, 52])}, "setting",
                             "a long y label that must stay inside (percent)", "Title",
                             xticklabels=["first", "second", "third"])
    label = re.search(r'<text[^>]*>Title</text>', good).group(0)
    clipped = good.replace(label, re.sub(r'x="[\d.]+"', 'x="2"', label))  # the title's centre at the edge
    xs = re.findall(r'<text[^>]*x="([\d.]+)"[^>]*>(first|second)</text>', good)
    assert len(xs) == 2
    overlapped = good.replace(f'x="{xs[1][0]}"', f'x="{float(xs[0][0]) + 8:.6f}"')
    page = "<!DOCTYPE html><html><body>{}</body></html>"
    for svg, kind in ((good, None), (overlapped, "overlap"), (clipped, "outside its figure")):
        wrapped = page.format(f'<figure role="img" aria-label="t">{svg}</figure>')
        found = layout_problems(wrapped, tmp_path)
        assert found["figures"] == 1
        kinds = {p["kind"] for p in found["problems"]}
        assert kinds == (set() if kind is None else {kind}), (kind, found["problems"])


def test_restricted_play_is_the_tournaments_table_and_lays_out(tmp_path, capsys):
    """A tournament of greedy and greedy-without-the-block: the report's restricted-play
    block shows the command's figures (restricted_play.csv), and its figure lays out."""

    out = tmp_path / "t"
    code, _, err = run(capsys, "tournament", "sequence-stacks", "--bots", "greedy,restricted:forbid=block",
                       "--games", "300", "--seed", "2", "--no-progress", "--out", out)
    assert code == 0, err
    code, _, err = run(capsys, "report", out)
    assert code == 0, err
    text = (out / "report.html").read_text()
    section = text.split("<h3>Restricted play: what each move is worth</h3>")[1].split("</table>")[0]
    row = pd.read_csv(out / "restricted_play.csv").iloc[0]
    assert row.forbidden == "block" and row.base == "greedy" and row.worth > 0
    assert f"{row.worth * 100:.2f} [{row.ci_low * 100:.2f}, {row.ci_high * 100:.2f}]" in section
    assert "never plays block wins" in text
    found = layout_problems(text, tmp_path)
    assert found["problems"] == [], found["problems"][:10]


def test_the_top_rated_bot_is_not_called_ahead_of_a_twin(tmp_path, capsys, report_html):
    """Moon's ``bidder`` at its defaults plays as ``greedy``: one of the two rates first by
    chance, and the finding must say that their games do not tell them apart; greedy over
    random in Sequence Stacks is told apart."""
    out = tmp_path / "twins"
    code, _, err = run(capsys, "tournament", "moon", "--bots", "greedy,bidder", "--games", "150", "--seed", "4",
                       "--no-progress", "--out", out)
    assert code == 0, err
    code, _, err = run(capsys, "report", out)
    assert code == 0, err
    found = re.search(r"above the field mean; not told apart from (greedy|bidder), the second: its win rate minus "
                      r"\1's over the deals both played ([-+][\d.]+) \[([-+][\d.]+), ([-+][\d.]+)\] percentage points",
                      html_mod.unescape((out / "report.html").read_text()))
    assert found, "no runner-up clause"
    diff, lo, hi = (float(found.group(i)) for i in (2, 3, 4))
    assert lo <= 0 <= hi and diff == 0  # the same games: every deal exactly even
    # the head-to-head interval reads the spread over the 150 deals: every deal exactly even
    # (the same game in every seating), so as sure as the games, around exactly a half
    from statsmodels.stats.proportion import proportion_confint
    pw = pd.read_csv(out / "pairwise.csv").iloc[0]
    assert pw.deals == 150 and pw.games >= 3 * pw.deals and pw.win_rate_a == 0.5
    assert np.allclose((pw.ci_low, pw.ci_high), proportion_confint(pw.games / 2, pw.games, method="wilson"))
    # nor is either called the stronger one by the command, or the weaker one by the report
    assert pd.read_csv(out / "skill_chance.csv", keep_default_na=False)["stronger"].tolist() == ["", ""]
    text = html_mod.unescape((out / "report.html").read_text())
    assert "no two bots are told apart by their games together" in text and "the weaker bot greedy" not in text \
        and "the weaker bot bidder" not in text
    found = re.search(r"greedy rates \d+ Elo \[[-\d]+, [-\d]+\] above the field mean; ahead of random, the second: "
                      r"its win rate minus random's over the deals both played \+([\d.]+) \[\+([\d.]+), \+([\d.]+)\]",
                      html_mod.unescape(report_html.read_text()))
    assert found and 0 < float(found.group(2)) <= float(found.group(1))


def test_play_store_alone(tmp_path, capsys):
    code, _, _ = run(capsys, "play", "sequence-stacks", "--players", "3", "--bots", "greedy", "--games", "60",
                     "--out", tmp_path / "s")
    assert code == 0
    code, out, err = run(capsys, "report", tmp_path / "s")
    assert code == 0, err
    text = (tmp_path / "s" / "report.html").read_text()
    assert "Sequence Stacks: chips by colour" in text and len(figures(text)) >= 6


def test_bad_input_is_one_error_line_and_no_report(tmp_path, capsys, studies):
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run(capsys, "report", empty)
    assert code != 0 and err.startswith("error:") and "no playlab studies" in err and err.count("\n") == 1
    assert list(empty.iterdir()) == []
    code, _, err = run(capsys, "report", tmp_path / "missing")
    assert code != 0 and err.startswith("error:") and err.count("\n") == 1

    broken = tmp_path / "broken"
    shutil.copytree(studies / "moon-play", broken / "moon-play")
    part = next((broken / "moon-play").glob("part-*.parquet"))
    part.write_bytes(part.read_bytes()[:200])
    out = tmp_path / "r.html"
    code, _, err = run(capsys, "report", broken, "--out", out)
    assert code != 0 and err.startswith("error: results file") and "not a readable Parquet" not in err \
        and "do not match the checksum" in err and err.count("\n") == 1
    assert not out.exists() and not list(tmp_path.glob(".r.html.*"))

    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, _, err = run(capsys, "report", studies, "--out", blocker / "r.html")
    assert code != 0 and err.startswith("error: cannot write") and err.count("\n") == 1
    code, _, err = run(capsys, "report", studies, "--out", empty)
    assert code != 0 and err.startswith("error:") and "directory" in err
    assert list(empty.iterdir()) == []


# ---- the balance columns -------------------------------------------------------------------
def frame(game, players, bots, games=300, seed=5):
    from runtime.runner import to_frame

    config = RunConfig.build(game, players, bots, None, seed)
    return to_frame(config, Batch(config).run(0, games))


@pytest.mark.parametrize("bots", ["greedy", "random"])
def test_moon_balance_counters_agree(bots):
    from simcore.games.moon import BID_LEVEL_NAMES, TRUMP_NAMES

    f = frame("moon", 3, bots)
    contracts = sum(f[f"contracts_pos_{k}"] for k in range(3))
    made = sum(f[f"made_pos_{k}"] for k in range(3))
    for what, names in (("bid", BID_LEVEL_NAMES), ("trump", TRUMP_NAMES), ("widow", ("kept", "discarded"))):
        assert (sum(f[f"{what}_{n}_contracts"] for n in names) == contracts).all(), what
        assert (sum(f[f"{what}_{n}_made"] for n in names) == made).all(), what
    assert (f["bid_21_contracts"] == sum(f[f"moon_attempts_{s}"] for s in range(3))).all()
    assert (f["bid_21_made"] == sum(f[f"moons_made_{s}"] for s in range(3))).all()
    assert (contracts == f["hands_played"]).all()
    assert f["widow_kept_contracts"].sum() > 0 and f["widow_discarded_contracts"].sum() > 0
    for n in names:
        assert (f[f"widow_{n}_made"] <= f[f"widow_{n}_contracts"]).all()


@pytest.mark.parametrize("players, bots", [(2, "greedy"), (3, "random"), (5, "greedy")])
def test_stones_card_columns_match_the_seat_totals(players, bots):
    from reports.balance import stones_tables  # noqa: F401  (the reader of these columns)
    from simcore.games.shifting_stones_deck import load_deck

    f = frame("shifting-stones", players, bots, games=120)
    points = np.array([c.points for c in sorted(load_deck(), key=lambda c: c.id)])
    codes = f[[f"card_{c + 1}_scored" for c in range(72)]].to_numpy()
    seat = np.where(codes >= 0, codes % 8, -1)
    rnd = np.where(codes >= 0, codes // 8, -1)
    for s in range(players):
        assert ((seat == s).sum(axis=1) == f[f"cards_{s}"]).all()
        assert (((seat == s) * points).sum(axis=1) == f[f"points_{s}"]).all()
        assert (((seat == s) & (points == 1)).sum(axis=1) == f[f"ones_{s}"]).all()
        assert (f[f"skips_{s}"] <= f["turns"]).all()
    assert (rnd.max(axis=1) <= f["rounds"]).all()
    if bots == "random":
        assert sum(f[f"skips_{s}"] for s in range(players)).sum() > 0


# ---- the plots' bins and ranges --------------------------------------------------------------
def test_integer_quantities_get_whole_value_bins():
    from reports.plots import integer_bins

    rng = np.random.default_rng(1)
    small = rng.integers(10, 40, 5000)
    edges = integer_bins(small)
    assert np.allclose(edges % 1, 0.5) and np.all(np.diff(edges) == 1)  # one bin per value
    wide = rng.integers(0, 1000, 5000)
    edges = integer_bins(wide)
    step = np.diff(edges)
    assert np.allclose(edges % 1, 0.5) and len(set(step)) == 1 and len(edges) <= 62
    # a lattice quantity (games end at whole hands of about 25 turns): bins a whole number of hands
    # wide, not a width that puts two bunches in one bin and none in the next (a sawtooth)
    hands = rng.integers(3, 40, 5000)
    turns = 25 * hands + rng.integers(-2, 3, 5000)
    step = int(np.diff(integer_bins(turns))[0])
    assert abs(step - 25 * round(step / 25)) <= 1, step  # within a turn of a whole number of hands
    counts, _ = np.histogram(turns, integer_bins(turns))
    inner = counts[2:-2]
    assert (inner > 0).all() and inner.min() > 0.3 * inner.max()


def test_a_single_point_is_not_zoomed_onto_its_interval():
    from reports import plots

    svg = plots.groups_plot({"one": ([0], [43.2], [42.8], [43.6])}, "players", "win share (%)", "One point",
                            xticklabels=["3"])
    ys = svg_numbers(svg, "y")
    assert len(ys) >= 3 and max(ys) - min(ys) >= 5, ys


def test_many_series_get_a_panel_each_and_few_share_one():
    from reports import plots

    rng = np.random.default_rng(2)
    many = plots.hist_plot({f"setting {i}": rng.integers(10, 30, 300) for i in range(7)}, "turns", "Length")
    assert many.count('class="axes_') == 7 and all(f">setting {i}<" in many for i in range(7))
    few = plots.hist_plot({f"setting {i}": rng.integers(10, 30, 300) for i in range(3)}, "turns", "Length")
    assert few.count('class="axes_') == 1
    # each of the few is drawn in its own line style
    styles = set(re.findall(r'<path d="M [^"]*" clip-path="[^"]*" style="([^"]*)"', few))
    assert len({re.sub(r"stroke-width: [\d.]+", "", st) for st in styles if "fill: none" in st}) >= 3


def test_the_template_is_package_data():
    import tomllib
    from importlib.resources import files

    assert files("reports").joinpath("template.html.j2").is_file()
    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    assert "*.j2" in project["tool"]["setuptools"]["package-data"]["reports"]


def test_studies_whose_every_game_hit_the_cap_are_reported_not_a_crash(capsys, tmp_path):
    """Every game truncated (a cap of one round): the report still builds, and says the
    tournament could rate no bot; Shifting Stones' card tables divided by 0 decided games,
    and a tournament's tables stopped the whole report."""
    root = tmp_path / "capped"
    code, _, _ = run(capsys, "fpa", "shifting-stones", "--bots", "greedy", "--players", "2", "--games", "20",
                     "--variant", "round_cap=1", "--seed", "1", "--out", str(root / "fpa"))
    assert code == 0
    code, _, err = run(capsys, "tournament", "shifting-stones", "--bots", "greedy,random", "--games", "5",
                       "--variant", "round_cap=1", "--seed", "1", "--out", str(root / "tour"))
    assert code != 0 and "nothing to rate" in err
    code, _, err = run(capsys, "report", str(root), "--out", str(tmp_path / "r.html"))
    assert code == 0, err
    page = (tmp_path / "r.html").read_text()
    assert "every game of the tournament was truncated, so no bot is rated" in page


def test_first_player_advantage_by_skill_compares_bots_under_the_same_rules_only(capsys, tmp_path):
    """Greedy under target_score=7 beside random under the rules as written read as a skill
    difference (it grouped by bot alone and kept the first study of a name); bots are now
    compared only under the same rules, each row naming its study."""
    root = tmp_path / "s"
    for name, bot, variant in (("a-greedy7", "greedy", ["--variant", "target_score=7"]),
                               ("b-random", "random", []), ("c-greedy", "greedy", [])):
        code, _, err = run(capsys, "fpa", "moon", "--bots", bot, "--games", "200", "--seed", "3", *variant,
                           "--out", str(root / name))
        assert code == 0, err
    code, _, err = run(capsys, "report", str(root), "--out", str(tmp_path / "r.html"))
    assert code == 0, err
    page = html_mod.unescape((tmp_path / "r.html").read_text())
    assert "Three-Player Moon (the rules as written): first-player advantage by bot skill" in page
    assert "target_score=7): first-player advantage by bot skill" not in page  # greedy alone there
    table = page[page.index("(the rules as written): first-player advantage by bot skill"):]
    table = table[table.index("<table"):table.index("</table>")]
    assert "c-greedy" in table and "b-random" in table and "a-greedy7" not in table
    # the seat findings, too, are compared bot by bot only under the same rules
    from reports.ranked import study_findings
    from reports.report import discover
    from simcore.games import load_game

    info = load_game("moon").INFO
    rules = {st.name: {f.question[-1] for f in study_findings(st, info)} for st in discover(root)}
    assert rules == {"a-greedy7": {"target_score=7"}, "b-random": {"the rules as written"},
                     "c-greedy": {"the rules as written"}}


def test_sweep_png_draws_every_measure_with_its_interval(tmp_path, monkeypatch, studies):
    """sweep.png: one panel per measure of sweep.csv, each with the interval the CSV holds
    beside it (a bot's win rate's ``:low``/``:high`` are its interval, not panels of their
    own), and the legend outside the panels."""
    from reports import plots

    summary = pd.read_csv(studies / "stones-sweep" / "sweep.csv")
    drawn = {}
    monkeypatch.setattr(plots, "_save", lambda fig, path: drawn.setdefault("fig", fig))
    plots.sweep_plot(summary, [str(s) for s in summary["setting"]], tmp_path / "s.png", "t")
    fig = drawn["fig"]
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert titles == ["seat 0 win rate", "turns", "decisions", "winner - runner-up", "truncated share"]
    for ax in fig.axes:
        if ax.get_title():
            # matplotlib draws an errorbar as a container with its bar lines
            bars = [c for c in ax.containers if c.has_yerr]
            assert bars, ax.get_title()
            assert not ax.get_legend()
    assert fig.legends and {t.get_text() for t in fig.legends[0].get_texts()} >= {"win rate", "win share", "baseline"}


def test_a_sweeps_findings_have_the_commands_tests_behind_them(report_html, studies):
    """The summary quotes a sweep's differences against the baseline; the report shows the
    table they come from, as the command computed it (sweep_tests.csv), p-values included."""

    text = html_mod.unescape(report_html.read_text())
    section = text.split("<h3>Each setting against the baseline</h3>")[1].split("</table>")[0]
    tests = pd.read_csv(studies / "stones-sweep" / "sweep_tests.csv")
    tested = tests[tests["tested"]]
    assert len(tested) and section.count("<tr") == len(tested) + 1  # and the header
    for r in tested.itertuples():
        assert f"{r.diff:.4g}" in section and f"{r.p_holm:.4g}" in section
