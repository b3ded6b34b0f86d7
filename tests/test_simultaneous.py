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


def _naive(reps, full, pairs, sign, alpha, shapes=None):
    """Explicit step-down of the one-sided hypotheses: the maximum recomputed at every step.

    Each pair's forward hypothesis (against the observed direction ``s``) has threshold
    ``u = s g(s (|delta| - gamma)/se)`` and replicates ``s g(t*)``; its reverse one, replicates
    ``-s g(t*)``, is in every maximum and never rejected.  ``g`` is the identity, or the
    product's balance transform from ``shapes`` (its construction is tested on its own).
    Returns ``(p_adjusted, critical, c_1, se, p_single, low, high)``.
    """
    reps = reps[np.all(np.isfinite(reps), axis=1)]
    count = reps.shape[0]
    pairs = np.asarray(pairs)
    a, b = pairs[:, 0], pairs[:, 1]
    d = sign * (reps[:, a] - reps[:, b])  # (B, P)
    delta = sign * (full[a] - full[b])
    gamma = tolerance(np.maximum(np.abs(full[a]), np.abs(full[b])), delta)
    P = len(pairs)
    se = np.empty(P)
    for j in range(P):
        col = d[:, j]
        dev = col - col.sum() / count
        se[j] = np.sqrt((dev * dev).sum() / (count - 1.0))
    zero = np.abs(delta) <= gamma
    flat = se <= gamma
    s = np.where(delta < 0, -1.0, 1.0)

    def g(j, x):
        return x if shapes is None or shapes.row[j] < 0 else shapes.apply(j, np.asarray(x, dtype=float))

    u = np.empty(P)
    forward = np.zeros_like(d)
    reverse = np.zeros_like(d)
    for j in range(P):
        if zero[j]:
            u[j] = 0.0
        elif flat[j]:
            u[j] = np.inf
        else:
            u[j] = s[j] * float(np.atleast_1d(g(j, np.array([s[j] * (abs(delta[j]) - gamma[j]) / se[j]])))[0])
        if not flat[j]:
            z = g(j, (d[:, j] - delta[j]) / se[j])
            forward[:, j] = s[j] * z
            reverse[:, j] = -s[j] * z
    rev = reverse.max(axis=1)
    raw = np.empty(P)
    for j in range(P):
        below = u <= u[j]
        mx = np.maximum(rev, forward[:, below].max(axis=1))
        raw[j] = (np.count_nonzero(mx >= u[j]) + 1.0) / (count + 1.0)
    p = np.array([raw[u >= u[j]].max() for j in range(P)])
    whole = np.maximum(rev, forward.max(axis=1))
    p_single = np.array([(np.count_nonzero(whole >= u[j]) + 1.0) / (count + 1.0) for j in range(P)])
    k = -1
    while (k + 2.0) / (count + 1.0) < alpha:
        k += 1
    crit = np.empty(P)
    remaining = np.ones(P, bool)
    first = None
    while True:
        if k < 0:
            c = np.inf
        else:
            mx = np.maximum(rev, forward[:, remaining].max(axis=1)) if remaining.any() else rev
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
    low, high = delta - first * se, delta + first * se
    if shapes is not None and np.isfinite(first):
        for j in np.flatnonzero(shapes.row >= 0):
            low[j] = delta[j] - se[j] * shapes.inverse(j, first)
            high[j] = delta[j] - se[j] * shapes.inverse(j, -first)
    return p, crit, first, se, p_single, low, high


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
    for balance in (False, True):
        test = maxt_stepdown(reps, full, pairs, sign, alpha, balance=balance)
        p, crit, first, se, p_single, low, high = _naive(reps, full, pairs, sign, alpha, test.shapes)
        np.testing.assert_array_equal(test.p_adjusted, p)
        np.testing.assert_array_equal(test.p_single, p_single)
        np.testing.assert_array_equal(test.critical, crit)
        np.testing.assert_array_equal(test.se, se)
        assert test.critical_simultaneous == first
        assert test.n_valid == reps.shape[0]
        # the simultaneous intervals, up to the duality's rounding move at 0
        moved = np.isclose(low, 0.0, atol=1e-12) | np.isclose(high, 0.0, atol=1e-12)
        np.testing.assert_allclose(test.low[~moved], low[~moved], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(test.high[~moved], high[~moved], rtol=1e-12, atol=1e-15)
        assert balance or not test.near_copy.any()


def test_nan_rows_left_out():
    reps, full = _case(3)
    reps[[4, 17], 2] = np.nan
    pairs = _all_pairs(full.size)
    test = maxt_stepdown(reps, full, pairs, 1, 0.05)
    p, crit = _naive(reps, full, pairs, 1, 0.05, test.shapes)[:2]
    np.testing.assert_array_equal(test.p_adjusted, p)
    assert test.n_valid == reps.shape[0] - 2


@pytest.mark.parametrize("chunk", [1, 2, 5, 1000])
@pytest.mark.parametrize("jobs", [1, 3])
def test_chunks_and_threads_change_nothing(chunk, jobs):
    reps, full = _case(7, m=12, b=301, ties=True)
    pairs = _all_pairs(full.size)
    ref = maxt_stepdown(reps, full, pairs, 1, 0.05)
    got = maxt_stepdown(reps, full, pairs, 1, 0.05, chunk_pairs=chunk, n_jobs=jobs)
    for field in ("p_adjusted", "p_single", "low", "high", "critical", "t", "se", "near_copy"):
        np.testing.assert_array_equal(getattr(got, field), getattr(ref, field), err_msg=field)
    assert (got.critical_simultaneous, got.steps) == (ref.critical_simultaneous, ref.steps)


def test_many_checkpoints_equal_naive(monkeypatch):
    import leaderboard_ci.core.simultaneous as simultaneous

    monkeypatch.setattr(simultaneous, "_CHECKPOINTS", 7)
    reps, full = _case(2, m=14, b=199)
    pairs = _all_pairs(full.size)
    test = maxt_stepdown(reps, full, pairs, 1, 0.1, chunk_pairs=2)
    p, crit = _naive(reps, full, pairs, 1, 0.1, test.shapes)[:2]
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
        for field in ("p_adjusted", "p_single", "low", "high", "critical", "t", "se", "near_copy"):
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
        np.testing.assert_array_equal(test.p_single < alpha, excludes)
        np.testing.assert_array_equal(test.simultaneous, excludes)
        assert np.all(test.significant[excludes])  # the first step rejects them too
        np.testing.assert_array_equal(test.direction_only, test.significant & ~excludes)
        assert np.all(test.p_adjusted <= test.p_single)
        assert np.all(test.low <= test.high)
        # a rejected direction is the sign of the observed difference
        assert np.all(np.sign(test.t[test.significant]) != 0)


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
    p = _naive(reps, full, pairs, sign, 0.1, maxt_stepdown(reps, full, pairs, sign, 0.1).shapes)[0]
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
        mine = maxt_stepdown(reps, full, pairs, sign, 0.1).shapes.subset(
            [np.flatnonzero((pairs == sorted([j, k])).all(axis=1))[0] for k in own[:, 1]], own[:, 0] > own[:, 1]
        )
        pm = _naive(reps, full, own, sign, 0.1, mine)[0]
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
    from leaderboard_ci.phase.analysis.targets import too_few_resamples_note

    assert too_few_resamples_note("maxt", 1770, 10000, 0.05, "all 1770 pairs") is None
    assert too_few_resamples_note("holm", 45, 10000, 0.05, "all 45 pairs") is None
    never = too_few_resamples_note("holm", 1770, 10000, 0.05, "all 1770 pairs")
    assert "no difference can be significant" in never and "B >= 354,000" in never and "B >= 10,000" in never
    large = too_few_resamples_note("maxt", 1770, 1000, 0.05, "all 1770 pairs")
    assert "standard deviation" in large and "B >= 10,000" in large
    coarse = too_few_resamples_note("holm", 45, 1000, 0.05, "all 45 pairs")
    assert "not resolved" in coarse and "B >= 9,000" in coarse


# Balance: near-copies through their own bootstrap distribution ----------------------------------------------


def _near_copy_case(seed=0, n=200, m=8, b=2000, copies=((0, 3), (0, -2), (1, 1))):
    """Distinct systems plus near-copies: a copy of system ``j`` with ``k`` of its wrong items made right
    (``k < 0``: ``-k`` right items made wrong).  Returns ``(reps, full, copies' indices)``."""
    rng = np.random.default_rng(seed)
    correct = rng.uniform(size=(n, m)) < rng.uniform(0.6, 0.85, m)
    extra = []
    for j, k in copies:
        c = correct[:, j].copy()
        pool = np.flatnonzero(~c if k > 0 else c)
        c[rng.choice(pool, abs(k), replace=False)] = k > 0
        extra.append(c)
    correct = np.column_stack([correct] + extra)
    idx = rng.integers(0, n, size=(b, n))
    reps = correct[idx].mean(axis=1)
    return reps, correct.mean(axis=0), list(range(m, m + len(copies)))


def test_near_copies_are_found_and_balanced():
    reps, full, copies = _near_copy_case()
    pairs = _all_pairs(full.size)
    test = maxt_stepdown(reps, full, pairs, 1, 0.05)
    near = {tuple(p) for p in pairs[test.near_copy]}
    assert near == {(0, 8), (0, 9), (1, 10), (8, 9)}, near
    plain = maxt_stepdown(reps, full, pairs, 1, 0.05, balance=False)
    assert not plain.near_copy.any()
    # the near-copies no longer set the critical value: it is the one of the family without them
    distinct = maxt_stepdown(reps[:, :8], full[:8], _all_pairs(8), 1, 0.05, balance=False)
    assert plain.critical_simultaneous > test.critical_simultaneous
    assert abs(test.critical_simultaneous - distinct.critical_simultaneous) < 0.05
    p, crit, first, _, p_single, low, high = _naive(reps, full, pairs, 1, 0.05, test.shapes)
    np.testing.assert_array_equal(test.p_adjusted, p)
    np.testing.assert_array_equal(test.p_single, p_single)
    assert test.critical_simultaneous == first
    moved = np.isclose(low, 0.0, atol=1e-12) | np.isclose(high, 0.0, atol=1e-12)
    np.testing.assert_allclose(test.low[~moved], low[~moved], rtol=1e-12)
    np.testing.assert_allclose(test.high[~moved], high[~moved], rtol=1e-12)
    excludes = (test.low > 0) | (test.high < 0)
    np.testing.assert_array_equal(test.p_single < 0.05, excludes)


def test_balance_transform_against_a_naive_construction():
    """Knots at the type-7 quantiles of Phi(z) for z on a 0.05 grid, equal quantiles merged, exponential tails."""
    from scipy.stats import norm

    from leaderboard_ci.core.balance import Shapes, grid_for

    rng = np.random.default_rng(3)
    count = 4000
    tstar = np.round(rng.poisson(3, count) - 3 + rng.normal(0, 0.05, count) * (rng.uniform(size=count) < 0.5), 1)
    tstar = (tstar - tstar.mean()) / tstar.std(ddof=1)
    g = Shapes.transform(tstar, grid_for(count))
    k0 = max(10, int(np.ceil(count / 200)))
    z0 = norm.isf(k0 / count)
    z = np.linspace(-z0, z0, int(np.ceil(2 * z0 / 0.05)) + 1)
    kt = np.percentile(tstar, 100 * norm.cdf(z))
    knots_t, knots_z = [], []
    for value in np.unique(kt):  # one knot per distinct quantile, at the mean of its z
        knots_t.append(value)
        knots_z.append(z[kt == value].mean())
    np.testing.assert_allclose(g.kt, knots_t, rtol=0, atol=1e-12)
    np.testing.assert_allclose(g.kz, knots_z, rtol=0, atol=1e-12)
    top = knots_t[-1]
    beta = max(np.mean(tstar[tstar > top] - top), 1 / z0)
    x = np.array([top + 0.3, top + 2.0, knots_t[0] - 1.0, 0.123])
    bottom = knots_t[0]
    beta_low = max(np.mean(bottom - tstar[tstar < bottom]), 1 / z0)
    expected = [
        norm.isf(norm.sf(knots_z[-1]) * np.exp(-0.3 / beta)),
        norm.isf(norm.sf(knots_z[-1]) * np.exp(-2.0 / beta)),
        -norm.isf(norm.cdf(knots_z[0]) * np.exp(-1.0 / beta_low)),
        np.interp(0.123, knots_t, knots_z),
    ]
    np.testing.assert_allclose(g.forward(x), expected, rtol=1e-9)
    grid = np.linspace(-12, 40, 2001)  # strictly increasing, and the inverse is exact
    values = g.forward(grid)
    assert np.all(np.diff(values) > 0)
    np.testing.assert_allclose([g.inverse(v) for v in values[::50]], grid[::50], rtol=1e-9, atol=1e-9)


def test_balance_is_mirrored_with_the_orientation():
    reps, full, _ = _near_copy_case(seed=1)
    pairs = _all_pairs(full.size)
    forward = maxt_stepdown(reps, full, pairs, 1, 0.05)
    backward = maxt_stepdown(reps, full, pairs[:, ::-1], 1, 0.05)
    np.testing.assert_array_equal(forward.near_copy, backward.near_copy)
    np.testing.assert_allclose(forward.p_adjusted, backward.p_adjusted)
    np.testing.assert_allclose(forward.low, -backward.high, atol=1e-15)
    j = np.flatnonzero(forward.near_copy)[0]
    x = np.linspace(-5, 5, 11)
    np.testing.assert_allclose(backward.shapes.apply(j, x), -forward.shapes.apply(j, -x))
    # rank sets use the all-pairs family's transforms, mirrored for the marginal families
    a = rank_sets(reps, full, 1, 0.05, family_test=forward, pairs=pairs)
    b = rank_sets(reps, full, 1, 0.05, family_test=backward, pairs=pairs[:, ::-1])
    for field in ("low", "high", "low_marginal", "high_marginal"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))


