"""Replicate scores of many systems on the same resamples: the paired engine.

Each system is scored by a *scorer* (in practice a
:class:`~leaderboard_ci.tasks.shared.scorer.SystemScorer`, the same as in the
per-submission program, so every number equals the leaderboard's).  A scorer
here is any object with ``accumulators`` (see :mod:`.accumulators`),
``targets`` and ``scores(stats) -> (N, T)``.
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
from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

from .accumulators import CodeCounts, cluster_jackknife, for_resampling, jackknife
from .parallel import resolve_jobs, run_spans, split_range
from .replicates import expand_replicates
from .resampling import check_n_resamples, check_seed, counts_from_indices, iter_index_blocks

__all__ = ["PairedPlan", "SharedCounts", "SystemScores", "paired_scores"]

_EXACT_FLOAT32_LIMIT = 2**24


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


def _shared_stride(codes, n_codes):
    """The smallest ``s`` dividing ``n_codes`` with ``codes // s`` the same array for every system.

    ``n_codes`` when no smaller one is shared (then every code array is its own part of one).
    """
    for s in range(1, n_codes):
        if n_codes % s == 0:
            part = codes[0] // s
            if all(np.array_equal(c // s, part) for c in codes[1:]):
                return s
    return n_codes


def _digest(codes, n_codes):
    """A digest of an array of codes in ``[0, n_codes)``, from its narrowest integer type (fewer bytes to hash)."""
    small = np.uint8 if n_codes <= 256 else (np.uint16 if n_codes <= 65536 else np.int64)
    return hashlib.sha1(np.ascontiguousarray(codes, dtype=small).view(np.uint8)).hexdigest() + str(codes.shape)


def _values_per_part(codes, part, n_parts, step, width):
    """``(n_parts, width)`` bool: which codes ``part * step + v`` some system has on some item of each part."""
    used = np.zeros(n_parts * width, dtype=bool)
    base = part * (width - step)  # = part * width - part * step
    for c in codes:
        used[base + c] = True
    return used.reshape(n_parts, width)


#: Partitions of a code group whose table of values (parts x codes) would exceed this are not tried.
_MAX_PART_TABLE = 1 << 22


class _CodeGroup:
    """The :class:`~.accumulators.CodeCounts` of many systems with the same number of codes, summed part by part.

    The items are split into parts shared by every system (a *partition*), and within
    part ``j`` each system's code is one of the few values ``V_j`` that any system has
    there.  The count of a value ``v`` of ``V_j`` on part ``j`` is a product column
    (a one-hot column of the part's items) for every value but the first, and the
    part's total count minus the others for the first; a system's count of ``v`` is the
    sum over the parts.  The partition is the one with the fewest product entries,
    ``sum_j n_j (|V_j| - 1)``, among: the parts ``codes // s`` when every system shares
    them (a confusion matrix's ``gold * K + predicted``: ``s = K``, the gold class), the
    codes of another accumulator of the stack that every system shares (the gold
    counts: the reduced layout's ``K * correct + predicted`` takes ``K`` values on the
    items of one gold class), and all items as one part.  A confusion matrix, or the
    reduced layout's predicted counts, of ``K`` classes then costs ``K - 1`` product
    columns per system instead of ``K**2`` (or ``2K - 1``).  Every sum is an integer
    below the exactness limit of ``dtype`` (:class:`PairedPlan`), so the counts equal
    ``counts @ one_hot(codes)`` exactly, whatever the partition.
    """

    def __init__(self, accumulators, dtype, partitions=()):
        self.accumulators = accumulators
        n_codes = self.n_codes = accumulators[0].n_codes
        codes = [a.codes for a in accumulators]
        s = _shared_stride(codes, n_codes)
        # (part of each item, parts, step): a code of part j is j * step + v, v < width = n_codes - (n_parts - 1) * step
        candidates = [(codes[0] // s, n_codes // s, s)] + [
            (p, n, 0) for p, n in partitions if p.shape == codes[0].shape and n * n_codes <= _MAX_PART_TABLE
        ]
        best = None
        for part, n_parts, step in candidates:
            width = s if step else n_codes
            used = _values_per_part(codes, part, n_parts, step, width)
            sizes = np.bincount(part, minlength=n_parts)
            cost = int(np.dot(sizes, np.maximum(used.sum(axis=1) - 1, 0)))
            if best is None or cost < best[0]:
                best = (cost, part, n_parts, step, used)
        _, part, n_parts, step, used = best
        self.key = _digest(part, n_parts)  # groups with the same partition share the ordered counts
        self.order = np.argsort(part, kind="stable")
        bounds = np.searchsorted(part[self.order], np.arange(n_parts + 1))
        self.parts = []  # (first, stop, values V_j, one-hot matrix of V_j[1:] or None)
        ordered = None
        for j in range(n_parts):
            first, stop = int(bounds[j]), int(bounds[j + 1])
            if first == stop:
                continue
            values = np.flatnonzero(used[j]) + j * step
            matrix = None
            if values.size > 1:
                if ordered is None:  # every system's codes, items in part order: (n, systems)
                    ordered = np.stack(codes, axis=1)[self.order]
                matrix = np.empty((stop - first, len(codes), values.size - 1), dtype=dtype)
                np.equal(ordered[first:stop, :, None], values[1:], out=matrix)  # one-hot, written as 0.0 and 1.0
                matrix = matrix.reshape(stop - first, -1)
            self.parts.append((first, stop, values, matrix))

    def outputs(self, counts, ordered=None):
        """``(R, systems, n_codes)`` int64: the code counts of every system in every replicate of ``counts``.

        ``ordered`` is ``counts`` with its items in this group's order (``counts[:, order]``), if known.
        """
        rows = counts.shape[0]
        if ordered is None:
            ordered = np.take(counts, self.order, axis=1)
        out = np.zeros((rows, len(self.accumulators), self.n_codes), dtype=np.int64)
        for first, stop, values, matrix in self.parts:
            block = ordered[:, first:stop]
            total = np.rint(block.sum(axis=1, dtype=np.float64)).astype(np.int64)[:, None]
            if matrix is None:
                out[:, :, values[0]] += total
                continue
            # exact integers: the cast keeps them
            others = (block @ matrix).astype(np.int64).reshape(rows, -1, values.size - 1)
            out[:, :, values[1:]] += others
            out[:, :, values[0]] += total - others.sum(axis=2)
        out.setflags(write=False)
        return out


class _Stack:
    """Linear accumulators of all systems stacked into one matrix.

    Code counts (:class:`~.accumulators.CodeCounts`) are summed apart, by
    :class:`_CodeGroup`; identical accumulators (e.g. the gold counts, the same
    for every system) are summed once.
    """

    def __init__(self, accumulators, n, dtype):
        self.dtype = dtype
        self.members = []  # (accumulator, column offset, width)
        self.coded = []  # (accumulator, group, index in the group)
        columns = []
        seen = {}
        codes = {}
        width = 0
        for acc in accumulators:
            if type(acc) is CodeCounts:
                key = (acc.n_codes, _digest(acc.codes, acc.n_codes))
                unique = codes.setdefault(acc.n_codes, {})
                self.coded.append((acc, acc.n_codes, unique.setdefault(key, (len(unique), acc))[0]))
                continue
            matrix = acc.linear_matrix(dtype)
            digest = hashlib.sha1(np.ascontiguousarray(matrix).view(np.uint8)).hexdigest()
            key = (digest, matrix.shape)
            if key in seen:
                self.members.append((acc,) + seen[key])
                continue
            seen[key] = (width, matrix.shape[1])
            self.members.append((acc, width, matrix.shape[1]))
            columns.append(matrix.astype(dtype, copy=False))
            width += matrix.shape[1]
        self.matrix = np.ascontiguousarray(np.concatenate(columns, axis=1)) if columns else None
        shared = [
            (acc.codes, n_codes) for n_codes, unique in codes.items() if len(unique) == 1 for _, acc in unique.values()
        ]
        self.groups = {
            n_codes: _CodeGroup([acc for _, acc in sorted(unique.values(), key=lambda v: v[0])], dtype, shared)
            for n_codes, unique in codes.items()
        }

    def __bool__(self):
        return self.matrix is not None or bool(self.coded)

    def ids(self):
        """The ids of the accumulators summed here."""
        return [id(acc) for acc, _, _ in self.members] + [id(acc) for acc, _, _ in self.coded]

    def outputs(self, counts):
        counts = counts.astype(self.dtype, copy=False)
        out = {}
        if self.matrix is not None:
            sums = counts @ self.matrix
            out.update((id(acc), acc.from_linear(sums[:, start : start + width])) for acc, start, width in self.members)
        if self.coded:
            ordered, groups = {}, {}
            for n_codes, group in self.groups.items():
                if group.key not in ordered:
                    ordered[group.key] = np.take(counts, group.order, axis=1)
                groups[n_codes] = group.outputs(counts, ordered[group.key])
            del ordered
            out.update((id(acc), groups[n_codes][:, index]) for acc, n_codes, index in self.coded)
        return out


def _batches(accumulators, stacked):
    """``[(members, batch)]``: non-linear accumulators that share work across systems (``batch_key``, ``batch``).

    Accumulators with equal ``batch_key()`` (e.g. ICM-Soft of every system on
    one gold: the gold's per-replicate moments) are computed together by
    ``batch(members).block(indices, counts)``, which returns each member's
    ``block`` (the same bytes).
    """
    groups = {}
    for acc in accumulators:
        if id(acc) in stacked or not hasattr(acc, "batch_key"):
            continue
        key = acc.batch_key()
        if key is not None:
            groups.setdefault((type(acc).__name__, key), {})[id(acc)] = acc
    out = []
    for members in groups.values():
        if len(members) > 1:
            members = list(members.values())
            out.append((members, members[0].batch(members)))
    return out


#: Systems scored in one call at most (:func:`_scoring_batches`): their stacked rows stay a few MB per statistic.
SCORING_BATCH = 64


def _scoring_batches(scorers):
    """Lists of system indices scored together: equal ``batch_key()`` (not None), at most :data:`SCORING_BATCH`."""
    groups = {}
    alone = []
    for j, scorer in enumerate(scorers):
        key = getattr(scorer, "batch_key", None)
        key = None if key is None else key()
        if key is None:
            alone.append([j])
        else:
            groups.setdefault(key, []).append(j)
    out = [g[i : i + SCORING_BATCH] for g in groups.values() for i in range(0, len(g), SCORING_BATCH)]
    return sorted(out + alone)


class SharedCounts:
    """Count matrices of replicate spans, kept for other plans that draw the same ones.

    The counts of a span depend only on (seed, items, resampling, span), so plans of
    different systems on the same test set can share them: the shake-up's first pass
    scores every participant's runs on the same first replicates, block after block.
    At most ``max_bytes`` are kept (least recently used first out); larger matrices
    are drawn each time.  Shared between threads (a lock guards the table; two threads
    may draw the same span at once, with the same result).
    """

    def __init__(self, max_bytes=128 << 20):
        self.max_bytes = int(max_bytes)
        self._table = {}
        self._lock = threading.Lock()

    def get(self, key, draw):
        """The counts stored under ``key``, or ``draw()`` (stored when it fits)."""
        with self._lock:
            counts = self._table.pop(key, None)
            if counts is not None:
                self._table[key] = counts  # most recent last
                return counts
        counts = draw()
        if counts.nbytes <= self.max_bytes:
            counts.setflags(write=False)
            with self._lock:
                self._table[key] = counts
                while sum(c.nbytes for c in self._table.values()) > self.max_bytes:
                    self._table.pop(next(iter(self._table)))
        return counts

    def clear(self):
        with self._lock:
            self._table.clear()


class PairedPlan:
    """Everything needed to score ``m`` systems on any span of replicates.

    Parameters
    ----------
    scorers : sequence
        One scorer per system, all on the same ``n`` items and targets.
    n : int
        Number of test items (the resampling unit).
    seed : int
        The resamples' seed (:mod:`.resampling`).
    names : sequence of str
    recipe : tuple, optional
        ``(function, args)`` that rebuilds this plan elsewhere (a Dask worker)
        as ``function(*args)``; set by the adapter that built the scorers.
    resampling : Resampling, optional
        Clusters and strata (:class:`~leaderboard_ci.core.resampling.Resampling`);
        None (or a trivial one) is the item bootstrap.
    expansion : float
        The small-cluster correction's factor (:meth:`Resampling.expansion`); every replicate
        score comes out expanded by it around the full-sample score
        (:func:`~leaderboard_ci.core.replicates.expand_replicates`), as the per-submission
        program expands its own.  1: none.
    """

    def __init__(self, scorers, n, seed, names, recipe=None, resampling=None, expansion=1.0):
        scorers = list(scorers)
        if len(scorers) != len(names):
            raise ValueError("one name per system is needed: %d scorers, %d names" % (len(scorers), len(names)))
        if not scorers:
            raise ValueError("no systems to score")
        targets = [len(s.targets) for s in scorers]
        if len(set(targets)) != 1:
            raise ValueError("every scorer must have the same targets, got counts %s" % sorted(set(targets)))
        self.seed = check_seed(seed)
        self.names = tuple(names)
        self.n = int(n)
        self.scorers = scorers
        self.targets = self.scorers[0].targets
        self.recipe = recipe
        self.expansion = float(expansion)
        self._full = None
        #: A :class:`SharedCounts` that keeps the count matrices for other plans on the same resamples, or None.
        self.counts_cache = None
        if resampling is not None and resampling.n_items != self.n:
            raise ValueError("the resampling has %d items, the test set %d" % (resampling.n_items, self.n))
        self.resampling = None if resampling is None or resampling.trivial else resampling
        # The accumulators that sum replicates (rebuilt for a cluster bootstrap's larger totals).
        self._designed = {}
        for s in self.scorers:
            for acc, designed in zip(s.accumulators, for_resampling(s.accumulators, self.resampling)):
                self._designed[id(acc)] = designed
        linear = [
            self._designed[id(acc)]
            for s in self.scorers
            for acc in s.accumulators
            if hasattr(self._designed[id(acc)], "linear_matrix")
        ]
        bound = self.n if self.resampling is None else max(self.n, self.resampling.weight_bound)
        counts_dtype = np.float32 if bound < _EXACT_FLOAT32_LIMIT else np.float64
        self._stacks = [
            st
            for st in (
                _Stack([a for a in linear if a.dtype == np.int64], self.n, counts_dtype),
                _Stack([a for a in linear if a.dtype != np.int64], self.n, np.float64),
            )
            if st
        ]
        self._stacked = set(i for st in self._stacks for i in st.ids())
        self._batches = _batches(self._designed.values(), self._stacked)
        self._scoring = _scoring_batches(self.scorers)

    @property
    def m(self):
        return len(self.scorers)

    def rows_per_block(self):
        """Replicates per block: a count matrix of about 4 MB, at least 8 rows."""
        return max(8, (1 << 20) // self.n)

    def full_scores(self):
        """``(m, T)`` full-sample scores."""
        out = np.empty((1, self.m, len(self.targets)))
        self._score_into(out, lambda j: [a.full()[None, :] for a in self.scorers[j].accumulators])
        return out[0]

    def _score_into(self, out, stats_of):
        """``out[:, j, :]`` = system ``j``'s scores of its statistics ``stats_of(j)`` (one array per accumulator).

        The systems of one batch (:func:`_scoring_batches`) are scored in one call on their rows stacked
        ``(replicate, system)``: each row's score is computed from that row alone, so the numbers are those
        of one call per system.
        """
        rows = out.shape[0]
        for columns in self._scoring:
            scorer = self.scorers[columns[0]]
            if len(columns) == 1:
                out[:, columns[0], :] = scorer.scores(stats_of(columns[0]))
                continue
            each = [stats_of(j) for j in columns]
            stacked = [
                np.stack([np.asarray(stats[i]) for stats in each], axis=1).reshape(rows * len(columns), -1)
                for i in range(len(each[0]))
            ]
            del each
            out[:, columns, :] = scorer.scores(stacked).reshape(rows, len(columns), -1)

    def _block_scores(self, indices, out, counts_of=None):
        if counts_of is None:
            counts = counts_from_indices(indices, self.n, dtype=np.float64)
        else:
            counts = counts_of()
        linear = {}
        for stack in self._stacks:
            linear.update(stack.outputs(counts))
        for members, batch in self._batches:
            linear.update(zip([id(acc) for acc in members], batch.block(indices, lambda: counts)))
        for j, scorer in enumerate(self.scorers):
            stats = []
            for acc in scorer.accumulators:
                acc = self._designed[id(acc)]
                stats.append(linear[id(acc)] if id(acc) in linear else acc.block(indices, lambda: counts))
            out[:, j, :] = scorer.scores(stats)

    def _all_stacked(self):
        return all(id(self._designed[id(acc)]) in self._stacked for s in self.scorers for acc in s.accumulators)

    def _count_blocks(self, g0, g1, rows, dtype):
        """Yield ``(r0, r1, counts)``: item counts of replicates ``g0 .. g1-1`` in blocks of ``rows``."""
        if self.resampling is None:
            for r0, r1, indices in iter_index_blocks(self.seed, self.n, g0, g1, rows):
                yield r0, r1, counts_from_indices(indices, self.n, dtype=dtype)
        else:
            for r0, r1, units in self.resampling.iter_unit_blocks(self.seed, g0, g1, rows):
                yield r0, r1, self.resampling.item_counts(units, dtype=dtype)

    def product_rows(self):
        """Replicates per matrix product when every statistic is stacked: counts of about 32 MB.

        With large n a block of :meth:`rows_per_block` replicates has few rows (10 at
        n = 10**5), and the product ``counts @ X`` is then bound by reading ``X``;
        with more rows it is bound by arithmetic, about 4 times faster.  The counts
        are accumulated from the usual index blocks, so the indices never take more
        memory than before.
        """
        itemsize = 4 if all(st.dtype == np.float32 for st in self._stacks) else 8
        return max(self.rows_per_block(), min(1024, (32 << 20) // (itemsize * self.n)))

    def _group_counts(self, g0, g1, small, dtype):
        """Item counts of replicates ``g0 .. g1-1``, ``(g1 - g0, n)`` (from :attr:`counts_cache` when set)."""

        def draw():
            counts = np.empty((g1 - g0, self.n), dtype=dtype)
            for r0, r1, block in self._count_blocks(g0, g1, small, None):
                counts[r0 - g0 : r1 - g0] = block
            return counts

        if self.counts_cache is None or self.resampling is not None:  # the item bootstrap's only
            return draw()
        return self.counts_cache.get((self.seed, self.n, g0, g1, small, np.dtype(dtype).str), draw)

    def _stacked_scores(self, start, stop, out, progress):
        """Replicates ``start .. stop-1`` when every accumulator is stacked (see :meth:`product_rows`)."""
        dtype = np.float32 if all(st.dtype == np.float32 for st in self._stacks) else np.float64
        group = self.product_rows()
        small = self.rows_per_block()
        for g0 in range(start, stop, group):
            g1 = min(stop, g0 + group)
            counts = self._group_counts(g0, g1, small, dtype)
            linear = {}
            for stack in self._stacks:
                linear.update(stack.outputs(counts))
            del counts
            self._score_into(
                out[g0 - start : g1 - start],
                lambda j, linear=linear: [linear[id(self._designed[id(acc)])] for acc in self.scorers[j].accumulators],
            )
            if progress is not None:
                progress(g1 - g0)

    def scores_for_span(self, start, stop, progress=None, block_rows=None):
        """Scores of every system on replicates ``start .. stop-1``: ``(stop-start, m, T)``.

        ``block_rows`` (replicates per block) changes the memory and the speed, never the numbers.
        """
        out = self._raw_scores(start, stop, progress, block_rows)
        if self.expansion == 1.0:
            return out
        if self._full is None:
            self._full = self.full_scores()
        best = [np.nan if t.metric.info.best is None else t.metric.info.best for t in self.targets]
        return expand_replicates(out, self._full, self.expansion, best, [t.metric.sign for t in self.targets])

    def _raw_scores(self, start, stop, progress, block_rows):
        seed = self.seed
        out = np.empty((stop - start, self.m, len(self.targets)))
        if block_rows is None and self._stacks and self._all_stacked():
            self._stacked_scores(start, stop, out, progress)
            return out
        rows = block_rows or self.rows_per_block()
        if self.resampling is not None:
            for r0, r1, indices, counts in self.resampling.iter_blocks(seed, start, stop, rows):
                self._block_scores(indices, out[r0 - start : r1 - start], counts)
                if progress is not None:
                    progress(r1 - r0)
            return out
        for r0, r1, indices in iter_index_blocks(seed, self.n, start, stop, rows):
            self._block_scores(indices, out[r0 - start : r1 - start])
            if progress is not None:
                progress(r1 - r0)
        return out

    def jackknife(self):
        """Each system's own jackknife: ``[(scores, weights, inverse)]``.

        The same values as the per-submission program computes for BCa.  With
        clusters, one leave-one-cluster-out value per cluster (``inverse`` is
        then the identity over clusters).
        """
        out = []
        clustered = self.resampling is not None and self.resampling.clustered
        for scorer in self.scorers:
            if clustered:
                stats, weights, inverse = cluster_jackknife(scorer.accumulators, self.resampling)
            else:
                stats, weights, inverse = jackknife(scorer.accumulators, self.n)
            out.append((scorer.scores(stats), weights, inverse))
        return out


def _span_count(plan, b, jobs):
    """Spans for ``jobs`` threads: four each, but none shorter than one product of stacked statistics.

    A span is scored in products of :meth:`PairedPlan.product_rows` replicates and every system's
    scorer runs once per product; shorter spans only multiply those runs (the shake-up's first pass,
    1,000 replicates of 10,000 runs, made eight products of 125 rows where two of 500 do).
    """
    if jobs <= 1:
        return 1
    if plan._stacks and plan._all_stacked():
        return max(jobs, min(jobs * 4, -(-b // plan.product_rows())))
    return jobs * 4


def paired_scores(plan, n_resamples, n_jobs=1, progress=None, executor=None, jackknife=False, start=0):
    """Full-sample and replicate scores of every system of ``plan`` on shared resamples.

    Parameters
    ----------
    plan : PairedPlan
    n_resamples : int
    n_jobs : int or "auto"
        Threads (each takes spans of replicates).  Identical results for any value.
    progress : callable, optional
        Called with the number of replicates finished.
    executor : callable, optional
        ``executor(plan, spans) -> list of arrays``, one ``(b - a, m, T)`` array
        per span ``(a, b)`` in order: runs the spans elsewhere (e.g. on Dask;
        see :mod:`leaderboard_ci.phase.execution.distributed`).
    jackknife : bool
        Also compute each system's jackknife (for BCa intervals).
    start : int
        The first replicate: ``replicates`` holds replicates ``start .. n_resamples - 1``, the same
        numbers as those rows of the whole (a replicate depends only on the seed and its number).

    Returns
    -------
    SystemScores
    """
    b = check_n_resamples(n_resamples)
    if not 0 <= start < b:
        raise ValueError("start must be a replicate number from 0 to %d, got %r" % (b - 1, start))
    jobs = resolve_jobs(n_jobs)
    full = plan.full_scores()
    if executor is not None:
        spans = split_range(start, b, max(1, -(-(b - start) // plan.rows_per_block())))
        replicates = np.concatenate(executor(plan, spans), axis=0)
    else:
        replicates = np.empty((b - start, plan.m, len(plan.targets)))
        lock = threading.Lock()

        def report(k):
            if progress is not None:
                with lock:
                    progress(k)

        def work(span):
            replicates[span[0] - start : span[1] - start] = plan.scores_for_span(span[0], span[1], progress=report)

        run_spans(work, split_range(start, b, _span_count(plan, b - start, jobs)), jobs)
    jack = plan.jackknife() if jackknife else None
    return SystemScores(plan.names, plan.targets, full, replicates, jack)
