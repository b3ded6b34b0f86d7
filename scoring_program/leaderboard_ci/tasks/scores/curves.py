"""Rank statistics of scored predictions under resample counts: ROC-AUC, average precision, DeLong.

The scores are sorted once (descending) and cut into *tie groups* of equal
scores.  A resample is then summarized by its weighted positives ``p_g`` and
negatives ``q_g`` in every tie group (one :func:`numpy.bincount` of the drawn
items' codes ``2 * group + positive``), and both statistics follow from
cumulative sums over the groups, O(n) per replicate:

* ROC-AUC (the Mann-Whitney statistic with ties counted one half, which is
  what scikit-learn's trapezoidal ``roc_auc_score`` equals)::

      U = sum_g p_g * (Q_after_g + q_g / 2),    AUC = U / (P * Q)

* average precision (scikit-learn's step-wise ``average_precision_score``:
  one precision per distinct threshold, weighted by the recall increase)::

      AP = (1 / P) * sum_g p_g * TP_g / (TP_g + FP_g)

  with ``TP_g``, ``FP_g`` the weighted positives and negatives scored at
  least as high as group ``g``.

Counts are integers, so ``P``, ``Q`` and ``U`` are exact (``U`` is a sum of
half-integers below 2**53); ``AP`` is one deterministic cumulative sum.

ROC-AUC alone (no average precision) takes a faster path with the same
integers: the block's counts are transposed once into item-major int32 rows
shared by every curve of the thread (all systems of the end-of-phase
analysis), and each curve runs one prefix sum of its negatives' counts in
ascending score order, read at each positive's place
(:meth:`BinaryCurve._auc_block`, :func:`_prefix_sums`).

:func:`delong_auc` and :func:`delong_test` give DeLong's (1988) variance of an
AUC and of the difference of two correlated AUCs, from the same placements.
"""

from __future__ import annotations

import hashlib
import math
import threading

import numpy as np

from ...core.accumulators import _FromCounts, weighted_code_counts

__all__ = [
    "BinaryCurve",
    "auc_from_stats",
    "ap_from_stats",
    "DeLong",
    "delong_auc",
    "delong_test",
    "normal_quantile",
    "curve_stats",
    "delong_pvalues",
]


_LOCAL = threading.local()

#: Up to this many items every ROC-AUC product sum (at most ``n**2 / 4``) fits in int32.
_INT32_PRODUCTS = 92681


def _thread_buffer(name, shape, dtype):
    """This thread's reusable buffer ``name`` of ``shape`` (fresh arrays cost page faults)."""
    size = int(np.prod(shape))
    buffers = getattr(_LOCAL, "buffers", None)
    if buffers is None:
        buffers = _LOCAL.buffers = {}
    key = (name, np.dtype(dtype).str)
    found = buffers.get(key)
    if found is None or found.size < size:
        found = buffers[key] = np.empty(size, dtype=dtype)
    return found[:size].reshape(shape)


def _item_major_counts(counts, n):
    """The block's resample counts as an int32 ``(n + 1, R)`` matrix (a row per item, then zeros), and a dict.

    Transposed once per block and thread, then shared by every curve of the
    thread (every system of the end-of-phase analysis gathers its rows from
    it).  The block is recognized by the identity of the ``counts()`` matrix
    (both engines build a fresh one per block; it is kept referenced, so its
    identity cannot be reused) and, in case a caller refills one matrix in
    place, by a sample of its values.  The dict holds what curves of this
    block share (the positives' counts of a problem every system has).
    """
    matrix = counts()
    if matrix.ndim != 2 or matrix.shape[1] != n:
        raise ValueError("counts() must have shape (R, %d), got %s" % (n, matrix.shape))
    probe = np.concatenate([matrix[:, :32], matrix[:, -32:]], axis=1)
    cached = getattr(_LOCAL, "item_major", None)
    if (
        cached is not None
        and cached[0] is matrix
        and cached[2].shape == probe.shape
        and np.array_equal(cached[2], probe)
    ):
        return cached[1], cached[3]
    rows = matrix.shape[0]
    out = _thread_buffer("item_major", (n + 1, rows), np.int32)
    np.copyto(out[:n], matrix.T, casting="unsafe")  # counts are integers below 2**31
    out[n] = 0
    shared = {}
    _LOCAL.item_major = (matrix, out, probe, shared)
    return out, shared


