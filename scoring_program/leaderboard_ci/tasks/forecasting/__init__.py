"""Forecasting (``task: forecasting``): point, quantile and probabilistic forecasts of many series.

The M4/M5 kind of competition: the gold is the horizon of every series in long
format (``unique_id, ds, y``), with the in-sample history (or per-series
scales), seasonal periods, M5's sales weights and hierarchy levels; a
submission is ``unique_id, ds, yhat`` (plus quantile or sample columns).

* **Unit of resampling: the series** (a cluster of horizon points), one row of
  the gold (:mod:`.gold`).  The points of one series are not independent;
  resampling them as if they were gives too narrow intervals (measured in
  ``docs/tasks/forecasting.md``).
* **Per-series statistics** (:mod:`.metrics`): the predictions are encoded as
  a few numbers per series and metric, computed once when the file is read;
  a replicate is a weighted sum of them and the metric's formula
  (:class:`Statistics`), vectorized over replicates, exact
  (:class:`~leaderboard_ci.core.accumulators.ExactSums`).
* Metrics: MAE, MSE, RMSE, MAPE, sMAPE (M4), MASE, RMSSE, WRMSSE (M5,
  :mod:`.hierarchy`), OWA (M4, Naive2 from :mod:`.scales`), pinball loss, WQL
  (GluonTS), scaled CRPS (utilsforecast), CRPS (quantiles or samples),
  interval coverage and MSIS.
* Files (:mod:`.files`, :mod:`.long_csv`): read in blocks with numpy, a
  participant's mistake is one sentence naming the line, the series and the
  date, never an actual.
"""

from __future__ import annotations

import re

import numpy as np

from ...core.accumulators import ExactSums
from ..legacy import TaskType  # the previous protocol, through the legacy adapter until ported
from ..protocol import SubmissionFormat
from ..shared.base import MetricSpec
from . import files, metrics, timestamps
from .gold import flat_points, gold_dtype, read_gold
from .hierarchy import Hierarchy
from .metrics import ALIASES, METRICS, NAME, OPTIONS, Points, series_columns, shape_of
from .settings import OPTION_DOCS, SETTING_DOCS, SETTINGS, check_config, make_spec, parse_settings, settings_of

__all__ = [
    "NAME",
    "METRICS",
    "ALIASES",
    "OPTIONS",
    "SETTINGS",
    "Statistics",
    "ForecastingTask",
    "TASK",
    "read_gold",
    "read_predictions",
    "encode_forecasts",
    "encoded_dtype",
]

UNIT_VALUES_NAME = "series"


def _specs(metric_specs):
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
    fields = [(spec.key, np.float64, (_width(spec),)) for spec in _specs(metric_specs)]
    return np.dtype(fields or [("none", np.float64, (1,))])


