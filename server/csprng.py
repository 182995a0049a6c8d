"""The server's dice: the operating system's CSPRNG, read a few kilobytes at a time.

``secrets.SystemRandom`` reads ``os.urandom`` for every draw: a roll of 2d6 made three system
calls, and at a busy table they were 17,000 calls for 6,000 rolls, about a tenth of the event
loop's time. :class:`BufferedSystemRandom` draws the same bytes from the same source, a buffer
at a time; a forked child starts with an empty buffer, so it never repeats its parent's draws.

A die of up to 256 sides takes one byte, by rejection: a byte at or above the largest multiple
of the sides that fits in 256 is drawn again, so every face is exactly as likely (``random``'s
own way, ``getrandbits`` of the bit length and a rejection loop, makes an ``int`` of a slice of
bytes per try: 0.62 µs a d6 through ``randint``'s argument checks, this 0.22-0.29 µs).
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

    def _randbelow(self, n: int) -> int:
        """A uniform integer in ``[0, n)``: one byte per try for ``n <= 256``."""
        if n > 256 or n <= 0:
            return super()._randbelow(n)  # type: ignore[misc]  # private, not in typeshed
        limit = 256 - 256 % n  # bytes below this map n-to-one: each residue equally often
        buffer, at = self._buffer, self._at
        while True:
            if at >= len(buffer):
                buffer, at = os.urandom(self._size), 0
                self._buffer = buffer
            byte = buffer[at]
            at += 1
            if byte < limit:
                self._at = at
                return byte % n

    def randint(self, a: int, b: int) -> int:
        """As :meth:`random.Random.randint`, without ``randrange``'s general checks for the
        plain case of a die (two ints, ``a <= b``)."""
        if type(a) is int and type(b) is int and a <= b:
            return a + self._randbelow(b - a + 1)
        return super().randint(a, b)

    def randrange(self, start: int, stop: int | None = None,
                  step: int = 1) -> int:
        """As :meth:`random.Random.randrange`; ``randrange(n)`` of a positive int directly."""
        if stop is None and step == 1 and type(start) is int and start > 0:
            return self._randbelow(start)
        return super().randrange(start, stop, step)

    def random(self) -> float:
        return (int.from_bytes(self._bytes(7)) >> 3) * _RECIP_BPF

    def getrandbits(self, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        size = (k + 7) // 8
        return int.from_bytes(self._bytes(size)) >> (size * 8 - k)

    def randbytes(self, n: int) -> bytes:
        return self._bytes(n)
