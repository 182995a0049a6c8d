"""The narrative system's log lines for people: a check, its dice and its roll, the destiny
pool, Force dice and free pools, in one line each (``poolhall watch``, the report's log)."""

from __future__ import annotations

from poolhall.events import narrative as n
from poolhall.events.base import Event, Recorded
from poolhall.projections.contract import TableView
from poolhall.projections.narrative_dice import cancel_text
from poolhall.projections.narrative_encounter import ENCOUNTER_TYPES, describe_encounter

__all__ = ["describe", "dice_text"]

_SHORT = {"success": "S", "advantage": "A", "triumph": "Tr", "failure": "F", "threat": "T",
          "despair": "De", "dark": "●", "light": "○"}
_LETTER = {kind: letter for letter, kind in n.DIE_LETTERS.items()}


def dice_text(dice: tuple[n.RolledDie, ...]) -> str:
    """Each die as its colour letter and symbols: ``y[SA] g[-] p[FT]``."""
    return " ".join(f"{_LETTER[d.kind]}[{''.join(_SHORT[s] for s in d.symbols) or '-'}]"
                    for d in dice)


def _why(reason: str) -> str:
    return f" ({reason})" if reason else ""


def describe(recorded: Recorded, campaign: TableView) -> str:
    """One line for people."""
    event = recorded.event
    if type(event) in ENCOUNTER_TYPES:
        return describe_encounter(event)
    return _check_words(event) or _destiny_and_roll_words(event) or type(event).__name__


def _check_words(event: Event) -> str | None:
    """A check opened, its difficulty set, its dice changed, and its roll or its end."""
    match event:
        case n.CheckOpened():
            pool = n.Pool(ability=event.ability, proficiency=event.proficiency).notation()
            return (f"opened check {event.check}: {event.character}'s {event.skill} "
                    f"({event.characteristic.title()} {event.characteristic_value}, rank "
                    f"{event.rank}) -> {pool}{_why(event.reason)}")
        case n.DifficultySet():
            dice = n.Pool(difficulty=event.difficulty, challenge=event.challenge).notation()
            what = (f"opposed by {event.opponent}'s {event.opponent_skill}"
                    if event.level == "opposed" else event.level)
            return f"set the difficulty of {event.check}: {what} -> {dice}{_why(event.reason)}"
        case n.DiceAdded():
            return f"added {event.count} {event.kind} to {event.check}{_why(event.reason)}"
        case n.DiceRemoved():
            return f"removed {event.count} {event.kind} from {event.check}{_why(event.reason)}"
        case n.DiceUpgraded() | n.DiceDowngraded():
            verb = "upgraded" if isinstance(event, n.DiceUpgraded) else "downgraded"
            dice = "die" if event.count == 1 else "dice"
            return (f"{verb} {event.count} {event.side}-side {dice} of {event.check}"
                    f"{_why(event.reason)}")
        case n.CheckRolled():
            verdict = "success" if event.result.succeeded else "failure"
            return (f"rolled {event.check} ({event.character}) {event.pool.notation()}: "
                    f"{dice_text(event.dice)} = {cancel_text(event.result)}: {verdict}")
        case n.CheckCancelled():
            return f"cancelled check {event.check}{_why(event.reason)}"
    return None


def _destiny_and_roll_words(event: Event) -> str | None:
    """The destiny pool rolled, set or spent, and the rolls outside any check."""
    match event:
        case n.DestinyPoolRolled():
            dice = ", ".join(f"{d.member} {''.join(_SHORT[s] for s in d.symbols)}"
                             for d in event.dice)
            return f"rolled the destiny pool: {dice} -> {event.light} light, {event.dark} dark"
        case n.DestinyPoolSet():
            return f"set the destiny pool: {event.light} light, {event.dark} dark" \
                   f"{_why(event.reason)}"
        case n.DestinyFlipped():
            on = f" on {event.check}" if event.check else ""
            return (f"spent a {event.side} side destiny point: {event.effect.replace('_', ' ')}"
                    f"{on}{_why(event.reason)} -> {event.light} light, {event.dark} dark")
        case n.ForceDiceRolled():
            return (f"rolled {len(event.dice)} Force dice for {event.character}{_why(event.reason)}"
                    f": {dice_text(event.dice)} = {event.light} light, {event.dark} dark")
        case n.PoolRolled():
            who = f" for {event.character}" if event.character else ""
            return (f"rolled {event.pool.notation()}{who}{_why(event.reason)}: "
                    f"{dice_text(event.dice)} = {cancel_text(event.result)}")
    return None
