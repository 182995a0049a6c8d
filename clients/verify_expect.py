"""``poolhall verify --expect``: the log's chain checked against hashes held elsewhere.

A hash chain with no key proves only that the log agrees with itself: whoever can write the
file can edit an event and compute every later link again, and ``verify`` alone then says
ok. What proves that the log is the one that was played is a hash taken earlier and kept
somewhere the file's writer cannot reach: the head hash a client was sent (``poolhall state``
prints it), one noted after each game session, the seed commitments of the fair rolls. Each
``--expect CAMPAIGN=HASH`` (the campaign's head) or ``--expect CAMPAIGN@SEQ=HASH`` (its event
``SEQ``) must match the log, or ``verify`` reports it and exits 1.

A log that has grown since a head hash was noted still matches it as ``CAMPAIGN@SEQ=HASH``
with the seq it was noted at: the chain up to there is unchanged by later events.
"""

from __future__ import annotations

import argparse
import re
from typing import NamedTuple

from poolhall.events.log import ChainProblem
from poolhall.events.log_contract import EventLog

__all__ = ["Expected", "expected_hash", "expectation_problems"]

_FORM = re.compile(r"^(?P<campaign>[^@=\s]+)(?:@(?P<seq>\d+))?=(?P<hash>[0-9a-fA-F]{64})$")


class Expected(NamedTuple):
    """A hash the log must have: of ``campaign``'s event ``seq`` (``None``: its head)."""

    campaign: str
    seq: int | None
    hash: str


def expected_hash(text: str) -> Expected:
    """Parse ``CAMPAIGN=HASH`` or ``CAMPAIGN@SEQ=HASH`` (an argparse type)."""
    found = _FORM.match(text.strip())
    if found is None:
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected CAMPAIGN=HASH or CAMPAIGN@SEQ=HASH, HASH being the 64 hex"
            " digits of a chain hash")
    seq = found.group("seq")
    return Expected(found.group("campaign"), int(seq) if seq is not None else None,
                    found.group("hash").lower())


def expectation_problems(reader: EventLog, expected: list[Expected]) -> list[ChainProblem]:
    """Each expected hash the log does not have, in plain words."""
    problems: list[ChainProblem] = []
    campaigns = set(reader.campaigns())
    for wanted in expected:
        if wanted.campaign not in campaigns:
            problems.append(ChainProblem(wanted.campaign, wanted.seq or 0,
                                         "expected hash given, but the log has no such campaign"))
            continue
        head = reader.head(wanted.campaign)
        seq = head if wanted.seq is None else wanted.seq
        where = "head" if wanted.seq is None else "event"
        if seq > head:
            problems.append(ChainProblem(wanted.campaign, seq, (
                f"expected hash of event #{seq}, but the log ends at #{head}: events were"
                " dropped, or the hash is of another log")))
            continue
        actual = reader.hashes_at({wanted.campaign: seq}).get(wanted.campaign, "")
        if actual != wanted.hash:
            problems.append(ChainProblem(wanted.campaign, seq, (
                f"the chain's {where} hash is {actual or 'missing'}, not the expected "
                f"{wanted.hash}: the log up to here is not the one that hash was taken of "
                "(edited, with its chain computed again, or another log)"
                + ("; if events were added since the hash was taken, give its event as"
                   f" {wanted.campaign}@SEQ=HASH" if wanted.seq is None else ""))))
    return problems
