"""``learned``: a policy learned from a teacher's moves (``playlab train GAME``), played by a
small neural network inside the compiled kernels.

The network reads the seat's observation vector (the game's ``observation`` of the seat's
view: what PettingZoo agents see) and the game's greedy move in that view, and scores the
legal actions:

    x        = observation (OBS entries) followed by a one-hot of greedy's move (A entries)
    h        = relu(W1ᵀ x + b1)                         (H hidden units)
    logit[a] = W2[a] · h + b2[a] + greedy_bonus · [a is greedy's move]

"Greedy" is the game's greedy bot with the parameters the model's ``base`` sets (its
defaults when it sets none; Shifting Stones' shipped model reads greedy searching 3 moves
ahead and planning at every step, ``greedy:depth=3:replan=1``); the opponents of training
and evaluation stay greedy at its defaults.  The network plays the legal action of the
highest logit (ties: the lowest action), or, with
``temperature`` > 0, samples softmax(logit / temperature) from the seat's own bot stream.
Both the input (mostly zeros: one-hot fields) and the output (only the legal actions) are
computed sparsely, so a decision costs a few thousand multiply-adds.  A network of zeros
with ``greedy_bonus`` 1 is greedy; training starts there and learns where to differ.

Models are ``.npz`` files of numpy arrays (``W1``, ``b1``, ``W2``, ``b2``, ``greedy_bonus``)
with what they were trained for (``game``, ``players``, ``options``, ``layout`` the
observation layout's fingerprint, ``teacher``, ``seed``, ``version``, and ``base``: greedy's
parameters the model reads the move of, when not its defaults).  Plain ``learned``
plays the model shipped for the game (``bots/models/<game>.npz``); ``learned:model=PATH``
plays another one (``load_model`` refuses one made for another game or observation layout).
The weights are constants of the compiled policy, which is compiled once per model (its
cache name carries the weights' hash), so game i of a run still depends only on the run's
configuration, the seed and i, and the model travels to Dask workers as its path.

It reads only the view (through ``observation`` and the greedy bot, which reads only its
seat's part) and draws only from its own stream (and only with a temperature).
"""
from __future__ import annotations

import hashlib
import json
import os
import zipfile
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Mapping

import numpy as np
from numba import njit

from bots.registry import (MAX_BOT_PARAMS, Bot, BotError, BotParam, BotSpec, bots_for, register_bot)
from simcore.rng import next_u64

MODEL_VERSION = 1
NAME = "learned"
MODEL_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
GAMES = ("moon", "shifting-stones", "sequence-stacks")
DEFAULT_HIDDEN = 32

P_TEMPERATURE = 0

PARAMS = (
    BotParam("temperature", 0.0, 0.0, 100.0,
             "0: the best-scored legal action; above 0: sample softmax(score / temperature)"),
)
# the text parameter (a model file), resolved at parsing time (``parse_learned``)
MODEL_KEY = "model"
# the file `playlab train --out DIR` saves its model as: ``model=DIR`` plays it
MODEL_FILE = "model.npz"


class ModelError(BotError):
    pass


# ---- the model and its file -------------------------------------------------------------------
@dataclass
class Model:
    W1: np.ndarray            # (OBS + A, H)
    b1: np.ndarray            # (H,)
    W2: np.ndarray            # (A, H)
    b2: np.ndarray            # (A,)
    greedy_bonus: np.ndarray  # (1,)
    meta: dict = field(default_factory=dict)

    ARRAYS = ("W1", "b1", "W2", "b2", "greedy_bonus")

    @property
    def hidden(self) -> int:
        return int(self.b1.shape[0])

    def arrays(self) -> dict[str, np.ndarray]:
        return {k: getattr(self, k) for k in self.ARRAYS}

    def digest(self) -> str:
        h = hashlib.sha256()
        for k in self.ARRAYS:
            a = np.ascontiguousarray(getattr(self, k), dtype=np.float64)
            h.update(k.encode())
            h.update(str(a.shape).encode())
            h.update(a.tobytes())
        # the greedy values whose move it reads are as much part of what it plays as the
        # weights: two models of the same weights over other bases are two bots
        base = sorted((k, float(v)) for k, v in (self.meta.get("base") or {}).items())
        if base:
            h.update(repr(base).encode())
        return h.hexdigest()[:16]

    def copy(self) -> "Model":
        return Model(*(getattr(self, k).copy() for k in self.ARRAYS), meta=dict(self.meta))


