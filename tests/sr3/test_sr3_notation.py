"""The ``parse_roll`` notation: "6d6 tn5", "4d6 open", "pistols tn4 +3cp combat"."""

from __future__ import annotations

import pytest

from poolhall.events import sr3
from poolhall.events.errors import NeedsCharacter, NotationError


def test_success_test_notation() -> None:
    """``6d6 tn5`` is a success test of six dice against TN 5."""
    command = sr3.parse_roll("6d6 tn5", "sam")
    assert isinstance(command, sr3.RollPoolTest)
    assert (command.character, command.dice, command.tn, command.open) == ("sam", 6, 5, False)
    assert sr3.parse_roll("6D6 TN 5", "sam") == command


def test_open_test_notation() -> None:
    """``4d6 open`` is an open test of four dice."""
    command = sr3.parse_roll("4d6 open", "sam")
    assert isinstance(command, sr3.RollPoolTest)
    assert (command.dice, command.tn, command.open) == (4, None, True)


def test_skill_pools_kind_and_flags_notation() -> None:
    """A skill or attribute, pool draws, karma dice, the kind and the situation."""
    command = sr3.parse_roll("pistols tn4 +3cp +1 karma combat", "sam")
    assert isinstance(command, sr3.RollPoolTest)
    assert (command.skill, command.kind, command.pools, command.karma_dice) == (
        "pistols", "combat", {"combat": 3}, 1)
    dodge = sr3.parse_roll("0d6 tn4 +5 combat dodge surprised", "sam")
    assert isinstance(dodge, sr3.RollPoolTest)
    assert (dodge.kind, dodge.surprised, dodge.pools) == ("dodge", True, {"combat": 5})
    soak = sr3.parse_roll("body tn6 +2cp damage_resistance", "sam")
    assert isinstance(soak, sr3.RollPoolTest)
    assert (soak.attribute, soak.kind) == ("body", "damage_resistance")
    rig = sr3.parse_roll("car tn5 +4ctl control rigged", "rig")
    assert isinstance(rig, sr3.RollPoolTest)
    assert rig.rigged
    assert rig.pools == {"control": 4}


def test_other_notations_are_not_ours() -> None:
    """XdN with other dice, or a lone word, is left to the core roller (None)."""
    assert sr3.parse_roll("2d8+1", "sam") is None
    assert sr3.parse_roll("6d6", "sam") is None
    assert sr3.parse_roll("hello world", "sam") is None


@pytest.mark.parametrize(("text", "message"), [
    ("6d6 tn", "tn needs a number"),
    ("6d6 +2 bogus tn4", "no pool 'bogus'"),
    ("6d6 tn4 open", "not both"),
    ("6d6 +2cp", "give a target number"),
    ("6d6 tn4 sideways", "unexpected 'sideways'"),
    ("6d6 tn1", "the target number is between 2 and 100"),
])
def test_bad_notation_says_why(text: str, message: str) -> None:
    """A roll in this notation with a wrong word raises NotationError with the reason."""
    with pytest.raises(NotationError, match=message):
        sr3.parse_roll(text, "sam")


def test_notation_needs_a_character() -> None:
    """A test is always some character's test."""
    with pytest.raises(NeedsCharacter, match="whose test"):
        sr3.parse_roll("6d6 tn4", None)
