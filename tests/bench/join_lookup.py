"""Join lookup: how long a token check takes, by campaign size, wrong token vs missing campaign.

::

    python tests/bench/join_lookup.py [--members 10 1000 10000] [--repeat 20000]

Prints microseconds per check (best of 5) of :func:`poolhall.server.app.member_by_token` plus the
token hash, for a right token, a wrong one, and a campaign that does not exist, and beside them the
scan over every member that joins used before (a wrong token had to be compared with each
member's hash, so its answer time told how big the campaign was).
"""

from __future__ import annotations

import argparse
import sys
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from poolhall.events import core  # noqa: E402
from poolhall.events.base import Event, Recorded  # noqa: E402
from poolhall.projections.campaign import CampaignState, Member, fold  # noqa: E402
from poolhall.server.app import member_by_token  # noqa: E402
from poolhall.server.auth import hash_token, tokens_match  # noqa: E402


def token(n: int) -> str:
    """A token as long as issued ones (46 characters): shorter ones hash to match nothing."""
    return f"ph_token-{n:037d}"


def campaign_of(members: int) -> CampaignState:
    events: list[Event] = [core.CampaignCreated(campaign="c", name="C", system="narrative")]
    events += [core.MemberInvited(member=f"m{n}", name=f"M {n}", role="spectator",
                                  token_hash=hash_token(token(n)))
               for n in range(members)]
    return fold(Recorded(seq=n, at="", actor="admin", command=f"c{n}", event=event)
                for n, event in enumerate(events, 1))


def scan(state: CampaignState, token_hash: str) -> Member | None:
    """The check joins made before: every member's hash compared in turn."""
    return next((m for m in state.members.values()
                 if m.active and tokens_match(m.token_hash, token_hash)), None)


def micros(check: object, repeat: int) -> float:
    return min(timeit.repeat(check, number=repeat, repeat=5)) / repeat * 1e6  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--members", type=int, nargs="+", default=[10, 1000, 10000])
    parser.add_argument("--repeat", type=int, default=20000)
    args = parser.parse_args()
    print(f"{'members':>8} {'right':>8} {'wrong':>8} {'missing':>8}   {'scan: wrong':>12}  (µs)")
    for members in args.members:
        state = campaign_of(members)
        right, wrong = token(members - 1), token(members)
        assert member_by_token(state, hash_token(right)) is not None
        times = [micros(lambda t=token, s=where: member_by_token(s, hash_token(t)), args.repeat)
                 for token, where in ((right, state), (wrong, state), (wrong, None))]
        old = micros(lambda s=state, t=wrong: scan(s, hash_token(t)),
                     max(1, args.repeat // members))
        print(f"{members:>8} {times[0]:>8.2f} {times[1]:>8.2f} {times[2]:>8.2f}   {old:>12.1f}")


if __name__ == "__main__":
    main()
