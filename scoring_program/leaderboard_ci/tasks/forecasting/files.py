"""The forecasting task's files: the gold horizon, the history, the per-series file, forecasts.

All of them are long CSV (or TSV) files read in blocks with numpy
(:mod:`.long_csv`).  Columns (utilsforecast's and StatsForecast's names):

* gold (``files.gold``): ``unique_id, ds, y``, one row per series and horizon
  date; any other column is a per-series attribute (constant within a series:
  ``frequency``, a hierarchy column), which ``groups``, ``bootstrap.strata``,
  ``bootstrap.cluster``, ``seasonality`` and ``hierarchy`` may name;
* history (``history:``): ``unique_id, ds, y``, the in-sample values, dates
  before each series' horizon;
* per-series file (``series_file:``): ``unique_id`` and any of ``seasonality``,
  ``weight`` (M5's dollar sales), ``scale_mase``, ``scale_rmsse``,
  ``level_scale_1`` ... ``level_scale_L`` (the RMSSE scale of the series' group at
  each hierarchy level) for organizers who do not ship the history, and
  per-series attributes;
* forecasts (a submission, the baseline, ``naive2:``): ``unique_id, ds,
  yhat``, plus one column per quantile level (``q0.1`` ... ``q0.9``, the levels
  of ``quantiles:``) or per sample path (``sample_1`` ... ``sample_S``,
  ``sample_paths: S``): one row per series and horizon date, in any order.

A participant's mistake is one sentence naming the file, the line and what
was expected; it may name a series id and a horizon date (both public: they
are what the participant forecasts), never an actual value.
"""

from __future__ import annotations

import csv
import io
import os

import numpy as np

from ..ranking import trec_runs
from ..shared.base import UnscoredIds
from ..shared.header_rows import DATA_NOT_HEADER, first_row_is_data
from . import timestamps
from .long_csv import following_rows, iter_blocks, read_header, text_blocks

__all__ = [
    "ID",
    "TIME",
    "TARGET",
    "FORECAST",
    "read_long",
    "GoldPoints",
    "Horizon",
    "read_forecasts",
    "read_series_file",
    "sibling",
    "quantile_columns",
    "sample_columns",
]

ID, TIME, TARGET, FORECAST = "unique_id", "ds", "y", "yhat"
#: The largest forecast magnitude read: squares and sums of larger ones could overflow a double.
MAX_ABS = 1e100


def sibling(source, lines, name):
    """``(source, lines)`` of file ``name`` beside ``source`` (same error class, never quoted)."""
    path = os.path.join(os.path.dirname(source.path), name)
    folder = os.path.dirname(source.name)
    other = type(source)(path, (folder + "/" if folder else "") + name, error=source.error, may_quote=False)
    if not os.path.isfile(path):
        raise source.error("the file %s (named in the configuration) is missing from the reference data" % other.name)
    return other, type(lines)(other)


def quantile_columns(levels):
    """The column names of quantile ``levels``: ``q0.1``, ``q0.025``..."""
    return ["q%s" % _short(level) for level in levels]


def sample_columns(count):
    return ["sample_%d" % (k + 1) for k in range(count)]


def _short(value):
    text = "%.10g" % value
    return text


def _quote(source, text, limit=40):
    if not source.may_quote:
        return "(not shown)"
    text = str(text)
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _column_index(source, header, line, wanted, optional=(), following=()):
    """``{name: index}`` of the ``wanted`` columns (all needed) and of the ``optional`` ones present.

    ``following`` (the rows after the header, read only when a column is
    missing) tells a first line of data from a header (:func:`first_row_is_data`).
    """
    index = {}
    for k, name in enumerate(header):
        if name in index:
            raise source.at(line, "the header names the column %r twice" % name)
        index[name] = k
    missing = [name for name in wanted if name not in index]
    if missing and first_row_is_data(header, following, tuple(wanted) + tuple(optional)):
        raise source.at(line, DATA_NOT_HEADER % repr(",".join(wanted)))
    if missing:
        raise source.at(
            line,
            "the header has no column %s; expected a header with the columns %s"
            % (", ".join(repr(m) for m in missing), ",".join(list(wanted) + [o for o in optional if o in index])),
        )
    return index


def _quantile_header(header, levels):
    """``{level index: column index}`` of the quantile columns: ``q0.1`` (or ``0.1``) matches level 0.1."""
    found = {}
    for k, name in enumerate(header):
        text = name[1:] if name[:1] in ("q", "Q") else name
        try:
            value = float(text)
        except ValueError:
            continue
        for j, level in enumerate(levels):
            if abs(value - level) < 1e-9:
                found[j] = k
    return found


