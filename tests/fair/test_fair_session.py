"""A whole session of fair rolls against the real server: commitments, client seeds, reveals,
``poolhall verify`` recomputing every face, and the seed in no frame before its reveal."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from poolhall.events import core
from poolhall.events import narrative as n
from poolhall.events.fair import SeedCommitted, SeedRevealed, SetClientSeed, commitment
from poolhall.events.log import to_recorded
from poolhall.events.sqlite_backend import SqliteReader
from tests.conftest import Table
from tests.server.raw import RawPeer

ROOT = Path(__file__).parents[2]


def verify(db: Path) -> tuple[int, dict[str, Any]]:
    """``poolhall verify --json`` on the file: its exit code and what it printed."""
    done = subprocess.run([sys.executable, "-m", "poolhall", "verify", str(db), "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    return done.returncode, json.loads(done.stdout)


class Recorder:
    """A raw connection that keeps every frame the server sends it, in order."""

    def __init__(self, peer: RawPeer) -> None:
        self.peer = peer
        self.frames: list[str] = []
        self._task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for frame in self.peer.connection:
            self.frames.append(str(frame))

    async def close(self) -> None:
        await self.peer.close()
        await asyncio.gather(self._task, return_exceptions=True)


async def record(table: Table, token: str, campaign: str) -> Recorder:
    peer = await RawPeer.open(table.url)
    await peer.send({"type": "join", "token": token, "campaign": campaign, "since": 0})
    return Recorder(peer)


async def test_a_session_of_fair_rolls_verifies_and_never_leaks_its_seed(table: Table) -> None:
    """Every die of a narrative session (free XdN of every size, free pools of every kind,
    the destiny pool) is stamped and recomputed by ``verify`` once the session ends; no frame
    any role received carried the seed before the reveal."""
    admin = await table.connect(None, table.admin_token)
    created = await admin.call(core.CreateCampaign, name="Fair", system="narrative")
    campaign, gm_token = created.campaign, created.token
    assert campaign
    assert gm_token
    gm = await table.connect(campaign, gm_token)
    tokens = [gm_token]
    for role, plays in (("player", ("han",)), ("spectator", ())):
        invited = await gm.call(core.Invite, role=role, characters=plays)
        assert invited.token
        tokens.append(invited.token)
    player = await table.connect(campaign, tokens[1])
    recorders = [await record(table, token, campaign) for token in tokens]
    await gm.wait_for_seq(created.seqs[-1])
    assert isinstance(gm.state.fair.commitment, str)
    assert gm.state.fair.epoch == 1
    await player.call(SetClientSeed, seed="kessel-run-12")
    await gm.call(core.StartSession)
    await gm.call(n.RollDestinyPool)
    for expression in ("1d4+2d6+1d8", "3d10-1d12", "2d20+1d100"):
        await player.call(core.Roll, expression=expression)
    await player.call(n.RollPool, pool=n.Pool(proficiency=2, ability=2, difficulty=1,
                                              challenge=1, boost=2, setback=1, force=2))
    await gm.call(SetClientSeed, seed="the-gm-too")
    await gm.call(core.Roll, expression="4d6")
    ack = await gm.call(core.EndSession)
    await gm.wait_for_seq(ack.seqs[-1])
    await asyncio.sleep(0.2)
    exported = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "poolhall", "export", campaign, "--events",
                         "--url", table.url, "--token", gm_token],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert exported.returncode == 0, exported.stderr
    (table.db_path.parent / "export.jsonl").write_text(exported.stdout)
    for recorder in recorders:
        await recorder.close()
    await table.close_clients()
    await table.server.stop()

    events = [to_recorded(row).event for row in SqliteReader(table.db_path).rows(campaign)]
    reveals = [e for e in events if isinstance(e, SeedRevealed)]
    commits = [e for e in events if isinstance(e, SeedCommitted)]
    assert [e.epoch for e in commits] == [1, 2, 3]
    assert [e.epoch for e in reveals] == [1, 2]
    assert all(commitment(bytes.fromhex(r.seed)) == c.commitment
               for r, c in zip(reveals, commits, strict=False))
    code, report = verify(table.db_path)
    assert code == 0, report
    rolls = report["rolls"]
    assert rolls["revealed"] == 2
    assert rolls["rolls_checked"] == 6
    assert rolls["dice_checked"] == 1 + 4 + 4 + 3 + 11 + 4  # destiny: one die, one player
    seeds = [r.seed for r in reveals]
    for recorder in recorders:
        for seed in seeds:
            reveal_at = next((i for i, f in enumerate(recorder.frames) if seed in f
                              and '"seed_revealed"' in f), len(recorder.frames))
            assert not any(seed in frame for frame in recorder.frames[:reveal_at])
        assert any('"seed_revealed"' in frame for frame in recorder.frames)

    reference = reference_verifier(table.db_path.parent / "export.jsonl")
    assert reference.returncode == 0, reference.stdout
    assert "27 dice of 6 rolls recomputed in 2 revealed epoch(s)" in reference.stdout

    tamper_a_face(table.db_path, campaign)
    code, report = verify(table.db_path)
    assert code == 1
    assert report["rolls"]["mismatches"] == 2, report  # the face, and the total it made
    assert any("give another face" in p["problem"] for p in report["problems"])
    assert any("its faces and constant make" in p["problem"] for p in report["problems"])
    lines = (table.db_path.parent / "export.jsonl").read_text().splitlines()
    edited = [edit_first_face(line) if '"dice_rolled"' in line else line for line in lines]
    (table.db_path.parent / "edited.jsonl").write_text("\n".join(edited) + "\n")
    reference = reference_verifier(table.db_path.parent / "edited.jsonl")
    assert reference.returncode == 1
    assert "mismatch" in reference.stdout


def reference_verifier(path: Path) -> subprocess.CompletedProcess[str]:
    """docs/verifier/verify_rolls.py on an export, with no poolhall on its path."""
    return subprocess.run([sys.executable, "-I", str(ROOT / "docs" / "verifier" /
                                                     "verify_rolls.py"), str(path)],
                          capture_output=True, text=True, timeout=120, cwd=path.parent)


def edit_first_face(line: str) -> str:
    """A ``dice_rolled`` line with its first face turned (1 <-> 2, else 1)."""
    record = json.loads(line)
    faces = record["event"]["terms"][0]["faces"]
    faces[0] = 2 if faces[0] == 1 else 1
    return json.dumps(record)


def tamper_a_face(db: Path, campaign: str) -> None:
    """Change one face of the first free roll in the file, as the sqlite3 shell could."""
    with sqlite3.connect(db) as connection:
        connection.execute("DROP TRIGGER IF EXISTS events_no_update")
        position, payload = connection.execute(
            "SELECT position, payload FROM events WHERE campaign = ? AND type = 'dice_rolled' "
            "ORDER BY seq LIMIT 1", (campaign,)).fetchone()
        record = {"event": json.loads(payload)}
        edited = json.loads(edit_first_face(json.dumps(record)))["event"]
        connection.execute("UPDATE events SET payload = ? WHERE position = ?",
                           (json.dumps(edited, separators=(",", ":")), position))


def test_the_reference_verifier_refuses_an_input_with_no_campaign(tmp_path: Path) -> None:
    """An empty file (what `poolhall export CAMPAIGN > file` leaves when it fails) checks
    nothing, so it must not pass: an operator would believe the night was checked."""
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    reference = reference_verifier(empty)
    assert reference.returncode == 1
    assert "poolhall export CAMPAIGN --events" in reference.stdout


def test_the_reference_verifier_reports_a_roll_with_no_stamp_once_fair_rolls_began(
        tmp_path: Path) -> None:
    """A dice event with no fair stamp after the first commitment is a problem for the
    reference verifier too (forged, its stamp removed and the reveal's count lowered, it
    passed unnoticed)."""
    seed = bytes(range(32))

    def line(seq: int, event: dict[str, Any]) -> str:
        return json.dumps({"seq": seq, "at": "2026-11-29T00:00:00.000Z", "actor": "gm",
                           "command": f"c{seq}", "event": event})

    lines = [line(1, {"type": "campaign_created", "campaign": "c", "name": "C",
                      "system": "d12"}),
             line(2, {"type": "seed_committed", "epoch": 1, "commitment": commitment(seed)}),
             line(3, {"type": "dice_rolled", "expression": "3d6", "total": 18,
                      "terms": [{"sides": 6, "sign": 1, "faces": [6, 6, 6]}]}),
             line(4, {"type": "seed_revealed", "epoch": 1, "seed": seed.hex(), "rolls": 0})]
    export = tmp_path / "forged.jsonl"
    export.write_text("\n".join(lines) + "\n")
    reference = reference_verifier(export)
    assert reference.returncode == 1, reference.stdout
    assert "#3: a roll with no fair stamp after fair rolls began" in reference.stdout


def test_the_reference_verifier_checks_a_free_roll_s_total_against_its_faces(
        tmp_path: Path) -> None:
    """A free roll's total rewritten beside its true faces (the chain rehashed) is reported:
    the total is the number the table acted on."""
    lines = [json.dumps({"seq": seq, "at": "2026-11-29T00:00:00.000Z", "actor": "gm",
                         "command": f"c{seq}", "event": event}) for seq, event in (
        (1, {"type": "campaign_created", "campaign": "c", "name": "C", "system": "d12"}),
        (2, {"type": "dice_rolled", "expression": "3d6-1d4+2", "total": 18, "constant": 2,
             "terms": [{"sides": 6, "faces": [6, 2, 6]},
                       {"sides": 4, "sign": -1, "faces": [3]}]}),
        (3, {"type": "dice_rolled", "expression": "2d6", "total": 7,
             "terms": [{"sides": 6, "faces": [3, 4]}]}))]
    export = tmp_path / "forged.jsonl"
    export.write_text("\n".join(lines) + "\n")
    reference = reference_verifier(export)
    assert reference.returncode == 1, reference.stdout
    assert "#2: its total is 18; its faces and constant make 13" in reference.stdout
    assert "#3" not in reference.stdout


async def test_a_player_s_export_with_a_roll_hidden_from_them_verifies(table: Table) -> None:
    """A roll a player may not see yet reaches them sealed, keeping its fair stamp (nothing of
    its dice): the reference verifier on that player's export counts it sealed, where it saw
    the next roll skip a nonce and called an honest table forged; once the session ends the
    same export checks every roll."""
    campaign, gm = await table.create_campaign("d12", name="Blind")
    ana = await table.invite(gm, "player", name="Ana")
    await gm.call(core.StartSession)
    for visibility in ("public", "blind", "public"):
        await ana.call(core.Roll, expression="2d6", visibility=visibility)

    async def verified_export(name: str) -> str:
        exported = await asyncio.to_thread(
            subprocess.run, [sys.executable, "-m", "poolhall", "export", campaign, "--events",
                             "--url", table.url, "--token", ana._token],
            cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert exported.returncode == 0, exported.stderr
        path = table.db_path.parent / name
        path.write_text(exported.stdout)
        assert '"private_roll"' in exported.stdout or name == "after.jsonl"
        reference = reference_verifier(path)
        assert reference.returncode == 0, reference.stdout
        return reference.stdout

    assert "3 roll(s) sealed; 0 problem(s)" in await verified_export("before.jsonl")
    ended = await gm.call(core.EndSession)
    await ana.wait_for_seq(ended.seqs[-1])
    assert "6 dice of 3 rolls recomputed" in await verified_export("after.jsonl")
