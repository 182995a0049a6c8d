"""The log's layout by block: each event written once, found through the runs of its campaign.

Part of the SQLite store, the only I/O in ``events``.

Why: the log's rows used to be indexed by ``(campaign, seq)``. With a thousand campaigns
growing at once, each commit then rewrote a page of that index per campaign in it, so appends
went first to a small journal and were moved into ``events`` in bulk (the layout of the
release before, :mod:`events.journal`). The moves were still a third of the writer's work on
a log of two million events: each rewrote two index leaves a campaign, 13 MiB of WAL every
16,384 events (measured in the README's notes on scale). Here the index is keyed by
**block** first: ``block`` is ``position >> BLOCK_BITS``, a column SQLite computes
(``VIRTUAL``: stored nowhere, so a file of an older release gains it without a rewrite).
Every entry a commit adds lands in the current block's few hundred pages at the index's right
edge, which every commit shares, and each event is written once: no journal, no moves.

A read by campaign learns which blocks hold the campaign's events from table ``event_runs``:
one row a campaign a block, ``(campaign, first_seq, block)``, the first event the campaign has
in that block. A campaign's sequence numbers rise with positions, so its events in one block
are one unbroken stretch, and the stretch of a run ends where the campaign's next run begins.
The writer inserts a run in the same transaction as the run's first event
(:class:`BlockRuns`), so every snapshot a reader sees has the runs of every row it sees.

The index is unique, but only within a block: the database no longer refuses a campaign's
sequence number written again in a later block, as the ``(campaign, seq)`` index did. The
writer never does so (it appends after each campaign's head, read through the runs), and
``verify`` reports such a row ("expected event N: dropped or moved").

SQLite seeks the block index from a join on ``block`` because ``block`` is a column: an index
on the expression ``position >> 14`` itself was scanned whole from a join or an ``IN
(SELECT ...)`` (100-330 ms a read on a 2M-event log). Each read here is one statement, a seek
of the campaign's runs then one index seek a run (:func:`in_range`).
"""

from __future__ import annotations

import logging
import sqlite3
import time
from typing import Literal

from events import journal

__all__ = ["BLOCK_BITS", "HEAD", "INSERT_RUN", "BlockRuns", "Layout", "adopt",
           "empty_runs", "has_runs", "in_range", "last_event", "layout_of", "run_of",
           "run_problems", "stray_runs"]

logger = logging.getLogger("events.store")

BLOCK_BITS = 14
"""A block is 16,384 positions. The current block's index entries are what every commit
rewrites a share of: at 1,000 campaigns about 160 leaves of 4 KiB. A larger block would widen
that share, a smaller one would add runs (one a campaign a block)."""

_ADD_BLOCK = (f"ALTER TABLE events ADD COLUMN block INTEGER GENERATED ALWAYS AS"
              f" (position >> {BLOCK_BITS}) VIRTUAL")
_INDEX = "CREATE UNIQUE INDEX IF NOT EXISTS events_block ON events (block, campaign, seq)"
_CREATE_RUNS = (
    "CREATE TABLE IF NOT EXISTS event_runs (campaign TEXT NOT NULL, first_seq INTEGER NOT NULL,"
    " block INTEGER NOT NULL, PRIMARY KEY (campaign, first_seq)) WITHOUT ROWID")
"""One row a campaign a block: where the stretch of the campaign's events from ``first_seq``
lies (up to the campaign's next run)."""
_FILL_RUNS = ("INSERT INTO event_runs (campaign, first_seq, block)"
              " SELECT campaign, min(seq), block FROM events GROUP BY block, campaign")
_FILL_LAST_RUNS = (
    "INSERT OR IGNORE INTO event_runs (campaign, first_seq, block) SELECT campaign, min(seq),"
    " block FROM events WHERE block >= (SELECT coalesce(max(block), 0) FROM event_runs)"
    " GROUP BY block, campaign")
"""The runs of the last block that has any and of every block after it: a run already there
is the same row, ignored."""
INSERT_RUN = "INSERT INTO event_runs (campaign, first_seq, block)"
"""The head of the writer's insert of new runs (:func:`events.bulk_insert.insert_rows`)."""

