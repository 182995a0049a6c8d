"""``poolhall verify``'s fair-rolls part: every campaign's rolls recomputed from the log file.

:mod:`poolhall.projections.fair_verify` does the checking; this reads each campaign's events from
the file (read-only) and says what it found in one line (and in ``--json``, as counts).
"""

from __future__ import annotations

from typing import Any

from poolhall.events.log import recorded_or_problem
from poolhall.events.log_contract import EventLog
from poolhall.projections.fair_verify import FairCheck, FairCounts, FairProblem

__all__ = ["fair_line", "fair_rolls", "fair_summary"]


def fair_rolls(reader: EventLog) -> FairCounts:
    """Check the rolls of every campaign of the file, in one pass over the log
    (:meth:`~poolhall.events.log_contract.EventLog.scan`), each campaign's check fed its
    events in order and finished in the order the campaigns began. An event that does not
    decode is a problem of its own, skipped (the rolls after it are still checked): one bad
    row does not hide what else is wrong, nor stop the report.

    One pass, not campaign after campaign: a file of release 0.1.0's layout, read as it is
    (the backup ``verify`` checks before an upgrade), has no index by campaign, so each
    campaign's page of events was a walk over the whole table (27 s for 300,000 events of 5
    campaigns, 3.7 s in one pass).
    """
    checks: dict[str, FairCheck] = {}
    undecoded: dict[str, list[FairProblem]] = {}
    for page in reader.scan():
        for row in page:
            check = checks.get(row.campaign)
            if check is None:
                check = checks[row.campaign] = FairCheck(row.campaign)
            recorded = recorded_or_problem(row)
            if isinstance(recorded, str):
                undecoded.setdefault(row.campaign, []).append(
                    FairProblem(row.campaign, row.seq, recorded))
            else:
                check.feed(recorded)
    total = FairCounts()
    for campaign, check in checks.items():
        total.problems += undecoded.get(campaign, [])
        total.add(check.finish())
    return total


def fair_summary(counts: FairCounts) -> dict[str, Any]:
    """The counts as ``--json`` gives them (the problems are listed with the chain's)."""
    return {"epochs": counts.epochs, "revealed": counts.revealed,
            "rolls_checked": counts.rolls_checked, "dice_checked": counts.dice_checked,
            "rolls_sealed": counts.rolls_sealed, "rolls_unstamped": counts.rolls_unstamped,
            "mismatches": len(counts.problems)}


def fair_line(counts: FairCounts) -> str:
    """One line for people: what was recomputed, what waits for its reveal."""
    return (f"rolls: {counts.dice_checked} dice of {counts.rolls_checked} rolls recomputed "
            f"in {counts.revealed} revealed epoch(s); {counts.rolls_sealed} roll(s) sealed "
            f"until their seed is revealed"
            + (f"; {counts.rolls_unstamped} from before fair rolls" if counts.rolls_unstamped
               else "")
            + (f"; {len(counts.problems)} problem(s)" if counts.problems else ""))
