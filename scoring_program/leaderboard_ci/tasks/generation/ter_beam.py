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
# Larger than any edit distance (at most words + reference words), small enough that int32 sums never overflow.
INFINITY = 2**30
# The operation that reached a cell: diagonal (match, substitution), vertical (a hypothesis word consumed
# alone), horizontal (a reference word consumed alone).
MATCH, SUB, HYP, REF = 0, 1, 2, 3
# A candidate is checked for rows parallel to the current ones every so many rows (any later row is as exact).
_CHECK_EVERY = 4


class Band(object):
    """The beam of an ``n``-word hypothesis against reference ids ``ref``.

    Row ``i`` is stored in ``width`` int32 slots: slot 0 and the slots past ``size[i]`` cells are infinite
    padding, slot ``c + 1`` holds column ``low[i] + c``.
    """

    def __init__(self, n, ref):
        m = len(ref)
        ratio = m / n if n else 1
        beam = int(math.ceil(ratio / 2 + BEAM_WIDTH)) if BEAM_WIDTH < ratio / 2 else BEAM_WIDTH
        diagonal = np.floor(np.arange(1, n + 1) * ratio).astype(np.int64)
        low = np.maximum(0, diagonal - beam)
        high = np.minimum(m + 1, diagonal + beam)
        if n:
            high[-1] = m + 1
        # row 0 (all reference words inserted) is read by row 1 from its first column minus one
        first0 = max(0, int(low[0]) - 1) if n else 0
        last0 = int(high[0]) if n else m + 1
        self.n, self.m = n, m
        self.low = np.concatenate([[first0], low]).astype(np.int64)
        self.size = np.concatenate([[last0 - first0], high - low]).astype(np.int64)
        self.cells = int(self.size.max())
        self.steps = (self.low[1:] - self.low[:-1]) if n else np.zeros(0, dtype=np.int64)
        self.step = np.concatenate([[0], self.steps]).astype(np.int64)
        self.width = self.cells + int(self.steps.max(initial=0)) + 2
        self.columns = np.arange(self.cells, dtype=np.int32)
        # row i's reference words, column by column (column j holds word j - 1; -1 where there is none)
        words = np.concatenate([[-1], np.asarray(ref, dtype=np.int64), np.full(self.cells, -1)])
        self.words = words[self.low[:, None] + self.columns[None, :]]
        self.inside = self.columns[None, :] < self.size[:, None]
        self.full = self.size == self.cells

    def first_row(self):
        """Row 0: ``j`` edits at column ``j``."""
        row = np.full(self.width, INFINITY, dtype=np.int32)
        row[1 : self.size[0] + 1] = self.low[0] + np.arange(self.size[0])
        return row

    def cell(self, row, column):
        """The slot of ``column`` in row ``row``."""
        return int(column - self.low[row] + 1)


def _rows_step(band, prev, rows, words, want_ops):
    """Row ``rows[k]`` of every hypothesis ``k`` from its row ``rows[k] - 1`` (``prev``) and word ``words[k]``."""
    k, cells = prev.shape[0], band.cells
    step = band.step[rows]
    # prev's slot for column j - 1 is c + step (c: the cell of column j in this row), for column j c + step + 1
    if not step.any():
        diagonal, vertical = prev[:, :cells], prev[:, 1 : cells + 1]
    elif step.min() == step.max():
        s = int(step[0])
        diagonal, vertical = prev[:, s : s + cells], prev[:, s + 1 : s + cells + 1]
    else:
        index = band.columns[None, :] + step[:, None]
        diagonal, vertical = np.take_along_axis(prev, index, axis=1), np.take_along_axis(prev, index + 1, axis=1)
    equal = band.words[rows] == words[:, None]
    diagonal = diagonal + (~equal)
    vertical = vertical + 1
    best = np.minimum(diagonal, vertical)
    out = np.full((k, band.width), INFINITY, dtype=np.int32)
    row = out[:, 1 : cells + 1]
    np.minimum.accumulate(best - band.columns, axis=1, out=row)
    row += band.columns
    if not band.full[rows].all():
        row[~band.inside[rows]] = INFINITY
    if not want_ops:
        return out, None
    ops = np.where(equal, MATCH, SUB).astype(np.int8)
    ops[vertical < diagonal] = HYP
    ops[out[:, :cells] + 1 < best] = REF  # the cell to the left, plus one
    return out, ops


