"""The post-game report as a page: a ticket over the WebSocket, the page once over HTTP."""

from __future__ import annotations

import asyncio
import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from poolhall.clients.cli import main
from poolhall.events import core
from tests.conftest import Table
from tests.server.raw import RawPeer


async def _fetch(url: str) -> tuple[int, dict[str, str], str]:
    """GET ``url`` off the event loop as a browser would, reloading a "being made" page (202,
    ``<meta http-equiv=refresh>``) until the report is there: status, headers and body."""
    import asyncio

    def get() -> tuple[int, dict[str, str], str]:
        try:
            with urllib.request.urlopen(url, timeout=120) as reply:
                return reply.status, dict(reply.headers), reply.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read().decode()

    for _ in range(60):
        status, headers, body = await asyncio.to_thread(get)
        if status != 202:
            return status, headers, body
        assert "http-equiv=refresh" in body
        assert "being made" in body
        await asyncio.sleep(1)
    raise AssertionError(f"the report at {url} was still being made after a minute")


async def _ticket(table: Table, token: str, campaign: str, **fields: object) -> dict[str, object]:
    peer = await RawPeer.open(table.url)
    try:
        await peer.join(token, campaign)
        await peer.send({"type": "report", "id": "report-0001", **fields})
        return await peer.recv_until("report", timeout=10)
    finally:
        await peer.connection.close()


async def test_a_member_opens_the_session_report_once_without_a_token_in_the_url(
        table: Table) -> None:
    """A player asks for session 1's report: a one-time path to the same page the CLI writes."""
    _, gm = await table.create_campaign("d12", name="Dice Night")
    await gm.call(core.StartSession, title="Heist")
    for _ in range(5):
        await gm.call(core.Roll, expression="2d6")
    ack = await gm.call(core.Invite, role="player", name="Ana")
    assert ack.token
    assert gm.campaign is not None
    answer = await _ticket(table, ack.token, gm.campaign, session=1)
    path = str(answer["path"])
    assert path.startswith("/report/")
    assert ack.token not in path
    origin = table.url.replace("ws://", "http://")
    status, headers, page = await _fetch(origin + path)
    assert status == 200
    assert "Dice Night" in page
    assert "<svg" in page
    assert "script-src" not in headers["Content-Security-Policy"]  # default-src 'none': none
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    again, _, said = await _fetch(origin + path)
    assert again == 404
    assert "used already" in said


@pytest.mark.parametrize(("started", "session", "words"), [
    (1, 4, "no game session 4 yet: session 1 has started"),
    (2, 2**63, f"no game session {2**63} yet: sessions 1 to 2 have started"),
    (0, 1, "no game session 1 yet: none has started"),
])
async def test_a_session_that_never_was_is_refused_up_front(
        table: Table, started: int, session: int, words: str) -> None:
    """A report of a session that has not started is refused over the WebSocket, not_found at
    $.session as share_replay refuses it, with no ticket (it was given one, and only the page
    then said 404); the refusal names the sessions there are."""
    _, gm = await table.create_campaign("d12")
    for n in range(started):
        await gm.call(core.StartSession, title=f"Night {n + 1}")
        await gm.call(core.EndSession)
    assert gm.campaign is not None
    peer = await RawPeer.open(table.url)
    try:
        await peer.join(gm._token, gm.campaign)
        await peer.send({"type": "report", "id": "report-0001", "session": session})
        refused = await peer.recv_until("error", timeout=10)
        assert (refused["id"], refused["code"], refused["path"]) == (
            "report-0001", "not_found", "$.session")
        assert refused["message"] == words
        await peer.send({"type": "share_replay", "id": "share-0001", "session": session})
        replay = await peer.recv_until("error", timeout=10)
        assert (replay["code"], replay["path"], replay["message"]) == (
            "not_found", "$.session", words)
        await peer.send({"type": "report", "id": "report-0002"})  # the campaign's: a ticket
        assert str((await peer.recv_until("report", timeout=10))["path"]).startswith(
            "/report/")
    finally:
        await peer.connection.close()
    assert len(table.server.reports._tickets) == 1  # the campaign's only


@pytest.mark.parametrize("path", ["/report/", "/report/not-a-ticket"])
async def test_a_made_up_ticket_opens_nothing(table: Table, path: str) -> None:
    """A guessed path is refused like a spent one."""
    status, _, page = await _fetch(table.url.replace("ws://", "http://") + path)
    assert status == 404
    assert "ask the table for the report again" in page


async def test_a_member_asking_for_report_after_report_waits_its_turn(table: Table) -> None:
    """Three different reports of one campaign at once: the third is refused rate_limited,
    the same one asked again shares the page being made."""
    _, gm = await table.create_campaign("d12")
    await gm.call(core.StartSession, title="One")
    await gm.call(core.EndSession)
    await gm.call(core.StartSession, title="Two")
    peer = await RawPeer.open(table.url)
    try:
        await peer.join(gm._token, gm.campaign)
        for n, session in enumerate([None, 1, None, 1]):
            await peer.send({"type": "report", "id": f"report-{n:04}",
                             **({"session": session} if session else {})})
            answer = await peer.recv_until("report", timeout=10)
            assert answer["id"] == f"report-{n:04}"
        await peer.send({"type": "report", "id": "report-0009", "session": 2})
        refused = await peer.recv_until("error", timeout=10)
        assert (refused["id"], refused["code"]) == ("report-0009", "rate_limited")
    finally:
        await peer.connection.close()


