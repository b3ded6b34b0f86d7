"""Regression: one real number per item.

The task module protocol (see :mod:`leaderboard_ci.tasks`) for numbers:

* **parse**: :func:`encode_gold` and :func:`value_parser` (finite numbers;
  a decimal comma, NaN, infinity and out-of-range values get their own sentence);
* **per-item statistics**: exact fixed-point sums (:class:`~leaderboard_ci.core.accumulators.ExactSums`)
  of ``|y - p|``, ``(y - p)^2`` and the centred moments, within-sample ranks
  for Spearman (:class:`~leaderboard_ci.core.accumulators.RankSums`);
* **metrics**: MAE, MSE, RMSE, R², Pearson r, Spearman rho, equal to
  scikit-learn's / SciPy's on every replicate (``tests/test_metrics.py``).

Undefined values never become NaN: R² is 1 for a perfect prediction of a
constant gold and 0 otherwise (scikit-learn's ``force_finite``); Pearson and
Spearman are 0 when either side is constant (SciPy returns NaN).  The only NaN
is for a *group* with no items in a replicate.
"""

from __future__ import annotations

import math
import re

import numpy as np

from ...core.accumulators import CodeCounts, ExactSums, RankSums
from ..legacy import TaskType
from ..shared.base import MetricInfo

__all__ = [
    "NAME",
    "METRICS",
    "RegressionSums",
    "regression_score",
    "RegressionTask",
    "TASK",
    "encode_gold",
    "encode_values",
    "value_parser",
    "is_value",
    "decode",
    "Statistics",
    "item_contributions",
]

NAME = "regression"
_EPS = np.finfo(np.float64).eps
_MAX_ABS = 1e100
_SUM_ORDER = ("abs_err", "sq_err", "y", "yy", "p", "pp", "yp")

METRICS = {
    "mae": MetricInfo(NAME, "lower", 0.0, "MAE", ppi=False),
    "mse": MetricInfo(NAME, "lower", 0.0, "MSE", ppi=False),
    "rmse": MetricInfo(NAME, "lower", 0.0, "RMSE", ppi=False),
    "r2": MetricInfo(NAME, "higher", 1.0, "R\u00b2"),
    "pearson": MetricInfo(NAME, "higher", 1.0, "Pearson r"),
    "spearman": MetricInfo(NAME, "higher", 1.0, "Spearman rho"),
}
#: Other spellings of the metric names (listed in docs/configuration.md, generated from them).
ALIASES = {
    "pearsonr": "pearson",
    "spearmanr": "spearman",
    "mean_absolute_error": "mae",
    "mean_squared_error": "mse",
    "root_mean_squared_error": "rmse",
    "r2_score": "r2",
    "r_squared": "r2",
}
#: The metric options of this task (besides ``name`` and ``key``): none.
OPTIONS = ()


class RegressionSums:
    """Sums over the items of a (re)sample for regression metrics.

    All attributes are arrays of the same shape (one value per resample); a
    missing attribute is None.  ``y`` is the gold value and ``p`` the
    prediction, each centred by a constant (any constant: the formulas are
    shift invariant; centring only avoids cancellation).

    Attributes
    ----------
    n : count of items; abs_err : sum |y - p|; sq_err : sum (y - p)^2;
    y, yy, p, pp, yp : sums of y, y^2, p, p^2 and y*p.
    """

    __slots__ = ("n", "abs_err", "sq_err", "y", "yy", "p", "pp", "yp")

    def __init__(self, n, abs_err=None, sq_err=None, y=None, yy=None, p=None, pp=None, yp=None):
        self.n = np.asarray(n, dtype=np.float64)
        self.abs_err = abs_err
        self.sq_err = sq_err
        self.y = y
        self.yy = yy
        self.p = p
        self.pp = pp
        self.yp = yp


def _variance_sum(s, ss, n):
    """sum (x - mean)^2 from sum x and sum x^2, with rounding noise set to 0.

    The sums are correctly rounded, so for a constant sample the result is at
    most a few ulps of ``ss`` away from 0; anything within 16 ulps counts as
    zero variance.
    """
    v = ss - s * s / np.where(n == 0, 1.0, n)
    return np.where(v <= 16.0 * _EPS * np.abs(ss), 0.0, v)


