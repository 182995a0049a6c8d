"""``poolhall export ... | head -1`` and ``poolhall replay ... | head``: the reader stops early,
and the command ends quietly with exit 0 (issue 30)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from tests.chaos._longlog import build_long_log
from tests.conftest import start_server
from tests.serve_process import ROOT


def _head(argv: list[str], lines: int) -> tuple[int, list[str], str]:
    """Run ``poolhall argv | head -<lines>``: the pipe closed after ``lines`` lines."""
    child = subprocess.Popen([sys.executable, "-m", "poolhall", *argv], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert child.stdout is not None
    assert child.stderr is not None
    read = [child.stdout.readline() for _ in range(lines)]
    child.stdout.close()  # as head does once it has its lines
    code = child.wait(timeout=120)
    return code, read, child.stderr.read()


async def test_export_and_replay_into_head_exit_0_without_a_traceback(tmp_path: Path) -> None:
    """A log of 3,000 rolls (far more than a pipe holds): ``export --rolls | head -1`` prints
    the header and exits 0, ``replay --speed inf | head`` ten lines and exits 0, neither
    with a traceback or "Exception ignored" on stderr."""
    db = tmp_path / "long.db"
    setup = build_long_log(db, 3_000, 1, "player")
    server = await start_server(db)
    try:
        url = f"ws://127.0.0.1:{server.port}"
        who = ["--url", url, "--token", setup["gm_token"]]
        code, [header], err = await asyncio.to_thread(
            _head, ["export", setup["campaign"], "--rolls", *who], 1)
        assert header.startswith("campaign,session,seq")
        assert (code, err) == (0, "")
        code, lines, err = await asyncio.to_thread(
            _head, ["replay", setup["campaign"], "--speed", "inf", *who], 10)
        assert all(lines)
        assert (code, err) == (0, "")
    finally:
        await server.stop()
