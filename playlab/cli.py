"""The `playlab` command line (shared/spec/cli.md is the contract): the entry point and the
commands other than the studies (playlab/cli_studies.py); shared pieces in playlab/cli_base.py."""
from __future__ import annotations

import json
import os
import sys

import click

from . import stopping
from simcore.options import format_value, parse_variant_args, players_text
from .cli_base import (  # MAX_GAMES: the bound `--games` takes, read by tests as playlab.cli.MAX_GAMES
    GAMES_TYPE, INDEX_HELP, MAX_GAMES, SEED_HELP, SEED_TYPE, TruncationWatch, _Stopped, _check_out_dir,
    _check_threads, _check_winnable, _check_writable, _cluster_option, _config, _executor, _infer_players,
    _remember_store, _trace_games, _variant_option, cli)
from . import cli_studies  # noqa: F401  (registers the study commands on `cli`)


@cli.command(short_help="games, player counts, rule options and result columns")
@click.argument("game", required=False)
def games(game):
    """List the games: player counts and rule options with defaults; with GAME, also its
    result columns and what they mean."""
    from simcore.games import UnknownGame, game_names, load_game

    names = [game] if game else game_names()
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
            default = format_value(o.default)
            click.echo(f"  {o.name:<20} default {default!s:<8} [{o.describe_range()}]  {o.help}")
        if game:
            _echo_columns(info)
            _echo_observation(load_game(name))
            _echo_balance_metrics(name)
        click.echo("")


def _echo_observation(module):
    """The observation vector a Python agent reads (``view.observation``) and the PettingZoo
    environments give: its size and layout, field by field."""
    from simcore.layout import observation_layout

    info = module.INFO
    if info.observation_size is None:
        click.echo("observation: none (the game declares no observation vector)")
        return
    sizes = sorted({info.observation_size(n) for n in range(info.min_players, info.max_players + 1)})
    layout = observation_layout(module)
    click.echo(f"observation (view.observation, the PettingZoo environments): float32, "
               f"{' / '.join(map(str, sizes))} entries" + (" by player count" if len(sizes) > 1 else "")
               + ("; seat blocks (r) are relative to the observer (0 = itself, 1 = the next seat to play after "
                  "it, ...)" if layout is not None else "; the game declares no layout of it"))
    if layout is not None:
        click.echo(layout.table())


def _echo_balance_metrics(name):
    from experiments.balance_search import METRICS, game_metrics

    click.echo("balance targets (playlab balance --target METRIC<=X | METRIC>=X | METRIC=A..B):")
    for metric, help_text in {**METRICS, **{k: h for k, (h, _) in game_metrics(name).items()}}.items():
        click.echo(f"  {metric:<20} {help_text}")


def _echo_columns(info):
    from runtime.runner import RUNNER_COLUMN_DOCS

    click.echo("result columns (S = seat):")
    for col, doc in RUNNER_COLUMN_DOCS:
        click.echo(f"  {col:<20} {doc}")
    docs = tuple(getattr(info, "column_docs", ()) or ())
    if not docs:
        click.echo("  (no column descriptions)")
        return
    for col, doc in docs:
        click.echo(f"  {col:<20} {doc}")


def _rate(x: float) -> str:
    return f"{x:,.0f}" if x >= 10 else f"{x:.2g}"


