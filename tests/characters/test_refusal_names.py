"""Refusals name characters as the table does ("Han", "Sam"), not by their ids ("'han'"):
the page and the CLI show the message as it is, and a player knows the name on the sheet."""

from __future__ import annotations

from typing import Any

import pytest

from poolhall.events import core, d12, sr3
from poolhall.events import narrative as n
from poolhall.events.errors import Rejected
from poolhall.server import rules
from poolhall.server.rules.base import Decision
from tests.d12.d12_support import Table as D12Table
from tests.narrative.narrative_support import Table as NarrativeTable
from tests.rules_table import RulesTable
from tests.sr3.sr3_support import Table as Sr3Table


def message(table: RulesTable, by: str, command: type, **fields: Any) -> str:
    """The words of a refusal of ``command`` sent by member ``by``."""
    ctx = Decision(table.state, table.state.members[by], table.rng, lambda: "t" * 32)
    with pytest.raises(Rejected) as error:
        rules.decide(ctx, command(id="x", **fields))
    return error.value.message


def renamed(table: RulesTable, character: str, name: str) -> None:
    """The GM renames a character, so that its name and id differ beyond capitals."""
    table.fold(core.CharacterUpdated(character=character, name=name))


def test_narrative_refusals_name_the_character() -> None:
    """Leia's player may not add to Han Solo's check nor roll it; a skill he lacks is his."""
    table = NarrativeTable()
    renamed(table, "han", "Han Solo")
    table.open()
    assert message(table, "leia-player", n.AddDice, check="shot", kind="boost").startswith(
        "you do not play Han Solo, whose check 'shot' is")
    assert message(table, "leia-player", n.RollCheck, check="shot") == \
        "only the player of Han Solo or the GM rolls 'shot'"
    assert message(table, "gm", n.OpenCheck, character="han", skill="Juggling",
                   check="j").startswith("Han Solo has no skill 'Juggling'")


def test_sr3_refusals_name_the_character() -> None:
    """An unknown skill and a character named twice in a combat say "Sam Shadow"."""
    table = Sr3Table()
    renamed(table, "sam", "Sam Shadow")
    assert message(table, "gm", sr3.RollPoolTest, character="sam", kind="task",
                   skill="juggling", tn=4).startswith("Sam Shadow has no skill 'juggling'")
    assert message(table, "gm", sr3.StartCombat, participants=["sam", "sam"]) == \
        "Sam Shadow is named twice"


def test_d12_refusals_name_the_character() -> None:
    """A stat the character lacks is refused by the character's name."""
    table = D12Table()
    renamed(table, "leia", "Leia Organa")
    assert message(table, "gm", d12.CallThresholdTest, character="leia", stats=("STR",),
                   dt=5) == "Leia Organa has no stat STR"
    assert message(table, "han-player", core.Roll, expression="1d6",
                   character="leia") == "you do not play Leia Organa"
