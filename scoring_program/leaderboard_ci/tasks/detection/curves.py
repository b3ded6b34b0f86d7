"""Average precision of one category on resampled images: weighted cumulative sums in one score order.

A bootstrap replicate draws images with replacement; image ``i`` drawn
``w_i`` times is copied ``w_i`` times, its gold boxes and detections with it.
Matching is per image (:mod:`.matching`), so every copy keeps its outcomes, and
a replicate's precision-recall curve is the original detections' sequence in
descending score order, each image's detections repeated ``w_i`` times.  This
module computes the curve's average precision from the ``w_i`` without
building the sequence.

The order of the resampled data set (the tie convention)
--------------------------------------------------------
pycocotools concatenates the images' detections in increasing image id, each
image's in its own descending score order (file order on ties), and sorts the
whole with a stable ``mergesort`` on the negated score.  The resampled data
set gives the copies new ids in the order of the original images (all copies
of the first image, then of the second...), so its sequence is: detections in
descending score; among equal scores, by original image, then copy, then the
image's own order.  With ``w_i`` copies a *tie block* (the detections of one
image with one score, in this category) is therefore repeated as a whole,
``ABAB`` and not ``AABB``.  Where a tie block holds both a true and a false
positive in some outcome row the two orders give different curves, so such a
block is expanded copy by copy (copy ``c`` is present when ``w_i > c``, up to
the largest ``w_i`` of the block of replicates); every other detection is one
*unit* of weight ``w_i``.

Average precision from units
----------------------------
Ignored detections change neither count, so only true positives (TP) and
false positives (FP) matter.  At the end of a TP unit ``u`` the cumulative
counts are ``TP_u`` (inclusive) and ``FP_u`` (the weighted FPs before it); its
precision is ``p_u = TP_u / (FP_u + TP_u + eps)`` (pycocotools adds
``eps = np.spacing(1)``), and the interpolated precision at a unit is the
largest ``p`` of it and every later unit (within a unit the precision rises
copy by copy, so its end dominates; a unit of weight 0 repeats an earlier
state and changes no maximum).

* COCO (101 points): pycocotools' precision at recall threshold ``r`` is the
  interpolated precision at the first position whose recall ``TP / npig``
  reaches ``r`` (0 when none does), so with ``N(c)`` the number of thresholds
  at most ``c / npig`` (the same floating-point division), unit ``u`` serves
  ``N(TP_u) - N(TP_u - w_u)`` thresholds (the first unit also the threshold 0):
  ``sum_r q_r = sum_u env_u (N(TP_u) - N(TP_u - w_u))``.
* VOC (all points, VOC2010+): the area under the interpolated curve,
  ``AP = sum_u env_u * w_u / npig`` with ``p_u = TP_u / (FP_u + TP_u)``.

The counts, by sums over few units
----------------------------------
A row's FP count before a unit is the weight of its non-ignored units before
it minus its TPs before it.  Many rows share most of their non-ignored units:
with a *base* set per area range (the detections whose own area ``w * h`` lies
in it), a row's non-ignored units are the base plus or minus matched
detections only (a detection matched to an ignored box leaves the base; one
matched to an in-range box joins it).  So each block of replicates takes one
cumulative sum over each base (all of the category's detections, and the
small/medium/large partition), and per row only sums over its TPs and these
corrections, whose number is bounded by the matched detections.  Every count
is an integer (exact); the precision is the same floating-point expression as
pycocotools', so each interpolated precision is the same double.

Standard library and numpy only (Python 3.7, numpy 1.17).
"""

from __future__ import annotations

import threading

import numpy as np

from .boxes import RECALL_THRESHOLDS
from .matching import FP, IGNORED, TP

__all__ = ["Curves", "thresholds_reached", "EPS"]

#: pycocotools' ``np.spacing(1)`` in the precision's denominator.
EPS = float(np.spacing(1))
_RECALL_PADDED = np.append(RECALL_THRESHOLDS, np.inf)
_N_POINTS = RECALL_THRESHOLDS.shape[0]


def thresholds_reached(recall):
    """``N``: how many of the 101 recall thresholds are at most each ``recall`` (searchsorted, side right).

    ``floor(100 * recall) + 1``; where ``100 * recall`` is within rounding of an integer the count is
    checked against the thresholds themselves, so it is the one a binary search of
    :data:`~.boxes.RECALL_THRESHOLDS` gives.
    """
    recall = np.asarray(recall, dtype=np.float64)
    flat = np.ravel(recall)
    scaled = flat * (_N_POINTS - 1)
    n = scaled.astype(np.intp)  # recall >= 0: truncation is the floor
    scaled -= n
    n += 1
    near = np.flatnonzero((scaled < 1e-6) | (scaled > 1 - 1e-6))
    if near.size:
        m, x = n[near], flat[near]
        m += _RECALL_PADDED[np.minimum(m, _N_POINTS)] <= x
        m -= _RECALL_PADDED[np.maximum(m - 1, 0)] > x
        n[near] = m
    return n.reshape(recall.shape)


