"""``playlab train GAME``: the ``learned`` bot's network fitted to a teacher's moves.

1. **Teacher games** (``experiments.teacher``): the teacher (default ``expert``: each game's strongest bot) in each seat
   in turn against greedy, recorded in chunks under ``--out`` (resumable).
2. **Examples**: the games replayed (``experiments.train_kernels``); every teacher decision
   with a choice gives (observation, the base's move, legal actions, the teacher's action);
   the base is greedy with ``--base``'s parameters.  With ``--q-rollouts`` each also gets
   the value of every legal action (``train_kernels.q_values``: greedy rollouts from worlds
   drawn from the seat's view), kept in ``examples.npz``.
3. **Fitting**: the network of ``bots.learned`` (``x`` = observation + one-hot of the base's
   move, one hidden ReLU layer, a greedy bonus on that move) by cross-entropy on the
   teacher's action over the legal ones, or on softmax(value / ``--q-temperature``), Adam,
   minibatches, numpy on the CPU.  It starts as its base (output layer zero, bonus 1), so
   it can only learn where the teacher differs.
4. **Learning curve**: before fitting and after every epoch the model plays
   ``--eval-games`` games per seat against greedy (fixed deals of run ``seed + 1``, every
   seat in turn, one model seat; shared wins count as shares): win rate with a 95% Wilson
   interval, written to ``curve.csv`` and ``curve.png``.
5. The epoch with the best win rate is saved as ``model.npz`` (``bots.learned`` format,
   with game, players, options, layout, teacher, seed and base), or with ``--average-from``
   the mean of the later epochs' weights; ``--calibrate-games`` then moves the greedy bonus
   by the offset that wins most (``calibrate``).  ``learned:model=OUT`` (or ``OUT/model.npz``) plays it.
   Its curve figure is selected on those deals, so measure it afresh (``playlab
   tournament``) before quoting it.

Everything is seeded: the teacher's games by ``seed``, the initial weights and the order of
minibatches by a numpy generator of ``seed``; ``train_state.npz`` (weights, optimiser,
generator, curve) after each epoch lets a rerun resume where it stopped, to the same
result as an uninterrupted run.  A rerun with more ``--epochs`` (every other setting the
same) goes on from the last epoch to the model a training of that many epochs gives, since
nothing an epoch does depends on how many follow it.
"""
from __future__ import annotations

import json
import math
import os
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any, Mapping

import numpy as np
import pandas as pd

from bots.learned import (MODEL_FILE, MODEL_VERSION, Model, greedy_model, layout_fingerprint, save_model)
from simcore.games import load_game
from . import teacher as teachers

# each game's strongest bot: a student is at best as good as its teacher, and in Moon pimc
# (0.67 against two greedy) is far above mcts (0.44); README "Learned bots"
DEFAULT_TEACHER = "expert"
# the base policy per game (``--base``): in Shifting Stones greedy searching 3 moves ahead and
# planning at every step wins 0.638 [0.623, 0.653] of 4,000 games against default greedy
# (README "Learned bots"), so the network starts from there
DEFAULT_BASE = {"shifting-stones": "greedy:depth=3:replan=1"}
STATE_FILE = "train_state.npz"
# what the calibration adds to the fitted greedy bonus: fitted to noisy soft targets the
# network leaves greedy's move more often than pays (Sequence Stacks: +0.5 was worth 1.5
# points of win rate against greedy)
CALIBRATION_OFFSETS = (0.0, 0.25, 0.5, 0.75, 1.0)
EXAMPLES_FILE = "examples.npz"


