"""One-shot CLI commands whose answer is lost on the way: re-sent with their id once
reconnected (one roll, one invite, their dice and token shown), else one line that the command
may have been applied and how to find out (exit 5); and a command sent again with an id
already applied shows what it did. A real ``poolhall serve`` and a real relay between it and
the CLI (:mod:`tests.clients.cutting_relay`)."""

from __future__ import annotations

import json
import os
import shlex
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.clients.cutting_relay import CuttingRelay, Fault, Way
from tests.serve_process import ROOT, free_port, poolhall, start_serve


@dataclass
class Served:
    """A ``poolhall serve`` process with a d12 campaign, and a relay to it."""

    cwd: Path
    url: str
    campaign: str
    gm: str
    relay: CuttingRelay

    def rows(self, marker: str) -> list[tuple[int, str, str]]:
        """The log's events (seq, type, command id) whose payload holds ``marker``."""
        with sqlite3.connect(f"file:{self.cwd / 'poolhall.db'}?mode=ro", uri=True) as db:
            return [(seq, kind, command) for seq, kind, command in db.execute(
                "SELECT seq, type, command_id FROM events WHERE campaign = ? AND payload LIKE ?"
                " ORDER BY seq", (self.campaign, f"%{marker}%"))]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    directory = tmp_path_factory.mktemp("cli-cuts")
    port = free_port()
    process = start_serve(directory / "poolhall.db", port)
    url = f"ws://127.0.0.1:{port}"
    created = json.loads(poolhall("campaign", "create", "Cuts", "--system", "d12", "--url", url,
                                  "--json", cwd=directory).stdout)
    relay = CuttingRelay(port)
    try:
        yield Served(directory, url, created["campaign"], created["token"], relay)
    finally:
        relay.close()
        process.terminate()
        process.wait(20)


def _ids_sent(relay: CuttingRelay, marker: str) -> list[str]:
    return [json.loads(text)["id"] for text in relay.seen("up") if marker in text]


@pytest.mark.parametrize(("way", "match", "fault"), [
    ("down", '"type":"ack"', "cut_before"),  # the ack never comes
    ("down", '"type":"ack"', "midframe"),  # half of it does
    ("up", '"type":"roll"', "cut_after"),  # the roll reached the server, then the link broke
])
def test_a_roll_whose_ack_is_lost_is_sent_again_and_shows_its_dice(
        served: Served, way: Way, match: str, fault: Fault) -> None:
    """The CLI reconnects, sends the roll again with its id, gets the original ack and prints
    the dice, exit 0: one roll in the log, where it said "server unreachable" (exit 3) and a
    user ran it again, rolling twice."""
    marker = f"cut-{fault}"
    fired = served.relay.arm(way, match, fault)
    result = poolhall("roll", served.campaign, "1d6", "--reason", marker, "--url",
                      served.relay.url, "--token", served.gm, cwd=served.cwd, check=False)
    assert fired.is_set()
    assert result.returncode == 0, result.stderr
    ((seq, kind, command),) = served.rows(marker)
    assert kind == "dice_rolled"
    assert _ids_sent(served.relay, marker) == [command, command]
    assert f"#{seq} " in result.stdout, result.stdout
    assert result.stdout.count(marker) == 1, result.stdout


def test_an_invite_whose_ack_is_lost_shows_its_token(served: Served) -> None:
    """The invite goes again with its id and retry key: the token the first try issued is
    shown, and it lets Zed in; one member invited, where a user's second try invited zed-2
    and the first token was lost."""
    served.relay.arm("down", '"type":"ack"', "cut_before")
    result = poolhall("invite", served.campaign, "--role", "spectator", "--name", "Zed",
                      "--json", "--url", served.relay.url, "--token", served.gm,
                      cwd=served.cwd, check=False)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    invited = json.loads(result.stdout)
    assert invited["token"]
    sent = [json.loads(text) for text in served.relay.seen("up") if '"type":"invite"' in text]
    assert len(sent) == 2
    assert sent[0] == sent[1]
    assert sent[0]["retry_key"]
    assert [kind for _, kind, _ in served.rows('"Zed"')] == ["member_invited"]
    joined = poolhall("state", served.campaign, "--json", "--url", served.url, "--token",
                      invited["token"], cwd=served.cwd)
    assert joined.returncode == 0


