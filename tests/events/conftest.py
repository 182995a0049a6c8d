"""Fixtures shared by the event log's tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from poolhall.events.sqlite_backend import SqliteLog


@pytest.fixture
def log(tmp_path: Path) -> Iterator[SqliteLog]:
    """A fresh SQLite log in a real file, closed after the test."""
    store = SqliteLog(tmp_path / "log.db")
    yield store
    store.close()
