"""Replicate scores of many systems on the same resamples: the paired engine.

Each system gets the same :class:`~leaderboard_ci.scorer.SystemScorer` as
in the per-submission program, so every number equals the leaderboard's.
What changes is how the statistics are summed: the *linear* accumulators of
all systems (class counts and exact fixed-point sums) are stacked into one
matrix ``X`` and a block of replicates costs one matrix product
``counts @ X``.  Every entry of ``counts @ X`` is an integer-valued sum below
2**24 (float32) or 2**52 (float64), hence exact whatever BLAS does, so the
stacked result equals the per-system one bit for bit.

The unit of work is a span of replicate numbers (:meth:`PairedPlan.scores_for_span`);
it depends only on (seed, span), so spans can run in threads, processes or
on Dask workers and give identical results.
"""
from __future__ import annotations

import hashlib
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

from .accumulators import jackknife
from .replicates import resolve_jobs, single_threaded_blas, split_range
from .resampling import check_n_resamples, check_seed, counts_from_indices, iter_index_blocks
from .scorer import SystemScorer

__all__ = ["PairedPlan", "SystemScores", "score_systems"]

_EXACT_FLOAT32_LIMIT = 2 ** 24


@dataclass(frozen=True)
class SystemScores:
    """Scores of ``m`` systems on every target, full sample and replicates.

    Attributes
    ----------
    names : tuple of str
    targets : tuple of Target
    full : ndarray ``(m, T)``
    replicates : ndarray ``(B, m, T)``; NaN where a group is empty in a replicate
    jackknife : list of ``(scores (J_j, T), weights (J_j,), inverse (n,))`` per
        system, or None (computed for BCa only)
    """

    names: Tuple[str, ...]
    targets: tuple
    full: np.ndarray
    replicates: np.ndarray
    jackknife: Optional[list] = None

    def jackknife_matrix(self, t):
        """Per-item leave-one-out scores of target ``t``, shape ``(n, m)``."""
        if self.jackknife is None:
            raise ValueError("jackknife values were not computed (method is not bca)")
        return np.stack([scores[inverse, t] for scores, _, inverse in self.jackknife], axis=1)


class _Stack:
    """Linear accumulators of all systems stacked into one matrix."""

    def __init__(self, accumulators, n, dtype):
        self.dtype = dtype
        self.members = []  # (accumulator, column offset, width)
        columns = []
        seen = {}
        width = 0
        for acc in accumulators:
            matrix = acc.linear_matrix(dtype)
            digest = hashlib.sha1(np.ascontiguousarray(matrix).view(np.uint8)).hexdigest()
            key = (digest, matrix.shape)
            if key in seen:  # e.g. the gold counts, identical for every system
                self.members.append((acc,) + seen[key])
                continue
            seen[key] = (width, matrix.shape[1])
            self.members.append((acc, width, matrix.shape[1]))
            columns.append(matrix.astype(dtype, copy=False))
            width += matrix.shape[1]
        self.matrix = np.ascontiguousarray(np.concatenate(columns, axis=1)) if columns else None

    def __bool__(self):
        return self.matrix is not None

    def outputs(self, counts):
        sums = counts.astype(self.dtype, copy=False) @ self.matrix
        return {id(acc): acc.from_linear(sums[:, start:start + width]) for acc, start, width in self.members}