class _Layout(object):
    """The units of one expansion (``copies`` of each tied image), and where each row reads its sums.

    Per row: its true positives (TP) up to its last one, in order, cut into *runs* (maximal sequences
    with no false positive between them); its *corrections* (units whose non-ignored status differs
    from the base set's membership: +1 joins, -1 leaves); and, for each run, how many TPs, corrections
    and base units come before its last TP.  The rows' lists are concatenated, so one cumulative sum
    per list serves every row (a row subtracts the sum before its own first entry).
    """

    def __init__(self, curves, copies):
        n = curves.n
        piece_start, piece_len, piece_reps, piece_slot = curves.pieces(copies)
        lengths = piece_len * piece_reps
        total = int(lengths.sum())
        piece = np.repeat(np.arange(piece_start.shape[0]), lengths)
        offset = np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        src = piece_start[piece] + offset % piece_len[piece]
        copy = offset // piece_len[piece]
        slot = piece_slot[piece]
        column = np.where(slot < 0, curves.image[src], curves.n_images + np.maximum(slot, 0) * copies + copy)
        outcome = curves.outcome[:, src] if total != n else curves.outcome
        base = curves.base_member[:, src] if total != n else curves.base_member
        n_rows, n_bases = outcome.shape[0], base.shape[0]
        tp_cols, d_cols, d_signs = [], [], []
        run = dict((k, []) for k in ("row", "end", "tp_row", "d_before", "d_row"))
        last_tp = np.full(n_bases, -1, dtype=np.intp)
        per_row = []
        tp_total = d_total = 0
        for row in range(n_rows):
            tp = outcome[row] == TP
            tp_at = np.flatnonzero(tp)
            if not tp_at.size:
                continue
            stop = tp_at[-1] + 1
            b = curves.row_base[row]
            member = base[b][:stop]
            nonig = outcome[row][:stop] != IGNORED
            d_at = np.flatnonzero(nonig != member)
            # a true positive opens a run when a false positive came since the previous one
            fp_count = np.cumsum(nonig & ~tp[:stop])[tp_at]
            opens = np.ones(tp_at.shape[0], dtype=bool)
            opens[1:] = fp_count[1:] != fp_count[:-1]
            starts = np.flatnonzero(opens)
            ends = np.append(starts[1:] - 1, tp_at.shape[0] - 1)
            tp_cols.append(column[tp_at])
            d_cols.append(column[d_at])
            d_signs.append(nonig[d_at].astype(np.int8) - member[d_at].astype(np.int8))
            end_at = tp_at[ends]
            run["row"].append(np.full(starts.shape[0], row, dtype=np.intp))
            run["end"].append(tp_total + ends)
            run["tp_row"].append(np.full(starts.shape[0], tp_total, dtype=np.intp))
            run["d_before"].append(d_total + np.searchsorted(d_at, end_at, side="left"))
            run["d_row"].append(np.full(starts.shape[0], d_total, dtype=np.intp))
            per_row.append((b, end_at))
            last_tp[b] = max(last_tp[b], tp_at[-1])
            tp_total += tp_at.shape[0]
            d_total += d_at.shape[0]
        self.size = 0
        self.n_runs = 0
        if not tp_cols:
            return
        self.tp_column = np.concatenate(tp_cols)
        self.d_column = np.concatenate(d_cols)
        self.d_sign = np.concatenate(d_signs)
        for key, parts in run.items():
            setattr(self, "run_" + key, np.concatenate(parts))
        self.n_runs = self.run_row.shape[0]
        # the base units each base's rows need (up to their last TP); each run's count of them before its end
        self.base_columns, self.base_runs, self.base_before = [], [], []
        run_base = curves.row_base[self.run_row]
        ends = np.concatenate([end_at for _, end_at in per_row])
        for b in range(n_bases):
            units = np.flatnonzero(base[b][: last_tp[b] + 1]) if last_tp[b] >= 0 else np.zeros(0, np.intp)
            mine = np.flatnonzero(run_base == b)
            self.base_columns.append(column[units])
            self.base_runs.append(mine)
            self.base_before.append(np.searchsorted(units, ends[mine], side="left"))
        self.row_runs = np.bincount(self.run_row, minlength=n_rows)
        self.rows = np.flatnonzero(self.row_runs)
        self.first_run = (np.cumsum(self.row_runs) - self.row_runs)[self.rows]
        self.size = self.tp_column.shape[0] + self.d_column.shape[0] + sum(c.shape[0] for c in self.base_columns)


