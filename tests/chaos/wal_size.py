"""How large the WAL file grows, and what it shrinks back to, when a reader holds it open.

::

    python tests/chaos/wal_size.py [--megabytes 96]

A reader that keeps a read transaction open (a long catch-up, a backup, ``sqlite3`` left open
by an operator) stops checkpoints from resetting the WAL, so it grows with every append. When
the reader lets go, the server's checkpointer catches up; what is left on disk then is the
figure that matters. Without ``journal_size_limit`` the file kept its largest size for good.
Appends go straight to :class:`~poolhall.events.sqlite_backend.SqliteLog` (no server), so the
figures do not depend on the machine's load. Prints the sizes; asserts nothing.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from poolhall.events.log import AppendRequest, PreparedEvent  # noqa: E402
from poolhall.events.sqlite_backend import SqliteLog  # noqa: E402

MiB = 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=96, help="payload to append")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="poolhall-wal-"))
    db = work / "wal.db"
    wal = work / "wal.db-wal"
    log = SqliteLog(db)
    payload = b'{"type":"dice_rolled","note":"' + b"x" * 900 + b'"}'
    reader = sqlite3.connect(db)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM events").fetchone()  # holds its snapshot
    started = time.perf_counter()
    head, batches = 0, args.megabytes
    for batch in range(batches):
        requests = [AppendRequest(campaign="c", expected_head=head + n, actor="gm",
                                  command_id=f"b{batch}-{n}", at="2026-01-01T00:00:00.000Z",
                                  events=(PreparedEvent("dice_rolled", 1, payload),))
                    for n in range(1000)]
        log.append_batch(requests)
        head += 1000
        log.checkpoint()
    grown = wal.stat().st_size
    reader.rollback()
    reader.close()
    for _ in range(3):  # the checkpointer's next ticks, with an append between them
        log.checkpoint()
        log.append_batch([AppendRequest(
            campaign="c", expected_head=head, actor="gm", command_id=f"after-{head}",
            at="2026-01-01T00:00:00.000Z", events=(PreparedEvent("dice_rolled", 1, payload),))])
        head += 1
    print(f"appended {head:,} events ({args.megabytes} MiB of payload) in "
          f"{time.perf_counter() - started:.1f}s with a reader holding the WAL")
    print(f"WAL while the reader held it: {grown / MiB:.1f} MiB")
    print(f"WAL after the reader let go and three checkpoints: {wal.stat().st_size / MiB:.1f} MiB")
    log.close()
    for path in work.iterdir():
        path.unlink()
    work.rmdir()


if __name__ == "__main__":
    main()
