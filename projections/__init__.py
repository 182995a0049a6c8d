"""Pure folds ``evolve(state, recorded) -> state`` over the log, exact odds and analytics.

Nothing here does I/O, reads a clock or draws a random number; the same code runs in the
server, in the client and in replay.
"""
