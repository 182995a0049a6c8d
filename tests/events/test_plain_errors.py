"""Validator messages become plain words from the field's own limits and description."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from poolhall.events.messages import CLIENT_DECODER
from poolhall.events.wire_errors import rejection_from


def _refusal(message: dict[str, Any]) -> tuple[str, str | None]:
    frame = json.dumps({"id": "c-1", **message})
    with pytest.raises(msgspec.ValidationError) as error:
        CLIENT_DECODER.decode(frame)
    refusal = rejection_from(error.value, frame)
    return refusal.message, refusal.path


@pytest.mark.parametrize(("message", "words", "path"), [
    ({"type": "set_difficulty_threshold", "test": 1, "dt": 13},
     "the DT is between 1 and 12", "$.dt"),
    ({"type": "roll_pool_test", "character": "sam", "tn": 1},
     "the target number is between 2 and 100", "$.tn"),
    ({"type": "roll_pool_test", "character": "sam", "tn": "five"},
     "the target number should be a whole number, not text", "$.tn"),
    ({"type": "roll_pool_test", "character": "sam", "kind": "combt"},
     "did you mean 'combat'?", "$.kind"),
    ({"type": "roll", "expression": "1d6" * 50},
     "the expression holds at most 100 characters", "$.expression"),
    ({"type": "create_character", "character": "sam", "name": "Sam",
      "stats": {"system": "sr3", "body": 40}},
     "the body is between 1 and 30 (an attribute rating)", "$.stats.body"),
    ({"type": "roll_pool_test", "character": "sam", "pools": {"combat": 0}},
     "the combat pool is between 1 and 100", "$.pools.combat"),
])
def test_a_refusal_names_the_field_and_its_limits(message: dict[str, Any], words: str,
                                                  path: str) -> None:
    """The message says what to type (both limits, the choices), the path stays exact."""
    said, at = _refusal(message)
    assert words in said
    assert at == path
    assert "expected `" not in said.lower()
    assert "enum" not in said


def test_an_unknown_message_keeps_msgspec_words() -> None:
    """A missing field keeps msgspec's own message: the path already names the field."""
    said, at = _refusal({"type": "set_difficulty_threshold"})
    assert "missing required field" in said
    assert at == "$.test"


def _d12_sheet(**ratings: Any) -> dict[str, Any]:
    return {"type": "create_character", "character": "ana", "name": "Ana",
            "stats": {"system": "d12", "ratings": {"CON": 3, "CHA": 3, **ratings}}}


@pytest.mark.parametrize(("message", "words", "path"), [
    (_d12_sheet(STR=2.5), "STR should be a whole number, not 2.5", "$.stats.ratings.STR"),
    ({"type": "roll_basic_test", "dice": 2.5, "dt": 3},
     "the dice should be a whole number, not 2.5", "$.dice"),
    ({"type": "roll_basic_test", "dice": 2.0, "dt": 3},
     "the dice should be a whole number, written without a decimal point (2, not 2.0)",
     "$.dice"),
    ({"type": "set_difficulty_threshold", "test": 1, "dt": True},
     "the DT should be a whole number, not true", "$.dt"),
    ({"type": "roll_pool_test", "character": "sam", "tn": "five"},
     "the target number should be a whole number, not text", "$.tn"),
])
def test_a_wrong_type_quotes_the_number_sent(message: dict[str, Any], words: str,
                                            path: str) -> None:
    """2.5 for a whole number is "not 2.5": msgspec calls it a float, and "should be a
    whole number, not a number" (the game-night trial's words) said nothing."""
    said, at = _refusal(message)
    assert said == words
    assert at == path


@pytest.mark.parametrize(("name", "path"), [
    ("wi l", '$.stats.ratings["wi l"]'),
    ("ÄGI", '$.stats.ratings["ÄGI"]'),
    ("AGILITY_PLUS_1", "$.stats.ratings.AGILITY_PLUS_1"),
])
def test_a_bad_stat_name_says_what_a_name_may_be(name: str, path: str) -> None:
    """A map key that breaks its pattern is told in words (the key type's description),
    never by the pattern: "bad key: expected `str` matching regex '^[A-Z]...'" was shown."""
    said, at = _refusal(_d12_sheet(**{name: 2}))
    assert said == (f"{name!r} is not a stat's name: capital letters A-Z, digits and _, "
                    "starting with a letter, at most 12 characters (CON, CHA, STR)")
    assert at == path
    assert "regex" not in said
    assert "^[" not in said


