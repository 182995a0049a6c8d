"""The vocabulary and the log: event and command Structs, dice as data, the codec, the store.

Everything here but the backends (:mod:`poolhall.events.sqlite_backend`) is pure: no I/O, no clock,
no randomness.
"""
