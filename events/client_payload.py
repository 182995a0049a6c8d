"""An event's payload as a client receives it: the log's payload without its secrets.

The log keeps every field of every event: a ``member_invited`` or ``replay_shared`` event
holds the SHA-256 of the token it issued (``token_hash``), which the server needs to find a
member by their token after a restart and which the hash chain covers. No client needs it, and
every client of a campaign (every player, spectator and replay link) would otherwise read every
other member's token hash, in live events, catch-ups, history pages, snapshots and replays: a
hash of a random token cannot be reversed, but it is a credential's fingerprint all the same
and it identifies a token across copies of the log.

Every event a client receives becomes a frame in one of two places, and both take the payload
from :func:`client_payload`:

- the live broadcast, encoded by the hub once per event;
- every read of the log (catch-up pages, history, a snapshot's recent events), framed from the
  stored rows by :mod:`poolhall.server.event_frames`.

The fields withheld are :data:`WITHHELD`: a field of that name in any event type, found at
import from the registered events, so an event type that comes to carry a token hash is
covered without a change here. Readers give such a field a default (``""``).
"""

from __future__ import annotations

import msgspec

from poolhall.events.codec import ALL_EVENTS, event_tag

__all__ = ["WITHHELD", "WITHHOLDING", "client_payload"]

WITHHELD: tuple[str, ...] = ("token_hash",)
"""Fields of the log's events no client ever receives."""

WITHHOLDING: dict[str, tuple[str, ...]] = {
    event_tag(cls): fields
    for cls in ALL_EVENTS
    if (fields := tuple(name for name in cls.__struct_fields__ if name in WITHHELD))
}
"""The event tags that carry a withheld field, and which fields (computed at import)."""

_DECODER = msgspec.json.Decoder(dict[str, msgspec.Raw])
_ENCODER = msgspec.json.Encoder()


def client_payload(tag: str, payload: bytes | str) -> bytes | str:
    """``payload`` (the stored JSON of an event of type ``tag``) without its withheld fields;
    the very bytes for an event that has none (all but a few: no decoding)."""
    fields = WITHHOLDING.get(tag)
    if fields is None:
        return payload
    members = _DECODER.decode(payload)
    for name in fields:
        members.pop(name, None)
    return _ENCODER.encode(members)
