"""The plan's promise checked by simulation: at the planned n, the report's test rejects with the planned power.

A known population: test items with the class distribution ``WEIGHTS``; two
systems right on ``accuracy +- delta/2`` of the items, agreeing on
``agreement`` of them (:func:`leaderboard_ci.tools.plan.simulate_pair`).  The
plan is made from the *null* pair (assumed rates, equal accuracies) for the
population's true difference ``D`` of the official metric; then many test
sets of the planned size are drawn from the population, both systems are
scored on the same bootstrap resamples (the package's scorers and paired
engine) and the report's paired bootstrap test is run: the percentile
interval of the difference at level ``1 - alpha/m`` (the Bonferroni/Holm
threshold), inverted into ``p_two_sided`` (:mod:`leaderboard_ci.core.intervals`).
The share of test sets where it declares the better system better is the
achieved power.

The fast test (default run) uses 300 test sets and asserts within 3 binomial
standard errors (about +-7 points): a plan whose SE were 25 % off would miss
it (power 0.62 or 0.93).  The slow test (``-m slow``) uses 2,000 test sets
per cell and asserts the issue's +-3 points, for accuracy and macro-F1, one
comparison and a family of 3, and shows that the test can fail: at 60 % of
the planned size the achieved power is far below the plan.
"""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest

from leaderboard_ci.core.intervals import confidence_interval
from leaderboard_ci.scoring.config import config_from_options
from leaderboard_ci.tasks.shared.base import GoldStandard
from leaderboard_ci.tools import plan as P

pytestmark = pytest.mark.statistical

LABELS = tuple("abcde")
WEIGHTS = np.array([0.35, 0.25, 0.2, 0.12, 0.08])


def _config(metric, n_resamples):
    return config_from_options(metric, labels=list(LABELS), n_resamples=n_resamples, seed=2026)


def _gold(codes):
    return GoldStandard(values=np.asarray(codes, dtype=np.intp), labels=LABELS)


def population_difference(config, accuracy, agreement, delta, rng, n=1_000_000):
    """The official metric's difference on a very large sample of the population (its limit)."""
    codes = rng.choice(len(LABELS), size=n, p=WEIGHTS)
    a, b = P.simulate_pair(codes, len(LABELS), accuracy, agreement, rng, delta, WEIGHTS)
    full, _ = P.paired_replicates(config, _gold(codes), [a, b], ["A", "B"], 1, config.bootstrap.seed)
    spec = config.metrics[0]
    return float(spec.sign * (full[0] - full[1]))


def achieved_power(config, accuracy, agreement, delta, n, repetitions, alpha, family_size, rng):
    """Share of ``repetitions`` test sets of ``n`` items where the report's test declares A better."""
    level = 1.0 - alpha / family_size
    sign = config.metrics[0].sign
    hits = 0
    for _ in range(repetitions):
        codes = rng.choice(len(LABELS), size=n, p=WEIGHTS)
        a, b = P.simulate_pair(codes, len(LABELS), accuracy, agreement, rng, delta, WEIGHTS)
        seed = int(rng.integers(2**31))
        full, reps = P.paired_replicates(config, _gold(codes), [a, b], ["A", "B"], config.bootstrap.n_resamples, seed)
        d = sign * (reps[:, 0] - reps[:, 1])
        observed = sign * (full[0] - full[1])
        iv = confidence_interval("percentile", d[np.isfinite(d)], observed, level, scale=abs(full[0]))
        hits += bool(iv.p_two_sided < 1.0 - level and observed > 0)
    return hits / repetitions


def _study(metric, accuracy, agreement, delta, family_size, repetitions, n_resamples, seed, size_factor=1.0):
    config = _config(metric, n_resamples)
    rng = np.random.default_rng(seed)
    true_d = population_difference(config, accuracy, agreement, delta, rng)
    gold = _gold(rng.choice(len(LABELS), size=500, p=WEIGHTS))
    plan = P.assumed_plan(
        config,
        gold,
        {"accuracy": accuracy, "agreement": agreement},
        family_size=family_size,
        difference=true_d,
        n_resamples=2000,
        simulated_items=100_000,
    )
    n = int(math.ceil(size_factor * plan.n_needed))
    power = achieved_power(config, accuracy, agreement, delta, n, repetitions, 0.05, family_size, rng)
    # what the plan predicts at n (= its power at the planned size)
    predicted = statistics.NormalDist().cdf(
        true_d / plan.mde_at(n) * plan.z - statistics.NormalDist().inv_cdf(1 - 0.05 / (2 * family_size))
    )
    return plan, n, power, predicted


def test_achieved_power_matches_the_plan_fast():
    plan, n, power, predicted = _study("accuracy", 0.8, 0.9, 0.04, 1, repetitions=300, n_resamples=400, seed=11)
    assert predicted == pytest.approx(0.8, abs=0.01)
    tolerance = 3 * math.sqrt(0.8 * 0.2 / 300)
    assert abs(power - plan.power) <= tolerance, (n, power)


@pytest.mark.slow
@pytest.mark.parametrize(
    "metric,accuracy,agreement,delta,family_size",
    [("accuracy", 0.8, 0.9, 0.03, 1), ("accuracy", 0.7, 0.8, 0.04, 3), ("f1_macro", 0.8, 0.9, 0.04, 1)],
)
def test_achieved_power_within_three_points_of_the_plan(metric, accuracy, agreement, delta, family_size):
    plan, n, power, _ = _study(metric, accuracy, agreement, delta, family_size, 2000, 1000, seed=5)
    print("%s m=%d: planned n=%d, achieved power %.3f" % (metric, family_size, n, power))
    assert abs(power - plan.power) <= 0.03, (n, power)


@pytest.mark.slow
def test_the_check_can_fail_at_sixty_percent_of_the_planned_size():
    plan, n, power, predicted = _study("accuracy", 0.8, 0.9, 0.03, 1, 1000, 1000, seed=6, size_factor=0.6)
    print("60 %% of the planned size (n=%d): achieved %.3f, predicted %.3f" % (n, power, predicted))
    assert power < plan.power - 0.1
    assert power == pytest.approx(predicted, abs=0.045)