def test_a_map_entry_is_named_by_its_key_not_its_path() -> None:
    """A stat the GM named is "STR" to the people at the table, not "stats.ratings.STR"."""
    said, at = _refusal(_d12_sheet(STR=999))
    assert said == "STR is between 0 and 20 (a stat's rating: d12s it brings)"
    assert at == "$.stats.ratings.STR"


@pytest.mark.parametrize(("message", "words", "path"), [
    ({"type": "create_character", "character": "sam", "name": "Sam",
      "stats": {"system": "sr3", "body": 3,
                "skills": {"pistols": {"rating": 30, "attribute": "quickness"}}}},
     "the rating of pistols is between 0 and 20", "$.stats.skills.pistols.rating"),
    ({"type": "create_character", "character": "sam", "name": "Sam",
      "stats": {"system": "narrative",
                "skills": {"Ranged (Light)": {"rank": 9, "characteristic": "agility"}}}},
     "the rank of Ranged (Light) is between 0 and 5", '$.stats.skills["Ranged (Light)"].rank'),
    ({"type": "call_threshold_test", "character": "ana", "stats": ["STR", 4], "dt": 3},
     "stat 2 should be text, not a whole number", "$.stats[1]"),
    ({"type": "call_threshold_test", "character": "ana", "stats": ["wi l"], "dt": 3},
     "'wi l' is not a stat's name", "$.stats[0]"),
    ({"type": "call_threshold_test", "character": "Ana V", "stats": ["STR"], "dt": 3},
     "the character 'Ana V' is not a lowercase id", "$.character"),
    ({"type": "roll_pool_test", "character": "sam", "pools": {"cambat": 1}},
     "'cambat' is not a pool: one of", "$.pools.cambat"),
])
def test_nested_fields_are_named_as_people_know_them(message: dict[str, Any], words: str,
                                                     path: str) -> None:
    """An entry's field by its entry, a list's item by its place, a sent text quoted."""
    said, at = _refusal(message)
    assert said.startswith(words), said
    assert at == path


@pytest.mark.parametrize(("message", "words", "path"), [
    ({"type": "create_campaign", "name": "", "system": "d12", "retry_key": "k" * 32},
     "the name is empty", "$.name"),
    ({"type": "roll", "expression": ""}, "the expression is empty", "$.expression"),
    ({"type": "call_threshold_test", "character": "ana", "stats": [], "dt": 3},
     "give at least 1 stat", "$.stats"),
])
def test_an_empty_field_is_said_to_be_empty(message: dict[str, Any], words: str,
                                            path: str) -> None:
    """Not "the name holds at least 1 characters": an empty text is empty, a count is
    counted in the right number."""
    said, at = _refusal(message)
    assert said == words
    assert at == path


@pytest.mark.parametrize(("message", "words", "path"), [
    ({"type": "update_character", "character": "sam", "based_on": -1},
     "based_on (the seq of the sheet's last change, as read) is at least 0", "$.based_on"),
    ({"type": "update_character", "character": "sam", "based_on": "7"},
     "based_on (the seq of the sheet's last change, as read) should be a whole number, "
     "not text", "$.based_on"),
    ({"type": "set_difficulty", "check": "c-1", "opponent_skill": 7},
     "the opponent skill should be text", "$.opponent_skill"),
])
def test_a_field_whose_name_is_no_noun_is_named_as_written(message: dict[str, Any],
                                                          words: str, path: str) -> None:
    """``based_on`` was "the based on is at least 0": a name ending (or starting) in "on",
    "from", "since" ... is no noun phrase in words, so it is said as written, with what it
    is; a name that reads as a noun ("the opponent skill") keeps its words."""
    said, at = _refusal(message)
    assert said.startswith(words), said
    assert at == path
