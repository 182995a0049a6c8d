"""The table a replay link starts from: the campaign as it stood, with none of its past.

A replay link (``share_replay``) shows one game session, events ``first`` to ``last``, to
someone without a seat at the table. Nothing recorded before ``first`` may reach it: no event,
no roll, no check, no line of the log. Yet the session's events cannot be read without the
table they happened at (whose character is ``han``, what is on his sheet, who plays him), so
the table at any moment of the replay is :func:`replay_start` of the state after event
``first - 1``, with the replay's own events folded onto it. That start holds:

- the campaign (its name and system), the game session's number, whether one is running;
- the members of the table with their roles and characters (not other replay links), and the
  characters with their sheets: as they stood when the replay begins;
- the game system's standing state, as its projection's ``replay_start`` keeps it (the
  destiny pool's points, a narrative encounter's round and slots, an sr3 combat's order and
  pools, a d12 extended test still going on, the next test's number): what runs across game
  sessions, so that the table agrees with the replay's log ("round 2 begins");

and never the free rolls, checks, basic or ended tests, destiny spends or dice faces of before
``first``, nor any token hash. An event of the replay about something begun before it (a
check opened before the session and rolled in it) shows in the replay's log but not on its
table.

Pure, like every projection: :mod:`poolhall.server.snapshots` folds and reads, this only cuts.
"""

from __future__ import annotations

import msgspec

from poolhall.projections.campaign import CampaignState
from poolhall.projections.systems import projection

__all__ = ["replay_start"]


def replay_start(state: CampaignState) -> CampaignState:
    """The table a replay starting just after ``state.head`` starts from (see the module):
    a new state, onto which the replay's events fold as onto any other."""
    game = state.game
    if state.system and game is not None:
        part = projection(state.system)
        game = part.replay_start(game) if part.replay_start else part.initial_state()
    return CampaignState(
        campaign=state.campaign, name=state.name, system=state.system, head=state.head,
        members={key: msgspec.structs.replace(member, token_hash="")
                 for key, member in state.members.items() if member.role != "replay"},
        characters={key: msgspec.structs.replace(character)
                    for key, character in state.characters.items()},
        retired=dict(state.retired),  # retired before the replay: still named in its lines
        session=state.session, in_session=state.in_session,
        sessions=[msgspec.structs.replace(span) for span in state.sessions], game=game)
