"""Private rolls (gm, blind, self) against the real server: frame by frame, for each role,
nothing of a private roll reaches whoever may not see it until its session ends.

Each private roll carries a marker in its ``reason`` that no other event holds, so a search
of the raw text of every frame a connection received finds any leak of the event itself; the
sealed frames are counted, and their hash is checked empty (a chain hash of a small payload
could be searched for the roll that gives it). Every path is tried: live frames, a join's
snapshot, a catch-up, history pages, ``state_at``, the ``table`` message, the views (a GM's
secret check has odds), a replay link shared mid-session, a restart, and the report page;
then the session ends, every member receives the rolls whole (``revealed``), and every path
shows them.
"""

from __future__ import annotations

import json

import pytest

from poolhall.clients.client import Client
from poolhall.events import core
from poolhall.events import narrative as n
from poolhall.events.errors import CommandRejected
from poolhall.projections.narrative import GameState as NarrativeState
from tests.conftest import Table, until
from tests.narrative.narrative_support import HAN, LEIA
from tests.server.raw import RawPeer
from tests.server.test_lazy_campaigns import restart
from tests.server.test_token_hashes_withheld import _Listening, _raw, _report_page

MARKERS = {"gm": "gm-secret-perception", "blind": "ann-blind-stealth",
           "self": "ann-self-insight", "check": "gm-secret-check"}
"""The reason of each private roll: found in a frame, it is that roll's event leaking."""

CAN_SEE = {  # who may see which marker before the session ends
    "gm": set(MARKERS),
    "ann": {"self"},
    "bob": set(),
    "watcher": set(),
}


def _seen(texts: list[str]) -> set[str]:
    return {name for name, marker in MARKERS.items() if any(marker in t for t in texts)}


def _sealed(texts: list[str]) -> list[dict[str, object]]:
    frames = [json.loads(t) for t in texts if '"private_roll"' in t]
    return [f for f in frames if f.get("type") == "event"]


async def _session_with_private_rolls(table: Table) -> tuple[str, dict[str, Client], int]:
    """A narrative campaign mid-session with one roll of each visibility and a GM's secret
    check; returns the campaign, the clients by name and the head."""
    campaign, gm = await table.create_campaign("narrative")
    await gm.call(core.CreateCharacter, character="han", name="Han", stats=HAN)
    await gm.call(core.CreateCharacter, character="leia", name="Leia", stats=LEIA)
    ann = await table.invite(gm, "player", ("han",), name="Ann")
    bob = await table.invite(gm, "player", ("leia",), name="Bob")
    watcher = await table.invite(gm, "spectator", name="Watcher")
    await gm.call(core.StartSession, title="One")
    await gm.call(core.Roll, expression="1d20", reason=MARKERS["gm"], visibility="gm")
    await ann.call(n.RollPool, pool=n.Pool(ability=2, difficulty=1), character="han",
                   reason=MARKERS["blind"], visibility="blind")
    await ann.call(core.Roll, expression="2d6", character="han", reason=MARKERS["self"],
                   visibility="self")
    opened = await gm.call(n.OpenCheck, character="leia", skill="Leadership",
                           reason=MARKERS["check"], visibility="gm")
    await gm.call(n.AddDice, check=f"secret-{opened.seqs[0]}", kind="difficulty", count=2)
    head = (await gm.call(core.Roll, expression="1d4", reason="in the open")).seqs[-1]
    return campaign, {"gm": gm, "ann": ann, "bob": bob, "watcher": watcher}, head


async def _join(table: Table, join: dict[str, object]) -> _Listening:
    """A raw connection joined with ``join`` (which may name ``table``: the page's join)."""
    peer = await RawPeer.open(table.url)
    await peer.send({"type": "join", **join})
    listening = _Listening(peer)
    await listening.recv_until("welcome")
    return listening


async def _every_path(table: Table, campaign: str, token: str, head: int) -> list[str]:
    """The text of every frame ``token`` gets from a snapshot, a catch-up, history pages,
    ``state_at`` and the table message."""
    fresh = await _join(table, {"token": token, "campaign": campaign, "since": 0,
                                "table": True})
    await fresh.recv_until("snapshot")
    await fresh.recv_until("table")
    caught = await _raw(table, token, campaign, since=0, replay=True)
    while f'"seq":{head},' not in caught.texts[-1]:
        await caught.recv_until("event")
    await caught.peer.send({"type": "history", "id": "history-0001", "before": head + 1,
                            "limit": 100})
    await caught.recv_until("history")
    await caught.peer.send({"type": "state_at", "id": "state-at-0001", "seq": head,
                            "views": True})
    await caught.recv_until("snapshot")
    await caught.recv_until("views_at")
    texts = fresh.texts + caught.texts
    for listening in (fresh, caught):
        await listening.peer.close()
    return texts


async def _replay_link_paths(table: Table, campaign: str, token: str, seq: int) -> list[str]:
    """The text of every frame a replay link gets: its welcome, a history page and
    ``state_at`` (a link reads its replay and nothing live)."""
    link = await _join(table, {"token": token, "campaign": campaign})
    await link.peer.send({"type": "history", "id": "history-0001", "before": seq + 1,
                          "limit": 100})
    await link.recv_until("history")
    await link.peer.send({"type": "state_at", "id": "state-at-0001", "seq": seq})
    await link.recv_until("snapshot")
    await link.peer.close()
    return link.texts


