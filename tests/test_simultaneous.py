"""The max-t step-down, its family-wise intervals and the rank sets, against naive loops."""

import numpy as np
import pytest

from leaderboard_ci.core.significance import tolerance
from leaderboard_ci.core.simultaneous import (
    STEPDOWN_METHODS,
    FamilyTest,
    maxt_stepdown,
    maxt_within,
    rank_sets,
    resamples_needed,
)


def _naive(reps, full, pairs, sign, alpha):
    """Explicit step-down: sets of remaining pairs, the maximum recomputed at every step."""
    reps = reps[np.all(np.isfinite(reps), axis=1)]
    count = reps.shape[0]
    pairs = np.asarray(pairs)
    a, b = pairs[:, 0], pairs[:, 1]
    d = sign * (reps[:, a] - reps[:, b])  # (B, P)
    delta = sign * (full[a] - full[b])
    gamma = tolerance(np.maximum(np.abs(full[a]), np.abs(full[b])), delta)
    se = np.empty(len(pairs))
    for j in range(len(pairs)):
        col = d[:, j]
        dev = col - col.sum() / count
        se[j] = np.sqrt((dev * dev).sum() / (count - 1.0))
    zero = np.abs(delta) <= gamma
    flat = se <= gamma
    u = np.empty(len(pairs))
    tstar = np.zeros_like(d)
    for j in range(len(pairs)):
        if zero[j]:
            u[j] = 0.0
        elif flat[j]:
            u[j] = np.inf
        else:
            u[j] = (abs(delta[j]) - gamma[j]) / se[j]
        if not flat[j]:
            tstar[:, j] = np.abs((d[:, j] - delta[j]) / se[j])
    raw = np.empty(len(pairs))
    for j in range(len(pairs)):
        in_r = u <= u[j]
        mx = tstar[:, in_r].max(axis=1)
        raw[j] = (np.count_nonzero(mx >= u[j]) + 1.0) / (count + 1.0)
    p = np.array([raw[u >= u[j]].max() for j in range(len(pairs))])
    k = -1
    while (k + 2.0) / (count + 1.0) < alpha:
        k += 1
    crit = np.empty(len(pairs))
    remaining = np.ones(len(pairs), bool)
    first = None
    while True:
        if k < 0:
            c = np.inf
        else:
            mx = tstar[:, remaining].max(axis=1)
            c = np.sort(mx)[::-1][k]
        first = c if first is None else first
        rejected = remaining & (u > c)
        if not rejected.any():
            crit[remaining] = c
            break
        crit[rejected] = c
        remaining &= ~rejected
        if not remaining.any():
            break
    return p, crit, first, se


def _case(seed, m=6, b=199, ties=False):
    rng = np.random.default_rng(seed)
    n = 40
    quality = rng.uniform(0.5, 0.8, m)
    correct = rng.uniform(size=(n, m)) < quality
    if ties:
        correct[:, 1] = correct[:, 0]  # an identical copy
        correct[:, 3] = correct[:, 2]
        correct[:5, 3] = ~correct[:5, 3]
    idx = rng.integers(0, n, size=(b, n))
    reps = np.stack([correct[i].mean(axis=0) for i in idx])
    full = correct.mean(axis=0)
    return reps, full


def _all_pairs(m):
    return np.stack(np.triu_indices(m, k=1), axis=1)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_equals_naive_stepdown(seed, sign):
    reps, full = _case(seed, ties=seed % 2 == 0)
    pairs = _all_pairs(full.size)
    if seed % 3 == 0:
        pairs = pairs[::-1, ::-1]  # any order, any orientation
    alpha = [0.05, 0.1, 0.2][seed % 3]
    test = maxt_stepdown(reps, full, pairs, sign, alpha)
    p, crit, first, se = _naive(reps, full, pairs, sign, alpha)
    np.testing.assert_array_equal(test.p_adjusted, p)
    np.testing.assert_array_equal(test.critical, crit)
    np.testing.assert_array_equal(test.se, se)
    assert test.critical_simultaneous == first
    assert test.n_valid == reps.shape[0]


def test_nan_rows_left_out():
    reps, full = _case(3)
    reps[[4, 17], 2] = np.nan
    pairs = _all_pairs(full.size)
    test = maxt_stepdown(reps, full, pairs, 1, 0.05)
    p, crit, _, _ = _naive(reps, full, pairs, 1, 0.05)
    np.testing.assert_array_equal(test.p_adjusted, p)
    assert test.n_valid == reps.shape[0] - 2


