"""The admin session's one command: create a campaign and its GM's token, exactly once.

Apart from :mod:`poolhall.server.app` because creation is its own small protocol, outside any hub:
the admin's commands are serialized here (they are rare), a retry gets its original answer (with
the GM's token if it brings the command's ``retry_key``), and the new campaign's first events
are appended before its hub exists. :class:`CampaignCreation` is owned by the server.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from poolhall.events import core
from poolhall.events.base import Recorded
from poolhall.events.codec import encode
from poolhall.events.errors import ConcurrencyError, Rejected, StoreError
from poolhall.events.log import Appended, AppendRequest, CommandRecord, prepare
from poolhall.events.messages import Ack
from poolhall.projections.campaign import evolve, new_state
from poolhall.server.auth import hash_token, new_token
from poolhall.server.command_index import CommandIndex
from poolhall.server.health import LogHealth
from poolhall.server.loaded_campaigns import LoadedCampaigns
from poolhall.server.rates import Limits, MemberKey
from poolhall.server.rebuild import LoadedCampaign
from poolhall.server.rules.base import ADMIN_MEMBER
from poolhall.server.rules.core import open_campaign, slugify
from poolhall.server.sealed_tokens import recall_issued, sealed_for
from poolhall.server.subscriber import Subscriber
from poolhall.server.utc_clock import UtcClock

__all__ = ["CampaignCreation"]

logger = logging.getLogger("poolhall.server.app")  # one name for the server's lines

CREATE_TRIES = 3
"""Tries at a campaign id on a shared log, where another process may take one meanwhile."""


class _Taken(Exception):
    """Another process appended the campaign id first (a shared log)."""


class CampaignCreation:
    """Carries out the admin's ``create_campaign`` commands, one at a time."""

    def __init__(self, campaigns: LoadedCampaigns, *, health: LogHealth, limits: Limits,
                 clock: UtcClock) -> None:
        self._campaigns = campaigns
        self._health = health
        self._limits = limits
        self._clock = clock
        self._lock = asyncio.Lock()

    async def finished(self) -> None:
        """Return once no creation is in progress: the stop waits here, so a campaign being
        created gets its hub before the hubs are stopped."""
        async with self._lock:
            pass

    async def admin_command(self, command: Any, subscriber: Subscriber, key: MemberKey) -> None:
        """The admin session's one command: create a campaign and its GM's token.

        Creations are serialized (they are rare): a retry that arrives while its original is
        still being committed waits for it, then finds the campaign it made and gets the
        original answer, never a second campaign.
        """
        if not isinstance(command, core.CreateCampaign):
            raise Rejected("forbidden", "the admin session only creates campaigns; join a campaign"
                           " to send this command", "$.type")
        self._limits.admit_command(key, None)
        try:
            await self._create_serialized(command, subscriber)
        finally:
            self._limits.finish_command(key)

    async def _create_serialized(self, command: core.CreateCampaign,
                                 subscriber: Subscriber) -> None:
        async with self._lock:
            if self._campaigns.stopping:
                raise Rejected("shutting_down", "the server is shutting down; retry shortly", None)
            if (refusal := self._health.refusal()) is not None \
                    and not await self._created_by(command):
                raise Rejected("unavailable", refusal, None)
            ack = await self._created_by(command) or await self._create_campaign(command)
        subscriber.push(encode(ack))

    async def _created_by(self, command: core.CreateCampaign) -> Ack | None:
        """The original answer to a create command already carried out, if it was.

        The GM's token is in it only if the retry brings the command's ``retry_key``
        (:mod:`poolhall.server.sealed_tokens`); it is read from the log off the event loop.
        """
        log = self._campaigns.log
        assert log is not None
        found = self._campaigns.creations.get(command.id)
        if found is None and self._campaigns.shared:  # another process may have created it
            try:
                found = await asyncio.to_thread(log.creation, command.id)
            except Exception:
                logger.exception("looking up the creation %s failed", command.id)
                raise Rejected("unavailable", "the log could not be read; retry it",
                               None) from None
            if found is not None:
                self._campaigns.know(found[0], command.id, found[1])
        if found is None:
            return None
        campaign, record = found
        if record.actor != ADMIN_MEMBER:
            return None
        try:
            _, token = await asyncio.to_thread(recall_issued, log, campaign, record, command)
        except Exception:
            logger.exception("reading the token of %s failed", command.id)
            raise Rejected("unavailable", "the log could not be read; retry it",
                           None) from None
        return Ack(id=command.id, seqs=record.seqs, campaign=campaign, member="gm",
                   token=token)

    async def _create_campaign(self, command: core.CreateCampaign) -> Ack:
        """Append a new campaign's first events; on a shared log, a campaign id another
        process took meanwhile is found in the log and the next free one tried.

        Before each new try the log is asked again whether this very command created a
        campaign meanwhile: a retry sent to several processes at once (a client that
        reconnected through a proxy) loses to its own first try, and gets that try's answer,
        never a second campaign (which the log's unique index of creations refuses anyway:
        :mod:`poolhall.events.one_creation`) nor a refusal of the id it took."""
        for attempt in range(CREATE_TRIES):
            if attempt:
                await self._learn_campaigns()
                if (ack := await self._created_by(command)) is not None:
                    return ack
            try:
                return await self._create_once(command)
            except _Taken:
                continue
        raise Rejected("unavailable", "the log could not store this; retry it", None)

    async def _learn_campaigns(self) -> None:
        log = self._campaigns.log
        assert log is not None
        try:
            directory = await asyncio.to_thread(log.directory)
        except Exception:
            raise Rejected("unavailable", "the log could not be read; retry it",
                           None) from None
        for campaign, command_id, actor, last in directory:
            self._campaigns.know(campaign, command_id, CommandRecord(actor, 1, last))

    async def _create_once(self, command: core.CreateCampaign) -> Ack:
        campaigns = self._campaigns
        assert campaigns.committer is not None
        if command.campaign is not None:
            if command.campaign in campaigns.campaigns:
                if campaigns.shared and (ack := await self._created_by(command)) is not None:
                    return ack  # this command's first try made it, through another process
                raise Rejected("conflict", f"campaign {command.campaign!r} exists", "$.campaign")
            campaign = command.campaign
        else:
            campaign = slugify(command.name, campaigns.campaigns, "campaign")
        token = new_token()
        try:  # the first epoch's seed is durable before its commitment is appended
            first_seed = await asyncio.to_thread(campaigns.seeds(campaign).seed, 1)
        except StoreError:
            raise Rejected("unavailable", "the seed could not be stored; retry it", None) from None
        new_events = open_campaign(command, campaign, hash_token(token), first_seed)
        at = self._clock()
        request = AppendRequest(campaign=campaign, expected_head=0,
                                events=tuple(prepare(e) for e in new_events),
                                actor=ADMIN_MEMBER, command_id=command.id, at=at,
                                sealed_token=sealed_for(command, campaign, token))
        try:
            (result,) = await campaigns.committer.append([request])
        except StoreError:
            result = None
        if isinstance(result, ConcurrencyError | CommandRecord) and campaigns.shared:
            raise _Taken  # another process took the id, or made this very command's campaign
        if not isinstance(result, Appended):
            raise Rejected("unavailable", "the log could not store this; retry it", None)
        state = new_state()
        for seq, event in zip(result, new_events, strict=True):
            evolve(state, Recorded(seq=seq, at=at, actor=ADMIN_MEMBER, command=command.id,
                                   event=event))
        creation = CommandRecord(ADMIN_MEMBER, 1, result[-1])
        commands = CommandIndex(campaigns.log, campaign)
        commands.add(command.id, creation)
        campaigns.know(campaign, command.id, creation)
        campaigns.open_hub(LoadedCampaign(state, commands, result.hashes[-1]))
        return Ack(id=command.id, seqs=result, campaign=campaign, member="gm", token=token)
