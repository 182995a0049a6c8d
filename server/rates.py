"""How much one member may ask of the server: command and join rates, in-flight and connection caps.

One member on four connections once got 3,720 rolls/s accepted (17 GB of log an hour) and raised
other tables' p99 from 2.6 ms to 85 ms; a spectator token opened 300 reading connections. These
limits are checked in the server before anything reaches a hub, so a refused command costs a
dictionary lookup and changes nothing.

This module is the sans-I/O core: no sockets, and the clock is injected, so the arithmetic is
unit-tested without waiting. :class:`Limits` keeps, per member, a token bucket of commands and
one of joins, and counts their open connections and in-flight commands; per campaign, a token
bucket of commands. A member is keyed by campaign and member id; the admin token is one member
wherever it acts (:func:`member_key`). Refusals are :class:`~poolhall.events.errors.Rejected` with
code ``rate_limited`` and a ``retry_after`` in seconds, or ``too_many_connections``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from poolhall.events.errors import Rejected
from poolhall.server.settings import Settings

__all__ = ["IN_FLIGHT_RETRY", "Limits", "MemberKey", "TokenBucket", "member_key"]

MemberKey = tuple[str, str]
"""(campaign, member id); ``("", "admin")`` for the admin token, one member everywhere."""

IN_FLIGHT_RETRY = 0.1
"""Seconds a command refused for too many in flight is told to wait: answers come in
milliseconds, so a short wait is enough and a client that honours it does not hammer."""


def member_key(campaign: str | None, member: str, admin: bool) -> MemberKey:
    """The key a member's limits are kept under."""
    return ("", member) if admin or campaign is None else (campaign, member)


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up; one token per action."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = float(max(burst, 1))
        self.tokens = self.burst
        self.stamp = now

    def _refill(self, now: float) -> None:
        """Add what ``rate`` earned since ``stamp`` (nothing for a clock that went back, nor
        again for the same instant: every command refills each bucket up to three times)."""
        if now > self.stamp:
            self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
            self.stamp = now

    def wait(self, now: float, cost: float = 1.0) -> float:
        """Seconds until ``cost`` tokens are available; 0.0 if they are now."""
        self._refill(now)
        if self.tokens >= cost:
            return 0.0
        if self.rate <= 0:
            return math.inf
        return (cost - self.tokens) / self.rate

    def take(self, now: float, cost: float = 1.0) -> None:
        """Spend ``cost`` tokens (call only after :meth:`wait` said they are there)."""
        self._refill(now)
        self.tokens -= cost

    def full(self, now: float) -> bool:
        """True once the bucket has refilled completely: forgetting it changes nothing."""
        self._refill(now)
        return self.tokens >= self.burst


@dataclass(kw_only=True)
class _MemberLoad:
    commands: TokenBucket
    joins: TokenBucket
    connections: int = 0
    in_flight: int = 0


