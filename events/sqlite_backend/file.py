"""Opening the log's file: for writing (the one-server lock, open errors in plain words), and
for reading without changing it (:func:`read_only_uri`).

Apart from :mod:`poolhall.events.sqlite_backend.log` so that the log keeps to appending.
"""

from __future__ import annotations

import fcntl
import logging
import os
import sqlite3
import stat
from pathlib import Path

from poolhall.events.errors import NotALog, StoreError

__all__ = ["open_error", "read_only_uri", "warn_if_shared", "writer_lock"]

logger = logging.getLogger("poolhall.events.sqlite_backend")


def open_error(path: Path, error: sqlite3.Error) -> StoreError:
    """The real reason a log could not be opened, in plain words.

    SQLite reports a full disk or an unwritable file while the schema is first written; calling
    each of those "not a SQLite database" sent operators looking for corruption.
    """
    name = getattr(error, "sqlite_errorname", "") or ""
    if name.startswith("SQLITE_FULL"):
        return StoreError(f"no space left on the disk to write {path} ({error})")
    if name.startswith("SQLITE_IOERR"):
        return StoreError(f"cannot write {path} ({error}): is its disk full, read-only or"
                          " failing?")
    if name.startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_AUTH",
                        "SQLITE_BUSY", "SQLITE_LOCKED")):
        return StoreError(f"cannot write {path} ({error})")
    if name.startswith("SQLITE_NOTADB"):
        return NotALog(f"{path} is not a SQLite database ({error})")
    return StoreError(f"cannot open {path} as a log ({error})")


def writer_lock(path: Path) -> int:
    """Lock ``path`` for this process's writer: an open descriptor holding an exclusive flock.

    ``flock`` locks are apart from the POSIX locks SQLite takes on the same file, so this lock
    never blocks SQLite's own readers and writers; it only stops a second poolhall server.
    This open is also what creates a new log: owner-readable only (0600), before SQLite sees
    it, since the log holds the token hashes and the sealed tokens.
    """
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as error:
        raise StoreError(f"cannot open {path}: {error.strerror or error}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        try:  # shared, so held by readers (read_only_uri), not by a server
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StoreError(f"{path} is already open for writing by another poolhall"
                             " server; one server per database") from None
        else:
            raise StoreError(f"{path} is being read by poolhall verify, which keeps it"
                             " unchanged while it reads; serve it once verify is done"
                             ) from None
        finally:
            os.close(fd)
    return fd


def read_only_uri(path: Path) -> tuple[str, int | None]:
    """The ``file:`` URI a reader opens ``path`` by, and the descriptor holding its shared
    lock on the file (``None`` when it holds none), to close once the reader is done.

    SQLite reads a WAL-mode file read-only (``mode=ro``) through its -wal and -shm files and,
    when they are not there, creates both beside it: a ``verify`` of a backup copy left a
    ``-shm`` and an empty ``-wal`` beside evidence that had neither. It reads such a file
    without them only as ``immutable=1`` (no locks, no -wal), which is right only for a file
    nothing writes while it is read. So the reader takes a shared ``flock``, the lock a
    server takes exclusively to write (:func:`writer_lock`):

    - held, with no -wal beside the file: no server has the file open (a server's -wal
      stays while it runs, and every committed event is in the file once it is gone) and
      none can open it until the reader is done: ``immutable=1``, and nothing is created;
    - refused (a server is writing the file), or a -wal there (a copy taken with its -wal,
      or one a crash left): plain ``mode=ro``, through the -wal and -shm, so every event
      committed is read, as SQLite reads a file being written.
    """
    uri = f"{path.resolve().as_uri()}?mode=ro"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return uri, None  # SQLite's own open says why
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:  # a server holds it (or the file system has no flock)
        os.close(fd)
        return uri, None
    if path.with_name(path.name + "-wal").exists():
        os.close(fd)
        return uri, None
    return f"{uri}&immutable=1", fd


def warn_if_shared(path: Path, fd: int) -> None:
    """Warn (once per open) if a log made before it was created 0600 is readable by others.

    Its mode is the operator's to change (a backup group may read it on purpose); the warning
    says what others can read. Called once the file has opened as a log: a file that is not
    one (a text file named by mistake) is refused alone, not first warned about as if it held
    token hashes.
    """
    mode = stat.S_IMODE(os.fstat(fd).st_mode)
    if mode & 0o077:
        logger.warning("%s is readable by other users (mode %04o): it holds token hashes,"
                       " sealed tokens and the fair rolls' unrevealed seeds (whoever reads"
                       " them can work out the coming dice); `chmod 600` it and its -wal and"
                       " -shm files unless that is intended", path, mode)
