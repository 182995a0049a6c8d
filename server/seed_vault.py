"""Where the server keeps each epoch's secret seed until it is revealed.

The seeds are the one secret of the fair rolls (:mod:`poolhall.events.fair`): never in an event, a
frame, a log line or a snapshot until ``seed_revealed`` puts them in the log. They are kept
durably, so a server killed between a commitment and its reveal continues the same epoch
after a restart; a seed is stored *before* the ``seed_committed`` that publishes its hash is
appended (:class:`poolhall.server.fair_seeds.FairSeeds` does it in that order).

The vault is a small interface of its own, apart from the event log's storage, so that each
store backend can keep it beside its events; :mod:`poolhall.server.seed_vault_sqlite` is the SQLite
one.
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["SeedVault"]


class SeedVault(Protocol):
    """Durable storage of one secret seed per (campaign, epoch)."""

    def put(self, campaign: str, epoch: int, seed: bytes) -> bytes:
        """Store ``seed`` for the epoch unless one is stored already; return the stored one.

        It is durable when this returns (another process may have stored its own first:
        then that one is returned, and used).
        """

    def get(self, campaign: str, epoch: int) -> bytes | None:
        """The seed of the epoch, or ``None`` if none was stored."""

    def close(self) -> None:
        """Release the storage."""
