"""``poolhall`` starts fast because it imports what a command needs when it needs it: no
``--help`` loads rich, asyncio or websockets, and the offline commands load no client. Checked
by what a fresh interpreter has imported, never by a time (tests/bench/cli_start.py times it)."""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest

from poolhall.clients import cli
from poolhall.clients.systems import CLI_HOOKS
from poolhall.events.sqlite_backend import SqliteLog
from tests.conftest import Table

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("rich", "asyncio", "websockets")

_PROBE = """
import contextlib, io, json, sys
from poolhall.clients.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        code = main(sys.argv[1:])
    except SystemExit as done:  # --help
        code = done.code
print(json.dumps([code, sorted(m for m in sys.modules if m.split(".")[0] in {heavy})]))
"""


def _imported(*argv: str) -> tuple[int, list[str]]:
    """Run ``poolhall ARGV`` in a fresh interpreter: its exit code and the heavy modules it
    imported."""
    probe = _PROBE.format(heavy=set(HEAVY + ("msgspec", "poolhall", "difflib")))
    done = subprocess.run([sys.executable, "-c", probe, *argv], cwd=ROOT, check=True,
                          capture_output=True, text=True)
    code, modules = json.loads(done.stdout)
    return code, modules


@pytest.mark.parametrize("command", ["", *cli._HELP])
def test_no_help_imports_rich_asyncio_or_websockets(command: str) -> None:
    """``poolhall --help`` and every ``poolhall CMD --help`` import none of the three."""
    code, modules = _imported(*([command] if command else []), "--help")
    assert code == 0
    assert [m for m in modules if m.split(".")[0] in HEAVY] == []


def test_difflib_is_imported_for_a_misspelt_command_only() -> None:
    """"Did you mean" imports difflib when a word is misspelt, not for every command."""
    assert "difflib" not in _imported("d12-odds", "4", "--dt", "6")[1]
    code, modules = _imported("d12-od", "4")
    assert code == 2
    assert "difflib" in modules


def test_a_command_builds_only_its_own_parser() -> None:
    """``state --help`` imports no other command's module (nor the client's message types)."""
    _, modules = _imported("state", "--help")
    others = {"clients.report_cli", "clients.replay_cli", "clients.serve_cli",
              "clients.d12_cli", "clients.table_cli", "events.messages"}
    assert not {f"poolhall.{name}" for name in others} & set(modules)


def test_offline_commands_load_no_client() -> None:
    """``schema`` prints the protocol's schema without the client, rich or asyncio, and
    without generating it: no msgspec, no message type (it prints the shipped file that
    ``tests/clients/test_schema_file.py`` holds equal to the generated schema)."""
    code, modules = _imported("schema")
    assert code == 0
    assert "poolhall.clients.client" not in modules
    assert [m for m in modules if m.split(".")[0] in (*HEAVY, "msgspec")] == []
    assert not [m for m in modules if m.startswith(("poolhall.projections",
                                                    "poolhall.events.messages"))]


def test_migrate_and_verify_asked_for_json_import_no_rich(tmp_path: Path) -> None:
    """``migrate --json`` and ``verify --json`` print JSON without importing rich,
    ``migrate`` opens the file without importing any event type, and ``verify`` of a file with
    no stored snapshot imports no fold (nor the stored snapshots' fingerprint)."""
    db = str(tmp_path / "log.db")
    SqliteLog(db).close()  # migrate brings a log up to date: it creates none, takes no empty file
    code, modules = _imported("migrate", "--db", db, "--json")
    assert code == 0
    assert [m for m in modules if m.split(".")[0] in HEAVY] == []
    assert "poolhall.events.core" not in modules
    code, modules = _imported("verify", db, "--json")
    assert code == 0
    assert [m for m in modules if m.split(".")[0] in HEAVY] == []
    assert not {"poolhall.server.stored_snapshots", "poolhall.projections.campaign"} & set(modules)


async def test_commands_that_talk_to_a_server_asked_for_json_import_no_rich(
        table: Table) -> None:
    """Creating a campaign, inviting, rolling, sending, reading the report and replaying with
    ``--json`` print what the server answered without importing rich (its import was a
    tenth of such a command's wait), each ending with status 0. (``state`` still imports it:
    each system's table hooks build its data and its lines for people in one pass.)"""
    campaign, gm = await table.create_campaign("d12")
    server = ["--url", table.url, "--json"]
    commands = [
        ["campaign", "create", "Second", "--system", "d12", "--admin-token", table.admin_token],
        ["invite", campaign, "--role", "spectator", "--token", gm._token],
        ["roll", campaign, "2d6", "--token", gm._token],
        ["send", campaign, '{"type": "roll", "expression": "1d6"}', "--token", gm._token],
        ["report", campaign, "--token", gm._token],
        ["replay", campaign, "--speed", "inf", "--token", gm._token],
    ]
    for argv in commands:
        code, modules = await _imported_beside_the_server(*argv, *server)
        assert code == 0, argv
        assert [m for m in modules if m.split(".")[0] == "rich"] == [], argv
    code, modules = await _imported_beside_the_server("roll", campaign, "1d6", "--token",
                                                      gm._token, "--url", table.url)
    assert code == 0
    assert "rich.console" in modules  # the same command for people prints with rich


async def _imported_beside_the_server(*argv: str) -> tuple[int, list[str]]:
    """:func:`_imported`, run without blocking the event loop the test's server answers on."""
    probe = _PROBE.format(heavy={"rich"})
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", probe, *argv, cwd=ROOT, stdout=asyncio.subprocess.PIPE)
    out, _ = await child.communicate()
    assert child.returncode == 0
    code, modules = json.loads(out)
    return code, modules


