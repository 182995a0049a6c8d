"""``poolhall schema`` validates every message of the protocol, and refuses bogus ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest

from poolhall.events import d12, narrative, sr3
from poolhall.events.codec import ALL_COMMANDS, EVENT_TYPES, decode_stored
from poolhall.events.messages import (
    ALL_VIEWS,
    CLIENT_DECODER,
    CLOSE_CODES,
    SERVER_DECODER,
    Ack,
    ErrorReply,
    EventFrame,
    Join,
    View,
    Welcome,
    json_schema,
)
from poolhall.projections.d12_odds import odds_summary
from poolhall.projections.narrative_odds import summary
from poolhall.projections.sr3_odds import odds_table

FIXTURES = Path(__file__).parents[1] / "fixtures" / "events"
STORED = sorted(FIXTURES.glob("*.json"))


@pytest.fixture(scope="module")
def validator() -> jsonschema.protocols.Validator:
    schema = json_schema()
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def _frame(message: msgspec.Struct) -> Any:
    return json.loads(msgspec.json.encode(message))


def _stored_events() -> list[Any]:
    out = []
    for path in STORED:
        stored = json.loads(path.read_text())
        out.append(decode_stored(json.dumps(stored["payload"]).encode(), stored["type"],
                                 stored["version"]))
    return out


def views() -> list[View]:
    """A view of every kind, with its costly part computed and without it."""
    pool = narrative.Pool(ability=2, difficulty=1)
    check = narrative.NarrativeCheckOdds(
        check="shot", character="han", skill="Ranged (Light)", status="open", difficulty="easy",
        pool=pool.notation(), counts=pool, dice=(narrative.CheckDie(kind="ability"),))
    test = sr3.Sr3TestOdds(character="sam", kind="combat", skill="pistols", attribute=None,
                           tn=4, base_dice=5, limits={"combat": 2})
    rows = msgspec.convert(odds_table(5, 4, 2), list[sr3.Sr3OddsRow])
    d12_test = d12.D12TestOdds(test=1, open=True, kind="extended", character="kit",
                               margins=[1], round=2)
    sheet = sr3.Sr3Sheet(name="Sam", pools=[sr3.SheetPool(pool="combat", size=7, available=True,
                                                          formula="(Q+I+W)/2")],
                         karma=sr3.SheetKarma(full=4, spent=1, left=3, formula="40 // 10"),
                         initiative="R 5 + 1d6")
    turn = sr3.Sr3CombatTurn(turn=1, pass_number=2, order=("sam",), characters={
        "sam": sr3.CombatantView(score=12, initiative=12,
                                 pools={"combat": sr3.PoolLeft(full=7, left=4)})})
    return [
        View(about="check:shot", data=check),
        View(about="check:shot", data=msgspec.structs.replace(check, odds=summary(pool))),
        View(about="test:sam", data=test),
        View(about="test:sam", data=msgspec.structs.replace(test, rows=rows)),
        View(about="test:1", data=d12_test),
        View(about="test:1", data=msgspec.structs.replace(d12_test, odds=msgspec.convert(
            odds_summary(5, 7, 2, 3), d12.D12PoolOdds))),
        View(about="combat", data=turn),
        View(about="combat", data=sr3.Sr3CombatTurn(in_combat=False)),
        View(about="sheets", data=sr3.Sr3Sheets(sheets={"sam": sheet})),
    ]


def test_every_view_kind_is_in_the_samples() -> None:
    assert {type(view.data) for view in views()} == set(ALL_VIEWS)


def server_messages() -> list[msgspec.Struct]:
    """One of every server message, and an event frame of every event type."""
    frames: list[msgspec.Struct] = [
        EventFrame(seq=n, at="2026-01-01T00:00:00Z", actor="gm", command="c" * 8, event=event,
                   hash="0" * 64)
        for n, event in enumerate(_stored_events(), 1)
    ]
    return [
        *frames,
        *views(),
        Welcome(role="gm", member="gm", campaign="c", name="C", system="sr3", head=3),
        Welcome(role="admin", member="admin", campaign=None, name="", system="", head=0),
        Ack(id="abcdefgh", seqs=[1, 2]),
        ErrorReply(id=None, code="rate_limited", message="slow down", retry_after=1.5),
    ]


def _stats() -> Any:
    """An sr3 character's stats, as a real log stored them."""
    return json.loads((FIXTURES / "character_created.v1.json").read_text())["payload"]["stats"]


