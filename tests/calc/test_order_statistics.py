"""The expected largest of n standard normal draws (calc.order_statistics), against closed forms
and a published table value."""

import math

import pytest

from calc.order_statistics import expected_max_standard_normal


def test_closed_forms() -> None:
    assert expected_max_standard_normal(1) == 0.0
    assert expected_max_standard_normal(0.5) == 0.0
    # E[max of 2] = 1/√π, E[max of 3] = 3/(2√π)
    assert expected_max_standard_normal(2) == pytest.approx(1 / math.sqrt(math.pi), abs=1e-9)
    assert expected_max_standard_normal(3) == pytest.approx(3 / (2 * math.sqrt(math.pi)),
                                                            abs=1e-9)


def test_table_values() -> None:
    # Harter (1961), expected values of normal order statistics: n = 4, 8, 16
    assert expected_max_standard_normal(4) == pytest.approx(1.02938, abs=1e-5)
    assert expected_max_standard_normal(8) == pytest.approx(1.42360, abs=1e-5)
    assert expected_max_standard_normal(16) == pytest.approx(1.76599, abs=1e-5)


def test_grows_with_the_group() -> None:
    values = [expected_max_standard_normal(n) for n in (1, 1.5, 2, 4, 8, 32, 128)]
    assert values == sorted(values) and len(set(values)) == len(values)
