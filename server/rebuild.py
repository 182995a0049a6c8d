"""Rebuilding campaigns from the log: what the server does when it starts, or after a failure.

Everything the server holds in memory is derived from the log: each campaign's projections and
its command index (which command id appended which events, so that a retried command gets its
original answer). Both come out of one sequential scan of the log: the index is read off the
same rows the projections fold (``actor``, ``command`` and ``seq`` of each event), rather than
from a second table (reading the ``commands`` table as well cost a third of the startup).

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

from events.base import Recorded
from events.log import GENESIS, CommandRecord, EventLog, recorded_pages, to_recorded
from projections.campaign import CampaignState, evolve, new_state

__all__ = [
    "CommandIndex",
    "LoadedCampaign",
    "gc_paused",
    "load_all_states",
    "load_hub_state",
    "rebuild_states",
]

CommandIndex = dict[str, CommandRecord]
"""A campaign's command ids and what each appended."""


class LoadedCampaign(NamedTuple):
    """What a hub holds of its campaign: the state, the command index, the head's hash."""

    state: CampaignState
    commands: CommandIndex
    head_hash: str


def rebuild_states(log: EventLog) -> dict[str, CampaignState]:
    """Fold every campaign's projections (alone: what the rebuild benchmark times)."""
    return {campaign: state for campaign, (state, _) in _scan(log, index=False).items()}


def load_all_states(log: EventLog) -> dict[str, LoadedCampaign]:
    """Every campaign's state, command index and head hash: what the server loads at start."""
    scanned = _scan(log, index=True)
    hashes = log.hashes_at({campaign: state.head for campaign, (state, _) in scanned.items()})
    return {campaign: LoadedCampaign(state, index, hashes.get(campaign, ""))
            for campaign, (state, index) in scanned.items()}


def _scan(log: EventLog, index: bool) -> dict[str, tuple[CampaignState, CommandIndex]]:
    loaded: dict[str, tuple[CampaignState, CommandIndex]] = {}
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


def load_hub_state(log: EventLog, campaign: str) -> LoadedCampaign:
    """Rebuild one campaign's state, command index and head hash from its log.

    A hub reloads this way after a failure, on a worker thread while the other tables play:
    it leaves the garbage collector alone (pausing it is process-wide, and freezing would pin
    whatever garbage the server holds at that moment).
    """
    state = new_state()
    index: CommandIndex = {}
    head_hash = GENESIS
    for row in log.rows(campaign):
        recorded = to_recorded(row)
        evolve(state, recorded)
        _index_event(index, recorded)
        head_hash = row.hash
    return LoadedCampaign(state, index, head_hash)


def _index_event(index: CommandIndex, recorded: Recorded) -> None:
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
