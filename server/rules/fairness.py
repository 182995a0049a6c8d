"""The fair rolls' part of every decision: which stream the dice come from, the stamp on the
events that hold dice, and when an epoch ends (its seed revealed, the next committed).

A decision is given the seeds it may use (:class:`EpochSeeds`, from
:class:`poolhall.server.fair_seeds.FairSeeds`, both already durable) and draws its dice from a
:class:`poolhall.events.fair.DieStream` for the state's epoch and next nonce. :func:`finish` runs
after the rules of the command: it stamps each event that holds dice with ``(epoch, nonce, client
seeds digest)``, and ends the epoch when the rules say so:

- a game session starts or ends (every session has an epoch of its own, and rolls outside a
  session have theirs);
- the GM rotates the seed (``rotate_seed``);
- the epoch holds :data:`ROTATE_ROLLS` rolls, or began :data:`ROTATE_HOURS` hours ago;
- the epoch was open before this process prepared the campaign, at its first roll (the
  log may be a backup put back: :mod:`poolhall.server.fair_seeds`);

except that an epoch holding a private roll is revealed only when its session ends (revealing
its seed would reveal the roll). A reveal whose seed does not hash to the commitment is refused
here (:func:`reveal`), and ``poolhall verify`` checks it again in the log.
"""

from __future__ import annotations

import functools
import hmac
from datetime import datetime, timedelta
from typing import Any

import msgspec

from poolhall.events import core
from poolhall.events.base import Event
from poolhall.events.errors import ErrorCode, Rejected
from poolhall.events.fair import (
    ClientSeedSet,
    DieStream,
    FairStamp,
    RotateSeed,
    SeedCommitted,
    SeedLost,
    SeedRevealed,
    SetClientSeed,
    client_seeds_digest,
    commitment,
)
from poolhall.projections.campaign import CampaignState
from poolhall.projections.fair_draws import DRAWS
from poolhall.projections.privacy import makes_private

__all__ = ["ROTATE_HOURS", "ROTATE_ROLLS", "EpochSeeds", "FairRoll", "decide", "finish",
           "reveal"]

ROTATE_ROLLS = 1000
"""An epoch is revealed (and the next committed) after this many rolls at the latest."""
ROTATE_HOURS = 12
"""... or this many hours after its commitment (checked at its next roll)."""


class EpochSeeds(msgspec.Struct, frozen=True, kw_only=True):
    """The seeds a decision may use: the state's epoch's (``None`` before the first epoch, or
    if the vault lost it) and the next epoch's, both durable; and the time now (ISO 8601).

    Made for every command decided: a Struct is built in C (0.14 µs; the frozen dataclass it
    was took 2.4 µs, measured)."""

    current: bytes | None
    following: bytes | None
    """``None`` while the server is still storing it (a rotation is then refused: retry)."""
    now: str
    current_keyed: hmac.HMAC | None = None
    """``current`` keyed for HMAC (:func:`poolhall.events.fair.keyed`), once for the epoch;
    ``None``: keyed for each roll."""
    inherited: tuple[bytes, ...] = ()
    """Set while the current epoch was open before this process prepared the campaign: the
    log may be a backup put back, whose lost rolls used this epoch's next nonces, and those of
    the epochs after it whose seeds were drawn ahead. It holds the seeds of the epochs after
    it up to the first this process drew (:mod:`poolhall.server.fair_seeds`). The epoch's
    first roll ends it and rolls in the last of those (:class:`FairRoll`), unless it holds a
    private roll (revealed only when its session ends); whatever ends it goes through them
    (:func:`_rotation`)."""