def layout_fingerprint(module) -> str:
    """The observation layout's version: a hash of its fields (names, sizes) and size, so a
    model trained on another encoding is refused."""
    from simcore.layout import observation_layout

    layout = observation_layout(module)
    h = hashlib.sha256()
    if layout is not None:
        for f in layout.fields:
            h.update(f"{f.name}:{f.size};".encode())
    h.update(f"size={module.INFO.observation_size(module.INFO.max_players)};"
             f"actions={module.INFO.num_actions}".encode())
    return h.hexdigest()[:12]


def base_values(game: str, base: Mapping[str, float] | None) -> dict[str, float]:
    """The base policy's parameters (greedy's, ``base`` overriding its defaults), checked:
    a model's ``base`` names greedy's parameters and values in their ranges."""
    spec = next((b for b in bots_for(game) if b.name == "greedy"), None)
    base = dict(base or {})
    if spec is None:
        if base:
            raise ModelError(f"bot {NAME}: {game} has no greedy bot to set {', '.join(sorted(base))} of")
        return {}
    by_name = {p.name: p for p in spec.params}
    unknown = sorted(set(base) - set(by_name))
    if unknown:
        raise ModelError(f"bot {NAME}: the base greedy of {game} has no parameter {', '.join(unknown)}")
    try:
        return {p.name: p.parse("greedy", f"{float(base[p.name]):g}") if p.name in base else p.default
                for p in spec.params}
    except BotError as exc:
        raise ModelError(f"bot {NAME}: the base {exc}") from None


def base_label(base: Mapping[str, float] | None) -> str:
    """``greedy`` or ``greedy:depth=3:replan=1``: the base policy as a bot spec."""
    return ":".join(["greedy", *(f"{k}={float(v):g}" for k, v in sorted((base or {}).items()))])


def greedy_model(game: str, hidden: int = DEFAULT_HIDDEN, rng: np.random.Generator | None = None,
                 scale: float = 0.0, base: Mapping[str, float] | None = None) -> Model:
    """A model that plays as its base policy (greedy, with ``base`` overriding its
    parameters; weights zero or small noise, greedy bonus 1)."""
    from simcore.games import load_game

    module = load_game(game)
    obs = module.INFO.observation_size(module.INFO.max_players)
    na = module.INFO.num_actions
    rng = rng or np.random.default_rng(0)
    w1 = rng.normal(0.0, scale, (obs + na, hidden)) if scale else np.zeros((obs + na, hidden))
    meta = {"game": game, "layout": layout_fingerprint(module), "version": MODEL_VERSION}
    if base:
        base_values(game, base)
        meta["base"] = {k: float(v) for k, v in sorted(base.items())}
    return Model(w1, np.zeros(hidden), np.zeros((na, hidden)), np.zeros(na), np.ones(1), meta)


def save_model(model: Model, path: str) -> None:
    tmp = path + ".tmp.npz"
    np.savez_compressed(tmp, meta=np.array(json.dumps(model.meta, sort_keys=True)),
                        **{k: np.asarray(v, np.float32 if k in ("W1", "W2") else np.float64)
                           for k, v in model.arrays().items()})
    os.replace(tmp, path)


def read_model(path: str) -> Model:
    """The model in ``path`` (no check against a game: ``load_model``)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            arrays = [np.ascontiguousarray(data[k], dtype=np.float64) for k in Model.ARRAYS]
    except FileNotFoundError:
        raise ModelError(f"bot {NAME}: no model file {path}") from None
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        # np.load raises EOFError on an empty file (which the CLI would take for the end of
        # its input, a Ctrl-C) and BadZipFile on a cut-off one
        raise ModelError(f"bot {NAME}: {path} is not a learned model ({type(exc).__name__}: {exc})") from None
    return Model(*arrays, meta=meta)


def check_model(model: Model, game: str, where: str) -> None:
    """Refuse a model made for another game, observation layout or file version, or whose
    arrays do not fit the game."""
    from simcore.games import load_game

    module = load_game(game)
    meta = model.meta
    if meta.get("version") != MODEL_VERSION:
        raise ModelError(f"bot {NAME}: {where} is model version {meta.get('version')}, this playlab reads {MODEL_VERSION}")
    if meta.get("game") != game:
        raise ModelError(f"bot {NAME}: {where} was trained for {meta.get('game')}, not {game}")
    if meta.get("layout") != layout_fingerprint(module):
        raise ModelError(f"bot {NAME}: {where} was trained on another observation layout of {game} "
                         f"({meta.get('layout')}, now {layout_fingerprint(module)}): train it again")
    base_values(game, meta.get("base"))
    obs = module.INFO.observation_size(module.INFO.max_players)
    na = module.INFO.num_actions
    h = model.hidden
    shapes = {"W1": (obs + na, h), "b1": (h,), "W2": (na, h), "b2": (na,), "greedy_bonus": (1,)}
    for k, shape in shapes.items():
        if getattr(model, k).shape != shape:
            raise ModelError(f"bot {NAME}: {where}: array {k} has shape {getattr(model, k).shape}, not {shape}")


def shipped_path(game: str) -> str:
    return os.path.join(MODEL_DIR, f"{game}.npz")


@lru_cache(maxsize=None)
def load_model(game: str, path: str | None = None) -> Model:
    """The model ``path`` (the shipped one when None), checked against ``game``; a game
    without a shipped model plays greedy's."""
    if path is None:
        p = shipped_path(game)
        if not os.path.exists(p):
            return greedy_model(game)
        model = read_model(p)
        check_model(model, game, f"the shipped model {os.path.basename(p)}")
        return model
    model = read_model(path)
    check_model(model, game, path)
    return model


