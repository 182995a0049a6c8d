"""Bad input gets a clear error naming the field, appends nothing and disturbs no one."""

from __future__ import annotations

import json
from typing import Any

import pytest

from poolhall.events import core
from tests.conftest import Table
from tests.server.raw import RawPeer

BAD_FRAMES = [
    pytest.param("{not json", "malformed", "$", id="malformed-json"),
    pytest.param("[1, 2]", "malformed", "$", id="not-an-object"),
    pytest.param({"type": "summon_dragon", "id": "x1"}, "unknown_type", "$.type",
                 id="unknown-type"),
    pytest.param({"id": "x1", "expression": "1d6"}, "unknown_type", "$.type", id="no-type"),
    pytest.param({"type": "roll", "id": "x1"}, "invalid", "$.expression", id="missing-field"),
    pytest.param({"type": "roll", "id": "x1", "expression": "1d6", "luck": 7}, "invalid",
                 "$.luck", id="extra-field"),
    pytest.param({"type": "roll", "id": "x1", "expression": 6}, "invalid", "$.expression",
                 id="wrong-type"),
    pytest.param({"type": "roll", "id": "", "expression": "1d6"}, "invalid", "$.id",
                 id="empty-command-id"),
    pytest.param({"type": "roll", "id": "x1", "expression": "1000000d1000000"}, "invalid",
                 "$.expression", id="absurd-dice"),
    pytest.param({"type": "roll", "id": "x1", "expression": "101d6"}, "invalid",
                 "$.expression", id="too-many-dice"),
    pytest.param({"type": "roll", "id": "x1", "expression": "1d6+" * 40 + "1"}, "invalid",
                 "$.expression", id="expression-too-long"),
    pytest.param({"type": "roll", "id": "x1", "expression": "2d6", "reason": "r" * 500},
                 "invalid", "$.reason", id="out-of-range-length"),
    pytest.param({"type": "start_session", "id": "x1", "title": 5}, "invalid", "$.title",
                 id="wrong-type-title"),
    pytest.param({"type": "state_at", "id": "x1", "seq": 0}, "invalid", "$.seq",
                 id="state-at-seq-zero"),
    pytest.param({"type": "state_at", "id": "x1"}, "invalid", "$.seq",
                 id="state-at-no-seq"),
    pytest.param({"type": "create_character", "id": "x1", "character": "Bad Id!",
                  "name": "X", "stats": {"system": "d12"}}, "invalid", "$.character",
                 id="bad-slug"),
    pytest.param('{"type": "history", "id": "x1", "before": 3, "type": "roll"}',
                 "unknown_type", "$.type", id="type-given-twice"),
    pytest.param({"type": "roll", "id": "x1", "expression": "x" * 70000}, "too_large", "$",
                 id="oversized-frame"),
    pytest.param(json.dumps({"type": "roll", "id": "x1", "expression": "1d6",
                             "reason": "日" * 30000}, ensure_ascii=False),  # 90,000 bytes
                 "too_large", "$", id="oversized-in-bytes-not-characters"),
    pytest.param({"type": "create_character", "id": "x1", "character": "han", "name": "Han",
                  "stats": {"system": "d12", "ratings": {"CON": 2, "CHA": 1}, "junk": 1}},
                 "invalid", "$.stats.junk", id="extra-nested-field"),
    pytest.param({"type": "roll_pool", "id": "x1", "pool": {"ability": 1, "purple": 9}},
                 "invalid", "$.pool.purple", id="extra-field-in-a-pool"),
    pytest.param({"type": "create_character", "id": "x1", "character": "han", "name": "Han",
                  "stats": {"system": "d12", "ratings": {"CON": 2, "CHA": 1, "STR": 30}}},
                 "invalid", "$.stats.ratings.STR", id="out-of-range-map-value"),
    pytest.param({"type": "create_character", "id": "x1", "character": "han", "name": "Han",
                  "stats": {"system": "d12", "ratings": {"CON": 2, "CHA": 1, "str": 3}}},
                 "invalid", "$.stats.ratings.str", id="bad-map-key"),
    pytest.param({"type": "create_character", "id": "x1", "character": "han", "name": "Han",
                  "stats": {"system": "narrative", "skills": {
                      "Cool": {"characteristic": "presence"},
                      "Ranged (Light)": {"characteristic": "agility", "rank": 9}}}},
                 "invalid", '$.stats.skills["Ranged (Light)"].rank', id="deep-map-entry"),
    pytest.param('{"type": "create_character", "id": "x1", "character": "han", "name": "Han",'
                 ' "stats": {"system": "d12", "ratings": {"CON": 99, "CHA": 1}}, "pad": '
                 + "[" * 20000 + "]" * 20000 + "}", "invalid", "$.stats.ratings[...]",
                 id="map-error-beside-deep-nesting"),
]


