"""The fair rolls' derivation: the published test vectors, rejection sampling, uniform faces."""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from poolhall.events.fair import (
    DieStream,
    client_seeds_digest,
    commitment,
    derive_faces,
    roll_message,
)
from poolhall.projections.narrative_dice import SIDES

DOCS = Path(__file__).parents[2] / "docs" / "explanation" / "fairness.md"


def published_vectors() -> list[dict[str, object]]:
    """The test vectors as docs/explanation/fairness.md publishes them (its ``json`` block)."""
    found = re.search(r"```json\n(\[.*?\])\n```", DOCS.read_text(), re.S)
    assert found, "fairness.md has no json block of test vectors"
    vectors: list[dict[str, object]] = json.loads(found.group(1))
    return vectors


@pytest.mark.parametrize("vector", published_vectors(), ids=lambda v: str(v["name"]))
def test_published_vectors(vector: dict[str, Any]) -> None:
    """Each vector's commitment, client seeds digest, message, byte stream and faces."""
    seed = bytes.fromhex(vector["seed"])
    assert commitment(seed) == vector["commitment"]
    digest = client_seeds_digest(vector["client_seeds"])
    assert digest.hex() == vector["client_seeds_digest"]
    message = roll_message(vector["campaign"], vector["epoch"], digest, vector["nonce"])
    assert (message + bytes(4)).hex() == vector["message_block_0"]
    stream = DieStream(seed, vector["campaign"], vector["epoch"], digest, vector["nonce"])
    assert [stream.face(n) for n in vector["sides"]] == vector["faces"]
    assert stream.bytes_used == vector["bytes_used"]
    raw = b"".join(hmac.new(seed, message + c.to_bytes(4, "big"), hashlib.sha256).digest()
                   for c in range(stream.counter))
    assert raw[:stream.bytes_used].hex() == vector["stream"]


def test_faces_follow_the_bytes_by_rejection() -> None:
    """A byte at or above 256 - 256 % n is skipped; the others give byte % n + 1."""
    vector = published_vectors()[2]  # forty d100: bytes >= 200 are rejected
    data = bytes.fromhex(str(vector["stream"]))
    expected = [b % 100 + 1 for b in data if b < 200]
    assert expected == vector["faces"]
    assert any(b >= 200 for b in data), "the vector should show a rejection"


def test_the_client_seeds_change_every_face_and_their_order_does_not() -> None:
    """Another member's seed gives other faces; the digest sorts members, so the order in
    which seeds were set does not matter."""
    seed = bytes(32)
    a = client_seeds_digest({"gm": "x", "han": "y"})
    assert a == client_seeds_digest({"han": "y", "gm": "x"})
    b = client_seeds_digest({"gm": "x", "han": "z"})
    assert derive_faces(seed, "c", 1, a, 0, [100] * 20) != derive_faces(seed, "c", 1, b, 0,
                                                                        [100] * 20)
    assert client_seeds_digest({"ab": "c"}) != client_seeds_digest({"a": "bc"})


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for a chi-square of ``df`` degrees of freedom, in closed form (integer df)."""
    half = x / 2
    if df % 2 == 0:
        term, total = 1.0, 1.0
        for i in range(1, df // 2):
            term *= half / i
            total += term
        return math.exp(-half) * total
    total, term = 0.0, math.sqrt(2 * x / math.pi) * math.exp(-half)
    for i in range(1, (df - 1) // 2 + 1):
        total += term
        term *= x / (2 * i + 1)
    return math.erfc(math.sqrt(half)) + total


def chi2_critical(df: int, alpha: float) -> float:
    """The ``x`` with P(X >= x) = alpha, by bisection on the exact survival function."""
    low, high = 0.0, 10.0 * df + 100
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if chi2_sf(middle, df) > alpha else (low, middle)
    return (low + high) / 2


def test_the_critical_values_match_the_tables() -> None:
    """The chi-square critical values match published tables (alpha 0.05 and 0.001)."""
    assert chi2_critical(3, 0.05) == pytest.approx(7.815, abs=1e-3)
    assert chi2_critical(5, 0.05) == pytest.approx(11.070, abs=1e-3)
    assert chi2_critical(11, 0.001) == pytest.approx(31.264, abs=1e-3)
    assert chi2_critical(99, 0.05) == pytest.approx(123.225, abs=1e-3)


DIE_SIZES = sorted({4, 6, 8, 10, 12, 20, 100, *SIDES.values()})
"""Every number of sides poolhall rolls: the numbered dice, and the narrative dice and the
Force die (d6, d8, d12 face tables: their faces are the derivation's 1..n, looked up)."""
FACES_PER_SIZE = 1_000_000
ALPHA = 0.001


@pytest.mark.parametrize("sides", DIE_SIZES)
def test_faces_are_uniform(sides: int) -> None:
    """A million faces of each die size, from one fixed seed, pass a chi-square test."""
    stream = DieStream(hashlib.sha256(b"chi-square").digest(), "c", 1,
                       client_seeds_digest({}), sides)
    face = stream.face
    counts = Counter(face(sides) for _ in range(FACES_PER_SIZE))
    assert set(counts) == set(range(1, sides + 1))
    expected = FACES_PER_SIZE / sides
    statistic = sum((counts[f] - expected) ** 2 / expected for f in range(1, sides + 1))
    assert statistic < chi2_critical(sides - 1, ALPHA), (sides, statistic)


def test_a_skewed_die_fails_the_chi_square_test() -> None:
    """The test can fail: faces by ``byte % n`` without rejection (modulo bias) on a d100."""
    stream = DieStream(hashlib.sha256(b"chi-square").digest(), "c", 1, bytes(32), 0)
    counts = Counter(stream.face(256) % 100 + 1 for _ in range(FACES_PER_SIZE))
    expected = FACES_PER_SIZE / 100
    statistic = sum((counts[f] - expected) ** 2 / expected for f in range(1, 101))
    assert statistic > chi2_critical(99, ALPHA)
