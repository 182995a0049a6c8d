"""The wire protocol: every message a client sends and the server answers, as typed Structs.

One JSON text frame holds one message, tagged by ``type``. The first client message is
:class:`Join`; every later one is a command (see :data:`poolhall.events.codec.AnyCommand`), answered
by :class:`Ack` or :class:`ErrorReply`. Events reach every member as :class:`EventFrame`.
``poolhall schema`` prints the JSON Schema generated from these types.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, get_args

import msgspec
from msgspec import Meta

from poolhall.events.base import CommandId, MemberRole, Recorded, Seq, Slug, ViewData
from poolhall.events.codec import AnyCommand, FrameEvent
from poolhall.events.errors import ErrorCode
from poolhall.events.owner import CampaignList, ListCampaigns
from poolhall.events.strict import StrictDecoder, strict_type
from poolhall.events.systems import SYSTEMS, RegisteredSystem

__all__ = [
    "CLIENT_DECODER",
    "CLOSE_CODES",
    "ALL_VIEWS",
    "AnyView",
    "ChainHash",
    "SERVER_DECODER",
    "Ack",
    "OutgoingRevealed",
    "Revealed",
    "ClientMessage",
    "ErrorReply",
    "EventFrame",
    "HISTORY_LIMIT",
    "History",
    "ReportReady",
    "ReportRequest",
    "StateAt",
    "HistoryPage",
    "Join",
    "OutgoingEventFrame",
    "OutgoingHistoryPage",
    "ServerMessage",
    "Token",
    "View",
    "ViewsAt",
    "Welcome",
    "json_schema",
]

Token = Annotated[str, Meta(max_length=128, description="a secret bearer token")]
"""No minimum length: a token that is too short is simply not one the server issued, and
gets ``unauthorized`` like any other wrong token rather than a lesson in its format."""

ChainHash = Annotated[str, Meta(pattern="^[0-9a-f]{64}$",
                                description="a link of a campaign's hash chain (SHA-256, hex)")]


class Join(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="join",
           forbid_unknown_fields=True, omit_defaults=True):
    """First message of a connection: who I am, which campaign, and what I already have.

    ``campaign`` is omitted only by the admin token, to create campaigns. ``since_hash`` is
    the chain hash of the client's event ``since`` (the ``hash`` of its event frame): with it
    the server can tell a client whose copy is not the server's history (the server lost
    events it had acknowledged, or was restored from an older backup) and answer
    ``diverged`` instead of appending new events after it. Older clients leave it out, and
    fields left at their defaults are not sent (a server older than ``since_hash`` refuses
    any join that names it, even as ``null``).

    A client within the server's resume limit of the head gets the events it missed; further
    behind (``since`` 0 included) it gets a ``snapshot`` of the table instead. ``replay``
    asks for every event after ``since`` whatever the distance (for tools that need the
    whole log, like ``poolhall state --at``). ``table`` asks for a ``table`` message (the
    table as it stands, who is connected included) after the join and after every change: for
    clients that show the table without folding events themselves, like the browser page.
    """

    token: Token
    campaign: Slug | None = None
    since: Seq = 0
    since_hash: ChainHash | None = None
    replay: bool = False
    table: bool = False


HISTORY_LIMIT = 500
"""Most events one ``history`` page holds."""


class History(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="history",
              forbid_unknown_fields=True, omit_defaults=True):
    """Ask for the events before ``before``, a page at a time (the latest ``limit`` of them).

    Not a command: it appends nothing and is answered by a ``history`` page carrying ``id``.
    """

    id: CommandId
    before: Annotated[int, Meta(ge=1, le=2**53, description="the first seq not wanted")]
    limit: Annotated[int, Meta(ge=1, le=HISTORY_LIMIT)] = 100


class StateAt(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="state_at",
              forbid_unknown_fields=True):
    """Ask for the table as it stood after event ``seq``: replay and time travel.

    Not a command: it appends nothing and is answered by a ``snapshot`` carrying ``id`` (its
    ``recent`` events are the last ones up to ``seq``), rate-limited like ``history``.
    """

    id: CommandId
    seq: Annotated[int, Meta(ge=1, le=2**53, description="the last event of the table wanted")]
    views: bool = False
    """Also send the views of that table (the odds of its open checks and tests, the combat
    turn...) as one ``views_at`` message carrying ``id``, once computed, after the snapshot."""


class ReportRequest(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="report",
                    forbid_unknown_fields=True, omit_defaults=True):
    """Ask for the post-game report as a page: of one game ``session``, or of the campaign.

    Not a command: it appends nothing and is answered by a ``report`` carrying ``id`` and the
    path of the page to open (good once, for a minute: no token in the URL).
    """

    id: CommandId
    session: Annotated[int, Meta(ge=1)] | None = None


ClientMessage = Union[Join, History, StateAt, ReportRequest, ListCampaigns, AnyCommand]


class _ServerMessage(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of the server's messages."""


