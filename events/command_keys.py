"""The command-id index of the SQLite log: built off the commit path, in sorted runs.

Why: a ``commands`` table keyed by ``(campaign, command_id)`` put each random, client-chosen id
on a page of its own in the key's B-tree, so every commit wrote about one 4 KiB page per command
to the WAL (4.8 KB an event in all, against 1.3 KB without the key). Now ``commands`` is
appended to in id order with no other index (a commit writes its last pages only), and the
lookup by id is served in two parts:

- the **tail**, the rows after the last merge: the writer holds them in memory
  (:class:`CommandKeys`); a reader scans them (a bounded scan: about :data:`TAIL_LIMIT`
  rows at most; :mod:`events.command_lookup`, the index as readers read it);
- **generations**, each a table ``command_keys_<gen>`` of rows ``(key, command)``, ``key`` a
  32-bit digest (CRC-32) of the campaign and id, ``command`` the ``commands`` row. A
  generation is written in key order into a new table, so its pages are appended, never
  scattered; when :data:`FAN_IN` generations of one size class are newest, they are merged
  into one (each id is rewritten about ``log4(commands / TAIL_LIMIT)`` times, and a lookup
  probes a few B-trees), and the merged-away tables are dropped. ``command_generations``
  lists the live generations and the command ids each covers; a table not listed there (one being
  built, or merged away) is never read, and is dropped at the next open.

A table a generation, rather than one table keyed by ``(gen, key, command)`` as before
2026-11-26: a merge read its generations from the table it wrote, which SQLite copies to a
temporary B-tree and sorts first, and the merged-away rows were then deleted row by row,
rewriting every page once more. Reading tables apart, each in key order, SQLite merges them as
they come, and a dropped table's pages are freed unwritten: a merge of four generations of
524,288 ids cost half the time and half the WAL in raw ``sqlite3``, and the index's whole
housekeeping 0.68x the CPU and 0.62x the bytes (``tests/bench/index_merge.py``). A file of
the one-table layout is rewritten into tables when a writer opens it, and read as it is by a
reader. A file an older release has written since keeps this release's generations (they
cover the commands up to their last; the ones after are the tail) and loses the older one's
tables.

The digest only finds candidates: each lookup compares the stored campaign and id, so ids that
share a digest stay apart. 32 bits are enough: at a million commands a lookup meets another
id's digest once in 4,000 tries and pays one more row read; a 64-bit cryptographic digest cost
three times as much on the writer's thread. Uniqueness of ``(campaign, command_id)`` is the
writer's check against the tail and the generations before it appends (it is the only writer);
a request whose sender looked its id up itself just before (a hub, which appends a campaign's
commands one batch at a time) is checked against the tail only.
The merge work is done one small transaction at a time by :meth:`CommandKeys.step`, which the
group committer calls on the writer's thread between two commits.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from functools import lru_cache
from zlib import crc32

__all__ = ["FAN_IN", "FOUND_COLUMNS", "GEN_TABLE", "GENS_TABLE", "LEGACY_LIST", "ONE_TABLE",
           "PAIR_COLUMNS", "STEP_ROWS", "TAIL_LIMIT", "CommandKeys", "Found", "command_key",
           "create_tables", "digests_json", "gen_table", "pairs_json", "probe_sql", "transaction"]

logger = logging.getLogger(__name__)

TAIL_LIMIT = 32_768
"""Rows held in memory before they are merged into a generation (~10 MB at most)."""

FAN_IN = 4
"""Generations of one size class merged at a time: each id is rewritten about
``log4(commands / TAIL_LIMIT)`` times, and a lookup probes at most three a size class."""

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

GENS_TABLE = "command_generations"
"""The list of live generations: ``(gen, first, last, size)``, the command ids each covers.

