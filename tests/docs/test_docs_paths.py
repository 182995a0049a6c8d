"""Every file, folder and module the docs name exists in the repository.

Why: the docs send a newcomer to the code by name (the architecture page's "where to find"
table, the store's page, the guides' commands), so that the writer, the join path, a rule or
the analytics are found in a minute (issues 27 and 28). When code is split, renamed or
removed, a page that still names the old file sends the reader looking for code that is not
there, and nothing else notices: MkDocs checks links between pages, not names in code. This
test reads README.md and every ``docs/**/*.md`` and fails naming each reference, page and
line, that does not resolve.

What counts as a reference — only inside inline code or a fenced code block (prose is never
scanned), and decided by its shape, with no list of exceptions:

- **a path** whose first segment is a top-level entry of the repository (``server/hub.py``,
  ``tests/bench/``, ``clients/web``, ``.ci/run``): it must exist, as a file or a folder (a
  trailing ``/``: a folder). A ``<placeholder>`` segment part or a ``*`` is a wildcard that
  must match at least one (``server/rules/<system>.py``). A path under any other first
  segment is not the repository's (``test-screenshots/``, ``.venv/bin/pip``,
  ``../shared/rules/``), nor is a URL (``scheme://``), an absolute path or a rate written with
  ``/s`` (``events/s``, ``commands/s``);
- **a bare source file name**, ``*.py`` or ``*.js`` (``hub_core.py``, ``store.js``, as a page
  writes beside the folder it names): a file of that name must exist somewhere in the
  repository. Files a reader makes have other extensions (``night.html``, ``han.json``);
- **a module as a dotted name** whose first part is a top-level folder of the repository
  holding Python files, optionally under the installed namespace ``poolhall.``
  (``server.hub``, ``poolhall.events.log_contract.EventLog``, ``clients.cli:main``): written
  as a whole code span, imported in a code block (``from clients.client import Client``) or
  run with ``python -m``. Its longest prefix that is a module must exist, and each name after
  it must occur in that module's source (or be a submodule of a package).

"In the repository" is what git tracks or would track (ignored files such as ``.venv/``,
``site/`` and ``node_modules/`` are not).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.missing import missing

ROOT = Path(__file__).resolve().parents[2]

NAMESPACE = "poolhall"
"""The package the code is installed under; ``poolhall.server.hub`` is ``server/hub.py``."""

SOURCE_EXTENSIONS = (".py", ".js")
"""A bare file name with one of these is a reference to a file of this repository."""

_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_PATH_TOKEN = re.compile(r"[\w.<>*:/~$@+-]+")
_PLACEHOLDER = re.compile(r"<[^<>/]*>")
_LINE_SUFFIX = re.compile(r":\d+(?::\d+)?$")
_IDENTIFIER = r"[A-Za-z_]\w*"
_DOTTED = re.compile(rf"{_IDENTIFIER}(?:[.:]{_IDENTIFIER})+")
_IMPORT = re.compile(rf"^\s*(?:from\s+({_IDENTIFIER}(?:\.{_IDENTIFIER})*)\s+import\s+(.+)"
                     rf"|import\s+({_IDENTIFIER}(?:\.{_IDENTIFIER})*))")
_RUN_MODULE = re.compile(rf"\s-m\s+({_IDENTIFIER}(?:\.{_IDENTIFIER})*)")


@dataclass(frozen=True)
class Repository:
    """The repository's files and folders, as paths relative to its root with ``/``."""

    files: frozenset[str]
    folders: frozenset[str]

    @classmethod
    def of(cls, files: Iterable[str]) -> Repository:
        """The repository holding ``files`` (and every folder above each)."""
        file_set = frozenset(files)
        folders = {"/".join(parts[:end]) for parts in (f.split("/") for f in file_set)
                   for end in range(1, len(parts))}
        return cls(file_set, frozenset(folders))

    @property
    def top_level(self) -> frozenset[str]:
        """The names at the repository's root."""
        return frozenset(path.split("/")[0] for path in self.files)

    @property
    def python_roots(self) -> frozenset[str]:
        """Top-level folders holding Python files directly: the first part of a module name."""
        return frozenset(path.split("/")[0] for path in self.files
                         if path.count("/") == 1 and path.endswith(".py"))

    @property
    def file_names(self) -> frozenset[str]:
        """The last segment of every file."""
        return frozenset(path.rsplit("/", 1)[-1] for path in self.files)

    def matches(self, pattern: str, folder: bool) -> bool:
        """Whether a file or folder (only a folder if ``folder``) matches ``pattern``, whose
        ``*`` matches within one segment."""
        if "*" not in pattern:
            return pattern in self.folders or (not folder and pattern in self.files)
        regex = re.compile("[^/]*".join(re.escape(part) for part in pattern.split("*")))
        candidates = self.folders if folder else self.folders | self.files
        return any(regex.fullmatch(candidate) for candidate in candidates)

    def source(self, path: str) -> str:
        """A file's text."""
        return (ROOT / path).read_text(encoding="utf-8")


