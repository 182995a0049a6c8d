"""The server's dice: the operating system's CSPRNG, read a few kilobytes at a time.

``secrets.SystemRandom`` reads ``os.urandom`` for every draw: a roll of 2d6 made three system
calls, and at a busy table they were 17,000 calls for 6,000 rolls, about a tenth of the event
loop's time. :class:`BufferedSystemRandom` draws the same bytes from the same source, a buffer
at a time; a forked child starts with an empty buffer, so it never repeats its parent's draws.
"""

from __future__ import annotations

import os
import random

__all__ = ["BUFFER_BYTES", "BufferedSystemRandom"]

BUFFER_BYTES = 4096
_RECIP_BPF = 2.0 ** -53


class BufferedSystemRandom(random.SystemRandom):
    """``random.SystemRandom`` with its ``os.urandom`` reads made a buffer at a time."""

    def __init__(self, buffer_bytes: int = BUFFER_BYTES) -> None:
        super().__init__()
        self._size = buffer_bytes
        self._buffer = b""
        self._at = 0
        os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        self._buffer, self._at = b"", 0

    def _bytes(self, n: int) -> bytes:
        """The next ``n`` bytes from the operating system's CSPRNG."""
        if n > self._size:
            return os.urandom(n)
        if self._at + n > len(self._buffer):
            self._buffer, self._at = os.urandom(self._size), 0
        start, self._at = self._at, self._at + n
        return self._buffer[start:self._at]

    def random(self) -> float:
        return (int.from_bytes(self._bytes(7)) >> 3) * _RECIP_BPF

    def getrandbits(self, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        size = (k + 7) // 8
        return int.from_bytes(self._bytes(size)) >> (size * 8 - k)

    def randbytes(self, n: int) -> bytes:
        return self._bytes(n)
