"""Games that live in the tests: they prove the protocol (a game is one module plus one
registration line)."""
