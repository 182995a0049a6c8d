"""Stored snapshots: each campaign's projected state, kept every so many events.

One row per (campaign, seq) with the bounded state after that event
(:mod:`projections.campaign`), msgpack-encoded, the chain hash at that seq and the fingerprint
of the state's types. It is derived data: deleting the table (or any row) loses
nothing, the next load folds from the log and writes the rows again. A row whose fingerprint
is not this code's (written before a projection changed) is ignored and replaced.

The rows are the backend's (:class:`~events.log_contract.SnapshotRows`; for SQLite,
:mod:`events.sqlite_backend.snapshots`), written in a worker thread, never on the event loop.

What the rows are for: a hub loads from the latest row plus the events after it, whatever the
log's length (:func:`server.rebuild.load_hub_state`), and the state at any seq is the nearest
row at or before it plus at most ``--snapshot-every`` events
(:func:`server.snapshots.snapshot_at`); both go through :func:`fold_from`.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple, get_type_hints

import msgspec

from events.log import GENESIS, ServerLog, to_recorded
from events.log_contract import SnapshotRows
from events.sqlite_backend.snapshots import SqliteSnapshots
from projections import campaign as campaign_projection
from projections.campaign import CampaignState, evolve, new_state
from projections.snapshot import TableUnion
from projections.systems import PROJECTIONS

__all__ = [
    "FINGERPRINT",
    "Folded",
    "SnapshotStore",
    "decode_state",
    "encode_state",
    "fold_from",
]

_CORE_FIELDS = [(name, hint) for name, hint in get_type_hints(CampaignState).items()
                if name != "game"]
_CoreState: Any = msgspec.defstruct("_CoreState", _CORE_FIELDS, kw_only=True)
"""CampaignState without its game part, whose type is a union msgspec cannot tell apart
untagged; the game part is stored as its system's (tagged) table instead."""


class _Stored(msgspec.Struct, array_like=True):
    core: msgspec.Raw
    table: msgspec.Raw


_DECODE_STORED = msgspec.msgpack.Decoder(_Stored)
_DECODE_CORE = msgspec.msgpack.Decoder(_CoreState)
_DECODE_TABLE: msgspec.msgpack.Decoder[Any] = msgspec.msgpack.Decoder(TableUnion)
_ENCODER = msgspec.msgpack.Encoder()


def _bounds() -> dict[str, int]:
    """Every bound a fold applies: the ``*_KEPT`` (and ``RECENT_*``) constants of the campaign
    projection and of each system's (the convention a new bound follows)."""
    modules = {campaign_projection.__name__: campaign_projection}
    modules.update((part.evolve.__module__, sys.modules[part.evolve.__module__])
                   for part in PROJECTIONS.values())
    return {f"{name}.{constant}": value for name, module in sorted(modules.items())
            for constant, value in vars(module).items()
            if (constant.endswith("_KEPT") or constant.startswith("RECENT_"))
            and isinstance(value, int)}


def _fingerprint() -> str:
    """A hash of the stored types' schema and of the bounds the folds apply: a snapshot from
    code that folds differently is never read."""
    parts = {
        "core": msgspec.json.schema(_CoreState),
        "table": msgspec.json.schema(TableUnion),
        "bounds": _bounds(),
    }
    return hashlib.sha256(msgspec.json.encode(parts, order="sorted")).hexdigest()[:32]


FINGERPRINT = _fingerprint()
"""The fingerprint of this code's stored state."""


def encode_state(state: CampaignState) -> bytes:
    """The state as stored (a copy: the live state goes on changing in place)."""
    assert state.system, "a campaign's state has its system from its first event on"
    core = msgspec.structs.replace(state, game=None)
    table = PROJECTIONS[state.system].table(game=state.game)
    return _ENCODER.encode(_Stored(msgspec.Raw(_ENCODER.encode(core)),
                                   msgspec.Raw(_ENCODER.encode(table))))


def decode_state(blob: bytes) -> CampaignState:
    """A state as :func:`encode_state` stored it."""
    stored = _DECODE_STORED.decode(blob)
    core = _DECODE_CORE.decode(stored.core)
    table = _DECODE_TABLE.decode(stored.table)
    return CampaignState(**msgspec.structs.asdict(core), game=table.game)


class Folded(NamedTuple):
    """A state folded up to ``state.head``, with the chain hash of that event."""

    state: CampaignState
    head_hash: str


class SnapshotStore:
    """A campaign's stored states: encoded and trusted here, kept by the backend's
    :class:`~events.log_contract.SnapshotRows` (a log file's path: the SQLite backend's)."""

    def __init__(self, rows: SnapshotRows | str | Path) -> None:
        self._rows = SqliteSnapshots(rows) if isinstance(rows, str | Path) else rows

    def save(self, campaign: str, rows: Iterable[tuple[int, str, bytes]]) -> None:
        """Store ``(seq, head_hash, encoded state)`` rows of a campaign (replacing any row at
        the same seq, whatever code wrote it). Called in a worker thread."""
        self._rows.save(campaign, FINGERPRINT, rows)

    def latest(self, campaign: str, at_most: int | None = None) -> Folded | None:
        """The campaign's stored state at the greatest seq ``<= at_most`` written by this
        code, if any (a table deleted under a running server reads as empty)."""
        found = self._rows.latest(campaign, FINGERPRINT,
                                  at_most if at_most is not None else 2**62)
        if found is None:
            return None
        return Folded(decode_state(found[2]), found[1])


def fold_from(log: ServerLog, store: SnapshotStore, campaign: str, *, upto: int | None = None,
              every: int = 1000) -> Folded:
    """The campaign's state at ``upto`` (its head if ``None``): the nearest stored snapshot
    at or before it plus the events between, read from the log.

    Each time the fold gets ``every`` events past the snapshot it started from (or the last
    it stored) it stores one, so the first load after an upgrade or a deleted table writes
    them back as it goes (0: stores none). Called in a worker thread.
    """
    start = store.latest(campaign, upto)
    state, head_hash = start if start is not None else (new_state(), GENESIS)
    due: list[tuple[int, str, bytes]] = []
    last_stored = state.head
    for row in log.rows(campaign, state.head, upto):
        recorded = to_recorded(row)
        evolve(state, recorded)
        head_hash = row.hash
        if every > 0 and row.seq - last_stored >= every:
            due.append((row.seq, head_hash, encode_state(state)))
            last_stored = row.seq
            if len(due) >= 64:
                store.save(campaign, due)
                due = []
    if due:
        store.save(campaign, due)
    return Folded(state, head_hash)