class Curves(object):
    """Average-precision sums of one category's outcome rows under image weights.

    Parameters
    ----------
    image : int array ``(n,)``
        The image of each detection, the detections in the resampled data set's order
        (descending score, then image, then the image's own order; see the module docstring).
    score : float array ``(n,)``
        Their scores (tie blocks: equal score and image).
    outcome : int8 array ``(rows, n)``
        :data:`~.matching.TP`, :data:`~.matching.FP` or :data:`~.matching.IGNORED` per row.
    row_base : int array ``(rows,)``
        The base set of each row (see the module docstring).
    base_member : bool array ``(bases, n)``
        Which detections each base set holds.
    n_images : int
        Columns of the weight matrix.
    points : {"coco", "voc"}
        101-point interpolation (the sum over thresholds) or VOC's all-point area.
    """

    def __init__(self, image, score, outcome, row_base, base_member, n_images, points="coco"):
        self.image = np.asarray(image, dtype=np.intp)
        self.n = self.image.shape[0]
        self.outcome = np.asarray(outcome, dtype=np.int8)
        self.row_base = np.asarray(row_base, dtype=np.intp)
        self.base_member = np.asarray(base_member, dtype=bool)
        self.n_images = int(n_images)
        if points not in ("coco", "voc"):
            raise ValueError("points must be coco or voc, got %r" % (points,))
        self.points = points
        score = np.asarray(score, dtype=np.float64)
        new = np.ones(self.n, dtype=bool)
        new[1:] = (score[1:] != score[:-1]) | (self.image[1:] != self.image[:-1])
        starts = np.flatnonzero(new)
        lengths = np.diff(np.append(starts, self.n))
        block = np.cumsum(new) - 1
        has_tp = np.zeros((self.outcome.shape[0], starts.shape[0]), dtype=bool)
        has_fp = np.zeros_like(has_tp)
        if self.n:
            has_tp = np.logical_or.reduceat(self.outcome == TP, starts, axis=1)
            has_fp = np.logical_or.reduceat(self.outcome == FP, starts, axis=1)
        mixed = (lengths > 1) & np.any(has_tp & has_fp, axis=0)
        self.tied_images = np.unique(self.image[starts[mixed]])
        slot = np.full(self.n_images, -1, dtype=np.intp)
        slot[self.tied_images] = np.arange(self.tied_images.shape[0])
        # pieces: each unit outside a mixed block alone, each mixed block whole
        alone = ~mixed[block]
        first_of_mixed = np.zeros(self.n, dtype=bool)
        first_of_mixed[starts[mixed]] = True
        keep = alone | first_of_mixed
        self._piece_start = np.flatnonzero(keep)
        self._piece_len = np.where(alone[keep], 1, lengths[block[keep]])
        self._piece_mixed = ~alone[keep]
        self._piece_slot = np.where(self._piece_mixed, slot[self.image[keep]], -1)
        self._layouts = {}
        self._lock = threading.Lock()

    @property
    def n_rows(self):
        return self.outcome.shape[0]

    @property
    def units(self):
        """How many units one replicate sums over (without tie copies): the work per replicate."""
        return self.layout(1).size

    def pieces(self, copies):
        """``(start, length, repetitions, tied-image slot or -1)`` of each piece for ``copies``."""
        reps = np.where(self._piece_mixed, copies, 1)
        return self._piece_start, self._piece_len, reps, self._piece_slot

    def layout(self, copies):
        """The units for ``copies`` copies of each tied image (built once per value)."""
        copies = int(copies) if self.tied_images.size else 1
        found = self._layouts.get(copies)
        if found is None:
            found = _Layout(self, copies)
            with self._lock:
                self._layouts.setdefault(copies, found)
        return found

    def sums(self, weights, positives):
        """Per replicate and row: the sum of the 101 interpolated precisions (COCO) or the AP (VOC).

        Parameters
        ----------
        weights : int array ``(R, n_images)``
            Resample counts (how often each image is drawn in each replicate), int32 or int64.
        positives : float array ``(R, rows)``
            The rows' numbers of non-ignored gold boxes (``npig``) in each replicate.

        Returns
        -------
        sums : float64 array ``(R, rows)``
            0 where a row has no true positive or no positive.
        true_positives : float64 array ``(R, rows)``
            Each row's weighted number of true positives (exact integers).
        """
        weights = np.asarray(weights)
        reps = weights.shape[0]
        out = np.zeros((reps, self.n_rows))
        totals = np.zeros((reps, self.n_rows))
        if not self.n or not reps:
            return out, totals
        copies = 1
        if self.tied_images.size:
            copies = max(1, int(weights[:, self.tied_images].max()))
        layout = self.layout(copies)
        if not layout.size:
            return out, totals
        if self.tied_images.size:  # copy c of tied image i is present when w_i > c
            present = weights[:, self.tied_images][:, :, None] > np.arange(copies)[None, None, :]
            weights = np.concatenate([weights, present.reshape(reps, -1).astype(weights.dtype)], axis=1)
        # every partial sum is at most the largest weight times the units summed
        wide = np.int64 if int(weights.max()) * layout.size > 2**31 - 1 else np.int32
        if weights.dtype != wide:
            weights = weights.astype(wide)
        tp_sums = _prefix_sums(weights, layout.tp_column)
        d_sums = _prefix_sums(weights, layout.d_column, layout.d_sign)
        row_offset = tp_sums[:, layout.run_tp_row]
        tp = (tp_sums[:, layout.run_end + 1] - row_offset).astype(np.float64)  # TPs up to the run's end
        # non-ignored units before the run's last TP: the base's, plus the corrections, minus its TPs
        nonig = d_sums[:, layout.run_d_before] - d_sums[:, layout.run_d_row]
        for columns, runs, before in zip(layout.base_columns, layout.base_runs, layout.base_before):
            if runs.size:
                nonig[:, runs] += _prefix_sums(weights, columns)[:, before]
        fp = (nonig - (tp_sums[:, layout.run_end] - row_offset)).astype(np.float64)
        if self.points == "coco":
            envelope = tp / ((fp + tp) + EPS)
        else:
            envelope = np.zeros_like(tp)
            np.divide(tp, fp + tp, out=envelope, where=tp > 0)
        counts = layout.row_runs
        for row, lo in zip(layout.rows, layout.first_run):
            hi = lo + counts[row]
            envelope[:, lo:hi] = np.maximum.accumulate(envelope[:, lo:hi][:, ::-1], axis=1)[:, ::-1]
        # a run serves what its row has reached at its end, less what the row had reached before it
        # (the previous run's end: runs partition the row's TPs; the first run also serves threshold 0)
        npig = positives[:, layout.run_row]
        if self.points == "coco":
            reached = thresholds_reached(tp / np.where(npig > 0, npig, 1.0)).astype(np.float64)
        else:
            reached = tp
        before = np.zeros_like(reached)
        before[:, 1:] = reached[:, :-1]
        before[:, layout.first_run] = 0
        sums = _exact_weighted_sums(envelope, reached - before, layout.first_run)
        row_npig = positives[:, layout.rows]
        if self.points == "voc":
            np.divide(sums, row_npig, out=sums, where=row_npig > 0)
        sums[row_npig <= 0] = 0.0
        out[:, layout.rows] = sums
        totals[:, layout.rows] = tp[:, layout.first_run + layout.row_runs[layout.rows] - 1]
        return out, totals


