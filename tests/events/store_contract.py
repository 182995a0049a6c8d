"""The log's contract tests, written once: every backend's test module subclasses them.

:class:`LogContract` holds every test of :class:`poolhall.events.log_contract.EventLog`
(``side_tables_contract.py`` those of the small interfaces beside it); a backend's module
(``test_sqlite_log.py``, the PostgreSQL one) subclasses each as ``TestXxx...`` together with
its :class:`Backend` hooks: a ``log`` fixture yielding a fresh, empty log,
:meth:`Backend.reopen`, :meth:`Backend.execute` (raw SQL on the backend's database, as an
operator with a SQL shell would run it, triggers in place), :meth:`Backend.tamper` (the same
with the append-only triggers dropped first, as an attacker would),
:meth:`Backend.overwrites` (every form of the backend's SQL that writes over a stored row),
:meth:`Backend.database` (what ``poolhall verify`` is given) and
:attr:`Backend.integrity_errors` (what the backend's driver raises when the database refuses
a statement). A new test added here runs on every backend at once, in the manner of
eventsourcing's abstract recorder tests.

The raw SQL uses only the plain schema's names (:mod:`poolhall.events.log_contract`) and literal
values, so that it reads the same to SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from poolhall.events import core
from poolhall.events.chain import GENESIS, link_hash
from poolhall.events.dice import RolledTerm
from poolhall.events.errors import ConcurrencyError
from poolhall.events.log import prepare, to_recorded
from poolhall.events.log_contract import (
    PAGE_ROWS,
    Appended,
    AppendRequest,
    CommandRecord,
    Created,
    EventLog,
    ServerLog,
)
from tests.serve_process import poolhall
from tests.typed import of_type

__all__ = ["EVENT_COLUMNS", "Backend", "LogContract", "opened", "request", "rolled"]

EVENT_COLUMNS = ("campaign", "seq", "type", "version", "payload", "recorded_at", "actor",
                 "command_id", "hash")
COMMAND_COLUMNS = ("campaign", "command_id", "actor", "first_seq", "last_seq")

AT = "2026-11-22T08:00:00.000Z"


def request(campaign: str, head: int, *events: object, command: str = "c1",
            actor: str = "gm") -> AppendRequest:
    """A request appending ``events`` to ``campaign`` at ``head``."""
    return AppendRequest(campaign=campaign, expected_head=head,
                         events=tuple(prepare(e) for e in events),  # type: ignore[arg-type]
                         actor=actor, command_id=command, at=AT)


def opened(campaign: str = "c") -> core.CampaignCreated:
    return core.CampaignCreated(campaign=campaign, name="C", system="d12")


def rolled(total: int) -> core.DiceRolled:
    """A roll that shows ``total`` (a d4 showing 1, and a constant), as ``verify`` finds it
    consistent: a roll holds the dice its expression asks for (``1d4+4``; a bare number,
    which the server never rolls, is no dice notation)."""
    return core.DiceRolled(expression=f"1d4{total - 1:+d}",
                           terms=(RolledTerm(sides=4, faces=(1,)),), constant=total - 1,
                           total=total)


class Backend:
    """The hooks a backend's test classes give (see the module docstring), and the helpers
    the contracts write their tests with."""

    integrity_errors: ClassVar[tuple[type[BaseException], ...]] = ()
    """What the backend's driver raises when the database refuses a statement."""

    @pytest.fixture
    def log(self) -> Iterator[ServerLog]:
        """A fresh, empty log of the backend, closed after the test."""
        raise NotImplementedError

    def reopen(self, log: EventLog) -> EventLog:
        """Close ``log`` and open its database again (the caller closes the new one)."""
        raise NotImplementedError

    def execute(self, log: EventLog, sql: str) -> None:
        """Run ``sql`` on the log's database in a transaction of its own, triggers in place."""
        raise NotImplementedError

    def tamper(self, log: EventLog, *statements: str) -> None:
        """Drop the append-only triggers, then run ``statements``, as an attacker would."""
        raise NotImplementedError

    def database(self, log: EventLog) -> str:
        """The log's database as ``poolhall verify`` takes it (a path or a URL)."""
        raise NotImplementedError

    def overwrites(self, table: str, key: tuple[str, ...], columns: tuple[str, ...],
                   change: tuple[str, str]) -> list[str]:
        """Every statement of the backend's SQL that writes over the stored rows of
        ``table`` (``key``: its unique key) with ``change`` (a column, and the SQL of its new
        value) rather than adding a row. Here the upsert both backends know; a backend adds
        its own forms (SQLite's REPLACE, PostgreSQL's MERGE)."""
        names = ", ".join(columns)
        return [f"INSERT INTO {table} ({names}) SELECT {self._selected(columns, change)}"
                f" FROM {table} WHERE 1 = 1 ON CONFLICT ({', '.join(key)}) DO UPDATE SET"
                f" {change[0]} = excluded.{change[0]}"]

    @staticmethod
    def _selected(columns: tuple[str, ...], change: tuple[str, str]) -> str:
        return ", ".join(f"{change[1]} AS {column}" if column == change[0] else column
                         for column in columns)

    def refused(self, log: EventLog, sql: str) -> None:
        """``sql`` is refused by the database itself."""
        assert self.integrity_errors, "the backend names its driver's errors"
        with pytest.raises(self.integrity_errors):
            self.execute(log, sql)

    def append_only(self, log: EventLog, table: str, key: tuple[str, ...],
                    columns: tuple[str, ...], change: tuple[str, str]) -> None:
        """Every change of ``table``'s stored rows is refused: UPDATE, DELETE and each form
        that writes over a row."""
        self.refused(log, f"UPDATE {table} SET {change[0]} = {change[1]}")
        self.refused(log, f"DELETE FROM {table}")
        for statement in self.overwrites(table, key, columns, change):
            self.refused(log, statement)


