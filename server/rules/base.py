"""What a rules module sees when it decides a command: the state, the actor, the dice.

A rules module's ``decide(ctx, command) -> list[Event]`` is a pure decision over
``ctx.state`` with dice drawn only from ``ctx.rng``: in the server, the fair roll's stream of
the campaign's epoch (:mod:`poolhall.server.rules.fairness`, :mod:`poolhall.events.fair`), given a
seed; rules tests hand a source that deals the faces a rule's test needs. It raises
:class:`poolhall.events.errors.Rejected` to refuse; nothing it returns is kept unless the whole list
is appended durably.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from poolhall.events.errors import Rejected
from poolhall.projections.campaign import CampaignState, Character, Member
from poolhall.server.rules.fairness import EpochSeeds, FairRoll

__all__ = ["ADMIN_MEMBER", "Decision", "DiceSource", "no_such"]


def no_such(kind: str, name: str | int, path: str) -> Rejected:
    """The refusal for a check or test that is not at the table: one wording for one that
    never was and for a private one the member may not see (:mod:`poolhall.server.rules.privacy`),
    so that trying names tells nothing of a secret roll."""
    shown = f"#{name}" if kind == "test" else repr(name)
    return Rejected("not_found", f"no {kind} {shown} at this table", path)


class DiceSource(Protocol):
    """Where a decision's dice come from: a die of ``b - a + 1`` sides, or of ``n``."""

    def randint(self, a: int, b: int) -> int: ...

    def randrange(self, n: int) -> int: ...

S = TypeVar("S")
"""A game system's stats type, as :meth:`Decision.stats` checks and returns it."""

G = TypeVar("G")
"""A game system's state type, as :meth:`Decision.game` checks and returns it."""

ADMIN_MEMBER = "admin"


class Decision:
    """The context of one decision: state, acting member, dice, and the authorization checks."""

    def __init__(
        self,
        state: CampaignState,
        actor: Member,
        rng: DiceSource | None,
        new_token: Callable[[], str],
        seeds: EpochSeeds | None = None,
    ) -> None:
        self.state = state
        self.actor = actor
        self.fair = FairRoll(state, seeds) if seeds is not None else None
        """The fair roll of this decision (``None``: the dice come from ``rng`` as given)."""
        source = self.fair.stream if self.fair is not None else rng
        assert source is not None, "a decision needs seeds or a dice source"
        self.rng: DiceSource = source
        self._new_token = new_token
        self.issued_token: str | None = None
        self.issued_member: str | None = None

    @property
    def is_gm(self) -> bool:
        """The GM (or the server admin acting as GM) may do anything in the campaign."""
        return self.actor.role == "gm"

    def require_gm(self, what: str) -> None:
        """Refuse unless the actor is the GM; ``what`` names the command for the message."""
        if not self.is_gm:
            raise Rejected("forbidden", f"only the GM may {what}", "$.type")

    def require_participant(self, what: str) -> None:
        """Refuse spectators: they only watch."""
        if self.actor.role == "spectator":
            raise Rejected("forbidden", f"a spectator may not {what}", "$.type")

    def plays(self, character: str) -> bool:
        """Whether the actor may act for ``character`` (the GM acts for everyone)."""
        return self.is_gm or (self.actor.role == "player" and character in self.actor.characters)

    def require_acts_for(self, character: str, path: str = "$.character") -> None:
        """Refuse unless the actor is the GM or the player of ``character``."""
        self.require_participant("act")
        if not self.plays(character):
            raise Rejected("forbidden", f"you do not play {self.name_of(character)}",
                           path)

    def _played(self) -> list[str]:
        """The characters the actor plays that are at the table (none retired)."""
        return [character for character in self.actor.characters
                if character in self.state.characters]

    def only_character(self) -> str | None:
        """The one character a player plays: whose a test that names none is, as in
        ``poolhall roll``; ``None`` for the GM and for a player of none or several."""
        if self.actor.role != "player":
            return None
        mine = self._played()
        return mine[0] if len(mine) == 1 else None

    def whose(self) -> str:
        """The characters to choose from, for a refusal that asks whose a test is: the
        player's own, or the campaign's for the GM (at most ten, as the CLI lists them)."""
        mine = self._played()
        if self.actor.role == "player":
            return f": you play {', '.join(map(self.name_of, mine))}" if mine else (
                ": you play no character yet")
        known = list(self.state.characters)[:10]
        return f" (the campaign's: {', '.join(map(self.name_of, known))})" if known else ""

    def name_of(self, character: str) -> str:
        """``character``'s name, as a refusal should say it: the table knows "Sam Shadow",
        not ``sam-shadow`` (its id when the table has no such character yet)."""
        return self.state.character_name(character)

    def character(self, character: str, path: str = "$.character") -> Character:
        """The character ``character``, or a ``not_found`` refusal naming the field."""
        found = self.state.characters.get(character)
        if found is None:
            retired = self.state.retired.get(character)
            if retired is not None:
                raise Rejected("not_found", f"{retired} is retired: no longer at this table",
                               path)
            raise Rejected("not_found", f"no character {character!r} in this campaign", path)
        return found

    def game(self, state_type: type[G]) -> G:
        """The game system's state, checked to be of ``state_type``: the rules of one system
        are only ever handed its campaigns' commands, so a mismatch is refused, never trusted."""
        try:
            return self.state.game_as(state_type)
        except TypeError as error:
            raise Rejected("wrong_system", str(error), "$.type") from None

    def stats(self, character: str, stats_type: type[S], path: str = "$.character") -> S:
        """The character's stats, checked to be of this system's type."""
        found = self.character(character, path)
        stats = found.stats
        if not isinstance(stats, stats_type):
            raise Rejected("invalid", f"{found.name} has no stats for this system", path)
        return stats

    def issue_token(self, member: str) -> str:
        """A fresh secret token for ``member``; the ack shows it once, the log keeps its hash."""
        token = self._new_token()
        self.issued_token = token
        self.issued_member = member
        return token
