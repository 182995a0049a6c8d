"""The private rolls' rules, decided and folded in memory: who may use which visibility, what
the log keeps pending and for whom, the public table, and the reveal with the session's end.

The server's side (every frame each role receives) is ``tests/server/test_private_rolls.py``.
"""

from __future__ import annotations

import pytest

from poolhall.events import core, d12, narrative, sr3
from poolhall.events.base import Recorded
from poolhall.events.fair import RotateSeed, SeedCommitted
from poolhall.projections.narrative import GameState as NarrativeState
from poolhall.projections.privacy import (
    MAX_PENDING,
    MAX_PENDING_PER_PLAYER,
    MAX_PENDING_PLAYERS,
    PrivateSubject,
    hidden_seqs,
    sees,
)
from poolhall.server.audience import PublicTable
from poolhall.server.rules.fairness import ROTATE_ROLLS, EpochSeeds
from tests.d12.d12_support import Table as D12Table
from tests.fair.private_support import NOW, SEEDS, fair, open_secret_check, refused
from tests.narrative.narrative_support import Table as NarrativeTable
from tests.sr3.sr3_support import Table as Sr3Table


def test_only_the_gm_rolls_in_secret_and_the_gm_is_never_blind() -> None:
    """Rule: ``gm`` is the GM's; ``blind`` and ``self`` are a player's."""
    table = NarrativeTable()
    fair(table)
    player = refused(table, "han-player", core.Roll, expression="1d6", visibility="gm")
    assert (player.code, player.path) == ("forbidden", "$.visibility")
    for visibility in ("blind", "self"):
        gm = refused(table, "gm", core.Roll, expression="1d6", visibility=visibility)
        assert (gm.code, gm.path) == ("invalid", "$.visibility")
    rolled = table.run("gm", core.Roll, expression="1d6", visibility="gm")
    assert isinstance(rolled[0], core.DiceRolled)
    assert rolled[0].visibility == "gm"


def test_a_players_private_roll_is_one_shot() -> None:
    """Rule: a check built step by step is private only as the GM's."""
    table = NarrativeTable()
    fair(table)
    refusal = refused(table, "han-player", narrative.OpenCheck, character="han",
                      skill="Cool", visibility="self")
    assert (refusal.code, refusal.path) == ("rule", "$.visibility")
    rolled = table.run("han-player", narrative.RollPool, pool=narrative.Pool(ability=2),
                       character="han", visibility="blind")
    assert isinstance(rolled[0], narrative.PoolRolled)
    assert rolled[0].visibility == "blind"
    opened = table.run("gm", narrative.OpenCheck, character="vader", skill="Vigilance",
                       visibility="gm")
    assert isinstance(opened[0], narrative.CheckOpened)
    assert opened[0].visibility == "gm"


def test_a_private_sr3_test_draws_no_pool_dice() -> None:
    """Rule: the Combat, Astral and Karma Pools are the table's to see."""
    table = Sr3Table()
    fair(table)
    refusal = refused(table, "sam-player", sr3.RollPoolTest, character="sam", dice=4, tn=4,
                      karma_dice=1, visibility="self")
    assert (refusal.code, refusal.path) == ("rule", "$.pools")
    rolled = table.run("sam-player", sr3.RollPoolTest, character="sam", dice=4, tn=4,
                       visibility="self")
    assert isinstance(rolled[-1], sr3.PoolTestRolled)
    assert rolled[-1].visibility == "self"


def test_a_test_the_gm_called_is_rolled_in_the_open() -> None:
    """Rule (d12): the GM's basic test may be secret; a player rolls a called test openly."""
    table = D12Table()
    fair(table)
    secret = table.run("gm", d12.RollBasicTest, dice=3, dt=7, visibility="gm")
    assert isinstance(secret[0], d12.ThresholdTestStarted)
    assert secret[0].visibility == "gm"
    player = next(m for m, member in table.state.members.items() if member.role == "player")
    refusal = refused(table, player, d12.RollBasicTest, dice=3, dt=7,
                      character=table.state.members[player].characters[0], visibility="gm")
    assert refusal.path == "$.visibility"


