"""Forecasting: the encoding of one system's forecasts (per-series columns of every configured metric),
from a file (``read_predictions``) or from Python values (``encode_values``, ``analyze``), and what
participants submit (``submission_format``, ``init``).

Python 3.7, numpy only.
"""

from __future__ import annotations

import numpy as np

from ..prediction_tables import csv_cell
from ..protocol import SubmissionFormat
from ..shared.base import MetricSpec, UnscoredIds
from . import files, timestamps
from .gold import flat_points, gold_dtype
from .hierarchy import Hierarchy
from .metrics import METRICS, NAME, Points, series_columns, shape_of
from .settings import ForecastingSettings

#: The metrics the in-memory encoding carries: the scaled and quantile metrics need the history or
#: quantile columns, which reach the task only through files.
IN_MEMORY = ("mae", "mse", "rmse", "smape")

__all__ = ["configured", "encoded_dtype", "encode_forecasts", "read_predictions", "encode_values", "submission_format"]


def configured(metric_specs):
    """This task's configured metrics, each key once, in order."""
    out, seen = [], set()
    for spec in metric_specs or ():
        if spec.task == NAME and spec.name in METRICS and spec.key not in seen:
            seen.add(spec.key)
            out.append(spec)
    return out


def _width(spec):
    shape = shape_of(spec.name)
    return 4 if shape == "owa" else (2 if shape == "ratio" else 1)


def encoded_dtype(metric_specs):
    """The encoded predictions' dtype: one float field of ``k`` columns per metric key (see :mod:`.metrics`).

    The encoding names its metrics, so the statistics of any configuration
    read the fields they need (and say which one is missing).
    """
    fields = [(spec.key, np.float64, (_width(spec),)) for spec in configured(metric_specs)]
    return np.dtype(fields or [("none", np.float64, (1,))])


def encode_forecasts(values, yhat, quantiles, samples, metric_specs, settings, flat=None):
    """The encoded predictions: every metric's per-series columns (:mod:`.metrics`), one field per metric key.

    ``values`` is the gold's rows; ``yhat`` ``(P,)``, ``quantiles`` ``(P, K)``
    and ``samples`` ``(P, S)`` the forecasts of its flat points (:func:`.gold.flat_points` order).
    """
    own = ForecastingSettings.given(settings)
    series, ds, y, naive2 = flat_points(values) if flat is None else flat
    n = len(values)
    specs = configured(metric_specs)
    hierarchy = None
    if any(spec.name == "wrmsse" for spec in specs):
        _, dates = np.unique(ds, return_inverse=True)
        hierarchy = Hierarchy(values["codes"], values["level_scale"], values["weight"], series, dates.reshape(-1))
    points = Points(
        series,
        n,
        y,
        yhat,
        levels=own.quantiles,
        quantiles=quantiles,
        samples=samples,
        scale_mase=values["scale_mase"],
        scale_rmsse=values["scale_rmsse"],
        naive2=naive2,
        hierarchy=hierarchy,
    )
    out = np.zeros(n, dtype=encoded_dtype(specs))
    for spec in specs:
        out[spec.key] = np.stack(series_columns(spec.name, spec.options, points), axis=1)
    return out


def read_predictions(submission, gold, context):
    """A forecast file (the submission's one file) into the encoded predictions (see :func:`encode_forecasts`)."""
    predictions = submission.file()
    values = gold.values
    own = ForecastingSettings.given(context.settings)
    flat = flat_points(values)
    horizon = files.Horizon(gold.ids, flat[0], flat[1], values["length"], int(values["kind"][0]))
    yhat, quantiles, samples = files.read_forecasts(
        predictions.source,
        predictions.lines(),
        horizon,
        own.quantiles,
        own.n_samples,
        UnscoredIds(predictions.source, context),
    )
    return encode_forecasts(values, yhat, quantiles, samples, context.metrics, own, flat)


