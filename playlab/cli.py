"""The `playlab` command line (shared/spec/cli.md is the contract)."""
from __future__ import annotations

import contextlib
import json
import os
import sys

import click

from . import stopping
from simcore.options import format_value, parse_variant_args, players_text

GAME_HELP = "game: moon, shifting-stones or sequence-stacks"

# seeds and indices are stored as int64 (Parquet columns, study.json): checked here, before
# anything runs, so that a huge number is one error line and not a Numba typing error
SEED_MAX = 2**63 - 1
SEED_TYPE = click.IntRange(0, SEED_MAX)
SEED_HELP = "run seed, 0..2^63-1: game i of a run depends only on the configuration, the seed and i"
INDEX_HELP = "game index within the run, 0..2^63-1 (with the seed it reproduces the game)"
# games per configuration: what the results store can name (experiments.store.MAX_GAMES, a
# 12-digit first index per chunk file); --ci-width plans at most MAX_PLANNED_GAMES
MAX_GAMES = 10**12
MAX_PLANNED_GAMES = 10**8
GAMES_TYPE = click.IntRange(1, MAX_GAMES)


def _config(game, players, bots, variant, seed):
    from runtime.runner import RunConfig

    return RunConfig.build(game, _infer_players(players, bots), bots, parse_variant_args(variant), seed)


def _infer_players(players, bots):
    """One spec per seat: several specs and no --players means that many players."""
    if players is None and isinstance(bots, str) and "," in bots:
        return len(bots.split(","))
    return players


def _variant_option(f):
    return click.option("--variant", "variant", multiple=True, metavar="NAME=VALUE",
                        help="rule option, each name once (repeatable); see `playlab games`  [default: the rules as written]")(f)


def _remember_store(ctx, param, value):
    """Where a stop counts the stored games, known from the start (play --out: the folder
    itself; a study's --out: its results/)."""
    if value:
        stopping.STATE["store"] = value if ctx.command.name == "play" else os.path.join(value, "results")
    return value


def _remember_cluster(ctx, param, value):
    ctx.meta["playlab.cluster"] = value
    return value


def _warn(message: str) -> None:
    click.echo(f"warning: {message}", err=True)


def _check_threads(threads):
    """--threads beyond this machine's cores runs on the cores there are: say so once."""
    import numba

    limit = numba.config.NUMBA_NUM_THREADS
    ctx = click.get_current_context()
    if threads and threads > limit and not ctx.meta.get("playlab.cluster") and not ctx.meta.get("playlab.threads_said"):
        ctx.meta["playlab.threads_said"] = True
        _warn(f"--threads {threads} is more than the {limit} cores here (NUMBA_NUM_THREADS); using {limit}")


def _check_winnable(configs):
    """Before running: a configuration whose options leave no game winnable (the game's
    ``INFO.impossible``) would only produce truncated games; say why, once per reason."""
    said = set()
    for config in configs:
        check = getattr(config.info, "impossible", None)
        reason = check(config.variant, config.players) if check else None
        if reason and reason not in said:
            said.add(reason)
            _warn(f"{config.game}: {reason}; expect every game to run to its cap (truncated, no winner)")


class TruncationWatch:
    """Wraps a chunk callback and counts truncated games (warns after running when most
    of them were)."""

    def __init__(self, inner=None):
        self.inner = inner
        self.games = 0
        self.truncated = 0

    def __call__(self, task, frame):
        self.games += len(frame)
        self.truncated += int(frame["truncated"].to_numpy().astype(bool).sum())
        if self.inner is not None:
            self.inner(task, frame)

    def report(self, configs):
        if self.games and self.truncated * 2 > self.games:
            from experiments.results import truncation_option

            option = truncation_option(configs[0].info)
            hint = f" (raise {option} with --variant {option}=N, or check the options)" if option else ""
            _warn(f"{self.truncated} of {self.games} games ({self.truncated / self.games:.0%}) were truncated "
                  f"by the game's cap: their results say little{hint}")


# on play and every study; read back by _executor so the commands' signatures stay as they are
_cluster_option = click.option("--cluster", metavar="ADDR", default=None, expose_value=False,
                               callback=_remember_cluster,
                               help="run on the Dask scheduler at ADDR (e.g. tcp://host:8786); same results  [default: run here]")


