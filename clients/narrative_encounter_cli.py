"""``poolhall narrative`` subcommands of the narrative encounter and of spending results.

::

    poolhall narrative encounter CAMPAIGN                 the encounter: round, slots, who acted
    poolhall narrative encounter CAMPAIGN --start --reason "ambush at the docks"   GM
    poolhall narrative encounter CAMPAIGN --round         GM: the first round, or the next
    poolhall narrative encounter CAMPAIGN --end           GM
    poolhall narrative initiative CAMPAIGN han-3          enter a Cool or Vigilance check rolled
                                                          since the encounter began
    poolhall narrative claim CAMPAIGN 1 [han]             act in slot 1 of this round
    poolhall narrative spend CAMPAIGN shot advantage 2 --on "an extra manoeuvre"

The page does the same with its encounter panel and the spend form of each rolled check
(``clients/web/systems/narrative_encounter.js``); the rules are in
``docs/reference/narrative.md``.
"""

from __future__ import annotations

import argparse
from types import ModuleType
from typing import TYPE_CHECKING, Any

from poolhall.clients.cli_support import lines, styled
from poolhall.clients.narrative_actions import action_parser, send_as
from poolhall.events.plural import plural

if TYPE_CHECKING:
    from rich.text import Text

    from poolhall.projections.narrative import GameState

__all__ = ["add_encounter_commands", "encounter_data", "encounter_lines"]

SYMBOLS = ("advantage", "triumph", "threat", "despair")


def encounter_data(game: GameState) -> dict[str, Any]:
    """The running encounter as plain data (``None`` for none): its round, its slots in the
    order they act with who took each this round, and the initiative checks not yet entered."""
    from poolhall.projections.narrative import initiative_waiting

    encounter = game.encounter
    if encounter is None:
        return {"encounter": None, "encounters": game.encounters}
    taken = {claim.slot: claim.character for claim in encounter.claims}
    return {"encounter": {
        "encounter": encounter.encounter, "round": encounter.round, "reason": encounter.reason,
        "slots": [{"slot": number, "side": entry.side, "character": entry.character,
                   "skill": entry.skill, "successes": entry.successes,
                   "advantages": entry.advantages, "triumphs": entry.triumphs,
                   "taken_by": taken.get(number)}
                  for number, entry in enumerate(encounter.slots, start=1)],
        "waiting": sorted(initiative_waiting(game))}, "encounters": game.encounters}


def encounter_lines(data: dict[str, Any]) -> list[str | Text]:
    """:func:`encounter_data` for people, a line a slot."""
    encounter = data["encounter"]
    if encounter is None:
        return ["no encounter running"]
    why = f" ({encounter['reason']})" if encounter["reason"] else ""
    when = (f"round {encounter['round']}" if encounter["round"]
            else "initiative being rolled (the GM starts round 1)")
    shown: list[str | Text] = [styled("encounter [bold]{}[/bold]{}: {}", encounter["encounter"],
                                      why, when)]
    for slot in encounter["slots"]:
        roll = (f"{plural('success', slot['successes'], 'successes')}, "
                f"{plural('advantage', slot['advantages'])}")
        acted = (f"taken by {slot['taken_by']}" if slot["taken_by"]
                 else "free" if encounter["round"] else "")
        shown.append(f"  {slot['slot']}. {slot['side']} slot, {slot['character']}'s "
                     f"{slot['skill']} ({roll})" + (f": {acted}" if acted else ""))
    if not encounter["slots"]:
        shown.append("  no initiative entered yet")
    if encounter["waiting"]:
        shown.append(f"  rolled, not entered yet: {', '.join(encounter['waiting'])} "
                     "(poolhall narrative initiative CAMPAIGN CHECK)")
    return shown


async def _game(args: argparse.Namespace, common: ModuleType) -> GameState:
    from poolhall.projections.narrative import GameState

    game = (await common.fetch_state(args, args.campaign)).game
    if not isinstance(game, GameState):
        raise common.CliError(f"{args.campaign} does not play narrative dice")
    return game


async def _encounter(args: argparse.Namespace, common: ModuleType) -> int:
    from poolhall.events import narrative_encounter as e

    reason = args.reason or ""
    if args.start:
        return await send_as(args, common, e.StartEncounter, reason=reason)
    if args.round:
        return await send_as(args, common, e.AdvanceRound)
    if args.end:
        return await send_as(args, common, e.EndEncounter, reason=reason)
    data = encounter_data(await _game(args, common))
    common.emit(args, data, lines(*encounter_lines(data)))
    return int(common.EXIT_OK)


def add_encounter_commands(actions: Any, common: ModuleType) -> None:
    """Add ``encounter``, ``initiative``, ``claim`` and ``spend`` to ``poolhall narrative``
    (each handler imports the events it sends: building the parser imports none)."""
    parser = action_parser(actions, common, "encounter",
                           "the encounter; GM: --start, --round or --end", _encounter)
    either = parser.add_mutually_exclusive_group()
    either.add_argument("--start", action="store_true", help="GM: start an encounter")
    either.add_argument("--round", action="store_true",
                        help="GM: start the first round, or the next one")
    either.add_argument("--end", action="store_true", help="GM: end the encounter")
    parser.add_argument("--reason", help="with --start or --end: why, in a few words")

    async def initiative(args: argparse.Namespace, common: ModuleType) -> int:
        from poolhall.events import narrative_encounter as e

        return await send_as(args, common, e.EnterInitiative, check=args.check)

    parser = action_parser(actions, common, "initiative",
                           "enter a Cool or Vigilance check rolled since the encounter began as "
                           "initiative", initiative)
    parser.add_argument("check", help="the rolled check's id")

    async def claim(args: argparse.Namespace, common: ModuleType) -> int:
        from poolhall.events import narrative_encounter as e

        character = await common.character_for(args, args.campaign, args.character)
        return await send_as(args, common, e.ClaimSlot, slot=args.slot, character=character)

    parser = action_parser(actions, common, "claim", "act in a slot of this round", claim)
    parser.add_argument("slot", type=int, help="the slot's number, 1 the first to act")
    parser.add_argument("character", nargs="?", help="who acts (default: the one you play)")

    async def spend(args: argparse.Namespace, common: ModuleType) -> int:
        from poolhall.events import narrative_encounter as e

        return await send_as(args, common, e.SpendResult, check=args.check,
                             symbol=args.symbol, count=args.count, on=args.on)

    parser = action_parser(actions, common, "spend", "spend symbols of a rolled check", spend)
    parser.add_argument("check", help="the rolled check's id")
    parser.add_argument("symbol", choices=SYMBOLS)
    parser.add_argument("count", type=int, nargs="?", default=1, help="how many (default 1)")
    parser.add_argument("--on", required=True, help='what for, in words: "an extra manoeuvre"')