def _correlation(sums):
    n = sums.n
    vy = _variance_sum(sums.y, sums.yy, n)
    vp = _variance_sum(sums.p, sums.pp, n)
    cov = sums.yp - sums.y * sums.p / np.where(n == 0, 1.0, n)
    prod = vy * vp
    r = cov / np.sqrt(np.where(prod == 0, 1.0, prod))
    return np.where(prod == 0, 0.0, np.clip(r, -1.0, 1.0))


def regression_score(spec, sums):
    """Score a regression metric for every (re)sample in ``sums``.

    ``spearman`` expects ``sums`` computed on within-sample ranks (see
    :class:`leaderboard_ci.core.accumulators.RankSums`).  NaN marks an empty sample.
    """
    n = sums.n
    safe_n = np.where(n == 0, 1.0, n)
    name = spec.name
    if name == "mae":
        out = sums.abs_err / safe_n
    elif name == "mse":
        out = sums.sq_err / safe_n
    elif name == "rmse":
        out = np.sqrt(sums.sq_err / safe_n)
    elif name == "r2":
        den = _variance_sum(sums.y, sums.yy, n)
        num = sums.sq_err
        out = np.where(den == 0, np.where(num == 0, 1.0, 0.0), 1.0 - num / np.where(den == 0, 1.0, den))
    elif name in ("pearson", "spearman"):
        out = _correlation(sums)
    else:
        raise ValueError("%r is not a regression metric" % (name,))
    return np.where(n == 0, np.nan, np.asarray(out, dtype=np.float64))


# Which per-item sums each regression metric needs.
REGRESSION_NEEDS = {
    "mae": ("abs_err",),
    "mse": ("sq_err",),
    "rmse": ("sq_err",),
    "r2": ("sq_err", "y", "yy"),
    "pearson": ("y", "yy", "p", "pp", "yp"),
}


# ---------------------------------------------------------------------------
# Values (the metric names and options are the protocol's defaults)
# ---------------------------------------------------------------------------
def _as_number(text):
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and "_" not in text else None


def encode_gold(source, lines, values, labels=None, config_name="config.yaml", settings=None):
    """``(float64 targets, None)``; a value that is not a finite number names its line."""
    numbers = [_as_number(value) for value in values]
    for line, number in zip(lines, numbers):
        if number is None:
            raise source.at(line, "the value is not a finite number (the metric is a regression metric)")
    return np.array(numbers, dtype=np.float64), None


def encode_values(gold_values, systems, labels=None, settings=None):
    """In-memory encoding for the analysis API: ``(targets, None, {name: values})`` (ValueError)."""
    gold = np.asarray(gold_values, dtype=np.float64)
    if gold.ndim != 1 or not np.all(np.isfinite(gold)):
        raise ValueError("the gold values must be %d finite numbers" % gold.size)
    coded = {}
    for name, preds in systems.items():
        arr = np.asarray(preds, dtype=np.float64)
        if arr.shape != gold.shape or not np.all(np.isfinite(arr)):
            raise ValueError("system %r needs %d finite numeric predictions" % (name, gold.size))
        coded[name] = arr
    return gold, None, coded


def value_parser(source, gold, quote=repr, settings=None):
    """``(convert(line, text) -> float, typecode)`` for a participant's numbers."""

    def convert(line, text):
        if text == "":
            raise source.at(line, "the prediction is empty; expected a number")
        try:
            value = float(text)
        except ValueError:
            value = None
        if value is None or "_" in text:
            hint = " (use a dot as the decimal separator)" if re.match(r"^[+-]?[0-9]*,[0-9]+$", text) else ""
            raise source.at(line, "%s is not a number%s" % (quote(text), hint))
        if value != value:
            raise source.at(line, "the prediction is NaN; expected a finite number")
        if math.isinf(value) and text.strip("+-").lower() in ("inf", "infinity"):
            raise source.at(line, "the prediction is infinite; expected a finite number")
        if not abs(value) <= _MAX_ABS:
            raise source.at(
                line, "the prediction %s is out of range (the limit is 1e100 in absolute value)" % quote(text)
            )
        return value

    return convert, "d"


def is_value(gold, text):
    """Whether a header field is really a value (a number), i.e. the file has no header."""
    return _as_number(text) is not None


def decode(gold, values):
    return np.asarray(values, dtype=np.float64)


