"""Stored payloads of every event type still decode: schema evolution and upcasting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from poolhall.events import core
from poolhall.events.codec import EVENT_TYPES, UPCASTERS, decode_stored
from tests.round_trip import as_stored
from tests.typed import of_type

FIXTURES = Path(__file__).parents[1] / "fixtures" / "events"
STORED = sorted(FIXTURES.glob("*.json"))


def test_every_event_type_has_a_stored_fixture() -> None:
    """Each event type has a payload captured from a real log (tests/fixtures/events)."""
    captured = {json.loads(path.read_text())["type"] for path in STORED}
    missing = sorted(set(EVENT_TYPES) - captured)
    assert not missing, f"capture fixtures for {missing} (see capture_event_fixtures.py)"


@pytest.mark.parametrize("path", STORED, ids=[p.stem for p in STORED])
def test_stored_payload_decodes_with_todays_code(path: Path) -> None:
    """A payload as an earlier release stored it decodes, upcast if its version is older."""
    stored = json.loads(path.read_text())
    event = decode_stored(json.dumps(stored["payload"]).encode(), stored["type"],
                          stored["version"])
    assert type(event) is EVENT_TYPES[stored["type"]]
    if stored["version"] == type(event).schema_version:
        assert as_stored(event, stored["payload"]) == stored["payload"]


def test_old_payload_is_upcast_before_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    """An upcaster keyed on (tag, stored version) upgrades an old payload before decoding."""
    monkeypatch.setattr(core.GameSessionStarted, "schema_version", 2)
    monkeypatch.setitem(UPCASTERS, ("game_session_started", 1),
                        lambda old: {**old, "title": old.get("title") or "untitled"})
    old = b'{"type":"game_session_started","session":3}'
    event = decode_stored(old, "game_session_started", 1)
    assert event == core.GameSessionStarted(session=3, title="untitled")
    current = b'{"type":"game_session_started","session":3,"title":"x"}'
    assert of_type(core.GameSessionStarted,
                   decode_stored(current, "game_session_started", 2)).title == "x"


def test_tags_are_snake_case_class_names_and_unique() -> None:
    """Every event's tag is its snake_case class name, and no two share one."""
    for tag, cls in EVENT_TYPES.items():
        assert tag == "".join("_" + c.lower() if c.isupper() else c
                              for c in cls.__name__).lstrip("_")
