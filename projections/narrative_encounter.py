"""Folding the narrative encounter and the spending of results
(:mod:`poolhall.events.narrative_encounter`).

The encounter keeps its initiative entries in the order they were entered and its claims of
the current round; each entry re-orders the entries into slots as the rules have it
(by successes, then advantage) into ``slots``, which the table shows. A spend is kept on its check
(``spends``, and ``left``: what is left of that symbol), so it leaves the state with the check.
"""

from __future__ import annotations

from typing import Any

import msgspec

from poolhall.events import narrative_encounter as e
from poolhall.events.base import Recorded
from poolhall.events.narrative_values import NarrativeResult
from poolhall.events.plural import plural

__all__ = ["ENCOUNTER_TYPES", "Claim", "Encounter", "InitiativeEntry", "SpendRecord",
           "available", "describe_encounter", "evolve_encounter", "rolled_before", "slot_order",
           "unspent"]

ENCOUNTER_TYPES = frozenset(e.ENCOUNTER_EVENTS)


class InitiativeEntry(msgspec.Struct, kw_only=True, gc=False):
    """One character's initiative: its check's result and the side of the slot it makes."""

    character: str
    check: str
    skill: str
    side: str
    successes: int
    advantages: int
    triumphs: int = 0


class Claim(msgspec.Struct, kw_only=True, gc=False):
    """A slot of the current round taken by a character."""

    slot: int
    side: str
    character: str


class SpendRecord(msgspec.Struct, kw_only=True, gc=False):
    """Symbols of a check spent: by whom, how many of which, on what."""

    seq: int
    actor: str
    symbol: str
    count: int
    on: str
    in_combat: bool = False


class Encounter(msgspec.Struct, kw_only=True):
    """The encounter running now: its initiative entries, its round, this round's claims."""

    encounter: int
    round: int = 0
    entries: list[InitiativeEntry] = msgspec.field(default_factory=list)
    claims: list[Claim] = msgspec.field(default_factory=list)
    reason: str = ""
    slots: list[InitiativeEntry] = msgspec.field(default_factory=list)
    """The entries in the order they act (:func:`slot_order`), kept in the state so that
    the table shows the order the server decided, never one a client worked out."""
    started_seq: int = 0
    """The seq of its ``encounter_started``: only a check rolled after it is this encounter's
    initiative (:func:`rolled_before`). 0 in a table kept before it was, which takes any."""


def rolled_before(encounter: Encounter, rolled_seq: int | None) -> bool:
    """Whether a check rolled at ``rolled_seq`` was rolled before ``encounter`` began, and so
    is no initiative of it.

    Initiative is a Cool or Vigilance check rolled at the encounter's start; a rolled check
    stays in the table long after, and entering Han's Cool check of last session (or one
    entered in an earlier encounter, or the guard's Vigilance rolled before the ambush) gave
    a slot for a roll made for something else. The log's order is the one clock every check
    and encounter share, so the rule is one comparison of seqs: the check was rolled after
    the ``encounter_started`` event. No rule of the session is needed besides: a check of an
    earlier session was rolled before an encounter of this one began, and a check rolled
    after an encounter began in an earlier session (the session ended mid-initiative) was
    rolled for that encounter."""
    return (rolled_seq or 0) < encounter.started_seq


def slot_order(entries: list[InitiativeEntry]) -> list[InitiativeEntry]:
    """Initiative slots ordered by successes, then advantage (the rules), then triumphs, then
    a player's slot before an NPC's, then the order they were entered.

    **Decision**: the sources order by successes then advantage only; the further tie-breaks
    (triumphs, players before NPCs, first entered first) are poolhall's, so that the order is
    always one function of the log.
    """
    indexed = list(enumerate(entries))
    indexed.sort(key=lambda pair: (-pair[1].successes, -pair[1].advantages,
                                   -pair[1].triumphs, pair[1].side != "player", pair[0]))
    return [entry for _, entry in indexed]


