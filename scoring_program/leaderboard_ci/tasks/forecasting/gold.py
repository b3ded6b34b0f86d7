"""The forecasting gold: one row per series holding its horizon and what the scaled metrics need.

:func:`read_gold` reads the gold horizon, the history, the per-series file and
Naive2's forecasts (:mod:`.files`) and returns the task's units: ``values`` is a
structured array with one row per series (the resampling unit), fields

``length``
    the series' number of horizon points ``h_i``;
``ds``, ``y``, ``naive2``
    its horizon dates (integer keys, :mod:`.timestamps`), actuals and Naive2
    forecasts, padded to the longest horizon (NaN / 0 beyond ``h_i``);
``season``, ``scale_mase``, ``scale_rmsse``, ``weight``
    the seasonal period, the in-sample scales (:mod:`.scales`) and the WRMSSE
    sales weight (1 when none is given);
``codes``, ``level_scale``
    the series' group and that group's RMSSE scale at every WRMSSE level
    (:mod:`.hierarchy`; without ``hierarchy_levels``, one level: the series itself);
``kind``
    the kind of the dates (:mod:`.timestamps`).

Every problem is the organizer's (the source's ConfigError), one sentence that
quotes no gold value.
"""

from __future__ import annotations

import numpy as np

from ..protocol import GoldData
from . import files, hierarchy, scales, timestamps
from .settings import ForecastingSettings, needs

__all__ = ["read_gold", "gold_dtype", "flat_points", "short_histories", "gold_notes"]

_RESERVED = ("seasonality", "weight", "scale_mase", "scale_rmsse")


def gold_dtype(width, n_levels):
    return np.dtype(
        [
            ("length", np.int64),
            ("ds", np.int64, (width,)),
            ("y", np.float64, (width,)),
            ("naive2", np.float64, (width,)),
            ("season", np.int64),
            ("scale_mase", np.float64),
            ("scale_rmsse", np.float64),
            ("weight", np.float64),
            ("codes", np.int64, (n_levels,)),
            ("level_scale", np.float64, (n_levels,)),
            ("kind", np.int8),
            ("history", np.int64),  # the points of the history its scales are computed on; -1: none given
        ]
    )


def flat_points(values):
    """``(series, ds, y, naive2)`` flat over every horizon point, grouped by series in date order."""
    length = values["length"]
    width = values["ds"].shape[1]
    inside = np.arange(width)[None, :] < length[:, None]
    series = np.repeat(np.arange(len(values)), length)
    return series, values["ds"][inside], values["y"][inside], values["naive2"][inside]


def short_histories(values, metrics):
    """How many series' MASE scale falls back to ``m = 1``: a history of ``m`` points or fewer, ``m > 1``.

    :func:`.scales.seasonal_scale` then takes the in-sample MAE of the one-step naive forecast
    (GluonTS's ``seasonal_error``), a different scale from the seasonal one; 0 when no configured
    metric uses ``scale_mase`` or the scales were not computed from a history.  For ``init``'s note
    to the organizer (a count of the gold's series, never shown to participants).
    """
    if "scale_mase" not in _needed(metrics):
        return 0
    history, season = values["history"], values["season"]
    return int(np.count_nonzero((history >= 0) & (season > 1) & (history <= season)))


def gold_notes(gold, metric_specs):
    """The task's ``gold_notes`` (:class:`~leaderboard_ci.tasks.protocol.TaskType`): the short histories, counted."""
    short = short_histories(gold.values, metric_specs)
    if not short:
        return ()
    return (
        "%d of the %d series have a history of one season or less (m points or fewer, m > 1): MASE scales "
        "them by the in-sample error of the one-step naive forecast (m = 1, as GluonTS does), not the "
        "seasonal one (docs/tasks/forecasting.md)" % (short, len(gold.values)),
    )


def _needed(metrics):
    out = set()
    for spec in metrics or ():
        if spec.task == "forecasting":
            out |= needs(spec.name, spec.options)
    return out


