"""A GM's secret check or test leaves no trace a player can find: not in the refusals' words,
the ids the table sees, the names a player may try, the initiative, or the counts of what is
open.

The rest of the private rolls' rules are ``test_private_rules.py``.
"""

from __future__ import annotations

from poolhall.events import core, d12, narrative
from poolhall.events.narrative_encounter import EnterInitiative, StartEncounter
from poolhall.server.rules.narrative_checks import MAX_OPEN_CHECKS
from tests.d12.d12_support import Table as D12Table
from tests.fair.private_support import fair, open_secret_check, refused
from tests.narrative.narrative_support import HAN
from tests.narrative.narrative_support import Table as NarrativeTable
from tests.rules_table import RulesTable


def test_a_hidden_check_or_test_is_refused_in_the_words_of_one_that_never_was() -> None:
    """Rule: whatever the command, a player naming the GM's secret check gets what naming a
    check that never was gets: a GM-only command is refused as GM-only, not ``not_found``
    (which told which sealed entries were secret checks); the same for a d12 secret test."""
    table = NarrativeTable()
    fair(table)
    hidden = open_secret_check(table)
    for command, fields in ((narrative.SetDifficulty, {"level": "hard"}),
                            (narrative.AddDice, {"kind": "boost"}),
                            (narrative.RollCheck, {})):
        refusal = refused(table, "han-player", command, check=hidden, **fields)
        never = refused(table, "han-player", command, check="secret-999", **fields)
        assert (refusal.code, refusal.message, refusal.path) == (
            never.code, never.message.replace("secret-999", hidden), never.path), command
    assert refused(table, "han-player", narrative.SetDifficulty, check=hidden,
                   level="hard").code == "forbidden"
    d12_table = D12Table()
    fair(d12_table)
    started = d12_table.run("gm", d12.RollBasicTest, dice=3, dt=7, visibility="gm")
    assert isinstance(started[0], d12.ThresholdTestStarted)
    test = started[0].test
    for gm_only, fields in ((d12.EndThresholdTest, {}),
                            (d12.InterpretThresholdResult, {"text": "the gate holds"})):
        refusal = refused(d12_table, "han-player", gm_only, test=test, **fields)
        never = refused(d12_table, "han-player", gm_only, test=999, **fields)
        assert (refusal.code, refusal.message, refusal.path) == (
            never.code, never.message.replace("#999", f"#{test}"), never.path), gm_only


def test_a_characters_check_ids_never_look_like_a_secret_checks() -> None:
    """Rule: a character whose id is ``secret`` gets ``check-secret-1``, never ``secret-1``:
    its numbering skipped the GM's hidden ``secret-<seq>``, which told its player it was
    there."""
    table = RulesTable("narrative", (("gm", "gm", ()), ("sam", "player", ("secret",))),
                       {"secret": HAN}, 7)
    fair(table)
    ids = []
    for _ in range(4):
        hidden = table.run("gm", narrative.OpenCheck, character="secret", skill="Cool",
                           visibility="gm")
        assert isinstance(hidden[0], narrative.CheckOpened)
        opened = table.run("sam", narrative.OpenCheck, character="secret", skill="Cool")
        assert isinstance(opened[0], narrative.CheckOpened)
        ids.append(opened[0].check)
    assert ids == ["check-secret-1", "check-secret-2", "check-secret-3", "check-secret-4"]


def test_a_secret_check_leaves_no_trace_in_the_ids_the_table_sees() -> None:
    """A GM's secret check is named ``secret-<seq>`` and counts in no character's numbering;
    a destiny point flipped for it may not name it."""
    table = NarrativeTable()
    fair(table)
    opened = table.run("gm", narrative.OpenCheck, character="han", skill="Cool",
                       visibility="gm")
    assert isinstance(opened[0], narrative.CheckOpened)
    assert opened[0].check == f"secret-{table.seq}"
    after = table.run("han-player", narrative.OpenCheck, character="han", skill="Cool")
    assert isinstance(after[0], narrative.CheckOpened)
    assert after[0].check == "han-1"
    table.fold(narrative.DestinyPoolSet(light=2, dark=2))
    refusal = refused(table, "gm", narrative.FlipDestiny, side="dark",
                      effect="upgrade_difficulty", check=opened[0].check)
    assert (refusal.code, refusal.path) == ("rule", "$.check")


