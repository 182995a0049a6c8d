"""The clients' part of a game system's contract (see :mod:`events.contract`).

Each ``clients/<id>_cli.py`` exports ``CLI``, a :class:`CliHooks`: the subcommands the system
adds to ``poolhall`` (its odds calculator, its table commands). ``poolhall roll``'s notation
is the vocabulary's (:attr:`events.contract.SystemVocabulary.parse_roll`), since the Python
client and the server both read it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

__all__ = ["AddCommands", "CliHooks"]

AddCommands = Callable[["argparse._SubParsersAction[Any]", ModuleType], None]
"""Adds the system's subcommands to ``poolhall``'s subparsers; the module is
:mod:`clients.cli_support`, the helpers every subcommand shares."""


@dataclass(frozen=True)
class CliHooks:
    """What a game system adds to the ``poolhall`` command line."""

    system: str
    """The system id, as registered in :data:`events.systems.SYSTEMS`."""
    add_commands: AddCommands
