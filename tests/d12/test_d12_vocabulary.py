"""The d12 vocabulary: stats, events and commands on the wire, limits, and the notation."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from poolhall.events import core, d12
from poolhall.events.base import Command, Event
from poolhall.events.codec import ALL_COMMANDS, EVENT_TYPES, decode_stored, event_tag
from poolhall.events.dice import parse_dice
from poolhall.events.errors import NotationError
from poolhall.events.messages import CLIENT_DECODER
from tests.round_trip import as_stored
from tests.typed import of_type

FIXTURE = Path(__file__).with_name("d12_events_v1.json")


def test_rule_xdn_notation_rolls_x_dice_of_n_sides_and_adds_them() -> None:
    """Rule (Notation): "to say, roll two eight-sided dice and add the results, we write 2d8"."""
    expression = parse_dice("2d8")
    assert [(t.count, t.sides, t.sign) for t in expression.terms] == [(2, 8, 1)]
    assert [t.sides for t in parse_dice("1d4+1d6+1d8+1d10+1d12+1d20+1d100").terms] == [
        4, 6, 8, 10, 12, 20, 100]


def test_rule_stats_need_con_and_cha() -> None:
    """A character's stats are the campaign's names, and CON and CHA must be among them."""
    stats = d12.D12Stats(ratings={"CON": 2, "CHA": 1, "STEALTH": 4})
    assert stats.ratings["STEALTH"] == 4
    payload = b'{"character":"han","name":"Han","stats":{"system":"d12","ratings":{"CON":2}}}'
    with pytest.raises(msgspec.ValidationError, match="CHA") as error:
        msgspec.json.decode(payload, type=core.CharacterCreated)
    assert "$.stats" in str(error.value)


@pytest.mark.parametrize(("ratings", "where"), [
    ('{"CON":2,"CHA":21}', "$.stats.ratings"),
    ('{"CON":-1,"CHA":2}', "$.stats.ratings"),
    ('{"CON":2,"CHA":2,"str":3}', "key"),
])
def test_stat_ratings_and_names_are_bounded(ratings: str, where: str) -> None:
    """Ratings are 0-20 and names are capitals, refused with the path at fault."""
    payload = ('{"character":"han","name":"Han","stats":{"system":"d12","ratings":'
               + ratings + "}}").encode()
    with pytest.raises(msgspec.ValidationError, match=r"\$\.stats\.ratings") as error:
        msgspec.json.decode(payload, type=core.CharacterCreated)
    assert where in str(error.value)


def test_commands_refuse_absurd_values_with_the_json_path() -> None:
    """A DT of 13, a pool of 101 dice or an unknown refresh stat never reach the rules."""
    cases = {
        '{"type":"roll_basic_test","id":"a","dice":5,"dt":13}': "$.dt",
        '{"type":"roll_basic_test","id":"a","dice":101,"dt":7}': "$.dice",
        '{"type":"call_threshold_test","id":"a","character":"han","stats":["STR"],'
        '"dt":7,"extended":true,"refresh":"STR"}': "$.refresh",
        '{"type":"call_threshold_test","id":"a","character":"han","stats":[],"dt":7}':
            "$.stats",
        '{"type":"roll_threshold_test","id":"a","test":0}': "$.test",
    }
    for frame, path in cases.items():
        with pytest.raises(msgspec.ValidationError) as error:
            CLIENT_DECODER.decode(frame)
        assert path in str(error.value), frame


def test_events_and_commands_follow_the_contract() -> None:
    """Past-tense events and imperative commands, keyword-only, documented, with unique tags."""
    for cls in d12.EVENTS:
        assert issubclass(cls, Event)
        assert cls.__doc__
        with pytest.raises(TypeError, match="positional"):
            cls(1)
        assert cls.__name__.endswith(("ed", "Set")), cls
        assert EVENT_TYPES[event_tag(cls)] is cls
    tags = [event_tag(cls) for cls in ALL_COMMANDS]
    assert len(tags) == len(set(tags))
    for command in d12.COMMANDS:
        assert issubclass(command, Command)
        assert command.__doc__
        with pytest.raises(TypeError, match="positional"):
            command("x", 1)  # type: ignore[call-arg]  # the point: refused at run time
        assert command in ALL_COMMANDS


def test_stored_payloads_of_every_event_type_still_decode() -> None:
    """A payload of each d12 event type as first stored decodes and re-encodes unchanged."""
    stored = json.loads(FIXTURE.read_text())
    assert {item["type"] for item in stored} == {event_tag(cls) for cls in d12.EVENTS}
    for item in stored:
        payload = json.dumps(item).encode()
        event = decode_stored(payload, item["type"], 1)
        assert as_stored(event, item) == item


def test_parse_roll_reads_a_basic_test() -> None:
    """``5d12 dt7`` is a basic test of five d12s at DT 7 for the character given."""
    command = d12.parse_roll("5d12 dt7", "han")
    assert isinstance(command, d12.RollBasicTest)
    assert (command.dice, command.dt, command.character) == (5, 7, "han")
    assert d12.parse_roll(" 12D12 DT 12 ", None) == d12.RollBasicTest(
        id=d12.PARSED_COMMAND_ID, dice=12, dt=12)
    assert of_type(d12.RollBasicTest, d12.parse_roll("d12 dt3")).dice == 1


@pytest.mark.parametrize("text", ["5d12dt7", "5 d 12 dt 7", "5D12DT 7", " 5d 12dt7 "])
def test_parse_roll_reads_every_spacing(text: str) -> None:
    """Spaces and case do not matter, as the reference says: "5d12dt7" was refused with the
    free roll's hint "as in 5d12d6", and "5 d 12 dt 7" as no d12 test."""
    assert d12.parse_roll(text, "han") == d12.RollBasicTest(
        id=d12.PARSED_COMMAND_ID, dice=5, dt=7, character="han")


