"""Reading the embedded event log: :class:`SqliteReader`, what ``poolhall verify``, offline
tools and the server's reads use (the server's :class:`~events.store.SqliteLog` is one).

Apart from :mod:`events.store` so that each module keeps to one side of the log: this one
reads (each read on a connection of its own, or on one kept for the lookups the event loop
makes), the store writes. The tables are described in :mod:`events.store`.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec

from events import command_lookup, event_blocks, issued_tokens, journal
from events.command_keys import CommandKeys
from events.errors import StoreError
from events.event_blocks import Layout, layout_of
from events.framed_pages import FRAME_JSON, FramePage, PageReader
from events.log import (
    GENESIS,
    ChainProblem,
    CommandRecord,
    RowTuple,
    StoredRow,
)
from events.read_transaction import read_transaction
from events.store_verify import verify_file

__all__ = ["PAGE_ROWS", "SqliteReader"]

PAGE_ROWS = 256
"""Rows fetched per call. Small on purpose: a page of 4,000 rows (with the objects decoded from
it) no longer fits the CPU cache, and a full rebuild ran 1.5 times slower than with 256."""

_ROW_COLUMNS = "seq, type, version, payload, recorded_at, actor, command_id"
_RANGE = " WHERE campaign = ?1 AND seq > ?2 AND seq <= ?3"

def _older(select: str, layout: Layout, order_by: str = "") -> str:
    """``select`` on a file of an older release (:func:`events.journal.union`)."""
    return journal.union(select, layout == "journal", order_by)


def _rows(layout: Layout) -> str:
    if layout == "blocks":
        return event_blocks.in_range(f"{_ROW_COLUMNS}, e.campaign, hash")
    return _older(f"SELECT {_ROW_COLUMNS}, campaign, hash FROM {{table}}{_RANGE}", layout, "seq")


def _frames(layout: Layout) -> str:
    """An ``event`` frame per row (:meth:`SqliteReader.event_frames`)."""
    if layout == "blocks":
        return event_blocks.in_range(f"CAST({FRAME_JSON} AS BLOB)")
    return ("SELECT frame FROM (" + _older(
        f"SELECT seq, CAST({FRAME_JSON} AS BLOB) AS frame FROM {{table}}{_RANGE}", layout,
        "seq") + ")")


def _hashes(layout: Layout) -> str:
    if layout == "blocks":
        return ("SELECT e.campaign, e.hash FROM json_each(?1) AS j CROSS JOIN events AS e"
                f" ON e.block = {event_blocks.run_of('j.key', 'j.value')}"
                " AND e.campaign = j.key AND e.seq = j.value")
    return _older("SELECT e.campaign, e.hash FROM json_each(?1) AS j"
                  " JOIN {table} AS e ON e.campaign = j.key AND e.seq = j.value", layout)


def _all_rows(table: str, typed: bool) -> str:
    columns = "seq, payload, recorded_at, actor, command_id, campaign" + (
        ", type, version" if typed else "")
    return f"SELECT {columns} FROM {table} ORDER BY position"


_FIRSTS = ("SELECT {columns} FROM event_runs AS r CROSS JOIN events AS e ON e.block = r.block"
           " AND e.campaign = r.campaign AND e.seq = 1 WHERE r.first_seq = 1")
"""Each campaign's first event, through its first run: one scan of the runs (a row a campaign
a block), one index step a campaign. ``CROSS JOIN`` keeps the runs outside: left to choose,
SQLite scanned ``events`` and looked up a run per event."""


def _campaigns(layout: Layout) -> str:
    if layout == "blocks":
        return _FIRSTS.format(columns="e.campaign") + " ORDER BY e.position"
    return ("SELECT campaign FROM (" + _older(
        "SELECT position, campaign FROM {table} WHERE seq = 1", layout, "position") + ")")


def _head(layout: Layout) -> str:
    if layout == "blocks":
        return f"SELECT max(seq) FROM ({event_blocks.last_event('seq')})"
    if layout == "events":
        return "SELECT max(seq) FROM events WHERE campaign = ?1"
    return ("SELECT coalesce((SELECT max(seq) FROM journal WHERE campaign = ?1),"
            " (SELECT max(seq) FROM events WHERE campaign = ?1))")


_SKIP = ("{name}(campaign) AS (SELECT min(campaign) FROM {table} UNION ALL"
         " SELECT (SELECT min(campaign) FROM {table} WHERE campaign > {name}.campaign)"
         " FROM {name} WHERE {name}.campaign IS NOT NULL)")
_FIRST = ("SELECT e.campaign, e.command_id, e.actor FROM {name}"
          " JOIN {table} AS e ON e.campaign = {name}.campaign AND e.seq = 1")


def _directory(layout: Layout) -> str:
    """Each campaign's first event: through the runs, or on a file of an older release, one
    index step per campaign in each table (a campaign's first event is in one of them)."""
    if layout == "blocks":
        return _FIRSTS.format(columns="e.campaign, e.command_id, e.actor") + " ORDER BY 1"
    tables = [("c", "events"), ("d", "journal")] if layout == "journal" else [("c", "events")]
    return ("WITH RECURSIVE " + ", ".join(_SKIP.format(name=n, table=t) for n, t in tables)
            + " " + " UNION ALL ".join(_FIRST.format(name=n, table=t) for n, t in tables)
            + " ORDER BY 1")


class SqliteReader:
    """Read-only access to a log file: what ``poolhall verify`` and offline tools open.

    Each read opens its own connection (WAL lets readers run beside the server's writer); a
    reader never writes, so it can inspect a log that is being served, or one kept as evidence.
    """

    def __init__(self, path: str | Path, *, mode: str = "ro") -> None:
        self.path = Path(path)
        self._uri = f"{self.path.resolve().as_uri()}?mode={mode}"
        self._lookup: sqlite3.Connection | None = None
        self._lookup_lock = threading.Lock()
        self._page_reader = PageReader(self._reader)
        self._page_write: sqlite3.Connection | None = None
        self._page_write_lock = threading.Lock()
        self._keys: CommandKeys | None = None  # the writer's command index (its tail held)
        self._blocks = False  # the file is laid out by block: once seen, it stays
        if mode == "ro":
            self._check_is_a_log()

    def _check_is_a_log(self) -> None:
        if not self.path.is_file():
            raise StoreError(f"no database at {self.path}")
        try:
            tables = {name for (name,) in self._scan(
                "SELECT name FROM sqlite_master WHERE type = 'table'", [])}
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path} is not a SQLite database ({error})") from None
        if not {"events", "commands"} <= tables:
            raise StoreError(f"{self.path} is not a poolhall log (no events and commands tables)")

    def _reader(self) -> sqlite3.Connection:
        return sqlite3.connect(self._uri, uri=True, check_same_thread=False)

    def _layout(self, connection: sqlite3.Connection) -> Layout:
        """How the file holds its events, asked on ``connection`` until it is laid out by
        block: a file of an older release is laid out so when a server of this one opens it,
        and a reader kept open meanwhile reads it the new way from then on."""
        if self._blocks:
            return "blocks"
        layout = layout_of(connection)
        self._blocks = layout == "blocks"
        return layout

    def _scan(self, sql: str | Callable[[Layout], str], parameters: list[object]
              ) -> Iterator[tuple[Any, ...]]:
        """Rows as SQLite gives them (its values are typed per value, hence ``Any``); ``sql``
        may be built for the file, given its layout."""
        connection = self._reader()
        try:
            with read_transaction(connection):  # the layout asked in the read's own snapshot
                if not isinstance(sql, str):
                    sql = sql(self._layout(connection))
                cursor = connection.execute(sql, parameters)
                while batch := cursor.fetchmany(PAGE_ROWS):
                    yield from batch
        finally:
            connection.close()

    def rows(self, campaign: str, after: int = 0, upto: int | None = None) -> Iterator[StoredRow]:
        """The campaign's rows with ``after < seq <= upto`` in order, with their hashes."""
        limit = upto if upto is not None else 2**62
        for row in self._scan(_rows, [campaign, after, limit]):
            yield StoredRow(*row)

    def event_frames(self, campaign: str, after: int, upto: int) -> list[bytes]:
        """The server's ``event`` frames of events ``(after, upto]``, in order, built by SQLite.

        Each is the JSON of :class:`events.messages.OutgoingEventFrame` (the stored payload
        as it is), made in SQLite's C with the interpreter lock released: a catch-up reading
        100,000 events this way holds the lock a fraction of the time that reading rows and
        encoding them in Python does, so the event loop runs beside the read.
        """
        return [frame for (frame,) in self._scan(_frames, [campaign, after, upto])]

    def frame_pages(self, campaign: str, after: int, upto: int, size: int) -> list[FramePage]:
        """Events ``(after, upto]`` as websocket text frames, in pages of ``size`` events each
        built by SQLite as one value (:mod:`events.framed_pages`), on a connection each
        worker thread keeps."""
        return self._page_reader.pages(campaign, after, upto, size)

    def store_frame_pages(self, campaign: str, after: int | None, upto: int) -> int:
        """Store the campaign's complete pages of ``(after, upto]`` as :meth:`frame_pages`
        builds them (from where they end if ``after`` is None), a bounded number per call
        (:meth:`events.framed_pages.PageReader.store`); where the stored pages now end.

        Table ``framed_pages`` is derived data, like ``snapshots``: written on a connection
        of its own with ``synchronous=OFF`` (a lost page is built again by the catch-up that
        needs it), read by catch-ups only, never by ``verify``; dropping it loses nothing.
        """
        return self._page_reader.store(self._page_writer, campaign, after, upto)

    @contextlib.contextmanager
    def _page_writer(self) -> Iterator[sqlite3.Connection]:
        """The connection pages are stored on, kept open (opening one cost about a tenth of
        storing 1,000 events), one transaction at a time."""
        with self._page_write_lock:
            if self._page_write is None:
                connection = sqlite3.connect(self._uri, uri=True, timeout=30,
                                             isolation_level=None, check_same_thread=False)
                connection.execute("PRAGMA synchronous=OFF")
                connection.execute("PRAGMA wal_autocheckpoint=0")  # the server's, as ever
                self._page_write = connection
            yield self._page_write

    def _close_page_writer(self) -> None:
        with self._page_write_lock:
            if self._page_write is not None:
                self._page_write.close()
                self._page_write = None

    def hashes_at(self, wanted: dict[str, int]) -> dict[str, str]:
        """The chain hash of each campaign's event ``wanted[campaign]`` (:data:`GENESIS` at 0).

        One statement: SQLite looks each pair up in the unique index itself (a statement per
        campaign cost ten times as much, and a connection per campaign a hundred: seconds at
        startup for ten thousand campaigns). A campaign without that event is left out.
        """
        found = {campaign: GENESIS for campaign, seq in wanted.items() if seq == 0}
        found.update((str(campaign), str(digest)) for campaign, digest in self._scan(
            _hashes, [msgspec.json.encode(wanted).decode()]))
        return found

    def all_rows(self, typed: bool = False) -> Iterator[list[RowTuple]]:
        """Every row in the order it was appended (each campaign's in sequence order), in pages.

        One sequential scan of the table: reading campaign by campaign through the index cost
        a random page read per row, five times slower on a log of interleaved campaigns.
        In a file of an older release, then one of its journal (:mod:`events.journal`), whose
        rows follow, in the same read transaction: SQLite's merge of the two in one ``UNION
        ALL`` cost 1.7 times as long a row.
        """
        connection = self._reader()
        try:
            with read_transaction(connection):  # one snapshot of both tables
                live = self._layout(connection) == "journal"
                for table in ("events", "journal") if live else ("events",):
                    cursor = connection.execute(_all_rows(table, typed))
                    while page := cursor.fetchmany(PAGE_ROWS):
                        yield page
        finally:
            connection.close()

    def campaigns(self) -> list[str]:
        """Every campaign with at least one event, in the order they were created."""
        return [str(c) for (c,) in self._scan(_campaigns, [])]

    def head(self, campaign: str) -> int:
        """The campaign's last sequence number (0 when it has no event)."""
        (found,) = next(self._scan(_head, [campaign]))
        return int(found or 0)

    def commands(self, campaign: str) -> dict[str, CommandRecord]:
        """Every command id the campaign accepted, with who sent it and what it appended."""
        return {str(command): CommandRecord(str(actor), int(first), int(last))
                for command, actor, first, last in self._scan(
                    "SELECT command_id, actor, first_seq, last_seq FROM commands"
                    " WHERE campaign = ?", [campaign])}

    def command_records(self, campaign: str, ids: list[str]) -> dict[str, CommandRecord]:
        """What each of ``ids`` appended to ``campaign``, for those it accepted: one indexed
        statement, so a hub looks up a batch's command ids instead of holding every id the
        campaign ever accepted (a million of them cost ~150 MB).

        It runs on a connection kept for it (opening one per call cost more than the
        lookup), so the hub calls it on the event loop: ~30 µs, where a worker thread's
        round trip cost 4-8 ms a command on the loaded machine."""
        if not ids:
            return {}
        keys = self._keys  # the writer's: the newest commands held, checked first
        found = {} if keys is None else keys.tail_found(campaign, ids)
        missing = [i for i in ids if i not in found]
        if missing and (keys is None or keys.generations):
            with self._lookup_lock:
                if self._lookup is None:
                    self._lookup = self._reader()
                found.update(command_lookup.indexed_records(self._lookup, campaign, missing,
                                                            keys))
        return {command: CommandRecord(str(actor), int(first), int(last))
                for command, (_, actor, first, last) in found.items()}

    def directory(self) -> list[tuple[str, str, str, int]]:
        """Every campaign with the command that created it: ``(campaign, command_id, actor,
        last_seq)``, read through the index (one step per campaign, not a scan of the log):
        what a server needs at start, before any campaign is loaded."""
        firsts = [(str(campaign), str(command), str(actor)) for campaign, command, actor
                  in self._scan(_directory, [])]
        connection = self._reader()
        try:  # the creating commands looked up in the command index, all at once
            last = command_lookup.last_seqs(connection, [(c, i) for c, i, _ in firsts],
                                            self._keys)
        finally:
            connection.close()
        return [(c, i, actor, int(last.get((c, i)) or 1)) for c, i, actor in firsts]

    def token_campaign(self, token_hash: str) -> str | None:
        """The campaign a token with this hash was issued for (by an invite or a replay
        link), if any: one indexed statement on the kept lookup connection, run on the event
        loop by a join before anything is loaded (:mod:`events.issued_tokens`). A log from
        before the table (opened read-only) has no answer: ``None``."""
        with self._lookup_lock:
            if self._lookup is None:
                self._lookup = self._reader()
            try:
                return issued_tokens.campaign_of(self._lookup, token_hash)
            except sqlite3.OperationalError:
                return None

    def sealed_token(self, campaign: str, command_id: str) -> str | None:
        """The sealed token a command stored with its events, if it stored one."""
        try:
            found = next(self._scan("SELECT sealed FROM sealed_tokens WHERE campaign = ? AND"
                                    " command_id = ?", [campaign, command_id]), None)
        except sqlite3.OperationalError:  # a log from before sealed tokens: none stored
            return None
        return None if found is None else str(found[0])

    def verify(self) -> tuple[int, list[ChainProblem]]:
        """Check the file, then walk every campaign's hash chain; report each problem found.

        See :mod:`events.store_verify`: SQLite's ``integrity_check`` beside one walk of the
        table in append order (in parallel segments on a long log), the ``commands`` table
        read in step with it. Damage to the file, or a walk that cannot read on, is reported
        as a problem of campaign ``""`` at event 0.
        """
        checked, problems = verify_file(f"{self.path.resolve().as_uri()}?mode=ro")
        return checked, [ChainProblem(*problem) for problem in problems]
