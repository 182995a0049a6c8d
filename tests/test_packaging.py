"""What ``pip install .`` carries: every package of the code, so the installed server starts."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import sysconfig
import time
import tomllib
import urllib.request
from pathlib import Path

from tests.missing import missing
from tests.serve_process import free_port

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ("events", "projections", "server", "reports", "clients")


def test_every_package_of_the_code_is_in_the_distribution() -> None:
    """A subpackage missing from ``[tool.setuptools] packages`` installs nothing of itself:
    the installed ``poolhall serve`` then fails to import it (the tests, run from the
    checkout, would not notice)."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"])
    found = {".".join(("poolhall", *init.parent.relative_to(ROOT).parts))
             for top in SHIPPED for init in (ROOT / top).rglob("__init__.py")}
    assert len(found) >= len(SHIPPED)
    assert found - listed == set(), "add these to [tool.setuptools] packages"


def test_the_checkout_links_each_package_where_an_install_puts_it() -> None:
    """``poolhall/`` in the repository holds links to the top-level folders, so a checkout
    imports ``poolhall.events`` from ``events/`` exactly as ``package-dir`` installs it."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    for top in SHIPPED:
        assert config["package-dir"][f"poolhall.{top}"] == top
        assert (ROOT / "poolhall" / top).resolve() == (ROOT / top).resolve()


def _installed() -> importlib.metadata.Distribution:
    """poolhall as installed in this interpreter's site-packages: never the ``.egg-info`` a
    ``pip install .`` leaves in the checkout, which the checkout's place on ``sys.path`` would
    otherwise find first. Missing, the test fails in CI (which installs it) and skips here."""
    site = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    found = list(importlib.metadata.distributions(name="poolhall", path=sorted(site)))
    if not found:
        missing("poolhall is not installed here: `pip install .` to check what it adds",
                "CI installs it: pip install '.[test]'")
    return found[0]


def test_an_install_adds_one_top_level_package() -> None:
    """``pip install poolhall`` puts its code under ``poolhall/`` only (issue 27): a top-level
    ``events`` or ``server`` in site-packages would collide with any other of that name. Read
    from the installed distribution's own list of files (CI installs the checkout first)."""
    files = _installed().files or []
    tops = {file.parts[0] for file in files if file.parts[0] != ".."}
    assert {top for top in tops if not top.endswith(".dist-info")} == {"poolhall"}
    names = {str(file) for file in files}
    assert "poolhall/clients/web/index.html" in names  # the browser table ships with it
    assert "poolhall/__main__.py" in names


def test_the_embedded_server_and_cli_start_without_psycopg() -> None:
    """``pip install .`` (no ``[postgres]``) runs ``poolhall serve`` on SQLite: nothing on that
    path imports psycopg, which only a ``postgresql://`` database needs."""
    import subprocess
    import sys

    probe = ("import sys; sys.modules['psycopg'] = None; sys.modules['psycopg_pool'] = None; "
             "import poolhall.server.app, poolhall.clients.cli, poolhall.clients.serve_cli; "
             "print('ok')")
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.stdout.strip() == "ok", result.stderr


def test_the_installed_server_starts_and_serves_the_table_outside_the_checkout(
        tmp_path: Path) -> None:
    """The installed ``poolhall serve``, run away from the checkout (whose folders would
    otherwise answer a bare ``import clients``), starts, answers ``/health`` and serves the
    browser table from the package's own files."""
    script = Path(sys.executable).parent / "poolhall"
    _installed()
    assert script.exists(), f"no console script at {script}"
    port = free_port()
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    server = subprocess.Popen([str(script), "serve", "--db", str(tmp_path / "fresh.db"),
                               "--port", str(port)], cwd=tmp_path, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        health, page = "", ""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and server.poll() is None and not health:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                    health = r.read().decode()
            except OSError:
                time.sleep(0.1)
        if health:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as reply:
                page = reply.read().decode()
    finally:
        server.terminate()
        output = server.communicate(timeout=30)[0].decode(errors="replace")
    assert health.startswith("ok"), output
    assert "<html" in page.lower(), output
    assert str(Path(__file__).resolve().parents[1]) not in output  # nothing from the checkout


def test_poolhall_version_prints_the_installed_version(tmp_path: Path) -> None:
    """``poolhall --version`` prints the installed distribution's version (what ``pip show
    poolhall`` says), which is the one ``pyproject.toml`` gives: a development version after
    0.1.0 until the next release, so that an operator can tell which release runs."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert declared == "0.2.0.dev1"
    assert _installed().version == declared  # CI installs the checkout first
    script = Path(sys.executable).parent / "poolhall"
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    result = subprocess.run([str(script), "--version"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=60, check=False)
    assert (result.returncode, result.stdout, result.stderr) == (
        0, f"poolhall {declared}\n", "")
