"""The forecasting task's own ``config.yaml`` keys: :class:`ForecastingSettings`, and what each metric needs.

Python 3.7, the standard library only.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Optional, Tuple

from ..settings import TaskSettings, setting
from .metrics import INTERVAL_METRICS, QUANTILE_METRICS

__all__ = ["ForecastingSettings", "HISTORY_STARTS", "needs"]

HISTORY_STARTS = ("first", "first_nonzero")
SETTING_DOCS = {
    "history": "The in-sample history in the reference data (unique_id, ds, y): the scales of MASE, RMSSE, "
    "WRMSSE, MSIS and Naive2 (OWA) come from it; null: from series_file.",
    "series_file": "A CSV in the reference data, one row per series: unique_id and any of seasonality, weight "
    "(WRMSSE), scale_mase, scale_rmsse, level_scale_1..L, and attributes (frequency, hierarchy columns).",
    "naive2": "Naive2's forecasts (unique_id, ds, yhat) in the reference data, for OWA; null: computed from "
    "the history as M4's R code does.",
    "seasonality": "The seasonal period m of MASE, MSIS and Naive2: a whole number, or a mapping from the "
    "values of frequency_column to periods (M4: {yearly: 1, quarterly: 4, monthly: 12, ...}).",
    "frequency_column": "The per-series column that the seasonality mapping reads.",
    "quantiles": "The quantile levels a submission forecasts, one column each (q0.1 ... q0.9); needed by "
    "pinball, wql, scaled_crps, crps, coverage and msis.",
    "sample_paths": "The number of sample paths a submission gives, one column each (sample_1 ... sample_S); "
    "CRPS then uses its energy form.",
    "hierarchy_levels": "WRMSSE's levels, each a list of per-series columns ([] is the total, [unique_id] the "
    "bottom); null: the bottom level only.",
    "history_start": "first, or first_nonzero: the history of each series (and each aggregate) starts at "
    "its first non-zero value, as M5's scales do.",
}


def _positive_int(name, value, low=1):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError("%s must be a whole number >= %d, got %r" % (name, low, value))
    return int(value)


def _file_name(name, value):
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or "/" in value or "\\" in value or value.startswith("."):
        raise ValueError("%s must be a file name in the reference data (no folders), got %r" % (name, value))
    return value.strip()


def _seasonality(value):
    if isinstance(value, dict):
        if not value:
            raise ValueError("seasonality must be a whole number or a non-empty mapping {frequency: period}")
        return tuple(sorted((str(k), _positive_int("seasonality of %s" % k, v)) for k, v in value.items()))
    return _positive_int("seasonality", value)


def _quantiles(value):
    if value is None or (isinstance(value, (list, tuple)) and not value):
        return ()
    if not isinstance(value, (list, tuple)):
        raise ValueError("quantiles must be a list of levels strictly between 0 and 1, e.g. [0.1, 0.5, 0.9]")
    levels = []
    for q in value:
        if isinstance(q, bool) or not isinstance(q, numbers.Real) or not 0 < q < 1:
            raise ValueError("quantiles must be levels strictly between 0 and 1, got %r" % (q,))
        levels.append(float(q))
    if len(set(levels)) != len(levels):
        raise ValueError("quantiles lists a level twice")
    return tuple(sorted(levels))


def _hierarchy(value):
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not value:
        raise ValueError("hierarchy_levels must be a list of levels, each a list of per-series columns ([] the total)")
    levels = []
    for level in value:
        if isinstance(level, str):
            level = [level]
        if not isinstance(level, (list, tuple)) or not all(isinstance(c, str) and c.strip() for c in level):
            raise ValueError("each hierarchy level must be a list of column names, got %r" % (level,))
        levels.append(tuple(c.strip() for c in level))
    if len(set(levels)) != len(levels):
        raise ValueError("hierarchy_levels lists a level twice")
    return tuple(levels)


def _history_start(value):
    text = str(value).strip().lower()
    if text not in HISTORY_STARTS:
        raise ValueError("history_start must be one of: %s, got %r" % (", ".join(HISTORY_STARTS), value))
    return text


def _frequency_column(value):
    if not isinstance(value, str) or not value.strip():
        raise ValueError("frequency_column must be a column name, got %r" % (value,))
    return value.strip()


def _sample_paths(value):
    return None if value is None else _positive_int("sample_paths", value, 2)


def _file_setting(name):
    return lambda value: _file_name(name, value)


@dataclass(frozen=True)
class ForecastingSettings(TaskSettings):
    """The forecasting task's own keys of ``config.yaml`` (each field's line is its reference text)."""

    history: Optional[str] = setting(None, SETTING_DOCS["history"], _file_setting("history"))
    series_file: Optional[str] = setting(None, SETTING_DOCS["series_file"], _file_setting("series_file"))
    naive2: Optional[str] = setting(None, SETTING_DOCS["naive2"], _file_setting("naive2"))
    seasonality: Any = setting(1, SETTING_DOCS["seasonality"], _seasonality)
    frequency_column: str = setting("frequency", SETTING_DOCS["frequency_column"], _frequency_column)
    quantiles: Tuple[float, ...] = setting((), SETTING_DOCS["quantiles"], _quantiles)
    sample_paths: Optional[int] = setting(None, SETTING_DOCS["sample_paths"], _sample_paths)
    hierarchy_levels: Optional[Tuple[Tuple[str, ...], ...]] = setting(
        None, SETTING_DOCS["hierarchy_levels"], _hierarchy
    )
    history_start: str = setting("first", SETTING_DOCS["history_start"], _history_start)

    @property
    def n_samples(self):
        """The number of sample paths (0 without any)."""
        return self.sample_paths or 0

    def check(self, metrics, labels):
        """The metrics agree with the settings: quantile metrics need ``quantiles`` (and the interval's two levels)."""
        levels = self.quantiles
        for spec in metrics:
            if spec.task == "forecasting":
                _check_metric(spec, levels, self.sample_paths)


def _check_metric(spec, levels, sample_paths):
    options = dict(spec.options)
    if spec.name == "crps" and not levels and not sample_paths:
        raise ValueError("metric crps needs quantiles (a list of levels) or samples (a number of paths)")
    if spec.name in QUANTILE_METRICS and not levels:
        raise ValueError("metric %s needs quantiles: the levels submissions forecast, e.g. [0.1, 0.5, 0.9]" % spec.name)
    q = options.get("q")
    if q is not None and not any(abs(q - v) < 1e-9 for v in levels):
        raise ValueError("metric %s: q %g is not one of quantiles %s" % (spec.key, q, list(levels)))
    if spec.name in INTERVAL_METRICS:
        alpha = 1.0 - options["level"] / 100.0
        wanted = (alpha / 2.0, 1.0 - alpha / 2.0)
        if not all(any(abs(w - v) < 1e-9 for v in levels) for w in wanted):
            raise ValueError(
                "metric %s needs the quantile levels %g and %g (its %g%% interval) among quantiles"
                % (spec.key, wanted[0], wanted[1], options["level"])
            )


def needs(name, options=()):
    """What metric ``name`` needs: a subset of {"quantiles", "interval", "scale_mase", "scale_rmsse", "naive2",
    "hierarchy", "nonzero"}."""
    out = set()
    if name in QUANTILE_METRICS:
        out.add("quantiles")
    if name in INTERVAL_METRICS:
        out.add("interval")
    if name in ("mase", "msis", "owa"):
        out.add("scale_mase")
    if name == "rmsse":
        out.add("scale_rmsse")
    if name == "owa":
        out.add("naive2")
    if name == "wrmsse":
        out.add("hierarchy")
    if name == "mape":
        out.add("nonzero")
    return out
