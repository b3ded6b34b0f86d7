"""Exact sums of per-item statistics over the full sample, resamples and jackknife.

An *accumulator* holds per-item quantities and sums them with per-item
weights: all ones for the full sample, the resample counts for a bootstrap
replicate, ones with one zero for a jackknife (leave-one-out) sample.

Every sum is **exact**, then rounded once.  Class counts are integers.  Real
values are split into two integer-valued parts on a fixed-point grid
(:class:`ExactSums`), whose weighted sums stay below 2**52 and are therefore
exact in float64 whatever the summation order.  So results do not depend on
BLAS, on numpy's version, on the block size, on the number of threads or on
the machine: the per-submission program and the end-of-phase analysis get the
same bytes.

Interface of an accumulator
---------------------------
``n_features``
    Width of the statistic vector.
``dtype``
    numpy dtype of the statistics (int64 for counts, float64 otherwise).
``needs_counts``
    True if :meth:`block` wants the resample counts matrix.
``full()``
    Statistic of the full sample, shape ``(n_features,)``.
``block(indices, counts)``
    Statistics of a block of replicates; ``indices`` has shape ``(R, n)``;
    ``counts()`` returns the ``(R, n)`` float64 count matrix (computed once
    per block and shared).  Returns ``(R, n_features)``.
``jackknife_key()``
    An int per item such that items with equal keys leave equal statistics
    when left out, or None when every item may differ.
``jackknife_stats(items)``
    The statistics with each of ``items`` left out, ``(len(items), n_features)``.

Linear accumulators (:class:`CodeCounts`, :class:`ExactSums`, :class:`IndicatorSums`) also have
``linear_matrix(dtype)`` and ``from_linear(sums)``: their statistic is
``counts @ linear_matrix``, which lets the end-of-phase analysis stack many
systems into one matrix product per block of replicates.

:func:`jackknife` combines several accumulators (e.g. a submission and the
baseline it is compared with), leaving each item out of all of them at once.
"""

from __future__ import annotations

import math
import threading

import numpy as np

from .resampling import counts_from_indices

__all__ = [
    "CodeCounts",
    "ExactSums",
    "IndicatorSums",
    "RankSums",
    "WeightedFunction",
    "split_fixed_point",
    "weighted_code_counts",
    "for_resampling",
    "cluster_jackknife",
]

_SMALL_CODE_COUNT = 16  # up to this many codes, counting by comparison beats bincount