async def _gm_peer(table: Table, campaign: str, token: str) -> RawPeer:
    """A raw GM connection that already has every event (joins at the head)."""
    peer = await RawPeer.open(table.url)
    assert table.server.log is not None
    welcome = await peer.join(token, campaign, since=table.server.log.head(campaign))
    assert welcome["type"] == "welcome"
    return peer


@pytest.mark.parametrize(("frame", "code", "path"), BAD_FRAMES)
async def test_bad_frame_is_refused_with_code_and_path(table: Table, frame: str | dict[str, Any],
                                                       code: str, path: str) -> None:
    """Each bad frame gets an error with a stable code and the path at fault, and no event."""
    campaign, gm = await table.create_campaign("d12")
    watcher = await table.invite(gm, "spectator")
    head = watcher.head
    peer = await _gm_peer(table, campaign, gm._token)
    await peer.send(frame)
    reply = await peer.recv()
    assert reply["type"] == "error"
    assert (reply["code"], reply["path"]) == (code, path)
    assert reply["message"]
    # the connection stays open and the next good command works, seen by the watcher first
    await peer.send({"type": "roll", "id": "good-1", "expression": "1d6"})
    frame_after = await peer.recv_until("ack")
    assert frame_after["seqs"] == [head + 1]
    await watcher.wait_for_seq(head + 1)
    assert [r.seq for r in watcher.drain()][-1] == head + 1
    assert table.server.log is not None
    assert table.server.log.head(campaign) == head + 1
    await peer.close()


async def test_error_reply_carries_the_command_id(table: Table) -> None:
    """A refused command's error names its id so the sender can match it."""
    campaign, gm = await table.create_campaign("d12")
    peer = await _gm_peer(table, campaign, gm._token)
    await peer.send({"type": "roll", "id": "mine-7", "expression": "2d7"})
    reply = await peer.recv()
    assert reply["id"] == "mine-7"
    assert reply["path"] == "$.expression"
    assert "d7" in reply["message"]


async def test_command_before_join_is_refused(table: Table) -> None:
    """A command before ``join`` is refused with ``not_joined``; joining afterwards works."""
    campaign, gm = await table.create_campaign("d12")
    peer = await RawPeer.open(table.url)
    await peer.send({"type": "roll", "id": "x1", "expression": "1d6"})
    reply = await peer.recv()
    assert (reply["code"], reply["path"]) == ("not_joined", "$.type")
    welcome = await peer.join(gm._token, campaign)
    assert welcome["type"] == "welcome"
    assert welcome["role"] == "gm"
    assert table.server.log is not None
    assert table.server.log.head(campaign) == gm.head


async def test_token_of_another_campaign_is_refused(table: Table) -> None:
    """A token opens only its own campaign."""
    first, gm1 = await table.create_campaign("d12", name="First")
    second, gm2 = await table.create_campaign("d12", name="Second")
    peer = await RawPeer.open(table.url)
    reply = await peer.join(gm1._token, second)
    assert (reply["type"], reply["code"], reply["path"]) == ("error", "unauthorized", "$.token")


