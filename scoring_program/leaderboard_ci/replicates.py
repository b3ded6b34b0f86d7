"""Run accumulators over bootstrap replicates, in blocks and threads.

The replicates are those of :mod:`leaderboard_ci.resampling`, so the output
depends only on ``(seed, n, replicate numbers)`` and the accumulators: not on
the block size nor on the number of threads (each block is written at its
replicate's position, and every sum is exact).  numpy releases the GIL in the
hot loops (random numbers, gather, counting), so threads scale on the cores
the platform gives the scoring program.
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np

from .accumulators import block_counts_factory
from .resampling import check_n_resamples, check_seed, iter_draw_chunks, iter_index_blocks, rows_per_block

__all__ = ["available_cpus", "resolve_jobs", "compute_replicates", "split_range", "single_threaded_blas",
           "keep_freed_memory", "DRAW_CHUNK"]

#: Draws per chunk when one replicate is processed in pieces (large n).  Each
#: chunk costs about a dozen numpy calls; with 32K draws two threads contended
#: for the GIL between them (1.3x on 2 cores), with 128K they scale 1.8-1.9x
#: and one thread is also 10 % faster (benchmarks/README.md).  Counts are
#: integers, so the chunk size never changes a result.
DRAW_CHUNK = 1 << 17


def keep_freed_memory():
    """Ask glibc to keep freed memory for reuse instead of returning it at once.

    Each block of replicates allocates and frees arrays of about 1 MiB (e.g.
    the count matrix); with glibc's default thresholds they are returned to the
    operating system and page-faulted back on the next block, which measured
    as most of the time for small test sets in a fresh process.  A higher trim
    threshold and mmap threshold keep them; peak memory is unchanged (only
    memory that was in use at once is kept).  Process-wide, so only the entry
    points (score.py, the end-of-phase command) call it; a no-op off glibc.
    Returns True if the setting was applied.
    """
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3
    return bool(mallopt(m_trim_threshold, 256 << 20)) and bool(mallopt(m_mmap_threshold, 32 << 20))


@contextmanager
def single_threaded_blas():
    """Keep BLAS on one thread while our own threads split the replicates.

    The matrix products here are skinny (a block of count rows times a few
    columns); a multithreaded BLAS makes them about 8 times slower (measured
    with OpenBLAS) and oversubscribes the cores our threads already use.
    threadpoolctl does it when installed; the scoring program instead sets
    ``OPENBLAS_NUM_THREADS=1`` before importing numpy (see score.py).
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def available_cpus():
    """CPUs this process may run on (affinity where the OS tells it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def resolve_jobs(n_jobs):
    """``None``/``"auto"``/``-1`` -> available CPUs (at most 8); else the int given."""
    if n_jobs is None or n_jobs == "auto" or n_jobs == -1:
        return min(available_cpus(), 8)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
        raise ValueError("n_jobs must be a positive integer, -1 or 'auto', got %r" % (n_jobs,))
    return n_jobs


def split_range(start, stop, parts):
    """Split ``[start, stop)`` into at most ``parts`` contiguous, nearly equal ranges."""
    total = stop - start
    parts = max(1, min(parts, total))
    bounds = [start + (total * i) // parts for i in range(parts + 1)]
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def compute_replicates(accumulators, n, seed, n_resamples, n_jobs=1, start=0,
                       block_rows=None, progress=None):
    """Statistics of every accumulator on replicates ``start .. start+n_resamples-1``.

    Parameters
    ----------
    accumulators : sequence
        Objects with the accumulator interface (see
        :mod:`leaderboard_ci.accumulators`).
    n : int
        Number of items.
    seed : int
    n_resamples : int
    n_jobs : int or "auto"
        Threads to use.  Results are identical for any value.
    start : int
        First replicate number (to compute a slice of the replicates).
    block_rows : int, optional
        Replicates per block (memory only; never changes results).
    progress : callable, optional
        Called with the number of replicates just finished (thread-safe).

    Returns
    -------
    list of ndarray, one ``(n_resamples, n_features)`` array per accumulator.
    """
    seed = check_seed(seed)
    n_resamples = check_n_resamples(n_resamples)
    jobs = resolve_jobs(n_jobs)
    stop = start + n_resamples
    outputs = [np.empty((n_resamples, acc.n_features), dtype=acc.dtype) for acc in accumulators]
    if block_rows is None:
        block_rows = rows_per_block(n)
    lock = threading.Lock()

    # Large n, one replicate per block, additive statistics only: count each
    # replicate in cache-sized chunks of draws (identical sums, less memory traffic).
    chunked = block_rows == 1 and all(hasattr(acc, "partial") for acc in accumulators)

    def work_chunked(span):
        for r in range(span[0], span[1]):
            sums = [np.zeros(acc.n_features, dtype=acc.dtype) for acc in accumulators]
            for indices in iter_draw_chunks(seed, n, r, DRAW_CHUNK):
                for total, acc in zip(sums, accumulators):
                    total += acc.partial(indices)
            for out, total in zip(outputs, sums):
                out[r - start] = total
            if progress is not None:
                with lock:
                    progress(1)

    def work(span):
        if chunked:
            return work_chunked(span)
        for r0, r1, indices in iter_index_blocks(seed, n, span[0], span[1], block_rows):
            counts = block_counts_factory(indices, n)
            for acc, out in zip(accumulators, outputs):
                out[r0 - start:r1 - start] = acc.block(indices, counts)
            if progress is not None:
                with lock:
                    progress(r1 - r0)

    # A few more spans than threads, so an uneven span does not idle a core.
    spans = split_range(start, stop, jobs * 4 if jobs > 1 else 1)
    with single_threaded_blas():
        if jobs == 1:
            for span in spans:
                work(span)
        else:
            with ThreadPoolExecutor(max_workers=jobs) as pool:
                for _ in pool.map(work, spans):
                    pass
    return outputs
