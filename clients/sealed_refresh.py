"""Bringing a client's folded table back to the server's after a private roll it saw sealed.

A member who may not see a private roll receives a ``private_roll`` in its place: who rolled,
nothing more. The server's table for that member still takes something from the roll (the game
system's :attr:`~poolhall.projections.contract.Projection.fold_sealed`: a Shadowrun test
declared in front of everyone and rolled blind is no longer waiting), and once the session
ends and the roll is revealed, all of it. A client folding frames itself cannot work either
out from the sealed frame, so it asks the server for its table at that seq (``state_at``, the
table as this member sees it) and folds the events that came meanwhile onto the answer.
Without it, the Python client's table (and ``poolhall watch``) kept a declared test "waiting"
until it joined again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from poolhall.events.base import Recorded
from poolhall.events.errors import CommandRejected, ConnectionLost
from poolhall.projections.campaign import CampaignState, evolve
from poolhall.projections.snapshot import Snapshot, state_from

__all__ = ["SealedRefresh"]

logger = logging.getLogger(__name__)


class SealedRefresh:
    """One table refresh at a time, asked for at a seq, with the events folded since kept to
    fold onto the answer; a refresh asked for while one runs runs after it, at the head then.

    ``ask`` is :meth:`poolhall.clients.client.Client.state_at`; ``adopt`` replaces the client's
    state with the refreshed one (whose head is the client's head); ``head`` is the client's
    head now.

    The refresh asked for meanwhile runs at the head it finds, not at the seq it was asked
    for: asked at that older seq, its answer, with nothing folded since, took the client's
    table back behind events it had already folded, and the next event read as a gap ("have
    16, got 18"); the resume then sent the hash of event 17 as that of 16, and was refused as
    diverged."""

    def __init__(self, ask: Callable[[int], Awaitable[Snapshot]],
                 adopt: Callable[[CampaignState], None], head: Callable[[], int]) -> None:
        self._ask = ask
        self._adopt = adopt
        self._head = head
        self._task: asyncio.Task[None] | None = None
        self._since: list[Recorded] = []
        self._again = False
        self._generation = 0

    def folded(self, recorded: Recorded) -> None:
        """An event the client has just folded: kept while a refresh waits for its answer."""
        if self._task is not None:
            self._since.append(recorded)

    def replaced(self) -> None:
        """The client took a snapshot of the table (a join afresh): a refresh under way is of
        an older table, and is dropped when it answers."""
        self._generation += 1

    def ask(self, seq: int) -> None:
        """Refresh the table at ``seq`` (the client's head), now or after the refresh under way."""
        if self._task is not None:
            self._again = True
            return
        self._since = []
        self._task = asyncio.get_running_loop().create_task(
            self._refresh(seq, self._generation), name="poolhall-client-refresh")

    async def _refresh(self, seq: int, generation: int) -> None:
        try:
            snapshot = await self._ask(seq)
        except (CommandRejected, ConnectionLost, TimeoutError) as error:
            # the folded table stays as it was; a join afresh brings the server's again
            logger.info("could not refresh the table after a sealed roll: %s", error)
            snapshot = None
        since, self._since, self._task = self._since, [], None
        if snapshot is not None and generation == self._generation:
            state = state_from(snapshot)
            for recorded in since:
                if recorded.seq > state.head:
                    evolve(state, recorded)
            if state.head == self._head():  # else not the client's table: kept as it is
                self._adopt(state)
        if self._again:
            self._again = False
            self.ask(self._head())

    async def close(self) -> None:
        """Stop a refresh under way (the client is closing)."""
        task, self._task = self._task, None
        self._again = False
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