def encode_values(gold_values, systems, labels=None, settings=None):
    """``(gold rows, None, {name: encoded})`` from ``[(unique_id, ds, y), ...]`` and ``{name: [(unique_id, ds,
    yhat), ...]}`` (ds whole numbers): the scale-free point metrics of :data:`IN_MEMORY`.  Files (history,
    quantiles, hierarchy) go through :func:`.gold.read_gold` and :func:`read_predictions`.
    """
    rows = [(str(i), int(t), float(v)) for i, t, v in gold_values]
    ids = list(dict.fromkeys(i for i, _, _ in rows))
    index = dict((ident, k) for k, ident in enumerate(ids))
    rows.sort(key=lambda r: (index[r[0]], r[1]))
    series = np.array([index[i] for i, _, _ in rows], dtype=np.int64)
    length = np.bincount(series, minlength=len(ids))
    width = int(length.max())
    values = np.zeros(len(ids), dtype=gold_dtype(width, 1))
    position = np.arange(len(rows)) - np.concatenate(([0], np.cumsum(length)[:-1]))[series]
    values["length"] = length
    values["y"], values["naive2"] = np.nan, np.nan
    values["history"] = -1  # no history
    values["ds"][series, position] = [t for _, t, _ in rows]
    values["y"][series, position] = [v for _, _, v in rows]
    values["scale_mase"] = values["scale_rmsse"] = np.nan
    values["weight"] = 1.0
    values["codes"][:, 0] = np.arange(len(ids))
    values["kind"] = timestamps.STEP
    metric_specs = [MetricSpec(name=name, key=name, info=METRICS[name].info) for name in IN_MEMORY]
    where = dict(((index[r[0]], r[1]), k) for k, r in enumerate(rows))
    coded = {}
    for name, forecast in systems.items():
        yhat = np.full(len(rows), np.nan)
        for ident, t, v in forecast:
            k = where.get((index.get(str(ident), -1), int(t)))
            if k is None:
                raise ValueError("system %r forecasts series %r at %r, which the gold does not have" % (name, ident, t))
            yhat[k] = float(v)
        if not np.all(np.isfinite(yhat)):
            raise ValueError(
                "system %r misses a series and date of the gold, or gives a value that is not finite" % (name,)
            )
        coded[name] = encode_forecasts(values, yhat, None, None, metric_specs, settings)
    return values, None, coded


def _sample_keys(gold):
    """``unique_id,ds`` of every series and horizon date, in the gold's order (each id and date formatted once)."""
    series, ds, _, _ = flat_points(gold.values)
    kind = int(gold.values["kind"][0])
    distinct, which = np.unique(ds, return_inverse=True)
    dates = [timestamps.format_key(d, kind) for d in distinct.tolist()]
    cells = [csv_cell(ident) + "," for ident in gold.ids]
    return [cells[s] + dates[d] for s, d in zip(series.tolist(), which.tolist())]


def submission_format(gold, files_settings, metric_specs):
    """What participants submit: ``unique_id,ds,yhat`` (and the quantile or sample columns) per series and date."""
    own = ForecastingSettings.of(gold)
    header = (
        [files.ID, files.TIME, files.FORECAST]
        + files.quantile_columns(own.quantiles)
        + files.sample_columns(own.n_samples)
    )
    keys = _sample_keys(gold)
    values = "," + ",".join(["0"] * (len(header) - 2))  # yhat and the other columns: 0
    rows = [key + values for key in keys[:3]]
    extra = ""
    if own.quantiles:
        extra = " and one column per quantile level (%s)" % ", ".join("`%s`" % c for c in header[3:])
    elif own.sample_paths:
        extra = " and one column per sample path (`sample_1` ... `sample_%d`)" % own.sample_paths
    example = "\n".join([",".join(header)] + rows + (["..."] if len(keys) > 3 else []))
    template = "\n".join(["%s,%s" % (files.ID, files.TIME)] + keys) + "\n"
    return SubmissionFormat(
        unit="series",
        units="series",
        goal="Forecast each of the {n} test series over its horizon.",
        description=(
            "A CSV file in long format, one row per series and horizon date, in any order, with the columns "
            "`unique_id`, `ds` (the date) and `yhat` (the point forecast)%s. Every series and every date of its "
            "horizon must be there; a missing or repeated row, a date outside the horizon or a value that is "
            "not a finite number is refused with its line.\n\n```\n%s\n```\n" % (extra, example)
        ),
        file_name="forecasts.csv",
        sample=",".join(header) + "\n" + (values + "\n").join(keys) + values + "\n",
        public_files=(("horizon.csv", template),),
    )
