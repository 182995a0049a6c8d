"""Stored snapshots: each campaign's projected state, kept every so many events.

One row per (campaign, seq) with the bounded state after that event
(:mod:`poolhall.projections.campaign`), msgpack-encoded, the chain hash at that seq and the
fingerprint of the state's types. It is derived data: deleting the table (or any row) loses
nothing, the next load folds from the log and writes the rows again. A row whose fingerprint
is not this code's (written before a projection changed) is ignored and replaced.

The rows are the backend's (:class:`~poolhall.events.log_contract.SnapshotRows`; for SQLite,
:mod:`poolhall.events.sqlite_backend.snapshots`), written in a worker thread, never on the event
loop.

What the rows are for: a hub loads from the latest row plus the events after it, whatever the
log's length (:func:`poolhall.server.rebuild.load_hub_state`), and the state at any seq is the
nearest row at or before it plus at most ``--snapshot-every`` events
(:func:`poolhall.server.snapshots.snapshot_at`); both go through :func:`fold_from`.

Why a row is trusted: only as far as the log vouches for it. A row is read only when the chain
hash it was stored with is the log's hash of that very event and its seal (an HMAC under a
key derived from the admin token, :func:`seal_key`) is the server's (:func:`trusted_latest`):
a row of another log (a file restored from a backup, events dropped or rewritten below it) or
one whose state was edited in place is dropped and folded again. ``poolhall verify``, which
holds no key, folds the log and compares every row with it (:mod:`poolhall.server.snapshot_check`).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import logging
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple, get_type_hints

import msgspec

from poolhall.events.log import GENESIS, EventLog, to_recorded
from poolhall.events.log_contract import SnapshotRows
from poolhall.events.sqlite_backend.snapshots import SqliteSnapshots, read_only_rows
from poolhall.projections import campaign as campaign_projection
from poolhall.projections.campaign import CampaignState, evolve, new_state
from poolhall.projections.snapshot import TableUnion
from poolhall.projections.systems import PROJECTIONS

__all__ = [
    "Folded",
    "SnapshotStore",
    "StoredRow",
    "decode_state",
    "encode_state",
    "fingerprint",
    "fold_from",
    "seal_key",
    "stored_rows",
    "trusted_latest",
]

logger = logging.getLogger(__name__)

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


@functools.cache
def fingerprint() -> str:
    """The fingerprint of this code's stored state, made when a snapshot is first read or
    written (the two schemas take ~5 ms, which a server's start need not wait for)."""
    return _fingerprint()


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


def seal_key(secret: str) -> bytes:
    """The key that seals stored snapshots, derived from the server's admin token: forging a
    row then takes the token, which opens every campaign as GM anyway."""
    return hmac.new(secret.encode(), b"poolhall stored snapshots v1", hashlib.sha256).digest()


def _seal(key: bytes, campaign: str, seq: int, head_hash: str, blob: bytes) -> str:
    head = f"{campaign}\x1f{seq}\x1f{fingerprint()}\x1f{head_hash}\x1f".encode()
    return hmac.new(key, head + blob, hashlib.sha256).hexdigest()


class _Row(NamedTuple):
    seq: int
    head_hash: str
    blob: bytes
    sealed: bool
    """Whether the row's seal is this store's (always, for a store without a key)."""


class SnapshotStore:
    """A campaign's stored states: encoded, sealed and trusted here, kept by the backend's
    :class:`~poolhall.events.log_contract.SnapshotRows` (a log file's path: the SQLite backend's).

    With ``key`` (:func:`seal_key`; the server passes one) each row is sealed with an
    HMAC-SHA256 over its campaign, seq, fingerprint, chain hash and state, and a row whose
    seal is not this key's is never believed (:func:`trusted_latest`): someone who can write
    the database but does not hold the admin token cannot make the server believe a state.
    """

    def __init__(self, rows: SnapshotRows | str | Path, key: bytes | None = None) -> None:
        self._rows = SqliteSnapshots(rows) if isinstance(rows, str | Path) else rows
        self._key = key

    def save(self, campaign: str, rows: Iterable[tuple[int, str, bytes]]) -> None:
        """Store ``(seq, head_hash, encoded state)`` rows of a campaign (replacing any row at
        the same seq, whatever code wrote it). Called in a worker thread."""
        key = self._key
        self._rows.save(campaign, fingerprint(), [
            (seq, digest, blob, _seal(key, campaign, seq, digest, blob) if key else "")
            for seq, digest, blob in rows])

    def latest(self, campaign: str, at_most: int | None = None) -> Folded | None:
        """The campaign's stored state at the greatest seq ``<= at_most`` written by this
        code, if any (a table deleted under a running server reads as empty). Not checked
        against the log: :func:`trusted_latest` is."""
        found = self.latest_row(campaign, at_most)
        return None if found is None else Folded(decode_state(found.blob), found.head_hash)

    def latest_row(self, campaign: str, at_most: int | None = None) -> _Row | None:
        """The row :meth:`latest` decodes, as stored, and whether its seal is this store's."""
        found = self._rows.latest(campaign, fingerprint(),
                                  at_most if at_most is not None else 2**62)
        if found is None:
            return None
        seq, head_hash, blob, seal = found
        sealed = self._key is None or hmac.compare_digest(
            seal, _seal(self._key, campaign, seq, head_hash, blob))
        return _Row(seq, head_hash, blob, sealed)

    def discard(self, campaign: str, seq: int) -> None:
        """Delete the campaign's row at ``seq`` (one the log does not vouch for)."""
        self._rows.discard(campaign, seq)


class StoredRow(NamedTuple):
    """A row of the ``snapshots`` table as stored, for ``verify``."""

    campaign: str
    seq: int
    fingerprint: str
    head_hash: str
    state: bytes


def stored_rows(path: str | Path) -> list[StoredRow]:
    """Every row of the file's ``snapshots`` table, by campaign and seq, read without changing
    the file (none if it has no such table)."""
    return [StoredRow(*row) for row in read_only_rows(path)]


DISTRUSTED_MOST = 16
"""Rows a fold discards at most before it folds from the first event instead."""


def trusted_latest(log: EventLog, store: SnapshotStore, campaign: str,
                   at_most: int | None = None) -> Folded | None:
    """The campaign's latest stored state at or before ``at_most`` that the log vouches for:
    its row's chain hash is the log's hash of that event, its state is at that event and
    readable, and its seal is the store's (:class:`SnapshotStore`).

    A row that fails is logged, deleted and the next earlier one tried (at most
    :data:`DISTRUSTED_MOST`): derived data is rebuilt, never believed against the log. One
    read of the log a row. Called in a worker thread.
    """
    for _ in range(DISTRUSTED_MOST):
        found = store.latest_row(campaign, at_most)
        if found is None:
            return None
        seq = found.seq
        if found.sealed and log.hashes_at({campaign: seq}).get(campaign) == found.head_hash:
            try:
                state = decode_state(found.blob)
            except (msgspec.DecodeError, msgspec.ValidationError, TypeError, ValueError):
                state = None
            if state is not None and state.head == seq:
                return Folded(state, found.head_hash)
        logger.warning("the stored snapshot of %s at #%d is not vouched for (its seal, its"
                       " chain hash or its seq): ignored and deleted; folding from an earlier"
                       " one", campaign, seq)
        store.discard(campaign, seq)
    return None


def fold_from(log: EventLog, store: SnapshotStore, campaign: str, *, upto: int | None = None,
              every: int = 1000) -> Folded:
    """The campaign's state at ``upto`` (its head if ``None``): the nearest stored snapshot
    at or before it plus the events between, read from the log.

    Each time the fold gets ``every`` events past the snapshot it started from (or the last
    it stored) it stores one, so the first load after an upgrade or a deleted table writes
    them back as it goes (0: stores none). Called in a worker thread.
    """
    start = trusted_latest(log, store, campaign, upto)
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