class FairRoll:
    """The dice source of one decision: a stream for the epoch's next nonce."""

    __slots__ = ("seeds", "epoch", "nonce", "digest", "stream", "opened", "ends_inherited",
                 "paused", "lost")

    def __init__(self, state: CampaignState, seeds: EpochSeeds) -> None:
        fair = state.fair
        self.seeds = seeds
        self.digest = _seeds_digest(tuple(sorted(fair.client_seeds.items())))
        self.lost = bool(fair.epoch) and seeds.current is None
        """The vault lost the open epoch's seed: every roll is refused until the GM rotates
        the seed (or a session starts or ends), which records the loss (``seed_lost``). An
        inherited epoch is not ended by a roll then, as one whose seed is kept is: ending it
        silently would leave its rolls unchecked with no word of why."""
        inherited = bool(fair.epoch and seeds.inherited) and not self.lost
        self.paused = inherited and state.epoch_is_private
        """The epoch is inherited and holds a private roll: every roll waits for the GM to end
        its session (or, outside one, to start one or rotate the seed)."""
        self.ends_inherited = inherited and not self.paused
        """The epoch open is inherited (:attr:`EpochSeeds.inherited`): a roll ends it first."""
        self.opened = fair.epoch == 0 or self.ends_inherited
        """A roll opens an epoch: the first of a campaign from before fair rolls (epoch 1), or
        the first after an inherited epoch (the last of :attr:`EpochSeeds.inherited`)."""
        if self.ends_inherited:
            seed: bytes | None = seeds.inherited[-1]
            self.epoch = fair.epoch + len(seeds.inherited)
        else:
            seed = seeds.following if self.opened else seeds.current
            self.epoch = 1 if self.opened else fair.epoch
        if self.opened and seed is None:
            raise Rejected("unavailable", "the first seed is being stored; retry", None)
        self.nonce = 0 if self.opened else fair.rolls
        self.stream: DieStream | _Refused
        if self.paused:
            self.stream = _Refused("rule", _PAUSED_IN_SESSION if state.in_session
                                   else _PAUSED_OUTSIDE)
        elif seed is not None:
            key = seeds.current_keyed if not self.opened and seeds.current_keyed is not None \
                else seed  # the epoch's seed keyed once (FairSeeds), or keyed for this roll
            self.stream = DieStream(key, state.campaign, self.epoch, self.digest, self.nonce)
        else:
            self.stream = _Refused("rule", _lost_words(self.epoch, state))


def _lost_words(epoch: int, state: CampaignState) -> str:
    """Why a roll is refused in an epoch whose seed was lost, and what the GM does."""
    if state.in_session and state.epoch_is_private:  # rotate_seed is refused: the end reveals
        what = "the GM ends the game session to roll on"
    else:
        what = ("the GM rotates the seed (rotate_seed), or starts or ends a game session, to "
                "roll on")
    return (f"the dice wait for the GM: the server lost the seed of dice epoch {epoch}, so its "
            f"rolls can never be checked and no more may be made in it; {what}")


_PAUSED = ("the dice wait for the GM: the server restarted while a private roll was pending "
           "(see Backup and restore in the docs); ")
_PAUSED_IN_SESSION = _PAUSED + "the GM ends the session to roll on"
_PAUSED_OUTSIDE = _PAUSED + "the GM starts a game session (or rotates the seed) to roll on"


class _Refused:
    """The dice source of an epoch no roll may use: its seed was lost, or it was inherited
    holding a private roll (:class:`FairRoll`). Every roll is refused, saying why."""

    faces = 0

    def __init__(self, code: ErrorCode, message: str) -> None:
        self._code: ErrorCode = code
        self._message = message

    def face(self, sides: int) -> int:
        raise Rejected(self._code, self._message, None)

    def randint(self, a: int, b: int) -> int:
        return self.face(b - a + 1)

    def randrange(self, n: int) -> int:
        return self.face(n)


def reveal(epoch: int, seed: bytes, published: str, rolls: int) -> SeedRevealed:
    """The reveal of ``epoch``; refused if ``seed`` is not the one its commitment named."""
    if commitment(seed) != published:
        raise Rejected("internal", f"the seed kept for epoch {epoch} does not match its "
                       "commitment; it cannot be revealed", None)
    return SeedRevealed(epoch=epoch, seed=seed.hex(), rolls=rolls)


def _rotation(state: CampaignState, seeds: EpochSeeds, session: int,
              rolls: int | None = None) -> list[Event]:
    """Reveal the current epoch (or, if the vault lost its seed, record the loss:
    ``seed_lost``) and commit to the next one; ``rolls``: the epoch's rolls counting the
    command's own (default: the state's).

    After an inherited epoch (:attr:`EpochSeeds.inherited`) the epochs whose seeds were drawn
    before this process are each committed and revealed with no roll, and the one committed
    to last is the first this process drew."""
    fair = state.fair
    if seeds.following is None:
        raise Rejected("unavailable", "the next seed is being stored; retry", None)
    ended: list[Event] = []
    count = fair.rolls if rolls is None else rolls
    if fair.epoch and seeds.current is not None:
        ended.append(reveal(fair.epoch, seeds.current, fair.commitment, count))
    elif fair.epoch:  # the vault lost it: the log says so, for every verifier to report
        ended.append(SeedLost(epoch=fair.epoch, rolls=count))
    chain = seeds.inherited or (seeds.following,)
    epoch = fair.epoch
    for unused in chain[:-1]:
        epoch += 1
        ended += [SeedCommitted(epoch=epoch, commitment=commitment(unused), session=session),
                  SeedRevealed(epoch=epoch, seed=unused.hex(), rolls=0)]
    return [*ended, SeedCommitted(epoch=epoch + 1, commitment=commitment(chain[-1]),
                                  session=session)]


