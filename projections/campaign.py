"""The campaign projection: members and roles, characters, game sessions and the roll log.

:func:`evolve` folds core events itself and hands each system event to the projection module of
the campaign's game system, whose state lives in :attr:`CampaignState.game`.

Why the state is updated in place: the log of a long campaign has hundreds of thousands of
events, and copying the state on every event would make a fold quadratic. ``evolve`` is
still a pure function of (state, event) - no I/O, no clock, no randomness - and it returns the
state; a caller who wants the state at an earlier point folds a fresh one (:func:`fold`).

Why the state is bounded: it holds what the table needs now (members, characters, the session,
the last :data:`ROLLS_KEPT` free rolls, and each system's open checks or tests with the latest
closed ones), never the campaign's whole history, which stays in the log and is read a page at
a time. The bound is applied by ``evolve`` itself, event by event, so the state after event N
is one function of the log up to N whether it was folded from the start or from a stored
snapshot (:mod:`poolhall.server.stored_snapshots`): a server holds kilobytes per campaign, not the
~2 KB per roll it once did.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Literal, TypeVar

import msgspec

from poolhall.events import core
from poolhall.events.base import Event, MemberRole, Recorded
from poolhall.events.dice import RolledTerm
from poolhall.events.fair import ClientSeedSet, SeedCommitted, SeedLost, SeedRevealed
from poolhall.events.systems import RegisteredSystem, Stats
from poolhall.projections.fair_draws import DRAWS
from poolhall.projections.privacy import PrivateSubject, track
from poolhall.projections.systems import GameState, projection

__all__ = [
    "CampaignState",
    "Character",
    "FairState",
    "Member",
    "ROLLS_KEPT",
    "RollEntry",
    "SessionSpan",
    "evolve",
    "fold",
    "fold_sealed",
    "new_state",
]


ROLLS_KEPT = 20
"""Free rolls the state keeps (the latest): a snapshot shows the last
:data:`~poolhall.projections.snapshot.TABLE_ROLLS` of them; older ones are in the log."""

G = TypeVar("G")
"""A game system's state type, as :meth:`CampaignState.game_as` checks and returns it."""


class Member(msgspec.Struct, kw_only=True):
    """Someone at the table: their role and the characters they play."""

    member: str
    name: str
    role: MemberRole
    characters: list[str]
    token_hash: str
    active: bool = True
    admin: bool = False
    """True only for the admin token's session, which acts as GM and is no member of the log
    (a log may hold a real member whose id is also ``admin``)."""
    replay_session: int = 0
    replay_last: int = 0
    """For a replay link (role ``replay``): the game session it replays, or (session 0) the
    last event of the campaign it replays."""


class SessionSpan(msgspec.Struct, kw_only=True, gc=False):
    """A game session's first event and, once it ended, its last (0 while it runs)."""

    session: int
    first: int
    last: int = 0
    revealed: int = 0
    """The ``seed_revealed`` its end wrote (0: none yet, or none written): the seed of its
    last epoch, which a replay link of the session needs to check the session's dice."""


class Character(msgspec.Struct, kw_only=True):
    """A character of the campaign with the stats of its game system."""

    character: str
    name: str
    stats: Stats
    conditions: dict[str, int] = msgspec.field(default_factory=dict)
    """Wounds, strain, condition monitors... by name (:mod:`poolhall.events.conditions`)."""
    changed: int = 0
    """The seq of the event that last changed the sheet (its name or stats: created, updated;
    not a condition, which no sheet form sends): what an ``update_character`` names in
    ``based_on``, so that a sheet edited from an older read is refused, not saved over."""
    changed_by: str = ""
    """The member whose command made that change (the error names them)."""


class RollEntry(msgspec.Struct, kw_only=True, gc=False):
    """A free roll in the session's roll log.

    ``gc=False``: a long campaign holds many thousands of these and they cannot form cycles;
    left tracked, every full collection walked them all (tail latencies of 100 ms).
    """

    seq: int
    at: str
    actor: str
    session: int
    character: str | None
    expression: str
    terms: tuple[RolledTerm, ...]
    constant: int
    total: int
    reason: str


class FairState(msgspec.Struct, kw_only=True, gc=False):
    """The fair rolls' epoch as the log stands: its commitment (never its seed, which is in no
    event until it is revealed), the rolls made in it, and the members' own seeds."""

    epoch: int = 0
    """The current epoch (0: none committed yet)."""
    commitment: str = ""
    session: int = 0
    committed_at: str = ""
    rolls: int = 0
    """Nonces used in the current epoch: the next roll's nonce."""
    revealed: int = 0
    """The last epoch whose seed was revealed."""
    client_seeds: dict[str, str] = msgspec.field(default_factory=dict)


