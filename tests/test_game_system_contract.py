"""Every registered game system keeps the whole contract, and an incomplete one is told, in
plain words, which part is missing.

The parts (see ``events/contract.py``): ``VOCABULARY`` in ``events/<id>.py``, ``PROJECTION``
in ``projections/<id>.py``, ``RULES`` in ``server/rules/<id>.py``, ``CLI`` in
``clients/<id>_cli.py``, each added to its layer's registry; a projection that says what open
thing holds a character (for ``retire_character``); every event type with a
``describe`` line, a stored payload in ``tests/fixtures/events``, a codec round trip and a
fold; tags of events, commands and views unique across every system.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest

from poolhall.clients.contract import CliHooks
from poolhall.clients.systems import CLI_HOOKS
from poolhall.events import core
from poolhall.events.base import Command, Event, Recorded, ViewData
from poolhall.events.codec import decode_stored, event_tag
from poolhall.events.contract import SystemVocabulary
from poolhall.events.systems import SYSTEM_IDS, SYSTEMS, check_registered
from poolhall.projections.campaign import CampaignState
from poolhall.projections.contract import Projection
from poolhall.projections.systems import PROJECTIONS
from poolhall.server.rules import RULES
from poolhall.server.rules.contract import Rules
from tests.round_trip import as_stored

FIXTURES = Path(__file__).parent / "fixtures" / "events"


@dataclass(frozen=True)
class Parts:
    """One system's parts as its layers register them (``None``: not registered)."""

    vocabulary: SystemVocabulary
    projection: Projection[msgspec.Struct] | None
    rules: Rules | None
    cli: CliHooks | None


def registered(system_id: str) -> Parts:
    return Parts(SYSTEMS[system_id], PROJECTIONS.get(system_id), RULES.get(system_id),
                 CLI_HOOKS.get(system_id))


def event_problems(system: str, cls: type[Event], projection: Projection[msgspec.Struct] | None,
                   fixtures: Path) -> list[str]:
    """What one event type lacks: a stored payload, a round trip, a fold, a describe line."""
    tag = event_tag(cls)
    stored = _stored_event(system, tag, cls, fixtures)
    if isinstance(stored, str):
        return [stored]
    event, payload = stored
    problems = []
    if type(event) is not cls:
        problems.append(f"{system}: event {tag!r} decodes as {type(event).__name__}, not "
                        f"{cls.__name__}: is it in the vocabulary's events?")
    elif as_stored(event, payload) != payload:
        problems.append(f"{system}: event {tag!r} does not round-trip through the codec")
    if projection is not None:
        problems += _projection_problems(system, tag, cls, projection, event)
    return problems


def _stored_event(system: str, tag: str, cls: type[Event],
                  fixtures: Path) -> tuple[Event, dict[str, Any]] | str:
    """The event type's stored payload decoded, with the payload; or, when there is none or
    it does not decode, the problem (nothing else can be checked without it)."""
    stored_at = fixtures / f"{tag}.v{cls.schema_version}.json"
    if not stored_at.exists():
        return (f"{system}: event {tag!r} has no stored payload: capture "
                f"tests/fixtures/events/{stored_at.name} (see capture_event_fixtures.py)")
    stored = json.loads(stored_at.read_text())
    try:
        event = decode_stored(json.dumps(stored["payload"]).encode(), tag, stored["version"])
    except (msgspec.DecodeError, KeyError) as error:
        return f"{system}: event {tag!r}: its stored payload does not decode: {error}"
    return event, stored["payload"]