@cli.command(short_help="bots and their parameters, defaults and ranges")
@click.argument("game", required=False)
def bots(game):
    """List bots, their parameters, defaults and ranges (for GAME, or every game)."""
    from bots.registry import bots_for
    from simcore.games import available_games, load_game

    from bots.ladder import coin_flip, ladder, rung, study_bots

    names = [game] if game else available_games()
    for name in names:
        module = load_game(name)
        click.echo(f"{name}:")
        rungs = ladder(name)
        if rungs:
            click.echo(f"  (skill levels against greedy from the measured ladder, {rungs[0].measured}: "
                       f"{rungs[0].command}; `--ladder` runs a study under "
                       f"{', '.join(study_bots(name))})")
            flip = coin_flip(name)
            if flip:
                click.echo(f"  (between the ladder's bots a coin flip decides {flip[0]:.0%} of the games, 95% "
                           f"interval {flip[1]:.0%}-{flip[2]:.0%}: the \"X%-coin-flip\" scale, 0% = skill always "
                           f"decides)")
        for spec in bots_for(module):
            click.echo(f"  {spec.name:<10} {spec.help}")
            r = rung(name, spec.name)
            if r:
                click.echo(f"      skill: {r.level} (rating {r.rating:.0f} [{r.ci_low:.0f}, {r.ci_high:.0f}] over "
                           f"{r.games} games; {_rate(r.games_per_s)} games/s on one thread against greedy)")
            elif rungs:
                click.echo("      skill: not on the ladder")
            for p in spec.params:
                if p.choices:
                    click.echo(f"      {p.name:<16} default {p.choices[int(p.default)]:<8} one of "
                               f"{'|'.join(p.choices)}  {p.help}")
                    continue
                click.echo(f"      {p.name:<16} default {p.shown(p.default):<8} range {p.shown(p.low)}..{p.shown(p.high)}  "
                           f"{p.help}")
            for i, t in enumerate(spec.text_params):
                said = f"a file (e.g. {spec.name}:{t}=PATH)" if spec.takes_file(t) else spec.text_help[i]
                click.echo(f"      {t:<16} {said}")
        click.echo("")


def _check_trace_target(trace_file, out, config):
    """``--trace`` must not name a file the run writes or reads: one inside the ``--out``
    results folder (its manifest, a chunk), a model, deck or agent module the run plays, or
    one inside a model's folder (a trace there replaced the file, and the run said it wrote
    its traces)."""
    from pathlib import Path

    from experiments.store import files_read

    t = Path(trace_file).resolve()
    if out and (t == Path(out).resolve() or Path(out).resolve() in t.parents):
        raise click.BadParameter(f"{trace_file} is inside the --out folder {out}, which holds the results; write "
                                 "the traces elsewhere", param_hint="--trace")
    for path, what in files_read(config):
        p = Path(path).resolve()
        if t == p or (p.is_dir() and p in t.parents):
            raise click.BadParameter(f"{trace_file} is {'inside ' if t != p else ''}a file the run reads "
                                     f"({what}: {path}); write the traces elsewhere", param_hint="--trace")


@cli.command(short_help="play games and print a per-seat summary")
@click.argument("game")
@click.option("--players", type=int, default=None,
              help="number of players  [default: the number of --bots specs, else the game's smallest multi-player count]")
@click.option("--bots", "bot_specs", default="random", show_default=True, help="one spec per seat, comma separated (NAME[:key=value…])")
@click.option("--games", "n_games", type=GAMES_TYPE, default=1000, show_default=True, help="games to play")
@click.option("--seed", type=SEED_TYPE, default=0, show_default=True, help=SEED_HELP)
@_variant_option
@click.option("--out", type=click.Path(file_okay=False), default=None, callback=_remember_store,
              help="write per-game results as a Parquet dataset into this folder (resumable)  [default: none]")
@click.option("--chunk", type=click.IntRange(min=1), default=None,
              help="with --out: games per stored file (a resumed run keeps its own)  [default: 100000]")
@click.option("--trace", "trace_file", type=click.Path(dir_okay=False), default=None,
              help="write game records to this file (JSON Lines; .gz compresses)  [default: none]")
@click.option("--trace-games", default=None, metavar="K|all",
              help="with --trace: trace the first K games, or all of them  [default: 100]")
@click.option("--threads", type=click.IntRange(min=1), default=None, help="threads  [default: all cores]")
@_cluster_option
@click.option("--progress/--no-progress", default=None,
              help="progress bar on stderr  [default: on for long runs on a terminal]")
