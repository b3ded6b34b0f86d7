"""The resample stream: its documented definition, golden values, and invariances."""

import hashlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from leaderboard_ci.core.resampling import (
    SWAP_STREAM_OFFSET,
    check_n_resamples,
    check_seed,
    counts_from_indices,
    iter_index_blocks,
    replicate_indices,
    swap_signs,
)


def documented_indices(seed, n, start, stop):
    """The module docstring's definition, written independently from random_raw."""
    bit_generator = np.random.PCG64(seed)
    bit_generator.advance(start * n)
    raw = bit_generator.random_raw((stop - start) * n)
    rows = []
    for r in range(stop - start):
        row = []
        for x in raw[r * n : (r + 1) * n].tolist():
            u = (x >> 11) * 2.0**-53  # exact: Python ints and a power of two
            row.append(int(u * n))  # floor for u >= 0
        rows.append(row)
    return np.array(rows)


# Golden values: these pin the stream; if they change, every published CI changes.
GOLDEN_SEED_12345_N10 = [[2, 3, 7, 6, 3, 3, 5, 1, 6, 9], [2, 9, 6, 0, 4, 8, 6, 3, 7, 2], [0, 1, 3, 4, 2, 8, 1, 1, 0, 5]]
GOLDEN_SEED_0_N7 = [[4, 1, 0, 0, 5, 6, 4], [5, 3, 6, 5, 0, 6, 0]]
GOLDEN_TAIL_SHA256 = "abd2a5ee641923a3f4284175813f06b8bf7fc4a3a224acf8ab202bf953724a9c"
GOLDEN_SWAPS = [[1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1], [1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0]]


def test_golden_first_replicates():
    assert replicate_indices(12345, 10, 0, 3).tolist() == GOLDEN_SEED_12345_N10
    assert replicate_indices(0, 7, 0, 2).tolist() == GOLDEN_SEED_0_N7


def test_golden_far_block_computed_on_its_own():
    tail = replicate_indices(12345, 1000, 9997, 10000)
    assert hashlib.sha256(tail.astype("<i8").tobytes()).hexdigest() == GOLDEN_TAIL_SHA256


def test_golden_swap_signs():
    assert swap_signs(12345, 12, 0, 2).astype(int).tolist() == GOLDEN_SWAPS


@pytest.mark.parametrize(
    "seed,n,start,stop",
    [(12345, 10, 0, 3), (7, 97, 5, 40), (2**70 + 3, 1001, 100, 104), (0, 1, 0, 5), (99, 2**20 + 7, 2, 3)],
)
def test_matches_documented_definition(seed, n, start, stop):
    ours = replicate_indices(seed, n, start, stop)
    assert ours.shape == (stop - start, n)
    if n <= 2000:
        np.testing.assert_array_equal(ours, documented_indices(seed, n, start, stop))
    else:  # spot-check a long row against the definition
        ref = documented_indices(seed, n, start, stop)
        np.testing.assert_array_equal(ours, ref)
    assert ours.min() >= 0 and ours.max() < n


def test_largest_uniform_maps_below_n():
    # (2**53 - 1) * 2**-53 * n must floor to n - 1, never n, for awkward n.
    u = (2**53 - 1) * 2.0**-53
    for n in (3, 7, 10**6 + 3, 2**31 - 1, 2**40 + 12345):
        assert int(np.floor(np.float64(u) * n)) == n - 1


@pytest.mark.parametrize("block_rows", [1, 2, 7, 64, 1000])
def test_block_size_changes_nothing(block_rows):
    ref = replicate_indices(3, 53, 10, 130)
    blocks = [idx.copy() for _, _, idx in iter_index_blocks(3, 53, 10, 130, block_rows=block_rows)]
    np.testing.assert_array_equal(np.vstack(blocks), ref)


def test_any_slice_equals_the_whole():
    whole = replicate_indices(11, 31, 0, 200)
    for a, b in [(0, 1), (17, 18), (50, 123), (199, 200)]:
        np.testing.assert_array_equal(replicate_indices(11, 31, a, b), whole[a:b])


def test_threads_give_the_same_blocks():
    ref = replicate_indices(5, 257, 0, 64)
    with ThreadPoolExecutor(4) as pool:
        parts = list(pool.map(lambda a: replicate_indices(5, 257, a, a + 16), [0, 16, 32, 48]))
    np.testing.assert_array_equal(np.vstack(parts), ref)


def test_draws_are_uniform():
    # 10,000 x 50 draws over 50 items: a chi-square test of uniformity.
    idx = replicate_indices(2024, 50, 0, 10000).ravel()
    observed = np.bincount(idx, minlength=50)
    expected = idx.size / 50
    chi2 = float(((observed - expected) ** 2 / expected).sum())
    assert chi2 < 100.0  # df = 49; P(chi2 > 100) < 1e-5


def test_counts_from_indices():
    idx = np.array([[0, 0, 2], [1, 2, 2]])
    counts = counts_from_indices(idx, 3)
    assert counts.tolist() == [[2, 0, 1], [0, 1, 2]]
    assert counts.dtype == np.float64


def test_swap_stream_is_disjoint_from_bootstrap_stream():
    assert SWAP_STREAM_OFFSET > 10**6 * 10**9  # far beyond any B * n we allow
    signs = swap_signs(1, 1000, 0, 20)
    assert 0.45 < signs.mean() < 0.55


@pytest.mark.parametrize("bad", [None, -1, 2**128, 1.5, "12", True])
def test_bad_seeds_are_refused(bad):
    with pytest.raises((TypeError, ValueError)):
        check_seed(bad)


def test_seed_zero_is_a_seed():
    assert check_seed(0) == 0
    assert not np.array_equal(replicate_indices(0, 20, 0, 1), replicate_indices(1, 20, 0, 1))


@pytest.mark.parametrize("bad", [0, -5, 2.0, None, False])
def test_bad_resample_counts_are_refused(bad):
    with pytest.raises((TypeError, ValueError)):
        check_n_resamples(bad)