Named apart from the list of the one-table layout (:data:`LEGACY_LIST`): an older release
that opens the file finds no list of its own, so it indexes every command itself rather than
trust generations it cannot read, and accepts no retried command twice."""
_GENS = (f"CREATE TABLE IF NOT EXISTS {GENS_TABLE} (gen INTEGER PRIMARY KEY, first INTEGER NOT"
         " NULL, last INTEGER NOT NULL, size INTEGER NOT NULL)")
GEN_TABLE = ("CREATE TABLE {table} (key INTEGER NOT NULL, command INTEGER NOT NULL,"
              " PRIMARY KEY (key, command)) WITHOUT ROWID")
_GEN_TABLES = ("SELECT name FROM sqlite_master WHERE type = 'table'"
               " AND name GLOB 'command_keys_[0-9]*' AND NOT name GLOB 'command_keys_*[^0-9]*'")
"""The generations' tables: ``command_keys_`` and digits only (a name this index made)."""
ONE_TABLE = "command_keys"
"""The layout before 2026-11-26: every generation's rows in one table keyed by ``(gen, key,
command)``, listed in :data:`LEGACY_LIST`; split into tables by a writer's open, read as it is
by a reader."""
LEGACY_LIST = "command_gens"
_ARM = (  # CROSS JOIN fixes the order: each id probes the generation's keys
    "SELECT {columns} FROM json_each(?1) AS j CROSS JOIN {table} AS k ON k.key = j.value"
    " CROSS JOIN commands AS c ON c.id = k.command")
FOUND_COLUMNS = "c.command_id, c.actor, c.first_seq, c.last_seq"
PAIR_COLUMNS = "c.campaign, c.command_id, c.last_seq"
_KEY_SPACE = 2**32


def command_key(campaign: str, command_id: str) -> int:
    """The index's key of ``(campaign, command_id)``: a 32-bit digest, never negative."""
    return crc32(f"{campaign}\x1f{command_id}".encode())


def digests_json(campaign: str, ids: list[str]) -> str:
    """The keys of ``ids`` in ``campaign``, as the JSON array a probe takes."""
    return "[" + ",".join(str(command_key(campaign, i)) for i in ids) + "]"


def pairs_json(pairs: Iterable[tuple[str, str]]) -> str:
    """The keys of ``(campaign, command_id)`` pairs, as the JSON array a probe takes."""
    return "[" + ",".join(str(command_key(*pair)) for pair in pairs) + "]"


def create_tables(connection: sqlite3.Connection) -> None:
    """Create the index's list of generations if the file lacks it (a new log or a migrated
    one); each generation's table is made with it."""
    connection.execute(_GENS)


def gen_table(gen: int) -> str:
    """The table of generation ``gen``."""
    return f"command_keys_{int(gen)}"