# ---------------------------------------------------------------------------
# Per-item statistics and scores
# ---------------------------------------------------------------------------
class Statistics:
    """Exact sums of the per-item quantities the metrics need, overall and per group.

    One :class:`ExactSums` with a column per (needed sum, all items or group),
    :class:`CodeCounts` of the group codes when there are groups, and a
    :class:`RankSums` per group for Spearman.
    """

    def __init__(self, add, gold, predictions, metrics, group_codes, n_groups, layout=None):
        y = np.asarray(gold.values, dtype=np.float64)
        p = np.asarray(predictions, dtype=np.float64)
        if p.shape != y.shape:
            raise ValueError("predictions must have shape %s (one number per item), got %s" % (y.shape, p.shape))
        if not np.all(np.isfinite(p)):
            raise ValueError("predictions must be finite numbers")
        self.n = y.shape[0]
        # One centring constant for gold and predictions, shared by every system
        # (the formulas are shift invariant): swapping two systems' items, as
        # the permutation test does, then stays a linear operation on the sums.
        centre = y.mean()
        yc = y - centre
        pc = p - centre
        per_item = {
            "abs_err": np.abs(y - p),
            "sq_err": (y - p) ** 2,
            "y": yc,
            "yy": yc * yc,
            "p": pc,
            "pp": pc * pc,
            "yp": yc * pc,
        }
        needed = set()
        for spec in metrics:
            needed.update(REGRESSION_NEEDS.get(spec.name, ()))
        self._sum_names = [name for name in _SUM_ORDER if name in needed]
        has_groups = gold.groups is not None
        g = group_codes
        masks = [None] + ([g == j for j in range(n_groups)] if has_groups else [])
        columns = []
        self._sum_column = {}
        for name in self._sum_names:
            for j, mask in enumerate(masks):
                self._sum_column[(name, j)] = len(columns)
                columns.append(per_item[name] if mask is None else np.where(mask, per_item[name], 0.0))
        self._sums = add(ExactSums(np.stack(columns, axis=1))) if columns else None
        self._group_counts = add(CodeCounts(g, n_groups)) if has_groups else None
        self._ranks = {}
        if any(m.name == "spearman" for m in metrics):
            self._ranks[0] = add(RankSums(y, p))
            for j in range(n_groups if has_groups else 0):
                items = np.flatnonzero(g == j)
                self._ranks[j + 1] = add(RankSums(y[items], p[items], n_total=self.n, items=items))

    def prepare(self, stats):
        return stats

    def _sums_of(self, stats, j):
        """RegressionSums of all items (j = 0) or of group j - 1."""
        rows = None
        sums = {}
        if self._sums is not None:
            s = np.asarray(stats[self._sums], dtype=np.float64)
            rows = s.shape[0]
            for name in self._sum_names:
                sums[name] = s[:, self._sum_column[(name, j)]]
        if j == 0:
            if rows is None:
                rows = np.asarray(stats[0]).shape[0]
            n = np.full(rows, float(self.n))
        else:
            n = np.asarray(stats[self._group_counts], dtype=np.float64)[:, j - 1]
        return RegressionSums(n, **sums)

    def score(self, stats, spec, j):
        if spec.name == "spearman":
            r = np.asarray(stats[self._ranks[j]], dtype=np.float64)
            return regression_score(
                spec, RegressionSums(r[:, 0], y=r[:, 1], yy=r[:, 2], p=r[:, 3], pp=r[:, 4], yp=r[:, 5])
            )
        return regression_score(spec, self._sums_of(stats, j))


def item_contributions(spec, gold, predictions):
    """Per-item terms whose mean is ``spec`` (before a square root), or None for other metrics.

    Returns ``(terms, noun, coverage)``: the squared errors of MSE and RMSE, the
    absolute errors of MAE; ``noun`` names them in a note and ``coverage`` says
    what a coverage study found when a few of them dominate (None: not measured).
    """
    if spec.name not in ("mse", "rmse", "mae"):
        return None
    errors = np.asarray(gold.values, dtype=np.float64) - np.asarray(predictions, dtype=np.float64)
    if spec.name == "mae":
        return np.abs(errors), "absolute error", None
    return errors**2, "squared error", "about 90% instead of 95% at n = 300 in a coverage study"


class RegressionTask(TaskType):
    """Regression: one real number per item; the metrics take no options (the protocol's defaults)."""

    NAME, METRICS, ALIASES, OPTIONS, Statistics = NAME, METRICS, ALIASES, OPTIONS, Statistics
    encode_gold, value_parser, is_value = staticmethod(encode_gold), staticmethod(value_parser), staticmethod(is_value)
    encode_values, decode = staticmethod(encode_values), staticmethod(decode)
    item_contributions = staticmethod(item_contributions)


TASK = RegressionTask()