def _chunk_length(m, rows):
    """Chunk length of the two-level prefix sum over ``m`` positions and ``rows`` replicates.

    The first level is one numpy call per position of a chunk (about 1 us each,
    over every chunk and replicate at once), the second a cumulative sum over
    the chunks (about 4 ns per value): ``sqrt(m * rows / 250)`` balances them.
    """
    return int(max(1, min(512, m, round(math.sqrt(m * rows / 250.0)))))


class _PrefixLayout:
    """Gather indices of :func:`_prefix_sums` for one chunk length.

    The ``m = n_neg + 1`` positions are a zero (position 0) then the negatives
    in ascending score order, cut into ``k`` chunks of ``length``; position
    ``p`` is stored at row ``(p % length) * k + p // length`` so that one
    numpy call adds position ``j`` of every chunk at once.  A query position
    ``p`` reads the inclusive prefix sum there: the weighted negatives among
    the first ``p`` (``below`` and ``at_most`` give one ``p`` per positive).
    """

    def __init__(self, negatives_sorted, n_total, length, below, at_most):
        m = negatives_sorted.size + 1
        self.length = length
        self.k = k = -(-m // length)
        source = np.full(length * k, n_total, dtype=np.intp)  # row n_total of the counts is zeros
        source[1:m] = negatives_sorted
        self.gather = np.ascontiguousarray(source.reshape(k, length).T).reshape(-1)
        self.below = self._where(below)
        self.at_most = self._where(at_most)

    def _where(self, positions):
        positions = np.asarray(positions, dtype=np.intp)
        return (positions % self.length) * self.k + positions // self.length, positions // self.length


class _AucPlaces:
    """One binary problem's negatives in ascending score order and each positive's place among them.

    ``below[i]`` / ``at_most[i]``: how many negatives score strictly lower than
    / at most as high as positive ``i``; ``tied``: the positives with a tied
    negative.  ``key`` names the positives (shared counts across systems).
    """

    def __init__(self, scores, positive, n_total, items):
        items = np.arange(n_total) if items is None else items
        neg = np.flatnonzero(~positive)
        pos = np.flatnonzero(positive)
        order = np.argsort(scores[neg], kind="mergesort")
        neg_scores = scores[neg][order]
        self.below = np.searchsorted(neg_scores, scores[pos], side="left")
        at_most = np.searchsorted(neg_scores, scores[pos], side="right")
        self.tied = np.flatnonzero(at_most > self.below)
        self.at_most = at_most[self.tied]
        self.negatives = items[neg][order]
        self.positives = items[pos]
        self.n_total = n_total
        self.key = (n_total, hashlib.sha1(self.positives.astype(np.int64).tobytes()).hexdigest())
        self._layouts = {}

    def layout(self, rows):
        """The :class:`_PrefixLayout` for blocks of ``rows`` replicates (one per chunk length, cached)."""
        length = _chunk_length(self.negatives.size + 1, rows)
        found = self._layouts.get(length)
        if found is None:
            found = self._layouts[length] = _PrefixLayout(
                self.negatives, self.n_total, length, self.below, self.at_most
            )
        return found


def _prefix_sums(by_item, layout, *queries):
    """Inclusive prefix sums of the negatives' counts at the query positions, and their total ``Q``.

    Returns one int32 array ``(len(query), R)`` per query, then ``Q`` ``(R,)``.
    Integers below ``n``: exact, whatever the chunk length.
    """
    rows = by_item.shape[1]
    length, k = layout.length, layout.k
    flat = _thread_buffer("prefix", (length * k, rows), np.int32)
    np.take(by_item, layout.gather, axis=0, out=flat, mode="clip")
    chunks = flat.reshape(length, k, rows)
    for j in range(1, length):  # within each chunk, all chunks and replicates at once
        np.add(chunks[j], chunks[j - 1], out=chunks[j])
    totals = chunks[length - 1]
    through = np.cumsum(totals, axis=0, dtype=np.int32)  # up to the end of each chunk
    before = through - totals  # up to the start of each chunk
    out = []
    for q, (where, chunk) in enumerate(queries):
        values = _thread_buffer("query%d" % q, (where.size, rows), np.int32)
        np.take(flat, where, axis=0, out=values, mode="clip")
        values += np.take(before, chunk, axis=0, mode="clip")
        out.append(values)
    out.append(through[k - 1].astype(np.int64))
    return out


def _tie_groups(scores):
    """``(order, group of each sorted position, group starts)`` for scores sorted in descending order."""
    order = np.argsort(-scores, kind="mergesort")
    s = scores[order]
    new = np.empty(s.shape[0], dtype=bool)
    if s.shape[0]:
        new[0] = True
        new[1:] = s[1:] != s[:-1]
    return order, np.cumsum(new) - 1, np.flatnonzero(new)


def curve_stats(pos, neg, with_ap=True, bound=None):
    """``[P, Q, U, AP sum]`` from weighted positives and negatives per tie group (rows: resamples).

    ``pos`` and ``neg`` are integer counts of shape ``(R, G)``, groups in
    descending score order.  ``P``, ``Q`` and ``2U`` are computed in int64, exactly;
    the AP sum with :func:`exact_row_sums` on a grid fixed by ``bound`` (at
    least any row's total weight; pass the number of items so that the grid,
    hence every bit, does not depend on the block of replicates).
    """
    pos = np.asarray(pos, dtype=np.int64)
    neg = np.asarray(neg, dtype=np.int64)
    out = np.zeros((pos.shape[0], 4))
    if pos.shape[1] == 0:
        return out
    big_p = pos.sum(axis=1)
    fp = np.cumsum(neg, axis=1)  # negatives scored at least as high as the group
    big_q = fp[:, -1].copy()
    out[:, 0] = big_p
    out[:, 1] = big_q
    if with_ap:
        total = np.cumsum(pos, axis=1)
        total += fp
        terms = np.cumsum(pos, axis=1) / np.maximum(total, 1)
        terms *= pos
        out[:, 3] = exact_row_sums(terms, int(big_p.max()) if bound is None else bound)
    # 2U = sum_g p_g (2 (Q - FP_g) + q_g) = 2 P Q - sum_g p_g (2 FP_g - q_g), in integers
    fp *= 2
    fp -= neg
    out[:, 2] = 0.5 * (2 * big_p * big_q - np.einsum("ij,ij->i", pos, fp))
    return out


def exact_row_sums(terms, bound):
    """Row sums of non-negative ``terms`` (each row summing to at most ``bound``), the same bytes on any machine.

    Each term is split on a fixed-point grid into two integer-valued parts whose
    sums stay below 2**52, so every order of summation (BLAS, SIMD, numpy
    version) gives the same exact sums; one rounding combines them.  The
    neglected remainder is below ``2**-(s + t)`` per term (about 1e-25 relative).
    """
    s = 52 - max(int(bound), 1).bit_length()
    t = 52 - max(terms.shape[1], 1).bit_length()
    scaled = np.ldexp(terms, s)
    hi = np.floor(scaled)
    scaled -= hi
    lo = np.floor(np.ldexp(scaled, t))
    return np.ldexp(hi.sum(axis=1) + np.ldexp(lo.sum(axis=1), -t), -s)


def auc_from_stats(stats):
    """ROC-AUC from ``[P, Q, U, ...]`` rows; NaN where one class is absent (the AUC is undefined)."""
    stats = np.asarray(stats, dtype=np.float64)
    den = stats[..., 0] * stats[..., 1]
    return np.where(den == 0, np.nan, stats[..., 2] / np.where(den == 0, 1.0, den))


def ap_from_stats(stats):
    """Average precision from ``[P, Q, U, AP sum]`` rows; NaN where there is no positive."""
    stats = np.asarray(stats, dtype=np.float64)
    p = stats[..., 0]
    return np.where(p == 0, np.nan, stats[..., 3] / np.where(p == 0, 1.0, p))


class BinaryCurve(_FromCounts):
    """Accumulator of ``[P, Q, U, AP sum]`` for one binary ranking problem (see the module docstring).

    Parameters
    ----------
    scores : array ``(m,)``
        The scores of the problem's items (higher = more likely positive).
    positive : array of bool ``(m,)``
    n_total : int, optional
        Items of the whole test set, when ``items`` selects a subset (a group,
        the two classes of a one-vs-one pair).
    items : array of int, optional
        Positions of the subset's items in the whole test set.
    with_ap : bool
        Whether the average-precision sum is computed (it costs two passes more).

    Notes
    -----
    Not additive over items: the end-of-phase permutation test refuses it
    (with a message), the bootstrap works.  Items with the same tie group and
    class leave the same statistics when left out (:meth:`jackknife_key`).
    Without average precision the leave-one-out statistics are exact and
    O(1) per item (DeLong's placements); with it the generic O(n) per item
    path runs, bounded by ``JACKKNIFE_LIMIT`` with a message.
    """

    n_features = 4
    needs_counts = False
    what = "average-precision"

    def __init__(self, scores, positive, n_total=None, items=None, with_ap=True):
        scores = np.asarray(scores, dtype=np.float64)
        positive = np.asarray(positive, dtype=bool)
        if scores.shape != positive.shape or scores.ndim != 1:
            raise ValueError("scores and positive must be one-dimensional arrays of the same length")
        super(BinaryCurve, self).__init__(scores.shape[0] if n_total is None else n_total, items)
        self.with_ap = bool(with_ap)
        self._order, group_sorted, self._starts = _tie_groups(scores)
        self.n_groups = int(self._starts.shape[0])
        group = np.empty(scores.shape[0], dtype=np.intp)
        group[self._order] = group_sorted
        self._positive_sorted = positive[self._order]
        # Cells: the (tie group, class) pairs present, in descending score order and, within
        # a tie group, the negatives first.  A resample is summarized by its count per cell.
        key = 2 * group + positive
        cell_keys = np.unique(key)
        self.n_cells = int(cell_keys.shape[0])
        self._cell_positive = (cell_keys % 2).astype(np.int64)
        self._positive_cells = np.flatnonzero(self._cell_positive)
        # a positive cell preceded by the negative cell of its own tie group (tied across classes)
        self._tied = (self._cell_positive[1:] == 1) & (cell_keys[1:] - cell_keys[:-1] == 1)
        self._any_tied = bool(self._tied.any())
        self._width = self.n_cells + 1  # the last code: items outside the subset
        codes = np.full(self.n_total, self.n_cells, dtype=np.intp)
        local = np.searchsorted(cell_keys, key)
        if self.items is None:
            codes[:] = local
        else:
            codes[self.items] = local
        self.codes = codes
        self._positive = positive
        self._scores = scores
        self._group = group
        self._places = None  # ROC-AUC's sorted negatives and positives' places, when first needed

    @staticmethod
    def _buffer(name, shape):
        """This thread's reusable int64 buffer ``name`` of ``shape`` (fresh arrays cost page faults).

        Shared by every BinaryCurve of the thread (each uses it only inside one call),
        so many systems in the end-of-phase analysis do not multiply the memory.
        """
        size = int(np.prod(shape))
        buffers = getattr(_LOCAL, "buffers", None)
        if buffers is None:
            buffers = _LOCAL.buffers = {}
        found = buffers.get(name)
        if found is None or found.size < size:
            found = buffers[name] = np.empty(size, dtype=np.int64)
        return found[:size].reshape(shape)

    def _cell_stats(self, c):
        """``[P, Q, U, AP sum]`` from the counts per cell, shape ``(R, n_cells)`` (int64; exact)."""
        rows = c.shape[0]
        out = np.zeros((rows, 4))
        if self.n_cells == 0:
            return out
        cum_neg = self._buffer("cum_neg", c.shape)
        np.multiply(c, 1 - self._cell_positive, out=cum_neg)
        np.cumsum(cum_neg, axis=1, out=cum_neg)  # at a positive cell: negatives scored at least as high
        big_p = c.dot(self._cell_positive)
        big_q = cum_neg[:, -1]
        pc = self._positive_cells
        # 2U = 2 P Q - 2 sum p_g FP_g + sum p_g q_g
        twice_u = 2 * big_p * big_q - 2 * np.einsum("ij,ij->i", c[:, pc], cum_neg[:, pc])
        if self._any_tied:
            twice_u += np.einsum("ij,ij->i", c[:, 1:][:, self._tied], c[:, :-1][:, self._tied])
        out[:, 0] = big_p
        out[:, 1] = big_q
        out[:, 2] = 0.5 * twice_u
        if self.with_ap:
            cum_all = np.cumsum(c, axis=1)[:, pc]
            terms = (cum_all - cum_neg[:, pc]) / np.maximum(cum_all, 1)
            terms *= c[:, pc]
            out[:, 3] = exact_row_sums(terms, self.n_total)
        return out

    def _from_weights(self, weights):
        w = np.rint(np.asarray(weights, dtype=np.float64)[:, self._order]).astype(np.int64)
        pos = np.where(self._positive_sorted[None, :], w, 0)
        neg = w - pos
        if self.n_groups < w.shape[1]:
            pos = np.add.reduceat(pos, self._starts, axis=1)
            neg = np.add.reduceat(neg, self._starts, axis=1)
        return curve_stats(pos, neg, self.with_ap, self.n_total)

    def block(self, indices, counts=None):
        if not self.with_ap and counts is not None:
            return self._auc_block(counts)
        if indices is None:  # clustered resamples: item counts, no index rows
            return self._cell_stats(weighted_code_counts(self.codes, self._width, counts())[:, :-1])
        return self._cell_block(indices)

    def _cell_block(self, indices):
        """``[P, Q, U, AP sum]`` from one ``bincount`` of the drawn items' cells (average precision needs them)."""
        rows = indices.shape[0]
        wide = self._buffer("wide", indices.shape)
        np.take(self.codes, indices, out=wide, mode="clip")  # indices are in range by construction
        wide += (np.arange(rows, dtype=np.intp) * self._width)[:, None]
        c = np.bincount(wide.ravel(), minlength=rows * self._width).reshape(rows, self._width)
        return self._cell_stats(c[:, :-1])

    # -- ROC-AUC alone: a prefix sum of the negatives' counts in score order ---------------
    def _auc_block(self, counts):
        """``[P, Q, U, 0]`` of a block of replicates from the item-major counts (see :func:`_prefix_sums`).

        With ``X_i`` the weighted negatives scored strictly below positive ``i``
        and ``Y_i`` those scored at most as high, ``2U = sum_i c_i (X_i + Y_i)``:
        one prefix sum of the negatives' counts in ascending score order, read
        at each positive's place.  Every number is an integer below ``n**2 / 4``
        (int32 while that fits, int64 beyond), so the result is exact and the
        same as :meth:`_cell_block`'s for any block or thread.
        """
        by_item, shared = _item_major_counts(counts, self.n_total)
        rows = by_item.shape[1]
        places = self._places
        if places is None:  # built once (two threads may both build it: the same values)
            places = self._places = _AucPlaces(self._scores, self._positive, self.n_total, self.items)
        layout = places.layout(rows)
        found = shared.get(places.key)
        if found is None:  # the positives' counts: the same for every system of a problem
            c_pos = np.take(by_item, places.positives, axis=0, mode="clip")
            found = shared[places.key] = (c_pos, np.einsum("ij->j", c_pos).astype(np.int64))
        c_pos, big_p = found
        wide = None if self.n_total <= _INT32_PRODUCTS else np.int64
        if places.tied.size:  # tied positive-negative pairs count one half
            below, at_most, big_q = _prefix_sums(by_item, layout, layout.below, layout.at_most)
            at_most -= below[places.tied]
            tied_pairs = np.einsum("ij,ij->j", at_most, c_pos[places.tied], dtype=wide).astype(np.int64)
        else:
            below, big_q = _prefix_sums(by_item, layout, layout.below)
            tied_pairs = 0
        twice_u = 2 * np.einsum("ij,ij->j", below, c_pos, dtype=wide).astype(np.int64) + tied_pairs
        out = np.zeros((rows, 4))
        out[:, 0] = big_p
        out[:, 1] = big_q
        out[:, 2] = 0.5 * twice_u
        return out

    def jackknife_key(self):
        return self.codes

    def jackknife_stats(self, items):
        items = np.asarray(items, dtype=np.intp)
        if self.with_ap:
            return super(BinaryCurve, self).jackknife_stats(items)
        full = self.full()
        out = np.repeat(full[None, :], items.size, axis=0)
        placement_pos, placement_neg = self._placements()
        local = np.arange(self.n_total) if self.items is None else None
        if local is None:
            position = np.full(self.n_total, -1, dtype=np.intp)
            position[self.items] = np.arange(self.items.size)
        else:
            position = local
        pos_in = position[items]
        inside = pos_in >= 0
        sel = np.flatnonzero(inside)
        member = pos_in[sel]
        is_pos = self._positive[member]
        out[sel, 0] -= is_pos
        out[sel, 1] -= ~is_pos
        out[sel, 2] -= np.where(is_pos, placement_pos[member], placement_neg[member])
        return out

    def _placements(self):
        """Per item: for a positive, negatives below + half the tied ones; for a negative, positives above + half."""
        pos = np.bincount(self._group, weights=self._positive.astype(np.float64), minlength=self.n_groups)
        neg = np.bincount(self._group, weights=(~self._positive).astype(np.float64), minlength=self.n_groups)
        neg_after = neg.sum() - np.cumsum(neg)  # negatives scored lower than the group
        pos_before = np.cumsum(pos) - pos  # positives scored higher than the group
        g = self._group
        return neg_after[g] + 0.5 * neg[g], pos_before[g] + 0.5 * pos[g]


# ---------------------------------------------------------------------------
# DeLong
# ---------------------------------------------------------------------------
def normal_quantile(p):
    """Quantile of the standard normal distribution (Acklam's rational approximation + one Newton step)."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be in (0, 1)")
    a = (
        -3.969683028665376e01,
        2.209460984245205e02,
        -2.759285104469687e02,
        1.383577518672690e02,
        -3.066479806614716e01,
        2.506628277459239e00,
    )
    b = (
        -5.447609879822406e01,
        1.615858368580409e02,
        -1.556989798598866e02,
        6.680131188771972e01,
        -1.328068155288572e01,
    )
    c = (
        -7.784894002430293e-03,
        -3.223964580411365e-01,
        -2.400758277161838e00,
        -2.549732539343734e00,
        4.374664141464968e00,
        2.938163982698783e00,
    )
    d = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00)
    if p < 0.02425:
        q = math.sqrt(-2 * math.log(p))
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / (
            (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1
        )
    elif p > 1 - 0.02425:
        return -normal_quantile(1 - p)
    else:
        q = p - 0.5
        r = q * q
        x = (
            (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5])
            * q
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
        )
    for _ in range(2):  # Newton steps on the exact CDF
        err = 0.5 * math.erfc(-x / math.sqrt(2)) - p
        x -= err * math.sqrt(2 * math.pi) * math.exp(x * x / 2)
    return x


def _placement_matrix(positive, scores):
    """DeLong's structural components: ``V10 (k, m)`` of the positives and ``V01 (k, n)`` of the negatives."""
    positive = np.asarray(positive, dtype=bool)
    scores = np.atleast_2d(np.asarray(scores, dtype=np.float64))
    v10, v01 = [], []
    for row in scores:
        pos, neg = row[positive], row[~positive]
        neg_sorted = np.sort(neg)
        pos_sorted = np.sort(pos)
        below = np.searchsorted(neg_sorted, pos, side="left")
        tied = np.searchsorted(neg_sorted, pos, side="right") - below
        v10.append((below + 0.5 * tied) / neg.size)
        above = pos.size - np.searchsorted(pos_sorted, neg, side="right")
        tied = np.searchsorted(pos_sorted, neg, side="right") - np.searchsorted(pos_sorted, neg, side="left")
        v01.append((above + 0.5 * tied) / pos.size)
    return np.array(v10), np.array(v01)


class DeLong:
    """DeLong's AUC estimates and their covariance for ``k`` score vectors on the same items.

    With ``clusters`` (each item's cluster code), the covariance is Obuchowski's (1997)
    for clustered data: with ``X_c`` (``Y_c``) the sum over cluster ``c``'s positives
    (negatives) of their placements ``V10`` (``V01``), ``m_c``/``n_c`` its positives and
    negatives, ``M``/``N`` the totals, ``I`` the clusters and ``I10``/``I01`` those with a
    positive/negative, and ``x_c = X_c - m_c AUC``, ``y_c = Y_c - n_c AUC`` (vectors over
    the score vectors),

        S10 = I10 / ((I10 - 1) M) sum_c x_c x_c',   S01 = I01 / ((I01 - 1) N) sum_c y_c y_c',
        S11 = I / (I - 1) sum_c x_c y_c',
        covariance = S10 / M + S01 / N + (S11 + S11') / (M N).

    With one item per cluster ``S11`` is 0 and this is DeLong's covariance exactly.

    Attributes
    ----------
    auc : ndarray ``(k,)``
    covariance : ndarray ``(k, k)``: ``S10 / m + S01 / n`` (sample covariances, ddof 1), or the clustered one.

    References
    ----------
    DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Comparing the areas under two
    or more correlated receiver operating characteristic curves. Biometrics 44(3), 837-845.
    Obuchowski, N. A. (1997). Nonparametric analysis of clustered ROC curve data. Biometrics
    53(2), 567-578.
    """

    def __init__(self, positive, scores, clusters=None):
        positive = np.asarray(positive, dtype=bool)
        m, n = int(positive.sum()), int((~positive).sum())
        if m < 2 or n < 2:
            raise ValueError(
                "DeLong's variance needs at least two positives and two negatives (got %d and %d)" % (m, n)
            )
        v10, v01 = _placement_matrix(positive, scores)
        self.auc = v10.mean(axis=1)
        if clusters is None:
            self.covariance = np.atleast_2d(np.cov(v10)) / m + np.atleast_2d(np.cov(v01)) / n
        else:
            self.covariance = _clustered_covariance(self.auc, v10, v01, positive, clusters)


def _clustered_covariance(auc, v10, v01, positive, clusters):
    """Obuchowski's (1997) covariance of the AUCs (see :class:`DeLong`)."""
    codes = np.unique(np.asarray(clusters).reshape(-1), return_inverse=True)[1].reshape(-1)
    count = int(codes.max()) + 1
    pos_c, neg_c = codes[positive], codes[~positive]
    m_c = np.bincount(pos_c, minlength=count).astype(np.float64)
    n_c = np.bincount(neg_c, minlength=count).astype(np.float64)
    i10, i01 = int(np.count_nonzero(m_c)), int(np.count_nonzero(n_c))
    if min(count, i10, i01) < 2:
        raise ValueError(
            "the clustered variance needs positives and negatives in at least two clusters (got %d and %d)" % (i10, i01)
        )
    x = np.stack([np.bincount(pos_c, weights=row, minlength=count) for row in v10]) - m_c * auc[:, None]
    y = np.stack([np.bincount(neg_c, weights=row, minlength=count) for row in v01]) - n_c * auc[:, None]
    total_m, total_n = m_c.sum(), n_c.sum()
    s10 = i10 / ((i10 - 1.0) * total_m) * (x @ x.T)
    s01 = i01 / ((i01 - 1.0) * total_n) * (y @ y.T)
    s11 = count / (count - 1.0) * (x @ y.T)
    return s10 / total_m + s01 / total_n + (s11 + s11.T) / (total_m * total_n)


def delong_auc(positive, scores, confidence_level=0.95):
    """``(auc, standard error, low, high)``: DeLong's normal interval, clipped to [0, 1] as pROC does."""
    est = DeLong(positive, scores)
    auc = float(est.auc[0])
    se = math.sqrt(max(float(est.covariance[0, 0]), 0.0))
    z = normal_quantile(0.5 + confidence_level / 2.0)
    return auc, se, max(0.0, auc - z * se), min(1.0, auc + z * se)


def delong_test(positive, scores_a, scores_b):
    """DeLong's test of two correlated AUCs: ``(auc_a, auc_b, z, two-sided p)``.

    ``z = (AUC_a - AUC_b) / sqrt(var_a + var_b - 2 cov_ab)``; p = 1 when the
    difference and its variance are both 0 (identical rankings).
    """
    est = DeLong(positive, np.vstack([scores_a, scores_b]))
    cov = est.covariance
    diff = float(est.auc[0] - est.auc[1])
    var = float(cov[0, 0] + cov[1, 1] - 2.0 * cov[0, 1])
    if var <= 0:
        return float(est.auc[0]), float(est.auc[1]), 0.0, 1.0
    z = diff / math.sqrt(var)
    return float(est.auc[0]), float(est.auc[1]), z, math.erfc(abs(z) / math.sqrt(2.0))


def delong_pvalues(positive, scores, pairs, sides="two", clusters=None):
    """DeLong p-values of the AUC differences of many pairs of systems on the same items.

    Parameters
    ----------
    positive : array of bool ``(n,)``
    scores : array ``(m, n)``, one row per system
    pairs : int array ``(P, 2)`` of ``(a, b)`` rows
    sides : {"two", "one"}
        ``one``: the p-value of H1 "AUC_a > AUC_b", i.e. ``P(Z >= z)``.
    clusters : array of int ``(n,)``, optional
        Each item's cluster: the covariance is then Obuchowski's (1997) for clustered
        data (:class:`DeLong`).

    Returns
    -------
    ndarray ``(P,)``: the placements are computed once per system and the
    covariance of all systems at once (DeLong et al. 1988), so all pairs cost
    one ``m x m`` covariance.  p = 1 for a pair whose difference has zero
    variance (identical rankings).
    """
    est = DeLong(positive, scores, clusters)
    pairs = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
    a, b = pairs[:, 0], pairs[:, 1]
    cov = est.covariance
    var = cov[a, a] + cov[b, b] - 2.0 * cov[a, b]
    diff = est.auc[a] - est.auc[b]
    out = np.ones(pairs.shape[0])
    for i in np.flatnonzero(var > 0):
        z = diff[i] / math.sqrt(var[i])
        out[i] = 0.5 * math.erfc(z / math.sqrt(2.0)) if sides == "one" else math.erfc(abs(z) / math.sqrt(2.0))
    return out
