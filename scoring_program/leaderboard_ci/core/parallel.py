"""Threads over spans of work, and the process settings that make them fast.

numpy releases the GIL in the hot loops (random numbers, gathers, counting,
matrix products), so plain threads scale over the cores the platform gives.
Every caller writes each span's result at its own position, so the number of
threads never changes a result.
"""

from __future__ import annotations

import numbers
import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

__all__ = [
    "available_cpus",
    "check_jobs",
    "resolve_jobs",
    "split_range",
    "run_spans",
    "single_threaded_blas",
    "keep_freed_memory",
    "MAX_JOBS",
]

#: The largest thread count accepted.
MAX_JOBS = 256


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


def check_jobs(n_jobs):
    """``n_jobs`` as given if valid: ``"auto"``, None, -1 or an integer from 1 to MAX_JOBS.

    The one check of a thread count; the configuration and the command line
    call it too, so all say the same.

    Raises
    ------
    ValueError
        Saying what was given.
    """
    if n_jobs is None or n_jobs == "auto" or (n_jobs == -1 and not isinstance(n_jobs, bool)):
        return n_jobs
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or not 1 <= n_jobs <= MAX_JOBS:
        raise ValueError("n_jobs must be 'auto' or an integer from 1 to %d, got %r" % (MAX_JOBS, n_jobs))
    return int(n_jobs)


def resolve_jobs(n_jobs):
    """``None``/``"auto"``/``-1`` -> available CPUs (at most 8); else the int given (checked)."""
    n_jobs = check_jobs(n_jobs)
    if n_jobs is None or n_jobs == "auto" or n_jobs == -1:
        return min(available_cpus(), 8)
    return n_jobs


def split_range(start, stop, parts):
    """Split ``[start, stop)`` into at most ``parts`` contiguous, nearly equal ranges."""
    total = stop - start
    parts = max(1, min(parts, total))
    bounds = [start + (total * i) // parts for i in range(parts + 1)]
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def run_spans(work, spans, jobs):
    """Call ``work(span)`` for every span, on ``jobs`` threads, with BLAS on one thread.

    A worker's exception is re-raised here.
    """
    spans = list(spans)
    with single_threaded_blas():
        if jobs <= 1 or len(spans) <= 1:
            for span in spans:
                work(span)
        else:
            with ThreadPoolExecutor(max_workers=min(jobs, len(spans))) as pool:
                list(pool.map(work, spans))
