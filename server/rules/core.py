"""Decisions on the core commands: members and who they play, characters, game sessions and free
rolls."""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Any

import msgspec

from poolhall.events import core
from poolhall.events.base import Command, Event
from poolhall.events.dice import DiceExpression, RolledTerm, parse_dice, total_of
from poolhall.events.errors import NeedsCharacter, NotationError, Rejected
from poolhall.events.fair import RotateSeed, SeedCommitted, SetClientSeed, commitment
from poolhall.events.free_roll import in_notation
from poolhall.projections.campaign import CampaignState, Character
from poolhall.server.rules import fairness, privacy
from poolhall.server.rules.base import ADMIN_MEMBER, Decision
from poolhall.server.rules.retire import require_not_retired, retire_character

__all__ = ["COMMANDS", "as_typed", "decide", "open_campaign", "require_session", "slugify"]

COMMANDS = frozenset(core.COMMANDS)


_UNSPLIT = str.maketrans({"ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "đ": "d", "ð": "d",
                          "ł": "l", "þ": "th", "ı": "i", "ħ": "h", "ŧ": "t", "ŋ": "n"})
"""Latin letters that Unicode does not split into a base letter and a mark, as they are
written without the mark. The page's ids follow the same table (``clients/web/slug.js``)."""


def ascii_letters(text: str) -> str:
    """``text`` in lower case with its Latin letters unmarked ("Ørjan Émile" -> "orjan emile");
    letters of other scripts are left as they are (and become separators in an id)."""
    split = unicodedata.normalize("NFKD", text.lower().translate(_UNSPLIT))
    return "".join(char for char in split if not unicodedata.combining(char))


def slugify(text: str, taken: set[str] | dict[str, Any], fallback: str) -> str:
    """A readable id from a name ("Édge of the Empire" -> "edge-of-the-empire"), made unique.

    A name with no Latin letter or digit at all ("李") takes ``fallback`` ("player-2")."""
    base = re.sub(r"[^a-z0-9]+", "-", ascii_letters(text)).strip("-")[:32].strip("-") or fallback
    candidate, n = base, 2
    while candidate in taken:
        candidate = f"{base}-{n}"
        n += 1
    return candidate


def distinct_name(name: str, taken: set[str]) -> str:
    """``name``, or with a number after it ("GM 2") when a member at the table already has it:
    every "Another GM link" was a member called "GM", and the GM could not tell which old link
    to remove. Cut short to stay within a name's 80 characters."""
    candidate, n = name, 2
    while candidate in taken:
        suffix = f" {n}"
        candidate = name[:80 - len(suffix)] + suffix
        n += 1
    return candidate


def open_campaign(
    command: core.CreateCampaign, campaign: str, gm_token_hash: str,
    first_seed: bytes | None = None,
) -> list[Event]:
    """The first events of a campaign: it exists, its GM is invited, and the server commits
    to the seed of its first epoch of rolls (``first_seed``, already stored durably)."""
    events: list[Event] = [
        core.CampaignCreated(campaign=campaign, name=command.name, system=command.system),
        core.MemberInvited(member="gm", name="GM", role="gm", token_hash=gm_token_hash),
    ]
    if first_seed is not None:
        events.append(SeedCommitted(epoch=1, commitment=commitment(first_seed)))
    return events


def _invite(ctx: Decision, command: core.Invite, hash_token: Any) -> list[Event]:
    ctx.require_gm("invite members")
    if command.role == "spectator" and command.characters:
        raise Rejected("invalid", "a spectator plays no characters", "$.characters")
    require_not_retired(ctx, command.characters, "$.characters")
    name = command.name or (command.characters[0] if command.characters else command.role)
    member = slugify(name, {*ctx.state.members, ADMIN_MEMBER}, command.role)  # "admin" is taken
    name = distinct_name(name, {m.name for m in ctx.state.members.values() if m.active})
    token = ctx.issue_token(member)
    return [
        core.MemberInvited(
            member=member,
            name=name,
            role=command.role,
            characters=command.characters,
            token_hash=hash_token(token),
        )
    ]


def require_session(state: CampaignState, session: int | None) -> None:
    """Refuse ``not_found`` at ``$.session`` a game session that has not started (``None``,
    the whole campaign, always passes): what a replay link or a report of it would show is
    nothing, and saying so up front beats a link or page that opens onto "no such session"."""
    if session is None or any(span.session == session for span in state.sessions):
        return
    started = len(state.sessions)
    raise Rejected("not_found", f"no game session {session} yet: "
                   + (f"sessions 1 to {started} have started" if started > 1
                      else "session 1 has started" if started else "none has started"),
                   "$.session")


