"""A server on PostgreSQL while its database goes away and comes back: ``/health`` says ok
only once the table plays again, and a join meanwhile neither stalls the server nor floods its
log (docs: postgresql.md, "When the database goes away"; monitor-health.md)."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import urllib.error
import urllib.request

import pytest

from poolhall.events import core
from poolhall.events.errors import CommandRejected
from tests.server.database_away import away_table
from tests.server.raw import RawPeer


def _health(port: int) -> int:
    """``GET /health``'s status."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as error:
        return error.code


async def test_once_health_is_ok_after_a_long_outage_the_first_roll_goes_through() -> None:
    """An outage of 8 s: the readers' pool (psycopg_pool) had put its next try to connect
    about 15 s after the first failure, so for seconds after ``/health`` said 200 the
    campaign's log could not be read and rolls were refused. Now ``/health`` is 200 only
    once the readers reach the database, and the very next roll is taken."""
    async with away_table() as table:
        with table.outage():
            with pytest.raises(CommandRejected) as refused:  # the hub must read its log again
                await asyncio.wait_for(table.gm.call(core.Roll, expression="1d6"), 10)
            assert refused.value.code == "unavailable"
            await asyncio.sleep(8)
        for _ in range(200):
            if await asyncio.to_thread(_health, table.server.port) == 200:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("/health did not say ok again")
        # taken, not refused "unavailable" as it was for seconds after /health said ok
        ack = await asyncio.wait_for(table.gm.call(core.Roll, expression="1d6"), 10)
        assert ack.seqs


async def test_joins_while_the_database_is_away_neither_stall_the_server_nor_flood_its_log(
        caplog: pytest.LogCaptureFixture) -> None:
    """A join's token is looked up in the log. While the database is away each lookup waited
    for the readers' pool on the event loop (2 s: every table of the process froze, and
    ``/health`` took 2 s to answer) and logged a traceback: now the lookup is made off the
    loop, and the failures are one line when they start, then at most one every 10 s."""
    caplog.set_level(logging.WARNING)
    async with away_table() as table:
        with table.outage():
            await asyncio.sleep(1)
            caplog.clear()
            times: list[float] = []
            stop = threading.Event()

            def time_health() -> None:
                while not stop.is_set():
                    started = time.monotonic()
                    _health(table.server.port)
                    times.append(time.monotonic() - started)
                    time.sleep(0.1)

            timer = threading.Thread(target=time_health)
            timer.start()
            try:
                for _ in range(4):
                    peer = await RawPeer.open(f"ws://127.0.0.1:{table.server.port}")
                    reply = await peer.join(table.token, table.campaign)
                    assert (reply["type"], reply["code"]) == ("error", "unavailable"), reply
                    await peer.close()
                    await asyncio.sleep(0.5)
            finally:
                stop.set()
                await asyncio.to_thread(timer.join)
            assert len(times) >= 10
            assert max(times) < 0.5, sorted(times)[-3:]
            lookups = [record for record in caplog.records
                       if "token" in record.getMessage()]
            assert len(lookups) == 1, [record.getMessage() for record in lookups]
            assert lookups[0].exc_info is None
            assert "cannot be reached" in lookups[0].getMessage() or (
                "couldn't get a connection" in lookups[0].getMessage())
