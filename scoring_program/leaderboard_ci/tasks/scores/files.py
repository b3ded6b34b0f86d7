"""Reading scored predictions: a CSV or TSV file with a header, an id column and one or K value columns.

Part of the ``scores`` task (:mod:`leaderboard_ci.tasks.scores.metrics`), kept apart so
that each module reads in one sitting.  Standard library and numpy only.
"""

from __future__ import annotations

import csv
import math
from array import array

import numpy as np

from ..shared.base import UnscoredIds, id_positions
from ..shared.numbers import decimal_comma_hint, number

__all__ = ["read_predictions", "is_number", "DEFAULT_SUM_TOLERANCE", "PROBABILITY_METRICS"]

#: How far a row of class probabilities may be from summing to 1 (log loss), by default.
DEFAULT_SUM_TOLERANCE = 1e-6
#: Metrics that need probabilities in [0, 1].
PROBABILITY_METRICS = ("log_loss", "brier")
_MAX_ABS = 1e100


def is_number(text):
    """Whether a header field is really a value (a number)."""
    try:
        float(text)
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------------------
# The submission file: a header, an id column and one or K value columns
# ---------------------------------------------------------------------------
def _quote(text, limit=40):
    text = str(text)
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _fields(line, delimiter):
    try:
        return [field.strip() for field in next(csv.reader([line], delimiter=delimiter))]
    except (csv.Error, StopIteration):
        return [line.strip()]


def _non_blank(source, lines):
    blank = None
    for lineno, text in lines:
        if not text.strip():
            blank = blank or lineno
            continue
        if blank is not None:
            raise source.at(blank, "the line is blank; remove blank lines (only trailing blank lines are allowed)")
        yield lineno, text


def _expected_header(gold, id_column, delimiter):
    labels = list(gold.labels)
    columns = ([id_column] if id_column else []) + (["score"] if len(labels) == 2 else labels)
    more = (
        " (or one column per class: %s)" % delimiter.join(([id_column] if id_column else []) + labels)
        if len(labels) == 2
        else ""
    )
    return "%s%s" % (delimiter.join(columns), more)


def _value_columns(source, gold, names, id_column, delimiter, header_line=1):
    """``(positions of the value columns, class of each, or None for one score column)``."""
    labels = list(gold.labels)
    folded = [n.casefold() for n in names]
    seen = set()
    for i, name in enumerate(folded):
        if name in seen:
            raise source.at(
                header_line,
                "the header names the column %s twice; the header should be %s, each column once"
                % (_quote(names[i]), _expected_header(gold, id_column, delimiter)),
            )
        seen.add(name)
    if len(names) == 1 and len(labels) == 2:
        return [0], None
    index = dict((label, k) for k, label in enumerate(labels))
    classes = [index.get(name) for name in names]
    if any(c is None for c in classes):
        folded_index = dict((label.casefold(), k) for k, label in enumerate(labels))
        classes = [folded_index.get(name.casefold()) for name in names]
    if all(c is not None for c in classes) and len(set(classes)) == len(labels) == len(names):
        return list(range(len(names))), classes
    expected = _expected_header(gold, id_column, delimiter)
    unknown = [n for n, c in zip(names, classes) if c is None]
    if len(names) == 1:
        raise source.at(
            header_line,
            "the file has one score column, but the task has %d classes; give one probability "
            "column per class, the header should be %s" % (len(labels), expected),
        )
    if unknown:
        raise source.at(
            header_line,
            "the column %s is not a class of the task; the header should be %s" % (_quote(unknown[0]), expected),
        )
    raise source.at(
        header_line,
        "the header has %d of the %d class columns; the header should be %s"
        % (len(set(classes)), len(labels), expected),
    )


def _number(source, line, text, column):
    if text == "":
        raise source.at(line, "the %s is empty; expected a number" % column)
    value = number(text)
    if value is None:
        raise source.at(line, "the %s %s is not a number%s" % (column, _quote(text), decimal_comma_hint(text)))
    if value != value or math.isinf(value):
        beyond = value == value and text.strip().lstrip("+-").lower() not in ("inf", "infinity")
        raise source.at(
            line,
            "the %s %s is %s; expected a finite number between -1e100 and 1e100"
            % (column, _quote(text), "beyond the range of a double" if beyond else "not a finite number"),
        )
    if abs(value) > _MAX_ABS:
        raise source.at(
            line, "the %s %s is out of range; expected a number between -1e100 and 1e100" % (column, _quote(text))
        )
    return value


