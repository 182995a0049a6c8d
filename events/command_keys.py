"""The command-id index of the SQLite log: built off the commit path, in sorted runs.

Why: a ``commands`` table keyed by ``(campaign, command_id)`` put each random, client-chosen id
on its own page of the key's B-tree, so every commit wrote about one 4 KiB page per command to
the WAL (6.8 KB an event against 1.9 KB without the key). Now ``commands`` is appended to in
id order with no other index (a commit writes its last pages only) and the lookup by id is
served by two parts:

- the **tail**, the rows after the last merge: the writer holds them in memory
  (:class:`CommandKeys`), an offline reader scans them (a bounded scan: at most about
  :data:`TAIL_LIMIT` rows);
- **generations** in ``command_keys``: ``(gen, key, command)`` where ``key`` is a 64-bit digest
  of the campaign and id and ``command`` the ``commands`` row. Each generation is written in key
  order under a new, higher ``gen``, so its pages are appended, never scattered. Generations are
  merged pairwise when the newer one has grown as large as the one before (a binary counter:
  about ``log2(commands / TAIL_LIMIT)`` of them), so a lookup probes a handful of B-trees.
  ``command_gens`` lists the live generations and the command ids each covers; rows of a
  generation not listed there (one being built, or one merged away) are never read, and are
  removed at the next open.

The digest only finds candidates: every lookup compares the stored campaign and id, so two
ids with the same digest stay apart. Uniqueness of ``(campaign, command_id)`` is the writer's
check against the tail and the generations before it appends (the one writer: nothing else
inserts). The work is done a small transaction at a time by :meth:`CommandKeys.step`, which the
group committer runs on the writer's thread between two commits.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from hashlib import blake2b

__all__ = ["STEP_ROWS", "TAIL_LIMIT", "CommandKeys", "Found", "command_key", "create_tables",
           "gens_lookup", "migrate_commands", "tail_lookup"]

TAIL_LIMIT = 32_768
"""Rows held in memory before they are merged into a generation (~10 MB at most)."""

STEP_ROWS = 8_192
"""Index rows written or deleted in one housekeeping transaction: a few milliseconds, so a
commit waiting behind it is hardly delayed."""

Found = tuple[str, str, int, int]
"""What a lookup finds for a command id: ``(command_id, actor, first_seq, last_seq)``."""

COMMANDS_TABLE = (
    "CREATE TABLE {name} (id INTEGER PRIMARY KEY, campaign TEXT NOT NULL, command_id TEXT NOT"
    " NULL, actor TEXT NOT NULL, first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL)")
"""``id`` is declared so that it is the rowid for good (``VACUUM`` may renumber an undeclared
rowid, and the index refers to it)."""

_KEYS = ("CREATE TABLE IF NOT EXISTS command_keys (gen INTEGER NOT NULL, key INTEGER NOT NULL,"
         " command INTEGER NOT NULL, PRIMARY KEY (gen, key, command)) WITHOUT ROWID")
_GENS = ("CREATE TABLE IF NOT EXISTS command_gens (gen INTEGER PRIMARY KEY, first INTEGER NOT"
         " NULL, last INTEGER NOT NULL, size INTEGER NOT NULL)")
_LOOKUP = (  # CROSS JOIN fixes the order: each id probes each generation's keys
    "SELECT c.command_id, c.actor, c.first_seq, c.last_seq FROM json_each(?) AS j"
    " CROSS JOIN command_gens AS g CROSS JOIN command_keys AS k"
    " ON k.gen = g.gen AND k.key = j.value CROSS JOIN commands AS c ON c.id = k.command"
    " WHERE c.campaign = ?")
_TAKEN = (
    "SELECT c.campaign, c.command_id FROM json_each(?) AS j CROSS JOIN command_gens AS g"
    " CROSS JOIN command_keys AS k ON k.gen = g.gen AND k.key = j.value"
    " CROSS JOIN commands AS c ON c.id = k.command")
_TAIL = (
    "SELECT command_id, actor, first_seq, last_seq FROM commands"
    " WHERE id > (SELECT coalesce(max(last), 0) FROM command_gens) AND campaign = ?"
    " AND command_id IN (SELECT value FROM json_each(?))")
_LOWEST, _HIGHEST = -(2**63), 2**63 - 1


def command_key(campaign: str, command_id: str) -> int:
    """A signed 64-bit digest of ``(campaign, command_id)``: SQLite's integer, 8 bytes."""
    digest = blake2b(f"{campaign}\x1f{command_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def _keys_json(campaign: str, ids: list[str]) -> str:
    return "[" + ",".join(str(command_key(campaign, i)) for i in ids) + "]"


def create_tables(connection: sqlite3.Connection) -> None:
    """Create the index's two tables if the file lacks them (a new log or a migrated one)."""
    connection.execute(_KEYS)
    connection.execute(_GENS)


def migrate_commands(connection: sqlite3.Connection) -> bool:
    """Rewrite a ``commands`` table keyed by ``(campaign, command_id)`` (the old schema) as
    the append-ordered one, keeping each row's rowid as its ``id``; ``True`` if it did.

    Called once at open, in the caller's transaction. Its rows become the tail, which
    :meth:`CommandKeys.load` then indexes as one generation.
    """
    columns = [row[1] for row in connection.execute("PRAGMA table_info(commands)")]
    if not columns or "id" in columns:
        return False
    connection.execute(COMMANDS_TABLE.format(name="commands_v2"))
    connection.execute(
        "INSERT INTO commands_v2 (id, campaign, command_id, actor, first_seq, last_seq)"
        " SELECT rowid, campaign, command_id, actor, first_seq, last_seq FROM commands"
        " ORDER BY rowid")
    connection.execute("DROP TABLE commands")  # its triggers go with it; the caller remakes them
    connection.execute("ALTER TABLE commands_v2 RENAME TO commands")
    return True


def gens_lookup(connection: sqlite3.Connection, campaign: str, ids: list[str]) -> list[Found]:
    """The records of ``ids`` found in the live generations (one statement)."""
    wanted = set(ids)
    return [row for row in connection.execute(_LOOKUP, [_keys_json(campaign, ids), campaign])
            if row[0] in wanted]  # a digest shared by another id is no match


def tail_lookup(connection: sqlite3.Connection, campaign: str, ids: list[str]) -> list[Found]:
    """The records of ``ids`` among the rows no generation covers yet: a bounded scan, for a
    reader that does not hold the tail (the writer does, in memory)."""
    return connection.execute(_TAIL, [campaign, json.dumps(ids)]).fetchall()


class _Gen:
    """A live generation: its number, the command ids it covers and its row count."""

    __slots__ = ("first", "gen", "last", "size")

    def __init__(self, gen: int, first: int, last: int, size: int) -> None:
        self.gen, self.first, self.last, self.size = gen, first, last, size


class CommandKeys:
    """The writer's side of the index: the tail in memory, the housekeeping that merges it.

    Only the writer's thread calls :meth:`add`, :meth:`step` and :meth:`reset`; the event
    loop's lookups call :meth:`tail_get`, which reads one dict entry (atomic under the GIL).
    Tail entries are dropped only after the generation holding them is committed and live,
    so a lookup that misses the tail and then reads the generations finds them there.
    """

    def __init__(self) -> None:
        self._tail: dict[tuple[str, str], tuple[int, str, int, int]] = {}
        self._gens: list[_Gen] = []
        self._next_gen = 1
        self.next_id = 1
        self._work: Iterator[None] | None = None

    def load(self, connection: sqlite3.Connection) -> None:
        """Read the index's state at open: drop rows of unlisted generations, index a tail
        too long to hold (a migrated log, or a writer that stopped mid-merge many times),
        and hold the rest in memory. ``connection`` is the writer's, outside a transaction."""
        self._work = None
        with connection:
            connection.execute("DELETE FROM command_keys WHERE gen NOT IN"
                               " (SELECT gen FROM command_gens)")
        self._read_gens(connection)
        watermark = self._gens[-1].last if self._gens else 0
        (high, count) = connection.execute(
            "SELECT max(id), count(*) FROM commands WHERE id > ?", [watermark]).fetchone()
        if count > TAIL_LIMIT:
            with connection:
                connection.execute(
                    "CREATE TEMP TABLE IF NOT EXISTS pending_keys (key INTEGER, command INTEGER)")
                rows = connection.execute("SELECT id, campaign, command_id FROM commands"
                                          " WHERE id > ? AND id <= ?", [watermark, high])
                while page := rows.fetchmany(4096):
                    connection.executemany("INSERT INTO pending_keys VALUES (?, ?)", [
                        (command_key(campaign, cid), rowid) for rowid, campaign, cid in page])
                gen = self._next_gen
                connection.execute("INSERT INTO command_keys (gen, key, command) SELECT ?, key,"
                                   " command FROM pending_keys ORDER BY key, command", [gen])
                connection.execute("INSERT INTO command_gens VALUES (?, ?, ?, ?)",
                                   [gen, watermark + 1, high, count])
                connection.execute("DROP TABLE temp.pending_keys")
            self._read_gens(connection)
            watermark = high
        self._tail.clear()
        for rowid, campaign, cid, actor, first, last in connection.execute(
                "SELECT id, campaign, command_id, actor, first_seq, last_seq FROM commands"
                " WHERE id > ? ORDER BY id", [watermark]):
            self._tail[(campaign, cid)] = (rowid, actor, first, last)
        (top,) = connection.execute("SELECT max(id) FROM commands").fetchone()
        self.next_id = (top or 0) + 1

    def _read_gens(self, connection: sqlite3.Connection) -> None:
        self._gens = [_Gen(*row) for row in connection.execute(
            "SELECT gen, first, last, size FROM command_gens ORDER BY first")]
        (top,) = connection.execute(
            "SELECT max(gen) FROM (SELECT max(gen) AS gen FROM command_gens UNION ALL"
            " SELECT max(gen) FROM command_keys)").fetchone()
        self._next_gen = (top or 0) + 1

    # ---- what the writer asks before and after a commit --------------------------------

    def tail_get(self, campaign: str, command_id: str) -> Found | None:
        """The record of a command id in the tail, if it is there."""
        held = self._tail.get((campaign, command_id))
        return None if held is None else (command_id, held[1], held[2], held[3])

    def taken(self, connection: sqlite3.Connection,
              wanted: list[tuple[str, str]]) -> set[tuple[str, str]]:
        """Which ``(campaign, command_id)`` pairs are already in the log (tail or index)."""
        tail = self._tail
        found = {pair for pair in wanted if pair in tail}
        if self._gens:  # one statement for every campaign of the batch
            rest = set(wanted) - found
            keys = "[" + ",".join(str(command_key(*pair)) for pair in rest) + "]"
            found.update(pair for pair in connection.execute(_TAKEN, [keys]) if pair in rest)
        return found

    def add(self, rows: list[tuple[int, str, str, str, int, int]]) -> None:
        """Hold committed ``commands`` rows ``(id, campaign, command_id, actor, first, last)``."""
        for rowid, campaign, cid, actor, first, last in rows:
            self._tail[(campaign, cid)] = (rowid, actor, first, last)

    def reset(self, connection: sqlite3.Connection) -> None:
        """After a failed commit: reread what is durable (the ids may not have been used)."""
        self.load(connection)

    # ---- housekeeping ---------------------------------------------------------------------

    @property
    def has_work(self) -> bool:
        """Whether :meth:`step` has something to do."""
        return self._work is not None or len(self._tail) >= TAIL_LIMIT

    def step(self, connection: sqlite3.Connection) -> None:
        """Do one small transaction of the pending merge work. On an error the work is
        dropped (its rows are unlisted, so never read, and removed at the next open) and
        the error raised; the next call starts over."""
        if self._work is None:
            if len(self._tail) < TAIL_LIMIT:
                return
            self._work = self._merge(connection)
        try:
            next(self._work)
        except StopIteration:
            self._work = None
        except BaseException:
            self._work = None
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise

    def _merge(self, connection: sqlite3.Connection) -> Iterator[None]:
        """The tail into a new generation, then pairwise merges while the newest generation
        is as large as the one before it: one transaction per ``yield``."""
        held = list(self._tail.items())
        first, last = held[0][1][0], held[-1][1][0]
        rows = sorted((command_key(campaign, cid), entry[0]) for (campaign, cid), entry in held)
        gen = self._new_gen()
        for start in range(0, len(rows), STEP_ROWS):
            with connection:
                connection.executemany("INSERT INTO command_keys VALUES (?, ?, ?)",
                                       [(gen, key, rowid) for key, rowid in
                                        rows[start:start + STEP_ROWS]])
            yield
        with connection:
            connection.execute("INSERT INTO command_gens VALUES (?, ?, ?, ?)",
                               [gen, first, last, len(rows)])
        self._gens.append(_Gen(gen, first, last, len(rows)))
        for (campaign, cid), _ in held:  # now found in the generation: forget them here
            self._tail.pop((campaign, cid), None)
        while len(self._gens) >= 2 and self._gens[-1].size >= self._gens[-2].size:
            yield from self._merge_last_two(connection)

    def _merge_last_two(self, connection: sqlite3.Connection) -> Iterator[None]:
        older, newer = self._gens[-2], self._gens[-1]
        size = older.size + newer.size
        gen = self._new_gen()
        ranges = _key_ranges(-(-size // STEP_ROWS))
        for low, high in ranges:
            with connection:
                connection.execute(
                    "INSERT INTO command_keys (gen, key, command) SELECT ?, key, command FROM"
                    " command_keys WHERE gen IN (?, ?) AND key BETWEEN ? AND ?"
                    " ORDER BY key, command", [gen, older.gen, newer.gen, low, high])
            yield
        with connection:
            connection.execute("DELETE FROM command_gens WHERE gen IN (?, ?)",
                               [older.gen, newer.gen])
            connection.execute("INSERT INTO command_gens VALUES (?, ?, ?, ?)",
                               [gen, older.first, newer.last, size])
        self._gens[-2:] = [_Gen(gen, older.first, newer.last, size)]
        for old in (older, newer):
            for low, high in _key_ranges(-(-old.size // STEP_ROWS)):
                with connection:
                    connection.execute("DELETE FROM command_keys WHERE gen = ? AND key"
                                       " BETWEEN ? AND ?", [old.gen, low, high])
                yield

    def _new_gen(self) -> int:
        gen, self._next_gen = self._next_gen, self._next_gen + 1
        return gen

    @property
    def generations(self) -> int:
        """How many generations a lookup probes (for tests and benchmarks)."""
        return len(self._gens)

    def __len__(self) -> int:
        return len(self._tail)


def _key_ranges(parts: int) -> list[tuple[int, int]]:
    """``parts`` ranges of equal width covering every 64-bit key (digests are uniform)."""
    parts = max(parts, 1)
    width = (_HIGHEST - _LOWEST + 1) // parts
    bounds = [_LOWEST + k * width for k in range(parts)] + [_HIGHEST + 1]
    return [(bounds[k], bounds[k + 1] - 1) for k in range(parts)]