# ---- inference (compiled) ---------------------------------------------------------------------
@njit(cache=True)
def score_legal(obs, greedy_move, legal, n, W1, b1, W2, b2, greedy_bonus, hidden, logits):
    """logits[i] for legal[i], i < n (module docstring)."""
    H = b1.shape[0]
    for j in range(H):
        hidden[j] = b1[j]
    for i in range(obs.shape[0]):
        x = obs[i]
        if x != 0.0:
            for j in range(H):
                hidden[j] += x * W1[i, j]
    if greedy_move >= 0:
        r = obs.shape[0] + greedy_move
        for j in range(H):
            hidden[j] += W1[r, j]
    for j in range(H):
        if hidden[j] < 0.0:
            hidden[j] = 0.0
    for i in range(n):
        a = legal[i]
        s = b2[a]
        for j in range(H):
            s += W2[a, j] * hidden[j]
        if a == greedy_move:
            s += greedy_bonus[0]
        logits[i] = s


@njit(cache=True)
def pick(logits, legal, n, temperature, rng, seat):
    """The best-scored legal action (ties: the first), or a softmax sample."""
    best = 0
    for i in range(1, n):
        if logits[i] > logits[best]:
            best = i
    if temperature <= 0.0:
        return legal[best]
    top = logits[best]
    total = 0.0
    for i in range(n):
        total += np.exp((logits[i] - top) / temperature)
    u = (next_u64(rng, seat) >> np.uint64(11)) * (1.0 / 9007199254740992.0) * total
    acc = 0.0
    for i in range(n):
        acc += np.exp((logits[i] - top) / temperature)
        if u < acc:
            return legal[i]
    return legal[best]


def _greedy_memory(info, base: Mapping[str, float] | None = None):
    spec = next((b for b in bots_for(info.name) if b.name == "greedy"), None)
    if spec is None:
        return 1, 1
    ints, floats = spec.memory(info, info.max_players, tuple(base_values(info.name, base).values()))
    return max(1, int(ints)), max(1, int(floats))


def choose(view, legal, n, bot_params, params, rng, seat, imem, fmem):
    """The bot: observation, greedy's move, the network's scores, the pick."""
    if n == 1:
        return legal[0]
    players = imem.shape[0]
    row = imem[seat]
    frow = fmem[seat]
    gi = row[0:players * GREEDY_INTS].reshape((players, GREEDY_INTS))  # noqa: F821
    o = players * GREEDY_FLOATS  # noqa: F821
    gf = frow[0:o].reshape((players, GREEDY_FLOATS))  # noqa: F821
    obs = frow[o:o + OBS_N]  # noqa: F821
    o += OBS_N  # noqa: F821
    hidden = frow[o:o + W1.shape[1]]  # noqa: F821
    o += W1.shape[1]  # noqa: F821
    logits = frow[o:o + n]
    observation(view, params, seat, obs)  # noqa: F821
    g = -1
    if HAS_GREEDY:  # noqa: F821
        g = greedy_policy(view, legal, n, GREEDY_BOT_PARAMS, params, rng, seat, gi, gf)  # noqa: F821
    score_legal(obs, g, legal, n, W1, b1, W2, b2, GREEDY_BONUS, hidden, logits)  # noqa: F821
    return pick(logits, legal, n, bot_params[seat, P_TEMPERATURE], rng, seat)


def greedy_globals(game, base: Mapping[str, float] | None = None) -> dict[str, Any]:
    """The game's greedy bot as globals of a compiled copy (policy, its parameters: the
    defaults, ``base`` overriding them, scratch sizes)."""
    from bots.registry import bound_policy
    from simcore.protocol import no_policy

    info = game.INFO
    spec = next((b for b in bots_for(info.name) if b.name == "greedy"), None)
    table = np.zeros((info.max_players, MAX_BOT_PARAMS), np.float64)
    gi, gf = _greedy_memory(info, base)
    common = {"GREEDY_BOT_PARAMS": table, "GREEDY_INTS": gi, "GREEDY_FLOATS": gf,
              "OBS_N": info.observation_size(info.max_players)}
    if spec is None:
        return {"greedy_policy": no_policy, "HAS_GREEDY": False, **common}
    table[:, :len(spec.params)] = list(base_values(info.name, base).values())
    return {"greedy_policy": bound_policy(info.name, "greedy"), "HAS_GREEDY": True, **common}


