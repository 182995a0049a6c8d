"""The table as ``poolhall state``, ``sheet`` and ``watch`` print it, whatever the system.

The generic part (who is at the table, the characters, the last lines of the log) is here;
each game system's part comes from ``clients/<system>_table.py``, which offers
``table_parts(state, views)``, ``character_line(character)``, ``sheet_parts(character,
state)`` and ``view_line(about, data)``, registered as its CLI hooks' ``table``. The output
is bounded whatever the campaign's length: the last :data:`LOG_LINES` events, never the
whole history.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import msgspec

from poolhall.clients.cli_support import lines, styled
from poolhall.clients.contract import TableHooks
from poolhall.clients.systems import CLI_HOOKS
from poolhall.events.base import Recorded
from poolhall.events.systems import SYSTEM_IDS
from poolhall.projections.campaign import CampaignState
from poolhall.projections.describe import describe, who

if TYPE_CHECKING:  # rich is imported by the functions that print for people: not by --json
    from rich.console import Group
    from rich.text import Text

__all__ = ["LOG_LINES", "clock", "log_line", "sheet", "state_data", "state_json", "state_text",
           "system_table", "view_line"]

LOG_LINES = 10
"""Lines of the log ``state`` shows (the newest)."""
SHOWN_CHARACTERS = 30
"""Characters listed at most, each on one line."""


def clock(at: str) -> str:
    """``HH:MM:SS`` of a log time on the reader's clock: the log keeps UTC (ISO 8601), and a
    table in Berlin read its 20:00 as 19:00."""
    try:
        return datetime.fromisoformat(at).astimezone().strftime("%H:%M:%S")
    except ValueError:  # not a time: shown as it is, cut to the width of one
        return at[11:19]


def log_line(recorded: Recorded, state: CampaignState) -> Text:
    """One line of the log as ``watch`` and ``replay`` print it: time, number, who, what
    (``state``: the table just after the event, for the words of the game system)."""
    return styled("[dim]{}[/dim] [bold]#{}[/bold] [cyan]{}[/cyan] {}", clock(recorded.at),
                  recorded.seq, who(recorded, state), describe(recorded, state))


def system_table(system: str) -> TableHooks | None:
    """The system's table hooks (registered with its CLI hooks), or ``None``."""
    hooks = CLI_HOOKS.get(system)
    return hooks.table if hooks is not None else None


def plain_views(views: Mapping[str, Any]) -> dict[str, Any]:
    """The client's typed views as plain data, keyed by what they are about."""
    return {about: msgspec.to_builtins(data) for about, data in views.items()}


def view_line(about: str, data: Any) -> str | None:
    """One readable line for a view (odds, combat turn), or ``None`` for one not worth a
    line (the sheets, which ``poolhall sheet`` shows). The only place ``watch`` reads a view."""
    plain = msgspec.to_builtins(data)
    for system in SYSTEM_IDS:
        module = system_table(system)
        if module is not None and (line := module.view_line(about, plain)) is not None:
            return str(line)
    return None


def _game(state: CampaignState, views: Mapping[str, Any]
          ) -> tuple[dict[str, Any], list[str | Text]]:
    module = system_table(state.system)
    if module is None or state.game is None:
        return {}, []
    data, shown = module.table_parts(state, plain_views(views))
    return dict(data), list(shown)


def _character_lines(state: CampaignState) -> list[dict[str, Any]]:
    module = system_table(state.system)
    players: dict[str, str] = {}
    for member in state.members.values():
        if member.active and member.role == "player":
            for character in member.characters:
                players.setdefault(character, member.name)
    return [{"character": c.character, "name": c.name, "player": players.get(c.character),
             "sheet": module.character_line(c) if module is not None else ""}
            for c in list(state.characters.values())[:SHOWN_CHARACTERS]]


