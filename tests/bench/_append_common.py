"""What the parts of ``append_rate.py`` share: the command they append and the logs they start from.

Every part writes the same one-roll command (:data:`ROLL`, :func:`request`, with ids random as
a client's, :func:`random_ids`), prints a run's rate second by second the same way
(:func:`seconds_line`) and removes its SQLite file with its WAL (:func:`remove_db`). The
committer's ``--prefill`` and ``verify`` start from logs built once and cached
(:func:`build_log`, :func:`cached_log`). They are here, apart from the parts, so that
``_raw_sqlite.py``, ``_append_verify.py`` and ``append_rate.py`` share one copy.

``append_rate.py`` imports this module after it has put the checkout under measure first on
``sys.path`` (its ``--against`` children run another checkout's code): so this module never
touches ``sys.path``, and its ``poolhall`` is that checkout's.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from itertools import chain, repeat
from pathlib import Path
from typing import Any

from poolhall.events import core
from poolhall.events.dice import RolledTerm
from poolhall.events.log import AppendRequest, PreparedEvent, prepare
from poolhall.events.sqlite_backend import SqliteLog

__all__ = ["AT", "LOOKED_UP", "ROLL", "build_log", "cached_log", "random_ids",
           "remove_db", "request", "seconds_line"]

LOOKED_UP = "id_looked_up" in AppendRequest.__struct_fields__
"""Whether the checkout's requests carry the older store's ``id_looked_up`` mark."""

AT = "2026-01-01T00:00:00.000Z"


def _roll() -> PreparedEvent:
    faces = (3, 5)
    return prepare(core.DiceRolled(expression="2d6", terms=(RolledTerm(sides=6, faces=faces),),
                                   total=sum(faces)))


ROLL = _roll()


def request(campaign: str, head: int, n: int, *, random_id: bool = True,
            command_id: str | None = None, looked_up: bool = False) -> AppendRequest:
    """A one-roll command; its id random like a real client's (``c-`` and 16 hex digits), so
    that an index on the ids takes its inserts where a server's would, all over the tree.
    ``looked_up``: marked as a hub marks its requests (it looked the id up before deciding)."""
    if command_id is None:
        command_id = f"c-{secrets.token_hex(8)}" if random_id else f"c{n:09d}"
    marked: dict[str, Any] = {"id_looked_up": looked_up} if LOOKED_UP else {}
    return AppendRequest(campaign=campaign, expected_head=head, events=(ROLL,), actor="gm",
                         command_id=command_id, at=AT, **marked)


def _id_block(_: object = None) -> list[str]:
    block = secrets.token_hex(8 * 512)
    return [f"c-{block[start:start + 16]}" for start in range(0, len(block), 16)]


def random_ids() -> Iterator[str]:
    """Random ids as clients make them, drawn 512 at a time: the load generator's cost (a
    ``token_hex`` call each, a system call, was a tenth of the committer run's CPU) is not
    the server's. Handed out by C iterators (a generator's resumption per id was 7% of the
    event loop's time in a run against a log that stores nothing)."""
    return chain.from_iterable(map(_id_block, repeat(None)))


def seconds_line(by_second: list[float]) -> str:
    """A run's events/s second by second, on a line of its own (for runs of 2 s or more)."""
    if len(by_second) < 2:
        return ""
    return "\n  second by second: " + " ".join(f"{rate / 1000:.0f}k" for rate in by_second)


def remove_db(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def build_log(path: Path, events: int, campaigns: int, *, committer: bool = False) -> None:
    """``events`` one-event commands over ``campaigns`` campaigns, interleaved one by one.

    For ``verify``: campaigns ``campaign-<k>``, ordered command ids (quicker to build, and
    all the same to verify). For ``--prefill`` (``committer``): the committer runs'
    campaigns ``s<k>``, random ids as clients make them, and each batch followed by the
    housekeeping the group committer does between two commits (the command index's merges),
    so the file is as a server leaves it."""
    partial = path.with_name(path.name + ".partial")
    remove_db(partial)
    log = SqliteLog(partial)
    heads = [0] * campaigns
    ids = random_ids() if committer else None
    batch: list[AppendRequest] = []
    for n in range(events):
        k = n % campaigns
        batch.append(request(f"s{k}" if committer else f"campaign-{k}", heads[k], n,
                             random_id=False, command_id=None if ids is None else next(ids)))
        heads[k] += 1
        if len(batch) == 2000 or n == events - 1:
            for result in log.append_batch(batch):
                if isinstance(result, Exception):
                    raise result
            batch.clear()
            while committer and log.has_housework:
                log.housekeeping()
            if n % 100_000 < 2000:
                log.checkpoint()  # keep the WAL short (a 1 GB WAL slowed the build)
    log.checkpoint()
    log.close()
    partial.rename(path)


def cached_log(cache: Path, events: int, campaigns: int, *, committer: bool = False) -> Path:
    """A log of :func:`build_log`, built once and kept in ``cache``, keyed by its shape.

    The committer's is opened and closed once by this code's writer before it is used, so
    that one an older release built is brought to this release's layout here, not at the
    open of each run's copy (whose rewrite then burdened the timed run with its WAL)."""
    path = cache / f"{'committer' if committer else 'verify'}-{campaigns}x{events}.db"
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        print(f"  (building {path}: {events:,} events, once)", flush=True)
        build_log(path, events, campaigns, committer=committer)
        print(f"  (built in {time.perf_counter() - started:.1f} s)", flush=True)
    elif committer:
        log = SqliteLog(path)
        log.checkpoint()
        log.close()
    return path
