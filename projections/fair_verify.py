"""Recompute every face of every roll of every revealed epoch: the fair rolls' half of
``poolhall verify`` (the hash chains are the other half).

Fed a campaign's events in order, :class:`FairCheck` keeps the rolls of each epoch until its
seed is revealed, then checks that the seed hashes to the epoch's commitment and derives each
roll's dice again (:mod:`poolhall.events.fair`), in the order :mod:`poolhall.projections.fair_draws`
gives, comparing every face. It also reports what would hide a discarded or edited roll: a nonce
skipped, repeated or out of order, an epoch's reveal counting more rolls than the log holds, a
roll stamped with client seeds other than those in force, an SR3 chain the Rule of Six did not
draw, a roll holding fewer or more dice than its request asks for
(:mod:`poolhall.projections.fair_counts`), an epoch committed twice or out of order. Pure:
events in, counts and problems out.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable
from dataclasses import dataclass, field

from poolhall.events.base import Event, Recorded
from poolhall.events.fair import (
    ClientSeedSet,
    DieStream,
    FairStamp,
    SeedCommitted,
    SeedLost,
    SeedRevealed,
    client_seeds_digest,
    commitment,
    keyed,
)
from poolhall.projections.fair_counts import DrawCounts
from poolhall.projections.fair_draws import DRAWS, chain_problem
from poolhall.projections.fair_results import result_problem

__all__ = ["FairCheck", "FairCounts", "FairProblem", "check_campaign"]


@dataclass(frozen=True, slots=True)
class FairProblem:
    """One thing wrong with a campaign's rolls, at the event that shows it."""

    campaign: str
    seq: int
    problem: str


@dataclass(slots=True)
class FairCounts:
    """What a check went through: epochs, rolls and dice recomputed, and what was wrong."""

    epochs: int = 0
    revealed: int = 0
    rolls_checked: int = 0
    dice_checked: int = 0
    rolls_sealed: int = 0
    """Rolls of epochs not revealed yet: they are checked once their seed is."""
    rolls_unstamped: int = 0
    """Rolls made before fair rolls existed: nothing to recompute them from."""
    problems: list[FairProblem] = field(default_factory=list)

    def add(self, other: FairCounts) -> None:
        """Add another campaign's counts to these."""
        self.epochs += other.epochs
        self.revealed += other.revealed
        self.rolls_checked += other.rolls_checked
        self.dice_checked += other.dice_checked
        self.rolls_sealed += other.rolls_sealed
        self.rolls_unstamped += other.rolls_unstamped
        self.problems.extend(other.problems)


class _Roll:
    """The dice of one nonce: from one event, or several of the same command."""

    __slots__ = ("seq", "command", "stamp", "draws")

    def __init__(self, seq: int, command: str, stamp: FairStamp) -> None:
        self.seq = seq
        self.command = command
        self.stamp = stamp
        self.draws: list[tuple[int, int, int]] = []
        """``(seq, sides, face)`` of each die in the order drawn."""


