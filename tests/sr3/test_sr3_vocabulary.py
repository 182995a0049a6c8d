"""The sr3 vocabulary: bounded stats, stored payloads that keep decoding, the contract."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from poolhall.events import sr3
from poolhall.events.codec import EVENT_TYPES, decode_stored, event_tag
from poolhall.events.messages import CLIENT_DECODER
from poolhall.projections.sr3 import describe
from tests.round_trip import as_stored
from tests.sr3.sr3_support import Table, street_sam

FIXTURE = Path(__file__).with_name("sr3_events_v1.json")


def create_frame(**stats: object) -> bytes:
    base = {"system": "sr3", "body": 4, "quickness": 4, "strength": 4, "charisma": 4,
            "intelligence": 4, "willpower": 4}
    base.update(stats)
    return json.dumps({"type": "create_character", "id": "a", "character": "x", "name": "X",
                       "stats": base}).encode()


@pytest.mark.parametrize(("field", "value", "path"), [
    ("quickness", 0, "$.stats.quickness"),
    ("body", 31, "$.stats.body"),
    ("essence", 6.5, "$.stats.essence"),
    ("vcr", 4, "$.stats.vcr"),
    ("initiative_dice", 6, "$.stats.initiative_dice"),
    ("karma_earned", -1, "$.stats.karma_earned"),
    ("encephalon", 9, "$.stats.encephalon"),
    ("skills", {"pistols": {"rating": 99, "attribute": "quickness"}},
     "$.stats.skills[...].rating"),
    ("skills", {"pistols": {"rating": 3, "attribute": "luck"}},
     "$.stats.skills[...].attribute"),
    ("skills", {"Pistols!": {"rating": 3, "attribute": "quickness"}}, "$.stats.skills"),
])
def test_absurd_stats_are_refused_with_the_json_path(field: str, value: object,
                                                     path: str) -> None:
    """Every stat has limits on its type, so a typo is refused naming the field."""
    with pytest.raises(msgspec.ValidationError) as error:
        CLIENT_DECODER.decode(create_frame(**{field: value}))
    assert path in str(error.value)


def test_absurd_draws_are_refused_with_the_json_path() -> None:
    """A pool that does not exist or a draw of a thousand dice never reaches the rules."""
    for pools, path in (({"luck": 1}, "$.pools"), ({"combat": 1000}, "$.pools[...]"),
                        ({"combat": 0}, "$.pools[...]")):
        frame = json.dumps({"type": "roll_pool_test", "id": "a", "character": "sam", "dice": 2,
                            "tn": 4, "pools": pools}).encode()
        with pytest.raises(msgspec.ValidationError) as error:
            CLIENT_DECODER.decode(frame)
        assert path in str(error.value)


def test_stored_payloads_of_every_event_type_still_decode() -> None:
    """One stored payload per event type (schema version 1) decodes and re-encodes as stored."""
    stored = json.loads(FIXTURE.read_text())
    assert set(stored) == {event_tag(cls) for cls in sr3.EVENTS}
    for tag, payload in stored.items():
        raw = json.dumps(payload).encode()
        event = decode_stored(raw, tag, 1)
        assert type(event) is EVENT_TYPES[tag]
        assert as_stored(event, payload) == payload


def test_event_and_command_tags_are_named_for_what_happened() -> None:
    """Past-tense events and imperative commands, each with a one-line docstring."""
    for cls in sr3.EVENTS + sr3.COMMANDS:
        assert cls.__doc__
        assert cls.__doc__.strip()
    assert {event_tag(cls) for cls in sr3.EVENTS} >= {"pool_test_rolled", "combat_turn_started"}
    assert set(sr3.RollPoolTest.__struct_fields__) >= set(
        sr3._TestFields.__struct_fields__)  # the command carries every field of the event


def test_natural_reaction_defaults_to_quickness_plus_intelligence_halved() -> None:
    """Reaction not given: (Quickness + Intelligence) // 2."""
    assert sr3.Sr3Stats(body=1, quickness=5, strength=1, charisma=1, intelligence=4,
                        willpower=1).natural_reaction == 4
    assert street_sam().natural_reaction == 5


def test_describe_gives_one_line_for_every_event() -> None:
    """``poolhall watch`` shows each sr3 event as a sentence, chains of faces included."""
    table = Table()
    table.dice(2, 2, 2, 3, 1, 1, 1)
    table.run("gm", sr3.StartCombat)
    table.dice(6, 2, 5, 1, 1, 3, 4, 6, 6, 1, 4)
    table.run("sam-player", sr3.RollPoolTest, character="sam", kind="combat", skill="pistols",
              tn=4, pools={"combat": 2}, karma_dice=1)
    lines = [describe(r, table.state) for r in table.log if type(r.event) in sr3.EVENTS]
    assert lines[0] == "combat started: sam, deck, mage, rig"
    assert lines[1].startswith("Combat Turn 1 begins, pools full: sam combat 7;")
    assert lines[2].startswith("initiative for turn 1: sam 15 (9 + 2+2+2)")
    assert lines[3] == ("sam test #1 pistols (combat) tn 4: 6+2 5 1 1 3 | cp 4 6+6+1 | "
                        "karma 4 -> 5 successes; left combat pool 5; karma pool 1 spent, "
                        "3 left")
    for line in lines:  # one line, and no [...] that a rich terminal would eat as markup
        assert "\n" not in line
        assert "[" not in line
        assert len(line) < 400
