"""Each game system's command-line hooks, by id (the systems are registered in events.systems).

The ``clients/<id>_cli.py`` modules are imported here by name, statically; a registered system
without a ``CLI`` here is refused at import, by name.
"""

from __future__ import annotations

from poolhall.clients import d12_cli, narrative_cli, sr3_cli
from poolhall.clients.contract import CliHooks
from poolhall.events.systems import check_registered

__all__ = ["CLI_HOOKS"]

CLI_HOOKS: dict[str, CliHooks] = {
    part.system: part for part in (narrative_cli.CLI, sr3_cli.CLI, d12_cli.CLI)
}
check_registered("command-line", CLI_HOOKS, "clients/systems.py")
