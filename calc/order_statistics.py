"""The expected largest of n draws from a normal distribution (perf, issue 15).

A load generator that draws each request's output length from a normal distribution and waits for
every request it sent together (LLMPerf's rounds) waits for the longest of them: a group of n
requests with mean length s and spread σ lasts until s + σ · e(n) tokens are out, e(n) the expected
maximum of n standard normal draws (e(1) = 0, e(2) = 1/√π, e(3) = 3/(2√π), e(8) ≈ 1.42).
"""

import math
from functools import lru_cache

_LIMIT = 9.0       # integrate over ±9 standard deviations (the tails beyond add < 1e-18)
_STEPS = 3600      # Simpson intervals over [−_LIMIT, _LIMIT]


def _density(x: float, n: float) -> float:
    """x times the density of the largest of n standard normal draws at x."""
    pdf = math.exp(-x * x / 2.0) / math.sqrt(2.0 * math.pi)
    cdf = 0.5 * math.erfc(-x / math.sqrt(2.0))
    return x * n * pdf * float(cdf ** (n - 1.0))


@lru_cache(maxsize=512)
def expected_max_standard_normal(n: float) -> float:
    """E[max of n iid N(0, 1)] = ∫ x · n φ(x) Φ(x)^(n−1) dx (Simpson's rule); 0 for n ≤ 1. A
    fractional n (a mean group size) uses the same integral, which is smooth in n."""
    if n <= 1.0:
        return 0.0
    width = 2.0 * _LIMIT / _STEPS
    total = _density(-_LIMIT, n) + _density(_LIMIT, n)
    for index in range(1, _STEPS):
        total += (4.0 if index % 2 else 2.0) * _density(-_LIMIT + index * width, n)
    return total * width / 3.0
