"""Puts the repository and ``tests/bench`` on ``sys.path``: the trials run as plain scripts.

Imported first by every chaos module, so ``python tests/chaos/flood.py`` finds ``events``,
``server`` and the table-load benchmark's pieces without an installed package.
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["HERE", "ROOT"]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
for entry in (str(ROOT), str(ROOT / "tests" / "bench"), str(HERE)):
    if entry not in sys.path:
        sys.path.insert(0, entry)
