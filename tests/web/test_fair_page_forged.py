"""A roll forged into the log with faces its stamp's seed truly gives is still not ✓ on the
page when the stamp proves nothing: made outside its epoch's open window (after the seed was
public, or before it was committed), or naming client seeds other than those in force (a
server that ignored the members' seeds), or holding fewer dice than it asked for (its faces a
true prefix of the stream). The page says why, as ``poolhall verify`` does."""

from __future__ import annotations

import json
import re
import sqlite3

from playwright.sync_api import Page, expect

from poolhall.events.fair import client_seeds_digest, derive_faces
from tests.fair.forged_log import ForgedLog
from tests.fair.test_fair_lost_seed import lose_seed
from tests.web.conftest import PageOpener, Served
from tests.web.test_fair_page import _badge
from tests.web.test_owner_page import restart

EMPTY = client_seeds_digest({}).hex()


def _forge(log: ForgedLog, campaign: str, forgery: str) -> int:
    """Append ``forgery`` to a stopped server's log; the forged roll's seq.

    The log then holds: epoch 1 (one roll) revealed, epoch 2 open with one roll."""
    if forgery == "revealed epoch":  # epoch 1's seed is public: the face was picked
        return log.d20(1, 1, EMPTY)
    if forgery == "before its commitment":  # epoch 3's seed chosen, rolled, then committed
        forged = log.d20(3, 0, EMPTY)
        log.reveal(2, 1)
        log.commit(3)
        log.reveal(3, 1)
        log.commit(4)
        return forged
    if forgery == "last die left out":  # "3d6" holding the first 2 faces its seed gives
        faces = derive_faces(log.seed(2), campaign, 2, bytes.fromhex(EMPTY), 1, [6, 6, 6])
        forged = log.append({"type": "dice_rolled", "character": None, "expression": "3d6",
                             "terms": [{"sides": 6, "faces": faces[:2], "sign": 1}],
                             "constant": 0, "total": sum(faces[:2]), "reason": "forged",
                             "fair": {"epoch": 2, "nonce": 1, "seeds": EMPTY},
                             "visibility": "public"})
    else:  # "client seeds ignored": the GM's seed is in force, the stamp names none
        forged = log.d20(2, 1, EMPTY)
    log.reveal(2, 2)
    log.commit(3)
    return forged


FORGERIES = [
    ("revealed epoch", "a roll of epoch 1 made after its seed was revealed"),
    ("before its commitment", "a roll of epoch 3 made before its commitment"),
    ("client seeds ignored", "the roll's client seeds digest is not of the seeds in force"),
    ("last die left out", "its dice are not those its expression 3d6 asks for"),
]
"""Each forgery, and the words its roll's mark says."""


def test_a_roll_whose_stamp_proves_nothing_is_not_verified(served: Served,
                                                           open_page: PageOpener) -> None:
    """Each forgery in a campaign of its own (the server stopped and started once for all):
    the forged roll's faces all match its stamp's seed, and the seed hashes to its
    commitment: the mark is ✗ all the same, saying why (on the mark and in its detail); the
    honest rolls around it stay ✓."""
    tables = []
    for forgery, _ in FORGERIES:
        campaign, gm_link = served.create_campaign(f"Forged {forgery}", "d12")
        seeds = [{"type": "set_client_seed", "seed": "gm-was-here"}] \
            if forgery == "client seeds ignored" else []
        acks = served.send(gm_link, *seeds, {"type": "roll", "expression": "1d20"},
                           {"type": "rotate_seed"}, {"type": "roll", "expression": "1d20"})
        tables.append((campaign, gm_link, acks[len(seeds)].seqs[0]))
    served.process.terminate()
    served.process.wait(15)
    forged_seqs = []
    for (campaign, _, _), (forgery, _) in zip(tables, FORGERIES, strict=True):
        log = ForgedLog(served.directory / "table.db", campaign)
        try:
            forged_seqs.append(_forge(log, campaign, forgery))
        finally:
            log.close()
    restart(served)
    for (_, gm_link, honest), forged, (_, words) in zip(tables, forged_seqs, FORGERIES,
                                                        strict=True):
        gm: Page = open_page(gm_link)
        expect(_badge(gm, honest)).to_have_attribute("data-state", "verified")
        badge = _badge(gm, forged)
        expect(badge).to_have_attribute("data-state", "mismatch")
        expect(badge).to_have_text("✗")
        expect(badge).to_have_attribute("title", re.compile(re.escape(words)))
        badge.click()
        expect(gm.locator("ph-log .ph-fair-panel")).to_contain_text(words)
        gm.close()  # before the server stops: a page reconnecting would log an error


def test_a_roll_whose_seed_the_server_lost_is_marked_so(served: Served,
                                                        open_page: PageOpener) -> None:
    """The seed of the roll's epoch was lost (its row gone from the file): once the GM
    rotates (``seed_lost``), the roll is not left "sealed" forever but marked ✗ seed lost,
    saying it can never be checked."""
    campaign, gm_link = served.create_campaign("Lost", "d12")
    (ack,) = served.send(gm_link, {"type": "roll", "expression": "1d20"})
    served.process.terminate()
    served.process.wait(15)
    lose_seed(served.directory / "table.db", campaign, 1)
    restart(served)
    served.send(gm_link, {"type": "rotate_seed"})
    gm: Page = open_page(gm_link)
    badge = _badge(gm, ack.seqs[0])
    expect(badge).to_have_attribute("data-state", "lost")
    expect(badge).to_have_text("✗")
    expect(badge).to_have_attribute("title", re.compile("the server lost epoch 1's seed"))
    gm.close()


def test_a_forged_narrative_result_beside_true_faces_is_not_verified(
        served: Served, open_page: PageOpener) -> None:
    """A narrative pool's result rewritten (a triumph added) with every face left true: the
    page checks the result from the faces, as ``poolhall verify`` does, and marks it ✗; the
    honest pools stay ✓ (the page counts their symbols as the server did)."""
    campaign, gm_link = served.create_campaign("Symbols", "narrative")
    pool = {"ability": 2, "proficiency": 2, "boost": 1, "difficulty": 2, "challenge": 2,
            "setback": 1}
    acks = served.send(gm_link, *[{"type": "roll_pool", "pool": pool}] * 4,
                       {"type": "rotate_seed"})
    *honest, forged = [ack.seqs[0] for ack in acks[:4]]
    served.process.terminate()
    served.process.wait(15)
    with sqlite3.connect(served.directory / "table.db") as db:
        db.execute("DROP TRIGGER IF EXISTS events_no_update")
        (payload,) = db.execute("SELECT payload FROM events WHERE campaign = ? AND seq = ?",
                                (campaign, forged)).fetchone()
        event = json.loads(payload)
        event["result"]["triumphs"] += 1
        event["result"]["successes"] += 1
        db.execute("UPDATE events SET payload = ? WHERE campaign = ? AND seq = ?",
                   (json.dumps(event, separators=(",", ":")), campaign, forged))
    restart(served)
    gm: Page = open_page(gm_link)
    for seq in honest:
        expect(_badge(gm, seq)).to_have_attribute("data-state", "verified")
    expect(_badge(gm, forged)).to_have_attribute("data-state", "mismatch")
    expect(_badge(gm, forged)).to_have_attribute(
        "title", "its result is not what its dice come to (successes, advantage, triumphs)")
    gm.close()
