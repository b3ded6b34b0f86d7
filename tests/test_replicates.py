"""The engine: results independent of threads, block size and slicing; progress reported."""

import numpy as np
import pytest

from leaderboard_ci.core.accumulators import CodeCounts, ExactSums, RankSums
from leaderboard_ci.core.parallel import resolve_jobs, split_range
from leaderboard_ci.core.replicates import compute_replicates


def _accumulators(n):
    rng = np.random.default_rng(0)
    y = rng.normal(size=n)
    return [
        CodeCounts(rng.integers(0, 9, n), 9),
        ExactSums(np.stack([y, y**2, np.abs(y)], axis=1)),
        ExactSums(y),
        RankSums(y, y + rng.normal(size=n)),
    ]


@pytest.mark.parametrize("n_jobs,block_rows", [(2, None), (3, 1), (4, 17), (1, 1000)])
def test_threads_and_blocks_change_nothing(n_jobs, block_rows):
    n = 211
    ref = compute_replicates(_accumulators(n), n, 42, 300, n_jobs=1)
    got = compute_replicates(_accumulators(n), n, 42, 300, n_jobs=n_jobs, block_rows=block_rows)
    for a, b in zip(ref, got):
        assert a.dtype == b.dtype
        assert a.tobytes() == b.tobytes()


def test_a_slice_of_replicates_equals_the_same_rows_of_the_whole():
    n = 97
    whole = compute_replicates(_accumulators(n), n, 7, 200)
    part = compute_replicates(_accumulators(n), n, 7, 50, start=120)
    for a, b in zip(whole, part):
        np.testing.assert_array_equal(a[120:170], b)


def test_progress_counts_every_replicate():
    seen = []
    compute_replicates(_accumulators(50), 50, 1, 333, n_jobs=3, progress=seen.append)
    assert sum(seen) == 333


def test_split_range_covers_exactly():
    for total, parts in [(10, 3), (5, 8), (1, 1), (1000, 7)]:
        spans = split_range(0, total, parts)
        assert spans[0][0] == 0 and spans[-1][1] == total
        assert all(a < b for a, b in spans)
        assert all(spans[i][1] == spans[i + 1][0] for i in range(len(spans) - 1))


@pytest.mark.parametrize("bad", [0, -2, 1.5, "many", True])
def test_bad_jobs(bad):
    with pytest.raises(ValueError):
        resolve_jobs(bad)


def test_auto_jobs_is_positive():
    assert 1 <= resolve_jobs("auto") <= 8


def test_large_n_is_counted_in_chunks_with_identical_results():
    """n >= 2**17 takes the chunked path (one replicate in cache-sized pieces)."""
    from leaderboard_ci.core.resampling import replicate_indices, rows_per_block

    n = (1 << 17) + 11
    assert rows_per_block(n) == 1
    codes = np.random.default_rng(3).integers(0, 20, n)  # 20 codes: the bincount branch of partial()
    got = compute_replicates([CodeCounts(codes, 20), CodeCounts(codes % 9, 9)], n, 8, 3, n_jobs=2)
    idx = replicate_indices(8, n, 0, 3)
    for r in range(3):
        np.testing.assert_array_equal(got[0][r], np.bincount(codes[idx[r]], minlength=20))
        np.testing.assert_array_equal(got[1][r], np.bincount(codes[idx[r]] % 9, minlength=9))


@pytest.mark.parametrize("chunk", [7, 64, 1 << 17])
def test_chunked_counting_equals_whole_blocks(monkeypatch, chunk):
    """One replicate per block is counted in chunks of draws: any chunk size gives the same counts."""
    import leaderboard_ci.core.replicates as replicates

    n = 1000
    codes = np.random.default_rng(3).integers(0, 9, n)
    ref = compute_replicates([CodeCounts(codes, 9)], n, 11, 40, block_rows=17)[0]
    monkeypatch.setattr(replicates, "DRAW_CHUNK", chunk)
    for jobs in (1, 2):
        got = compute_replicates([CodeCounts(codes, 9)], n, 11, 40, n_jobs=jobs, block_rows=1)[0]
        assert got.tobytes() == ref.tobytes()
