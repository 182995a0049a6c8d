"""The narrative vocabulary: stats, limits with their JSON paths, stored payloads, notation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from poolhall.events import core
from poolhall.events import narrative as n
from poolhall.events.base import snake_case
from poolhall.events.codec import (
    ALL_COMMANDS,
    ALL_EVENTS,
    AnyCommand,
    decode_stored,
    event_tag,
)
from poolhall.events.errors import NotationError
from tests.round_trip import as_stored

FIXTURE = Path(__file__).with_name("narrative_events_v1.json")


def test_stats_hold_six_characteristics_and_linked_skills() -> None:
    """A character has Brawn, Agility, Intellect, Cunning, Willpower, Presence and skills with
    a rank and a linked characteristic, carried by CharacterCreated."""
    payload = (b'{"character":"han","name":"Han","stats":{"system":"narrative","agility":3,'
               b'"skills":{"Ranged (Light)":{"rank":2,"characteristic":"agility"}}}}')
    event = msgspec.json.decode(payload, type=core.CharacterCreated)
    stats = event.stats
    assert isinstance(stats, n.NarrativeStats)
    assert (stats.agility, stats.brawn) == (3, 2)
    assert stats.skill("RANGED (light)") == ("Ranged (Light)", n.Skill(rank=2,
                                                                      characteristic="agility"))
    assert stats.skill("Astrogation") is None


@pytest.mark.parametrize(("stats", "path"), [
    ('{"system":"narrative","brawn":11}', "$.stats.brawn"),
    ('{"system":"narrative","agility":-1}', "$.stats.agility"),
    ('{"system":"narrative","skills":{"Cool":{"rank":6,"characteristic":"presence"}}}',
     "$.stats.skills"),
    ('{"system":"narrative","skills":{"Cool":{"rank":1,"characteristic":"luck"}}}',
     "$.stats.skills"),
])
def test_stats_are_bounded_and_refused_with_their_path(stats: str, path: str) -> None:
    """Characteristics 0-10, ranks 0-5, the six characteristic names only."""
    payload = ('{"character":"han","name":"Han","stats":' + stats + "}").encode()
    with pytest.raises(msgspec.ValidationError) as error:
        msgspec.json.decode(payload, type=core.CharacterCreated)
    assert path in str(error.value)


@pytest.mark.parametrize(("command", "path"), [
    ('{"type":"add_dice","id":"c1","check":"shot","kind":"boost","count":500}', "$.count"),
    ('{"type":"add_dice","id":"c1","check":"shot","kind":"proficiency"}', "$.kind"),
    ('{"type":"upgrade_dice","id":"c1","check":"shot","side":"boost"}', "$.side"),
    ('{"type":"roll_pool","id":"c1","pool":{"ability":1000}}', "$.pool.ability"),
    ('{"type":"set_difficulty","id":"c1","check":"shot","level":"ludicrous"}', "$.level"),
    ('{"type":"flip_destiny","id":"c1","side":"grey","effect":"other"}', "$.side"),
    ('{"type":"set_destiny_pool","id":"c1","light":-1,"dark":0}', "$.light"),
    ('{"type":"open_check","id":"c1","character":"Han Solo","skill":"Cool"}', "$.character"),
])
def test_absurd_commands_are_refused_with_the_json_path(command: str, path: str) -> None:
    """Limits live on the types: a bad field is refused naming where it is."""
    decoder = msgspec.json.Decoder(AnyCommand)
    with pytest.raises(msgspec.ValidationError) as error:
        decoder.decode(command)
    assert path in str(error.value)


def test_tags_are_past_tense_events_and_imperative_commands_unique_everywhere() -> None:
    """Every narrative tag is its snake_case class name and unique across all systems."""
    tags = [event_tag(cls) for cls in ALL_EVENTS] + [event_tag(cls) for cls in ALL_COMMANDS]
    assert len(tags) == len(set(tags))
    for cls in n.EVENTS + n.COMMANDS:
        assert event_tag(cls) == snake_case(cls.__name__)
        assert cls.__doc__
        assert cls.__doc__.strip()
    assert all(cls.__name__.endswith(("ed", "Set", "Spent")) for cls in n.EVENTS)


def test_stored_payloads_of_every_event_type_still_decode() -> None:
    """A payload of each narrative event type as first stored decodes and re-encodes unchanged."""
    stored = json.loads(FIXTURE.read_text())
    assert {item["type"] for item in stored} == {event_tag(cls) for cls in n.EVENTS}
    for item in stored:
        event = decode_stored(json.dumps(item).encode(), item["type"], 1)
        assert as_stored(event, item) == item


def test_rolled_dice_keep_their_face_index() -> None:
    """A rolled die's event keeps the face index (talents turn dice to other faces)."""
    stored = json.loads(FIXTURE.read_text())
    rolled = next(item for item in stored if item["type"] == "check_rolled")
    assert all(1 <= die["face"] <= 12 and "kind" in die for die in rolled["dice"])


