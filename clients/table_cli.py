"""The ``poolhall`` commands that talk to a table: campaign create, invite, roll, send, watch,
sheet and state.

:mod:`poolhall.clients.cli` builds their parsers without importing this module; it is imported when
one of them runs (its imports - asyncio, websockets, rich, the message types - are what a
command needs, not what ``--help`` needs).
"""

from __future__ import annotations

import argparse
import json
from functools import cache
from typing import Any

import msgspec

from poolhall.clients import cli_support as common
from poolhall.clients.cli_answers import ADMIN_SESSION, answer
from poolhall.clients.cli_support import (
    CliError,
    emit,
    lines,
    open_client,
    send_command,
    styled,
    to_plain,
)
from poolhall.clients.cli_visibility import with_visibility
from poolhall.clients.client import Client
from poolhall.clients.connection_words import why_closed
from poolhall.clients.in_flight import type_of
from poolhall.clients.links import join_link
from poolhall.clients.replay_link_cli import is_link, link_refusal
from poolhall.clients.table_text import (
    LOG_LINES,
    log_line,
    sheet,
    state_json,
    state_text,
    view_line,
)
from poolhall.events import core
from poolhall.events.codec import AnyCommand
from poolhall.events.errors import (
    CommandRejected,
    ConnectionLost,
    NeedsCharacter,
    NotationError,
    Rejected,
)
from poolhall.events.free_roll import in_notation
from poolhall.events.messages import View
from poolhall.events.plain_text import check_plain_text
from poolhall.events.strict import StrictDecoder
from poolhall.events.wire_errors import rejection_from
from poolhall.projections.campaign import CampaignState, evolve
from poolhall.projections.snapshot import state_from

__all__ = ["campaign_create", "invite", "roll", "send", "sheet_of", "state", "watch"]


# ---- campaigns and members ----------------------------------------------------------------


async def campaign_create(args: argparse.Namespace) -> int:
    ack = await common.call_once(args, None, core.CreateCampaign, common.admin_token(args),
                                 name=args.name, system=args.system, campaign=args.id)
    return _created(args, ack, args.system)


def _created(args: argparse.Namespace, ack: Any, system: str) -> int:
    """Show a campaign created (or the answer to its retry): its id, the GM's token, the link."""
    emit(args, _with_link(args, ack, ack.campaign),
         lambda: styled("created campaign [bold]{}[/bold] ({})\n", ack.campaign, system)
         + _token_line("GM token (shown once; keep it)", ack.token)
         + _link_line(args, ack.campaign, ack.token))
    return common.EXIT_OK


async def _send_create(args: argparse.Namespace, command: core.CreateCampaign) -> int:
    """``poolhall send - '{"type": "create_campaign", ...}'``: the admin's one command, sent in
    the admin session with the admin token; what the line of a ``campaign create`` left
    unconfirmed gives, so that the same id and retry key get the original answer (the GM's
    token included) instead of a second campaign."""
    client = await open_client(args, None, common.admin_token(args))
    try:
        ack = await answer(client, None, command)
    finally:
        await client.close()
    return _created(args, ack, command.system)


def _with_link(args: argparse.Namespace, ack: Any, campaign: str | None) -> Any:
    """The ack as JSON, with the join link when a token was issued."""
    plain = to_plain(ack)
    if ack.token is not None and campaign:
        plain["link"] = join_link(args.url, campaign, ack.token, args.base_url)
    return plain


def _link_line(args: argparse.Namespace, campaign: str | None, token: str | None) -> Any:
    """The join link to open the table in a browser (nothing when no token was issued)."""
    if token is None or not campaign:
        return ""
    return styled("\njoin link (opens the table; keep it as secret as the token): {}",
                  join_link(args.url, campaign, token, args.base_url))


def _token_line(label: str, token: str | None) -> Any:
    """The line that shows an issued token; or, if the server answered a retry without it
    (the token is kept only sealed under the retry's key), a plain word that it is gone."""
    if token is None:
        return styled("{}: [red]cannot be shown[/red]: the command had already been carried "
                      "out and the server keeps no token; remove the member and invite again "
                      "for a new one", label.split(" (")[0])
    return styled("{}: [bold]{}[/bold]", label, token)


async def invite(args: argparse.Namespace) -> int:
    ack = await common.call_once(args, args.campaign, core.Invite, role=args.role,
                                 name=args.name, characters=tuple(args.character or ()))
    emit(args, _with_link(args, ack, args.campaign),
         lambda: styled("invited [bold]{}[/bold] as {}\n", ack.member, args.role)
         + _token_line("token (shown once; give it to them)", ack.token)
         + _link_line(args, args.campaign, ack.token))
    return common.EXIT_OK


# ---- rolling and commands -----------------------------------------------------------------


