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

import numpy as np

from ...core.accumulators import ExactSums
from ..protocol import SubmissionFormat, TaskType
from . import files, metrics, timestamps
from .gold import flat_points, read_gold
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
    "column_layout",
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


def column_layout(metric_specs):
    """``{metric key: (first column, number of columns)}`` of the encoded predictions."""
    layout, at = {}, 0
    for spec in _specs(metric_specs):
        layout[spec.key] = (at, _width(spec))
        at += _width(spec)
    return layout


def encode_forecasts(values, yhat, quantiles, samples, metric_specs, settings):
    """The encoded predictions ``(n, F)``: every configured metric's per-series columns (:mod:`.metrics`).

    ``values`` is the gold's rows; ``yhat`` ``(P,)``, ``quantiles`` ``(P, K)``
    and ``samples`` ``(P, S)`` the forecasts of its flat points (:func:`.gold.flat_points` order).
    """
    own = settings_of(settings)
    series, ds, y, naive2 = flat_points(values)
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
    columns = []
    for spec in specs:
        columns.extend(series_columns(spec.name, spec.options, points))
    if not columns:
        return np.zeros((n, 0))
    return np.stack(columns, axis=1)


def read_predictions(source, lines, gold, settings=None):
    """A forecast file into the encoded predictions (see :func:`encode_forecasts`)."""
    values = gold.values
    own = settings_of(settings if settings is not None else gold.settings)
    series, ds, _, _ = flat_points(values)
    date_values, code = np.unique(ds, return_inverse=True)
    flat_keys = series * len(date_values) + code.reshape(-1)
    lengths = values["length"]
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    kind = int(values["kind"][0])
    yhat, quantiles, samples = files.read_forecasts(
        source, lines, gold.ids, flat_keys, date_values, kind, lengths, starts, own["quantiles"], own["samples"] or 0
    )
    metric_specs = (settings or {}).get("metrics") if isinstance(settings, dict) else None
    return encode_forecasts(values, yhat, quantiles, samples, metric_specs, own)


class Statistics:
    """Exact sums of the per-series columns of every metric, overall and per group, and the series counts.

    One :class:`ExactSums` holds, for each configured metric's columns and for
    all series and each group, the column (0 outside the group), then one
    column of ones per target (the number of series drawn).
    """

    def __init__(self, add, gold, predictions, metrics, group_codes, n_groups, layout=None):
        predictions = np.asarray(predictions, dtype=np.float64)
        self.layout = column_layout(metrics)
        width = sum(k for _, k in self.layout.values())
        n = gold.n
        if predictions.shape != (n, width):
            raise ValueError(
                "predictions must be the encoded per-series columns, shape (%d, %d), got %s"
                % (n, width, predictions.shape)
            )
        if not np.all(np.isfinite(predictions)):
            raise ValueError("the encoded per-series columns must be finite")
        has_groups = gold.groups is not None
        masks = [np.ones(n, dtype=bool)] + ([group_codes == j for j in range(n_groups)] if has_groups else [])
        self.n_targets = len(masks)
        self.width = width
        blocks = [np.where(mask[:, None], predictions, 0.0) for mask in masks]
        counts = np.stack([mask.astype(np.float64) for mask in masks], axis=1)
        self._acc = ExactSums(np.concatenate(blocks + [counts], axis=1))
        self._sums = add(self._acc)
        self._masks = masks
        self._names = dict((spec.key, spec.name) for spec in _specs(metrics))

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
    """In-memory encoding is not offered: read the gold with ``read_gold`` and the systems with ``read_predictions``."""
    raise ValueError(
        "forecasting systems are encoded from their files: read the gold with leaderboard_ci.scoring.readers."
        "read_gold and each system with read_predictions, then pass the GoldStandard and the encoded arrays"
    )


def decode(gold, values):
    """Custom metrics receive the encoded per-series columns as they are."""
    return np.asarray(values)


def _csv_cell(text):
    return '"%s"' % text.replace('"', '""') if any(c in text for c in ',"\n') else text


def _sample_rows(gold, own, value="0"):
    series, ds, _, _ = flat_points(gold.values)
    kind = int(gold.values["kind"][0])
    extra = [value] * (len(own["quantiles"]) + (own["samples"] or 0))
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
        + files.sample_columns(own["samples"] or 0)
    )
    rows = _sample_rows(gold, own)
    extra = ""
    if own["quantiles"]:
        extra = " and one column per quantile level (%s)" % ", ".join("`%s`" % c for c in header[3:])
    elif own["samples"]:
        extra = " and one column per sample path (`sample_1` ... `sample_%d`)" % own["samples"]
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


class ForecastingTask(TaskType):
    """Forecasting: long-format forecasts of many series, resampled by series (see the package docstring)."""

    NAME, METRICS, ALIASES, OPTIONS, SETTINGS = NAME, METRICS, ALIASES, OPTIONS, SETTINGS
    SETTING_DOCS, OPTION_DOCS = SETTING_DOCS, OPTION_DOCS
    UNIT_VALUES_NAME, UNIT_NAME, Statistics = UNIT_VALUES_NAME, "series", Statistics
    OWN_GOLD_FORMAT = OWN_PREDICTION_FORMAT = True
    make_spec, parse_settings = staticmethod(make_spec), staticmethod(parse_settings)
    check_config = staticmethod(check_config)
    read_gold, read_predictions = staticmethod(read_gold), staticmethod(read_predictions)
    encode_values, decode = staticmethod(encode_values), staticmethod(decode)
    submission_format = staticmethod(submission_format)

    def unit_values(self, statistics, spec, j):
        """Each series' value of ``spec`` (its mean is the score), for mean-shaped metrics."""
        return statistics.unit_values(spec, j)


TASK = ForecastingTask()