@dataclass(frozen=True)
class TrainConfig:
    game: str
    players: int
    variant: dict
    teacher: str
    seed: int
    teacher_games: int      # per seat
    epochs: int
    hidden: int
    eval_games: int         # per seat, per point of the curve
    batch: int = 256
    lr: float = 2e-3
    weight_decay: float = 1e-5
    holdout: float = 0.1
    # the base policy whose move the network reads and starts from: greedy with these
    # parameters set ("depth=3:replan=1"; "" = its defaults)
    base: str = ""
    # value targets (``q_rollouts`` > 0): the network learns softmax(Q / q_temperature) over
    # the legal actions, Q from flat Monte Carlo with greedy rollouts of ``q_depth``
    # decisions (train_kernels.q_values) in the teacher's positions, instead of the move
    # the teacher made there
    q_rollouts: int = 0
    q_depth: int = 30
    q_temperature: float = 0.02
    # the model is the mean of the weights after each epoch from this one on (stochastic
    # weight averaging, Izmailov et al. 2018; 0: the epoch of the best curve point)
    average_from: int = 0
    # games per seat (0: none) on which each offset of CALIBRATION_OFFSETS is added to the
    # greedy bonus and played against greedy (deals of run seed + 2); the best is kept
    calibrate_games: int = 0

    def identity(self) -> dict:
        return asdict(self)

    def course(self) -> dict:
        """What fixes the path of the training, epoch by epoch: everything but how many
        epochs it runs (a folder trained so far goes on with more)."""
        return course_of(json.loads(json.dumps(self.identity())))

    def base_params(self) -> dict[str, float]:
        return parse_base(self.base)

    def base_key(self) -> tuple:
        """The base as ``train_kernels.kernels`` takes it (sorted pairs)."""
        return tuple(sorted(self.base_params().items()))


def course_of(identity: Mapping[str, Any]) -> dict:
    """A stored ``TrainConfig.identity()``'s course (``TrainConfig.course``)."""
    return {k: v for k, v in identity.items() if k != "epochs"}


def parse_base(text: str) -> dict[str, float]:
    """``depth=3:replan=1`` (or ``greedy:depth=3:replan=1``) as {name: value}."""
    parts = [p for p in (text or "").split(":") if p and p != "greedy"]
    out = {}
    for part in parts:
        key, eq, value = part.partition("=")
        if not eq or not key or key in out:
            raise ValueError(f"base {text!r}: expected greedy[:key=value…], each key once")
        try:
            out[key] = float(value)
        except ValueError:
            raise ValueError(f"base {text!r}: {key} takes a number, not {value!r}") from None
    return out


def default_players(game: str) -> int:
    info = load_game(game).INFO
    return info.max_players if info.min_players == info.max_players else max(2, info.min_players)


# ---- examples ---------------------------------------------------------------------------------
def examples(config: TrainConfig, workdir: str) -> dict[str, np.ndarray]:
    """Every teacher decision with a choice, from the recorded chunks."""
    from runtime.runner import RunConfig
    from .train_kernels import kernels

    module = load_game(config.game)
    info = module.INFO
    k = kernels(config.game, config.base_key())
    chunks = math.ceil(config.teacher_games / teachers.CHUNK_GAMES)
    size = info.state_size(config.players)
    obs_n = info.observation_size(config.players)
    na = info.num_actions
    parts = {"obs": [], "greedy": [], "taken": [], "legal": [], "seat": []}
    if config.q_rollouts > 0:
        parts["q"] = []
    keep_views = config.q_rollouts > 0
    cap = 0
    done = 0
    for c in range(chunks):
        for seat in range(config.players):
            run = RunConfig.build(config.game, config.players,
                                  teachers.seat_bots(config.teacher, seat, config.players),
                                  dict(config.variant), config.seed)
            actions = np.load(teachers.chunk_path(workdir, seat, c))
            if len(actions) > cap:  # a chunk holds at most as many decisions as actions
                cap = len(actions)
                obs = np.zeros((cap, obs_n), np.float64)
                greedy = np.zeros(cap, np.int64)
                taken = np.zeros(cap, np.int64)
                legal = np.zeros((cap, na), np.int8)
                views = np.zeros((cap if keep_views else 0, size), np.int64)
                q = np.zeros((cap if config.q_rollouts > 0 else 0, na), np.float64)
            n, _ = k["replay_examples"](run.params(), config.players, config.seed, c * teachers.CHUNK_GAMES,
                                        teachers.CHUNK_GAMES, actions, seat, obs, greedy, taken, legal, size,
                                        views)
            if config.q_rollouts > 0:
                k["q_values"](run.params(), config.players, config.seed, done, views[:n],
                              np.full(n, seat, np.int64), config.q_rollouts, config.q_depth, size, q[:n])
                parts["q"].append(q[:n].astype(np.float32))
            done += n
            parts["obs"].append(obs[:n].astype(np.float32))
            parts["greedy"].append(greedy[:n].copy())
            parts["taken"].append(taken[:n].copy())
            parts["legal"].append(legal[:n].astype(bool))
            parts["seat"].append(np.full(n, seat, np.int8))
    return {key: np.concatenate(v) if v else np.zeros(0) for key, v in parts.items()}