def _projection_problems(system: str, tag: str, cls: type[Event],
                         projection: Projection[msgspec.Struct], event: Event) -> list[str]:
    """Whether the projection folds the event into its state and describes it in words;
    whatever either raises is named, not raised."""
    problems = []
    recorded = Recorded(seq=1, at="2026-01-01T00:00:00.000Z", actor="gm", command="c1",
                        event=event)
    try:
        state = projection.evolve(projection.initial_state(), recorded)
    except Exception as error:  # the point is to name it, whatever it is
        problems.append(f"{system}: evolve fails on event {tag!r}: {error!r}")
    else:
        if not isinstance(state, projection.state):
            problems.append(f"{system}: evolve returns a {type(state).__name__} for event "
                            f"{tag!r}, not the system's state ({projection.state.__name__})")
    campaign = CampaignState(system=system, game=projection.initial_state())  # type: ignore[arg-type]
    try:
        line = projection.describe(recorded, campaign)
    except Exception as error:
        problems.append(f"{system}: describe fails on event {tag!r}: {error!r}")
    else:
        if not line.strip() or line.strip() == cls.__name__:
            problems.append(f"{system}: event {tag!r} has no describe line "
                            f"(poolhall watch would show {line.strip()!r})")
    return problems


def problems_of(system: str, parts: Parts, fixtures: Path = FIXTURES) -> list[str]:
    """Everything a system's parts lack, in plain words: empty when the contract holds."""
    problems = (_identity_problems(system, parts.vocabulary)
                + _registration_problems(system, parts) + _content_problems(system, parts))
    for cls in parts.vocabulary.events:
        problems += event_problems(system, cls, parts.projection, fixtures)
    return problems


def _identity_problems(system: str, vocabulary: SystemVocabulary) -> list[str]:
    """The vocabulary's id and its stats' tag are the system's id."""
    problems = []
    if vocabulary.id != system:
        problems.append(f"{system}: its VOCABULARY says id {vocabulary.id!r}")
    if getattr(vocabulary.stats, "__struct_config__", None) is None or \
            vocabulary.stats.__struct_config__.tag != system:
        problems.append(f"{system}: its stats type must be a Struct tagged {system!r} "
                        "(tag_field='system')")
    return problems


def _registration_problems(system: str, parts: Parts) -> list[str]:
    """Each layer's part is registered, and for this system."""
    problems = []
    for layer, part, where in (("projection", parts.projection, f"projections/{system}.py"),
                               ("rules", parts.rules, f"server/rules/{system}.py"),
                               ("command-line", parts.cli, f"clients/{system}_cli.py")):
        if part is None:
            problems.append(f"{system}: no {layer} part: export it from {where} and register "
                            "it in that layer's systems module")
        elif part.system != system:
            problems.append(f"{system}: its {layer} part says system {part.system!r}")
    return problems


def _content_problems(system: str, parts: Parts) -> list[str]:
    """The vocabulary has events and proper views, the rules decide exactly its commands, and
    the projection starts from its own state."""
    vocabulary = parts.vocabulary
    problems = []
    if not vocabulary.events:
        problems.append(f"{system}: its vocabulary has no event types")
    if not all(issubclass(cls, ViewData) for cls in vocabulary.views):
        problems.append(f"{system}: every view type must subclass events.base.ViewData")
    if parts.rules is not None and parts.rules.commands != frozenset(vocabulary.commands):
        missing = sorted(cls.__name__ for cls in set(vocabulary.commands) - parts.rules.commands)
        problems.append(f"{system}: its rules do not decide every command of its vocabulary "
                        f"(missing: {', '.join(missing) or 'none'}; extra ones are not its own)")
    if parts.projection is not None:
        initial = parts.projection.initial_state()
        if not isinstance(initial, parts.projection.state):
            problems.append(f"{system}: initial_state() is not a {parts.projection.state}")
        if parts.projection.holding is None:
            problems.append(f"{system}: its projection does not say what open thing holds a "
                            "character (holding): retire_character must refuse one in play")
    return problems


@pytest.mark.parametrize("system", SYSTEM_IDS)
def test_every_registered_system_keeps_the_contract(system: str) -> None:
    problems = problems_of(system, registered(system))
    assert not problems, "\n".join(problems)


def _duplicates(tags: list[str]) -> list[str]:
    return sorted(tag for tag, count in Counter(tags).items() if count > 1)


