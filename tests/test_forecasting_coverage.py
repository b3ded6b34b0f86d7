"""Coverage of the forecasting intervals on a simulated population of series, and the point-versus-series contrast.

The population: series of horizon 12 whose forecasts carry a **series-level** error (the method is
biased on each series by ``b_i ~ N(0, 0.08)``, and the series' noise level varies) besides the
point-level noise ``e_t ~ N(0, s_i)``, so the points of one series are correlated, as real forecast
errors are.  The estimand is the population mean of the per-series sMAPE (M4's definition), computed
on 10^6 series.  A test set is a sample of ``n`` series (200 or 2,000); its 95 % percentile interval
comes from the scoring program's own path (``evaluate`` on the encoded series, B = 1,000); coverage is
the share of ``R`` test sets whose interval holds the estimand.

The contrast resamples the horizon points as if they were independent (the item bootstrap over the
``12 n`` points, the same mean): its intervals are too narrow.  Figures are in
``docs/tasks/forecasting.md``; the full study (R = 1,000 at both sizes) is marked slow, a fast subset
(R = 100 at 200 series) stays in the default run.
"""

import numpy as np
import pytest

from leaderboard_ci.core.resampling import counts_from_indices, replicate_indices
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.tasks.forecasting import encode_forecasts
from leaderboard_ci.tasks.forecasting.gold import gold_dtype
from leaderboard_ci.tasks.shared.base import GoldStandard

HORIZON = 12
B = 1000


def simulate(rng, n):
    """``(y, f)``, ``(n, HORIZON)`` actuals and forecasts of ``n`` series of the population."""
    level = np.exp(rng.uniform(np.log(10), np.log(1000), n))[:, None]
    noise = rng.uniform(0.02, 0.15, n)[:, None]
    bias = rng.normal(0.0, 0.08, n)[:, None]
    y = level * (1.0 + noise * rng.standard_normal((n, HORIZON)))
    f = np.repeat(level * (1.0 + bias), HORIZON, axis=1)
    return y, f


def smape_points(y, f):
    return 200.0 * np.abs(y - f) / (np.abs(y) + np.abs(f))


def estimand(seed=2024, n=10**6):
    rng = np.random.RandomState(seed)
    y, f = simulate(rng, n)
    return float(smape_points(y, f).mean())


def program_interval(y, f, seed):
    """The scoring program's 95 % percentile interval of sMAPE over the series."""
    n = y.shape[0]
    cfg = parse_config(
        {"task": "forecasting", "metric": "smape", "bootstrap": {"n_resamples": B, "seed": seed, "n_jobs": 1}}
    )
    values = np.zeros(n, dtype=gold_dtype(HORIZON, 1))  # the gold rows read_gold builds (see gold.py)
    values["length"], values["ds"], values["y"], values["naive2"] = HORIZON, np.arange(HORIZON), y, np.nan
    values["scale_mase"] = values["scale_rmsse"] = np.nan
    values["weight"], values["codes"][:, 0], values["kind"] = 1.0, np.arange(n), 0
    coded = encode_forecasts(values, f.ravel(), None, None, cfg.metrics, cfg.task_settings)
    ids = tuple("s%d" % i for i in range(n))
    result = evaluate(cfg, GoldStandard(values=values, ids=ids, task="forecasting"), coded)
    return result.scores[0].interval.low, result.scores[0].interval.high


def point_interval(y, f, seed):
    """The contrast: the 12 n horizon points resampled as if independent (percentile interval of their mean)."""
    terms = smape_points(y, f).ravel()
    counts = counts_from_indices(replicate_indices(seed, len(terms), 0, B), len(terms))
    replicates = counts @ terms / len(terms)
    return np.percentile(replicates, 2.5), np.percentile(replicates, 97.5)


def coverage(n, repetitions, seed=7, contrast=False):
    truth = estimand()
    rng = np.random.RandomState(seed)
    hits, point_hits = 0, 0
    for r in range(repetitions):
        y, f = simulate(rng, n)
        low, high = program_interval(y, f, seed=r)
        hits += low <= truth <= high
        if contrast:
            low, high = point_interval(y, f, seed=r)
            point_hits += low <= truth <= high
    return hits / repetitions, point_hits / repetitions


def test_coverage_fast_subset():
    """R = 100 test sets of 200 series: coverage within the binomial band of 95 % (3 SE)."""
    covered, _ = coverage(200, 100)
    assert 0.95 - 3 * np.sqrt(0.95 * 0.05 / 100) <= covered <= 1.0


@pytest.mark.slow
@pytest.mark.parametrize("n", [200, 2000])
def test_coverage_is_95_within_2_points_and_points_as_units_undercover(n):
    covered, point_covered = coverage(n, 1000, contrast=True)
    print("n = %d series: series bootstrap %.1f %%, point bootstrap %.1f %%" % (n, 100 * covered, 100 * point_covered))
    assert abs(covered - 0.95) <= 0.02
    assert point_covered < covered - 0.1
