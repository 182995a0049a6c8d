"""A campaign's epoch seeds as its hub decides with them: the current one and the next.

Before each command is decided the hub asks :meth:`FairSeeds.for_state` for the seed of the
state's epoch and for the seed of the epoch after it, drawn now from the OS CSPRNG and stored
in the vault if it is not there yet. So a decision that ends an epoch (a session ending, a GM's
rotation, the automatic one) can publish the next epoch's commitment purely, from a seed that
is already durable: the seed is kept *before* its ``seed_committed`` is appended, and a
restart finds it (and the current one) in the vault.

**An epoch the deployment did not see begin is ended before it rolls again.** The log this
process opened may be a backup put back: rolls made after the backup was taken are lost, but
people saw their dice, and the same nonces of the same seed would roll them again, die for die.
So the first time a process loads a campaign from the log, the epoch open then is *inherited*
if it was committed before the deployment began serving (:func:`inherited_epoch`)
(:attr:`~poolhall.server.rules.fairness.EpochSeeds.inherited`): the first roll reveals it and
rolls in a later one whose seed this process drew
(:class:`~poolhall.server.rules.fairness.FairRoll`). Not the next: the seeds of the two epochs
after it were drawn ahead, are in the same backup, and the lost rolls may have used them too;
each is committed and revealed unused on the way. The epoch a campaign had open when this
process first loaded it is kept for the process's life (``judged``, shared by every hub it
loads): a hub unloaded before anyone rolled (a join refused ``diverged`` after a restore loads
it, and nobody joins it) and loaded again still ends that epoch, while an epoch the
deployment saw begin is trusted; a campaign this process created has no inherited epoch.

Judged when loaded, not at the first roll, and by when the epoch began against when the
deployment began serving (:meth:`~.loaded_campaigns.LoadedCampaigns.open`): when this process
opened the log, on a log of one process (SQLite); on a shared log, the earliest time the
processes live as it opened the log say
(:meth:`~poolhall.events.log_contract.PresenceBoard.enter`), each having said the same as it
started beside others, or its own open time if it started alone. A backup is put back with
every process stopped, so an epoch begun while any process served is of the log they have
been serving: ending it again would only add events (whichever process rolled first would
decide how many), and one holding a private roll would pause the dice on each process
restarted one at a time (a rolling restart, an upgrade) while the others rolled on, then on
all of them.

**An inherited epoch holding a private roll pauses the dice.** Its seed may not be revealed
before its game session ends (the reveal would show the private roll), and rolling on in it
would deal a lost roll's dice again, or dice whose seed a lost session's end revealed: every
roll is refused until the GM ends the session (or, outside one, starts one or rotates the
seed), which ends the epoch the usual way (:class:`~poolhall.server.rules.fairness.FairRoll`).
"""

from __future__ import annotations

import hmac
import logging
import secrets
from collections.abc import Callable
from datetime import datetime

from poolhall.events.fair import keyed
from poolhall.events.log_contract import SeedVault
from poolhall.projections.campaign import CampaignState, FairState
from poolhall.server.rules.fairness import EpochSeeds

__all__ = ["FairSeeds", "inherited_epoch", "system_seed"]

logger = logging.getLogger("poolhall.server.fair_seeds")


def inherited_epoch(fair: FairState, serving_since: str) -> int:
    """The epoch of a campaign just loaded that the deployment did not see begin: the open
    epoch if it was committed before ``serving_since`` (when the deployment began serving:
    see the module), else 0.

    Both times are the events' (ISO 8601 UTC); one that does not parse counts as before (the
    careful side: an epoch ended needlessly costs a few events)."""
    if not fair.epoch:
        return 0
    try:
        began = datetime.fromisoformat(fair.committed_at)
        since = datetime.fromisoformat(serving_since)
    except ValueError:
        return fair.epoch
    return fair.epoch if began <= since else 0


def system_seed() -> bytes:
    """A fresh 256-bit seed from the operating system's CSPRNG."""
    return secrets.token_bytes(32)