@dataclass
class Limits:
    """Every member's and campaign's current load, checked before work reaches a hub."""

    settings: Settings
    clock: Callable[[], float]
    _members: dict[MemberKey, _MemberLoad] = field(default_factory=dict)
    _campaigns: dict[str, TokenBucket] = field(default_factory=dict)
    _replays: dict[str, TokenBucket] = field(default_factory=dict)

    SWEEP_AT = 4096
    """Entries kept before idle ones (no connection, nothing in flight, buckets full) are
    forgotten: members are bounded by the campaigns' own state, but a long-lived server
    should not keep a bucket for everyone who ever joined."""

    def _member(self, key: MemberKey, now: float) -> _MemberLoad:
        load = self._members.get(key)
        if load is None:
            if len(self._members) >= self.SWEEP_AT:
                self._sweep(now)
            s = self.settings
            load = _MemberLoad(commands=TokenBucket(s.member_rate, s.member_burst, now),
                               joins=TokenBucket(s.join_rate, s.join_burst, now))
            self._members[key] = load
        return load

    def _sweep(self, now: float) -> None:
        for key, load in list(self._members.items()):
            if (not load.connections and not load.in_flight and load.commands.full(now)
                    and load.joins.full(now)):
                del self._members[key]
        for buckets in (self._campaigns, self._replays):
            for campaign, bucket in list(buckets.items()):
                if bucket.full(now):
                    del buckets[campaign]

    # ---- joins and connections --------------------------------------------------------

    def admit_join(self, key: MemberKey) -> None:
        """Count a new connection of ``key``, or refuse it (join rate, connection cap).

        Raises :class:`Rejected`; on success the caller must :meth:`release_connection`.
        """
        now = self.clock()
        load = self._member(key, now)
        wait = load.joins.wait(now)
        if wait > 0:
            raise _rate_limited("too many joins", wait, "$.token")
        load.joins.take(now)
        cap = self.settings.member_connections
        if load.connections >= cap:
            # a phone whose network dropped still counts until the keepalive finds it gone:
            # the player saw "close one first" with nothing to close
            noticed = 2 * self.settings.ping_interval
            within = f" (one that dropped without closing counts until the server notices, " \
                f"within {noticed:g} s)" if noticed > 0 else ""
            raise Rejected("too_many_connections",
                           f"this token already has {cap} connections open; close one"
                           f" first{within}", "$.token")
        load.connections += 1

    def admit_replay(self, campaign: str, events: int) -> None:
        """Charge a join that will be sent ``events`` events from the log (a ``replay``, or a
        resume) to its campaign's replay budget, or refuse it with ``rate_limited``.

        Replaying costs the server in proportion to the events sent: eight members joining a
        30,000-event campaign with ``replay`` as fast as the join rate allows made the server
        send ~500,000 frames a second and raised another table's p99 past 20 ms. One replay
        of any size goes through when the budget is not in debt (the budget then owes it,
        repaid at ``replay_rate``), so a tool may always read a whole campaign, only not over
        and over.
        """
        now = self.clock()
        bucket = self._replays.get(campaign)
        if bucket is None:
            bucket = TokenBucket(self.settings.replay_rate, self.settings.replay_burst, now)
            self._replays[campaign] = bucket
        wait = bucket.wait(now)
        if wait > 0:
            raise _rate_limited("too many events replayed at this table", wait, "$.since")
        bucket.tokens -= events

    def release_connection(self, key: MemberKey) -> None:
        """A connection counted by :meth:`admit_join` closed (or its join was refused)."""
        load = self._members.get(key)
        if load is not None and load.connections > 0:
            load.connections -= 1

    # ---- commands ---------------------------------------------------------------------

    def admit_command(self, key: MemberKey, campaign: str | None) -> None:
        """Count a command of ``key`` in flight, or refuse it with ``rate_limited``.

        The in-flight cap is checked first, so a refused command spends no rate token; both
        buckets are checked before either is spent, so a refusal costs the member nothing.
        On success the caller must :meth:`finish_command` once it is answered.
        """
        now = self.clock()
        load = self._member(key, now)
        cap = self.settings.member_in_flight
        if load.in_flight >= cap:
            raise _rate_limited(f"too many commands in flight ({cap})", IN_FLIGHT_RETRY)
        wait = load.commands.wait(now)
        bucket = None
        if campaign is not None:
            bucket = self._campaigns.get(campaign)
            if bucket is None:
                bucket = TokenBucket(self.settings.campaign_rate, self.settings.campaign_burst,
                                     now)
                self._campaigns[campaign] = bucket
            table_wait = bucket.wait(now)
            if table_wait > wait:
                raise _rate_limited("too many commands at this table", table_wait)
        if wait > 0:
            raise _rate_limited("too many commands", wait)
        load.commands.take(now)
        if bucket is not None:
            bucket.take(now)
        load.in_flight += 1

    def refuse_if_spent(self, key: MemberKey) -> None:
        """Refuse (``rate_limited``) a frame of ``key`` while the member has no command token
        left, before it is decoded: across several connections a member's refused frames
        were still decoded each time a connection's pause ended (80 a second on 8
        connections), so the rate must be checked before any decoding, not after."""
        now = self.clock()
        wait = self._member(key, now).commands.wait(now)
        if wait > 0:
            raise _rate_limited("too many commands", wait)

    def charge_refusal(self, key: MemberKey) -> float:
        """Spend one of ``key``'s command tokens on a frame refused before it became work
        (malformed, invalid, unknown type): decoding and answering it costs the server what a
        command does, so refused frames must not be a way past the rate. Returns how long to
        leave the member's frames unread (0 while tokens are left)."""
        now = self.clock()
        load = self._member(key, now)
        wait = load.commands.wait(now)
        if wait > 0:
            return wait
        load.commands.take(now)
        return 0.0

    def finish_command(self, key: MemberKey) -> None:
        """A command counted by :meth:`admit_command` was answered (or never submitted)."""
        load = self._members.get(key)
        if load is not None and load.in_flight > 0:
            load.in_flight -= 1

    def load_of(self, key: MemberKey) -> tuple[int, int]:
        """``(open connections, commands in flight)`` of a member, for tests and logs."""
        load = self._members.get(key)
        return (load.connections, load.in_flight) if load is not None else (0, 0)


def _rate_limited(what: str, wait: float, path: str | None = None) -> Rejected:
    """``rate_limited``, saying when to retry (rounded up, so retrying then succeeds)."""
    retry_after = math.ceil(min(wait, 3600.0) * 100) / 100
    return Rejected("rate_limited", f"{what}; retry in {_seconds(retry_after)}", path,
                    retry_after=retry_after)


def _seconds(value: float) -> str:
    """``0.3 s``, ``12 s``: rounded up, so a client waiting that long is not refused again."""
    return f"{math.ceil(value * 10) / 10:.1f} s" if value < 10 else f"{math.ceil(value)} s"
