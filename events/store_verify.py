"""``poolhall verify`` for the SQLite log: one pass in append order, in parallel segments.

What is checked (each failure is one :class:`Problem`, a plain ``(campaign, seq, text)``):

- the file itself, by SQLite's ``integrity_check`` (a torn file can hold a table ahead of its
  index); it runs on a thread of its own beside the walk (SQLite lets go of the GIL);
- every campaign's chain, walked in **append order** (global position), the order the server
  folds the log in: each event must be the next sequence number of its campaign and hash to
  its stored hash from the one before it. An event moved (a position swapped) is reported,
  even when its campaign's events read in sequence order would still chain;
- every event must lie within the sequence numbers its command recorded in ``commands``, and
  no command may record more events than its campaign holds (the chain alone cannot see its
  own last events removed).

The walk reads the table once, in order, keeping each campaign's last hash: reading campaign
by campaign through the index cost a random page read per row (1.5 times slower on an
interleaved log). The ``commands`` table, in its own (rowid) order, is in a log the store
wrote the events' order, command by command: the walk notes its runs (each stretch of
events of one command id) and SQLite writes the rows of the segment as JSON in the same
form, and one comparison of the two texts proves the command check. A log where they differ
(an edited ``commands`` table, rows written by hand, a sequence break) gets the exact check
from SQL instead, reporting each event it fails.

A long log is cut into segments of positions, one per CPU, each walked in a process of its
own (the hashing holds the GIL); a segment cannot check the first event of each campaign it
meets, so it hands that row back and the parent checks those against the previous segment's
last hashes. Segment bounds fall on a command's first event, so each segment reads its own
range of ``commands`` rows.
"""

from __future__ import annotations

import gc
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from hashlib import sha256
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from events import event_blocks, journal
from events.chain import GENESIS, link_hash
from events.read_transaction import read_transaction

__all__ = ["Problem", "SEGMENT_EVENTS", "segment_starts", "verify_file", "walk_segment"]

SEGMENT_EVENTS = 250_000
"""Below this many events a log is walked in this process: a worker costs ~0.1 s to start."""

_DAMAGE_SHOWN = 20
"""At most this many lines of ``integrity_check`` are reported: one is enough to act."""

_CACHE_KIB = 65_536
"""Page cache of the ``integrity_check`` connection: with SQLite's 2 MiB default its index
probes missed the cache and it ran 2.5 times slower on a 1M-event log."""

_MMAP_BYTES = 1 << 31
"""``mmap_size`` of every connection here (SQLite caps it at 2 GiB): pages read in place, not
copied in by the kernel and again into SQLite's cache. On a 1M-event log the system time of
``integrity_check`` fell from ~0.35 s to ~0.07 s, that of a whole walk from ~0.2 s to ~0.1 s."""

_WALK = ("SELECT campaign, seq, type, version, CAST(payload AS BLOB), recorded_at, actor,"
         " command_id, hash FROM events WHERE position >= ? AND position < ? ORDER BY position")
"""The payload as SQLite's bytes, hashed as they are (as :func:`~events.chain.link_hash` hashes
a payload's UTF-8): not decoded into a ``str`` only to be encoded again. A payload stored as a
BLOB is then hashed exactly, with no second try."""
_WALK_TAIL = _WALK.replace("FROM events", "FROM journal")
"""In a log of the release before the block layout, the walk goes on in its journal, whose
rows follow those of ``events`` in position order (:mod:`events.journal`), in the same read
transaction: one view of both tables. Two plain statements: a ``UNION ALL`` merged by SQLite
cost the walk a fifth more CPU, journal or not."""
_PAGE = 256
"""Rows fetched at a time. A page of 4,096 rows with their objects (~3 MB) outgrew the 1 MiB
L2 cache before the loop read it back: 30 more misses an event than with 256 (cachegrind,
1 MiB L2 simulated, 40,000 events), for the same instructions."""

_SPAN = "SELECT (SELECT min(position) FROM events), (SELECT max(position) FROM events)"
_SPAN_JOURNAL = (
    "SELECT coalesce((SELECT min(position) FROM events), (SELECT min(position) FROM journal)),"
    " coalesce((SELECT max(position) FROM journal), (SELECT max(position) FROM events))")
