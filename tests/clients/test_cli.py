"""The ``poolhall`` CLI as a user runs it, against a real ``poolhall serve`` process."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Table
from tests.serve_process import Watcher, free_port, poolhall, start_serve


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A ``poolhall serve`` process in its own directory, and its URL."""
    directory = tmp_path_factory.mktemp("cli")
    port = free_port()
    process = start_serve(directory / "poolhall.db", port)
    yield directory, f"ws://127.0.0.1:{port}"
    process.send_signal(signal.SIGTERM)
    process.wait(20)


def _json(*args: str, cwd: Path) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(poolhall(*args, "--json", cwd=cwd).stdout)
    return answer


def test_campaign_invite_roll_state_and_time_travel(served: tuple[Path, str]) -> None:
    """The tour of the README: create, invite, roll, and read the state at an earlier event."""
    cwd, url = served
    created = _json("campaign", "create", "Edge of the Empire", "--system", "d12", "--url", url,
                    cwd=cwd)
    campaign, gm_token = created["campaign"], created["token"]
    assert campaign == "edge-of-the-empire"
    assert gm_token.startswith("ph_")
    invited = _json("invite", campaign, "--role", "player", "--character", "han",
                    "--url", url, "--token", gm_token, cwd=cwd)
    rolled = _json("roll", campaign, "3d6+2", "--url", url, "--token", gm_token, cwd=cwd)
    [event] = rolled["events"]
    faces = event["event"]["terms"][0]["faces"]
    assert len(faces) == 3
    assert event["event"]["total"] == sum(faces) + 2
    before_roll = rolled["ack"]["seqs"][0] - 1
    past = _json("state", campaign, "--at", str(before_roll), "--url", url, cwd=cwd)
    now = _json("state", campaign, "--url", url, "--token", invited["token"], cwd=cwd)
    assert past["rolls"] == []
    assert len(now["rolls"]) == 1
    assert "token_hash" not in json.dumps(now)
    human = poolhall("state", campaign, "--url", url, cwd=cwd).stdout
    assert "Edge of the Empire" in human
    assert "3d6+2" in human


def test_refusals_exit_non_zero_with_a_plain_message(served: tuple[Path, str]) -> None:
    """A refused command prints why and exits 1; an unreadable expression exits 2."""
    cwd, url = served
    created = _json("campaign", "create", "Refusals", "--system", "d12", "--url", url, cwd=cwd)
    spectator = _json("invite", created["campaign"], "--role", "spectator", "--url", url,
                      cwd=cwd)
    refused = poolhall("roll", created["campaign"], "1d6", "--url", url, "--token",
                       spectator["token"], cwd=cwd, check=False)
    assert refused.returncode == 1
    assert "spectator may not roll" in refused.stderr
    absurd = poolhall("roll", created["campaign"], "1000000d1000000", "--url", url,
                      cwd=cwd, check=False)
    assert absurd.returncode == 2
    assert "not a die" in absurd.stderr


def test_unreachable_server_is_reported_plainly(tmp_path: Path) -> None:
    """No server: one line saying so, exit 3, no traceback."""
    result = poolhall("roll", "x", "1d6", "--url", f"ws://127.0.0.1:{free_port()}",
                      "--admin-token", "ph_" + "x" * 30, cwd=tmp_path, check=False)
    assert result.returncode == 3
    assert "poolhall serve" in result.stderr
    assert "Traceback" not in result.stderr


