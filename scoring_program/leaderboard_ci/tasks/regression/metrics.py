"""Regression: one real number per item.

The task type's metrics and statistics (its values are read in :mod:`.files`):

* **per-item statistics**: exact fixed-point sums (:class:`~leaderboard_ci.core.accumulators.ExactSums`)
  of ``|y - p|``, ``(y - p)^2`` and the centred moments, within-sample ranks
  for Spearman (:class:`~leaderboard_ci.core.accumulators.RankSums`);
* **metrics**: MAE, MSE, RMSE, R², Pearson r, Spearman rho, one
  :class:`~leaderboard_ci.tasks.metrics.Metric` each (the sums it needs and
  its formula), equal to scikit-learn's / SciPy's on every replicate
  (``tests/test_metrics.py``).

Undefined values never become NaN: R² is 1 for a perfect prediction of a
constant gold and 0 otherwise (scikit-learn's ``force_finite``); Pearson and
Spearman are 0 when either side is constant (SciPy returns NaN).  The only NaN
is for a *group* with no items in a replicate.
"""

from __future__ import annotations

import numpy as np

from ...core.accumulators import CodeCounts, ExactSums, RankSums
from ..metrics import Metric, Metrics

__all__ = ["NAME", "METRICS", "RegressionSums", "regression_score", "Statistics", "item_contributions"]

NAME = "regression"
_EPS = np.finfo(np.float64).eps
_SUM_ORDER = ("abs_err", "sq_err", "y", "yy", "p", "pp", "yp")
#: The sums of within-sample ranks (Spearman): a RankSums accumulator of their own.
_RANKS = "ranks"


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


def _mae(sums, spec):
    return sums.abs_err / np.where(sums.n == 0, 1.0, sums.n)


def _mse(sums, spec):
    return sums.sq_err / np.where(sums.n == 0, 1.0, sums.n)


def _rmse(sums, spec):
    return np.sqrt(sums.sq_err / np.where(sums.n == 0, 1.0, sums.n))


def _r2(sums, spec):
    den = _variance_sum(sums.y, sums.yy, sums.n)
    num = sums.sq_err
    return np.where(den == 0, np.where(num == 0, 1.0, 0.0), 1.0 - num / np.where(den == 0, 1.0, den))


def _pearson(sums, spec):
    return _correlation(sums)


_MOMENTS = ("y", "yy", "p", "pp", "yp")
METRICS = Metrics(
    [
        Metric(
            NAME,
            "mae",
            "MAE",
            "lower",
            0.0,
            ppi=False,
            aliases=("mean_absolute_error",),
            needs=("abs_err",),
            formula=_mae,
        ),
        Metric(
            NAME,
            "mse",
            "MSE",
            "lower",
            0.0,
            ppi=False,
            aliases=("mean_squared_error",),
            needs=("sq_err",),
            formula=_mse,
        ),
        Metric(
            NAME,
            "rmse",
            "RMSE",
            "lower",
            0.0,
            ppi=False,
            aliases=("root_mean_squared_error",),
            needs=("sq_err",),
            formula=_rmse,
        ),
        Metric(
            NAME,
            "r2",
            "R\u00b2",
            "higher",
            1.0,
            aliases=("r2_score", "r_squared"),
            needs=("sq_err", "y", "yy"),
            formula=_r2,
        ),
        Metric(NAME, "pearson", "Pearson r", "higher", 1.0, aliases=("pearsonr",), needs=_MOMENTS, formula=_pearson),
        # the same formula on within-sample ranks (RankSums)
        Metric(
            NAME, "spearman", "Spearman rho", "higher", 1.0, aliases=("spearmanr",), needs=(_RANKS,), formula=_pearson
        ),
    ]
)


def regression_score(spec, sums):
    """Score a regression metric for every (re)sample in ``sums`` (its formula; NaN marks an empty sample).

    ``spearman`` expects ``sums`` computed on within-sample ranks (see
    :class:`leaderboard_ci.core.accumulators.RankSums`).
    """
    if spec.name not in METRICS:
        raise ValueError("%r is not a regression metric" % (spec.name,))
    out = METRICS[spec.name].score(sums, spec)
    return np.where(sums.n == 0, np.nan, np.asarray(out, dtype=np.float64))


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
            if spec.name in METRICS:
                needed.update(METRICS[spec.name].needs)
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
        if _RANKS in needed:
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
        if _RANKS in METRICS[spec.name].needs:
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
