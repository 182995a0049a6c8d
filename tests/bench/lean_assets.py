"""What making the page's files lean costs: the bytes saved, and the event loop's time.

::

    python tests/bench/lean_assets.py            # every JavaScript and CSS file, best of 5

The server sends each JavaScript and CSS file of ``clients/web`` without comments and
indentation (``poolhall.server.lean_text``), made once per process when the file is first asked
for, on the event loop (tree-sitter holds the interpreter lock while it parses). Printed: the
files' bytes before and after, the time for all of them and for the slowest, best of
``--repeat`` passes (the parsers built before the first). Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from poolhall.server.lean_text import KINDS, _parser, lean  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    web = Path(str(resources.files("poolhall.clients") / "web"))
    files = sorted(path for path in web.rglob("*") if path.suffix in KINDS)
    sources = {path: path.read_bytes() for path in files}
    for kind in set(KINDS.values()):
        _parser(kind)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    best: dict[Path, float] = {}
    for _ in range(args.repeat):
        for path, source in sources.items():
            started = time.perf_counter()
            lean(source, KINDS[path.suffix])
            best[path] = min(best.get(path, float("inf")), time.perf_counter() - started)
    before = sum(len(source) for source in sources.values())
    after = sum(len(lean(source, KINDS[path.suffix])) for path, source in sources.items())
    slowest = max(best, key=lambda path: best[path])
    print(f"{len(files)} files: {before / 1024:.1f} KB -> {after / 1024:.1f} KB "
          f"({after / before:.0%})")
    print(f"all of them: {sum(best.values()) * 1000:.1f} ms (best of {args.repeat})")
    print(f"slowest: {slowest.relative_to(web)}, {len(sources[slowest]) / 1024:.1f} KB, "
          f"{best[slowest] * 1000:.2f} ms")


if __name__ == "__main__":
    main()
