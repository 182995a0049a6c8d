"""Which command id appended which events, for one campaign: what idempotent retries need.

A retried command must get its original answer however old it is, so every id the campaign
accepted counts; held in memory for every campaign that would grow with the log (~150 MB for a
million commands). The hub instead keeps the ids it accepted lately (a retry usually follows
its original within seconds, and a hub loaded holds the commands of the campaign's last events:
:meth:`CommandIndex.hold_latest`) and answers those from here. Any other id is decided as a new
command: if it is an older command's retry after all, the log's unique ``(campaign,
command_id)`` refuses to append it and answers with its record, and if deciding it again
refused it (a character created by it exists now, say), the hub reads the refused ids in the
log's ``commands`` table before answering (:mod:`poolhall.server.command_lookups`). A new
command, nearly every one, costs no read: reading every batch's new ids first cost a paced
table ~70 µs of CPU a command (one statement a command, right after a commit).
"""

from __future__ import annotations

from collections import OrderedDict

from poolhall.events.log import CommandRecord, ServerLog

__all__ = ["LATEST_EVENTS_READ", "RECENT_COMMANDS", "CommandIndex"]

RECENT_COMMANDS = 64
"""Command ids a hub remembers without asking the log (the latest accepted).

Only a retry is ever found here (a new id never is), and one that is not is caught by the
log (see above). So few are kept: every loaded campaign holds this many (~250 bytes each),
and 1,024 of them for each of 2,000 loaded tables would have grown the server by ~500 MB
(15 MB a minute at 1,000 commands/s)."""


LATEST_EVENTS_READ = 2 * RECENT_COMMANDS
"""Events read when a campaign is loaded for the commands that appended them (most commands
append one event, some a few)."""


class CommandIndex:
    """A campaign's command ids: the recent ones held, the others read from the log."""

    def __init__(self, log: ServerLog | None, campaign: str, *,
                 recent: int = RECENT_COMMANDS) -> None:
        self._log = log
        self._campaign = campaign
        self._recent: OrderedDict[str, CommandRecord] = OrderedDict()
        self._limit = recent

    def __len__(self) -> int:
        return len(self._recent)

    def __contains__(self, command_id: object) -> bool:
        return command_id in self._recent

    def get(self, command_id: str) -> CommandRecord | None:
        """The record of a command id among those held (after :meth:`look_up`)."""
        return self._recent.get(command_id)

    def add(self, command_id: str, record: CommandRecord) -> None:
        """Hold a command the campaign accepted (or found in the log)."""
        self._recent[command_id] = record
        self._recent.move_to_end(command_id)
        while len(self._recent) > self._limit:
            self._recent.popitem(last=False)

    __setitem__ = add

    def hold_latest(self, head: int) -> None:
        """Hold the commands of the campaign's last events, up to ``head`` (read from the log
        when the campaign is loaded): a client that sent a command just before a restart or
        an unload retries it once it is back, and is answered from here, not by deciding it
        again for the log to refuse (which costs the campaign a reload)."""
        if self._log is None:
            return
        after = max(0, head - LATEST_EVENTS_READ)
        rows = self._log.read(self._campaign, after=after, upto=head, limit=LATEST_EVENTS_READ)
        records: dict[str, CommandRecord] = {}  # in the order the commands were appended
        for row in rows:
            first = records.get(row.command_id)
            records[row.command_id] = CommandRecord(
                row.actor, first.first_seq if first else row.seq, row.seq)
        if after > 0 and rows:  # the first command read may have begun before the rows read
            del records[rows[0].command_id]
        for command_id, record in records.items():
            self.add(command_id, record)

    def missing(self, ids: list[str]) -> list[str]:
        """Those of ``ids`` not held, once each: what the log is asked for (none when the
        index has no log, as in tests of the hub's logic)."""
        if self._log is None:
            return []
        return [command_id for command_id in dict.fromkeys(ids)
                if command_id not in self._recent]

    def hold(self, records: dict[str, CommandRecord]) -> None:
        """Hold the records the log answered for :meth:`missing` ids."""
        for command_id, record in records.items():
            self.add(command_id, record)

    def look_up(self, ids: list[str]) -> None:
        """Read from the log the records of those ``ids`` not held, and hold the ones it has.
        Raises what the log raises if it cannot be read. (The server's hubs read theirs
        together instead: :mod:`poolhall.server.command_lookups`.)"""
        missing = self.missing(ids)
        if missing and self._log is not None:
            self.hold(self._log.command_records(self._campaign, missing))