@pytest.mark.parametrize("chunk", [1, 2, 5, 1000])
@pytest.mark.parametrize("jobs", [1, 3])
def test_chunks_and_threads_change_nothing(chunk, jobs):
    reps, full = _case(7, m=12, b=301, ties=True)
    pairs = _all_pairs(full.size)
    ref = maxt_stepdown(reps, full, pairs, 1, 0.05)
    got = maxt_stepdown(reps, full, pairs, 1, 0.05, chunk_pairs=chunk, n_jobs=jobs)
    for field in ("p_adjusted", "low", "high", "critical", "t", "se"):
        np.testing.assert_array_equal(getattr(got, field), getattr(ref, field), err_msg=field)
    assert (got.critical_simultaneous, got.steps) == (ref.critical_simultaneous, ref.steps)


def test_many_checkpoints_equal_naive(monkeypatch):
    import leaderboard_ci.core.simultaneous as simultaneous

    monkeypatch.setattr(simultaneous, "_CHECKPOINTS", 7)
    reps, full = _case(2, m=14, b=199)
    pairs = _all_pairs(full.size)
    test = maxt_stepdown(reps, full, pairs, 1, 0.1, chunk_pairs=2)
    p, crit, _, _ = _naive(reps, full, pairs, 1, 0.1)
    np.testing.assert_array_equal(test.p_adjusted, p)
    np.testing.assert_array_equal(test.critical, crit)
    assert test.steps >= 2


def test_within_families_equals_one_call_per_family():
    reps, full = _case(8, m=7)
    reps[3, 1] = np.nan
    pairs = _all_pairs(7)
    families = [np.flatnonzero(pairs[:, 0] == r) for r in range(6)]
    for members, test in zip(families, maxt_within(reps, full, pairs, -1, families, 0.1, chunk_pairs=2)):
        alone = maxt_stepdown(reps, full, pairs[members], -1, 0.1)
        for field in ("p_adjusted", "low", "high", "critical", "t", "se"):
            np.testing.assert_array_equal(getattr(test, field), getattr(alone, field))


def test_monotone_in_t_and_floor():
    reps, full = _case(5, m=10, b=99)
    test = maxt_stepdown(reps, full, _all_pairs(10), 1, 0.05)
    order = np.argsort(-np.abs(test.t), kind="stable")
    assert np.all(np.diff(test.p_adjusted[order]) >= 0)
    assert test.p_adjusted.min() >= 1.0 / 100
    assert np.all(test.p_adjusted <= 1.0)


def test_floor_is_one_over_b_plus_one():
    # Two systems far apart with no spread in between: p reaches 1/(B+1), whatever the family size.
    rng = np.random.default_rng(0)
    b, m = 99, 30
    reps = rng.normal(0, 0.01, size=(b, m)) + np.arange(m) * 10.0
    full = np.arange(m) * 10.0
    test = maxt_stepdown(reps, full, _all_pairs(m), 1, 0.05)
    assert test.p_adjusted.min() == 1.0 / (b + 1)
    assert np.all(test.significant)


def test_identical_copy_gets_p_one():
    reps, full = _case(2, ties=True)
    test = maxt_stepdown(reps, full, [[0, 1], [1, 0], [0, 0]], 1, 0.05)
    np.testing.assert_array_equal(test.p_adjusted, 1.0)
    np.testing.assert_array_equal(test.t, 0.0)
    assert np.all((test.low <= 0) & (test.high >= 0))


def test_an_undefined_score_is_never_a_difference():
    reps, full = _case(6)
    full = full.copy()
    full[2] = np.nan
    test = maxt_stepdown(reps, full, _all_pairs(6), 1, 0.05)
    involved = (_all_pairs(6) == 2).any(axis=1)
    assert np.all(test.p_adjusted[involved] == 1.0) and np.all(np.isnan(test.t[involved]))


def test_no_spread_and_a_difference_is_infinite_t():
    reps = np.tile([0.9, 0.5, 0.5], (50, 1))
    test = maxt_stepdown(reps, np.array([0.9, 0.5, 0.5]), [[0, 1], [1, 2]], 1, 0.05)
    assert test.t[0] == np.inf and test.t[1] == 0.0
    assert test.p_adjusted[0] == 1.0 / 51 and test.p_adjusted[1] == 1.0
    assert test.low[0] == test.high[0] == 0.4 or test.low[0] > 0


@pytest.mark.parametrize("seed", range(40))
def test_duality_zero_exceptions(seed):
    rng = np.random.default_rng(seed)
    reps, full = _case(100 + seed, m=int(rng.integers(2, 12)), b=int(rng.integers(10, 400)), ties=seed % 4 == 0)
    pairs = _all_pairs(full.size)
    for alpha in (0.01, 0.05, 0.1, 0.3, 0.5):
        test = maxt_stepdown(reps, full, pairs, [1, -1][seed % 2], alpha)
        excludes = (test.low > 0) | (test.high < 0)
        np.testing.assert_array_equal(test.p_adjusted < alpha, excludes)
        assert np.all(test.low <= test.high)


