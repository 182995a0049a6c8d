"""Log times on the reader's clock: the log keeps UTC, and a table in Berlin or Mumbai reads
its own evening, not London's (``state`` and ``watch`` printed the UTC hours; so did the page,
``tests/web/test_page_basics.py``)."""

from __future__ import annotations

import signal
from pathlib import Path

from poolhall.events import core
from poolhall.events.log import AppendRequest, prepare
from poolhall.events.sqlite_backend import SqliteLog
from poolhall.server.auth import hash_token
from tests.serve_process import free_port, poolhall, start_serve

GM_TOKEN = "ph_" + "g" * 43
MUMBAI = "IST-5:30"
"""UTC+5:30 as a POSIX TZ (no time zone database needed): 08:00 UTC is 13:30 there."""


def _log_of_one_roll(path: Path) -> None:
    """A campaign whose events were all recorded at 08:00:00 UTC."""
    log = SqliteLog(path)
    log.append_batch([AppendRequest(
        campaign="night", expected_head=0, actor="admin", command_id="c1",
        at="2026-11-01T08:00:00.000Z", events=tuple(prepare(e) for e in (
            core.CampaignCreated(campaign="night", name="Night", system="d12"),
            core.MemberInvited(member="gm", name="GM", role="gm",
                               token_hash=hash_token(GM_TOKEN)),
            core.DiceRolled(expression="1d6", terms=(), total=0))))])
    log.close()


def test_state_prints_the_logs_times_on_the_readers_clock(tmp_path: Path) -> None:
    """Rule (no surprises): ``poolhall state`` in Mumbai prints 08:00 UTC as 13:30:00, and in
    UTC as 08:00:00."""
    _log_of_one_roll(tmp_path / "poolhall.db")
    port = free_port()
    server = start_serve(tmp_path / "poolhall.db", port)
    url = f"ws://127.0.0.1:{port}"
    try:
        printed = {zone: poolhall("state", "night", "--url", url, "--token", GM_TOKEN,
                                  cwd=tmp_path, environment={"TZ": zone}).stdout
                   for zone in (MUMBAI, "UTC")}
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(20)
    assert "13:30:00 #3 admin rolled 1d6" in printed[MUMBAI], printed[MUMBAI]
    assert "08:00:00 #3 admin rolled 1d6" in printed["UTC"], printed["UTC"]
