"""runtime: a game and its bots assembled into compiled kernels, and the runner that plays
them into results frames (above ``simcore`` and ``bots``, below ``experiments``)."""


class KernelError(RuntimeError):
    """A game the compiled engine could not finish: it overran its maximum length (only a
    kernel bug can cause that), or a compiled bot chose a move that is not legal."""


class RefusedMove(KernelError):
    """A compiled bot chose a move that is not legal; the engine refused it
    (``simcore.engine.REFUSED``) and stopped the game."""


def refused(config, seat: int, index: int | None) -> RefusedMove:
    """The error for seat ``seat``'s compiled bot in run ``config`` (a ``RunConfig``), whose
    move the engine refused; it names the command that shows the position."""
    label = config.bot_labels[seat]
    where = f"in game {index}; the game was stopped there" if index is not None else "here"
    plugins = "".join(f"--plugin {p} " for p in config.plugins())
    return RefusedMove(f"bot {label} (seat {seat}) chose a move that is not legal {where} "
                       f"(`playlab {plugins}check {config.game} --bots {label}` shows the position)")