async def roll(args: argparse.Namespace) -> int:
    client = await open_client(args, args.campaign)  # joined once: its system, then the roll
    try:
        command = _roll_command(args, client)
    except BaseException:
        await client.close()
        raise
    return await send_command(args, args.campaign, command, client)


def _roll_command(args: argparse.Namespace, client: Client) -> Any:
    """The command ``poolhall roll`` sends: plain dice, else the campaign's system's notation
    (:func:`poolhall.events.free_roll.in_notation`; a test of the one character the player
    plays, when they name none)."""
    system = client.welcome.system if client.welcome else ""
    roll = with_visibility(args, core.Roll(
        id=common.new_command_id(), expression=args.expression, character=args.character,
        reason=args.reason or ""))
    try:
        return in_notation(system, roll)
    except NeedsCharacter:
        if args.character is not None:
            raise
        args.character = common.own_character(client, None)
        return _roll_command(args, client)
    except NotationError as error:
        raise CliError(f"cannot read {args.expression!r}: {error.message}") from None


@cache
def _command_decoder() -> StrictDecoder[Any]:
    """The decoder of every command, built by the first ``send`` (tens of milliseconds that
    no other command should pay)."""
    return StrictDecoder(AnyCommand)


async def send(args: argparse.Namespace) -> int:
    try:
        data = json.loads(args.command)
    except json.JSONDecodeError as error:
        raise CliError(f"the command is not JSON: {error}") from None
    if isinstance(data, dict):
        data.setdefault("id", common.new_command_id())
    frame = json.dumps(data)
    try:
        command = _command_decoder().decode(frame)
        check_plain_text(command)
    except msgspec.ValidationError as error:  # the words the server would answer with
        refusal = rejection_from(error, frame, _command_decoder())
        raise CliError.refused(refusal, "not a valid command", common.EXIT_USAGE) from None
    except Rejected as refusal:
        raise CliError.refused(refusal, "not a valid command", common.EXIT_USAGE) from None
    if isinstance(command, core.CreateCampaign) != (args.campaign == ADMIN_SESSION):
        raise CliError("create_campaign is sent without a campaign: give - as the campaign"
                       if args.campaign != ADMIN_SESSION else
                       f"- (no campaign) sends only create_campaign, not {type_of(command)}: "
                       "name the campaign to send it in", common.EXIT_USAGE)
    if isinstance(command, core.CreateCampaign):
        return await _send_create(args, command)
    return await send_command(args, args.campaign, command)


# ---- following the table ------------------------------------------------------------------


async def _catch_up(args: argparse.Namespace, doing: str, follow: bool = False,
                    replay: bool = False, last: int = 0, **hooks: Any) -> tuple[Any, list[Any]]:
    """A joined client at the head and the events before it: every one with ``replay``,
    else the last ``last`` (from the snapshot's, then history pages). ``hooks``: the
    client's ``on_view``, ``on_connection`` and ``on_revealed``; ``doing``: what the command
    does, in the words of a replay link's refusal."""
    client = await open_client(args, args.campaign, follow=follow, replay=replay, **hooks)
    assert client.welcome is not None
    if is_link(client):  # no table comes to a replay link: said at once, not waited for
        try:
            refusal = await link_refusal(client, args.campaign, doing)
        finally:
            await client.close()
        raise refusal
    try:
        await client.wait_for_seq(client.welcome.head, timeout=120)
        history = client.drain()
        if client.snapshot is not None:
            history = [f.recorded() for f in client.snapshot.recent] + history
            while len(history) < last and history and history[0].seq > 1:
                history = await client.history(history[0].seq,
                                               last - len(history)) + history
    except ConnectionLost as lost:  # a follower that resumed on a shorter log, say
        await client.close()
        raise common.connection_lost(lost, f"stopped reading {args.campaign}") from None
    return client, history


async def watch(args: argparse.Namespace) -> int:
    return await _Watch(args).run()


