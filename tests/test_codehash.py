"""What compiled code depends on besides its own file (simcore/codehash.py): the values and
helpers a bot's code reaches key its compiled copy, so a warm cache never runs stale code
(tests/test_plugins.py runs the same through the command line)."""
import types

import numpy as np
from numba import njit

from bots.registry import source_digest
from simcore.codehash import reached


def _module(source: str, name: str) -> types.ModuleType:
    m = types.ModuleType(name)
    exec(compile(source, f"<{name}>", "exec"), vars(m))
    return m


def test_a_constant_read_at_import_keys_the_bot():
    m = _module("LAST = 0\nTABLE = None\ndef policy(view, legal, n, *rest):\n    return legal[(n - 1) * LAST] + TABLE[0]\n",
                "script_bot")
    m.TABLE = np.zeros(3, np.int64)
    before = source_digest((m.policy,))
    m.LAST = 1  # as a script that read it from a file would have it
    assert source_digest((m.policy,)) != before
    m.LAST = 0
    assert source_digest((m.policy,)) == before
    m.TABLE[0] = 7  # an array's contents, not only its shape
    assert source_digest((m.policy,)) != before


def test_helpers_are_followed_through_globals_attributes_and_closures():
    helper = _module("K = 3\ndef pick(legal, n):\n    return legal[K]\n", "helper_mod")
    helper.pick = njit(helper.pick)
    user = _module("def by_attribute(legal, n):\n    return helper_mod.pick(legal, n)\n", "user_mod")
    user.helper_mod = helper

    def make(k):
        def closure(legal, n):
            return legal[k]
        return closure

    _, values = reached((user.by_attribute,))
    assert any(v.startswith(b"helper_mod.K=") for v in values)
    a, b = reached((make(1),))[1], reached((make(2),))[1]
    assert a != b
    # values of kinds Numba does not freeze are left out: their repr need not repeat
    odd = _module("D = {'a': 1}\ndef f():\n    return D\n", "odd_mod")
    assert reached((odd.f,))[1] == []
