"""The commands' own tables of a stored study, recomputed from its stored rows: the study is
rebuilt from its ``study.json`` (the command's ``build`` with the recorded settings), and the
command's collector fed the rows read through the store, chunk by chunk as the command fed
them.  So the report prints the figures the command printed and reads nothing but the store
(not the CSV files beside it, which nothing checks)."""
from __future__ import annotations

import pandas as pd

#: bootstrap resamples of a tournament recorded before study.json kept its ``boot``
DEFAULT_BOOT = 200


def _feed(study, collector, frame: pd.DataFrame) -> None:
    run, index = frame["run"].to_numpy(), frame["index"].to_numpy()
    for task in study.tasks():
        part = frame[(run == task.run) & (index >= task.start) & (index < task.start + task.count)]
        if len(part):
            collector(task, part)


def _chunk(record: dict) -> dict:
    return {"chunk": record["chunk"]} if record.get("chunk") else {}


def sweep_tests(st) -> pd.DataFrame:
    """The ``sweep_tests`` table of a stored sweep, as `playlab sweep` computed it."""
    from experiments import sweep as sw

    r = st.record
    vary = [f"{k}={','.join(map(str, v))}" for k, v in r["vary"].items()]
    study = sw.build(st.game, vary, r["players"], ",".join(r["bots"]), int(r["games_per_run"]), int(r["seed"]),
                     metrics=r.get("metrics"), **_chunk(r))
    collector = sw.Collector(study)
    _feed(study, collector, st.frame)
    return sw.summarize(study, collector)["sweep_tests"]


def tournament_tables(st) -> dict[str, pd.DataFrame]:
    """A stored tournament's ``ratings``, ``pairwise``, ``win_rates`` and ``skill_chance``
    tables, as `playlab tournament` computed them (empty when it had no bootstrap)."""
    from experiments import skill_chance as sc
    from experiments import tournament as t

    from simcore.games import load_game
    from simcore.options import set_options

    r = st.record
    variant = set_options(load_game(st.game).INFO.options, r["runs"][0].get("variant") or {})
    study = t.build(st.game, int(r["players"]), ",".join(r["bots"]), int(r["games_per_run"]), int(r["seed"]),
                    variant, r.get("mode", "all"), **_chunk(r))
    n_boot = int(r.get("boot", DEFAULT_BOOT))
    collector = t.Collector(study, n_boot)
    _feed(study, collector, st.frame)
    collector.finish()
    if not len(collector.tallies()["counts"]):  # every game truncated: no finishing order to rate
        return {}
    tables = t.summarize(study, collector)
    if n_boot:
        tables[sc.SKILL_CHANCE] = sc.skill_chance(collector.tallies())
    return tables


def balance_table(st) -> pd.DataFrame:
    """The ``balance`` table of a stored `playlab balance` search, as the command computed it:
    the race is run again from study.json's settings, each round's games read from the store
    instead of played (``experiments.verify.replay_balance``: the race is deterministic given
    its games, so it takes the same rounds and decisions).  Replayed once per study (loading
    it replays the race to learn the games each variant was given)."""
    if st.race_table is None:
        from experiments.verify import replay_balance

        st.race_table = replay_balance(st.record, st.results)[0]
    return st.race_table