class CampaignState(msgspec.Struct, kw_only=True):
    """Everything a campaign's log says, as it stands after event ``head``."""

    campaign: str = ""
    name: str = ""
    system: RegisteredSystem | Literal[""] = ""
    """The game system's id; empty before the campaign's first event."""
    head: int = 0
    members: dict[str, Member] = msgspec.field(default_factory=dict)
    tokens: dict[str, str] = msgspec.field(default_factory=dict)
    """Member id by token hash: a join finds its member in one lookup, not a scan."""
    characters: dict[str, Character] = msgspec.field(default_factory=dict)
    """The characters at the table now (a retired one is in :attr:`retired` instead)."""
    retired: dict[str, str] = msgspec.field(default_factory=dict)
    """The name of each retired character, by id (a few bytes each): what the log before its
    retirement still names it by; its id is never given to another character."""
    session: int = 0
    in_session: bool = False
    sessions: list[SessionSpan] = msgspec.field(default_factory=list)
    """Every game session's span of events (a few bytes a session): what a replay link of one
    session may read."""
    rolls: list[RollEntry] = msgspec.field(default_factory=list)
    fair: FairState = msgspec.field(default_factory=FairState)
    private: dict[str, PrivateSubject] = msgspec.field(default_factory=dict)
    """Private rolls not yet revealed, by subject (:mod:`poolhall.projections.privacy`); a few at a
    time, and none once their epoch's seed is revealed."""
    game: GameState | None = None
    """The game system's part, set by ``campaign_created`` (see
    :mod:`poolhall.projections.contract`)."""

    def game_as(self, state_type: type[G]) -> G:
        """The game system's state, checked to be ``state_type`` (the one typed way to it).

        Raises :class:`TypeError` if the campaign plays another system (or none yet).
        """
        if not isinstance(self.game, state_type):
            raise TypeError(f"campaign {self.campaign!r} plays {self.system!r}, "
                            f"whose state is not a {state_type.__module__}.{state_type.__name__}")
        return self.game

    @property
    def epoch_is_private(self) -> bool:
        """Whether the current epoch holds a private roll not yet revealed: its seed is then
        revealed only at the end of its game session (:mod:`poolhall.server.rules.fairness`)."""
        epoch = self.fair.epoch
        return any(subject.epoch == epoch for subject in self.private.values())

    def replay_range(self, member: Member) -> tuple[int, int] | None:
        """The events a replay link may read, ``(first, last)``; ``None`` if its session is
        not known (a link is only made for a session that started).

        A session's link ends with the seed reveal its end wrote, not at the end itself:
        without that seed none of the session's rolls could be checked on the link's page. The
        reveal holds nothing of a later session (the next epoch's commitment comes after)."""
        if not member.replay_session:
            return 1, member.replay_last
        for span in self.sessions:
            if span.session == member.replay_session:
                return span.first, span.revealed or span.last or self.head
        return None

    def character_name(self, character: str) -> str:
        """``character``'s name as the table knows it, retired or not; its id if the state
        has no character of that id (one yet to be made)."""
        found = self.characters.get(character)
        return found.name if found is not None else self.retired.get(character, character)

    def owner_of(self, character: str) -> str | None:
        """The active player member who plays ``character``, if any."""
        for member in self.members.values():
            if member.active and member.role == "player" and character in member.characters:
                return member.member
        return None


def new_state() -> CampaignState:
    """The state of a campaign before its first event."""
    return CampaignState()


def _campaign_created(state: CampaignState, rec: Recorded, event: Any) -> None:
    state.campaign = event.campaign
    state.name = event.name
    state.system = event.system
    state.game = projection(event.system).initial_state()


def _member_invited(state: CampaignState, rec: Recorded, event: Any) -> None:
    state.members[event.member] = Member(
        member=event.member,
        name=event.name,
        role=event.role,
        characters=list(event.characters),
        token_hash=event.token_hash,
    )
    if event.token_hash:  # a client's events carry none (events.client_payload)
        state.tokens[event.token_hash] = event.member


def _member_removed(state: CampaignState, rec: Recorded, event: Any) -> None:
    state.members[event.member].active = False


def _characters_assigned(state: CampaignState, rec: Recorded, event: Any) -> None:
    state.members[event.member].characters = list(event.characters)


def _character_created(state: CampaignState, rec: Recorded, event: Any) -> None:
    state.characters[event.character] = Character(
        character=event.character, name=event.name, stats=event.stats,
        changed=rec.seq, changed_by=rec.actor,
    )


def _character_updated(state: CampaignState, rec: Recorded, event: Any) -> None:
    character = state.characters[event.character]
    if event.name is not None:
        character.name = event.name
    if event.stats is not None:
        character.stats = event.stats
    character.changed, character.changed_by = rec.seq, rec.actor


def _character_retired(state: CampaignState, rec: Recorded, event: Any) -> None:
    """The character leaves the table, its name kept for the log before; the game system
    lets go of what it holds of it (:attr:`poolhall.projections.contract.Projection.retired`).
    Who played it was told by the ``characters_assigned`` the same command appended first."""
    state.characters.pop(event.character, None)
    state.retired[event.character] = event.name
    hook = projection(state.system).retired if state.system else None
    if hook is not None:
        hook(state.game, event.character)


