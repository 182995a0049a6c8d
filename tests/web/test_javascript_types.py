"""The browser table's JavaScript passes TypeScript's check (``tsconfig.json``: ``checkJs`` over
the JSDoc types of ``clients/web``), run as CI runs it: the TypeScript that ``package.json``
pins, installed in ``node_modules/`` by ``sh tests/install-typescript.sh``.

Without it this test is skipped on a developer's machine, saying how to install it, and fails
in CI (``CI`` set): the check is never skipped there."""

from __future__ import annotations

import subprocess

from tests.missing import missing
from tests.serve_process import ROOT

TSC = ROOT / "node_modules" / ".bin" / "tsc"


def test_the_javascript_type_checks() -> None:
    if not TSC.exists():
        missing("TypeScript is not installed: run `sh tests/install-typescript.sh`",
                "CI never skips this check")
    result = subprocess.run([str(TSC), "-p", str(ROOT / "tsconfig.json"), "--pretty", "false"],
                            cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, f"tsc found type errors:\n{result.stdout}{result.stderr}"
