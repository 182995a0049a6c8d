"""Decisions of the ``narrative`` game system, and the live odds of its open checks.

Checks are decided in :mod:`poolhall.server.rules.narrative_checks`, destiny, Force dice and free
pools in :mod:`poolhall.server.rules.narrative_destiny`. :func:`views` sends the table, after every
change of a check, that check's effective pool with provenance and its exact odds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from poolhall.events import narrative as n
from poolhall.events.base import Event
from poolhall.events.errors import Rejected
from poolhall.events.messages import View
from poolhall.events.narrative import Pool
from poolhall.events.narrative_encounter import ENCOUNTER_COMMANDS
from poolhall.projections.campaign import CampaignState
from poolhall.projections.narrative import CheckState, GameState
from poolhall.projections.narrative_odds import summary
from poolhall.server.rules import narrative_checks as checks
from poolhall.server.rules import narrative_destiny as destiny
from poolhall.server.rules.base import Decision
from poolhall.server.rules.contract import Rules
from poolhall.server.rules.narrative_encounter import decide_encounter
from poolhall.server.views import Compute, ViewResult, ViewSpec, computed

__all__ = ["RULES", "COMMANDS", "MAX_LIVE_ODDS_DICE", "check_about", "check_odds", "check_spec",
           "check_view", "decide", "standing_views", "views"]

COMMANDS = frozenset(n.COMMANDS)

MAX_LIVE_ODDS_DICE = 20
"""**Decision**: live odds are sent for pools of at most 20 dice (about 0.1 s of a worker
process at 20; a few ms for usual pools); a bigger pool's view says so, and ``poolhall odds``
still computes it."""


_DECIDERS: dict[type[Any], Callable[[Decision, Any], list[Event]]] = {
    n.OpenCheck: checks.open_,
    n.SetDifficulty: checks.set_difficulty,
    n.AddDice: checks.modify,
    n.UpgradeDice: checks.modify,
    n.DowngradeDice: checks.modify,
    n.RemoveDice: checks.modify,
    n.RollCheck: checks.roll,
    n.CancelCheck: checks.cancel,
    n.RollDestinyPool: destiny.roll_destiny_pool,
    n.SetDestinyPool: destiny.set_destiny_pool,
    n.FlipDestiny: destiny.flip,
    n.RollForceDice: destiny.roll_force,
    n.RollPool: destiny.roll_pool,
    **dict.fromkeys(ENCOUNTER_COMMANDS, decide_encounter),
}
"""Who decides each command: :mod:`poolhall.server.rules.narrative_checks` a check's,
:mod:`poolhall.server.rules.narrative_destiny` the destiny pool's and the free rolls',
:mod:`poolhall.server.rules.narrative_encounter` an encounter's."""


def decide(ctx: Decision, command: Any) -> list[Event]:
    """Decide one of this system's commands."""
    decider = _DECIDERS.get(type(command))
    if decider is None:
        raise Rejected("unknown_type", f"unknown command {type(command).__name__}", "$.type")
    return decider(ctx, command)


def check_odds(pool: Pool) -> ViewResult:
    """The costly part of a check's view, computed in a worker: the pool's exact odds."""
    return {"odds": summary(pool)}


def check_view(check: CheckState) -> n.NarrativeCheckOdds:
    """What the table sees of a check: its pool die by die with provenance, and its odds."""
    (view,) = computed([check_spec(check)])
    assert isinstance(view.data, n.NarrativeCheckOdds)
    return view.data


def check_about(check: str) -> str:
    """What a check's view is about: ``check:<id>``."""
    return f"check:{check}"


def check_spec(check: CheckState) -> ViewSpec:
    """A check's view (about ``check:<id>``): its pool die by die with provenance, at once,
    and its odds once a worker has computed them (an open check of at most 20 dice)."""
    about = check_about(check.check)
    built = check.effective()
    pool = built.pool
    data = n.NarrativeCheckOdds(
        check=check.check,
        character=check.character,
        skill=check.skill,
        status=check.status,
        difficulty=check.difficulty.level if check.difficulty else None,
        pool=pool.notation(),
        counts=pool,
        dice=tuple(n.CheckDie(kind=die.kind, notes=die.notes) for die in built.dice),
        ignored=tuple(built.ignored),
        destiny=tuple(check.destiny),
    )
    if not check.is_open:
        data = msgspec.structs.replace(
            data, pool=check.pool.notation() if check.pool else data.pool, result=check.result)
    elif pool.total > MAX_LIVE_ODDS_DICE:
        data = msgspec.structs.replace(
            data, note=f"odds not computed: more than {MAX_LIVE_ODDS_DICE} dice; "
                       f'try: poolhall odds "{pool.notation()}"')
    else:
        return Compute(about=about, data=data, function=check_odds, input=pool)
    return View(about=about, data=data)


def views(state: CampaignState, events: list[Event]) -> list[ViewSpec]:
    """One view per check the events changed (closed ones say so)."""
    game = state.game
    if not isinstance(game, GameState):
        return []
    changed = list(dict.fromkeys(
        check for event in events if (check := getattr(event, "check", None))))
    return [check_spec(game.checks[check_id]) for check_id in changed if check_id in game.checks]


def standing_views(state: CampaignState) -> list[ViewSpec]:
    """The view of every open check, for a member who joins mid-check."""
    game = state.game
    if not isinstance(game, GameState):
        return []
    return [check_spec(check) for check in game.checks.values() if check.is_open]


RULES = Rules(system=n.SYSTEM_ID, commands=COMMANDS, decide=decide, views=views,
              standing_views=standing_views)
"""This system's rules (see :mod:`poolhall.server.rules.contract`)."""
