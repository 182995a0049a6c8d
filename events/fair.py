"""Provably fair dice: the derivation of every face from a committed seed, and its vocabulary.

Every die the server rolls comes from HMAC-SHA256 keyed by the seed of the campaign's current
*epoch* (a secret 32-byte value whose SHA-256 the log published beforehand, ``seed_committed``)
over a message naming the campaign, the epoch, the digest of the members' own seeds
(``client_seed_set``), the roll's nonce and a block counter. The blocks are read as one byte
stream; a die of ``n`` sides takes one byte, rejected when it is at or above
``256 - 256 % n`` so that every face is exactly as likely, and comes up ``byte % n + 1``.
When the epoch ends its seed is revealed (``seed_revealed``) and anyone can recompute every
face. docs/explanation/fairness.md writes the algorithm down with test vectors; this module is
that algorithm, pure (no I/O, no clock, no random source: the seed is given).

The digest and HMAC come from :mod:`hashlib` and :mod:`hmac`, never hand-written.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
from collections.abc import Mapping
from typing import Annotated

from msgspec import Meta

from poolhall.events.base import Command, Event, Slug, Value

__all__ = [
    "COMMANDS",
    "DOMAIN",
    "EVENTS",
    "MAX_SIDES",
    "ClientSeed",
    "ClientSeedSet",
    "DieStream",
    "FairStamp",
    "RotateSeed",
    "SeedCommitted",
    "SeedHex",
    "SeedLost",
    "SeedRevealed",
    "SetClientSeed",
    "client_seeds_digest",
    "commitment",
    "derive_faces",
    "keyed",
    "roll_message",
]

DOMAIN = b"poolhall-roll-v1"
"""The first 16 bytes of every HMAC message: a derivation for another purpose never collides."""

MAX_SIDES = 256
"""The most sides a die may have: one byte per try (poolhall's largest die is the d100)."""

SeedHex = Annotated[str, Meta(pattern=r"^[0-9a-f]{64}$", description="32 bytes, hex")]
ClientSeed = Annotated[str, Meta(min_length=1, max_length=64,
                                 description="a member's own seed, mixed into every roll")]
Epoch = Annotated[int, Meta(ge=1)]
Nonce = Annotated[int, Meta(ge=0)]


def commitment(seed: bytes) -> str:
    """The SHA-256 of a seed, hex: what ``seed_committed`` publishes before any roll."""
    return hashlib.sha256(seed).hexdigest()


def client_seeds_digest(seeds: Mapping[str, str]) -> bytes:
    """SHA-256 over the members' seeds in force, sorted by member id.

    Each pair is written as ``u16 len(member) | member | u16 len(seed) | seed`` (UTF-8, big
    endian lengths), so no two different sets of seeds give the same bytes. No seed at all
    hashes the empty string.
    """
    digest = hashlib.sha256()
    for member in sorted(seeds):
        for text in (member, seeds[member]):
            data = text.encode()
            digest.update(len(data).to_bytes(2, "big"))
            digest.update(data)
    return digest.digest()


def roll_message(campaign: str, epoch: int, seeds_digest: bytes, nonce: int) -> bytes:
    """The HMAC message of a roll without its block counter (which follows as a u32).

    ``DOMAIN (16) | u16 len(campaign) | campaign (UTF-8) | u32 epoch | seeds digest (32) |
    u64 nonce``, integers big endian.
    """
    return _message_head(campaign, epoch, seeds_digest) + nonce.to_bytes(8, "big")


@functools.lru_cache(maxsize=1024)
def _message_head(campaign: str, epoch: int, seeds_digest: bytes) -> bytes:
    """:func:`roll_message` up to the nonce: the same for every roll of an epoch (until a
    member sets a seed), so built once for them, not once a roll."""
    name = campaign.encode()
    return DOMAIN + len(name).to_bytes(2, "big") + name + epoch.to_bytes(4, "big") + seeds_digest


def keyed(seed: bytes) -> hmac.HMAC:
    """HMAC-SHA256 keyed with an epoch's ``seed``, nothing hashed yet: what every block of
    that epoch's rolls starts from (:class:`DieStream` hashes each block on a copy of it).

    A server keys each epoch's seed once and hands it to every :class:`DieStream` of the
    epoch: keying HMAC afresh for each block (``hmac.digest``) cost 4.6 µs a block where a
    copy of the keyed one, updated and digested, costs 3.4 µs (OpenSSL 3, measured)."""
    return hmac.new(seed, digestmod="sha256")


class DieStream:
    """The faces of one roll: HMAC blocks ``counter = 0, 1, ...`` read a byte at a time.

    Also the dice source a rules module draws from (:class:`poolhall.server.rules.base.DiceSource`):
    ``randint(1, n)`` and ``randrange(n)`` are a die of ``n`` sides. ``seed`` is the epoch's
    seed, or that seed already keyed (:func:`keyed`): the same faces either way.
    """

    __slots__ = ("_keyed", "_prefix", "_buffer", "_at", "counter", "faces")

    def __init__(self, seed: bytes | hmac.HMAC, campaign: str, epoch: int,
                 seeds_digest: bytes, nonce: int) -> None:
        self._keyed = seed if isinstance(seed, hmac.HMAC) else keyed(seed)
        self._prefix = roll_message(campaign, epoch, seeds_digest, nonce)
        self._buffer = b""
        self._at = 0
        self.counter = 0
        """Blocks drawn so far (the next block's counter)."""
        self.faces = 0
        """Dice drawn so far: a roll that drew none uses no nonce."""

    @property
    def bytes_used(self) -> int:
        """Bytes read from the stream so far (rejected ones included)."""
        return (self.counter - 1) * 32 + self._at if self.counter else 0

    def _block(self) -> bytes:
        mac = self._keyed.copy()  # HMAC(seed, prefix | counter), keyed once for the epoch
        mac.update(self._prefix + self.counter.to_bytes(4, "big"))
        self.counter += 1
        return mac.digest()

    def face(self, sides: int) -> int:
        """The next die of ``sides`` sides: a face from 1 to ``sides``, by rejection."""
        if not 1 <= sides <= MAX_SIDES:
            raise ValueError(f"a die has 1 to {MAX_SIDES} sides, not {sides}")
        limit = 256 - 256 % sides
        buffer, at = self._buffer, self._at
        while True:
            if at >= len(buffer):
                buffer, at = self._block(), 0
                self._buffer = buffer
            byte = buffer[at]
            at += 1
            if byte < limit:
                self._at = at
                self.faces += 1
                return byte % sides + 1

    def randint(self, a: int, b: int) -> int:
        """A die ``a..b`` (``random.Random``'s signature: the rules call it so)."""
        return a - 1 + self.face(b - a + 1)

    def randrange(self, n: int) -> int:
        """A die ``0..n-1``."""
        return self.face(n) - 1


def derive_faces(seed: bytes, campaign: str, epoch: int, seeds_digest: bytes, nonce: int,
                 sides: list[int]) -> list[int]:
    """The faces of dice of the given sides, in order, for one roll."""
    stream = DieStream(seed, campaign, epoch, seeds_digest, nonce)
    return [stream.face(n) for n in sides]


# ---- vocabulary ---------------------------------------------------------------------------


class FairStamp(Value, frozen=True, kw_only=True, gc=False):
    """Where a roll's dice came from: the epoch, the roll's nonce, the client seeds' digest."""

    epoch: Epoch
    nonce: Nonce
    seeds: SeedHex


class SeedCommitted(Event, frozen=True, kw_only=True):
    """The server drew a secret seed for a new epoch of rolls and published its SHA-256."""

    epoch: Epoch
    commitment: SeedHex
    session: Annotated[int, Meta(ge=0)] = 0
    """The game session the epoch serves (0: rolls outside a session)."""


class SeedRevealed(Event, frozen=True, kw_only=True):
    """An epoch ended and its seed was revealed: every roll of it can be recomputed."""

    epoch: Epoch
    seed: SeedHex
    rolls: Annotated[int, Meta(ge=0)] = 0
    """How many rolls (nonces) the epoch holds: a roll dropped at its end shows too."""


class SeedLost(Event, frozen=True, kw_only=True):
    """An epoch ended without its seed: the server lost it (the row was gone from the seed
    vault when the campaign was loaded: a file restored without it, a row deleted). Its rolls
    can never be recomputed; the log says so in place of a reveal, so that a verifier reports
    the loss in those words rather than an epoch that merely ended unrevealed. Appended by the
    rotation the GM makes to roll on (rolls are refused until then)."""

    epoch: Epoch
    rolls: Annotated[int, Meta(ge=0)] = 0
    """How many rolls (nonces) the epoch holds: the ones that can never be checked."""


class ClientSeedSet(Event, frozen=True, kw_only=True):
    """A member set their own seed; every roll from now on mixes it in."""

    member: Slug
    seed: ClientSeed


class SetClientSeed(Command, frozen=True, kw_only=True):
    """Set your own seed (any short text; the page offers one it drew)."""

    seed: ClientSeed


class RotateSeed(Command, frozen=True, kw_only=True):
    """Reveal the current epoch's seed and commit to a new one (GM only)."""


EVENTS: tuple[type[Event], ...] = (SeedCommitted, SeedRevealed, SeedLost, ClientSeedSet)
COMMANDS: tuple[type[Command], ...] = (SetClientSeed, RotateSeed)
