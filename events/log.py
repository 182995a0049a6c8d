"""The storage interface of the event log, narrow enough for another backend (PostgreSQL).

A log holds, per campaign, a gap-free sequence of events starting at 1, each row chained to the
previous one by a SHA-256 hash so that an edited, dropped or reordered event is detected.
Appends name the head they expect (optimistic concurrency) and the client command id that
caused them (a retried command finds its original answer instead of appending twice).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

import msgspec

from events.base import Event, Recorded
from events.chain import GENESIS, link_hash
from events.codec import (
    UPCASTERS,
    decode_event,
    decode_page,
    decode_stored,
    encode_event,
    event_tag,
)
from events.errors import Rejected
from events.framed_pages import FramePage

__all__ = [
    "GENESIS",
    "AppendRequest",
    "Appended",
    "ChainProblem",
    "CommandRecord",
    "EventLog",
    "StoredRow",
    "chain_hash",
    "prepare",
    "to_recorded",
    "recorded_pages",
    "RowTuple",
]

class PreparedEvent(msgspec.Struct, frozen=True):
    """An event encoded once, ready to store and to broadcast."""

    type: str
    version: int
    payload: bytes


class AppendRequest(msgspec.Struct, frozen=True, kw_only=True):
    """Append ``events`` to ``campaign`` if its head is still ``expected_head``."""

    campaign: str
    expected_head: int
    events: tuple[PreparedEvent, ...]
    actor: str
    command_id: str
    at: str
    sealed_token: str | None = None
    """The token the command issued, sealed under its retry key (see
    :mod:`server.sealed_tokens`): stored in the same transaction, never in an event."""
    id_looked_up: bool = False
    """Whether the caller looked ``command_id`` up in this log itself just before, and
    appends to the campaign one batch at a time (a hub does both): the log then checks the
    id only against the commands it holds in memory, not again in its index on disk (the
    writer's second look-up of every id was a tenth of its time at 1,000 campaigns)."""


class StoredRow(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """One row of the log as stored; ``hash`` is its link of the chain, when it was read.

    The chain hash is not one of the fields it covers (:func:`chain_hash`); rows read to be
    sent (:meth:`EventLog.rows`) carry it, so that a client always knows the hash of the last
    event it holds and can prove on resuming that its history is the server's.
    """

    seq: int
    type: str
    version: int
    payload: bytes | str
    at: str
    actor: str
    command_id: str
    campaign: str = ""
    hash: str = ""


class Appended(list[int]):
    """The sequence numbers one append request stored, with the chain hash of each.

    A list of the sequence numbers, so that whoever needs only those reads it as before;
    ``hashes[i]`` is the hash of event ``self[i]``, which the hub sends with the event and
    keeps (the last one) as the head's hash, with no read of the log.
    """

    __slots__ = ("hashes",)  # no instance dict: one object fewer per append, for the writer
    # to build and the collector to track
    hashes: list[str]
    """Set by whoever builds one (the store): no ``__init__`` of its own, so that building
    one runs no Python frame (half its cost on the writer's thread)."""


class CommandRecord(msgspec.Struct, frozen=True):
    """What a command id caused: who sent it and the sequence numbers it appended."""

    actor: str
    first_seq: int
    last_seq: int

    @property
    def seqs(self) -> list[int]:
        return list(range(self.first_seq, self.last_seq + 1))


class ChainProblem(msgspec.Struct, frozen=True):
    """One break in a campaign's hash chain, as ``poolhall verify`` reports it."""

    campaign: str
    seq: int
    problem: str


def prepare(event: Event) -> PreparedEvent:
    """Encode an event for the log, refusing one that could not be read back from it.

    msgspec checks a type's limits when it decodes, not when it encodes. A rule that let a
    value past its limit (61 dice where a roll holds at most 60) would store an event no
    rebuild can read, and the server could not start on its log again; so each payload is
    decoded once before it is appended (a few microseconds) and such a command is refused.
    """
    payload = encode_event(event)
    try:
        decode_event(payload)
    except msgspec.ValidationError as error:
        raise Rejected("invalid", f"the result would break a limit of the log: "
                       f"{str(error)[0].lower()}{str(error)[1:]} in {event_tag(type(event))}",
                       None) from None
    return PreparedEvent(event_tag(type(event)), type(event).schema_version, payload)


def chain_hash(previous: str, campaign: str, row: StoredRow) -> str:
    """The hash of a row chained to the previous one; covers every stored field."""
    return link_hash(previous, campaign, row.seq, row.type, row.version, row.at, row.actor,
                     row.command_id, row.payload)


RowTuple = tuple[Any, ...]
"""A row as a rebuild reads it, a plain tuple (a Struct per row cost a sixth of a rebuild):
``(seq, payload, at, actor, command_id, campaign)``, then ``(type, version)`` when typed."""


def recorded_pages(log: EventLog) -> Iterator[list[tuple[str, Recorded]]]:
    """Every event of the log as ``(campaign, recorded)`` pairs, a page at a time, in order.

    The rebuild's hot path. With no upcaster registered, type and version are not even read
    and a page is decoded in one call; otherwise each payload is upcast as its version needs.
    """
    fast = not UPCASTERS
    for page in log.all_rows(typed=not fast):
        events = decode_page([row[1] for row in page]) if fast else [
            decode_stored(row[1], row[6], row[7]) for row in page]
        assert events is not None
        yield [(row[5], Recorded(seq=row[0], at=row[2], actor=row[3], command=row[4], event=e))
               for row, e in zip(page, events, strict=True)]


def to_recorded(row: StoredRow) -> Recorded:
    """Decode a stored row (upcasting old payloads) into the envelope projections fold."""
    return Recorded(
        seq=row.seq,
        at=row.at,
        actor=row.actor,
        command=row.command_id,
        event=decode_stored(row.payload, row.type, row.version),
    )


class EventLog(Protocol):
    """What the server needs of a log; :class:`events.store.SqliteLog` is the embedded one."""

    def append_batch(self, requests: list[AppendRequest]) -> list[Appended | Exception]:
        """Append every request that still matches its head, in one durable transaction."""
        ...

    def rows(self, campaign: str, after: int = 0, upto: int | None = None) -> Iterator[StoredRow]:
        """The campaign's rows with ``after < seq <= upto``, in order, each with its hash."""
        ...

    def event_frames(self, campaign: str, after: int, upto: int) -> list[bytes]:
        """The JSON of ``OutgoingEventFrame`` for each event ``(after, upto]``, in order (what
        a catch-up sends: the store may build them faster than decoding rows would)."""
        ...

    def frame_pages(self, campaign: str, after: int, upto: int, size: int) -> list[FramePage]:
        """Events ``(after, upto]`` in pages of ``size``, each page the websocket text frames
        of its events' ``OutgoingEventFrame`` back to back (what a catch-up writes)."""
        ...

    def store_frame_pages(self, campaign: str, after: int | None, upto: int) -> int:
        """Keep the pages of ``(after, upto]`` (from where the kept ones end if ``after`` is
        None) so that :meth:`frame_pages` need not build them again; where they now end.
        Derived data: a log may keep none (returning ``after``)."""
        ...

    def hashes_at(self, wanted: dict[str, int]) -> dict[str, str]:
        """The chain hash of each campaign's event ``wanted[campaign]`` (:data:`GENESIS` for 0);
        a campaign without that event is left out."""
        ...

    def campaigns(self) -> list[str]:
        """Every campaign with at least one event."""
        ...

    def all_rows(self, typed: bool = False) -> Iterator[list[RowTuple]]:
        """Every row of every campaign in append order, in pages of :data:`RowTuple`."""
        ...

    def head(self, campaign: str) -> int:
        """The campaign's last sequence number (0 when it has none)."""
        ...

    def commands(self, campaign: str) -> dict[str, CommandRecord]:
        """Every command id the campaign has accepted, with what it appended."""
        ...

    def command_records(self, campaign: str, ids: list[str]) -> dict[str, CommandRecord]:
        """What each of ``ids`` appended to ``campaign``, for the ids it accepted."""
        ...

    def directory(self) -> list[tuple[str, str, str, int]]:
        """Every campaign with the command that created it: ``(campaign, command_id, actor,
        last_seq)``."""
        ...

    def token_campaign(self, token_hash: str) -> str | None:
        """The campaign a token with this hash was issued for, if any."""
        ...

    def sealed_token(self, campaign: str, command_id: str) -> str | None:
        """The sealed token a command stored with its events, if it stored one."""
        ...

    def verify(self) -> tuple[int, list[ChainProblem]]:
        """Walk every campaign's chain: the number of events checked and each problem found."""
        ...

    def checkpoint(self) -> None:
        """Housekeeping the server runs beside the writer (for SQLite: a WAL checkpoint)."""
        ...

    def close(self) -> None:
        """Release the connections."""
        ...
