"""The private rolls' part of every decision: who may roll with which visibility, and refusing
a member who acts on a private roll they may not see as if it did not exist.

The visibility rules (:mod:`poolhall.projections.privacy` has what the log then keeps):

- ``gm`` is the GM's secret roll or check; only the GM makes one.
- ``blind`` and ``self`` are a player's private rolls, and only one-shot rolls (a free roll,
  a narrative pool, an SR3 test): a check built step by step in front of the table cannot be
  hidden from the player building it, so a private check is the GM's.
- A private SR3 test draws no Combat, Astral or Karma Pool dice: those pools are shown to the
  whole table, and their going down would tell what the test was.
- At most :data:`~poolhall.projections.privacy.MAX_PENDING` wait to be revealed at once, of
  them at most :data:`~poolhall.projections.privacy.MAX_PENDING_PLAYERS` the players' and
  :data:`~poolhall.projections.privacy.MAX_PENDING_PER_PLAYER` one player's: the GM keeps
  room for secret rolls whatever the players do.
- A GM's secret check is named ``secret-<seq>`` by the server (a name the GM chose could be
  found by trying names), and does not count in its character's numbering of checks: the ids
  the table sees tell nothing of it. A destiny point flipped for a secret check may not name
  it (the flip itself is the table's to see), nor may it be entered as initiative.
- An SR3 test answers another as privately as that one was rolled
  (:func:`answer_as_private`), and a private one is not rerolled with Karma.
- A game session neither starts nor ends over a secret check or test still being built
  (:func:`require_secrets_finished`): each reveals the epoch's secret rolls.
- A member acting on a private roll they may not see gets the refusal of one that never was,
  word for word (:func:`guard`, :func:`~poolhall.server.rules.base.no_such`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from poolhall.events import core, d12, narrative, sr3
from poolhall.events.base import Event
from poolhall.events.errors import Rejected
from poolhall.projections.privacy import (
    MAX_PENDING,
    MAX_PENDING_PER_PLAYER,
    MAX_PENDING_PLAYERS,
    OPENERS,
    reference_of,
    sees,
)
from poolhall.projections.systems import projection
from poolhall.server.rules.base import Decision, no_such

__all__ = ["ONE_SHOT_COMMANDS", "answer_as_private", "guard", "hidden_from",
           "require_secrets_finished", "stamp", "unfinished_secrets"]

ONE_SHOT_COMMANDS: frozenset[type[Any]] = frozenset(
    {core.Roll, narrative.RollPool, sr3.RollPoolTest})
"""The commands a player may make private (``blind`` or ``self``)."""


_ABSENT_NAME = "\x00absent"
"""A check's id no check has (ids are printable): what a hidden one is replaced with."""
_ABSENT_NUMBER = 2**62
"""A test's number no test has."""


def guard(ctx: Decision, command: Any, decide: Callable[[Decision, Any], object]) -> None:
    """Refuse a visibility the actor may not use, and a reference to a private roll the actor
    may not see: refused exactly as if it did not exist.

    "Exactly" is the command decided again (by ``decide``, the rules without this guard)
    naming a check or test that never was: a player who sets the difficulty of a hidden check
    is told the GM sets difficulties, as for a check that never was, where answering
    ``not_found`` at once told that a secret check stood behind that id."""
    visibility = getattr(command, "visibility", "public")
    if visibility != "public":
        _check_visibility(ctx, command, visibility)
    if not ctx.state.private:  # nothing pending: nothing to hide (the common case)
        return
    reference = reference_of(command)
    if reference is not None and hidden_from(ctx, reference[0]):
        key, path = reference
        kind, name = key.split(":", 1)
        field = path.removeprefix("$.")
        absent = _ABSENT_NUMBER if isinstance(getattr(command, field), int) else _ABSENT_NAME
        try:
            decide(ctx, msgspec.structs.replace(command, **{field: absent}))
        except Rejected as refusal:
            if refusal.code != "not_found":
                raise refusal from None
        raise no_such(kind, name, path)
    if isinstance(command, narrative.FlipDestiny) and command.check is not None \
            and f"check:{command.check}" in ctx.state.private:
        raise Rejected("rule", "a destiny point flipped for a secret check would show the "
                       "table which check it was: flip it without naming the check, and "
                       "upgrade the secret check with upgrade_dice", "$.check")


_AS = {"public": "in the open", "gm": "in secret (gm)", "blind": "blind", "self": "as self"}


