"""`playlab report`: a report built from small real studies has every section and plot,
opens in headless Chromium with its plots laid out, and bad input is one error line with
no report left behind.  Also the balance columns the report reads from the kernels."""
import base64
import io
import re
import shutil
import subprocess

import numpy as np
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


def images(text):
    return re.findall(r'<img alt="([^"]*)" src="data:image/png;base64,([^"]+)"', text)


def test_report_has_every_section_and_plot(report_html):
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
              "Three-Player Moon: first-player advantage by bot skill"):
        assert h in headings, h
    imgs = images(text)
    assert len(imgs) >= 30
    for alt, data in imgs:
        im = Image.open(io.BytesIO(base64.b64decode(data)))
        im.load()
        assert im.format == "PNG" and im.size[0] >= 500 and im.size[1] >= 200, alt
        grey = np.asarray(im.convert("L"), dtype=float)
        assert grey.std() > 10, f"plot {alt!r} is blank"
    # Moon's greedy never bids 7 or names no-trump: those rows stay, said to have never happened
    bid_table = text.split("Moon: make rate by bid level", 1)[1].split("</table>")[0]
    assert "<td>7</td>" in bid_table and "never happened with these bots" in bid_table
    # every Shifting Stones card in a sortable table, its pattern drawn
    cards = text.split("Shifting Stones: every card at 2 players", 1)[1].split("</table>")[0]
    assert 'class="sortable"' in cards and cards.count("<tr>") == 73 and '<pre class="pattern">' in cards
    # findings carry intervals; the page loads nothing from the network
    summary = text.split('<section id="summary">')[1].split("</section>")[0]
    items = re.findall(r"<li>(.*?)</li>", summary, re.S)
    assert len(items) >= 10 and all("[" in i for i in items)
    assert not re.search(r'(src|href)="https?:', text)


def test_report_renders_in_headless_chromium(report_html, tmp_path):
    from PIL import Image

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    assert browser, "headless Chromium is required (Debian package chromium; .ci/run installs it)"
    shot = tmp_path / "shot.png"
    proc = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
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


def test_play_store_alone(tmp_path, capsys):
    code, _, _ = run(capsys, "play", "sequence-stacks", "--players", "3", "--bots", "greedy", "--games", "60",
                     "--out", tmp_path / "s")
    assert code == 0
    code, out, err = run(capsys, "report", tmp_path / "s")
    assert code == 0, err
    text = (tmp_path / "s" / "report.html").read_text()
    assert "Sequence Stacks: chips by colour" in text and len(images(text)) >= 6


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