def test_pending_subjects_and_who_sees_them() -> None:
    """A check's every event joins its subject; each visibility is seen by whom it says;
    a member acting on a check they may not see is told it does not exist."""
    table = NarrativeTable()
    fair(table)
    hidden = open_secret_check(table)
    table.run("gm", narrative.AddDice, check=hidden, kind="boost")
    table.run("han-player", core.Roll, expression="1d6", character="han", visibility="self")
    table.run("han-player", core.Roll, expression="1d6", character="han", visibility="blind")
    private = table.state.private
    assert len(private[f"check:{hidden}"].seqs) == 2
    assert sorted(subject.visibility for subject in private.values()) == ["blind", "gm", "self"]
    assert table.state.epoch_is_private
    assert len(hidden_seqs(private, "gm", "gm")) == 0
    assert {v for v in hidden_seqs(private, "han-player", "player").values()} == {"gm", "blind"}
    assert len(hidden_seqs(private, "leia-player", "player")) == 4
    assert len(hidden_seqs(private, "watcher", "spectator")) == 4
    blind = next(s for s in private.values() if s.visibility == "blind")
    assert not sees(blind, "han-player", "player")
    assert sees(blind, None, "admin")
    refusal = refused(table, "leia-player", narrative.AddDice, check=hidden, kind="boost")
    never = refused(table, "leia-player", narrative.AddDice, check="secret-999", kind="boost")
    assert (refusal.code, refusal.message, refusal.path) == (
        never.code, never.message.replace("secret-999", hidden), "$.check")


def test_the_session_end_reveals_and_a_private_epoch_is_not_rotated_before() -> None:
    """Rule: an epoch holding a private roll is revealed only when its session ends."""
    table = NarrativeTable()
    fair(table)
    table.run("gm", core.StartSession, title="One")
    table.seeds = EpochSeeds(current=SEEDS[2], following=SEEDS[3], now=NOW)
    table.run("gm", core.Roll, expression="1d6", visibility="gm")
    assert table.state.private
    refusal = refused(table, "gm", RotateSeed)
    assert refusal.code == "rule"
    ended = table.run("gm", core.EndSession)
    assert [type(e).__name__ for e in ended][-2:] == ["SeedRevealed", "SeedCommitted"]
    assert not table.state.private


def test_a_rotation_outside_a_session_waits_for_an_unfinished_secret_check() -> None:
    """Rule: rotating the seed reveals the epoch's secret rolls, as a session's start or end
    does, so it is refused in the same words while a secret check is still being built
    (revealed, the rest of it would be played in front of the table); once the check is
    cancelled it goes through and reveals the epoch."""
    table = NarrativeTable()
    fair(table)
    secret = open_secret_check(table)
    table.run("gm", narrative.SetDifficulty, check=secret, level="average")
    table.run("gm", narrative.RollCheck, check=secret)  # the dice: the epoch holds a secret
    again = open_secret_check(table)  # and another one, still being built
    assert table.state.private
    refusal = refused(table, "gm", RotateSeed)
    assert refusal.code == "rule"
    assert refusal.message.startswith("rotating the seed reveals the secret rolls, and "
                                      f"{again} is not finished")
    table.run("gm", narrative.CancelCheck, check=again)
    rotated = table.run("gm", RotateSeed)
    assert [type(e).__name__ for e in rotated] == ["SeedRevealed", "SeedCommitted"]


def test_an_inherited_epoch_holding_a_secret_pauses_the_dice_until_the_session_ends() -> None:
    """Rule: an epoch open when the server started (it may come from a backup) that holds a
    private roll cannot be revealed before its session ends, nor rolled on: every roll waits,
    saying what the GM does; ending the session over a secret check still being built says
    to cancel it (rolling it waits too); the session's end goes through the epochs drawn
    ahead, and the table rolls again."""
    table = NarrativeTable()
    fair(table)
    table.run("gm", core.StartSession, title="One")
    table.seeds = EpochSeeds(current=SEEDS[2], following=SEEDS[3], now=NOW)
    secret = open_secret_check(table)
    assert table.state.epoch_is_private
    # the server restarted: epochs 3 and 4 were drawn ahead, 5 is the first it drew itself
    table.seeds = EpochSeeds(current=SEEDS[2], following=SEEDS[3], now=NOW,
                             inherited=(SEEDS[3], SEEDS[4], SEEDS[5]))
    waits = refused(table, "leia-player", core.Roll, expression="1d6")
    assert waits.code == "rule"
    assert waits.message.startswith("the dice wait for the GM")
    assert waits.message.endswith("the GM ends the session to roll on")
    circle = refused(table, "gm", core.EndSession)
    assert circle.message.endswith(f"{secret} is not finished: cancel it first (or end the "
                                   "test): the dice wait until then")
    table.run("gm", narrative.CancelCheck, check=secret)
    ended = table.run("gm", core.EndSession)
    assert [(type(e).__name__, getattr(e, "epoch", None)) for e in ended] == [
        ("GameSessionEnded", None), ("SeedRevealed", 2), ("SeedCommitted", 3),
        ("SeedRevealed", 3), ("SeedCommitted", 4), ("SeedRevealed", 4), ("SeedCommitted", 5)]
    table.seeds = EpochSeeds(current=SEEDS[5], following=SEEDS[0], now=NOW)
    assert table.run("leia-player", core.Roll, expression="1d6")


