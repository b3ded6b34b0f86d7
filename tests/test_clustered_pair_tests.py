"""The cluster-robust pair tests used with ``bootstrap.cluster``: Durkalski et al.'s McNemar and Obuchowski's DeLong.

Each is checked against an independent loop that follows the paper's definitions term by
term (no shared code with the implementation), reduces to the independent-items test with
one item per cluster (statsmodels' McNemar chi-square, our DeLong), and reaches the
end-of-phase pairs table when the configuration sets ``bootstrap.cluster``.
"""

import math

import numpy as np
import pytest

from leaderboard_ci.tasks.scores.curves import DeLong, delong_pvalues
from leaderboard_ci.tasks.shared.sign_test import mcnemar_clustered_pvalues


def _clustered_correct(seed, clusters=40, m=4):
    """``(correct (n, m), clusters (n,))``: systems right more often on a cluster's easy items."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, clusters)
    codes = np.repeat(rng.permutation(clusters) * 7 + 3, sizes)  # any integer codes
    ease = np.repeat(rng.normal(0, 1, clusters), sizes)
    skill = rng.normal(0, 0.4, (clusters, m))[np.repeat(np.arange(clusters), sizes)]
    correct = rng.normal(size=(codes.size, m)) < 0.6 + ease[:, None] + skill
    return correct, codes


def _durkalski_loop(a, b, codes, sides):
    """X = (sum_k (b_k - c_k))^2 / sum_k (b_k - c_k)^2 over the clusters k, with its sign for one side."""
    total, squares = 0, 0
    for k in sorted(set(codes.tolist())):
        inside = codes == k
        only_a = int(np.sum(a[inside] & ~b[inside]))
        only_b = int(np.sum(b[inside] & ~a[inside]))
        total += only_a - only_b
        squares += (only_a - only_b) ** 2
    if squares == 0:
        return 1.0
    z = total / math.sqrt(squares)
    return 0.5 * math.erfc(z / math.sqrt(2)) if sides == "one" else math.erfc(abs(z) / math.sqrt(2))


@pytest.mark.parametrize("sides", ["one", "two"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_clustered_mcnemar_equals_the_loop(seed, sides):
    correct, codes = _clustered_correct(seed)
    pairs = [(0, 1), (1, 0), (2, 3), (0, 0)]
    got = mcnemar_clustered_pvalues(correct[:, [a for a, _ in pairs]], correct[:, [b for _, b in pairs]], codes, sides)
    expected = [_durkalski_loop(correct[:, a], correct[:, b], codes, sides) for a, b in pairs]
    np.testing.assert_allclose(got, expected, rtol=1e-13)
    assert got[3] == 1.0  # a system against itself
    one = mcnemar_clustered_pvalues(correct[:, 2], correct[:, 3], codes, sides)  # a single pair, 1-d
    assert one.shape == () and float(one) == pytest.approx(expected[2], rel=1e-13)


def test_clustered_mcnemar_with_one_item_per_cluster_is_mcnemars_chi_square():
    contingency = pytest.importorskip("statsmodels.stats.contingency_tables")
    correct, _ = _clustered_correct(4)
    a, b = correct[:, 0], correct[:, 1]
    table = [[np.sum(a & b), np.sum(a & ~b)], [np.sum(~a & b), np.sum(~a & ~b)]]
    reference = contingency.mcnemar(table, exact=False, correction=False).pvalue
    got = mcnemar_clustered_pvalues(a, b, np.arange(a.size), "two")
    assert float(got) == pytest.approx(reference, rel=1e-12)


def _obuchowski_loop(y, scores, codes):
    """Obuchowski's (1997) covariance of the AUCs, by the definitions: psi over every (positive, negative) pair."""
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
    big_m, big_n = len(pos), len(neg)
    k = scores.shape[0]

    def psi(x, v):
        return 1.0 if x > v else (0.5 if x == v else 0.0)

    auc = np.array([sum(psi(s[i], s[j]) for i in pos for j in neg) / (big_m * big_n) for s in scores])
    clusters = sorted(set(codes.tolist()))
    x = np.zeros((k, len(clusters)))
    w = np.zeros((k, len(clusters)))
    m_c = np.array([np.sum((codes == c) & y) for c in clusters], dtype=float)
    n_c = np.array([np.sum((codes == c) & ~y) for c in clusters], dtype=float)
    for r, s in enumerate(scores):
        for ci, c in enumerate(clusters):
            x[r, ci] = sum(sum(psi(s[i], s[j]) for j in neg) / big_n for i in pos if codes[i] == c)
            w[r, ci] = sum(sum(psi(s[i], s[j]) for i in pos) / big_m for j in neg if codes[j] == c)
    xc = x - m_c * auc[:, None]
    yc = w - n_c * auc[:, None]
    i_all, i10, i01 = len(clusters), int(np.sum(m_c > 0)), int(np.sum(n_c > 0))
    cov = np.empty((k, k))
    for r in range(k):
        for q in range(k):
            s10 = i10 / ((i10 - 1) * big_m) * np.sum(xc[r] * xc[q])
            s01 = i01 / ((i01 - 1) * big_n) * np.sum(yc[r] * yc[q])
            s11_rq = i_all / (i_all - 1) * np.sum(xc[r] * yc[q])
            s11_qr = i_all / (i_all - 1) * np.sum(xc[q] * yc[r])
            cov[r, q] = s10 / big_m + s01 / big_n + (s11_rq + s11_qr) / (big_m * big_n)
    return auc, cov


