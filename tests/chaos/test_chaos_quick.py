"""The chaos trials' short versions: each script in ``--quick`` mode, a few seconds apiece.

Each trial runs as a real process (the server and the attacker are processes of their own)
and prints a ``CHAOS-RESULT`` JSON line with its verdicts. Only the correctness verdicts are
asserted here (nothing acknowledged lost, no gap, no duplicate, no crash, no event appended by
hostile frames, the honest table still served); the timing and memory targets are figures the
full runs print, never asserted in the suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def never_join_extra() -> tuple[str, ...]:
    """The quick run holds its silent connections for 2 s, not the default join timeout (10 s),
    so it shortens that timeout: every silent connection must then be closed by the end."""
    return ("--option", "expect_closed=1", "--server-arg=--join-timeout=0.5")


def held_requests_extra() -> tuple[str, ...]:
    """Connections waiting unread for their address's turn notice their peer has gone only
    when the join timeout closes them: the quick runs shorten it to 1 s, so that what the
    attack held is seen freed 2 s after it ends."""
    return ("--server-arg=--join-timeout=1",)


TRIALS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("kill9.py", ()), ("disconnects.py", ()), ("hostile_frames.py", ()),
    ("never_join.py", never_join_extra()), ("flood.py", ()), ("slow_readers.py", ()),
    ("join_storm.py", ()), ("checks_churn.py", ()), ("garbage_frames.py", ()),
    ("http_churn.py", ()), ("kill9_housekeeping.py", ()),
    ("big_headers.py", held_requests_extra()), ("slow_handshakes.py", held_requests_extra()),
    ("http_churn.py path=2", ("--option", "path=2")), ("pg_kill9.py", ()),
    ("pg_restart.py", ()))
"""Every quick trial (``"script option"``: the script, run with its options) and its flags."""


RUNS = Path()
"""Where this run's trials are claimed and their results kept (set by :func:`shared_runs`)."""


@pytest.fixture(scope="module", autouse=True)
def shared_runs(tmp_path_factory: pytest.TempPathFactory) -> None:
    """:data:`RUNS` in the run's own temporary folder, one for both workers (``-n 2``), so
    that each trial runs once per run."""
    base = tmp_path_factory.getbasetemp()
    global RUNS  # noqa: PLW0603 (set before the first test starts the trials' threads)
    RUNS = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "chaos-quick"
    RUNS.mkdir(exist_ok=True)


def _result_file(script: str) -> Path:
    return RUNS / (script.replace(" ", "_").replace("=", "-") + ".json")