def test_b_too_small_means_no_verdicts_and_infinite_intervals():
    reps, full = _case(4, b=15)
    test = maxt_stepdown(reps, full, _all_pairs(6), 1, 0.05)
    assert not test.significant.any()
    assert test.critical_simultaneous == np.inf
    assert np.all(np.isinf(test.high))


def test_single_pair_is_the_symmetric_studentized_bootstrap_test():
    """A family of one: p = (#{|d* - delta| >= |delta| - gamma} + 1)/(B + 1), the symmetric bootstrap test."""
    reps, full = _case(9)
    for pair in ([0, 1], [2, 4], [5, 3]):
        test = maxt_stepdown(reps, full, [pair], 1, 0.05)
        d = reps[:, pair[0]] - reps[:, pair[1]]
        delta = full[pair[0]] - full[pair[1]]
        gamma = tolerance(max(abs(full[pair[0]]), abs(full[pair[1]])), delta)
        expected = (np.count_nonzero(np.abs(d - delta) >= abs(delta) - gamma) + 1.0) / (len(d) + 1.0)
        assert test.p_adjusted[0] == pytest.approx(expected, abs=1e-12)


def test_validation_messages():
    reps, full = _case(1)
    with pytest.raises(ValueError, match="sign"):
        maxt_stepdown(reps, full, [[0, 1]], 2)
    with pytest.raises(ValueError, match="alpha"):
        maxt_stepdown(reps, full, [[0, 1]], 1, alpha=1.5)
    with pytest.raises(ValueError, match="pairs must index"):
        maxt_stepdown(reps, full, [[0, 9]], 1)
    with pytest.raises(ValueError, match="shape"):
        maxt_stepdown(reps[:, :3], full, [[0, 1]], 1)
    with pytest.raises(ValueError, match="chunk_pairs"):
        maxt_stepdown(reps, full, [[0, 1]], 1, chunk_pairs=0)


def test_empty_family_and_too_few_replicates():
    reps, full = _case(1)
    empty = maxt_stepdown(reps, full, np.zeros((0, 2), int), 1)
    assert isinstance(empty, FamilyTest) and empty.p_adjusted.size == 0
    one = maxt_stepdown(reps[:1], full, [[0, 1]], 1)
    assert one.p_adjusted[0] == 1.0 and one.n_valid == 1


# Rank sets ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(10))
def test_rank_sets_contain_point_rank_and_nest(seed):
    reps, full = _case(200 + seed, m=8, b=199, ties=seed % 2 == 0)
    sign = [1, -1][seed % 2]
    sets = rank_sets(reps, full, sign, 0.05)
    assert np.all(sets.low <= sets.rank) and np.all(sets.rank <= sets.high)
    assert np.all(sets.low <= sets.low_marginal) and np.all(sets.high_marginal <= sets.high)
    assert np.all(sets.low_marginal <= sets.rank) and np.all(sets.rank <= sets.high_marginal)
    assert np.all((sets.low >= 1) & (sets.high <= full.size))


def test_rank_sets_equal_naive_counts():
    reps, full = _case(31, m=7, b=299)
    sign = 1.0
    m = full.size
    sets = rank_sets(reps, full, sign, 0.1)
    pairs = _all_pairs(m)
    p, _, _, _ = _naive(reps, full, pairs, sign, 0.1)
    delta = sign * (full[pairs[:, 0]] - full[pairs[:, 1]])
    for j in range(m):
        better = sum(
            1 for (a, b), pv, d in zip(pairs, p, delta) if pv < 0.1 and ((a == j and d < 0) or (b == j and d > 0))
        )
        worse = sum(
            1 for (a, b), pv, d in zip(pairs, p, delta) if pv < 0.1 and ((a == j and d > 0) or (b == j and d < 0))
        )
        assert sets.low[j] == 1 + better and sets.high[j] == m - worse
        own = np.array([[j, k] for k in range(m) if k != j])
        pm, _, _, _ = _naive(reps, full, own, sign, 0.1)
        dj = sign * (full[j] - full[own[:, 1]])
        assert sets.low_marginal[j] == 1 + np.count_nonzero((pm < 0.1) & (dj < 0))
        assert sets.high_marginal[j] == m - np.count_nonzero((pm < 0.1) & (dj > 0))


def test_rank_sets_reuse_a_family_test():
    reps, full = _case(32, m=6)
    pairs = _all_pairs(6)[::-1, ::-1]
    test = maxt_stepdown(reps, full, pairs, 1, 0.05)
    reused = rank_sets(reps, full, 1, 0.05, family_test=test, pairs=pairs)
    fresh = rank_sets(reps, full, 1, 0.05)
    for field in ("rank", "low", "high", "low_marginal", "high_marginal"):
        np.testing.assert_array_equal(getattr(reused, field), getattr(fresh, field), err_msg=field)
    with pytest.raises(ValueError, match="every pair"):
        rank_sets(reps, full, 1, 0.05, family_test=test, pairs=pairs[1:])


