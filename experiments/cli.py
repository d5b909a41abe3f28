"""The `playlab` command line (shared/spec/cli.md is the contract)."""
from __future__ import annotations

import json
import os
import sys

import click

from simcore.options import parse_variant_args

GAME_HELP = "game: moon, shifting-stones or sequence-stacks"


def _config(game, players, bots, variant, seed):
    from simcore.runner import RunConfig

    return RunConfig.build(game, players, bots, parse_variant_args(variant), seed)


def _variant_option(f):
    return click.option("--variant", "variant", multiple=True, metavar="NAME=VALUE",
                        help="rule option (repeatable); see `playlab games`")(f)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli():
    """playlab: simulate tabletop games by the million for strategy and balance research."""


@cli.command()
@click.argument("game", required=False)
def games(game):
    """List the games: player counts and rule options with defaults; with GAME, also its
    result columns and what they mean."""
    from simcore.games import GAME_MODULES, UnknownGame, load_game

    names = [game] if game else list(GAME_MODULES)
    for name in names:
        try:
            info = load_game(name).INFO
        except UnknownGame:
            if game:
                raise
            click.echo(f"{name}  (not implemented yet)\n")
            continue
        span = str(info.min_players) if info.min_players == info.max_players else f"{info.min_players}-{info.max_players}"
        click.echo(f"{name}  {info.title}, {span} players: {info.description}")
        for o in info.options:
            default = str(o.default).lower() if o.kind == "bool" else (o.default if o.default != "" else '""')
            click.echo(f"  {o.name:<20} default {default!s:<8} [{o.describe_range()}]  {o.help}")
        if game:
            _echo_columns(info)
        click.echo("")


def _echo_columns(info):
    from simcore.runner import RUNNER_COLUMN_DOCS

    click.echo("result columns (S = seat):")
    for col, doc in RUNNER_COLUMN_DOCS:
        click.echo(f"  {col:<20} {doc}")
    docs = tuple(getattr(info, "column_docs", ()) or ())
    if not docs:
        click.echo("  (no column descriptions)")
        return
    for col, doc in docs:
        click.echo(f"  {col:<20} {doc}")


@cli.command()
@click.argument("game", required=False)
def bots(game):
    """List bots, their parameters, defaults and ranges (for GAME, or every game)."""
    from bots.registry import bots_for
    from simcore.games import available_games, load_game

    names = [game] if game else available_games()
    for name in names:
        module = load_game(name)
        click.echo(f"{name}:")
        for spec in bots_for(module):
            click.echo(f"  {spec.name:<10} {spec.help}")
            for p in spec.params:
                fmt = "{:g}"
                click.echo(f"      {p.name:<16} default {fmt.format(p.default):<8} range {p.low:g}..{p.high:g}  {p.help}")
        click.echo("")


@cli.command()
@click.argument("game")
@click.option("--players", type=int, default=None, help="number of players (default: the game's smallest multi-player count)")
@click.option("--bots", "bot_specs", default="random", show_default=True, help="one spec per seat, comma separated (NAME[:key=value…])")
@click.option("--games", "n_games", type=click.IntRange(min=1), default=1000, show_default=True)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@_variant_option
@click.option("--out", type=click.Path(file_okay=False), default=None, help="write per-game results as a Parquet dataset (resumable)")
@click.option("--trace", "trace_file", type=click.Path(dir_okay=False), default=None, help="write game records (JSON Lines; .gz compresses)")
@click.option("--trace-games", type=click.IntRange(min=0), default=None, help="trace only the first K games (default: all)")
@click.option("--threads", type=click.IntRange(min=1), default=None, help="threads (default: all cores)")
@click.option("--progress/--no-progress", default=None, help="progress bar on stderr (default: long runs on a terminal)")
def play(game, players, bot_specs, n_games, seed, variant, out, trace_file, trace_games, threads, progress):
    """Play GAMES games and print a per-seat summary."""
    from experiments.play import execute, format_summary

    config = _config(game, players, bot_specs, variant, seed)
    outcome = execute(config, n_games, threads=threads, out=out, progress=progress)
    click.echo(format_summary(config, outcome))
    if trace_file:
        from simcore.runner import Batch
        from simcore.trace import build_trace, write_traces

        k = n_games if trace_games is None else min(trace_games, n_games)
        batch = Batch(config)
        written = write_traces(trace_file, (build_trace(batch, i) for i in range(k)))
        click.echo(f"wrote {written} traces to {trace_file}")
    if out:
        click.echo(f"results: {out} ({len(outcome.frame)} games)")


