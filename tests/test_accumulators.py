"""Accumulators give exact sums, the same by every path (gather, count matrix, jackknife)."""

from fractions import Fraction

import numpy as np
import pytest

from leaderboard_ci.core.accumulators import (
    CodeCounts,
    ExactSums,
    RankSums,
    WeightedFunction,
    block_counts_factory,
    jackknife,
    split_fixed_point,
)
from leaderboard_ci.core.resampling import counts_from_indices, replicate_indices


def exact_weighted_sum(weights, values):
    """The exact value of sum(w * v), rounded once to float64 (via fractions)."""
    total = sum(Fraction(int(w)) * Fraction(float(v)) for w, v in zip(weights, values))
    return float(total)


def awkward_values(n, seed=0):
    rng = np.random.default_rng(seed)
    # Mixed magnitudes and signs: the sums a naive float loop gets wrong in the last bits.
    return rng.normal(size=n) * 10.0 ** rng.integers(-6, 7, size=n)


def test_exact_sums_are_correctly_rounded():
    n = 400
    values = awkward_values(n)
    acc = ExactSums(values)
    idx = replicate_indices(9, n, 0, 30)
    counts = counts_from_indices(idx, n)
    block = acc.block(idx, block_counts_factory(idx, n))[:, 0]
    quantized = acc.hi[:, 0] + np.ldexp(acc.lo[:, 0], -acc.k)
    quantized = np.ldexp(quantized, int(acc.exponents[0]))
    # Quantization error is below double precision of the largest value...
    assert np.max(np.abs(quantized - values)) <= np.max(np.abs(values)) * 2.0**-70
    # ...and every replicate sum is the exact sum of the quantized values, rounded once.
    for r in range(30):
        assert block[r] == exact_weighted_sum(counts[r], quantized)
    assert acc.full()[0] == exact_weighted_sum(np.ones(n), quantized)


def test_count_matrix_sums_equal_a_naive_gather_bit_for_bit():
    """counts @ parts (BLAS, any order) equals summing each replicate's draws one by one."""
    n = 300
    values = np.stack([awkward_values(n, s) for s in range(4)], axis=1)
    acc = ExactSums(values)
    idx = replicate_indices(1, n, 0, 25)
    got = acc.block(idx, block_counts_factory(idx, n))
    for r in range(25):
        hi = sum(acc.hi[i] for i in idx[r])  # Python float sums of integers below 2**52: exact
        lo = sum(acc.lo[i] for i in idx[r])
        expected = np.ldexp(hi + np.ldexp(lo, -acc.k), acc.exponents)
        np.testing.assert_array_equal(got[r], expected)


def test_fixed_point_split_bounds():
    values = awkward_values(1000)
    hi, lo, exps, k = split_fixed_point(values, 1000)
    assert k == 52 - (1000).bit_length()
    assert np.all(np.abs(hi) < 2.0**k) and np.all(np.abs(lo) < 2.0**k)
    assert np.all(hi == np.trunc(hi)) and np.all(lo == np.trunc(lo))
    assert np.all(np.abs(hi).sum(axis=0) < 2.0**52)


def test_code_counts_block_matches_bincount_loop():
    rng = np.random.default_rng(0)
    for n_codes in (3, 9, 40):
        n = 500
        codes = rng.integers(0, n_codes, n)
        acc = CodeCounts(codes, n_codes)
        for rows in (1, 7):
            idx = replicate_indices(2, n, 0, rows)
            got = acc.block(idx)
            for r in range(rows):
                np.testing.assert_array_equal(got[r], np.bincount(codes[idx[r]], minlength=n_codes))
    with pytest.raises(ValueError):
        CodeCounts([0, 5], 3)


def test_jackknife_joint_keys_represent_every_item():
    rng = np.random.default_rng(1)
    n = 200
    a = CodeCounts(rng.integers(0, 4, n), 4)
    b = CodeCounts(rng.integers(0, 3, n), 3)
    (sa, sb), weights, inverse = jackknife([a, b], n)
    assert weights.sum() == n
    # inverse maps every item to the row that represents it.
    for i in range(n):
        expected = np.bincount(np.delete(a.codes, i), minlength=4)
        np.testing.assert_array_equal(sa[inverse[i]], expected)
    # Expand the weighted representation and compare with leaving out each item in turn.
    expanded_a = np.repeat(sa, weights.astype(int), axis=0)
    naive = np.array([np.bincount(np.delete(a.codes, i), minlength=4) for i in range(n)])
    assert sorted(map(tuple, expanded_a)) == sorted(map(tuple, naive))
    assert len(sb) == len(sa)


def test_exact_sums_jackknife_equals_leaving_each_item_out():
    n = 120
    values = awkward_values(n, 3)
    acc = ExactSums(values)
    (stats,), weights, inverse = jackknife([acc], n)
    assert weights.tolist() == [1.0] * n and inverse.tolist() == list(range(n))
    quantized = np.ldexp(acc.hi[:, 0] + np.ldexp(acc.lo[:, 0], -acc.k), int(acc.exponents[0]))
    for i in range(0, n, 7):
        w = np.ones(n)
        w[i] = 0
        assert stats[i, 0] == exact_weighted_sum(w, quantized)


def test_rank_sums_equal_ranks_of_the_resampled_data():
    from scipy.stats import rankdata

    rng = np.random.default_rng(4)
    n = 60
    gold = rng.integers(0, 8, n).astype(float)  # many ties
    pred = np.round(gold + rng.normal(0, 2, n))
    acc = RankSums(gold, pred)
    idx = replicate_indices(3, n, 0, 10)
    stats = acc.block(idx, block_counts_factory(idx, n))
    for r in range(10):
        a = 2 * rankdata(gold[idx[r]]) - (n + 1)
        b = 2 * rankdata(pred[idx[r]]) - (n + 1)
        np.testing.assert_array_equal(stats[r], [n, a.sum(), (a * a).sum(), b.sum(), (b * b).sum(), (a * b).sum()])


def test_subset_accumulators_ignore_other_items():
    rng = np.random.default_rng(5)
    n = 50
    items = np.flatnonzero(rng.random(n) < 0.4)
    y, p = rng.normal(size=n), rng.normal(size=n)
    acc = RankSums(y[items], p[items], n_total=n, items=items)
    idx = replicate_indices(8, n, 0, 5)
    counts = counts_from_indices(idx, n)
    direct = RankSums(y[items], p[items])._from_weights(counts[:, items])
    np.testing.assert_array_equal(acc.block(idx, block_counts_factory(idx, n)), direct)
    fn = WeightedFunction(lambda w: w.sum(axis=1).astype(float), n, items)
    np.testing.assert_array_equal(fn.block(idx, block_counts_factory(idx, n))[:, 0], counts[:, items].sum(axis=1))
    # Leaving out an item of the subset changes the statistic; one outside does not.
    (jk,), _, _ = jackknife([fn], n)
    assert jk[items[0], 0] == len(items) - 1
    outside = np.setdiff1d(np.arange(n), items)[0]
    assert jk[outside, 0] == len(items)


def test_weighted_function_checks_its_output_length():
    acc = WeightedFunction(lambda w: np.zeros(1), 10)
    idx = replicate_indices(1, 10, 0, 3)
    with pytest.raises(ValueError, match="returned 1 scores for 3"):
        acc.block(idx, block_counts_factory(idx, 10))