def test_a_timeout_that_is_no_number_of_seconds_is_refused_in_words(tmp_path: Path) -> None:
    """``--timeout`` takes seconds, more than 0: anything else is a usage error naming it."""
    for given in ("0", "-3", "soon", "nan"):
        result = poolhall("roll", "edge", "1d6", "--timeout", given, cwd=tmp_path, check=False)
        assert result.returncode == 2, result.stderr
        assert f"argument --timeout: {given!r} is not a number of seconds more than 0" \
            in result.stderr, result.stderr


def _cli(served: Served, *args: str) -> subprocess.Popen[str]:
    """``poolhall ARGS`` started, as :func:`tests.serve_process.poolhall` runs it."""
    return subprocess.Popen([sys.executable, "-m", "poolhall", *args], cwd=served.cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "400"})


NO_ANSWER_TIMEOUT = 10
"""``--timeout`` for a command whose link dies without a word and never comes back: the
client's check of the link (a ping 5 s after the command, no pong in 4 s) drops it 9 s in and
its reconnect is refused, all before the timeout, a second later; the CLI has no shorter
check (a user's link is not a test's)."""
LINK_LOST = "the connection was lost and is not back"
"""What the CLI's line says of the link once that check has given it up."""


def test_a_roll_that_gets_no_answer_says_it_may_have_been_applied(served: Served) -> None:
    """The link dies without a word right after the roll went up, and no connection gets
    through again: after ``--timeout`` the CLI says in one line that the roll may have been
    applied, its command id and the ``poolhall send`` that finds out, and exits 5 (not 3:
    "unreachable", after which a user rolls again); ``--json`` says the same. Never a
    traceback. The ``poolhall send`` it gives shows the roll, once."""
    fired = [served.relay.arm("up", '"type":"roll"', "dead") for _ in range(2)]
    running = [_cli(served, "roll", served.campaign, "1d8", "--reason", "unconfirmed",
                    "--timeout", str(NO_ANSWER_TIMEOUT), "--url", served.relay.url,
                    "--token", served.gm,
                    *more) for more in ((), ("--json",))]
    deadline = time.monotonic() + 30
    while not all(event.is_set() for event in fired) and time.monotonic() < deadline:
        time.sleep(0.05)
    served.relay.refuse = True  # both rolls went up: no link comes back
    try:
        (text, text_error), (as_json, json_error) = (process.communicate(timeout=60)
                                                    for process in running)
    finally:
        served.relay.refuse = False
    assert [process.returncode for process in running] == [5, 5], (text_error, json_error)
    assert "Traceback" not in text_error + json_error
    assert text_error.count("\n") == 1, text_error
    assert text_error.startswith("error: the roll may have been applied: no answer came ("), \
        text_error
    assert LINK_LOST in text_error, text_error  # found dead, and no link came back
    error = json.loads(as_json)
    assert error["error"] == "unconfirmed"
    assert error["command"]["type"] == "roll"
    assert error["command"]["id"] == error["id"]
    assert LINK_LOST in error["message"], error
    assert set(_ids_sent(served.relay, "unconfirmed")) == {error["id"], _id_in(text_error)}
    again = text_error.rstrip("\n").partition("with the same id: ")[2]
    assert again.startswith(f"poolhall send {served.campaign} '"), text_error
    shown = json.loads(poolhall(*shlex.split(again)[1:], "--url", served.url, "--token",
                                served.gm, "--json", cwd=served.cwd).stdout)
    ((seq, _, _),) = [row for row in served.rows("unconfirmed")
                      if row[2] == _id_in(text_error)]
    assert seq in shown["ack"]["seqs"]  # the roll's own answer: it was applied, once
    assert len(served.rows("unconfirmed")) == 2


