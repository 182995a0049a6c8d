"""The logs ``log_scale.py`` measures: written straight into SQLite, with their snapshots.

For each size, one narrative campaign of that many events or 100 campaigns sharing them,
appended with the store's own ``append_batch`` (hash chain and command index included; ten
rolls per command), :data:`BATCH` commands at a time as a busy server's committer does, then
the state snapshots a running server would have stored (:func:`store_snapshots`, sealed with
the key the server derives from :data:`ADMIN`). :func:`prepared_log` builds one under a cache
directory, or finds it there.

Building a log is a job apart from measuring a server on it, so it has its own module;
``log_scale.py`` keeps ``CACHE`` and a ``prepared_log(events, campaigns, fresh)`` of its own,
because ``log_scale.py --against`` of a later revision builds this revision's logs by calling
exactly those (its ``BUILD_CHILD``).
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

from poolhall.events import core
from poolhall.events.dice import RolledTerm
from poolhall.events.log import AppendRequest, prepare
from poolhall.events.sqlite_backend import SqliteLog, SqliteReader
from poolhall.server.auth import hash_token
from poolhall.server.rules.base import ADMIN_MEMBER
from poolhall.server.rules.core import open_campaign
from poolhall.server.stored_snapshots import SnapshotStore, fold_from, seal_key

__all__ = ["ADMIN", "MEMBERS", "SNAPSHOT_EVERY", "build", "member_token", "prepared_log",
           "store_snapshots"]

ADMIN = "ph_bench-admin-token-0123456789abcdef"
AT = "2026-01-01T00:00:00.000Z"
PER_COMMAND = 10
BATCH = 2000
MEMBERS = 100
SNAPSHOT_EVERY = 1000


def member_token(campaign: str, k: int) -> str:
    return f"ph_bench-{campaign}-{k}-0123456789abcdef0123456789abcdef"


def build(db: Path, events: int, campaigns: int) -> None:
    """``campaigns`` narrative campaigns ``c-<k>`` sharing ``events`` events (rolls, after a GM
    and :data:`MEMBERS` players in the first), interleaved in the log as a busy server
    writes them."""
    rng = random.Random(1)
    log = SqliteLog(db)
    batches = _Batches(log, [f"c-{k}" for k in range(campaigns)])
    heads = batches.heads
    try:
        for campaign in heads:
            batches.add(campaign, open_campaign(
                core.CreateCampaign(id="create", name=campaign, system="narrative"),
                campaign, hash_token(member_token(campaign, 0))), ADMIN_MEMBER)
            for k in range(1, MEMBERS if campaigns == 1 else 2):
                batches.add(campaign, [core.MemberInvited(
                    member=f"p{k}", name=f"Player {k}", role="player",
                    token_hash=hash_token(member_token(campaign, k)))])
        per_campaign = events // campaigns
        while True:
            behind = [c for c, head in heads.items() if head < per_campaign]
            if not behind:
                break
            for campaign in behind:
                batches.add(campaign, _rolls(rng, min(PER_COMMAND, per_campaign - heads[campaign])))
        batches.flush()
    finally:
        log.close()


class _Batches:
    """Commands' events appended :data:`BATCH` commands at a time, as a busy server's
    committer does, each campaign's head kept."""

    def __init__(self, log: SqliteLog, campaigns: list[str]) -> None:
        self.log = log
        self.heads = dict.fromkeys(campaigns, 0)
        self.batch: list[AppendRequest] = []
        self.counter = 0

    def add(self, campaign: str, new_events: list[Any], actor: str = "gm") -> None:
        self.counter += 1
        self.batch.append(AppendRequest(campaign=campaign, expected_head=self.heads[campaign],
                                        actor=actor, command_id=f"setup-{self.counter}", at=AT,
                                        events=tuple(prepare(event) for event in new_events)))
        self.heads[campaign] += len(new_events)
        if len(self.batch) >= BATCH:
            self.flush()

    def flush(self) -> None:
        for result in self.log.append_batch(self.batch):
            if isinstance(result, Exception):
                raise result
        self.batch.clear()


def _rolls(rng: random.Random, count: int) -> list[Any]:
    """``count`` rolls of 2d6, drawn from ``rng`` (seeded: every build is the same log)."""
    rolled: list[Any] = []
    for _ in range(count):
        faces = (rng.randint(1, 6), rng.randint(1, 6))
        rolled.append(core.DiceRolled(expression="2d6", terms=(RolledTerm(sides=6, faces=faces),),
                                      total=sum(faces)))
    return rolled


def store_snapshots(db: Path) -> None:
    """Store every campaign's snapshots as a running server would have (those already stored
    by this code are kept: then it costs a read and at most 1,000 events per campaign).

    They are sealed with the key the server derives from :data:`ADMIN` (unsealed, the server
    distrusts and refolds every one on a campaign's first join, and the join figures measure
    that instead); the reader is closed before the log is renamed into the cache, so that its
    WAL is checkpointed into the file rather than left behind under the old name."""
    reader = SqliteReader(db)
    try:
        store = SnapshotStore(db, seal_key(ADMIN))
        for campaign in reader.campaigns():
            fold_from(reader, store, campaign, every=SNAPSHOT_EVERY)
    finally:
        reader.close()


def prepared_log(cache: Path, events: int, campaigns: int, fresh: bool
                 ) -> tuple[Path, float, float]:
    """The log cached in ``cache`` (built if missing); seconds to write it and to store its
    snapshots (0 when it came from the cache)."""
    cache.mkdir(exist_ok=True)
    db = cache / f"log-{events}-{campaigns}.db"
    if db.exists() and not fresh:  # snapshots of an older fingerprint are stored again
        started = time.perf_counter()
        store_snapshots(db)
        return db, 0.0, time.perf_counter() - started
    building = db.with_suffix(".building")  # renamed once complete: no half-built cache
    for path in (db, building):
        for suffix in ("", "-wal", "-shm", ".admin-token"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    started = time.perf_counter()
    build(building, events, campaigns)
    written = time.perf_counter() - started
    started = time.perf_counter()
    store_snapshots(building)
    snapshotted = time.perf_counter() - started
    building.rename(db)
    return db, written, snapshotted