@pytest.mark.parametrize(("member", "command", "fields"), [
    ("gm", core.Roll, {"expression": "5d20", "visibility": "gm"}),
    ("han-player", narrative.RollPool,
     {"pool": narrative.Pool(ability=2), "character": "han", "visibility": "blind"}),
])
def test_a_private_roll_that_ends_its_epoch_does_not_reveal_it(
        member: str, command: type, fields: dict[str, object]) -> None:
    """Rule: the automatic rotation waits for an epoch that holds a private roll, even when
    that roll is the one that reaches ROTATE_ROLLS (or ROTATE_HOURS): the state it was
    decided against held nothing private yet, and a reveal there would show it to everyone,
    the blind roller too (an attacker's trial had players fill an epoch with 999 public
    rolls, then read the GM's secret 5d20 whole). The next public roll does not rotate it
    either; the session's end does."""
    table = NarrativeTable()
    fair(table)
    table.run("gm", core.StartSession, title="One")
    table.seeds = EpochSeeds(current=SEEDS[2], following=SEEDS[3], now=NOW)
    table.state.fair.rolls = ROTATE_ROLLS - 1
    events = table.run(member, command, **fields)
    assert [type(e).__name__ for e in events if "Seed" in type(e).__name__] == []
    assert table.state.private
    events = table.run("gm", core.Roll, expression="1d6")
    assert [type(e).__name__ for e in events if "Seed" in type(e).__name__] == []
    ended = table.run("gm", core.EndSession)
    assert [type(e).__name__ for e in ended][-2:] == ["SeedRevealed", "SeedCommitted"]


def test_the_public_table_leaves_out_what_is_pending_until_the_reveal() -> None:
    """The table others see lacks the GM's secret check and free roll, keeps the head, and
    is the GM's table again once the session ends."""
    table = NarrativeTable()
    fair(table)
    public = PublicTable()
    table.run("gm", core.StartSession, title="One")
    table.seeds = EpochSeeds(current=SEEDS[2], following=SEEDS[3], now=NOW)

    def run(member: str, command: type, **fields: object) -> None:
        for event in table.decide(member, command, **fields):
            table.seq += 1
            recorded = Recorded(seq=table.seq, at=NOW, actor=member, command=f"c{table.seq}",
                                event=event)
            table.log.append(recorded)
            public.fold(table.state, recorded)

    run("gm", narrative.OpenCheck, character="vader", skill="Vigilance", visibility="gm")
    hidden = f"secret-{table.seq}"
    run("gm", core.Roll, expression="1d8", visibility="gm")
    run("han-player", core.Roll, expression="1d4", character="han")
    assert public.state is not None
    assert isinstance(public.state.game, NarrativeState)
    assert hidden in table.game.checks
    assert hidden not in public.state.game.checks
    assert [r.expression for r in public.state.rolls] == ["1d4"]
    assert public.state.head == table.state.head
    assert public.for_member(table.state, "gm") is table.state
    assert public.for_member(table.state, "leia-player") is public.state
    run("gm", narrative.CancelCheck, check=hidden)  # a session ends over no unfinished secret
    run("gm", core.EndSession)
    assert public.state is None
    assert public.for_member(table.state, "leia-player") is table.state


def test_at_most_max_pending_private_rolls_wait() -> None:
    """Rule: the state stays bounded; past the bound the table ends its session."""
    table = NarrativeTable()
    fair(table)
    for n in range(MAX_PENDING):
        table.state.private[f"roll:{10_000 + n}"] = PrivateSubject(
            visibility="gm", roller="gm", epoch=1, seqs=[10_000 + n])
    refusal = refused(table, "gm", core.Roll, expression="1d6", visibility="gm")
    assert (refusal.code, refusal.path) == ("rule", "$.visibility")


def _pending(table: object, roller: str, visibility: str, count: int, first: int) -> None:
    """``count`` private rolls of ``roller`` waiting to be revealed (seqs from ``first``)."""
    for n in range(count):
        table.state.private[f"roll:{first + n}"] = PrivateSubject(  # type: ignore[attr-defined]
            visibility=visibility, roller=roller, epoch=1, seqs=[first + n])  # type: ignore[arg-type]