@dataclass(frozen=True)
class Reference:
    """A name a page gives in code, where it gives it."""

    page: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {self.text}"


def code_pieces(text: str) -> Iterator[tuple[int, str, bool]]:
    """Each piece of code of a Markdown page: ``(line, code, whole_span)``, a fenced block's
    line (``whole_span`` false) or an inline code span (true)."""
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1) == fence:
                fence = None
            else:
                yield number, line, False
        elif opened:
            fence = opened.group(1)
        else:
            for span in _CODE_SPAN.finditer(line):
                yield number, span.group(2).strip(), True


def path_tokens(code: str) -> Iterator[str]:
    """The words of a piece of code that may be paths or file names."""
    for token in _PATH_TOKEN.findall(code):
        if "://" in token:
            continue
        token = _LINE_SUFFIX.sub("", token.rstrip(".:"))
        if token:
            yield token


def missing_path(repo: Repository, token: str) -> bool | None:
    """Whether a path or bare file name is missing (None: not a reference, by the rules in
    the module's docstring)."""
    if "/" not in token:
        if token.endswith(SOURCE_EXTENSIONS) and _PLACEHOLDER.search(token) is None:
            return token not in repo.file_names
        return None
    if token.endswith("/s") or token.split("/")[0] not in repo.top_level:
        return None
    folder = token.endswith("/")
    pattern = _PLACEHOLDER.sub("*", token.rstrip("/"))
    return not repo.matches(pattern, folder)


def module_names(code: str, whole_span: bool) -> Iterator[str]:
    """The dotted names a piece of code gives as modules (or names in modules)."""
    if whole_span:
        name = code.removesuffix("()")
        if _DOTTED.fullmatch(name) and not name.endswith(SOURCE_EXTENSIONS):
            yield name.replace(":", ".")
    else:
        imported = _IMPORT.match(code)
        if imported:
            module, names, plain = imported.groups()
            if plain:
                yield plain
            else:
                for clause in names.strip("() ").split(","):
                    words = clause.split()
                    if words and re.fullmatch(_IDENTIFIER, words[0]):
                        yield f"{module}.{words[0]}"
    for run in _RUN_MODULE.finditer(code):
        yield run.group(1)


def missing_module(repo: Repository, dotted: str) -> bool | None:
    """Whether a dotted name fails to resolve (None: not a reference to this repository)."""
    parts = dotted.split(".")
    if parts[0] == NAMESPACE and len(parts) > 1:
        parts = parts[1:]
    if parts[0] not in repo.python_roots:
        return None
    depth = max(end for end in range(1, len(parts) + 1)
                if "/".join(parts[:end]) in repo.folders
                or "/".join(parts[:end]) + ".py" in repo.files)
    module = "/".join(parts[:depth])
    names = parts[depth:]
    if not names:
        return False
    if module + ".py" in repo.files:
        source = repo.source(module + ".py")
    elif module + "/__init__.py" in repo.files:
        source = repo.source(module + "/__init__.py")
    else:
        return True  # a folder with no module of its own: the name is not in it
    return any(re.search(rf"\b{re.escape(name)}\b", source) is None for name in names)


