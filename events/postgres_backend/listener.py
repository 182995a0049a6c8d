"""One listening connection per process: the heads other processes appended.

Every append's transaction notifies ``<new head> <campaign>`` on the schema's channel
(:mod:`.log`); PostgreSQL delivers it to every listening session once the transaction
commits, so a head heard is durable. :class:`HeadListener` keeps one connection in a thread
of its own, ``LISTEN``\\s, and hands each ``(campaign, head)`` to ``on_head``; the caller then
reads the rows by seq (the notification carries nothing else). The same connection listens
for presence changes (:mod:`.presence`) when given ``on_presence``: each is a campaign whose
members connected through some process changed, handed to ``on_presence``.

A notification can be lost only with the connection: when it drops (the database restarted,
a network cut), ``on_lost`` is called with why, the listener reconnects with a growing pause
(at most :data:`MAX_PAUSE` seconds), and ``on_back`` is called once it listens again, so that
the caller reads the heads of everything it holds (what it missed meanwhile). A try to
reconnect that fails for another reason than the last one calls ``on_lost`` again, and logs
it: what an operator must fix is why the database refuses *now* (it does not accept
connections, a password changed), which the first drop's "server closed the connection"
does not say.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg import sql

from poolhall.events.database_names import safe_name
from poolhall.events.postgres_backend.database import channel_for, connect, reason
from poolhall.events.postgres_backend.schema import PRESENCE_CHANNEL

__all__ = ["MAX_PAUSE", "STOP_WAIT", "HeadListener"]

logger = logging.getLogger(__name__)

MAX_PAUSE = 2.0
"""Most seconds between two tries to reconnect."""

POLL = 0.5
"""Seconds the thread waits for notifications before it looks whether it should stop."""

STOP_WAIT = 5.0
"""Seconds a stop waits for the thread to end (a database that stopped answering holds it in a
statement; it is a daemon thread, left to end with the process)."""


def parse(payload: str) -> tuple[str, int] | None:
    """``(campaign, head)`` from a notification's payload, or None for one not ours."""
    head, _, campaign = payload.partition(" ")
    if not campaign or not head.isdigit():
        return None
    return campaign, int(head)


class HeadListener:
    """A thread listening for the heads appended to the log, by any process."""

    def __init__(self, url: str, *, on_head: Callable[[str, int], None],
                 on_lost: Callable[[str], None], on_back: Callable[[], None],
                 on_presence: Callable[[str], None] | None = None) -> None:
        self._url = url
        self._on_head = on_head
        self._on_presence = on_presence
        self._on_lost = on_lost
        self._on_back = on_back
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="poolhall-listener",
                                        daemon=True)
        self.listening = threading.Event()
        """Set while the connection listens (for tests and the server's health)."""
        self.reconnects = 0

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=STOP_WAIT)

    def _run(self) -> None:
        pause = 0.1
        first = True
        told = ""  # the last reason handed to on_lost while not listening
        while not self._stop.is_set():
            try:
                with connect(self._url, autocommit=True, connect_timeout=5) as conn:
                    channel = channel_for(conn)
                    conn.execute(sql.SQL("SET application_name = {}").format(
                        sql.Literal(f"poolhall listener {channel}"[:63])))
                    conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))
                    presence = channel_for(conn, PRESENCE_CHANNEL)
                    if self._on_presence is not None:
                        conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(presence)))
                    self.listening.set()
                    if not first:
                        self.reconnects += 1
                        logger.info("listening for other processes' appends again")
                        self._on_back()
                    first, pause, told = False, 0.1, ""
                    self._listen(conn, presence)
            except psycopg.Error as error:
                why = reason(error)
                if self.listening.is_set():
                    logger.warning("the listening connection to %s dropped (%s); reconnecting",
                                   safe_name(self._url), why)
                    self.listening.clear()
                    told = why
                    self._on_lost(why)
                elif not first and why != told:
                    logger.warning("cannot listen to %s again yet (%s); still trying",
                                   safe_name(self._url), why)
                    told = why
                    self._on_lost(why)
                first = False
                self._stop.wait(pause)
                pause = min(pause * 2, MAX_PAUSE)
        self.listening.clear()

    def _listen(self, conn: psycopg.Connection[Any], presence: str) -> None:
        while not self._stop.is_set():
            for notify in conn.notifies(timeout=POLL):
                if notify.channel == presence:
                    if self._on_presence is not None:
                        self._on_presence(notify.payload)
                    continue
                heard = parse(notify.payload)
                if heard is not None:
                    self._on_head(*heard)
            conn.execute("SELECT 1")  # a dropped connection is noticed within a poll
