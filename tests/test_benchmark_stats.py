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
