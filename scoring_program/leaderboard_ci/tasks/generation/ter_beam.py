"""sacrebleu 2.6's beam edit distance for TER, vectorized over the beam and over many shifted hypotheses.

The distance is Levenshtein's between a hypothesis (rows ``i = 0..n``) and the
reference (columns ``j = 0..m``), unit costs, computed only inside a band
around the pseudo-diagonal ``d_i = floor(i * m / n)``: row ``i`` keeps columns
``max(0, d_i - w) <= j < min(m + 1, d_i + w)`` (the last row up to ``m``), with
``w = 25``, or ``ceil(m / (2 n) + 25)`` when the reference is more than 50 times
longer; cells outside the band are infinite.  Each cell keeps the cheapest of
diagonal (match 0, substitution 1), vertical (a hypothesis word with no
reference word, 1) and horizontal (a reference word with no hypothesis word,
1), preferring them in that order on a tie, as sacrebleu does.

A row is computed in one pass of numpy: the diagonal and vertical candidates
elementwise, then the horizontal chain ``c_j = min(t_j, c_{j-1} + 1)`` as
``j + cummin(t_j - j)`` (a running minimum).  Many hypotheses are computed at
once, each at its own row, which is how TER's shift search evaluates its
candidates (:func:`shifted_distances`): a shifted hypothesis equals the current
one before the shifted span, so its rows start from the current rows there;
and once past the span, as soon as one of its rows differs from the current
hypothesis' row by a constant ``c`` in every cell of the band, every later row
does too (the recurrence commutes with adding a constant, and the same cells
are infinite), so its distance is the current distance minus ``c`` without
computing the rest.  Both shortcuts change no number and no tie: they are
exact.

References
----------
Snover, M., Dorr, B., Schwartz, R., Micciulla, L. and Makhoul, J. (2006). A study of translation edit
rate with targeted human annotation. *AMTA*.  Post, M. (2018). A call for clarity in reporting BLEU
scores. *WMT* (sacrebleu; ``sacrebleu/metrics/lib_ter.py`` for the beam and its limits).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "Band",
    "MATCH",
    "SUB",
    "HYP",
    "REF",
    "distance_of",
    "full_rows",
    "shifted_distances",
    "shifted_rows",
    "trace_of",
]

BEAM_WIDTH = 25
INFINITY = 10**16
# The operation that reached a cell: diagonal (match, substitution), vertical (a hypothesis word consumed
# alone), horizontal (a reference word consumed alone).
MATCH, SUB, HYP, REF = 0, 1, 2, 3


class Band(object):
    """The beam of an ``n``-word hypothesis against reference ids ``ref``: each row's first column and width."""

    def __init__(self, n, ref):
        m = len(ref)
        ratio = m / n if n else 1
        width = int(math.ceil(ratio / 2 + BEAM_WIDTH)) if BEAM_WIDTH < ratio / 2 else BEAM_WIDTH
        diagonal = np.floor(np.arange(1, n + 1) * ratio).astype(np.int64)
        low = np.maximum(0, diagonal - width)
        high = np.minimum(m + 1, diagonal + width)
        if n:
            high[-1] = m + 1
        # row 0 (all reference words inserted) is read by row 1 from its first column minus one
        first0 = max(0, int(low[0]) - 1) if n else 0
        last0 = int(high[0]) if n else m + 1
        self.n, self.m = n, m
        self.low = np.concatenate([[first0], low]).astype(np.int64)
        self.size = np.concatenate([[last0 - first0], high - low]).astype(np.int64)
        self.cells = int(self.size.max())
        step = int((self.low[1:] - self.low[:-1]).max()) if n else 0
        # reference ids shifted one to the right (column j holds word j - 1), padded past the last column
        self.ref = np.concatenate([[-1], np.asarray(ref, dtype=np.int64), np.full(self.cells + 1, -1)])
        self.pad = step + 2
        self.columns = np.arange(self.cells, dtype=np.int64)

    def first_row(self):
        """Row 0: ``j`` edits at column ``j`` (infinite outside the row's cells)."""
        row = self.low[0] + self.columns
        return np.where(self.columns < self.size[0], row, INFINITY)


def _rows_step(band, prev, rows, words, want_ops):
    """Row ``rows[k]`` of every hypothesis ``k`` from its row ``rows[k] - 1`` (``prev``) and word ``words[k]``."""
    k = prev.shape[0]
    low = band.low[rows]
    shift = (low - band.low[rows - 1])[:, None]
    padded = np.full((k, band.cells + band.pad + 1), INFINITY, dtype=np.int64)
    padded[:, 1 : band.cells + 1] = prev
    columns = band.columns[None, :]
    # prev's cell for column j - 1 sits at j - 1 - low(i - 1) + 1 in padded, i.e. c + shift
    diagonal = np.take_along_axis(padded, columns + shift, axis=1)
    vertical = np.take_along_axis(padded, columns + shift + 1, axis=1) + 1
    equal = band.ref[low[:, None] + columns] == words[:, None]
    diagonal = diagonal + (~equal)
    best = np.minimum(diagonal, vertical)
    row = np.minimum.accumulate(best - columns, axis=1) + columns
    inside = columns < band.size[rows][:, None]
    row = np.where(inside, row, INFINITY)
    if not want_ops:
        return row, None
    left = np.concatenate([np.full((k, 1), INFINITY, dtype=np.int64), row[:, :-1] + 1], axis=1)
    ops = np.where(equal, MATCH, SUB)
    ops = np.where(vertical < diagonal, HYP, ops)
    ops = np.where(left < best, REF, ops).astype(np.int8)
    return row, ops