"""The positions' span: not ``count(*)``, which reads a whole index, nor ``min(), max()`` in
one SELECT, which SQLite answers by a scan of the table (0.16 CPU-s on 1M events), not by
the two ends of the rowid tree."""
_COMMANDS_SPAN = "SELECT (SELECT min(rowid) FROM commands), (SELECT max(rowid) FROM commands)"
"""The commands' rowid span, where segments are cut (read from the tree's two ends, as
:data:`_SPAN`)."""

# What is read from ``commands``: the next four statements and ``segment_starts``'s join.
_RUNS = 4096
"""Rowids of commands compared at a time (memory stays bounded whatever the segment's length)."""
_COMMANDS_JSON = (
    "SELECT CAST(json_group_array(json_array(campaign, command_id, first_seq, last_seq))"
    " AS BLOB), count(*) FROM commands WHERE rowid >= ? AND rowid < ?")
_COMMANDS_AFTER = "SELECT min(rowid) FROM commands WHERE rowid >= ? AND rowid < ?"
_UNCOVERED = (
    "SELECT e.campaign, e.seq, e.command_id FROM {table} AS e LEFT JOIN commands AS c"
    " ON c.campaign = e.campaign AND c.command_id = e.command_id"
    " WHERE c.first_seq IS NULL OR e.seq < c.first_seq OR e.seq > c.last_seq")
_HEADS = ("SELECT campaign, max(head) FROM (" + journal.union(
    "SELECT campaign, max(seq) AS head FROM {table} GROUP BY campaign", True)
          + ") GROUP BY campaign")
"""Each campaign's head over both tables: each grouped on its own index, then the two."""
_RECORDED_HEADS = "SELECT campaign, max(last_seq) FROM commands NOT INDEXED GROUP BY campaign"
_END = 2**63 - 1


class Problem(NamedTuple):
    """One break found: the campaign (``""`` for the file), the event, what is wrong."""

    campaign: str
    seq: int
    problem: str


class Segment(NamedTuple):
    """What walking one range of positions found (plain data: it crosses processes)."""

    checked: int
    problems: list[Problem]
    firsts: dict[str, tuple[Any, ...]]
    """Each campaign's first row in the range, unchecked: its previous link lies before."""
    lasts: dict[str, tuple[int, str]]
    """Each campaign's last sequence number and hash in the range."""
    in_step: bool
    """Every event matched the ``commands`` rows of the range, in order, and none was left."""


_SEGMENT_DECODER: msgspec.msgpack.Decoder[Segment | str] = msgspec.msgpack.Decoder(Segment | str)
"""What a child walking a segment writes back: its segment, or SQLite's error."""


def _connect(uri: str) -> sqlite3.Connection:
    connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
    connection.execute(f"PRAGMA mmap_size={_MMAP_BYTES}")
    return connection


def _edited(previous: str, row: tuple[Any, ...]) -> bool:
    """Whether a row does not hash to its stored hash (a payload stored as a BLOB included)."""
    campaign, seq, type_, version, payload, at, actor, command_id, stored = row
    return bool(link_hash(previous, campaign, seq, type_, version, at, actor, command_id,
                          payload) != stored)


def walk_segment(uri: str, low: int, high: int, commands_low: int, commands_high: int
                 ) -> Segment:
    """Walk events ``low <= position < high`` beside commands ``commands_low <= rowid <
    commands_high``: the chain within the range, and whether the commands keep step."""
    connection = _connect(uri)
    try:
        return _walk(connection, (low, high), (commands_low, commands_high))
    finally:
        connection.close()