class _Watch:
    """``poolhall watch``: the log's last lines, then every event as it comes, each view's
    line when it changes, private rolls revealed, and the connection lost and back.

    The client calls the hooks (:meth:`show_view`, :meth:`revealed`, :meth:`connection`) from
    its reader, from the join on; until the history is printed (``live``) a view is only
    kept, to print once the history is out."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.state = CampaignState()  # the snapshot's, once joined (show reads it when called)
        self.shown_views: dict[str, str] = {}
        self.live = False
        self.client: Any = None

    async def run(self) -> int:
        args = self.args
        self.client, history = await _catch_up(
            args, "follow the table", follow=True, replay=not args.last, last=args.last,
            on_view=self.show_view,
            on_connection=self.connection, on_revealed=self.revealed)
        if self.client.snapshot is not None:
            self.state = state_from(self.client.snapshot)
        try:
            shown_from = len(history) - args.last if args.last else 0
            for index, recorded in enumerate(history):  # fold it all, print the last lines
                self.show(recorded, quiet=index < shown_from)
            if not args.json:
                for line in self.shown_views.values():  # the standing views: the odds now
                    common.console.print(styled("[dim]view[/dim] [magenta]{}[/magenta]", line))
                common.console.print(styled("[dim]-- live (Ctrl-C to stop) --[/dim]"))
            self.live = True
            async for recorded in self.client:
                self.show(recorded)
            raise common.connection_lost(self.client.lost, f"stopped following {args.campaign}")
        finally:
            await self.client.close()

    def show(self, recorded: Any, quiet: bool = False) -> None:
        if recorded.seq > self.state.head:  # the snapshot's own events are folded in it already
            evolve(self.state, recorded)
        if quiet:
            return
        if self.args.json:
            emit(self.args, recorded, "")
        else:
            common.console.print(log_line(recorded, self.state))

    def _show_received(self) -> None:
        """Once live, the events received and not shown yet: a view or a reveal follows
        them."""
        if self.live:
            for recorded in self.client.drain():
                self.show(recorded)

    def show_view(self, view: View) -> None:
        """A view, once its line changes; the events before it first (it follows them)."""
        self._show_received()
        if self.args.json:
            if self.live:
                emit(self.args, {"view": view.about, "data": view.data}, "")
            return
        line = view_line(view.about, view.data)
        if line is None or self.shown_views.get(view.about) == line:
            return
        self.shown_views[view.about] = line
        if self.live:
            common.console.print(styled("[dim]view[/dim] [magenta]{}[/magenta]", line))

    def revealed(self, frames: list[Any]) -> None:
        """Private rolls this watch printed sealed, whole now that the session ended; the
        events before them first (they follow the reveal)."""
        self._show_received()
        for frame in frames:
            recorded = frame.recorded()
            emit(self.args, {"revealed": to_plain(recorded)},
                 lines(styled("[dim]revealed at the session's end:[/dim]"),
                       log_line(recorded, self.state)))

    def connection(self, up: bool, head: int) -> None:
        if up:
            emit(self.args, {"connection": "back", "head": head},
                 styled("[green]back[/green] (resumed at event {})", head))
        else:  # the server's words when it closed the connection (removed, shutting down)
            why = why_closed(self.client.last_close if self.client is not None else None)
            emit(self.args, {"connection": "reconnecting", "head": head, "reason": why},
                 styled("[yellow]reconnecting…[/yellow] ({}; have event {})", why, head))


async def state(args: argparse.Namespace) -> int:
    if args.at is None:  # the table as it stands: the server's snapshot, no replay
        client, history = await _catch_up(args, "show the table as it stands")
        await client.close()
        state, views, recent = client.state, client.views, history[-LOG_LINES:]
        head_hash = client.last_hash
    else:  # an earlier table: the server rebuilds it from its nearest stored snapshot
        client = await open_client(args, args.campaign)
        try:
            assert client.welcome is not None
            if args.at > client.welcome.head:
                raise CliError(f"--at {args.at} is past the "
                               f"{'replay link' if is_link(client) else 'campaign'}'s last "
                               f"event #{client.welcome.head}")
            snapshot = await client.state_at(args.at)
        except CommandRejected as refusal:  # before a replay link's first event, say
            raise CliError.refused(refusal) from None
        finally:
            await client.close()
        state, views = state_from(snapshot), {}
        recent = [f.recorded() for f in snapshot.recent][-LOG_LINES:]
        head_hash = snapshot.head_hash
    # the chain hash of the event shown: kept anywhere but the server, it is what ``verify
    # --expect CAMPAIGN@SEQ=HASH`` holds the log to
    emit(args, {**state_json(client, state, recent), "head_hash": head_hash},
         lambda: _state_with_hash(state, views, recent, head_hash))
    return common.EXIT_OK


def _state_with_hash(state: CampaignState, views: Any, recent: list[Any],
                     head_hash: str | None) -> Any:
    """``state`` for people, and the chain hash of the event it shows."""
    from rich.console import Group

    return Group(state_text(state, views, recent),
                 styled("[dim]chain hash of #{}: {}[/dim]", state.head,
                        head_hash or "sealed (a private roll you may not see yet)"))


async def sheet_of(args: argparse.Namespace) -> int:
    client = await common.fetch_table(args, args.campaign)
    state = client.state
    if args.character is not None or _plays_one(client):
        chosen = [common.own_character(client, args.character)]
    else:  # the GM, a spectator, a player of several: every sheet they may mean
        member = state.members.get(client.welcome.member) if client.welcome else None
        mine = [c for c in member.characters if c in state.characters] if member else []
        chosen = mine or list(state.characters)
    data, text = sheet(state, chosen)
    emit(args, {"sheets": data}, text)
    return common.EXIT_OK


def _plays_one(client: Any) -> bool:
    member = client.state.members.get(client.welcome.member) if client.welcome else None
    return member is not None and len([c for c in member.characters
                                       if c in client.state.characters]) == 1