def answer_as_private(ctx: Decision, answered: int | None, visibility: str | None) -> None:
    """Refuse an SR3 test that answers test ``answered`` (``opposes``) less or more privately
    than it was rolled; ``visibility`` ``None`` is a declaration, made in front of the table.

    The two results are one contest: a secret answer to a public test showed when the public
    test's Karma reroll was refused ("answered by test #2"), and a public answer to a secret
    test carried the secret test's successes in its odds. So a public test is answered in the
    open, a GM's secret test in secret, and a player's private test not before its reveal.
    """
    if answered is None:
        return
    subject = ctx.state.private.get(f"test:{answered}")
    theirs = subject.visibility if subject is not None else "public"
    if theirs in ("blind", "self") and (visibility != theirs or ctx.is_gm):
        raise Rejected("rule", f"test #{answered} is a player's private roll: it is answered "
                       "after the session's end reveals it", "$.opposes")
    if visibility is None:
        if theirs != "public":
            raise Rejected("rule", f"test #{answered} was rolled in secret: answer it with a "
                           "secret roll, not a declaration in front of the table", "$.opposes")
    elif visibility != theirs:
        raise Rejected("rule", f"a test is answered as it was rolled: test #{answered} was "
                       f"rolled {_AS[theirs]}, so roll this one {_AS[theirs]} too",
                       "$.visibility")


def hidden_from(ctx: Decision, key: str) -> bool:
    """Whether the actor may not see the pending private subject ``key`` (``check:<id>``,
    ``test:<number>``): a rule that looks a subject up for them must act as if it were not
    there."""
    subject = ctx.state.private.get(key)
    return subject is not None and not sees(subject, ctx.actor.member, ctx.actor.role)


def unfinished_secrets(ctx: Decision) -> list[str]:
    """The pending private checks and tests still being built (``check:secret-12``), which a
    reveal of their epoch's seed would leave to be played in front of the table."""
    hook = projection(ctx.state.system).unfinished if ctx.state.system else None
    if hook is None:
        return []
    return sorted(key for key in ctx.state.private if hook(ctx.state.game, key))


def require_secrets_finished(ctx: Decision, doing: str) -> None:
    """Refuse ``doing`` (starting or ending a game session: each reveals the epoch's seed)
    while a secret check or test is unfinished: revealed, the rest of it would go on in front
    of the table while its GM believed it secret."""
    keys = unfinished_secrets(ctx)
    if keys:
        names = ", ".join(key.split(":", 1)[1] if key.startswith("check:")
                          else f"test {key.split(':', 1)[1]}" for key in keys)
        them = "it" if len(keys) == 1 else "them"
        # while the dice wait (a restart, docs: fairness.md), rolling is refused: say cancel
        how = (f"cancel {them} first (or end the test): the dice wait until then"
               if ctx.fair is not None and ctx.fair.paused
               else f"roll or cancel {them} first (or end the test)")
        raise Rejected("rule", f"{doing} reveals the secret rolls, and {names} "
                       f"{'is' if len(keys) == 1 else 'are'} not finished: {how}", "$.type")


def _check_visibility(ctx: Decision, command: Any, visibility: str) -> None:
    if visibility == "gm":
        if not ctx.is_gm:
            raise Rejected("forbidden", "only the GM rolls in secret (visibility 'gm'); a "
                           "player's private roll is blind or self", "$.visibility")
    elif ctx.is_gm:
        raise Rejected("invalid", f"the GM's secret roll is visibility 'gm'; '{visibility}' is a "
                       "player's private roll", "$.visibility")
    elif isinstance(command, d12.RollBasicTest):
        raise Rejected("rule", "a test the GM called is rolled in the open", "$.visibility")
    elif type(command) not in ONE_SHOT_COMMANDS:
        raise Rejected("rule", "a player's private roll is a one-shot roll (roll, roll_pool, "
                       "roll_pool_test); a check built step by step is private only as the "
                       "GM's", "$.visibility")
    if isinstance(command, sr3.RollPoolTest) and (any(command.pools.values())
                                                   or command.karma_dice):
        raise Rejected("rule", "a private test draws no pool or karma dice: those pools are "
                       "shown to the whole table", "$.pools")
    _check_room(ctx)


def _check_room(ctx: Decision) -> None:
    """Refuse a private roll past the bounds of those waiting to be revealed: the
    campaign's, the players' together and this player's (the GM keeps room of their own)."""
    pending = ctx.state.private.values()
    if len(pending) >= MAX_PENDING:
        raise Rejected("rule", f"{MAX_PENDING} private rolls wait to be revealed; end the "
                       "game session to reveal them", "$.visibility")
    if ctx.is_gm:
        return
    own = sum(1 for subject in pending if subject.roller == ctx.actor.member)
    if own >= MAX_PENDING_PER_PLAYER:
        raise Rejected("rule", f"{own} of your private rolls wait to be revealed, the most "
                       "one player may have: roll in the open, or ask the GM to end the game "
                       "session, which reveals them", "$.visibility")
    players = sum(1 for subject in pending if subject.visibility != "gm")
    if players >= MAX_PENDING_PLAYERS:
        raise Rejected("rule", f"the players' {players} private rolls wait to be revealed, "
                       "the most the players may have together: roll in the open, or ask the "
                       "GM to end the game session, which reveals them", "$.visibility")


def stamp(command: Any, events: list[Event]) -> list[Event]:
    """The command's visibility on the events that open a private roll."""
    visibility = getattr(command, "visibility", "public")
    if visibility == "public":
        return events
    return [msgspec.structs.replace(event, visibility=visibility)
            if type(event) in OPENERS else event for event in events]