class Welcome(_ServerMessage, frozen=True, tag="welcome"):
    """The join was accepted; events after ``since`` up to ``head`` follow, then live ones.

    ``head_hash`` is the chain hash of event ``head`` (empty for the admin session). A replay
    link (role ``replay``) gets no events: it reads its replay, events ``replay_from`` to
    ``head``, with ``state_at`` and ``history``.
    """

    role: MemberRole
    member: str
    campaign: str | None
    name: str
    system: RegisteredSystem | Literal[""]
    """The campaign's game system; empty for the admin session, which has no campaign."""
    head: int
    head_hash: str = ""
    replay_from: int = 0
    """A replay link's first event (0 for every other role)."""


class EventFrame(_ServerMessage, frozen=True, tag="event"):
    """One event of the log, with its sequence number, time, actor, command id and hash.

    ``hash`` is the event's link of the campaign's hash chain, as stored (empty from a
    server older than it); a client sends the last one back as ``since_hash`` on resuming.
    """

    seq: int
    at: str
    actor: str
    command: str
    event: FrameEvent
    hash: str = ""

    def recorded(self) -> Recorded:
        """The event as the projections fold it (the frame without its hash)."""
        return Recorded(seq=self.seq, at=self.at, actor=self.actor, command=self.command,
                        event=self.event)


class OutgoingEventFrame(_ServerMessage, frozen=True, tag="event"):
    """The server's encoding of :class:`EventFrame`: the stored payload is sent as it is."""

    seq: int
    at: str
    actor: str
    command: str
    event: msgspec.Raw
    hash: str = ""


class HistoryPage(_ServerMessage, frozen=True, tag="history"):
    """The answer to ``history``: events before ``before``, oldest first (empty: none left)."""

    id: str
    before: int
    events: list[EventFrame]


class OutgoingHistoryPage(_ServerMessage, frozen=True, tag="history"):
    """The server's encoding of :class:`HistoryPage`: each frame encoded as it is sent live."""

    id: str
    before: int
    events: list[msgspec.Raw]


class Revealed(_ServerMessage, frozen=True, tag="revealed"):
    """Private rolls whose epoch's seed was just revealed, sent to every member at the table
    once the reveal is durable: the events each member received sealed (``private_roll``),
    now whole, by ``seq``. A client replaces what it holds of those seqs with these."""

    events: list[EventFrame]


class OutgoingRevealed(_ServerMessage, frozen=True, tag="revealed"):
    """The server's encoding of :class:`Revealed`: each frame sent as it was encoded."""

    events: list[msgspec.Raw]


class Ack(_ServerMessage, frozen=True, tag="ack", omit_defaults=True):
    """A command was accepted; ``seqs`` are the events it appended (durable already).

    ``campaign``, ``member`` and ``token`` are sent only by the commands that issue them
    (``create_campaign``, ``invite``).
    """

    id: CommandId
    seqs: list[int]
    campaign: str | None = None
    member: str | None = None
    token: str | None = None


WireErrorCode = Annotated[str, Meta(extra_json_schema={"enum": list(get_args(ErrorCode))})]
"""An :data:`~poolhall.events.errors.ErrorCode` as it travels: the schema lists the codes a server
sends today, and a reader takes any string, so an older client told a code added later still
reads the error (and shows its message) instead of failing on the frame."""


