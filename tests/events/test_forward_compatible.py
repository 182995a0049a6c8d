"""Events stay readable by older code (unknown fields ignored); commands stay strict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from poolhall.events.codec import EVENT_TYPES, decode_event, decode_page, decode_stored
from poolhall.events.messages import CLIENT_DECODER, SERVER_DECODER, EventFrame, json_schema
from poolhall.events.narrative import PoolRolled, RollPool
from poolhall.events.wire_errors import rejection_from
from tests.round_trip import as_stored

FIXTURES = Path(__file__).parents[1] / "fixtures" / "events"
STORED = sorted(FIXTURES.glob("*.json"))


def with_future_fields(payload: Any, decoded: Any) -> Any:
    """``payload`` with an unknown field added to every object that is a Struct, at any depth."""
    if isinstance(decoded, msgspec.Struct):
        grown = {key: with_future_fields(value, getattr(decoded, key, None))
                 for key, value in payload.items()}
        return {**grown, "added_in_a_later_version": {"any": ["shape", 1]}}
    if isinstance(decoded, dict):
        return {key: with_future_fields(value, decoded[key]) for key, value in payload.items()}
    if isinstance(decoded, list | tuple):
        return [with_future_fields(value, item) for value, item in zip(payload, decoded,
                                                                       strict=True)]
    return payload


def nested_objects(payload: Any) -> int:
    """How many JSON objects ``payload`` holds, itself included."""
    if isinstance(payload, dict):
        return 1 + sum(nested_objects(value) for value in payload.values())
    if isinstance(payload, list):
        return sum(nested_objects(value) for value in payload)
    return 0


@pytest.mark.parametrize("path", STORED, ids=[p.stem for p in STORED])
def test_stored_payload_with_unknown_fields_at_any_depth_decodes(path: Path) -> None:
    """A payload a newer release stored, with a field this one lacks in every object, decodes."""
    stored = json.loads(path.read_text())
    event = decode_event(json.dumps(stored["payload"]))
    grown = with_future_fields(stored["payload"], event)
    frame = json.dumps(grown).encode()
    assert decode_stored(frame, stored["type"], stored["version"]) == event
    assert decode_page([frame.decode()]) == [event]
    assert as_stored(decode_event(frame), stored["payload"]) == stored["payload"]


def grown(tag: str) -> dict[str, Any]:
    """The stored payload of ``tag`` with an unknown field in every object."""
    payload = json.loads((FIXTURES / f"{tag}.v1.json").read_text())["payload"]
    grown: dict[str, Any] = with_future_fields(payload, decode_event(json.dumps(payload)))
    return grown


def test_the_grown_payloads_reach_nested_values() -> None:
    """The unknown fields land inside nested values too, not only at the top of the event."""
    stats = grown("character_created")["stats"]
    assert "added_in_a_later_version" in stats
    assert "added_in_a_later_version" in stats["skills"]["pistols"]
    rolled = grown("check_rolled")
    assert "added_in_a_later_version" in rolled["pool"]
    assert "added_in_a_later_version" in rolled["dice"][0]


def test_event_frame_with_unknown_fields_decodes_in_the_client() -> None:
    """The client's decoder reads an event frame grown at the top, in the event and deeper."""
    event = decode_event(json.dumps(
        json.loads((FIXTURES / "check_rolled.v1.json").read_text())["payload"]))
    frame = {"type": "event", "seq": 7, "at": "2026-11-23T09:00:00.000Z", "actor": "han",
             "command": "c-1", "signature": "added later", "event": grown("check_rolled")}
    decoded = SERVER_DECODER.decode(json.dumps(frame))
    assert isinstance(decoded, EventFrame)
    assert (decoded.seq, decoded.event) == (7, event)


@pytest.mark.parametrize(("command", "path"), [
    ({"type": "create_character", "id": "x", "character": "han", "name": "Han",
      "stats": {"system": "narrative", "skills": {"Ranged (Light)": {
          "rank": 2, "characteristic": "agility", "junk": 1}}}},
     '$.stats.skills["Ranged (Light)"].junk'),
    ({"type": "update_character", "id": "x", "character": "sam",
      "stats": {"system": "sr3", "body": 3, "quickness": 3, "strength": 3, "charisma": 3,
                "intelligence": 3, "willpower": 3, "extra": True}}, "$.stats.extra"),
    ({"type": "roll_pool", "id": "x", "pool": {"ability": 1, "purple": 9}}, "$.pool.purple"),
    ({"type": "roll", "id": "x", "expression": "1d6", "colour": "red"}, "$.colour"),
])
def test_commands_still_refuse_unknown_fields_at_any_depth(command: dict[str, Any],
                                                            path: str) -> None:
    """A command with an unknown field, however deep, is refused naming that field."""
    frame = json.dumps(command)
    with pytest.raises(msgspec.ValidationError) as error:
        CLIENT_DECODER.decode(frame)
    refusal = rejection_from(error.value, frame)
    assert (refusal.code, refusal.path) == ("invalid", path)


def test_decoded_commands_hold_the_ordinary_value_classes() -> None:
    """The strict check hands back the same classes events hold, so the two compare equal."""
    command = CLIENT_DECODER.decode(json.dumps(
        {"type": "roll_pool", "id": "x", "pool": {"ability": 2}}))
    stored = json.loads((FIXTURES / "pool_rolled.v1.json").read_text())
    event = decode_event(json.dumps(stored["payload"]))
    assert isinstance(command, RollPool)
    assert isinstance(event, PoolRolled)
    assert type(command.pool) is type(event.pool)


def test_schema_says_commands_are_closed_and_events_open() -> None:
    """In ``poolhall schema`` every object a client sends forbids extra fields; events don't."""
    schema = json_schema()
    defs = schema["$defs"]

    def reachable(node: Any, seen: set[str]) -> set[str]:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.rsplit("/", 1)[-1] not in seen:
                name = ref.rsplit("/", 1)[-1]
                seen.add(name)
                reachable(defs[name], seen)
            for value in node.values():
                reachable(value, seen)
        elif isinstance(node, list):
            for value in node:
                reachable(value, seen)
        return seen

    client = reachable(defs["ClientMessage"], set())
    server = reachable(defs["ServerMessage"], set())
    assert {"NarrativeStatsInput", "SkillInput", "PoolInput"} <= client
    assert all(defs[name].get("additionalProperties") is False for name in client)
    events = {name for name in server if name in {cls.__name__ for cls in EVENT_TYPES.values()}}
    assert len(events) == len(EVENT_TYPES)
    assert not any("additionalProperties" in defs[name] for name in server)
