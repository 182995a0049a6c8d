#!/usr/bin/env python3
"""Check a poolhall campaign's fair rolls from its export, with Python's standard library only.

Usage::

    poolhall export my-campaign --events > my-campaign.jsonl
    python3 verify_rolls.py my-campaign.jsonl        # or - for standard input

Reads one event per line (``{"seq", "at", "actor", "command", "event": {"type", ...}}``),
and for every epoch whose seed was revealed: checks that the seed hashes to the commitment
published before its rolls, that each roll was made while its epoch was open (after the
commitment, before the reveal), and recomputes every face of every roll from the seed, the
campaign, the epoch, the client seeds in force and the roll's nonce; a free roll's total is
checked against its faces too (``poolhall verify`` checks every system's results), each
roll's number of dice against what it asked for (its expression, pool, base and Karma dice,
the failed dice a Karma reroll rerolls, a d12 test's pool, a character's initiative dice, the
players who roll the destiny pool: a roll missing its last dice holds a true prefix of its
stream, and every face would check), and each SR3 chain's Rule of Six shape. An epoch
that ends without its seed revealed (or whose seed the server says it lost) is a problem if
it holds rolls: they can never be checked. The
algorithm is the one docs/explanation/fairness.md writes down; this file shares no code with
poolhall on purpose.
Prints what it checked and every problem; exits 1 if there is any (an input with no
campaign, such as an empty file, is one).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import sys
from collections.abc import Iterable
from typing import Any

DOMAIN = b"poolhall-roll-v1"
NARRATIVE_SIDES = {"boost": 6, "setback": 6, "ability": 8, "difficulty": 8,
                   "proficiency": 12, "challenge": 12, "force": 12}


def client_seeds_digest(seeds: dict[str, str]) -> bytes:
    """SHA-256 over (u16 len, member, u16 len, seed) of each member, sorted by member."""
    digest = hashlib.sha256()
    for member in sorted(seeds):
        for text in (member, seeds[member]):
            data = text.encode()
            digest.update(len(data).to_bytes(2, "big") + data)
    return digest.digest()


def faces(seed: bytes, campaign: str, epoch: int, seeds_digest: bytes, nonce: int,
          sides_list: list[int]) -> list[int]:
    """The faces of dice of the given sides, drawn in order from the roll's HMAC stream."""
    name = campaign.encode()
    prefix = (DOMAIN + len(name).to_bytes(2, "big") + name + epoch.to_bytes(4, "big")
              + seeds_digest + nonce.to_bytes(8, "big"))
    out: list[int]
    stream, at, counter, out = b"", 0, 0, []
    for sides in sides_list:
        limit = 256 - 256 % sides
        while True:
            if at == len(stream):
                stream = hmac.new(seed, prefix + counter.to_bytes(4, "big"),
                                  hashlib.sha256).digest()
                at, counter = 0, counter + 1
            byte = stream[at]
            at += 1
            if byte < limit:
                out.append(byte % sides + 1)
                break
    return out


def dice_of(event: dict[str, Any]) -> list[tuple[int, int]] | None:
    """``(sides, face)`` of each die an event drew, in the order drawn; None: no dice."""
    kind = event["type"]
    if kind == "dice_rolled":
        return [(t["sides"], f) for t in event["terms"] for f in t["faces"]]
    if kind in ("check_rolled", "pool_rolled", "force_dice_rolled"):
        return [(NARRATIVE_SIDES[d["kind"]], d["face"]) for d in event["dice"]]
    if kind == "destiny_pool_rolled":
        return [(12, d["face"]) for d in event["dice"]]
    if kind == "pool_test_rolled":
        return [(6, f) for d in event["dice"] for f in d["faces"]]
    if kind == "pool_test_rerolled":
        return [(6, f) for chain in event["faces"] for f in chain]
    if kind == "initiative_scores_rolled":
        return [(6, f) for r in event["rolls"] for f in r["faces"]]
    if kind == "threshold_dice_rolled":
        return [(12, f) for f in event["faces"]]
    return None


KINDS = ("proficiency", "ability", "difficulty", "challenge", "boost", "setback", "force")
SOURCES = ("base", "combat", "control", "hacking", "spell", "astral_combat", "task", "astral",
           "karma")
MAX_CHAIN = 30