def _clustered_scores(seed, clusters=25):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 6, clusters)
    codes = np.repeat(np.arange(clusters) * 3 + 1, sizes)
    level = np.repeat(rng.normal(0, 1, clusters), sizes)
    y = rng.random(codes.size) < 0.4 + 0.1 * np.tanh(level)
    scores = np.round(np.stack([y * mu + level + rng.normal(0, 1, codes.size) for mu in (1.2, 0.8, 0.8)]), 1)
    return y, scores, codes


@pytest.mark.parametrize("seed", [5, 6])
def test_clustered_delong_equals_the_loop(seed):
    y, scores, codes = _clustered_scores(seed)
    est = DeLong(y, scores, codes)
    auc, cov = _obuchowski_loop(y, scores, codes)
    np.testing.assert_allclose(est.auc, auc, rtol=1e-13)
    np.testing.assert_allclose(est.covariance, cov, rtol=1e-10, atol=1e-15)
    pairs = np.array([[0, 1], [1, 2], [2, 0]])
    p = delong_pvalues(y, scores, pairs, "two", codes)
    for (a, b), got in zip(pairs, p):
        z = (auc[a] - auc[b]) / math.sqrt(cov[a, a] + cov[b, b] - 2 * cov[a, b])
        assert got == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), rel=1e-10)


def test_clustered_delong_with_one_item_per_cluster_is_delong():
    y, scores, _ = _clustered_scores(7)
    plain = DeLong(y, scores)
    singletons = DeLong(y, scores, np.arange(y.size))
    np.testing.assert_allclose(singletons.covariance, plain.covariance, rtol=1e-12)


def test_clustered_delong_needs_two_clusters_of_each_class():
    y = np.array([True, True, False, False])
    with pytest.raises(ValueError, match="at least two clusters"):
        DeLong(y, np.array([[0.9, 0.8, 0.1, 0.2]]), np.array([0, 0, 1, 1]))


def test_the_pairs_table_has_the_clustered_tests_with_bootstrap_cluster():
    from collections import OrderedDict

    from leaderboard_ci.phase.analysis import analyze
    from leaderboard_ci.scoring.config import config_from_options
    from leaderboard_ci.tasks.shared.base import GoldStandard

    correct, codes = _clustered_correct(9, clusters=30, m=3)
    codes = np.unique(codes, return_inverse=True)[1]  # the gold's cluster codes are 0 .. C-1
    gold_values = np.zeros(codes.size, dtype=np.intp)
    predictions = np.where(correct, 0, 1)
    config = config_from_options("accuracy", labels=["a", "b"], n_resamples=200, cluster="passage")
    gold = GoldStandard(values=gold_values, labels=("a", "b"), source="gold", task="classification", clusters=codes)
    systems = OrderedDict(("s%d" % j, predictions[:, j]) for j in range(3))
    result = analyze(gold, systems, config=config)
    pairs = result.official.pairs
    names = list(result.names)
    for row in pairs.itertuples(index=False):
        a, b = names.index(row.a), names.index(row.b)
        expected = mcnemar_clustered_pvalues(correct[:, a], correct[:, b], codes, "two")
        assert row.p_mcnemar == pytest.approx(float(expected), rel=1e-12)
