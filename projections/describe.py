"""One readable line per event, for ``poolhall watch`` and replays.

Core events are described here; a game system's events by its projection module's
``describe(recorded, campaign)``.
"""

from __future__ import annotations

from poolhall.events import core
from poolhall.events.base import Event, Recorded
from poolhall.events.fair import ClientSeedSet, SeedCommitted, SeedLost, SeedRevealed
from poolhall.projections.campaign import CampaignState
from poolhall.projections.systems import projection

__all__ = ["describe", "who"]


def _roll_text(event: core.DiceRolled) -> str:
    parts = []
    for term in event.terms:
        sign = "-" if term.sign < 0 else ""
        parts.append(f"{sign}d{term.sides}[{' '.join(str(f) for f in term.faces)}]")
    if event.constant:
        parts.append(f"{event.constant:+d}")
    who = f" for {event.character}" if event.character else ""
    why = f" ({event.reason})" if event.reason else ""
    return f"rolled {event.expression}{who}{why}: {' '.join(parts)} = {event.total}"


_SEALED = {
    "gm": "acted in secret (gm): nothing shown until the game session ends",
    "blind": "rolled blind: only the GM sees the result until the game session ends",
    "self": "rolled in private (self): only the roller and the GM see it until the game "
            "session ends",
}
"""A private roll as a member who may not see it reads it
(:class:`poolhall.events.core.PrivateRoll`). The GM's may be no roll at all (a secret check
opened, its difficulty set, a d12 test called) and the sealed event does not say which, so it
"acted"; a player's private event is always a one-shot roll."""


def describe(recorded: Recorded, campaign: CampaignState) -> str:
    """What happened, in words, as the table would say it."""
    event = recorded.event
    said = _table_words(event, campaign) or _play_words(event) or _fairness_words(event)
    if said is not None:
        return said
    if campaign.system:
        return str(projection(campaign.system).describe(recorded, campaign))
    return type(event).__name__


def who(recorded: Recorded, campaign: CampaignState) -> str:
    """Who an event's command came from, by the name the table knows them by (their id if
    the table has no member of that id: ``admin``, or a log read from its middle)."""
    return _member_name(campaign, recorded.actor)


def _member_name(campaign: CampaignState, member: str) -> str:
    found = campaign.members.get(member)
    return found.name if found is not None else member


def _character_names(campaign: CampaignState, characters: tuple[str, ...]) -> str:
    return ", ".join(campaign.character_name(c) for c in characters)


def _table_words(event: Event, campaign: CampaignState) -> str | None:
    """Who sits at the table and who they play: the campaign, its members, its characters."""
    match event:
        case core.CampaignCreated():
            return f"opened campaign {event.name!r} ({event.system})"
        case core.MemberInvited():
            plays = f" playing {', '.join(event.characters)}" if event.characters else ""
            return f"invited {event.name} as {event.role}{plays}"
        case core.MemberRemoved():
            return (f"removed {_member_name(campaign, event.member)}"
                    + (f" ({event.reason})" if event.reason else ""))
        case core.CharactersAssigned():
            plays = _character_names(campaign, event.characters) or "no character"
            return f"{_member_name(campaign, event.member)} now plays {plays}"
        case core.CharacterCreated():
            return f"created character {event.name} ({event.character})"
        case core.CharacterUpdated():
            return f"updated character {event.character}"
        case core.CharacterRetired():
            why = f" ({event.reason})" if event.reason else ""
            return f"retired character {event.name} ({event.character}){why}"
        case core.CharacterImported():
            where = f" from {event.from_campaign}" if event.from_campaign else ""
            return f"imported character {event.character}{where}"
        case core.ConditionChanged():
            why = f" ({event.reason})" if event.reason else ""
            return (f"{event.character}'s {event.condition.replace('_', ' ')}: {event.was} ->"
                    f" {event.value}{why}")
    return None


def _play_words(event: Event) -> str | None:
    """The play itself: game sessions, the free rolls, a replay shared."""
    match event:
        case core.GameSessionStarted():
            title = f": {event.title}" if event.title else ""
            return f"started game session {event.session}{title}"
        case core.GameSessionEnded():
            return f"ended game session {event.session}"
        case core.DiceRolled():
            return _roll_text(event)
        case core.PrivateRoll():
            return _SEALED.get(event.visibility, "acted in private")
        case core.ReplayShared():
            what = f"game session {event.session}" if event.session else f"up to #{event.last}"
            return f"shared a replay of {what} ({event.name})"
    return None


def _fairness_words(event: Event) -> str | None:
    """The seeds that let the table check the dice (:mod:`poolhall.events.fair`).

    A commitment and a reveal are the server's bookkeeping, written under the member whose
    command began or ended the epoch (a roll, a game session started or ended): "Ana revealed
    the seed of epoch 2" read as if Ana's own seed was revealed. So the words say what the
    member's command did (began or ended the epoch) and what the server did, as the browser
    table's log says it (``clients/web/describe.js``)."""
    match event:
        case SeedCommitted():
            return (f"began dice epoch {event.epoch}: the server committed to its seed "
                    f"(SHA-256 {event.commitment[:16]}...)")
        case SeedRevealed():
            rolls = f"{event.rolls} roll{'' if event.rolls == 1 else 's'}"
            return (f"ended dice epoch {event.epoch}: the server revealed its seed "
                    f"({rolls} to check)")
        case SeedLost():
            rolls = f"{event.rolls} roll{'' if event.rolls == 1 else 's'}"
            return (f"ended dice epoch {event.epoch}: the server lost its seed ({rolls} that "
                    "can never be checked)")
        case ClientSeedSet():
            return f"{event.member} set their seed"
    return None
