"""The campaign projection: a pure fold, the same wherever it runs, at any point of the log."""

from __future__ import annotations

import msgspec

from poolhall.events import core
from poolhall.events.base import Recorded, Visibility
from poolhall.events.dice import RolledTerm
from poolhall.projections.campaign import fold
from poolhall.projections.describe import describe

HASH = "a" * 64


def _log() -> list[Recorded]:
    events = [
        core.CampaignCreated(campaign="eote", name="Edge", system="d12"),
        core.MemberInvited(member="gm", name="GM", role="gm", token_hash=HASH),
        core.MemberInvited(member="han", name="Han", role="player", characters=("han",),
                           token_hash=HASH),
        core.GameSessionStarted(session=1, title="Pilot"),
        core.DiceRolled(expression="2d6+1", terms=(RolledTerm(sides=6, faces=(3, 4)),),
                        constant=1, total=8, character=None),
        core.MemberRemoved(member="han", reason="moved away"),
        core.GameSessionEnded(session=1),
    ]
    return [Recorded(seq=i, at=f"t{i}", actor="gm", command=f"c{i}", event=e)
            for i, e in enumerate(events, start=1)]


def test_fold_builds_members_sessions_and_roll_log() -> None:
    """Folding the whole log gives the table as it stands."""
    state = fold(_log())
    assert (state.campaign, state.system, state.head) == ("eote", "d12", 7)
    assert state.members["han"].active is False
    assert state.owner_of("han") is None
    assert (state.session, state.in_session) == (1, False)
    assert [(r.seq, r.total, r.session) for r in state.rolls] == [(5, 8, 1)]


def test_time_travel_gives_the_state_at_any_sequence() -> None:
    """``fold(log, upto=n)`` is the state as it stood after event n."""
    log = _log()
    at_four = fold(log, upto=4)
    assert at_four.head == 4
    assert at_four.in_session
    assert at_four.rolls == []
    assert at_four.owner_of("han") == "han"
    assert msgspec.to_builtins(fold(log[:4])) == msgspec.to_builtins(at_four)


def test_fold_is_deterministic() -> None:
    """The same log folds to the same state every time (no clock, no randomness)."""
    assert msgspec.to_builtins(fold(_log())) == msgspec.to_builtins(fold(_log()))


def test_describe_says_what_happened_in_words() -> None:
    """Each core event reads as one line for ``poolhall watch``."""
    log = _log()
    state = fold(log)
    lines = [describe(r, state) for r in log]
    assert lines[4] == "rolled 2d6+1: d6[3 4] +1 = 8"
    assert "Han" in lines[2]
    assert "player" in lines[2]


def test_a_sealed_secret_event_says_the_gm_acted_not_rolled() -> None:
    """A member who may not see the GM's secret event gets it sealed, with no type: it may be
    a secret check opened or its difficulty set (nothing rolled), so its line says the GM acted
    in secret; a player's private event is always a roll, and says so."""
    state = fold(_log())
    cases: tuple[tuple[Visibility, str], ...] = (
        ("gm", "acted in secret (gm): nothing shown until"),
        ("blind", "rolled blind: "), ("self", "rolled in private (self)"))
    for visibility, words in cases:
        sealed = Recorded(seq=8, at="t8", actor="gm", command="c8",
                          event=core.PrivateRoll(visibility=visibility))
        assert describe(sealed, state).startswith(words), visibility
