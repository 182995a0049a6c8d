"""The packages import one way: no module imports, even indirectly, one that imports it; no
layer imports one above it (the exceptions are listed once, in ALLOWED_UPWARD)."""

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


LAYERS = ("events", "projections", "reports", "server", "clients")
"""Every layer, the lowest first (docs/explanation/architecture.md, "The layers and the one
dependency rule")."""

MAY_IMPORT: dict[str, frozenset[str]] = {
    "events": frozenset({"events"}),
    "projections": frozenset({"events", "projections"}),
    "reports": frozenset({"events", "projections", "reports"}),
    "server": frozenset({"events", "projections", "reports", "server"}),
    "clients": frozenset({"events", "projections", "reports", "clients"}),
}
"""The layers each layer may import: its own and those below it (``server`` never imports
``clients``, nor ``clients`` ``server``, but for the exceptions below)."""

ALLOWED_UPWARD: dict[tuple[str, str], str] = {
    ("poolhall.clients.serve_run", "poolhall.server.app"): "`poolhall serve` runs the server",
    ("poolhall.clients.serve_cli", "poolhall.server.settings"): "`poolhall serve` takes the "
                                                                "server's settings as options",
    ("poolhall.clients.serve_run", "poolhall.server.settings"): "and reads them",
    ("poolhall.clients.serve_run", "poolhall.server.auth"): "`poolhall serve` makes and checks "
                                                            "the admin token's file",
    ("poolhall.clients.serve_run", "poolhall.server.shared_admin"): "`poolhall serve "
                                                                    "--show-admin-token` reads "
                                                                    "a shared deployment's file",
    ("poolhall.clients.log_cli", "poolhall.server.snapshot_check"): "`poolhall verify` compares "
                                                                    "stored snapshots with the log",
}
"""The only imports against the rule, each with why; the architecture page names the same."""


def layered_imports() -> dict[tuple[str, str], str]:
    """Every import from one layer's module into another layer: (importer, imported) -> layer."""
    paths = [path for layer in LAYERS for path in (ROOT / layer).rglob("*.py")]
    known = {module_name(path) for path in paths} | {f"poolhall.{layer}" for layer in LAYERS}
    found: dict[tuple[str, str], str] = {}
    for path in paths:
        importer = module_name(path)
        for imported in imports_of(path, known):
            found[(importer, imported)] = importer.split(".")[1]
    return found


def test_no_layer_imports_one_above_it() -> None:
    """``events`` <- ``projections`` <- ``reports`` <- ``server``; ``clients`` use ``events``,
    ``projections`` and ``reports``. Only the imports in ALLOWED_UPWARD go against it."""
    imports = layered_imports()
    assert len(imports) > 100, "no imports found: are the names right?"
    wrong = sorted(f"{importer} imports {imported}"
                   for (importer, imported), layer in imports.items()
                   if imported.split(".")[1] not in MAY_IMPORT[layer]
                   and (importer, imported) not in ALLOWED_UPWARD)
    assert wrong == [], "\n".join(wrong)


def test_every_allowed_upward_import_is_still_made() -> None:
    """An exception no longer needed is removed from the list, so that the list stays true."""
    imports = layered_imports()
    assert sorted(set(ALLOWED_UPWARD) - set(imports)) == []