class CodeCounts:
    """Counts of integer codes (e.g. ``group * K*K + gold * K + predicted``).

    Parameters
    ----------
    codes : array of int, shape ``(n,)``, values in ``[0, n_codes)``.
    n_codes : int

    Notes
    -----
    The counts are additive over draws, so a replicate can also be counted in
    chunks of draws (:meth:`partial`), which keeps the working arrays in cache
    when n is large.  Buffers are kept per thread and reused across blocks:
    allocating them afresh costs page faults that dominated small test sets.
    """

    needs_counts = False
    dtype = np.int64

    def __init__(self, codes, n_codes):
        codes = np.asarray(codes, dtype=np.intp)
        if codes.ndim != 1:
            raise ValueError("codes must be one-dimensional")
        if codes.size and (codes.min() < 0 or codes.max() >= n_codes):
            raise ValueError("codes must lie in [0, n_codes)")
        self.codes = codes
        self.n_codes = int(n_codes)
        self.n_features = self.n_codes
        small = np.uint8 if n_codes <= 256 else (np.uint16 if n_codes <= 65536 else np.intp)
        self._small = codes.astype(small)
        self._local = threading.local()

    def full(self):
        return np.bincount(self.codes, minlength=self.n_codes).astype(np.int64)

    def _buffers(self, size):
        """This thread's (gathered codes, wide codes, flags) buffers of at least ``size``."""
        buffers = getattr(self._local, "buffers", None)
        if buffers is None or buffers[0].size < size:
            buffers = (
                np.empty(size, dtype=self._small.dtype),
                np.empty(size, dtype=np.intp),
                np.empty(size, dtype=bool),
            )
            self._local.buffers = buffers
        return buffers

    def _gather(self, indices):
        size = indices.size
        gathered, wide, flags = self._buffers(size)
        gathered = gathered[:size].reshape(indices.shape)
        # mode="clip" lets take write straight into ``out`` (indices are in range by construction).
        np.take(self._small, indices, out=gathered, mode="clip")
        return gathered, wide[:size].reshape(indices.shape), flags[:size]

    def partial(self, indices):
        """Counts of the codes of a 1-d chunk of draws (to be summed over chunks)."""
        gathered, wide, flags = self._gather(indices)
        out = np.empty(self.n_codes, dtype=np.int64)
        if self.n_codes <= _SMALL_CODE_COUNT:
            for c in range(self.n_codes):
                np.equal(gathered, c, out=flags)
                out[c] = np.count_nonzero(flags)
        else:
            out[:] = np.bincount(gathered, minlength=self.n_codes)
        return out

    def block(self, indices, counts=None):
        if indices is None:  # clustered resamples (a varying number of items): the counts
            return weighted_code_counts(self.codes, self.n_codes, counts())
        rows, draws = indices.shape
        if rows == 1:
            return self.partial(indices[0])[None, :]
        gathered, wide, _ = self._gather(indices)
        offsets = np.arange(rows, dtype=np.intp)[:, None] * self.n_codes
        np.add(gathered, offsets, out=wide)  # code + row * n_codes, in one pass
        return (
            np.bincount(wide.ravel(), minlength=rows * self.n_codes)
            .reshape(rows, self.n_codes)
            .astype(np.int64, copy=False)
        )

    def jackknife_key(self):
        return self.codes

    def linear_matrix(self, dtype):
        """One-hot codes ``(n, n_codes)``: the statistic is ``counts @ matrix``."""
        out = np.zeros((self.codes.shape[0], self.n_codes), dtype=dtype)
        out[np.arange(self.codes.shape[0]), self.codes] = 1
        return out

    def from_linear(self, sums):
        """Statistics from ``counts @ linear_matrix`` (exact integers)."""
        return np.rint(sums).astype(np.int64)

    def jackknife_stats(self, items):
        items = np.asarray(items, dtype=np.intp)
        stats = np.repeat(self.full()[None, :], items.size, axis=0)
        stats[np.arange(items.size), self.codes[items]] -= 1
        return stats


def weighted_code_counts(codes, n_codes, counts):
    """Counts of ``codes`` under item weights: ``out[r, c] = sum of counts[r, i] over items with code c``.

    ``counts`` is ``(R, n)`` with integer values (resample counts); the sums
    are integers below 2**53, hence exact, returned as int64.  This is how an
    accumulator that counts drawn items' codes reads a clustered replicate,
    which has counts but no fixed-length index rows.
    """
    counts = np.asarray(counts, dtype=np.float64)
    rows = counts.shape[0]
    wide = codes[None, :] + (np.arange(rows, dtype=np.intp) * n_codes)[:, None]
    sums = np.bincount(wide.ravel(), weights=counts.ravel(), minlength=rows * n_codes)
    return np.rint(sums).astype(np.int64).reshape(rows, n_codes)


