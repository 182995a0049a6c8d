"""Exact odds of a narrative pool: the joint distribution of (net success, net advantage,
triumphs, despairs), and what the table wants to know from it.

How it is fast enough to send live (3 Proficiency, 2 Ability, 3 Difficulty, 2 Challenge,
2 Boost, 2 Setback in a few milliseconds, where a general-purpose dice library takes seconds):

- every face is a vector ``(s, a, tr, de)``
  (:data:`poolhall.projections.narrative_dice.FACE_VECTORS`); a die is the polynomial
  ``sum(x**s * y**a)`` over its faces, and a pool is the product of its dice's polynomials:
  the coefficient of ``x**s y**a`` counts the outcomes with that net success and advantage;
- triumphs come only from Proficiency dice and despairs only from Challenge dice, so
  the triumph count splits the Proficiency dice binomially (``C(n, t)`` ways for ``t`` dice to
  show the triumph face) and likewise despairs: one 2-D polynomial per (triumphs, despairs);
- a 2-D polynomial with non-negative integer coefficients is packed into one Python integer
  (Kronecker substitution: each coefficient in a 64-bit slot, exponents shifted to start at 0,
  rows wide enough that no sum spills into the next); multiplying the integers multiplies the
  polynomials, in C. Integer counts over the common denominator ``prod(sides ** n)`` keep
  everything exact; :class:`fractions.Fraction` appears only in the answers.

Force dice do not take part in success: they are left out of the distribution (their mean
light and dark pips are in the summary).

A pool is anything that counts its dice by kind (:class:`~poolhall.events.narrative_notation.
DiceCounts`): the events' ``Pool``, or the plain counts ``poolhall odds`` reads. This module
imports no msgspec and no event (the faces are :mod:`poolhall.projections.narrative_faces`'s
plain data), so that command starts without them; only :func:`summary`, which makes the view's
``OddsSummary``, imports the events when it is called.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb, prod
from typing import TYPE_CHECKING, Any

from poolhall.events.narrative_notation import Counts, DiceCounts, pool_notation, pool_total
from poolhall.projections.narrative_faces import FACE_VECTORS, FACES, SIDES

if TYPE_CHECKING:
    from poolhall.events.narrative import OddsSummary

__all__ = ["Key", "Distribution", "distribution", "summary", "summary_fields", "exact"]

Key = tuple[int, int, int, int]
"""``(net success, net advantage, triumphs, despairs)``."""

_POSITIVE = ("ability", "boost")
_NEGATIVE = ("difficulty", "setback")


class Distribution:
    """The exact joint distribution of a pool's result, as integer counts of outcomes.

    ``total`` outcomes are equally likely; ``blocks[(tr, de)]`` is a flat tuple of counts,
    index ``(s + s_offset) + (a + a_offset) * width`` for net success ``s`` and net advantage
    ``a``. Read it through the methods; :meth:`joint` gives the plain mapping.
    """

    __slots__ = ("total", "width", "height", "s_offset", "a_offset", "blocks", "_marginals")

    def __init__(self, total: int, width: int, height: int, s_offset: int, a_offset: int,
                 blocks: dict[tuple[int, int], tuple[int, ...]]) -> None:
        self.total = total
        self.width = width
        self.height = height
        self.s_offset = s_offset
        self.a_offset = a_offset
        self.blocks = blocks
        self._marginals: dict[str, dict[int, int]] = {}

    def joint(self) -> dict[Key, int]:
        """Counts by ``(net success, net advantage, triumphs, despairs)``, zeros left out."""
        out: dict[Key, int] = {}
        w, so, ao = self.width, self.s_offset, self.a_offset
        for (tr, de), block in self.blocks.items():
            for ea in range(self.height):
                row = block[ea * w:(ea + 1) * w]
                a = ea - ao
                out.update({(es - so, a, tr, de): c for es, c in enumerate(row) if c})
        return out

    def probabilities(self) -> dict[Key, Fraction]:
        """The joint distribution as exact probabilities."""
        return {key: Fraction(count, self.total) for key, count in self.joint().items()}

    def _p(self, count: int) -> Fraction:
        return Fraction(count, self.total)

    def success_counts(self) -> dict[int, int]:
        """Outcome counts by net success (negative: net failures)."""
        if "s" not in self._marginals:  # computed once: the summary reads it several times
            w = self.width
            out: dict[int, int] = {}
            for es in range(w):
                count = sum(sum(block[es::w]) for block in self.blocks.values())
                if count:
                    out[es - self.s_offset] = count
            self._marginals["s"] = out
        return dict(self._marginals["s"])

    def advantage_counts(self) -> dict[int, int]:
        """Outcome counts by net advantage (negative: net threat)."""
        if "a" not in self._marginals:
            w = self.width
            out: dict[int, int] = {}
            for ea in range(self.height):
                count = sum(sum(block[ea * w:(ea + 1) * w]) for block in self.blocks.values())
                if count:
                    out[ea - self.a_offset] = count
            self._marginals["a"] = out
        return dict(self._marginals["a"])

    def p_success(self) -> Fraction:
        """P(more successes than failures): the check succeeds."""
        return self.p_net_success_at_least(1)

    def p_net_success_at_least(self, k: int) -> Fraction:
        """P(net success >= k)."""
        return self._p(sum(c for s, c in self.success_counts().items() if s >= k))

    def p_advantage_at_least(self, k: int) -> Fraction:
        """P(net advantage >= k) (k <= 0 counts threat: net advantage -1 is one threat)."""
        start = max(0, k + self.a_offset) * self.width
        return self._p(sum(sum(block[start:]) for block in self.blocks.values()))

    def p_triumph(self) -> Fraction:
        """P(at least one triumph)."""
        return 1 - self._p(sum(sum(b) for (tr, _), b in self.blocks.items() if tr == 0))

    def p_despair(self) -> Fraction:
        """P(at least one despair)."""
        return 1 - self._p(sum(sum(b) for (_, de), b in self.blocks.items() if de == 0))

    def means(self) -> tuple[Fraction, Fraction, Fraction, Fraction]:
        """Expected net success, net advantage, triumphs and despairs."""
        s = sum(v * c for v, c in self.success_counts().items())
        a = sum(v * c for v, c in self.advantage_counts().items())
        tr = sum(t * sum(b) for (t, _), b in self.blocks.items())
        de = sum(d * sum(b) for (_, d), b in self.blocks.items())
        return self._p(s), self._p(a), self._p(tr), self._p(de)


def _poly(kind: str, keep: int | None, flag: int, word: int, width: int,
          lows: tuple[int, int]) -> int:
    """A die's faces as a packed polynomial; ``keep`` selects faces by ``vector[flag]``."""
    ls, la = lows
    packed = 0
    for vector in FACE_VECTORS[kind]:
        if keep is None or vector[flag] == keep:
            packed += 1 << (word * ((vector[0] - ls) + (vector[1] - la) * width))
    return packed


