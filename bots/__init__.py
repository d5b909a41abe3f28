"""Bots: policies that run inside the Numba kernels.

Every bot registers itself with ``bots.registry.register_bot`` when its module is imported,
exactly as a plugin's bots do; the built-in bot modules are listed here and imported the
first time a game's catalogue is read.
"""

BUILTIN_BOT_MODULES = (
    "bots.moon",
    "bots.moon_pimc",
    "bots.shifting_stones",
    "bots.sequence_stacks",
    "bots.generic.flatmc",
    "bots.generic.mcts",
    "bots.generic.restricted",
    "bots.learned",
    "bots.learned_search",
)