def stale_references(repo: Repository, page: str, text: str) -> Iterator[Reference]:
    """Each reference of a page that does not resolve."""
    for line, code, whole_span in code_pieces(text):
        for token in path_tokens(code):
            if missing_path(repo, token):
                yield Reference(page, line, token)
        for dotted in module_names(code, whole_span):
            if missing_module(repo, dotted):
                yield Reference(page, line, dotted)


def repository() -> Repository:
    """This checkout: what git tracks, and untracked files it does not ignore."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        missing("not a git checkout: which files are the repository's is git's to say",
                "CI runs on a git checkout")
    return Repository.of(name for name in listed.decode().split("\0")
                         if name and (ROOT / name).exists())


def pages() -> list[Path]:
    """README.md and every page of the docs."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def test_every_path_and_module_the_docs_name_exists() -> None:
    """No page names a file, folder or module that is not in the repository."""
    repo = repository()
    stale = [str(reference) for page in pages()
             for reference in stale_references(repo, page.relative_to(ROOT).as_posix(),
                                                page.read_text(encoding="utf-8"))]
    assert not stale, ("the docs name what the repository does not hold:\n"
                       + "\n".join(stale))


def test_the_scan_finds_the_architecture_pages_references() -> None:
    """The scan is not vacuous: the architecture page's names are read as references."""
    repo = repository()
    text = (ROOT / "docs/explanation/architecture.md").read_text(encoding="utf-8")
    found = {token for _, code, _ in code_pieces(text) for token in path_tokens(code)
             if missing_path(repo, token) is not None}
    assert {"server/writer.py", "server/joins.py", "server/rules/<system>.py",
            "projections/analytics.py"} <= found


FAKE = Repository.of([
    "README.md", "server/__init__.py", "server/hub.py", "server/rules/__init__.py",
    "server/rules/sr3.py", "events/__init__.py", "events/log_contract.py",
    "events/sqlite_backend/__init__.py", "events/sqlite_backend/log.py",
    "clients/web/store.js", "tests/bench/table_load.py",
])


@pytest.mark.parametrize(("text", "stale"), [
    ("`server/hub.py`, `events/sqlite_backend/`, `clients/web`", []),
    ("`server/store.py` and `events/store*.py`", ["server/store.py", "events/store*.py"]),
    ("`server/rules/<system>.py`, `events/<name>_backend/`", []),
    ("`tests/<system>/`, `events/<name>_gone/`, `server/hub.py/`",
     ["events/<name>_gone/", "server/hub.py/"]),
    ("`hub.py` beside `store.js`; `journal.py`", ["journal.py"]),
    ("`night.html`, `han.json`, `poolhall.db`, `test-screenshots/`, `.venv/bin/pip`", []),
    ("`https://events/x.py`, `/health`, `~/x`, `events/s`, `server/hub.py:12`", []),
    ("```sh\npython tests/bench/table_load.py --against REV\nhead events/old.py\n```",
     ["events/old.py"]),
    ("`server.hub`, `poolhall.server.hub`, `events.log_contract.EventLog()`", []),
    ("`server.store`, `poolhall.events.log_contract.LogContract`",
     ["server.store", "poolhall.events.log_contract.LogContract"]),
    ("`ctx.game`, `crypto.subtle`, `poolhall.character`, `server.rules.sr3`", []),
    ("```python\nfrom events.log_contract import EventLog, Gone\nimport server.nowhere\n```",
     ["events.log_contract.Gone", "server.nowhere"]),
    ("prose names server/gone.py and server.gone; only code is read", []),
])
def test_the_rules(text: str, stale: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """What is a reference and what resolves, on a repository of a few files."""
    sources = {"events/log_contract.py": "class EventLog(Protocol): ...\n",
               "server/hub.py": "", "server/__init__.py": "", "events/__init__.py": "",
               "server/rules/__init__.py": ""}
    monkeypatch.setattr(Repository, "source", lambda self, path: sources[path])
    found = [reference.text for reference in stale_references(FAKE, "page.md", text)]
    assert found == stale