_CONSOLE_PROBE = """
import atexit, gc, json, sys
from poolhall.clients import cli
seen = {}
found = cli._handler
def spying(args):
    run = found(args)
    def handler(args):
        seen.update(enabled=gc.isenabled(), frozen=gc.get_freeze_count())
        return run(args)
    return handler
cli._handler = spying
atexit.register(lambda: sys.stderr.write(json.dumps(seen)))
sys.argv = ["poolhall", *sys.argv[1:]]
cli.console()
"""


def test_the_console_script_runs_a_command_with_the_collector_on_and_its_imports_frozen(
        ) -> None:
    """``poolhall`` (:func:`~poolhall.clients.cli.console`) imports a command's modules with
    the garbage collector off, then freezes them and turns it back on: the command runs
    with the collector on (``watch`` and ``serve`` run for hours) and what it imported out
    of its view; the command's output and status are as ever."""
    done = subprocess.run([sys.executable, "-c", _CONSOLE_PROBE, "d12-odds", "4", "--dt", "6",
                           "--json"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0
    assert json.loads(done.stdout)["dice"] == 4
    seen = json.loads(done.stderr)
    assert seen["enabled"] is True
    assert seen["frozen"] > 10_000  # the interpreter's and the command's modules' objects


@pytest.mark.parametrize("argv", [["d12-odds", "4", "--dt", "6"], ["sr3-odds", "6", "--tn", "5"],
                                  ["sr3-odds", "2", "--open", "--pool", "1"]])
def test_d12_and_sr3_odds_import_no_msgspec_and_no_events(argv: list[str]) -> None:
    """``d12-odds`` and ``sr3-odds`` compute from plain numbers (``events/<id>_dice.py``):
    neither msgspec nor the system's events, nor asyncio or websockets, only rich to print."""
    code, modules = _imported(*argv)
    assert code == 0
    assert [m for m in modules if m.split(".")[0] in ("msgspec", "asyncio", "websockets")] == []
    assert not {"poolhall.events.d12", "poolhall.events.sr3"} & set(modules)


@pytest.mark.parametrize("argv", [["odds", "yyg", "vs", "pp"], ["odds", "2y1g", "1w", "--exact"],
                                  ["odds", "--help"], ["narrative", "--help"],
                                  ["narrative", "add", "--help"]])
def test_narrative_odds_and_its_parser_import_no_msgspec_and_no_events(argv: list[str]) -> None:
    """``odds`` computes on plain counts (``events/narrative_notation.py``,
    ``projections/narrative_faces.py``), and building the narrative parser, which ``odds``
    shares, reads only plain vocabulary: neither msgspec nor any narrative event is imported."""
    code, modules = _imported(*argv)
    assert code == 0
    assert [m for m in modules if m.split(".")[0] in ("msgspec", "asyncio", "websockets")] == []
    assert not [m for m in modules if m.startswith(("poolhall.events.narrative.",
                                                    "poolhall.events.narrative_encounter",
                                                    "poolhall.events.narrative_values"))]
    assert "poolhall.events.narrative" not in modules


def test_every_command_is_built_by_one_group_in_the_help_order() -> None:
    """The table of builders covers every command once, in ``--help``'s order, and each
    system's commands come from its ``clients/<id>_cli.py``."""
    names = [name for group, _ in cli._GROUPS for name in group]
    assert names == list(cli._HELP)
    full = cli.build_parser()
    assert list(_subcommands(full)) == names
    systems = {f"poolhall.clients.{system}_cli" for system in CLI_HOOKS}
    assert systems == {build.args[0] for _, build in cli._GROUPS
                       if isinstance(build, partial) and build.func is cli._build_system}


def test_each_command_not_asked_for_reads_as_its_own_parser_says() -> None:
    """A command built as a stub (name and help line) shows the help line its parser has:
    ``poolhall --help`` is the same whichever command's parser was built."""
    real = {action.dest: action.help for action in _choices(cli.build_parser())}
    assert real == cli._HELP
    assert cli.build_parser("state").format_help() == cli.build_parser().format_help()


def _choices(parser: object) -> list[argparse.Action]:
    action = next(a for a in parser._actions if a.dest == "command")  # type: ignore[attr-defined]
    return list(action._choices_actions)


def _subcommands(parser: object) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if a.dest == "command")  # type: ignore[attr-defined]
    return dict(action.choices)


_SERVER_PROBE = """
import asyncio, json, sys
from poolhall.events import strict
from poolhall.server import stored_snapshots
from poolhall.server.app import Server

async def start_and_stop() -> None:
    server = Server(sys.argv[1], "127.0.0.1", 0)
    await server.start()
    await server.stop()

asyncio.run(start_and_stop())
print(json.dumps({"modules": sorted({m.split(".")[0] for m in sys.modules} & WANTED),
                  "fingerprints": stored_snapshots.fingerprint.cache_info().currsize,
                  "strict twins": strict._strict_struct.cache_info().currsize}))
"""


def test_a_server_starts_without_what_only_some_tables_use(tmp_path: Path) -> None:
    """``serve`` imports and builds at start only what every table needs (each cost ~5-7 ms of
    a start that aims at 150 ms): the odds workers' multiprocessing comes with the first
    computation, the token seals' cryptography with the first seal, the stored snapshots'
    fingerprint (two schemas) with the first snapshot read or written, a message type's
    strict twin (read from every class it reaches) with the first message of that type, and
    the page's parser (tree-sitter) with the first file of the page asked for."""
    probe = _SERVER_PROBE.replace("WANTED", repr({"multiprocessing", "cryptography",
                                                  "tree_sitter"}))
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "table.db")], cwd=ROOT,
                          check=True, capture_output=True, text=True)
    assert json.loads(done.stdout.splitlines()[-1]) == {"modules": [], "fingerprints": 0,
                                                        "strict twins": 0}