def test_one_player_holds_at_most_50_private_rolls_and_the_players_150() -> None:
    """Rule: the GM keeps room for secret rolls: one player's blind rolls, or all the
    players', cannot fill the campaign's 200 (one player once made 200 blind rolls and the
    GM could roll no secret one until the session ended, which revealed them all)."""
    table = NarrativeTable()
    fair(table)
    _pending(table, "han-player", "blind", MAX_PENDING_PER_PLAYER, 10_000)
    own = refused(table, "han-player", core.Roll, expression="1d6", visibility="self")
    assert (own.code, own.path) == ("rule", "$.visibility")
    assert "50 of your private rolls wait to be revealed" in own.message
    table.run("leia-player", core.Roll, expression="1d6", visibility="blind")  # her own share
    rest = MAX_PENDING_PLAYERS - 2 * MAX_PENDING_PER_PLAYER - 1  # Han's, Leia's one, these
    for n, left in enumerate((MAX_PENDING_PER_PLAYER, rest)):  # players since removed: their
        _pending(table, f"removed-{n}", "self", left, 20_000 + 1_000 * n)  # rolls still wait
    together = refused(table, "leia-player", core.Roll, expression="1d6", visibility="self")
    assert f"the players' {MAX_PENDING_PLAYERS} private rolls" in together.message
    assert MAX_PENDING - MAX_PENDING_PLAYERS == 50
    secret = table.run("gm", core.Roll, expression="1d6", visibility="gm")  # the GM's room
    assert isinstance(secret[0], core.DiceRolled)
    assert secret[0].visibility == "gm"
    public = table.run("han-player", core.Roll, expression="1d6")  # in the open, always
    assert isinstance(public[0], core.DiceRolled)


def test_a_spectator_sets_no_seed() -> None:
    """Rule: a spectator only watches; their seed would be mixed into everyone's rolls."""
    from poolhall.events.fair import SetClientSeed

    table = NarrativeTable()
    fair(table)
    refusal = refused(table, "watcher", SetClientSeed, seed="mine")
    assert (refusal.code, refusal.path) == ("forbidden", "$.type")
    assert table.run("han-player", SetClientSeed, seed="mine")


def test_the_fair_rolls_events_read_in_words() -> None:
    """The log's words for a commitment, a reveal, a member's seed and a replay link, in
    every system (they are the campaign's, not a game system's: none fell to its type name)."""
    from poolhall.events.fair import ClientSeedSet, SeedRevealed
    from poolhall.projections.describe import describe

    for table in (NarrativeTable(), Sr3Table(), D12Table()):
        for event, words in (
                (SeedCommitted(epoch=2, commitment="ab" * 32),
                 "began dice epoch 2: the server committed to its seed (SHA-256 abababab"),
                (SeedRevealed(epoch=2, seed="cd" * 32, rolls=3),
                 "ended dice epoch 2: the server revealed its seed (3 rolls to check)"),
                (SeedRevealed(epoch=3, seed="cd" * 32, rolls=1),
                 "ended dice epoch 3: the server revealed its seed (1 roll to check)"),
                (ClientSeedSet(member="ann", seed="mine"), "ann set their seed"),
                (core.ReplayShared(member="link", name="forum", session=1),
                 "shared a replay of game session 1")):
            recorded = Recorded(seq=1, at=NOW, actor="gm", command="c", event=event)
            assert describe(recorded, table.state).startswith(words)


def test_a_seed_line_says_whose_command_ended_the_epoch_and_whose_seed_it_is() -> None:
    """``watch`` prints a line's member before its words: a reveal written under Ana's roll read
    "Ana revealed the seed of epoch 2", as if her own seed was revealed. The seed is the
    server's; her command ended the epoch (fairness.md, Epochs)."""
    from poolhall.clients.table_text import log_line
    from poolhall.events.fair import SeedRevealed

    table = NarrativeTable()
    for seq, event, words in (
            (9, SeedRevealed(epoch=2, seed="cd" * 32, rolls=12),
             "ended dice epoch 2: the server revealed its seed (12 rolls to check)"),
            (10, SeedCommitted(epoch=3, commitment="ab" * 32),
             "began dice epoch 3: the server committed to its seed (SHA-256 abababababababab...)")):
        recorded = Recorded(seq=seq, at=NOW, actor="han-player", command="c", event=event)
        assert log_line(recorded, table.state).plain == f"00:00:00 #{seq} han-player {words}"


