"""The command-id index read by whoever does not write it: a reader of the file, and the
statements that list the live generations with the probe.

Apart from :mod:`events.command_keys` (the writer's side: the tail it holds, the generations
it writes and merges) so that each keeps to one job. A reader holds no tail, so it also scans
the commands no generation covers yet (a bounded scan: about
:data:`~events.command_keys.TAIL_LIMIT` rows at most), in the same read transaction as it
lists and probes the generations: a merge lists its generation, then drops the merged-away
tables in a later transaction, and a snapshot sees either the old list with its tables or the
new one. A file of the one-table layout (before 2026-11-26; a writer's open splits it) is
probed as it is, and a log from before the index through the old key of ``commands``; a file
with both lists (an older release opened it since) is read through this release's.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from events.command_keys import (
    FOUND_COLUMNS,
    GENS_TABLE,
    LEGACY_LIST,
    ONE_TABLE,
    PAIR_COLUMNS,
    CommandKeys,
    Found,
    digests_json,
    pairs_json,
    probe_sql,
)
from events.read_transaction import read_transaction

__all__ = ["indexed_records", "last_seqs"]

_LAYOUT = ("SELECT name FROM sqlite_master WHERE type = 'table'"
           f" AND name IN ('{GENS_TABLE}', '{LEGACY_LIST}', '{ONE_TABLE}')")
_ONE_TABLE_ARM = (  # the one-table layout, for a file no writer of this release has opened
    "SELECT {columns} FROM json_each(?1) AS j"
    f" CROSS JOIN {LEGACY_LIST} AS g CROSS JOIN {ONE_TABLE} AS k"
    " ON k.gen = g.gen AND k.key = j.value CROSS JOIN commands AS c ON c.id = k.command")
_AFTER = "id > (SELECT coalesce(max(last), 0) FROM {listing})"
"""The commands no generation of ``listing`` covers: a reader's tail."""
_TAIL_PAIRS = "SELECT campaign, command_id, last_seq FROM commands WHERE " + _AFTER
_TAIL = ("SELECT command_id, actor, first_seq, last_seq FROM commands WHERE " + _AFTER
         + " AND campaign = ? AND command_id IN (SELECT value FROM json_each(?))")
_UNINDEXED = (  # a log from before the index, read as it is: through the old key on the id
    "SELECT command_id, actor, first_seq, last_seq FROM commands WHERE campaign = ?"
    " AND command_id IN (SELECT value FROM json_each(?))")
_UNINDEXED_PAIRS = (
    "SELECT c.campaign, c.command_id, c.last_seq FROM json_each(?) AS j"
    " JOIN commands AS c ON c.campaign = j.value ->> 0 AND c.command_id = j.value ->> 1")


def _listing(connection: sqlite3.Connection) -> str | None:
    """The list of generations to read in this file: this release's, else that of the
    one-table layout (a file no writer of this release has opened), else none (a log from
    before the index)."""
    names = {name for (name,) in connection.execute(_LAYOUT)}
    if GENS_TABLE in names:
        return GENS_TABLE
    if {LEGACY_LIST, ONE_TABLE} <= names:
        return LEGACY_LIST
    return None


def _probe(connection: sqlite3.Connection, listing: str, columns: str, where: str,
           parameters: list[object]) -> list[Any]:
    """The ``columns`` of the commands the generations of ``listing`` hold for the digests
    in ``parameters[0]`` (a JSON array), ``where`` filtering them; inside the caller's
    snapshot."""
    if listing == LEGACY_LIST:
        sql = _ONE_TABLE_ARM.format(columns=columns) + where
    else:
        gens = tuple(gen for (gen,) in connection.execute(
            f"SELECT gen FROM {GENS_TABLE} ORDER BY gen"))
        if not gens:
            return []
        sql = probe_sql(columns, gens, where)
    return connection.execute(sql, parameters).fetchall()


def indexed_records(connection: sqlite3.Connection, campaign: str, ids: list[str],
                    keys: CommandKeys | None) -> dict[str, Found]:
    """The records of ``ids`` outside the writer's memory: in the generations and, for a
    reader with no writer's ``keys`` (which hold the tail), in the tail's rows too, all in
    one snapshot; in a log from before the index (read as it is, never migrated by a
    reader), through its key on the id."""
    if keys is not None:
        return {row[0]: row for row in keys.lookup(connection, campaign, ids)}
    wanted = set(ids)
    with read_transaction(connection):  # the tail is what the generations probed do not cover
        listing = _listing(connection)
        if listing is None:
            return {str(row[0]): row for row in connection.execute(
                _UNINDEXED, [campaign, json.dumps(ids)])}
        found = {row[0]: row for row in _probe(
            connection, listing, FOUND_COLUMNS, " WHERE c.campaign = ?2",
            [digests_json(campaign, ids), campaign]) if row[0] in wanted}  # a digest shared
        # by another id is no match
        found.update((row[0], row) for row in connection.execute(
            _TAIL.format(listing=listing), [campaign, json.dumps(ids)]))
    return found


def last_seqs(connection: sqlite3.Connection, pairs: list[tuple[str, str]],
              keys: CommandKeys | None) -> dict[tuple[str, str], int]:
    """The last sequence number each ``(campaign, command_id)`` of ``pairs`` appended, for
    those the log has: one statement for them all (the writer's ``keys`` holds the tail;
    without them the tail's rows are scanned, and a log from before the index is read
    through its key)."""
    wanted = set(pairs)
    held: dict[tuple[str, str], int] = {}
    if keys is not None:  # the writer's tail first: an id leaves it only once its generation
        # is listed, so one not held now is in the generations the snapshot below lists
        for pair in wanted:
            record = keys.tail_get(*pair)
            if record is not None:
                held[pair] = record[3]
    with read_transaction(connection):  # the tail is what the generations probed do not cover
        listing = GENS_TABLE if keys is not None else _listing(connection)
        if listing is None:
            return {(c, i): last for c, i, last in connection.execute(
                _UNINDEXED_PAIRS, [json.dumps(pairs)]) if (c, i) in wanted}
        found = {(c, i): last for c, i, last in _probe(
            connection, listing, PAIR_COLUMNS, "", [pairs_json(wanted - held.keys())])
            if (c, i) in wanted}
        if keys is None:
            found.update(((c, i), last) for c, i, last in connection.execute(
                _TAIL_PAIRS.format(listing=listing)) if (c, i) in wanted)
    found.update(held)
    return found