class GoldPoints(object):
    """The rows of a gold-like file (gold, history): series (by first appearance), dates, values, attributes."""

    def __init__(self, ids, series, keys, kind, values, lines, attributes):
        self.ids = ids
        self.series = series
        self.keys = keys
        self.kind = kind
        self.values = values
        self.lines = lines
        self.attributes = attributes

    def sorted(self):
        """The points grouped by series (first appearance) and in date order."""
        step = np.diff(self.series)
        if np.all((step > 0) | ((step == 0) & (np.diff(self.keys) > 0))):  # already in order (the usual file)
            return self.series, self.keys, self.values, self.lines
        order = np.lexsort((self.keys, self.series))
        return self.series[order], self.keys[order], self.values[order], self.lines[order]


def _encode_ids(block, column, known, ids, source):
    """Series indices of the block's ids (new ids appended to ``ids``; ``known``: hash -> index)."""
    starts, lengths = block.starts[:, column], block.lengths[:, column]
    empty = np.flatnonzero(lengths == 0)
    if len(empty):
        raise source.at(int(block.lines[empty[0]]), "the unique_id field is empty; every row needs its series id")
    hashes = trec_runs.hash_tokens(block.view, starts, lengths, np.zeros(len(starts), np.int64))
    unique, first, inverse = np.unique(hashes, return_index=True, return_inverse=True)
    same = trec_runs.same_tokens(
        block.view, starts, lengths, block.view, starts[first][inverse], lengths[first][inverse]
    )
    if not same.all():  # two ids with one 64-bit hash in a block: astronomically rare, said plainly
        raise source.at(
            int(block.lines[np.flatnonzero(~same)[0]]), "two series ids collide in the reader's hash; rename one"
        )
    index = np.empty(len(unique), dtype=np.int64)
    for u in np.argsort(first, kind="stable").tolist():  # new series in order of first appearance
        h, row = int(unique[u]), int(first[u])
        text = block.field(row, column)
        entry = known.get(h)
        if entry is None:
            entry = known[h] = (len(ids), text)
            ids.append(text)
        elif entry[1] != text:
            raise source.at(int(block.lines[row]), "two series ids collide in the reader's hash; rename one")
        index[u] = entry[0]
    # series in order of first appearance in the file
    return index[inverse.reshape(-1)]


def read_long(source, lines, extra=True, ids_known=None):
    """A gold-like file (``unique_id, ds, y`` and per-series columns) as :class:`GoldPoints`.

    The organizer's file: problems are the source's errors (a ConfigError), by
    line, quoting nothing.  With ``ids_known`` (the gold's ids: a history) the
    series are looked up among them (hashed, compared byte by byte) and rows of
    other series are dropped.
    """
    queries = trec_runs.Queries(ids_known) if ids_known is not None else None
    header, delimiter, line, rest = read_header(source, text_blocks(lines))
    index = _column_index(source, header, line, (ID, TIME, TARGET), following=following_rows(rest, delimiter))
    width = len(header)
    other = [(name, k) for name, k in index.items() if name not in (ID, TIME, TARGET)] if extra else []
    known, ids = {}, []
    parts = {"series": [], "keys": [], "values": [], "lines": []}
    attributes = dict((name, {}) for name, _ in other)
    kind = None
    for block in iter_blocks(source, rest, width, delimiter):
        if queries is None:
            series = _encode_ids(block, index[ID], known, ids, source)
        else:
            series = queries.lookup(block.view, block.starts[:, index[ID]], block.lengths[:, index[ID]])
            block = _rows(block, np.flatnonzero(series >= 0))
            series = series[series >= 0]
            if not block.rows:
                continue
        keys, kinds = timestamps.parse(block.data, block.starts[:, index[TIME]], block.lengths[:, index[TIME]])
        values, bad = trec_runs.parse_numbers(
            block.data, block.view, block.starts[:, index[TARGET]], block.lengths[:, index[TARGET]]
        )
        if kind is None and len(kinds):
            kind = int(kinds[0]) if kinds[0] != timestamps.BAD else None
        wrong_kind = (kinds != kind) if kind is not None else np.ones(len(kinds), dtype=bool)
        problem = (kinds == timestamps.BAD) | wrong_kind | bad
        if problem.any():
            k = int(np.flatnonzero(problem)[0])
            at = int(block.lines[k])
            if kinds[k] == timestamps.BAD or kind is None:
                raise source.at(
                    at,
                    "the ds field is not a date (YYYY-MM-DD), a date-time (YYYY-MM-DD HH:MM:SS) "
                    "or a whole number (a time step)",
                )
            if wrong_kind[k]:
                raise source.at(
                    at, "the ds field is not of the kind of the file's first row (%s)" % timestamps.describe_kind(kind)
                )
            raise source.at(at, "the y field is not a finite number")
        for name, k in other:
            _check_attribute(source, block, series, k, name, attributes[name])
        parts["series"].append(series.astype(np.int32))
        parts["keys"].append(keys)
        parts["values"].append(values)
        parts["lines"].append(block.lines.astype(np.int32 if int(block.lines[-1]) < 2**31 else np.int64))
    if ids_known is not None:
        ids = list(ids_known)
    if not ids or not parts["series"]:
        raise source.whole("has no rows; expected a header unique_id,ds,y and one row per series and date")
    joined = dict((k, np.concatenate(v)) for k, v in parts.items())
    attrs = dict((name, [values[s][1] for s in range(len(ids))]) for name, values in attributes.items())
    points = GoldPoints(tuple(ids), joined["series"], joined["keys"], kind, joined["values"], joined["lines"], attrs)
    _no_repeats(source, points)
    return points