# Rank sets from the decisions alone (issue 35) == the p-value path they replaced -----------------------------


def _old_rank_sets(reps, full, sign, alpha, chunk_pairs=None):
    """The rank sets as computed before the decisions-only path, kept as the reference.

    Simultaneous: ``p_adjusted < alpha`` of the all-pairs :func:`maxt_stepdown`; marginal: the
    full :func:`_stepdown` (counts and p-values at every pair) over each system's ``m - 1``
    comparisons with the family's standard errors and mirrored near-copy shapes.
    """
    from leaderboard_ci.core import simultaneous as S

    m = full.size
    pairs = _all_pairs(m)
    test = maxt_stepdown(reps, full, pairs, sign, alpha, chunk_pairs)
    better, worse = np.zeros(m, dtype=np.intp), np.zeros(m, dtype=np.intp)
    for (a, b), sig, t in zip(pairs, test.significant, test.t):
        if sig:
            better[b if t > 0 else a] += 1
            worse[a if t > 0 else b] += 1
    reps_t = S._valid_columns(np.asarray(reps, dtype=np.float64))
    chunk = S._chunk(chunk_pairs, reps_t.shape[1])
    index = np.zeros((m, m), dtype=np.intp)
    index[pairs[:, 0], pairs[:, 1]] = index[pairs[:, 1], pairs[:, 0]] = np.arange(len(pairs))
    low_m, high_m = np.empty(m, dtype=np.intp), np.empty(m, dtype=np.intp)
    with S._pool(1) as pool:
        for j in range(m):
            others = np.delete(np.arange(m), j)
            own = np.stack([np.full(m - 1, j), others], axis=1)
            rows = index[j, others]
            shapes = test.shapes.subset(rows, pairs[rows, 0] != j)
            one = S._stepdown(reps_t, full, own, float(sign), alpha, chunk, pool, se=test.se[rows], shapes=shapes)
            low_m[j] = 1 + np.count_nonzero(one.significant & (one.t < 0))
            high_m[j] = m - np.count_nonzero(one.significant & (one.t > 0))
    return np.stack([1 + better, m - worse, low_m, high_m])


