"""Answering a retried invite with the token it issued, without the server keeping tokens.

Tokens are random (:func:`poolhall.server.auth.new_token`), so a retry cannot recompute one, and the
log keeps only hashes. A token-issuing command (``invite``, ``create_campaign``) may carry a
``retry_key``: a secret the client draws for that one command and sends with each try. The
server stores the issued token *sealed* under it, beside the log's events but in no event
(events are broadcast to the table), and forgets the key. A retry with the same id and key
unseals it: the same token. Anyone holding a copy of the database (and the admin token) holds
only ciphertext under keys that were never stored.

The seal is AES-256-GCM from the ``cryptography`` library (an authenticated cipher, so a seal
changed in the database, or opened with another key, or moved to another command, is refused
rather than read as garbage). Its key is HKDF-SHA256 of the retry key (at least 22 characters
of ``A-Za-z0-9_-``, about 130 bits: a key to stretch, not a password to slow down); the nonce is
96 random bits; the associated data is the campaign and the command id, so a seal answers only
the command it was made for. Stored as ``v2:`` and the URL-safe base64 of nonce and ciphertext.

**Seals written before this format** (plain hex, no prefix: an HMAC-SHA256 keystream XORed with
the token, poolhall 0.1) are not read any more: a retry that finds one is answered like a retry
without its key - the member it invited and no token - and the server logs that the token can
no longer be recovered. The clients already say what to do then (remove the member and invite
again). We chose this over keeping the old reader because no migration is possible (the table
is append-only and the keys were never stored, so nothing can re-seal them) and the window it
would serve is tiny: a retry is a lost ack resent within seconds or minutes, and only one whose
first try reached a server older than this one is affected. Keeping home-made cryptography
alive for that window was not worth its review cost.
"""

from __future__ import annotations

import base64
import binascii
import logging
import os
from typing import TYPE_CHECKING, Any

from poolhall.events import core
from poolhall.events.log import CommandRecord, ServerLog, to_recorded
from poolhall.server.auth import hash_token, tokens_match

if TYPE_CHECKING:  # imported with the first seal or unseal: ~7 ms a server start otherwise
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

__all__ = ["PREFIX", "is_legacy", "recall_issued", "seal", "sealed_for", "unseal"]

logger = logging.getLogger(__name__)

PREFIX = "v2:"
"""How a seal of the current format begins (the first format, unprefixed hex, was 1)."""

_INFO = b"poolhall sealed token v2"
"""HKDF's context: a key derived for sealing tokens is good for nothing else."""
_NONCE_BYTES = 12


def _cipher(retry_key: str) -> AESGCM:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_INFO).derive(
        retry_key.encode())
    return AESGCM(key)


def _associated(campaign: str, command_id: str) -> bytes:
    # Unit separator between the two: neither may contain it (both are slugs or command ids).
    return f"{campaign}\x1f{command_id}".encode()


def seal(token: str, retry_key: str, campaign: str, command_id: str) -> str:
    """The token sealed under the retry key of the command that issued it."""
    nonce = os.urandom(_NONCE_BYTES)
    sealed = _cipher(retry_key).encrypt(nonce, token.encode(),
                                        _associated(campaign, command_id))
    return PREFIX + base64.urlsafe_b64encode(nonce + sealed).decode("ascii")


def is_legacy(sealed: str) -> bool:
    """Whether ``sealed`` was written in the first format, which is no longer read."""
    return not sealed.startswith(PREFIX)


def unseal(sealed: str, retry_key: str, campaign: str, command_id: str) -> str | None:
    """The token :func:`seal` sealed, or ``None``: a wrong key, another campaign or command,
    a changed seal, or a seal of the first format (see the module's docstring)."""
    if is_legacy(sealed):
        return None
    try:
        data = base64.urlsafe_b64decode(sealed[len(PREFIX):].encode("ascii"))
    except (binascii.Error, UnicodeEncodeError):
        return None
    if len(data) <= _NONCE_BYTES:
        return None
    from cryptography.exceptions import InvalidTag

    try:
        opened = _cipher(retry_key).decrypt(data[:_NONCE_BYTES], data[_NONCE_BYTES:],
                                            _associated(campaign, command_id))
    except InvalidTag:
        return None
    try:
        return opened.decode("ascii")
    except UnicodeDecodeError:  # authentic but not a token: nothing poolhall sealed
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
    ``(member, None)`` if it did but the retry brings no key, not the one it was sealed
    under, or the seal is of the first format.
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
    if sealed and is_legacy(sealed):
        logger.info("the token %s issued in %s was sealed by an older poolhall and can no"
                    " longer be recovered: the retry gets the member without it (remove the"
                    " member and invite again)", command.id, campaign)
        return invited.member, None
    token = unseal(sealed, retry_key, campaign, command.id) if sealed and retry_key else None
    if token is None or not tokens_match(hash_token(token), invited.token_hash):
        return invited.member, None
    return invited.member, token