def read_predictions(submission, gold, context):
    """A submission's scores, aligned with the gold items: float64 ``(n, C)``, C = 1 or the number of classes.

    The file is CSV (or TSV, when the header holds tabs) with a header: the
    id column (``files.id_column``, when the gold has ids) and either one
    score column (binary tasks; any name) or one column per class named by
    its label.  With probability metrics (``log_loss``, ``brier``) every
    value must lie in [0, 1]; with ``log_loss`` and a column per class each
    row must sum to 1 within ``sum_tolerance``.  Each mistake is one
    sentence naming the file and line.
    """
    predictions = submission.file()
    source = predictions.source
    fmt = context.format
    if fmt in ("json", "jsonl", "lines"):
        raise source.whole(
            "cannot be read as %s: scored predictions are a CSV or TSV file with a header "
            "(files.format: csv or tsv)" % fmt
        )
    rows = _non_blank(source, predictions.lines())
    first = next(rows, None)
    id_column = context.id_column if gold.ids is not None else None
    if first is None:
        raise source.whole(
            "is empty; expected the header %s and one line per test item" % _expected_header(gold, id_column, ",")
        )
    if first[1].lstrip().startswith(("{", "[")):
        raise source.at(
            first[0],
            "looks like JSON; scored predictions are a CSV file with the header %s"
            % _expected_header(gold, id_column, ","),
        )
    layout = _Layout(
        source, gold, first, id_column, "\t" if (fmt == "tsv" or ("\t" in first[1] and fmt != "csv")) else ","
    )
    names_used = set(m.name for m in context.metrics)
    unscored = UnscoredIds(source, context)
    tolerance = context.settings.sum_tolerance
    values, lines_seen, row_ids = _read_rows(source, gold, rows, layout, names_used, tolerance, unscored)
    n = gold.n
    if not lines_seen:
        raise source.whole("has a header but no predictions; expected one line per test item (%d)" % n)
    matrix = np.frombuffer(values, dtype=np.float64).reshape(-1, layout.k_cols)
    if layout.classes is not None:
        reordered = np.empty_like(matrix)
        reordered[:, layout.classes] = matrix
        matrix = reordered
    if layout.ident is None:
        if matrix.shape[0] != n:
            raise source.whole(
                "has %d predictions, expected %d (one per test item, in the order of the test set)"
                % (matrix.shape[0], n)
            )
        return matrix
    return _align(source, gold, row_ids, lines_seen, matrix, unscored)


class _Layout(object):
    """The header of a file of scores: where the id is, which column holds which class's score."""

    def __init__(self, source, gold, first, id_column, delimiter):
        self.delimiter = delimiter
        header = _fields(first[1], delimiter)
        ids = frozenset(gold.ids or ())
        ident = None
        if id_column is not None:
            folded = [h.casefold() for h in header]
            ident = (
                header.index(id_column)
                if id_column in header
                else (folded.index(id_column.casefold()) if id_column.casefold() in folded else None)
            )
            if ident is None:
                if any(h in ids or is_number(h) for h in header):
                    raise source.at(
                        first[0],
                        "the first line is data, not a header; start the file with the header %s"
                        % _expected_header(gold, id_column, delimiter),
                    )
                raise source.at(
                    first[0],
                    "the header has no id column %s; the header should be %s"
                    % (_quote(id_column), _expected_header(gold, id_column, delimiter)),
                )
        elif any(is_number(h) for h in header):
            raise source.at(
                first[0],
                "the first line is data, not a header; start the file with the header %s"
                % _expected_header(gold, id_column, delimiter),
            )
        self.ident = ident
        self.value_names = [h for i, h in enumerate(header) if i != ident]
        value_at = [i for i in range(len(header)) if i != ident]
        positions, self.classes = _value_columns(source, gold, self.value_names, id_column, delimiter, first[0])
        self.k_cols = len(self.value_names)
        self.order = [value_at[p] for p in positions]
        self.width = len(header)


