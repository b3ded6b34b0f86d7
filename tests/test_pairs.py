"""pair_statistics equals the single-statistic interval (and its p-values) on every pair."""

import numpy as np
import pytest

from leaderboard_ci.core.intervals import confidence_interval
from leaderboard_ci.core.pairs import pair_statistics, ranked_pairs


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    b, m, n = 700, 5, 60
    base = rng.normal(0.7, 0.02, size=(b, 1))
    reps = base + rng.normal(0, 0.01, size=(b, m)) + np.linspace(0, 0.03, m)
    full = reps.mean(axis=0) + rng.normal(0, 0.001, m)
    jack = full[None, :] + rng.normal(0, 0.002, size=(n, m))
    return reps, full, jack


@pytest.mark.parametrize("method", ["percentile", "basic", "bca", "normal"])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_each_pair_equals_the_scalar_functions(data, method, sign):
    reps, full, jack = data
    pairs = ranked_pairs(np.argsort(-sign * full))
    stats = pair_statistics(reps, full, pairs, sign, method, 0.9, jackknife=jack, chunk_pairs=3)
    for k, (a, b) in enumerate(pairs):
        d = sign * (reps[:, a] - reps[:, b])
        delta = sign * (full[a] - full[b])
        jk = (sign * (jack[:, a] - jack[:, b]), None) if method == "bca" else None
        iv = confidence_interval(method, d, delta, 0.9, jackknife=jk, scale=max(abs(full[a]), abs(full[b])))
        assert stats.difference[k] == delta
        if method == "bca":  # the acceleration sums the pair's jackknife row in another layout: last bits
            assert stats.ci_low[k] == pytest.approx(iv.low, abs=1e-14)
            assert stats.ci_high[k] == pytest.approx(iv.high, abs=1e-14)
            assert stats.p_value[k] == pytest.approx(iv.p_greater, rel=1e-9)
        else:  # the same code on one row: bit for bit
            assert (stats.ci_low[k], stats.ci_high[k]) == (iv.low, iv.high)
            assert (stats.p_value[k], stats.p_two_sided[k]) == (iv.p_greater, iv.p_two_sided)
        assert stats.se[k] == pytest.approx(np.std(d, ddof=1), rel=1e-12)
        # the p-values invert the interval shown beside them
        assert (stats.ci_low[k] > 0) == (stats.p_value[k] < 0.05)
        assert (stats.ci_low[k] > 0 or stats.ci_high[k] < 0) == (stats.p_two_sided[k] < 0.1)


def test_normal_is_the_normal_interval_not_the_percentile_one(data):
    from leaderboard_ci.core.intervals import ndtri

    reps, full, _ = data
    pairs = ranked_pairs(np.argsort(-full))
    normal = pair_statistics(reps, full, pairs, 1.0, "normal", 0.95)
    percentile = pair_statistics(reps, full, pairs, 1.0, "percentile", 0.95)
    assert not np.array_equal(normal.ci_low, percentile.ci_low)
    np.testing.assert_allclose(normal.ci_high - normal.difference, -ndtri(0.025) * normal.se, rtol=1e-12)


@pytest.mark.parametrize("method", ["percentile", "basic", "bca", "normal"])
def test_a_system_against_an_identical_copy_gets_p_one(data, method):
    reps, full, jack = data
    reps = np.column_stack([reps, reps[:, 2]])
    full = np.append(full, full[2])
    jack = np.column_stack([jack, jack[:, 2]])
    stats = pair_statistics(reps, full, np.array([[2, 5], [5, 2], [0, 1]]), 1.0, method, 0.95, jackknife=jack)
    assert stats.p_value[:2].tolist() == [1.0, 1.0] and stats.p_two_sided[:2].tolist() == [1.0, 1.0]
    assert stats.ci_low[:2].tolist() == [0.0, 0.0] and stats.ci_high[:2].tolist() == [0.0, 0.0]
    assert stats.se[:2].tolist() == [0.0, 0.0]


# bca (a jackknife per pair, ~20x the others) is slow; percentile, basic and normal stay in the default run
@pytest.mark.parametrize("method", ["percentile", "basic", pytest.param("bca", marks=pytest.mark.slow), "normal"])
def test_pair_intervals_and_p_values_agree_on_many_pairs(method):
    """Skewed, tied (lattice) and constant differences over 780 pairs: zero disagreements at any level."""
    rng = np.random.default_rng(11)
    b, m, n = 499, 40, 50
    reps = np.round(rng.gamma(1.0 + np.arange(m) / 20.0, 0.05, size=(b, m)) * n) / n  # a lattice: many ties, d* = 0
    reps[:, 7] = reps[:, 3]  # an identical copy
    reps[:, 9] = 0.5  # constant replicates
    full = reps.mean(axis=0)
    full[[3, 7]] = full[3]
    jack = full[None, :] + rng.gamma(2.0, 0.01, size=(n, m))
    pairs = ranked_pairs(np.argsort(-full))
    for level in (0.5, 0.8, 0.9, 0.95, 0.99):
        stats = pair_statistics(reps, full, pairs, 1.0, method, level, jackknife=jack, chunk_pairs=100)
        a = 1.0 - level
        excludes = (stats.ci_low > 0) | (stats.ci_high < 0)
        if method == "bca":  # the too-large-acceleration rule is not monotone in the level: its rows are left out
            from leaderboard_ci.core.intervals import confidence_interval as ci

            keep = np.array(
                [
                    not ci(
                        "bca",
                        reps[:, i] - reps[:, j],
                        full[i] - full[j],
                        level,
                        jackknife=(jack[:, i] - jack[:, j], None),
                    ).note
                    for i, j in pairs
                ]
            )
        else:
            keep = np.ones(len(pairs), dtype=bool)
        np.testing.assert_array_equal(excludes[keep], (stats.p_two_sided < a)[keep])
        np.testing.assert_array_equal((stats.ci_low > 0)[keep], (stats.p_value < a / 2)[keep])


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
    for field in ("difference", "ci_low", "ci_high", "p_value", "p_two_sided", "se"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))


@pytest.mark.parametrize("method", ["percentile", "basic", "bca", "normal"])
def test_threads_and_chunks_change_nothing(data, method):
    reps, full, jack = data
    pairs = ranked_pairs(np.argsort(-full))
    one = pair_statistics(reps, full, pairs, -1.0, method, 0.95, jackknife=jack, n_jobs=1)
    for jobs, chunk in ((2, 1), (3, 2), (2, None)):
        other = pair_statistics(reps, full, pairs, -1.0, method, 0.95, jackknife=jack, n_jobs=jobs, chunk_pairs=chunk)
        for field in ("difference", "ci_low", "ci_high", "p_value", "p_two_sided", "se"):
            np.testing.assert_array_equal(getattr(one, field), getattr(other, field))


@pytest.mark.parametrize("count", [1, 2, 3, 7, 40, 1000])
def test_order_statistics_equal_a_full_sort(count):
    from leaderboard_ci.core.quantiles import _order_statistics

    rng = np.random.default_rng(count)
    x = np.round(rng.normal(size=(6, count)), 1)  # many ties
    expected = np.sort(x, axis=1)
    for ks in ([0], [count - 1], [0, count - 1], [count // 2, count // 2 + 1], [1, 2, count - 2, count - 1]):
        ks = [k for k in ks if 0 <= k < count]
        got = _order_statistics(x.copy(), ks)
        for k in ks:
            np.testing.assert_array_equal(got[k], expected[:, k])
