"""isclose follows numpy.isclose: asymmetric tolerance, NaN never close, infinities only to themselves."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.kit.numbers import isclose

INF, NAN = math.inf, math.nan


@pytest.mark.parametrize(
    ("a", "b", "kwargs", "expected"),
    [  # the examples from numpy.isclose's documentation
        (1e10, 1.00001e10, {}, True),
        (1e-7, 1e-8, {}, False),
        (1e-8, 1e-9, {}, True),
        (1e-8, 0.0, {}, True),
        (1e-7, 0.0, {}, False),
        (1e-100, 0.0, {"atol": 0.0}, False),
        (1e-7, 0.0, {"atol": 0.0}, False),
        (1e-10, 1e-20, {}, True),
        (1e-10, 0.0, {}, True),
        (1e-10, 1e-20, {"atol": 0.0}, False),
        (1e-10, 0.999999e-10, {"atol": 0.0}, True),
        (1.0, 1.0, {}, True),
        (1.0, NAN, {}, False),
        (NAN, NAN, {}, False),
    ],
)
def test_numpy_documentation_examples(a: float, b: float, kwargs: dict[str, float], expected: bool) -> None:
    assert isclose(a, b, **kwargs) is expected


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (INF, INF, True),
        (-INF, -INF, True),
        (INF, -INF, False),
        (INF, 1e308, False),
        (1e308, INF, False),
        (NAN, INF, False),
        (INF, NAN, False),
        (1e308, -1e308, False),  # the difference overflows to inf
    ],
)
def test_non_finite(a: float, b: float, expected: bool) -> None:
    assert isclose(a, b) is expected


def test_tolerance_is_relative_to_the_second_argument() -> None:
    assert isclose(0.0, 1.0, rtol=1.0, atol=0.0)
    assert not isclose(1.0, 0.0, rtol=1.0, atol=0.0)


def test_infinite_tolerance_still_rejects_nan_and_mismatched_infinities() -> None:
    assert isclose(0.0, 1e300, rtol=INF)
    assert not isclose(NAN, 0.0, rtol=INF, atol=INF)
    assert not isclose(INF, 0.0, rtol=INF, atol=INF)


FINITE = st.floats(allow_nan=False, allow_infinity=False)
ANY = st.floats()
TOLERANCE = st.floats(min_value=0.0, max_value=1.0)


@given(FINITE, FINITE, TOLERANCE)
def test_symmetric_and_equal_to_math_isclose_when_rtol_is_zero(a: float, b: float, atol: float) -> None:
    assert isclose(a, b, rtol=0.0, atol=atol) == isclose(b, a, rtol=0.0, atol=atol)
    assert isclose(a, b, rtol=0.0, atol=atol) == math.isclose(a, b, rel_tol=0.0, abs_tol=atol)


@given(ANY, ANY, TOLERANCE, TOLERANCE)
def test_the_numpy_formula(a: float, b: float, rtol: float, atol: float) -> None:
    """numpy applies the formula where both are finite and falls back to `==` elsewhere."""
    finite = math.isfinite(a) and math.isfinite(b)
    expected = abs(a - b) <= atol + rtol * abs(b) if finite else a == b
    assert isclose(a, b, rtol=rtol, atol=atol) == expected


@given(ANY, TOLERANCE, TOLERANCE)
def test_reflexive_except_nan(a: float, rtol: float, atol: float) -> None:
    assert isclose(a, a, rtol=rtol, atol=atol) == (not math.isnan(a))


@given(ANY, ANY)
def test_nan_is_never_close(a: float, b: float) -> None:
    if math.isnan(a) or math.isnan(b):
        assert not isclose(a, b, rtol=INF, atol=INF)


@given(FINITE, FINITE, TOLERANCE, TOLERANCE, TOLERANCE)
def test_monotone_in_atol(a: float, b: float, rtol: float, atol: float, extra: float) -> None:
    if isclose(a, b, rtol=rtol, atol=atol):
        assert isclose(a, b, rtol=rtol, atol=atol + extra)