def _read_rows(source, gold, rows, layout, names_used, tolerance, unscored):
    """``(values, line numbers, row ids)`` of the data rows, each value checked."""
    probabilities = sorted(names_used & set(PROBABILITY_METRICS))
    check_sum = "log_loss" in names_used
    classes = layout.classes
    column_names = ["score"] if classes is None else ["probability of class %s" % _quote(n) for n in layout.value_names]
    if classes is None and probabilities:
        column_names = ["probability"]
    ids = frozenset(gold.ids or ())
    values = array("d")
    lines_seen = array("q")
    row_ids = []
    for lineno, text in rows:
        fields = _fields(text, layout.delimiter)
        if len(fields) != layout.width:
            raise source.at(lineno, "expected %d fields, found %d" % (layout.width, len(fields)))
        row = [_number(source, lineno, fields[i], column_names[c]) for c, i in enumerate(layout.order)]
        if probabilities:
            for c, value in enumerate(row):
                if not 0.0 <= value <= 1.0:
                    raise source.at(
                        lineno,
                        "the %s is %r; probabilities must lie between 0 and 1 (%s)"
                        % (column_names[c], value, ", ".join(probabilities)),
                    )
            if check_sum and classes is not None and abs(sum(row) - 1.0) > tolerance:
                raise source.at(
                    lineno,
                    "the class probabilities sum to %r; for log_loss each row must sum to 1 "
                    "(within sum_tolerance %g)" % (sum(row), tolerance),
                )
        if layout.ident is not None:
            row_id = fields[layout.ident]
            if row_id not in ids and not unscored.ignore:  # stop at the first unknown id, not after the rest
                raise _unknown_id(source, lineno, row_id, gold)
            row_ids.append(row_id)
        values.extend(row)
        lines_seen.append(lineno)
    return values, lines_seen, row_ids


def _unknown_id(source, line, ident, gold):
    if ident == "":
        return source.at(line, "the id is empty; expected one of the test ids (like %s)" % _quote(gold.ids[0]))
    return source.at(line, "id %s is not in the test set; expected ids like %s" % (_quote(ident), _quote(gold.ids[0])))


def _align(source, gold, row_ids, lines_seen, matrix, unscored):
    """The rows in gold order; rows of ids the gold lacks refused, or dropped (``files.unscored_ids: ignore``)."""
    if unscored.max_ids is not None and len(row_ids) > unscored.max_ids:
        raise unscored.limit(lines_seen[unscored.max_ids])
    index = id_positions(gold.ids)
    position = np.empty(len(row_ids), dtype=np.intp)
    first_line = {}
    unknown = []
    for r, ident in enumerate(row_ids):
        if ident == "":
            raise source.at(lines_seen[r], "the id is empty")
        if ident in first_line:
            raise source.at(
                lines_seen[r],
                "id %s appears again (first on line %d); give one prediction per id"
                % (_quote(ident), first_line[ident]),
            )
        first_line[ident] = lines_seen[r]
        p = index.get(ident)
        if p is None:
            unknown.append(r)
            continue
        position[r] = p
    if unknown and not unscored.ignore:
        r = unknown[0]
        raise source.whole(
            "has %d id%s that %s not in the test set (the first is %s, on line %d); expected ids "
            "like %s"
            % (
                len(unknown),
                "s" if len(unknown) > 1 else "",
                "are" if len(unknown) > 1 else "is",
                _quote(row_ids[r]),
                lines_seen[r],
                _quote(gold.ids[0]),
            )
        )
    if len(row_ids) - len(unknown) < gold.n:
        seen = set(row_ids)
        missing = [i for i in gold.ids if i not in seen]
        raise unscored.missing(
            "is missing %d of the %d test ids (e.g. %s); give one prediction for every id"
            % (len(missing), gold.n, ", ".join(_quote(i) for i in missing[:3]))
        )
    scored = np.ones(len(row_ids), dtype=bool)
    scored[unknown] = False
    out = np.empty((gold.n,) + matrix.shape[1:], dtype=matrix.dtype)
    out[position[scored]] = matrix[scored]
    return out
