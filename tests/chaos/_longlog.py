"""A long campaign written straight into a fresh log, before the server starts.

The join-storm and stalled-reader trials need a campaign of tens of thousands of events.
Built through the server it would take minutes once members are rate-limited (the limit being
added is 10 commands a second), and the trial would measure its own setup. So the log
is written here with the store's own append (hash chain and command index included) before
``poolhall serve`` opens it: the server then rebuilds the campaign like any other on start.
"""

from __future__ import annotations

import random
import secrets
from pathlib import Path
from typing import Any

from poolhall.events import core
from poolhall.events.dice import RolledTerm
from poolhall.events.log import AppendRequest, prepare
from poolhall.events.sqlite_backend import SqliteLog
from poolhall.server.app import utc_now
from poolhall.server.auth import hash_token
from poolhall.server.rules.base import ADMIN_MEMBER
from poolhall.server.rules.core import open_campaign

__all__ = ["CAMPAIGN", "build_long_log"]

CAMPAIGN = "long-log"
BATCH = 2000


def build_long_log(db: Path, events: int, members: int, role: str) -> dict[str, Any]:
    """Write a campaign of ``events`` rolls with ``members`` invited; its id and tokens."""
    gm_token = "ph_chaos-gm-" + secrets.token_hex(16)
    tokens = [f"ph_chaos-{k}-" + secrets.token_hex(16) for k in range(members)]
    rng = random.Random(1)
    log = SqliteLog(db)
    try:
        head = 0
        batch: list[AppendRequest] = []

        def add(new_events: list[Any], actor: str, command_id: str) -> None:
            nonlocal head
            batch.append(AppendRequest(
                campaign=CAMPAIGN, expected_head=head, actor=actor, command_id=command_id,
                at=utc_now(), events=tuple(prepare(event) for event in new_events)))
            head += len(new_events)
            if len(batch) >= BATCH:
                flush()

        def flush() -> None:
            for result in log.append_batch(batch):
                if isinstance(result, Exception):
                    raise result
            batch.clear()

        add(open_campaign(core.CreateCampaign(id="setup-create", name="A long log",
                                              system="narrative"), CAMPAIGN,
                          hash_token(gm_token)), ADMIN_MEMBER, "setup-create")
        for k, token in enumerate(tokens):
            add([core.MemberInvited(member=f"{role}-{k}", name=f"{role.title()} {k}", role=role,
                                    token_hash=hash_token(token))], "gm", f"setup-invite-{k}")
        for n in range(events):
            faces = (rng.randint(1, 6), rng.randint(1, 6))
            add([core.DiceRolled(expression="2d6", terms=(RolledTerm(sides=6, faces=faces),),
                                 total=sum(faces))], "gm", f"setup-roll-{n}")
        flush()
    finally:
        log.close()
    return {"campaign": CAMPAIGN, "gm_token": gm_token, "tokens": tokens, "head": head}
