"""Report links of a deployment of several processes (PostgreSQL), checked in-process with two
servers: a ``HEAD`` answers what a ``GET`` would, and a member's links opened on another
process are held to the two pages of a campaign made at once there too.

An attacker's trial found both: a process answered a ``HEAD`` from its own memory (200 for a
link another process had spent, or the database had let expire), and made every link issued
elsewhere at once (six of one member's links opened together on another process were all
made, filling the workers every table of that process shares).
"""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request

import pytest

from poolhall.events import core
from poolhall.server import report_page
from tests.conftest import Table
from tests.server.raw import RawPeer
from tests.server.test_report_page import hold_report_pages
from tests.server.two_servers import two_servers


def _http(url: str, method: str = "GET") -> tuple[int, str]:
    """One request, no reloading: status and body."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method=method),
                                    timeout=60) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


async def _links(table: Table, token: str, campaign: str,
                 sessions: list[int | None]) -> list[str]:
    """The report paths ``table``'s server issues to the member, one for each session, one
    after the other (each page made before the next is asked)."""
    peer = await RawPeer.open(table.url)
    try:
        await peer.join(token, campaign)
        paths = []
        for n, session in enumerate(sessions):
            await peer.send({"type": "report", "id": f"report-{n}",
                             **({"session": session} if session else {})})
            paths.append(str((await peer.recv_until("report", timeout=30))["path"]))
            for _ in range(600):  # each page made before the next is asked (two at once)
                if not table.server.reports._making:
                    break
                await asyncio.sleep(0.05)
        return paths
    finally:
        await peer.connection.close()


def _http_of(table: Table) -> str:
    return table.url.replace("ws://", "http://")


async def test_a_head_answers_as_a_get_would_on_every_process(postgres_url: str) -> None:
    """A link spent through the other process is 404 to a ``HEAD`` on the issuing one (it
    answered 200 from its own memory), and a link not spent is 200 to a ``HEAD`` on both."""
    async with two_servers(postgres_url) as (_, (first, second)):
        _, gm = await first.create_campaign("d12", name="Dice Night")
        await gm.call(core.Roll, expression="2d6")
        assert gm.campaign is not None
        spent, kept = await _links(first, gm._token, gm.campaign, [None, None])
        for table in (first, second):
            assert (await asyncio.to_thread(_http, _http_of(table) + kept, "HEAD"))[0] == 200
        status, body = await asyncio.to_thread(_http, _http_of(second) + spent)
        assert status == 200, body
        for table in (first, second):
            status, _ = await asyncio.to_thread(_http, _http_of(table) + spent, "HEAD")
            assert status == 404, table.url


async def test_links_opened_on_another_process_make_two_pages_at_once_there(
        postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three of one campaign's reports (three sessions), issued one after the other by the
    first process and opened together on the second while its pages are held back: two are
    being made, the third is told to wait (202, reloading itself, its link not spent), and it
    opens once the others are made."""
    async with two_servers(postgres_url) as (_, (first, second)):
        _, gm = await first.create_campaign("d12", name="Long Night")
        for title in ("One", "Two", "Three"):
            await gm.call(core.StartSession, title=title)
            await gm.call(core.Roll, expression="2d6")
            await gm.call(core.EndSession)
        assert gm.campaign is not None
        paths = await _links(first, gm._token, gm.campaign, [1, 2, 3])
        made = hold_report_pages(monkeypatch)
        answers = [await asyncio.to_thread(_http, _http_of(second) + path) for path in paths]
        assert [status for status, _ in answers] == [202, 202, 202]
        assert "Other reports of this campaign are being made" in answers[2][1]
        assert "Other reports" not in answers[0][1] + answers[1][1]
        made.set()
        monkeypatch.setattr(report_page, "PAGE_WAIT", 30.0)
        for path, session in zip(paths, ("One", "Two", "Three"), strict=True):
            status, body = await asyncio.to_thread(_http, _http_of(second) + path)
            assert status == 200, body
            assert session in body
