"""Who is connected, across the server processes of one PostgreSQL deployment.

The same interface as :class:`poolhall.server.presence_board.PresenceBoard` (and its
in-memory twin there). Two tables (:mod:`.schema`): ``presence_processes``, one row per live
server process with its last heartbeat (the database's clock, so the machines' clocks need
not agree), and ``presence``, this process's connections per (campaign, member). A process
writes only its own rows, on a connection of its own used by one thread (the server's
presence thread, :mod:`poolhall.server.shared_presence`): nothing of this runs per command.

- :meth:`PostgresPresence.enter`, as the process opens the log, writes its row with since when
  the deployment has been serving: the earliest ``serving_since`` of the processes live then
  (heartbeat younger than their expiry), or the time the process opened the log when none
  is. A deployment restarted one process at a time keeps the time its first process opened the
  log; one whose every process stopped (as putting a backup back needs) starts again from its
  next process's (:mod:`poolhall.server.fair_seeds`). The rows of a process of schema version
  2 say no time and count as none.
- :meth:`PostgresPresence.publish` replaces the process's rows of one campaign and, when its
  set of members changed (not only a count), notifies the campaign on
  :data:`~.schema.PRESENCE_CHANNEL` (payload: the campaign only), in one transaction; every
  process hears it on its one listening connection (:mod:`.listener`) and reads the
  campaign's rows again (:meth:`PostgresPresence.elsewhere`).
- :meth:`PostgresPresence.elsewhere` reads the members connected through the *other*
  processes whose heartbeat is younger than their expiry (each process's own, kept in its
  row, so that processes started with different ``--presence-expiry`` agree on who is
  live): the rows of a process that died (``kill -9``, its machine gone) are ignored once it
  has not beaten for that long.
- :meth:`PostgresPresence.beat` renews the heartbeat, and deletes the processes that have
  not beaten for the expiry (their rows go with them: ``ON DELETE CASCADE``), notifying their
  campaigns, so the pages update without waiting for anyone to connect. A process found
  deleted although alive (the database was out of its reach longer than the expiry, or it
  restarted and its unlogged tables were emptied) writes all its rows again, its
  ``serving_since`` as it entered.
- :meth:`PostgresPresence.close` deletes the process's rows, notifying their campaigns: a
  process stopped cleanly leaves nobody shown.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import psycopg

from poolhall.events.errors import StoreError
from poolhall.events.postgres_backend.database import channel_for, connect, reason
from poolhall.events.postgres_backend.schema import PRESENCE_CHANNEL

__all__ = ["PostgresPresence"]

_ALIVE = "UPDATE presence_processes SET beat = now() WHERE process = %s"
_REVIVE = ("INSERT INTO presence_processes (process, expiry, serving_since) VALUES (%s, %s, %s)"
           " ON CONFLICT (process) DO NOTHING")
_ENTER = ("INSERT INTO presence_processes (process, expiry, serving_since)"
          " SELECT %s, %s, coalesce(min(serving_since), %s::timestamptz) FROM presence_processes"
          "  WHERE beat >= now() - make_interval(secs => expiry)"
          " ON CONFLICT (process) DO UPDATE SET beat = now()"
          " RETURNING serving_since")
"""This process's row, serving since the earliest of the live processes (``min`` leaves out
the ``NULL`` of a process of schema version 2), or since ``opened_at`` when none is live."""
_FORGET = "DELETE FROM presence WHERE campaign = %s AND process = %s"
_WRITE = ("INSERT INTO presence (campaign, process, member, connections)"
          " SELECT %s, %s, m, n FROM unnest(%s::text[], %s::integer[]) AS t(m, n)")
_NOTIFY = "SELECT pg_notify(%s, c) FROM unnest(%s::text[]) AS t(c)"
_EXPIRE = ("WITH dead AS (DELETE FROM presence_processes"
           "             WHERE beat < now() - make_interval(secs => expiry) RETURNING process)"
           " SELECT DISTINCT campaign FROM presence WHERE process IN (SELECT process FROM dead)")
"""Delete the processes silent for their expiry; their campaigns (read in the statement's
snapshot, before the cascade deletes their rows)."""
_ELSEWHERE = ("SELECT DISTINCT p.member FROM presence p JOIN presence_processes h"
              " USING (process) WHERE p.campaign = %s AND p.process <> %s"
              " AND h.beat >= now() - make_interval(secs => h.expiry)")
_WITHDRAW = ("WITH gone AS (DELETE FROM presence_processes WHERE process = %s RETURNING process)"
             " SELECT DISTINCT campaign FROM presence WHERE process IN (SELECT process FROM gone)")


class PostgresPresence:
    """One process's presence on the deployment's database (see the module docstring)."""

    def __init__(self, url: str, process: str, *, expiry: float) -> None:
        self.process = process
        """This process's id in the tables (unique per start)."""
        self.expiry = expiry
        """Seconds after its last heartbeat this process's members stop showing elsewhere
        (kept in its row: every process judges it by it)."""
        self._url = url
        self._connection: psycopg.Connection[Any] | None = None
        self._channel = PRESENCE_CHANNEL
        self._mine: dict[str, dict[str, int]] = {}
        """What this process published, by campaign: written again if it was forgotten."""
        self._since: datetime | None = None
        """Since when the deployment has been serving, as :meth:`enter` found it."""

    @contextmanager
    def _transaction(self, what: str) -> Iterator[psycopg.Connection[Any]]:
        """The connection (made again after it broke), in one transaction; the database's
        errors as :class:`StoreError` naming ``what``."""
        try:
            if self._connection is None or self._connection.closed:
                self._connection = connect(self._url, autocommit=True, connect_timeout=5)
                self._channel = channel_for(self._connection, PRESENCE_CHANNEL)
            with self._connection.transaction():
                yield self._connection
        except psycopg.Error as error:
            if self._connection is not None and self._connection.broken:
                self._connection.close()
            raise StoreError(f"{what}: {reason(error)}") from None

    def _alive(self, connection: psycopg.Connection[Any]) -> list[str]:
        """Renew the heartbeat; if this process had been forgotten, write everything it
        published again: the campaigns to notify."""
        if connection.execute(_ALIVE, [self.process]).rowcount:
            return []
        connection.execute(_REVIVE, [self.process, self.expiry, self._since])
        for campaign, members in self._mine.items():
            self._write(connection, campaign, members)
        return list(self._mine)

    def _write(self, connection: psycopg.Connection[Any], campaign: str,
               members: Mapping[str, int]) -> None:
        connection.execute(_FORGET, [campaign, self.process])
        if members:
            connection.execute(_WRITE, [campaign, self.process, list(members),
                                        list(members.values())])

    def _notify(self, connection: psycopg.Connection[Any], campaigns: list[str]) -> None:
        if campaigns:
            connection.execute(_NOTIFY, [self._channel, campaigns])

    def enter(self, opened_at: str) -> str:
        """Write this process's row as it opens the log at ``opened_at`` (ISO 8601, the
        events' clock): since when the deployment has been serving, in the same form."""
        with self._transaction("entering this process in presence_processes") as connection:
            row = connection.execute(_ENTER, [self.process, self.expiry, opened_at]).fetchone()
        assert row is not None
        since: datetime = row[0]
        self._since = since
        return since.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def publish(self, campaign: str, members: Mapping[str, int]) -> None:
        """This process's connections to ``campaign`` now, by member (empty: none), and the
        campaign notified."""
        members = {member: count for member, count in members.items() if count > 0}
        same = members.keys() == self._mine.get(campaign, {}).keys()
        with self._transaction("publishing who is connected") as connection:
            told = self._alive(connection)
            self._write(connection, campaign, members)
            self._notify(connection, sorted({*told, *([] if same else [campaign])}))
        if members:
            self._mine[campaign] = members
        else:
            self._mine.pop(campaign, None)

    def elsewhere(self, campaign: str) -> frozenset[str]:
        """The members connected to ``campaign`` through the other live processes."""
        with self._transaction("reading who is connected") as connection:
            rows = connection.execute(_ELSEWHERE, [campaign, self.process]).fetchall()
        return frozenset(row[0] for row in rows)

    def beat(self) -> list[str]:
        """Say this process lives, and forget the processes silent for the expiry: the
        campaigns whose presence changed (notified)."""
        with self._transaction("renewing the presence heartbeat") as connection:
            told = self._alive(connection)
            expired = [row[0] for row in connection.execute(_EXPIRE)]
            changed = sorted({*told, *expired})
            self._notify(connection, changed)
        return changed

    def close(self) -> None:
        """Withdraw this process (its campaigns notified) and release the connection."""
        if self._connection is None:  # never connected: it wrote nothing to withdraw
            return
        try:
            with self._transaction("withdrawing who is connected") as connection:
                gone = [row[0] for row in connection.execute(_WITHDRAW, [self.process])]
                self._notify(connection, gone)
            self._mine.clear()
        finally:
            if self._connection is not None:
                self._connection.close()
