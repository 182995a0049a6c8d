"""The hub's batch logic without a socket, a server or a database: commands go in as values,
the append's results are built as plain values, and what comes out (frames, answers, requests,
a reload, commands decided again) is checked as values, like websockets' protocol tests.

The same paths through a real server are ``test_group_commit.py``,
``test_idempotency_and_races.py``, ``test_several_servers.py``, ``test_private_rolls.py`` and
``test_log_faults.py``.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from poolhall.events import core
from poolhall.events.errors import ConcurrencyError, StoreError
from poolhall.events.fair import SeedCommitted, commitment
from poolhall.events.log import Appended, AppendResult, CommandRecord, StoredRow, prepare
from poolhall.events.messages import Ack, ErrorReply
from poolhall.server.command_index import CommandIndex
from poolhall.server.hub_core import HubCore, Publish, Recall, Reply
from poolhall.server.hub_work import CommandWork
from poolhall.server.rules.fairness import EpochSeeds
from tests.narrative.narrative_support import Table

SEEDS = [hashlib.sha256(f"hub core {n}".encode()).digest() for n in range(4)]
AT = "2024-01-01T00:00:00.000Z"


def make_core() -> tuple[HubCore, Table]:
    """A narrative table (a GM, Han's and Leia's players, a spectator) in epoch 1, and a core
    deciding on its state with fixed seeds."""
    table = Table()
    table.fold(SeedCommitted(epoch=1, commitment=commitment(SEEDS[1])))
    core_ = HubCore(state=table.state, commands=CommandIndex(None, "c"), head_hash="h0",
                    public=None, new_token=lambda: "t" * 32,
                    seeds=lambda state, at: EpochSeeds(current=SEEDS[1], following=SEEDS[2],
                                                       now=at))
    return core_, table


def work(table: Table, member: str, command: Any) -> CommandWork:
    """A member's command as the shell hands it in (the core never touches where it is
    answered)."""
    return CommandWork(command=command, member=table.state.members[member],
                       subscriber=None, answered=lambda: None)  # type: ignore[arg-type]


def roll(command_id: str, **fields: Any) -> core.Roll:
    return core.Roll(id=command_id, expression="1d6", **fields)


def appended(first: int, count: int = 1) -> Appended:
    """What the log answers for a request it stored as ``first`` on."""
    seqs = Appended(range(first, first + count))
    seqs.hashes = [f"hash{seq}" for seq in seqs]
    return seqs


def answers(effects: list[Any]) -> list[Ack | ErrorReply | Recall]:
    return [effect.answer for effect in effects if isinstance(effect, Reply)]


def event_of(frame: bytes) -> dict[str, Any]:
    decoded: dict[str, Any] = msgspec.json.decode(frame)
    return decoded


def test_a_batch_is_decided_in_order_then_broadcast_and_answered_from_its_results() -> None:
    """Each decision sees the one before; frames and answers come only from the results."""
    hub, table = make_core()
    head = table.state.head
    batch = [work(table, "gm", roll("a")), work(table, "han-player", roll("b", character="han"))]
    decided = hub.decide(batch, AT)
    assert decided.replies == []
    assert [r.expected_head for r in decided.requests] == [head, head + 1]
    assert table.state.head == head + 2  # folded at once, before the append
    settled = hub.settle(decided, [appended(head + 1), appended(head + 2)])
    assert settled.reload is None
    assert settled.again == []
    kinds = [type(effect).__name__ for effect in settled.effects]
    assert kinds == ["Publish", "Reply", "Publish", "Reply"]  # each answer after its events
    assert answers(settled.effects) == [Ack(id="a", seqs=[head + 1]),
                                        Ack(id="b", seqs=[head + 2])]
    publish = settled.effects[0]
    assert isinstance(publish, Publish)
    assert publish.sealed is None
    assert event_of(publish.frame)["hash"] == f"hash{head + 1}"
    assert len(settled.changed) == 2
    assert hub.head_hash == f"hash{head + 2}"
    assert hub.sent == head + 2
    assert hub.commands.get("b") == CommandRecord("han-player", head + 2, head + 2)


def test_a_retry_by_its_sender_is_answered_from_its_record() -> None:
    """A command id carried out before is not decided again: its record is fetched."""
    hub, table = make_core()
    record = CommandRecord("han-player", 3, 3)
    hub.commands.add("a", record)
    decided = hub.decide([work(table, "han-player", roll("a", character="han"))], AT)
    assert decided.requests == []
    (answer,) = answers(decided.replies)
    assert isinstance(answer, Recall)
    assert answer.record == record


def test_a_command_id_another_member_used_is_a_conflict() -> None:
    """Another member's command id is refused, whether recorded before or earlier in the
    batch."""
    hub, table = make_core()
    hub.commands.add("a", CommandRecord("gm", 3, 3))
    decided = hub.decide([work(table, "han-player", roll("a", character="han")),
                          work(table, "gm", roll("b")),
                          work(table, "leia-player", roll("b", character="leia"))], AT)
    assert [(a.id, a.code, a.path) for a in answers(decided.replies)
            if isinstance(a, ErrorReply)] == [("a", "conflict", "$.id"),
                                              ("b", "conflict", "$.id")]
    assert [r.command_id for r in decided.requests] == ["b"]


def test_the_same_command_twice_in_a_batch_is_answered_once_with_the_first_answer() -> None:
    """The second is not decided: it gets the first's answer once that is durable."""
    hub, table = make_core()
    head = table.state.head
    batch = [work(table, "gm", roll("a")), work(table, "gm", roll("a"))]
    decided = hub.decide(batch, AT)
    assert len(decided.requests) == 1
    settled = hub.settle(decided, [appended(head + 1)])
    first, second = answers(settled.effects)
    assert first is second
    assert first == Ack(id="a", seqs=[head + 1])