def _lows(kind: str) -> tuple[int, int]:
    vectors = FACE_VECTORS[kind]
    return min(v[0] for v in vectors), min(v[1] for v in vectors)


def _spans(kind: str) -> tuple[int, int]:
    vectors = FACE_VECTORS[kind]
    ls, la = _lows(kind)
    return max(v[0] for v in vectors) - ls, max(v[1] for v in vectors) - la


def _side(pool: DiceCounts, plain: tuple[str, str], special: str, flag: int, word: int,
          width: int) -> list[int]:
    """One side's packed polynomials, one per count of its special symbol (triumph/despair)."""
    base = 1
    for kind in plain:
        if pool.count(kind):
            base *= _poly(kind, None, flag, word, width, _lows(kind)) ** pool.count(kind)
    n = pool.count(special)
    if not n:
        return [base]
    lows = _lows(special)
    without = _poly(special, 0, flag, word, width, lows)
    with_it = _poly(special, 1, flag, word, width, lows)
    return [comb(n, t) * without ** (n - t) * with_it ** t * base for t in range(n + 1)]


def _side_sums(pool: DiceCounts, plain: tuple[str, str], special: str, flag: int) -> list[int]:
    """The outcomes each of :func:`_side`'s polynomials counts (their value at x = y = 1)."""
    base = prod(SIDES[kind] ** pool.count(kind) for kind in plain)
    n = pool.count(special)
    with_it = sum(1 for vector in FACE_VECTORS[special] if vector[flag] == 1)
    without = SIDES[special] - with_it
    return [comb(n, t) * without ** (n - t) * with_it ** t * base for t in range(n + 1)]


