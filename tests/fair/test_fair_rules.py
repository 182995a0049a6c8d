"""The fair rolls' rules: every system's dice stamped and derived, epochs ended when they
should be, a reveal that does not match refused, and what ``verify`` reports."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from poolhall.events import core, d12, narrative, sr3
from poolhall.events.base import Event, Recorded
from poolhall.events.dice import RolledTerm
from poolhall.events.errors import Rejected
from poolhall.events.fair import (
    DieStream,
    RotateSeed,
    SeedCommitted,
    SeedRevealed,
    SetClientSeed,
    client_seeds_digest,
    commitment,
)
from poolhall.projections.fair_draws import DRAWS, draws_of
from poolhall.projections.fair_verify import check_campaign
from poolhall.server.rules import fairness
from poolhall.server.rules.fairness import EpochSeeds
from tests.d12.d12_support import Table as D12Table
from tests.narrative.narrative_support import Table as NarrativeTable
from tests.rules_table import RulesTable
from tests.sr3.sr3_support import Table as Sr3Table

SEEDS = [hashlib.sha256(f"seed {n}".encode()).digest() for n in range(4)]
NOW = "2024-01-01T00:00:00.000Z"


def fair(table: RulesTable, epoch: int = 1) -> None:
    """Commit epoch 1 in the table's log and roll with the server's derivation from now on."""
    table.fold(SeedCommitted(epoch=epoch, commitment=commitment(SEEDS[epoch])))
    table.seeds = EpochSeeds(current=SEEDS[epoch], following=SEEDS[epoch + 1], now=NOW)


def check_derived(table: RulesTable, events: list[Event]) -> None:
    """Every dice event of ``events`` is stamped and its faces are the derivation's."""
    stamped: list[Any] = [e for e in events if type(e) in DRAWS]  # each with ``fair``
    assert stamped, "the command rolled no dice"
    stamp = stamped[0].fair
    assert stamp is not None
    assert all(e.fair == stamp for e in stamped)
    stream = DieStream(SEEDS[stamp.epoch], "c", stamp.epoch, bytes.fromhex(stamp.seeds),
                       stamp.nonce)
    for event in stamped:
        draws = draws_of(event)
        assert draws is not None
        assert [stream.face(sides) for sides, _ in draws] == [face for _, face in draws]


def test_every_dice_event_carries_a_stamp() -> None:
    """Each event type that holds dice has the ``fair`` field the server stamps."""
    for cls in DRAWS:
        assert "fair" in cls.__struct_fields__, cls.__name__


def test_d12_pools_and_the_dice_joining_an_extended_test_are_derived() -> None:
    """A basic test's d12s, then every round of an extended test, come from the seed."""
    table = D12Table()
    fair(table)
    check_derived(table, table.run("gm", d12.RollBasicTest, dice=4, dt=7,
                                   character="han"))
    assert table.state.fair.rolls == 1


def test_sr3_tests_rule_of_six_karma_and_initiative_are_derived() -> None:
    """An SR3 test with its Rule-of-Six chains, a Karma reroll and initiative."""
    table = Sr3Table()
    fair(table)
    (rolled,) = table.run("sam-player", sr3.RollPoolTest, character="sam", dice=8, tn=9)
    assert isinstance(rolled, sr3.PoolTestRolled)
    check_derived(table, [rolled])
    check_derived(table, table.run("sam-player", sr3.RerollWithKarma, test=rolled.test,
                                   character="sam"))
    check_derived(table, table.run("gm", sr3.StartCombat))
    assert [r.fair.nonce for r in (rolled,) if r.fair] == [0]
    assert table.state.fair.rolls == 3


def test_narrative_pools_force_dice_and_the_destiny_pool_are_derived() -> None:
    """A free pool of every kind, the destiny pool, and a player's own seed mixed in."""
    table = NarrativeTable()
    fair(table)
    player = next(m for m, v in table.state.members.items() if v.role == "player")
    table.run(player, SetClientSeed, seed="my-own")
    events = table.run(player, narrative.RollPool, pool=narrative.Pool(
        proficiency=1, ability=1, difficulty=1, challenge=1, boost=1, setback=1, force=1))
    check_derived(table, events)
    assert isinstance(events[0], narrative.PoolRolled)
    assert events[0].fair is not None
    assert events[0].fair.seeds == client_seeds_digest({player: "my-own"}).hex()
    table.run("gm", core.StartSession, title="One")  # the destiny pool is rolled in one
    table.seeds = EpochSeeds(current=SEEDS[2], following=SEEDS[3], now=NOW)  # its new epoch
    check_derived(table, table.run("gm", narrative.RollDestinyPool))


def test_a_reveal_that_does_not_match_its_commitment_is_refused() -> None:
    """The GM ends the session but the seed held is not the one committed: refused."""
    table = D12Table()
    fair(table)
    table.run("gm", core.StartSession)
    table.seeds = EpochSeeds(current=SEEDS[0], following=SEEDS[3], now=NOW)  # epoch 2's
    head = table.state.head
    with pytest.raises(Rejected) as refusal:
        table.decide("gm", core.EndSession)
    assert "does not match its commitment" in refusal.value.message
    assert table.state.head == head


