"""Forecasting metrics: per-series statistics, and each metric as a formula of their sums.

The resampling unit is the **series** (a cluster of horizon points).  For every
configured metric a series contributes a few numbers (its columns, below); a
bootstrap replicate is a weighted sum of these columns over the series, the
weights being the series' resample counts ``c_i``, followed by the metric's
formula.  Three shapes cover every metric:

``mean``
    ``score = sum_i c_i v_i / sum_i c_i``: the mean over series of a per-series
    value ``v_i`` (utilsforecast's losses, then a mean over series, as its
    ``evaluate`` does; GluonTS's ``MASE``, ``sMAPE``, ``MAPE``, ``MSIS``,
    ``MSE`` aggregate the same way).
``ratio``
    ``score = sum_i c_i a_i / sum_i c_i b_i``: a pooled ratio (GluonTS's
    ``wQuantileLoss``, M5's WRMSSE, see :mod:`.hierarchy`).
``owa``
    ``0.5 * (sum c sMAPE / sum c sMAPE_N2 + sum c MASE / sum c MASE_N2)`` (M4).

Notation: series ``i`` has horizon points ``t = 1..h_i``, actuals ``y``, point
forecast ``f`` (the ``yhat`` column), quantile forecasts ``f_q`` and sample
paths ``x_1..x_S``; ``e = y - f``; ``s_i`` the in-sample scale (see
:mod:`.scales`).  The per-series values:

========== ==================================================================== ==========================
metric     per-series value ``v_i`` (or columns)                                reference
========== ==================================================================== ==========================
mae        ``mean_t |e|``                                                       utilsforecast ``mae``
mse        ``mean_t e^2``                                                       ``mse``; GluonTS ``MSE``
rmse       ``sqrt(mean_t e^2)``                                                 utilsforecast ``rmse``
mape       ``100 mean_t |e| / |y|`` (no actual may be 0)                        ``mape``; GluonTS ``MAPE``
smape      ``200 mean_t |e| / (|y| + |f|)`` (``0/0 = 0``)                       M4; GluonTS ``sMAPE``
mase       ``mean_t |e| / mean_{u>m} |z_u - z_{u-m}|`` (history ``z``, period m) M4; ``mase``
rmsse      ``sqrt(mean_t e^2 / mean_{u>1} (z_u - z_{u-1})^2)``                  M5; ``rmsse``
wrmsse     columns ``(w_i H_i, w_i)``, ratio (:mod:`.hierarchy`)                M5
owa        columns ``(sMAPE_i, MASE_i, sMAPE_N2_i, MASE_N2_i)``                 M4; GluonTS ``OWA``
pinball    ``mean_q mean_t rho_q(y - f_q)`` over the levels (or level ``q``)    ``quantile_loss``, ``mqloss``
wql        columns ``(2 mean_q sum_t rho_q(y - f_q), sum_t |y|)``, ratio        GluonTS ``mean_wQuantileLoss``
scaled_crps ``2 mean_q sum_t rho_q(y - f_q) / sum_t |y|``                       utilsforecast ``scaled_crps``
crps       ``mean_t 2 mean_q rho_q(y - f_q)`` (quantiles) or the energy form    Gneiting & Raftery (2007)
coverage   ``mean_t 1{f_lo <= y <= f_hi}``, ``lo, hi = (1 -+ level/100) / 2``    utilsforecast ``coverage``
msis       ``mean_t [f_hi - f_lo + 2/a (f_lo - y)^+ + 2/a (y - f_hi)^+] / s_i``  M4; GluonTS ``MSIS``
========== ==================================================================== ==========================

with the pinball loss ``rho_q(u) = max(q u, (q - 1) u)`` and ``a = 1 -
level/100``.  The energy form of the CRPS of ``S`` samples is ``mean_s |x_s -
y| - 1/(2 S^2) sum_{s,s'} |x_s - x_s'|``, computed from the sorted samples as
``sum_{s,s'} |x_s - x_s'| = 2 sum_k (2k - S - 1) x_(k)``.

Per-series sums run over the points in order (``numpy.bincount``, a fixed
order), and the replicate sums are exact
(:class:`~leaderboard_ci.core.accumulators.ExactSums`), so every numpy writes
the same bytes.

References
----------
Hyndman, R. J. & Koehler, A. B. (2006). Another look at measures of forecast
accuracy. IJF 22(4). -- Makridakis, S., Spiliotis, E. & Assimakopoulos, V.
(2020). The M4 Competition: 100,000 time series and 61 forecasting methods.
IJF 36(1). -- Makridakis, S., Spiliotis, E. & Assimakopoulos, V. (2022). M5
accuracy competition: results, findings, and conclusions. IJF 38(4). --
Gneiting, T. & Raftery, A. E. (2007). Strictly proper scoring rules,
prediction, and estimation. JASA 102(477). -- Alexandrov, A. et al. (2020).
GluonTS: probabilistic and neural time series modeling in Python. JMLR 21.
"""

