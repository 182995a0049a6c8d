"""The private rolls a client holds sealed, and which of them to read again once revealed.

A member who may not see a private roll receives it sealed (``private_roll``); when the
session ends, the server sends the rolls whole (``revealed``) to the members connected at that
moment, and to no one later. A client asleep then (a laptop's lid closed, a train in a tunnel)
resumed with the events it missed, the seed's reveal among them, but kept its rolls sealed for
good: ``Client.revealed`` stayed empty and ``poolhall watch`` never showed them. So once it has
resumed, a client reads again, from a history page (whole now), the sealed rolls it holds
whose epoch's seed it knows to be revealed, as the page does (``ph-app.js``, ``sealedLeft``).
"""

from __future__ import annotations

from collections.abc import Iterable

from poolhall.events.core import PrivateRoll
from poolhall.events.messages import HISTORY_LIMIT, EventFrame

__all__ = ["SealedRolls", "pages"]


class SealedRolls:
    """Each sealed roll's seq, with what tells when it is revealed: its epoch, else (a roll
    from before fair rolls, with no epoch) the last epoch revealed when it came."""

    def __init__(self) -> None:
        self._held: dict[int, tuple[int | None, int]] = {}
        self._whole: set[int] = set()
        """The seqs revealed to this client already: a reveal that comes twice (live, and
        read again on a resume that crossed it) is taken once."""

    def held(self, seq: int, sealed: PrivateRoll, revealed_epoch: int) -> None:
        """The client holds event ``seq`` sealed (folded, or in a snapshot's recent events);
        ``revealed_epoch`` is the last epoch whose seed the client knows revealed."""
        if seq not in self._whole:
            epoch = sealed.fair.epoch if sealed.fair is not None else None
            self._held[seq] = (epoch, revealed_epoch)

    def due(self, revealed_epoch: int) -> list[int]:
        """The sealed seqs whose seed is revealed now (``revealed_epoch``, the table's
        ``fair.revealed``): their events are whole in the server's log for everyone."""
        return sorted(seq for seq, (epoch, then) in self._held.items()
                      if (epoch <= revealed_epoch if epoch is not None
                          else revealed_epoch > then))

    def taken(self, frames: Iterable[EventFrame]) -> list[EventFrame]:
        """Of ``frames`` revealed, those not revealed to this client before; none is held
        sealed any more."""
        new = [frame for frame in frames if frame.seq not in self._whole
               and not isinstance(frame.event, PrivateRoll)]
        for frame in new:
            self._whole.add(frame.seq)
            self._held.pop(frame.seq, None)
        return new


def pages(seqs: list[int]) -> list[tuple[int, int]]:
    """The history pages (``before``, ``limit``) that hold every one of ``seqs`` (sorted):
    one per run of at most :data:`HISTORY_LIMIT` events."""
    spans: list[tuple[int, int]] = []
    first = last = seqs[0]
    for seq in seqs[1:]:
        if seq - first >= HISTORY_LIMIT:
            spans.append((last + 1, last - first + 1))
            first = seq
        last = seq
    spans.append((last + 1, last - first + 1))
    return spans
