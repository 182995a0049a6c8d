"""The CLI's exit codes and its errors: one line and an exit code, never a traceback.

Apart from :mod:`poolhall.clients.cli_support` (which re-exports them) so that the modules it
calls on (:mod:`poolhall.clients.cli_answers`, :mod:`poolhall.clients.replay_link_cli`) can
raise them without importing it back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from poolhall.events.errors import PoolhallError

if TYPE_CHECKING:
    from poolhall.events.errors import ConnectionLost, Rejected, StoreError

__all__ = ["EXIT_DIVERGED", "EXIT_OK", "EXIT_REFUSED", "EXIT_UNCONFIRMED", "EXIT_UNREACHABLE",
           "EXIT_USAGE", "CliError", "connection_lost", "database_error"]

EXIT_OK, EXIT_REFUSED, EXIT_USAGE, EXIT_UNREACHABLE, EXIT_DIVERGED = 0, 1, 2, 3, 4
EXIT_UNCONFIRMED = 5
"""A command was sent and no answer came, through reconnects, within ``--timeout``: it may
have been applied (the line says how to find out). Not 3: a script that retries on 3 with a
new command would roll twice."""

_CODES = {EXIT_REFUSED: "refused", EXIT_USAGE: "usage", EXIT_UNREACHABLE: "unreachable",
          EXIT_DIVERGED: "diverged", EXIT_UNCONFIRMED: "unconfirmed"}


class CliError(PoolhallError):
    """A problem the CLI reports in one line and an exit code, without a traceback.

    With ``--json`` it is printed as ``{"error": code, "message": ..., "path": ...}`` on
    standard output instead: the server's code and path for a refusal, else ``usage``,
    ``refused``, ``unreachable`` or ``unconfirmed`` after the exit code; ``more`` adds keys
    (an unconfirmed command's ``id`` and ``command``).
    """

    def __init__(self, message: str, exit_code: int = EXIT_USAGE, code: str | None = None,
                 path: str | None = None, plain: str | None = None,
                 more: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.code = code or _CODES.get(exit_code, "error")
        self.path = path
        self.plain = plain or message
        """The message alone, without the code and path the line for people repeats."""
        self.more = more or {}

    @classmethod
    def refused(cls, refusal: Rejected, lead: str | None = None,
                exit_code: int = EXIT_REFUSED) -> CliError:
        """The CLI's line for a refusal: ``refused CODE: message (at PATH)``, or ``lead``."""
        where = f" (at {refusal.path})" if refusal.path else ""
        return cls(f"{lead or 'refused ' + refusal.code}: {refusal.message}{where}", exit_code,
                   refusal.code, refusal.path, refusal.message)

    def as_json(self) -> dict[str, Any]:
        """The error as ``--json`` prints it."""
        return {"error": self.code, "message": self.plain, "path": self.path, **self.more}


def connection_lost(lost: ConnectionLost | None, doing: str) -> CliError:
    """The line for a client that stopped: exit 4 if the server's history diverged, 1 if it
    refused the rejoin, else 3.

    A diverged history is not a network problem to retry: the server lost events this
    client had seen, and the people running it need to know (docs/how-to/backup-and-restore.md).
    A refused rejoin (the member was removed) is not one either: the server answered, with
    its code, which ``--json`` passes on.
    """
    from poolhall.events.errors import HistoryDiverged, RejoinRefused

    if isinstance(lost, HistoryDiverged):
        return CliError(f"history diverged, {doing}: {lost.message}; the server lost events "
                        "it had acknowledged (see \"Back up and restore\" in the docs)",
                        EXIT_DIVERGED, "diverged", None, lost.message)
    if isinstance(lost, RejoinRefused):
        refusal = lost.refusal
        return CliError(f"{doing}: {lost}", EXIT_REFUSED, refusal.code, refusal.path,
                        refusal.message)
    return CliError(f"{doing}: {lost}", EXIT_UNREACHABLE)


def database_error(error: StoreError) -> CliError:
    """The line for a database a command could not use (``serve``, ``verify``, ``migrate``
    agree): exit 2 when ``--db`` names no poolhall log (a malformed URL, no such file, a file
    that is not one), 3 when the database cannot be reached or will not let us in (down, an
    unknown host, a wrong password, no such database), else 1 (it refuses: another server
    holds the file, the disk is full).

    A database that is down is not a typo to fix in the command, nor a refusal to argue
    with: a script retries on 3, as it does for a poolhall server it cannot reach.
    """
    from poolhall.events.errors import DatabaseUnreachable, NotALog

    code = EXIT_USAGE if isinstance(error, NotALog) else \
        EXIT_UNREACHABLE if isinstance(error, DatabaseUnreachable) else EXIT_REFUSED
    return CliError(str(error), code)
