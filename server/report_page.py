"""The post-game report as a page of the browser table.

A member asks for it over their WebSocket (``report``): the answer is a path,
``/report/<ticket>``, that the page opens. The ticket is random, good for one page and for
:data:`TICKET_SECONDS`, and bound to the campaign and game session asked for, so the page gets
the report without a token ever being put in a URL (a ticket that leaks is spent or stale).
The page starts being made when the ticket is issued; the ticket is spent when the page is
sent (a browser that retries a request cut short gets the same page, once), never by a
``HEAD`` (:mod:`poolhall.server.http_methods`), which a link preview sends.

The page is the very HTML file ``poolhall report --html`` writes (:mod:`poolhall.reports.html`):
made from the log by the pure analytics fold and drawn by matplotlib, in a worker process (a report
of 100,000 events takes seconds of a core, which on the event loop would stall every table),
cached by the campaign's head. It is served with a policy of its own: no script at all, its
inline styles and data-URI images allowed, nothing from another origin, not framable.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import cast

import msgspec
from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from poolhall.events.backends import reading
from poolhall.events.base import Recorded, Visibility
from poolhall.events.core import PrivateRoll
from poolhall.events.errors import Rejected, StoreError
from poolhall.events.fair import FairStamp
from poolhall.events.log import StoredRow, to_recorded
from poolhall.events.log_contract import ReportTickets, TicketJob
from poolhall.projections.analytics import for_session, report
from poolhall.server.views import NotComputed, ViewWorkers

__all__ = ["PAGE_EVENTS", "REPORT_POLICY", "ReportPages", "TICKET_SECONDS", "build_page",
           "paged_events"]

PAGE_EVENTS = 1000
"""Events the report worker reads and decodes at once: its memory for the log, whatever the
log's length (the fold's own sums do not grow with it either)."""

logger = logging.getLogger("poolhall.server.app")  # one name for the server's lines

TICKET_SECONDS = 60.0
"""How long a report's ticket may wait before its page is opened."""
PAGE_WAIT = 4.0
"""Seconds a request for a page being made waits for it before it is answered "being made"
(202, the page reloading itself): the request is still inside the connection's handshake,
which ``--join-timeout`` bounds, and a long report must not be cut off with no answer."""
RELOAD_SECONDS = 2
"""Seconds after which a "being made" page asks again."""
TICKETS_KEPT = 1024
"""Tickets outstanding at most: the oldest is dropped past it."""
PAGES_PER_CAMPAIGN = 2
"""Different report pages of one campaign being made at once, at most: a member asking for
report after report waits (``rate_limited``) instead of filling the report worker's queue."""
REPORT_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)
"""The report runs no script: its own inline styles and SVG charts, nothing else."""


@dataclass
class _Ticket:
    expires: float
    page: asyncio.Future[dict[str, object]]
    """The page being made: started when the ticket is issued, so it is ready (or nearly)
    when the tab opens; a browser that retries the request waits for the same one."""


def paged_events(rows: Callable[[str, int, int], Iterable[StoredRow]], campaign: str,
                 head: int, page: int = PAGE_EVENTS,
                 hidden: Mapping[int, Visibility] | None = None) -> Iterator[Recorded]:
    """The campaign's events up to ``head``, read ``page`` at a time through the log's
    ``rows(campaign, after, upto)``: one page is read (in a read transaction of its own, so a
    long report never pins the log's WAL), decoded, handed on, and dropped before the next.
    The fold that consumes them holds no more than one page of events at any time.

    The ``hidden`` events (private rolls the reader may not see yet, with their visibility)
    are handed on sealed, as the reader's own client receives them (:func:`_sealed`): the
    page counts what ``poolhall report`` counts with the same token. Left out, they made the
    page's timeline an event short of the CLI's, though the reader is told a roll was made."""
    hidden = hidden or {}
    after = 0
    while after < head:
        upto = min(after + page, head)
        batch = [to_recorded(row) for row in rows(campaign, after, upto)]
        if not batch:
            return
        after = batch[-1].seq
        yield from (recorded if recorded.seq not in hidden
                    else _sealed(recorded, hidden[recorded.seq]) for recorded in batch)
        del batch


def _sealed(recorded: Recorded, visibility: Visibility) -> Recorded:
    """A private event as a member who may not see it receives it (as
    :func:`poolhall.server.audience.sealed_frame` seals its frame): its seq, time, actor and
    command, and a ``private_roll`` in place of the event, which the report counts as an event
    and judges as nothing."""
    fair = getattr(recorded.event, "fair", None)
    return msgspec.structs.replace(
        recorded, event=PrivateRoll(visibility=visibility,
                                    fair=fair if isinstance(fair, FairStamp) else None))


Job = tuple[str, str, int | None, int, tuple[tuple[int, Visibility], ...]]
"""A report page to make: database, campaign, session (``None``: all), head, and the events
its reader may not see yet with their visibility (private rolls:
:mod:`poolhall.server.audience`)."""


