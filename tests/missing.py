"""What a test does when a part it needs is not on this machine: in CI it fails (CI installs
everything, so a part missing there is a broken setup, never a reason to skip); on a
developer's machine it is skipped, saying how to install the part."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

__all__ = ["in_ci", "missing"]


def in_ci() -> bool:
    """Whether this run is CI's (``CI`` set, as ``.ci/run`` sets it)."""
    return os.environ.get("CI", "").lower() not in ("", "0", "false")


def missing(message: str, in_ci_why: str) -> NoReturn:
    """Fail in CI (``message`` and ``in_ci_why``), skip elsewhere (``message``)."""
    if in_ci():
        pytest.fail(f"{message} ({in_ci_why})", pytrace=False)
    pytest.skip(message)
