"""The ``poolhall`` commands that need no server: verify, migrate and schema.

Apart from :mod:`poolhall.clients.table_cli` so that they import neither asyncio nor websockets nor
the client; each imports the store or the schema's types when it runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from poolhall.clients import cli_support as common
from poolhall.clients.cli_support import emit, lines, styled

if TYPE_CHECKING:
    from rich.text import Text

__all__ = ["SCHEMA_FILE", "migrate", "schema", "schema_text", "verify"]


def verify(args: argparse.Namespace) -> int:
    """Walk every chain; recompute every face of every revealed epoch
    (:mod:`poolhall.clients.verify_rolls`); compare every stored snapshot with a fold of the log
    (:mod:`poolhall.server.snapshot_check`, for a SQLite file); check the log against the hashes
    given with ``--expect`` (:mod:`poolhall.clients.verify_expect`)."""
    from poolhall.clients.verify_expect import expectation_problems
    from poolhall.clients.verify_rolls import fair_line, fair_rolls, fair_summary
    from poolhall.events.backends import is_postgres_url, reading
    from poolhall.events.errors import StoreError
    from poolhall.server.snapshot_check import snapshot_problems

    try:  # read-only: verifying a log never changes it, even one that is being served
        with reading(args.db) as log:
            checked, chain = log.verify()
            rolls = fair_rolls(log)  # every face of every revealed epoch, recomputed
            chain += expectation_problems(log, args.expect)
        snapshots = 0
        if not is_postgres_url(args.db):
            snapshots, wrong = snapshot_problems(args.db)
            chain += wrong
    except StoreError as error:
        raise common.database_error(error) from None
    problems: list[Any] = [*chain, *rolls.problems]

    def text() -> Text:  # made only without --json: styled text imports rich
        held = f", {len(args.expect)} expected hash(es) match" if args.expect else \
            " (against no hash held elsewhere: see --expect)"
        summary = (f"{len(problems)} problem(s) in {checked} events" if problems
                   else styled("[green]ok[/green]: {} events, every hash chain holds, {} stored "
                               "snapshot(s) equal to the log{}", checked, snapshots, held))
        return lines(*(styled("[red]broken[/red] {} #{}: {}", p.campaign, p.seq, p.problem)
                       if p.campaign else styled("[red]{}[/red]", p.problem)  # the file itself
                       for p in problems), summary, fair_line(rolls))

    emit(args, {"checked": checked, "snapshots": snapshots, "expected": len(args.expect),
                "problems": problems, "rolls": fair_summary(rolls)}, text)
    return common.EXIT_REFUSED if problems else common.EXIT_OK


def migrate(args: argparse.Namespace) -> int:
    """Create the schema (or bring an older file's up to date) without serving: for operators
    who run schema changes themselves; ``serve`` does the same at start. Says what it did:
    ``migrated 349 events of 3 campaigns from the 0.1.0 layout in 0.0 s``, what else it added
    (``added the unique index commands_one_creation ...``), or ``already up to date`` (with
    ``--json``, ``migrated`` holds the counts, or ``null``)."""
    from poolhall.events.backends import migrate, safe_name
    from poolhall.events.errors import StoreError

    try:
        done, migrated = migrate(args.db, args.grant_to)
    except StoreError as error:
        raise common.database_error(error) from None
    counts = None if migrated is None else {
        "events": migrated.events, "campaigns": migrated.campaigns, "from": migrated.layout,
        "seconds": round(migrated.seconds, 3)}
    emit(args, {"database": safe_name(str(args.db)), "done": done, "migrated": counts},
         lambda: lines(f"{safe_name(str(args.db))}: {done}"))  # --json imports no rich
    return common.EXIT_OK


SCHEMA_FILE = os.path.join(os.path.dirname(__file__), "protocol-schema.json")
"""What ``poolhall schema`` prints: :func:`schema_text`, generated from the message types and
shipped beside this module (``python -m tools.protocol_schema`` writes it again).

**Decision**: shipped rather than generated at each run. Generating imports every message type
and msgspec and walks them (about 90 ms of CPU, over 60% of the command, well over the 150 ms
target on a loaded machine); printing the file takes none of it. It cannot go stale unnoticed:
``tests/clients/test_schema_file.py`` holds it equal to :func:`schema_text`, so a change to a
message type fails the suite until the file is written again, and the protocol's change shows as
a diff of this file in the same commit, where a reviewer sees what older clients will meet.
"""


def schema_text() -> str:
    """The JSON Schema of every protocol message, generated now from the types
    (:func:`poolhall.projections.snapshot.protocol_schema`), as ``poolhall schema`` prints it."""
    import json

    from poolhall.projections.snapshot import protocol_schema

    return json.dumps(protocol_schema(), indent=2) + "\n"


def schema(args: argparse.Namespace) -> int:
    """Print the protocol's JSON Schema: the shipped :data:`SCHEMA_FILE`."""
    with open(SCHEMA_FILE, encoding="utf-8") as shipped:
        sys.stdout.write(shipped.read())
    return common.EXIT_OK