def test_three_way_exact_tie_three_winners():
    reps, full = _case(33, m=5)
    reps[:, 1] = reps[:, 0]
    reps[:, 2] = reps[:, 0]
    full = full.copy()
    full[:3] = 0.99
    full[3:] = [0.2, 0.1]
    sets = rank_sets(reps, full, 1, 0.05)
    np.testing.assert_array_equal(sets.rank, [1, 1, 1, 4, 5])
    assert np.all(sets.low[:3] == 1)


def test_ranks_within_rounding_are_joint():
    full = np.array([0.1 + 0.2, 0.3, 0.2])  # 0.30000000000000004 and 0.3
    reps = np.random.default_rng(0).normal(0.25, 0.01, size=(50, 3))
    np.testing.assert_array_equal(rank_sets(reps, full, 1).rank, [1, 1, 3])


# resamples_needed ---------------------------------------------------------------------------------------------


def test_resamples_needed():
    assert resamples_needed("maxt", 1770, 0.05) == 20  # 1/21 < 0.05, 1/20 is not
    assert resamples_needed("none", 1, 0.05) == 19  # 1/20 <= 0.05
    b = resamples_needed("holm", 1770, 0.05)
    assert 1770.0 / (b + 1) <= 0.05 < 1770.0 / b
    assert resamples_needed("bonferroni", 1770, 0.05) == b == resamples_needed("fdr_bh", 1770, 0.05)
    assert resamples_needed("sidak", 1770, 0.05) <= b
    assert resamples_needed("fdr_by", 1770, 0.05) > b
    for method in STEPDOWN_METHODS:
        assert resamples_needed(method, 3, 0.05) >= 19
    with pytest.raises(ValueError, match="method must be one of"):
        resamples_needed("tukey", 3)
    with pytest.raises(ValueError, match="n_tests"):
        resamples_needed("holm", 0)


@pytest.mark.filterwarnings("ignore:divide by zero")
def test_against_statsmodels_floor():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    for method in ("bonferroni", "holm", "sidak", "holm-sidak", "fdr_bh", "fdr_by", "hommel", "simes-hochberg"):
        n = 37
        b = resamples_needed(method, n, 0.05)
        for bb, expected in ((b, True), (b - 1, False)):
            p = np.ones(n)
            p[0] = 1.0 / (bb + 1)
            assert multitest.multipletests(p, alpha=0.05, method=method)[0][0] == expected, (method, bb)


def test_resolved_resamples_puts_ten_replicates_beyond_the_smallest_level():
    from leaderboard_ci.core.simultaneous import resolved_resamples, smallest_level

    assert smallest_level("maxt", 1770, 0.05) == 0.05
    assert smallest_level("holm", 45, 0.05) == pytest.approx(0.05 / 45)
    assert resolved_resamples("maxt", 10, 0.05) == 200  # 10 / alpha
    assert resolved_resamples("maxt", 45, 0.05) == 450  # 10 n
    assert resolved_resamples("maxt", 1770, 0.05) == 10000  # capped: measured sufficient at 60 and 200 systems
    assert resolved_resamples("holm", 45, 0.05) == 9000
    assert resolved_resamples("bonferroni", 1770, 0.05) == 354000
    for method in ("sidak", "fdr_by", "fdr_bh", "none", "holm"):
        b = resolved_resamples(method, 45, 0.05)
        assert b * smallest_level(method, 45, 0.05) >= 10 - 1e-9
        assert (b - 1) * smallest_level(method, 45, 0.05) < 10
        assert b >= resamples_needed(method, 45, 0.05)
    with pytest.raises(ValueError, match="method must be one of"):
        smallest_level("tukey", 3)


def test_family_note_says_when_b_is_too_small_and_what_b_is_needed():
    from leaderboard_ci.phase.analysis.targets import family_note

    assert family_note("maxt", 1770, 10000, 0.05, "all 1770 pairs") is None
    assert family_note("holm", 45, 10000, 0.05, "all 45 pairs") is None
    never = family_note("holm", 1770, 10000, 0.05, "all 1770 pairs")
    assert "no difference can be significant" in never and "B >= 354,000" in never and "B >= 10,000" in never
    large = family_note("maxt", 1770, 1000, 0.05, "all 1770 pairs")
    assert "standard deviation" in large and "B >= 10,000" in large
    coarse = family_note("holm", 45, 1000, 0.05, "all 45 pairs")
    assert "not resolved" in coarse and "B >= 9,000" in coarse
