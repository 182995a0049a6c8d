"""``poolhall verify`` on a SQLite file: walk every campaign's chain, check the file.

One read transaction (one snapshot of the file, even one being served): the events in their
append order (one sequential scan of the table), each hash computed again from the row and
the hash of the previous row of its campaign (:mod:`poolhall.events.chain`); then the ``commands``
table against the events, in SQL. What each finds:

- an edited event: its hash does not match (``hash does not match: edited, or out of order``);
- a dropped one: the next sequence number is not the one expected (``expected event N:
  dropped or moved``), or a campaign's last events are gone while ``commands`` records them
  (``events N to M are missing``);
- a reordered pair: both hashes (and the next) do not match; an event outside the range its
  command recorded is ``command ... did not append this event``;
- damage to the file itself, from SQLite's ``integrity_check``, as a problem of campaign
  ``""`` at event 0.

A file of a layout before the plain schema (opened read-only: verify never migrates) holds
the same columns in ``events`` (and, for a few hours' layout, in ``journal``, the tail of
its append order): it is walked the same way.
"""

from __future__ import annotations

import sqlite3
from concurrent.futures import ThreadPoolExecutor
from hashlib import sha256

from poolhall.events.chain import GENESIS
from poolhall.events.log_contract import ChainProblem

__all__ = ["verify_file"]

_DAMAGE_SHOWN = 20
"""Lines of ``integrity_check`` reported at most."""

_PAGE = 512

_SEQ = "CASE WHEN typeof({column}) = 'integer' THEN {column} ELSE 0 END"
"""A sequence number as verify reads it: one stored as anything but an integer (SQLite takes
``'ten'`` past ``CHECK (seq >= 1)``, text sorting after numbers) reads as 0, which no event
has, and so is reported as out of place, in words; it raised a TypeError in the walk."""

_CAMPAIGN = "coalesce(CAST({column} AS TEXT), '(none)')"
"""A campaign's id as verify reads it: text, whatever a hand-made row stored (a blob, a
number, a NULL in an older layout's table, which has no NOT NULL)."""

_WALK = ("SELECT position, " + _CAMPAIGN.format(column="campaign") + " AS campaign, "
         + _SEQ.format(column="seq")
         + " AS seq, type, version, coalesce(CAST(payload AS BLOB), X'') AS payload,"
         " recorded_at, actor, command_id, hash FROM {table}")
_WALKED = "campaign, seq, type, version, payload, recorded_at, actor, command_id, hash"
"""The columns the walk reads, in append order (``position`` only sorts them)."""
_UNCOVERED = (
    "SELECT " + _CAMPAIGN.format(column="e.campaign") + ", " + _SEQ.format(column="e.seq")
    + ", e.command_id"
    " FROM {table} AS e LEFT JOIN commands AS c"
    " ON c.campaign = e.campaign AND c.command_id = e.command_id"
    " WHERE c.first_seq IS NULL OR e.seq < c.first_seq OR e.seq > c.last_seq")
_HEADS = ("SELECT " + _CAMPAIGN.format(column="campaign") + ", max("
          + _SEQ.format(column="seq") + ") FROM {table} GROUP BY campaign")
_RECORDED_HEADS = ("SELECT " + _CAMPAIGN.format(column="campaign") + ", max("
                   + _SEQ.format(column="last_seq")
                   + ") FROM commands NOT INDEXED GROUP BY campaign")
"""One sequential pass over ``commands``, grouped in a temporary tree: through the primary
key's index instead, SQLite looked each command's row up in the table (four times the CPU
for a million commands)."""
_MMAP_BYTES = 1 << 30
"""``PRAGMA mmap_size`` of verify's read-only connections: SQLite reads the file through a
memory map instead of a ``read`` call per page (the commands' check, a look-up per event,
took a third less CPU with it)."""


def _union(select: str, journal: bool) -> str:
    sql = select.format(table="events")
    return sql + (" UNION ALL " + select.format(table="journal") if journal else "")


