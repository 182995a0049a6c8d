"""The XdN notation of free rolls: a small grammar with limits, never eval."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from poolhall.events.dice import MAX_DICE, SIDES, DiceTerm, parse_dice
from poolhall.events.errors import NotationError


def test_rule_xdn_notation_rolls_x_dice_of_n_sides() -> None:
    """d12-dice.tex, Notation: "roll X dice and add their results together" is written XdN."""
    expression = parse_dice("2d8")
    assert expression.terms == (DiceTerm(count=2, sides=8),)
    assert expression.constant == 0


def test_rule_notation_knows_the_common_dice() -> None:
    """d12-dice.tex, Notation: the dice commonly used are d4 d6 d8 d10 d12 d20 and d100."""
    for sides in (4, 6, 8, 10, 12, 20, 100):
        assert parse_dice(f"1d{sides}").terms[0].sides == sides
    with pytest.raises(NotationError, match="d7 is not a die"):
        parse_dice("1d7")


def test_several_terms_and_a_constant() -> None:
    """``2d8+1d4+3`` is two terms and a constant; ``d6`` alone means one die; spaces allowed."""
    expression = parse_dice("2d8 + 1d4+3")
    assert [(t.count, t.sides) for t in expression.terms] == [(2, 8), (1, 4)]
    assert expression.constant == 3
    assert parse_dice("d6-2").constant == -2
    assert parse_dice("D20").terms[0].count == 1
    assert parse_dice("1d6-1d4").terms[1].sign == -1


@pytest.mark.parametrize("text", [
    "", "   ", "d", "2d", "+2d6", "2d6+", "2d6 3d6", "2x6", "eval('1')", "2d6;", "1000000d1000000",
    f"{MAX_DICE + 1}d6", "60d6+60d6", "0d6", "1d6+" * 11 + "1", "1d6+5000", "1d6+00000001001",
    "١d٦", "１d６",
])
def test_bad_expressions_are_refused_with_a_reason(text: str) -> None:
    """Anything outside the grammar or its limits raises NotationError with a message."""
    with pytest.raises(NotationError) as error:
        parse_dice(text)
    assert error.value.message


@given(st.lists(st.tuples(st.integers(1, 10), st.sampled_from(SIDES)), min_size=1, max_size=5),
       st.integers(-100, 100))
def test_printed_expression_parses_back_to_itself(terms: list[tuple[int, int]],
                                                  constant: int) -> None:
    """str() of a parsed expression is canonical: it parses back to the same terms."""
    text = "+".join(f"{count}d{sides}" for count, sides in terms)
    if constant:
        text += f"{constant:+d}"
    expression = parse_dice(text)
    assert parse_dice(str(expression)) == expression
    assert sum(t.count for t in expression.terms) == sum(c for c, _ in terms)


def test_a_constant_with_leading_zeros_keeps_its_value() -> None:
    """``+0005`` is five, and a long run of zeros does not hide the digits after it."""
    assert parse_dice("1d6+0005").constant == 5
    assert parse_dice("1d6+0000000000001").constant == 1


def test_a_term_wrong_in_count_and_size_says_both() -> None:
    """``1000000d1000000`` is refused for the count and for the die size, in one message."""
    with pytest.raises(NotationError) as error:
        parse_dice("1000000d1000000")
    message = error.value.message
    assert f"1000000 dice is too many: at most {MAX_DICE}" in message
    assert "d1000000 is not a die here" in message
    with pytest.raises(NotationError) as error:
        parse_dice(f"{MAX_DICE + 1}d6")
    assert "too many" in error.value.message
    assert "not a die" not in error.value.message