async def test_a_page_still_being_made_says_so_and_reloads(
        table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    """A report that takes longer than the wait is answered 202 "being made" (never a dropped
    connection), and the same ticket gives the page once it is ready."""
    _, gm = await table.create_campaign("d12", name="Slow Night")
    await gm.call(core.Roll, expression="2d6")
    # the worker's page is held back until the first answer is in: a quick machine would
    # otherwise make it before the first request asks
    made = hold_report_pages(monkeypatch)
    assert gm.campaign is not None
    answer = await _ticket(table, gm._token, gm.campaign)
    url = table.url.replace("ws://", "http://") + str(answer["path"])
    first = await asyncio.to_thread(_get_once, url)
    assert first[0] == 202
    assert "http-equiv=refresh" in first[1]
    made.set()  # the page is asked again until it is made (a request waiting longer than
    # the join timeout for it would be cut off, as PAGE_WAIT's docstring says)
    status, _, page = await _fetch(url)
    assert status == 200
    assert "Slow Night" in page


def hold_report_pages(monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """Hold every report page the workers make until the event returned is set, and answer
    a request for one at once ("being made", 202) meanwhile."""
    from poolhall.server import report_page
    from poolhall.server.views import Job, ViewResult, ViewWorkers

    made = asyncio.Event()
    compute = ViewWorkers.compute

    async def held_back(workers: ViewWorkers, job: Job) -> ViewResult:
        await made.wait()
        return await compute(workers, job)

    monkeypatch.setattr(ViewWorkers, "compute", held_back)
    monkeypatch.setattr(report_page, "PAGE_WAIT", 0.0)
    return made


def _get_once(url: str) -> tuple[int, str]:
    """One GET, no reloading: status and body."""
    try:
        with urllib.request.urlopen(url, timeout=120) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


async def test_a_players_page_counts_a_sealed_roll_as_the_cli_does(
        table: Table, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """While the GM's secret roll is sealed, Pia's report page is the very page her
    ``poolhall report --html`` writes: both count the sealed roll among the events (she is
    told one was made, and when) and judge neither its dice nor its result. The page left the
    event out (one event fewer in the campaign, the session and the timeline); the CLI, which
    receives it sealed, counted it."""
    campaign, gm = await table.create_campaign("d12", name="Mini")
    pia = await gm.call(core.Invite, role="player", name="Pia")
    assert pia.token
    await gm.call(core.StartSession, title="One")
    await gm.call(core.Roll, expression="2d6")
    await gm.call(core.Roll, expression="1d20", visibility="gm")
    ack = await gm.call(core.Roll, expression="2d6")
    await gm.wait_for_seq(ack.seqs[-1])
    written = tmp_path / "pia.html"
    code = await asyncio.to_thread(main, [
        "report", campaign, "--html", str(written), "--url", table.url, "--token", pia.token])
    assert code == 0
    capsys.readouterr()
    answer = await _ticket(table, pia.token, campaign)
    status, _, page = await _fetch(table.url.replace("ws://", "http://") + str(answer["path"]))
    assert status == 200
    assert page == written.read_text()
    # every event of the campaign counted, the sealed one among them; two rolls judged
    head = ack.seqs[-1]
    assert f"{head} events." in page
    assert f"<p class=note>{head} events, " in page
    assert re.search(r"<tr><td>1</td><td>One</td><td>\d+</td><td>2</td>", page)



async def _not_found(table: Table) -> str:
    """The page a link no process issued gets (404)."""
    origin = table.url.replace("ws://", "http://")
    status, _, page = await _fetch(origin + "/report/" + "A" * 32)
    assert status == 404
    return page


async def test_a_link_not_found_on_one_process_says_used_or_too_old(table: Table) -> None:
    """On a log of one process (SQLite) a link not found was used or is too old."""
    page = await _not_found(table)
    assert "This report link was used already or is too old: ask the table" in page, page
    assert "another poolhall release" not in page


async def test_a_link_not_found_on_a_shared_log_may_be_of_another_release(
        pg_table: Table) -> None:
    """On a shared log (PostgreSQL) the 404 also says the link may have been made by a
    server of another release: one of 0.2.0.dev0, serving beside this release during an
    upgrade, keeps its links in its own memory (the page said "used already or is too old",
    which sent an operator looking for a bug)."""
    page = await _not_found(pg_table)
    assert ("This report link was used already, is too old, or was made by a server of"
            " another poolhall release (while the servers are being upgraded): ask the table"
            " for the report again.") in page, page
