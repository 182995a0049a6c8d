"""The server's profile, printed after a ``table_load.py --profile`` run.

``--profile cprofile`` has the server child dump cProfile's statistics for the whole run;
``--profile py-spy`` samples it (holding the GIL) during phase 1 into py-spy's collapsed
stacks. Reading either back into a few lines (own and inclusive time, by function and by
package) is its own job, apart from the load that produced it: this module.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["print_cprofile", "print_pyspy"]


def print_cprofile(path: Path, top: int) -> None:
    import pstats

    print(f"\n--- cProfile of the server process (top {top} by own time) ---")
    stats = pstats.Stats(str(path))
    stats.sort_stats("tottime").print_stats(top)


def print_pyspy(path: Path, top: int) -> None:
    """Summarize py-spy's collapsed stacks: own and inclusive share per function and package."""
    own: dict[str, int] = {}
    inclusive: dict[str, int] = {}
    packages: dict[str, int] = {}
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack:
            continue
        count = int(count_text)
        frames = [f for f in stack.split(";") if not f.startswith("thread (")]
        total += count
        leaf = frames[-1]
        own[leaf] = own.get(leaf, 0) + count
        for frame in set(frames):
            inclusive[frame] = inclusive.get(frame, 0) + count
        where = leaf.rpartition("(")[2].split(":")[0]
        package = where.split("/")[0] if "/" in where else where
        packages[package] = packages.get(package, 0) + count
    if not total:
        print("py-spy recorded no samples")
        return
    print(f"\n--- py-spy of the server during phase 1: {total} samples holding the GIL ---")
    print("own time by package: " + ", ".join(
        f"{name} {100 * n / total:.0f}%"
        for name, n in sorted(packages.items(), key=lambda kv: -kv[1]) if n / total >= 0.01))
    print(f"{'own %':>6} {'incl %':>7}  function")
    for frame, count in sorted(own.items(), key=lambda kv: -kv[1])[:top]:
        print(f"{100 * count / total:6.1f} {100 * inclusive[frame] / total:7.1f}  {frame}")
    print(f"\n{'incl %':>7}  function (inclusive, event loop and thread plumbing left out)")
    plumbing = ("asyncio/runners.py", "asyncio/base_events.py", "asyncio/events.py",
                "threading.py", "concurrent/futures/thread.py", "_server_child.py")
    shown = [(f, n) for f, n in inclusive.items() if not any(p in f for p in plumbing)]
    for frame, count in sorted(shown, key=lambda kv: -kv[1])[:top]:
        print(f"{100 * count / total:7.1f}  {frame}")

