"""The study commands of `playlab`: tournament, fpa, sweep (under one or several bots),
train and balance."""
from __future__ import annotations

import json
import os

import click

from . import stopping
from simcore.options import parse_variant_args, players_text
from .cli_base import (
    GAMES_TYPE, MAX_GAMES, MAX_PLANNED_GAMES, SEED_HELP, SEED_TYPE, _check_out_dir, _check_threads,
    _check_winnable, _cluster_option, _warn, _config, _executor, _infer_players, _remember_store, _run,
    _variant_option, cli)


# ---- studies ---------------------------------------------------------------------------------
DEFAULT_STUDY_GAMES = 2000


def _study_options(games_help):
    def wrap(f):
        for opt in reversed([
            click.option("--games", "n_games", type=GAMES_TYPE, default=None,
                         help=f"{games_help}  [default: {DEFAULT_STUDY_GAMES}, or chosen by --ci-width]"),
            click.option("--ci-width", "ci_width", type=float, default=None, metavar="W",
                         help="choose --games in advance for a 95% interval half-width W (0 < W < 0.5)  [default: none]"),
            click.option("--pilot", type=float, default=None,
                         help="with --ci-width: the proportion to plan for  [default: 0.5, the worst case]"),
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
        if pilot is not None:  # it plans nothing without --ci-width: said, not silently dropped
            raise click.UsageError("--pilot only works with --ci-width (it is the proportion the interval's width "
                                   "is planned for)")
        return (n_games or DEFAULT_STUDY_GAMES), None
    pilot = 0.5 if pilot is None else pilot
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


def _finish_study(kind, study, collector, tables, text, outcome, out, as_json, note, plots, records=None):
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
        if records is not None:  # one of several bots' studies: printed together by _by_bot
            records.append(record)
            return
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
@click.option("--bots", "bot_specs", required=True, help="two or more different bot specs, comma separated")
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
    (ratings.csv, ratings.png), a pairwise table (pairwise.csv, pairwise.png) and skill
    against chance on the "X%-coin-flip" scale (skill_chance.csv)."""
    from experiments import tournament as t
    from reports import plots

    games, note = _study_games(n_games, ci_width, pilot, "per seating")
    study = t.build(game, players, bot_specs, games, seed, parse_variant_args(variant), mode)
    study.meta["boot"] = n_boot  # in study.json: the report recomputes the intervals with as many
    collector = t.Collector(study, n_boot)
    outcome = _run(study, collector, out, progress, threads)
    stopping.phase("ratings")
    tables = t.summarize(study, collector)
    from experiments import skill_chance as sc

    text = t.format_tables(study, collector, tables)
    if n_boot:
        tables[sc.SKILL_CHANCE] = sc.skill_chance(collector.tallies())
        text += ("\n\nskill and chance (per pair: X = 2 x (1 - the stronger bot's win rate); 95% bootstrap over "
                 "deals):\n" + tables[sc.SKILL_CHANCE].to_string(index=False, float_format=lambda x: f"{x:.4f}")
                 + "\n" + sc.sentence(study.configs[0].info.title, tables[sc.SKILL_CHANCE]))
    title = f"{study.configs[0].info.title}, {study.meta['players']} players"
    _finish_study("tournament", study, collector, tables, text, outcome,
                  out, as_json, note,
                  [("ratings.png", lambda p: plots.ratings_plot(tables["ratings"], p, title)),
                   ("pairwise.png", lambda p: plots.pairwise_heatmap(tables["pairwise"], p, title))])


@cli.command(short_help="first-player advantage per player count")
@click.argument("game")
@click.option("--bots", "bot_specs", multiple=True, metavar="SPEC",
              help="the one bot spec that plays every seat; repeat it to run the study under each bot and "
                   "compare them (each in OUT/<bot>/)  [default: random]")
@click.option("--ladder", is_flag=True, help="run the study under one bot per skill level of the game's measured "
              "ladder (see `playlab bots GAME`)")
@click.option("--players", "players", default=None, metavar="A-B",
              help="player counts: N, A-B or a comma list  [default: every count of 2 or more the game allows]")
@_variant_option
@_study_options("games per player count")
def fpa(game, bot_specs, ladder, players, variant, n_games, ci_width, pilot, seed, out, threads, progress, as_json):
    """First-player advantage: win rate by position per player count with 95% Wilson
    intervals against the fair 1/n, and a chi-square test of equal seats (fpa.csv,
    fpa_tests.csv, fpa.png).  Under several bots (--bots repeated, or --ladder): each
    bot's study, then whether the answer changes with the bot (fpa_by_bot.csv,
    fpa_by_bot_tests.csv)."""
    from experiments import fpa as f
    from reports import plots

    games, note = _study_games(n_games, ci_width, pilot, "per player count")

    def build(spec):
        return f.build(game, spec, players, games, seed, parse_variant_args(variant))

    def one(study, where, records):
        collector = f.Collector(study)
        outcome = _run(study, collector, where, progress, threads)
        tables = f.summarize(study, collector)
        xlabel = "position from the first player" if collector.first_col else "seat (0 plays first)"
        title = f"{study.configs[0].info.title}: {study.meta['bot']} in every seat"
        _finish_study("fpa", study, collector, tables, f.format_tables(study, collector, tables), outcome, where,
                      as_json, note, [("fpa.png", lambda p: plots.fpa_plot(tables["fpa"], p, title, xlabel))],
                      records)
        return study.meta["bot"], tables

    _by_bot("fpa", game, bot_specs, ladder, build, one, out, as_json)


@cli.command(short_help="the same games under each value of rule options")
@click.argument("game")
@click.option("--vary", "vary", multiple=True, required=True, metavar="NAME=V1,V2,…",
              help="a rule option and the values to try, each once (repeatable, one per option: every "
                   "combination); the baseline (all defaults) is always included")
@click.option("--players", type=int, default=None, help="number of players  [default: the number of --bots specs, "
              "or the game's smallest multi-player count]")
@click.option("--bots", "bot_specs", multiple=True, metavar="SPECS",
              help="one spec per seat, comma separated; repeat it to run the sweep under each set of bots and "
                   "compare them (each in OUT/<bots>/)  [default: random]")
@click.option("--ladder", is_flag=True, help="run the sweep under one bot per skill level of the game's measured "
              "ladder, in every seat (see `playlab bots GAME`)")
@click.option("--metrics", "metrics", default=None, metavar="M1,M2,…",
              help="the comparisons with the baseline to test, Holm-corrected together: seats, turns, decisions, "
                   "margin, truncated, bots  [default: all]")
@_study_options("games per setting (every setting plays the same deals)")
def sweep(game, vary, players, bot_specs, ladder, metrics, n_games, ci_width, pilot, seed, out, threads, progress, as_json):
    """The same games under each value of rule options, each compared with the baseline
    on the same deals (sweep.csv, sweep_tests.csv, sweep.png).  Under several bots (--bots
    repeated, or --ladder): each one's sweep, then whether each setting's effect changes
    with the bots (sweep_by_bot.csv, sweep_by_bot_tests.csv)."""
    from experiments import sweep as sw
    from reports import plots

    games, note = _study_games(n_games, ci_width, pilot, "per setting")

    def build(spec):
        return sw.build(game, vary, _infer_players(players, spec), spec, games, seed, metrics=metrics)

    def one(study, where, records):
        collector = sw.Collector(study)
        outcome = _run(study, collector, where, progress, threads)
        tables = sw.summarize(study, collector)
        labels = [sw.value_label(study, r).replace(" (baseline)", "*") for r in range(len(study.configs))]
        title = f"{study.configs[0].info.title}, {players_text(study.configs[0].players)} (* baseline)"
        _finish_study("sweep", study, collector, tables, sw.format_tables(study, collector, tables), outcome, where,
                      as_json, note, [("sweep.png", lambda p: plots.sweep_plot(tables["sweep"], labels, p, title))],
                      records)
        return ",".join(study.configs[0].bot_labels), tables

    _by_bot("sweep", game, bot_specs, ladder, build, one, out, as_json)


def _ladder_level(game, bots):
    """The ladder's level of the one bot a study seats everywhere (``bots``: its parsed
    seats), or None: the ladder measured each bot at its defaults, so a bot with other
    values (mcts with 8 iterations is no "strong" bot), another model, or several bots has
    no level."""
    from bots.ladder import level
    from bots.registry import parse_bot
    from simcore.games import load_game

    if len({b.label for b in bots}) != 1:
        return None
    bot = bots[0]
    if bot.is_agent:
        return None
    name = bot.given_name or bot.name
    # text parameters (learned's model=FILE) make another bot too; an alias (expert) has
    # defaults of its own, which parsing its bare name gives
    if bot.text or bot.values != parse_bot(load_game(game), name).values:
        return None
    return level(game, name)


def _by_bot(kind, game, bot_specs, ladder, build, one, out, as_json):
    """One study (``build(spec) -> study``, then ``one(study, out, records) -> (label,
    tables)``), or one per bot spec and the comparison of their answers
    (experiments.by_skill)."""
    from experiments import by_skill
    from experiments.study import to_jsonable, write_tables

    specs = list(bot_specs)
    if ladder:
        from bots.ladder import study_bots

        if specs:
            raise click.UsageError("give --bots or --ladder, not both")
        specs = study_bots(game)
        if not specs:
            raise click.UsageError(f"--ladder: {game} has no measured skill ladder (tools/ladder.py measures one)")
        from bots.ladder import STUDY_GAMES_PER_S, rung

        for spec in specs:
            r = rung(game, spec)
            if r.games_per_s < STUDY_GAMES_PER_S:
                _warn(f"--ladder: {spec} ({r.level}) plays about {r.games_per_s:.3g} games/s on one thread against "
                      f"greedy (the ladder's measure), and here it plays every seat: expect a long study")
    specs = specs or ["random"]
    # every study is built (its specs, player counts and options checked) before the first
    # plays: a bad third --bots is one error line, not found after two studies' work
    studies = [build(spec) for spec in specs]
    # the same bot written two ways (mcts:iterations=08, parameters in another order) would
    # run the same study twice into two folders: refused, as tournament refuses it
    labels = [",".join(dict.fromkeys(st.configs[0].bot_labels)) if len(set(st.configs[0].bot_labels)) == 1
              else ",".join(st.configs[0].bot_labels) for st in studies]
    for i, label in enumerate(labels):
        if label in labels[:i]:
            j = labels.index(label)
            raise click.UsageError(f"--bots {specs[j]} and --bots {specs[i]} are the same bot ({label}): give "
                                   "each once")
    if len(specs) == 1:
        one(studies[0], out, None)
        return
    names = by_skill.folder_names(specs)
    records, tables, levels = [], {}, {}
    for spec, name, study in zip(specs, names, studies):
        if not as_json:
            click.echo(f"=== {kind} under {spec} ===")
        label, t = one(study, os.path.join(out, name) if out else None, records)
        tables[label] = t
        levels[label] = _ladder_level(game, study.configs[0].bots)
        if not as_json:
            click.echo("")
    combined = (by_skill.fpa_by_bot if kind == "fpa" else by_skill.sweep_by_bot)(tables, levels)
    files = write_tables(out, combined) if out else []
    if as_json:
        click.echo(json.dumps(to_jsonable({"study": f"{kind}_by_bot", "bots": list(tables), "levels": levels,
                                            "studies": records, "tables": combined, "out": out, "files": files})))
        return
    click.echo(f"=== {kind}: the answer by bot ===")
    click.echo((by_skill.format_fpa if kind == "fpa" else by_skill.format_sweep)(combined))
    if out:
        click.echo(f"wrote {out}: {', '.join(files)}; each bot's study in {', '.join(n + '/' for n in names)}")


@cli.command(short_help="train the learned bot from a teacher's moves")
@click.argument("game")
@click.option("--teacher", default=None,
              help="the bot whose moves are learned (in each seat in turn, greedy in the others)  "
                   "[default: expert, the game's strongest bot; `playlab bots GAME` names what it is]")
@click.option("--players", type=int, default=None, help="player count  [default: Moon 3, others 2]")
@click.option("--teacher-games", type=click.IntRange(min=1), default=800, show_default=True,
              help="teacher games per seat (recorded in chunks of 8 under --out)")
@click.option("--epochs", type=click.IntRange(min=0), default=20, show_default=True, help="passes over the examples")
@click.option("--hidden", type=click.IntRange(1, 1024), default=32, show_default=True, help="hidden units")
@click.option("--base", default=None, metavar="greedy[:k=v…]",
              help="the base policy whose move the network reads and starts from: the game's greedy with "
                   "these parameters  [default: Shifting Stones greedy:depth=3:replan=1, the others greedy]")
@click.option("--q-rollouts", type=click.IntRange(min=0), default=0, show_default=True,
              help="learn values instead of the teacher's moves: in each of the teacher's positions every legal "
                   "action is valued by this many greedy rollouts from worlds drawn from the seat's view, and the "
                   "network fitted to softmax(value / --q-temperature) (0: the teacher's moves)")
@click.option("--q-depth", type=click.IntRange(min=0), default=30, show_default=True,
              help="decisions of a value rollout before the game's evaluate (0: to the end)")
@click.option("--q-temperature", type=click.FloatRange(min=1e-4, max=10.0), default=0.02, show_default=True,
              help="temperature of the value targets' softmax (values are win probabilities)")
@click.option("--lr", type=click.FloatRange(min=1e-6, max=1.0), default=2e-3, show_default=True,
              help="Adam's learning rate")
@click.option("--average-from", type=click.IntRange(min=0), default=0, show_default=True,
              help="the model is the mean of the weights after each epoch from this one on (0: the epoch of the best "
                   "point of the curve)")
@click.option("--calibrate-games", type=click.IntRange(min=0), default=0, show_default=True,
              help="games per seat against greedy on which offsets 0, 0.25 … 1 of the greedy bonus are tried; the "
                   "best is kept (0: none)")
@click.option("--eval-games", type=click.IntRange(min=1), default=500, show_default=True,
              help="games per seat against greedy for each point of the learning curve")
@click.option("--seed", type=SEED_TYPE, default=0, show_default=True, help="seed of the teacher's games, the initial weights and the minibatches")
@_variant_option
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="folder for the teacher's games, the training state, model.npz, curve.csv and curve.png "
                   "(rerun with the same options to resume)  [default: train-GAME-seedS here]")
@click.option("--workers", type=click.IntRange(min=1), default=2, show_default=True, help="processes playing the teacher's games")
@click.option("--threads", type=click.IntRange(min=1), default=None, help="threads of the learning-curve games  [default: all cores]")
@click.option("--progress/--no-progress", default=None, help="progress bar on stderr  [default: on a terminal]")
def train(game, teacher, players, teacher_games, epochs, hidden, base, q_rollouts, q_depth, q_temperature, lr,
          average_from, calibrate_games, eval_games, seed, variant, out, workers, threads, progress):
    """Fit the learned bot's network to TEACHER's moves in GAME (teacher against greedy, every
    seat in turn), with a learning curve against greedy; `learned:model=OUT/model.npz` plays it."""
    from bots.learned import ModelError, base_label, base_values
    from experiments.train import DEFAULT_BASE, DEFAULT_TEACHER, TrainConfig, default_players, parse_base
    from experiments.train import train as run_train
    from simcore.options import set_options

    cfg = _config(game, players or default_players(game), teacher or DEFAULT_TEACHER, variant, seed)
    if cfg.bots[0].is_agent:
        raise click.BadParameter("the teacher must be a compiled bot, not a py: agent", param_hint="--teacher")
    _check_threads(threads)
    # only the options set away from their defaults: a resolved variant is not itself a valid
    # --variant (Shifting Stones' packaged deck resolves to "", which no user can give)
    given = set_options(cfg.info.options, cfg.variant)
    base = DEFAULT_BASE.get(game, "") if base is None else base
    try:
        values = parse_base(base)
        base_values(game, values)
    except (ValueError, ModelError) as exc:
        raise click.BadParameter(str(exc), param_hint="--base") from None
    config = TrainConfig(game, cfg.players, given, cfg.bot_labels[0], seed, teacher_games, epochs,
                         hidden, eval_games, base=base_label(values) if values else "", q_rollouts=q_rollouts,
                         q_depth=q_depth, q_temperature=q_temperature, lr=lr, average_from=average_from,
                         calibrate_games=calibrate_games)
    out = out or f"train-{game}-seed{seed}"
    _check_out_dir(out)
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
                   "variant)")
@click.option("--target", "targets", multiple=True, required=True, metavar="T",
              help="METRIC<=X, METRIC>=X or METRIC=A..B, checked at every player count (metrics: fpa, turns, "
                   "margin, truncated, and the game's own, which a malformed --target lists; repeatable)")
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
    from experiments.study import RESULTS_DIR, execute_study, to_jsonable, write_record, write_tables

    search = bs.build(game, vary, targets, players, bot_spec, seed, budget or bs.DEFAULT_BUDGET,
                      first_round or bs.FIRST_ROUND)
    _check_out_dir(out, study=True)
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
            parts = []
            outcome = execute_study(study, executor=executor, store=store, progress=progress,
                                    on_chunk=lambda task, frame: parts.append(bs.compact(frame)), keep_frame=False,
                                    threads=threads)
            simulated.append(outcome.simulated)
            import pandas as pd

            return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=study.columns())

        table = bs.race(search, play, log=lambda line: click.echo(line, err=True))
        describe = executor.describe()
    tables = {"balance": table}
    files = []
    if out:
        files = write_tables(out, tables)
        record = search.study.describe()
        record.update(describe, results=RESULTS_DIR, games_spent=table.attrs["spent"])
        write_record(out, record)
    if as_json:
        click.echo(json.dumps(to_jsonable({"study": "balance", "seed": seed, "spent": table.attrs["spent"],
                                           "simulated": sum(simulated), "out": out, "files": files,
                                           "tables": tables, "meta": search.study.meta})))
        return
    click.echo(bs.format_table(search, table))
    if out:
        click.echo(f"wrote {out}: {', '.join(files)}, study.json, results/ (Parquet)")
