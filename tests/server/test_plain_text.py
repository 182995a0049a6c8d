"""Text at the table is text: control characters are refused in every command, with the path
of the field, and a frame holding half a surrogate pair is told so in plain words."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import Table
from tests.server.raw import RawPeer

CONTROL_FRAMES = [
    pytest.param({"type": "roll", "id": "x1", "expression": "1d6", "reason": "\x1b[2J"},
                 "$.reason", "U+001B", id="escape-in-a-reason"),
    pytest.param({"type": "invite", "id": "x1", "role": "player",
                  "name": "Mallory\r\n12:00:00 #9 gm rolls 3d6: 18"}, "$.name", "U+000D",
                 id="fake-log-line-in-a-name"),
    pytest.param({"type": "start_session", "id": "x1", "title": "\u202eevil"}, "$.title",
                 "U+202E", id="bidi-override-in-a-title"),
    pytest.param({"type": "create_character", "id": "x1", "character": "han",
                  "name": "Han\x07", "stats": {"system": "d12", "ratings": {"CON": 2, "CHA": 1}}},
                 "$.name", "U+0007", id="bell-in-a-character-name"),
    pytest.param({"type": "interpret_threshold_result", "id": "x1", "test": 1,
                  "text": "ok\x00"}, "$.text", "U+0000", id="nul-in-a-note"),
    pytest.param({"type": "roll", "id": "a\x9b2J", "expression": "1d6"}, "$.id", "U+009B",
                 id="raw-c1-control-in-a-command-id"),
    pytest.param({"type": "invite", "id": "x1", "role": "player", "name": "Admin\u200b"},
                 "$.name", "U+200B", id="zero-width-space-in-a-look-alike-name"),
    pytest.param({"type": "roll", "id": "x1", "expression": "1d6", "reason": "\ufeffhi"},
                 "$.reason", "U+FEFF", id="byte-order-mark-in-a-reason"),
]


def test_joiners_and_emoji_stay_allowed() -> None:
    """The zero-width joiner (family emoji), non-joiner (Persian) and tag characters (the flag
    of Scotland) are text: only invisible *format* characters are refused."""
    from poolhall.events.plain_text import CONTROL_CHARACTERS

    for text in ("\U0001f468\u200d\U0001f469\u200d\U0001f467",
                 "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
                 "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"):
        assert CONTROL_CHARACTERS.search(text) is None


@pytest.mark.parametrize(("frame", "path", "found"), CONTROL_FRAMES)
async def test_control_characters_in_text_are_refused(table: Table, frame: dict[str, Any],
                                                      path: str, found: str) -> None:
    """A control character in any text field is ``invalid`` at that field, appends nothing,
    and the table plays on."""
    campaign, gm = await table.create_campaign("d12")
    assert table.server.log is not None
    head = table.server.log.head(campaign)
    peer = await RawPeer.open(table.url)
    await peer.join(gm._token, campaign, since=head)
    await peer.send(json.dumps(frame, ensure_ascii=False))
    reply = await peer.recv()
    assert (reply["type"], reply["code"], reply["path"]) == ("error", "invalid", path)
    assert reply["message"] == f"control characters are not allowed in text (found {found})"
    await peer.send({"type": "roll", "id": "good", "expression": "1d6", "reason": "ok: ÉÀ 日本"})
    assert (await peer.recv_until("ack"))["seqs"] == [head + 1]
    assert table.server.log.head(campaign) == head + 1
    await peer.close()


async def test_a_lone_surrogate_is_named_not_called_truncated(table: Table) -> None:
    """``\\ud800`` alone in a frame is refused as half a surrogate pair, not as a frame that
    was cut short."""
    campaign, gm = await table.create_campaign("d12")
    peer = await RawPeer.open(table.url)
    assert table.server.log is not None
    await peer.join(gm._token, campaign, since=table.server.log.head(campaign))
    await peer.send('{"type": "roll", "id": "x1", "expression": "1d6", "reason": "\\ud800"}')
    reply = await peer.recv()
    assert (reply["code"], reply["path"]) == ("malformed", "$")
    assert reply["message"] == ("not valid JSON: \\ud800 is half of a utf-16 surrogate pair,"
                                " not a character")
    await peer.close()
