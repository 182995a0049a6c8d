"""Which events issue a token, and the token hash such an event carries: what each backend reads
as it appends, to keep its table of which campaign each token was issued for
(:class:`~poolhall.events.log_contract.IssuedTokens`).

Plain data with no event type imported, so that opening a log (``poolhall migrate``) imports
none; a test holds :data:`ISSUING` equal to the event types that carry a ``token_hash``.
"""

from __future__ import annotations

import msgspec

__all__ = ["ISSUING", "issued_hash"]

ISSUING = frozenset({"member_invited", "replay_shared"})
"""The event types that issue a token (each carries its ``token_hash``): the tags of
:class:`~poolhall.events.core.MemberInvited` and :class:`~poolhall.events.core.ReplayShared`."""


class _TokenHash(msgspec.Struct):
    token_hash: str


_DECODER = msgspec.json.Decoder(_TokenHash)


def issued_hash(payload: bytes) -> str:
    """The token hash an issuing event's JSON payload carries (see :data:`ISSUING`)."""
    return _DECODER.decode(payload).token_hash