def split_fixed_point(values, n):
    """Split real values into two integer-valued parts for exact weighted sums.

    For each column with largest magnitude ``M < 2**E``, with ``k = 52 -
    bitlength(n)``, each value is ``(hi + lo * 2**-k) * 2**(E - k)`` up to
    ``M * 2**-2k`` (below double precision), where ``hi`` and ``lo`` are
    integers of magnitude below ``2**k``.  Any weighted sum with non-negative
    integer weights summing to at most ``n`` is then exact in float64.

    Returns
    -------
    hi, lo : float64 arrays like ``values``
    exponents : int array, one ``E - k`` per column
    k : int
    """
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1:
        values = values[:, None]
    k = 52 - int(n).bit_length()
    if k < 8:
        raise ValueError("too many items for exact sums: %d" % n)
    exponents = np.empty(values.shape[1], dtype=np.int64)
    hi = np.empty_like(values)
    lo = np.empty_like(values)
    for j in range(values.shape[1]):
        col = values[:, j]
        top = float(np.max(np.abs(col))) if col.size else 0.0
        if not math.isfinite(top):
            raise ValueError("values must be finite")
        e = math.frexp(top)[1] if top > 0 else 0  # top < 2**e
        scaled = np.ldexp(col, k - e)
        h = np.trunc(scaled)
        hi[:, j] = h
        lo[:, j] = np.trunc(np.ldexp(scaled - h, k))
        exponents[j] = e - k
    return hi, lo, exponents, k


def _combine(sum_hi, sum_lo, exponents, k):
    """(sum_hi + sum_lo * 2**-k) * 2**exponent: one rounding, then exact scaling."""
    return np.ldexp(sum_hi + np.ldexp(sum_lo, -k), exponents)


class ExactSums:
    """Correctly rounded weighted sums of real per-item values.

    Parameters
    ----------
    values : array of shape ``(n,)`` or ``(n, F)``, finite.
    total : int, optional
        The largest total weight of a sum (default ``n``: a bootstrap
        replicate of the items).  A cluster bootstrap can weigh more items
        (:attr:`~.resampling.Resampling.weight_bound`); see :meth:`for_total`.
    """

    dtype = np.float64

    def __init__(self, values, total=None):
        values = np.asarray(values, dtype=np.float64)
        if values.ndim == 1:
            values = values[:, None]
        self.n = values.shape[0]
        self.n_features = values.shape[1]
        self.values = values
        self.total = self.n if total is None else max(int(total), self.n)
        hi, lo, self.exponents, self.k = split_fixed_point(values, self.total)
        self._both = np.ascontiguousarray(np.concatenate([hi, lo], axis=1))
        del hi, lo  # views of ``_both`` from here on (``hi``, ``lo``): half the memory at 10**6 items
        # Values on the grid (integer counts, say) have no low parts: half the product.
        self._hi_only = np.ascontiguousarray(self.hi) if not np.any(self.lo) else None
        # The count matrix times the parts is the fastest path (measured: 7.5 ns per
        # draw against 10-33 ns for gathering rows), with BLAS on one thread.
        self.needs_counts = True

    @property
    def hi(self):
        """The integer-valued high parts ``(n, F)`` of :func:`split_fixed_point`."""
        return self._both[:, : self.n_features]

    @property
    def lo(self):
        """The integer-valued low parts ``(n, F)``."""
        return self._both[:, self.n_features :]

    def for_total(self, total):
        """This accumulator, or one whose sums stay exact up to a total weight ``total``.

        The split of :func:`split_fixed_point` depends on the bit length of the
        largest total weight; when ``total`` needs no more bits than ``n`` the
        same object is returned (the same bytes as the item bootstrap).
        """
        if int(total).bit_length() <= int(self.total).bit_length():
            return self
        return ExactSums(self.values, total)

    def _finish(self, sums):
        f = self.n_features
        return _combine(sums[..., :f], sums[..., f:], self.exponents, self.k)

    def full(self):
        return self._finish(self._both.sum(axis=0))

    def block(self, indices, counts):
        if self._hi_only is not None:  # the same bytes: the low sums would all be 0
            return _combine(counts() @ self._hi_only, 0.0, self.exponents, self.k)
        return self._finish(counts() @ self._both)  # exact: integer-valued, below 2**52

    def jackknife_key(self):
        return None

    def linear_matrix(self, dtype=np.float64):
        """Integer-valued hi/lo parts ``(n, 2F)`` (hi only, ``(n, F)``, when every lo is 0); needs float64."""
        return self._both if self._hi_only is None else self._hi_only

    def from_linear(self, sums):
        """Statistics from ``counts @ linear_matrix``."""
        if self._hi_only is not None:
            return _combine(np.asarray(sums, dtype=np.float64), 0.0, self.exponents, self.k)
        return self._finish(np.asarray(sums, dtype=np.float64))

    def item_values(self):
        """The per-item values ``(n, F)`` (for the permutation test's swaps)."""
        return self.values

    def jackknife_stats(self, items):
        total = self._both.sum(axis=0)
        return self._finish(total[None, :] - self._both[np.asarray(items, dtype=np.intp)])