async def test_unknown_token_and_campaign_are_refused(table: Table) -> None:
    """A made-up token or campaign gets a clear refusal, not a welcome."""
    campaign, gm = await table.create_campaign("d12")
    peer = await RawPeer.open(table.url)
    reply = await peer.join("ph_" + "0" * 40, campaign)
    assert (reply["code"], reply["path"]) == ("unauthorized", "$.token")
    reply = await peer.join(table.admin_token, "no-such-campaign")
    assert (reply["code"], reply["path"]) == ("not_found", "$.campaign")
    for token in (gm._token, "ph_" + "0" * 40):  # members too: no probing for campaign ids
        reply = await peer.join(token, "no-such-campaign")
        assert (reply["code"], reply["path"]) == ("unauthorized", "$.token")
        assert "no-such-campaign" in reply["message"]
    reply = await peer.join("short", campaign)
    assert (reply["code"], reply["path"]) == ("unauthorized", "$.token")
    reply = await peer.join(gm._token, None)
    assert (reply["code"], reply["path"]) == ("unauthorized", "$.campaign")


async def test_second_join_and_binary_frames_are_refused(table: Table) -> None:
    """A connection joins once; binary frames are not part of the protocol."""
    campaign, gm = await table.create_campaign("d12")
    peer = await _gm_peer(table, campaign, gm._token)
    await peer.send({"type": "join", "token": gm._token, "campaign": campaign})
    assert (await peer.recv())["code"] == "already_joined"
    await peer.send(b"\x00\x01")
    assert (await peer.recv())["code"] == "malformed"


async def test_since_past_the_head_is_refused(table: Table) -> None:
    """A client claiming events the campaign does not have is told its history diverged."""
    campaign, gm = await table.create_campaign("d12")
    peer = await RawPeer.open(table.url)
    reply = await peer.join(gm._token, campaign, since=999)
    assert (reply["code"], reply["path"]) == ("diverged", "$.since")
    assert "history ends at event 3" in reply["message"]


async def test_frame_over_the_websocket_limit_closes_the_connection(table: Table) -> None:
    """A frame over 128 KiB breaks the protocol: the server closes with 1009, others go on
    (one of 100 KiB is refused in words, and the connection stays)."""
    campaign, gm = await table.create_campaign("d12")
    peer = await _gm_peer(table, campaign, gm._token)
    assert table.server.log is not None
    head = table.server.log.head(campaign)
    await peer.send(json.dumps({"type": "roll", "id": "x", "expression": "a" * 100 * 1024}))
    assert (await peer.recv())["code"] == "too_large"
    await peer.send(json.dumps({"type": "roll", "id": "x", "expression": "a" * (2**17 + 10)}))
    await peer.connection.wait_closed()
    assert peer.connection.close_code == 1009
    ack = await gm.call(core.Roll, expression="1d4")
    assert ack.seqs == [head + 1]


def _sheet(**ratings: Any) -> dict[str, Any]:
    return {"type": "create_character", "id": "x1", "character": "ana", "name": "Ana",
            "stats": {"system": "d12", "ratings": {"CON": 2, "CHA": 1, **ratings}}}


STAT_NAME = ("is not a stat's name: capital letters A-Z, digits and _, starting with a letter, "
             "at most 12 characters (CON, CHA, STR)")


async def _refused_in_words(table: Table, frame: dict[str, Any], path: str, words: str) -> None:
    """The GM of a new d12 campaign sends ``frame``: refused ``invalid`` at ``path`` in
    exactly ``words``, and nothing appended."""
    campaign, gm = await table.create_campaign("d12")
    peer = await _gm_peer(table, campaign, gm._token)
    assert table.server.log is not None
    head = table.server.log.head(campaign)
    await peer.send(frame)
    reply = await peer.recv()
    assert (reply["type"], reply["code"], reply["path"]) == ("error", "invalid", path)
    assert reply["message"] == words
    assert table.server.log.head(campaign) == head
    await peer.close()


