"""Large test sets (n > 2**17, one replicate per block): the count-row path gives the bytes of the block path.

``compute_replicates`` takes a third way when ``n`` is large and an exact linear accumulator needs
whole count rows (``core/replicates._counted_span``): chunks of draws for the additive counts, count
rows of up to 16 replicates kept as bytes, matrix products over slices of items.  Every result must
equal, byte for byte, the plain blocks of index rows and float count rows (``block_rows=2``), which
are the definition (counts from ``counts_from_indices``, ``counts @ parts``).
"""

import numpy as np
import pytest

from leaderboard_ci.core import replicates
from leaderboard_ci.core.accumulators import CodeCounts, ExactSums, IndicatorSums
from leaderboard_ci.core.replicates import compute_replicates
from leaderboard_ci.core.resampling import counts_from_indices, iter_draw_chunks, replicate_indices

LARGE = (1 << 17) + 3  # the smallest kind of test set with one replicate per block


def _accumulators(n, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n)
    p = y + rng.normal(scale=0.5, size=n)
    return [
        CodeCounts(rng.integers(0, 9, n), 9),
        ExactSums(np.stack([np.abs(y - p), (y - p) ** 2, y, y * y, p, p * p, y * p], axis=1)),
        IndicatorSums(rng.integers(0, 2, (n, 3))),
    ]


@pytest.mark.parametrize(
    "seed,n,n_resamples,n_jobs",
    [(12345, LARGE, 19, 1), (0, LARGE, 3, 2), (5, 2 * LARGE + 1, 2, 1), (9, 1, 40, 1), (3, 1000, 33, 2)],
)
def test_large_n_count_rows_give_the_bytes_of_the_block_path(seed, n, n_resamples, n_jobs):
    accumulators = _accumulators(n, seed)
    fast = compute_replicates(accumulators, n, seed, n_resamples, n_jobs=n_jobs)
    plain = compute_replicates(accumulators, n, seed, n_resamples, block_rows=2)
    for a, b in zip(fast, plain):
        assert a.dtype == b.dtype
        assert a.tobytes() == b.tobytes()


def test_the_count_rows_are_the_definitions_sums():
    """One replicate, summed from its indices the slow way (the module docstring's definition)."""
    n = LARGE
    sums = _accumulators(n)[1]
    got = compute_replicates([sums], n, 7, 2, start=5)[0]
    counts = counts_from_indices(replicate_indices(7, n, 5, 7), n)
    np.testing.assert_array_equal(got, sums.from_linear(counts @ sums.linear_matrix(np.float64)))


def test_a_count_above_a_byte_is_taken_whole(monkeypatch):
    """Rows with an item drawn more than 255 times keep their true counts (the byte would wrap)."""
    rng = np.random.default_rng(3)
    n = 5000
    counts = rng.poisson(1.0, size=(3, n))
    counts[1, 17] = 300
    counts[2, 4999] = 256
    matrix = np.floor(rng.random((n, 4)) * 2**30)
    small = counts.astype(np.uint8)
    wide = {1: counts[1], 2: counts[2]}
    monkeypatch.setattr(replicates, "ITEM_CHUNK", 1024)  # several slices, one ragged
    got = replicates._linear_rows(small, wide, matrix)
    np.testing.assert_array_equal(got, counts.astype(np.float64) @ matrix)
    assert not np.array_equal(replicates._linear_rows(small, {}, matrix), got)


def test_draw_chunks_into_one_array_are_the_replicate():
    n = 1000
    out = np.empty(n, dtype=np.intp)
    chunks = [c.copy() for c in iter_draw_chunks(99, n, 4, 300, out=out)]
    np.testing.assert_array_equal(np.concatenate(chunks), replicate_indices(99, n, 4, 5)[0])
    np.testing.assert_array_equal(out, replicate_indices(99, n, 4, 5)[0])


@pytest.mark.parametrize(
    "texts",
    [
        ["1.5", " 2 ", "-3e-7", "1e100", "+0", "7"],
        ["1.5", "1_000"],
        ["1.5", "nan"],
        ["inf", "2"],
        ["1e999"],
        ["1.5", ""],
        ["3,5"],
        ["-1e101"],
    ],
)
def test_a_column_read_at_once_is_the_column_read_text_by_text(texts):
    """The fast check (C) accepts exactly the columns every text of which the reading accepts, same values."""
    from leaderboard_ci.tasks.shared.numbers import finite_number, finite_numbers

    one_by_one = [finite_number(text) for text in texts]
    fast = finite_numbers(texts, 1e100)
    if any(value is None or abs(value) > 1e100 for value in one_by_one):
        assert fast is None
    else:
        assert fast.tobytes() == np.array(one_by_one, dtype=np.float64).tobytes()


@pytest.mark.parametrize("task", ["cls", "reg"])
def test_files_in_the_gold_order_read_as_the_row_by_row_reference(task, tmp_path, monkeypatch):
    """The in-order batches (placed by one comparison, no look-ups) give the reference's values and messages."""
    import random

    import test_batched_reading as batched_reading

    config = batched_reading._config(task, False)
    gold = batched_reading.read_gold(batched_reading._gold(tmp_path, task), config)
    rng = random.Random(5)
    good = "pos" if task == "cls" else "1.5"
    variants = {
        "in order": [],
        "bad value": [("set", 7, "1_000" if task == "reg" else "bad")],
        "repeat": [("insert", 9, batched_reading.IDS[2])],
        "unknown id": [("insert", 11, "it-99")],
        "missing": [("drop", 4, None)],
        "swapped": [("swap", 3, 4)],
    }
    outcomes = set()
    for name, edits in variants.items():
        rows = [
            [ident, good if rng.random() < 0.5 else ("neg" if task == "cls" else "-0.25")]
            for ident in batched_reading.IDS
        ]
        for kind, at, value in edits:
            if kind == "set":
                rows[at][1] = value
            elif kind == "insert":
                rows.insert(at, [value, good])
            elif kind == "drop":
                del rows[at]
            else:
                rows[at], rows[value] = rows[value], rows[at]
        path = tmp_path / (name.replace(" ", "_") + ".csv")
        path.write_text(
            "id,%s\n" % ("label" if task == "cls" else "score") + "".join("%s,%s\n" % tuple(r) for r in rows)
        )
        for batch in (1, 5, 1 << 16):
            got, reference = batched_reading._both_ways(monkeypatch, str(path), config, gold, 1 << 20, batch)
            assert got == reference, (name, batch)
            outcomes.add(got[0])
    assert outcomes == {"values", "error"}