# ---- the network's gradient (numpy, float32) ------------------------------------------------------
def _forward(w, X, G, M):
    obs_n = X.shape[1]
    pre = X @ w["W1"][:obs_n] + w["W1"][obs_n + np.maximum(G, 0)] * (G >= 0)[:, None] + w["b1"]
    h = np.maximum(pre, 0.0)
    z = h @ w["W2"].T + w["b2"]
    rows = np.arange(len(G))
    has = G >= 0
    z[rows[has], G[has]] += w["greedy_bonus"][0]
    z = np.where(M, z, -1e9)
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    return pre, h, z, p


def soft_targets(Q, M, temperature: float):
    """softmax(Q / temperature) over each row's legal actions (M), 0 elsewhere."""
    z = np.where(M, Q / temperature, -np.inf)
    z -= z.max(axis=1, keepdims=True)
    t = np.exp(z)
    return (t / t.sum(axis=1, keepdims=True)).astype(np.float32)


def loss_and_grad(w: dict, X, G, M, Y, T=None):
    """Cross-entropy of the network's legal-action softmax against the action Y, or, with
    ``T``, against the distribution T (rows over the actions)."""
    pre, h, z, p = _forward(w, X, G, M)
    rows = np.arange(len(Y))
    if T is None:
        loss = float(-np.log(np.maximum(p[rows, Y], 1e-30)).mean())
        dz = p
        dz[rows, Y] -= 1.0
    else:
        loss = float(-(T * np.log(np.maximum(p, 1e-30))).sum(axis=1).mean())
        dz = p - T
    dz /= len(Y)
    grad = {"W2": dz.T @ h, "b2": dz.sum(axis=0)}
    has = G >= 0
    grad["greedy_bonus"] = np.array([dz[rows[has], G[has]].sum()], dz.dtype)
    dh = dz @ w["W2"]
    dh[pre <= 0] = 0.0
    obs_n = X.shape[1]
    gW1 = np.zeros_like(w["W1"])
    gW1[:obs_n] = X.T @ dh
    np.add.at(gW1, obs_n + G[has], dh[has])
    grad["W1"] = gW1
    grad["b1"] = dh.sum(axis=0)
    return loss, grad


def accuracy(w: dict, X, G, M, Y, chunk: int = 8192) -> tuple[float, float]:
    """(share of the teacher's moves the model plays, share where greedy's move is the teacher's)."""
    if len(Y) == 0:
        return float("nan"), float("nan")
    hits = 0
    for i in range(0, len(Y), chunk):
        _, _, z, _ = _forward(w, X[i:i + chunk], G[i:i + chunk], M[i:i + chunk])
        hits += int((z.argmax(axis=1) == Y[i:i + chunk]).sum())
    return hits / len(Y), float((G == Y).mean())


class Examples:
    """The examples as the fitting reads them: ``loss_and_grad(w, idx)`` over the examples
    ``idx`` and ``accuracy(w, idx)``."""

    def __init__(self, data, Y, T):
        self.X, self.G, self.M, self.Y, self.T = data["obs"], data["greedy"], data["legal"], Y, T

    def loss_and_grad(self, w, idx):
        return loss_and_grad(w, self.X[idx], self.G[idx], self.M[idx], self.Y[idx],
                             None if self.T is None else self.T[idx])

    def accuracy(self, w, idx):
        return accuracy(w, self.X[idx], self.G[idx], self.M[idx], self.Y[idx])


class Adam:
    def __init__(self, w: dict, lr: float, weight_decay: float):
        self.lr, self.wd, self.t = lr, weight_decay, 0
        self.m = {k: np.zeros_like(v) for k, v in w.items()}
        self.v = {k: np.zeros_like(v) for k, v in w.items()}

    def step(self, w: dict, grad: dict) -> None:
        self.t += 1
        b1, b2 = 0.9, 0.999
        for k in w:
            g = grad[k] + (self.wd * w[k] if k in ("W1", "W2") else 0.0)
            self.m[k] = b1 * self.m[k] + (1 - b1) * g
            self.v[k] = b2 * self.v[k] + (1 - b2) * g * g
            mh = self.m[k] / (1 - b1 ** self.t)
            vh = self.v[k] / (1 - b2 ** self.t)
            w[k] -= (self.lr * mh / (np.sqrt(vh) + 1e-8)).astype(w[k].dtype)