@cli.command()
@click.argument("game")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--index", type=click.IntRange(min=0), default=0, show_default=True, help="game index within the run")
@click.option("--players", type=int, default=None)
@click.option("--bots", "bot_specs", default="random", show_default=True)
@_variant_option
@click.option("--json", "as_json", is_flag=True, help="print the trace record instead")
def show(game, seed, index, players, bot_specs, variant, as_json):
    """Print one game as a readable log."""
    from simcore.runner import Batch
    from simcore.trace import build_trace

    config = _config(game, players, bot_specs, variant, seed)
    trace = build_trace(Batch(config), index)
    if as_json:
        click.echo(json.dumps(trace))
        return
    module = config.module
    click.echo(f"{config.info.title}: seed {seed}, game {index}, {config.players} players")
    click.echo("bots: " + ", ".join(f"{s}={b}" for s, b in enumerate(trace["bots"])))
    changed = {k: v for k, v in config.variant.items()
               if v != next(o.default for o in config.info.options if o.name == k)}
    click.echo("variant: " + (", ".join(f"{k}={v}" for k, v in changed.items()) if changed else "rules as written (all defaults)"))
    sections = getattr(module, "SECTION_EVENTS", ())
    for event in trace["log"]:
        flush = event.split(" ", 1)[0] in sections
        click.echo(("" if flush else "  ") + event)
    r = trace["result"]
    if r["truncated"]:
        verdict = "truncated (no result)"
    elif r["winners"]:
        verdict = "winner" + ("s " if len(r["winners"]) > 1 else " ") + ", ".join(map(str, r["winners"]))
    else:
        verdict = "no winner"
    click.echo(f"result: scores {r['scores']}; {verdict}")


@cli.command()
@click.argument("game", required=False)
@click.option("--games", "n_games", type=click.IntRange(min=1), default=None, help="games per measurement (default: enough for about a second)")
@click.option("--threads", type=click.IntRange(min=1), default=None, help="threads (default: 1 and all cores)")
@click.option("--players", type=int, default=None, help="player count (default: every count the game allows)")
@click.option("--bots", "bot_specs", default="random", show_default=True)
@_variant_option
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--rounds", type=click.IntRange(min=1), default=3, show_default=True,
              help="bots other than random: rounds alternating with random play (the median ratio is kept)")
@click.option("--json", "as_json", is_flag=True, help="print a JSON list of records")
def bench(game, n_games, threads, players, bot_specs, variant, seed, rounds, as_json):
    """Throughput: games/s and decisions/s per game, player count and bots; for bots other
    than random, their cost next to random play (`x random`) and, on one thread, next to
    random decisions in the same positions (`x same`)."""
    import numba

    from experiments.bench import format_table, run_bench
    from simcore.games import available_games, load_game

    names = [game] if game else available_games()
    configs = []
    for name in names:
        info = load_game(name).INFO
        counts = [players] if players else list(range(info.min_players, info.max_players + 1))
        configs += [_config(name, n, bot_specs, variant, seed) for n in counts]
    cores = numba.config.NUMBA_NUM_THREADS
    thread_list = [threads] if threads else sorted({1, cores})
    records = run_bench(configs, thread_list, n_games, rounds)
    click.echo(json.dumps(records, indent=1) if as_json else format_table(records))


@cli.command()
@click.argument("game")
@click.option("--bot", required=True, help="the bot to tune, e.g. bidder")
@click.option("--grid", "grid_items", multiple=True, required=True, metavar="NAME=V1,V2,…",
              help="values to try for one parameter (repeatable; every combination is played)")
@click.option("--against", default="random", show_default=True, help="the bot in every other seat")
@click.option("--players", type=int, default=None)
@click.option("--games", "n_games", type=click.IntRange(min=1), default=2000, show_default=True, help="games per seat per candidate")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@_variant_option
@click.option("--threads", type=click.IntRange(min=1), default=None)
def tune(game, bot, grid_items, against, players, n_games, seed, variant, threads):
    """Rank settings of a bot's parameters by win rate against a field (every seat)."""
    from experiments.tune import parse_grid, tune as run_tune

    table = run_tune(game, bot, parse_grid(grid_items), against, players, n_games, seed,
                     parse_variant_args(variant), threads)
    click.echo(table.drop(columns=["bot"]).to_string(index=False, float_format=lambda x: f"{x:.4f}"))


def _fail(message: str, code: int = 2) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def main(argv=None) -> None:
    """Entry point: every failure is one ``error:`` line on stderr and a non-zero exit."""
    from simcore.runner import KernelError

    try:
        rv = cli.main(args=argv, prog_name="playlab", standalone_mode=False)
    except click.exceptions.Abort:
        _fail("aborted", 130)
    except click.ClickException as exc:
        _fail(exc.format_message().replace("\n", " "), exc.exit_code or 2)
    except KeyboardInterrupt:
        _fail("interrupted; results written so far are kept (rerun to resume)", 130)
    except (ValueError, OSError, KernelError) as exc:
        _fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    except Exception as exc:  # a bug: still one line, the traceback on request
        if os.environ.get("PLAYLAB_DEBUG"):
            raise
        _fail(f"internal error: {type(exc).__name__}: {exc} (set PLAYLAB_DEBUG=1 for the traceback)", 1)
    sys.exit(rv if isinstance(rv, int) else 0)


if __name__ == "__main__":
    main()