def full_rows(band, hyp):
    """``(cost, ops)``: every row of hypothesis ids ``hyp``, ``(n + 1, width)`` and ``(n + 1, cells)``.

    The rows one by one (the horizontal chain needs the row before), then every cell's operation at once.
    """
    n, cells, columns = band.n, band.cells, band.columns
    cost = np.full((n + 1, band.width), INFINITY, dtype=np.int32)
    cost[0] = band.first_row()
    differ = (band.words[1:] != np.asarray(hyp, dtype=np.int64)[:, None]).astype(np.int32)
    steps, sizes = band.step.tolist(), band.size.tolist()
    best = np.empty(cells, dtype=np.int32)
    for i in range(1, n + 1):
        prev, s = cost[i - 1], steps[i]
        np.minimum(prev[s : s + cells] + differ[i - 1], prev[s + 1 : s + cells + 1] + 1, out=best)
        best -= columns
        row = cost[i, 1 : cells + 1]
        np.minimum.accumulate(best, out=row)
        row += columns
        row[sizes[i] :] = INFINITY  # outside the beam (the next row reads it)
    index = columns[None, :] + band.step[1:, None]
    diagonal = np.take_along_axis(cost[:-1], index, axis=1) + differ
    vertical = np.take_along_axis(cost[:-1], index + 1, axis=1) + 1
    ops = np.full((n + 1, cells), REF, dtype=np.int8)
    body = np.where(differ == 0, MATCH, SUB).astype(np.int8)
    body[vertical < diagonal] = HYP
    body[cost[1:, :cells] + 1 < np.minimum(diagonal, vertical)] = REF  # the cell to the left, plus one
    ops[1:] = body
    return cost, ops


def distance_of(band, cost):
    """The edit distance in the last row of ``cost``."""
    return int(cost[band.n, band.cell(band.n, band.m)])


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
    start = np.argmax(differs[active], axis=1)  # rows up to start are hyp's
    end = n - np.argmax(differs[active, ::-1], axis=1)  # words from end on are hyp's
    row = start + 1
    prev = cost[start]
    rows = 0
    last_slot = band.cell(n, band.m)
    cells = slice(1, band.cells + 1)
    while active.size:
        rows += active.size
        current, current_ops = _rows_step(band, prev, row, candidates[active, row - 1], ops is not None)
        last = row == n
        parallel = (row >= end) & ((row - start) % _CHECK_EVERY == 0) & ~last
        offset = None
        if parallel.any():
            gap = cost[row[parallel]][:, cells] - current[parallel][:, cells]
            inside = band.inside[row[parallel]]
            low = np.where(inside, gap, INFINITY).min(axis=1)
            same = low == np.where(inside, gap, -INFINITY).max(axis=1)
            offset = np.zeros(active.size, dtype=np.int64)
            offset[parallel] = low
            parallel[parallel] = same
        out[active[last]] = current[last, last_slot]
        if offset is not None:
            out[active[parallel]] = base - offset[parallel]
        if new is not None:
            new[0][row[0]], new[1][row[0]] = current[0], current_ops[0]
            if parallel[0]:
                tail = new[0][row[0] + 1 :]
                tail[tail < INFINITY] -= offset[0]
        keep = ~(parallel | last)
        if keep.all():
            row, prev = row + 1, current
        else:
            active, start, end, row, prev = active[keep], start[keep], end[keep], row[keep] + 1, current[keep]
    return out, rows, new