def _condition_changed(state: CampaignState, rec: Recorded, event: Any) -> None:
    character = state.characters.get(event.character)
    if character is not None:
        character.conditions[event.condition] = event.value


def _session_started(state: CampaignState, rec: Recorded, event: Any) -> None:
    state.session = event.session
    state.in_session = True
    state.sessions.append(SessionSpan(session=event.session, first=rec.seq))


def _session_ended(state: CampaignState, rec: Recorded, event: Any) -> None:
    state.in_session = False
    for span in reversed(state.sessions):
        if span.session == event.session and not span.last:
            span.last = rec.seq
            break


def _replay_shared(state: CampaignState, rec: Recorded, event: Any) -> None:
    state.members[event.member] = Member(
        member=event.member, name=event.name, role="replay", characters=[],
        token_hash=event.token_hash, replay_session=event.session, replay_last=event.last)
    if event.token_hash:
        state.tokens[event.token_hash] = event.member


def _dice_rolled(state: CampaignState, rec: Recorded, event: Any) -> None:
    state.rolls.append(
        RollEntry(
            seq=rec.seq,
            at=rec.at,
            actor=rec.actor,
            session=state.session,
            character=event.character,
            expression=event.expression,
            terms=event.terms,
            constant=event.constant,
            total=event.total,
            reason=event.reason,
        )
    )
    if len(state.rolls) > ROLLS_KEPT:  # one at a time: the bound holds after every event
        del state.rolls[0]


def _seed_committed(state: CampaignState, rec: Recorded, event: Any) -> None:
    fair = state.fair
    fair.epoch, fair.commitment, fair.session = event.epoch, event.commitment, event.session
    fair.committed_at, fair.rolls = rec.at, 0


def _seed_revealed(state: CampaignState, rec: Recorded, event: Any) -> None:
    fair = state.fair
    span = state.sessions[-1] if state.sessions else None
    # the reveal a session's end writes: the epoch that served the session, once it ended
    # (a session's start reveals the epoch of the rolls outside a session, and a rotation
    # within it reveals an epoch while it runs)
    if span is not None and span.last and not span.revealed and not state.in_session \
            and event.epoch == fair.epoch and fair.session == span.session:
        span.revealed = rec.seq
    fair.revealed = event.epoch


def _client_seed_set(state: CampaignState, rec: Recorded, event: Any) -> None:
    state.fair.client_seeds[event.member] = event.seed


_CORE: dict[type[Event], Callable[[CampaignState, Recorded, Any], None]] = {
    core.CampaignCreated: _campaign_created,
    core.MemberInvited: _member_invited,
    core.MemberRemoved: _member_removed,
    core.CharactersAssigned: _characters_assigned,
    core.CharacterCreated: _character_created,
    core.CharacterUpdated: _character_updated,
    core.CharacterRetired: _character_retired,
    core.GameSessionStarted: _session_started,
    core.GameSessionEnded: _session_ended,
    core.DiceRolled: _dice_rolled,
    core.ReplayShared: _replay_shared,
    core.CharacterImported: lambda state, recorded, event: None,  # its character_created did it
    core.ConditionChanged: _condition_changed,
    SeedCommitted: _seed_committed,
    SeedRevealed: _seed_revealed,
    SeedLost: _seed_revealed,  # the epoch ended as a reveal ends it, with nothing to check
    ClientSeedSet: _client_seed_set,
    core.PrivateRoll: lambda state, recorded, event: None,  # a sealed frame: nothing to fold
}


def evolve(state: CampaignState, recorded: Recorded) -> CampaignState:
    """Fold one recorded event into the campaign state and return it."""
    event = recorded.event
    handler = _CORE.get(type(event))
    if handler is not None:
        handler(state, recorded, event)
    else:
        state.game = projection(state.system).evolve(state.game, recorded)
    if type(event) in DRAWS:
        stamp = event.fair  # type: ignore[attr-defined]  # every DRAWS type has one
        if stamp is not None and stamp.epoch == state.fair.epoch:
            state.fair.rolls = stamp.nonce + 1
    track(state.private, recorded, state.fair.epoch)
    state.head = recorded.seq
    return state


def fold_sealed(state: CampaignState, recorded: Recorded) -> None:
    """What a table folded without a pending private event (the public table,
    :mod:`poolhall.server.audience`) still takes from it: the game system's say
    (:attr:`poolhall.projections.contract.Projection.fold_sealed`), nothing by default."""
    hook = projection(state.system).fold_sealed if state.system else None
    if hook is not None:
        hook(state.game, recorded)


def fold(records: Iterable[Recorded], upto: int | None = None) -> CampaignState:
    """The state after every record (or only those with ``seq <= upto``): time travel."""
    state = new_state()
    for recorded in records:
        if upto is not None and recorded.seq > upto:
            break
        evolve(state, recorded)
    return state