def _rows(block, rows):
    """The block restricted to ``rows``."""
    return type(block)(block.raw, block.starts[rows], block.lengths[rows], block.lines[rows])


def _check_attribute(source, block, series, column, name, seen):
    """A per-series column must hold one value per series: ``seen`` maps series -> (hash, text, line)."""
    hashes = trec_runs.hash_tokens(
        block.view, block.starts[:, column], block.lengths[:, column], np.zeros(block.rows, np.int64)
    )
    present, first, inverse = np.unique(series, return_index=True, return_inverse=True)
    for s, row in zip(present.tolist(), first.tolist()):
        if s not in seen:
            seen[s] = (int(hashes[row]), block.field(row, column), int(block.lines[row]))
    expected = np.array([seen[s][0] for s in present.tolist()], dtype=np.uint64)[inverse.reshape(-1)]
    differ = np.flatnonzero(hashes != expected)
    if len(differ):
        row = int(differ[0])
        raise source.at(
            int(block.lines[row]),
            "the column %r differs from the series' first row (line %d); a column besides unique_id, ds and y "
            "holds one value per series" % (name, seen[int(series[row])][2]),
        )


def _no_repeats(source, points):
    series, keys, _, lines = points.sorted()
    repeat = np.flatnonzero((series[1:] == series[:-1]) & (keys[1:] == keys[:-1]))
    if len(repeat):
        later = np.maximum(lines[repeat], lines[repeat + 1])
        k = int(np.argmin(later))
        raise source.at(
            int(later[k]),
            "repeats the series and date of line %d; give each series and date once"
            % int(np.minimum(lines[repeat], lines[repeat + 1])[k]),
        )


def read_series_file(source, lines):
    """``{column: [value per row]}`` and the ids of a small per-series CSV (csv module; organizer's)."""
    text = "\n".join(t for _, t in lines)
    delimiter = "\t" if source.name.endswith((".tsv", ".tab")) else ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise source.whole("is empty; expected a header with unique_id and the per-series columns")
    except csv.Error:
        raise source.at(1, "cannot be read as CSV")
    index = _column_index(source, header, 1, (ID,), following=reader)
    columns = dict((name, []) for name in header)
    seen = {}
    for row in reader:
        line = reader.line_num
        if not row or not "".join(row).strip():
            continue
        if len(row) != len(header):
            raise source.at(line, "expected %d fields, found %d" % (len(header), len(row)))
        ident = row[index[ID]].strip()
        if ident in seen:
            raise source.at(line, "repeats the series of line %d; give each series once" % seen[ident])
        seen[ident] = line
        for name, value in zip(header, row):
            columns[name].append(value.strip())
    return columns, seen


