"""Run accumulators over bootstrap replicates, in blocks and threads.

The replicates are those of :mod:`leaderboard_ci.core.resampling`, so the output
depends only on ``(seed, n, replicate numbers)`` and the accumulators: not on
the block size nor on the number of threads (each block is written at its
replicate's position, and every sum is exact).  numpy releases the GIL in the
hot loops (random numbers, gather, counting), so threads scale on the cores
the platform gives the scoring program.  The scoring program can also start
drawing the first replicates' counts while it still reads the submission
(:class:`DrawAhead`): the same counts, scored first.
"""

from __future__ import annotations

import functools
import threading

import numpy as np

from .accumulators import block_counts_factory, for_resampling
from .parallel import resolve_jobs, run_spans, split_range
from .resampling import check_n_resamples, check_seed, iter_draw_chunks, iter_index_blocks, rows_per_block

__all__ = ["compute_replicates", "expand_replicates", "draw_ahead", "DrawAhead", "DRAW_CHUNK", "AHEAD_BYTES"]

#: Draws per chunk when one replicate is processed in pieces (large n).  Each
#: chunk costs about a dozen numpy calls; with 32K draws two threads contended
#: for the GIL between them (1.3x on 2 cores), with 128K they scale 1.8-1.9x
#: and one thread is also 10 % faster (benchmarks/README.md).  Counts are
#: integers, so the chunk size never changes a result.
DRAW_CHUNK = 1 << 17
#: Replicates whose count rows are summed together when ``n`` is large (one replicate per block) and an
#: exact linear accumulator (:class:`~leaderboard_ci.core.accumulators.ExactSums`, ...) needs whole count
#: rows: its matrix product then reads its ``(n, F)`` parts once per 16 replicates, not once per
#: replicate (at 10**6 items and 14 parts, 8.2 -> 3.2 ns a draw in the py37 image).  The rows are kept
#: as one byte an item (16 MiB at 10**6 items); the sums are exact integers, so nothing changes a result.
COUNT_ROWS = 16
#: Items per matrix product of :func:`_linear_rows` (its float64 count slice and parts stay in cache).
ITEM_CHUNK = 1 << 14
#: The most memory a block's index and count matrices may take when an accumulator asks for more rows
#: (``min_block_rows``): 16 bytes per item and replicate.
BLOCK_BYTES = 32 << 20
#: The most memory the count rows drawn ahead (:class:`DrawAhead`) may take: one byte per item and replicate
#: (at 10**4 items, 10,066 replicates: one core draws ~15,000 a second, the set-up they overlap lasts ~0.6 s).
AHEAD_BYTES = 96 << 20


def compute_replicates(
    accumulators, n, seed, n_resamples, n_jobs=1, start=0, block_rows=None, progress=None, resampling=None, ahead=None
):
    """Statistics of every accumulator on replicates ``start .. start+n_resamples-1``.

    Parameters
    ----------
    accumulators : sequence
        Objects with the accumulator interface (see
        :mod:`leaderboard_ci.core.accumulators`).
    n : int
        Number of items.
    seed : int
    n_resamples : int
    n_jobs : int or "auto"
        Threads to use.  Results are identical for any value.
    start : int
        First replicate number (to compute a slice of the replicates).
    block_rows : int, optional
        Replicates per block (memory only; never changes results).  By default about 2**17 draws,
        or more when an accumulator's ``min_block_rows`` asks for it (its work per block is a
        matrix product that is faster on more rows), within :data:`BLOCK_BYTES`.
    progress : callable, optional
        Called with the number of replicates just finished (thread-safe).
    resampling : Resampling, optional
        Clusters and strata (:class:`~leaderboard_ci.core.resampling.Resampling`);
        None (or a trivial one) is the item bootstrap.
    ahead : DrawAhead, optional
        The first replicates' counts, drawn while the caller set up (:func:`draw_ahead`); stopped here.
        Used when it matches ``(n, seed, start)``, the item bootstrap and accumulators that read only the
        counts (``counts_only``); the results are the same bytes either way.

    Returns
    -------
    list of ndarray, one ``(n_resamples, n_features)`` array per accumulator.
    """
    seed = check_seed(seed)
    n_resamples = check_n_resamples(n_resamples)
    jobs = resolve_jobs(n_jobs)
    outputs = [np.empty((n_resamples, acc.n_features), dtype=acc.dtype) for acc in accumulators]
    if block_rows is None:
        block_rows = _default_block_rows(accumulators, n)
    progress = _locked(progress)
    work = _span_work(accumulators, outputs, n, seed, start, block_rows, progress, resampling)
    rows, wide = _drawn_ahead(ahead, accumulators, n, seed, start, block_rows, resampling)
    drawn = min(len(rows), n_resamples)
    spans = split_range(start + drawn, start + n_resamples, jobs * 4 if jobs > 1 else 1)
    if drawn:  # the rows drawn ahead first, one span a thread, then the rest as usual
        ready = functools.partial(_ready_span, accumulators, outputs, rows, wide, start, block_rows, progress)
        spans = split_range(start, start + drawn, jobs) + spans
        work = functools.partial(_either_span, ready, work, start + drawn)
    run_spans(work, spans, jobs)
    return outputs


