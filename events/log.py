"""Helpers over the log's contract (:mod:`poolhall.events.log_contract`), for any backend.

Encoding an event for the log (:func:`prepare`), decoding a stored row (:func:`to_recorded`),
a row's chain hash (:func:`chain_hash`) and every event of every campaign a page at a time
(:func:`recorded_pages`). The contract's names are importable from here too, where the server
has always found them.
"""

from __future__ import annotations

from collections.abc import Iterator

import msgspec

from poolhall.events.base import Event, Recorded
from poolhall.events.chain import GENESIS, link_hash
from poolhall.events.codec import (
    UPCASTERS,
    decode_event,
    decode_page,
    decode_stored,
    encode_event,
    event_tag,
)
from poolhall.events.errors import Rejected
from poolhall.events.log_contract import (
    Appended,
    AppendRequest,
    AppendResult,
    ChainProblem,
    CommandRecord,
    Created,
    EventLog,
    PreparedEvent,
    ServerLog,
    StoredRow,
)

__all__ = [
    "GENESIS",
    "AppendRequest",
    "AppendResult",
    "Appended",
    "ChainProblem",
    "CommandRecord",
    "Created",
    "EventLog",
    "PreparedEvent",
    "ServerLog",
    "StoredRow",
    "chain_hash",
    "prepare",
    "recorded_or_problem",
    "recorded_pages",
    "to_recorded",
    "with_seal",
]


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


SEAL_BYTES = 16
"""Random bytes in the ``seal`` of a private roll's event: 128 bits, past any search."""


def with_seal(prepared: PreparedEvent, seal: bytes) -> PreparedEvent:
    """``prepared`` with ``"seal": "<hex of seal>"`` added to its stored payload.

    An event of a private roll is sealed for most of the table until its epoch's seed is
    revealed, hash and all. But the next public event's chain hash covers the sealed event's
    hash, which covers its payload, and the payload of a roll is small: a member holding the
    hashes on both sides could try every expression and every face until the chain closes
    (3d6 in 11,130 tries). A random ``seal`` in the payload makes that search hopeless. It
    is part of the stored bytes (so ``verify`` and anyone checking the chain after the reveal
    hash it like the rest), and no event class declares it: decoding ignores it, as it does
    any member it does not know, so it never reaches a projection or a rule.
    """
    if len(seal) < SEAL_BYTES:
        raise ValueError(f"a seal is at least {SEAL_BYTES} random bytes")
    payload = prepared.payload
    if not payload.endswith(b"}"):
        raise ValueError("an event's payload is a JSON object")
    return PreparedEvent(prepared.type, prepared.version,
                         payload[:-1] + b',"seal":"' + seal.hex().encode() + b'"}')


def chain_hash(previous: str, campaign: str, row: StoredRow) -> str:
    """The hash of a row chained to the previous one; covers every stored field."""
    return link_hash(previous, campaign, row.seq, row.type, row.version, row.at, row.actor,
                     row.command_id, row.payload)


def to_recorded(row: StoredRow) -> Recorded:
    """Decode a stored row (upcasting old payloads) into the envelope projections fold."""
    return Recorded(
        seq=row.seq,
        at=row.at,
        actor=row.actor,
        command=row.command_id,
        event=decode_stored(row.payload, row.type, row.version),
    )


def recorded_or_problem(row: StoredRow) -> Recorded | str:
    """:func:`to_recorded`, or, for a row whose payload does not decode as its type, why in
    plain words: what ``verify`` reports of such a row (written past poolhall, which never
    stores an event it could not read back) before going on with the rest of the log."""
    try:
        return to_recorded(row)
    except (msgspec.MsgspecError, KeyError, ValueError, TypeError) as error:
        return (f"its payload does not decode as a {row.type!r} event (version {row.version}):"
                f" {error}; poolhall never stores such an event, so it was written past it")


def recorded_pages(log: EventLog) -> Iterator[list[tuple[str, Recorded]]]:
    """Every event of the log as ``(campaign, recorded)`` pairs, a page at a time, each
    campaign's in order (:meth:`EventLog.scan`: on SQLite, the log's append order). With no
    upcaster registered, a page's payloads are decoded in one call."""
    fast = not UPCASTERS
    for page in log.scan():
        events = (decode_page([row.payload if isinstance(row.payload, str) else
                               row.payload.decode() for row in page]) if fast else
                  [decode_stored(row.payload, row.type, row.version) for row in page])
        assert events is not None
        yield [(row.campaign, Recorded(seq=row.seq, at=row.at, actor=row.actor,
                                       command=row.command_id, event=event))
               for row, event in zip(page, events, strict=True)]