def test_a_command_the_log_recorded_already_reloads_and_is_answered_from_its_record() -> None:
    """A retry of a command older than the index holds, or one another process stored
    first: decided, it is refused by the log's unique command id, which answers with its
    record (one fetch for both copies in the batch); the state, ahead of the log, is
    reloaded."""
    hub, table = make_core()
    batch = [work(table, "gm", roll("a")), work(table, "gm", roll("a"))]
    decided = hub.decide(batch, AT)
    record = CommandRecord("gm", 9, 9)
    settled = hub.settle(decided, [record])
    first, second = answers(settled.effects)
    assert isinstance(first, Recall)
    assert first is second
    assert first.record == record
    assert settled.reload == "retried"
    assert settled.changed == []
    assert not any(isinstance(effect, Publish) for effect in settled.effects)


def test_a_new_command_is_decided_without_reading_the_log() -> None:
    """A command id the index does not hold is decided at once (the log's unique key
    catches an old one's retry); only a refusal leaves its id to be read in the log."""
    hub, table = make_core()
    decided = hub.decide([work(table, "gm", roll("a")),
                          work(table, "gm", core.Roll(id="b", expression="1d6 and a half"))], AT)
    assert [request.command_id for request in decided.requests] == ["a"]
    assert decided.unsure == {"b"}


def test_an_old_command_refused_when_decided_again_is_answered_from_its_record() -> None:
    """Han's retry of a command the log recorded long ago, refused when decided again
    (Han's character was created by it, say), gets its first answer once the shell has
    read the id in the log; Leia's use of it is a conflict; an id the log lacks keeps its
    refusal; and if the log cannot be read, the refusals are ``unavailable`` (retry), never
    a wrong answer."""
    hub, table = make_core()
    bad = "1d6 and a half"
    batch = [work(table, "han-player", core.Roll(id=i, expression=bad, character="han"))
             for i in ("old", "leias", "new")]
    decided = hub.decide(batch, AT)
    assert decided.unsure == {"old", "leias", "new"}
    refused = answers(hub.answer_recorded(decided.replies, decided.unsure, read=False))
    assert [(a.id, a.code) for a in refused if isinstance(a, ErrorReply)] == [
        ("old", "unavailable"), ("leias", "unavailable"), ("new", "unavailable")]
    hub.commands.add("old", CommandRecord("han-player", 5, 6))  # what the shell read
    hub.commands.add("leias", CommandRecord("leia-player", 7, 7))
    old, leias, new = answers(hub.answer_recorded(decided.replies, decided.unsure, read=True))
    assert isinstance(old, Recall)
    assert old.record == CommandRecord("han-player", 5, 6)
    assert isinstance(leias, ErrorReply)
    assert (leias.code, leias.path) == ("conflict", "$.id")
    assert isinstance(new, ErrorReply)
    assert (new.code, new.path) == ("invalid", "$.expression")


def test_a_lost_race_is_decided_again_without_an_answer() -> None:
    """Another process appended first: the command is decided again after a reload, and its
    sender hears nothing of it; the others of the batch are answered."""
    hub, table = make_core()
    head = table.state.head
    batch = [work(table, "gm", roll("a")), work(table, "gm", roll("b"))]
    decided = hub.decide(batch, AT)
    results: list[AppendResult] = [appended(head + 1), ConcurrencyError("head moved")]
    settled = hub.settle(decided, results)
    assert settled.again == [batch[1]]
    assert settled.reload == "conflict"
    assert answers(settled.effects) == [Ack(id="a", seqs=[head + 1])]


def test_a_race_lost_for_too_long_is_answered_unavailable() -> None:
    """Past ``RETRY_SECONDS`` the command is refused as not stored, and the state reloaded."""
    hub, table = make_core()
    decided = hub.decide([work(table, "gm", roll("a"))], AT)
    settled = hub.settle(decided, [ConcurrencyError("head moved")], may_retry=False)
    assert settled.again == []
    assert settled.reload == "failed"
    (answer,) = answers(settled.effects)
    assert isinstance(answer, ErrorReply)
    assert answer.code == "unavailable"


