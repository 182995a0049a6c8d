"""What ``pip install .`` carries: every package of the code, so the installed server starts."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ("events", "projections", "server", "reports", "clients")


def test_every_package_of_the_code_is_in_the_distribution() -> None:
    """A subpackage missing from ``[tool.setuptools] packages`` installs nothing of itself:
    the installed ``poolhall serve`` then fails to import it (the tests, run from the
    checkout, would not notice)."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"])
    found = {".".join(init.parent.relative_to(ROOT).parts)
             for top in SHIPPED for init in (ROOT / top).rglob("__init__.py")}
    assert found - listed == set(), "add these to [tool.setuptools] packages"


def test_the_embedded_server_and_cli_start_without_psycopg() -> None:
    """``pip install .`` (no ``[postgres]``) runs ``poolhall serve`` on SQLite: nothing on that
    path imports psycopg, which only a ``postgresql://`` database needs."""
    import subprocess
    import sys

    probe = ("import sys; sys.modules['psycopg'] = None; sys.modules['psycopg_pool'] = None; "
             "import server.app, clients.cli, clients.serve_cli; print('ok')")
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.stdout.strip() == "ok", result.stderr