COMMANDS: list[dict[str, Any]] = [
    {"type": "create_campaign", "name": "Edge", "system": "narrative"},
    {"type": "invite", "role": "player", "name": "Han", "characters": ["han"]},
    {"type": "share_replay", "session": 1, "name": "for the forum"},
    {"type": "remove_member", "member": "han"},
    {"type": "assign_characters", "member": "han", "characters": ["han", "chewie"]},
    {"type": "retire_character", "character": "greedo", "reason": "shot first"},
    {"type": "create_character", "character": "sam", "name": "Sam", "stats": _stats()},
    {"type": "update_character", "character": "sam", "name": "Samantha"},
    {"type": "set_condition", "character": "sam", "condition": "physical", "value": 3},
    {"type": "import_character", "character": "sam-2", "file": {
        "format": "poolhall.character", "version": 1, "name": "Sam", "stats": _stats(),
        "exported_from": {"campaign": "seattle", "character": "sam"}}},
    {"type": "start_session"},
    {"type": "end_session"},
    {"type": "roll", "expression": "2d6+1"},
    {"type": "open_check", "character": "han", "skill": "Cool", "check": "bluff"},
    {"type": "set_difficulty", "check": "bluff", "level": "hard"},
    {"type": "add_dice", "check": "bluff", "kind": "boost", "reason": "aiming"},
    {"type": "upgrade_dice", "check": "bluff", "side": "ability"},
    {"type": "downgrade_dice", "check": "bluff", "side": "difficulty", "count": 2},
    {"type": "remove_dice", "check": "bluff", "kind": "setback"},
    {"type": "roll_check", "check": "bluff"},
    {"type": "cancel_check", "check": "bluff"},
    {"type": "roll_destiny_pool"},
    {"type": "set_destiny_pool", "light": 2, "dark": 1},
    {"type": "flip_destiny", "side": "dark", "effect": "upgrade_difficulty", "check": "bluff"},
    {"type": "roll_force_dice", "character": "han"},
    {"type": "roll_pool", "pool": {"ability": 2, "difficulty": 1}},
    {"type": "start_encounter", "reason": "ambush"},
    {"type": "enter_initiative", "check": "han-init"},
    {"type": "advance_round"},
    {"type": "claim_slot", "slot": 2, "character": "han"},
    {"type": "end_encounter"},
    {"type": "spend_result", "check": "shot", "symbol": "advantage", "count": 2,
     "on": "recover 2 strain"},
    {"type": "start_combat"},
    {"type": "advance_combat_pass"},
    {"type": "end_combat"},
    {"type": "declare_pool_test", "character": "sam", "kind": "combat", "skill": "pistols",
     "tn": 4},
    {"type": "roll_pool_test", "character": "sam", "skill": "pistols", "tn": 4,
     "pools": {"combat": 3}},
    {"type": "reroll_with_karma", "test": 1, "character": "sam"},
    {"type": "end_scene"},
    {"type": "call_threshold_test", "character": "han", "stats": ["DEX"], "dt": 6},
    {"type": "set_difficulty_threshold", "test": 1, "dt": 7},
    {"type": "roll_threshold_test", "test": 1},
    {"type": "roll_basic_test", "dice": 5, "dt": 7},
    {"type": "interpret_threshold_result", "test": 1, "text": "Han holds"},
    {"type": "end_threshold_test", "test": 1},
    {"type": "set_client_seed", "seed": "my own words"},
    {"type": "rotate_seed"},
]
"""A command of every type, as a client sends it (each checked by the server's decoder)."""


def client_messages() -> list[msgspec.Struct]:
    """A join, a command of every type, and commands the notation's parsers build."""
    parsed = [narrative.parse_roll("yyg vs pp", "han"), sr3.parse_roll("6 tn 4", "ork"),
              d12.parse_roll("5d12 dt7", "kit")]
    written = [CLIENT_DECODER.decode(json.dumps({**command, "id": f"c-{n:06}"}).encode())
               for n, command in enumerate(COMMANDS)]
    return [Join(token="t", campaign="c", since=3, since_hash="a" * 64), *written,
            *[msgspec.structs.replace(command, id="abcdefgh") for command in parsed if command]]


def test_every_command_type_is_in_the_samples() -> None:
    assert {type(message) for message in client_messages()} - {Join} == set(ALL_COMMANDS)


def test_every_event_type_is_in_the_samples() -> None:
    assert {type(event) for event in _stored_events()} == set(EVENT_TYPES.values())


@pytest.mark.parametrize("message", server_messages() + client_messages(),
                         ids=lambda m: type(getattr(m, "data", m)).__name__)
def test_every_message_validates(validator: Any, message: msgspec.Struct) -> None:
    validator.validate(_frame(message))


@pytest.mark.parametrize("bogus", [
    {"type": "hello"},
    {"type": "join", "token": "t", "campaign": "c", "extra": 1},
    {"type": "error", "id": None, "code": "oops", "message": "m"},
    {"type": "welcome", "role": "king", "member": "m", "campaign": "c", "name": "n",
     "system": "sr3", "head": 0},
    {"type": "welcome", "role": "gm", "member": "m", "campaign": "c", "name": "n",
     "system": "chess", "head": 0},
    {"type": "view", "about": "check:x", "data": {"view": "no_such_view"}},
], ids=["unknown type", "join with an extra field", "unknown error code", "unknown role",
        "unknown system", "unknown view"])
def test_bogus_messages_do_not_validate(validator: Any, bogus: Any) -> None:
    assert not validator.is_valid(bogus)


def test_root_is_one_of_client_and_server_and_names_the_close_codes() -> None:
    schema = json_schema()
    assert schema["oneOf"] == [{"$ref": "#/$defs/ClientMessage"},
                               {"$ref": "#/$defs/ServerMessage"}]
    assert all(str(code) in schema["description"] for code in CLOSE_CODES)
    assert set(schema["$defs"]["ErrorReply"]["properties"]["code"]["enum"]) >= {
        "rate_limited", "wrong_system", "internal"}


@pytest.mark.parametrize("view", views(), ids=lambda v: type(v.data).__name__)
def test_views_decode_typed_in_the_client(view: View) -> None:
    """What the server encodes, the client's decoder reads back as the same typed view."""
    assert SERVER_DECODER.decode(msgspec.json.encode(view)) == view