def _expired(rolls: int, committed_at: str, now: str) -> bool:
    """Whether an epoch of ``rolls`` rolls committed at ``committed_at`` ends now."""
    if rolls >= ROTATE_ROLLS:
        return True
    deadline = _deadline(committed_at)
    if deadline is None:
        return False
    instant = _instant(now)
    return instant is not None and instant >= deadline


@functools.lru_cache(maxsize=16)
def _instant(now: str) -> datetime | None:
    """The time ``now`` (ISO 8601) names, ``None`` if it names none: parsed once for every
    command of a batch (the hub decides them all at one time), not once a roll."""
    try:
        return datetime.fromisoformat(now)
    except ValueError:
        return None


@functools.lru_cache(maxsize=256)
def _deadline(committed_at: str) -> datetime | None:
    """When an epoch committed at ``committed_at`` ends by the clock (parsed once an epoch,
    not once a roll: every roll asks)."""
    try:
        return datetime.fromisoformat(committed_at) + timedelta(hours=ROTATE_HOURS)
    except ValueError:
        return None


@functools.lru_cache(maxsize=256)
def _seeds_digest(seeds: tuple[tuple[str, str], ...]) -> bytes:
    """:func:`poolhall.events.fair.client_seeds_digest` of the seeds in force, computed once for
    each set of them (they change when a member sets one; every roll asks)."""
    return client_seeds_digest(dict(seeds))


def decide(roll: FairRoll | None, state: CampaignState, actor: str, is_gm: bool,
           command: Any, role: str = "player") -> list[Event]:
    """Decide ``set_client_seed`` and ``rotate_seed``."""
    if isinstance(command, SetClientSeed):
        if role == "spectator":  # a spectator only watches: their seed would be in rolls too
            raise Rejected("forbidden", "a spectator may not set a seed: they roll nothing",
                           "$.type")
        return [ClientSeedSet(member=actor, seed=command.seed)]
    assert isinstance(command, RotateSeed)
    if not is_gm:
        raise Rejected("forbidden", "only the GM may rotate the seed", "$.type")
    if roll is None:
        raise Rejected("unavailable", "this server rolls no fair dice", "$.type")
    if state.epoch_is_private and state.in_session:
        raise Rejected("rule", "this epoch holds a private roll: its seed is revealed when "
                       "the game session ends, not before", "$.type")
    return []  # finish() rotates


def finish(roll: FairRoll | None, state: CampaignState, command: Any,
           events: list[Event]) -> list[Event]:
    """Stamp the events that hold dice and end the epoch when the rules say so.

    ``state`` is the state the command was decided against (nothing is folded yet).
    """
    if roll is None:
        return events
    out: list[Event] = []
    if roll.stream.faces:
        stamp = FairStamp(epoch=roll.epoch, nonce=roll.nonce, seeds=roll.digest.hex())
        if roll.opened:
            assert roll.seeds.following is not None  # FairRoll refuses otherwise
            out.extend(_rotation(state, roll.seeds, state.session if state.in_session else 0))
        events = [msgspec.structs.replace(e, fair=stamp) if type(e) in DRAWS else e
                  for e in events]
    out.extend(events)
    if roll.opened and (roll.stream.faces or not roll.ends_inherited):
        return out  # this roll opened its epoch (or nothing rolled before the first epoch)
    for event in events:
        if isinstance(event, core.GameSessionStarted):
            return out + _rotation(state, roll.seeds, event.session)
        if isinstance(event, core.GameSessionEnded):
            return out + _rotation(state, roll.seeds, 0)
    if isinstance(command, RotateSeed):
        return out + _rotation(state, roll.seeds, state.session if state.in_session else 0)
    rolls = roll.nonce + 1
    # the roll that ends an epoch may itself be private: the state before it does not say so
    # (asked only of the roll that would end it: the others stop at _expired, the cheapest)
    if roll.stream.faces and _expired(rolls, state.fair.committed_at, roll.seeds.now) \
            and not state.epoch_is_private and roll.seeds.following is not None \
            and not makes_private(events):
        return out + _rotation(state, roll.seeds, state.session if state.in_session else 0,
                               rolls)
    return out
