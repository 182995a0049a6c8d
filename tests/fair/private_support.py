"""What the private and secret rolls' rules tests share: a table with a fair epoch ready,
a refusal caught, and the GM's secret check opened."""

from __future__ import annotations

import hashlib

import pytest

from poolhall.events import narrative
from poolhall.events.errors import Rejected
from poolhall.events.fair import SeedCommitted, commitment
from poolhall.server.rules.fairness import EpochSeeds
from tests.narrative.narrative_support import Table as NarrativeTable

SEEDS = [hashlib.sha256(f"private {n}".encode()).digest() for n in range(6)]
NOW = "2024-01-01T00:00:00.000Z"


def fair(table: object, epoch: int = 1) -> None:
    """Epoch ``epoch`` committed in the table's log; the dice come from the server's
    derivation, and the next epoch's seed is ready for a reveal."""
    table.fold(SeedCommitted(epoch=epoch, commitment=commitment(SEEDS[epoch])))  # type: ignore[attr-defined]
    table.seeds = EpochSeeds(current=SEEDS[epoch], following=SEEDS[epoch + 1], now=NOW)  # type: ignore[attr-defined]


def refused(table: object, member: str, command: type, **fields: object) -> Rejected:
    """The refusal of ``command`` from ``member``; nothing is folded."""
    with pytest.raises(Rejected) as caught:
        table.decide(member, command, **fields)  # type: ignore[attr-defined]
    return caught.value


def open_secret_check(table: NarrativeTable) -> str:
    """The GM opens a secret check (Vader's Vigilance); its id, which the server chose."""
    opened = table.run("gm", narrative.OpenCheck, character="vader", skill="Vigilance",
                       visibility="gm")
    assert isinstance(opened[0], narrative.CheckOpened)
    assert opened[0].visibility == "gm"
    return opened[0].check

