"""A server on PostgreSQL: the table as on SQLite, and two servers on one database."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path

import psycopg
import pytest

from poolhall.clients.client import Client
from poolhall.events import core
from poolhall.events.errors import CommandRejected
from poolhall.events.fair import RotateSeed
from poolhall.events.messages import Ack
from poolhall.events.postgres_backend import PostgresLog
from poolhall.server.app import Server
from tests.conftest import ADMIN_TOKEN, Table, until
from tests.events.store_contract import opened, request, rolled
from tests.postgres import fresh_database, server_url
from tests.serve_process import poolhall
from tests.server.database_away import away_table
from tests.server.raw import RawPeer
from tests.server.two_servers import two_servers


async def test_a_table_plays_on_postgresql(pg_table: Table, postgres_url: str) -> None:
    """Create, invite, roll: acknowledged, broadcast, in the database, and verified."""
    campaign, gm = await pg_table.create_campaign("d12")
    player = await pg_table.invite(gm, "player", characters=("han",))
    acks = [await gm.call(core.Roll, expression="2d6+1"),
            await player.call(core.Roll, expression="1d20")]
    await gm.wait_for_seq(acks[-1].seqs[-1])
    await player.wait_for_seq(acks[-1].seqs[-1])
    assert [r.seq for r in gm.state.rolls] == [r.seq for r in player.state.rolls]
    log = PostgresLog(postgres_url, create=False)
    try:
        assert log.head(campaign) == acks[-1].seqs[-1]
        checked, problems = log.verify()
        assert checked == log.head(campaign)
        assert problems == []
    finally:
        log.close()


async def test_two_servers_one_campaign_every_client_sees_every_event(
        postgres_url: str) -> None:
    """Two servers on one database: clients of one campaign on both, commands to both at
    once; each client folds every event, in one order, and each command is acked once."""
    async with two_servers(postgres_url) as (servers, tables):
        campaign, gm = await tables[0].create_campaign("d12")
        ack = await gm.call(core.Invite, role="player", characters=("han",))
        assert ack.token
        han = await tables[1].connect(campaign, ack.token)
        gm_elsewhere = await tables[1].connect(campaign, gm._token)

        async def rolls(client: Client, count: int) -> list[Ack]:
            return list(await asyncio.gather(*(
                client.call(core.Roll, expression="1d6")
                for _ in range(count))))

        watchers = [await RawPeer.open(server.url) for server in servers]
        head = gm.head
        for watcher in watchers:
            welcome = await watcher.join(gm._token, campaign, since=head)
            assert welcome["type"] == "welcome"
        results = await asyncio.gather(rolls(gm, 15), rolls(han, 15), rolls(gm_elsewhere, 15))
        seqs = sorted(seq for acks in results for ack in acks for seq in ack.seqs)
        # 45 rolls, in the campaign's first epoch: it began after both servers opened the
        # log, so neither takes it for one put back from a backup (docs: fairness.md)
        assert len(seqs) == len(set(seqs)) == 45
        last = seqs[-1]
        for client in (gm, han, gm_elsewhere):
            await client.wait_for_seq(last)
        orders = [[(r.seq, r.actor) for r in c.state.rolls] for c in (gm, han, gm_elsewhere)]
        assert orders[0] == orders[1] == orders[2]
        seen = []
        for watcher in watchers:  # every event frame on the wire: no gap, no duplicate
            frames: list[tuple[int, str]] = []
            while not frames or frames[-1][0] < last:
                frame = await watcher.recv_until("event")
                frames.append((frame["seq"], frame["hash"]))
            assert [seq for seq, _ in frames] == list(range(head + 1, last + 1))
            seen.append(frames)
            await watcher.close()
        assert seen[0] == seen[1]
        await until(lambda: all(s.hubs[campaign].state.head == last for s in servers))



@contextlib.asynccontextmanager
async def _one_server_deaf_to_the_other(
        postgres_url: str) -> AsyncIterator[tuple[Server, str, Client, Client]]:
    """Two servers on one database, the second no longer hearing the first's appends: that
    server, the campaign, its GM on the first and the same GM on the second."""
    async with two_servers(postgres_url) as (servers, tables):
        campaign, gm = await tables[0].create_campaign("d12")
        deaf = servers[1]
        assert deaf.deployment is not None
        elsewhere = await tables[1].connect(campaign, gm._token)
        # a rotation decided on the second server, heard by the first
        rotated = await elsewhere.call(RotateSeed)
        await gm.wait_for_seq(rotated.seqs[-1])
        await asyncio.to_thread(deaf.deployment.followers.stop)  # it hears no other process
        yield deaf, campaign, gm, elsewhere


async def test_a_server_behind_the_log_decides_again_and_the_client_never_knows(
        postgres_url: str) -> None:
    """A server that has not heard another's append decides against an old head: the
    database refuses its append, it reads the event it missed, broadcasts it, decides again;
    its client gets an ack and both events in order, and no error."""
    async with _one_server_deaf_to_the_other(postgres_url) as (deaf, campaign, gm, elsewhere):
        first = await gm.call(core.Roll, expression="1d6")
        second = await elsewhere.call(core.Roll, expression="1d8")
        assert second.seqs == [first.seqs[-1] + 1]
        await elsewhere.wait_for_seq(second.seqs[-1])
        assert [r.expression for r in elsewhere.state.rolls] == ["1d6", "1d8"]
        assert deaf.hubs[campaign].conflicts == 1
        await gm.wait_for_seq(second.seqs[-1])
        assert [r.expression for r in gm.state.rolls] == ["1d6", "1d8"]


async def test_a_server_that_keeps_losing_races_reads_what_it_missed_not_the_campaign(
        postgres_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """Two servers writing to one campaign by turns, the second always behind: each of its
    appends loses the race. After the first, it goes back to the state it had before the
    batch and reads only the events it missed, rather than reloading the whole campaign each
    time (two processes on one table spent their time reloading it: issue 28); each command
    is decided twice at most, acknowledged once, and no statement is refused by the database
    (an aborted pipeline was a psycopg warning each time)."""
    caplog.set_level(logging.WARNING)
    async with _one_server_deaf_to_the_other(postgres_url) as (deaf, campaign, gm, elsewhere):
        hub = deaf.hubs[campaign]
        reloads = hub.reloads
        expressions = []
        for turn in range(6):
            first = await gm.call(core.Roll, expression=f"{turn + 1}d6")
            second = await elsewhere.call(core.Roll, expression=f"{turn + 1}d8")
            assert second.seqs == [first.seqs[-1] + 1]
            expressions += [f"{turn + 1}d6", f"{turn + 1}d8"]
        await elsewhere.wait_for_seq(second.seqs[-1])
        assert [r.expression for r in elsewhere.state.rolls] == expressions
        assert hub.conflicts == 6  # each decided twice: lost once, then stored
        assert hub.reloads - reloads <= 1  # the first race reloads; the next ones read
        assert hub.state.head == second.seqs[-1]
        await gm.wait_for_seq(second.seqs[-1])
        assert [r.expression for r in gm.state.rolls] == expressions
    assert [r.getMessage() for r in caplog.records if r.name.startswith("psycopg")] == []


def test_migrate_then_verify_a_postgresql_url(postgres_url: str, tmp_path: Path) -> None:
    """``poolhall migrate --db URL`` creates the schema, and says so (it said "the schema is
    up to date" whatever it did); run again, it says there was nothing to do. ``poolhall
    verify URL`` walks it, and reports an edited event with exit 1."""
    said = poolhall("migrate", "--db", postgres_url, cwd=tmp_path).stdout
    assert said.endswith(": created the schema (version 4)\n"), said
    said = poolhall("migrate", "--db", postgres_url, cwd=tmp_path).stdout
    assert said.endswith(": already up to date\n"), said
    log = PostgresLog(postgres_url, create=False)
    try:
        log.append_batch([request("a", 0, opened("a"), rolled(1), rolled(2))])
    finally:
        log.close()
    assert "ok: 3 events" in poolhall("verify", postgres_url, cwd=tmp_path).stdout
    with psycopg.connect(postgres_url) as connection:
        connection.execute("DROP TRIGGER events_append_only ON events")
        connection.execute("UPDATE events SET actor = 'mallory' WHERE seq = 2")
    broken = poolhall("verify", postgres_url, cwd=tmp_path, check=False)
    assert broken.returncode == 1
    assert "a #2" in broken.stdout


def test_verify_of_a_database_with_no_log_says_so(postgres_url: str, tmp_path: Path) -> None:
    """verify never creates anything: a database without the schema is named (exit 2, as
    for a SQLite file that is not there)."""
    result = poolhall("verify", postgres_url, cwd=tmp_path, check=False)
    assert result.returncode == 2
    assert "holds no poolhall log" in result.stderr


async def test_a_listener_cut_off_reconnects_and_reads_what_it_missed(postgres_url: str) -> None:
    """The database ends a server's listening connection; another server appends meanwhile:
    the first reconnects by itself and its clients get every event, in order."""
    async with two_servers(postgres_url) as (servers, tables):
        campaign, gm = await tables[0].create_campaign("d12")
        elsewhere = await tables[1].connect(campaign, gm._token)
        assert servers[1].deployment is not None
        cut = servers[1].deployment.followers
        assert cut.listener.listening.is_set()
        channel = servers[1].log.channel  # type: ignore[union-attr]
        with psycopg.connect(postgres_url, autocommit=True) as connection:
            ended = connection.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE application_name = %s", [f"poolhall listener {channel}"[:63]]).fetchall()
        assert len(ended) == 2  # one listener per server
        acks = [await gm.call(core.Roll, expression="1d6") for _ in range(3)]
        await elsewhere.wait_for_seq(acks[-1].seqs[-1], timeout=20)
        assert [r.expression for r in elsewhere.state.rolls] == ["1d6"] * 3
        await until(lambda: cut.listener.reconnects >= 1 and servers[1].health.ok)


async def test_a_member_invited_through_another_server_joins_before_it_is_heard(
        postgres_url: str) -> None:
    """A server that has not heard of an invite (its listener stopped) still lets the new
    member in: it reads the log before refusing a token its state does not know."""
    async with two_servers(postgres_url) as (servers, tables):
        campaign, gm = await tables[0].create_campaign("d12")
        await tables[1].connect(campaign, gm._token)
        deaf = servers[1]
        assert deaf.deployment is not None
        await asyncio.to_thread(deaf.deployment.followers.stop)
        invited = await gm.call(core.Invite, role="player", characters=("han",))
        assert invited.token
        han = await tables[1].connect(campaign, invited.token)
        assert han.welcome is not None
        assert han.welcome.member == "han"
        wrong = RawPeer  # a token nobody issued is still refused, after the same read
        peer = await wrong.open(deaf.url)
        refused = await peer.join("ph_" + "x" * 40, campaign)
        assert refused["code"] == "unauthorized"
        await peer.close()


async def test_a_client_ahead_of_a_server_that_has_not_heard_resumes_there(
        postgres_url: str) -> None:
    """A player's process dies after broadcasting rolls another server has not heard of yet
    (its listener is slow, here stopped); the player resumes on that server with ``since`` past
    the head it knows. It reads the log before judging the copy, so the player resumes with
    no gap, instead of being refused ``diverged`` for events that are in the log."""
    async with _one_server_deaf_to_the_other(postgres_url) as (deaf, campaign, gm, _):
        acks = [await gm.call(core.Roll, expression="1d6") for _ in range(3)]
        await gm.wait_for_seq(acks[-1].seqs[-1])
        assert gm.last_hash
        peer = await RawPeer.open(deaf.url)
        welcome = await peer.join_with(gm._token, campaign, gm.state.head, gm.last_hash)
        assert welcome["type"] == "welcome", welcome
        assert welcome["head"] == acks[-1].seqs[-1]
        await peer.close()


def _health(port: int) -> tuple[int, str]:
    """``GET /health`` of the server on ``port``: its status and first line."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as reply:
            return reply.status, reply.read().decode().splitlines()[0]
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode().splitlines()[0]


async def test_health_names_why_the_listener_cannot_reconnect() -> None:
    """The database stops accepting connections and ends the server's listening one: /health
    says why the listener cannot come back (what the operator must fix), not only that it
    dropped; once the database accepts connections again, /health is ok by itself."""
    with fresh_database(server_url()) as url:
        server = Server(url, "127.0.0.1", 0, rng=random.Random(1), admin_token=ADMIN_TOKEN)
        await server.start()
        name = url.rsplit("/", 1)[1].split("?", 1)[0]
        try:
            assert server.deployment is not None
            await until(server.deployment.followers.listener.listening.is_set)
            with psycopg.connect(server_url(), autocommit=True) as admin:
                admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
                admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                              " WHERE datname = %s AND application_name LIKE %s",
                              [name, "poolhall listener%"])
                for _ in range(200):  # the listener tries again within 2 s
                    status, line = await asyncio.to_thread(_health, server.port)
                    if "not currently accepting connections" in line:
                        break
                    await asyncio.sleep(0.05)
                assert status == 503
                assert line.startswith("failing: listener failed: the database's notifications")
                assert "not currently accepting connections" in line
                admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
            for _ in range(200):
                status, line = await asyncio.to_thread(_health, server.port)
                if status == 200:
                    break
                await asyncio.sleep(0.05)
            assert (status, line) == (200, "ok 0 campaigns")
        finally:
            await server.stop()