def _id_in(line: str) -> str:
    return line.partition("its command id is ")[2].partition(";")[0]


def test_a_command_sent_again_with_its_id_shows_what_it_did(served: Served) -> None:
    """``poolhall send`` of a roll, then again with the same id (a player unsure whether it
    went through): the second prints the same dice, read from the log, not "ok (no event)";
    with ``--json`` its events are the ack's."""
    command = json.dumps({"type": "roll", "id": "sent-twice-0001", "expression": "1d4",
                          "reason": "twice"})
    base = ("send", served.campaign, command, "--url", served.url, "--token", served.gm)
    first = poolhall(*base, cwd=served.cwd)
    second = poolhall(*base, cwd=served.cwd)
    assert "twice" in first.stdout, first.stdout
    assert second.stdout == first.stdout
    as_json = json.loads(poolhall(*base, "--json", cwd=served.cwd).stdout)
    assert [event["seq"] for event in as_json["events"]] == as_json["ack"]["seqs"]
    assert len(served.rows("twice")) == 1


def test_a_campaign_create_that_gets_no_answer_can_be_sent_again(served: Served) -> None:
    """``campaign create`` whose link dies after the command went up: exit 5, and its line
    gives ``poolhall send - '...'`` (the admin session has no campaign to name). Run as given,
    that prints the campaign the first try made and its GM token, which lets the GM in: one
    campaign, where before the line pointed to the Python client."""
    fired = served.relay.arm("up", '"type":"create_campaign"', "dead")
    running = _cli(served, "campaign", "create", "Lost Ack", "--system", "sr3", "--timeout",
                   str(NO_ANSWER_TIMEOUT), "--url", served.relay.url)
    deadline = time.monotonic() + 30
    while not fired.is_set() and time.monotonic() < deadline:
        time.sleep(0.05)
    served.relay.refuse = True
    try:
        _, said = running.communicate(timeout=60)
    finally:
        served.relay.refuse = False
    assert running.returncode == 5, said
    assert LINK_LOST in said, said  # found dead, and no link came back
    again = said.rstrip("\n").partition("with the same id and retry key: ")[2]
    assert again.startswith("poolhall send - '"), said
    shown = json.loads(poolhall(*shlex.split(again)[1:], "--url", served.url, "--json",
                                cwd=served.cwd).stdout)
    assert shown["campaign"] == "lost-ack"
    assert shown["token"]
    joined = poolhall("state", "lost-ack", "--json", "--url", served.url, "--token",
                      shown["token"], cwd=served.cwd)
    assert json.loads(joined.stdout)["system"] == "sr3"
    with sqlite3.connect(f"file:{served.cwd / 'poolhall.db'}?mode=ro", uri=True) as db:
        made = db.execute("SELECT count(*) FROM events WHERE type = 'campaign_created' AND "
                          "payload LIKE '%Lost Ack%'").fetchone()[0]
    assert made == 1


@pytest.mark.parametrize(("campaign", "command", "words"), [
    ("-", '{"type": "start_session", "title": "x"}',
     "- (no campaign) sends only create_campaign, not start_session: name the campaign"),
    ("edge", '{"type": "create_campaign", "name": "x", "system": "d12"}',
     "create_campaign is sent without a campaign: give - as the campaign"),
])
def test_send_refuses_a_command_and_campaign_that_do_not_go_together(
        tmp_path: Path, campaign: str, command: str, words: str) -> None:
    """``-`` is the admin session's, for ``create_campaign`` only: either mistake is a usage
    error in words, before anything is sent (no server here)."""
    result = poolhall("send", campaign, command, cwd=tmp_path, check=False)
    assert result.returncode == 2, result.stderr
    assert words in result.stderr, result.stderr