from __future__ import annotations

import numbers
import re

import numpy as np

from ..metrics import Metric, Metrics, Option

__all__ = [
    "NAME",
    "METRICS",
    "QUANTILE_METRICS",
    "INTERVAL_METRICS",
    "shape_of",
    "Points",
    "series_columns",
    "score_from_sums",
    "pinball",
    "crps_samples",
]

NAME = "forecasting"

#: Metrics read from the quantile columns; those read from a central interval of them.
QUANTILE_METRICS = ("pinball", "wql", "scaled_crps")
INTERVAL_METRICS = ("coverage", "msis")
_RATIO = ("wql", "wrmsse")


def shape_of(name):
    """``"mean"``, ``"ratio"`` or ``"owa"``: how metric ``name``'s columns make a score (see the module)."""
    if name == "owa":
        return "owa"
    return "ratio" if name in _RATIO else "mean"


def pinball(y, forecast, q):
    """The pinball (quantile) loss ``max(q (y - f), (q - 1) (y - f))`` of each point."""
    delta = y - forecast
    return np.maximum(q * delta, (q - 1.0) * delta)


def crps_samples(y, samples):
    """The CRPS of each point from its sample paths ``(P, S)``, in the energy form (see the module).

    ``mean_s |x_s - y| - (1 / S^2) sum_k (2k - S - 1) x_(k)``, ``x_(k)`` the samples sorted.
    """
    samples = np.asarray(samples, dtype=np.float64)
    s = samples.shape[1]
    spread = np.zeros(samples.shape[0])
    ordered = np.sort(samples, axis=1)
    for k in range(s):  # a fixed order of the sum: the same bytes with every numpy
        spread += (2.0 * (k + 1) - s - 1.0) * ordered[:, k]
    absolute = np.zeros(samples.shape[0])
    for k in range(s):
        absolute += np.abs(samples[:, k] - y)
    return absolute / s - spread / (s * s)


class Points(object):
    """One system's forecasts of every horizon point, with what the formulas need from the gold.

    Attributes
    ----------
    series : int array ``(P,)``
        The series of each point (points grouped by series, in time order).
    n : int
        The number of series.
    y, forecast : float arrays ``(P,)``
        Actuals and point forecasts.
    quantiles : float array ``(P, K)`` or None
        The forecasts of the quantile ``levels`` (sorted, ascending).
    samples : float array ``(P, S)`` or None
        Sample paths.
    scale_mase, scale_rmsse : float arrays ``(n,)`` or None
        In-sample scales (:mod:`.scales`).
    naive2 : float array ``(P,)`` or None
        Naive2's forecasts (OWA).
    hierarchy : callable or None
        ``hierarchy(errors) -> (w_i H_i, w_i)``, WRMSSE's columns (:mod:`.hierarchy`).
    """

    def __init__(
        self,
        series,
        n,
        y,
        forecast,
        levels=(),
        quantiles=None,
        samples=None,
        scale_mase=None,
        scale_rmsse=None,
        naive2=None,
        hierarchy=None,
    ):
        self.series = np.asarray(series, dtype=np.intp)
        self.n = int(n)
        self.y = np.asarray(y, dtype=np.float64)
        self.forecast = np.asarray(forecast, dtype=np.float64)
        self.levels = tuple(float(q) for q in levels)
        self.quantiles = quantiles
        self.samples = samples
        self.scale_mase = scale_mase
        self.scale_rmsse = scale_rmsse
        self.naive2 = naive2
        self.hierarchy = hierarchy
        self.length = np.bincount(self.series, minlength=self.n).astype(np.float64)

    def total(self, values):
        """Per-series sums of per-point ``values`` (in point order: the same bytes on every numpy)."""
        return np.bincount(self.series, weights=values, minlength=self.n)

    def mean(self, values):
        """Per-series means of per-point ``values``."""
        return self.total(values) / self.length

    def quantile(self, q):
        """The forecasts of level ``q`` (one of :attr:`levels`)."""
        return self.quantiles[:, _level_index(self.levels, q)]

    def interval(self, level):
        """``(lower, upper, alpha)`` of the central ``level`` % interval."""
        alpha = 1.0 - level / 100.0
        return self.quantile(alpha / 2.0), self.quantile(1.0 - alpha / 2.0), alpha

    def pinball_terms(self, q=None):
        """Per-point pinball loss of level ``q``, or its mean over every level (``q`` None)."""
        if q is not None:
            return pinball(self.y, self.quantile(q), q)
        out = np.zeros(self.y.shape[0])
        for k, level in enumerate(self.levels):
            out += pinball(self.y, self.quantiles[:, k], level)
        return out / len(self.levels)