def build_page(job: Job) -> dict[str, object]:
    """The report page's HTML (in a worker process): the campaign's events up to ``head``
    read from the log a page at a time and folded as they come (:func:`paged_events`: the
    worker's memory does not grow with the log), drawn. ``{"html": bytes}``, or
    ``{"missing": why}``."""
    from poolhall.reports.html import render_html  # matplotlib: imported in the worker only

    database, campaign, session, head, hidden = job
    with reading(database) as reader:
        full = report(paged_events(reader.rows, campaign, head, hidden=dict(hidden)))
    if session is not None and not any(s.session == session for s in full.sessions):
        have = ", ".join(str(s.session) for s in full.sessions) or "none yet"
        return {"missing": f"no game session {session} in this campaign (its sessions: {have})"}
    return {"html": render_html(for_session(full, session), session).encode()}


class ReportPages:
    """Tickets for report pages, and the pages themselves, made by a worker.

    On a log of one process (SQLite) the tickets are kept here only. Where several processes
    share the log (PostgreSQL), each ticket is also kept in the database (:attr:`shared`,
    :mod:`poolhall.events.postgres_backend.report_tickets`): a proxy that is not sticky may
    send the tab's request, or the reload of a "being made" page, to any process, and the one
    it reaches finds the ticket there and makes the page from the log itself (the same page:
    it is made from the same events), and the database spends it once for every process.
    """

    def __init__(self, database: str, workers: ViewWorkers,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._database = database
        self._workers = workers
        self._clock = clock
        self._tickets: dict[str, _Ticket] = {}
        self._making: dict[Job, asyncio.Future[dict[str, object]]] = {}
        """Pages being made, by what they are of: the same report asked twice is made once."""
        self.shared: ReportTickets | None = None
        """The deployment's tickets, which any of its processes opens (``None``: one
        process, whose memory holds them all)."""

    async def issue(self, campaign: str, session: int | None, head: int,
                    hidden: tuple[tuple[int, Visibility], ...] = ()) -> str:
        """A path to the report of ``campaign`` (one ``session``, or all) as of ``head``
        with the ``hidden`` events sealed (private rolls its reader may not see yet, by seq
        and visibility); the page starts being made now. On a shared log the ticket is in
        the database before the path is answered, so any process opens it."""
        page = self._page_of((self._database, campaign, session, head, hidden), limit=True)
        ticket = secrets.token_urlsafe(24)
        if self.shared is not None:
            try:
                await asyncio.to_thread(self.shared.issue, _hashed(ticket),
                                        TicketJob(campaign, session, head, hidden),
                                        TICKET_SECONDS)
            except StoreError:
                logger.exception("storing a report ticket of %s failed", campaign)
                raise Rejected("unavailable", "the report link could not be stored; ask"
                               " again shortly", None) from None
        self._keep(ticket, page)
        return f"/report/{ticket}"

    def _keep(self, ticket: str, page: asyncio.Future[dict[str, object]]) -> _Ticket:
        """Hold the ticket here, with its page (the oldest dropped past :data:`TICKETS_KEPT`)."""
        now = self._clock()
        for stale in [t for t, held in self._tickets.items() if held.expires < now]:
            self._forget(stale)
        while len(self._tickets) >= TICKETS_KEPT:
            self._forget(next(iter(self._tickets)))
        held = self._tickets[ticket] = _Ticket(now + TICKET_SECONDS, page)
        return held

    def _page_of(self, job: Job, *, limit: bool) -> asyncio.Future[dict[str, object]]:
        """The page of ``job``, being made (started now unless it is already); ``limit``:
        refused past :data:`PAGES_PER_CAMPAIGN` pages of its campaign at once."""
        page = self._making.get(job)
        if page is None:
            busy = sum(1 for other in self._making if other[1] == job[1])
            if limit and busy >= PAGES_PER_CAMPAIGN:
                raise Rejected("rate_limited", "reports of this campaign are being made; ask "
                               "again in a moment", None, retry_after=5.0)
            page = asyncio.ensure_future(self._workers.compute((build_page, job)))
            self._making[job] = page
            page.add_done_callback(lambda done: self._made(job, done))
        return page

    def _made(self, job: Job,
              page: asyncio.Future[dict[str, object]]) -> None:
        self._making.pop(job, None)
        if not page.cancelled():
            page.exception()  # retrieved here: a failure is answered to whoever opens the page

    def _forget(self, ticket: str) -> None:
        self._tickets.pop(ticket)

    async def _found(self, name: str) -> _Ticket | None:
        """The ticket ``name``: held here, or issued by another process of the deployment
        (then held here from now on, its page started); ``None`` if it is spent or stale."""
        ticket = self._tickets.get(name)
        if ticket is not None and ticket.expires >= self._clock():
            return ticket
        if self.shared is None or len(name) > 64:
            return None
        job = await asyncio.to_thread(self.shared.find, _hashed(name))
        if job is None:
            return None
        hidden = tuple((seq, cast(Visibility, visibility)) for seq, visibility in job.hidden)
        page = self._page_of((self._database, job.campaign, job.session, job.head, hidden),
                             limit=True)  # a member's links opened elsewhere are capped too
        return self._keep(name, page)

    async def _spend(self, name: str) -> bool:
        """Spend the ticket here and, on a shared log, in the database: whether this request
        took it (another process may have sent its page meanwhile)."""
        held = self._tickets.pop(name, None) is not None
        if self.shared is None:
            return held
        return await asyncio.to_thread(self.shared.spend, _hashed(name))

    async def _unspent(self, name: str) -> bool:
        """Whether the ticket may still be spent (a ``HEAD``'s answer, which spends nothing):
        on a shared log the database says (another process may have spent it, and a copy
        held here may outlive the row), on one process this process's memory."""
        if self.shared is None:
            return name in self._tickets
        return await asyncio.to_thread(self.shared.find, _hashed(name)) is not None

    async def respond(self, connection: ServerConnection, request: Request) -> Response | None:
        """The page for ``/report/<ticket>`` (spent by a ``GET``; a ``HEAD`` is answered the
        same status and headers and spends nothing: a link preview must not burn the link);
        None for other paths."""
        path = request.path.partition("?")[0]
        if not path.startswith("/report/"):
            return None
        name = path.removeprefix("/report/")
        spend = request.method != "HEAD"
        try:
            return await self._respond(connection, name, spend)
        except StoreError:
            logger.exception("reading a report ticket failed")
            return _page(connection, HTTPStatus.SERVICE_UNAVAILABLE, "The report link could"
                         " not be checked now (the database did not answer); reload this"
                         " page shortly.", reload=RELOAD_SECONDS)

    async def _respond(self, connection: ServerConnection, name: str,
                       spend: bool) -> Response:
        try:
            ticket = await self._found(name)
        except Rejected:  # this process is making two pages of the campaign: later, unspent
            assert self.shared is not None  # (only a ticket of another process's is capped)
            await asyncio.to_thread(self.shared.extend, _hashed(name), TICKET_SECONDS)
            return _page(connection, HTTPStatus.ACCEPTED, "Other reports of this campaign are "
                         "being made; this page reloads itself until this one is ready.",
                         reload=RELOAD_SECONDS)
        if ticket is None:
            return _page(connection, HTTPStatus.NOT_FOUND, self._unknown())
        try:
            made = await asyncio.wait_for(asyncio.shield(ticket.page), PAGE_WAIT)
        except TimeoutError:
            ticket.expires = max(ticket.expires, self._clock() + TICKET_SECONDS)
            if self.shared is not None:  # the reload may reach another process
                await asyncio.to_thread(self.shared.extend, _hashed(name), TICKET_SECONDS)
            return _page(connection, HTTPStatus.ACCEPTED, "The report is being made; this page "
                         "reloads itself until it is ready.", reload=RELOAD_SECONDS)
        except NotComputed as why:
            if spend:
                await self._spend(name)
            return _page(connection, HTTPStatus.SERVICE_UNAVAILABLE,
                         f"The report could not be made now ({why}); try again shortly.")
        taken = await self._spend(name) if spend else await self._unspent(name)
        if not taken:  # another request took it meanwhile (here, or through another process)
            return _page(connection, HTTPStatus.NOT_FOUND, "This report link was used already:"
                         " ask the table for the report again.")
        if "missing" in made:
            return _page(connection, HTTPStatus.NOT_FOUND, str(made["missing"]))
        html = made["html"]
        assert isinstance(html, bytes)
        return _respond(connection, HTTPStatus.OK, html)

    def _unknown(self) -> str:
        """The 404 page's words for a ticket this process cannot find. On a shared log, a
        server of an earlier release serving beside this one during an upgrade keeps its
        tickets in its own memory and cannot read the ones kept in the database: its links
        fail here, and this release's there, until the last of them is stopped."""
        if self.shared is None:
            return ("This report link was used already or is too old: ask the table for the"
                    " report again.")
        return ("This report link was used already, is too old, or was made by a server of"
                " another poolhall release (while the servers are being upgraded): ask the"
                " table for the report again.")


def _hashed(ticket: str) -> str:
    """What the database keeps of a ticket: its SHA-256, so a reader of the table cannot
    open the report."""
    return hashlib.sha256(ticket.encode()).hexdigest()


def _page(connection: ServerConnection, status: HTTPStatus, message: str,
          reload: int | None = None) -> Response:
    from html import escape

    again = f"<meta http-equiv=refresh content={reload}>" if reload is not None else ""
    body = (f"<!doctype html><meta charset=utf-8>{again}<title>poolhall report</title>"
            f"<p>{escape(message)}</p>").encode()
    return _respond(connection, status, body)


def _respond(connection: ServerConnection, status: HTTPStatus, body: bytes) -> Response:
    response = connection.respond(status, "")
    for name in ("Content-Type", "Content-Length"):
        del response.headers[name]
    response.body = body
    response.headers["Content-Type"] = "text/html; charset=utf-8"
    response.headers["Content-Length"] = str(len(body))
    response.headers["Cache-Control"] = "no-store"
    response.headers["Content-Security-Policy"] = REPORT_POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