def test_a_failed_append_broadcasts_nothing_answers_unavailable_and_reloads() -> None:
    """Nothing stored: no frame, every command told to retry, the state made durable again."""
    hub, table = make_core()
    batch = [work(table, "gm", roll("a")), work(table, "gm", roll("a")),
             work(table, "gm", roll("b"))]
    decided = hub.decide(batch, AT)
    error = StoreError("disk I/O error")
    settled = hub.settle(decided, [error, error])
    assert settled.reload == "failed"
    assert settled.changed == []
    assert all(isinstance(effect, Reply) for effect in settled.effects)
    assert [(a.id, a.code) for a in answers(settled.effects)  # type: ignore[union-attr]
            ] == [("a", "unavailable"), ("a", "unavailable"), ("b", "unavailable")]
    assert hub.head_hash == "h0"
    assert "a" not in hub.commands


def test_a_refused_command_is_answered_at_once_and_not_appended() -> None:
    """A rule's refusal needs no append: it is answered before the batch is stored."""
    hub, table = make_core()
    decided = hub.decide([work(table, "han-player", roll("a", visibility="gm"))], AT)
    assert decided.requests == []
    (answer,) = answers(decided.replies)
    assert isinstance(answer, ErrorReply)
    assert (answer.code, answer.path) == (
        "forbidden", "$.visibility")


def test_while_the_log_fails_only_retries_are_admitted() -> None:
    """New commands are refused undecided with the health's reason; retries go on."""
    hub, table = make_core()
    hub.commands.add("old", CommandRecord("gm", 3, 3))
    batch = [work(table, "gm", roll("new")), work(table, "gm", roll("old"))]
    rest, refused = hub.admit(batch, "the disk is nearly full")
    assert rest == [batch[1]]
    assert answers(refused) == [ErrorReply(id="new", code="unavailable", path=None,
                                           message="the disk is nearly full")]
    assert hub.admit(batch, None) == (batch, [])


def test_a_private_roll_goes_sealed_to_a_player_and_whole_to_the_gm() -> None:
    """A GM's secret roll: whole to the GM and the admin, a ``private_roll`` to the others;
    the public table leaves it out."""
    hub, table = make_core()
    head = table.state.head
    decided = hub.decide([work(table, "gm", roll("a", visibility="gm"))], AT)
    settled = hub.settle(decided, [appended(head + 1)])
    publish = settled.effects[0]
    assert isinstance(publish, Publish)
    assert publish.sealed is not None
    assert publish.frame_for("gm") == publish.frame_for(None) == publish.frame
    sealed = event_of(publish.frame_for("han-player"))
    # its place among the epoch's rolls, nothing of its dice (a verifier's nonces go on)
    whole = event_of(publish.frame)["event"]
    assert sealed["event"] == {"type": "private_roll", "visibility": "gm", "fair": whole["fair"]}
    assert sealed["hash"] == ""
    assert sealed["seq"] == head + 1
    assert event_of(publish.frame)["event"]["type"] == "dice_rolled"
    assert hub.public.for_member(hub.state, "han-player") is not hub.state


def test_a_players_self_roll_is_whole_to_them_and_the_gm_only() -> None:
    """``self``: the roller and the GM see it; the other player and the spectator do not."""
    hub, table = make_core()
    head = table.state.head
    decided = hub.decide([work(table, "han-player", roll("a", character="han",
                                                         visibility="self"))], AT)
    publish = hub.settle(decided, [appended(head + 1)]).effects[0]
    assert isinstance(publish, Publish)
    assert [publish.frame_for(m) == publish.frame
            for m in ("han-player", "gm", "leia-player", "watcher")] == [True, True, False, False]


def _watcher_removed_row(seq: int) -> StoredRow:
    """The row another process appended: the GM removed the watcher (command ``x``)."""
    stored = prepare(core.MemberRemoved(member="watcher"))
    return StoredRow(seq=seq, type=stored.type, version=stored.version,
                     payload=stored.payload, at=AT, actor="gm", command_id="x", hash="hx")


def test_rows_another_process_appended_are_folded_and_published() -> None:
    """On a shared log another process's events are folded, indexed and broadcast."""
    hub, table = make_core()
    head = table.state.head
    row = _watcher_removed_row(head + 1)
    publishes, events = hub.take_rows([row], fold=True)
    assert [p.seq for p in publishes] == [head + 1]
    assert len(events) == 1
    assert hub.state.head == head + 1
    assert hub.head_hash == "hx"
    assert hub.sent == head + 1
    assert not hub.state.members["watcher"].active
    assert hub.commands.get("x") == CommandRecord("gm", head + 1, head + 1)


def test_rows_a_reload_already_folded_are_only_published() -> None:
    """After a reload the state has them: they are broadcast, not folded twice."""
    hub, table = make_core()
    head = table.state.head
    row = _watcher_removed_row(head + 1)
    publishes, _ = hub.take_rows([row], fold=False)
    assert [p.seq for p in publishes] == [head + 1]
    assert hub.sent == head + 1
    assert hub.state.head == head
    assert hub.head_hash == "h0"
