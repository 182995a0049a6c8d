"""The clients' part of a game system's contract (see :mod:`poolhall.events.contract`).

Each ``clients/<id>_cli.py`` exports ``CLI``, a :class:`CliHooks`: the subcommands the system
adds to ``poolhall`` (its odds calculator, its table commands). ``poolhall roll``'s notation
is the vocabulary's (:attr:`poolhall.events.contract.SystemVocabulary.parse_roll`), since the Python
client and the server both read it.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.text import Text

    from poolhall.projections.campaign import CampaignState, Character

__all__ = ["AddCommands", "CliHooks", "TableHooks", "deferred"]

AddCommands = Callable[["argparse._SubParsersAction[Any]", ModuleType], None]
"""Adds the system's subcommands to ``poolhall``'s subparsers; the module is
:mod:`poolhall.clients.cli_support`, the helpers every subcommand shares."""


TableParts = Callable[["CampaignState", Mapping[str, Any]],
                      tuple[dict[str, Any], "list[str | Text]"]]
SheetParts = Callable[["Character", "CampaignState"], tuple[dict[str, Any], "list[str | Text]"]]


@dataclass(frozen=True)
class TableHooks:
    """How ``poolhall state``, ``sheet`` and ``watch`` show the system's part of the table.

    Views reach these as plain data (:func:`msgspec.to_builtins` of the typed view), keyed by
    what they are about (``check:<id>``, ``test:<id>``, ``combat``), with their kind in
    ``data["view"]``.
    """

    table_parts: TableParts
    """The system's part of ``state``: ``(data for --json, lines for people)``."""
    character_line: Callable[[Character], str]
    """A character's compact sheet, on one line."""
    sheet_parts: SheetParts
    """A character's whole sheet (``poolhall sheet``)."""
    view_line: Callable[[str, Mapping[str, Any]], str | None]
    """One line for a view ``watch`` shows, ``None`` for a view it leaves out or not this
    system's."""


@dataclass(frozen=True)
class CliHooks:
    """What a game system adds to the ``poolhall`` command line."""

    system: str
    """The system id, as registered in :data:`poolhall.events.systems.SYSTEMS`."""
    add_commands: AddCommands
    table: TableHooks | None = None
    """How the table is shown; ``None`` shows only what every system has."""


def deferred(module: str, name: str) -> Any:
    """``module``'s function ``name``, imported when first called.

    A system's table hooks need rich and its projections; its ``CLI`` is read whenever its
    commands are built (``poolhall d12 --help``), so the hooks import their module when
    ``state`` or ``watch`` first shows a table, not before.
    """
    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__qualname__ = call.__name__ = name
    return call
