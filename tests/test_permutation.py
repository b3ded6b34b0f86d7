"""Permutation test: exact enumeration against a naive loop, Monte Carlo against SciPy."""

import numpy as np
import pytest
from scipy.stats import binomtest, permutation_test
from sklearn.metrics import f1_score

from leaderboard_ci.core.permutation import EXACT_LIMIT, permutation_pvalues
from leaderboard_ci.phase.analysis.systems import build_plan as PairedPlan
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.tasks.shared.scorer import GoldStandard

CFG = parse_config({"metric": "f1_macro", "extra_metrics": ["accuracy"], "labels": ["x", "y", "z"]})


def _pvalues(y, systems, n_permutations=1000, seed=1):
    gold = GoldStandard(values=y, labels=("x", "y", "z"))
    plan = PairedPlan(CFG, gold, systems, [str(i) for i in range(len(systems))])
    p, p_reversed, p_two, exact = permutation_pvalues(
        plan.scorers, plan.full_scores(), np.array([[0, 1], [1, 0]]), np.stack(systems, 1), seed, n_permutations
    )
    # The reversed tail of (a, b) is the count of (b, a), bit for bit (the analysis runs each pair once).
    assert p_reversed[0].tobytes() == p[1].tobytes() and p_reversed[1].tobytes() == p[0].tobytes()
    assert p_two[0].tobytes() == p_two[1].tobytes()
    return p[:1], p_two[:1], exact[:1]


def test_exact_enumeration_equals_a_naive_loop():
    rng = np.random.default_rng(1)
    n = 40
    y = rng.integers(0, 3, n)
    a, b = y.copy(), y.copy()
    a[:4] = (a[:4] + 1) % 3
    b[:8] = (b[:8] + 2) % 3  # 8 differing items: all 256 swap patterns enumerated below
    p, p_two, exact = _pvalues(y, [a, b])
    assert exact[0]
    diff = np.flatnonzero(a != b)
    observed = f1_score(y, a, average="macro") - f1_score(y, b, average="macro")
    hits = hits_two = 0
    for code in range(2**diff.size):
        aa, bb = a.copy(), b.copy()
        swap = diff[[(code >> k) & 1 == 1 for k in range(diff.size)]]
        aa[swap], bb[swap] = b[swap], a[swap]
        delta = f1_score(y, aa, average="macro") - f1_score(y, bb, average="macro")
        hits += delta >= observed - 1e-12
        hits_two += abs(delta) >= abs(observed) - 1e-12
    assert p[0, 0] == hits / 2**diff.size
    assert p_two[0, 0] == hits_two / 2**diff.size


def test_exact_accuracy_is_the_sign_test():
    # For accuracy the permutation distribution is the sign test on discordant items.
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 60)
    a = np.where(rng.random(60) < 0.85, y, (y + 1) % 3)
    b = np.where(rng.random(60) < 0.75, y, (y + 2) % 3)
    p, p_two, exact = _pvalues(y, [a, b])
    assert exact[0] and (a != b).sum() <= EXACT_LIMIT
    only_a = int(((a == y) & (b != y)).sum())
    only_b = int(((b == y) & (a != y)).sum())
    assert p[0, 1] == pytest.approx(binomtest(only_a, only_a + only_b, 0.5, alternative="greater").pvalue, abs=1e-12)
    assert p_two[0, 1] == pytest.approx(binomtest(only_a, only_a + only_b, 0.5).pvalue, abs=1e-12)


def test_identical_systems_get_one():
    y = np.array([0, 1, 2, 1])
    p, p_two, exact = _pvalues(y, [y.copy(), y.copy()])
    assert exact[0] and p.tolist() == [[1.0, 1.0]] and p_two.tolist() == [[1.0, 1.0]]


def test_monte_carlo_agrees_with_scipy_within_monte_carlo_error():
    rng = np.random.default_rng(7)
    n = 500
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.72, y, (y + 1) % 3)
    b = np.where(rng.random(n) < 0.68, y, (y + 2) % 3)
    p, _, exact = _pvalues(y, [a, b], n_permutations=4000, seed=11)
    assert not exact[0]
    ref = permutation_test(
        ((a == y).astype(float), (b == y).astype(float)),
        lambda u, v, axis=-1: u.mean(axis) - v.mean(axis),
        permutation_type="samples",
        n_resamples=4000,
        alternative="greater",
        vectorized=True,
        random_state=0,
    ).pvalue
    # Two independent Monte Carlo estimates of the same p: 4 standard errors apart at most.
    se = np.sqrt(2 * ref * (1 - ref) / 4000) + 1 / 4000
    assert abs(p[0, 1] - ref) <= 4 * se
