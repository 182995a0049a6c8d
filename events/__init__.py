"""The vocabulary and the log: event and command Structs, dice as data, the codec, the store.

Everything here but :mod:`events.store` is pure: no I/O, no clock, no randomness.
"""