def test_an_sr3_test_is_answered_as_privately_as_it_was_rolled() -> None:
    """Rule: an opposed test and its answer are one contest. A secret answer to a public
    test was told by the public test's refused Karma reroll ("answered by test #2"); a public
    answer to a secret test carried the secret successes in its odds. So a public test is
    answered in the open, a GM's secret test in secret (never by a declaration in front of
    the table), and a player's private test not before its reveal."""
    table = Sr3Table()
    fair(table)
    public = table.run("sam-player", sr3.RollPoolTest, character="sam", dice=4, tn=4)
    assert isinstance(public[-1], sr3.PoolTestRolled)
    in_secret = refused(table, "gm", sr3.RollPoolTest, character="deck", dice=4, tn=4,
                        opposes=public[-1].test, visibility="gm")
    assert (in_secret.code, in_secret.path) == ("rule", "$.visibility")
    secret = table.run("gm", sr3.RollPoolTest, character="deck", dice=4, tn=4, kind="ranged",
                       visibility="gm")
    assert isinstance(secret[-1], sr3.PoolTestRolled)
    attack = secret[-1].test
    declared = refused(table, "gm", sr3.DeclarePoolTest, character="sam", opposes=attack,
                       tn=4, dice=3)
    assert (declared.code, declared.path) == ("rule", "$.opposes")
    in_open = refused(table, "gm", sr3.RollPoolTest, character="sam", tn=4, dice=3,
                      opposes=attack)
    assert (in_open.code, in_open.path) == ("rule", "$.visibility")
    answered = table.run("gm", sr3.RollPoolTest, character="sam", tn=4, dice=3,
                         opposes=attack, visibility="gm")
    assert isinstance(answered[-1], sr3.PoolTestRolled)
    own = table.run("sam-player", sr3.RollPoolTest, character="sam", dice=4, tn=4,
                    visibility="self")
    assert isinstance(own[-1], sr3.PoolTestRolled)
    players = refused(table, "gm", sr3.RollPoolTest, character="deck", dice=4, tn=4,
                      opposes=own[-1].test, visibility="gm")
    assert (players.code, players.path) == ("rule", "$.opposes")


def test_a_session_does_not_start_or_end_over_an_unfinished_secret() -> None:
    """Starting or ending a game session reveals the epoch's secret rolls; a GM's secret
    check still open, or a secret d12 test still going on, would then be played on in front
    of the table while its GM believed it secret. So the session waits until it is rolled,
    cancelled or ended, and says which."""
    table = NarrativeTable()
    fair(table)
    secret = open_secret_check(table)
    refusal = refused(table, "gm", core.StartSession, title="One")
    assert (refusal.code, refusal.path) == ("rule", "$.type")
    assert secret in refusal.message
    table.run("gm", narrative.CancelCheck, check=secret)
    table.run("gm", core.StartSession, title="One")
    table.seeds = EpochSeeds(current=SEEDS[2], following=SEEDS[3], now=NOW)
    again = table.run("gm", narrative.OpenCheck, character="vader", skill="Vigilance",
                      visibility="gm")
    assert isinstance(again[0], narrative.CheckOpened)
    ending = refused(table, "gm", core.EndSession)
    assert (ending.code, ending.path) == ("rule", "$.type")
    table.run("gm", narrative.SetDifficulty, check=again[0].check, level="average")
    table.run("gm", narrative.RollCheck, check=again[0].check)
    assert [type(e).__name__ for e in table.run("gm", core.EndSession)][-2:] == [
        "SeedRevealed", "SeedCommitted"]

    d12_table = D12Table()
    fair(d12_table)
    d12_table.run("gm", core.StartSession, title="One")
    d12_table.seeds = EpochSeeds(current=SEEDS[2], following=SEEDS[3], now=NOW)
    started = d12_table.run("gm", d12.CallThresholdTest, character="han", stats=("STR",),
                            dt=7, extended=True, refresh="CON", visibility="gm")
    assert isinstance(started[0], d12.ThresholdTestStarted)
    test = started[0].test
    assert f"test {test}" in refused(d12_table, "gm", core.EndSession).message
    d12_table.run("gm", d12.EndThresholdTest, test=test)
    d12_table.run("gm", core.EndSession)


def test_a_private_sr3_test_is_not_rerolled_with_karma() -> None:
    """Rule: the Karma Pool is the table's to see; a Karma reroll of a private test showed
    whose test it was in the public sheets and in the scene's end."""
    table = Sr3Table()
    fair(table)
    rolled = table.run("sam-player", sr3.RollPoolTest, character="sam", dice=6, tn=12,
                       visibility="self")
    assert isinstance(rolled[-1], sr3.PoolTestRolled)
    refusal = refused(table, "sam-player", sr3.RerollWithKarma, character="sam",
                      test=rolled[-1].test)
    assert (refusal.code, refusal.path) == ("rule", "$.test")
    hidden = refused(table, "deck-player", sr3.RerollWithKarma, character="deck",
                     test=rolled[-1].test)
    assert (hidden.code, hidden.path) == ("not_found", "$.test")

