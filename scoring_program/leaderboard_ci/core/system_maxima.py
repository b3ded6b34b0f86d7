"""Each system's marginal-family maxima, gathered during the all-pairs first pass of rank sets.

The marginal rank set of system ``j`` is a step-down over its own ``m - 1`` comparisons
(:func:`~.simultaneous.rank_sets`).  Its first step needs, replicate by replicate, the
maximum ``M_j(0)`` of every one-sided statistic of those comparisons, and every later step
the maximum of their *reverse* statistics (:class:`~.simultaneous._Family`).  Both are maxima
of numbers the all-pairs family's first pass already computes: a pair ``(a, b)`` with reverse
statistics ``d = -s g(t*)`` gives system ``a`` the reverse statistics ``d`` and system ``b``
(the pair turned round: ``t*`` and ``s`` both change sign, exactly in floating point) ``d``
again, or ``-d`` for a tie (``s = +1`` in both orientations); the forward statistics are
``-d``, so each system's ``M_j(0)`` is the maximum of ``|d|``.  Maxima are exact, so the
marginal families' decisions equal those of their own pass over the pairs, which this saves.

A near-copy pair goes through its own transform ``g``, whose mirror is not the exact
negation; its two systems are *tainted* and their families make their own pass.
"""

from __future__ import annotations

import threading

import numpy as np

__all__ = ["SystemMaxima"]

#: Largest ``(m, B)`` pair of maxima gathered (two float64 arrays); beyond, the marginal families make their own pass.
MAX_BYTES = 1 << 30


class SystemMaxima(object):
    """``top[j]`` (every statistic) and ``reverse[j]`` (the reverse ones) of system ``j``'s comparisons, ``(m, B)``.

    Both start at 0, as a family's own maxima do.  :meth:`add` takes one chunk of the
    all-pairs first pass (threads may call it at once; the merges hold a lock).
    """

    def __init__(self, m, count, tie):
        self.top = np.zeros((m, count))
        self.reverse = np.zeros((m, count))
        self.tie = np.asarray(tie, dtype=bool)  # s = +1 both ways: delta is 0 (or not finite)
        self.tainted = np.zeros(m, dtype=bool)
        self._lock = threading.Lock()

    @classmethod
    def wanted(cls, m, count):
        """Whether gathering them fits :data:`MAX_BYTES`."""
        return 16 * m * count <= MAX_BYTES

    def taint(self, a, b):
        """Systems ``a`` and ``b`` have a near-copy pair: their families compute their own maxima."""
        self.tainted[a] = True
        self.tainted[b] = True

    def add(self, lo, a, b, d):
        """Merge the reverse statistics ``d`` ``(len(a), B)`` of pairs ``lo ..`` (``a``, ``b`` their systems).

        Returns the chunk's ``(max of d, max of |d|)`` over its pairs: the family's own reverse
        maximum and M(0) (the maximum of every forward and reverse statistic) of the chunk.
        """
        magnitude = np.abs(d)
        tie = self.tie[lo : lo + a.shape[0]]
        turned = d
        if tie.any():
            turned = d.copy()
            turned[tie] = np.negative(d[tie])
        breaks = np.flatnonzero(a[1:] != a[:-1]) + 1
        runs = list(zip(np.r_[0, breaks], np.r_[breaks, a.shape[0]]))
        firsts = [(a[s], d[s:e].max(axis=0), magnitude[s:e].max(axis=0)) for s, e in runs]
        with self._lock:
            for j, reverse, top in firsts:
                np.maximum(self.reverse[j], reverse, out=self.reverse[j])
                np.maximum(self.top[j], top, out=self.top[j])
            for s, e in runs:
                self._merge(b[s:e], turned[s:e], magnitude[s:e])
        return np.max([x for _, x, _ in firsts], axis=0), np.max([x for _, _, x in firsts], axis=0)

    def _merge(self, rows, reverse, top):
        if rows.shape[0] and rows[-1] - rows[0] == rows.shape[0] - 1 and np.all(np.diff(rows) == 1):
            view = slice(int(rows[0]), int(rows[-1]) + 1)  # consecutive systems (the upper triangle's runs)
            np.maximum(self.reverse[view], reverse, out=self.reverse[view])
            np.maximum(self.top[view], top, out=self.top[view])
            return
        for r, j in enumerate(rows):  # any order, repeats included
            np.maximum(self.reverse[j], reverse[r], out=self.reverse[j])
            np.maximum(self.top[j], top[r], out=self.top[j])
