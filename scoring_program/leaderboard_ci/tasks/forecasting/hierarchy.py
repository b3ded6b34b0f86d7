"""M5's WRMSSE over a hierarchy of levels, and what one bootstrap replicate of it is.

The metric (M5 Competitors' Guide, 2020)
---------------------------------------
A level is a grouping of the bottom series by some of their attributes (M5:
total; state; store; category; department; state x category; state x
department; store x category; store x department; item; item x state; item x
store, the bottom).  The series of a level are the sums of the bottom series of
each group, date by date (actuals and forecasts alike).  Every series ``g`` of
every level gets

    RMSSE_g = sqrt( mean_t (Y_g,t - F_g,t)^2 / mean_{u>1} (Z_g,u - Z_g,u-1)^2 )

(``Z`` its in-sample history, from its first non-zero value in M5) and the
weight ``W_g = S_g / S``: its dollar sales over the last 28 in-sample days
``S_g`` (the sum of its bottom series' sales ``s_i``) over the total ``S``.
With ``L`` levels, ``WRMSSE = (1/L) sum_levels sum_g W_g RMSSE_g``.

Since every level partitions the bottom series,

    WRMSSE = sum_i s_i H_i / sum_i s_i,   H_i = (1/L) sum_levels RMSSE_{g_l(i)},

where ``g_l(i)`` is the group of bottom series ``i`` at level ``l``: the
sales-weighted mean over bottom series of the mean RMSSE of their ancestors.
This identity is exact (it is a regrouping of the sum).

What a replicate is
-------------------
The resampling unit is the **bottom series**.  A replicate draws bottom series
with replacement (counts ``c_i``) and scores

    WRMSSE* = sum_i c_i s_i H_i / sum_i c_i s_i,

with each ``H_i`` the full-sample value: every drawn bottom series brings its
sales weight and its ancestors' RMSSE.  The weights of the levels' series are
thus recomputed from the drawn series (``W*_g = sum_{i in g} c_i s_i / sum_i
c_i s_i``), and the aggregates' RMSSE are those of the competition's
hierarchy.  The interval answers: how much would the score move if another
sample of bottom series, each carrying its share of the hierarchy, had been
scored?  It is a ratio of two linear sums, so a replicate costs two dot
products per series, and ``bootstrap.strata`` (e.g. by state or category) and
``bootstrap.cluster`` (e.g. by item) apply as to any statistic.

The other reading, rebuilding every aggregate from the drawn series (a drawn
series counted twice adds its sales twice to its store, and the store's scale
is recomputed from the rebuilt history), needs for each replicate the sums of
the drawn histories at every level: ``n * T`` products per replicate (30,490
series x 1,913 days at M5 scale, 6 x 10^11 for B = 10,000), which no
per-submission program can afford; it is not offered.

References
----------
Makridakis, S., Spiliotis, E. & Assimakopoulos, V. (2022). M5 accuracy
competition: results, findings, and conclusions. IJF 38(4), 1346-1364.
"""

from __future__ import annotations

import numpy as np

__all__ = ["level_codes", "aggregate_scales", "Hierarchy"]


def level_codes(levels, attributes, n):
    """``(n, L)`` group codes: ``attributes`` maps a column name to its ``n`` per-series values.

    ``levels`` is a sequence of column-name tuples (``()`` is the total); codes
    are in order of first appearance.
    """
    codes = np.zeros((n, len(levels)), dtype=np.int64)
    for k, columns in enumerate(levels):
        if not columns:
            continue
        keys = list(zip(*[attributes[c] for c in columns]))
        index = {}
        codes[:, k] = [index.setdefault(key, len(index)) for key in keys]
    return codes


def aggregate_scales(codes, series, dates, z, trim_leading_zeros):
    """The RMSSE scale of each bottom series' group at every level, ``(n, L)``.

    ``series``, ``dates`` (int codes, any order within a series) and ``z`` are the
    bottom series' history points.  A group's history is the sum of its
    members' values date by date; its scale is the mean squared difference of
    consecutive dates, from its first non-zero value with ``trim_leading_zeros``.
    """
    n, n_levels = codes.shape
    out = np.empty((n, n_levels))
    date_values, date_code = np.unique(dates, return_inverse=True)
    n_dates = len(date_values)
    for k in range(n_levels):
        groups = codes[:, k]
        n_groups = int(groups.max()) + 1 if n else 0
        key = groups[series] * n_dates + date_code
        total = np.bincount(key, weights=z, minlength=n_groups * n_dates).reshape(n_groups, n_dates)
        present = np.bincount(key, minlength=n_groups * n_dates).reshape(n_groups, n_dates) > 0
        scale = np.full(n_groups, np.nan)
        for g in range(n_groups):
            values = total[g, present[g]]
            if trim_leading_zeros:
                nonzero = np.flatnonzero(values != 0)
                values = values[nonzero[0] :] if len(nonzero) else values[:0]
            if len(values) > 1:
                diff = values[1:] - values[:-1]
                scale[g] = np.sum(diff * diff) / (len(values) - 1)
        out[:, k] = scale[groups]
    return out


class Hierarchy(object):
    """WRMSSE's columns ``(s_i H_i, s_i)`` for one system's errors (see the module).

    Parameters
    ----------
    codes : int array ``(n, L)``
        Each bottom series' group at each level.
    scales : float array ``(n, L)``
        The RMSSE scale of that group.
    weights : float array ``(n,)``
        The bottom series' sales weights ``s_i``.
    series, dates : int arrays ``(P,)``
        The series and the date code of each horizon point.
    """

    def __init__(self, codes, scales, weights, series, dates):
        self.codes = np.asarray(codes, dtype=np.int64)
        self.scales = np.asarray(scales, dtype=np.float64)
        self.weights = np.asarray(weights, dtype=np.float64)
        self.series = np.asarray(series, dtype=np.intp)
        self.n_dates = int(np.max(dates)) + 1 if len(dates) else 0
        self.dates = np.asarray(dates, dtype=np.int64)

    def ancestors_rmsse(self, errors):
        """``(n, L)``: the RMSSE of each bottom series' group at each level."""
        n, n_levels = self.codes.shape
        out = np.empty((n, n_levels))
        for k in range(n_levels):
            groups = self.codes[:, k]
            n_groups = int(groups.max()) + 1 if n else 0
            size = n_groups * self.n_dates
            key = groups[self.series] * self.n_dates + self.dates
            aggregate = np.bincount(key, weights=errors, minlength=size)
            present = np.bincount(key, minlength=size) > 0
            cells = np.flatnonzero(present)
            group_of = cells // max(self.n_dates, 1)
            squares = np.bincount(group_of, weights=aggregate[cells] ** 2, minlength=n_groups)
            steps = np.bincount(group_of, minlength=n_groups).astype(np.float64)
            group_scale = np.empty(n_groups)
            group_scale[groups] = self.scales[:, k]
            out[:, k] = np.sqrt(squares / steps / group_scale)[groups]
        return out

    def __call__(self, errors):
        mean_rmsse = np.zeros(self.codes.shape[0])
        ancestors = self.ancestors_rmsse(errors)
        for k in range(ancestors.shape[1]):  # a fixed order of the sum
            mean_rmsse += ancestors[:, k]
        mean_rmsse /= ancestors.shape[1]
        return self.weights * mean_rmsse, self.weights.copy()