class PairedPlan:
    """Everything needed to score ``m`` systems on any span of replicates.

    Parameters
    ----------
    config : Config
    gold : GoldStandard
    predictions : sequence of arrays
        One aligned prediction array per system.
    names : sequence of str
    """

    def __init__(self, config, gold, predictions, names):
        if len(predictions) != len(names):
            raise ValueError("one name per system is needed")
        if not len(predictions):
            raise ValueError("no systems to score")
        self.config = config
        self.gold = gold
        self.names = tuple(names)
        self.predictions = [np.asarray(p) for p in predictions]
        self.n = gold.n
        self.scorers = [SystemScorer(config, gold, p, layout="reduced") for p in predictions]
        self.targets = self.scorers[0].targets
        linear = [acc for s in self.scorers for acc in s.accumulators if hasattr(acc, "linear_matrix")]
        counts_dtype = np.float32 if self.n < _EXACT_FLOAT32_LIMIT else np.float64
        self._stacks = [st for st in (
            _Stack([a for a in linear if a.dtype == np.int64], self.n, counts_dtype),
            _Stack([a for a in linear if a.dtype != np.int64], self.n, np.float64)) if st]
        self._stacked = set(id(acc) for st in self._stacks for acc, _, _ in st.members)

    @property
    def m(self):
        return len(self.scorers)

    def rows_per_block(self):
        """Replicates per block: a count matrix of about 4 MB, at least 8 rows."""
        return max(8, (1 << 20) // self.n)

    def full_scores(self):
        """``(m, T)`` full-sample scores."""
        return np.stack([s.scores([a.full()[None, :] for a in s.accumulators])[0] for s in self.scorers])

    def _block_scores(self, indices, out):
        counts = counts_from_indices(indices, self.n, dtype=np.float64)
        linear = {}
        for stack in self._stacks:
            linear.update(stack.outputs(counts))
        for j, scorer in enumerate(self.scorers):
            stats = [linear[id(acc)] if id(acc) in self._stacked else acc.block(indices, lambda: counts)
                     for acc in scorer.accumulators]
            out[:, j, :] = scorer.scores(stats)

    def scores_for_span(self, start, stop, progress=None, block_rows=None):
        """Scores of every system on replicates ``start .. stop-1``: ``(stop-start, m, T)``."""
        seed = self.config.bootstrap.seed
        out = np.empty((stop - start, self.m, len(self.targets)))
        rows = block_rows or self.rows_per_block()
        for r0, r1, indices in iter_index_blocks(seed, self.n, start, stop, rows):
            self._block_scores(indices, out[r0 - start:r1 - start])
            if progress is not None:
                progress(r1 - r0)
        return out

    def jackknife(self):
        """Each system's own jackknife: ``[(scores, weights, inverse)]``.

        The same values as the per-submission program computes for BCa.
        """
        out = []
        for scorer in self.scorers:
            stats, weights, inverse = jackknife(scorer.accumulators, self.n)
            out.append((scorer.scores(stats), weights, inverse))
        return out


def score_systems(config, gold, predictions, names, n_jobs=1, progress=None, executor=None):
    """Full-sample and replicate scores of every system on shared resamples.

    Parameters
    ----------
    config, gold : Config, GoldStandard
    predictions : sequence of arrays (one per system, aligned with the gold)
    names : sequence of str
    n_jobs : int or "auto"
        Threads (each takes spans of replicates).  Identical results for any value.
    progress : callable, optional
        Called with the number of replicates finished.
    executor : callable, optional
        ``executor(plan, spans) -> list of arrays``, one ``(b - a, m, T)`` array
        per span ``(a, b)`` in order: runs the spans elsewhere (e.g. on Dask;
        see :mod:`leaderboard_ci.distributed`).

    Returns
    -------
    SystemScores
    """
    bs = config.bootstrap
    check_seed(bs.seed)
    b = check_n_resamples(bs.n_resamples)
    plan = PairedPlan(config, gold, predictions, names)
    full = plan.full_scores()
    jobs = resolve_jobs(n_jobs)
    if executor is not None:
        spans = split_range(0, b, max(1, -(-b // plan.rows_per_block())))
        parts = executor(plan, spans)
        replicates = np.concatenate(parts, axis=0)
    else:
        replicates = np.empty((b, plan.m, len(plan.targets)))
        lock = threading.Lock()

        def report(k):
            if progress is not None:
                with lock:
                    progress(k)

        def work(span):
            replicates[span[0]:span[1]] = plan.scores_for_span(span[0], span[1], progress=report)

        spans = split_range(0, b, jobs * 4 if jobs > 1 else 1)
        with single_threaded_blas():
            if jobs == 1:
                for span in spans:
                    work(span)
            else:
                with ThreadPoolExecutor(max_workers=jobs) as pool:
                    list(pool.map(work, spans))
    jack = plan.jackknife() if bs.method == "bca" else None
    return SystemScores(plan.names, plan.targets, full, replicates, jack)
