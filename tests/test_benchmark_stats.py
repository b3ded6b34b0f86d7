"""core/benchmark_stats.rank_summary: P(1st) is a probability over systems (tied firsts share it)."""

import numpy as np
import pytest

from leaderboard_ci.core.benchmark_stats import rank_summary


def _naive_p_first(reps, sign):
    """Loop over replicates: the systems with the best score share the replicate equally."""
    b, m = reps.shape
    out = np.zeros(m)
    for row in reps:
        values = [sign * v if np.isfinite(v) else -np.inf for v in row]
        best = max(values)
        winners = [j for j in range(m) if values[j] == best]
        for j in winners:
            out[j] += 1.0 / len(winners)
    return out / b


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_p_first_sums_to_one_and_equals_a_naive_loop_with_many_ties(seed, sign):
    rng = np.random.default_rng(seed)
    m, b = int(rng.integers(2, 9)), 300
    reps = rng.integers(0, 3, size=(b, m)).astype(float)  # three values only: ties at the top are common
    if seed % 2:
        reps[rng.random((b, m)) < 0.1] = np.nan  # NaN ranks last
    reps[0] = 1.0  # an all-way tie
    summary = rank_summary(reps.mean(axis=0) if seed % 2 == 0 else np.arange(m, dtype=float), reps, sign)
    assert summary.p_first.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(summary.p_first, _naive_p_first(reps, sign), rtol=0, atol=1e-12)
    assert np.all(summary.p_first >= 0)


def test_a_three_way_tie_in_every_replicate_gives_a_third_each():
    reps = np.tile([0.9, 0.9, 0.9, 0.5], (50, 1))
    summary = rank_summary(reps[0], reps, 1.0)
    np.testing.assert_allclose(summary.p_first, [1 / 3, 1 / 3, 1 / 3, 0.0], atol=1e-15)
    assert list(summary.rank) == [1, 1, 1, 4]
    np.testing.assert_allclose(summary.distribution[:, 0], [1, 1, 1, 0])  # the unsplit share of rank 1


def test_shapes_are_checked():
    with pytest.raises(ValueError, match="replicates"):
        rank_summary(np.zeros(3), np.zeros((5, 2)), 1.0)


def _naive_ranks(row, sign):
    """1 + the systems better by more than core.significance.tolerance; NaN last."""
    from leaderboard_ci.core.significance import tolerance

    out = []
    for sj in row:
        better = 0
        for sk in row:
            if np.isnan(sj) and not np.isnan(sk):
                better += 1
            elif not np.isnan(sj) and not np.isnan(sk):
                d = sign * (sk - sj)
                better += d > tolerance(max(abs(sj), abs(sk)), d)
        out.append(1 + better)
    return out


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_the_one_rank_function_equals_a_loop_in_any_block_size(monkeypatch, sign):
    """ranks() ties scores equal up to rounding (0.1 + 0.2 vs 0.3), ranks NaN last; its block size changes nothing."""
    import leaderboard_ci.core.benchmark_stats as stats
    from leaderboard_ci.core.simultaneous import rank_sets

    rng = np.random.default_rng(3)
    scores = rng.integers(0, 4, size=(40, 6)) / 10.0
    scores[:, 0] = 0.1 + 0.2  # 0.30000000000000004: a tie with 0.3, not a loss or a win
    scores[rng.random(scores.shape) < 0.1] = np.nan
    expected = np.array([_naive_ranks(row, sign) for row in scores])
    assert np.array_equal(stats.ranks(scores, sign), expected)
    got = stats.ranks(scores, sign)
    r, k = np.nonzero((scores[:, 1:] == 0.3) & ~np.isnan(scores[:, :1]))
    assert r.size and np.array_equal(got[r, 0], got[r, k + 1])  # 0.1 + 0.2 ties with 0.3
    monkeypatch.setattr(stats, "_RANK_BLOCK", 7)  # one row per block
    assert np.array_equal(stats.ranks(scores, sign), expected)
    many = np.round(rng.normal(size=(300, 9)), 1)  # exact ties, no near-tie: the fast path
    many[rng.random(many.shape) < 0.05] = np.nan
    assert np.array_equal(stats.ranks(many, sign), stats._tolerant_ranks(np.nan_to_num(sign * many, nan=-np.inf)))
    full = np.array([0.1 + 0.2, 0.3, 0.5, 0.2])
    assert stats.ranks(full, sign).tolist() == _naive_ranks(full, sign)
    assert rank_sets(rng.normal(size=(50, 4)) + full, full, sign).rank.tolist() == _naive_ranks(full, sign)