def _walk(connection: sqlite3.Connection, positions: tuple[int, int],
          rowids: tuple[int, int]) -> Segment:
    """The hot loop: ~3 µs an event, most of it SQLite's row and the SHA-256 itself.

    Cursors are iterated directly (a generator between cost a tenth), the message is
    formatted inline rather than by :func:`link_hash` (the same bytes: the head's UTF-8, then
    the payload's). The ``commands`` rows are not read here one by one (4-column rows cost
    0.75 µs each, a fifth of the walk): the walk notes its *runs*, each stretch of events one
    command appended, and :class:`_Recorded` compares them with the rows as JSON.
    The collector is paused (:func:`_collector_paused`).
    """
    problems: list[Problem] = []
    firsts: dict[str, tuple[Any, ...]] = {}
    state: dict[str, tuple[int, str]] = {}  # campaign -> (last seq, last hash)
    runs: list[list[Any]] = []  # [campaign, command id, first seq, last seq], not yet compared
    run: list[Any] = []
    run_campaign = run_command = None
    checked = 0
    gaps = False  # a sequence break: runs need not be whole commands then
    recorded = _Recorded(connection, rowids)
    in_step = True
    with _collector_paused(), read_transaction(connection):
        walks = (_WALK, _WALK_TAIL) if journal.has_journal(connection) else (_WALK,)
        for walk in walks:
            events = connection.execute(walk, positions)
            while page := events.fetchmany(_PAGE):
                checked += len(page)
                for row in page:
                    campaign, seq, type_, version, payload, at, actor, cmd, stored = row
                    if cmd != run_command or campaign != run_campaign:
                        run = [campaign, cmd, seq, seq]
                        runs.append(run)
                        run_campaign, run_command = campaign, cmd
                    else:
                        run[3] = seq
                    known = state.get(campaign)
                    state[campaign] = seq, stored
                    if known is None:
                        firsts[campaign] = row
                        continue
                    if seq != known[0] + 1:
                        gaps = True
                        problems.append(Problem(
                            campaign, seq, f"expected event {known[0] + 1}: dropped or moved"))
                    if sha256(f"{known[1]}\x1f{campaign}\x1f{seq}\x1f{type_}\x1f{version}"
                              f"\x1f{at}\x1f{actor}\x1f{cmd}\x1f".encode()
                              + payload).hexdigest() != stored:
                        problems.append(Problem(campaign, seq,
                                                "hash does not match: edited, or out of order"))
                if len(runs) > _RUNS:  # the last run may go on in the next page: kept back
                    in_step = in_step and recorded.match(runs, final=False)
                    if not in_step:  # the exact check follows: no need to keep them
                        runs.clear()
        in_step = in_step and recorded.match(runs, final=True)
    return Segment(checked, problems, firsts, state, in_step and not gaps)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused for a walk, then as it was.

    A walk allocates millions of tuples and lists and frees each soon, in no cycle, but a
    page of rows lives through several young collections, is promoted, and the old
    generations' collections then sweep every object in the interpreter: a tenth of a walk's
    time (py-spy on a 1M-event walk), for nothing to collect.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class _Recorded:
    """A segment's ``commands`` rows, compared in order with the walk's runs of events.

    SQLite writes a chunk of rows as JSON and msgspec writes the runs alike: one comparison
    of two texts (SQLite's JSON costs ~1,800 instructions a row in C, a row of four values
    read into Python ~6,600). With no sequence break in the walk, equal texts all through prove each
    event lies within its command's recorded range and each row records only events the log
    holds: the exact check is not needed. Anything else (a row out of place or left over, a
    BLOB SQLite's JSON refuses, JSON written differently) answers ``False`` and the exact
    check from SQL decides. A chunk is a range of :data:`_RUNS` rowids, read straight from
    the table (a ``LIMIT`` of rows needed a subquery: 1.5 times the instructions a row).
    """

    def __init__(self, connection: sqlite3.Connection, rowids: tuple[int, int]) -> None:
        self._connection = connection
        self._low, self._high = rowids

    def _chunk(self) -> tuple[bytes, int] | None:
        """The next rows as a JSON array of ``[campaign, command id, first seq, last seq]``
        and their number; ``None`` once no row is left."""
        while self._low < self._high:
            low, self._low = self._low, min(self._high, self._low + _RUNS)
            text, count = self._connection.execute(_COMMANDS_JSON, (low, self._low)).fetchone()
            if count:
                return text, count
            (following,) = self._connection.execute(_COMMANDS_AFTER,
                                                    (self._low, self._high)).fetchone()
            self._low = self._high if following is None else following  # a gap in rowids
        return None

    def match(self, runs: list[list[Any]], *, final: bool) -> bool:
        """Whether the next rows are the first of ``runs`` (dropped once compared): all but
        the last :data:`_RUNS` (which may go on in the next page), or, when ``final``, all of
        them with no row left over."""
        try:
            while final or len(runs) > _RUNS:
                chunk = self._chunk()
                if chunk is None:
                    return not runs
                text, count = chunk
                if count > len(runs) or text != msgspec.json.encode(runs[:count]):
                    return False
                del runs[:count]
        except sqlite3.OperationalError:
            return False
        return True


