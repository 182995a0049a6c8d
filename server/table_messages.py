"""A campaign member's messages, once joined: reads answered at once, commands queued on the
campaign's hub.

History pages, the table at a seq (and its views, computed in the background), report
tickets and the owner's list of campaigns are reads: admitted like a command against the
member's rates and in flight until answered, but no hub work. Everything else is a command
for the hub, whose answer ends its time in flight (:attr:`CommandWork.answered
<poolhall.server.hub_work.CommandWork.answered>`).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable
from typing import Any

from poolhall.events.codec import encode
from poolhall.events.errors import Rejected
from poolhall.events.messages import History, ReportReady, ReportRequest, StateAt
from poolhall.projections.campaign import CampaignState, Member
from poolhall.server.hub import CampaignHub, CommandWork
from poolhall.server.loaded_campaigns import LoadedCampaigns
from poolhall.server.rates import Limits, MemberKey
from poolhall.server.replay_links import replay_first, replay_request
from poolhall.server.report_page import ReportPages
from poolhall.server.rules.core import require_session
from poolhall.server.subscriber import Subscriber

__all__ = ["TableMessages"]

logger = logging.getLogger("poolhall.server.app")  # one name for the server's lines


class TableMessages:
    """Answers a joined member's messages; one for the server, shared by every connection."""

    def __init__(self, loaded: LoadedCampaigns, limits: Limits, reports: ReportPages) -> None:
        self.loaded = loaded
        self.limits = limits
        self.reports = reports
        self._background: set[asyncio.Task[None]] = set()
        """Views of past tables being computed for the connections that asked."""

    async def at_table(self, hub: CampaignHub, member: Member, key: MemberKey, message: Any,
                        subscriber: Subscriber) -> None:
        """A message of a campaign's member: its reads answered here, its commands queued on
        the hub."""
        if self.loaded.stopping:  # not rate_limited: the answer that tells it to retry
            raise Rejected("shutting_down", "the server is shutting down; retry shortly", None)
        if member.role == "replay":  # a replay link: its replay's reads only
            message = replay_request(hub.state, member, message)
        self.limits.admit_command(key, hub.campaign)  # before any hub work
        match message:
            case History():  # a read, not a command: no hub queue
                await self.read(key, hub.reads.history_page(message, subscriber.member), subscriber,
                                 f"reading history of {hub.campaign} failed")
            case ReportRequest():  # a page's ticket, no hub work
                try:
                    require_session(hub.state, message.session)  # as share_replay does
                    hidden = tuple(sorted(hub.hidden_from(subscriber.member).items()))
                    path = await self.reports.issue(hub.campaign, message.session,
                                                    hub.state.head, hidden)
                finally:
                    self.limits.finish_command(key)
                subscriber.push(encode(ReportReady(id=message.id, path=path)))
            case StateAt():  # a read too: the table at a seq
                await self._state_at(hub, member, key, message, subscriber)
            case _:
                try:
                    hub.submit(CommandWork(
                        command=message, member=member, subscriber=subscriber,
                        answered=functools.partial(self.limits.finish_command, key)))
                except Rejected:
                    self.limits.finish_command(key)
                    raise

    async def read(self, key: MemberKey, answer: Awaitable[bytes],
                    subscriber: Subscriber, failure: str | None = None) -> None:
        """Push a read's answer (admitted as a command, in flight until answered). With
        ``failure``, an error reading is logged so and answered ``unavailable``."""
        try:
            subscriber.push(await answer)
        except Exception:
            if failure is None:
                raise
            logger.exception("%s", failure)
            raise Rejected("unavailable", "the log could not be read; retry shortly",
                           None) from None
        finally:
            self.limits.finish_command(key)

    async def _state_at(self, hub: CampaignHub, member: Member, key: MemberKey,
                        message: StateAt, subscriber: Subscriber) -> None:
        try:
            frame, past = await hub.reads.state_at(message, replay_first(hub.state, member),
                                             subscriber.member)
            subscriber.push(frame)
            if message.views:
                self._send_views_at(hub, message, past, subscriber)
        except Rejected:
            raise
        except Exception:
            logger.exception("reading the state of %s at #%d failed", hub.campaign,
                             message.seq)
            raise Rejected("unavailable", "the log could not be read; retry shortly",
                           None) from None
        finally:
            self.limits.finish_command(key)

    def _send_views_at(self, hub: CampaignHub, request: StateAt, state: CampaignState,
                       subscriber: Subscriber) -> None:
        """The views of a past table, sent when computed; the connection reads on meanwhile
        (odds of a big pool may take a worker a while)."""

        async def send() -> None:
            try:
                subscriber.push(await hub.reads.views_at(request, state))
            except Exception:  # derived data: a failure costs only the views
                logger.exception("the views of %s at #%d failed", hub.campaign, request.seq)

        task = asyncio.create_task(send(), name=f"views-at-{hub.campaign}")
        self._background.add(task)
        task.add_done_callback(self._background.discard)