@lru_cache(maxsize=32)
def probe_sql(columns: str, gens: tuple[int, ...], where: str) -> str:
    """One statement probing each of ``gens`` for the digests of JSON array ``?1``: the
    ``columns`` of the commands found (``where`` filters each generation's rows). A new text
    only when the live generations change."""
    return " UNION ALL ".join(_ARM.format(columns=columns, table=gen_table(gen)) + where
                              for gen in gens)


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
        self._tail: dict[tuple[str, str], tuple[int, str, int, int, int]] = {}
        """``(campaign, command_id) -> (id, actor, first_seq, last_seq, key)``, in id order."""
        self._gens: list[_Gen] = []
        self._live: tuple[int, ...] = ()
        """The live generations' numbers, replaced whole each time they change: what a
        lookup on another thread reads (:meth:`lookup`)."""
        self._next_gen = 1
        self.next_id = 1
        self._work: Iterator[None] | None = None
        self._building: int | None = None
        """The generation whose table the work is filling, unlisted yet."""
        self._to_drop: list[int] = []
        """Generations whose tables are to be dropped: merged away, or left half built by a
        step that failed. Dropped by the next step, first, until that succeeds."""

    def load(self, connection: sqlite3.Connection) -> None:
        """Read the index's state at open: drop the tables of unlisted generations, index a
        tail too long to hold (a migrated log, or a writer that stopped mid-merge many
        times), and hold the rest in memory. ``connection`` is the writer's, outside a
        transaction. A listed generation whose table is gone (dropped by hand) makes the
        whole index be rebuilt from ``commands``: it is derived, and a lookup must not miss."""
        self._work, self._building, self._to_drop = None, None, []
        listed = {gen for (gen,) in connection.execute(f"SELECT gen FROM {GENS_TABLE}")}
        tables = {int(name.removeprefix("command_keys_")): name
                  for (name,) in connection.execute(_GEN_TABLES)}
        lost = listed - tables.keys()
        if lost:
            logger.warning("command index: generations %s have no table; rebuilding the"
                           " index from the commands", sorted(lost))
        orphans = [name for gen, name in tables.items() if lost or gen not in listed]
        if orphans or lost:
            with transaction(connection):
                if lost:
                    connection.execute(f"DELETE FROM {GENS_TABLE}")
                for name in orphans:
                    connection.execute(f"DROP TABLE {name}")
        self._read_gens(connection)
        watermark = self._gens[-1].last if self._gens else 0
        (high, count) = connection.execute(
            "SELECT max(id), count(*) FROM commands WHERE id > ?", [watermark]).fetchone()
        if count > TAIL_LIMIT:
            with transaction(connection):
                connection.execute(
                    "CREATE TEMP TABLE IF NOT EXISTS pending_keys (key INTEGER, command INTEGER)")
                rows = connection.execute("SELECT id, campaign, command_id FROM commands"
                                          " WHERE id > ? AND id <= ?", [watermark, high])
                while page := rows.fetchmany(4096):
                    connection.executemany("INSERT INTO pending_keys VALUES (?, ?)", [
                        (command_key(campaign, cid), rowid) for rowid, campaign, cid in page])
                gen = self._next_gen
                connection.execute(GEN_TABLE.format(table=gen_table(gen)))
                connection.execute(f"INSERT INTO {gen_table(gen)} (key, command) SELECT key,"
                                   " command FROM pending_keys ORDER BY key, command")
                connection.execute(f"INSERT INTO {GENS_TABLE} VALUES (?, ?, ?, ?)",
                                   [gen, watermark + 1, high, count])
                connection.execute("DROP TABLE temp.pending_keys")
            self._read_gens(connection)
            watermark = high
        self._tail.clear()
        for rowid, campaign, cid, actor, first, last in connection.execute(
                "SELECT id, campaign, command_id, actor, first_seq, last_seq FROM commands"
                " WHERE id > ? ORDER BY id", [watermark]):
            self._tail[(campaign, cid)] = (rowid, actor, first, last, command_key(campaign, cid))
        (top,) = connection.execute("SELECT max(id) FROM commands").fetchone()
        self.next_id = (top or 0) + 1

    def _read_gens(self, connection: sqlite3.Connection) -> None:
        self._gens = [_Gen(*row) for row in connection.execute(
            f"SELECT gen, first, last, size FROM {GENS_TABLE} ORDER BY first")]
        self._publish()
        (top,) = connection.execute(f"SELECT max(gen) FROM {GENS_TABLE}").fetchone()
        self._next_gen = (top or 0) + 1  # every table of a higher one was dropped as unlisted

    # ---- what the writer asks before and after a commit --------------------------------

    def tail_found(self, campaign: str, ids: list[str]) -> dict[str, Found]:
        """Those of ``ids`` in the tail. Checked before the generations: an entry leaves
        the tail only once the generation holding it is listed."""
        return {cid: found for cid in ids
                if (found := self.tail_get(campaign, cid)) is not None}

    def tail_get(self, campaign: str, command_id: str) -> Found | None:
        """The record of a command id in the tail, if it is there."""
        held = self._tail.get((campaign, command_id))
        return None if held is None else (command_id, held[1], held[2], held[3])

    @property
    def tail(self) -> Mapping[tuple[str, str], object]:
        """The tail, keyed by ``(campaign, command_id)``, for the writer to test ids against
        with no call per id (read only; a merge swaps in a new one between two commits)."""
        return self._tail

    def in_generations(self, connection: sqlite3.Connection,
                       pairs: list[tuple[str, str]]) -> set[tuple[str, str]]:
        """Which ``(campaign, command_id)`` pairs of ``pairs`` not in the tail the
        generations hold: one statement for every campaign of a batch. The writer asks this
        only for ids whose sender did not look them up itself."""
        if not self._gens or not pairs:
            return set()
        rest = {pair for pair in pairs if pair not in self._tail}
        keys = pairs_json(rest)
        sql = probe_sql(PAIR_COLUMNS, self._live, "")  # the writer's own connection: no merge
        # runs meanwhile
        return {(c, i) for c, i, _ in connection.execute(sql, [keys]) if (c, i) in rest}

    def lookup(self, connection: sqlite3.Connection, campaign: str, ids: list[str]
               ) -> list[Found]:
        """The records of ``ids`` in the live generations, looked up on another connection
        (the hub's, on the event loop) while this writer may be merging: one statement over
        the generations live now, read from memory (a read transaction to list them cost a
        lookup 10 µs more). Should a merge drop a table between that read and the statement
        (it drops merged-away tables only after listing the new one), SQLite says so and the
        lookup reads the list again, which holds the merged generation by then."""
        wanted = set(ids)
        digests = digests_json(campaign, ids)
        while True:
            gens = self.live
            if not gens:
                return []
            try:
                rows = connection.execute(probe_sql(FOUND_COLUMNS, gens, " WHERE c.campaign = ?2"),
                                          [digests, campaign]).fetchall()
            except sqlite3.OperationalError as error:
                if "no such table" in str(error) and self.live != gens:
                    continue  # merged meanwhile: the list now holds what was dropped
                raise
            return [row for row in rows if row[0] in wanted]  # a digest shared by another
            # id is no match

    def add(self, rows: list[tuple[int, str, str, str, int, int]]) -> None:
        """Hold committed ``commands`` rows ``(id, campaign, command_id, actor, first, last)``."""
        tail = self._tail
        for rowid, campaign, cid, actor, first, last in rows:
            tail[(campaign, cid)] = (rowid, actor, first, last, command_key(campaign, cid))

    # ---- housekeeping ---------------------------------------------------------------------

    @property
    def has_work(self) -> bool:
        """Whether :meth:`step` has something to do."""
        return (self._work is not None or bool(self._to_drop) or len(self._tail) >= TAIL_LIMIT
                or self._merge_due())

    def _merge_due(self) -> bool:
        """Whether the newest :data:`FAN_IN` generations are of one size class."""
        return len(self._gens) >= FAN_IN and len(
            {_size_class(g.size) for g in self._gens[-FAN_IN:]}) == 1

    def step(self, connection: sqlite3.Connection) -> None:
        """Do one small transaction of the pending work: dropping tables no longer listed,
        writing a full tail as a generation, or merging generations, in that order. On an
        error the work is dropped and the error raised; a table it left half built is
        dropped by the next step, and what was to be done is found to do again."""
        if self._work is None:
            if self._to_drop:
                self._work = self._drop(connection)
            elif len(self._tail) >= TAIL_LIMIT:
                self._work = self._flush(connection)
            elif self._merge_due():
                self._work = self._merge_newest(connection)
            else:
                return
        try:
            next(self._work)
        except StopIteration:
            self._work = None
        except BaseException:
            self._work = None
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            if self._building is not None:
                self._to_drop.append(self._building)
                self._building = None
            raise

    def _flush(self, connection: sqlite3.Connection) -> Iterator[None]:
        """The tail into a new generation: one transaction per ``yield``, each one statement
        of :data:`STEP_ROWS` rows handed over as one JSON array of key and id packed in one
        integer (8,192 pairs of bound parameters, built as tuples and bound one by one, cost
        the index's housekeeping a fifth more CPU: ``tests/bench/index_merge.py``)."""
        held = list(self._tail.values())
        first, last = held[0][0], held[-1][0]
        shift = max(last.bit_length(), 1)  # key and id packed in one int: a faster sort
        mask = (1 << shift) - 1
        packed = sorted(entry[4] << shift | entry[0] for entry in held)
        gen = self._building = self._new_gen()
        table = gen_table(gen)
        for start in range(0, len(packed), STEP_ROWS):
            with transaction(connection):
                if start == 0:
                    connection.execute(GEN_TABLE.format(table=table))
                connection.execute(
                    f"INSERT INTO {table} (key, command) SELECT value >> ?2, value & ?3"
                    " FROM json_each(?1)",
                    ["[" + ",".join(map(str, packed[start:start + STEP_ROWS])) + "]", shift,
                     mask])
            yield
        with transaction(connection):
            connection.execute(f"INSERT INTO {GENS_TABLE} VALUES (?, ?, ?, ?)",
                               [gen, first, last, len(packed)])
        self._building = None
        self._gens.append(_Gen(gen, first, last, len(packed)))
        self._publish()
        # Those are found in the generation now. A new dict, swapped in whole: a lookup on
        # the event loop reads the old or the new one, each right (the generation is live).
        self._tail = {pair: entry for pair, entry in self._tail.items() if entry[0] > last}

    def _merge_newest(self, connection: sqlite3.Connection) -> Iterator[None]:
        """The newest :data:`FAN_IN` generations into a new one, a range of keys a
        transaction (each old table read in key order, merged as it comes), listed in their
        place; their tables are dropped by the next step, so that a lookup that read the
        list just before still finds them (:meth:`lookup`)."""
        merged = self._gens[-FAN_IN:]
        size = sum(g.size for g in merged)
        gen = self._building = self._new_gen()
        table = gen_table(gen)
        olds = [g.gen for g in merged]
        among = ", ".join("?" * len(olds))
        arms = " UNION ALL ".join(f"SELECT key, command FROM {gen_table(old)}"
                                  " WHERE key BETWEEN ?1 AND ?2" for old in olds)
        insert = (f"INSERT INTO {table} (key, command) SELECT key, command FROM ({arms})"
                  " ORDER BY key, command")
        for step, (low, high) in enumerate(_key_ranges(-(-size // STEP_ROWS))):
            with transaction(connection):
                if step == 0:
                    connection.execute(GEN_TABLE.format(table=table))
                connection.execute(insert, [low, high])
            yield
        with transaction(connection):
            connection.execute(f"DELETE FROM {GENS_TABLE} WHERE gen IN ({among})", olds)
            connection.execute(f"INSERT INTO {GENS_TABLE} VALUES (?, ?, ?, ?)",
                               [gen, merged[0].first, merged[-1].last, size])
        self._building = None
        self._gens[-FAN_IN:] = [_Gen(gen, merged[0].first, merged[-1].last, size)]
        self._publish()
        self._to_drop += olds

    def _drop(self, connection: sqlite3.Connection) -> Iterator[None]:
        """The tables of :attr:`_to_drop`, in one transaction: freed whole, unwritten (no
        row is deleted)."""
        with transaction(connection):
            for gen in self._to_drop:
                connection.execute(f"DROP TABLE IF EXISTS {gen_table(gen)}")
        self._to_drop.clear()  # only this thread adds to it, never during a step
        yield

    def _new_gen(self) -> int:
        gen, self._next_gen = self._next_gen, self._next_gen + 1
        return gen

    def _publish(self) -> None:
        """Replace :attr:`live` whole from the generations held (after each change)."""
        self._live = tuple(g.gen for g in self._gens)

    @property
    def live(self) -> tuple[int, ...]:
        """The live generations' numbers: one tuple, replaced whole by the writer's thread
        (after the generation is listed, before the tail lets go of its ids)."""
        return self._live

    @property
    def generations(self) -> int:
        """How many generations a lookup probes (read on the event loop too)."""
        return len(self.live)

    def __len__(self) -> int:
        return len(self._tail)


def _size_class(size: int) -> int:
    """0 for a generation under ``FAN_IN`` tails' size, 1 under ``FAN_IN**2``, and so on."""
    level, bound = 0, TAIL_LIMIT * FAN_IN
    while size >= bound:
        level, bound = level + 1, bound * FAN_IN
    return level


@contextmanager
def transaction(connection: sqlite3.Connection) -> Iterator[None]:
    """One explicit transaction, whatever the connection's isolation level."""
    connection.execute("BEGIN")
    try:
        yield
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


def _key_ranges(parts: int) -> list[tuple[int, int]]:
    """``parts`` ranges of equal width covering every key (digests are uniform)."""
    parts = max(parts, 1)
    width = _KEY_SPACE // parts
    bounds = [k * width for k in range(parts)] + [_KEY_SPACE]
    return [(bounds[k], bounds[k + 1] - 1) for k in range(parts)]
