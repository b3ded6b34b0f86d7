"""The forecasting task's settings (top-level keys of ``config.yaml``) and its metric options."""

from __future__ import annotations

import numbers

from .metrics import INTERVAL_METRICS, METRICS, QUANTILE_METRICS

__all__ = [
    "SETTINGS",
    "SETTING_DOCS",
    "OPTION_DOCS",
    "HISTORY_STARTS",
    "parse_settings",
    "make_spec",
    "check_config",
    "settings_of",
    "needs",
]

SETTINGS = (
    "history",
    "series_file",
    "naive2",
    "seasonality",
    "frequency_column",
    "quantiles",
    "sample_paths",
    "hierarchy_levels",
    "history_start",
)
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
OPTION_DOCS = {
    "q": "A quantile level (one of quantiles): pinball and wql at that level only; default: the mean over every level.",
    "level": "The central interval in percent (coverage, msis; default 95); its two quantiles "
    "(1 -+ level/100)/2 must be among quantiles.",
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


def parse_settings(values):
    """The task's settings, validated (ValueError saying what is wrong); absent keys get their defaults."""
    history_start = str(values.get("history_start", "first")).strip().lower()
    if history_start not in HISTORY_STARTS:
        raise ValueError(
            "history_start must be one of: %s, got %r" % (", ".join(HISTORY_STARTS), values.get("history_start"))
        )
    samples = values.get("sample_paths")
    frequency = values.get("frequency_column", "frequency")
    if not isinstance(frequency, str) or not frequency.strip():
        raise ValueError("frequency_column must be a column name, got %r" % (frequency,))
    return {
        "history": _file_name("history", values.get("history")),
        "series_file": _file_name("series_file", values.get("series_file")),
        "naive2": _file_name("naive2", values.get("naive2")),
        "seasonality": _seasonality(values.get("seasonality", 1)),
        "frequency_column": frequency.strip(),
        "quantiles": _quantiles(values.get("quantiles")),
        "sample_paths": None if samples is None else _positive_int("sample_paths", samples, 2),
        "hierarchy_levels": _hierarchy(values.get("hierarchy_levels")),
        "history_start": history_start,
    }


def settings_of(settings):
    """The task's settings from the readers' ``settings`` (or the gold's sorted pairs), defaults filled in."""
    settings = dict(settings or ())
    return parse_settings(dict((k, _plain(settings[k])) for k in SETTINGS if k in settings and settings[k] is not None))


def _plain(value):
    if (
        isinstance(value, tuple)
        and value
        and all(isinstance(p, tuple) and len(p) == 2 for p in value)
        and all(isinstance(p[0], str) for p in value)
        and all(isinstance(p[1], int) for p in value)
    ):
        return dict(value)
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _level_text(level):
    return "%g" % level


def make_spec(name, options, defaults):
    """``(fields, default key, title)``: ``q`` (pinball, wql) and ``level`` (coverage, msis) live in ``options``."""
    q, level = options.get("q"), options.get("level")
    if q is not None and name not in ("pinball", "wql"):
        raise ValueError("option q applies to pinball and wql, not %s" % name)
    if level is not None and name not in INTERVAL_METRICS:
        raise ValueError("option level applies to coverage and msis, not %s" % name)
    title = METRICS[name].title
    if q is not None:
        if isinstance(q, bool) or not isinstance(q, numbers.Real) or not 0 < q < 1:
            raise ValueError("q must be a quantile level strictly between 0 and 1, got %r" % (q,))
        text = _level_text(float(q))
        return {"options": (("q", float(q)),)}, "%s_q%s" % (name, text.replace(".", "")), "%s q%s" % (title, text)
    if name in INTERVAL_METRICS:
        level = 95 if level is None else level
        if isinstance(level, bool) or not isinstance(level, numbers.Real) or not 0 < level < 100:
            raise ValueError("level must be an interval in percent strictly between 0 and 100, got %r" % (level,))
        text = _level_text(float(level))
        short = "cov" if name == "coverage" else name
        return (
            {"options": (("level", float(level)),)},
            "%s_%s" % (short, text.replace(".", "_")),
            "%s %s%%" % (title, text),
        )
    return {"options": ()}, name, title


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


def check_config(metrics, settings, labels):
    """The metrics agree with the settings: quantile metrics need ``quantiles`` (and the interval's two levels)."""
    own = settings_of(settings)
    levels = own["quantiles"]
    for spec in metrics:
        if spec.task != "forecasting":
            continue
        options = dict(spec.options)
        if spec.name == "crps" and not levels and not own["sample_paths"]:
            raise ValueError("metric crps needs quantiles (a list of levels) or samples (a number of paths)")
        if spec.name in QUANTILE_METRICS and not levels:
            raise ValueError(
                "metric %s needs quantiles: the levels submissions forecast, e.g. [0.1, 0.5, 0.9]" % spec.name
            )
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
