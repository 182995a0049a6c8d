"""``--visibility`` on the CLI's rolls, against a real ``poolhall serve``: the GM's secret roll
reaches a player's client sealed; a player's blind roll shows its roller no dice; what a role
may not use is refused by the server, and a value that is no visibility by argparse."""

from __future__ import annotations

import asyncio
import json
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from clients.client import Client
from events import core
from tests.serve_process import free_port, poolhall, start_serve


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A ``poolhall serve`` process in its own directory, and its URL."""
    directory = tmp_path_factory.mktemp("cli-visibility")
    port = free_port()
    process = start_serve(directory / "poolhall.db", port)
    yield directory, f"ws://127.0.0.1:{port}"
    process.send_signal(signal.SIGTERM)
    process.wait(20)


def _json(*args: str, cwd: Path) -> dict:
    return json.loads(poolhall(*args, "--json", cwd=cwd).stdout)


async def test_a_gm_secret_roll_reaches_a_player_sealed(served) -> None:
    """``roll --visibility gm`` by the GM: the GM's answer holds the dice; the player's
    client, connected meanwhile, receives a ``private_roll`` in its place."""
    cwd, url = served
    created = _json("campaign", "create", "Secrets", "--system", "d12", "--url", url, cwd=cwd)
    campaign, gm = created["campaign"], created["token"]
    player = _json("invite", campaign, "--role", "player", "--url", url, "--token", gm,
                   cwd=cwd)["token"]
    ana = Client(url, player, campaign)
    await ana.connect()
    try:
        rolled = await asyncio.to_thread(_json, "roll", campaign, "2d6", "--visibility", "gm",
                                         "--reason", "the guard's perception", "--url", url,
                                         "--token", gm, cwd=cwd)
        [whole] = rolled["events"]
        assert whole["event"]["visibility"] == "gm"
        assert len(whole["event"]["terms"][0]["faces"]) == 2
        await ana.wait_for_seq(whole["seq"], timeout=10)
        [received] = [recorded for recorded in ana.drain() if recorded.seq == whole["seq"]]
        assert received.event == core.PrivateRoll(visibility="gm")
    finally:
        await ana.close()


def test_a_blind_roll_shows_its_roller_no_dice_and_refusals_are_plain(served) -> None:
    """A player's blind roll answers with a sealed line; a player's ``gm`` roll is refused
    by the server (exit 1, its words); ``--visibility secret`` is refused by argparse (exit 2)
    and ``d12 call`` (a test the GM calls) offers only public and gm."""
    cwd, url = served
    created = _json("campaign", "create", "Blind", "--system", "d12", "--url", url, cwd=cwd)
    campaign, gm = created["campaign"], created["token"]
    player = _json("invite", campaign, "--role", "player", "--url", url, "--token", gm,
                   cwd=cwd)["token"]
    blind = _json("roll", campaign, "3d6", "--visibility", "blind", "--url", url, "--token",
                  player, cwd=cwd)
    assert [e["event"] for e in blind["events"]] == [{"type": "private_roll",
                                                      "visibility": "blind"}]
    said = poolhall("roll", campaign, "3d6", "--visibility", "blind", "--url", url, "--token",
                    player, cwd=cwd).stdout
    assert "rolled blind: only the GM sees the result" in said
    refused = poolhall("roll", campaign, "1d6", "--visibility", "gm", "--url", url, "--token",
                       player, cwd=cwd, check=False)
    assert refused.returncode == 1 and "only the gm rolls in secret" in refused.stderr
    assert "$.visibility" in refused.stderr
    for args in (("roll", campaign, "1d6", "--visibility", "secret"),
                 ("d12", "call", campaign, "vex", "CON", "--dt", "5", "--visibility", "blind")):
        wrong = poolhall(*args, "--url", url, cwd=cwd, check=False)
        assert wrong.returncode == 2 and "invalid choice" in wrong.stderr, args