def _run(script: str, extra: tuple[str, ...]) -> bool:
    """Run ``script`` if no other worker claimed it, keeping its output for both workers;
    False if another worker runs it."""
    try:
        (RUNS / (_result_file(script).name + ".claimed")).touch(exist_ok=False)
    except FileExistsError:
        return False
    try:
        done = subprocess.run([sys.executable, str(HERE / script.split()[0]), "--quick", *extra],
                              cwd=ROOT, capture_output=True, text=True, timeout=240,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        output = {"stdout": done.stdout, "stderr": done.stderr}
    except subprocess.TimeoutExpired as timeout:  # both workers' tests say so, not wait
        output = {"stdout": _text(timeout.stdout),
                  "stderr": f"timed out after 240 s\n{_text(timeout.stderr)}"}
    kept = _result_file(script).with_suffix(".partial")
    kept.write_text(json.dumps(output))
    kept.replace(_result_file(script))
    return True


def _text(output: str | bytes | None) -> str:
    return output.decode(errors="replace") if isinstance(output, bytes) else output or ""


@cache
def started() -> dict[str, Future[bool]]:
    """Every quick trial, started at the first test, three at a time.

    Most of a quick trial's seconds are spent waiting (Python starting three processes, the
    attack's clock), so running three at once brings the file from ~70 s to ~25 s on two cores.
    Each trial measures against its own honest table, and only correctness is asserted.

    With ``-n 2`` both workers run some of these tests: each trial is run by the worker that
    claims it first (before, each worker ran all sixteen, for the half of the tests it got).
    """
    pool = ThreadPoolExecutor(max_workers=3, thread_name_prefix="chaos-quick")
    return {script: pool.submit(_run, script, extra) for script, extra in TRIALS}


def run_quick(script: str) -> dict[str, Any]:
    """One trial's quick run (see :func:`started`): its ``CHAOS-RESULT``, checked."""
    started()[script].result(timeout=600)
    kept = _result_file(script)
    deadline = time.monotonic() + 600
    while not kept.exists():  # run by the other worker: its result is written when it ends
        assert time.monotonic() < deadline, f"{script}: the worker that claimed it never ended"
        time.sleep(0.1)
    done = json.loads(kept.read_text())
    lines = [line for line in done["stdout"].splitlines() if line.startswith("CHAOS-RESULT ")]
    assert lines, f"{script} printed no result:\n{done['stdout'][-3000:]}\n{done['stderr'][-3000:]}"
    result: dict[str, Any] = json.loads(lines[-1][len("CHAOS-RESULT "):])
    failed = [check["name"] for check in result["checks"]
              if check["kind"] == "correctness" and not check["ok"]]
    assert not failed, f"{script}: {failed}\n{done['stdout'][-4000:]}"
    return result


def test_kill9_loses_nothing_acknowledged() -> None:
    """A server killed with SIGKILL under load restarts holding every command it acknowledged."""
    run_quick("kill9.py")


def test_kill9_in_housekeeping_loses_nothing_acknowledged() -> None:
    """A writer killed with SIGKILL in the middle of its appends, WAL restarts and
    checkpoints leaves every acknowledged event and command in the log."""
    run_quick("kill9_housekeeping.py")


def test_disconnects_no_gap_no_duplicate() -> None:
    """Clients cut off and resuming with since=last see no gap and no duplicate."""
    run_quick("disconnects.py")


def test_hostile_frames_change_nothing() -> None:
    """Hostile frames from an outsider and a member are refused, append nothing, crash nothing."""
    run_quick("hostile_frames.py")


def test_never_join_connections_are_closed() -> None:
    """Connections that never join are closed, and honest members can still join meanwhile."""
    run_quick("never_join.py")


def test_flood_leaves_the_honest_table_served() -> None:
    """One member flooding rolls and opening many readers leaves another table served."""
    run_quick("flood.py")


def test_slow_readers_leave_the_honest_table_served() -> None:
    """Members that join with since=0 and never read leave another table served."""
    run_quick("slow_readers.py")


def test_join_storm_leaves_the_honest_table_served() -> None:
    """Joins with since=0 on a long log, as fast as served, leave another table served."""
    run_quick("join_storm.py")


def test_checks_churn_leaves_the_honest_table_served() -> None:
    """Open narrative checks changed as fast as answered leave another campaign served."""
    run_quick("checks_churn.py")


def test_garbage_frames_are_refused_and_append_nothing() -> None:
    """A member's frames refused before they become work leave the honest table served."""
    run_quick("garbage_frames.py")


def test_http_churn_leaves_the_honest_table_served() -> None:
    """An outsider churning /health requests leaves the honest table served."""
    run_quick("http_churn.py")


def test_big_headers_are_refused_and_released() -> None:
    """Requests with huge headers that never end are refused 431 before they are read whole,
    and nothing of them is held once the attacker is gone."""
    run_quick("big_headers.py")


def test_slow_handshakes_hold_only_their_addresses_turns() -> None:
    """Requests trickled a byte at a time from several addresses: at most a few of each
    address's are read at once, the others wait unread, and nothing is held afterwards."""
    run_quick("slow_handshakes.py")


def test_repeated_headers_are_refused_with_a_few_log_lines() -> None:
    """Handshakes repeating a header, churned from one address, are answered 400 and cost the
    server's log a line a minute, not a traceback each."""
    run_quick("http_churn.py path=2")


def test_kill9_of_one_of_three_postgresql_servers_loses_nothing() -> None:
    """One of three servers on one PostgreSQL killed under load: its players resume on
    another; nothing acknowledged lost, no gap, no duplicate, nothing acknowledged twice."""
    run_quick("pg_kill9.py")


def test_postgresql_restarted_under_load_loses_nothing() -> None:
    """PostgreSQL stopped under load: the servers answer unavailable and /health 503 while it
    is down, recover by themselves, and nothing acknowledged is lost."""
    run_quick("pg_restart.py")