@contextlib.contextmanager
def _executor(threads):
    """The executor for --cluster (None: run here), closed afterwards."""
    address = click.get_current_context().meta.get("playlab.cluster")
    _check_threads(threads)
    if not address:
        yield None
        return
    from experiments.cluster import executor_for

    executor = executor_for(address, threads)
    try:
        yield executor
    finally:
        executor.close()


def _trace_games(text, n_games, trace_file):
    if text is None:
        return min(100, n_games)
    if not trace_file:
        raise click.UsageError("--trace-games needs --trace FILE (where to write the traces)")
    if str(text).strip().lower() == "all":
        return n_games
    try:
        k = int(text)
    except ValueError:
        k = -1
    if k < 0:
        raise click.BadParameter(f"takes a number of games >= 0 or 'all', not {text!r}", param_hint="--trace-games")
    return min(k, n_games)


def _check_writable(path, option):
    from pathlib import Path

    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise click.BadParameter(f"{path} is a directory", param_hint=option)
    if not parent.is_dir():
        raise click.BadParameter(f"directory {parent} does not exist", param_hint=option)
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise click.BadParameter(f"{path} is not writable", param_hint=option)


def _check_out_dir(path, option="--out"):
    """Before any game is played: the output folder exists and is writable, or can be made."""
    from pathlib import Path

    if not path:
        return
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise click.BadParameter(f"{path} exists and is not a directory; give a folder", param_hint=option)
    base = p
    while not base.exists():
        base = base.parent
    if not base.is_dir():
        raise click.BadParameter(f"{base} is a file, so {path} cannot be a folder; choose another --out",
                                 param_hint=option)
    try:
        p.mkdir(parents=True, exist_ok=True)  # an empty folder: nothing a later run would trust
    except OSError as exc:
        raise click.BadParameter(f"cannot create the folder {path} ({exc.strerror}); choose a folder you can "
                                 "write to", param_hint=option) from None
    if not os.access(p, os.W_OK | os.X_OK):
        raise click.BadParameter(f"cannot write into {path}; choose a folder you can write to", param_hint=option)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("playlab")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _group_help() -> str:
    from simcore.games import game_names

    return ("playlab: simulate tabletop games by the million for strategy and balance research.\n\n"
            f"Games: {', '.join(game_names())} (`playlab games` for their options, `playlab bots` for the bots). "
            "`playlab COMMAND --help` explains a command and its options.")


class _Stopped(Exception):
    """Ctrl-C or SIGTERM, carried past click (which would print an empty line and say
    only "Aborted") to :func:`main`."""


class _Group(click.Group):
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:
            raise _Stopped(str(exc)) from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"], "show_default": True},
             help=_group_help())
@click.version_option(version=_version(), prog_name="playlab", message="%(prog)s %(version)s")
@click.option("--plugin", "plugins", multiple=True, metavar="MODULE_OR_FILE",
              help="import a plugin (a module name or a .py file) that registers games and bots before the "
                   "command runs (repeatable; also PLAYLAB_PLUGINS, colon-separated, and installed "
                   "`playlab.plugins` entry points)")
def cli(plugins):
    from runtime.plugins import load_configured

    load_configured(plugins)


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
            _echo_balance_metrics(name)
        click.echo("")


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


@cli.command(short_help="bots and their parameters, defaults and ranges")
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
                if p.choices:
                    click.echo(f"      {p.name:<16} default {p.choices[int(p.default)]:<8} one of "
                               f"{'|'.join(p.choices)}  {p.help}")
                    continue
                click.echo(f"      {p.name:<16} default {fmt.format(p.default):<8} range {p.low:g}..{p.high:g}  {p.help}")
            for t in spec.text_params:
                click.echo(f"      {t:<16} a file (e.g. {spec.name}:{t}=PATH)")
        click.echo("")


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
        given = players or _infer_players(None, bot_specs)  # several specs: that many players, as in play
        counts = [given] if given else list(range(info.min_players, info.max_players + 1))
        configs += [_config(name, n, bot_specs, variant, seed) for n in counts]
    cores = numba.config.NUMBA_NUM_THREADS
    _check_threads(threads)
    _check_winnable(configs)
    thread_list = [threads] if threads else sorted({1, cores})
    records = run_bench(configs, thread_list, n_games, rounds, progress=_bench_progress)
    click.echo(json.dumps(records, indent=1) if as_json else format_table(records))