@pytest.mark.parametrize("kind", ["events", "commands", "views"])
def test_tags_are_unique_across_systems(kind: str) -> None:
    """Two systems may not share a tag: the codec's unions are built from all of them."""
    core_types: tuple[type[msgspec.Struct], ...] = {
        "events": core.EVENTS, "commands": core.COMMANDS, "views": ()}[kind]
    tags = [event_tag(cls) for cls in core_types]
    for part in SYSTEMS.values():
        types: tuple[type[msgspec.Struct], ...] = getattr(part, kind)
        tags += [str(cls.__struct_config__.tag) if kind == "views" else event_tag(cls)
                 for cls in types]
    assert not _duplicates(tags), f"{kind} tags used twice: {_duplicates(tags)}"


# ---- a fourth system, half written: the contract test says what is missing -----------------


class TarotDrawn(Event, frozen=True, kw_only=True):
    """A card was drawn (a fourth system's only event, with no fixture, no describe line)."""

    card: str


class DrawTarot(Command, frozen=True, kw_only=True):
    """Draw a card."""


class TarotStats(msgspec.Struct, frozen=True, kw_only=True, tag_field="system", tag="tarot"):
    """No stats but a name."""


class TarotState(msgspec.Struct, kw_only=True):
    drawn: list[str] = msgspec.field(default_factory=list)


def _evolve(state: TarotState, recorded: Recorded) -> TarotState:
    return state


def test_a_system_missing_parts_is_told_which_in_plain_words(tmp_path: Path) -> None:
    """A fourth system with a vocabulary and a projection, but no rules, no CLI hooks, no
    stored payload and a describe that says nothing: each gap is named."""
    vocabulary = SystemVocabulary(id="tarot", stats=TarotStats, events=(TarotDrawn,),
                                  commands=(DrawTarot,), views=(), parse_roll=lambda t, c: None)
    projection: Projection[TarotState] = Projection(
        system="tarot", state=TarotState, initial_state=TarotState, evolve=_evolve,
        describe=lambda recorded, campaign: type(recorded.event).__name__,
        table=TarotState, snapshot=lambda state: state)
    parts = Parts(vocabulary, projection, None, None)  # type: ignore[arg-type]
    problems = problems_of("tarot", parts, fixtures=tmp_path)
    assert problems == [
        "tarot: no rules part: export it from server/rules/tarot.py and register it in that "
        "layer's systems module",
        "tarot: no command-line part: export it from clients/tarot_cli.py and register it in "
        "that layer's systems module",
        "tarot: its projection does not say what open thing holds a character (holding): "
        "retire_character must refuse one in play",
        "tarot: event 'tarot_drawn' has no stored payload: capture "
        "tests/fixtures/events/tarot_drawn.v1.json (see capture_event_fixtures.py)",
    ]
    (tmp_path / "tarot_drawn.v1.json").write_text(json.dumps(
        {"type": "tarot_drawn", "version": 1, "payload": {"type": "tarot_drawn", "card": "x"}}))
    # not in the codec (never registered): the decode is refused, and said so
    assert problems_of("tarot", parts, fixtures=tmp_path)[3].startswith(
        "tarot: event 'tarot_drawn': its stored payload does not decode")


def test_a_registered_event_without_describe_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """A real system whose describe forgets an event type: the test names the event."""
    import dataclasses

    real = PROJECTIONS["d12"]
    silent = dataclasses.replace(real, describe=lambda recorded, campaign: "")
    problems = problems_of("d12", dataclasses.replace(registered("d12"), projection=silent))
    assert "d12: event 'threshold_test_started' has no describe line (poolhall watch would " \
           "show '')" in problems


def test_a_layer_without_a_registered_system_is_refused_at_import() -> None:
    """Each layer's registry checks itself against events.systems, naming the gap."""
    partial = {system: None for system in SYSTEM_IDS[:-1]}
    with pytest.raises(RuntimeError, match=f"game system '{SYSTEM_IDS[-1]}' has no rules part: "
                                           "write its module and add its object to here.py"):
        check_registered("rules", partial, "here.py")
    with pytest.raises(RuntimeError, match="registers 'chess', which events/systems.py does"):
        check_registered("rules", {**partial, SYSTEM_IDS[-1]: None, "chess": None}, "here.py")