@pytest.mark.parametrize(("text", "pool"), [
    ("2y1g 2p1r 1b1k", n.Pool(proficiency=2, ability=1, difficulty=2, challenge=1, boost=1,
                              setback=1)),
    ("yyg vs pp", n.Pool(proficiency=2, ability=1, difficulty=2)),
    ("2proficiency 1ability", n.Pool(proficiency=2, ability=1)),
    ("2 Proficiencies, 1 boost + 3 setbacks", n.Pool(proficiency=2, boost=1, setback=3)),
    ("1w 2 force", n.Pool(force=3)),
    ("G P", n.Pool(ability=1, difficulty=1)),
])
def test_notation_reads_colour_letters_and_names(text: str, pool: n.Pool) -> None:
    """Colour letters y g p r b k w with optional counts, or the dice by name."""
    command = n.parse_roll(text, "han")
    assert isinstance(command, n.RollPool)
    assert command.pool == pool
    assert command.character == "han"
    assert command.id == n.PARSED_COMMAND_ID


def test_notation_leaves_other_notations_alone() -> None:
    """XdN and other systems' text is not narrative: None, for the other parsers."""
    for text in ("3d6+2", "1d20", "5d12 dt7", "", "advantage"):
        assert n.parse_roll(text) is None


@pytest.mark.parametrize(("text", "position"), [("2y1x", 2), ("ggg zz", 4), ("50g", 0)])
def test_notation_errors_say_where(text: str, position: int) -> None:
    """Text that starts like a pool but is not one, or is too big, says where it went wrong."""
    with pytest.raises(NotationError) as error:
        n.parse_roll(text)
    assert error.value.position == position


NOTATION_CASES = Path(__file__).with_name("notation_cases.json")
"""Text typed as a free roll and what it reads as: a pool, ``null`` (not this notation), or
the error's words. The server reads a ``roll`` the page sent on the same cases
(``tests/server/test_free_roll_notation.py``)."""


@pytest.mark.parametrize("case", json.loads(NOTATION_CASES.read_text()),
                         ids=lambda case: repr(case["text"])[:40])
def test_notation_reads_the_shared_cases(case: dict[str, Any]) -> None:
    """``poolhall roll``'s reading of each shared case: its pool, None, or its error's words
    (ASCII only: ``٢g`` is not narrative, and a Kelvin sign is not a ``k``)."""
    if "error" in case:
        with pytest.raises(NotationError) as error:
            n.parse_roll(case["text"])
        assert error.value.message == case["error"]
        return
    command = n.parse_roll(case["text"])
    assert (None if command is None else msgspec.to_builtins(command.pool)) == case["pool"]


def test_pool_notation_round_trips() -> None:
    """A pool written back in colour letters reads as the same pool."""
    pool = n.Pool(proficiency=3, ability=2, difficulty=3, challenge=2, boost=2, setback=2,
                  force=1)
    assert pool.notation() == "3y2g3p2r2b2k1w"
    assert n.parse_pool(pool.notation()) == pool
