"""Bootstrap resamples as a documented function of ``(seed, n, replicate)``.

The definition
--------------
Let ``x_0, x_1, x_2, ...`` be the 64-bit outputs of numpy's PCG64 bit
generator seeded with the integer ``seed`` (``numpy.random.PCG64(seed)``,
read with ``random_raw()``).  For a test set of ``n`` items, replicate ``r``
(counting from 0) is the multiset of the ``n`` item indices

    i[r, j] = floor( (x[r*n + j] >> 11) * 2**-53 * n ),   j = 0, ..., n-1

that is, replicate ``r`` uses the raw outputs ``r*n`` to ``r*n + n - 1`` of the
stream, each turned into a uniform double in [0, 1) with 53 random bits and
scaled to an index.  Nothing else enters: not the number of replicates asked
for, not the block size, not the number of threads or machines.  Any block of
replicates can therefore be computed on its own (``PCG64.advance`` jumps to
output ``r*n`` in O(log) time), and every system of a competition sees the
same resamples, which is what makes the analysis *paired*.

The index map's bias is at most ``n / 2**53`` (under 1e-9 relative for a
billion items).  It uses only IEEE-754 double arithmetic, so it gives the same
indices on every platform, and only numpy APIs whose output is fixed since
numpy 1.17 (``PCG64(int)``, ``advance``, ``random_raw``, and
``Generator.random``, which computes exactly ``(x >> 11) * 2**-53``).  The
golden values in ``tests/test_resampling.py`` pin the first indices for a seed.

A second, disjoint part of the same stream, starting at output ``2**127``,
gives the coin flips of the randomization (permutation) test; see
:func:`swap_signs`.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "check_seed",
    "check_n_resamples",
    "replicate_indices",
    "iter_index_blocks",
    "iter_draw_chunks",
    "rows_per_block",
    "counts_from_indices",
    "swap_signs",
    "SWAP_STREAM_OFFSET",
]

#: Where the coin flips of the randomization test start in the PCG64 stream.
#: Bootstrap draws use outputs below ``n_resamples * n``, far below this.
SWAP_STREAM_OFFSET = 2**127

_MAX_SEED = 2**128 - 1
_SCALE_53 = 1.0 / 9007199254740992.0  # 2**-53


def check_seed(seed):
    """Return ``seed`` as a Python int, or raise if it is not a usable seed.

    A seed is a non-negative integer below 2**128.  ``None`` is refused: the
    platform gives the scoring program no submission identity, so only a fixed
    seed from the configuration makes every submission see the same resamples.
    ``0`` is a valid seed like any other (it is not "no seed").
    """
    if seed is None:
        raise ValueError("seed must be an integer from 0 to 2**128-1, got None")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError("seed must be an integer from 0 to 2**128-1, got %r" % (seed,))
    seed = int(seed)
    if not 0 <= seed <= _MAX_SEED:
        raise ValueError("seed must be an integer from 0 to 2**128-1, got %d" % seed)
    return seed


def check_n_resamples(n_resamples):
    """Return ``n_resamples`` as an int >= 1, or raise."""
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, numbers.Integral):
        raise TypeError("n_resamples must be an integer, got %r" % (n_resamples,))
    if n_resamples < 1:
        raise ValueError("n_resamples must be at least 1, got %d" % n_resamples)
    return int(n_resamples)


def _check_n(n):
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError("n (the number of items) must be a positive integer, got %r" % (n,))
    if n >= 2**52:
        raise ValueError("n must be below 2**52 items, got %d" % n)
    return int(n)


def _generator_at(seed, offset):
    bit_generator = np.random.PCG64(seed)
    if offset:
        bit_generator.advance(int(offset))
    return np.random.Generator(bit_generator)


def rows_per_block(n, target_draws=1 << 17):
    """Replicates per block so that one block holds about ``target_draws`` draws.

    About 2**17 draws (1 MiB of float64) keep the working buffers in cache,
    which measured fastest on the reference machine (see ``benchmarks/``).
    """
    return max(1, int(target_draws) // int(n))


def iter_index_blocks(seed, n, start, stop, block_rows=None):
    """Yield ``(r0, r1, indices)`` for consecutive blocks of replicates.

    ``indices`` has shape ``(r1 - r0, n)`` and dtype ``intp``; row ``k`` is
    replicate ``r0 + k`` as defined in the module docstring.  The arrays are
    reused between iterations: copy a block if you keep it.

    Parameters
    ----------
    seed : int
        The seed of the PCG64 stream.
    n : int
        Number of items in the test set.
    start, stop : int
        The half-open range of replicate numbers to produce.
    block_rows : int, optional
        Replicates per block; by default :func:`rows_per_block`.  It changes
        only the memory used, never the values.
    """
    seed = check_seed(seed)
    n = _check_n(n)
    start, stop = int(start), int(stop)
    if not 0 <= start <= stop:
        raise ValueError("need 0 <= start <= stop, got start=%d stop=%d" % (start, stop))
    rows = rows_per_block(n) if block_rows is None else max(1, int(block_rows))
    rows = min(rows, max(1, stop - start))
    generator = _generator_at(seed, start * n)
    uniforms = np.empty(rows * n, dtype=np.float64)
    indices = np.empty(rows * n, dtype=np.intp)
    for r0 in range(start, stop, rows):
        r1 = min(r0 + rows, stop)
        yield r0, r1, _next_draws(generator, uniforms, indices, (r1 - r0) * n, n).reshape(r1 - r0, n)


def _next_draws(generator, uniforms, indices, size, n):
    """The next ``size`` draws of the stream as item indices, in ``indices[:size]`` (the definition).

    ``generator.random`` gives ``(x >> 11) * 2**-53`` exactly; the float64
    product ``u * n`` truncated into intp (== floor for u >= 0) is the index,
    in one pass.
    """
    u = uniforms[:size]
    generator.random(out=u)
    idx = indices[:size]
    np.multiply(u, n, out=idx, casting="unsafe")
    return idx


def iter_draw_chunks(seed, n, replicate, chunk):
    """The draws of one replicate in consecutive 1-d chunks of at most ``chunk``.

    Concatenated, the chunks are row ``replicate`` of :func:`replicate_indices`;
    the arrays are reused between iterations.
    """
    seed = check_seed(seed)
    n = _check_n(n)
    generator = _generator_at(seed, int(replicate) * n)
    chunk = max(1, min(int(chunk), n))
    uniforms = np.empty(chunk, dtype=np.float64)
    indices = np.empty(chunk, dtype=np.intp)
    for start in range(0, n, chunk):
        yield _next_draws(generator, uniforms, indices, min(chunk, n - start), n)


def replicate_indices(seed, n, start, stop):
    """Return the item indices of replicates ``start`` to ``stop - 1``.

    Returns
    -------
    numpy.ndarray of shape ``(stop - start, n)``, dtype ``intp``.

    Examples
    --------
    >>> replicate_indices(12345, 5, 0, 2).tolist()
    [[1, 1, 3, 3, 1], [1, 2, 0, 3, 4]]
    """
    seed = check_seed(seed)
    n = _check_n(n)
    out = np.empty((int(stop) - int(start), n), dtype=np.intp)
    for r0, r1, idx in iter_index_blocks(seed, n, start, stop):
        out[r0 - start : r1 - start] = idx
    return out


def counts_from_indices(indices, n, dtype=np.float64):
    """Turn a block of index rows into resample counts.

    Parameters
    ----------
    indices : ndarray of shape ``(R, n_draws)``
        Item indices, one replicate per row.
    n : int
        Number of items.

    Returns
    -------
    ndarray of shape ``(R, n)``: ``counts[r, i]`` is how many times item ``i``
    was drawn in replicate ``r``.  Each row sums to ``n_draws``.
    """
    indices = np.asarray(indices)
    rows = indices.shape[0]
    offsets = np.arange(rows, dtype=np.intp)[:, None] * n
    flat = (indices + offsets).ravel()
    counts = np.bincount(flat, minlength=rows * n).reshape(rows, n)
    if dtype is not None and counts.dtype != dtype:
        counts = counts.astype(dtype)
    return counts


def swap_signs(seed, n, start, stop):
    """Coin flips of the randomization test, as a documented function of the seed.

    Row ``r`` (for ``start <= r < stop``) holds ``n`` flips; flip ``j`` is the
    top bit of output ``SWAP_STREAM_OFFSET + r*n + j`` of ``PCG64(seed)``.
    A 1 means "swap the two systems' outputs for item ``j``".

    Returns
    -------
    ndarray of shape ``(stop - start, n)``, dtype ``bool``.
    """
    seed = check_seed(seed)
    n = _check_n(n)
    rows = int(stop) - int(start)
    bit_generator = np.random.PCG64(seed)
    bit_generator.advance(SWAP_STREAM_OFFSET + int(start) * n)
    raw = bit_generator.random_raw(rows * n)
    return (raw >> np.uint64(63)).astype(bool).reshape(rows, n)