def model_globals(model: Model) -> dict[str, Any]:
    """The weights as constants of the compiled copy.  The matrices as float32, as the file
    stores them (the same values; each product is taken in float64 as before): Numba
    freezes a global array into the compiled code, and so caches it on disk, only up to
    10**6 bytes, and Sequence Stacks' W1 of 256 hidden units is 1.4 MB in float64 (every
    run compiled it again)."""
    return {"W1": np.ascontiguousarray(model.W1, dtype=np.float32), "b1": np.ascontiguousarray(model.b1),
            "W2": np.ascontiguousarray(model.W2, dtype=np.float32), "b2": np.ascontiguousarray(model.b2),
            "GREEDY_BONUS": np.ascontiguousarray(model.greedy_bonus)}


REQUIRES = ("observation",)
JIT_OPTIONS = {"choose": {"_nrt": True}}  # the row reshapes


def _extra_for(path: str | None):
    def extra(game):
        model = load_model(game.INFO.name, path)
        return {**greedy_globals(game, model.meta.get("base")), **model_globals(model)}
    return extra


def shipped_fingerprint(game: str) -> str:
    """What keys the compiled copies that carry the game's shipped model: its digest ("" for
    a game without one, which plays greedy's)."""
    return load_model(game).digest() if os.path.exists(shipped_path(game)) else ""


def _fingerprint(path: str | None):
    """game -> what keys a copy carrying model ``path`` (None: the shipped one): the model's
    digest and the values greedy plays inside it (``GREEDY_BOT_PARAMS`` is compiled in as
    constants, from greedy's defaults, which a plugin's ``set_bot_defaults`` may change after
    this registration; read when the copy is compiled)."""
    from bots.registry import values_key

    def key(game: str) -> str:
        model = load_model(game, path)
        digest = shipped_fingerprint(game) if path is None else model.digest()
        return digest + values_key(base_values(game, model.meta.get("base")).values())
    return key


def parse_learned(game: str, pairs: list[tuple[str, str]], values: dict[str, float]) -> Bot:
    """``learned:model=PATH`` (a model file, or a `playlab train --out` folder holding
    ``model.npz``): the model is loaded and checked now (one error if it does
    not fit), and a compiled copy named after its weights is registered for the game."""
    path = dict(pairs).get(MODEL_KEY)
    if path is None:
        return None
    path = os.path.abspath(os.path.expanduser(path))
    if os.path.isdir(path):
        # a `playlab train --out` folder: its model file, so the label and the study's
        # identity (which hashes the file) are those of model=DIR/model.npz
        if not os.path.isfile(os.path.join(path, MODEL_FILE)):
            raise ModelError(f"bot {NAME}: {path} is a folder without {MODEL_FILE}; give a model file or "
                             "the --out folder of `playlab train`")
        path = os.path.join(path, MODEL_FILE)
    model = load_model(game, path)
    name = f"{NAME}-{model.digest()[:12]}"
    spec = BotSpec(name, f"the learned policy of {path}", PARAMS,
                   memory=_variant_memory(model.hidden, model.meta.get("base")))
    register_bot(spec, choose, games=(game,), helpers=(score_legal, pick), requires=REQUIRES,
                 extra=_extra_for(path), jit_options=JIT_OPTIONS, fingerprint=_fingerprint(path), listed=False)
    return spec, [(MODEL_KEY, path)]


def _variant_memory(hidden, base=None):
    """int64: greedy's scratch for every seat; float64: greedy's, the observation, the
    hidden units and the scores."""
    def mem(info, players, values):
        gi, gf = _greedy_memory(info, base)
        return players * gi, players * gf + info.observation_size(players) + hidden + info.num_actions
    return mem


def _shipped_memory(info, players, values):
    model = load_model(info.name)
    return _variant_memory(model.hidden, model.meta.get("base"))(info, players, values)


SPEC = BotSpec(NAME, "a small network trained from a teacher's moves (playlab train) over the seat's "
               "observation and greedy's move; model=PATH plays another model", PARAMS,
               memory=_shipped_memory, text_params=(MODEL_KEY,), resolve=parse_learned)

for _game in GAMES:
    register_bot(SPEC, choose, games=(_game,), helpers=(score_legal, pick), requires=REQUIRES,
                 extra=_extra_for(None), jit_options=JIT_OPTIONS, fingerprint=_fingerprint(None))