def _drawn_ahead(ahead, accumulators, n, seed, start, block_rows, resampling):
    """``(rows, wide)`` of :meth:`DrawAhead.take` when they serve this call, else no rows (``ahead`` stopped)."""
    if ahead is None:
        return (), {}
    usable = (
        (ahead.n, ahead.seed, ahead.start) == (n, seed, start)
        and (resampling is None or resampling.trivial)
        and block_rows > 1
        and all(getattr(acc, "counts_only", False) for acc in accumulators)
    )
    if not usable:
        ahead.stop()
        return (), {}
    return ahead.take()


def _either_span(ready, work, drawn_stop, span):
    return (ready if span[0] < drawn_stop else work)(span)


def _ready_span(accumulators, outputs, rows, wide, start, block_rows, progress, span):
    """Blocks of ``span`` from the count rows drawn ahead (``rows[k]`` is replicate ``start + k``)."""
    for r0 in range(span[0], span[1], block_rows):
        r1 = min(r0 + block_rows, span[1])
        counts = np.empty((r1 - r0, rows.shape[1]), dtype=np.float64)
        np.copyto(counts, rows[r0 - start : r1 - start], casting="unsafe")
        for r in range(r0, r1):
            if r - start in wide:
                counts[r - r0] = wide[r - start]
        for acc, out in zip(accumulators, outputs):
            out[r0 - start : r1 - start] = acc.block(None, functools.partial(np.asarray, counts))
        if progress is not None:
            progress(r1 - r0)


def draw_ahead(n, seed, n_resamples, n_jobs, resampling=None):
    """A started :class:`DrawAhead` when a second thread can draw and its rows can serve, else None.

    Not for one thread, clusters or strata, nor ``n`` above ``BLOCK_BYTES / 32`` (2**20) items, whose
    replicates are scored one a block (:func:`_span_work`), never from the rows drawn ahead.
    """
    if resolve_jobs(n_jobs) <= 1 or (resampling is not None and not resampling.trivial):
        return None
    if rows_per_block(n) < 2 and BLOCK_BYTES // (16 * n) < 2:  # one replicate a block: counted apart, not in rows
        return None
    return DrawAhead(n, seed, n_resamples)