def _prefix_sums(weights, columns, signs=None):
    """``(R, len(columns) + 1)``: 0, then the cumulative sums of the weights of ``columns`` (times ``signs``)."""
    out = np.zeros((weights.shape[0], columns.shape[0] + 1), dtype=weights.dtype)
    if columns.size:
        taken = np.take(weights, columns, axis=1)
        if signs is not None:
            taken *= signs.astype(weights.dtype)
        np.cumsum(taken, axis=1, out=out[:, 1:])
    return out


def _exact_weighted_sums(values, weights, starts):
    """Sums of ``values * weights`` over the segments of axis 1 that begin at ``starts``, exactly.

    ``values`` lie in [0, 1], ``weights`` are non-negative integers (as floats) whose sum over a
    segment stays below 2**22.  Each value is split on a fixed grid into two integer-valued parts
    (30 and 22 bits), whose weighted sums are exact in float64; one rounding combines them.  So
    ``v * a + v * b`` and ``v * (a + b)`` give the same bytes, whatever the runs' layout (a run split
    in two by a copy of weight 0, a run of weight 0), and the part left out is below 2**-52 per unit
    of weight.
    """
    if weights.size and float(np.max(np.add.reduceat(weights, starts, axis=1))) >= 2**22:
        return np.add.reduceat(values * weights, starts, axis=1)  # beyond 4 million positives: rounded sums
    scaled = np.ldexp(values, 30)
    high = np.floor(scaled)
    scaled -= high
    low = np.floor(np.ldexp(scaled, 22))
    high *= weights
    low *= weights
    return np.ldexp(np.add.reduceat(high, starts, axis=1) + np.ldexp(np.add.reduceat(low, starts, axis=1), -22), -30)
