"""The report and the replay read old logs: the stored payload of every event type."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from poolhall.clients.replay_cli import replay_lines
from poolhall.events import core
from poolhall.events.base import Recorded
from poolhall.events.codec import decode_stored
from poolhall.events.systems import SYSTEM_IDS, SYSTEMS
from poolhall.projections.analytics import report, roll_rows

FIXTURES = Path(__file__).parents[1] / "fixtures" / "events"


def _stored(tag: str) -> object:
    stored = json.loads((FIXTURES / f"{tag}.v1.json").read_text())
    return decode_stored(json.dumps(stored["payload"]).encode(), stored["type"],
                         stored["version"])


def _log(system: str) -> list[Recorded]:
    """A campaign of ``system`` holding each stored core and system payload once, in the
    order the vocabularies list them, a minute apart. The core payloads about characters and
    removals are left out: they come from other systems' logs and name who is not here."""
    events: list[object] = [core.CampaignCreated(campaign="old", name="Old", system=system)]
    for cls in (*core.EVENTS[1:], *SYSTEMS[system].events):
        if cls in (core.MemberRemoved, core.CharacterCreated, core.CharacterUpdated):
            continue
        tag = cls.__struct_config__.tag
        if (FIXTURES / f"{tag}.v1.json").exists():
            events.append(_stored(str(tag)))
    return [Recorded(seq=i + 1, at=f"2026-11-23T20:{i:02d}:00.000Z", actor="gm",
                     command=f"c{i}", event=event)  # type: ignore[arg-type]
            for i, event in enumerate(events)]


@pytest.mark.parametrize("system", SYSTEM_IDS)
def test_stored_payloads_report_and_replay(system: str) -> None:
    """Every stored payload of the system folds into a report and replays line by line; the
    rolls are judged by the faces they recorded (a Shadowrun test's successes as stored)."""
    log = _log(system)
    first = report(log)
    assert first.system == system
    assert first.head == len(log)
    assert report(log) == first
    lines = replay_lines(log, 1, len(log))
    assert [r.seq for r, _ in lines] == [r.seq for r in log]
    assert all(str(line) for _, line in lines)
    rows = roll_rows(log)
    assert any(row.kind == "free" for row in rows)
    stored_rolls = {r.seq: r.event for r in log}
    for row in rows:
        event = stored_rolls[row.seq]
        if row.kind == "test":
            assert row.value == event.successes  # type: ignore[attr-defined]
        if row.kind == "check":
            assert row.value == event.result.successes  # type: ignore[attr-defined]
        assert 0.0 <= row.percentile <= 1.0
        assert 0.0 < row.p_at_least <= 1.0