def _series_file(source, lines, own, ids):
    """``(columns aligned with ids, attribute names)`` of ``series_file`` (empty without one)."""
    if own.series_file is None:
        return {}, []
    other, other_lines = files.sibling(source, lines, own.series_file)
    columns, rows = files.read_series_file(other, other_lines)
    position = dict((ident, k) for k, ident in enumerate(columns[files.ID]))
    missing = [ident for ident in ids if ident not in position]
    if missing:
        raise other.whole("has no row for %d series of the gold; give every series a row" % len(missing))
    order = [position[ident] for ident in ids]
    aligned = dict((name, [values[k] for k in order]) for name, values in columns.items() if name != files.ID)
    attributes = [name for name in aligned if name not in _RESERVED and not name.startswith("level_scale_")]
    aligned["__lines__"] = [rows[ident] for ident in ids]
    return aligned, attributes


def _numbers(source, table, name, lines, positive=False, whole=False):
    out = []
    for text, line in zip(table[name], lines):
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not np.isfinite(value) or (positive and value <= 0) or (whole and (value != int(value) or value < 1)):
            kind = "a whole number >= 1" if whole else ("a number above 0" if positive else "a finite number")
            raise source.at(line, "the %s field is not %s" % (name, kind))
        out.append(value)
    return np.array(out)


def _seasons(source, own, attributes, table, series_source, n):
    season = own.seasonality
    if "seasonality" in table:
        return _numbers(series_source, table, "seasonality", table["__lines__"], whole=True).astype(np.int64)
    if isinstance(season, int):
        return np.full(n, season, dtype=np.int64)
    mapping = dict(season)
    column = own.frequency_column
    if column not in attributes:
        raise source.whole(
            "has no per-series column %r, which the seasonality mapping reads (frequency_column)" % column
        )
    values = attributes[column]
    unmapped = sorted(set(v for v in values if v not in mapping))
    if unmapped:
        raise source.whole(
            "has %d value%s of %r that the seasonality mapping does not list; give each a period"
            % (len(unmapped), "" if len(unmapped) == 1 else "s", column)
        )
    return np.array([mapping[v] for v in values], dtype=np.int64)


def read_gold(gold, context):
    """The gold's :class:`~leaderboard_ci.tasks.protocol.GoldData` (``values``: one row per series, see the
    module; ``design``: the per-series columns) from the :class:`~leaderboard_ci.tasks.protocol.GoldInput`."""
    own = ForecastingSettings.given(context.settings)
    source, lines = gold.source, gold.lines()
    needed = _needed(context.metrics)
    horizon = files.read_long(source, lines)
    series, keys, y, row_lines = horizon.sorted()
    ids = horizon.ids
    n = len(ids)
    length = np.bincount(series, minlength=n).astype(np.int64)
    start = np.concatenate(([0], np.cumsum(length)[:-1]))
    width = int(length.max())
    table, extra = _series_file(source, lines, own, ids)
    attributes = dict(horizon.attributes)
    for name in extra:
        attributes[name] = table[name]
    attributes[files.ID] = list(ids)
    series_source = files.sibling(source, lines, own.series_file)[0] if own.series_file else source
    season = _seasons(source, own, attributes, table, series_source, n)
    history = _history(source, lines, own, ids, keys, start, horizon.kind) if own.history else None
    scaled = history.from_first_nonzero() if (history is not None and own.history_start == "first_nonzero") else history
    scale_mase = _scale(series_source, table, "scale_mase", scaled, season, 1, n, "scale_mase" in needed, ids)
    scale_rmsse = _scale(series_source, table, "scale_rmsse", scaled, 1, 2, n, "scale_rmsse" in needed, ids)
    position = np.arange(len(series)) - start[series]
    naive2 = np.full((n, width), np.nan)
    if "naive2" in needed:
        naive2 = _naive2(source, lines, own, ids, history, season, length, keys, series, position, horizon.kind, naive2)
    if "nonzero" in needed and np.any(y == 0):
        raise source.whole("has an actual of 0 in the horizon: MAPE is undefined there; use smape or mase")
    levels = own.hierarchy_levels or ((files.ID,),)
    for level in levels:
        for column in level:
            if column not in attributes:
                raise source.whole(
                    "has no per-series column %r, which hierarchy_levels names; give it in the gold "
                    "or in series_file" % column
                )
    codes = hierarchy.level_codes(levels, attributes, n)
    weight = _numbers(series_source, table, "weight", table["__lines__"]) if "weight" in table else np.ones(n)
    if np.any(weight < 0):
        raise series_source.whole("has a negative weight; WRMSSE's weights are sales, 0 or more")
    level_scale = _level_scales(source, series_source, table, history, own, codes, "hierarchy" in needed, n)
    values = np.zeros(n, dtype=gold_dtype(width, len(levels)))
    values["length"] = length
    values["ds"][series, position] = keys
    values["y"][:] = np.nan
    values["y"][series, position] = y
    values["naive2"] = naive2
    values["season"] = season
    values["scale_mase"] = scale_mase
    values["scale_rmsse"] = scale_rmsse
    values["weight"] = weight
    values["codes"] = codes
    values["level_scale"] = level_scale
    values["kind"] = horizon.kind
    values["history"] = scaled.length if scaled is not None else -1
    first_lines = [int(row_lines[s]) for s in start.tolist()]
    group_column = context.group_column
    groups = None
    if group_column is not None and group_column in attributes:
        groups = list(attributes[group_column])
    design = dict((name, list(values_)) for name, values_ in attributes.items())
    return GoldData(first_lines, values, None, ids, groups, design)


