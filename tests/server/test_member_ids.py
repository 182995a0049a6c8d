"""Ids made from names: readable for Latin names with marks, unique, and never empty.

Campaign, member and imported character ids are made by the server from the names people type
(``server/rules/core.py``); the page makes a character's id from its name the same way
(``clients/web/slug.js``, checked in ``tests/web/test_narrative_web.py``)."""

from __future__ import annotations

import pytest

from poolhall.events import core
from poolhall.server.rules.core import slugify
from tests.conftest import Table


@pytest.mark.parametrize(("name", "expected"), [
    ("Han Solo", "han-solo"),
    ("Ørjan", "orjan"),               # ø does not split into o and a mark: the table has it
    ("Émile Zola", "emile-zola"),     # É splits: the mark is dropped
    ("Straße", "strasse"),
    ("Łukasz Ðorđe", "lukasz-dorde"),
    ("ﬁne ①", "fine-1"),              # compatibility forms become plain letters and digits
    ("李", "player"),                  # no Latin letter or digit: the fallback
    ("--Zoë--", "zoe"),
])
def test_a_name_becomes_a_readable_id(name: str, expected: str) -> None:
    """Latin letters keep their base letter, other scripts give the fallback."""
    assert slugify(name, set(), "player") == expected


def test_an_id_cut_to_its_length_does_not_end_in_a_dash() -> None:
    """The cut at 32 characters falls after a separator: the dash goes too."""
    assert slugify("a" * 31 + " b", set(), "x") == "a" * 31


async def test_players_named_in_other_scripts_get_distinct_ids(table: Table) -> None:
    """Two players invited as "李" and one as "Ørjan" are ``player``, ``player-2`` and
    ``orjan``; the second "李" is listed as "李 2", so the two can be told apart."""
    _, gm = await table.create_campaign("d12")
    acks = [await gm.call(core.Invite, role="player", name=name) for name in ("李", "李", "Ørjan")]
    members = [ack.member for ack in acks]
    assert members == ["player", "player-2", "orjan"]
    assert [gm.state.members[str(member)].name for member in members] == ["李", "李 2", "Ørjan"]


async def test_each_new_gm_link_is_a_member_of_its_own_name(table: Table) -> None:
    """The owner's "Another GM link" invites a GM named "GM" each time: the table listed "GM"
    twice and the GM could not tell which old link to remove. They are "GM 2" and "GM 3"; a
    name free again (its member removed) is given again; an 80-character name stays 80."""
    _, gm = await table.create_campaign("d12")
    acks = [await gm.call(core.Invite, role="gm", name="GM") for _ in range(2)]
    assert [gm.state.members[str(ack.member)].name for ack in acks] == ["GM 2", "GM 3"]
    await gm.call(core.RemoveMember, member=str(acks[0].member))
    again = await gm.call(core.Invite, role="gm", name="GM")
    assert gm.state.members[str(again.member)].name == "GM 2"
    long = [await gm.call(core.Invite, role="player", name="X" * 80) for _ in range(2)]
    assert gm.state.members[str(long[1].member)].name == "X" * 78 + " 2"