@click.option("--json", "as_json", is_flag=True, help="print the summary as JSON on stdout")
def play(game, players, bot_specs, n_games, seed, variant, out, chunk, trace_file, trace_games, threads, progress, as_json):
    """Play GAMES games and print a per-seat summary (--players defaults to the number of
    --bots specs)."""
    from experiments.play import execute, format_summary, summary_record
    from experiments.study import to_jsonable

    config = _config(game, players, bot_specs, variant, seed)
    k = _trace_games(trace_games, n_games, trace_file)
    if trace_file:
        _check_writable(trace_file, "--trace")  # before the games, not after them
        _check_trace_target(trace_file, out, config)
    _check_out_dir(out)
    _check_winnable([config])
    stopping.hook_study()
    with _executor(threads) as executor:
        outcome = execute(config, n_games, threads=threads, out=out, progress=progress, executor=executor,
                          keep_frame=False, **({"chunk": chunk} if chunk else {}))
    cut = outcome.summary.truncated
    if outcome.summary.games and cut * 2 > outcome.summary.games:
        watch = TruncationWatch()
        watch.games, watch.truncated = outcome.summary.games, cut
        watch.report([config])
    if as_json:
        record = summary_record(config, outcome)
        record["out"] = out
    else:
        if outcome.note:
            click.echo(outcome.note)
        click.echo(format_summary(config, outcome))
    if trace_file:
        from runtime.runner import Batch
        from simcore.trace import build_trace, write_traces

        batch = Batch(config)
        written = write_traces(trace_file, (build_trace(batch, i) for i in range(k)))
        if as_json:
            record["traces"] = {"file": trace_file, "games": written}
        else:
            click.echo(f"wrote {written} traces to {trace_file}")
    if as_json:
        click.echo(json.dumps(to_jsonable(record)))
    elif out:
        click.echo(f"results: {out} ({outcome.summary.games} games summarised)")


@cli.command(short_help="one game step by step, in words")
@click.argument("game")
@click.option("--seed", type=SEED_TYPE, default=0, show_default=True, help=SEED_HELP)
@click.option("--index", type=SEED_TYPE, default=0, show_default=True, help=INDEX_HELP)
@click.option("--players", type=int, default=None,
              help="number of players  [default: the number of --bots specs, else the game's smallest multi-player count]")
@click.option("--bots", "bot_specs", default="random", show_default=True, help="one spec per seat, comma separated")
@_variant_option
@click.option("--view", "view_seat", type=click.IntRange(min=0), default=None,
              help="before each decision of this seat, show the game as that seat sees it  [default: no seat]")
@click.option("--json", "as_json", is_flag=True, help="print the game as structured steps and events")
def show(game, seed, index, players, bot_specs, variant, view_seat, as_json):
    """Print one game step by step: each move, its events, and what changed in words."""
    from experiments.show import format_narration, narrate
    from runtime.runner import Batch

    config = _config(game, players, bot_specs, variant, seed)
    if view_seat is not None and view_seat >= config.players:
        raise click.BadParameter(f"seat {view_seat} does not exist with {config.players} players",
                                 param_hint="--view")
    story = narrate(Batch(config), index, view_seat)
    click.echo(json.dumps(story) if as_json else format_narration(config, story))


@cli.command(short_help="throughput: games/s and decisions/s, bots' cost")
@click.argument("game", required=False)
@click.option("--games", "n_games", type=GAMES_TYPE, default=None,
              help="games per measurement  [default: enough for about a second]")
@click.option("--threads", type=click.IntRange(min=1), default=None, help="threads  [default: 1 and all cores]")
@click.option("--players", type=int, default=None, help="player count  [default: every count the game allows]")
@click.option("--bots", "bot_specs", default="random", show_default=True, help="one spec per seat, comma separated")
@_variant_option
@click.option("--seed", type=SEED_TYPE, default=0, show_default=True, help=SEED_HELP)
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
        # several specs: that many players, as in play (0 is a count, refused as play refuses it)
        given = players if players is not None else _infer_players(None, bot_specs)
        counts = [given] if given is not None else list(range(info.min_players, info.max_players + 1))
        configs += [_config(name, n, bot_specs, variant, seed) for n in counts]
    if any(c.has_agents for c in configs):
        # bench times the compiled kernels (and replays their recorded moves); an agent's
        # moves are Python calls outside them
        raise click.BadParameter("bench measures compiled bots; a Python agent (py:…) is played outside the "
                                 "kernels: time it with `playlab play`, whose summary gives games/s",
                                 param_hint="--bots")
    cores = numba.config.NUMBA_NUM_THREADS
    _check_threads(threads)
    _check_winnable(configs)
    thread_list = [threads] if threads else sorted({1, cores})
    records = run_bench(configs, thread_list, n_games, rounds, progress=_bench_progress)
    click.echo(json.dumps(records, indent=1) if as_json else format_table(records))