@pytest.mark.parametrize(("frame", "path", "words"), [
    pytest.param(_sheet(STR=2.5), "$.stats.ratings.STR",
                 "STR should be a whole number, not 2.5", id="fractional-rating"),
    pytest.param({"type": "roll_basic_test", "id": "x1", "dice": 2.5, "dt": 3}, "$.dice",
                 "the dice should be a whole number, not 2.5", id="fractional-dice"),
    pytest.param(_sheet(**{"wi l": 2}), '$.stats.ratings["wi l"]', f"'wi l' {STAT_NAME}",
                 id="stat-name-with-a-space"),
    pytest.param(_sheet(**{"ÄGI": 2}), '$.stats.ratings["ÄGI"]', f"'ÄGI' {STAT_NAME}",
                 id="stat-name-not-a-to-z"),
    pytest.param(_sheet(ABCDEFGHIJKLM=2), "$.stats.ratings.ABCDEFGHIJKLM",
                 f"'ABCDEFGHIJKLM' {STAT_NAME}", id="stat-name-too-long"),
    pytest.param(_sheet(STR=999), "$.stats.ratings.STR",
                 "STR is between 0 and 20 (a stat's rating: d12s it brings)", id="rating-999"),
    pytest.param({"type": "roll", "id": "x1", "expression": ""}, "$.expression",
                 "the expression is empty", id="empty-free-roll"),
    pytest.param({"type": "spend_result", "id": "x1", "check": "han-1", "symbol": "advantage",
                  "on": ""}, "$.on", "say what the symbols are spent on",
                 id="empty-spend-text"),  # it read "the on is empty"
])
async def test_game_night_refusals_read_as_words(table: Table, frame: dict[str, Any],
                                                 path: str, words: str) -> None:
    """What a game-night trial showed players ("not a number", a raw regex, a field's path
    for its name, "at least 1 characters") now reads as words; the path still names the
    field exactly, and nothing is appended."""
    await _refused_in_words(table, frame, path, words)


@pytest.mark.parametrize(("frame", "words"), [
    pytest.param({"type": "ROLL", "id": "x1", "expression": "1d6"},
                 "unknown message type: invalid value 'ROLL'; did you mean 'roll' or "
                 "'roll_pool'?", id="type-in-capitals"),
    pytest.param({"type": "summon_dragon", "id": "x1"},
                 "unknown message type: invalid value 'summon_dragon'", id="type-unknown"),
    pytest.param({"id": "x1", "expression": "1d6"}, "every message needs a `type`",
                 id="no-type"),  # was "unknown message type: object missing required field"
])
async def test_an_unknown_type_is_quoted_as_sent(table: Table, frame: dict[str, Any],
                                                 words: str) -> None:
    """"ROLL" was answered "invalid value 'roll'", naming a valid type as the invalid one: the
    value is quoted as the client sent it, with the type it may have meant."""
    campaign, gm = await table.create_campaign("d12")
    peer = await _gm_peer(table, campaign, gm._token)
    await peer.send(frame)
    reply = await peer.recv()
    assert (reply["type"], reply["code"], reply["path"]) == ("error", "unknown_type", "$.type")
    assert reply["message"] == words
    await peer.close()


def _import(**file: object) -> dict[str, Any]:
    return {"type": "import_character", "id": "x1",
            "file": {"format": "poolhall.character", "version": 1, "name": "Imp",
                     "stats": {"system": "d12", "ratings": {"CON": 2, "CHA": 1}}, **file}}


NEWER = "a character file of a version this poolhall does not read (it reads version 1)"


@pytest.mark.parametrize(("frame", "path", "words"), [
    pytest.param(_import(version=2), "$.file.version", NEWER, id="newer-version"),
    pytest.param(_import(version=10**30), "$.file.version", NEWER, id="huge-version"),
    pytest.param(_import(format="other.thing"), "$.file.format",
                 'not a poolhall character file: "format" must be "poolhall.character"',
                 id="another-format"),
    pytest.param(_import(version="1"), "$.file.version",
                 "the version should be a whole number, not text", id="version-as-text"),
])
async def test_a_character_file_of_another_version_says_so(
        table: Table, frame: dict[str, Any], path: str, words: str) -> None:
    """An import of a newer character file got msgspec's "invalid enum value 2" (and a huge
    version "not a fraction"): it is said in the words the docs and the CLI use, which the
    browser's Import shows as they are; nothing is appended."""
    await _refused_in_words(table, frame, path, words)
