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
     "stats.body is between 1 and 30 (an attribute rating)", "$.stats.body"),
    ({"type": "roll_pool_test", "character": "sam", "pools": {"combat": 0}},
     "pools.combat is between 1 and 100", "$.pools.combat"),
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