def _share_replay(ctx: Decision, command: core.ShareReplay, hash_token: Any) -> list[Event]:
    ctx.require_gm("share replays")
    state = ctx.state
    require_session(state, command.session)
    name = command.name or (f"replay of session {command.session}" if command.session
                            else "replay of the campaign")
    member = slugify(name, {*state.members, ADMIN_MEMBER}, "replay")
    token = ctx.issue_token(member)
    return [core.ReplayShared(member=member, name=name, session=command.session or 0,
                              last=0 if command.session else state.head,
                              token_hash=hash_token(token))]


def _remove_member(ctx: Decision, command: core.RemoveMember) -> list[Event]:
    ctx.require_gm("remove members")
    member = ctx.state.members.get(command.member)
    if member is None or not member.active:
        raise Rejected("not_found", f"no member {command.member!r} at this table", "$.member")
    gms = [m for m in ctx.state.members.values() if m.active and m.role == "gm"]
    if member.role == "gm" and len(gms) == 1:
        raise Rejected("rule", "the last GM cannot be removed", "$.member")
    return [core.MemberRemoved(member=command.member, reason=command.reason)]


def _assign_characters(ctx: Decision, command: core.AssignCharacters) -> list[Event]:
    ctx.require_gm("assign characters")
    member = ctx.state.members.get(command.member)
    if member is None or not member.active or member.role == "replay":
        raise Rejected("not_found", f"no member {command.member!r} at this table", "$.member")
    if member.role != "player":
        raise Rejected("invalid", f"{member.name} is a {member.role}: only players are given "
                       "characters (a GM acts for every character)", "$.member")
    require_not_retired(ctx, command.characters, "$.characters")
    characters = tuple(dict.fromkeys(command.characters))  # each once, in the order given
    if list(characters) == member.characters:
        names = [ctx.state.characters[c].name if c in ctx.state.characters else c
                 for c in characters]
        plays = ", ".join(names) if names else "no character"
        raise Rejected("invalid", f"{member.name} already plays {plays}: nothing to change",
                       "$.characters")
    return [core.CharactersAssigned(member=command.member, characters=characters)]


def _check_system(ctx: Decision, stats: Any) -> None:
    system = type(stats).__struct_config__.tag if stats is not None else None
    if system is not None and system != ctx.state.system:
        raise Rejected(
            "invalid", f"this campaign plays {ctx.state.system!r}, not {system!r}",
            "$.stats.system",
        )


def _create_character(ctx: Decision, command: core.CreateCharacter) -> list[Event]:
    ctx.require_acts_for(command.character)
    if command.character in ctx.state.characters:
        raise Rejected("conflict", f"character {command.character!r} exists", "$.character")
    if command.character in ctx.state.retired:
        raise Rejected("conflict", f"{command.character!r} was the id of "
                       f"{ctx.state.retired[command.character]}, retired: a retired "
                       "character's id is not reused, choose another", "$.character")
    _check_system(ctx, command.stats)
    return [core.CharacterCreated(character=command.character, name=command.name,
                                  stats=command.stats)]


def _update_character(ctx: Decision, command: core.UpdateCharacter) -> list[Event]:
    ctx.require_acts_for(command.character)
    character = ctx.character(command.character)
    if command.based_on is not None and command.based_on < character.changed:
        raise Rejected("conflict", _changed_since(ctx, character, command.based_on),
                       "$.based_on")
    if command.name is None and command.stats is None:
        raise Rejected("invalid", "nothing to update: give name or stats", "$")
    _check_system(ctx, command.stats)
    return [core.CharacterUpdated(character=command.character, name=command.name,
                                  stats=command.stats)]


def _changed_since(ctx: Decision, character: Character, based_on: int) -> str:
    """Why an update made from an older read of the sheet is refused: the sender's sheet would
    silently undo the change made since (two GM tabs editing one character), so the words say
    who made it and when, and what to do."""
    if character.changed_by == ctx.actor.member:
        who = "you, elsewhere (another tab or window)"
    else:
        member = ctx.state.members.get(character.changed_by)
        who = member.name if member is not None else character.changed_by
    return (f"{character.name} was changed by {who} (event #{character.changed}) after you "
            f"opened the sheet (at event #{based_on}): reload it to see that change, then save "
            "again")


def _start_session(ctx: Decision, command: core.StartSession) -> list[Event]:
    ctx.require_gm("start a game session")
    if ctx.state.in_session:
        raise Rejected("rule", f"game session {ctx.state.session} is still running", "$.type")
    privacy.require_secrets_finished(ctx, "starting a game session")
    return [core.GameSessionStarted(session=ctx.state.session + 1, title=command.title)]


