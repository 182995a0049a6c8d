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
    """Check the rolls of every campaign of the file. An event that does not decode is a
    problem of its own, skipped (the rolls after it are still checked): one bad row does not
    hide what else is wrong, nor stop the report."""
    total = FairCounts()
    for campaign in reader.campaigns():
        check = FairCheck(campaign)
        for row in reader.rows(campaign):
            recorded = recorded_or_problem(row)
            if isinstance(recorded, str):
                total.problems.append(FairProblem(campaign, row.seq, recorded))
            else:
                check.feed(recorded)
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