def _bench_progress(done, total, config, threads):
    from experiments.bench import seats_label
    from simcore.options import players_text

    bots = seats_label(config.bot_labels)
    click.echo(f"bench {done + 1}/{total}: {config.game}, {players_text(config.players)}, {bots}, "
               f"{threads} thread{'s' if threads != 1 else ''}", err=True)


# --delay is slept after every bot move: an hour is already no game; beyond about 9e9 s
# time.sleep overflows (inf: "timestamp out of range" mid-game)
MAX_DELAY = 3600.0


def _check_delay(ctx, param, value):
    """NaN passes FloatRange's comparisons; refused here, before the game starts."""
    import math

    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"takes a number of seconds from 0 to {MAX_DELAY:g}, not {value}",
                                 param_hint="--delay")
    return value


@cli.command(short_help="play one game in the terminal against the bots")
@click.argument("game")
@click.option("--players", type=int, default=None,
              help="number of players  [default: from --bots, else the game's smallest multi-player count]")
@click.option("--bots", "bot_specs", default="random", show_default=True,
              help="the other seats' bots: one spec for all, one per other seat, or one per seat with 'human' at --seat")
@click.option("--seat", type=click.IntRange(min=0), default=0, show_default=True, help="your seat (0 plays first)")
@click.option("--seed", type=SEED_TYPE, default=0, show_default=True, help=SEED_HELP)
@click.option("--index", type=SEED_TYPE, default=0, show_default=True, help=INDEX_HELP)
@_variant_option
@click.option("--delay", type=click.FloatRange(min=0, max=MAX_DELAY), default=0.5, show_default=True,
              callback=_check_delay, help="seconds to pause after each bot move")
@click.option("--trace", "trace_file", type=click.Path(dir_okay=False), default=None,
              help="where to write the finished game's trace  [default: human-GAME-seedS-gameI.jsonl here]")
def human(game, players, bot_specs, seat, seed, index, variant, delay, trace_file):
    """Play one game in the terminal as seat --seat against the bots: your view, your
    legal moves numbered, the bots' moves as they happen; ? for the rules, q to quit;
    at the end the result and a trace the replay engines accept."""
    from experiments.human import Session, default_trace_path, play as play_human, progress_words

    if trace_file:  # before the kernels compile for the session, as play checks it
        _check_writable(trace_file, "--trace")
    session = Session(game, players, bot_specs, seat, seed, index, parse_variant_args(variant))
    _check_writable(trace_file or default_trace_path(session), "--trace")  # before the game, not after it
    _check_winnable([session.config])
    try:
        play_human(session, read=input, write=click.echo, delay=delay, trace_path=trace_file)
    except KeyboardInterrupt:
        raise KeyboardInterrupt(f"game abandoned after {progress_words(session)}; no trace written") from None


@cli.command(short_help="rank a bot's parameter settings by win rate")
@click.argument("game")
@click.option("--bot", required=True, help="the bot to tune, e.g. bidder")
@click.option("--grid", "grid_items", multiple=True, required=True, metavar="NAME=V1,V2,…",
              help="values to try for one parameter, each once (repeatable, one per parameter; every "
                   "combination is played)")