def expression_dice(text: str) -> tuple[list[tuple[int, int, int]], int] | None:
    """A free roll's ``XdN`` expression read: (sides, sign, count) of each term, and the
    constant; None if it is no such expression."""
    terms, constant, sign = [], 0, 1
    for token in re.findall(r"[+-]|[^+-]+", text.replace(" ", "")):
        if token in "+-":
            sign = 1 if token == "+" else -1
        elif (dice := re.fullmatch(r"([0-9]*)[dD]([0-9]+)", token)) is not None:
            terms.append((int(dice[2]), sign, int(dice[1] or "1")))
        elif token.isdigit():
            constant += sign * int(token)
        else:
            return None
    return terms, constant


def count_problem(event: dict[str, Any]) -> str | None:
    """How the number of dice an event holds is not what its own request asks for: a roll
    with its last dice left out holds a true prefix of its stream, every face checks."""
    kind = event["type"]
    if kind == "dice_rolled":
        asked = expression_dice(event["expression"])
        drawn = [(t["sides"], t.get("sign", 1), len(t["faces"])) for t in event["terms"]]
        if asked is None or asked != (drawn, event.get("constant", 0)):
            return f"its dice are not those its expression {event['expression']} asks for"
    elif kind in ("check_rolled", "pool_rolled"):
        for die_kind in KINDS:
            held = sum(d["kind"] == die_kind for d in event["dice"])
            if held != event["pool"].get(die_kind, 0):
                return f"it holds {held} {die_kind} dice; its pool has another number"
    elif kind == "pool_test_rolled":
        sources = [d["source"] for d in event["dice"]]
        karma, cost = sources.count("karma"), event.get("karma_spent", 0)
        per_die = event.get("kind") in ("damage_resistance", "spell_resistance")
        if sources != sorted(sources, key=SOURCES.index) \
                or sources.count("base") != event["base_dice"] \
                or cost != (karma if per_die else karma * (karma + 1) // 2):
            return "its dice are not its base dice, then its pools', then the Karma dice it paid"
    elif kind == "pool_test_rerolled" and len(event["faces"]) != len(event["indices"]):
        return "it holds another number of dice than it rerolls"
    return chain_problem(event)


def chain_problem(event: dict[str, Any]) -> str | None:
    """An SR3 chain the Rule of Six did not draw: every 6 is rerolled (up to 30 faces), and
    only a 6 is."""
    kind = event["type"]
    if kind == "pool_test_rolled":
        chains = [d["faces"] for d in event["dice"]]
    elif kind == "pool_test_rerolled":
        chains = event["faces"]
    else:
        return None
    for chain in chains:
        if any(face != 6 for face in chain[:-1]):
            return "a die rerolled after a face that was not a 6: the Rule of Six rerolls a 6"
        if chain[-1] == 6 and len(chain) < MAX_CHAIN:
            return "a 6 was not rerolled: the Rule of Six rerolls every 6"
    return None


def check(lines: Iterable[str]) -> tuple[dict[str, int], list[str]]:
    """Check the events of one campaign; return (counts, problems)."""
    checker = Checker()
    for line in lines:
        if line.strip():
            checker.read(json.loads(line))
    checker.counts["sealed"] = len(checker.held)
    if checker.campaign is None:  # an empty file checks nothing: it must not pass
        checker.problems.append("no campaign_created event: give this the whole output of "
                                "`poolhall export CAMPAIGN --events`")
    return checker.counts, checker.problems


class Checker:
    """What the events read so far say: the campaign, the client seeds in force, each epoch's
    commitment, the epoch open now and the rolls it holds until its seed is revealed.

    A roll proves something only if it was made while its epoch was open: after the
    commitment (the seed was chosen before the members' seeds were known) and before the
    reveal (a public seed proves nothing). So a roll belongs to the epoch open where it stands
    in the log, and one stamped with any other epoch is a problem, as is an epoch that ends
    (the next one committed) without its seed revealed."""

    def __init__(self) -> None:
        self.campaign: Any = None  # the export's JSON, as every value read below
        self.client_seeds: dict[str, str] = {}
        self.commitments: dict[int, str] = {}
        self.epoch = 0
        """The epoch committed last (0: none yet)."""
        self.open = False
        """Whether it is still open: committed, not revealed (nor said lost)."""
        self.held: list[list[Any]] = []
        """Its rolls held until the reveal: [stamp, command, [(seq, sides, face)]]."""
        self.asked: dict[str, Any] = {}
        """What earlier events say a roll's number of dice is: a d12 test's pool ("d12/N"),
        an SR3 test's TN and die totals ("test/N"), a character's initiative dice
        ("init/ID"), the players at the table ("player/ID")."""
        self.counts = {"revealed": 0, "rolls": 0, "dice": 0, "sealed": 0}
        self.problems: list[str] = []

    def read(self, record: Any) -> None:
        """One event of the export."""
        event, seq = record["event"], record["seq"]
        kind = event["type"]
        if kind == "campaign_created":
            self.campaign = event["campaign"]
        elif kind == "client_seed_set":
            self.client_seeds[event["member"]] = event["seed"]
        elif kind == "seed_committed":
            self.committed(seq, event)
        elif kind == "seed_revealed":
            self.revealed(seq, event)
        elif kind == "seed_lost":
            self.lost(seq, event)
        else:
            self.other(seq, record["command"], event)

    def asks(self, event: Any) -> str | None:
        """Take in what an event says later rolls ask for; what is wrong with this roll's
        number of dice by what earlier events asked."""
        kind, asked = event["type"], self.asked
        if kind in ("threshold_test_started", "failed_dice_removed", "refresh_dice_added"):
            asked[f"d12/{event['test']}"] = event["pool"]
        elif kind in ("character_created", "character_updated"):
            dice = (event.get("stats") or {}).get("initiative_dice")
            if isinstance(dice, int):
                asked[f"init/{event['character']}"] = dice
        elif kind == "pool_test_rolled":
            asked[f"test/{event['test']}"] = (event.get("tn"),
                                              [sum(d["faces"]) for d in event["dice"]])
        elif kind == "member_invited" and event.get("role") == "player":
            asked[f"player/{event['member']}"] = True
        elif kind == "member_removed":
            asked.pop(f"player/{event['member']}", None)
        return self.drawn(event)

    def drawn(self, event: Any) -> str | None:
        """What is wrong with a roll's number of dice by what earlier events asked."""
        kind, asked = event["type"], self.asked
        if kind == "threshold_dice_rolled":
            pool = asked.get(f"d12/{event['test']}", len(event["faces"]))
            if pool != len(event["faces"]):
                return f"it holds {len(event['faces'])} dice; the test's pool is {pool}"
        elif kind == "initiative_scores_rolled":
            for roll in event["rolls"]:
                if asked.get(f"init/{roll['character']}", len(roll["faces"])) \
                        != len(roll["faces"]):
                    return f"{roll['character']}'s initiative holds another number of dice"
        elif kind == "pool_test_rerolled" and f"test/{event['test']}" in asked:
            return self.rerolled(event)
        elif kind == "destiny_pool_rolled":
            players = sorted(key[7:] for key in asked if key.startswith("player/"))
            if players and sorted(d["member"] for d in event["dice"]) != players:
                return "the destiny pool holds another number of dice than players at the table"
        return None

    def rerolled(self, event: Any) -> str | None:
        """A Karma reroll must reroll its test's failed dice (every die of an open test)."""
        tn, totals = self.asked[f"test/{event['test']}"]
        failed = [i for i, total in enumerate(totals) if tn is None or total < tn]
        for index, chain in zip(event["indices"], event["faces"], strict=False):
            if index < len(totals):
                totals[index] = sum(chain)
        if list(event["indices"]) != failed:
            return f"it rerolls dice {event['indices']}; the test's failed dice are {failed}"
        return None

    def other(self, seq: int, command: str, event: Any) -> None:
        """Any other event: a roll (its dice held for the reveal), or nothing to check."""
        kind = event["type"]
        problem = count_problem(event) if dice_of(event) is not None else None
        if (problem := problem or self.asks(event)) is not None:  # dice left out, or a
            self.problems.append(f"#{seq}: {problem}")  # chain cut: a true prefix checks
        if kind == "dice_rolled":  # the number the table acted on, from its faces
            total = sum(t.get("sign", 1) * sum(t["faces"]) for t in event["terms"]) \
                + event.get("constant", 0)
            if event["total"] != total:
                self.problems.append(f"#{seq}: its total is {event['total']}; its faces "
                                     f"and constant make {total}")
        drawn = dice_of(event)
        stamp = event.get("fair")
        if kind == "private_roll" and stamp is not None:  # a roll this member may not see
            self.rolled(seq, command, stamp, [])  # yet: its place, sealed
        elif drawn is not None and stamp is not None:
            self.rolled(seq, command, stamp, drawn)
        elif drawn is not None and self.commitments:  # stamped, every roll since the first
            self.problems.append(f"#{seq}: a roll with no fair stamp after fair rolls "
                                 "began: its dice cannot be checked")

    def committed(self, seq: int, event: Any) -> None:
        """A new epoch: the one before must have ended with its seed revealed."""
        if event["epoch"] != self.epoch + 1:
            self.problems.append(f"#{seq}: epoch {event['epoch']} committed after epoch "
                                 f"{self.epoch}: epochs follow each other one by one")
        if self.open and self.held:
            self.problems.append(f"#{seq}: epoch {self.epoch} ended without its seed revealed: "
                                 f"its {len(self.held)} roll(s) can never be checked")
        self.epoch, self.open, self.held = event["epoch"], True, []
        self.commitments[event["epoch"]] = event["commitment"]

    def lost(self, seq: int, event: Any) -> None:
        """The server says it lost the open epoch's seed: its rolls can never be checked."""
        if self.held:
            self.problems.append(f"#{seq}: epoch {event['epoch']}'s seed was lost, the server "
                                 f"says: its {len(self.held)} roll(s) can never be checked")
        self.open, self.held = False, []

    def revealed(self, seq: int, event: Any) -> None:
        """A seed revealed: it must hash to its commitment and be the open epoch's; then every
        roll of its epoch is recomputed from it."""
        epoch, seed = event["epoch"], bytes.fromhex(event["seed"])
        if hashlib.sha256(seed).hexdigest() != self.commitments.get(epoch):
            self.problems.append(f"#{seq}: epoch {epoch}'s seed does not hash to its commitment")
            return
        if epoch != self.epoch or not self.open:
            self.problems.append(f"#{seq}: epoch {epoch} revealed while it is not the epoch "
                                 "open")
            return
        self.counts["revealed"] += 1
        held, self.held, self.open = self.held, [], False
        if event.get("rolls", len(held)) != len(held):
            self.problems.append(f"#{seq}: epoch {epoch} held {event['rolls']} rolls, "
                                 f"the export has {len(held)}")
        for stamp, _, draws in held:
            got = faces(seed, self.campaign, epoch, bytes.fromhex(stamp["seeds"]),
                        stamp["nonce"], [sides for _, sides, _ in draws])
            for (at, sides, face), expected in zip(draws, got, strict=True):
                if face != expected:
                    self.problems.append(f"#{at}: a d{sides} shows {face}, the seed gives "
                                         f"{expected} (epoch {epoch}, nonce {stamp['nonce']})")
                    break
            self.counts["rolls"] += 1
            self.counts["dice"] += len(draws)

    def rolled(self, seq: int, command: str, stamp: Any, drawn: list[tuple[int, int]]) -> None:
        """A fair roll's dice, held until its epoch's seed is revealed. It must be of the epoch
        open (see the class). A roll that spans several events of one command (they share the
        stamp) goes on from the last one."""
        if stamp["epoch"] != self.epoch or not self.open:
            where = f"while epoch {self.epoch} is open" if self.open else \
                f"after epoch {self.epoch} ended" if self.epoch else "before any epoch"
            self.problems.append(f"#{seq}: a roll of epoch {stamp['epoch']} made {where}: not "
                                 "between its epoch's commitment and its reveal, it proves "
                                 "nothing")
            return
        if stamp["seeds"] != client_seeds_digest(self.client_seeds).hex():
            self.problems.append(f"#{seq}: the roll names client seeds other than those set")
        held = self.held
        if held and held[-1][0]["nonce"] == stamp["nonce"] and held[-1][1] == command:
            held[-1][2].extend((seq, s, f) for s, f in drawn)
        elif stamp["nonce"] == len(held):
            held.append([stamp, command, [(seq, s, f) for s, f in drawn]])
        else:
            self.problems.append(f"#{seq}: nonce {stamp['nonce']} where {len(held)} comes next")


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        sys.stderr.write(__doc__ or "")
        return 0 if argv[1:] in (["-h"], ["--help"]) else 2
    if argv[1] == "-":
        counts, problems = check(sys.stdin)
    else:
        with open(argv[1], encoding="utf-8") as lines:
            counts, problems = check(lines)
    for problem in problems:
        print("mismatch", problem)
    print(f"{counts['dice']} dice of {counts['rolls']} rolls recomputed in "
          f"{counts['revealed']} revealed epoch(s); {counts['sealed']} roll(s) sealed; "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
