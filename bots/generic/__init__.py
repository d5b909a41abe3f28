"""Generic bots: written once against the game protocol and registered for every game
(``register_bot(…, games=ALL_GAMES, requires=…)``); ``bots.registry.bound_policy`` compiles
one copy per game with ``simcore.protocol.bind_functions``, exactly like the engine.  A game
that lacks a function a bot ``requires`` does not list it."""
