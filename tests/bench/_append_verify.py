"""Part 4 of ``append_rate.py``: ``poolhall verify``'s events/s on cached logs.

``SqliteReader.verify``'s own call (:func:`verify_rate`) on a log of one campaign and on one of
100 campaigns interleaved, and, with ``--verify-against``, another checkout's ``verify_file``
(:func:`verify_of`) alternately with this one's. Reading a log back is a job apart from
appending to it, so it has its own module.
"""

from __future__ import annotations

import argparse
import importlib.util
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from _append_common import cached_log

from poolhall.events.sqlite_backend.verify import verify_file

__all__ = ["TARGET_VERIFY", "run_verify", "verify_of", "verify_rate"]

TARGET_VERIFY = 300_000.0


def _cpu_seconds() -> float:
    """CPU time of this process and its finished children (verify's segment walkers)."""
    own, children = (resource.getrusage(who) for who in
                     (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def verify_rate(path: Path, events: int, verify: Callable[..., tuple[int, list[Any]]]
                = verify_file) -> tuple[float, float]:
    """Events/s of one ``verify`` (``SqliteReader.verify``'s own call), and the CPU seconds
    it took on all cores (a figure that a busy shared machine inflates less than the wall
    time)."""
    started, cpu = time.perf_counter(), _cpu_seconds()
    checked, problems = verify(f"{path.resolve().as_uri()}?mode=ro")
    elapsed, cpu = time.perf_counter() - started, _cpu_seconds() - cpu
    if checked != events or problems:
        raise SystemExit(f"verify of {path}: {checked} checked, problems {problems[:3]}")
    return events / elapsed, cpu


def verify_of(checkout: Path) -> Callable[..., tuple[int, list[Any]]]:
    """Another checkout's ``verify_file``, loaded beside this one's (its segment walkers
    run from that checkout too: they are started by the module's own path)."""
    spec = importlib.util.spec_from_file_location(
        "before_store_verify", checkout / "events" / "store_verify.py")
    if spec is None or spec.loader is None:
        raise SystemExit(f"no events/store_verify.py in {checkout}")
    module: ModuleType = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # msgspec resolves the module's annotations through it
    spec.loader.exec_module(module)
    return module.verify_file  # type: ignore[no-any-return]


def run_verify(args: argparse.Namespace, work: Path) -> None:
    """``poolhall verify`` over a cached log (and another checkout's, alternately, with
    ``--verify-against``); ``work`` is unused: the logs are kept in ``--cache``."""
    variants = [("", verify_file)]
    if args.verify_against is not None:
        variants = [("before ", verify_of(args.verify_against)), ("now    ", verify_file)]
    for campaigns, shape in ((1, "one campaign"), (100, "100 campaigns interleaved")):
        path = cached_log(args.cache, args.verify_events, campaigns)
        runs: dict[str, list[tuple[float, float]]] = {label: [] for label, _ in variants}
        for _ in range(args.repeat):  # alternately, so both see the same load
            for label, verify in variants:
                runs[label].append(verify_rate(path, args.verify_events, verify))
        for label, _ in variants:  # the best of each: noise only ever adds
            rate, cpu = max(r for r, _ in runs[label]), min(c for _, c in runs[label])
            print(f"{label}verify, {args.verify_events:,} events, {shape + ':':<27}"
                  f"{rate:>10,.0f} events/s  ({cpu:.1f} CPU-s; target >="
                  f" {TARGET_VERIFY:,.0f})", flush=True)
