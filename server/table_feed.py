"""The ``table`` message for clients that show the table without folding events (the page).

The browser table never implements a rule, so it cannot fold events onto a snapshot as the
Python client does. A client that joins with ``table`` gets, instead, the table as the hub's
state answers it (:class:`poolhall.projections.snapshot.TableNow`) after its join, after every batch
that changed the state, and when someone connects or leaves (the message says who is connected).
The message is built and encoded once per change whatever the number of such clients, and not
at all while none is connected, so tables of Python clients pay nothing for it.

Who is connected is counted here, per connection, for this process. With several processes on
one log (PostgreSQL), each change of this process's connections by member is handed to
``publish`` (:mod:`poolhall.server.shared_presence` writes it to the presence board), and the
members connected through the other processes arrive in :meth:`TableFeed.elsewhere`: the
message names the members connected anywhere. A SQLite server gives no ``publish``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from poolhall.events.codec import encode
from poolhall.projections.campaign import CampaignState
from poolhall.projections.snapshot import table_now_of
from poolhall.server.subscriber import Subscriber

__all__ = ["TableFeed"]


class TableFeed:
    """One campaign's watchers of the ``table`` message and who is connected."""

    def __init__(self, publish: Callable[[dict[str, int]], None] | None = None,
                 dice_wait: Callable[[], bool] = lambda: False) -> None:
        self._watchers: set[Subscriber] = set()
        self._dice_wait = dice_wait
        """Whether every roll waits for the GM (the hub's seeds know: a table message says so
        to every page, the GM's first, not only to whoever tried to roll)."""
        self._connected: Counter[str] = Counter()
        self._members: dict[Subscriber, str] = {}
        self._publish = publish
        """Told this process's connections by member whenever its set of members changes."""
        self._elsewhere: frozenset[str] = frozenset()
        """The members connected through other processes (a shared log)."""

    def joined(self, subscriber: Subscriber, member: str | None, wants_table: bool) -> bool:
        """Count a member's connection (``None``: the admin, never shown); returns whether the
        set of members shown connected changed."""
        if wants_table:
            self._watchers.add(subscriber)
        if member is None or subscriber in self._members:
            return False
        self._members[subscriber] = member
        self._connected[member] += 1
        self._counted()
        return self._connected[member] == 1 and member not in self._elsewhere

    def left(self, subscriber: Subscriber) -> bool:
        """Forget a connection; returns whether the set of members shown connected changed."""
        self._watchers.discard(subscriber)
        member = self._members.pop(subscriber, None)
        if member is None:
            return False
        self._connected[member] -= 1
        if self._connected[member] > 0:
            self._counted()
            return False
        del self._connected[member]
        self._counted()
        return member not in self._elsewhere  # shown still if connected elsewhere

    def _counted(self) -> None:
        """Hand this process's connections by member to ``publish`` (a shared log)."""
        if self._publish is not None:
            self._publish(dict(self._connected))

    def elsewhere(self, members: frozenset[str]) -> bool:
        """The members connected through the other processes now; returns whether the set of
        members shown connected changed."""
        before = self.shown()
        self._elsewhere = members
        return self.shown() != before

    def shown(self) -> list[str]:
        """The members connected, here or through another process, in order."""
        if not self._elsewhere:
            return sorted(self._connected)
        return sorted(self._connected.keys() | self._elsewhere)

    def frame(self, state: CampaignState) -> bytes:
        """The encoded table message of ``state`` as it stands."""
        return encode(table_now_of(state, self.shown(), self._dice_wait()))

    def send_to(self, subscriber: Subscriber, state: CampaignState) -> None:
        """Queue the table for one watcher (after its join)."""
        if subscriber in self._watchers:
            subscriber.push(self.frame(state))

    def broadcast(self, state_for: Callable[[Subscriber], CampaignState]) -> None:
        """Queue the table for every watcher (after a change); nothing when none watches.
        ``state_for`` gives the table each watcher sees (the hub's state, or the public
        table while a private roll is pending: :mod:`poolhall.server.audience`); each distinct table
        is encoded once."""
        if not self._watchers:  # a table of Python clients: nothing to do after each batch
            return
        watchers = [s for s in self._watchers if not s.dropped]
        self._watchers.difference_update([s for s in self._watchers if s.dropped])
        encoded: dict[int, bytes] = {}
        for subscriber in watchers:
            state = state_for(subscriber)
            frame = encoded.get(id(state))
            if frame is None:
                frame = encoded[id(state)] = self.frame(state)
            subscriber.push(frame)
