"""What the scaled metrics take from the in-sample history: scales, Naive2, the naive benchmarks.

A history is given as flat arrays: ``series`` (the gold index of each point,
points grouped by series and in time order) and ``z`` (the values), for ``n``
series.  Everything here is vectorized over series: the series are taken in
blocks of one period and similar lengths, each a matrix with a series per
column (padded with zeros), so a lag is a slice and the loops run only over
lags, filter taps and time steps, never over series; 10^5 series of hundreds
of points each take about a second.  Every sum adds a series' terms one after
the other in time order from 0.0 (not numpy's pairwise ``sum``), so the bytes
do not depend on numpy's version or on how the series are blocked.

Scales
------
``mase``: ``mean_{u > m} |z_u - z_{u-m}|``, the in-sample MAE of the seasonal
naive forecast of period ``m`` (Hyndman & Koehler 2006; M4's ``masep``;
utilsforecast's ``mase``; GluonTS's ``seasonal_error``, which falls back to
``m = 1`` when the history has ``m`` points or fewer, as here).
``rmsse``: ``mean_{u > 1} (z_u - z_{u-1})^2``, the in-sample MSE of the naive
forecast (M5's RMSSE denominator).  With ``history_start: first_nonzero`` the
history of a series starts at its first non-zero value, as M5 computes its
scales ("the first non-zero demand observed").

Naive2 (M4)
-----------
:func:`naive2` is the M4 Competition's Naive2, as its R code
(``Benchmarks and Evaluation.R``: ``SeasonalityTest`` then
``decompose(type = "multiplicative")``) computes it, for a series of period
``m`` and ``N`` points:

1. *Seasonality test* (90 %): with ``r_k`` the lag-``k`` autocorrelation
   (R's ``acf``: ``sum_{t} (z_t - zbar)(z_{t+k} - zbar) / sum_t (z_t - zbar)^2``),
   the series is seasonal when ``m > 1``, ``N >= 3m``, ``m <= floor(10
   log10 N)`` (R's default ``lag.max``; beyond it ``acf`` has no lag ``m``
   and the test is false) and ``|r_m| > 1.645 / sqrt(N) * sqrt(1 + 2
   sum_{k<m} r_k^2)``.
2. *Classical multiplicative decomposition*: the trend is the centred moving
   average (weights ``1/m``, and ``1/(2m)`` at both ends of a window of
   ``m + 1`` when ``m`` is even); the seasonal figure of position ``p`` is the
   mean of ``z_t / trend_t`` over the points ``t = p (mod m)`` where the trend
   exists, divided by the mean of the ``m`` figures.
3. *Forecast*: the last deseasonalized value ``z_N / S_N`` times the seasonal
   figure of the last ``m`` positions, repeated: ``f_h = z_N / S_N *
   S_{N - m + ((h - 1) mod m) + 1}``.  A series that is not seasonal gets the
   naive forecast ``z_N``.

GluonTS's ``naive_2`` differs in step 1 (it compares ``2 r_m^2`` with a limit
that includes lag ``m``, and has no ``lag.max``); the M4 Python benchmarks
(``ML_benchmarks.py``) differ too (``r_1`` not squared).  The R code is the one
behind the published Naive2 results and OWA.

References
----------
Makridakis, S., Spiliotis, E. & Assimakopoulos, V. (2020). The M4 Competition:
100,000 time series and 61 forecasting methods. IJF 36(1), 54-74; the
competitors' guide and ``Mcompetitions/M4-methods``.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["History", "seasonal_scale", "seasonality_test", "seasonal_figures", "naive2", "seasonal_naive", "naive"]

#: The critical value of M4's 90 % seasonality test.
_T_CRIT = 1.645
#: The most cells (points and padding) of one block of series (:func:`_blocks`): 16 MB of float64.
_CELLS = 1 << 21


class History(object):
    """A history as flat arrays (see the module): ``series``, ``z`` and each series' ``start`` and ``length``."""

    def __init__(self, series, z, n):
        self.series = np.asarray(series, dtype=np.intp)
        self.z = np.asarray(z, dtype=np.float64)
        self.n = int(n)
        self.length = np.bincount(self.series, minlength=self.n).astype(np.int64)
        self.start = np.concatenate(([0], np.cumsum(self.length)[:-1])).astype(np.int64)
        if len(self.series) and np.any(np.diff(self.series) < 0):
            raise ValueError("history points must be grouped by series")
        # the position of each point within its series
        self.position = np.arange(len(self.series), dtype=np.int64) - self.start[self.series]

    def from_first_nonzero(self):
        """The history with each series starting at its first non-zero value (M5's scales)."""
        nonzero = self.z != 0
        first = np.full(self.n, np.iinfo(np.int64).max)
        hits = np.flatnonzero(nonzero)
        np.minimum.at(first, self.series[hits], self.position[hits])
        keep = self.position >= first[self.series]
        return History(self.series[keep], self.z[keep], self.n)

    def last(self):
        """The last value of each series (NaN for a series without history)."""
        out = np.full(self.n, np.nan)
        has = self.length > 0
        out[has] = self.z[self.start[has] + self.length[has] - 1]
        return out