def _end_session(ctx: Decision, command: core.EndSession) -> list[Event]:
    ctx.require_gm("end a game session")
    if not ctx.state.in_session:
        raise Rejected("rule", "no game session is running", "$.type")
    privacy.require_secrets_finished(ctx, "ending the game session")
    return [core.GameSessionEnded(session=ctx.state.session)]


@functools.lru_cache(maxsize=1024)
def _parse_dice(text: str) -> tuple[DiceExpression, str]:
    """An expression parsed, with its canonical notation: tables repeat the same few, and
    parsed expressions are frozen values (writing the notation of each roll afresh was ~2%
    of the event loop's time at a busy table)."""
    expression = parse_dice(text)
    return expression, str(expression)


def as_typed(ctx: Decision, command: Command) -> Command:
    """A ``roll`` whose expression is the campaign's own notation (``2g 1p``, ``6d6 tn5``,
    ``5d12 dt7``) as the system's command ``poolhall roll`` would have sent for it
    (:func:`poolhall.events.free_roll.in_notation`); any other command as it is.

    The table page sends what was typed in its roll form as a ``roll``: reading it here, with
    the CLI's own reading, gives the page every system's notation and the CLI's words for a
    mistake, with no copy of any grammar in the browser. A character's test that names none
    is the roller's one character, as in the CLI."""
    if type(command) is not core.Roll:
        return command
    try:
        _parse_dice(command.expression)  # plain dice, nearly every roll (cached)
        return command
    except NotationError:
        pass
    ctx.require_participant("roll")  # before "whose test is it?", which asks to no purpose
    try:
        return in_notation(ctx.state.system, command)
    except NeedsCharacter as error:
        only = ctx.only_character()
        if only is None:
            raise Rejected("invalid", error.message + ctx.whose(), "$.character") from None
        return as_typed(ctx, msgspec.structs.replace(command, character=only))
    except NotationError as error:
        raise Rejected("invalid", error.message, "$.expression") from None


def _roll(ctx: Decision, command: core.Roll) -> list[Event]:
    ctx.require_participant("roll")
    if command.character is not None:
        ctx.character(command.character)
        ctx.require_acts_for(command.character)
    try:
        expression, notation = _parse_dice(command.expression)
    except NotationError as error:
        raise Rejected("invalid", error.message, "$.expression") from None
    rolled = tuple([  # lists built, then frozen: a generator costs a resumption per item
        RolledTerm(
            sides=term.sides,
            sign=term.sign,
            faces=tuple([ctx.rng.randint(1, term.sides) for _ in range(term.count)]),
        )
        for term in expression.terms
    ])
    return [
        core.DiceRolled(
            character=command.character,
            expression=notation,
            terms=rolled,
            constant=expression.constant,
            total=total_of(rolled, expression.constant),
            reason=command.reason,
        )
    ]


def decide(ctx: Decision, command: Any, hash_token: Any) -> list[Event]:
    """Decide a core command (``hash_token`` turns an issued token into what the log keeps)."""
    if type(command) is core.Roll:  # nearly every command a table sends: not matched last,
        return _roll(ctx, command)  # after eleven other classes
    match command:
        case core.Invite():
            return _invite(ctx, command, hash_token)
        case core.ShareReplay():
            return _share_replay(ctx, command, hash_token)
        case SetClientSeed() | RotateSeed():
            if isinstance(command, RotateSeed) and ctx.is_gm:  # it reveals the epoch's seed
                privacy.require_secrets_finished(ctx, "rotating the seed")
            return fairness.decide(ctx.fair, ctx.state, ctx.actor.member, ctx.is_gm, command,
                                   ctx.actor.role)
        case core.CreateCampaign():
            raise Rejected("forbidden", "campaigns are created with the admin token", "$.type")
    return _decide_play(ctx, command)


def _decide_play(ctx: Decision, command: Any) -> list[Event]:
    """The other core commands: a member removed, characters, game sessions, rolls."""
    match command:
        case core.RemoveMember():
            return _remove_member(ctx, command)
        case core.AssignCharacters():
            return _assign_characters(ctx, command)
        case core.RetireCharacter():
            return retire_character(ctx, command)
        case core.CreateCharacter():
            return _create_character(ctx, command)
        case core.UpdateCharacter():
            return _update_character(ctx, command)
        case core.StartSession():
            return _start_session(ctx, command)
        case core.EndSession():
            return _end_session(ctx, command)
        case core.Roll():
            return _roll(ctx, command)
    raise Rejected("unknown_type", f"unknown command {type(command).__name__}", "$.type")