def _unpack(product: int, slots: int, words: int) -> tuple[int, ...]:
    """The coefficients of a packed polynomial, ``words`` 64-bit words each."""
    raw = memoryview(product.to_bytes(slots * 8 * words, "little")).cast("Q")
    if words == 1:
        return tuple(raw.tolist())
    counts = raw[::words].tolist()
    for j in range(1, words):
        shift = 64 * j
        counts = [c | (high << shift) if high else c
                  for c, high in zip(counts, raw[j::words].tolist(), strict=True)]
    return tuple(counts)


@lru_cache(maxsize=256)
def _compute(key: tuple[int, ...]) -> Distribution:
    kinds = ("proficiency", "ability", "difficulty", "challenge", "boost", "setback")
    pool = Counts(zip(kinds, key, strict=True))
    total = prod(SIDES[kind] ** pool.count(kind) for kind in kinds)
    width = 1 + sum(_spans(kind)[0] * pool.count(kind) for kind in kinds)
    height = 1 + sum(_spans(kind)[1] * pool.count(kind) for kind in kinds)
    s_offset = -sum(_lows(kind)[0] * pool.count(kind) for kind in kinds)
    a_offset = -sum(_lows(kind)[1] * pool.count(kind) for kind in kinds)
    slots = width * height
    packed: dict[int, tuple[list[int], list[int]]] = {}
    blocks: dict[tuple[int, int], tuple[int, ...]] = {}
    positive = _side_sums(pool, _POSITIVE, "proficiency", 2)
    negative = _side_sums(pool, _NEGATIVE, "challenge", 3)
    for tr, pos_outcomes in enumerate(positive):
        for de, neg_outcomes in enumerate(negative):
            # no count in this block exceeds the block's outcomes: size the slots by them, so
            # most blocks of a big pool still fit one 64-bit word per count
            words = max(1, -(-(pos_outcomes * neg_outcomes).bit_length() // 64))
            if words not in packed:
                packed[words] = (_side(pool, _POSITIVE, "proficiency", 2, 64 * words, width),
                                 _side(pool, _NEGATIVE, "challenge", 3, 64 * words, width))
            pos, neg = packed[words]
            blocks[(tr, de)] = _unpack(pos[tr] * neg[de], slots, words)
    return Distribution(total, width, height, s_offset, a_offset, blocks)


def distribution(pool: DiceCounts) -> Distribution:
    """The exact joint distribution of a pool (Force dice left out).

    Results are cached by the pool's counts (pure function of them), so the live odds of a
    check the table keeps changing back and forth are computed once per pool.
    """
    return _compute(tuple(pool.count(kind) for kind in ("proficiency", "ability", "difficulty",
                                                        "challenge", "boost", "setback")))


def exact(value: Fraction) -> str:
    """A fraction as text, ``"37/144"``."""
    return f"{value.numerator}/{value.denominator}"


def summary(pool: DiceCounts) -> OddsSummary:
    """The odds summary of a pool, as the table's view carries it."""
    from poolhall.events.narrative import OddsSummary

    return OddsSummary(**summary_fields(pool))


def summary_fields(pool: DiceCounts) -> dict[str, Any]:
    """The odds summary of a pool as plain data: :class:`~poolhall.events.narrative.OddsSummary`'s
    fields, in its order (what :func:`summary` makes it of; ``poolhall odds`` prints them)."""
    dist = distribution(pool)
    p_success = dist.p_success()
    p_triumph, p_despair = dist.p_triumph(), dist.p_despair()
    means = dist.means()
    force = pool.count("force")
    light = sum(face.count("light") for face in FACES["force"])
    dark = sum(face.count("dark") for face in FACES["force"])
    return dict(
        pool=pool_notation(pool),
        dice=pool_total(pool),
        p_success=float(p_success),
        p_success_exact=exact(p_success),
        p_advantage={k: float(dist.p_advantage_at_least(k)) for k in (1, 2, 3)},
        p_threat=float(1 - dist.p_advantage_at_least(0)),
        p_triumph=float(p_triumph),
        p_triumph_exact=exact(p_triumph),
        p_despair=float(p_despair),
        p_despair_exact=exact(p_despair),
        mean_successes=float(means[0]),
        mean_advantages=float(means[1]),
        mean_triumphs=float(means[2]),
        mean_despairs=float(means[3]),
        net_successes={s: c / dist.total for s, c in sorted(dist.success_counts().items())},
        net_advantages={a: c / dist.total for a, c in sorted(dist.advantage_counts().items())},
        mean_light=force * light / SIDES["force"],
        mean_dark=force * dark / SIDES["force"],
    )
