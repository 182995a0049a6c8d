"""Sealed tokens: AES-GCM under a key derived from the retry key, bound to its command, and
the first format's seals answered as no longer recoverable."""

from __future__ import annotations

import base64
import logging
import shutil
from pathlib import Path

import pytest

from poolhall.events import core
from poolhall.events.sqlite_backend import SqliteLog
from poolhall.server.sealed_tokens import PREFIX, is_legacy, recall_issued, seal, unseal

KEY = "Zr4-" + "q" * 28
TOKEN = "ph_" + "t" * 43
LOGS = Path(__file__).parents[1] / "fixtures" / "logs"


def test_a_sealed_token_unseals_with_its_key_campaign_and_command() -> None:
    """The round trip gives the token back; two seals of one token differ (a fresh nonce)."""
    sealed = seal(TOKEN, KEY, "camp", "invite-1")
    assert sealed.startswith(PREFIX)
    assert TOKEN not in sealed
    assert not is_legacy(sealed)
    assert unseal(sealed, KEY, "camp", "invite-1") == TOKEN
    assert seal(TOKEN, KEY, "camp", "invite-1") != sealed


def test_a_seal_opens_for_no_other_key_campaign_or_command() -> None:
    """The campaign and command id are associated data: a seal moved to another command, or
    opened with another key, is refused."""
    sealed = seal(TOKEN, KEY, "camp", "invite-1")
    assert unseal(sealed, "b" * 22, "camp", "invite-1") is None
    assert unseal(sealed, KEY, "other", "invite-1") is None
    assert unseal(sealed, KEY, "camp", "invite-2") is None
    assert unseal(sealed, KEY, "cam", "pinvite-1") is None  # the separator counts


@pytest.mark.parametrize("where", [0, 5, 12, 30, -1])
def test_a_tampered_seal_is_refused(where: int) -> None:
    """A byte changed anywhere (nonce, ciphertext or tag) fails authentication: no token,
    not a garbled one."""
    sealed = seal(TOKEN, KEY, "camp", "invite-1")
    data = bytearray(base64.urlsafe_b64decode(sealed[len(PREFIX):]))
    data[where] ^= 0x01
    tampered = PREFIX + base64.urlsafe_b64encode(bytes(data)).decode()
    assert unseal(tampered, KEY, "camp", "invite-1") is None


@pytest.mark.parametrize("junk", [PREFIX, PREFIX + "!!!", PREFIX + "AAAA", PREFIX + "é"])
def test_a_malformed_seal_is_refused(junk: str) -> None:
    """Text that is not base64, or too short to hold a nonce and a tag, unseals to nothing."""
    assert unseal(junk, KEY, "camp", "invite-1") is None


def test_a_seal_of_the_first_format_is_answered_as_no_longer_recoverable(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """``block-layout.sqlite`` holds a seal written by poolhall 0.1 (an HMAC keystream, plain
    hex): a retry with its key gets the member it invited and no token, and the server says
    why in its log."""
    path = tmp_path / "old.sqlite"
    shutil.copyfile(LOGS / "block-layout.sqlite", path)
    log = SqliteLog(path)
    try:
        sealed = log.sealed_token("shadow", "shadow2")
        assert sealed is not None
        assert is_legacy(sealed)
        assert unseal(sealed, "retry-key", "shadow", "shadow2") is None
        record = log.command_records("shadow", ["shadow2"])["shadow2"]
        retry = core.Invite(id="shadow2", role="player", retry_key="retry-key")
        with caplog.at_level(logging.INFO, logger="poolhall.server.sealed_tokens"):
            assert recall_issued(log, "shadow", record, retry) == ("m1", None)
    finally:
        log.close()
    assert "sealed by an older poolhall and can no longer be recovered" in caplog.text