def _bench_progress(done, total, config, threads):
    from simcore.options import players_text

    bots = ",".join(sorted(set(config.bot_labels)))
    click.echo(f"bench {done + 1}/{total}: {config.game}, {players_text(config.players)}, {bots}, "
               f"{threads} thread{'s' if threads != 1 else ''}", err=True)


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
@click.option("--delay", type=click.FloatRange(min=0), default=0.5, show_default=True, help="seconds to pause after each bot move")
@click.option("--trace", "trace_file", type=click.Path(dir_okay=False), default=None,
              help="where to write the finished game's trace  [default: human-GAME-seedS-gameI.jsonl here]")
def human(game, players, bot_specs, seat, seed, index, variant, delay, trace_file):
    """Play one game in the terminal as seat --seat against the bots: your view, your
    legal moves numbered, the bots' moves as they happen; ? for the rules, q to quit;
    at the end the result and a trace the replay engines accept."""
    from experiments.human import Session, play as play_human

    from experiments.human import default_trace_path

    session = Session(game, players, bot_specs, seat, seed, index, parse_variant_args(variant))
    _check_writable(trace_file or default_trace_path(session), "--trace")  # before the game, not after it
    _check_winnable([session.config])
    try:
        play_human(session, read=input, write=click.echo, delay=delay, trace_path=trace_file)
    except KeyboardInterrupt:
        raise KeyboardInterrupt(f"game abandoned after {len(session.game.actions)} moves; no trace written") from None