class ErrorReply(_ServerMessage, frozen=True, tag="error"):
    """A message was refused and changed nothing; ``path`` is the field at fault.

    ``retry_after`` (seconds) comes with ``rate_limited``: the same message is accepted after
    that wait. Older clients ignore it (readers ignore unknown fields).
    """

    id: str | None
    code: WireErrorCode
    message: str
    path: str | None = None
    retry_after: float | None = None


ALL_VIEWS: tuple[type[ViewData], ...] = tuple(
    cls for part in SYSTEMS.values() for cls in part.views)
if TYPE_CHECKING:  # the union is built from the registry; statically, its base
    AnyView = ViewData
else:
    AnyView = Union[ALL_VIEWS]


class View(_ServerMessage, frozen=True, tag="view"):
    """Derived data the server computes for the table (the odds of an open check, ...).

    ``about`` names what it is about, unique at the table: ``check:<id>`` (a narrative
    check), ``test:<character>`` (a declared sr3 test), ``test:<number>`` (a d12 test),
    ``combat``, ``sheets``. A newer view about the same thing replaces the older one, so a
    client keeps the latest view by ``about``. ``data`` is typed, tagged by ``view``.
    """

    about: str
    data: AnyView


class ViewsAt(_ServerMessage, frozen=True, tag="views_at"):
    """The views of the table after event ``seq``, for a ``state_at`` that asked for them
    (``id``): what the standing views said at that moment (odds as the server computes them
    now for those very pools; a view whose odds were not computed says why in its note)."""

    id: str
    seq: int
    views: list[View]


class ReportReady(_ServerMessage, frozen=True, tag="report"):
    """The answer to ``report``: open ``path`` (on this server) for the report's page."""

    id: str
    path: str


ServerMessage = Union[Welcome, EventFrame, HistoryPage, Revealed, Ack, ErrorReply, View,
                      ReportReady, ViewsAt, CampaignList]

CLIENT_DECODER: StrictDecoder[Any] = StrictDecoder(ClientMessage)
"""Refuses unknown fields at any depth; the server's events, below, ignore them."""
SERVER_DECODER: msgspec.json.Decoder[Any] = msgspec.json.Decoder(ServerMessage)


CLOSE_CODES: dict[int, str] = {
    1000: "normal closure: the client closed, or the server answered a client's close",
    1001: "going away: the server is shutting down; reconnect and resume later",
    1008: "policy violation: no join within the join timeout, or the member was removed",
    1009: "message too big: a frame above 128 KiB",
    1011: "internal error: a bug in the server; reconnect and resume",
    1013: "try again later: the client fell too far behind (live frames or its catch-up); "
          "reconnect and resume from the last event it has",
}
"""The WebSocket close codes the server uses, and what the client should do."""


def json_schema(server: Any = ServerMessage) -> dict[str, Any]:
    """JSON Schema of every client and server message, generated from the types.

    The root is a ``oneOf`` a client message (``$defs/ClientMessage``) or a server message
    (``$defs/ServerMessage``); the close codes are in its description. The client's messages
    are described by their strict twins (:mod:`poolhall.events.strict`), so every object a client
    sends says ``additionalProperties: false`` (a value nested in a command is named
    ``<Name>Input``), while the events a server sends do not: older clients ignore what they
    do not know. ``server`` is the union of the server's messages: the snapshot, whose table
    is typed by the projections, adds itself
    (:func:`poolhall.projections.snapshot.protocol_schema`).
    """
    (client, server), components = msgspec.json.schema_components(
        [strict_type(ClientMessage), server], ref_template="#/$defs/{name}"
    )
    closes = "; ".join(f"{code} {meaning}" for code, meaning in CLOSE_CODES.items())
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "poolhall protocol",
        "description": "One JSON text frame holds one message, tagged by `type`: a client "
                       "message (join, then commands) or a server message. The server closes "
                       f"the WebSocket with: {closes}.",
        "oneOf": [{"$ref": "#/$defs/ClientMessage"}, {"$ref": "#/$defs/ServerMessage"}],
        "$defs": {**components, "ClientMessage": client, "ServerMessage": server},
    }