class _FromCounts:
    """Base of accumulators computed from whole count rows (not additive per item).

    ``items`` restricts the statistic to a subset of the ``n_total`` items (a
    group); the resample counts of the other items are ignored.
    """

    needs_counts = True
    dtype = np.float64
    JACKKNIFE_LIMIT = 20000
    what = "statistic"

    def __init__(self, n_total, items=None):
        self.n_total = int(n_total)
        self.items = None if items is None else np.asarray(items, dtype=np.intp)

    def _subset(self, weights):
        return weights if self.items is None else weights[:, self.items]

    def _from_weights(self, weights):
        raise NotImplementedError

    def full(self):
        return self._from_weights(self._subset(np.ones((1, self.n_total))))[0]

    def block(self, indices, counts):
        return self._from_weights(self._subset(counts()))

    def jackknife_key(self):
        return None

    def jackknife_stats(self, items):
        return _leave_one_out(
            lambda w: self._from_weights(self._subset(w)), self.n_total, items, self.what, self.JACKKNIFE_LIMIT
        )


class RankSums(_FromCounts):
    """Sums for Spearman's rho: Pearson's r of within-sample average ranks.

    Ranks are recomputed in every resample from the resample counts, with
    ties (including repeated draws of one item) given their average rank, as
    ``scipy.stats.spearmanr`` does on the resampled data.  The sums use
    doubled, centred ranks ``2*rank - (N + 1)``, which are integers, so they
    are exact while ``N**3 < 2**53`` (N below about 200,000) and deterministic
    beyond.

    Features: ``[N, sum a, sum a^2, sum b, sum b^2, sum a*b]`` with ``a`` the
    gold ranks and ``b`` the predicted ranks.

    Parameters
    ----------
    gold, predicted : arrays of the (subset's) items
    n_total : int, optional
        Items in the whole test set, when ``items`` selects a subset.
    items : array of int, optional
        Positions of the subset's items in the whole test set.
    """

    n_features = 6
    what = "Spearman"

    def __init__(self, gold, predicted, n_total=None, items=None):
        gold = np.asarray(gold, dtype=np.float64)
        predicted = np.asarray(predicted, dtype=np.float64)
        super(RankSums, self).__init__(gold.shape[0] if n_total is None else n_total, items)
        self._gold = self._tie_structure(gold)
        self._pred = self._tie_structure(predicted)

    @staticmethod
    def _tie_structure(values):
        order = np.argsort(values, kind="mergesort")
        sorted_values = values[order]
        new_group = np.empty(values.shape[0], dtype=bool)
        if values.shape[0]:
            new_group[0] = True
            new_group[1:] = sorted_values[1:] != sorted_values[:-1]
        group_of_sorted = np.cumsum(new_group) - 1
        starts = np.flatnonzero(new_group)
        ends = np.append(starts[1:], values.shape[0]) - 1
        return order, group_of_sorted, starts, ends

    @staticmethod
    def _doubled_ranks(weights, structure):
        """Doubled average ranks per item (in the original item order)."""
        order, group_of_sorted, starts, ends = structure
        w_sorted = weights[:, order]
        cum = np.cumsum(w_sorted, axis=1)
        upto = cum[:, ends]  # items up to the end of each tie group
        below = np.concatenate([np.zeros((weights.shape[0], 1)), upto[:, :-1]], axis=1)
        count = upto - below
        rank2_groups = 2.0 * below + count + 1.0
        ranks = np.empty_like(weights)
        ranks[:, order] = rank2_groups[:, group_of_sorted]
        return ranks

    def _from_weights(self, weights):
        weights = np.asarray(weights, dtype=np.float64)
        total = weights.sum(axis=1)
        a = self._doubled_ranks(weights, self._gold) - (total + 1.0)[:, None]
        b = self._doubled_ranks(weights, self._pred) - (total + 1.0)[:, None]
        wa = weights * a
        wb = weights * b
        return np.stack(
            [total, wa.sum(axis=1), (wa * a).sum(axis=1), wb.sum(axis=1), (wb * b).sum(axis=1), (wa * b).sum(axis=1)],
            axis=1,
        )