def test_verify_reports_tampering_and_schema_prints_every_message(served: tuple[Path, str],
                                                                  tmp_path: Path) -> None:
    """``verify`` passes a clean copy and fails an edited one; ``schema`` is valid JSON."""
    cwd, url = served
    _json("campaign", "create", "Verify", "--system", "d12", "--url", url, cwd=cwd)
    copy = tmp_path / "copy.db"
    with sqlite3.connect(cwd / "poolhall.db") as source, sqlite3.connect(copy) as target:
        source.backup(target)
    assert "every hash chain holds" in poolhall("verify", str(copy), cwd=tmp_path).stdout
    with sqlite3.connect(copy) as connection:
        connection.execute("DROP TRIGGER events_no_update")
        connection.execute("UPDATE events SET actor = 'mallory' WHERE seq = 1")
    broken = poolhall("verify", str(copy), "--json", cwd=tmp_path, check=False)
    assert broken.returncode == 1
    assert json.loads(broken.stdout)["problems"]
    with sqlite3.connect(copy) as connection:  # verify only reads: the evidence stays as found
        triggers = {name for (name,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    assert "events_no_update" not in triggers
    schema = json.loads(poolhall("schema", cwd=tmp_path).stdout)
    assert {"Join", "Ack", "ErrorReply", "EventFrame", "Roll"} <= set(schema["$defs"])


def test_verify_leaves_a_copy_as_found_and_reads_a_served_log_whole(
        served: tuple[Path, str], tmp_path: Path) -> None:
    """A copy with no -wal or -shm is verified without either appearing beside it; the
    served log, whose last events are in its -wal alone, is verified to its last event."""
    cwd, url = served
    created = _json("campaign", "create", "Evidence", "--system", "d12", "--url", url, cwd=cwd)
    copy = tmp_path / "evidence.db"
    with sqlite3.connect(cwd / "poolhall.db") as source, sqlite3.connect(copy) as target:
        source.backup(target)
    beside = [copy.with_name(copy.name + suffix) for suffix in ("-wal", "-shm")]
    before = (copy.read_bytes(), copy.stat().st_mtime_ns)
    assert not any(map(Path.exists, beside))
    assert json.loads(poolhall("verify", str(copy), "--json", cwd=tmp_path).stdout
                      )["problems"] == []
    assert not any(map(Path.exists, beside)), "verify left files beside the evidence"
    assert (copy.read_bytes(), copy.stat().st_mtime_ns) == before

    served_db = cwd / "poolhall.db"
    held = sqlite3.connect(f"file:{served_db}?mode=ro", uri=True, isolation_level=None)
    try:  # an open read keeps the checkpoint from copying later events into the file
        held.execute("BEGIN")
        held.execute("SELECT count(*) FROM events").fetchone()
        for _ in range(3):
            _json("roll", created["campaign"], "1d6", "--url", url, cwd=cwd)
        with sqlite3.connect(f"file:{served_db}?mode=ro", uri=True) as now:
            (total,) = now.execute("SELECT count(*) FROM events").fetchone()
        verified = json.loads(poolhall("verify", str(served_db), "--json", cwd=cwd).stdout)
    finally:
        held.close()
    assert (verified["checked"], verified["problems"]) == (total, [])


def test_refused_create_and_invite_say_why_without_a_traceback(served: tuple[Path, str]) -> None:
    """A campaign id already taken, or a spectator inviting, exits 1 with one plain line."""
    cwd, url = served
    _json("campaign", "create", "Taken", "--system", "d12", "--id", "taken", "--url", url,
          cwd=cwd)
    again = poolhall("campaign", "create", "Taken", "--system", "d12", "--id", "taken",
                     "--url", url, cwd=cwd, check=False)
    assert again.returncode == 1
    assert "campaign 'taken' exists" in again.stderr
    assert "Traceback" not in again.stderr
    spectator = _json("invite", "taken", "--role", "spectator", "--url", url, cwd=cwd)
    refused = poolhall("invite", "taken", "--role", "player", "--url", url,
                       "--token", spectator["token"], cwd=cwd, check=False)
    assert refused.returncode == 1
    assert "only the GM may invite" in refused.stderr


def test_verify_refuses_what_is_not_a_log(tmp_path: Path) -> None:
    """A missing file, a text file or another SQLite database: one plain line, exit 2."""
    (tmp_path / "notes.txt").write_text("not a database\n")
    with sqlite3.connect(tmp_path / "other.db") as connection:
        connection.execute("CREATE TABLE t (x)")
    for path, said in (("missing.db", "no database at"), ("notes.txt", "not a SQLite database"),
                       ("other.db", "not a poolhall log")):
        result = poolhall("verify", path, cwd=tmp_path, check=False)
        assert result.returncode == 2, result.stderr
        assert said in result.stderr, result.stderr
        assert "Traceback" not in result.stderr
    assert not (tmp_path / "missing.db").exists()


def test_serve_refuses_a_database_already_served_and_a_bad_port(served: tuple[Path, str]) -> None:
    """A second server on the same file, or on a port in use, exits 1 saying why."""
    cwd, url = served
    second = poolhall("serve", "--port", "0", cwd=cwd, check=False)
    assert second.returncode == 1
    assert "already open for writing" in second.stderr
    port = url.rsplit(":", 1)[1]
    taken = poolhall("serve", "--db", "elsewhere.db", "--port", port, cwd=cwd, check=False)
    assert taken.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}: another program (perhaps another poolhall " \
        f"serve) is using port {port}; choose another with --port, e.g. --port {int(port) + 1}" \
        in " ".join(taken.stderr.split()), taken.stderr
    bad = poolhall("serve", "--port", "99999", cwd=cwd, check=False)
    assert bad.returncode == 2
    assert "out of range" in bad.stderr
    for result in (second, taken, bad):
        assert "Traceback" not in result.stderr
    for result in (second, taken):  # a start that failed never reads as a server that ran
        assert "stopped" not in result.stderr, result.stderr
    assert "ok" in poolhall("verify", cwd=cwd).stdout  # the served log is untouched


def test_text_users_type_prints_as_typed(served: tuple[Path, str]) -> None:
    """Square brackets in a reason or a name are text, not terminal markup: nothing breaks."""
    cwd, url = served
    created = _json("campaign", "create", "Brackets", "--system", "d12", "--url", url, cwd=cwd)
    campaign = created["campaign"]
    rolled = poolhall("roll", campaign, "2d6", "--reason", "oops [/x] closing [red]r[/red]",
                      "--url", url, cwd=cwd)
    assert "oops [/x] closing [red]r[/red]" in rolled.stdout
    poolhall("send", campaign, '{"type": "create_character", "character": "bob", "name": '
             '"Bob [/x]", "stats": {"system": "d12", "ratings": {"CON": 2, "CHA": 1}}}',
             "--url", url, cwd=cwd)
    state = poolhall("state", campaign, "--url", url, cwd=cwd)
    assert "Bob [/x]" in state.stdout
    assert "Traceback" not in state.stderr


def test_mistakes_at_the_prompt_get_one_plain_line(served: tuple[Path, str], tmp_path: Path
                                                   ) -> None:
    """A URL without ws://, a wrong admin token, a short member token, event 0: each one
    line on stderr (or a JSON error with --json), the right exit code, no traceback."""
    cwd, url = served
    created = _json("campaign", "create", "Mistakes", "--system", "d12", "--url", url, cwd=cwd)
    campaign = created["campaign"]
    cases = [
        (("roll", campaign, "1d6", "--url", url.replace("ws://", "http://")), 2,
         "is not a websocket address"),
        (("campaign", "create", "X", "--system", "d12", "--url", url, "--admin-token",
          "ph_" + "0" * 40), 1, "the admin token was not accepted"),
        (("roll", campaign, "1d6", "--url", url, "--token", "ph_short"), 1,
         "this token does not open"),
        (("state", campaign, "--at", "0", "--url", url), 2, "events are numbered from 1"),
    ]
    for args, code, said in cases:
        result = poolhall(*args, cwd=cwd, check=False)
        assert result.returncode == code, (args, result.stderr)
        assert said in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stderr
        assert result.stderr.count("\n") <= 2
    as_json = poolhall("roll", campaign, "1d6", "--url", url, "--token", "ph_short", "--json",
                       cwd=tmp_path, check=False)
    assert as_json.returncode == 1
    assert json.loads(as_json.stdout)["error"] == "unauthorized"
    nested = poolhall("send", campaign, '{"type": "create_character", "character": "han", '
                      '"name": "Han", "stats": {"system": "d12", "ratings": {"CON": 2, '
                      '"CHA": 1}, "junk": 1}}', "--url", url, "--json", cwd=cwd, check=False)
    assert nested.returncode == 2
    assert json.loads(nested.stdout) == {"error": "invalid", "path": "$.stats.junk",
                                         "message": "object contains unknown field `junk`"}
    assert json.loads(poolhall("schema", "--json", cwd=tmp_path).stdout)["$defs"]


async def test_state_at_reads_the_whole_history(table: Table, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """``state --at`` shows the table at SEQ, however long the campaign: the server rebuilds
    it (``state_at``), so the client's buffer for unread events plays no part."""
    from poolhall.clients import client as client_module
    from poolhall.clients.cli import main
    from poolhall.events import core

    monkeypatch.setattr(client_module, "EVENT_BUFFER", 5)
    campaign, gm = await table.create_campaign("d12")
    for n in range(12):
        ack = await gm.call(core.Roll, expression="1d6", reason=f"roll {n}")
    argv = ["state", campaign, "--at", str(ack.seqs[0] - 2), "--url", table.url, "--json",
            "--admin-token", table.admin_token]
    assert await asyncio.to_thread(main, argv) == 0
    past = json.loads(capsys.readouterr().out)
    assert [r["reason"] for r in past["rolls"]] == [f"roll {n}" for n in range(10)]


def test_watch_follows_the_table_through_a_server_restart(tmp_path: Path) -> None:
    """``poolhall watch`` prints events and the odds as they change, says when it is
    reconnecting (and why, with ``--json`` too) and when it is back, and carries on after the
    server restarts."""
    port = free_port()
    url = f"ws://127.0.0.1:{port}"
    server = start_serve(tmp_path / "poolhall.db", port)
    watcher: Watcher | None = None
    as_json: Watcher | None = None
    try:  # from here on a failure still stops the server (it outlived a failed create)
        created = _json("campaign", "create", "Live", "--system", "d12", "--url", url,
                        cwd=tmp_path)
        watcher = Watcher(created["campaign"], "--url", url, cwd=tmp_path)
        as_json = Watcher(created["campaign"], "--url", url, "--json", cwd=tmp_path,
                          merge_stderr=False)
        wait_for = watcher.wait_for
        wait_for("-- live")
        as_json.wait_for('"campaign_created"')
        poolhall("roll", created["campaign"], "1d6", "--reason", "before", "--url", url,
                 cwd=tmp_path)
        wait_for("before")
        poolhall("send", created["campaign"], json.dumps({
            "type": "create_character", "character": "han", "name": "Han",
            "stats": {"system": "d12", "ratings": {"CON": 3, "CHA": 2, "STR": 4}}}),
            "--url", url, cwd=tmp_path)
        poolhall("d12", "call", created["campaign"], "han", "STR", "--dt", "7", "--url", url,
                 cwd=tmp_path)
        wait_for("view test 1 (basic, han), round 1: 4d12 at DT 7: success")
        server.send_signal(signal.SIGTERM)
        server.wait(20)
        assert "(the server closed the connection: it is stopping or restarting; have " \
            "event 6)" in wait_for("reconnecting")  # its close said so: it did not vanish
        assert json.loads(as_json.wait_for('"reconnecting"')) == {
            "connection": "reconnecting", "head": 6,
            "reason": "the server closed the connection: it is stopping or restarting"}
        server = start_serve(tmp_path / "poolhall.db", port)
        wait_for("back (resumed at event 6)")
        assert json.loads(as_json.wait_for('"back"')) == {"connection": "back", "head": 6}
        poolhall("roll", created["campaign"], "1d6", "--reason", "after", "--url", url,
                 cwd=tmp_path)
        wait_for("after")
    finally:
        for running in (watcher, as_json):
            if running is not None:
                running.stop()
        server.send_signal(signal.SIGTERM)
        server.wait(20)


async def test_state_takes_the_servers_snapshot_not_the_log(table: Table,
                                                            capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    """``state`` without --at prints the table from the snapshot: the latest 10 free rolls at
    the head, not a fold of every event (which would list all 12)."""
    from poolhall.clients.cli import main
    from poolhall.events import core

    campaign, gm = await table.create_campaign("d12")
    for n in range(12):
        ack = await gm.call(core.Roll, expression="1d6", reason=f"roll {n}")
    argv = ["state", campaign, "--url", table.url, "--json", "--admin-token", table.admin_token]
    assert await asyncio.to_thread(main, argv) == 0
    now = json.loads(capsys.readouterr().out)
    assert now["head"] == ack.seqs[-1]
    assert [r["reason"] for r in now["rolls"]] == [f"roll {n}" for n in range(2, 12)]
    assert "token_hash" not in json.dumps(now)
    typed = now["snapshot"]  # the protocol's own message, as the server sent it
    assert (typed["type"], typed["seq"], typed["campaign"]) == ("snapshot", ack.seqs[-1], campaign)
    assert [r["reason"] for r in typed["rolls"]] == [f"roll {n}" for n in range(2, 12)]


def test_assign_gives_a_player_characters_after_the_invite(served: tuple[Path, str]) -> None:
    """``poolhall assign`` sets the characters a player plays (the whole list); with none
    named it asks for ``--none``; a spectator cannot be given one. The log names members by
    their names, as who acted and in the words."""
    cwd, url = served
    created = _json("campaign", "create", "Late Sheets", "--system", "d12", "--url", url,
                    cwd=cwd)
    campaign = created["campaign"]
    mira = _json("invite", campaign, "--role", "player", "--name", "Mira", "--url", url,
                 cwd=cwd)
    _json("invite", campaign, "--role", "spectator", "--name", "Wren", "--url", url, cwd=cwd)
    said = poolhall("assign", campaign, "mira", "ana", "bram", "--url", url, cwd=cwd).stdout
    assert "mira now plays ana, bram" in said

    def plays() -> list[str]:
        state = _json("state", campaign, "--url", url, cwd=cwd)
        return list(state["members"]["mira"]["characters"])

    assert plays() == ["ana", "bram"]
    unsaid = poolhall("assign", campaign, "mira", "--url", url, cwd=cwd, check=False)
    assert unsaid.returncode == 2
    assert "--none" in unsaid.stderr
    assert plays() == ["ana", "bram"]
    assert "mira now plays no character" in poolhall("assign", campaign, "mira", "--none",
                                                     "--url", url, cwd=cwd).stdout
    assert plays() == []
    spectator = poolhall("assign", campaign, "wren", "ana", "--url", url, cwd=cwd, check=False)
    assert spectator.returncode == 1
    assert "Wren is a spectator: only players are given characters" in spectator.stderr
    poolhall("roll", campaign, "1d6", "--url", url, "--token", mira["token"], cwd=cwd)
    log = poolhall("state", campaign, "--url", url, cwd=cwd).stdout  # members by their names
    assert "admin Mira now plays ana, bram" in log
    assert "admin Mira now plays no character" in log
    assert "Mira rolled 1d6" in log


def test_character_retire_takes_a_character_off_the_table(served: tuple[Path, str]) -> None:
    """``character retire`` (GM): ``--json`` prints the ack; ``state`` no longer lists the
    character nor gives it to its player, ``state --at`` before still does; a second retire
    is refused by name with exit status 1."""
    cwd, url = served
    campaign = _json("campaign", "create", "Last Stand", "--system", "d12", "--url", url,
                     cwd=cwd)["campaign"]
    poolhall("send", campaign, '{"type": "create_character", "character": "sam-shadow", '
             '"name": "Sam Shadow", "stats": {"system": "d12", "ratings": {"CON": 2, '
             '"CHA": 1}}}', "--url", url, cwd=cwd)
    _json("invite", campaign, "--role", "player", "--name", "Ivy", "--character", "sam-shadow",
          "--url", url, cwd=cwd)
    retired = _json("character", "retire", campaign, "sam-shadow", "--reason", "died",
                    "--url", url, cwd=cwd)
    first = retired["seqs"][0]
    now = _json("state", campaign, "--url", url, cwd=cwd)
    assert now["characters"] == []
    assert now["retired"] == {"sam-shadow": "Sam Shadow"}
    assert now["members"]["ivy"]["characters"] == []
    assert any("retired character Sam Shadow (sam-shadow) (died)" in line["text"]
               for line in now["log"])
    before = _json("state", campaign, "--at", str(first - 1), "--url", url, cwd=cwd)
    assert [c["name"] for c in before["characters"]] == ["Sam Shadow"]
    assert before["members"]["ivy"]["characters"] == ["sam-shadow"]
    again = poolhall("character", "retire", campaign, "sam-shadow", "--url", url, cwd=cwd,
                     check=False)
    assert again.returncode == 1
    assert "Sam Shadow is retired already" in again.stderr
    for argv in (("character", "export", campaign, "sam-shadow"),
                 ("roll", campaign, "1d6", "--character", "sam-shadow")):
        gone = poolhall(*argv, "--url", url, cwd=cwd, check=False)
        assert gone.returncode != 0, argv
        assert "Sam Shadow is retired: no longer at this table" in gone.stderr, argv
    said = poolhall("character", "retire", campaign, "nobody", "--url", url, cwd=cwd,
                    check=False)
    assert "no character 'nobody' in this campaign" in said.stderr