def _history(source, lines, own, ids, keys, start, kind):
    """The history as :class:`~.scales.History` over the gold's series (checked against the horizon)."""
    other, other_lines = files.sibling(source, lines, own.history)
    points = files.read_long(other, other_lines, extra=False, ids_known=ids)
    if points.kind != kind:
        raise other.whole("has dates of another kind than the gold's (%s)" % timestamps.describe_kind(kind))
    series, hkeys, z, hlines = points.sorted()
    del points
    late = hkeys >= keys[start][series]
    if late.any():
        raise other.at(
            int(hlines[np.flatnonzero(late)[0]]),
            "the date is not before the series' first horizon "
            "date in the gold; the history must end before the horizon",
        )
    result = scales.History(series, z, len(ids))  # sorted() grouped the points by series, in date order
    result.keys = hkeys
    return result


def _scale(source, table, name, history, period, power, n, required, ids):
    if history is not None:
        out = scales.seasonal_scale(history, period, power)
    elif name in table:
        return _numbers(source, table, name, table["__lines__"], positive=True)
    else:
        out = np.full(n, np.nan)
        if required:
            raise source.error(
                "%s is needed by a configured metric: give history (the in-sample values) or "
                "series_file with a %s column" % (name, name)
            )
        return out
    bad = ~(out > 0)
    if required and bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise source.error(
            "the history of series %r gives a %s of 0 (or has fewer than 2 values): the scaled "
            "metrics are undefined for it" % (ids[k], name)
        )
    return out


def _naive2(source, lines, own, ids, history, season, length, keys, series, position, kind, out):
    if own.naive2 is not None:
        other, other_lines = files.sibling(source, lines, own.naive2)
        horizon = files.Horizon(ids, series, keys, length, kind)
        yhat, _, _ = files.read_forecasts(other, other_lines, horizon)
        out[series, position] = yhat
        return out
    if history is None:
        raise source.error(
            "OWA needs Naive2's forecasts: give history (Naive2 is then computed as M4's code does) "
            "or naive2 (a file of its forecasts)"
        )
    return scales.naive2(history, season, length)


def _level_scales(source, series_source, table, history, own, codes, required, n):
    n_levels = codes.shape[1]
    names = ["level_scale_%d" % (k + 1) for k in range(n_levels)]
    if all(name in table for name in names):
        return np.stack(
            [_numbers(series_source, table, name, table["__lines__"], positive=True) for name in names], axis=1
        )
    if history is None or not required:
        if required:
            raise source.error(
                "WRMSSE needs the scale of every level's series: give history, or series_file with "
                "the columns %s" % ", ".join(names)
            )
        return np.full((n, n_levels), np.nan)
    out = hierarchy.aggregate_scales(
        codes, history.series, history.keys, history.z, own.history_start == "first_nonzero"
    )
    if required and not np.all(out > 0):
        raise source.error(
            "a series of a WRMSSE level has a history scale of 0 (a constant history): RMSSE is undefined for it"
        )
    return out