@click.option("--against", default="random", show_default=True, help="the bot in every other seat")
@click.option("--players", type=int, default=None, help="number of players  [default: the game's smallest multi-player count]")
@click.option("--games", "n_games", type=GAMES_TYPE, default=2000, show_default=True, help="games per seat per candidate")
@click.option("--seed", type=SEED_TYPE, default=0, show_default=True, help=SEED_HELP)
@_variant_option
@click.option("--threads", type=click.IntRange(min=1), default=None, help="threads  [default: all cores]")
@click.option("--progress/--no-progress", default=None, help="progress bar on stderr  [default: on a terminal]")
@click.option("--json", "as_json", is_flag=True, help="print the table as JSON on stdout")
def tune(game, bot, grid_items, against, players, n_games, seed, variant, threads, progress, as_json):
    """Rank settings of a bot's parameters by win rate against a field (every seat)."""
    from experiments.study import to_jsonable
    from experiments.tune import parse_grid, tune as run_tune
    from runtime.runner import RunConfig

    field = RunConfig.build(game, players, against, parse_variant_args(variant), seed)
    n = field.players
    _check_threads(threads)
    _check_winnable([field])
    table = run_tune(game, bot, parse_grid(grid_items), against, players, n_games, seed,
                     parse_variant_args(variant), threads, progress)
    if as_json:
        click.echo(json.dumps(to_jsonable({"game": game, "players": n, "against": field.bot_labels[0], "seed": seed,
                                           "games_per_seat": n_games, "chance": 1.0 / n if n > 1 else None,
                                           "table": table})))
        return
    if n == 1:  # solo: no seat to turn, nobody to beat, and no chance level to hold a rate against
        click.echo(f"{field.info.title}, solo: {bot} alone, {n_games} games, seed {seed}; the win rate is the share "
                   "of games won")
    else:
        click.echo(f"{field.info.title}, {players_text(n)}: {bot} in each seat in turn against {field.bot_labels[0]} "
                   f"in the others, {n_games} games per seat, seed {seed}; chance win rate 1/{n} = {1.0 / n:.4f}")
    click.echo(table.drop(columns=["bot"]).to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    click.echo("win rates over decided games with 95% Wilson intervals; every candidate plays the same deals")


@cli.command(short_help="the conformance battery on a game and its bots")
@click.argument("game")
@click.option("--bots", "bot_specs", default=None,
              help="bot specs to check, comma separated (plugins and py: agents included)  [default: every bot "
                   "of the game, search bots at small budgets]")
@click.option("--players", type=int, default=None, help="player count  [default: the game's smallest and a middle one]")
@click.option("--no-protocol", is_flag=True, help="check only the bots, not the game's protocol")
def check(game, bot_specs, players, no_protocol):
    """Run the conformance battery on GAME and its bots (or the given ones): legal moves
    only, no peeking under resampling, determinism, same results on 1 and 2 threads, and the
    game's own protocol (legal actions, views, results, replay).  Exit status 1 on any
    failure."""
    from bots.registry import BotError, parse_bot, split_specs
    from runtime.check import check as run_check
    from simcore.games import load_game

    from runtime.agents import check_found

    # an unknown bot, a malformed spec, an agent file or module that does not exist, or a
    # player count the game does not take is bad input (one error line, exit 2, as every
    # other command), found before any check runs; a bot that is found but then fails to
    # load or to behave is a FAIL of the battery
    module = load_game(game)
    if players is not None:
        module.INFO.check_players(players)
    if bot_specs is not None:
        for spec in split_specs(bot_specs):
            if not spec.strip():
                raise BotError(f"empty bot spec in {bot_specs!r}")
            bot = parse_bot(module, spec)
            if bot.agent is not None:
                check_found(*bot.agent[:2])
    verdict = run_check(game, bot_specs, players, protocol=not no_protocol)
    click.echo(verdict.format())
    if not verdict.ok:
        sys.exit(1)


@cli.command(short_help="one self-contained HTML report of a results folder")
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--out", "out", type=click.Path(dir_okay=False), default=None,
              help="the HTML file to write  [default: DIRECTORY/report.html]")