@cli.command(short_help="rank a bot's parameter settings by win rate")
@click.argument("game")
@click.option("--bot", required=True, help="the bot to tune, e.g. bidder  [required]")
@click.option("--grid", "grid_items", multiple=True, required=True, metavar="NAME=V1,V2,…",
              help="values to try for one parameter, each once (repeatable, one per parameter; every "
                   "combination is played)  [required]")
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
                                           "games_per_seat": n_games, "chance": 1.0 / n, "table": table})))
        return
    click.echo(f"{field.info.title}, {players_text(n)}: {bot} in each seat in turn against {field.bot_labels[0]} "
               f"in the others, {n_games} games per seat, seed {seed}; chance win rate 1/{n} = {1.0 / n:.4f}")
    click.echo(table.drop(columns=["bot"]).to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    click.echo("win rates over decided games with 95% Wilson intervals; every candidate plays the same deals")


# ---- studies ---------------------------------------------------------------------------------
DEFAULT_STUDY_GAMES = 2000


def _study_options(games_help):
    def wrap(f):
        for opt in reversed([
            click.option("--games", "n_games", type=GAMES_TYPE, default=None,
                         help=f"{games_help}  [default: {DEFAULT_STUDY_GAMES}, or chosen by --ci-width]"),
            click.option("--ci-width", "ci_width", type=float, default=None, metavar="W",
                         help="choose --games in advance for a 95% interval half-width W (0 < W < 0.5)  [default: none]"),
            click.option("--pilot", type=float, default=0.5, show_default=True,
                         help="with --ci-width: the proportion to plan for (0.5 is the worst case)"),
            click.option("--seed", type=SEED_TYPE, default=0, show_default=True, help=SEED_HELP),
            click.option("--out", type=click.Path(file_okay=False), default=None, callback=_remember_store,
                         help="write tables (CSV), plots, study.json and the Parquet results here (resumable)  "
                              "[default: print only]"),
            click.option("--threads", type=click.IntRange(min=1), default=None, help="threads  [default: all cores]"),
            _cluster_option,
            click.option("--progress/--no-progress", default=None, help="progress bar on stderr  [default: on a terminal]"),
            click.option("--json", "as_json", is_flag=True, help="print the tables as JSON on stdout"),
        ]):
            f = opt(f)
        return f
    return wrap


def _study_games(n_games, ci_width, pilot, what):
    """--games, or the number chosen in advance for --ci-width (never by watching results)."""
    if ci_width is None:
        return (n_games or DEFAULT_STUDY_GAMES), None
    if n_games is not None:
        raise click.UsageError("give --games or --ci-width, not both")
    if not 0.0 < ci_width < 0.5:
        raise click.BadParameter(f"must be between 0 and 0.5 (exclusive), not {ci_width:g}", param_hint="--ci-width")
    from experiments.stats import games_for_half_width

    if not 0.0 < pilot < 1.0:
        raise click.BadParameter(f"must be between 0 and 1 (exclusive), not {pilot:g}", param_hint="--pilot")
    games = games_for_half_width(ci_width, pilot)
    if games > MAX_PLANNED_GAMES:
        raise click.UsageError(f"--ci-width {ci_width:g} at --pilot {pilot:g} needs {games:.3g} games {what}, more "
                               f"than the {MAX_PLANNED_GAMES:,} it plans at most; ask for a wider interval, or for "
                               f"that many games with --games N (up to {MAX_GAMES:,})")
    note = (f"--ci-width {ci_width:g}: {games} games {what}, chosen in advance for a 95% half-width of "
            f"{ci_width:g} at p = {pilot:g}")
    return games, note


def _finish_study(kind, study, collector, tables, text, outcome, out, as_json, note, plots):
    from experiments.study import to_jsonable, write_tables

    files = []
    if out:
        files = write_tables(out, tables)
        for name, draw in plots:
            draw(os.path.join(out, name))
            files.append(name)
    if as_json:
        record = {"study": kind, "games_per_run": study.games, "runs": len(study.configs), "seed": study.seed,
                  "chosen_games": note, "simulated": outcome.simulated, "seconds": outcome.seconds,
                  "out": out, "files": files, "tables": tables, "meta": study.meta}
        click.echo(json.dumps(to_jsonable(record)))
        return
    if note:
        click.echo(note)
    click.echo(text)
    rate = outcome.simulated / outcome.seconds if outcome.seconds > 0 else 0.0
    done = (f"simulated {outcome.simulated} games in {outcome.seconds:.1f} s ({rate:,.0f} games/s)"
            if outcome.simulated else "all games were already stored; nothing simulated")
    click.echo(done + (f"; {outcome.stored} read back from {out}" if outcome.stored else ""))
    if out:
        click.echo(f"wrote {out}: {', '.join(files)}, study.json, results/ (Parquet)")


@cli.command(short_help="every seating of the bots: ratings and pairwise table")
@click.argument("game")
@click.option("--players", type=int, default=None, help="seats  [default: the number of bots, within the game's range]")
@click.option("--bots", "bot_specs", required=True, help="two or more different bot specs, comma separated  [required]")
@click.option("--mode", type=click.Choice(["all", "rotate"]), default="all", show_default=True,
              help="all: every seating in which each bot plays (or every ordered choice of bots when there are "
                   "more bots than seats); rotate: the listed order cycled through the seats")
@click.option("--boot", "n_boot", type=click.IntRange(min=0), default=200, show_default=True,
              help="bootstrap resamples of deals for the rating intervals")
@_variant_option
@_study_options("games per seating (every seating plays the same deals)")
def tournament(game, players, bot_specs, mode, n_boot, variant, n_games, ci_width, pilot, seed, out, threads,
               progress, as_json):
    """Every seating of the bots over the same deals: ratings with 95% intervals
    (ratings.csv, ratings.png) and a pairwise table (pairwise.csv, pairwise.png)."""
    from experiments import tournament as t
    from reports import plots

    games, note = _study_games(n_games, ci_width, pilot, "per seating")
    study = t.build(game, players, bot_specs, games, seed, parse_variant_args(variant), mode)
    collector = t.Collector(study, n_boot)
    outcome = _run(study, collector, out, progress, threads)
    stopping.phase("ratings")
    tables = t.summarize(study, collector)
    title = f"{study.configs[0].info.title}, {study.meta['players']} players"
    _finish_study("tournament", study, collector, tables, t.format_tables(study, collector, tables), outcome,
                  out, as_json, note,
                  [("ratings.png", lambda p: plots.ratings_plot(tables["ratings"], p, title)),
                   ("pairwise.png", lambda p: plots.pairwise_heatmap(tables["pairwise"], p, title))])


@cli.command(short_help="first-player advantage per player count")
@click.argument("game")
@click.option("--bots", "bot_spec", default="random", show_default=True, help="the one bot spec that plays every seat")
@click.option("--players", "players", default=None, metavar="A-B",
              help="player counts: N, A-B or a comma list  [default: every count of 2 or more the game allows]")
@_variant_option
@_study_options("games per player count")
def fpa(game, bot_spec, players, variant, n_games, ci_width, pilot, seed, out, threads, progress, as_json):
    """First-player advantage: win rate by position per player count with 95% Wilson
    intervals against the fair 1/n, and a chi-square test of equal seats (fpa.csv,
    fpa_tests.csv, fpa.png)."""
    from experiments import fpa as f
    from reports import plots

    games, note = _study_games(n_games, ci_width, pilot, "per player count")
    study = f.build(game, bot_spec, players, games, seed, parse_variant_args(variant))
    collector = f.Collector(study)
    outcome = _run(study, collector, out, progress, threads)
    tables = f.summarize(study, collector)
    xlabel = "position from the first player" if collector.first_col else "seat (0 plays first)"
    title = f"{study.configs[0].info.title}: {study.meta['bot']} in every seat"
    _finish_study("fpa", study, collector, tables, f.format_tables(study, collector, tables), outcome, out,
                  as_json, note, [("fpa.png", lambda p: plots.fpa_plot(tables["fpa"], p, title, xlabel))])


@cli.command(short_help="the same games under each value of rule options")
@click.argument("game")
@click.option("--vary", "vary", multiple=True, required=True, metavar="NAME=V1,V2,…",
              help="a rule option and the values to try, each once (repeatable, one per option: every "
                   "combination); the baseline (all defaults) is always included  [required]")
@click.option("--players", type=int, default=None, help="number of players  [default: the number of --bots specs, "
              "or the game's smallest multi-player count]")
@click.option("--bots", "bot_specs", default="random", show_default=True, help="one spec per seat, comma separated")
@click.option("--metrics", "metrics", default=None, metavar="M1,M2,…",
              help="the comparisons with the baseline to test, Holm-corrected together: seats, turns, decisions, "
                   "margin, truncated, bots  [default: all]")
@_study_options("games per setting (every setting plays the same deals)")
def sweep(game, vary, players, bot_specs, metrics, n_games, ci_width, pilot, seed, out, threads, progress, as_json):
    """The same games under each value of rule options, each compared with the baseline
    on the same deals (sweep.csv, sweep_tests.csv, sweep.png)."""
    from experiments import sweep as sw
    from reports import plots

    games, note = _study_games(n_games, ci_width, pilot, "per setting")
    study = sw.build(game, vary, _infer_players(players, bot_specs), bot_specs, games, seed, metrics=metrics)
    collector = sw.Collector(study)
    outcome = _run(study, collector, out, progress, threads)
    tables = sw.summarize(study, collector)
    labels = [sw.value_label(study, r).replace(" (baseline)", "*") for r in range(len(study.configs))]
    title = f"{study.configs[0].info.title}, {players_text(study.configs[0].players)} (* baseline)"
    _finish_study("sweep", study, collector, tables, sw.format_tables(study, collector, tables), outcome, out,
                  as_json, note, [("sweep.png", lambda p: plots.sweep_plot(tables["sweep"], labels, p, title))])


@cli.command(short_help="train the learned bot from a teacher's moves")
@click.argument("game")
@click.option("--teacher", default="mcts", show_default=True,
              help="the bot whose moves are learned (in each seat in turn, greedy in the others)")
@click.option("--players", type=int, default=None, help="player count  [default: Moon 3, others 2]")
@click.option("--teacher-games", type=click.IntRange(min=1), default=800, show_default=True,
              help="teacher games per seat (recorded in chunks of 8 under --out)")
@click.option("--epochs", type=click.IntRange(min=0), default=20, show_default=True, help="passes over the examples")
@click.option("--hidden", type=click.IntRange(1, 1024), default=32, show_default=True, help="hidden units")
@click.option("--eval-games", type=click.IntRange(min=1), default=500, show_default=True,
              help="games per seat against greedy for each point of the learning curve")
@click.option("--seed", type=SEED_TYPE, default=0, show_default=True, help="seed of the teacher's games, the initial weights and the minibatches")
@_variant_option
@click.option("--out", type=click.Path(file_okay=False), required=True,
              help="folder for the teacher's games, the training state, model.npz, curve.csv and curve.png "
                   "(rerun with the same options to resume)  [required]")
@click.option("--workers", type=click.IntRange(min=1), default=2, show_default=True, help="processes playing the teacher's games")
@click.option("--threads", type=click.IntRange(min=1), default=None, help="threads of the learning-curve games  [default: all cores]")
@click.option("--progress/--no-progress", default=None, help="progress bar on stderr  [default: on a terminal]")
def train(game, teacher, players, teacher_games, epochs, hidden, eval_games, seed, variant, out, workers, threads, progress):
    """Fit the learned bot's network to TEACHER's moves in GAME (teacher against greedy, every
    seat in turn), with a learning curve against greedy; `learned:model=OUT/model.npz` plays it."""
    from experiments.train import TrainConfig, default_players, train as run_train

    cfg = _config(game, players or default_players(game), teacher, variant, seed)
    if cfg.bots[0].is_agent:
        raise click.BadParameter("the teacher must be a compiled bot, not a py: agent", param_hint="--teacher")
    _check_threads(threads)
    config = TrainConfig(game, cfg.players, dict(cfg.variant), cfg.bot_labels[0], seed, teacher_games, epochs,
                         hidden, eval_games)
    result = run_train(config, out, workers=workers, threads=threads, progress=progress)
    curve = result["curve"]
    click.echo(curve[["epoch", "loss", "teacher_agreement", "win_rate", "ci_low", "ci_high"]]
               .to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    click.echo(f"{result['examples']} examples from {teacher_games} teacher games per seat "
               f"({result['teacher_seconds']:.0f} s); {result['seconds']:.0f} s in all")
    click.echo(f"model (epoch {result['best_epoch']}): {result['model']}; play it with "
               f"--bots learned:model={result['model']}; curve: {os.path.join(out, 'curve.png')}")


@cli.command(short_help="search rule variants for those that meet every target")
@click.argument("game")
@click.option("--vary", "vary", multiple=True, required=True, metavar="NAME=V1,V2,…",
              help="a rule option and the values to try (repeatable, one per option: every combination is a "
                   "variant)  [required]")
@click.option("--target", "targets", multiple=True, required=True, metavar="T",
              help="METRIC<=X, METRIC>=X or METRIC=A..B, checked at every player count (metrics: fpa, turns, "
                   "margin, truncated; repeatable)  [required]")
@click.option("--players", default=None, metavar="N|A-B",
              help="player counts: N, A-B or a comma list  [default: every count of 2 or more the game allows]")
@click.option("--bots", "bot_spec", default="greedy", show_default=True, help="the bot in every seat (one spec)")
@click.option("--budget", type=click.IntRange(min=1, max=10**12), default=None,
              help="games to spend at most, over all variants and player counts  [default: 400000]")
@click.option("--first-round", "first_round", type=click.IntRange(min=50, max=10**7), default=None,
              help="games per variant and player count in the first round (doubled each round)  [default: 1000]")
@click.option("--seed", type=SEED_TYPE, default=0, show_default=True, help=SEED_HELP)
@click.option("--out", type=click.Path(file_okay=False), default=None, callback=_remember_store,
              help="write balance.csv, study.json and the Parquet results here (resumable)  [default: print only]")
@click.option("--threads", type=click.IntRange(min=1), default=None, help="threads  [default: all cores]")
@_cluster_option
@click.option("--progress/--no-progress", default=None, help="progress bar on stderr  [default: on a terminal]")
@click.option("--json", "as_json", is_flag=True, help="print the table as JSON on stdout")
def balance(game, vary, targets, players, bot_spec, budget, first_round, seed, out, threads, progress, as_json):
    """Search the variants of --vary for those that meet every --target at every player
    count: racing on paired deals (every variant plays the same deals), each round
    doubling the games of the variants still undecided and dropping a variant as soon as
    one target's 95% interval lies outside it (balance.csv: one row per variant with its
    games, each target's metric and interval per player count, and meets =
    true/false/undecided)."""
    from pathlib import Path

    from experiments import balance_search as bs
    from experiments.study import RESULTS_DIR, execute_study, to_jsonable, write_atomically, write_tables

    search = bs.build(game, vary, targets, players, bot_spec, seed, budget or bs.DEFAULT_BUDGET,
                      first_round or bs.FIRST_ROUND)
    _check_out_dir(out)
    _check_winnable(search.study.configs)
    store = None
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        store = Path(out) / RESULTS_DIR
    from experiments.study import LocalExecutor

    simulated = []
    stopping.hook_study()
    with _executor(threads) as remote:
        executor = remote or LocalExecutor(threads)

        def play(study):
            outcome = execute_study(study, executor=executor, store=store, progress=progress, keep_frame=True,
                                    threads=threads)
            simulated.append(outcome.simulated)
            return outcome.frame

        table = bs.race(search, play, log=lambda line: click.echo(line, err=True))
        describe = executor.describe()
    tables = {"balance": table}
    files = []
    if out:
        files = write_tables(out, tables)
        record = search.study.describe()
        record.update(describe, results=RESULTS_DIR, games_spent=table.attrs["spent"])
        text = json.dumps(to_jsonable(record), indent=1) + "\n"
        write_atomically(Path(out) / "study.json", lambda tmp: tmp.write_text(text))
    if as_json:
        click.echo(json.dumps(to_jsonable({"study": "balance", "seed": seed, "spent": table.attrs["spent"],
                                           "simulated": sum(simulated), "out": out, "files": files,
                                           "tables": tables, "meta": search.study.meta})))
        return
    click.echo(bs.format_table(search, table))
    if out:
        click.echo(f"wrote {out}: {', '.join(files)}, study.json, results/ (Parquet)")


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
    from runtime.check import check as run_check

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


def _run(study, collector, out, progress, threads):
    from experiments.study import run_study

    _check_out_dir(out)
    _check_winnable(study.configs)
    stopping.phase("start-up")
    stopping.hook_study()
    watch = TruncationWatch(collector)
    with _executor(threads) as executor:
        outcome = run_study(study, watch, out=out, progress=progress, threads=threads, executor=executor)
    stopping.phase("summarising")
    if outcome.note:
        click.echo(outcome.note, err=True)
    watch.report(study.configs)
    return outcome


def _fail(message: str, code: int = 2) -> None:
    stopping.said()
    click.echo(f"error: {message}", err=True)
    if code == 130:
        stopping.exit_now(code)
    sys.exit(code)


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """A results warning (files the reader ignores) as one ``warning:`` line."""
    if category.__name__ == "ResultsWarning":
        click.echo(f"warning: {message}", err=True)
    else:
        _default_showwarning(message, category, filename, lineno, file, line)


def main(argv=None) -> None:
    """Entry point: every failure is one ``error:`` line on stderr and a non-zero exit."""
    import warnings

    global _default_showwarning
    from runtime.runner import KernelError

    # SIGTERM stops like Ctrl-C: finished chunks are kept and the message says so
    stopping.install(program=argv is None)
    _default_showwarning = warnings.showwarning
    warnings.showwarning = _show_warning
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
    except (ValueError, OSError, KernelError) as exc:
        _fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    except Exception as exc:  # a bug: still one line, the traceback on request
        if os.environ.get("PLAYLAB_DEBUG"):
            raise
        _fail(f"internal error: {type(exc).__name__}: {exc} (set PLAYLAB_DEBUG=1 for the traceback)", 1)
    sys.exit(rv if isinstance(rv, int) else 0)


_default_showwarning = None


if __name__ == "__main__":
    main()