_RUN_OF = ("(SELECT block FROM event_runs WHERE campaign = {campaign} AND first_seq <= {seq}"
           " ORDER BY first_seq DESC LIMIT 1)")
"""The block holding event ``seq`` of ``campaign`` (both SQL expressions)."""

Layout = Literal["blocks", "journal", "events"]
"""How a file holds its events: by block (this module), or as an older release left it, in
``events`` indexed by ``(campaign, seq)`` with a journal beside it (:mod:`events.journal`) or
without."""


def last_event(columns: str) -> str:
    """``columns`` of campaign ``?1``'s last event: in the block of its last run."""
    return (f"SELECT {columns} FROM events WHERE block = (SELECT block FROM event_runs"
            " WHERE campaign = ?1 ORDER BY first_seq DESC LIMIT 1) AND campaign = ?1"
            " ORDER BY seq DESC LIMIT 1")


HEAD = last_event("seq, hash")
"""The writer's read of a campaign's head: its last sequence number and hash."""


def run_of(campaign: str, seq: str) -> str:
    """The SQL of the block that holds event ``seq`` of ``campaign`` (SQL expressions)."""
    return _RUN_OF.format(campaign=campaign, seq=seq)


def in_range(columns: str) -> str:
    """``columns`` (of ``events`` as ``e``) of the campaign ``?1``'s events with
    ``?2 < seq <= ?3``, in sequence order: the runs that can hold them (from the one holding
    event ``?2 + 1``), then a seek of the block index in each (``CROSS JOIN`` keeps that
    order: SQLite never scans ``events`` for a read)."""
    return (f"SELECT {columns} FROM event_runs AS r CROSS JOIN events AS e ON e.block = r.block"
            " AND e.campaign = r.campaign AND e.seq > ?2 AND e.seq <= ?3"
            " WHERE r.campaign = ?1 AND r.first_seq <= ?3 AND r.first_seq >= coalesce(("
            "SELECT max(first_seq) FROM event_runs WHERE campaign = ?1 AND first_seq <= ?2 + 1"
            "), 0) ORDER BY r.first_seq, e.seq")


def layout_of(connection: sqlite3.Connection) -> Layout:
    """How the file on ``connection`` holds its events."""
    if has_runs(connection):
        return "blocks"
    return "journal" if journal.has_journal(connection) else "events"


def has_runs(connection: sqlite3.Connection) -> bool:
    """Whether the file is laid out by block (a file of an older release is not, until a
    server of this one opens it)."""
    return connection.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'event_runs'"
    ).fetchone() is not None


def adopt(connection: sqlite3.Connection) -> int:
    """Bring the file to the layout by block, inside the caller's transaction (the writer's,
    at open); the events laid out anew (0 for a file already laid out).

    A file of an older release is settled first (its journal's rows moved into ``events``
    and the journal dropped), then gains the ``block`` column (computed, so no row is
    rewritten), the block index and the runs, and loses its ``(campaign, seq)`` index: about
    1.3 s for two million events. A new file does the same with nothing in it.

    A file already laid out has the runs of its last blocks summed up again (those already
    there are kept): if an older release served it meanwhile, the events it appended (moved
    from its journal, which is settled here too) have none, and reads by campaign would miss
    them. A scan of the runs (a row a campaign a block) and of the index's last blocks.
    """
    started = time.perf_counter()
    settled = 0
    if journal.has_journal(connection):
        settled = journal.move_rows(connection)
        connection.execute("DROP TABLE journal")  # its triggers go with it
    if has_runs(connection):
        connection.execute(_FILL_LAST_RUNS)
        return 0
    columns = {str(row[1]) for row in connection.execute("PRAGMA table_xinfo(events)")}
    if "block" not in columns:
        connection.execute(_ADD_BLOCK)
    connection.execute(_INDEX)
    connection.execute(_CREATE_RUNS)
    connection.execute(_FILL_RUNS)
    for name in _campaign_indexes(connection):
        connection.execute(f'DROP INDEX "{name}"')
    (events,) = connection.execute("SELECT count(*) FROM events").fetchone()
    if events:
        (_, _, path) = connection.execute("PRAGMA database_list").fetchone()
        logger.info("%s: laid out by block, %d events (%d from the journal) in %.1f s", path,
                    events, settled, time.perf_counter() - started)
    return int(events)


