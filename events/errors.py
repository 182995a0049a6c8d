"""The exception tree of poolhall.

::

    PoolhallError                  root: catch this to catch anything poolhall raises
    ├── NotationError              a dice expression that does not parse or breaks a limit
    ├── Rejected                   a command refused (stable code, plain message, field path)
    │   └── CommandRejected        the client's view of an ``error`` answer from the server
    ├── StoreError                 the event log could not do what was asked
    │   ├── ConcurrencyError       an append expected another head sequence (optimistic lock)
    │   ├── ChainBroken            ``verify`` found an edited, dropped or reordered event
    │   ├── NotALog                the database named is no poolhall log (or no name of one)
    │   └── DatabaseUnreachable    the database server cannot be reached or will not let us in
    └── ConnectionLost             the client gave up reconnecting
        ├── HistoryDiverged        the server's log lacks events the client holds: no resume
        └── RejoinRefused          the server refused the rejoin for good (a removed member)

Messages are short and exact and begin in lowercase, like those of the websockets library;
the game's abbreviations keep their capitals (GM, DT, CON, CHA), as players write them and
the page and the rules show them: "the gm sets the dt" read as a typo at the table.
"""

from __future__ import annotations

from typing import Literal

__all__ = [
    "ChainBroken",
    "CommandRejected",
    "ConcurrencyError",
    "ConnectionLost",
    "DatabaseUnreachable",
    "ErrorCode",
    "HistoryDiverged",
    "NotALog",
    "NeedsCharacter",
    "NoAnswer",
    "NotationError",
    "PoolhallError",
    "Rejected",
    "RejoinRefused",
    "StoreError",
]


class PoolhallError(Exception):
    """Root of every exception poolhall raises on purpose."""


class NotationError(PoolhallError):
    """A dice expression could not be read; ``position`` is where reading stopped."""

    def __init__(self, message: str, position: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.position = position


class NeedsCharacter(NotationError):
    """The notation is a character's test and names none: the caller may give the one
    character the roller plays (``poolhall roll`` and the server both do) or ask for one."""


ErrorCode = Literal[
    "already_joined",  # a second join on one connection
    "conflict",  # the state moved meanwhile, or the command id was used for another command
    "diverged",  # the client's copy of the log is not the server's history
    "forbidden",  # the member's role or characters do not allow it
    "internal",  # a bug in the server; the command changed nothing
    "invalid",  # a field's value is not acceptable here (the path names it)
    "malformed",  # not JSON, or not a message of the protocol
    "not_found",  # no such campaign, member, character, check or test
    "not_joined",  # a command before a join
    "rate_limited",  # too many messages; retry after ``retry_after`` seconds
    "rule",  # the game's rules do not allow it (the message cites the rule)
    "shutting_down",  # the server is stopping; reconnect in a moment
    "too_large",  # a frame or a value above its limit
    "too_many_connections",  # the server or the member has too many connections
    "unauthorized",  # the token is not one the server issued, or was revoked
    "unavailable",  # the log could not be read or written; nothing changed
    "unknown_type",  # a message type the server does not know
    "wrong_system",  # a command of another game system than the campaign's
]
"""Every ``code`` of an ``error`` answer: stable and machine-readable, enumerated in the JSON
Schema. A new code is added here (the type checker then accepts it at the ``Rejected``)."""


class Rejected(PoolhallError):
    """A command was refused and changed nothing.

    ``code`` is stable and machine-readable (``forbidden``, ``invalid``, ``rule`` ...),
    ``message`` is for people, ``path`` is the JSON path of the field at fault (``$.count``).
    ``retry_after`` (seconds) is set when the same message will be accepted after a wait
    (``rate_limited``).
    """

    def __init__(self, code: ErrorCode, message: str, path: str | None = None, *,
                 retry_after: float | None = None) -> None:
        super().__init__(f"{code}: {message}" + (f" (at {path})" if path else ""))
        self.code = code
        self.message = message
        self.path = path
        self.retry_after = retry_after


class CommandRejected(Rejected):
    """The server answered a command with ``error``; raised by the client's ``send``."""


class StoreError(PoolhallError):
    """The event log failed to read or append."""


class ConcurrencyError(StoreError):
    """An append expected a head sequence that is no longer the head."""


class ChainBroken(StoreError):
    """The hash chain of a campaign does not hold: an event was edited, dropped or moved."""


class NotALog(StoreError):
    """What ``--db`` names is no poolhall log: a malformed URL, no such file, a file that is
    not SQLite, a database without the log's tables.

    The command line's mistake (``poolhall`` exits 2), told apart from a database that is
    there but cannot be reached (:class:`DatabaseUnreachable`, exit 3) or that refuses (a
    plain :class:`StoreError`, exit 1): see docs/reference/cli-conventions.md.
    """


class DatabaseUnreachable(StoreError):
    """The database server named by a well-formed URL could not be reached, or would not let
    this process in: it is not running, the host is unknown, the password is wrong, the
    database does not exist (``poolhall`` exits 3, as for a poolhall server it cannot reach).
    """


class ConnectionLost(PoolhallError):
    """The client lost its connection and could not resume it."""


class NoAnswer(PoolhallError, TimeoutError):
    """A command or a read got no answer within the client's timeout, although the client
    checked its link and reconnected when it found it dead; the message says what was not
    answered and where the connection stood.

    A :class:`TimeoutError` (what the client raised before it said why). A command so
    unanswered may have been applied: sending it again with the same ``id`` (and
    ``retry_key``) gets its answer without applying it twice.
    """

    def __init__(self, message: str, where: str) -> None:
        super().__init__(message)
        self.where = where
        """Where the connection stood, in words ("the connection was lost (the server is not
        answering) and is not back yet"): the CLI says it in its own sentence."""


class HistoryDiverged(ConnectionLost):
    """The server's history is not the one the client holds, so the client will not resume.

    The server answered ``diverged``: it no longer has events the client folded (its log
    lost acknowledged events, or it was restored from an older copy), or its event at the
    client's position has another hash. Resuming would fold new events onto a history the
    server does not have; the client stops instead, keeping the state it had. ``message``
    is the server's, with both positions.
    """

    def __init__(self, message: str) -> None:
        super().__init__(f"history diverged: {message}")
        self.message = message


class RejoinRefused(ConnectionLost):
    """The server refused to let the client rejoin after a drop, for good: the member was
    removed, or the token revoked, while the client was connected.

    Not a network problem: the server answered, and retrying would get the same answer. A
    caller tells a refusal (``refusal``, the server's code, message and path) from a server
    it could not reach (``poolhall watch`` exits 1 for it, not 3).
    """

    def __init__(self, refusal: CommandRejected) -> None:
        super().__init__(f"rejoin refused: {refusal}")
        self.refusal = refusal
