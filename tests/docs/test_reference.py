"""The docs: the reference pages generated from the code, and the strict build of the site."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from pathlib import Path

from poolhall.clients.cli import build_parser
from poolhall.projections.snapshot import protocol_schema
from poolhall.server.settings import Settings
from tools.docs_reference import cli_page, protocol_page, settings_page, subcommands

ROOT = Path(__file__).resolve().parents[2]


def test_every_subcommand_and_option_of_the_parser_is_in_the_cli_page() -> None:
    """Each (sub)command has its heading, and each of its options and arguments a row."""
    page = cli_page()
    paths = list(subcommands(build_parser()))
    assert len(paths) > 30  # serve, campaign create, the systems' commands ...
    for path, parser in paths:
        assert f"`{' '.join(('poolhall', *path))}`" in page, path
        for action in parser._actions:
            for option in action.option_strings:
                if option not in ("-h", "--help"):
                    assert f"`{option}" in page or f", {option}" in page, (path, option)
    for needed in ("poolhall serve", "poolhall narrative roll", "poolhall sr3 test",
                   "poolhall d12 call", "poolhall verify", "poolhall schema"):
        assert f"`{needed}`" in page


def test_every_setting_is_in_the_settings_page_with_its_default() -> None:
    """Each field of Settings appears as its serve flag, with its default."""
    page = settings_page()
    for setting in dataclasses.fields(Settings):
        flag = "--" + setting.name.replace("_", "-")
        row = next(line for line in page.splitlines() if line.startswith(f"| `{flag}` |"))
        assert str(setting.default) in row, (flag, row)
    assert "Left to autotuning" in page  # the why, from the field's docstring


def test_every_type_of_the_schema_has_a_section_in_the_protocol_page() -> None:
    """Every message, event and nested type of `poolhall schema` is documented, with fields."""
    schema = protocol_schema()
    page = protocol_page(schema)
    for name, definition in schema["$defs"].items():
        anchor = "type-" + name.lower().replace(".", "-")
        assert f"{{#{anchor}}}" in page, name
        for field in definition.get("properties", {}):
            assert f"| `{field}` |" in page, (name, field)
    for link in set(re.findall(r"\]\(#(type-[^)]+)\)", page)):
        assert f"{{#{link}}}" in page, link


def test_the_site_builds_strictly_and_loads_nothing_from_another_origin(tmp_path: Path) -> None:
    """`mkdocs build --strict` passes (links, anchors, nav), the generated pages are in it, and
    no page pulls a script, style, font or import from another origin."""
    site = tmp_path / "site"
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                            str(site)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    for generated in ("reference/cli", "reference/settings", "reference/protocol-schema"):
        assert (site / generated / "index.html").is_file(), generated
    foreign = re.compile(r"""<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=["']?(?:https?:)?//"""
                         r"""|@import\s+(?:url\()?["']?(?:https?:)?//|url\(["']?(?:https?:)?//""",
                         re.IGNORECASE)
    offenders = [str(path.relative_to(site)) for path in site.rglob("*")
                 if path.suffix in (".html", ".css", ".js") and foreign.search(
                     path.read_text(encoding="utf-8", errors="replace"))]
    assert offenders == []