def _campaign_indexes(connection: sqlite3.Connection) -> list[str]:
    """The indexes of ``events`` on ``(campaign, seq)`` that an older release made (the block
    index replaces them; kept, every append would write them as before)."""
    found = []
    for _, name, _, origin, _ in connection.execute("PRAGMA index_list(events)").fetchall():
        if origin != "c":  # a constraint's own index cannot be dropped (none is made)
            continue
        keyed = [str(row[2]) for row in connection.execute(
            "SELECT * FROM pragma_index_info(?)", [name])]
        if keyed == ["campaign", "seq"]:
            found.append(str(name))
    return found


_COMPUTED = ("SELECT campaign, min(seq) AS first, max(seq) AS last, block FROM events"
             " GROUP BY block, campaign")
_STRAY = (f"SELECT c.campaign, c.first, c.block FROM ({_COMPUTED}) AS c"
          f" WHERE {run_of('c.campaign', 'c.first')} IS NOT c.block"
          " OR EXISTS (SELECT 1 FROM event_runs AS r WHERE r.campaign = c.campaign"
          " AND r.first_seq > c.first AND r.first_seq <= c.last)")
"""Each stretch of a campaign's events in one block (read from the block index alone) that
the runs do not lead a read to whole: the run holding its first event names another block,
or a run begins inside it."""


_EMPTY = ("SELECT r.campaign, r.first_seq, r.block FROM event_runs AS r WHERE NOT EXISTS ("
          "SELECT 1 FROM events AS e WHERE e.block = r.block AND e.campaign = r.campaign"
          " AND e.seq >= r.first_seq)")
"""Each run whose block holds none of the events it names: a read of the campaign's head
looks in the block of its last run, and would find nothing there."""


def stray_runs(connection: sqlite3.Connection) -> list[tuple[str, int, int]]:
    """``(campaign, first seq, block)`` of each stretch of events a read by campaign would
    miss (``poolhall verify``): none in a log the store wrote."""
    return [(str(c), int(s), int(b)) for c, s, b in connection.execute(_STRAY)]


def empty_runs(connection: sqlite3.Connection) -> list[tuple[str, int, int]]:
    """``(campaign, first seq, block)`` of each run that leads reads to a block holding none
    of its events (``poolhall verify``): none in a log the store wrote."""
    return [(str(c), int(s), int(b)) for c, s, b in connection.execute(_EMPTY)]


def run_problems(connection: sqlite3.Connection) -> list[tuple[str, int, str]]:
    """``(campaign, seq, what is wrong)`` for each run that would mislead a read by campaign,
    for ``poolhall verify`` (none in a file of an older release, which has no runs)."""
    if not has_runs(connection):
        return []
    return [(campaign, seq, f"event_runs does not lead to all of events {seq} onwards in"
                            f" block {block}: reads of the campaign skip some")
            for campaign, seq, block in stray_runs(connection)] + [
        (campaign, seq, f"event_runs says events {seq} onwards are in block {block}, which"
                        " holds none of them: the campaign's head reads wrong")
        for campaign, seq, block in empty_runs(connection)]


class BlockRuns:
    """The writer's runs of the block it is writing: which campaigns already have one.

    Kept in memory so that a commit inserts a run only for a campaign's first event in the
    block (one row a campaign every 16,384 events). Read from the index when the writer
    opens; changed only once a commit is durable (:meth:`committed`), so a batch that fails,
    for whatever reason, leaves it as the file is.
    """

    def __init__(self) -> None:
        self.block = -1
        self.campaigns: set[str] = set()

    def enter(self, connection: sqlite3.Connection, block: int) -> set[str]:
        """The campaigns with a run in ``block``, where the writer's next event goes (read
        from the file unless it is the block of the last commit)."""
        if block != self.block:
            self.campaigns = {str(c) for (c,) in connection.execute(
                "SELECT DISTINCT campaign FROM events WHERE block = ?", [block])}
            self.block = block
        return self.campaigns

    def committed(self, block: int, added: set[str]) -> None:
        """A commit wrote the runs of ``added`` in ``block``, the block it ended in."""
        if block == self.block:
            self.campaigns |= added
        else:
            self.block, self.campaigns = block, added
