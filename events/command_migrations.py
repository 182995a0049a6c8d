"""The older layouts of the command index and of ``commands``, brought to this release's at
a writer's open (:class:`events.store.SqliteLog`), before
:meth:`events.command_keys.CommandKeys.load` reads the index.

Apart from :mod:`events.command_keys` so that it keeps to the index as it is now: these run
once a file, and say in the log what they rewrote.
"""

from __future__ import annotations

import logging
import sqlite3

from events.command_keys import (
    COMMANDS_TABLE,
    GEN_TABLE,
    GENS_TABLE,
    LEGACY_LIST,
    ONE_TABLE,
    gen_table,
    transaction,
)

__all__ = ["leave_the_one_table_layout", "migrate_commands"]

logger = logging.getLogger(__name__)


def migrate_commands(connection: sqlite3.Connection) -> bool:
    """Rewrite a ``commands`` table keyed by ``(campaign, command_id)`` (the old schema) as
    the append-ordered one, keeping each row's rowid as its ``id``; ``True`` if it did.

    Called once at open, in the caller's transaction. Its rows become the tail, which
    :meth:`events.command_keys.CommandKeys.load` then indexes as one generation.
    """
    columns = [row[1] for row in connection.execute("PRAGMA table_info(commands)")]
    if not columns or "id" in columns:
        return False
    connection.execute(COMMANDS_TABLE.format(name="commands_v2"))
    connection.execute(
        "INSERT INTO commands_v2 (id, campaign, command_id, actor, first_seq, last_seq)"
        " SELECT rowid, campaign, command_id, actor, first_seq, last_seq FROM commands"
        " ORDER BY rowid")
    connection.execute("DROP TABLE commands")  # its triggers go with it; the caller remakes them
    connection.execute("ALTER TABLE commands_v2 RENAME TO commands")
    return True


def leave_the_one_table_layout(connection: sqlite3.Connection) -> None:
    """Leave the tables of the one-table layout (``command_gens``, ``command_keys``), in
    one transaction. A file that only has that layout has each listed generation rewritten
    into a table of its own (each is already in key order, so this reads and appends: the
    first open of a log of a million commands took 2.2 s here, the next ones milliseconds).
    A file that has this release's list too was opened by an older release since, which
    kept an index of its own: that one is dropped, and this one's generations stand (the
    commands the older release added come after them, in the tail)."""
    names = {name for (name,) in connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (?, ?)",
        [LEGACY_LIST, ONE_TABLE])}
    if not names:
        return
    (ours,) = connection.execute(f"SELECT count(*) FROM {GENS_TABLE}").fetchone()
    split = not ours and names == {LEGACY_LIST, ONE_TABLE}
    gens: list[int] = []
    with transaction(connection):
        if split:
            gens = [gen for (gen,) in connection.execute(f"SELECT gen FROM {LEGACY_LIST}")]
            for gen in gens:
                connection.execute(f"DROP TABLE IF EXISTS {gen_table(gen)}")
                connection.execute(GEN_TABLE.format(table=gen_table(gen)))
                connection.execute(f"INSERT INTO {gen_table(gen)} (key, command) SELECT key,"
                                   f" command FROM {ONE_TABLE} WHERE gen = ?"
                                   " ORDER BY key, command", [gen])
            connection.execute(f"INSERT INTO {GENS_TABLE} SELECT gen, first, last, size"
                               f" FROM {LEGACY_LIST}")
        for name in sorted(names):
            connection.execute(f"DROP TABLE {name}")
    if split:
        logger.info("command index: %d generations of the one-table layout rewritten a table"
                    " each", len(gens))
    else:
        logger.info("command index: %s dropped (an older release's index)",
                    ", ".join(sorted(names)))
