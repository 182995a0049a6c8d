"""The chaos trials' short versions: each script in ``--quick`` mode, a few seconds apiece.

Each trial runs as a real process (the server and the attacker are processes of their own)
and prints a ``CHAOS-RESULT`` JSON line with its verdicts. Only the correctness verdicts are
asserted here (nothing acknowledged lost, no gap, no duplicate, no crash, no event appended by
hostile frames, the honest table still served); the timing and memory targets are figures the
full runs print, never asserted in the suite.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.serve_process import FIRST_PORT, PORT_BLOCK_VARIABLE, PORTS_PER_BLOCK, WORKER_BLOCKS

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
    ("pg_kill9.py", ()), ("pg_restart.py", ()),
    ("kill9.py", ()), ("disconnects.py", ()), ("hostile_frames.py", ()),
    ("never_join.py", never_join_extra()), ("flood.py", ()), ("slow_readers.py", ()),
    ("join_storm.py", ()), ("checks_churn.py", ()), ("garbage_frames.py", ()),
    ("http_churn.py", ()), ("kill9_housekeeping.py", ()),
    ("big_headers.py", held_requests_extra()), ("slow_handshakes.py", held_requests_extra()),
    ("http_churn.py path=2", ("--option", "path=2")))
"""Every quick trial (``"script option"``: the script, run with its options) and its flags;
the longest (PostgreSQL's, ~10 s each) first, so that three at a time do not end on them
alone."""


class QuickTrials:
    """Every quick trial, started at the first test that asks, three at a time, each run once a
    run however many workers share the tests.

    Most of a quick trial's seconds are spent waiting (Python starting three processes, the
    attack's clock), so running three at once brings the file from ~70 s to ~25 s on two cores.
    Each trial measures against its own honest table, and only correctness is asserted.

    With ``-n 2`` both workers run some of these tests. Each trial is run by the worker that
    takes the trial's lock first (a file in ``runs``, the run's folder both workers share) and
    keeps its output there while holding it; a test whose trial the other worker runs waits
    for that lock, then reads the output.
    (Each worker used to run all sixteen, for the half of the tests it got.)
    """

    def __init__(self, runs: Path) -> None:
        self._runs = runs
        self._pool = ThreadPoolExecutor(max_workers=3, thread_name_prefix="chaos-quick")
        self._started = {script: self._pool.submit(self._run, script, extra,
                                                   WORKER_BLOCKS + number)
                         for number, (script, extra) in enumerate(TRIALS)}

    def close(self) -> None:
        """Wait for the trials this worker claimed: the other worker may be reading them."""
        self._pool.shutdown(wait=True)

    def result(self, script: str) -> dict[str, Any]:
        """One trial's quick run: its ``CHAOS-RESULT``, checked."""
        self._started[script].result(timeout=600)
        with self._lock(script, wait=True):  # run by the other worker: held until it wrote it
            kept = self._result_file(script)
            assert kept.exists(), f"{script}: the worker that claimed it ended without a result"
            done = json.loads(kept.read_text())
        lines = [line for line in done["stdout"].splitlines() if line.startswith("CHAOS-RESULT ")]
        assert lines, (f"{script} printed no result:\n{done['stdout'][-3000:]}\n"
                       f"{done['stderr'][-3000:]}")
        result: dict[str, Any] = json.loads(lines[-1][len("CHAOS-RESULT "):])
        failed = [check["name"] for check in result["checks"]
                  if check["kind"] == "correctness" and not check["ok"]]
        assert not failed, f"{script}: {failed}\n{done['stdout'][-4000:]}"
        return result

    @contextlib.contextmanager
    def _lock(self, script: str, *, wait: bool) -> Iterator[bool]:
        """Hold the trial's lock (an ``flock`` on a file in the shared folder, released by the
        system if the holder dies); with ``wait=False``, yield False at once if another holds
        it."""
        with (self._runs / (self._result_file(script).name + ".lock")).open("a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _result_file(self, script: str) -> Path:
        return self._runs / (script.replace(" ", "_").replace("=", "-") + ".json")

    def _run(self, script: str, extra: tuple[str, ...], ports: int) -> bool:
        """Run ``script`` unless another worker runs or ran it, keeping its output for both
        workers; whether this worker ran it. It takes its servers' ports from block ``ports``
        (its own: the tests go on beside it, taking theirs from their worker's)."""
        with self._lock(script, wait=False) as held:
            if not held or self._result_file(script).exists():
                return False
            try:
                done = subprocess.run(
                    [sys.executable, str(HERE / script.split()[0]), "--quick", *extra],
                    cwd=ROOT, capture_output=True, text=True, timeout=240,
                    env={**os.environ, "PYTHONPATH": str(ROOT),
                         PORT_BLOCK_VARIABLE: str(ports)})
                output = {"stdout": done.stdout, "stderr": done.stderr}
            except subprocess.TimeoutExpired as timeout:  # both workers' tests say so
                output = {"stdout": _text(timeout.stdout),
                          "stderr": f"timed out after 240 s\n{_text(timeout.stderr)}"}
            self._result_file(script).write_text(json.dumps(output))
            return True


def _text(output: str | bytes | None) -> str:
    return output.decode(errors="replace") if isinstance(output, bytes) else output or ""


@pytest.fixture(scope="session")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Iterator[QuickTrials]:
    """The run's quick trials, in the run's own temporary folder: one for both workers
    (``-n 2``; a worker's base folder is inside the run's), so that each trial runs once."""
    base = tmp_path_factory.getbasetemp()
    runs = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "chaos-quick"
    runs.mkdir(exist_ok=True)
    trials = QuickTrials(runs)
    yield trials
    trials.close()


def test_kill9_loses_nothing_acknowledged(quick: QuickTrials) -> None:
    """A server killed with SIGKILL under load restarts holding every command it acknowledged."""
    quick.result("kill9.py")


def test_kill9_in_housekeeping_loses_nothing_acknowledged(quick: QuickTrials) -> None:
    """A writer killed with SIGKILL in the middle of its appends, WAL restarts and
    checkpoints leaves every acknowledged event and command in the log."""
    quick.result("kill9_housekeeping.py")


def test_disconnects_no_gap_no_duplicate(quick: QuickTrials) -> None:
    """Clients cut off and resuming with since=last see no gap and no duplicate."""
    quick.result("disconnects.py")


def test_hostile_frames_change_nothing(quick: QuickTrials) -> None:
    """Hostile frames from an outsider and a member are refused, append nothing, crash nothing."""
    quick.result("hostile_frames.py")


def test_never_join_connections_are_closed(quick: QuickTrials) -> None:
    """Connections that never join are closed, and honest members can still join meanwhile."""
    quick.result("never_join.py")


def test_flood_leaves_the_honest_table_served(quick: QuickTrials) -> None:
    """One member flooding rolls and opening many readers leaves another table served."""
    quick.result("flood.py")


def test_slow_readers_leave_the_honest_table_served(quick: QuickTrials) -> None:
    """Members that join with since=0 and never read leave another table served."""
    quick.result("slow_readers.py")


def test_join_storm_leaves_the_honest_table_served(quick: QuickTrials) -> None:
    """Joins with since=0 on a long log, as fast as served, leave another table served."""
    quick.result("join_storm.py")


def test_checks_churn_leaves_the_honest_table_served(quick: QuickTrials) -> None:
    """Open narrative checks changed as fast as answered leave another campaign served."""
    quick.result("checks_churn.py")


def test_garbage_frames_are_refused_and_append_nothing(quick: QuickTrials) -> None:
    """A member's frames refused before they become work leave the honest table served."""
    quick.result("garbage_frames.py")


def test_http_churn_leaves_the_honest_table_served(quick: QuickTrials) -> None:
    """An outsider churning /health requests leaves the honest table served."""
    quick.result("http_churn.py")


def test_big_headers_are_refused_and_released(quick: QuickTrials) -> None:
    """Requests with huge headers that never end are refused 431 before they are read whole,
    and nothing of them is held once the attacker is gone."""
    quick.result("big_headers.py")


def test_slow_handshakes_hold_only_their_addresses_turns(quick: QuickTrials) -> None:
    """Requests trickled a byte at a time from several addresses: at most a few of each
    address's are read at once, the others wait unread, and nothing is held afterwards."""
    quick.result("slow_handshakes.py")


def test_repeated_headers_are_refused_with_a_few_log_lines(quick: QuickTrials) -> None:
    """Handshakes repeating a header, churned from one address, are answered 400 and cost the
    server's log a line a minute, not a traceback each."""
    quick.result("http_churn.py path=2")


def test_kill9_of_one_of_three_postgresql_servers_loses_nothing(quick: QuickTrials) -> None:
    """One of three servers on one PostgreSQL killed under load: its players resume on
    another; nothing acknowledged lost, no gap, no duplicate, nothing acknowledged twice."""
    quick.result("pg_kill9.py")


def test_postgresql_restarted_under_load_loses_nothing(quick: QuickTrials) -> None:
    """PostgreSQL stopped under load: the servers answer unavailable and /health 503 while it
    is down, recover by themselves, and nothing acknowledged is lost."""
    quick.result("pg_restart.py")


def test_every_trial_has_a_block_of_ports_below_the_ephemeral_range() -> None:
    """Each trial runs beside the tests in the block after the workers' numbered by its place
    in :data:`TRIALS`: the last block still ends below 32768 (``tests/serve_process.py``)."""
    assert FIRST_PORT + (WORKER_BLOCKS + len(TRIALS)) * PORTS_PER_BLOCK <= 32768