# ---- evaluation -----------------------------------------------------------------------------------
def win_rate(config: TrainConfig, w: dict, games: int, seed: int, threads: int | None = None) -> dict:
    """The model against greedy, ``games`` per seat (one model seat), on run ``seed``."""
    from runtime.runner import RunConfig, set_threads
    from statsmodels.stats.proportion import proportion_confint
    from .train_kernels import kernels

    set_threads(threads)
    k = kernels(config.game, config.base_key())
    info = load_game(config.game).INFO
    run = RunConfig.build(config.game, config.players, "greedy", dict(config.variant), seed)
    total = 0.0
    arr = {key: np.ascontiguousarray(v, dtype=np.float64) for key, v in w.items()}
    for seat in range(config.players):
        out = np.zeros(games, np.float64)
        k["learner_batch"](run.params(), config.players, seed, 0, games, seat, arr["W1"], arr["b1"], arr["W2"],
                           arr["b2"], arr["greedy_bonus"], 0.0, info.state_size(config.players), out)
        total += float(out.sum())
    n = games * config.players
    lo, hi = proportion_confint(total, n, alpha=0.05, method="wilson")
    return {"games": n, "win_rate": total / n, "ci_low": float(lo), "ci_high": float(hi)}


# ---- the run ------------------------------------------------------------------------------------
def _valued_examples(config: TrainConfig, out: str, log, t0: float) -> dict[str, np.ndarray]:
    """The examples; with value targets, kept in ``EXAMPLES_FILE`` once computed (their
    rollouts are most of a training's time: a resumed training reads them back)."""
    path = os.path.join(out, EXAMPLES_FILE)
    if config.q_rollouts > 0 and os.path.exists(path):
        with np.load(path, allow_pickle=False) as f:
            return {k: f[k] for k in f.files}
    data = examples(config, out)
    if config.q_rollouts > 0:
        tmp = path + ".tmp.npz"
        np.savez(tmp, **data)
        os.replace(tmp, path)
        log(f"{len(data['taken'])} examples valued by {config.q_rollouts} rollouts per action "
            f"({time.perf_counter() - t0:.0f} s so far)")
    return data


def _weights(model: Model) -> dict:
    return {k: v.astype(np.float32) for k, v in model.arrays().items()}


def _model(config: TrainConfig, w: dict, extra: Mapping[str, Any]) -> Model:
    module = load_game(config.game)
    meta = {"game": config.game, "players": config.players, "options": dict(config.variant),
            "layout": layout_fingerprint(module), "version": MODEL_VERSION, "teacher": config.teacher,
            "seed": config.seed, "teacher_games": config.teacher_games, "hidden": config.hidden, **extra}
    if config.base_params():
        meta["base"] = dict(sorted(config.base_params().items()))
    return Model(*(np.asarray(w[k], np.float64) for k in Model.ARRAYS), meta=meta)


def _save_state(path, config, w, opt, rng, epoch, curve, best, avg):
    tmp = path + ".tmp.npz"
    arrays = {f"w_{k}": v for k, v in w.items()}
    if avg["w"] is not None:
        arrays.update({f"avg_{k}": v for k, v in avg["w"].items()})
    arrays.update({f"m_{k}": v for k, v in opt.m.items()})
    arrays.update({f"v_{k}": v for k, v in opt.v.items()})
    arrays.update({f"best_{k}": v for k, v in best["w"].items()})
    info = {"config": config.identity(), "epoch": epoch, "t": opt.t, "rng": rng.bit_generator.state,
            "curve": curve, "best_epoch": best["epoch"], "best_rate": best["rate"], "avg_count": avg["count"]}
    np.savez(tmp, info=np.array(json.dumps(info)), **arrays)
    os.replace(tmp, path)


def _epochs_done(path) -> int:
    """How many epochs the training state at ``path`` has run (0: none saved)."""
    if not os.path.exists(path):
        return 0
    with np.load(path, allow_pickle=False) as data:
        return int(json.loads(str(data["info"]))["epoch"])


def _load_state(path, config, w, opt, rng):
    with np.load(path, allow_pickle=False) as data:
        info = json.loads(str(data["info"]))
        if course_of(info["config"]) != config.course():
            raise ValueError(f"{os.path.dirname(path) or '.'} holds a training with other settings "
                             f"({info['config']}); use another --out")
        for k in w:
            w[k] = data[f"w_{k}"]
            opt.m[k] = data[f"m_{k}"]
            opt.v[k] = data[f"v_{k}"]
        best_w = {k: data[f"best_{k}"] for k in w}
        avg = {"w": {k: data[f"avg_{k}"] for k in w} if info["avg_count"] else None, "count": info["avg_count"]}
    opt.t = info["t"]
    rng.bit_generator.state = info["rng"]
    return info["epoch"], info["curve"], {"w": best_w, "epoch": info["best_epoch"], "rate": info["best_rate"]}, avg