class DrawAhead(object):
    """The first replicates' resample counts, drawn in a thread while the caller still sets up.

    The scoring program knows ``n`` once the gold is read; reading the submission and building the
    accumulators then takes about a second of one core.  This thread meanwhile draws replicates
    ``start, start + 1, ...`` (:func:`~leaderboard_ci.core.resampling.iter_index_blocks`) and keeps each
    one's counts as one byte an item (a count above 255 kept whole in ``wide``), at most
    :data:`AHEAD_BYTES`.  :func:`compute_replicates` takes them (:meth:`take`) and scores them first:
    the same counts, so the same bytes.  The thread is a daemon and checks :meth:`stop` between
    chunks of draws; an exception in it is raised again by :meth:`take`.
    """

    def __init__(self, n, seed, n_resamples, start=0):
        self.n, self.seed, self.start = int(n), check_seed(seed), int(start)
        rows = min(check_n_resamples(n_resamples), max(1, AHEAD_BYTES // max(1, self.n)))
        self._rows = np.empty((rows, self.n), dtype=np.uint8)
        self._wide = {}
        self._done = 0
        self._error = None
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._draw, name="leaderboard-ci draws ahead")
        self._thread.daemon = True
        self._thread.start()

    def _draw(self):
        try:
            stop = self.start + len(self._rows)
            for r0, r1, indices in iter_index_blocks(self.seed, self.n, self.start, stop):
                if self._stopped.is_set():
                    return
                for k, drawn in enumerate(indices, r0 - self.start):
                    counts = np.bincount(drawn, minlength=self.n)
                    if counts.max() > 255:  # more draws of one item than a byte holds: kept whole
                        self._wide[k] = counts
                    np.copyto(self._rows[k], counts, casting="unsafe")
                self._done = r1 - self.start
        except BaseException as exc:  # raised again by take()
            self._error = exc

    def stop(self):
        """Stop drawing (returns once the thread has ended: at most one chunk of draws)."""
        self._stopped.set()
        self._thread.join()

    def take(self):
        """Stop drawing; ``(rows, wide)``: ``rows[k]`` the counts of replicate ``start + k`` (uint8), ``wide``
        the rows (by ``k``) whose counts exceed a byte."""
        self.stop()
        if self._error is not None:
            raise self._error
        done = self._done
        return self._rows[:done], dict((k, c) for k, c in self._wide.items() if k < done)


def _default_block_rows(accumulators, n):
    """About 2**17 draws per block, or more when an accumulator's ``min_block_rows`` asks (within BLOCK_BYTES)."""
    block_rows = rows_per_block(n)
    wanted = max([getattr(acc, "min_block_rows", 1) for acc in accumulators] or [1])
    if wanted > block_rows:
        block_rows = max(block_rows, min(wanted, BLOCK_BYTES // (16 * max(1, n))))
    return block_rows


def _locked(progress):
    """``progress`` called under a lock (threads finish spans concurrently), or None."""
    if progress is None:
        return None
    lock = threading.Lock()

    def report(count):
        with lock:
            progress(count)

    return report


def _span_work(accumulators, outputs, n, seed, start, block_rows, progress, resampling):
    """The function that fills ``outputs`` for one span ``(first, stop)`` of replicate numbers.

    Four ways, with identical results: the design's blocks (clusters, strata); large ``n``
    with one replicate per block and additive statistics only, where each replicate is
    counted in cache-sized chunks of draws (identical sums, less memory traffic); large ``n``
    with exact linear statistics too, whose count rows are taken :data:`COUNT_ROWS` replicates
    at a time (:func:`_counted_span`); else blocks of item indices with their counts.
    """
    if resampling is not None and not resampling.trivial:
        if resampling.n_items != n:
            raise ValueError("the resampling has %d items, the test set %d" % (resampling.n_items, n))
        designed = for_resampling(accumulators, resampling)
        return functools.partial(_designed_span, designed, outputs, resampling, seed, start, block_rows, progress)
    if block_rows == 1 and all(hasattr(acc, "partial") for acc in accumulators):
        return functools.partial(_chunked_span, accumulators, outputs, n, seed, start, progress)
    if block_rows == 1 and all(hasattr(acc, "partial") or hasattr(acc, "linear_matrix") for acc in accumulators):
        return functools.partial(_counted_span, accumulators, outputs, n, seed, start, progress)
    return functools.partial(_blocked_span, accumulators, outputs, n, seed, start, block_rows, progress)


def _designed_span(designed, outputs, resampling, seed, start, block_rows, progress, span):
    for r0, r1, indices, counts in resampling.iter_blocks(seed, span[0], span[1], block_rows):
        for acc, out in zip(designed, outputs):
            out[r0 - start : r1 - start] = acc.block(indices, counts)
        if progress is not None:
            progress(r1 - r0)


def _chunked_span(accumulators, outputs, n, seed, start, progress, span):
    for r in range(span[0], span[1]):
        sums = [np.zeros(acc.n_features, dtype=acc.dtype) for acc in accumulators]
        for indices in iter_draw_chunks(seed, n, r, DRAW_CHUNK):
            for total, acc in zip(sums, accumulators):
                total += acc.partial(indices)
        for out, total in zip(outputs, sums):
            out[r - start] = total
        if progress is not None:
            progress(1)


def _counted_span(accumulators, outputs, n, seed, start, progress, span):
    """Large ``n``: additive accumulators count each replicate in chunks of draws; linear ones get the
    count rows of :data:`COUNT_ROWS` replicates at once (:func:`_linear_rows`)."""
    chunked = [k for k, acc in enumerate(accumulators) if hasattr(acc, "partial")]
    linear = [k for k, acc in enumerate(accumulators) if not hasattr(acc, "partial")]
    matrices = [accumulators[k].linear_matrix(np.float64) for k in linear]
    rows = min(COUNT_ROWS, span[1] - span[0])
    small = np.empty((rows, n), dtype=np.uint8)
    drawn = np.empty(n, dtype=np.intp)
    for r0 in range(span[0], span[1], rows):
        r1 = min(r0 + rows, span[1])
        wide = {}
        for r in range(r0, r1):
            sums = [np.zeros(accumulators[k].n_features, dtype=accumulators[k].dtype) for k in chunked]
            for indices in iter_draw_chunks(seed, n, r, DRAW_CHUNK, out=drawn):
                for total, k in zip(sums, chunked):
                    total += accumulators[k].partial(indices)
            for total, k in zip(sums, chunked):
                outputs[k][r - start] = total
            if linear:
                counts = np.bincount(drawn, minlength=n)
                if counts.max() > 255:  # more draws of one item than a byte holds: kept whole
                    wide[r - r0] = counts
                np.copyto(small[r - r0], counts, casting="unsafe")
        for k, matrix in zip(linear, matrices):
            sums = _linear_rows(small[: r1 - r0], wide, matrix)
            outputs[k][r0 - start : r1 - start] = accumulators[k].from_linear(sums)
        if progress is not None:
            progress(r1 - r0)


def _linear_rows(small, wide, matrix):
    """``counts @ matrix`` for byte-sized count rows ``small`` (rows listed in ``wide`` taken whole from it).

    Summed over slices of :data:`ITEM_CHUNK` items; every partial sum of the linear accumulators'
    integer-valued matrices is an integer below 2**52, so the slices change no bit of the result.
    """
    rows, n = small.shape
    buffer = np.empty((rows, min(ITEM_CHUNK, n)), dtype=np.float64)
    total = np.zeros((rows, matrix.shape[1]), dtype=np.float64)
    for a in range(0, n, ITEM_CHUNK):
        b = min(n, a + ITEM_CHUNK)
        part = buffer[:, : b - a]
        np.copyto(part, small[:, a:b], casting="unsafe")
        for row, counts in wide.items():
            part[row] = counts[a:b]
        total += np.dot(part, matrix[a:b])
    return total


def _blocked_span(accumulators, outputs, n, seed, start, block_rows, progress, span):
    for r0, r1, indices in iter_index_blocks(seed, n, span[0], span[1], block_rows):
        counts = block_counts_factory(indices, n)
        for acc, out in zip(accumulators, outputs):
            out[r0 - start : r1 - start] = acc.block(indices, counts)
        if progress is not None:
            progress(r1 - r0)


def expand_replicates(replicates, full, factor, best=None, sign=None):
    """The small-cluster correction: ``full + factor * (replicates - full)``, kept within each metric's best.

    Parameters
    ----------
    replicates : ndarray ``(B, ..., T)``
        Replicate scores, targets last.
    full : ndarray ``(..., T)``
        Full-sample scores (broadcast against each replicate).
    factor : float
        :meth:`~leaderboard_ci.core.resampling.Resampling.expansion`; 1 returns ``replicates``.
    best, sign : ndarray ``(T,)``, optional
        Each target's best value (NaN: unbounded) and direction (+1: higher is better): an
        expanded replicate never passes the best value (an accuracy never exceeds 1, an
        error never falls below 0).

    Returns
    -------
    ndarray of the replicates' shape (a new array unless ``factor`` is 1).

    Notes
    -----
    Every statistic downstream follows: a percentile end becomes ``full + factor * (Q -
    full)``, a paired difference's replicates ``delta + factor * (d* - delta)`` (linear), its
    p-values invert those intervals, and the max-t statistics are divided by ``factor``.
    NaN replicates (an empty group) stay NaN.
    """
    if factor == 1.0:
        return replicates
    out = full + float(factor) * (np.asarray(replicates, dtype=np.float64) - full)
    if best is not None:
        best = np.asarray(best, dtype=np.float64)
        higher = np.asarray(sign, dtype=np.float64) > 0
        cap = np.where(np.isfinite(best) & higher, best, np.inf)
        floor = np.where(np.isfinite(best) & ~higher, best, -np.inf)
        with np.errstate(invalid="ignore"):
            out = np.where(np.isnan(out), np.nan, np.minimum(np.maximum(out, floor), cap))
    return out