def _level_index(levels, q):
    for k, level in enumerate(levels):
        if abs(level - q) < 1e-9:
            return k
    raise ValueError("quantile level %g is not one of the forecast's levels %s" % (q, list(levels)))


def _smape(y, forecast):
    denominator = np.abs(y) + np.abs(forecast)
    safe = np.where(denominator == 0, 1.0, denominator)
    return np.where(denominator == 0, 0.0, 200.0 * np.abs(y - forecast) / safe)


def series_columns(name, options, points):
    """The per-series columns of metric ``name`` (see the module's table): a list of ``(n,)`` arrays."""
    options = dict(options or ())
    y, f = points.y, points.forecast
    error = y - f
    if name == "mae":
        return [points.mean(np.abs(error))]
    if name == "mse":
        return [points.mean(error * error)]
    if name == "rmse":
        return [np.sqrt(points.mean(error * error))]
    if name == "mape":
        return [points.mean(100.0 * np.abs(error) / np.abs(y))]
    if name == "smape":
        return [points.mean(_smape(y, f))]
    if name == "mase":
        return [points.mean(np.abs(error)) / points.scale_mase]
    if name == "rmsse":
        return [np.sqrt(points.mean(error * error) / points.scale_rmsse)]
    if name == "wrmsse":
        return list(points.hierarchy(error))
    if name == "owa":
        naive = points.naive2
        return [
            points.mean(_smape(y, f)),
            points.mean(np.abs(error)) / points.scale_mase,
            points.mean(_smape(y, naive)),
            points.mean(np.abs(y - naive)) / points.scale_mase,
        ]
    if name == "pinball":
        return [points.mean(points.pinball_terms(options.get("q")))]
    if name == "wql":
        return [2.0 * points.total(points.pinball_terms(options.get("q"))), points.total(np.abs(y))]
    if name == "scaled_crps":
        absolute = points.total(np.abs(y))
        loss = 2.0 * points.total(points.pinball_terms())
        return [np.where(absolute == 0, 0.0, loss / np.where(absolute == 0, 1.0, absolute))]
    if name == "crps":
        if points.samples is not None:
            return [points.mean(crps_samples(y, points.samples))]
        return [points.mean(2.0 * points.pinball_terms())]
    if name == "coverage":
        lower, upper, _ = points.interval(options.get("level", 95))
        return [points.mean(((y >= lower) & (y <= upper)).astype(np.float64))]
    if name == "msis":
        lower, upper, alpha = points.interval(options.get("level", 95))
        width = upper - lower
        below = np.where(y < lower, lower - y, 0.0)
        above = np.where(y > upper, y - upper, 0.0)
        return [points.mean(width + (2.0 / alpha) * below + (2.0 / alpha) * above) / points.scale_mase]
    raise ValueError("%r is not a forecasting metric" % (name,))


