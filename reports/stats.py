"""Statistics for simulation results: proportions with confidence intervals."""
from __future__ import annotations

import math

Z95 = 1.959963984540054


def wilson_interval(successes: float, trials: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (sensible near 0 and 1, unlike the
    normal approximation).  (nan, nan) for zero trials."""
    if trials <= 0:
        return (math.nan, math.nan)
    p = successes / trials
    denom = 1.0 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))
