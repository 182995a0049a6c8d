"""The sans-I/O limits: token buckets, in-flight and connection caps, with an injected clock."""

from __future__ import annotations

import pytest

from poolhall.events.errors import Rejected
from poolhall.server.rates import IN_FLIGHT_RETRY, Limits, TokenBucket, member_key
from poolhall.server.settings import Settings


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def limits(**settings: float) -> tuple[Limits, Clock]:
    clock = Clock()
    return Limits(Settings(**settings), clock), clock  # type: ignore[arg-type]


def refusal(call, *args) -> Rejected:  # type: ignore[no-untyped-def]
    with pytest.raises(Rejected) as refused:
        call(*args)
    return refused.value


def test_a_bucket_gives_its_burst_then_one_token_per_interval() -> None:
    """A full bucket gives ``burst`` tokens at once, then says how long until the next one."""
    bucket = TokenBucket(rate=4.0, burst=3, now=0.0)
    for _ in range(3):
        assert bucket.wait(0.0) == 0.0
        bucket.take(0.0)
    assert bucket.wait(0.0) == pytest.approx(0.25)
    assert bucket.wait(0.1) == pytest.approx(0.15)
    assert bucket.wait(0.25) == 0.0
    assert not bucket.full(0.5)
    assert bucket.full(1.0)


def test_a_member_over_their_rate_is_told_when_to_retry() -> None:
    """Past the burst a command is refused ``rate_limited`` with a retry_after that works."""
    rates, clock = limits(member_rate=2.0, member_burst=3)
    han = member_key("c", "han", False)
    for _ in range(3):
        rates.admit_command(han, "c")
        rates.finish_command(han)
    refused = refusal(rates.admit_command, han, "c")
    assert refused.code == "rate_limited"
    assert refused.retry_after == 0.5
    assert refused.message == "too many commands; retry in 0.5 s"
    clock.now += refused.retry_after
    rates.admit_command(han, "c")


def test_a_refused_command_spends_nothing() -> None:
    """Retrying too early many times does not push the retry further away."""
    rates, clock = limits(member_rate=1.0, member_burst=1)
    han = member_key("c", "han", False)
    rates.admit_command(han, "c")
    for _ in range(50):
        refusal(rates.admit_command, han, "c")
    clock.now += 1.0
    rates.admit_command(han, "c")


def test_one_member_over_their_rate_leaves_the_others_alone() -> None:
    """Another member of the same campaign and another campaign keep their own buckets."""
    rates, _ = limits(member_rate=1.0, member_burst=2)
    han = member_key("c", "han", False)
    for _ in range(2):
        rates.admit_command(han, "c")
    refusal(rates.admit_command, han, "c")
    rates.admit_command(member_key("c", "leia", False), "c")
    rates.admit_command(member_key("d", "han", False), "d")


def test_a_campaign_has_a_rate_of_its_own() -> None:
    """Members within their own rate are refused once the table's rate is spent."""
    rates, clock = limits(member_rate=100.0, member_burst=100, campaign_rate=10.0,
                          campaign_burst=4)
    for name in ("a", "b", "c", "d"):
        rates.admit_command(member_key("c", name, False), "c")
    refused = refusal(rates.admit_command, member_key("c", "e", False), "c")
    assert refused.code == "rate_limited"
    assert refused.retry_after == 0.1
    assert "this table" in refused.message
    rates.admit_command(member_key("other", "e", False), "other")
    clock.now += 0.1
    rates.admit_command(member_key("c", "e", False), "c")


def test_the_in_flight_cap_counts_all_of_a_members_connections() -> None:
    """In-flight commands are counted per member, so more connections do not raise the cap."""
    rates, _ = limits(member_in_flight=2)
    han = member_key("c", "han", False)
    rates.admit_command(han, "c")  # on one connection
    rates.admit_command(han, "c")  # on another: the same key
    refused = refusal(rates.admit_command, han, "c")
    assert refused.code == "rate_limited"
    assert refused.retry_after == IN_FLIGHT_RETRY
    assert refused.message == "too many commands in flight (2); retry in 0.1 s"
    rates.finish_command(han)
    rates.admit_command(han, "c")
    assert rates.load_of(han) == (0, 2)


def test_the_connection_cap_refuses_the_next_connection_until_one_closes() -> None:
    """The N+1th connection of a token is refused with a clear message naming the token."""
    rates, _ = limits(member_connections=2)
    watcher = member_key("c", "watcher", False)
    rates.admit_join(watcher)
    rates.admit_join(watcher)
    refused = refusal(rates.admit_join, watcher)
    assert (refused.code, refused.path) == ("too_many_connections", "$.token")
    assert refused.message == ("this token already has 2 connections open; close one first (one"
                               " that dropped without closing counts until the server notices,"
                               " within 40 s)")
    rates.release_connection(watcher)
    rates.admit_join(watcher)
    assert rates.load_of(watcher) == (2, 0)


def test_joins_are_rate_limited_per_member() -> None:
    """A join storm from one token is refused ``rate_limited`` on the token."""
    rates, clock = limits(join_rate=5.0, join_burst=2, member_connections=100)
    han = member_key("c", "han", False)
    rates.admit_join(han)
    rates.admit_join(han)
    refused = refusal(rates.admit_join, han)
    assert (refused.code, refused.path, refused.retry_after) == ("rate_limited", "$.token", 0.2)
    rates.admit_join(member_key("c", "leia", False))
    clock.now += 0.2
    rates.admit_join(han)


def test_the_admin_token_is_one_member_everywhere() -> None:
    """The admin token's key is the same with or without a campaign."""
    assert member_key("c", "admin", True) == member_key(None, "admin", True)
    assert member_key("c", "han", False) != member_key("d", "han", False)


def test_idle_members_are_forgotten_and_busy_ones_kept() -> None:
    """Past the sweep size, only members with nothing open and full buckets are dropped."""
    rates, clock = limits(member_rate=1.0, member_burst=1)
    rates.SWEEP_AT = 3
    busy = member_key("c", "busy", False)
    rates.admit_join(busy)
    spent = member_key("c", "spent", False)
    rates.admit_command(spent, "c")
    rates.finish_command(spent)
    rates.admit_command(member_key("c", "idle", False), "c")
    rates.finish_command(member_key("c", "idle", False))
    clock.now += 0.5  # "idle" is not full yet either
    rates.admit_join(member_key("c", "new", False))
    assert len(rates._members) == 4
    clock.now += 1.0
    rates.admit_join(member_key("c", "newer", False))
    assert rates.load_of(busy) == (1, 0)
    assert set(rates._members) == {busy, member_key("c", "new", False),
                                   member_key("c", "newer", False)}