def full_rows(band, hyp):
    """``(cost, ops)``: every row of hypothesis ids ``hyp``, ``(n + 1, cells)`` each (row ``i`` from column
    ``band.low[i]``)."""
    n = band.n
    cost = np.empty((n + 1, band.cells), dtype=np.int64)
    ops = np.full((n + 1, band.cells), REF, dtype=np.int8)
    cost[0] = band.first_row()
    hyp = np.asarray(hyp, dtype=np.int64)
    for i in range(1, n + 1):
        row, op = _rows_step(band, cost[i - 1 : i], np.array([i]), hyp[i - 1 : i], True)
        cost[i], ops[i] = row[0], op[0]
    return cost, ops


def distance_of(band, cost):
    """The edit distance in the last row of ``cost``."""
    return int(cost[band.n, band.m - band.low[band.n]])


def trace_of(band, ops):
    """The operations from ``(0, 0)`` to ``(n, m)`` along sacrebleu's preferred path (a list of op codes)."""
    low = band.low.tolist()
    table = ops.tolist()
    trace = []
    i, j = band.n, band.m
    while i > 0 or j > 0:
        op = table[i][j - low[i]] if i > 0 else REF
        trace.append(op)
        if op == MATCH or op == SUB:
            i, j = i - 1, j - 1
        elif op == HYP:
            i -= 1
        else:
            j -= 1
    trace.reverse()
    return trace


def shifted_distances(band, hyp, cost, candidates):
    """``(distances, rows)``: the edit distances of ``candidates`` ``(K, n)``, each hypothesis ``hyp``
    with one block of words moved, given ``hyp``'s rows ``cost`` (:func:`full_rows`); ``rows`` counts the
    rows computed (the work done)."""
    out, rows, _ = _advance(band, hyp, cost, None, np.asarray(candidates, dtype=np.int64).reshape(-1, band.n))
    return out, rows


def shifted_rows(band, hyp, cost, ops, candidate):
    """``(distance, cost, ops, rows)`` of one shifted hypothesis ``candidate``: its full rows, built from
    ``hyp``'s (``cost``, ``ops``) and the rows that differ."""
    candidate = np.asarray(candidate, dtype=np.int64).reshape(1, band.n)
    out, rows, new = _advance(band, hyp, cost, ops, candidate)
    return int(out[0]), new[0], new[1], rows


def _advance(band, hyp, cost, ops, candidates):
    """Rows of every candidate from where it first differs from ``hyp`` until its last row or until it
    runs parallel to ``hyp``'s rows (see the module's notes); with ``ops``, the one candidate's full rows."""
    n = band.n
    base = distance_of(band, cost)
    out = np.full(candidates.shape[0], base, dtype=np.int64)
    new = (cost.copy(), ops.copy()) if ops is not None else None
    differs = candidates != np.asarray(hyp, dtype=np.int64)[None, :]
    active = np.flatnonzero(differs.any(axis=1))
    if not n or not active.size:
        return out, 0, new
    start = np.argmax(differs[active], axis=1)  # rows before start + 1 are hyp's
    end = n - np.argmax(differs[active, ::-1], axis=1)  # words from end on are hyp's
    row = start + 1
    prev = cost[start]
    rows = 0
    end_column = band.m - int(band.low[n])
    while active.size:
        rows += active.size
        current, current_ops = _rows_step(band, prev, row, candidates[active, row - 1], ops is not None)
        parallel = row >= end
        offset = np.zeros(active.size, dtype=np.int64)
        if parallel.any():
            inside = band.columns[None, :] < band.size[row][:, None]
            gap = cost[row] - current
            low = np.where(inside, gap, INFINITY).min(axis=1)
            high = np.where(inside, gap, -INFINITY).max(axis=1)
            parallel &= low == high
            offset = low
        last = row == n
        done = parallel | last
        out[active[last]] = current[last, end_column]
        out[active[parallel & ~last]] = base - offset[parallel & ~last]
        if new is not None:
            new[0][row[0]], new[1][row[0]] = current[0], current_ops[0]
            if parallel[0] and not last[0]:
                tail = new[0][row[0] + 1 :]
                new[0][row[0] + 1 :] = np.where(tail < INFINITY, tail - offset[0], INFINITY)
        keep = ~done
        active, row, end, prev = active[keep], row[keep] + 1, end[keep], current[keep]
    return out, rows, new
