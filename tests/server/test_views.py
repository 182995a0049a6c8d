"""The bookkeeping of expensive views, without processes: cache, coalescing, bounds."""

from __future__ import annotations

from poolhall.events.base import ViewData
from poolhall.events.messages import View
from poolhall.server.views import Compute, NotComputed, ResultCache, ViewQueue, ViewResult, computed


class Doubled(ViewData, frozen=True, kw_only=True, tag="doubled"):
    """A view for these tests: a number, and its double computed "off the loop"."""

    pool: int
    odds: int | None = None
    note: str = ""


def double(n: int) -> ViewResult:
    return {"odds": n * 2}


def spec(n: int, about: str = "check:shot") -> Compute:
    return Compute(about=about, data=Doubled(pool=n), function=double, input=n)


def queue(cache_size: int = 16, in_flight: int = 1, backlog: int = 8) -> ViewQueue:
    return ViewQueue(ResultCache(cache_size), in_flight=in_flight, backlog=backlog)


def test_a_result_already_computed_is_sent_at_once() -> None:
    """The same input seen again (a join, a pool built back) costs a lookup, no computation."""
    views = queue()
    assert views.offer(spec(3)) is None
    ((key, job),) = views.take()
    assert views.finished(key, job, double(3)) == View(about="check:shot",
                                                       data=Doubled(pool=3, odds=6))
    assert views.offer(spec(3)) == View(about="check:shot", data=Doubled(pool=3, odds=6))
    assert views.take() == []
    assert views.started == 1


def test_a_burst_of_changes_computes_the_first_and_the_last() -> None:
    """While one computation runs, newer inputs replace each other; the stale result is not
    sent, and only the latest input is computed next."""
    views = queue()
    views.offer(spec(1))
    ((key, first),) = views.take()
    for n in range(2, 10):
        assert views.offer(spec(n)) is None
    assert views.take() == []  # one computation per view at a time
    assert views.finished(key, first, double(1)) is None
    ((key, last),) = views.take()
    assert last == (double, 9)
    view = views.finished(key, last, double(9))
    assert view is not None
    assert view.data == Doubled(pool=9, odds=18)
    assert views.started == 2
    assert views.running == views.waiting == 0


def test_a_ready_view_replaces_a_computation_in_flight() -> None:
    """A check rolled while its odds are computed gets its rolled view, never the late odds."""
    views = queue()
    views.offer(spec(4))
    ((key, job),) = views.take()
    rolled = View(about="check:shot", data=Doubled(pool=4, note="rolled"))
    assert views.offer(rolled) is rolled
    assert views.finished(key, job, double(4)) is None
    assert views.take() == []


def test_a_newer_input_already_cached_is_sent_when_the_stale_one_returns() -> None:
    """Built back to a pool seen before, the view is sent at once and the stale result dropped."""
    views = queue()
    views.offer(spec(1))
    ((key, job),) = views.take()
    views.finished(key, job, double(1))
    views.offer(spec(2))
    ((key, job),) = views.take()
    assert views.offer(spec(1)) == View(about="check:shot", data=Doubled(pool=1, odds=2))
    assert views.finished(key, job, double(2)) is None
    assert views.take() == []


def test_campaign_work_is_bounded_and_says_what_was_not_computed() -> None:
    """Past the in-flight limit views wait; past the backlog their view says no odds, and why."""
    views = queue(in_flight=2, backlog=2)
    for check in ("a", "b", "c", "d"):
        assert views.offer(spec(1, f"check:{check}")) is None
        views.take()  # as the hub does after every change
    assert views.running == 2
    assert views.waiting == 2
    refused = views.offer(spec(1, "check:e"))
    assert refused is not None
    assert isinstance(refused.data, Doubled)
    assert refused.data.odds is None
    assert refused.data.note.startswith("odds not computed: too many views are waiting")
    assert views.offer(spec(2, "check:c")) is None  # a view already waiting is only updated


def test_a_failed_computation_says_why_and_is_not_cached() -> None:
    """A worker that fails or runs out of time: the view is sent without odds, with a note."""
    views = queue()
    views.offer(spec(5))
    ((key, job),) = views.take()
    view = views.finished(key, job, NotComputed("took longer than 5s"))
    assert view is not None
    assert view.data == Doubled(pool=5, note="odds not computed: took longer than 5s")
    assert views.offer(spec(5)) is None  # asked again, computed again


def test_views_about_different_things_keep_their_own_computation() -> None:
    """Two declared tests are two things at the table: each keeps its own computation."""
    views = queue(in_flight=2)
    for character in ("sam", "deck"):
        views.offer(Compute(about=f"test:{character}", data=Doubled(pool=1), function=double,
                            input=len(character)))
    assert [key for key, _ in views.take()] == ["test:sam", "test:deck"]


def test_the_cache_forgets_the_least_recently_used() -> None:
    """The cache keeps its size: the result used longest ago goes first."""
    cache = ResultCache(2)
    cache.put((double, 1), {"odds": 2})
    cache.put((double, 2), {"odds": 4})
    assert cache.get((double, 1)) == {"odds": 2}
    cache.put((double, 3), {"odds": 6})
    assert cache.get((double, 2)) is None
    assert len(cache) == 2


def test_computed_gives_the_complete_views_in_place() -> None:
    """Tools and tests can compute declared views directly, off any server."""
    ready = View(about="x", data=Doubled(pool=0))
    assert computed([ready, spec(2)]) == [ready, View(about="check:shot",
                                                      data=Doubled(pool=2, odds=4))]