def report(directory, out):
    """One self-contained HTML balance report of every study written into DIRECTORY
    (play --out, tournament, fpa, sweep): plots embedded, readable offline and printable."""
    from reports.report import write_report

    if not os.path.isdir(directory):
        raise click.BadParameter(f"{directory} is not a folder; give the --out folder of a study or of play --out",
                                 param_hint="DIRECTORY")
    stopping.phase("reading")
    path = write_report(directory, out or os.path.join(directory, "report.html"))
    click.echo(f"wrote {path}")


@cli.command(short_help="check every stored byte of a results folder")
@click.argument("directory", type=click.Path(file_okay=False))
def verify(directory):
    """Check every results store in DIRECTORY (a study's --out folder, a play --out folder,
    or a folder of studies) completely: the manifest's checksum, every chunk's bytes against
    its recorded SHA-256, its rows against its name and the manifest's configuration (seed,
    game, options, bots), gaps and duplicate games, and study.json against the manifest.
    Names each problem and the games to recompute (rerunning the study's command with the
    same --out recomputes exactly those); exit status 1 when anything is wrong."""
    from experiments.verify import format_verdicts, verify as run_verify

    if not os.path.isdir(directory):
        raise click.BadParameter(f"{directory} is not a folder", param_hint="DIRECTORY")
    stopping.phase("reading")
    verdicts = run_verify(directory)
    click.echo(format_verdicts(verdicts))
    if not all(v.ok for v in verdicts):
        sys.exit(1)


def _fail(message: str, code: int = 2) -> None:
    stopping.said()
    click.echo(f"error: {message}", err=True)
    if code == 130:
        stopping.exit_now(code)
    sys.exit(code)


_warned: set = set()


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """A Python warning raised while a command runs (the statistics' caveats, a results
    folder's ignored files, a library's notice) as one ``warning:`` line, like the CLI's own
    (cli_base._warn), not the interpreter's file, line number and source line; the same
    text once per command, from wherever it is raised."""
    from .cli_base import _warn

    text = " ".join(str(message).split())
    if text in _warned:
        return
    _warned.add(text)
    _warn(text)


def main(argv=None) -> None:
    """Entry point: every failure is one ``error:`` line on stderr and a non-zero exit."""
    import warnings

    # SIGTERM stops like Ctrl-C: finished chunks are kept and the message says so
    stopping.install(program=argv is None)
    # restored on the way out: main() may run more than once in a process (tests, notebooks)
    previous = warnings.showwarning
    warnings.showwarning = _show_warning
    _warned.clear()
    try:
        _main(argv)
    except SystemExit as exc:
        code = exc.code
        if code is None or isinstance(code, int):  # a text code is click's, printed by Python on the way out
            stopping.leave(code or 0)
        raise
    finally:
        warnings.showwarning = previous


def _main(argv) -> None:
    from runtime.runner import KernelError

    try:
        rv = cli.main(args=argv, prog_name="playlab", standalone_mode=False)
    except click.exceptions.Abort as exc:
        # click turns Ctrl-C / SIGTERM into Abort; the study layer's message says what is kept
        cause = exc.__cause__
        _fail(stopping.stopped_line(str(cause) if isinstance(cause, KeyboardInterrupt) else None), 130)
    except click.ClickException as exc:
        _fail(exc.format_message().replace("\n", " "), exc.exit_code or 2)
    except (KeyboardInterrupt, _Stopped) as exc:
        _fail(stopping.stopped_line(str(exc)), 130)
    except Exception as exc:
        if stopping.signalled():  # the stop, surfacing as another error (stopping._stop)
            _fail(stopping.stopped_line(), 130)
        if isinstance(exc, (ValueError, OSError, KernelError)):
            _fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        # a bug: still one line, the traceback on request
        if os.environ.get("PLAYLAB_DEBUG"):
            raise
        _fail(f"internal error: {type(exc).__name__}: {exc} (set PLAYLAB_DEBUG=1 for the traceback)", 1)
    sys.exit(rv if isinstance(rv, int) else 0)


if __name__ == "__main__":
    main()
