"""Bots: policies that run inside the Numba kernels, chosen per seat by integer id.

Kind 0 is ``random`` for every game (the game's own ``random_action``).  Each game's
other bots live in ``bots/<game module>.py`` beside a ``policy`` kernel that dispatches
on the kind; ``bots.registry`` parses ``NAME:key=value`` specs into kernel arrays.
"""