class LogContract(Backend):
    """Every promise of the log; subclassed once per backend (see the module docstring)."""

    # ---- helpers ---------------------------------------------------------------------

    def filled(self, log: EventLog) -> None:
        """Campaign ``a``: 4 events by two commands; ``b``: 2 events."""
        log.append_batch([request("a", 0, opened("a"), rolled(1), command="a1")])
        log.append_batch([request("a", 2, rolled(2), rolled(3), command="a2"),
                          request("b", 0, opened("b"), rolled(9), command="b1")])

    # ---- appending -------------------------------------------------------------------

    def test_append_numbers_events_from_one_per_campaign(self, log: EventLog) -> None:
        """Each campaign's sequence starts at 1 and has no gap."""
        results = log.append_batch([
            request("a", 0, opened("a"), rolled(1), command="a1"),
            request("b", 0, opened("b"), command="b1"),
            request("a", 2, rolled(2), command="a2"),
        ])
        assert results == [[1, 2], [1], [3]]
        assert all(isinstance(r, Appended) for r in results)
        assert [r.seq for r in log.rows("a")] == [1, 2, 3]
        assert log.head("a") == 3
        assert log.head("b") == 1
        assert log.head("none") == 0

    def test_stale_head_is_refused_as_a_conflict_and_appends_nothing(self, log: EventLog
                                                                     ) -> None:
        """Optimistic concurrency: a request that expects an old head is refused alone."""
        log.append_batch([request("a", 0, opened("a"))])
        results = log.append_batch([request("a", 0, rolled(3), rolled(4), command="late"),
                                    request("a", 1, rolled(5), command="fresh")])
        assert isinstance(results[0], ConcurrencyError)
        assert results[1] == [2]
        assert [of_type(core.DiceRolled, to_recorded(r).event).total
                for r in log.rows("a", after=1)] == [5]
        assert log.command_records("a", ["late"]) == {}

    def test_a_refused_request_writes_none_of_its_events_nor_its_command(self, log: EventLog
                                                                         ) -> None:
        """All or nothing per request: after a conflict, the same command id appends whole."""
        self.filled(log)
        (refused,) = log.append_batch([request("a", 3, rolled(7), rolled(8), command="x")])
        assert isinstance(refused, ConcurrencyError)
        assert log.head("a") == 4
        assert log.command_records("a", ["x"]) == {}
        assert log.append_batch([request("a", 4, rolled(7), rolled(8), command="x")]) == [[5, 6]]

    def test_a_retried_command_gets_its_recorded_answer_and_appends_nothing(
            self, log: EventLog) -> None:
        """Idempotency: a command id the campaign holds answers with what it appended,
        whatever head the retry names."""
        self.filled(log)
        for head in (2, 4, 9):
            (again,) = log.append_batch([request("a", head, rolled(5), command="a2")])
            assert again == CommandRecord("gm", 3, 4)
        assert log.head("a") == 4
        assert len(list(log.rows("a"))) == 4

    def test_the_same_command_twice_in_one_batch_is_appended_once(self, log: EventLog) -> None:
        """The second copy of a command in one batch gets the first's answer."""
        first, second = log.append_batch([request("a", 0, opened("a"), command="x"),
                                          request("a", 1, rolled(2), command="x")])
        assert first == [1]
        assert second == CommandRecord("gm", 1, 1)
        assert log.head("a") == 1

    def test_a_command_id_is_unique_per_campaign_only(self, log: EventLog) -> None:
        """One id may be used in two campaigns: each holds its own."""
        assert log.append_batch([request("a", 0, opened("a"), command="same"),
                                 request("b", 0, opened("b"), command="open-b"),
                                 request("b", 1, rolled(2), command="same")]) == [[1], [1], [2]]

    def test_a_command_id_opens_one_campaign_at_most(self, log: EventLog) -> None:
        """A second campaign opened by one command id is refused (a create retried through
        another process: the database holds one campaign per creating command), and the
        batch's other requests are stored."""
        assert log.append_batch([request("a", 0, opened("a"), command="same")]) == [[1]]
        again, other = log.append_batch([request("b", 0, opened("b"), command="same"),
                                         request("a", 1, rolled(2), command="roll")])
        assert isinstance(again, ConcurrencyError)
        assert other == [2]
        assert log.head("b") == 0

    def test_an_empty_request_stores_nothing(self, log: EventLog) -> None:
        """A request with no events appends nothing and records no command."""
        self.filled(log)
        assert log.append_batch([request("a", 4, command="nothing")]) == [[]]
        assert log.head("a") == 4
        assert log.command_records("a", ["nothing"]) == {}

    def test_appends_are_durable_across_a_reopen(self, log: EventLog) -> None:
        """What an append returned is there when the database is opened again."""
        self.filled(log)
        again = self.reopen(log)
        try:
            assert again.head("a") == 4
            assert again.head("b") == 2
            assert again.append_batch([request("a", 4, rolled(1), command="a3"),
                                       request("a", 0, rolled(1), command="a1")]
                                      ) == [[5], CommandRecord("gm", 1, 2)]
            assert isinstance(again.append_batch([request("b", 1, rolled(1), command="b9")])[0],
                              ConcurrencyError)
        finally:
            again.close()

    # ---- reading ---------------------------------------------------------------------

    def test_rows_round_trip_every_field(self, log: EventLog) -> None:
        """What is appended reads back the same: type, version, payload, actor, command, time."""
        log.append_batch([request("a", 0, opened("a"), rolled(5), command="x", actor="han")])
        (row,) = log.read("a", after=1)
        assert (row.seq, row.type, row.version, row.campaign) == (2, "dice_rolled", 1, "a")
        record = to_recorded(row)
        assert record.event == rolled(5)
        assert (record.actor, record.command, record.at) == ("han", "x", AT)

    def test_read_gives_a_page_at_a_time_and_rows_every_page(self, log: EventLog) -> None:
        """``read`` stops at ``limit`` rows and ``upto``; ``rows`` reads on page after page."""
        total = PAGE_ROWS * 2 + 10
        log.append_batch([request("a", 0, opened("a"), command="open")] + [
            request("a", n, rolled(n % 6 + 1), command=f"r{n}") for n in range(1, total)])
        assert [r.seq for r in log.read("a", 0, limit=3)] == [1, 2, 3]
        assert len(log.read("a")) == PAGE_ROWS
        assert [r.seq for r in log.read("a", 10, 13)] == [11, 12, 13]
        assert [r.seq for r in log.read("a", total - 2, total + 5)] == [total - 1, total]
        assert log.read("a", total) == []
        assert log.read("none") == []
        assert [r.seq for r in log.rows("a")] == list(range(1, total + 1))
        assert [r.seq for r in log.rows("a", 5, PAGE_ROWS + 7)] == list(range(6, PAGE_ROWS + 8))

    def test_scan_gives_every_row_of_interleaved_campaigns_each_in_order(self, log: EventLog
                                                                         ) -> None:
        """``scan`` holds every row ``read`` gives, each campaign's in seq order, in pages."""
        log.append_batch([request("a", 0, opened("a"), command="open"),
                          request("b", 0, opened("b"), command="open")])
        for n in range(1, PAGE_ROWS + 5):  # the campaigns' rows interleave in the table
            log.append_batch([request("a", n, rolled(n % 6 + 1), command=f"r{n}"),
                              request("b", n, rolled(n % 6 + 1), rolled(1), command=f"r{n}")
                              ][::1 if n % 2 else -1])
        pages = list(log.scan())
        assert all(0 < len(page) <= PAGE_ROWS for page in pages)
        scanned = [row for page in pages for row in page]
        for campaign in ("a", "b"):
            assert [row for row in scanned if row.campaign == campaign] == list(
                log.rows(campaign))
        assert len(scanned) == log.head("a") + log.head("b")

    def test_command_records_answer_for_the_ids_the_campaign_holds(self, log: EventLog
                                                                   ) -> None:
        """Each known id with its actor and sequence numbers; unknown ids left out."""
        self.filled(log)
        assert log.command_records("a", ["a1", "a2", "b1", "zz"]) == {
            "a1": CommandRecord("gm", 1, 2), "a2": CommandRecord("gm", 3, 4)}
        assert log.command_records("a", []) == {}
        assert log.command_records("a", ["a2"])["a2"].seqs == [3, 4]

    def test_command_records_of_several_campaigns_at_once(self, log: EventLog) -> None:
        """What :meth:`command_records` answers for each campaign, in one call; a campaign
        none of whose ids it holds (or one with no events) is left out."""
        self.filled(log)
        assert log.command_records_by_campaign(
            {"a": ["a1", "a2", "b1", "zz"], "b": ["b1", "a1"], "c": ["a1"], "d": []}) == {
            "a": {"a1": CommandRecord("gm", 1, 2), "a2": CommandRecord("gm", 3, 4)},
            "b": {"b1": CommandRecord("gm", 1, 2)}}
        assert log.command_records_by_campaign({"b": ["zz"]}) == {}
        assert log.command_records_by_campaign({}) == {}

    def test_directory_lists_each_campaign_with_the_command_that_created_it(
            self, log: EventLog) -> None:
        """Campaigns in the order they were created, each with its first command."""
        assert log.directory() == []
        assert log.campaigns() == []
        log.append_batch([request("z", 0, opened("z"), rolled(1), command="z1", actor="owner")])
        self.filled(log)
        assert log.directory() == [Created("z", "z1", "owner", 2), Created("a", "a1", "gm", 2),
                                   Created("b", "b1", "gm", 2)]
        assert log.campaigns() == ["z", "a", "b"]

    # ---- the chain -------------------------------------------------------------------

    def test_each_event_has_its_chain_hash_in_the_append_and_the_rows(self, log: EventLog
                                                                      ) -> None:
        """An append returns every event's chain hash: the one its row keeps and
        ``hashes_at`` finds; at the head, the head's hash."""
        (first,) = log.append_batch([request("a", 0, opened("a"), rolled(1), command="first")])
        (second, _) = log.append_batch([request("a", 2, rolled(2), command="second"),
                                        request("b", 0, opened("b"), command="b")])
        assert isinstance(first, Appended)
        assert isinstance(second, Appended)
        assert len(set(first.hashes + second.hashes)) == 3
        assert [row.hash for row in log.rows("a")] == first.hashes + second.hashes
        assert [log.hashes_at({"a": seq})["a"] for seq in (1, 2, 3)] == (
            first.hashes + second.hashes)
        assert log.hashes_at({"a": log.head("a")}) == {"a": second.hashes[-1]}
        assert log.hashes_at({"a": 0, "b": 1}) == {"a": GENESIS,
                                                   "b": log.hashes_at({"b": 1})["b"]}
        assert log.hashes_at({"a": 4, "none": 1}) == {}

    def test_the_chain_links_every_stored_field_to_the_previous_event(self, log: EventLog
                                                                      ) -> None:
        """Each hash is :func:`poolhall.events.chain.link_hash` of the previous hash and the row."""
        self.filled(log)
        for campaign in ("a", "b"):
            previous = GENESIS
            for row in log.rows(campaign):
                previous_hash = link_hash(previous, campaign, row.seq, row.type, row.version,
                                          row.at, row.actor, row.command_id, row.payload)
                assert row.hash == previous_hash
                previous = row.hash

    # ---- what the database refuses ---------------------------------------------------

    def test_the_database_refuses_a_second_event_at_a_sequence_number(self, log: EventLog
                                                                      ) -> None:
        """UNIQUE (campaign, seq), written past the log's own code."""
        self.filled(log)
        self.refused(log, "INSERT INTO events (campaign, seq, type, version, payload,"
                          " recorded_at, actor, command_id, hash) VALUES ('a', 2,"
                          " 'dice_rolled', 1, '{}', 'now', 'gm', 'other', 'x')")
        self.execute(log, "INSERT INTO events (campaign, seq, type, version, payload,"
                          " recorded_at, actor, command_id, hash) VALUES ('c', 2,"
                          " 'dice_rolled', 1, '{}', 'now', 'gm', 'other', 'x')")

    def test_the_database_refuses_a_reused_command_id(self, log: EventLog) -> None:
        """UNIQUE (campaign, command_id), written past the log's own code."""
        self.filled(log)
        self.refused(log, "INSERT INTO commands (campaign, command_id, actor, first_seq,"
                          " last_seq) VALUES ('a', 'a1', 'gm', 5, 5)")
        self.execute(log, "INSERT INTO commands (campaign, command_id, actor, first_seq,"
                          " last_seq) VALUES ('b', 'a1', 'gm', 5, 5)")

    def test_events_are_append_only(self, log: EventLog) -> None:
        """UPDATE and DELETE of an event are refused by the database (triggers)."""
        self.filled(log)
        self.refused(log, "UPDATE events SET actor = 'mallory' WHERE campaign = 'a' AND seq = 2")
        self.refused(log, "DELETE FROM events WHERE campaign = 'a' AND seq = 2")
        assert [r.actor for r in log.rows("a")] == ["gm"] * 4

    def test_no_form_of_sql_writes_over_a_stored_event(self, log: EventLog) -> None:
        """An upsert, SQLite's ``INSERT OR REPLACE`` and ``REPLACE INTO`` (which delete the
        row in their way without firing a DELETE trigger) and PostgreSQL's MERGE: each is
        refused, and every event reads as appended, where it was appended."""
        self.filled(log)
        before = [list(log.rows(c)) for c in ("a", "b")]
        self.append_only(log, "events", ("campaign", "seq"), EVENT_COLUMNS,
                         ("actor", "'mallory'"))
        assert [list(log.rows(c)) for c in ("a", "b")] == before
        assert log.verify() == (6, [])

    def test_commands_are_append_only(self, log: EventLog) -> None:
        """UPDATE, DELETE and every form that writes over a recorded command are refused by
        the database (triggers): the answer a retry gets is the one recorded."""
        self.filled(log)
        self.refused(log, "UPDATE commands SET last_seq = 9 WHERE campaign = 'a'")
        self.refused(log, "DELETE FROM commands WHERE campaign = 'a'")
        self.append_only(log, "commands", ("campaign", "command_id"), COMMAND_COLUMNS,
                         ("actor", "'mallory'"))
        assert log.command_records("a", ["a1", "a2"]) == {"a1": CommandRecord("gm", 1, 2),
                                                          "a2": CommandRecord("gm", 3, 4)}

    # ---- verify ----------------------------------------------------------------------

    def test_verify_passes_an_untouched_log(self, log: EventLog) -> None:
        """An honest log verifies clean, every event counted."""
        assert log.verify() == (0, [])
        self.filled(log)
        assert log.verify() == (6, [])

    def test_verify_detects_an_edited_event(self, log: EventLog) -> None:
        """Changing one stored field breaks the chain at that event, and only there."""
        self.filled(log)
        self.tamper(log, "UPDATE events SET actor = 'mallory' WHERE campaign = 'a' AND seq = 3")
        checked, problems = log.verify()
        assert checked == 6
        assert [(p.campaign, p.seq) for p in problems] == [("a", 3)]

    def test_verify_detects_a_dropped_event(self, log: EventLog) -> None:
        """Dropping an event leaves a gap the walk reports as dropped."""
        self.filled(log)
        self.tamper(log, "DELETE FROM events WHERE campaign = 'a' AND seq = 2")
        _, problems = log.verify()
        assert [(p.campaign, p.seq) for p in problems] == [("a", 3)]
        assert "dropped" in problems[0].problem

    def test_verify_detects_a_dropped_last_event(self, log: EventLog) -> None:
        """The chain alone cannot see its end cut off; the recorded commands can."""
        self.filled(log)
        self.tamper(log, "DELETE FROM events WHERE campaign = 'a' AND seq = 4")
        _, problems = log.verify()
        assert [(p.campaign, p.seq) for p in problems] == [("a", 4)]
        assert "missing" in problems[0].problem

    def test_verify_detects_reordered_events(self, log: EventLog) -> None:
        """Two events swapped (renumbered into each other's place) break the chain there."""
        self.filled(log)
        self.tamper(log,
                    "UPDATE events SET seq = 1000 WHERE campaign = 'a' AND seq = 2",
                    "UPDATE events SET seq = 2 WHERE campaign = 'a' AND seq = 3",
                    "UPDATE events SET seq = 3 WHERE campaign = 'a' AND seq = 1000")
        checked, problems = log.verify()
        assert checked == 6
        assert problems
        assert {p.campaign for p in problems} == {"a"}
        assert {p.seq for p in problems} <= {2, 3, 4}

    def test_verify_names_the_last_events_deleted(self, log: EventLog) -> None:
        """Removing a campaign's last events, which no later hash covers, is reported by
        range, at the first one missing."""
        self.filled(log)
        self.tamper(log, "DELETE FROM events WHERE campaign = 'a' AND seq >= 3")
        _, problems = log.verify()
        assert [(p.campaign, p.seq) for p in problems] == [("a", 3)]
        assert "3 to 4 are missing" in problems[0].problem

    def test_verify_catches_events_their_command_did_not_append(self, log: EventLog) -> None:
        """An event whose command id the commands table does not cover is reported."""
        self.filled(log)
        self.tamper(log, "DELETE FROM commands WHERE campaign = 'b'")
        _, problems = log.verify()
        assert [(p.campaign, p.seq) for p in problems] == [("b", 1), ("b", 2)]
        assert all("did not append" in p.problem for p in problems)

    def test_verify_catches_a_forged_tail_that_no_command_recorded(self, log: EventLog
                                                                   ) -> None:
        """An event appended past poolhall with a correctly chained hash but no command
        (triggers in place: a plain INSERT) is reported: the chain holds, the commands
        table does not."""
        self.filled(log)
        (head,) = log.read("b", 1)
        payload = '{"type":"dice_rolled","expression":"6","terms":[],"constant":6,"total":6}'
        digest = link_hash(head.hash, "b", 3, "dice_rolled", 1, AT, "mallory", "ghost",
                           payload)
        self.execute(log, "INSERT INTO events (campaign, seq, type, version, payload,"
                          f" recorded_at, actor, command_id, hash) VALUES ('b', 3,"
                          f" 'dice_rolled', 1, '{payload}', '{AT}', 'mallory', 'ghost',"
                          f" '{digest}')")
        checked, problems = log.verify()
        assert checked == 7
        assert [(p.campaign, p.seq, p.problem) for p in problems] == [
            ("b", 3, "command 'ghost' did not append this event")]

    def test_poolhall_verify_reports_an_event_that_does_not_decode(self, log: EventLog,
                                                                  tmp_path: Path) -> None:
        """``poolhall verify`` of a log holding an event whose payload does not decode (a
        plain INSERT, triggers in place) reports it in plain words, with every other
        problem it found, and exits 1: it crashed with a traceback and no report."""
        self.filled(log)
        self.tamper(log, "UPDATE events SET actor = 'mallory' WHERE campaign = 'a' AND seq = 2")
        self.execute(log, "INSERT INTO events (campaign, seq, type, version, payload,"
                          " recorded_at, actor, command_id, hash) VALUES ('b', 3,"
                          " 'dice_rolled', 1, '{\"type\":\"dice_rolled\"}', 'now', 'gm',"
                          " 'x', '0')")
        found = poolhall("verify", self.database(log), cwd=tmp_path, check=False)
        assert found.returncode == 1, found.stderr
        assert "Traceback" not in found.stderr
        assert "broken b #3: its payload does not decode as a 'dice_rolled' event" in (
            found.stdout)
        assert "broken a #2:" in found.stdout  # the edit is still reported
        assert "broken b #3: command 'x' did not append this event" in found.stdout
        listed = poolhall("verify", self.database(log), "--json", cwd=tmp_path, check=False)
        assert listed.returncode == 1
        assert {(p["campaign"], p["seq"]) for p in json.loads(listed.stdout)["problems"]
                } >= {("a", 2), ("b", 3)}