def _integrity(uri: str) -> list[Problem]:
    connection = _connect(uri)
    try:
        connection.execute(f"PRAGMA cache_size=-{_CACHE_KIB}")
        return [Problem("", 0, f"the file is damaged: {line}") for (line,) in connection.execute(
            f"PRAGMA integrity_check({_DAMAGE_SHOWN})") if line != "ok"]
    finally:
        connection.close()


def _runs_problems(uri: str) -> list[Problem]:
    """What is wrong with the table of runs (:func:`events.event_blocks.run_problems`): the
    chain walk reads in position order and cannot see it. On a thread of its own beside the
    walk, like :func:`_integrity`."""
    connection = _connect(uri)
    try:
        return [Problem(*problem) for problem in event_blocks.run_problems(connection)]
    finally:
        connection.close()


_CUT = ("SELECT e.position, c.rowid FROM commands AS c JOIN {table} AS e ON e.campaign ="
        " c.campaign AND e.seq = c.first_seq AND e.command_id = c.command_id"
        " WHERE c.rowid >= ? ORDER BY c.rowid LIMIT 1")
"""The first command from a rowid on whose first event is in ``{table}``: a cut."""
_CUT_BLOCKS = _CUT.format(table="events").replace(
    "ON e.campaign", f"ON e.block = {event_blocks.run_of('c.campaign', 'c.first_seq')} AND"
    " e.campaign")
""":data:`_CUT` in the layout by block: the first event found through its campaign's runs."""


def segment_starts(connection: sqlite3.Connection, parts: int) -> list[tuple[int, int]]:
    """Where each segment starts: ``(position, commands rowid)`` of a command's first event.

    The first starts at the beginning of both tables; a cut is dropped when no command
    starts after it (a log whose commands do not match: the exact check follows anyway).
    """
    low, high = connection.execute(_COMMANDS_SPAN).fetchone()
    starts = [(0, 0)]
    if low is None or parts < 2:
        return starts
    step = (high - low + 1) // parts
    layout = event_blocks.layout_of(connection)
    cuts = [_CUT_BLOCKS] if layout == "blocks" else [
        _CUT.format(table=table) for table in ("events", "journal")[:1 + (layout == "journal")]]
    for k in range(1, parts):  # cut at a command (no index on its id): its first event
        for cut in cuts:  # in events, or else in the journal that follows it
            found = connection.execute(cut, [low + k * step]).fetchone()
            if found is not None:
                break
        if found is not None and found[0] > starts[-1][0] and found[1] > starts[-1][1]:
            starts.append((int(found[0]), int(found[1])))
    return starts


def _stitch(segments: list[Segment]) -> list[Problem]:
    """Check each segment's first row of each campaign against the links before it."""
    problems: list[Problem] = []
    state: dict[str, tuple[int, str]] = {}
    for segment in segments:
        for campaign, row in segment.firsts.items():
            previous_seq, previous = state.get(campaign, (0, GENESIS))
            seq = row[1]
            if seq != previous_seq + 1:
                problems.append(Problem(campaign, seq,
                                        f"expected event {previous_seq + 1}: dropped or moved"))
            if _edited(previous, row):
                problems.append(Problem(campaign, seq,
                                        "hash does not match: edited, or out of order"))
        state.update(segment.lasts)
    return problems


def _command_problems(connection: sqlite3.Connection) -> list[Problem]:
    """The exact command check, from SQL: for a log whose commands did not keep step."""
    with read_transaction(connection):
        live = journal.has_journal(connection)
        heads = dict(connection.execute(
            _HEADS if live else "SELECT campaign, max(seq) FROM events GROUP BY campaign"))
        problems = [Problem(str(campaign), int(seq), f"command {command!r} did not append"
                                                      " this event")
                    for campaign, seq, command in connection.execute(journal.union(
                        _UNCOVERED, live))]
        recorded = connection.execute(_RECORDED_HEADS).fetchall()
    for campaign, last in recorded:
        head = heads.get(campaign, 0)
        if last > head:
            problems.append(Problem(
                str(campaign), head + 1, f"events {head + 1} to {last} are missing: the"
                f" commands table records them, the log ends at {head}"))
    return problems


_OVERLAP = ("SELECT (SELECT max(position) FROM events), (SELECT min(position) FROM journal)")


