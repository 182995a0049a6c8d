"""Campaign logs built directly from the event types, for the report's tests and its bench.

A :class:`LogBuilder` numbers events and stamps them with times a few seconds apart; the
``*_session`` functions play a game session of one system with a seeded generator and fair
dice, or with one face of one die twice as likely as the others (``loaded``).
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from poolhall.events import core
from poolhall.events import d12 as d12_events
from poolhall.events import narrative as narrative_events
from poolhall.events import sr3 as sr3_events
from poolhall.events.base import Event, Recorded
from poolhall.events.dice import RolledTerm
from poolhall.events.narrative import Pool
from poolhall.projections.narrative_dice import FACES, rolled_die, tally

__all__ = ["LogBuilder", "d12_session", "free_session", "narrative_session", "sr3_session",
           "weighted_face"]

HASH = "0" * 64


class LogBuilder:
    """Recorded events numbered from 1, ``step`` seconds apart unless told otherwise."""

    def __init__(self, campaign: str = "night", system: str = "narrative",
                 start: str = "2026-11-23T19:00:00.000Z") -> None:
        self.events: list[Recorded] = []
        self.clock = datetime.fromisoformat(start)
        self.add(core.CampaignCreated(campaign=campaign, name="Game Night", system=system),
                 actor="admin")

    def add(self, event: Event, actor: str = "gm", after: float = 5.0) -> Recorded:
        """Append ``event``, ``after`` seconds after the previous one."""
        if self.events:
            self.clock += timedelta(seconds=after)
        at = self.clock.astimezone(UTC).isoformat(timespec="milliseconds").replace(
            "+00:00", "Z")
        recorded = Recorded(seq=len(self.events) + 1, at=at, actor=actor,
                            command=f"c{len(self.events) + 1}", event=event)
        self.events.append(recorded)
        return recorded

    def member(self, member: str, name: str, role: str = "player",
               characters: tuple[str, ...] = ()) -> None:
        self.add(core.MemberInvited(member=member, name=name, role=role,
                                    characters=characters, token_hash=HASH))


def weighted_face(rng: random.Random, sides: int, loaded: int | None) -> int:
    """A face 1..sides; face ``loaded`` (if any) twice as likely as each other face."""
    if loaded is None:
        return rng.randint(1, sides)
    pick = rng.randint(1, sides + 1)
    return loaded if pick == sides + 1 else pick


def narrative_session(log: LogBuilder, rng: random.Random, rolls: int, session: int = 1,
                      loaded: bool = False) -> None:
    """Han (played by ``han-player``) rolls ``rolls`` checks; destiny flips now and then.

    Loaded: the Ability die's face 4 (two successes) is twice as likely.
    """
    if session == 1:
        log.member("han-player", "Sam", characters=("han",))
        log.add(core.CharacterCreated(character="han", name="Han",
                                      stats=narrative_events.NarrativeStats()))
    log.add(core.GameSessionStarted(session=session, title=f"Session {session}"))
    log.add(narrative_events.DestinyPoolRolled(dice=(), light=2, dark=2))
    light, dark = 2, 2
    pools = [Pool(ability=2, proficiency=1, difficulty=2), Pool(ability=3, difficulty=1,
             challenge=1, boost=1), Pool(ability=1, proficiency=2, difficulty=3, setback=1)]
    for i in range(rolls):
        check = f"s{session}-c{i}"
        log.add(narrative_events.CheckOpened(
            check=check, character="han", skill="Ranged (Light)", characteristic="agility",
            characteristic_value=3, rank=1, ability=2, proficiency=1), actor="han-player")
        pool = pools[i % len(pools)]
        dice = []
        for kind in ("proficiency", "ability", "difficulty", "challenge", "boost", "setback"):
            for _ in range(pool.count(kind)):
                loaded_face = 4 if loaded and kind == "ability" else None
                dice.append(rolled_die(kind, weighted_face(rng, len(FACES[kind]), loaded_face)))
        log.add(narrative_events.CheckRolled(check=check, character="han", pool=pool,
                                             dice=tuple(dice), result=tally(dice)),
                actor="han-player", after=20.0)
        if i % 10 == 0 and light:
            light, dark = light - 1, dark + 1
            log.add(narrative_events.DestinyFlipped(side="light", effect="other", light=light,
                                                    dark=dark), actor="han-player")
        elif i % 10 == 5 and dark:
            light, dark = light + 1, dark - 1
            log.add(narrative_events.DestinyFlipped(side="dark", effect="other", light=light,
                                                    dark=dark))
    log.add(core.GameSessionEnded(session=session))


def _chain(rng: random.Random, loaded: int | None) -> tuple[int, ...]:
    faces = [weighted_face(rng, 6, loaded)]
    while faces[-1] == 6 and len(faces) < sr3_events.MAX_CHAIN:
        faces.append(weighted_face(rng, 6, loaded))
    return tuple(faces)


def sr3_session(log: LogBuilder, rng: random.Random, rolls: int, session: int = 1,
                loaded: bool = False) -> None:
    """Street samurai ``kat`` rolls ``rolls`` tests (some open, some with Combat Pool dice in a
    Combat Turn); loaded: face 5 twice as likely."""
    if session == 1:
        log.member("kat-player", "Kim", characters=("kat",))
    log.add(core.GameSessionStarted(session=session))
    log.add(sr3_events.CombatEncounterStarted(participants=("kat",)))
    log.add(sr3_events.CombatTurnStarted(turn=1, pools={"kat": {"combat": 6}}))
    for i in range(rolls):
        base, pool = 3 + i % 4, 2 if i < 3 else 0
        dice = tuple(sr3_events.PoolDie(source="combat" if d < pool else "base",
                                        faces=_chain(rng, 5 if loaded else None))
                     for d in range(base + pool))
        tn = None if i % 7 == 6 else 3 + i % 4
        totals = [sum(d.faces) for d in dice]
        successes = None if tn is None else sum(1 for t in totals if t >= tn)
        log.add(sr3_events.PoolTestRolled(
            character="kat", test=i + 1, base_dice=base, dice=dice, tn=tn,
            successes=successes, highest=max(totals),
            disastrous=all(d.faces[0] == 1 for d in dice)), actor="kat-player")
        if i == 3:
            log.add(sr3_events.CombatTurnEnded(turn=1))
    log.add(core.GameSessionEnded(session=session))


def d12_session(log: LogBuilder, rng: random.Random, rolls: int, session: int = 1,
                loaded: bool = False) -> None:
    """Basic tests of 4 to 7 d12 at DT 5 to 8; loaded: the 12 twice as likely."""
    if session == 1:
        log.member("ada-player", "Ada", characters=("ada",))
    log.add(core.GameSessionStarted(session=session))
    for i in range(rolls):
        n, dt = 4 + i % 4, 5 + i % 4
        log.add(d12_events.ThresholdTestStarted(
            test=i + 1, kind="basic", character="ada", pool=n,
            threshold=d12_events.Threshold(dt=dt)))
        faces = tuple(weighted_face(rng, 12, 12 if loaded else None) for _ in range(n))
        values = tuple(d12_events.die_value(f, dt) for f in faces)
        successes = sum(v for v in values if v > 0)
        failures = -sum(v for v in values if v < 0)
        log.add(d12_events.ThresholdDiceRolled(
            test=i + 1, round=1, dt=dt, faces=faces, values=values, successes=successes,
            failures=failures, margin=successes - failures, succeeded=successes > failures),
            actor="ada-player", after=12.0)
    log.add(core.GameSessionEnded(session=session))


def free_session(log: LogBuilder, rng: random.Random, rolls: int, loaded: bool = False) -> None:
    """``3d6+1`` free rolls by the GM; loaded: the d6's 6 twice as likely."""
    for _ in range(rolls):
        faces = tuple(weighted_face(rng, 6, 6 if loaded else None) for _ in range(3))
        log.add(core.DiceRolled(expression="3d6+1", terms=(RolledTerm(sides=6, faces=faces),),
                                constant=1, total=sum(faces) + 1))
