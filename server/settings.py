"""What an operator may tune: one frozen dataclass, one ``poolhall serve`` flag per field.

Each field carries its default and its help text, so adding a setting is one field here: the
flag (``queue_limit`` -> ``--queue-limit``), its type and its help are derived from the field.
Limits are per server process; the defaults suit a real table on a small machine.
"""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Settings", "add_arguments", "from_arguments"]


def _setting(default: Any, help: str) -> Any:
    """A field with its default and the help text of its flag."""
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True, kw_only=True)
class Settings:
    """The operator's settings of one server."""

    queue_limit: int = _setting(
        4096, "frames a client may fall behind before it is disconnected (close 1013)")
    send_buffer: int = _setting(
        128 * 1024, "kernel send buffer per client, in bytes (0 leaves it to the kernel)")
    """Left to autotuning, the buffer grows to megabytes for a client that stops reading,
    hiding the stall for thousands of frames and costing memory per client."""
    view_workers: int = _setting(
        1, "worker processes computing odds off the event loop (each takes a core while busy)")
    view_budget: float = _setting(
        5.0, "seconds one odds computation may take before its view says it was not computed "
        "(0: no limit)")
    view_cache: int = _setting(
        4096, "computed odds kept for reuse (the same pool again, members joining)")
    view_backlog: int = _setting(
        64, "views of one campaign that may wait for the workers; past it, sent without odds")


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add a flag for every setting to ``parser`` (``poolhall serve``)."""
    group = parser.add_argument_group("limits and tuning")
    for setting in dataclasses.fields(Settings):
        default = setting.default
        group.add_argument(_flag(setting.name), dest=setting.name, type=type(default),
                           default=default, metavar=type(default).__name__.upper(),
                           help=f"{setting.metadata['help']} (default {default})")


def from_arguments(args: argparse.Namespace) -> Settings:
    """The settings given on the command line."""
    return Settings(**{setting.name: getattr(args, setting.name)
                       for setting in dataclasses.fields(Settings)})