class WeightedFunction(_FromCounts):
    """A user metric evaluated on resample counts: ``fn(weights) -> scores``.

    ``fn`` receives an ``(R, m)`` integer array of resample counts (row ``r``
    says how many times each item was drawn in replicate ``r``) and returns
    ``R`` scores.  Any metric of the resampled data can be written this way.
    Rows with no items give NaN without calling ``fn``.
    """

    n_features = 1
    what = "custom-metric"

    def __init__(self, fn, n_total, items=None):
        super(WeightedFunction, self).__init__(n_total, items)
        self.fn = fn

    def _from_weights(self, weights):
        out = np.full((weights.shape[0], 1), np.nan)
        nonempty = weights.sum(axis=1) > 0
        if np.any(nonempty):
            rows = weights[nonempty]
            scores = np.asarray(self.fn(rows.astype(np.int64)), dtype=np.float64).reshape(-1)
            if scores.shape[0] != rows.shape[0]:
                raise ValueError(
                    "the custom metric returned %d scores for %d resamples" % (scores.shape[0], rows.shape[0])
                )
            out[nonempty, 0] = scores
        return out


def _leave_one_out(from_weights, n, items, what, limit, chunk=256):
    """Statistics with each of ``items`` left out, from weight rows (O(n) each)."""
    if n > limit:
        raise ValueError("the %s jackknife (for BCa) is limited to %d items; this test set has %d" % (what, limit, n))
    items = np.asarray(items, dtype=np.intp)
    parts = []
    for start in range(0, items.size, chunk):
        rows = items[start : start + chunk]
        w = np.ones((rows.size, n))
        w[np.arange(rows.size), rows] = 0.0
        parts.append(from_weights(w))
    return np.concatenate(parts, axis=0)


def jackknife(accumulators, n):
    """Leave-one-out statistics of several accumulators at once.

    Items whose keys agree in every accumulator are represented once, with a
    weight: the number of such items.  The representation depends only on the
    accumulators given (their keys, sorted), so the same system always gets
    the same jackknife values, whatever else is being computed.

    Returns
    -------
    stats : list of arrays ``(J, n_features)``, one per accumulator
    weights : array ``(J,)`` summing to ``n``
    inverse : array ``(n,)``: the row of ``stats`` that represents each item
    """
    keys = [acc.jackknife_key() for acc in accumulators]
    if any(k is None for k in keys):
        items = np.arange(n)
        weights = np.ones(n)
        inverse = items
    else:
        joint = np.stack([np.asarray(k, dtype=np.int64) for k in keys], axis=1)
        _, items, inverse, weights = np.unique(
            joint, axis=0, return_index=True, return_inverse=True, return_counts=True
        )
        weights = weights.astype(np.float64)
        inverse = np.asarray(inverse).reshape(-1)
    return [acc.jackknife_stats(items) for acc in accumulators], weights, inverse


