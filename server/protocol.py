"""Reading client frames strictly: one typed decoder, errors that name the field at fault.

:func:`read_frame` turns a text frame into a :class:`poolhall.events.messages.Join` or a command, or
raises :class:`poolhall.events.errors.Rejected` with a stable code and the JSON path msgspec
reports:

==================  ==========================================================
code                when
==================  ==========================================================
``malformed``       not JSON, not an object, or a binary frame
``too_large``       a frame over :data:`MAX_FRAME_BYTES`
``unknown_type``    ``type`` missing or not a message this server knows
``invalid``         a field is missing, unknown, of the wrong type or out of range,
                    or text holds a control character (:mod:`poolhall.events.plain_text`)
==================  ==========================================================
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from poolhall.events.errors import Rejected
from poolhall.events.messages import CLIENT_DECODER, Join
from poolhall.events.plain_text import check_plain_text
from poolhall.events.wire_errors import rejection_from

__all__ = ["MAX_FRAME_BYTES", "RECEIVE_QUEUE", "WEBSOCKET_MAX_SIZE", "command_id_of", "read_frame",
           "rejection_from"]

MAX_FRAME_BYTES = 64 * 1024

WEBSOCKET_MAX_SIZE = 2 * MAX_FRAME_BYTES
"""The largest frame websockets reads at all; a larger one closes the connection (1009). A
frame between :data:`MAX_FRAME_BYTES` and this is refused in words (``too_large``), so a
client that sent one (a character file too big) says why instead of reconnecting and
re-sending it. It was 1 MiB: with a queue of 64 frames, an outsider held 64 MiB a
connection while its refusals paused the reading (4 GiB at 64 connections an address)."""

RECEIVE_QUEUE = 8
"""Frames websockets buffers a connection before it stops reading its socket (the kernel's
buffer and TCP then hold the sender back): at most 1 MiB a connection of
:data:`WEBSOCKET_MAX_SIZE` frames, whatever the sender sends while its handler pauses. A
client's commands in flight arrive together (the benchmarks keep 8, a member may keep 16):
a queue shorter than such a burst stopped and restarted the reading at each one."""

_MAY_HOLD_CONTROL = re.compile(
    r"\\(?:[bfnrt]|u00[0189][0-9a-fA-F]|u007[fF]|u00[aA][dD]|u061[cC]|u180[eE]"
    r"|u200[bBeEfF]|u202[89a-eA-E]|u206[0-46-9a-fA-F]|u[fF][eE][fF][fF]|u[fF]{3}[9abAB])"
    "|[\x7f-\x9f\u00ad\u061c\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064"
    "\u2066-\u206f\ufeff\ufff9-\ufffb]")
"""A frame holds a control character only as one of these JSON escapes or raw characters
(JSON forbids raw C0 in strings). A frame with none of them, nearly every frame (an escaped
letter such as an e with an accent is not one), skips the walk over its strings; a false
alarm (an escaped backslash before an ``n``) only costs the walk."""

_MAY_SHOW_NOTHING = re.compile(r'[^\x00-\x7f]|\\u|[:\[,{]\s*"(?:\s|\\[bfnrt])*"')
"""A frame may hold a string that shows nothing (:func:`poolhall.events.plain_text.visible`) only if
it holds a character beyond ASCII (raw or as a ``\\u`` escape) or a string of white space
alone (or an empty one): any other frame skips the walk for that too."""


class _Loose(msgspec.Struct):
    """Just enough of a frame to find its command id for the error reply: a string, so that
    an ``id`` of any other kind fails at once (typed ``Any``, an ``id`` of 70,000 objects was
    built whole, 18 ms of the event loop for a frame that was refused anyway)."""

    id: str | None = None


_LOOSE = msgspec.json.Decoder(_Loose)


def command_id_of(frame: str | bytes) -> str | None:
    """The ``id`` of a frame that failed to decode, if one can be read, for the error reply:
    never of a frame over :data:`MAX_FRAME_BYTES` (refused unread)."""
    if len(frame) > MAX_FRAME_BYTES:
        return None
    try:
        found = _LOOSE.decode(frame).id
    except (msgspec.DecodeError, RecursionError):  # a ValidationError is a DecodeError
        return None
    return found if found is not None and len(found) <= 64 else None


_JOIN_DECODER = msgspec.json.Decoder(Join)


def read_join(frame: str | bytes) -> Join:
    """Decode the frame of a connection that has not joined: a :class:`Join`, or a
    :class:`Rejected` found without decoding the frame as any other message.

    Before a join the sender is anyone at all: a frame that is not a join is refused
    ``not_joined`` at its ``type``, never decoded (nor its faults named) as a command, so an
    outsider's large malformed commands cost a small decode each, not a command's worth.
    """
    frame = _checked_text(frame)
    try:
        return _JOIN_DECODER.decode(frame)
    except msgspec.ValidationError as error:
        if "`$.type`" in str(error):
            raise Rejected("not_joined", "send join with your token first", "$.type") from None
        raise rejection_from(error) from None
    except msgspec.DecodeError as error:
        raise rejection_from(error, frame) from None
    except RecursionError:
        raise Rejected("malformed", "json nested too deeply", "$") from None


def _checked_text(frame: str | bytes) -> str:
    """The frame, if it is text within the size limit; else :class:`Rejected`."""
    if isinstance(frame, bytes):
        raise Rejected("malformed", "binary frames are not part of the protocol; send text", "$")
    if len(frame) * 4 > MAX_FRAME_BYTES and len(frame.encode()) > MAX_FRAME_BYTES:
        raise Rejected("too_large", f"frame over {MAX_FRAME_BYTES} bytes", "$")
    return frame


def read_frame(frame: str | bytes) -> Any:
    """Decode one client frame into a message Struct, or raise :class:`Rejected`."""
    frame = _checked_text(frame)
    try:
        message = CLIENT_DECODER.decode(frame)
    except (msgspec.ValidationError, msgspec.DecodeError) as error:
        raise rejection_from(error, frame) from None
    except RecursionError:
        raise Rejected("malformed", "json nested too deeply", "$") from None
    except UnicodeEncodeError:  # a str holding lone surrogates (no websocket frame can)
        raise Rejected("malformed", "not valid JSON: the text holds a lone surrogate, which"
                       " is not a character", "$") from None
    if not isinstance(message, Join) and (_MAY_HOLD_CONTROL.search(frame)
                                          or _MAY_SHOW_NOTHING.search(frame)):
        check_plain_text(message)
    return message