def _close_population(seed, m, b, spread):
    """``m`` systems on 60 items whose accuracies differ by ``spread``: many steps, ties and near-copies."""
    rng = np.random.default_rng(seed)
    n = 60
    correct = rng.uniform(size=(n, m)) < np.linspace(0.6, 0.6 + spread, m)
    correct[:, 1] = correct[:, 0]  # an identical copy
    correct[:, 3] = correct[:, 2]
    correct[:3, 3] = ~correct[:3, 3]  # a near-copy
    reps = correct[rng.integers(0, n, size=(b, n))].mean(axis=1)
    reps[rng.integers(0, b)] = np.nan  # a replicate left out
    return reps, correct.mean(axis=0)


@pytest.mark.parametrize("seed", range(6))
def test_rank_sets_equal_the_p_value_path(seed, monkeypatch):
    """New == old, byte for byte, over ties, near-copies, both signs, several chunkings and checkpoint gaps."""
    from leaderboard_ci.core import simultaneous as S

    m, spread = [(9, 0.05), (14, 0.3), (24, 0.15), (9, 0.6), (30, 0.25), (12, 0.0)][seed]
    reps, full = _close_population(seed, m, 199 if seed % 2 else 399, spread)
    sign = [1, -1][seed % 2]
    if seed >= 3:
        monkeypatch.setattr(S, "_CHECKPOINTS", 3)  # checkpoints several pairs apart: steps recompute a stretch
    expected = _old_rank_sets(reps, full, sign, 0.05)
    for chunk, jobs in [(None, 1), (1, 1), (5, 2), (37, 2)]:
        new = rank_sets(reps, full, sign, 0.05, chunk_pairs=chunk, n_jobs=jobs)
        np.testing.assert_array_equal(np.stack([new.low, new.high, new.low_marginal, new.high_marginal]), expected)


def test_rank_sets_equal_the_p_value_path_at_60_systems():
    """60 systems, B = 999: the decisions path and the p-value path give the same sets (and the test is not idle)."""
    reps, full = _close_population(60, 60, 999, 0.35)
    expected = _old_rank_sets(reps, full, 1, 0.05)
    new = rank_sets(reps, full, 1, 0.05, chunk_pairs=200)
    np.testing.assert_array_equal(np.stack([new.low, new.high, new.low_marginal, new.high_marginal]), expected)
    assert 1 < np.unique(expected[0]).size and np.any(expected[2] != expected[0])  # sets of many sizes
