"""Statistics for simulation results: proportions with confidence intervals."""
from __future__ import annotations

import math

import numpy as np

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


def mean_interval(values, z: float = Z95) -> tuple[float, float, float]:
    """Mean with a normal-approximation 95% interval: (mean, low, high)."""
    arr = np.asarray(values, dtype=np.float64)
    if arr.size == 0:
        return (math.nan, math.nan, math.nan)
    m = float(arr.mean())
    if arr.size < 2:
        return (m, math.nan, math.nan)
    se = float(arr.std(ddof=1)) / math.sqrt(arr.size)
    return (m, m - z * se, m + z * se)
