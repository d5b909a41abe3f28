"""`playlab show`: a game step by step in words, and as structured events."""
import json

import pytest

from playlab.cli import main
from simcore.trace import parse_event
from simcore.games import load_game

CASES = [("moon", 3, "greedy"), ("shifting-stones", 2, "greedy"), ("shifting-stones", 1, "greedy"),
         ("sequence-stacks", 3, "greedy")]


def run(capsys, *args):
    with pytest.raises(SystemExit) as exc:
        main(list(args))
    out, err = capsys.readouterr()
    return exc.value.code, out, err


@pytest.mark.parametrize("game, players, bots", CASES)
def test_json_steps_are_structured_and_match_the_trace(capsys, game, players, bots):
    code, out, _ = run(capsys, "show", game, "--players", str(players), "--bots", bots,
                       "--seed", "3", "--index", "1", "--json")
    assert code == 0
    story = json.loads(out)
    code, out, _ = run(capsys, "show", game, "--players", str(players), "--bots", bots,
                       "--seed", "3", "--index", "1")
    steps = story["steps"]
    assert steps and all(s["events"] is not None for s in steps)
    # every structured event carries its kind and the seat field is an int where present
    events = story["start"]["events"] + [e for s in steps for e in s["events"]]
    assert all(isinstance(e["event"], str) for e in events)
    assert all(isinstance(e["seat"], int) for e in events if "seat" in e)
    # the text log and the structured events are the same events
    assert sum(len(s["log"]) for s in steps) == sum(len(s["events"]) for s in steps)
    # something in words said what changed, and the readable form prints it
    changes = [c for s in steps for c in s["changes"]]
    assert changes and changes[0] in out
    assert out.splitlines()[-1].startswith("result: scores")


def test_moon_events_name_their_fields():
    moon = load_game("moon")
    assert parse_event(moon.EVENT_FIELDS, "play 0 6-4") == {"event": "play", "seat": 0, "tile": "6-4"}
    deal = parse_event(moon.EVENT_FIELDS, "deal 1 6-6 6-5 5-2 4-1 3-3 2-1 1-1")
    assert deal["seat"] == 1 and len(deal[[k for k in deal if k not in ("event", "seat")][0]]) == 7


def test_view_shows_the_seats_own_view(capsys):
    code, out, _ = run(capsys, "show", "moon", "--seed", "2", "--index", "3", "--view", "1")
    assert code == 0
    assert "seat 1 to decide, as it sees the game:" in out and "chooses:" in out
    code, _, err = run(capsys, "show", "moon", "--view", "3")
    assert code != 0 and err.startswith("error: ") and "seat 3" in err


def test_the_words_follow_the_move_before_what_it_completed(capsys):
    """A move's words come right after its own event line: the play that completes a Moon
    trick is told before the trick's event, not after it."""
    code, out, _ = run(capsys, "show", "moon", "--bots", "greedy,greedy,greedy")
    assert code == 0
    lines = [line.strip() for line in out.splitlines()]
    tricks = [k for k, line in enumerate(lines) if line.startswith("trick ") and ":" not in line]
    assert tricks
    for k in tricks:
        # event "trick W" follows "play S T", "seat S plays T", "trick N: … seat W wins it …"
        # (and, at a hand's last trick, the hand's result)
        j = max(i for i in range(k) if lines[i].startswith("play "))
        play, said, told = lines[j], lines[j + 1], lines[j + 2]
        seat, tile = play.split()[1:3]
        assert said == f"seat {seat} plays {tile}"
        assert told.startswith("trick ") and f"seat {lines[k].split()[1]} wins it" in told
