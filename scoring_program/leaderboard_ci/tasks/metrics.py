"""Metrics computed from sufficient statistics, vectorized over resamples.

Every metric here is a function of a few sums over the test items: class
counts for classification, and sums of per-item quantities for regression.
A bootstrap replicate only changes how many times each item is counted, so a
replicate's score is the same function of the re-weighted sums.  The sums are
computed elsewhere (:mod:`leaderboard_ci.core.accumulators`), exactly; this module
only turns them into scores, for any number of replicates at once (leading
array axes).

Every metric equals scikit-learn's (classification, MAE, MSE, RMSE, R²) or
SciPy's (Pearson, Spearman) value on the full sample and on each resample;
``tests/test_metrics.py`` checks this to 1e-12 on the same resamples.

Statistical choices (also in the README)
----------------------------------------
* **Label set.**  Averages over classes use the *task's* label set (the
  configured ``labels``, or the classes of the full gold standard) on every
  replicate, exactly as scikit-learn does when given ``labels=``.  The
  statistic must be one fixed function of the data: with a replicate-dependent
  label set, a rare class that happens not to be drawn would silently change
  what "macro" averages over, and two systems compared on the same replicate
  could be averaged over different classes.  A class absent from a replicate
  contributes ``zero_division`` where its score is 0/0, as in scikit-learn.
  Balanced accuracy is the exception, because scikit-learn defines it as the
  mean recall over the classes *present in the gold standard*; gold presence
  is shared by all systems, so it stays paired.
* **Undefined values never become NaN.**  Precision, recall and F1 use
  ``zero_division`` (0 or 1).  MCC is 0 when undefined (scikit-learn).
  Cohen's kappa is 0 when undefined (scikit-learn's
  ``replace_undefined_by=0.0``).  R² is 1 for a perfect prediction of a
  constant gold and 0 otherwise (scikit-learn's ``force_finite``).  Pearson and
  Spearman are 0 when either side is constant (SciPy returns NaN): no linear or
  monotone association can be measured.  The only NaN this module returns is
  for a *group* with no items in a replicate; the interval code drops those
  replicates and counts them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Tuple

import numpy as np


__all__ = [
    "ClassStats",
    "RegressionSums",
    "MetricInfo",
    "MetricSpec",
    "METRICS",
    "classification_score",
    "regression_score",
    "per_class_scores",
]

_EPS = np.finfo(np.float64).eps


# ---------------------------------------------------------------------------
# Sufficient statistics
# ---------------------------------------------------------------------------
class ClassStats:
    """Class counts of one or many (re)samples.

    Parameters
    ----------
    tp, pred, true : array_like of shape ``(..., K)``
        Per class: correct predictions, predictions, and gold occurrences.
    confusion : array_like of shape ``(..., K, K)``, optional
        Gold classes in rows, predicted classes in columns.  Only weighted
        kappa needs it.
    """

    __slots__ = ("tp", "pred", "true", "confusion")

    def __init__(self, tp, pred, true, confusion=None):
        self.tp = np.asarray(tp, dtype=np.float64)
        self.pred = np.asarray(pred, dtype=np.float64)
        self.true = np.asarray(true, dtype=np.float64)
        self.confusion = None if confusion is None else np.asarray(confusion, dtype=np.float64)

    @classmethod
    def from_confusion(cls, confusion):
        c = np.asarray(confusion, dtype=np.float64)
        tp = np.diagonal(c, axis1=-2, axis2=-1).copy()
        return cls(tp, c.sum(axis=-2), c.sum(axis=-1), confusion=c)

    @property
    def n(self):
        return self.true.sum(axis=-1)


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


# ---------------------------------------------------------------------------
# Classification
# ---------------------------------------------------------------------------
def _divide(num, den, zero_division):
    """num / den, with ``zero_division`` where den == 0 (scikit-learn's rule)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    zero = den == 0
    out = num / np.where(zero, 1.0, den)
    if np.any(zero):
        out = np.where(zero, zero_division, out)
    return out


def _average(values, average, weights):
    """Average per-class values over the last axis like scikit-learn."""
    if average == "macro" or average == "binary":
        return values.mean(axis=-1)
    if average == "weighted":
        total = weights.sum(axis=-1)
        weighted = (values * weights).sum(axis=-1) / np.where(total == 0, 1.0, total)
        # scikit-learn falls back to the plain mean when all weights are zero.
        return np.where(total == 0, values.mean(axis=-1), weighted)
    raise ValueError("unknown average %r" % (average,))


def _prf(kind, tp, pred, true, average, zero_division):
    """Precision, recall or F1 of the selected classes, averaged."""
    if average == "micro":
        tp, pred, true = tp.sum(axis=-1), pred.sum(axis=-1), true.sum(axis=-1)
    if kind == "precision":
        values = _divide(tp, pred, zero_division)
    elif kind == "recall":
        values = _divide(tp, true, zero_division)
    else:
        values = _divide(2.0 * tp, true + pred, zero_division)
    if average == "micro":
        return values
    return _average(values, average, true)


def _mcc(stats):
    t, p = stats.true, stats.pred
    n = t.sum(axis=-1)
    correct = stats.tp.sum(axis=-1)
    cov_tp = correct * n - (t * p).sum(axis=-1)
    cov_pp = n * n - (p * p).sum(axis=-1)
    cov_tt = n * n - (t * t).sum(axis=-1)
    prod = cov_pp * cov_tt
    return np.where(prod == 0, 0.0, cov_tp / np.sqrt(np.where(prod == 0, 1.0, prod)))


def _kappa(stats, weights):
    t, p = stats.true, stats.pred
    n = t.sum(axis=-1)
    k = t.shape[-1]
    if weights is None:
        observed = n - stats.tp.sum(axis=-1)  # sum of off-diagonal counts
        # sum_{i != j} p_i t_j / n  ==  (n^2 - sum_k p_k t_k) / n
        expected = (n * n - (p * t).sum(axis=-1)) / np.where(n == 0, 1.0, n)
    else:
        if stats.confusion is None:
            raise ValueError("weighted kappa needs the confusion matrix")
        grid = np.arange(k, dtype=np.float64)
        w = np.abs(grid[None, :] - grid[:, None])
        if weights == "quadratic":
            w = w ** 2
        observed = (stats.confusion * w).sum(axis=(-2, -1))
        outer = t[..., :, None] * p[..., None, :]  # gold rows x predicted columns
        expected = (outer * w).sum(axis=(-2, -1)) / np.where(n == 0, 1.0, n)
    undefined = (n == 0) | (expected == 0)
    return np.where(undefined, 0.0, 1.0 - observed / np.where(undefined, 1.0, expected))


def _balanced_accuracy(stats):
    present = stats.true > 0
    recall = stats.tp / np.where(present, stats.true, 1.0)
    n_present = present.sum(axis=-1)
    return (recall * present).sum(axis=-1) / np.where(n_present == 0, 1, n_present)


def classification_score(spec, stats, label_index=None):
    """Score a classification metric for every (re)sample in ``stats``.

    Parameters
    ----------
    spec : MetricSpec
    stats : ClassStats
        Counts with the classes in the task's label order.
    label_index : sequence of int, optional
        Positions of ``spec.labels`` (the averaging subset) in the label order;
        all classes when None.

    Returns
    -------
    ndarray of scores, one per (re)sample; NaN where the sample is empty.
    """
    n = stats.n
    name = spec.name
    if name == "accuracy":
        out = stats.tp.sum(axis=-1) / np.where(n == 0, 1.0, n)
    elif name == "balanced_accuracy":
        out = _balanced_accuracy(stats)
    elif name in ("precision", "recall", "f1"):
        tp, pred, true = stats.tp, stats.pred, stats.true
        if label_index is not None:
            sel = np.asarray(label_index, dtype=np.intp)
            tp, pred, true = tp[..., sel], pred[..., sel], true[..., sel]
        out = _prf(name, tp, pred, true, spec.average, spec.zero_division)
    elif name == "mcc":
        out = _mcc(stats)
    elif name == "cohen_kappa":
        out = _kappa(stats, spec.weights)
    else:
        raise ValueError("%r is not a classification metric" % (name,))
    out = np.asarray(out, dtype=np.float64)
    return np.where(n == 0, np.nan, out)


def per_class_scores(stats, zero_division=0.0):
    """Per-class precision, recall and F1 (arrays of shape ``(..., K)``)."""
    precision = _divide(stats.tp, stats.pred, zero_division)
    recall = _divide(stats.tp, stats.true, zero_division)
    f1 = _divide(2.0 * stats.tp, stats.true + stats.pred, zero_division)
    return precision, recall, f1


# ---------------------------------------------------------------------------
# Regression
# ---------------------------------------------------------------------------
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
# The registry and the metric specification
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class MetricInfo:
    """What is fixed about a metric.

    ``ppi`` says whether the Performance Potential Index (100 x distance from
    the winner to ``best``) is meaningful: only for metrics on a fixed,
    unit-free scale.
    """

    kind: str  # "classification" | "regression": how predictions are parsed
    direction: str  # "higher" | "lower" (which is better)
    best: Optional[float]
    title: str
    ppi: bool = True
    needs_average: bool = False


METRICS = {
    "accuracy": MetricInfo("classification", "higher", 1.0, "accuracy"),
    "balanced_accuracy": MetricInfo("classification", "higher", 1.0, "balanced accuracy"),
    "precision": MetricInfo("classification", "higher", 1.0, "precision", needs_average=True),
    "recall": MetricInfo("classification", "higher", 1.0, "recall", needs_average=True),
    "f1": MetricInfo("classification", "higher", 1.0, "F1", needs_average=True),
    "mcc": MetricInfo("classification", "higher", 1.0, "MCC"),
    "cohen_kappa": MetricInfo("classification", "higher", 1.0, "Cohen's kappa"),
    "mae": MetricInfo("regression", "lower", 0.0, "MAE", ppi=False),
    "mse": MetricInfo("regression", "lower", 0.0, "MSE", ppi=False),
    "rmse": MetricInfo("regression", "lower", 0.0, "RMSE", ppi=False),
    "r2": MetricInfo("regression", "higher", 1.0, "R²"),
    "pearson": MetricInfo("regression", "higher", 1.0, "Pearson r"),
    "spearman": MetricInfo("regression", "higher", 1.0, "Spearman rho"),
}

@dataclass(frozen=True)
class MetricSpec:
    """One configured metric: a registry name plus its parameters.

    Build it with :func:`parse_metric`, which validates the parameters.
    """

    name: str
    key: str
    average: Optional[str] = None
    labels: Optional[Tuple[str, ...]] = None
    pos_label: Optional[str] = None
    zero_division: float = 0.0
    weights: Optional[str] = None
    custom_path: Optional[str] = None
    custom_info: Optional[MetricInfo] = field(default=None, compare=False)

    @property
    def info(self):
        if self.name == "custom":
            return self.custom_info
        return METRICS[self.name]

    @property
    def kind(self):
        return self.info.kind

    @property
    def direction(self):
        return self.info.direction

    @property
    def better(self):
        """Which way is better, in words: ``"higher is better"`` or ``"lower is better"``."""
        return "%s is better" % self.direction

    @property
    def sign(self):
        """+1 when higher is better, -1 when lower is better."""
        return 1.0 if self.direction == "higher" else -1.0

    @property
    def title(self):
        info = self.info
        if self.name in ("precision", "recall", "f1"):
            title = "%s-%s" % (self.average, info.title)
            if self.average == "binary" and self.pos_label is not None:
                title = "%s (%s)" % (info.title, self.pos_label)
            if self.labels is not None and self.average != "binary":
                title += " (%s)" % ", ".join(self.labels)
            return title
        if self.name == "cohen_kappa" and self.weights:
            return "%s-weighted kappa" % self.weights
        return info.title



def ppi(spec, winner_score):
    """Performance Potential Index: 100 x the winner's distance to the best value.

    Returns ``(value, reason)``: ``value`` is None when the metric has no fixed
    unit-free scale, and ``reason`` says why.
    """
    info = spec.info
    if not info.ppi or info.best is None:
        return None, ("%s is measured in the target's units and has no fixed best-to-worst scale"
                      % spec.title)
    return 100.0 * abs(info.best - float(winner_score)), None
