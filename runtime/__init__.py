"""runtime: a game and its bots assembled into compiled kernels, and the runner that plays
them into results frames (above ``simcore`` and ``bots``, below ``experiments``)."""


class KernelError(RuntimeError):
    """A game that overran its maximum length: only a kernel bug can cause it."""