def _journal_problems(connection: sqlite3.Connection) -> list[Problem]:
    """A journal whose rows are not the log's tail (a row placed there by hand, or one left
    in both tables): the walk reads ``events`` then the journal, which is the append order
    only while every journal position follows every position in ``events``."""
    with read_transaction(connection):
        if not journal.has_journal(connection):
            return []
        last, first = connection.execute(_OVERLAP).fetchone()
    if last is None or first is None or first > last:
        return []
    return [Problem("", 0, f"the journal is not the log's tail: it holds position {first},"
                           f" events go up to {last}")]


def verify_file(uri: str, *, segment_events: int = SEGMENT_EVENTS,
                workers: int | None = None) -> tuple[int, list[Problem]]:
    """Verify the log at ``uri``: the events checked, and every problem in campaign order.

    ``segment_events`` and ``workers`` exist for tests, which cut small logs into segments.
    A file SQLite cannot check or read is reported as a problem of campaign ``""``.
    """
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="verify-integrity") as thread:
        integrity = thread.submit(_integrity, uri)
        runs = thread.submit(_runs_problems, uri)
        try:
            checked, problems = _walk_all(uri, segment_events, workers or os.cpu_count() or 1)
            walk_error = None
        except sqlite3.DatabaseError as error:
            checked, problems, walk_error = 0, [], error
        try:
            damage = integrity.result()
            problems += runs.result()
        except sqlite3.DatabaseError as error:
            return 0, [Problem("", 0, f"the file cannot be checked: {error}")]
    if walk_error is not None:
        return 0, [*damage, Problem("", 0, f"the chains cannot be read: {walk_error}")]
    return checked, damage + sorted(problems, key=lambda p: (p.campaign, p.seq))


def _walk_all(uri: str, segment_events: int, workers: int) -> tuple[int, list[Problem]]:
    connection = _connect(uri)
    try:
        with read_transaction(connection):  # the layout read with the span and cuts
            low, high = connection.execute(
                _SPAN_JOURNAL if journal.has_journal(connection) else _SPAN).fetchone()
            span = 0 if low is None else high - low + 1
            starts = segment_starts(connection, min(workers, max(1, span // segment_events)))
        ranges = [(position, rowid, *end) for (position, rowid), end
                  in zip(starts, [*starts[1:], (_END, _END)], strict=True)]
        children = [(bounds, _start_segment(uri, *bounds)) for bounds in ranges[1:]]
        try:
            low, c_low, high, c_high = ranges[0]
            segments = [_walk(connection, (low, high), (c_low, c_high))]
        finally:
            found = [(bounds, _segment_of(child)) for bounds, child in children]
        for (low, c_low, high, c_high), segment in found:  # a child that failed to run at all
            segments.append(segment or _walk(connection, (low, high), (c_low, c_high)))
        problems = _stitch(segments) + _journal_problems(connection)
        for segment in segments:
            problems += segment.problems
        if not all(segment.in_step for segment in segments):
            problems += _command_problems(connection)
        return sum(segment.checked for segment in segments), problems
    finally:
        connection.close()


def _start_segment(uri: str, low: int, commands_low: int, high: int, commands_high: int
                   ) -> subprocess.Popen[bytes] | None:
    """A child interpreter walking one segment (the hashing holds the GIL: threads would
    take turns). A plain subprocess, not :mod:`multiprocessing`, whose spawned children
    re-run the caller's main script."""
    package_root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
    if not sys.executable:  # an embedded interpreter: no child to start
        return None
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "events.store_verify", uri, str(low), str(high),
             str(commands_low), str(commands_high)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    except OSError:
        return None


def _segment_of(child: subprocess.Popen[bytes] | None) -> Segment | None:
    """The segment a child walked (``None`` if it could not run: the parent walks it); the
    child's SQLite error raised here as the parent's own."""
    if child is None:
        return None
    out, _ = child.communicate()
    if child.returncode != 0:
        return None
    found = _SEGMENT_DECODER.decode(out)
    if isinstance(found, str):
        raise sqlite3.DatabaseError(found)
    return found


def _child_main(argv: list[str]) -> None:
    uri, *numbers = argv
    low, high, commands_low, commands_high = (int(n) for n in numbers)
    try:  # msgpack, typed on the way back: plain data, never a pickle
        found: Segment | str = walk_segment(uri, low, high, commands_low, commands_high)
    except sqlite3.DatabaseError as error:
        found = str(error)
    sys.stdout.buffer.write(msgspec.msgpack.encode(found))


if __name__ == "__main__":
    _child_main(sys.argv[1:])
