"""Rebuilding campaigns from the log: what a hub does when it loads, or after a failure.

Everything the server holds in memory is derived from the log. A hub loads its campaign when it
is first used (:func:`load_hub_state`): the latest stored snapshot plus the events after it
(:mod:`poolhall.server.stored_snapshots`), and a
:class:`~poolhall.server.command_index.CommandIndex` holding the commands of its last events (a
client's retry after a restart is answered from it). The server no longer folds every campaign
at start.

:func:`load_all_states` and :func:`rebuild_states` fold the whole log in one sequential scan,
for benchmarks and tests that compare against a full fold: the index is read off the same rows
the projections fold (``actor``, ``command`` and ``seq`` of each event).

A command's events are appended together and so are contiguous in its campaign; the index
entry of a command therefore spans from the first to the last event carrying its id.

Each campaign's head hash (the chain hash of its last event, which every welcome carries so a
client can tell whether the server's history is the one it holds) is read once per campaign
after the scan, by one indexed lookup each, rather than carried through every row of it.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from typing import NamedTuple

from poolhall.events.base import Recorded
from poolhall.events.log import CommandRecord, ServerLog, recorded_pages
from poolhall.projections.campaign import CampaignState, evolve, new_state
from poolhall.projections.privacy import pending_seqs
from poolhall.server.audience import PublicTable, fold_public, hidden_for, self_rollers
from poolhall.server.command_index import CommandIndex
from poolhall.server.stored_snapshots import SnapshotStore, fold_from

__all__ = [
    "CommandMap",
    "LoadedCampaign",
    "gc_paused",
    "load_all_states",
    "load_hub_state",
    "rebuild_states",
]

CommandMap = dict[str, CommandRecord]
"""A campaign's command ids and what each appended, all of them (a full scan's)."""


class LoadedCampaign(NamedTuple):
    """What a hub holds of its campaign: the state, the command index, the head's hash."""

    state: CampaignState
    commands: CommandIndex
    head_hash: str
    public: PublicTable | None = None
    """The members' tables without the pending private rolls they may not see, while any is
    pending (:class:`poolhall.server.audience.PublicTable`)."""


class ScannedCampaign(NamedTuple):
    """A campaign as a full scan of the log gives it: every command id held."""

    state: CampaignState
    commands: CommandMap
    head_hash: str


def rebuild_states(log: ServerLog) -> dict[str, CampaignState]:
    """Fold every campaign's projections (alone: what the rebuild benchmark times)."""
    return {campaign: state for campaign, (state, _) in _scan(log, index=False).items()}


def load_all_states(log: ServerLog) -> dict[str, ScannedCampaign]:
    """Every campaign's state, full command index and head hash, in one scan of the log."""
    scanned = _scan(log, index=True)
    hashes = log.hashes_at({campaign: state.head for campaign, (state, _) in scanned.items()})
    return {campaign: ScannedCampaign(state, index, hashes.get(campaign, ""))
            for campaign, (state, index) in scanned.items()}


def _scan(log: ServerLog, index: bool) -> dict[str, tuple[CampaignState, CommandMap]]:
    loaded: dict[str, tuple[CampaignState, CommandMap]] = {}
    with gc_paused():
        for page in recorded_pages(log):
            for campaign, recorded in page:
                found = loaded.get(campaign)
                if found is None:
                    found = loaded[campaign] = (new_state(), {})
                evolve(found[0], recorded)
                if index:
                    _index_event(found[1], recorded)
    return loaded


def load_hub_state(log: ServerLog, store: SnapshotStore, campaign: str,
                   every: int = 1000) -> LoadedCampaign:
    """One campaign's state and head hash, from its latest stored snapshot and the events
    after it (storing snapshots every ``every`` events it folds), and its command index.

    A hub loads this way when first used and reloads after a failure, on a worker thread
    while the other tables play: it leaves the garbage collector alone (pausing it is
    process-wide, and freezing would pin whatever garbage the server holds at that moment).
    """
    state, head_hash = fold_from(log, store, campaign, every=every)
    public = None
    if state.private:
        public = PublicTable(
            fold_public(log, store, campaign, state.head, set(pending_seqs(state.private)),
                        every).state,
            {member: fold_public(log, store, campaign, state.head,
                                 set(hidden_for(state, member)), every).state
             for member in self_rollers(state)})
    commands = CommandIndex(log, campaign)
    commands.hold_latest(state.head)
    return LoadedCampaign(state, commands, head_hash, public)


def _index_event(index: CommandMap, recorded: Recorded) -> None:
    """Extend the command index by one event of the command that appended it."""
    earlier = index.get(recorded.command)
    first = recorded.seq if earlier is None else earlier.first_seq
    index[recorded.command] = CommandRecord(recorded.actor, first, recorded.seq)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a rebuild allocates its long-lived state.

    A rebuild creates hundreds of thousands of objects that all survive; each collection
    would walk them again for nothing (a third of the rebuild's time when measured). They are
    then frozen (moved out of the collected generations) before collection resumes, or the
    first collection after the pause would walk them all at once.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()