def _bar(total, desc, progress):
    if not progress:
        return None
    from tqdm import tqdm
    return tqdm(total=total, desc=desc, unit="step", file=sys.stderr, leave=False)


def train(config: TrainConfig, out: str, workers: int = 2, threads: int | None = None,
          progress: bool | None = None, log=None) -> dict:
    """Run (or resume) the training of module docstring into ``out``; returns a summary."""
    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    if progress is None:
        progress = sys.stderr.isatty()
    os.makedirs(out, exist_ok=True)
    info_path = os.path.join(out, "train.json")
    if os.path.exists(info_path):
        with open(info_path) as fh:
            before = json.load(fh)
        if course_of(before) != config.course():
            raise ValueError(f"{out} holds a training with other settings; use another --out")
        done = _epochs_done(os.path.join(out, STATE_FILE))
        if done > config.epochs:
            raise ValueError(f"{out} holds a training {done} epochs along, more than --epochs "
                             f"{config.epochs}; give at least {done}, or use another --out")
    if not os.path.exists(info_path) or before.get("epochs") != config.epochs:
        # the same training with more epochs: it goes on where it stopped
        tmp = info_path + ".tmp"
        with open(tmp, "w") as fh:
            json.dump(config.identity(), fh, indent=1)
        os.replace(tmp, info_path)
    t0 = time.perf_counter()
    chunks = math.ceil(config.teacher_games / teachers.CHUNK_GAMES)
    bar = _bar(chunks * config.players, "teacher games", progress)
    teachers.collect(config.game, config.players, config.variant, config.teacher, config.seed, chunks, out,
                     workers, (lambda _: bar.update(1)) if bar else None)
    if bar:
        bar.close()
    t_teacher = time.perf_counter() - t0
    data = _valued_examples(config, out, log, t0)
    n = len(data["taken"])
    if n == 0:
        raise ValueError("the teacher's games gave no decision with a choice")
    rng = np.random.default_rng(config.seed)
    order = rng.permutation(n)
    cut = int(n * (1 - config.holdout)) if n > 10 else n
    tr, va = order[:cut], order[cut:]
    X, M, Y = data["obs"], data["legal"], data["taken"]
    T = None
    if config.q_rollouts > 0:
        T = soft_targets(data["q"], M, config.q_temperature)
        # what "the teacher's move" means for the curve: the best action by value
        Y = np.where(M, data["q"], -np.inf).argmax(axis=1)
    fit = Examples(data, Y, T)
    w = _weights(greedy_model(config.game, config.hidden, rng, scale=1.0 / math.sqrt(X.shape[1] / 8),
                              base=config.base_params()))
    opt = Adam(w, config.lr, config.weight_decay)
    state_path = os.path.join(out, STATE_FILE)
    eval_seed = config.seed + 1
    if os.path.exists(state_path):
        epoch, curve, best, avg = _load_state(state_path, config, w, opt, rng)
        log(f"resuming after epoch {epoch} of {config.epochs}")
        # the curve's seconds go on from where the stopped run left them, not from 0 again
        t0 = time.perf_counter() - curve[-1]["seconds"]
    else:
        epoch, curve = 0, []
        avg = {"w": None, "count": 0}
        r = win_rate(config, w, config.eval_games, eval_seed, threads)
        acc, agree = fit.accuracy(w, va)
        curve.append({"epoch": 0, "steps": 0, "loss": float("nan"), "teacher_agreement": acc,
                      "greedy_agreement": agree, **r, "seconds": time.perf_counter() - t0})
        best = {"w": {k: v.copy() for k, v in w.items()}, "epoch": 0, "rate": r["win_rate"]}
        _save_state(state_path, config, w, opt, rng, 0, curve, best, avg)
        log(f"epoch 0 (the base, {config.base or 'greedy'}): {r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}] against greedy")
    steps_per_epoch = max(1, len(tr) // config.batch)
    while epoch < config.epochs:
        epoch += 1
        perm = tr[rng.permutation(len(tr))]
        bar = _bar(steps_per_epoch, f"epoch {epoch}", progress)
        losses = []
        for s in range(steps_per_epoch):
            idx = np.sort(perm[s * config.batch:(s + 1) * config.batch])
            loss, grad = fit.loss_and_grad(w, idx)
            opt.step(w, grad)
            losses.append(loss)
            if bar:
                bar.update(1)
        if bar:
            bar.close()
        if config.average_from and epoch >= config.average_from:
            avg["count"] += 1
            avg["w"] = ({k: v.copy() for k, v in w.items()} if avg["w"] is None else
                        {k: avg["w"][k] + (w[k] - avg["w"][k]) / avg["count"] for k in w})
        r = win_rate(config, w, config.eval_games, eval_seed, threads)
        acc, agree = fit.accuracy(w, va)
        curve.append({"epoch": epoch, "steps": epoch * steps_per_epoch, "loss": float(np.mean(losses)),
                      "teacher_agreement": acc, "greedy_agreement": agree, **r,
                      "seconds": time.perf_counter() - t0})
        if r["win_rate"] > best["rate"]:
            best = {"w": {k: v.copy() for k, v in w.items()}, "epoch": epoch, "rate": r["win_rate"]}
        _save_state(state_path, config, w, opt, rng, epoch, curve, best, avg)
        log(f"epoch {epoch}: loss {np.mean(losses):.4f}, plays the teacher's move {acc:.3f} (the base {agree:.3f}); "
            f"{r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}] against greedy")
    final, extra = best["w"], {"epoch": best["epoch"], "examples": int(n)}
    rate = best["rate"]  # the returned weights' own rate against greedy (before calibration)
    if avg["w"] is not None:
        final = {k: v.copy() for k, v in avg["w"].items()}
        r = win_rate(config, final, config.eval_games, eval_seed, threads)
        extra = {"epoch": f"mean of epochs {config.average_from}-{epoch}", "examples": int(n),
                 "average_win_rate": r["win_rate"]}
        rate = r["win_rate"]
        log(f"mean of the weights of epochs {config.average_from}-{epoch}: {r['win_rate']:.3f} "
            f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}] against greedy")
    if config.calibrate_games:
        final, extra["bonus_offset"], extra["calibration"] = calibrate(config, final, threads, log)
    model = _model(config, final, extra)
    model_path = os.path.join(out, MODEL_FILE)
    save_model(model, model_path)
    frame = pd.DataFrame(curve)
    frame.to_csv(os.path.join(out, "curve.csv"), index=False)
    plot_curve(frame, config, os.path.join(out, "curve.png"))
    return {"model": model_path, "examples": int(n), "best_epoch": extra["epoch"], "win_rate": rate,
            "teacher_seconds": t_teacher, "seconds": time.perf_counter() - t0, "curve": frame}