def available(result: NarrativeResult, symbol: str) -> int:
    """How many of ``symbol`` a result holds to spend: net advantage or net threat (they
    cancel), and every triumph and despair (they never cancel)."""
    match symbol:
        case "advantage":
            return max(result.advantages, 0)
        case "threat":
            return max(-result.advantages, 0)
        case "triumph":
            return result.triumphs
        case "despair":
            return result.despairs
    return 0


def unspent(result: NarrativeResult) -> dict[str, int]:
    """What a result holds to spend, by symbol, before anything is spent."""
    return {symbol: available(result, symbol)
            for symbol in ("advantage", "triumph", "threat", "despair")}


def evolve_encounter(state: Any, recorded: Recorded, check: Any) -> None:
    """Fold one encounter or spending event onto the narrative ``state`` (a GameState);
    ``check`` is the CheckState the event names, if it names one the state holds."""
    event = recorded.event
    match event:
        case e.EncounterStarted():
            state.encounters = event.encounter
            state.encounter = Encounter(encounter=event.encounter, reason=event.reason,
                                        started_seq=recorded.seq)
        case e.InitiativeEntered() if state.encounter is not None:
            state.encounter.entries.append(InitiativeEntry(
                character=event.character, check=event.check, skill=event.skill,
                side=event.side, successes=event.successes, advantages=event.advantages,
                triumphs=event.triumphs))
            state.encounter.slots = slot_order(state.encounter.entries)
        case e.RoundStarted() if state.encounter is not None:
            state.encounter.round = event.round
            state.encounter.claims = []
        case e.SlotClaimed() if state.encounter is not None:
            state.encounter.claims.append(Claim(slot=event.slot, side=event.side,
                                                character=event.character))
        case e.EncounterEnded():
            state.encounter = None
        case e.ResultSpent() if check is not None:
            check.spends.append(SpendRecord(seq=recorded.seq, actor=recorded.actor,
                                            symbol=event.symbol, count=event.count,
                                            on=event.on, in_combat=event.in_combat))
            check.left[event.symbol] = event.left


def holding(state: Any, character: str) -> str | None:
    """What open thing of the narrative ``state`` (a GameState) holds ``character``, so that
    it may not retire yet (:attr:`poolhall.projections.contract.Projection.holding`): a check
    it rolls, or is the target or the opponent of, or the encounter it has a slot in."""
    for check in state.open_checks():
        opponent = check.difficulty.opponent if check.difficulty is not None else None
        if character in (check.character, check.target, opponent):
            return f"is in the open check {check.check!r}: roll or cancel it first"
    encounter = state.encounter
    if encounter is not None and any(character == entry.character for entry in
                                     [*encounter.entries, *encounter.claims]):
        return f"is in the open encounter {encounter.encounter}: end it first"
    return None


def describe_encounter(event: Any) -> str:
    """One line for people of an encounter or spending event."""
    why = f" ({event.reason})" if getattr(event, "reason", "") else ""
    match event:
        case e.EncounterStarted():
            return f"started encounter {event.encounter}{why}: roll initiative (Cool or Vigilance)"
        case e.InitiativeEntered():
            return (f"{event.character}'s initiative: {plural('success', event.successes)}, "
                    f"{plural('advantage', event.advantages)} ({event.skill}, {event.side} slot)")
        case e.RoundStarted():
            return f"round {event.round} begins"
        case e.SlotClaimed():
            return (f"{event.character} acts in slot {event.slot} ({event.side}) of round "
                    f"{event.round}")
        case e.EncounterEnded():
            return (f"ended encounter {event.encounter} after "
                    f"{plural('round', event.rounds)}{why}")
        case e.ResultSpent():
            where = "in combat" if event.in_combat else "out of combat"
            return (f"spent {plural(event.symbol, event.count)} of {event.check} on {event.on} "
                    f"({where}; {event.left} left)")
    return type(event).__name__
