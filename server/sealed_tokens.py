"""Answering a retried invite with the token it issued, without the server keeping tokens.

Tokens are random (:func:`server.auth.new_token`), so a retry cannot recompute one, and the
log keeps only hashes. A token-issuing command (``invite``, ``create_campaign``) may carry a
``retry_key``: a secret the client draws for that one command and sends with each try. The
server stores the issued token *sealed* under it, beside the log's events but in no event
(events are broadcast to the table), and forgets the key. A retry with the same id and key
unseals it: the same token. Anyone holding a copy of the database (and the admin token) holds
only ciphertext under keys that were never stored.

The seal is a one-time pad from HMAC-SHA256: block ``i`` of the keystream is
``HMAC(key=retry_key, msg="poolhall-seal" \\x1f campaign \\x1f command_id \\x1f i)``, XORed
with the token's bytes. Each (campaign, command id) is sealed once, so no keystream is ever
reused; a wrong key unseals to bytes whose hash is not the member's, and is answered like no
key at all: the member, without the token.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from events import core
from events.log import CommandRecord, ServerLog, to_recorded
from server.auth import hash_token, tokens_match

__all__ = ["recall_issued", "seal", "sealed_for", "unseal"]


def _keystream(retry_key: str, campaign: str, command_id: str, length: int) -> bytes:
    blocks = []
    for counter in range((length + 31) // 32):
        message = f"poolhall-seal\x1f{campaign}\x1f{command_id}\x1f{counter}".encode()
        blocks.append(hmac.new(retry_key.encode(), message, hashlib.sha256).digest())
    return b"".join(blocks)[:length]


def seal(token: str, retry_key: str, campaign: str, command_id: str) -> str:
    """The token sealed under the retry key of the command that issued it (hex)."""
    data = token.encode()
    stream = _keystream(retry_key, campaign, command_id, len(data))
    return bytes(a ^ b for a, b in zip(data, stream, strict=True)).hex()


def unseal(sealed: str, retry_key: str, campaign: str, command_id: str) -> str | None:
    """The token :func:`seal` sealed, or ``None`` if ``sealed`` cannot be read as one.

    A wrong key gives a wrong string (or none); the caller checks it against the hash the
    log keeps.
    """
    try:
        data = bytes.fromhex(sealed)
    except ValueError:
        return None
    stream = _keystream(retry_key, campaign, command_id, len(data))
    try:
        return bytes(a ^ b for a, b in zip(data, stream, strict=True)).decode("ascii")
    except UnicodeDecodeError:
        return None


def sealed_for(command: Any, campaign: str, token: str | None) -> str | None:
    """What to store for a command that issued ``token``: sealed under its retry key, or
    nothing if it issued none or brought no key."""
    retry_key = getattr(command, "retry_key", None)
    if token is None or retry_key is None:
        return None
    return seal(token, retry_key, campaign, command.id)


def recall_issued(log: ServerLog, campaign: str, record: CommandRecord,
                  command: Any) -> tuple[str | None, str | None]:
    """The member a command invited and, given its retry key, the token it issued.

    Reads the command's own events and its sealed token from the log (blocking: run it off
    the event loop; retries are rare). ``(None, None)`` if the command invited no one;
    ``(member, None)`` if it did but the retry brings no key, or not the one it was sealed
    under.
    """
    invited: core.MemberInvited | core.ReplayShared | None = None
    for row in log.rows(campaign, record.first_seq - 1, record.last_seq):
        event = to_recorded(row).event
        if isinstance(event, core.MemberInvited | core.ReplayShared):
            invited = event
    if invited is None:
        return None, None
    retry_key = getattr(command, "retry_key", None)
    sealed = log.sealed_token(campaign, command.id) if retry_key is not None else None
    token = unseal(sealed, retry_key, campaign, command.id) if sealed and retry_key else None
    if token is None or not tokens_match(hash_token(token), invited.token_hash):
        return invited.member, None
    return invited.member, token
