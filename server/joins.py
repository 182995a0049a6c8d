"""Joins: who a connection's token is, and the session it opens (a campaign's, or the admin's).

Apart from :mod:`poolhall.server.app` because a join is the one place a token is checked, and its
order matters for what an outsider can learn: the failed-join throttle first, then the log's
issued tokens (before anything is loaded), then the exact check in the loaded state, then the
rates, then the join is queued in the campaign's hub. The connection loop calls
:meth:`Joins.join` once per connection.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from poolhall.events.codec import encode
from poolhall.events.errors import Rejected, StoreError
from poolhall.events.messages import Join, Welcome
from poolhall.projections.campaign import CampaignState, Member
from poolhall.server.auth import hash_token, tokens_match
from poolhall.server.gate import Gate
from poolhall.server.health import FailureLog
from poolhall.server.hub import CampaignHub, JoinWork
from poolhall.server.hub_joins import RESUME_LIMIT
from poolhall.server.join_refusals import removed_member_by_token, token_refused
from poolhall.server.loaded_campaigns import LoadedCampaigns
from poolhall.server.rates import Limits, member_key
from poolhall.server.replay_links import replay_welcome
from poolhall.server.rules.base import ADMIN_MEMBER
from poolhall.server.subscriber import Subscriber

__all__ = ["Joins", "member_by_token"]

logger = logging.getLogger("poolhall.server.app")  # one name for the server's lines

_EMPTY: Mapping[str, Any] = MappingProxyType({})


def member_by_token(state: CampaignState | None, token_hash: str) -> Member | None:
    """The active member a token hash belongs to: one dict lookup, then a constant-time check.

    A missing campaign (``None``) gets the same lookups in an empty index, so its answer takes
    as long as a wrong token's.
    """
    tokens = state.tokens if state is not None else _EMPTY
    members = state.members if state is not None else _EMPTY
    member = members.get(tokens.get(token_hash, ""))
    if member is None or not member.active:
        return None
    return member if tokens_match(member.token_hash, token_hash) else None


class Joins:
    """Checks a join's token and opens its session; owned by the server."""

    def __init__(self, campaigns: LoadedCampaigns, *, gate: Gate, limits: Limits) -> None:
        self._campaigns = campaigns
        self._gate = gate
        self._limits = limits
        self.admin_hash = hash_token("")
        """The admin token's hash, set by the server once it has read the token."""
        self._lookup_failures = FailureLog(logger, "looking up joins' tokens in the log",
                                           level=logging.WARNING)
        """While the log cannot be read every join fails alike, for a reason the operator
        sees in ``/health`` and the writer's lines: one line when it starts, at most one
        every 10 s while it lasts (not a traceback a join), one when lookups work again."""

    async def join(self, join: Join, subscriber: Subscriber) -> tuple[CampaignHub | None, Member]:
        """Join, unless the address failed too many joins lately; count a refused token.

        The throttle comes before any token work, so a source guessing tokens costs a dict
        lookup per attempt once it is refused.
        """
        refusal = self._gate.check_join(subscriber.connection)
        if refusal is not None:
            raise Rejected(refusal.code, refusal.message, None, retry_after=refusal.retry_after)
        try:
            return await self._open_session(join, subscriber)
        except Rejected as refused:
            if refused.code == "unauthorized":
                self._gate.join_failed(subscriber.connection)
            raise

    async def _open_session(self, join: Join,
                            subscriber: Subscriber) -> tuple[CampaignHub | None, Member]:
        """Check the token against the campaign; attach to its hub, or an admin session.

        Before anything is loaded, the log says which campaign the token was issued for (one
        indexed lookup by its hash: :mod:`poolhall.events.sqlite_backend.issued_tokens`, or
        ``PostgresLog.token_campaign``): a token not issued for this campaign is refused then,
        whether the campaign exists or not, is loaded or not, so a refusal's time tells an
        outsider nothing of which campaigns exist (loading one first took milliseconds a
        refusal for a missing one did not). A token issued there loads
        the campaign and gets the exact check: one lookup by hash in the loaded state,
        whatever the campaign's size.
        """
        token_hash = hash_token(join.token)
        is_admin = tokens_match(token_hash, self.admin_hash)
        if join.campaign is None:
            if not is_admin:
                raise Rejected("unauthorized", "only the admin token joins without a campaign",
                               "$.campaign")
            admin = Member(member=ADMIN_MEMBER, name="Admin", role="admin", characters=[],
                           token_hash=token_hash, admin=True)
            self._limits.admit_join(member_key(None, ADMIN_MEMBER, True))
            subscriber.push(encode(Welcome(role="admin", member=ADMIN_MEMBER, campaign=None,
                                           name="", system="", head=0)))
            return None, admin
        if self._campaigns.stopping:
            raise Rejected("shutting_down", "the server is shutting down; retry shortly", None)
        if not is_admin and await self._issued_for(token_hash) != join.campaign:
            raise token_refused(join.campaign)
        hub = await self._campaigns.hub_for(join.campaign)
        try:
            return await self._attach(hub, join, subscriber, token_hash, is_admin)
        except BaseException:
            if hub is not None:
                hub.unpin()
            raise

    async def _issued_for(self, token_hash: str) -> str | None:
        """The campaign the log says a token was issued for (one indexed statement); refused
        ``unavailable`` if the log cannot be read.

        A SQLite log answers on the event loop (its own file: microseconds). A shared log's
        answer comes over the network from a pool that, while the database is away, waits
        up to its timeout (2 s) for a connection: asked on the loop, every table of the
        process froze that long at each join, so it is asked from a thread."""
        log = self._campaigns.log
        assert log is not None
        try:
            if self._campaigns.shared:
                found = await asyncio.to_thread(log.token_campaign, token_hash)
            else:
                found = log.token_campaign(token_hash)
        except StoreError as error:
            self._lookup_failures.failed(error)
            raise Rejected("unavailable", "the log cannot be read; retry shortly", None) from None
        self._lookup_failures.succeeded()
        return found

    async def _attach(self, hub: CampaignHub | None, join: Join, subscriber: Subscriber,
                      token_hash: str, is_admin: bool) -> tuple[CampaignHub, Member]:
        """Check the token against the loaded campaign and queue the join in its hub."""
        assert join.campaign is not None
        found = member_by_token(hub.state if hub is not None else None, token_hash)
        if found is None and hub is not None and self._campaigns.shared and not is_admin:
            await hub.catch_up()  # invited through another process, not yet heard here
            found = member_by_token(hub.state, token_hash)
        if hub is None:
            if not is_admin:  # the same answer as a wrong token: no probing for campaign ids
                raise token_refused(join.campaign)
            raise Rejected("not_found", f"no campaign {join.campaign!r}", "$.campaign")
        if is_admin:
            member = Member(member=ADMIN_MEMBER, name="Admin", role="gm", characters=[],
                            token_hash=token_hash, admin=True)
        elif found is not None:
            member = found
        else:  # the token's own member, if they were removed, is told so (join_refusals)
            raise token_refused(join.campaign, removed_member_by_token(hub.state, token_hash))
        key = member_key(hub.campaign, member.member, member.admin)
        if member.role == "replay":  # reads its replay only: never subscribed to the table
            self._limits.admit_join(key)
            subscriber.member = member.member  # whose reads seal what it may not see yet
            subscriber.push(encode(replay_welcome(hub.state, member)))
            return hub, member
        behind = max(0, hub.state.head - join.since)
        if join.replay or 0 < behind <= RESUME_LIMIT and join.since > 0:
            self._limits.admit_replay(hub.campaign, behind)  # events, not joins, cost here
        self._limits.admit_join(key)  # rate and connection cap, before the hub does any work
        try:
            if self._campaigns.shared and join.since > hub.state.head:
                # holding events another process appended and broadcast (its client came
                # here when that process died), not yet heard here: judged on this state
                # alone, it would be refused `diverged` for events that are in the log
                await hub.catch_up()
            done: asyncio.Future[Welcome] = asyncio.get_running_loop().create_future()
            hub.submit(JoinWork(member=member, since=join.since, since_hash=join.since_hash,
                                replay=join.replay, table=join.table, subscriber=subscriber,
                                done=done))
            await done
        except BaseException:
            self._limits.release_connection(key)
            raise
        return hub, member