class Horizon(object):
    """The gold's points a forecast file is read against.

    Attributes
    ----------
    ids : sequence of str
        The gold's series ids.
    kind : int
        The kind of its dates (:mod:`.timestamps`).
    date_values : int array ``(D,)``
        The sorted distinct dates of the gold's points.
    flat_keys : int array ``(P,)``
        The points' keys ``series * D + date code``, sorted (points grouped by series in date order).
    lengths, starts : int arrays ``(n,)``
        Each series' number of points and its first point.
    """

    def __init__(self, ids, series, keys, lengths, kind):
        self.ids = ids
        self.kind = kind
        self.date_values, code = np.unique(keys, return_inverse=True)
        self.flat_keys = np.asarray(series) * len(self.date_values) + code.reshape(-1)
        self.lengths = np.asarray(lengths)
        self.starts = np.concatenate(([0], np.cumsum(self.lengths)[:-1]))

    def date(self, p):
        """The text of point ``p``'s date."""
        return timestamps.format_key(self.date_values[self.flat_keys[p] % max(len(self.date_values), 1)], self.kind)

    def text(self, s):
        """Series ``s``'s horizon for a message: its first date, or ``first to last, h dates``."""
        count = int(self.lengths[s])
        first = self.date(self.starts[s])
        if count == 1:
            return first
        return "%s to %s, %d dates" % (first, self.date(self.starts[s] + count - 1), count)


class _NoDecoys(object):
    """The organizer's forecast files (``naive2``): no id is unscored."""

    ignore = False


_NO_DECOYS = _NoDecoys()


class _Columns(object):
    """Where a forecast file's columns are: the id and date columns, and the value columns with their names."""

    def __init__(self, source, header, line, levels, samples, following=()):
        qnames, snames = quantile_columns(levels), sample_columns(samples)
        self.index = _column_index(source, header, line, (ID, TIME, FORECAST), following=following)
        quantile_at = _quantile_header(header, levels)
        missing = [qnames[j] for j in range(len(levels)) if j not in quantile_at]
        missing += [name for name in snames if name not in self.index]
        if missing:
            raise source.at(
                line,
                "the header has no column %s; expected the columns %s"
                % (
                    ", ".join(repr(m) for m in missing[:3]) + (" ..." if len(missing) > 3 else ""),
                    ",".join([ID, TIME, FORECAST] + qnames + snames),
                ),
            )
        quantiles = [quantile_at[j] for j in range(len(levels))]
        self.values = [self.index[FORECAST]] + quantiles + [self.index[s] for s in snames]
        self.names = [FORECAST] + [header[j] for j in quantiles] + snames


class _Rows(object):
    """One block's rows checked against the horizon: which are in it, which are wrong and why."""

    def __init__(self, block, columns, horizon, filled, unscored, queries):
        index, n_points, n_dates = columns.index, len(horizon.flat_keys), len(horizon.date_values)
        rows = block.rows
        self.series = queries.lookup(block.view, block.starts[:, index[ID]], block.lengths[:, index[ID]])
        keys, self.kinds = timestamps.parse(block.data, block.starts[:, index[TIME]], block.lengths[:, index[TIME]])
        code = np.minimum(np.searchsorted(horizon.date_values, keys), max(n_dates - 1, 0))
        same_kind = self.kinds == horizon.kind
        dated = same_kind & (horizon.date_values[code] == keys) if n_dates else np.zeros(rows, dtype=bool)
        flat = np.where(self.series >= 0, self.series, 0) * max(n_dates, 1) + code
        self.position = np.minimum(np.searchsorted(horizon.flat_keys, flat), n_points - 1)
        self.in_horizon = dated & (self.series >= 0) & (horizon.flat_keys[self.position] == flat)
        self.values = np.empty((rows, len(columns.values)))
        self.bad = np.zeros((rows, len(columns.values)), dtype=bool)
        for j, column in enumerate(columns.values):
            self.values[:, j], self.bad[:, j] = trec_runs.parse_numbers(
                block.data, block.view, block.starts[:, column], block.lengths[:, column]
            )
        with np.errstate(invalid="ignore"):
            self.bad |= np.abs(self.values) > MAX_ABS
        self.repeated, self.first_line = _repeats(self.position, self.in_horizon, filled, block.lines)
        decoy = (self.series < 0) & same_kind if unscored.ignore else np.zeros(rows, dtype=bool)
        self.decoys = np.flatnonzero(decoy)
        problem = (self.series < 0) | (self.kinds == timestamps.BAD) | ~self.in_horizon
        problem |= self.bad.any(axis=1) | self.repeated
        self.problem = problem & (~decoy | self.bad.any(axis=1))