@pytest.mark.parametrize(("text", "message", "position"), [
    ("\uff15d12 dt\uff17", "unexpected '\uff15d12 dt\uff17'", 0),
    ("5d12 dt\uff17", "unexpected '\uff17'", 7),
    ("5d12 dt\u0667", "unexpected '\u0667'", 7),
])
def test_parse_roll_reads_ascii_digits_only(text: str, message: str, position: int) -> None:
    """Fullwidth or Arabic-Indic digits are refused in the words plain dice have for them
    (fullwidth "5d12 dt7" rolled 5 dice at DT 7, while a fullwidth "5d6" is refused)."""
    with pytest.raises(NotationError) as refused:
        d12.parse_roll(text, "han")
    assert (refused.value.message, refused.value.position) == (message, position)
    with pytest.raises(NotationError, match="^unexpected "):
        parse_dice("\uff15d6")


@pytest.mark.parametrize(("text", "message", "position"), [
    ("1" * 5000 + "d12 dt7", "a pool holds 1 to 100 dice", 0),
    ("5d12 dt" + "1" * 5000, "the DT is between 1 and 12", 7),
    ("0" * 5000 + "1000000d12 dt7", "a pool holds 1 to 100 dice", 0),
])
def test_parse_roll_refuses_a_number_of_thousands_of_digits_as_out_of_range(
        text: str, message: str, position: int) -> None:
    """A pool or DT of thousands of digits is out of range, in the words of any other: int()
    of more than 4,300 digits raised "Exceeds the limit (4300 digits)", and ``poolhall roll``
    ended with a traceback (the CLI reads any length; the server caps the text)."""
    with pytest.raises(NotationError) as refused:
        d12.parse_roll(text, "han")
    assert (refused.value.message, refused.value.position) == (message, position)
    assert of_type(d12.RollBasicTest, d12.parse_roll("0" * 5000 + "5d12 dt07")).dice == 5


def test_parse_roll_leaves_other_notation_alone() -> None:
    """Text that names no DT is not d12 notation: ``None``, for the free-roll parser."""
    assert d12.parse_roll("3d6+2") is None
    assert d12.parse_roll("5d12") is None


@pytest.mark.parametrize(("text", "message"), [
    ("5d10 dt7", "d12s"),
    ("0d12 dt7", "1 to 100"),
    ("101d12 dt7", "1 to 100"),
    ("5d12 dt13", "between 1 and 12"),
    ("5d12 dt0", "between 1 and 12"),
    ("5d12+2 dt7", "5d12 dt7"),
    ("5d12dt", "5d12 dt7"),
    ("5dt7", "5d12 dt7"),
    ("5d12 dt7 kick", "5d12 dt7"),
    ("5d1 2dt7", "5d12 dt7"),
])
def test_parse_roll_explains_wrong_notation(text: str, message: str) -> None:
    """A DT named in the wrong shape or beyond the limits raises NotationError saying why."""
    with pytest.raises(NotationError, match=message):
        d12.parse_roll(text, "han")
