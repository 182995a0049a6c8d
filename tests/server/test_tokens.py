"""Ways in: tokens come from the CSPRNG, the admin token file is whole or refused, and a
copy of the database (with the admin token) yields no member's token."""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import stat
from pathlib import Path

import pytest

from poolhall.clients.client import Client
from poolhall.events import core
from poolhall.events.sqlite_backend import SqliteLog
from poolhall.server.app import Server
from poolhall.server.auth import (
    AdminTokenError,
    admin_token_path,
    hash_token,
    load_or_create_admin_token,
)
from tests.conftest import ADMIN_TOKEN, Table, start_server
from tests.server.raw import RawPeer


def _old_recipe(admin_token: str, campaign: str, command_id: str) -> str:
    """How tokens were derived before: an HMAC of the admin token and the command id."""
    key = hashlib.sha256(b"poolhall-token-key" + admin_token.encode()).digest()
    return "ph_" + hmac.new(key, f"{campaign}\x1f{command_id}".encode(), "sha256").hexdigest()


async def test_the_admin_token_and_the_database_do_not_yield_a_members_token(table: Table) -> None:
    """Recomputing a token from the admin token and the command ids stored in the log (the
    old recipe) gives no member's token: tokens are random."""
    campaign, gm = await table.create_campaign("d12")
    ack = await gm.call(core.Invite, role="player", characters=("han",))
    hashes = {m.token_hash for m in gm.state.members.values()}
    assert table.server.log is not None
    for row in table.server.log.rows(campaign):  # every command id the database holds
        guess = _old_recipe(table.admin_token, campaign, row.command_id)
        assert guess != ack.token
        assert hash_token(guess) not in hashes
    assert ack.token
    assert ack.token.startswith("ph_")
    assert len(ack.token) == 46


async def test_a_retried_invite_gets_its_token_back_across_a_server_restart(table: Table) -> None:
    """The token an invite issued is answered again to its retry (same id and retry key)
    after the server restarted, and it opens the table."""
    campaign, gm = await table.create_campaign("d12")
    command = core.Invite(id="invite-han", role="player", characters=("han",),
                          retry_key="Zr4-" + "q" * 28)
    first = await gm.send(command)
    await table.close_clients()
    await table.server.stop()
    table.server = await start_server(table.db_path)
    gm = await table.connect(campaign, gm._token)
    again = await gm.send(command)
    assert first.token
    assert (again.token, again.member, again.seqs) == (
        first.token, "han", first.seqs)
    assert again.token is not None
    han = await table.connect(campaign, again.token)
    assert han.welcome is not None
    assert han.welcome.member == "han"


async def test_the_client_sends_a_retry_key_with_every_token_issuing_command(table: Table) -> None:
    """``Client.call`` fills ``retry_key`` for invite and create_campaign: the log holds
    their tokens sealed, and nothing for other commands."""
    campaign, gm = await table.create_campaign("d12")
    invited = await gm.call(core.Invite, role="spectator")
    rolled = await gm.call(core.Roll, expression="1d6")
    log = table.server.log
    assert log is not None
    create_id = next(log.rows(campaign)).command_id
    assert log.sealed_token(campaign, invited.id)
    assert log.sealed_token(campaign, create_id)
    assert log.sealed_token(campaign, rolled.id) is None
    sealed = log.sealed_token(campaign, invited.id)
    assert invited.token
    assert invited.token.encode().hex() != sealed


async def test_an_empty_admin_token_file_stops_the_server(tmp_path: Path) -> None:
    """A 0-byte admin token file (left by a full disk) is refused with a message instead of
    making the empty string the admin token."""
    db = tmp_path / "poolhall.db"
    admin_token_path(db).write_text("")
    server = Server(db, "127.0.0.1", 0)
    with pytest.raises(AdminTokenError, match="is empty"):
        await server.start()
    admin_token_path(db).write_text("ph_short\n")
    with pytest.raises(AdminTokenError, match="has 8 characters; it needs at least 32"):
        await Server(db, "127.0.0.1", 0).start()
    assert admin_token_path(db).read_text() == "ph_short\n"  # never replaced behind the owner


async def test_an_unreadable_admin_token_file_stops_the_server(tmp_path: Path) -> None:
    """An admin token file that cannot be read as text is refused with the reason."""
    db = tmp_path / "poolhall.db"
    admin_token_path(db).write_bytes(b"\xff\xfe" * 20)
    with pytest.raises(AdminTokenError, match="cannot read the token file"):
        await Server(db, "127.0.0.1", 0).start()


def test_the_admin_token_file_is_created_whole_and_owner_only(tmp_path: Path) -> None:
    """A new admin token file holds the whole token, has mode 0600, and leaves no temporary
    file; the next start reads the same token."""
    token, created = load_or_create_admin_token(tmp_path / "poolhall.db")
    path = admin_token_path(tmp_path / "poolhall.db")
    assert created
    assert path.read_text() == token + "\n"
    assert len(token) == 46
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]
    assert load_or_create_admin_token(tmp_path / "poolhall.db") == (token, False)


async def test_an_empty_token_opens_nothing(table: Table) -> None:
    """Joining with the empty token is refused, and a server is never given it as admin."""
    campaign, _ = await table.create_campaign("d12")
    peer = await RawPeer.open(table.url)
    for target in (None, campaign):
        answer = await peer.join("", target)
        assert (answer["type"], answer["code"]) == ("error", "unauthorized")
    await peer.close()
    with pytest.raises(AdminTokenError):
        Server(table.db_path, "127.0.0.1", 0, admin_token="")


async def test_the_database_and_its_wal_are_created_owner_only(tmp_path: Path) -> None:
    """A new log file, its -wal and its -shm are readable by their owner only."""
    server = await start_server(tmp_path / "new.db")
    try:
        admin = Client(server.url, ADMIN_TOKEN, reconnect=False)
        await admin.connect()
        await admin.call(core.CreateCampaign, name="Private", system="d12")
        await admin.close()
        for name in ("new.db", "new.db-wal", "new.db-shm"):
            assert stat.S_IMODE(os.stat(tmp_path / name).st_mode) == 0o600, name
    finally:
        await server.stop()


def test_a_world_readable_log_is_reported_once(tmp_path: Path, caplog: pytest.LogCaptureFixture
                                               ) -> None:
    """Opening a log others can read logs one warning saying so (its mode is left alone)."""
    path = tmp_path / "old.db"
    path.touch()
    path.chmod(0o644)
    backend = "poolhall.events.sqlite_backend"
    with caplog.at_level(logging.WARNING, logger=backend):
        SqliteLog(path).close()
    warnings = [r.getMessage() for r in caplog.records if r.name == backend]
    assert len(warnings) == 1
    assert "readable by other users (mode 0644)" in warnings[0]
    assert "unrevealed seeds" in warnings[0]  # what a reader could do with a copy
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
