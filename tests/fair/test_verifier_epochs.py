"""The reference verifier (docs/verifier/verify_rolls.py) and ``poolhall verify`` take a roll
as proof only if it was made while its epoch was open: after the commitment, before the
reveal. Forgeries an operator holding the database could append (the chain hash is unkeyed)
must fail both."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from poolhall.events.fair import client_seeds_digest, commitment, derive_faces
from tests.fair.test_fair_session import reference_verifier

SEEDS = [bytes([n]) * 32 for n in range(1, 5)]
"""The seeds of epochs 1 to 4."""
EMPTY = client_seeds_digest({}).hex()


def line(seq: int, event: dict[str, Any]) -> str:
    return json.dumps({"seq": seq, "at": "2026-11-29T00:00:00.000Z", "actor": "gm",
                       "command": f"c{seq}", "event": event})


def committed(epoch: int) -> dict[str, Any]:
    return {"type": "seed_committed", "epoch": epoch, "commitment": commitment(SEEDS[epoch - 1])}


def revealed(epoch: int, rolls: int) -> dict[str, Any]:
    return {"type": "seed_revealed", "epoch": epoch, "seed": SEEDS[epoch - 1].hex(),
            "rolls": rolls}


def d20(epoch: int, nonce: int) -> dict[str, Any]:
    """A 1d20 whose face is the one epoch's seed truly gives: only its place is forged."""
    face = derive_faces(SEEDS[epoch - 1], "c", epoch, bytes.fromhex(EMPTY), nonce, [20])[0]
    return {"type": "dice_rolled", "expression": "1d20", "total": face, "constant": 0,
            "terms": [{"sides": 20, "sign": 1, "faces": [face]}],
            "fair": {"epoch": epoch, "nonce": nonce, "seeds": EMPTY}}


def export(tmp_path: Path, events: list[dict[str, Any]]) -> Path:
    path = tmp_path / "forged.jsonl"
    path.write_text("\n".join(line(seq, event) for seq, event in enumerate(
        [{"type": "campaign_created", "campaign": "c", "name": "C", "system": "d12"}, *events],
        start=1)) + "\n")
    return path


def test_an_honest_log_passes(tmp_path: Path) -> None:
    """The control: rolls inside their epochs, every epoch revealed."""
    done = reference_verifier(export(tmp_path, [
        committed(1), d20(1, 0), revealed(1, 1), committed(2), d20(2, 0), d20(2, 1),
        revealed(2, 2), committed(3)]))
    assert done.returncode == 0, done.stdout
    assert "0 problem(s)" in done.stdout


def test_a_roll_stamped_with_an_epoch_already_revealed_fails(tmp_path: Path) -> None:
    """Epoch 1's seed is public when the roll is made: the forger picked the face it wanted."""
    done = reference_verifier(export(tmp_path, [
        committed(1), revealed(1, 0), committed(2), d20(1, 0)]))
    assert done.returncode == 1, done.stdout
    assert "#5: a roll of epoch 1 made while epoch 2 is open" in done.stdout


def test_a_roll_made_before_its_epoch_s_commitment_fails(tmp_path: Path) -> None:
    """The seed of epoch 2 could have been ground to the faces wanted, then committed."""
    done = reference_verifier(export(tmp_path, [
        committed(1), d20(2, 0), revealed(1, 0), committed(2), revealed(2, 1), committed(3)]))
    assert done.returncode == 1, done.stdout
    assert "#3: a roll of epoch 2 made while epoch 1 is open" in done.stdout


def test_a_roll_after_its_epoch_s_reveal_fails(tmp_path: Path) -> None:
    """Between a reveal and the next commitment no epoch is open."""
    done = reference_verifier(export(tmp_path, [committed(1), revealed(1, 0), d20(1, 0)]))
    assert done.returncode == 1, done.stdout
    assert "#4: a roll of epoch 1 made after epoch 1 ended" in done.stdout


def test_an_epoch_superseded_without_its_reveal_fails(tmp_path: Path) -> None:
    """Its rolls can never be checked: not sealed, a problem (as poolhall verify says)."""
    done = reference_verifier(export(tmp_path, [
        committed(1), d20(1, 0), d20(1, 1), committed(2), d20(2, 0)]))
    assert done.returncode == 1, done.stdout
    assert "#5: epoch 1 ended without its seed revealed: its 2 roll(s) can never be " \
        "checked" in done.stdout


def test_an_epoch_whose_seed_the_server_lost_fails_in_those_words(tmp_path: Path) -> None:
    """``seed_lost`` (the server's own word that it lost the seed) does not make the rolls
    checkable: the verifier says so, and fails."""
    done = reference_verifier(export(tmp_path, [
        committed(1), d20(1, 0), {"type": "seed_lost", "epoch": 1, "rolls": 1}, committed(2)]))
    assert done.returncode == 1, done.stdout
    assert "#4: epoch 1's seed was lost, the server says: its 1 roll(s) can never be " \
        "checked" in done.stdout
