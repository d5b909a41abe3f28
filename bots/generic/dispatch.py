"""Templates of the generic bots' dispatcher (``bots.generic.generic_policy_for``): link
``INDEX`` calls its bot (``bot``) or hands the decision down the chain (``rest``)."""


def no_bot(j, bot_params, state, params, rng, seat, imem, fmem):
    return -1


def link(j, bot_params, state, params, rng, seat, imem, fmem):
    if j == INDEX:  # noqa: F821 (bound per link)
        return bot(bot_params, state, params, rng, seat, imem, fmem)  # noqa: F821
    return rest(j, bot_params, state, params, rng, seat, imem, fmem)  # noqa: F821
