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

    ``floor(100 * recall) + 1``, corrected by comparing with the thresholds themselves, so the count
    is the one a binary search of :data:`~.boxes.RECALL_THRESHOLDS` gives.
    """
    recall = np.asarray(recall, dtype=np.float64)
    n = np.floor(recall * (_N_POINTS - 1)).astype(np.intp) + 1
    np.clip(n, 0, _N_POINTS, out=n)
    for _ in range(2):
        n += (n < _N_POINTS) & (_RECALL_PADDED[np.minimum(n, _N_POINTS)] <= recall)
        n -= (n > 0) & (_RECALL_PADDED[np.maximum(n - 1, 0)] > recall)
    return n


class _Layout(object):
    """The units of one expansion (``copies`` of each tied image), and what each row sums over them.

    Per row, the *queries* are its true positives and its corrections to the base set, up to its
    last true positive (later units change nothing it reports); its true positives form *runs*,
    maximal sequences with no false positive between them.
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
        self.column = np.where(slot < 0, curves.image[src], curves.n_images + np.maximum(slot, 0) * copies + copy)
        outcome = curves.outcome[:, src] if total != n else curves.outcome
        base = curves.base_member[:, src] if total != n else curves.base_member
        n_rows = outcome.shape[0]
        queries, tp_flags, deltas, starts, ends = [], [], [], [], []
        row_len = np.zeros(n_rows, dtype=np.intp)
        run_count = np.zeros(n_rows, dtype=np.intp)
        last_query = np.full(base.shape[0], -1, dtype=np.intp)
        offset = 0
        for row in range(n_rows):
            tp = outcome[row] == TP
            tp_at = np.flatnonzero(tp)
            if not tp_at.size:
                continue
            stop = tp_at[-1] + 1
            b = curves.row_base[row]
            member = base[b][:stop]
            nonig = outcome[row][:stop] != IGNORED
            tp = tp[:stop]
            q = np.flatnonzero(tp | (nonig != member))
            queries.append(q)
            tp_flags.append(tp[q])
            deltas.append(nonig[q].astype(np.int8) - member[q].astype(np.int8))
            # runs: a true positive opens a run when a false positive precedes it (since the last one)
            fp_before = np.cumsum(nonig & ~tp)[tp_at]  # false positives up to each true positive
            new_run = np.ones(tp_at.shape[0], dtype=bool)
            new_run[1:] = fp_before[1:] != fp_before[:-1]
            at = np.searchsorted(q, tp_at) + offset  # each true positive's query number
            starts.append(at[new_run])
            ends.append(at[np.append(np.flatnonzero(new_run)[1:] - 1, tp_at.shape[0] - 1)])
            row_len[row] = q.shape[0]
            run_count[row] = starts[-1].shape[0]
            last_query[b] = max(last_query[b], q[-1])
            offset += q.shape[0]
        self.row_len = row_len
        self.run_count = run_count
        self.rows = np.flatnonzero(run_count)
        self.size = 0
        if not queries:
            self.query = np.zeros(0, dtype=np.intp)
            return
        self.query = np.concatenate(queries)
        self.is_tp = np.concatenate(tp_flags)
        self.delta = np.concatenate(deltas)
        self.has_delta = bool(np.any(self.delta))
        self.run_start = np.concatenate(starts)
        self.run_end = np.concatenate(ends)
        self.run_row = np.repeat(np.arange(n_rows), run_count)
        self.run_bounds = np.cumsum(run_count)
        # the base units each base's rows need (up to their last query), and each query's count of them before it
        row_base = curves.row_base[np.repeat(np.arange(n_rows), row_len)]
        self.base_units, self.base_queries, self.base_before = [], [], []
        for b in range(base.shape[0]):
            units = np.flatnonzero(base[b][: last_query[b] + 1]) if last_query[b] >= 0 else np.zeros(0, np.intp)
            mine = np.flatnonzero(row_base == b)
            self.base_units.append(units)
            self.base_queries.append(mine)
            self.base_before.append(np.searchsorted(units, self.query[mine], side="left"))
        self.size = self.query.shape[0] + sum(u.shape[0] for u in self.base_units)


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
        """Per row and replicate: sum of the 101 interpolated precisions (COCO) or the AP (VOC).

        Parameters
        ----------
        weights : int array ``(n_images, R)``
            Item-major resample counts (how often each image is drawn in each replicate).
        positives : float array ``(rows, R)``
            The rows' numbers of non-ignored gold boxes (``npig``) in each replicate.

        Returns
        -------
        float64 array ``(rows, R)``; 0 where a row has no true positive or no positive.
        """
        weights = np.asarray(weights)
        reps = weights.shape[1]
        out = np.zeros((self.n_rows, reps))
        if not self.n or not reps:
            return out
        copies = 1
        if self.tied_images.size:
            copies = max(1, int(weights[self.tied_images].max()))
        layout = self.layout(copies)
        if not layout.size:
            return out
        if self.tied_images.size:  # copy c of tied image i is present when w_i > c
            present = weights[self.tied_images][:, None, :] > np.arange(copies)[None, :, None]
            weights = np.concatenate([weights, present.reshape(-1, reps).astype(weights.dtype)], axis=0)
        # every partial sum is at most the largest weight times the units summed
        wide = np.int64 if int(weights.max()) * layout.size > 2**31 - 1 else np.int32
        w = np.take(weights, layout.column[layout.query], axis=0).astype(wide, copy=False)
        tp_incl = _segmented_cumsum(np.where(layout.is_tp[:, None], w, 0).astype(wide, copy=False), layout.row_len)
        if layout.has_delta:
            d_w = w * layout.delta[:, None].astype(wide)
            nonig_before = _segmented_cumsum(d_w.copy(), layout.row_len)
            nonig_before -= d_w  # exclusive: the units before each query
        else:
            nonig_before = np.zeros_like(w)
        for units, mine, before in zip(layout.base_units, layout.base_queries, layout.base_before):
            if not units.size or not mine.size:
                continue
            prefix = np.zeros((units.shape[0] + 1, reps), dtype=wide)
            np.cumsum(np.take(weights, layout.column[units], axis=0), axis=0, dtype=wide, out=prefix[1:])
            nonig_before[mine] += prefix[before]
        s, e = layout.run_start, layout.run_end
        tp_end = tp_incl[e]
        tp_before = (tp_incl[s] - w[s]).astype(np.float64)
        fp = (nonig_before[e] - (tp_end - w[e])).astype(np.float64)
        tp = tp_end.astype(np.float64)
        if self.points == "coco":
            envelope = tp / ((fp + tp) + EPS)
        else:
            envelope = np.zeros_like(tp)
            np.divide(tp, fp + tp, out=envelope, where=tp > 0)
        bounds, counts = layout.run_bounds, layout.run_count
        for row in layout.rows:
            lo, hi = bounds[row] - counts[row], bounds[row]
            envelope[lo:hi] = np.maximum.accumulate(envelope[lo:hi][::-1], axis=0)[::-1]
        npig = positives[layout.run_row]
        valid = npig > 0
        safe = np.where(valid, npig, 1.0)
        firsts = (bounds - counts)[layout.rows]
        if self.points == "coco":
            served = thresholds_reached(tp / safe)
            earlier = thresholds_reached(tp_before / safe)
            earlier[firsts] = 0  # the first run also serves the threshold 0
            terms = envelope * (served - earlier)
        else:
            terms = envelope * (tp - tp_before) / safe
        terms[~valid] = 0.0
        out[layout.rows] = np.add.reduceat(terms, firsts, axis=0)
        return out


def _segmented_cumsum(values, lengths):
    """Inclusive cumulative sums along axis 0 restarting at each segment of ``lengths`` (in place)."""
    np.cumsum(values, axis=0, dtype=values.dtype, out=values)
    ends = np.cumsum(lengths)
    present = lengths > 0
    offsets = np.zeros((lengths.shape[0], values.shape[1]), dtype=values.dtype)
    starts = (ends - lengths)[present]
    offsets[present] = np.where((starts > 0)[:, None], values[np.maximum(starts - 1, 0)], 0)
    values -= np.repeat(offsets, lengths, axis=0)
    return values