def score_from_sums(name, sums, count):
    """The score of metric ``name`` from the replicate sums of its columns ``sums`` ``(R, k)``.

    ``count`` ``(R,)`` is the replicate's number of series (the sum of their
    counts).  NaN where the replicate holds no series (an empty group), or a
    ratio's denominator is 0.
    """
    sums = np.asarray(sums, dtype=np.float64)
    count = np.asarray(count, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        shape = shape_of(name)
        if shape == "mean":
            out = sums[:, 0] / count
        elif shape == "ratio":
            out = sums[:, 0] / sums[:, 1]
        else:
            out = 0.5 * (sums[:, 0] / sums[:, 2] + sums[:, 1] / sums[:, 3])
    return np.where(count == 0, np.nan, out)


# ---------------------------------------------------------------------------
# The catalog: one entry per metric
# ---------------------------------------------------------------------------
Q_OPTION = Option(
    "q", "A quantile level (one of quantiles): pinball and wql at that level only; default: the mean over every level."
)
LEVEL_OPTION = Option(
    "level",
    "The central interval in percent (coverage, msis; default 95); its two quantiles "
    "(1 -+ level/100)/2 must be among quantiles.",
)
_OPTION_NAME = re.compile(r"^(pinball|quantile_loss|wql)(?:@|_q)([0-9.]+)$|^(cov|coverage|msis)(?:@|_)([0-9._]+)$")
_PREFIXES = {
    "pinball": ("pinball", "quantile_loss"),
    "wql": ("wql",),
    "coverage": ("cov", "coverage"),
    "msis": ("msis",),
}


def _level_text(level):
    return "%g" % level


class ForecastingMetric(Metric):
    """A forecasting metric: ``q`` (pinball, wql) and ``level`` (coverage, msis) name themselves in the key
    and title (``pinball_q09``, ``cov_95``), and a key with its option is a spelling of the metric."""

    def parse_name(self, name):
        """The option in a spelling such as ``pinball_q09``, ``wql@0.5``, ``cov_95`` or ``msis@90``, or None."""
        match = _OPTION_NAME.match(str(name))
        if match is None:
            return None
        if match.group(1):
            if match.group(1) not in _PREFIXES.get(self.name, ()):
                return None
            text = match.group(2)
            q = float(text) if "." in text else float("0." + text[1:]) if text.startswith("0") else None
            return {"q": q} if q is not None and 0 < q < 1 else None
        if match.group(3) not in _PREFIXES.get(self.name, ()):
            return None
        level = float(match.group(4).replace("_", "."))
        return {"level": level} if 0 < level < 100 else None

    def make_spec(self, options, defaults):
        """``(fields, default key, title)``: ``q`` and ``level`` live in the spec's ``options``."""
        name = self.name
        q, level = options.get("q"), options.get("level")
        if q is not None and name not in ("pinball", "wql"):
            raise ValueError("option q applies to pinball and wql, not %s" % name)
        if level is not None and name not in INTERVAL_METRICS:
            raise ValueError("option level applies to coverage and msis, not %s" % name)
        if q is not None:
            if isinstance(q, bool) or not isinstance(q, numbers.Real) or not 0 < q < 1:
                raise ValueError("q must be a quantile level strictly between 0 and 1, got %r" % (q,))
            text = _level_text(float(q))
            return (
                {"options": (("q", float(q)),)},
                "%s_q%s" % (name, text.replace(".", "")),
                "%s q%s" % (self.title, text),
            )
        if name in INTERVAL_METRICS:
            level = 95 if level is None else level
            if isinstance(level, bool) or not isinstance(level, numbers.Real) or not 0 < level < 100:
                raise ValueError("level must be an interval in percent strictly between 0 and 100, got %r" % (level,))
            text = _level_text(float(level))
            short = "cov" if name == "coverage" else name
            return (
                {"options": (("level", float(level)),)},
                "%s_%s" % (short, text.replace(".", "_")),
                "%s %s%%" % (self.title, text),
            )
        return {"options": ()}, name, self.title


def _metric(name, title, direction="lower", best=0.0, aliases=(), options=()):
    return ForecastingMetric(NAME, name, title, direction, best, ppi=False, aliases=aliases, options=options)


#: The catalog: adding a metric is one entry here and its columns in :func:`series_columns`.
METRICS = Metrics(
    [
        _metric("mae", "MAE"),
        _metric("mse", "MSE"),
        _metric("rmse", "RMSE"),
        _metric("mape", "MAPE"),
        _metric("smape", "sMAPE"),
        _metric("mase", "MASE"),
        _metric("rmsse", "RMSSE"),
        _metric("wrmsse", "WRMSSE"),
        _metric("owa", "OWA"),
        _metric("pinball", "Pinball loss", aliases=("quantile_loss", "mqloss"), options=(Q_OPTION,)),
        _metric(
            "wql",
            "WQL",
            aliases=("mean_wquantileloss", "mean_weighted_sum_quantile_loss", "weighted_quantile_loss"),
            options=(Q_OPTION,),
        ),
        _metric("scaled_crps", "Scaled CRPS"),
        _metric("crps", "CRPS"),
        _metric("coverage", "Coverage", "higher", 1.0, aliases=("interval_coverage",), options=(LEVEL_OPTION,)),
        _metric("msis", "MSIS", options=(LEVEL_OPTION,)),
    ],
    options=(Q_OPTION, LEVEL_OPTION),
)