def test_sessions_and_rotation_end_epochs_only_the_gm_rotates() -> None:
    """A session start and a GM's rotation reveal the epoch and commit the next."""
    table = D12Table()
    fair(table)
    events = table.run("gm", core.StartSession)
    assert [type(e) for e in events] == [core.GameSessionStarted, SeedRevealed, SeedCommitted]
    assert isinstance(events[1], SeedRevealed)
    assert isinstance(events[2], SeedCommitted)
    assert events[1].seed == SEEDS[1].hex()
    assert events[2].session == 1
    with pytest.raises(Rejected) as refusal:
        table.decide("han-player", RotateSeed)
    assert refusal.value.code == "forbidden"


def test_an_epoch_ends_by_itself_after_its_rolls_or_hours() -> None:
    """The roll that makes ROTATE_ROLLS rolls, or the first one ROTATE_HOURS after the
    commitment, reveals the epoch."""
    table = D12Table()
    fair(table)
    table.state.fair.rolls = fairness.ROTATE_ROLLS - 1
    events = table.run("gm", d12.RollBasicTest, dice=2, dt=7, character="han")
    # mypy joins these two classes' constructors (kw-only, both with ``epoch``) into a callable
    # that is no type[Event]: a false positive
    assert [type(e) for e in events][-2:] == [SeedRevealed, SeedCommitted]  # type: ignore[list-item]
    assert isinstance(events[-2], SeedRevealed)
    assert events[-2].rolls == fairness.ROTATE_ROLLS
    table.seeds = EpochSeeds(current=SEEDS[2], following=SEEDS[3],
                             now="2024-01-01T12:00:00.000Z")
    events = table.run("gm", d12.RollBasicTest, dice=2, dt=7, character="han")
    assert isinstance(events[-1], SeedCommitted)
    assert events[-1].epoch == 3


def _log(*events: Event) -> list[Recorded]:
    return [Recorded(seq=n, at=NOW, actor="gm", command=f"c{n}", event=e)
            for n, e in enumerate(events, start=1)]


def _roll(nonce: int, faces: tuple[int, ...]) -> core.DiceRolled:
    from poolhall.events.dice import RolledTerm
    from poolhall.events.fair import FairStamp
    return core.DiceRolled(expression="2d6", terms=(RolledTerm(sides=6, sign=1, faces=faces),),
                           total=sum(faces), fair=FairStamp(
                               epoch=1, nonce=nonce, seeds=client_seeds_digest({}).hex()))


def _faces(nonce: int) -> tuple[int, ...]:
    stream = DieStream(SEEDS[1], "c", 1, client_seeds_digest({}), nonce)
    return (stream.face(6), stream.face(6))


def test_verify_reports_a_roll_with_no_stamp_once_fair_rolls_began() -> None:
    """Every roll is stamped once a campaign's first epoch is committed, so one with no stamp
    after it is a problem (an operator who forged a roll and removed its stamp, lowering the
    reveal's count, had it counted "from before fair rolls"); before it, a roll with no stamp
    is of a campaign from before fair rolls, and only counted."""
    commit = SeedCommitted(epoch=1, commitment=commitment(SEEDS[1]))
    forged = core.DiceRolled(expression="3d6", terms=(
        RolledTerm(sides=6, sign=1, faces=(6, 6, 6)),), total=18)
    reveal = SeedRevealed(epoch=1, seed=SEEDS[1].hex(), rolls=1)
    after = check_campaign("c", _log(commit, _roll(0, _faces(0)), forged, reveal))
    assert [p.seq for p in after.problems] == [3]
    assert "no fair stamp" in after.problems[0].problem
    before = check_campaign("c", _log(forged, commit, _roll(0, _faces(0)), reveal))
    assert (before.rolls_unstamped, before.problems) == (1, [])


def test_verify_recomputes_and_reports_gaps_edits_and_false_reveals() -> None:
    """A clean epoch checks; a skipped nonce, an edited face and a reveal of another seed
    are each reported."""
    commit = SeedCommitted(epoch=1, commitment=commitment(SEEDS[1]))
    reveal = SeedRevealed(epoch=1, seed=SEEDS[1].hex(), rolls=2)
    clean = check_campaign("c", _log(commit, _roll(0, _faces(0)), _roll(1, _faces(1)), reveal))
    assert (clean.rolls_checked, clean.dice_checked, clean.problems) == (2, 4, [])
    gap = check_campaign("c", _log(commit, _roll(0, _faces(0)), _roll(2, _faces(2)), reveal))
    assert any("nonce 2 where 1 comes next" in p.problem for p in gap.problems)
    a, b = _faces(1)
    edited = check_campaign("c", _log(commit, _roll(0, _faces(0)),
                                      _roll(1, (a % 6 + 1, b)), reveal))
    assert [p.seq for p in edited.problems] == [3]
    false = SeedRevealed(epoch=1, seed=SEEDS[2].hex(), rolls=2)
    lied = check_campaign("c", _log(commit, _roll(0, _faces(0)), _roll(1, _faces(1)), false))
    assert any("does not hash" in p.problem for p in lied.problems)
    sealed = check_campaign("c", _log(commit, _roll(0, _faces(0))))
    assert (sealed.rolls_sealed, sealed.rolls_checked, sealed.problems) == (1, 0, [])
