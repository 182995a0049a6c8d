"""The packages import one way: no module imports, even indirectly, one that imports it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
PACKAGES = ("events", "projections", "server", "clients")


def module_name(path: Path) -> str:
    """``events/narrative.py`` -> ``poolhall.events.narrative`` (its installed name)."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(("poolhall", *(parts[:-1] if parts[-1] == "__init__" else parts)))


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The project modules a file imports, at module level or inside functions alike."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        found.update(name for name in names if name in known)
    return found - {module_name(path)}


def graph() -> dict[str, set[str]]:
    """Every project module and the project modules it imports."""
    paths = [path for package in PACKAGES for path in (ROOT / package).rglob("*.py")]
    known = {module_name(path) for path in paths}
    # A package's __init__ is imported with any of its modules; it imports none of them here.
    packages = {f"poolhall.{package}" for package in PACKAGES} | {"poolhall.server.rules"}
    return {module_name(path): imports_of(path, known) - packages for path in paths}


def cycle_from(start: str, edges: dict[str, set[str]]) -> list[str] | None:
    """A chain of imports leading from ``start`` back to it, if there is one."""
    stack, seen = [(start, [start])], set()
    while stack:
        module, chain = stack.pop()
        for imported in edges.get(module, ()):
            if imported == start:
                return [*chain, start]
            if imported not in seen:
                seen.add(imported)
                stack.append((imported, [*chain, imported]))
    return None


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycles(package: str) -> None:
    """Following imports from any module never leads back to it (narrative <-> notation)."""
    edges = graph()
    assert sum(map(len, edges.values())) > 100, "the graph has no edges: are the names right?"
    cycles = [cycle for module in sorted(edges) if module.startswith(f"poolhall.{package}.")
              if (cycle := cycle_from(module, edges))]
    assert not cycles, " -> ".join(cycles[0])


def test_code_imports_its_own_modules_only_by_their_poolhall_names() -> None:
    """Installed, the code is ``poolhall.events`` and so on (one top-level package): a bare
    ``import events`` works from a checkout, whose folders are at the top, and nowhere else."""
    bare = [f"{path.relative_to(ROOT)}: {name}"
            for top in (*PACKAGES, "reports", "tools", "tests")
            for path in (ROOT / top).rglob("*.py")
            for node in ast.walk(ast.parse(path.read_text()))
            for name in ([a.name for a in node.names] if isinstance(node, ast.Import) else
                         [node.module] if isinstance(node, ast.ImportFrom) and node.module
                         and not node.level else [])
            if name.split(".")[0] in (*PACKAGES, "reports")]
    assert bare == []
