"""The contract every event log backend must keep, written once and run for each backend.

A backend's test module imports :func:`contract_tests` names into its namespace with a ``log``
fixture of its own (see ``test_sqlite_log.py``), in the manner of eventsourcing's abstract
recorder tests.
"""

from __future__ import annotations

from events import core
from events.errors import ConcurrencyError
from events.log import GENESIS, AppendRequest, prepare, to_recorded


def request(campaign: str, head: int, *events: object, command: str = "c1",
            actor: str = "gm") -> AppendRequest:
    return AppendRequest(campaign=campaign, expected_head=head,
                         events=tuple(prepare(e) for e in events),  # type: ignore[arg-type]
                         actor=actor, command_id=command, at="2026-11-22T08:00:00.000Z")


def opened(campaign: str = "c") -> core.CampaignCreated:
    return core.CampaignCreated(campaign=campaign, name="C", system="d12")


def rolled(total: int) -> core.DiceRolled:
    return core.DiceRolled(expression="1d6", terms=(), total=total)


def test_append_numbers_events_from_one_per_campaign(log) -> None:
    """Each campaign's sequence starts at 1 and has no gap."""
    results = log.append_batch([
        request("a", 0, opened("a"), rolled(1), command="a1"),
        request("b", 0, opened("b"), command="b1"),
        request("a", 2, rolled(2), command="a2"),
    ])
    assert results == [[1, 2], [1], [3]]
    assert [r.seq for r in log.rows("a")] == [1, 2, 3]
    assert log.head("a") == 3 and log.head("b") == 1 and log.head("none") == 0
    assert log.campaigns() == ["a", "b"]


def test_stale_head_is_refused_and_appends_nothing(log) -> None:
    """Optimistic concurrency: an append that expects an old head is refused alone."""
    log.append_batch([request("a", 0, opened("a"))])
    results = log.append_batch([request("a", 0, rolled(3), command="late"),
                                request("a", 1, rolled(4), command="fresh")])
    assert isinstance(results[0], ConcurrencyError) and results[1] == [2]
    assert [to_recorded(r).event.total for r in log.rows("a", after=1)] == [4]


def test_rows_round_trip_every_field(log) -> None:
    """What is appended reads back the same: payload, actor, command id, time."""
    log.append_batch([request("a", 0, opened("a"), rolled(5), command="x", actor="han")])
    records = [to_recorded(r) for r in log.rows("a")]
    assert records[1].event == rolled(5)
    assert (records[1].actor, records[1].command, records[1].at) == (
        "han", "x", "2026-11-22T08:00:00.000Z")
    assert [r.seq for r in log.rows("a", after=1, upto=2)] == [2]


def test_event_frames_are_the_outgoing_event_frames_of_the_rows(log) -> None:
    """``event_frames`` gives, in order, the bytes the server's own encoding of each row's
    ``OutgoingEventFrame`` gives, whatever the command id holds (quotes, backslashes,
    control characters, non-ASCII)."""
    import msgspec

    from events.codec import encode
    from events.messages import OutgoingEventFrame

    ids = ["plain", 'a "quoted" id', "back\\slash", "tab\tnew\nline\x01\x1f", "é ☃ 𝄞", "</script>"]
    log.append_batch([request("a", 0, opened("a"), command="open")]
                     + [request("a", 1 + n, rolled(n), command=cid, actor="han")
                        for n, cid in enumerate(ids)])
    expected = [encode(OutgoingEventFrame(seq=r.seq, at=r.at, actor=r.actor, command=r.command_id,
                                          event=msgspec.Raw(r.payload), hash=r.hash))
                for r in log.rows("a")]
    assert log.event_frames("a", 0, 7) == expected
    assert log.event_frames("a", 2, 4) == expected[2:4]
    assert log.event_frames("a", 7, 9) == [] and log.event_frames("none", 0, 5) == []


def test_frame_pages_are_the_event_frames_framed_page_by_page(log) -> None:
    """``frame_pages`` gives the events of a range in pages on multiples of the size asked
    (the first one shorter if the range starts inside a page), each page the websocket text
    frames of its ``event`` frames back to back, in order, with its count; nothing past the
    last event."""
    from websockets.frames import Frame, Opcode

    ids = ['a "quoted" id', "back\\slash", "é ☃ 𝄞", "tab\t"] + [f"c{n}" for n in range(9)]
    log.append_batch([request("a", 0, opened("a"), command="open")]
                     + [request("a", 1 + n, rolled(n), command=cid, actor="han")
                        for n, cid in enumerate(ids)])

    def framed(after: int, upto: int) -> bytes:
        return b"".join(Frame(Opcode.TEXT, frame).serialize(mask=False, extensions=[])
                        for frame in log.event_frames("a", after, upto))

    pages = log.frame_pages("a", 1, 14, 5)
    assert [(page.events, page.frames) for page in pages] == [
        (4, framed(1, 5)), (5, framed(5, 10)), (4, framed(10, 14))]
    assert [page.events for page in log.frame_pages("a", 9, 40, 2)] == [1, 2, 2]
    assert log.frame_pages("a", 14, 20, 5) == [] and log.frame_pages("none", 0, 5, 5) == []


def test_commands_remember_what_each_command_appended(log) -> None:
    """The command index answers a retried command with its original sequence numbers."""
    log.append_batch([request("a", 0, opened("a"), rolled(1), command="first")])
    found = log.commands("a")["first"]
    assert (found.actor, found.seqs) == ("gm", [1, 2])


def test_verify_passes_an_untouched_log(log) -> None:
    """An honest log verifies clean."""
    log.append_batch([request("a", 0, opened("a"), rolled(1), rolled(2))])
    assert log.verify() == (3, [])


def test_each_event_has_its_chain_hash_in_the_append_and_the_rows(log) -> None:
    """An append returns every event's chain hash: the one its row keeps and ``hashes_at`` finds."""
    (first,) = log.append_batch([request("a", 0, opened("a"), rolled(1), command="first")])
    (second,) = log.append_batch([request("a", 2, rolled(2), command="second"),
                                  request("b", 0, opened("b"), command="b")])[:1]
    assert len(set(first.hashes + second.hashes)) == 3
    assert [row.hash for row in log.rows("a")] == first.hashes + second.hashes
    assert [log.hashes_at({"a": seq})["a"] for seq in (1, 2, 3)] == first.hashes + second.hashes
    assert log.hashes_at({"a": 0, "b": 1}) == {"a": GENESIS, "b": log.hashes_at({"b": 1})["b"]}
    assert log.hashes_at({"a": 4, "none": 1}) == {}
