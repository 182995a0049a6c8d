"""A one-shot CLI command's answer, on a network that loses some: what the CLI says when it
cannot know whether the command was applied, and the events an ack names.

The client under a one-shot command reconnects and re-sends an unanswered command with its
id (and retry key), which the server answers with the original ack, never applying it twice:
a roll whose ack was cut off shows its dice, an invite its token. Only when no answer comes
through reconnects within ``--timeout`` is the outcome unknown; then the CLI says so in one
line, with the command's id and the ``poolhall send`` that finds out (exit 5), rather than
"server unreachable" (exit 3, after which a script would roll again) or a traceback.
"""

from __future__ import annotations

import shlex
from typing import Any

import msgspec

from poolhall.clients.cli_errors import EXIT_UNCONFIRMED, CliError, connection_lost
from poolhall.clients.client import Client
from poolhall.clients.in_flight import type_of
from poolhall.events.base import Recorded
from poolhall.events.codec import encode
from poolhall.events.errors import (
    CommandRejected,
    ConnectionLost,
    HistoryDiverged,
    NoAnswer,
    RejoinRefused,
)
from poolhall.events.messages import HISTORY_LIMIT, Ack

__all__ = ["ADMIN_SESSION", "answer", "events_of", "unconfirmed"]

ADMIN_SESSION = "-"
"""``poolhall send``'s campaign for the admin session's one command, ``create_campaign``."""


async def answer(client: Client, campaign: str | None, command: Any) -> Ack:
    """The ack of ``command`` sent on ``client``; a :class:`CliError` for a refusal (exit 1),
    a rejoin refused or a history diverged (:func:`connection_lost`), or no answer at all
    (:func:`unconfirmed`, exit 5)."""
    try:
        return await client.send(command)
    except CommandRejected as refusal:
        raise CliError.refused(refusal) from None
    except (HistoryDiverged, RejoinRefused) as lost:
        raise connection_lost(lost, f"sending the {type_of(command)}") from None
    except (ConnectionLost, TimeoutError) as error:
        raise unconfirmed(campaign, command, error) from None


def unconfirmed(campaign: str | None, command: Any, error: BaseException) -> CliError:
    """The line for a command sent whose answer never came: it may have been applied; its id;
    and the command to send it again, which the server answers with the outcome if it was
    applied, and applies once if it never arrived."""
    kind = type_of(command)
    why = error.where if isinstance(error, NoAnswer) else str(error) or "no answer in time"
    again = encode(command).decode()
    if campaign is not None:
        find_out = ("to find out without applying it twice, send it again with the same id: "
                    f"poolhall send {shlex.quote(campaign)} {shlex.quote(again)}")
    else:  # the admin's create_campaign, sent in the admin session
        find_out = ("to find out without applying it twice (and see the GM's token), send it "
                    "again with the same id and retry key: "
                    f"poolhall send {ADMIN_SESSION} {shlex.quote(again)}")
    message = (f"the {kind} may have been applied: no answer came ({why}); its command id is "
               f"{command.id}; {find_out}")
    return CliError(message, EXIT_UNCONFIRMED,
                    more={"id": command.id, "command": msgspec.json.decode(again)})


async def events_of(client: Client, ack: Ack) -> list[Recorded]:
    """The events ``ack`` names: received live, else read from the log (a command sent again
    with the id of one applied before this client joined: its events are older than the
    join). Those that cannot be read (the link dropped again) are left out."""
    if not ack.seqs:
        return []
    wanted = set(ack.seqs)
    try:
        await client.wait_for_seq(ack.seqs[-1])
    except (ConnectionLost, TimeoutError):
        return []
    found = {recorded.seq: recorded for recorded in client.drain() if recorded.seq in wanted}
    missing = sorted(wanted - found.keys())
    if missing:
        try:
            older = await client.history(missing[-1] + 1,
                                         min(HISTORY_LIMIT, missing[-1] - missing[0] + 1))
        except (CommandRejected, ConnectionLost, TimeoutError):
            older = []
        found.update((recorded.seq, recorded) for recorded in older if recorded.seq in wanted)
    return [found[seq] for seq in sorted(found)]