class FairCheck:
    """The fair rolls of one campaign, checked event by event."""

    def __init__(self, campaign: str) -> None:
        self.campaign = campaign
        self.counts = FairCounts()
        self._client_seeds: dict[str, str] = {}
        self._digest = client_seeds_digest({}).hex()
        self._commitments: dict[int, str] = {}
        self._epoch = 0
        self._open = False
        """Whether ``_epoch`` is still open (committed; not revealed, nor said lost): a roll
        proves something only between its epoch's commitment and its reveal."""
        self._rolls: list[_Roll] = []
        """The current epoch's rolls, by nonce."""
        self._counts = DrawCounts()
        """What earlier events say a roll's number of dice must be (a faces' prefix checks)."""

    def _problem(self, seq: int, text: str) -> None:
        self.counts.problems.append(FairProblem(self.campaign, seq, text))

    def feed(self, recorded: Recorded) -> None:
        """Check one event (in log order)."""
        event = recorded.event
        kind = type(event)
        if (count := self._counts.problem(event)) is not None:  # dice left out
            self._problem(recorded.seq, count)
        if kind in DRAWS:
            self._roll(recorded, event)
        elif kind is SeedCommitted:
            self._committed(recorded.seq, event)  # type: ignore[arg-type]
        elif kind is SeedRevealed:
            self._revealed(recorded.seq, event)  # type: ignore[arg-type]
        elif kind is SeedLost:
            self._lost(recorded.seq, event)  # type: ignore[arg-type]
        elif kind is ClientSeedSet:
            self._client_seeds[event.member] = event.seed  # type: ignore[attr-defined]
            self._digest = client_seeds_digest(self._client_seeds).hex()

    def _committed(self, seq: int, event: SeedCommitted) -> None:
        if event.epoch != self._epoch + 1:
            self._problem(seq, f"epoch {event.epoch} committed after epoch {self._epoch}: "
                          "epochs follow each other one by one")
        if self._rolls:  # a reveal empties them; never sealed: they can never be checked
            self._problem(seq, f"epoch {self._epoch} ended without its seed revealed: its "
                          f"{len(self._rolls)} roll(s) can never be checked")
        self._epoch = event.epoch
        self._open = True
        self._commitments[event.epoch] = event.commitment
        self._rolls = []
        self.counts.epochs += 1

    def _lost(self, seq: int, event: SeedLost) -> None:
        """The server says it lost the seed: the rolls stay unchecked, a problem in words that
        say so (a log that merely ends the epoch is reported at the next commitment)."""
        if event.epoch != self._epoch:
            self._problem(seq, f"epoch {event.epoch} said lost while epoch {self._epoch} runs")
            return
        if self._rolls:  # not counted sealed: no reveal will come
            self._problem(seq, f"epoch {event.epoch}'s seed was lost, the server says: its "
                          f"{len(self._rolls)} roll(s) can never be checked")
        self._rolls = []
        self._open = False

    def _roll(self, recorded: Recorded, event: Event) -> None:
        stamp: FairStamp | None = event.fair  # type: ignore[attr-defined]
        seq = recorded.seq
        if (result := result_problem(event)) is not None:  # the number the table acted on
            self._problem(seq, result)
        if (problem := chain_problem(event)) is not None:  # a stamp or none: the rule's shape
            self._problem(seq, problem)
        if stamp is None:
            if self._epoch:  # every roll is stamped once fair rolls began: this one's dice
                self._problem(seq, "a roll with no fair stamp after fair rolls began (epoch "
                              f"{self._epoch}): its dice cannot be checked")  # came from nowhere
                return
            self.counts.rolls_unstamped += 1
            return
        if stamp.epoch != self._epoch:
            self._problem(seq, f"a roll of epoch {stamp.epoch} in epoch {self._epoch}")
            return
        if not self._open:
            self._problem(seq, f"a roll of epoch {stamp.epoch} after it ended: its seed was "
                          "known, the roll proves nothing")
            return
        if stamp.seeds != self._digest:
            self._problem(seq, "the roll names client seeds other than those in force")
        rolls = self._rolls
        if rolls and stamp.nonce == len(rolls) - 1 and rolls[-1].command == recorded.command:
            roll = rolls[-1]  # more dice of the same command's roll
        elif stamp.nonce == len(rolls):
            roll = _Roll(seq, recorded.command, stamp)
            rolls.append(roll)
        else:
            self._problem(seq, f"nonce {stamp.nonce} where {len(rolls)} comes next in epoch "
                          f"{stamp.epoch}: a roll is missing or repeated")
            return
        roll.draws.extend((seq, sides, face) for sides, face in DRAWS[type(event)](event))

    def _revealed(self, seq: int, event: SeedRevealed) -> None:
        published = self._commitments.get(event.epoch)
        seed = bytes.fromhex(event.seed)
        if published is None:
            self._problem(seq, f"epoch {event.epoch} revealed but never committed")
            return
        if not hmac.compare_digest(commitment(seed), published):
            self._problem(seq, f"the seed revealed for epoch {event.epoch} does not hash to "
                          "its commitment")
            return
        if event.epoch != self._epoch:
            self._problem(seq, f"epoch {event.epoch} revealed while epoch {self._epoch} runs")
            return
        self.counts.revealed += 1
        if event.rolls != len(self._rolls):
            self._problem(seq, f"epoch {event.epoch} held {event.rolls} rolls; the log has "
                          f"{len(self._rolls)}: a roll is missing")
        key = keyed(seed)  # once for the epoch: every roll's stream copies it
        for roll in self._rolls:
            self._recompute(key, roll)
        self._rolls = []
        self._open = False

    def _recompute(self, key: hmac.HMAC, roll: _Roll) -> None:
        stamp = roll.stamp
        stream = DieStream(key, self.campaign, stamp.epoch, bytes.fromhex(stamp.seeds),
                           stamp.nonce)
        face_of = stream.face
        for seq, sides, face in roll.draws:
            if face_of(sides) != face:
                self._problem(seq, f"a d{sides} shows {face}; epoch {stamp.epoch}'s seed and "
                              f"nonce {stamp.nonce} give another face")
                break
        self.counts.rolls_checked += 1
        self.counts.dice_checked += len(roll.draws)

    def finish(self) -> FairCounts:
        """The counts, once every event was fed (the running epoch's rolls are sealed)."""
        self.counts.rolls_sealed += len(self._rolls)
        self._rolls = []
        return self.counts


def check_campaign(campaign: str, records: Iterable[Recorded]) -> FairCounts:
    """Check every roll of one campaign's log."""
    check = FairCheck(campaign)
    for recorded in records:
        check.feed(recorded)
    return check.finish()
