"""The report pages' tickets, shared by every process of a deployment.

A member asks for the post-game report over their WebSocket; the answer is a path,
``/report/<ticket>``, which the browser table opens in a new tab: a plain ``GET`` that a
proxy that is not sticky sends to any process. Kept in the memory of the process that issued
it, a ticket opened nowhere else (two requests in three failed behind three processes). So
each ticket is also a row of ``report_tickets``: what the page is of (campaign, game session,
head, the private rolls sealed for its reader) and until when it may be opened. Any process
finds it there and makes the page from the log; the one that sends the page spends the ticket
by deleting its row, so a ticket still opens once only, whichever processes are asked.

Only the ticket's SHA-256 is stored: a reader of the database cannot open a report with it.
The table is ``UNLOGGED``: a ticket lives a minute, and one lost with a crash of the database
is asked for again. The times are the database's (``now()``), one clock for every process.
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from typing import Any, Protocol

import psycopg

from poolhall.events.errors import StoreError
from poolhall.events.log_contract import TicketJob
from poolhall.events.postgres_backend.database import reason

__all__ = ["PostgresReportTickets"]


class _Pool(Protocol):
    def connection(self) -> AbstractContextManager[psycopg.Connection[Any]]: ...


class PostgresReportTickets:
    """:class:`~poolhall.events.log_contract.ReportTickets` in table ``report_tickets``."""

    def __init__(self, pool: _Pool) -> None:
        self._pool = pool

    def _run(self, what: str, query: str, params: list[Any]) -> list[tuple[Any, ...]]:
        try:
            with self._pool.connection() as connection:
                cursor = connection.execute(query.encode(), params)
                return cursor.fetchall() if cursor.description else []
        except psycopg.Error as error:
            raise StoreError(f"cannot {what} a report ticket: {reason(error)}") from None

    def issue(self, ticket_hash: str, job: TicketJob, seconds: float) -> None:
        """Store a ticket good for ``seconds`` (and drop the tickets that expired)."""
        self._run("drop expired", "DELETE FROM report_tickets WHERE expires < now()", [])
        self._run("store", "INSERT INTO report_tickets (ticket, campaign, session, head, hidden,"
                  " expires) VALUES (%s, %s, %s, %s, %s, now() + %s * interval '1 second')",
                  [ticket_hash, job.campaign, job.session, job.head,
                   json.dumps([list(pair) for pair in job.hidden]), seconds])

    def find(self, ticket_hash: str) -> TicketJob | None:
        """What the ticket is for, unless it was spent or expired."""
        rows = self._run("read", "SELECT campaign, session, head, hidden::text FROM"
                         " report_tickets WHERE ticket = %s AND expires > now()",
                         [ticket_hash])
        if not rows:
            return None
        campaign, session, head, hidden = rows[0]
        return TicketJob(str(campaign), None if session is None else int(session), int(head),
                         tuple((int(seq), str(visibility))
                               for seq, visibility in json.loads(hidden)))

    def extend(self, ticket_hash: str, seconds: float) -> None:
        """Keep the ticket at least ``seconds`` more (its page is still being made)."""
        self._run("extend", "UPDATE report_tickets SET expires = greatest(expires, now() + %s"
                  " * interval '1 second') WHERE ticket = %s", [seconds, ticket_hash])

    def spend(self, ticket_hash: str) -> bool:
        """Spend the ticket: whether it was there to spend (not spent, not expired)."""
        return bool(self._run("spend", "DELETE FROM report_tickets WHERE ticket = %s AND"
                              " expires > now() RETURNING 1", [ticket_hash]))