async def test_private_rolls_reach_only_who_may_see_them(table: Table) -> None:
    """Live, snapshot, catch-up, history, state_at, table, views, after a restart and in the
    report: each role sees exactly the private rolls it may; the others come sealed, hashless;
    the session's end reveals them all to everyone."""
    await restart(table)  # rates for a test that reads much at once
    campaign, clients, head = await _session_with_private_rolls(table)
    tokens = {name: client._token for name, client in clients.items()}

    for name, token in tokens.items():
        texts = await _every_path(table, campaign, token, head)
        assert _seen(texts) == CAN_SEE[name], name
        sealed = _sealed(texts)
        assert all(frame["hash"] == "" for frame in sealed), name
        if name != "gm":
            assert sealed, name
            assert not any('"about":"check:secret-' in t for t in texts), name
        else:
            assert not sealed
            assert any('"about":"check:secret-' in t for t in texts)
    for session in (1, None):  # a replay link shared mid-session is no GM either
        link = await clients["gm"].call(core.ShareReplay, session=session)
        assert link.token
        texts = await _replay_link_paths(table, campaign, link.token, head)
        assert _seen(texts) == set(), session
        assert any('"private_roll"' in t for t in texts), session  # in its history page
    for name, client in clients.items():  # what the Python clients folded live
        received = [recorded.event for recorded in client.drain()]
        kinds = {type(event).__name__ for event in received}
        assert ("PrivateRoll" in kinds) == (name != "gm"), name
    await until(lambda: any(v.startswith("check:secret-") for v in clients["gm"].views))
    await clients["gm"].call(core.Roll, expression="1d4", reason="after the odds")
    for name in ("ann", "bob", "watcher"):  # the live views: the secret check's went nowhere
        await clients[name].wait_for_seq(head + 1)
        assert not any(v.startswith("check:secret-") for v in clients[name].views), name
    head += 1

    await restart(table)  # the public table and the seals are rebuilt from the log
    for name, token in tokens.items():
        texts = await _every_path(table, campaign, token, head)
        assert _seen(texts) == CAN_SEE[name], name
    pages = {}
    for name in ("gm", "bob"):  # the only d20 was the GM's secret roll: its face chart
        status, pages[name] = await _report_page(table, tokens[name], campaign)
        assert status == 200
    assert "d20" in pages["gm"]
    assert "d20" not in pages["bob"]

    live = {name: await _raw(table, token, campaign, since=head)
            for name, token in tokens.items()}
    gm = await table.connect(campaign, tokens["gm"])
    assert isinstance(gm.state.game, NarrativeState)
    (secret,) = [c for c in gm.state.game.checks if c.startswith("secret-")]
    await gm.call(n.CancelCheck, check=secret)  # a session ends over no unfinished secret
    await gm.call(core.EndSession)
    for name, listening in live.items():
        text = await listening.recv_until("revealed")
        assert _seen([text]) == set(MARKERS), name
        assert all(frame["hash"] for frame in json.loads(text)["events"])
        await listening.peer.close()
    for name, token in tokens.items():
        assert _seen(await _every_path(table, campaign, token, head)) == set(MARKERS), name
    status, page = await _report_page(table, tokens["bob"], campaign)
    assert status == 200
    assert "d20" in page


async def test_visibility_refusals_name_the_rule_and_append_nothing(table: Table) -> None:
    """A player may not roll as the GM, the GM's secret roll is ``gm``, a player's private
    roll is one-shot, a private SR3 test draws no pool dice; a player acting on a check they
    may not see is told it does not exist. Each refusal appends nothing."""
    campaign, clients, head = await _session_with_private_rolls(table)
    gm, ann = clients["gm"], clients["ann"]
    assert isinstance(gm.state.game, NarrativeState)
    (secret,) = [c for c in gm.state.game.checks if c.startswith("secret-")]
    cases = [
        (ann, core.Roll, {"expression": "1d6", "visibility": "gm"}, "forbidden"),
        (gm, core.Roll, {"expression": "1d6", "visibility": "blind"}, "invalid"),
        (ann, n.OpenCheck, {"character": "han", "skill": "Cool", "visibility": "self"},
         "rule"),
        (ann, n.AddDice, {"check": secret, "kind": "boost"}, "not_found"),
    ]
    for client, command, fields, code in cases:
        with pytest.raises(CommandRejected) as refused:
            await client.call(command, **fields)
        assert refused.value.code == code, (command, refused.value)
        path = "$.check" if code == "not_found" else "$.visibility"
        assert refused.value.path == path
    assert gm.state.head == head


async def test_a_welcome_hides_the_hash_of_a_private_head(table: Table) -> None:
    """A member joining when the head is a roll they may not see gets no head hash (the GM
    gets it), and resumes from it without being told the history diverged."""
    campaign, gm = await table.create_campaign("d12")
    bob = await table.invite(gm, "player", name="Bob")
    ack = await gm.call(core.Roll, expression="1d12", reason="secret", visibility="gm")
    joined: _Listening = await _raw(table, bob._token, campaign, since=0)
    welcome = json.loads(joined.texts[0])
    assert welcome["head"] == ack.seqs[-1]
    assert welcome["head_hash"] == ""
    gm_join = await _raw(table, gm._token, campaign, since=0)
    assert json.loads(gm_join.texts[0])["head_hash"]
    again = await table.connect(campaign, bob._token)
    assert again.head == ack.seqs[-1]
    for listening in (joined, gm_join):
        await listening.peer.close()
