"""Confidence intervals the jobs report: Wilson's for a win rate, Student's t for a mean.

Why here and not SciPy: SciPy is no dependency of the jobs, and two quantile functions are
all they need.
"""

from __future__ import annotations

import math
import numbers
import statistics
from collections.abc import Sequence

from rummy_env.games.options import check_int

#: The normal distribution's 97.5% quantile (two-sided 95%), as Wilson's intervals have
#: always used it (to six decimals: the committed figures keep their digits).
Z_95 = 1.959964


def wilson_interval(p: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """95% Wilson score interval of a proportion ``p`` measured on ``n`` independent trials.

    The jobs also pass a win rate over duplicate deals with ``n`` the deals: ``p`` is then
    the mean of ``n`` independent per-deal means in [0, 1] (a deal's games share its
    cards, so they are no independent trials), whose variance is at most ``p(1 - p)``: the
    interval is then conservative (at least as wide as the deals' spread calls for).

    The interval always contains ``p`` (floating-point rounding can otherwise leave
    ``p = 1`` just outside it) and lies in [0, 1]; with no trial (``n = 0``) it is
    ``(0.0, 1.0)``: nothing is known.

    Raises:
        ValueError: ``n`` not an int of at least 0, or ``p`` not a number in 0..1 (a sum of
            shared wins rounded a hair past 1, within 1e-9, is taken as 1).
    """
    # NumPy's scalars are numbers too (a count summed with numpy is an np.int64, a rate an
    # np.float32); np.bool_ is no numbers.Real, so only Python's bool needs refusing here
    n = check_int("n", n, 0, kind="")
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not -1e-9 <= p <= 1 + 1e-9:
        raise ValueError(f"a proportion must be a number in 0..1, got {p!r}")
    p = min(1.0, max(0.0, float(p)))
    if n == 0:
        return (0.0, 1.0)
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(0.0, p * (1 - p) / n + z * z / (4 * n * n))) / denom
    return (max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)))


def _t_central(t: float, df: int) -> float:
    """``P(|T| <= t)`` for Student's t with ``df`` degrees of freedom: the finite series of
    Abramowitz and Stegun 26.7.3 (odd ``df``) and 26.7.4 (even)."""
    theta = math.atan(t / math.sqrt(df))
    c = math.cos(theta) ** 2
    if df % 2:
        term, total = 1.0, 1.0 if df > 1 else 0.0
        for k in range(1, (df - 1) // 2):
            term *= c * (2 * k) / (2 * k + 1)
            total += term
        return 2 / math.pi * (theta + math.sin(theta) * math.cos(theta) * total)
    term, total = 1.0, 1.0
    for k in range(1, df // 2):
        term *= c * (2 * k - 1) / (2 * k)
        total += term
    return math.sin(theta) * total


def t_quantile_95(df: int) -> float:
    """Student's t two-sided 95% quantile (``P(|T| <= q) = 0.95``) for ``df`` degrees of
    freedom: 12.706 for 1, 2.262 for 9, 1.984 for 100, tending to 1.960.

    Up to 400 degrees of freedom by bisection on the exact distribution function; above,
    the Cornish-Fisher expansion of Abramowitz and Stegun 26.7.5 (error below 1e-10 there).

    Raises:
        ValueError: ``df`` not an int of at least 1.
    """
    if isinstance(df, bool) or not isinstance(df, int) or df < 1:
        raise ValueError(f"degrees of freedom must be an int of at least 1, got {df!r}")
    if df > 400:
        x = statistics.NormalDist().inv_cdf(0.975)
        g1 = (x**3 + x) / 4
        g2 = (5 * x**5 + 16 * x**3 + 3 * x) / 96
        g3 = (3 * x**7 + 19 * x**5 + 17 * x**3 - 15 * x) / 384
        g4 = (79 * x**9 + 776 * x**7 + 1482 * x**5 - 1920 * x**3 - 945 * x) / 92160
        return x + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4
    low, high = Z_95, 13.0
    for _ in range(60):
        mid = (low + high) / 2
        if _t_central(mid, df) < 0.95:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def mean_interval(values: Sequence[float]) -> tuple[float, float | None, float | None]:
    """The mean of ``values`` and its 95% Student's t interval (``t_quantile_95(n - 1)``
    standard errors of the sample's standard deviation, ``n`` values).  It assumes the
    values independent (one per duplicate deal, say) and their mean near normal: from a
    handful of values it is wide, as it should be.

    Values that are all the same give an interval of zero width, ``(m, m, m)``: what the
    formula gives (and SciPy's ``ttest_1samp(...).confidence_interval()``), kept because it
    is exact where the jobs meet it: a self-match's margin, 0 on every deal by construction
    (``evaluate`` marks the row), or two runs of the same agent on the same deals
    (``paired``).  Otherwise it says that the sample has no spread, not that the mean is
    certain (three deals that A won and B lost in every game give ``(1, 1, 1)``): read it
    with the number of values.

    Returns:
        ``(mean, low, high)``; ``low`` and ``high`` are None below two values.

    Raises:
        statistics.StatisticsError: no values.
    """
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, None, None
    half = t_quantile_95(len(values) - 1) * statistics.stdev(values, mean) / math.sqrt(len(values))
    return mean, mean - half, mean + half
