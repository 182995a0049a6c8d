"""Names, titles and reasons need a visible character: U+200D, U+E0041, U+3164 or spaces
alone are refused ``invalid`` at their field, in plain words naming it; mixed with ordinary
text they are text like any other."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import Table
from tests.server.raw import RawPeer

BLANKS = {"zwj": "\u200d", "tag-a": "\U000e0041", "hangul-filler": "\u3164",
          "spaces": "   ", "all-three": "\u3164\u200d\U000e0041 \u3164"}

FIELDS = [
    ("invite", {"role": "player", "name": None}, "$.name", "name"),
    ("create_character", {"character": "han", "name": None,
                          "stats": {"system": "d12", "ratings": {"CON": 2, "CHA": 1}}},
     "$.name", "name"),
    ("start_session", {"title": None}, "$.title", "title"),
    ("roll", {"expression": "1d6", "reason": None}, "$.reason", "reason"),
    ("share_replay", {"name": None}, "$.name", "name"),
    ("remove_member", {"member": "gm", "reason": None}, "$.reason", "reason"),
]


def _frame(kind: str, fields: dict[str, Any], text: str) -> dict[str, Any]:
    return {"type": kind, "id": "blank-0001",
            **{key: text if value is None else value for key, value in fields.items()}}


@pytest.mark.parametrize("blank", BLANKS.values(), ids=list(BLANKS))
@pytest.mark.parametrize(("kind", "fields", "path", "field"), FIELDS,
                         ids=[f"{kind}-{field}" for kind, _, _, field in FIELDS])
async def test_text_that_shows_nothing_is_refused_at_its_field(
        table: Table, blank: str, kind: str, fields: dict[str, Any], path: str,
        field: str) -> None:
    """Each blank text, in each field, raw or escaped: ``invalid`` at the field, named in the
    message with the code points it holds, and nothing appended."""
    campaign, gm = await table.create_campaign("d12")
    assert table.server.log is not None
    head = table.server.log.head(campaign)
    peer = await RawPeer.open(table.url)
    await peer.join(gm._token, campaign, since=head)
    for ascii_only in (True, False):
        await peer.send(json.dumps(_frame(kind, fields, blank), ensure_ascii=ascii_only))
        reply = await peer.recv()
        assert (reply["type"], reply["code"], reply["path"]) == ("error", "invalid", path)
        assert reply["message"].startswith(f"{field} shows nothing: it needs at least one "
                                           "visible character (it holds only U+")
        assert f"U+{ord(blank[0]):04X}" in reply["message"]
    assert table.server.log.head(campaign) == head
    await peer.close()


async def test_a_campaign_named_with_nothing_visible_is_refused(table: Table) -> None:
    """The admin's create_campaign: its name is held to the same rule."""
    peer = await RawPeer.open(table.url)
    await peer.join(table.admin_token, None)
    for blank in BLANKS.values():
        await peer.send(json.dumps({"type": "create_campaign", "id": "blank-0002",
                                    "name": blank, "system": "d12"}, ensure_ascii=False))
        reply = await peer.recv()
        assert (reply["code"], reply["path"]) == ("invalid", "$.name"), reply
    assert table.server.log is not None
    assert table.server.log.campaigns() == []
    await peer.close()


MIXED = ["\u3164Ann", "Ann\u200d", "\U0001f468\u200d\U0001f469\u200d\U0001f467",
         "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
         " Ann ", "\u0645\u06cc\u200c\u062e", "e\u0301"]


async def test_those_characters_among_visible_ones_are_ordinary_text(table: Table) -> None:
    """With a visible character beside them (a name, an emoji family, the flag of Scotland,
    an accent on a letter), the same code points are accepted and stored as sent."""
    campaign, gm = await table.create_campaign("d12")
    peer = await RawPeer.open(table.url)
    assert table.server.log is not None
    await peer.join(gm._token, campaign, since=table.server.log.head(campaign))
    for number, text in enumerate(MIXED):
        await peer.send(json.dumps({"type": "invite", "id": f"mixed-{number:04d}",
                                    "role": "spectator", "name": text}, ensure_ascii=False))
        ack = await peer.recv_until("ack")
        assert ack["id"] == f"mixed-{number:04d}"
    await peer.close()
    state = (await table.connect(campaign, gm._token)).state
    assert set(MIXED) <= {member.name for member in state.members.values()}


def test_visible_is_about_what_shows() -> None:
    """A lone combining mark, the blank Braille pattern, a variation selector: nothing
    shows; a letter, a digit, a punctuation mark or an emoji does."""
    from poolhall.events.plain_text import visible

    assert not any(visible(text) for text in ("\u0301", "\u2800", "\ufe0f", "\u2028", ""))
    assert all(visible(text) for text in ("a", "7", ".", "\U0001f600", "\u65e5"))