async def test_a_database_away_is_logged_when_it_goes_not_at_every_command(
        caplog: pytest.LogCaptureFixture) -> None:
    """While the database refuses connections every command is answered ``unavailable``, and
    the server's log says so in a line or two (docs: monitor-health.md), not a traceback at
    every command and a line at every one of psycopg's tries to connect; back, the table
    plays again by itself."""
    caplog.set_level(logging.WARNING)
    async with away_table() as table:
        gm = table.gm
        caplog.clear()
        with table.outage():
            refused = []
            for _ in range(12):  # about 3 s of a table rolling on
                with pytest.raises(CommandRejected) as error:
                    await asyncio.wait_for(gm.call(core.Roll, expression="1d6"), 10)
                refused.append(error.value.code)
                await asyncio.sleep(0.25)
            assert set(refused) == {"unavailable"}
            lines = [r for r in caplog.records if r.levelno >= logging.WARNING]
            assert not [r for r in lines if r.exc_info], [r.getMessage() for r in lines]
            assert len(lines) <= 8, [r.getMessage() for r in lines]
            assert len([r for r in lines if r.getMessage().startswith(
                "error connecting in")]) <= 1
        for _ in range(100):  # recovered by itself
            with contextlib.suppress(CommandRejected):
                await gm.call(core.Roll, expression="1d6")
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the table did not play again")
