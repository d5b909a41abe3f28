"""runtime: a game and its bots assembled into compiled kernels, and the runner that plays
them into results frames (above ``simcore`` and ``bots``, below ``experiments``)."""