def _column_sums(matrix):
    """Column sums of ``matrix`` added row by row from 0.0.

    This is the order in which ``numpy.bincount`` adds a series' points (one after the other,
    in time order), so a series' sums, and the bytes of every score built on them, are the
    same whether its points are summed flat or as a column.
    """
    out = np.zeros(matrix.shape[1:])
    for row in matrix:
        out += row
    return out


def _blocks(history, rows, period):
    """The series ``rows`` in blocks of one period ``m`` and similar lengths, each as a padded matrix.

    Yields ``(m, block, values, inside)``: ``block`` the series (a subset of ``rows``),
    ``values`` their histories as columns, ``(L, len(block))`` in time order with 0.0
    after each series' end, and ``inside`` where a series has a point.  Series are
    grouped by ``m`` and by length within a factor of ``2 ** 0.25`` (so padding adds
    at most 19 % of cells), and a block holds at most ``_CELLS`` cells, so memory stays
    bounded whatever the lengths.
    """
    rows = np.asarray(rows, dtype=np.int64)
    if not len(rows):
        return
    m_rows = period[rows]
    length = history.length[rows]
    bucket = np.floor(4.0 * np.log2(np.maximum(length, 1))).astype(np.int64)
    order = np.lexsort((length, bucket, m_rows))
    key = np.stack([m_rows[order], bucket[order]])
    cuts = np.flatnonzero(np.any(key[:, 1:] != key[:, :-1], axis=0)) + 1
    for group in np.split(order, cuts):
        width = int(length[group[-1]])  # the longest of the group (sorted by length)
        step = max(1, _CELLS // max(width, 1))
        for first in range(0, len(group), step):
            part = group[first : first + step]
            block = rows[part]
            time = np.arange(width)[:, None]
            inside = time < history.length[block][None, :]
            where = np.where(inside, history.start[block][None, :] + time, 0)
            values = np.where(inside, history.z[where], 0.0)
            yield int(m_rows[part[0]]), block, values, inside


def seasonal_scale(history, period, power=1):
    """``mean_{u > m} |z_u - z_{u-m}|^power`` per series (``period`` ``m`` an int or one per series).

    A series with ``m`` points or fewer falls back to ``m = 1`` (GluonTS's
    ``seasonal_error``); one with fewer than 2 points gets NaN.
    """
    period = np.broadcast_to(np.asarray(period, dtype=np.int64), (history.n,)).copy()
    period = np.where(period < history.length, period, 1)
    out = np.full(history.n, np.nan)
    for m, block, values, inside in _blocks(history, np.flatnonzero(history.length >= 2), period):
        diff = np.where(inside[m:], np.abs(values[m:] - values[:-m]), 0.0)
        if power != 1:
            diff = diff**power
        out[block] = _column_sums(diff) / (history.length[block] - m)
    return out


def _autocorrelations(history, period, candidate):
    """``(r, c0)``: ``r[i, k-1]`` the lag-``k`` autocorrelation of each candidate series ``i``, ``k <= m_i``.

    Each block of series (:func:`_blocks`) takes its lags as slices of its matrix.
    """
    max_lag = int(period[candidate].max())
    r = np.zeros((history.n, max_lag))
    c0 = np.zeros(history.n)
    for m, block, values, inside in _blocks(history, np.flatnonzero(candidate), period):
        mean = _column_sums(values) / history.length[block]
        centred = np.where(inside, values - mean, 0.0)
        c0[block] = _column_sums(centred * centred)
        for k in range(1, m + 1):
            r[block, k - 1] = _column_sums(centred[k:] * centred[:-k])
    with np.errstate(divide="ignore", invalid="ignore"):
        return r / c0[:, None], c0


def _lag_max(n_points):
    """R's default ``lag.max`` of ``acf``, ``floor(10 log10 N)`` (0 for an empty series), once per distinct ``N``."""
    distinct, inverse = np.unique(n_points, return_inverse=True)
    lag_max = np.array([int(math.floor(10.0 * math.log10(k))) if k > 0 else 0 for k in distinct.tolist()])
    return np.minimum(lag_max[inverse].astype(np.int64), n_points - 1)


def seasonality_test(history, period):
    """Whether each series is seasonal by M4's 90 % autocorrelation test (see the module), a bool array."""
    period = np.broadcast_to(np.asarray(period, dtype=np.int64), (history.n,))
    n_points = history.length
    candidate = (period > 1) & (n_points >= 3 * period) & (period <= _lag_max(n_points))
    out = np.zeros(history.n, dtype=bool)
    if not candidate.any():
        return out
    r, c0 = _autocorrelations(history, period, candidate)
    rows = np.flatnonzero(candidate & (c0 > 0))
    m = period[rows]
    squares = np.zeros(len(rows))
    for k in range(1, r.shape[1]):
        squares += np.where(k < m, r[rows, k - 1] ** 2, 0.0)
    limit = _T_CRIT / np.sqrt(n_points[rows].astype(np.float64)) * np.sqrt(1.0 + 2.0 * squares)
    out[rows] = np.abs(r[rows, m - 1]) > limit
    return out


def seasonal_figures(history, period, rows):
    """The multiplicative seasonal figures ``(len(rows), max m)`` of series ``rows`` (R's ``decompose``).

    The trend is R's ``filter(sides = 2)``: ``sum_j f[j] z[t + o - j]``, ``j = 0 .. taps - 1`` in that
    order, computed where the whole window lies in the series (elsewhere R's trend is NA).
    """
    period = np.broadcast_to(np.asarray(period, dtype=np.int64), (history.n,))
    rows = np.asarray(rows, dtype=np.int64)
    width = int(period[rows].max()) if len(rows) else 1
    total = np.zeros((history.n, width))
    count = np.zeros((history.n, width))
    for m, block, values, inside in _blocks(history, rows, period):
        taps = m + 1 if m % 2 == 0 else m
        offset = taps // 2
        n_rows = values.shape[0]
        if n_rows <= 2 * offset:
            continue  # no whole window in any series of the block
        trend = np.zeros((n_rows - 2 * offset, len(block)))
        for j in range(taps):
            weight = (0.5 if m % 2 == 0 and j in (0, taps - 1) else 1.0) / m
            trend += weight * values[2 * offset - j : n_rows - j]
        whole = inside[2 * offset :]  # the window of t (row t - offset of trend) ends inside the series
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(whole, values[offset : n_rows - offset] / trend, 0.0)
        local_total, local_count = np.zeros((m, len(block))), np.zeros((m, len(block)))
        with np.errstate(invalid="ignore"):  # inf - inf is NaN, as numpy.bincount makes it silently
            for t in range(len(ratio)):  # each position's ratios added in time order
                p = (t + offset) % m
                local_total[p] += ratio[t]
                local_count[p] += whole[t]
        total[block, :m], count[block, :m] = local_total.T, local_count.T
    total, count = total[rows], count[rows]
    with np.errstate(divide="ignore", invalid="ignore"):
        figures = total / count
    m_rows = period[rows]
    columns = np.arange(width)[None, :] < m_rows[:, None]
    figures = np.where(columns, figures, np.nan)
    norm = np.nansum(np.where(columns, figures, 0.0), axis=1) / m_rows
    return figures / norm[:, None]


def naive2(history, period, horizon):
    """M4's Naive2 forecasts (see the module): ``(n, max horizon)``, NaN beyond each series' ``horizon``."""
    period = np.broadcast_to(np.asarray(period, dtype=np.int64), (history.n,))
    horizon = np.broadcast_to(np.asarray(horizon, dtype=np.int64), (history.n,))
    width = int(horizon.max()) if history.n else 0
    last = history.last()
    out = np.repeat(last[:, None], width, axis=1)
    seasonal = np.flatnonzero(seasonality_test(history, period))
    if len(seasonal):
        figures = seasonal_figures(history, period, seasonal)
        m = period[seasonal]
        n_points = history.length[seasonal]
        row = np.arange(len(seasonal))
        deseasonalized = last[seasonal] / figures[row, (n_points - 1) % m]
        for h in range(width):
            out[seasonal, h] = deseasonalized * figures[row, (n_points - m + h % m) % m]
    out[np.arange(width)[None, :] >= horizon[:, None]] = np.nan
    return out


def seasonal_naive(history, period, horizon):
    """The seasonal naive forecasts ``z_{N - m + ((h - 1) mod m) + 1}`` (M4's ``naive_seasonal``), as :func:`naive2`."""
    period = np.broadcast_to(np.asarray(period, dtype=np.int64), (history.n,))
    horizon = np.broadcast_to(np.asarray(horizon, dtype=np.int64), (history.n,))
    width = int(horizon.max()) if history.n else 0
    m = np.minimum(period, np.maximum(history.length, 1))
    end = history.start + history.length
    out = np.empty((history.n, width))
    for h in range(width):
        out[:, h] = history.z[np.clip(end - m + h % m, 0, max(len(history.z) - 1, 0))]
    out[np.arange(width)[None, :] >= horizon[:, None]] = np.nan
    return out


def naive(history, horizon):
    """The naive forecasts (the last value), as :func:`naive2`."""
    horizon = np.broadcast_to(np.asarray(horizon, dtype=np.int64), (history.n,))
    width = int(horizon.max()) if history.n else 0
    out = np.repeat(history.last()[:, None], width, axis=1)
    out[np.arange(width)[None, :] >= horizon[:, None]] = np.nan
    return out
