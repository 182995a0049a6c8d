"""The walk over the log behind the post-game report: its plumbing, shared by every system.

:class:`FoldBase` holds what the report remembers between events (the campaign, its members and
characters, the sections being summed), judges a roll into every section it falls in, and
hands each event to the handler its system registered. The systems' handlers are its
subclasses: Shadowrun's in :mod:`poolhall.projections.analytics_sr3`, the rest in
:mod:`poolhall.projections.analytics`, whose module docstring says what each roll is judged by.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from poolhall.events import core
from poolhall.events.base import Recorded
from poolhall.projections import analytics_odds as odds
from poolhall.projections.analytics_model import RollRow
from poolhall.projections.analytics_tally import Fact, Scope

__all__ = ["ADMIN", "ADMIN_NAME", "OPEN_KEPT", "FoldBase", "remember", "seconds_of"]

ADMIN = "admin"
"""The member the admin token acts as (the server's ``ADMIN_MEMBER``, a name no member can
take). It acts as GM in every campaign, and the report counts it on the GM's side."""
ADMIN_NAME = "admin (GM)"
"""How the report names it: the log has no name for it, and its rows stand with the GM's."""
OPEN_KEPT = 4096
"""Tests and checks still open that the fold remembers, at most (the oldest forgotten first):
a reroll or a roll refers to one opened lately, and the fold's memory must not grow with the
log. One forgotten is judged as a test of a partial log is (its reroll is not compared)."""

Handler = Callable[[Recorded, Any, float | None], None]


def remember(open_ones: dict[Any, Any], key: object, value: object) -> None:
    """``open_ones[key] = value``, forgetting the oldest past :data:`OPEN_KEPT`."""
    open_ones[key] = value
    if len(open_ones) > OPEN_KEPT:
        del open_ones[next(iter(open_ones))]


def seconds_of(at: str) -> float | None:
    """An event's recorded time as seconds since the epoch (None if unreadable)."""
    try:
        return datetime.fromisoformat(at).timestamp()
    except ValueError:
        return None


class FoldBase:
    """The walk over the log: what the report needs to remember between events."""

    def __init__(self, keep_rows: bool) -> None:
        self.campaign = ""
        self.name = ""
        self.system = ""
        self.head = 0
        self.players: dict[str, str] = {}
        self.gms: set[str] = {"gm", ADMIN}
        """The GMs: invited as such, ``gm`` (the member a campaign's GM is created as), and the
        admin token, which acts as GM in every campaign."""
        self.characters: dict[str, str] = {}
        self.whole = Scope(None)
        self.sessions: list[Scope] = []
        self.current: Scope | None = None
        self.scopes: list[Scope] = [self.whole]
        self.keep_rows = keep_rows
        self.rows: list[RollRow] = []
        self.handlers: dict[type[Any], Handler] = {
            core.CampaignCreated: self.campaign_created,
            core.MemberInvited: self.member_invited,
            core.CharacterCreated: self.character_named,
            core.CharacterUpdated: self.character_named,
        }

    # ---- plumbing -------------------------------------------------------------------------

    def judge(self, rec: Recorded, character: str | None, system: str, kind: str,
              pool: Callable[[], str], result: Callable[[], str], x: int, dist: odds.Discrete,
              p_success: float | None, test: int | None = None) -> None:
        """Judge one roll's value ``x`` against its distribution. The row (and the words of
        its pool and result) is made only if it is kept or shown; ``test`` is the number the
        table gives the test (SR3's), for the report to name it as the table does."""
        figures = dist.figures(x)
        p_at_most = dist.p_at_most(x)
        session = self.current.session if self.current else None

        def make() -> RollRow:
            return RollRow(
                campaign=self.campaign, session=session, seq=rec.seq, time=rec.at,
                actor=rec.actor, character=character, system=system, kind=kind, pool=pool(),
                result=result(), value=x, expected=round(dist.mean, 6), p_success=p_success,
                p_at_least=figures[0], p_at_most=p_at_most, percentile=figures[1], test=test)

        fact = Fact(rec.actor, character, system, figures, p_at_most, dist, make)
        if self.keep_rows:
            self.rows.append(fact.row())
        if len(dist.values) < 2:  # a certain result tells nothing about the dice
            return
        for scope in self.scopes:
            scope.roll(fact)

    def add(self, system: str, character: str | None, pairs: tuple[float, ...]) -> None:
        """One roll's actual, expected, actual, expected ... of the system's figures
        (:data:`poolhall.projections.analytics_tally.SYSTEM_SUMS`), for the table and the
        character."""
        for scope in self.scopes:
            table, mine = scope.sums(system, character)
            table.rolls += 1
            table.add(pairs)
            if mine is not table:
                mine.rolls += 1
                mine.add(pairs)

    def add_one(self, system: str, character: str | None, name: str, actual: float,
                expected: float) -> None:
        """Add to one figure, not a roll of its own (the Karma Pool dice of a test)."""
        for scope in self.scopes:
            table, mine = scope.sums(system, character)
            table.add_one(name, actual, expected)
            if mine is not table:
                mine.add_one(name, actual, expected)

    # ---- the walk -------------------------------------------------------------------------

    def step(self, rec: Recorded) -> None:
        """One event: counted in the timeline of every section it falls in, then handed to
        its system's handler. A private roll sealed for the reader (``private_roll``) is
        counted as an event, as the reader was told one happened, and judged by no one."""
        self.head = max(self.head, rec.seq)
        event: Any = rec.event
        kind = type(event)
        if kind is core.GameSessionStarted:
            self.current = Scope(event.session, event.title)
            self.sessions.append(self.current)
            self.scopes = [self.whole, self.current]
            self.session_started(self.current)
        seconds = seconds_of(rec.at)
        if seconds is not None:
            for scope in self.scopes:
                scope.event(seconds, rec.at, rec.seq)
        handler = self.handlers.get(kind)
        if handler is not None:
            handler(rec, event, seconds)
        if kind is core.GameSessionEnded:
            self.current = None
            self.scopes = [self.whole]

    def session_started(self, scope: Scope) -> None:
        """A game session began: what still runs from before it is counted in it too (a
        system's subclass says what; nothing by default)."""

    def campaign_created(self, rec: Recorded, event: Any, seconds: float | None) -> None:
        self.campaign, self.name, self.system = event.campaign, event.name, event.system

    def member_invited(self, rec: Recorded, event: Any, seconds: float | None) -> None:
        self.players[event.member] = event.name
        if event.role == "gm":
            self.gms.add(event.member)

    def character_named(self, rec: Recorded, event: Any, seconds: float | None) -> None:
        if event.name is not None:
            self.characters[event.character] = event.name

    def named(self) -> dict[str, str]:
        """The members' names, the admin token's among them once it acted in the figures."""
        names = dict(self.players)
        if ADMIN in self.whole.rolled_for or ADMIN in self.whole.flips_by:
            names[ADMIN] = ADMIN_NAME
        return dict(sorted(names.items()))
