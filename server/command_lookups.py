"""The command ids hubs read from the log, read together once a turn of the event loop.

A hub reads from the log's ``commands`` table the ids it does not hold
(:mod:`poolhall.server.command_index`) of the commands deciding refused, and, while the log
fails, of every command of a batch: so that a retry of an older command gets its recorded
answer, however old. The statement is not cheap at a busy server: the writer commits all the
time, and each commit makes a read connection start its page cache over (~25 µs for a
statement that costs 5 µs on a quiet file).

A commit wakes every hub that had a command in it, and each starts its next batch in the
same turn of the loop. :class:`CommandLookups` holds their look-ups until the end of that
turn and reads them in one statement (:meth:`EventLog.command_records_by_campaign
<poolhall.events.log_contract.EventLog.command_records_by_campaign>`); each hub then answers
with what it learned, as before. What a hub learns is exactly what its own statement told it: the
records the log holds for its ids when it is read, after the hub asked. The price is the wait
for the end of the turn (the hubs woken with it run first).
"""

from __future__ import annotations

import asyncio
import logging

from poolhall.events.log import CommandRecord, EventLog
from poolhall.server.command_index import CommandIndex

__all__ = ["CommandLookups"]

logger = logging.getLogger(__name__)

_Waiting = tuple[str, list[str], "asyncio.Future[dict[str, CommandRecord]]"]


class CommandLookups:
    """Look-ups of command ids for every hub of a server, read together once a loop turn."""

    def __init__(self, log: EventLog) -> None:
        self._log = log
        self._waiting: list[_Waiting] = []
        """The look-ups asked for in this turn of the loop: campaign, ids, who waits."""
        self.statements = 0
        """Statements read so far (for tests and operators)."""

    def look_up(self, campaign: str, ids: list[str]
                ) -> asyncio.Future[dict[str, CommandRecord]]:
        """The records the log holds for ``ids`` of ``campaign`` (the others left out), read
        with the other look-ups asked for in this turn of the loop; the future raises what
        the log raised if it could not be read."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[dict[str, CommandRecord]] = loop.create_future()
        self._waiting.append((campaign, ids, future))
        if len(self._waiting) == 1:  # read after what is ready to run now has asked too
            loop.call_soon(self._read)
        return future

    async def fill(self, index: CommandIndex, campaign: str, ids: list[str]) -> bool:
        """Hold in ``index`` the records the log has of those ``ids`` it does not hold;
        ``False`` (and logged) if the log could not be read."""
        try:
            missing = index.missing(ids)
            if missing:
                index.hold(await self.look_up(campaign, missing))
        except Exception:
            logger.exception("reading the command ids of %s failed", campaign)
            return False
        return True

    def _read(self) -> None:
        """Read every look-up asked for since the last read, in one statement."""
        waiting, self._waiting = self._waiting, []
        wanted: dict[str, list[str]] = {}
        for campaign, ids, _ in waiting:
            wanted.setdefault(campaign, []).extend(ids)
        self.statements += 1
        try:
            found = self._log.command_records_by_campaign(wanted)
        except Exception as error:  # each hub refuses its batch (and logs why)
            for _, _, future in waiting:
                if not future.done():
                    future.set_exception(error)
            return
        for campaign, ids, future in waiting:
            if not future.done():
                records = found.get(campaign, {})
                future.set_result({command_id: records[command_id] for command_id in ids
                                   if command_id in records})