def encode_forecasts(values, yhat, quantiles, samples, metric_specs, settings, flat=None):
    """The encoded predictions: every metric's per-series columns (:mod:`.metrics`), one field per metric key.

    ``values`` is the gold's rows; ``yhat`` ``(P,)``, ``quantiles`` ``(P, K)``
    and ``samples`` ``(P, S)`` the forecasts of its flat points (:func:`.gold.flat_points` order).
    """
    own = settings_of(settings)
    series, ds, y, naive2 = flat_points(values) if flat is None else flat
    n = len(values)
    specs = _specs(metric_specs)
    hierarchy = None
    if any(spec.name == "wrmsse" for spec in specs):
        _, dates = np.unique(ds, return_inverse=True)
        hierarchy = Hierarchy(values["codes"], values["level_scale"], values["weight"], series, dates.reshape(-1))
    points = Points(
        series,
        n,
        y,
        yhat,
        levels=own["quantiles"],
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


def read_predictions(source, lines, gold, settings=None):
    """A forecast file into the encoded predictions (see :func:`encode_forecasts`)."""
    values = gold.values
    own = settings_of(settings if settings is not None else gold.settings)
    flat = flat_points(values)
    series, ds = flat[0], flat[1]
    date_values, code = np.unique(ds, return_inverse=True)
    flat_keys = series * len(date_values) + code.reshape(-1)
    lengths = values["length"]
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    kind = int(values["kind"][0])
    yhat, quantiles, samples = files.read_forecasts(
        source,
        lines,
        gold.ids,
        flat_keys,
        date_values,
        kind,
        lengths,
        starts,
        own["quantiles"],
        own["sample_paths"] or 0,
        ignore_unknown=(settings or {}).get("unscored_ids") == "ignore",
    )
    metric_specs = (settings or {}).get("metrics") if isinstance(settings, dict) else None
    return encode_forecasts(values, yhat, quantiles, samples, metric_specs, own, flat)


class Statistics:
    """Exact sums of the per-series columns of every metric, overall and per group, and the series counts.

    One :class:`ExactSums` holds, for each configured metric's columns and for
    all series and each group, the column (0 outside the group), then one
    column of ones per target (the number of series drawn).
    """

    def __init__(self, add, gold, predictions, metrics, group_codes, n_groups, layout=None):
        predictions = np.asarray(predictions)
        n = gold.n
        specs = _specs(metrics)
        names = predictions.dtype.names or ()
        missing = [spec.key for spec in specs if spec.key not in names]
        if predictions.shape != (n,) or missing:
            raise ValueError(
                "predictions must be %d encoded series (forecasting.read_predictions) with the metrics %s, got %s %s"
                % (n, ", ".join(missing) or "configured", predictions.dtype, predictions.shape)
            )
        columns = [np.asarray(predictions[spec.key], dtype=np.float64).reshape(n, -1) for spec in specs]
        table = np.concatenate(columns, axis=1) if columns else np.zeros((n, 0))
        if not np.all(np.isfinite(table)):
            raise ValueError("the encoded per-series columns must be finite")
        self.layout, at = {}, 0
        for spec, column in zip(specs, columns):
            self.layout[spec.key] = (at, column.shape[1])
            at += column.shape[1]
        has_groups = gold.groups is not None
        masks = [np.ones(n, dtype=bool)] + ([group_codes == j for j in range(n_groups)] if has_groups else [])
        self.n_targets = len(masks)
        self.width = at
        blocks = [np.where(mask[:, None], table, 0.0) for mask in masks]
        counts = np.stack([mask.astype(np.float64) for mask in masks], axis=1)
        self._acc = ExactSums(np.concatenate(blocks + [counts], axis=1))
        self._sums = add(self._acc)
        self._masks = masks

    def prepare(self, stats):
        return stats

    def score(self, stats, spec, j):
        """The score of ``spec`` on all series (``j`` 0) or group ``j - 1``, for every replicate."""
        sums = np.asarray(stats[self._sums], dtype=np.float64)
        first, k = self.layout[spec.key]
        block = sums[:, j * self.width + first : j * self.width + first + k]
        count = sums[:, self.n_targets * self.width + j]
        return metrics.score_from_sums(spec.name, block, count)

    def unit_values(self, spec, j):
        """Each series' value of a mean-shaped metric (its mean is the score), or None."""
        if spec.key not in self.layout or shape_of(spec.name) != "mean":
            return None
        first, _ = self.layout[spec.key]
        return self._acc.item_values()[self._masks[j], first].copy()


def encode_values(gold_values, systems, labels=None, settings=None):
    """``(gold rows, None, {name: encoded})`` from ``[(unique_id, ds, y), ...]`` and ``{name: [(unique_id, ds,
    yhat), ...]}`` (ds whole numbers): the scale-free point metrics (MAE, MSE, RMSE, sMAPE), or those of
    ``settings["metrics"]``.  Files (history, quantiles, hierarchy) go through :func:`read_gold` and
    :func:`read_predictions`.
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
    values["ds"][series, position] = [t for _, t, _ in rows]
    values["y"][series, position] = [v for _, _, v in rows]
    values["scale_mase"] = values["scale_rmsse"] = np.nan
    values["weight"] = 1.0
    values["codes"][:, 0] = np.arange(len(ids))
    values["kind"] = timestamps.STEP
    metric_specs = (settings or {}).get("metrics") or [
        MetricSpec(name=name, key=name, info=METRICS[name]) for name in ("mae", "mse", "rmse", "smape")
    ]
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


def decode(gold, values):
    """Custom metrics receive the encoded per-series columns as they are."""
    return np.asarray(values)


def _csv_cell(text):
    return '"%s"' % text.replace('"', '""') if any(c in text for c in ',"\n') else text


def _sample_rows(gold, own, value="0"):
    series, ds, _, _ = flat_points(gold.values)
    kind = int(gold.values["kind"][0])
    extra = [value] * (len(own["quantiles"]) + (own["sample_paths"] or 0))
    return [
        ",".join([_csv_cell(gold.ids[s]), timestamps.format_key(d, kind), value] + extra)
        for s, d in zip(series.tolist(), ds.tolist())
    ]


def submission_format(gold, files_settings, metric_specs):
    """What participants submit: ``unique_id,ds,yhat`` (and the quantile or sample columns) per series and date."""
    own = settings_of(gold.settings)
    header = (
        [files.ID, files.TIME, files.FORECAST]
        + files.quantile_columns(own["quantiles"])
        + files.sample_columns(own["sample_paths"] or 0)
    )
    rows = _sample_rows(gold, own)
    extra = ""
    if own["quantiles"]:
        extra = " and one column per quantile level (%s)" % ", ".join("`%s`" % c for c in header[3:])
    elif own["sample_paths"]:
        extra = " and one column per sample path (`sample_1` ... `sample_%d`)" % own["sample_paths"]
    example = "\n".join([",".join(header)] + rows[:3] + (["..."] if len(rows) > 3 else []))
    template = "\n".join(["%s,%s" % (files.ID, files.TIME)] + [r.rsplit(",", len(header) - 2)[0] for r in rows]) + "\n"
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
        sample="\n".join([",".join(header)] + rows) + "\n",
        public_files=(("horizon.csv", template),),
    )


_OPTION_NAME = re.compile(r"^(pinball|quantile_loss|wql)(?:@|_q)([0-9.]+)$|^(cov|coverage|msis)(?:@|_)([0-9._]+)$")


def resolve_name(name):
    """``(metric, options)`` for a name, an alias, or a key with its option (``pinball_q09``, ``cov_95``)."""
    name = str(name)
    base = ALIASES.get(name, name)
    if base in METRICS:
        return base, {}
    match = _OPTION_NAME.match(name)
    if match is None:
        return None
    if match.group(1):
        text = match.group(2)
        q = float(text) if "." in text else float("0." + text[1:]) if text.startswith("0") else None
        return (ALIASES.get(match.group(1), match.group(1)), {"q": q}) if q is not None and 0 < q < 1 else None
    metric = "coverage" if match.group(3) in ("cov", "coverage") else "msis"
    level = float(match.group(4).replace("_", "."))
    return (metric, {"level": level}) if 0 < level < 100 else None


class ForecastingTask(TaskType):
    """Forecasting: long-format forecasts of many series, resampled by series (see the package docstring)."""

    NAME, METRICS, ALIASES, OPTIONS, SETTINGS = NAME, METRICS, ALIASES, OPTIONS, SETTINGS
    SETTING_DOCS, OPTION_DOCS = SETTING_DOCS, OPTION_DOCS
    UNIT_VALUES_NAME, UNIT_NAME, Statistics = UNIT_VALUES_NAME, "series", Statistics
    OWN_GOLD_FORMAT = OWN_PREDICTION_FORMAT = True
    resolve_name, make_spec, parse_settings = (
        staticmethod(resolve_name),
        staticmethod(make_spec),
        staticmethod(parse_settings),
    )
    check_config = staticmethod(check_config)
    read_gold, read_predictions = staticmethod(read_gold), staticmethod(read_predictions)
    encode_values, decode = staticmethod(encode_values), staticmethod(decode)
    submission_format = staticmethod(submission_format)

    def unit_values(self, statistics, spec, j):
        """Each series' value of ``spec`` (its mean is the score), for mean-shaped metrics."""
        return statistics.unit_values(spec, j)


TASK = ForecastingTask()