def verify_file(uri: str) -> tuple[int, list[ChainProblem]]:
    """Verify the log at ``uri`` (a ``file:`` URI, opened read-only): the events checked and
    every problem found, the file's first, then by campaign and event.

    SQLite's ``integrity_check`` and the commands' check run in threads of their own beside
    the walk, each on its own connection (SQLite lets go of the interpreter lock while it
    works), so a long log's three passes overlap on the cores a machine has.
    """
    try:
        connection = _connect(uri)
    except sqlite3.Error as error:
        return 0, [ChainProblem("", 0, f"the file cannot be checked: {error}")]
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="verify") as pool:
        damage = pool.submit(_damage, uri)
        try:
            connection.execute("BEGIN")
            journal = connection.execute("SELECT 1 FROM sqlite_master WHERE type = 'table'"
                                         " AND name = 'journal'").fetchone() is not None
            commands = pool.submit(_command_problems, uri, journal)
            checked, problems = _walk(connection, journal)
            problems += commands.result()
        except sqlite3.Error as error:
            return 0, [*damage.result(),
                       ChainProblem("", 0, f"the chains cannot be read: {error}")]
        finally:
            connection.close()
    return checked, damage.result() + sorted(problems, key=lambda p: (p.campaign, p.seq))


def _connect(uri: str) -> sqlite3.Connection:
    """A connection of one of verify's passes (each its own, in a thread of its own)."""
    connection = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    connection.execute(f"PRAGMA mmap_size={_MMAP_BYTES}")
    return connection


def _damage(uri: str) -> list[ChainProblem]:
    """What SQLite's ``integrity_check`` finds wrong with the file itself."""
    try:
        connection = _connect(uri)
    except sqlite3.Error as error:
        return [ChainProblem("", 0, f"the file cannot be checked: {error}")]
    try:
        return [ChainProblem("", 0, f"the file is damaged: {line}") for (line,) in
                connection.execute(f"PRAGMA integrity_check({_DAMAGE_SHOWN})") if line != "ok"]
    except sqlite3.Error as error:
        return [ChainProblem("", 0, f"the file cannot be checked: {error}")]
    finally:
        connection.close()


def _walk(connection: sqlite3.Connection, journal: bool) -> tuple[int, list[ChainProblem]]:
    """The hot loop: the table read in append order (a sequential scan of the rows
    themselves, never of an index that might not match them), each campaign's last link
    kept; each row's hash formatted inline (the bytes :func:`poolhall.events.chain.link_hash`
    hashes), one problem at most an event."""
    problems: list[ChainProblem] = []
    checked = 0
    links: dict[str, tuple[int, str]] = {}  # campaign -> (next seq expected, last hash)
    cursor = connection.execute(
        f"SELECT {_WALKED} FROM ({_union(_WALK, journal)}) ORDER BY position")
    while page := cursor.fetchmany(_PAGE):
        checked += len(page)
        for campaign, seq, type_, version, payload, at, actor, command, stored in page:
            expected, previous = links.get(campaign) or (1, GENESIS)
            if seq != expected:
                problems.append(ChainProblem(campaign, seq,
                                             f"expected event {expected}: dropped or moved"))
            elif sha256(f"{previous}\x1f{campaign}\x1f{seq}\x1f{type_}\x1f{version}\x1f{at}"
                        f"\x1f{actor}\x1f{command}\x1f".encode() + payload
                        ).hexdigest() != stored:
                problems.append(ChainProblem(campaign, seq,
                                             "hash does not match: edited, or out of order"))
            links[campaign] = (seq + 1, stored)
    return checked, problems


def _command_problems(uri: str, journal: bool) -> list[ChainProblem]:
    """Events their command did not record, and recorded events the log no longer holds
    (one read transaction of its own)."""
    connection = _connect(uri)
    try:
        connection.execute("BEGIN")
        problems = [ChainProblem(str(campaign), int(seq),
                                 f"command {command!r} did not append this event")
                    for campaign, seq, command in connection.execute(
                        _union(_UNCOVERED, journal))]
        heads: dict[str, int] = {}
        for campaign, head in connection.execute(_union(_HEADS, journal)):
            heads[campaign] = max(heads.get(campaign, 0), int(head))
        recorded = connection.execute(_RECORDED_HEADS).fetchall()
    finally:
        connection.close()
    for campaign, last in recorded:
        head = heads.get(campaign, 0)
        if last > head:
            missing = (f"event {last} is missing" if last == head + 1
                       else f"events {head + 1} to {last} are missing")
            problems.append(ChainProblem(str(campaign), head + 1, f"{missing}: the commands"
                                         f" table records it, the log ends at {head}"))
    return problems