def state_data(state: CampaignState, views: Mapping[str, Any],
               recent: Sequence[Recorded]) -> dict[str, Any]:
    """What ``state`` shows, as plain data: members (no token hashes), characters with a
    compact sheet, the system's table, the last rolls and the last lines of the log."""
    game, _ = _game(state, views)
    return {
        "campaign": state.campaign, "name": state.name, "system": state.system,
        "head": state.head, "session": state.session, "in_session": state.in_session,
        "members": {m.member: {"name": m.name, "role": m.role,
                               "characters": list(m.characters), "active": m.active}
                    for m in state.members.values()},
        "characters": _character_lines(state),
        "character_count": len(state.characters),
        "retired": dict(state.retired),
        "game": game,
        "rolls": [{"seq": r.seq, "actor": r.actor, "expression": r.expression,
                   "total": r.total, "reason": r.reason} for r in state.rolls[-LOG_LINES:]],
        "log": [{"seq": r.seq, "at": r.at, "actor": r.actor, "text": describe(r, state)}
                for r in recent[-LOG_LINES:]],
    }


def state_json(client: Any, state: CampaignState, recent: Sequence[Recorded]) -> Any:
    """What ``state --json`` prints: the readable data of :func:`state_data` and, for the
    table as it stands, the server's typed snapshot under ``snapshot`` (the protocol's
    message, less its ``recent`` frames, which ``log`` shows). ``client`` is the (closed)
    client that read the table; ``state`` may be an earlier one (``--at``)."""
    data = state_data(state, getattr(client, "views", {}), recent)
    snapshot = getattr(client, "snapshot", None)
    if snapshot is not None and state is client.state:
        typed = msgspec.to_builtins(snapshot)
        typed.pop("recent", None)
        data["snapshot"] = typed
    return data


def state_text(state: CampaignState, views: Mapping[str, Any],
               recent: Sequence[Recorded]) -> Group:
    """``state`` for people: one screen, whatever the length of the campaign."""
    from rich.console import Group
    from rich.text import Text

    session = (f"game session {state.session} " + ("running" if state.in_session else "ended")
               if state.session else "no game session yet")
    parts: list[str | Text] = [
        styled("[bold]{}[/bold] ({}) at event #{}, {}", state.name, state.system, state.head,
               session), styled("[bold]at the table[/bold]")]
    for m in state.members.values():
        if m.active:
            plays = f", plays {', '.join(m.characters)}" if m.characters else ""
            parts.append(styled("  {} ({}{})", m.name, m.role, plays))
    parts.append(styled("[bold]characters[/bold]"))
    characters = _character_lines(state)
    for c in characters:
        player = f" [{c['player']}]" if c["player"] else ""
        parts.append(styled("  [bold]{}[/bold] {}{}: {}", c["character"], c["name"], player,
                            c["sheet"]))
    if len(state.characters) > len(characters):
        parts.append(f"  ... and {len(state.characters) - len(characters)} more")
    if not characters:
        parts.append("  none yet")
    if state.retired:
        parts.append(styled("  retired: {}", ", ".join(state.retired.values())))
    _, game = _game(state, views)
    if game:
        parts.append(styled("[bold]{}[/bold]", state.system))
        parts += [Text("  ").append(line) if isinstance(line, Text) else f"  {line}"
                  for line in game]
    parts.append(styled("[bold]last {} events[/bold]", min(LOG_LINES, len(recent))))
    for r in recent[-LOG_LINES:]:
        parts.append(styled("  [dim]{}[/dim] #{} {} {}", clock(r.at), r.seq, who(r, state),
                            describe(r, state)))
    return Group(lines(*parts))


def sheet(state: CampaignState, characters: Sequence[str]
          ) -> tuple[list[dict[str, Any]], Group]:
    """The sheets of ``characters`` (ids of ``state``), as data and for people."""
    from rich.console import Group

    module = system_table(state.system)
    data: list[dict[str, Any]] = []
    shown: list[str | Text] = []
    for cid in characters:
        character = state.characters[cid]
        if module is None:
            data.append({"character": cid, "name": character.name})
            shown.append(styled("[bold]{}[/bold] ({})", character.name, cid))
            continue
        one, text = module.sheet_parts(character, state)
        data.append(one)
        shown += text
    return data, Group(lines(*shown) if shown else "no character yet")