def for_resampling(accumulators, resampling):
    """The accumulators to sum replicates of ``resampling`` with (the same objects for the item bootstrap).

    A cluster bootstrap can weigh up to ``resampling.weight_bound`` items in
    one replicate, more than ``n``; accumulators whose exactness depends on
    the total weight (``for_total``) are then rebuilt for that bound.  The
    full-sample statistics keep the original accumulators, so the point
    estimate does not depend on the resampling.
    """
    accumulators = list(accumulators)
    if resampling is None or resampling.weight_bound <= resampling.n_items:
        return accumulators
    return [acc.for_total(resampling.weight_bound) if hasattr(acc, "for_total") else acc for acc in accumulators]


def cluster_jackknife(accumulators, resampling):
    """Leave-one-cluster-out statistics, the jackknife of a cluster bootstrap (for BCa).

    Returns the same ``(stats, weights, inverse)`` as :func:`jackknife`, with
    one row per cluster (weights all 1, ``inverse`` the identity over clusters).
    """
    parts = [[] for _ in accumulators]
    for _, weights in resampling.jackknife_units():
        for part, acc in zip(parts, accumulators):
            part.append(acc.block(None, lambda weights=weights: weights))
    stats = [np.concatenate(part, axis=0) for part in parts]
    units = resampling.n_units
    return stats, np.ones(units), np.arange(units)


def block_counts_factory(indices, n):
    """A memoized ``counts()`` for one block: the count matrix is built at most once."""
    cache = []

    def counts():
        if not cache:
            cache.append(counts_from_indices(indices, n, dtype=np.float64))
        return cache[0]

    return counts


class IndicatorSums:
    """Weighted counts of 0/1 per-item indicators (e.g. per-label hits of a multi-label task).

    The statistic of a (re)sample is ``counts @ indicators``: for each column,
    how many of the drawn items have the indicator set, counting repeated
    draws.  Every sum is an integer of at most n, so it is exact in float32
    (n below ``2**24``, as the end-of-phase stacking assumes for int64
    accumulators) and in float64.  One matrix product replaces one
    :class:`CodeCounts` per column, which many-column statistics (per-label
    counts of a multi-label task) need.

    Parameters
    ----------
    indicators : array of 0/1 (or bool), shape ``(n, F)``.
    """

    needs_counts = True
    dtype = np.int64

    def __init__(self, indicators):
        values = np.asarray(indicators)
        if values.ndim != 2:
            raise ValueError("indicators must be two-dimensional (items x features)")
        if values.size and (values.min() < 0 or values.max() > 1):
            raise ValueError("indicators must be 0 or 1")
        self.values = values.astype(np.int64)
        self.n, self.n_features = self.values.shape
        # Sums are integers of at most n: exact in float32 below 2**24 items (twice as fast).
        self._float = np.ascontiguousarray(self.values, dtype=np.float32 if self.n < 2**24 else np.float64)

    def for_total(self, total):
        """This accumulator, or one summing in float64 when a total weight ``total`` reaches 2**24."""
        if int(total) < 2**24 or self._float.dtype == np.float64:
            return self
        wide = IndicatorSums(self.values)
        wide._float = np.ascontiguousarray(self.values, dtype=np.float64)
        return wide

    def full(self):
        return self.values.sum(axis=0)

    def block(self, indices, counts):
        return np.rint(counts().astype(self._float.dtype, copy=False) @ self._float).astype(np.int64)

    def jackknife_key(self):
        if not self.n:
            return np.zeros(0, dtype=np.int64)
        return np.unique(self.values, axis=0, return_inverse=True)[1].reshape(-1)

    def jackknife_stats(self, items):
        return self.full()[None, :] - self.values[np.asarray(items, dtype=np.intp)]

    def linear_matrix(self, dtype):
        """The indicators ``(n, F)``: the statistic is ``counts @ matrix``."""
        return self.values.astype(dtype)

    def from_linear(self, sums):
        """Statistics from ``counts @ linear_matrix`` (exact integers)."""
        return np.rint(sums).astype(np.int64)