def test_a_secret_checks_name_cannot_be_found_by_trying_names() -> None:
    """The GM may not name a secret check (a player opening checks of guessed names would
    find it taken), no other check takes a ``secret-`` id, and a player acting on a secret
    check is told what a check that never was gets, word for word."""
    table = NarrativeTable()
    fair(table)
    named = refused(table, "gm", narrative.OpenCheck, character="vader", skill="Vigilance",
                    check="perception", visibility="gm")
    assert (named.code, named.path) == ("invalid", "$.check")
    taken = refused(table, "han-player", narrative.OpenCheck, character="han", skill="Cool",
                    check="secret-5")
    assert (taken.code, taken.path) == ("invalid", "$.check")
    secret = open_secret_check(table)
    hidden = refused(table, "han-player", narrative.AddDice, check=secret, kind="boost")
    never = refused(table, "han-player", narrative.AddDice, check="nothing", kind="boost")
    assert (hidden.code, hidden.path) == (never.code, never.path) == ("not_found", "$.check")
    assert hidden.message == never.message.replace("'nothing'", repr(secret))


def test_a_secret_check_is_not_entered_as_initiative() -> None:
    """Rule: initiative is rolled in front of the table. A secret check's slot would rank it
    among the others, and the slots a player may claim would tell where (an attacker's trial
    read it from the refusals of claims)."""
    table = NarrativeTable()
    fair(table)
    table.run("gm", StartEncounter)
    secret = open_secret_check(table)
    table.run("gm", narrative.SetDifficulty, check=secret, level="simple")
    table.run("gm", narrative.RollCheck, check=secret)
    refusal = refused(table, "gm", EnterInitiative, check=secret)
    assert (refusal.code, refusal.path) == ("rule", "$.check")
    assert table.game.encounter is not None
    assert table.game.encounter.entries == []


def test_a_player_neither_finds_nor_rolls_the_gms_secret_test_on_their_character() -> None:
    """A d12 basic test the GM called in secret on Han is not the one Han's player may roll:
    their probe gets the words of no test called (the pool and DT it would have named were the
    secret's), and rolling its pool and DT rolls nothing of it."""
    table = D12Table()
    fair(table)
    before = refused(table, "han-player", d12.RollBasicTest, character="han", dice=3, dt=7)
    started = table.run("gm", d12.CallThresholdTest, character="han", stats=("STR",), dt=9,
                        visibility="gm")
    assert isinstance(started[0], d12.ThresholdTestStarted)
    pool = started[0].pool
    probe = refused(table, "han-player", d12.RollBasicTest, character="han", dice=1, dt=1)
    rolled = refused(table, "han-player", d12.RollBasicTest, character="han", dice=pool, dt=9)
    for refusal in (probe, rolled):
        assert (refusal.code, refusal.message, refusal.path) == (
            before.code, before.message, before.path)
    assert table.game.tests[started[0].test].rounds == []


def test_a_secret_checks_id_and_count_tell_a_player_nothing() -> None:
    """A player opening a check as ``secret-<seq>`` is refused in the same words whether the
    GM's secret check of that seq exists or not; flipping a destiny point for it is refused as
    for a check that never was; and the open checks a player may open are counted without the
    secret ones."""
    table = NarrativeTable()
    fair(table)
    secret = open_secret_check(table)
    table.run("gm", core.Roll, expression="1d6", visibility="gm")
    one_shot = f"secret-{table.seq}"  # a secret roll's seq, no check
    taken = refused(table, "han-player", narrative.OpenCheck, character="han", skill="Cool",
                    check=secret)
    free = refused(table, "han-player", narrative.OpenCheck, character="han", skill="Cool",
                   check="secret-9999")
    assert (taken.code, taken.message, taken.path) == (free.code, free.message, free.path)
    table.fold(narrative.DestinyPoolSet(light=2, dark=2))
    flips = [refused(table, "han-player", narrative.FlipDestiny, side="light", effect="other",
                     check=name) for name in (secret, one_shot)]
    assert [(f.code, f.path) for f in flips] == [("not_found", "$.check")] * 2
    assert flips[0].message == flips[1].message.replace(one_shot, secret)
    for number in range(MAX_OPEN_CHECKS - 1):
        table.run("gm", narrative.OpenCheck, character="vader", skill="Vigilance",
                  check=f"c{number}")
    table.run("han-player", narrative.OpenCheck, character="han", skill="Cool", check="last")
    full = refused(table, "han-player", narrative.OpenCheck, character="han", skill="Cool")
    assert full.message == f"at most {MAX_OPEN_CHECKS} checks may be open at once: roll or " \
        "cancel one first"

