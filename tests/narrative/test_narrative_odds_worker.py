"""Live odds come from a worker process: the loop serves every table while they are computed."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import urllib.request
from pathlib import Path
from typing import Any

from poolhall.events import core
from poolhall.events import narrative as n
from poolhall.server.app import Server
from poolhall.server.settings import Settings
from tests.conftest import ADMIN_TOKEN, Table
from tests.narrative.narrative_support import HAN


async def _check(table: Any) -> tuple[Any, dict[str, Any]]:
    """A GM with Han's shot open (2y1g) and its first odds received: the worker is running."""
    _, gm = await table.create_campaign("narrative")
    await gm.call(core.CreateCharacter, character="han", name="Han", stats=HAN)
    await gm.call(n.OpenCheck, character="han", skill="Ranged (Light)", check="shot")
    view = await gm.wait_until(lambda: gm.views.get("check:shot"))
    assert view.odds.pool == "2y1g"
    return gm, view


def _health(port: int) -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10) as reply:
        return reply.status  # type: ignore[no-any-return]


async def test_other_tables_are_served_while_odds_are_computed(table: Any) -> None:
    """With the odds worker frozen mid-computation, another campaign still rolls and /health
    answers; the odds follow once the worker runs again."""
    gm, _ = await _check(table)
    (worker,) = table.server.view_workers.pids()
    _, other = await table.create_campaign("narrative", name="Another Table")
    os.kill(worker, signal.SIGSTOP)
    try:
        await gm.call(n.AddDice, check="shot", kind="boost")
        ack = await other.call(core.Roll, expression="2d6")
        await other.wait_for_seq(ack.seqs[-1])
        assert await asyncio.to_thread(_health, table.server.port) == 200
        assert gm.views["check:shot"].pool == "2y1g"  # the new odds are still owed
    finally:
        os.kill(worker, signal.SIGCONT)
    view = await gm.wait_until(lambda: gm.views["check:shot"].pool == "2y1g1b"
                               and gm.views["check:shot"])
    assert view.odds.pool == "2y1g1b"


async def test_a_burst_of_changes_is_computed_once_for_the_latest_pool(table: Any) -> None:
    """Eight changes while a computation is in flight: one more computation, for the final
    pool, and that is the view the table ends with."""
    gm, _ = await _check(table)
    (worker,) = table.server.view_workers.pids()
    queue = table.server.hubs[gm.campaign].view_queue
    before = queue.started
    os.kill(worker, signal.SIGSTOP)
    try:
        for _ in range(8):
            await gm.call(n.AddDice, check="shot", kind="setback")
    finally:
        os.kill(worker, signal.SIGCONT)
    view = await gm.wait_until(lambda: (v := gm.views["check:shot"]).pool == "2y1g8k" and v)
    assert view.odds.pool == "2y1g8k"
    assert queue.started - before == 2  # the first change's, then the last one's


async def test_a_killed_worker_is_replaced_and_its_odds_computed(table: Any) -> None:
    """The odds worker killed: the next odds come from a new worker, none is lost."""
    gm, _ = await _check(table)
    (worker,) = table.server.view_workers.pids()
    os.kill(worker, signal.SIGKILL)
    await gm.call(n.AddDice, check="shot", kind="boost")
    view = await gm.wait_until(lambda: (v := gm.views["check:shot"]).pool == "2y1g1b" and v)
    assert view.odds.pool == "2y1g1b"
    assert view.note == ""
    assert worker not in table.server.view_workers.pids()


async def test_shutdown_does_not_wait_for_a_stuck_worker(table: Any) -> None:
    """A server stops while its worker hangs mid-computation; the worker is gone with it."""
    gm, _ = await _check(table)
    (worker,) = table.server.view_workers.pids()
    os.kill(worker, signal.SIGSTOP)
    await gm.call(n.AddDice, check="shot", kind="boost")
    await table.server.stop()
    try:
        os.kill(worker, signal.SIGCONT)
    except ProcessLookupError:
        pass
    else:
        raise AssertionError("the worker outlived the server")


async def test_a_pool_past_the_limit_says_its_odds_were_not_computed(table: Any) -> None:
    """Past 20 dice the view arrives without odds and says why."""
    gm, _ = await _check(table)
    await gm.call(n.AddDice, check="shot", kind="setback", count=9)
    await gm.call(n.AddDice, check="shot", kind="setback", count=9)
    view = await gm.wait_until(lambda: (v := gm.views["check:shot"]).pool == "2y1g18k" and v)
    assert view.odds is None
    assert view.note.startswith("odds not computed: more than 20 dice")


async def test_odds_over_the_time_budget_say_they_were_not_computed(tmp_path: Path) -> None:
    """A computation past the operator's time budget stops; the view says it took too long."""
    server = Server(tmp_path / "poolhall.db", "127.0.0.1", 0, rng=random.Random(1),
                    admin_token=ADMIN_TOKEN, settings=Settings(view_budget=0.001))
    await server.start()
    table = Table(server, tmp_path / "poolhall.db")
    try:
        _, gm = await table.create_campaign("narrative")
        await gm.call(core.CreateCharacter, character="han", name="Han", stats=HAN)
        await gm.call(n.OpenCheck, character="han", skill="Ranged (Light)", check="shot")
        await gm.call(n.AddDice, check="shot", kind="ability", count=8)
        await gm.call(n.AddDice, check="shot", kind="difficulty", count=8)
        view = await gm.wait_until(lambda: isinstance(v := gm.views.get("check:shot"),
                                                      n.NarrativeCheckOdds)
                                   and v.pool == "2y9g8p" and v)
        assert view.odds is None  # 19 dice: tens of milliseconds of work, budget 1 ms
        assert view.note == "odds not computed: took longer than 0.001s"
    finally:
        await table.close_clients()
        await server.stop()


async def test_a_join_never_waits_for_odds(table: Any) -> None:
    """Joining while odds are computed: the welcome comes at once, the odds when ready, and
    later joins reuse them without computing again."""
    gm, _ = await _check(table)
    (worker,) = table.server.view_workers.pids()
    queue = table.server.hubs[gm.campaign].view_queue
    os.kill(worker, signal.SIGSTOP)
    try:
        await gm.call(n.AddDice, check="shot", kind="boost")
        late = await table.connect(gm.campaign, gm._token)  # joined: the welcome came
        assert late.views.get("check:shot") is None
    finally:
        os.kill(worker, signal.SIGCONT)
    view = await late.wait_until(lambda: late.views.get("check:shot"))
    assert view.pool == view.odds.pool == "2y1g1b"
    started = queue.started
    for _ in range(3):
        later = await table.connect(gm.campaign, gm._token)
        await later.wait_until(lambda later=later: later.views.get("check:shot"))
    assert queue.started == started
