"""A campaign hub's batch logic, with no I/O: what to append, and what follows from each result.

Like the protocol state machine at the heart of websockets, :class:`HubCore` takes values and
returns values; the asyncio :class:`~poolhall.server.hub.CampaignHub` around it moves work in and
frames out. A batch of commands goes through it in three calls:

1. :meth:`HubCore.admit` — while the log is failing, refuse new commands before deciding them
   (retries of commands already carried out are still answered).
2. :meth:`HubCore.decide` — each command against the state in order: a command id the index
   holds (a recent one) is answered from its record (the same member) or refused as a
   ``conflict`` (another member); the same id twice in the batch is answered once, with the
   first's answer; any other is decided by the game system's rules and its events folded at
   once (beside the public table, :class:`~poolhall.server.audience.PublicTable`), so the next
   decision sees them. It returns the replies due now and the
   :class:`~poolhall.events.log.AppendRequest` s to append. An older command's retry is
   caught by the log's unique command id (the append answers its record: step 3), or, if
   deciding it again refused it, by :meth:`HubCore.answer_recorded` once the shell has read
   the refused ids in the log.
3. :meth:`HubCore.settle` — given the append's results, in order: the frames to broadcast
   (:class:`Publish`: whole, or sealed for who may not see a pending private roll), the
   answers (:class:`Reply`), the commands another process beat (decided again once the hub
   has reloaded, for up to :data:`RETRY_SECONDS`) and whether the state ran ahead of the log
   (a reload).

The shell performs the I/O these ask for: reading refused commands' ids in the log,
keeping the epoch's seeds, appending, reading a retried invite's token (:class:`Recall`),
reloading. Nothing is broadcast or answered before the append's results are back, and each
answer follows the events it caused.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Iterable
from typing import Any, Literal

import msgspec

from poolhall.events.base import Event, Recorded
from poolhall.events.client_payload import client_payload
from poolhall.events.codec import encode
from poolhall.events.errors import ConcurrencyError, Rejected
from poolhall.events.log import (
    SEAL_BYTES,
    Appended,
    AppendRequest,
    AppendResult,
    CommandRecord,
    StoredRow,
    prepare,
    to_recorded,
    with_seal,
)
from poolhall.events.messages import Ack, ErrorReply, OutgoingEventFrame
from poolhall.projections.campaign import CampaignState, Member
from poolhall.server import rules
from poolhall.server.audience import PublicTable, sealed_frame, subject_at
from poolhall.server.command_index import CommandIndex
from poolhall.server.hub_work import CommandWork, unavailable
from poolhall.server.rules.base import Decision
from poolhall.server.rules.fairness import EpochSeeds
from poolhall.server.sealed_tokens import sealed_for
from poolhall.server.stored_snapshots import decode_state, encode_state

__all__ = ["RETRY_SECONDS", "Decided", "HubCore", "Kept", "Publish", "Recall", "Reply", "Settled",
           "current_member"]

logger = logging.getLogger("poolhall.server.hub")
"""The hub's logger: these lines are the hub's, as operators and their filters know them."""

RETRY_SECONDS = 10.0
"""How long a command is decided again, from its first decision, while other processes keep
appending to its campaign first (a shared log); past it, it is answered ``unavailable``
(nothing was stored: a retry is safe). A time, not a count: under full throttle from three
processes on one campaign a command lost 20 races in a row (the count this was), about 1 in
1,000 of them, and its sender saw the conflict the log's design keeps from it; decided again
for as long as it took, every one was stored (``tests/bench/table_load.py --processes 3``)."""

_CONFLICT = "command id already used by another member"


class Recall:
    """An answer to fetch: the recorded answer of a command carried out before (its ``seqs``;
    an invite's member and token are read back from the log, which only the shell may do).

    Compared by identity: a command id twice in one batch is answered with the same
    ``Recall``, and the shell reads it once
    (:meth:`~poolhall.server.hub.CampaignHub._carry_out`)."""

    __slots__ = ("command", "record")

    def __init__(self, command: Any, record: CommandRecord) -> None:
        self.command = command
        self.record = record


Answer = Ack | ErrorReply | Recall


class Reply(msgspec.Struct, frozen=True):
    """Answer ``work``'s sender with ``answer``."""

    work: CommandWork
    answer: Answer


class Publish(msgspec.Struct, frozen=True):
    """Broadcast event ``seq``'s ``frame`` to every subscriber; while it belongs to a pending
    private roll, whole only to the admin and the members in ``seen_by`` and ``sealed`` to
    everyone else (:mod:`poolhall.server.audience`)."""

    seq: int
    frame: bytes
    sealed: bytes | None = None
    """``None``: the frame goes whole to everyone."""
    seen_by: frozenset[str] = frozenset()

    def frame_for(self, member: str | None) -> bytes:
        """The frame ``member`` (``None``: the admin) receives."""
        if self.sealed is None or member is None or member in self.seen_by:
            return self.frame
        return self.sealed


Effect = Reply | Publish


class _Entry(msgspec.Struct, frozen=True):
    """One command of a batch in flight: its request (``None``: the same id as an earlier
    command of the batch, answered as that one is), the events folded and who it issued."""

    work: CommandWork
    request: AppendRequest | None
    events: list[Event]
    issued_member: str | None = None
    issued_token: str | None = None


class Decided(msgspec.Struct, frozen=True):
    """What :meth:`HubCore.decide` made of a batch: the answers due at once (refusals,
    conflicts, retries) and the commands in flight, whose requests go to the log."""

    replies: list[Reply]
    entries: list[_Entry]
    unsure: frozenset[str] = frozenset()
    """Ids of refused commands the index does not hold: one may be a retry of a command the
    log recorded long ago (whose first answer is due, not a refusal of deciding it again),
    so the shell reads them in the log first (:meth:`HubCore.answer_recorded`)."""

    @property
    def requests(self) -> list[AppendRequest]:
        """What to append, one request per command decided, in the batch's order."""
        return [entry.request for entry in self.entries if entry.request is not None]


class Settled(msgspec.Struct, frozen=True):
    """What follows the append's results: ``effects`` in order, then a reload if ``reload``
    says the state ran ahead of the log (``"conflict"``: another writer appended first;
    ``"retried"``: the log held a command's id already, so it was a retry and its events
    were not appended; ``"failed"``: an append failed), then ``again`` decided again."""

    effects: list[Effect]
    changed: list[Event]
    """The events now durable (views, derived writes and the table follow them)."""
    again: list[CommandWork]
    reload: Literal["conflict", "retried", "failed"] | None = None
    lost_race: bool = False
    """Every command appended was refused because another process appended first, so the
    log took nothing of the batch: the state :meth:`HubCore.keep` kept before it is the
    log's, behind by what the other process appended (read, not reloaded)."""


class Kept(msgspec.Struct, frozen=True):
    """The state, the members' tables and head hash before a batch (:meth:`HubCore.keep`)."""

    state: bytes
    public: bytes | None
    head_hash: str
    own: dict[str, bytes] = {}
    """The tables of players with a self roll pending (:attr:`PublicTable.own`)."""


class HubCore:
    """A campaign's state, command index and head, and the logic that changes them.

    ``seeds`` gives the dice a decision against a state may roll with (from memory: the shell
    keeps them ready); ``new_token`` draws the tokens an invite issues; ``seal`` seals one under
    a command's retry key (:func:`poolhall.server.sealed_tokens.sealed_for`).
    """

    def __init__(self, *, state: CampaignState, commands: CommandIndex, head_hash: str,
                 public: PublicTable | None,
                 seeds: Callable[[CampaignState, str], EpochSeeds],
                 new_token: Callable[[], str],
                 seal: Callable[[Any, str, str | None], str | None] = sealed_for) -> None:
        self.state = state
        self.commands = commands
        self.head_hash = head_hash
        """The chain hash of the head event, kept with the state: welcomes carry it."""
        self.public = public if public is not None else PublicTable()
        """The table members who may not see the pending private rolls see (none pending:
        no table of its own), folded beside the state (:mod:`poolhall.server.audience`)."""
        self.sent = state.head
        """The last event broadcast (a reload that finds the log further, another process
        having appended meanwhile, broadcasts the events after it)."""
        self._seeds = seeds
        self._new_token = new_token
        self._seal = seal

    def reloaded(self, state: CampaignState, commands: CommandIndex, head_hash: str,
                 public: PublicTable | None) -> None:
        """Take the state as the log has it (after a failure or a lost race)."""
        self.state, self.commands, self.head_hash = state, commands, head_hash
        self.public = public if public is not None else PublicTable()

    def keep(self) -> Kept:
        """A copy of the state before a batch that may lose a race (tens of microseconds)."""
        public = self.public.state
        return Kept(encode_state(self.state),
                    None if public is None else encode_state(public), self.head_hash,
                    {member: encode_state(table) for member, table in self.public.own.items()})

    def restore(self, kept: Kept) -> None:
        """Go back to the state :meth:`keep` copied: the batch decided on it was refused
        whole, so the log holds none of the events folded since."""
        self.state, self.head_hash = decode_state(kept.state), kept.head_hash
        self.public = PublicTable(
            None if kept.public is None else decode_state(kept.public),
            {member: decode_state(table) for member, table in kept.own.items()})

    # ---- a batch ----------------------------------------------------------------------

    def admit(self, batch: list[CommandWork], refusal: str | None,
              ) -> tuple[list[CommandWork], list[Reply]]:
        """While the log fails (``refusal``: why), refuse new commands undecided; return the
        rest (retries of commands already carried out, answered from the index) and the
        refusals.

        Deciding would fold events into the state that the log may not take, and each failed
        append costs a reload of the campaign; refused up front, the state never runs ahead
        of the log, and a failure costs one reload however long it lasts.
        """
        if refusal is None:
            return batch, []
        rest = [work for work in batch if work.command.id in self.commands]
        return rest, [Reply(work, ErrorReply(id=work.command.id, code="unavailable",
                                             path=None, message=refusal))
                      for work in batch if work.command.id not in self.commands]

    def decide(self, batch: list[CommandWork], at: str) -> Decided:
        """Decide each command of ``batch`` in order at time ``at``, folding its events at
        once.

        A command id the index holds (a recent command's) is answered from its record. Any
        other is decided, though it may be the retry of an older command: the log's unique
        ``(campaign, command_id)`` refuses to append it again and answers with the record
        (:meth:`settle`), and a refusal of one is :attr:`Decided.unsure` until the shell has
        read its id in the log. So a new command, nearly every one, costs no read of the log
        before it is decided (it cost one statement a batch, at a paced table a command)."""
        replies: list[Reply] = []
        entries: list[_Entry] = []
        in_batch: dict[str, _Entry] = {}
        unsure: set[str] = set()
        for work in batch:
            command_id = work.command.id
            earlier = self.commands.get(command_id)
            first = in_batch.get(command_id)
            actor = earlier.actor if earlier else first.work.member.member if first else None
            if actor is not None and actor != work.member.member:
                replies.append(Reply(work, ErrorReply(id=command_id, code="conflict",
                                                      path="$.id", message=_CONFLICT)))
            elif earlier is not None:
                replies.append(Reply(work, Recall(work.command, earlier)))
            elif first is not None:  # the same command twice: answered once it is durable
                entries.append(_Entry(work, None, []))
            else:
                entry = self._decide_one(work, at)
                if isinstance(entry, Reply):
                    replies.append(entry)
                    unsure.add(command_id)
                else:
                    in_batch[command_id] = entry
                    entries.append(entry)
        return Decided(replies, entries, frozenset(unsure))

    def answer_recorded(self, replies: list[Reply], unsure: frozenset[str], *, read: bool,
                        ) -> list[Reply]:
        """``replies`` with the refusal of each ``unsure`` id the index now holds (read from
        the log by the shell) replaced by that command's recorded answer: a retry of a
        command carried out long ago is answered as it was then (or refused as a
        ``conflict`` if another member sent it), not refused for being decided again. If
        the log could not be ``read``, those refusals are ``unavailable`` (retry later)
        instead, never a wrong answer."""
        answered: list[Reply] = []
        for reply in replies:
            command_id = reply.work.command.id
            record = self.commands.get(command_id) if command_id in unsure else None
            if command_id in unsure and not read:
                answered.append(Reply(reply.work, unavailable(command_id)))
            elif record is None:
                answered.append(reply)
            elif record.actor == reply.work.member.member:
                answered.append(Reply(reply.work, Recall(reply.work.command, record)))
            else:
                answered.append(Reply(reply.work, ErrorReply(
                    id=command_id, code="conflict", path="$.id", message=_CONFLICT)))
        return answered

    def _decide_one(self, work: CommandWork, at: str) -> _Entry | Reply:
        """Decide one command against the state as it stands and fold its events; or the
        refusal. The sender's rights are those of their membership now, not when they
        joined: a member removed since then is refused whatever they send."""
        command_id = work.command.id
        member = current_member(self.state, work.member)
        if member is None:
            return Reply(work, ErrorReply(id=command_id, code="unauthorized", path=None,
                                          message="you are no longer a member of this table"))
        state = self.state
        try:
            ctx = Decision(state, member, None, self._new_token, self._seeds(state, at))
            new_events = rules.decide(ctx, work.command)
            prepared = tuple(prepare(event) for event in new_events)
        except Rejected as refusal:
            if refusal.path is None and refusal.code == "invalid":  # a rule let a limit slip
                logger.warning("%s in %s refused: %s", type(work.command).__name__,
                               state.campaign, refusal.message)
            return Reply(work, ErrorReply(id=command_id, code=refusal.code,
                                          message=refusal.message, path=refusal.path))
        except Exception:  # a bug in a rule must cost one command, not the campaign
            logger.exception("deciding %s in %s failed", type(work.command).__name__,
                             state.campaign)
            return Reply(work, ErrorReply(id=command_id, code="internal", path=None,
                                          message="the server failed to decide this command"))
        head, actor = state.head, work.member.member
        for offset, event in enumerate(new_events, start=1):
            self.public.fold(state, Recorded(seq=head + offset, at=at, actor=actor,
                                             command=command_id, event=event))
        if state.private:  # the events of a private roll: sealed for someone
            prepared = tuple(
                with_seal(event, secrets.token_bytes(SEAL_BYTES))
                if subject_at(state, head + offset) is not None else event
                for offset, event in enumerate(prepared, start=1))
        request = AppendRequest(
            campaign=state.campaign, expected_head=head, events=prepared, actor=actor,
            command_id=command_id, at=at,
            sealed_token=self._seal(work.command, state.campaign, ctx.issued_token))
        return _Entry(work, request, new_events, ctx.issued_member, ctx.issued_token)

    def settle(self, decided: Decided, results: list[AppendResult], may_retry: bool = True,
               ) -> Settled:
        """What follows the append of ``decided.requests`` (``results``: one each, in order):
        each command's frames and answer, who is decided again, whether to reload.

        ``may_retry``: whether a command another process beat is decided again (false once
        it has been tried for :data:`RETRY_SECONDS`)."""
        by_request = iter(results)
        answers: dict[str, Answer] = {}
        effects: list[Effect] = []
        changed: list[Event] = []
        again: list[CommandWork] = []
        retried = failed = False
        for entry in decided.entries:
            work, request = entry.work, entry.request
            command_id = work.command.id
            if request is None:  # the same command twice in one batch: the same answer
                effects.append(Reply(work, answers.get(command_id) or unavailable(command_id)))
                continue
            result = next(by_request)
            if isinstance(result, ConcurrencyError) and may_retry:
                again.append(work)  # another process appended first: decided again
                continue
            if isinstance(result, CommandRecord):  # the log holds this id: a retry (of an
                retried = True  # old command, or sent to another process too); the state
                # folded events the log does not hold: reloaded
                self.commands.add(command_id, result)
                answers[command_id] = (
                    Recall(work.command, result) if result.actor == work.member.member else
                    ErrorReply(id=command_id, code="conflict", path="$.id", message=_CONFLICT))
            elif isinstance(result, Appended):
                effects.extend(self._appended(request, result))
                changed.extend(entry.events)
                answers[command_id] = Ack(id=command_id, seqs=result, member=entry.issued_member,
                                          token=entry.issued_token)
            else:  # not stored; nor any later one (heads chain)
                failed = True
                answers[command_id] = unavailable(command_id)
            effects.append(Reply(work, answers[command_id]))
        reload: Literal["conflict", "retried", "failed"] | None = (
            "conflict" if again else "retried" if retried else "failed" if failed else None)
        lost_race = bool(again) and not (retried or failed or changed)
        return Settled(effects, changed, again, reload, lost_race)

    def _appended(self, request: AppendRequest, seqs: Appended) -> list[Publish]:
        """Record a request the log stored as ``seqs``; the frames of its events."""
        if seqs:
            self.commands.add(request.command_id, CommandRecord(
                request.actor, seqs[0], seqs[-1]))
            self.head_hash = seqs.hashes[-1]
            self.sent = seqs[-1]
        return [self.publish(seq, encode(OutgoingEventFrame(
                    seq=seq, at=request.at, actor=request.actor, command=request.command_id,
                    event=msgspec.Raw(client_payload(stored.type, stored.payload)),
                    hash=digest)))
                for seq, digest, stored in zip(seqs, seqs.hashes, request.events, strict=True)]

    # ---- events another process appended (a shared log) -------------------------------

    def take_rows(self, rows: Iterable[StoredRow], *, fold: bool,
                  ) -> tuple[list[Publish], list[Event]]:
        """Rows appended by another process: folded first when ``fold`` (a reload has them
        folded already); their frames, each as the state has it once folded, and events."""
        publishes: list[Publish] = []
        events: list[Event] = []
        for row in rows:
            recorded = to_recorded(row)
            if fold:
                self.public.fold(self.state, recorded)
                self.head_hash = row.hash
                earlier = self.commands.get(row.command_id)
                self.commands.add(row.command_id, CommandRecord(
                    row.actor, earlier.first_seq if earlier else row.seq, row.seq))
            publishes.append(self.publish(row.seq, encode(OutgoingEventFrame(
                seq=row.seq, at=row.at, actor=row.actor, command=row.command_id,
                event=msgspec.Raw(client_payload(row.type, row.payload)), hash=row.hash))))
            self.sent = row.seq
            events.append(recorded.event)
        return publishes, events

    def publish(self, seq: int, frame: bytes) -> Publish:
        """Event ``seq``'s frame and who receives it whole, as the state has it now."""
        subject = subject_at(self.state, seq) if self.state.private else None
        if subject is None:
            return Publish(seq, frame)
        seen_by = {member for member, found in self.state.members.items()
                   if found.role in ("gm", "admin")}
        if subject.visibility == "self":
            seen_by.add(subject.roller)
        return Publish(seq, frame, sealed_frame(frame, subject.visibility), frozenset(seen_by))


def current_member(state: CampaignState, member: Member) -> Member | None:
    """The sender's membership as the state has it now; ``None`` once removed."""
    if member.admin:
        return member  # the admin token acts as GM everywhere and is no member
    current = state.members.get(member.member)
    return current if current is not None and current.active else None
