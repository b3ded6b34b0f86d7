"""pair_statistics equals the single-pair implementations on every pair."""
import numpy as np
import pytest

from leaderboard_ci.core.intervals import confidence_interval
from leaderboard_ci.core.pairs import pair_statistics, ranked_pairs
from leaderboard_ci.core.significance import bootstrap_pvalue


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    b, m, n = 700, 5, 60
    base = rng.normal(0.7, 0.02, size=(b, 1))
    reps = base + rng.normal(0, 0.01, size=(b, m)) + np.linspace(0, 0.03, m)
    full = reps.mean(axis=0) + rng.normal(0, 0.001, m)
    jack = full[None, :] + rng.normal(0, 0.002, size=(n, m))
    return reps, full, jack


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_each_pair_equals_the_scalar_functions(data, method, sign):
    reps, full, jack = data
    pairs = ranked_pairs(np.argsort(-sign * full))
    stats = pair_statistics(reps, full, pairs, sign, method, 0.9, jackknife=jack, chunk_pairs=3)
    for k, (a, b) in enumerate(pairs):
        d = sign * (reps[:, a] - reps[:, b])
        delta = sign * (full[a] - full[b])
        jk = (sign * (jack[:, a] - jack[:, b]), None) if method == "bca" else None
        iv = confidence_interval(method, d, delta, 0.9, jackknife=jk)
        assert stats.difference[k] == delta
        assert stats.ci_low[k] == pytest.approx(iv.low, abs=1e-14)
        assert stats.ci_high[k] == pytest.approx(iv.high, abs=1e-14)
        assert stats.p_value[k] == bootstrap_pvalue(d, delta, scale=max(abs(full[a]), abs(full[b])))
        gamma = 100 * np.finfo(float).eps * max(1.0, abs(full[a]), abs(full[b]), abs(2 * delta))
        two = (np.count_nonzero(np.abs(d - delta) >= abs(delta) - gamma) + 1) / (len(d) + 1)
        assert stats.p_two_sided[k] == two


def test_rows_with_nan_are_left_out_for_every_pair(data):
    reps, full, _ = data
    reps = reps.copy()
    reps[:50, :] = np.nan  # a group empty in 50 resamples: NaN for every system
    stats = pair_statistics(reps, full, ranked_pairs(range(5)), 1.0)
    assert stats.n_valid == reps.shape[0] - 50
    assert np.all(np.isfinite(stats.ci_low)) and np.all(np.isfinite(stats.p_value))


def test_ranked_pairs_order():
    assert ranked_pairs([2, 0, 1]).tolist() == [[2, 0], [2, 1], [0, 1]]


def test_chunking_changes_nothing(data):
    reps, full, _ = data
    pairs = ranked_pairs(range(5))
    a = pair_statistics(reps, full, pairs, 1.0, chunk_pairs=1)
    b = pair_statistics(reps, full, pairs, 1.0, chunk_pairs=100)
    for field in ("difference", "ci_low", "ci_high", "p_value"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_threads_and_chunks_change_nothing(data, method):
    reps, full, jack = data
    pairs = ranked_pairs(np.argsort(-full))
    one = pair_statistics(reps, full, pairs, -1.0, method, 0.95, jackknife=jack, n_jobs=1)
    for jobs, chunk in ((2, 1), (3, 2), (2, None)):
        other = pair_statistics(reps, full, pairs, -1.0, method, 0.95, jackknife=jack, n_jobs=jobs,
                                chunk_pairs=chunk)
        for field in ("difference", "ci_low", "ci_high", "p_value", "p_two_sided"):
            np.testing.assert_array_equal(getattr(one, field), getattr(other, field))


@pytest.mark.parametrize("count", [1, 2, 3, 7, 40, 1000])
def test_order_statistics_equal_a_full_sort(count):
    from leaderboard_ci.core.pairs import _order_statistics

    rng = np.random.default_rng(count)
    x = np.round(rng.normal(size=(6, count)), 1)  # many ties
    expected = np.sort(x, axis=1)
    for ks in ([0], [count - 1], [0, count - 1], [count // 2, count // 2 + 1], [1, 2, count - 2, count - 1]):
        ks = [k for k in ks if 0 <= k < count]
        got = _order_statistics(x.copy(), ks)
        for k in ks:
            np.testing.assert_array_equal(got[k], expected[:, k])