class FairSeeds:
    """The seeds of one campaign, read from (and written to) the vault, kept in memory for
    the current epoch and the two after it.

    :meth:`prepare` does the vault's I/O (in a worker thread: a write waits for the file's
    lock and an fsync, never on the event loop); :meth:`for_state` only reads what was
    prepared, so deciding never blocks.
    """

    def __init__(self, vault: SeedVault, campaign: str, new_seed: Callable[[], bytes],
                 judged: dict[str, int] | None = None, open_epoch: int = 0) -> None:
        """``open_epoch``: the epoch open in the state the campaign was loaded with (0 when
        there is none, or when the campaign is being created)."""
        self._vault = vault
        self._campaign = campaign
        self._new_seed = new_seed
        judged = judged if judged is not None else {}
        self._inherited = judged.setdefault(campaign, open_epoch)
        """The epoch open when this process first loaded the campaign (0: none, or this
        process created it): ended before it rolls again, if it is still open."""
        self._drawn: set[int] = set()
        """The epochs whose seeds this object drew (the vault had none)."""
        self._fresh = 0
        """The first epoch after the inherited one whose seed this process drew."""
        self._warned = False
        self._known: dict[int, bytes] = {}
        self._keyed: dict[int, hmac.HMAC] = {}
        """The current epoch's seed keyed for HMAC, made once
        (:func:`poolhall.events.fair.keyed`)."""
        self._lost: set[int] = set()

    def seed(self, epoch: int) -> bytes:
        """The seed of ``epoch``, drawn and stored durably first if the vault has none."""
        known = self._known.get(epoch)
        if known is None:
            known = self._vault.get(self._campaign, epoch)
            if known is None:
                known = self._vault.put(self._campaign, epoch, self._new_seed())
                self._drawn.add(epoch)
            self._known[epoch] = known
        return known

    def ready(self, epoch: int) -> bool:
        """Whether a decision in ``epoch`` finds every seed it may need in memory."""
        return ((epoch == 0 or epoch in self._known or epoch in self._lost)
                and epoch + 1 in self._known and epoch + 2 in self._known)

    def read_current(self, epoch: int) -> None:
        """Read the seed of the open ``epoch`` from the vault if it is not in memory (blocking
        I/O): done when the campaign is loaded, so that a seed the vault lost is known (and
        logged) before anyone rolls, and the table says the dice wait; and before a decision
        (:meth:`prepare`)."""
        if not epoch or epoch in self._known or epoch in self._lost:
            return
        current = self._vault.get(self._campaign, epoch)
        if current is not None:
            self._known[epoch] = current
            return
        self._lost.add(epoch)  # the vault lost it: rolls are refused until a rotation
        logger.warning("campaign %s: the seed of dice epoch %d is lost (not in the seed vault, "
                       "table fair_seeds): its rolls can never be checked; every roll is "
                       "refused until the GM rotates the seed or starts or ends a game "
                       "session, which records the loss (seed_lost)", self._campaign, epoch)

    def prepare(self, epoch: int) -> None:
        """Read the seed of ``epoch`` and make sure the next two exist (blocking I/O).

        Raises :class:`~poolhall.events.errors.StoreError` if the vault cannot be written.
        """
        self._known = {e: s for e, s in self._known.items() if e >= epoch}
        self._keyed = {e: k for e, k in self._keyed.items() if e >= epoch}
        self.read_current(epoch)
        self.seed(epoch + 1)
        self.seed(epoch + 2)
        if self._inherited and self._inherited == epoch and not self._fresh:
            fresh = epoch + 1
            while fresh not in self._drawn:  # the vault's seeds drawn ahead, then a new one
                fresh += 1
                self.seed(fresh)
            self._fresh = fresh

    def waits(self, state: CampaignState) -> bool:
        """Whether every roll against ``state`` waits for the GM: its epoch is the inherited
        one and holds a private roll (see the module), or its seed was lost."""
        epoch = state.fair.epoch
        return bool(epoch) and (epoch == self._inherited and state.epoch_is_private
                                or epoch in self._lost)

    def for_state(self, state: CampaignState, now: str) -> EpochSeeds:
        """What a decision against ``state`` may roll with and commit to (from memory)."""
        epoch = state.fair.epoch
        current = self._known.get(epoch) if epoch else None
        if current is not None and epoch not in self._keyed:
            self._keyed[epoch] = keyed(current)
        inherited = bool(epoch) and epoch == self._inherited and bool(self._fresh)
        if inherited and state.epoch_is_private and not self._warned:
            self._warned = True
            logger.warning("campaign %s: epoch %d holds a private roll and was open when the "
                           "server (every process of it) started; its rolls are refused until "
                           "the GM ends the game session (or, outside one, starts one or "
                           "rotates the seed): the log may be a backup put back, whose lost "
                           "rolls used this epoch (see Backup and restore)", self._campaign,
                           epoch)
        return EpochSeeds(current=current, following=self._known.get(epoch + 1), now=now,
                          current_keyed=self._keyed.get(epoch),
                          inherited=tuple(self._known[e] for e in range(epoch + 1, self._fresh + 1))
                          if inherited else ())
