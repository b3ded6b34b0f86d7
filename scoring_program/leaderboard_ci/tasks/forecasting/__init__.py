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

The task type ``TASK`` is wired here from the modules: :mod:`.metrics` (the
catalog and the formulas), :mod:`.settings` (:class:`.settings.ForecastingSettings`),
:mod:`.gold` (``read_gold``), :mod:`.encoding` (``read_predictions``, the
in-memory encoding, what participants submit) and :mod:`.statistics`.
"""

from ..protocol import TaskType, statistics_unit_values
from .encoding import encode_forecasts, encode_values, encoded_dtype, read_predictions, submission_format
from .gold import gold_notes, read_gold
from .metrics import METRICS, NAME
from .settings import ForecastingSettings
from .statistics import Statistics

__all__ = ["TASK", "encode_forecasts", "encoded_dtype"]

TASK = TaskType(
    name=NAME,
    metrics=METRICS,
    Statistics=Statistics,
    read_gold=read_gold,
    read_predictions=read_predictions,
    encode_values=encode_values,
    Settings=ForecastingSettings,
    unit_name="series",
    submission_format=submission_format,
    unit_values=statistics_unit_values,
    gold_notes=gold_notes,
)
