"""The command-id index read by whoever does not write it: a reader of the file, and the
statements that list the live generations with the probe.

Apart from :mod:`events.command_keys` (the writer's side: the tail it holds, the generations
it writes and merges) so that each keeps to one job. A reader holds no tail, so it also scans
the commands no generation covers yet (a bounded scan: about
:data:`~events.command_keys.TAIL_LIMIT` rows at most), in the same read transaction as it
lists and probes the generations: a merge lists its generation, then drops the merged-away
tables in a later transaction, and a snapshot sees either the old list with its tables or the
new one. A file of the one-table layout (before 2026-11-26; a writer's open splits it) is
probed as it is, and a log from before the index through the old key of ``commands``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from events.command_keys import (
    FOUND_COLUMNS,
    ONE_TABLE,
    PAIR_COLUMNS,
    CommandKeys,
    Found,
    digests_json,
    pairs_json,
    probe_sql,
)

__all__ = ["gens_lookup", "indexed_records", "last_seqs", "tail_lookup"]

_ONE_TABLE_ARM = (  # the one-table layout, for a file no writer has opened since
    "SELECT {columns} FROM json_each(?1) AS j CROSS JOIN command_gens AS g"
    " CROSS JOIN command_keys AS k ON k.gen = g.gen AND k.key = j.value"
    " CROSS JOIN commands AS c ON c.id = k.command")
_TAIL_PAIRS = ("SELECT campaign, command_id, last_seq FROM commands"
               " WHERE id > (SELECT coalesce(max(last), 0) FROM command_gens)")
_TAIL = (
    "SELECT command_id, actor, first_seq, last_seq FROM commands"
    " WHERE id > (SELECT coalesce(max(last), 0) FROM command_gens) AND campaign = ?"
    " AND command_id IN (SELECT value FROM json_each(?))")
_LIVE = ("SELECT gen, EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table'"
         f" AND name = '{ONE_TABLE}') FROM command_gens ORDER BY gen")


@contextmanager
def _snapshot(connection: sqlite3.Connection) -> Iterator[None]:
    """One read transaction on a reader's ``connection``: the generations it lists and the
    tables it probes are seen at one moment (a merge drops tables once it has unlisted
    them, in a later transaction)."""
    if connection.in_transaction:
        yield
        return
    connection.execute("BEGIN")
    try:
        yield
    finally:
        connection.execute("ROLLBACK")  # a read: nothing to keep


def _probe(connection: sqlite3.Connection, columns: str, where: str,
           parameters: list[object]) -> list[Any]:
    """The rows of :func:`probe_sql` for the generations the file lists now, in either
    layout (``parameters`` start with the digests' JSON array); inside the caller's
    snapshot."""
    live = connection.execute(_LIVE).fetchall()
    if not live:
        return []
    if live[0][1]:  # the one-table layout: a file no writer of this release has opened
        sql = _ONE_TABLE_ARM.format(columns=columns) + where
    else:
        sql = probe_sql(columns, tuple(gen for gen, _ in live), where)
    return connection.execute(sql, parameters).fetchall()


def indexed_records(connection: sqlite3.Connection, campaign: str, ids: list[str],
                    keys: CommandKeys | None) -> dict[str, Found]:
    """The records of ``ids`` outside the writer's memory: in the generations and, for a
    reader with no writer's ``keys`` (which hold the tail), in the tail's rows too; in a log
    from before the index (read as it is, never migrated by a reader), through its key on
    the id."""
    if keys is not None:
        return {row[0]: row for row in keys.lookup(connection, campaign, ids)}
    if connection.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'command_gens'").fetchone() is None:
        return {str(row[0]): row for row in connection.execute(
            "SELECT command_id, actor, first_seq, last_seq FROM commands WHERE campaign = ?"
            " AND command_id IN (SELECT value FROM json_each(?))", [campaign, json.dumps(ids)])}
    with _snapshot(connection):  # the tail is what the generations probed do not cover
        found = {row[0]: row for row in gens_lookup(connection, campaign, ids)}
        found.update((row[0], row) for row in tail_lookup(connection, campaign, ids))
    return found


def last_seqs(connection: sqlite3.Connection, pairs: list[tuple[str, str]],
              keys: CommandKeys | None) -> dict[tuple[str, str], int]:
    """The last sequence number each ``(campaign, command_id)`` of ``pairs`` appended, for
    those the log has: one statement for them all (the writer's ``keys`` holds the tail;
    without them the tail's rows are scanned, and a log from before the index is read
    through its key)."""
    wanted = set(pairs)
    if keys is None and connection.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'command_gens'").fetchone() is None:
        return {(c, i): last for c, i, last in connection.execute(
            "SELECT c.campaign, c.command_id, c.last_seq FROM json_each(?) AS j"
            " JOIN commands AS c ON c.campaign = j.value ->> 0 AND c.command_id = j.value ->> 1",
            [json.dumps(pairs)]) if (c, i) in wanted}
    held: dict[tuple[str, str], int] = {}
    if keys is not None:  # the writer's tail first: an id leaves it only once its generation
        # is listed, so one not held now is in the generations the snapshot below lists
        for pair in wanted:
            record = keys.tail_get(*pair)
            if record is not None:
                held[pair] = record[3]
    digests = pairs_json(wanted - held.keys())
    with _snapshot(connection):  # the tail is what the generations probed do not cover
        found = {(c, i): last for c, i, last in _probe(connection, PAIR_COLUMNS, "", [digests])
                 if (c, i) in wanted}
        if keys is None:
            found.update(((c, i), last) for c, i, last in connection.execute(_TAIL_PAIRS)
                         if (c, i) in wanted)
    found.update(held)
    return found


def gens_lookup(connection: sqlite3.Connection, campaign: str, ids: list[str]) -> list[Found]:
    """The records of ``ids`` found in the live generations (one read transaction: the list
    of generations, then one statement probing them all)."""
    wanted = set(ids)
    with _snapshot(connection):
        rows = _probe(connection, FOUND_COLUMNS, " WHERE c.campaign = ?2",
                      [digests_json(campaign, ids), campaign])
    return [row for row in rows if row[0] in wanted]  # a digest shared by another id is no
    # match


def tail_lookup(connection: sqlite3.Connection, campaign: str, ids: list[str]) -> list[Found]:
    """The records of ``ids`` among the rows no generation covers yet: a bounded scan, for a
    reader that does not hold the tail (the writer does, in memory)."""
    return connection.execute(_TAIL, [campaign, json.dumps(ids)]).fetchall()
