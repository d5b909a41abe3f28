"""Shared pieces of the `playlab` command line: the command group, common options and
checks, and running a study (the commands are in playlab/cli.py and playlab/cli_studies.py)."""
from __future__ import annotations

import contextlib
import os

import click

from . import stopping
from simcore.options import parse_variant_args
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
    """--cluster's address, checked for form as it is parsed: before any game is played, and
    before a Dask Client exists (one that fails to start prints a traceback 20 s later).
    An empty address is refused too: it would otherwise quietly run here."""
    if value is not None:
        from experiments.cluster import ClusterError, check_address

        try:
            check_address(value)
        except ClusterError as exc:
            raise click.UsageError(str(exc)) from None
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
    if p.exists() and not os.access(p, os.W_OK):
        raise click.BadParameter(f"{path} is not writable", param_hint=option)
    # the folder: not os.access, which answers yes to root everywhere (/proc and read-only
    # mounts included), but a file made and dropped beside it, so the games are not played
    # for a file that cannot be written
    import tempfile

    try:
        with tempfile.NamedTemporaryFile(dir=parent, prefix=".playlab-probe-"):
            pass
    except OSError as exc:
        raise click.BadParameter(f"{path} is not writable ({exc.strerror or exc})", param_hint=option) from None


def _check_out_dir(path, option="--out", study=False):
    """Before any game is played: the output folder exists and is writable, or can be made;
    for a ``study`` (its results go to ``DIR/results``), it is not itself the results folder
    of a ``play --out`` (the report would find two studies under one name)."""
    from pathlib import Path

    from experiments.store import MANIFEST

    if not path:
        return
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise click.BadParameter(f"{path} exists and is not a directory; give a folder", param_hint=option)
    if study and (p / MANIFEST).exists():
        raise click.BadParameter(f"{path} is the results folder of a `playlab play --out` run; a study writes a "
                                 "folder of its own: choose another --out", param_hint=option)
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


class _Command(click.Command):
    """A command whose single-valued options may be given once: click keeps the last of
    ``--bots greedy --bots random`` without a word, where fpa and sweep take repeated
    ``--bots`` as several studies and ``--variant`` refuses a name given twice."""

    def parse_args(self, ctx, args):
        once = {}
        for p in self.params:
            if isinstance(p, click.Option) and not p.multiple and not p.count:
                for name in (*p.opts, *p.secondary_opts):  # --progress and --no-progress are one option
                    once[name] = p
        seen = {}
        for arg in args:
            if arg == "--":
                break
            name = arg.split("=", 1)[0] if arg.startswith("--") else arg
            p = once.get(name)
            if p is not None:
                if p.name in seen:
                    what = name if seen[p.name] == name else f"{seen[p.name]} and {name} (one option)"
                    raise click.UsageError(f"{what} given twice: it takes one value", ctx=ctx)
                seen[p.name] = name
        return super().parse_args(ctx, args)


class _Group(click.Group):
    command_class = _Command

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


def _run(study, collector, out, progress, threads):
    from experiments.study import run_study

    _check_out_dir(out, study=True)
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


