"""``poolhall verify``'s check of the stored snapshots: each one equal to a fold of the log.

The server reads a stored snapshot only when its chain hash is the log's at that event and
its seal is the server's (:func:`poolhall.server.stored_snapshots.trusted_latest`). The seal's key
is derived from the admin token, which ``verify`` does not hold (nor should it need to: it reads
a copy of the file anywhere). So ``verify`` checks the rows the other way: it folds the log
of every campaign that has snapshots and compares each row written by this code with the fold
at its seq, field by field; a row edited in place (a player's role made ``gm``) differs. A row
of other code (another fingerprint) is never read by the server and is not compared.

Reads the file only, as the rest of ``verify`` does; the fold of a campaign runs
up to its last snapshot and keeps one bounded state, whatever the log's length. A file with no
stored snapshot (a log shorter than ``--snapshot-every``) imports none of the fold: the fold's
modules and the fingerprint (made from the stored types' JSON Schema at import) were a fifth
of ``verify``'s start.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from poolhall.events.log import ChainProblem, recorded_or_problem
from poolhall.events.sqlite_backend import SqliteReader
from poolhall.events.sqlite_backend.snapshots import read_only_rows

if TYPE_CHECKING:
    from poolhall.server.stored_snapshots import StoredRow

__all__ = ["snapshot_problems"]


def snapshot_problems(path: str | Path) -> tuple[int, list[ChainProblem]]:
    """How many stored snapshots of the file were compared with a fold of its log, and each
    one that differs (its campaign, its seq and what differs)."""
    found = read_only_rows(path)
    if not found:
        return 0, []
    from poolhall.server.stored_snapshots import StoredRow, fingerprint  # the fold's types

    current = fingerprint()
    rows: dict[str, list[StoredRow]] = defaultdict(list)
    for row in map(StoredRow._make, found):
        if row.fingerprint == current:
            rows[row.campaign].append(row)
    reader = SqliteReader(path)
    problems: list[ChainProblem] = []
    checked = 0
    try:
        for campaign, stored in sorted(rows.items()):
            checked += len(stored)
            problems += _campaign_problems(reader, campaign, stored)
    finally:
        reader.close()
    return checked, problems


def _campaign_problems(reader: SqliteReader, campaign: str,
                       stored: list[StoredRow]) -> list[ChainProblem]:
    """Fold ``campaign``'s log once, comparing each of its rows (in seq order) on the way."""
    from poolhall.projections.campaign import evolve, new_state

    problems: list[ChainProblem] = []
    state = new_state()
    head_hash = ""
    pending = iter(stored)
    row = next(pending, None)
    events = reader.rows(campaign, 0, stored[-1].seq)
    while row is not None:
        while state.head < row.seq:
            event = next(events, None)
            if event is None:
                break
            recorded = recorded_or_problem(event)
            if isinstance(recorded, str):  # reported with the rolls' problems
                return [*problems, ChainProblem(campaign, event.seq, "the stored snapshots"
                                                " from here on were not compared: the event"
                                                " does not decode")]
            evolve(state, recorded)
            head_hash = event.hash
        problem = _compare(row, state, head_hash)
        if problem:
            problems.append(ChainProblem(campaign, row.seq, problem))
        row = next(pending, None)
    return problems


def _compare(row: StoredRow, state: Any, head_hash: str) -> str:
    """What is wrong with ``row`` against the fold ``state`` (at ``head_hash``), or ``""``."""
    from poolhall.server.stored_snapshots import decode_state

    if state.head < row.seq:
        return (f"stored snapshot at #{row.seq}, but the log ends at #{state.head}: the row "
                "is of another log, or events were dropped")
    if row.head_hash != head_hash:
        return ("stored snapshot's chain hash is not the log's at that event: it was taken "
                "from another log, or the log was changed below it")
    try:
        stored = msgspec.to_builtins(decode_state(row.state))
    except (msgspec.DecodeError, msgspec.ValidationError, TypeError, ValueError) as error:
        return f"stored snapshot cannot be read: {error}"
    folded = msgspec.to_builtins(state)
    differ = sorted(key for key in folded.keys() | stored.keys()
                    if folded.get(key) != stored.get(key))
    if differ:
        return (f"stored snapshot differs from the fold of the log in {', '.join(differ)}: "
                "it was edited (the server would have believed it)")
    return ""