def read_forecasts(source, lines, horizon, levels=(), samples=0, unscored=None):
    """A forecast file aligned with the gold points: ``(yhat, quantiles, samples)`` flat arrays.

    ``horizon`` is the gold's :class:`Horizon`, ``levels`` the quantile levels and ``samples`` the number of
    sample paths the file gives.  The first wrong row in line order raises one sentence.  ``unscored``
    is the submission's :class:`~leaderboard_ci.tasks.shared.base.UnscoredIds` (None: the organizer's
    file, every series the gold's); with ``files.unscored_ids: ignore`` a row of a series the gold does not
    have is read, its date and values checked, and dropped (at most ``files.max_ids`` series in all); a
    missing gold point is then reported with neither a series nor a count.
    """
    header, delimiter, line, rest = read_header(source, text_blocks(lines))
    columns = _Columns(source, header, line, levels, samples, following_rows(rest, delimiter))
    n_points = len(horizon.flat_keys)
    out = np.full((n_points, len(columns.values)), np.nan)
    filled = np.zeros(n_points, dtype=np.int64)
    queries = trec_runs.Queries(horizon.ids)
    unscored = _NO_DECOYS if unscored is None else unscored
    for block in iter_blocks(source, rest, len(header), delimiter):
        rows = _Rows(block, columns, horizon, filled, unscored, queries)
        if rows.problem.any():
            raise _row_error(source, block, int(np.flatnonzero(rows.problem)[0]), columns, rows, horizon)
        for k in rows.decoys.tolist():  # the rows of series the gold does not score: at most max_ids series
            error = unscored.decoy(block.field(k, columns.index[ID]), len(horizon.ids), int(block.lines[k]))
            if error is not None:
                raise error
        out[rows.position[rows.in_horizon]] = rows.values[rows.in_horizon]
        filled[rows.position[rows.in_horizon]] = block.lines[rows.in_horizon]
    _check_complete(source, horizon, filled, unscored.ignore)
    k = len(levels)
    return out[:, 0], (out[:, 1 : 1 + k] if k else None), (out[:, 1 + k :] if samples else None)


def _check_complete(source, horizon, filled, ignore_unknown):
    """Every gold point has its row (else one sentence: the first missing series and date, or with
    ``ignore_unknown`` neither)."""
    empty = np.flatnonzero(filled == 0)
    if not len(empty):
        return
    if ignore_unknown:
        raise source.whole(UnscoredIds.MISSING)
    p = int(empty[0])
    s = int(np.searchsorted(horizon.starts, p, side="right") - 1)
    raise source.whole(
        "has no forecast for series %r at %s; expected one row per series and date of its horizon "
        "(%s)" % (horizon.ids[s], horizon.date(p), horizon.text(s))
    )


def _repeats(position, in_horizon, filled, lines):
    """Rows that forecast a point already forecast (before in the file or earlier in the block), and that line."""
    first = np.where(in_horizon, filled[position], 0)
    repeated = first > 0
    rows = np.flatnonzero(in_horizon)
    if len(rows) > 1:
        order = rows[np.argsort(position[rows], kind="stable")]
        same = np.flatnonzero(position[order][1:] == position[order][:-1])
        later, earlier = order[same + 1], order[same]
        fresh = ~repeated[later]
        repeated[later[fresh]] = True
        first[later[fresh]] = lines[earlier[fresh]]
    return repeated, first


def _row_error(source, block, k, columns, rows, horizon):
    """The sentence of the wrong row ``k`` of ``block`` (checked in :class:`_Rows`)."""
    line, index, ids = int(block.lines[k]), columns.index, horizon.ids
    if rows.series[k] < 0:
        return source.at(
            line,
            "series %s is not one of the test series; expected ids like %r"
            % (_quote(source, block.field(k, index[ID])), ids[0]),
        )
    s = int(rows.series[k])
    if rows.kinds[k] == timestamps.BAD or rows.kinds[k] != horizon.kind:
        return source.at(
            line,
            "the ds field %s is not one of the horizon's dates; expected %s"
            % (_quote(source, block.field(k, index[TIME])), timestamps.describe_kind(horizon.kind)),
        )
    if not rows.in_horizon[k]:
        return source.at(
            line,
            "series %r has no horizon date %s; its horizon is %s"
            % (ids[s], _quote(source, block.field(k, index[TIME])), horizon.text(s)),
        )
    if rows.bad[k].any():
        j = int(np.flatnonzero(rows.bad[k])[0])
        text = block.field(k, columns.values[j])
        return source.at(
            line,
            "the %s field %s is not a finite number; expected a number such as 12.5"
            % (columns.names[j], _quote(source, text) if text else "(empty)"),
        )
    return source.at(
        line,
        "series %r at %s is forecast again (first on line %d); give each series and date once"
        % (ids[s], _quote(source, block.field(k, index[TIME])), int(rows.first_line[k])),
    )