def calibrate(config: TrainConfig, w: dict, threads, log) -> tuple[dict, float, list]:
    """The weights with the offset of CALIBRATION_OFFSETS added to the greedy bonus that
    wins most against greedy (``calibrate_games`` per seat on deals of run seed + 2, which
    the curve does not use; ties: the smaller offset), the offset and each one's rate."""
    table = []
    for off in CALIBRATION_OFFSETS:
        trial = dict(w, greedy_bonus=w["greedy_bonus"] + np.float32(off))
        r = win_rate(config, trial, config.calibrate_games, config.seed + 2, threads)
        table.append([off, r["win_rate"]])
        log(f"greedy bonus {float(trial['greedy_bonus'][0]):+.3f} (offset {off:+.2f}): {r['win_rate']:.4f} "
            f"[{r['ci_low']:.4f}, {r['ci_high']:.4f}] against greedy")
    off = max(table, key=lambda row: (row[1], -row[0]))[0]
    return dict(w, greedy_bonus=w["greedy_bonus"] + np.float32(off)), off, table


def plot_curve(frame: pd.DataFrame, config: TrainConfig, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.errorbar(frame["epoch"], frame["win_rate"],
                yerr=[frame["win_rate"] - frame["ci_low"], frame["ci_high"] - frame["win_rate"]],
                marker="o", capsize=3, label="learned vs greedy (95% Wilson)")
    ax.axhline(1.0 / config.players, color="grey", linestyle=":", label=f"fair share 1/{config.players}")
    ax.set_xlabel(f"epoch (0 = the untrained network, which plays as its base, {config.base or 'greedy'})")
    ax.set_ylabel("win rate against greedy")
    ax.set_title(f"{config.game}, {config.players} players: learned from {config.teacher}")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
