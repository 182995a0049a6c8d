"""What an operator holding a campaign's SQLite file can append behind the server's back: the
chain hash is unkeyed SHA-256 and the rows are appends, so the append-only triggers let them
in. The fairness checks must catch what such rows forge (docs/explanation/fairness.md)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from poolhall.events.chain import link_hash
from poolhall.events.fair import commitment, derive_faces


class ForgedLog:
    """Appends to one campaign's log in a stopped server's file, each as its own command."""

    def __init__(self, db: Path, campaign: str) -> None:
        self.db = sqlite3.connect(db)
        self.campaign = campaign
        self.seq: int
        self.at: str
        self.hash: str
        self.seq, self.at, self.hash = self.db.execute(
            "SELECT seq, recorded_at, hash FROM events WHERE campaign = ? ORDER BY seq DESC "
            "LIMIT 1", (campaign,)).fetchone()

    def seed(self, epoch: int) -> bytes:
        """The seed the server keeps for ``epoch`` (drawn ahead up to two epochs on)."""
        (seed,) = self.db.execute("SELECT seed FROM fair_seeds WHERE campaign = ? AND epoch = ?",
                                  (self.campaign, epoch)).fetchone()
        return bytes(seed)

    def append(self, event: dict[str, Any]) -> int:
        """One event, chained as the server chains it; its seq."""
        self.seq += 1
        payload = json.dumps(event, separators=(",", ":"), ensure_ascii=False)
        command = f"forged-{self.seq}"
        self.hash = link_hash(self.hash, self.campaign, self.seq, event["type"], 1, self.at,
                              "gm", command, payload)
        self.db.execute("INSERT INTO events (campaign, seq, type, version, payload, recorded_at, "
                        "actor, command_id, hash) VALUES (?, ?, ?, 1, ?, ?, 'gm', ?, ?)",
                        (self.campaign, self.seq, event["type"], payload, self.at, command,
                         self.hash))
        self.db.execute("INSERT INTO commands VALUES (?, ?, 'gm', ?, ?)",
                        (self.campaign, command, self.seq, self.seq))
        self.db.commit()
        return self.seq

    def d20(self, epoch: int, nonce: int, digest: str) -> int:
        """A 1d20 stamped ``(epoch, nonce, digest)`` whose face that epoch's seed truly gives."""
        (face,) = derive_faces(self.seed(epoch), self.campaign, epoch, bytes.fromhex(digest),
                               nonce, [20])
        return self.append({"type": "dice_rolled", "character": None, "expression": "1d20",
                            "terms": [{"sides": 20, "faces": [face], "sign": 1}],
                            "constant": 0, "total": face, "reason": "forged",
                            "fair": {"epoch": epoch, "nonce": nonce, "seeds": digest},
                            "visibility": "public"})

    def reveal(self, epoch: int, rolls: int) -> int:
        return self.append({"type": "seed_revealed", "epoch": epoch,
                            "seed": self.seed(epoch).hex(), "rolls": rolls})

    def commit(self, epoch: int) -> int:
        return self.append({"type": "seed_committed", "epoch": epoch,
                            "commitment": commitment(self.seed(epoch)), "session": 0})

    def close(self) -> None:
        self.db.close()
