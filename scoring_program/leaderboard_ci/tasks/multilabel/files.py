"""Files of label sets for the multi-label task: CSV/TSV cells, 0/1 columns, JSON and JSON Lines.

Formats (gold and predictions alike; chosen by ``files.format``, else the
file's extension, else its first line):

* CSV / TSV with a header ``id,labels``: the labels of an item in one cell,
  separated by ``label_separator`` (default ``|``); an empty cell means no label;
* CSV / TSV with a header ``id,<label>,<label>,...``: one 0/1 column per label;
* JSON: ``{"id": ["label", ...], ...}`` or ``[{"id": ..., "labels": [...]}, ...]``;
* JSON Lines: one ``{"id": ..., "labels": [...]}`` per line.

Without an id column (``files.id_column: null``, or a gold file without one)
items are aligned by order.  Every mistake raises the source's error with one
sentence naming the file and line; a gold label is never quoted, and the
task's labels are listed only when the organizers configured them.
Standard library and numpy only (Python 3.7).
"""

import csv
import json
import math
import re
from dataclasses import replace

import numpy as np

from ..protocol import GoldData
from ..shared import json_documents
from ..shared.base import UnscoredIds, id_positions
from ..shared.header_rows import DATA_NOT_HEADER, first_row_is_data

__all__ = ["DEFAULT_SEPARATOR", "read_gold", "read_predictions", "encode_label_sets"]

DEFAULT_SEPARATOR = "|"
_LINE_DECODER = json.JSONDecoder(parse_int=json_documents.integer)
_EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl"}
_DELIMITERS = {"csv": ",", "tsv": "\t"}
_DELIMITER_NAMES = {",": "commas", "\t": "tabs", ";": "semicolons"}
_LABEL_COLUMNS = ("labels", "label", "predictions", "prediction", "pred")
_LIKELY_SEPARATORS = (",", ";", "|", "/", "+")
_LISTED = 20
_SPACE = re.compile(r"[ \t\n\r]*")


def _q(source, text):
    """``text`` quoted for a message, or a neutral word when the file is the gold standard."""
    if not source.may_quote:
        return "a value"
    text = str(text)
    return repr(text if len(text) <= 40 else text[:40] + "...")


def _listing(labels):
    """The labels for a message: quoted when one holds a comma, else ``a, b, c`` could not be told apart."""
    labels = list(labels)
    quoted = any("," in label for label in labels)
    shown = ", ".join(repr(label) if quoted else label for label in labels[:_LISTED])
    return shown + (" and %d more" % (len(labels) - _LISTED) if len(labels) > _LISTED else "")


# ---------------------------------------------------------------------------
# Records: (line, id, labels or 0/1 row, group)
# ---------------------------------------------------------------------------
def _json_aware_lines(source, text_file, context):
    """The file's lines; a JSON file (by its setting, name or first character) is decoded whole, then split.

    A minified JSON document is one line of any length: reading it as lines
    would refuse it as a line too long.
    """
    configured = context.format or "auto"
    fmt = configured if configured != "auto" else _EXTENSIONS.get(source.extension)
    if fmt in ("csv", "tsv", "lines") or (fmt is None and text_file.first_character() not in ("{", "[")):
        return text_file
    return enumerate(text_file.text().split("\n"), 1)


def _format_of(source, context, lines):
    configured = context.format or "auto"
    if configured != "auto":
        return configured
    by_name = _EXTENSIONS.get(source.extension)
    if by_name:
        return by_name
    first = next((text for _, text in lines if text.strip()), "").strip()
    if first.startswith("{"):
        try:
            return (
                "jsonl" if isinstance(json_documents.paused_collection(_LINE_DECODER.decode, first), dict) else "json"
            )
        except (ValueError, RecursionError):
            return "json"
    if first.startswith("["):
        return "json"
    return "tsv" if "\t" in first else "csv"


def _content_lines(source, lines):
    """The lines up to the last non-blank one; a blank line before more data is an error."""
    out, blank = [], None
    for lineno, text in lines:
        if not text.strip():
            if blank is None:
                blank = lineno
            continue
        if blank is not None:
            raise source.at(blank, "the line is blank; remove blank lines (only trailing blank lines are allowed)")
        out.append((lineno, text))
    return out


def _split_row(source, lineno, text, delimiter, fmt):
    try:
        return [field.strip() for field in next(csv.reader([text], delimiter=delimiter))]
    except (csv.Error, StopIteration) as exc:
        raise source.at(lineno, "cannot be read as %s (%s)" % (fmt.upper(), exc))


def _find(names, wanted):
    folded = [name.casefold() for name in names]
    for name in wanted:
        if name is not None and name.casefold() in folded:
            return folded.index(name.casefold())
    return None


def _delimited(source, lines, fmt, context, value_names):
    """Records of a CSV/TSV file: ``(kind, label columns or None, [(line, id, payload, group)])``."""
    delimiter = _DELIMITERS[fmt]
    lines = list(lines)
    first = next((i for i, (_, text) in enumerate(lines) if text.strip()), None)
    if first is None:
        raise source.whole("is empty; expected a header line such as 'id,labels' and one line per item")
    head_line, head_text = lines[first]
    header = _split_row(source, head_line, head_text, delimiter, fmt)
    # One column (labels only): an empty line is an item with no label.  Otherwise blank lines are mistakes.
    lines = lines[first:] if len(header) == 1 else _content_lines(source, lines)
    if len(header) == 1:
        for other in ("\t", ";", ","):
            if other != delimiter and other in head_text:
                raise source.at(
                    head_line,
                    "the columns are separated by %s, but a %s file must separate them by %s"
                    % (_DELIMITER_NAMES[other], fmt.upper(), _DELIMITER_NAMES[delimiter]),
                )
    id_column = context.id_column
    group_column = context.group_column
    ident = _find(header, [id_column]) if id_column else None
    group = _find(header, [group_column]) if group_column else None
    value = _find(header, value_names)
    folded = [name.casefold() for name in header]
    for i, name in enumerate(folded):
        if folded.count(name) > 1:
            raise source.at(head_line, "the header names the column %s twice" % _q(source, header[i]))
    used = set(i for i in (ident, group) if i is not None)
    if value is None:
        label_columns = [i for i in range(len(header)) if i not in used]
        if ident is None or not label_columns:
            ident_name = id_column or "id"
            following = (_split_row(source, n, t, delimiter, fmt) for n, t in lines[1:] if t.strip())
            if first_row_is_data(header, following, value_names):
                raise source.at(head_line, DATA_NOT_HEADER % repr("%s,%s" % (ident_name, value_names[0])))
            raise source.at(
                head_line,
                "the header has no %s column; the header should be '%s,labels' (the labels "
                "of an item in one cell) or '%s' followed by one 0/1 column per label"
                % ("labels" if ident is not None else "id %s" % repr(ident_name), ident_name, ident_name),
            )
        kind = "indicators"
    else:
        label_columns = None
        kind = "cells"
    if group_column and group is None:
        raise source.at(head_line, "the header has no group column %s (groups.column)" % repr(group_column))
    width = len(header)
    records = []
    for lineno, text in lines[1:]:
        row = _split_row(source, lineno, text, delimiter, fmt) if text.strip() else [""] * width
        if len(row) != width:
            hint = ""
            if len(row) > width and kind == "cells" and delimiter != "\t":
                hint = " (a cell holding several labels must be in double quotes, or separate its labels by %s)" % repr(
                    context.settings.label_separator
                )
            raise source.at(lineno, "expected %d fields, found %d%s" % (width, len(row), hint))
        payload = row[value] if kind == "cells" else [row[i] for i in label_columns]
        records.append(
            (lineno, row[ident] if ident is not None else None, payload, row[group] if group is not None else None)
        )
    names = [header[i] for i in label_columns] if label_columns is not None else None
    return kind, names, records, ident is not None


_JSON_SHAPE = '{"id": ["label", ...], ...} or a list of objects [{"id": ..., "labels": [...]}, ...]'


def _json_items(source, text):
    """``(line, key, value)`` for the items of a top-level JSON list or object (:mod:`.json_documents`)."""
    return list(json_documents.members(source, text, _JSON_SHAPE, allow_list=True))


def _json_line(source, line, text):
    """One line of JSON Lines, decoded (long integers kept as text, deep nesting an error naming the line)."""
    try:
        return json_documents.paused_collection(_LINE_DECODER.decode, text)
    except RecursionError:
        raise source.at(line, 'the JSON is nested too deeply; expected one object {"id": ..., "labels": [...]}')
    except ValueError as exc:
        raise source.at(
            line, "not valid JSON (%s); JSON Lines hold one JSON object per line" % getattr(exc, "msg", exc)
        )


def _object_record(source, line, obj, context, value_names):
    """``(id, labels, group)`` of one JSON object ``{"id": ..., "labels": [...]}``."""
    keys = list(obj)
    id_column = context.id_column
    value = _find(keys, value_names)
    if value is None:
        raise source.at(
            line,
            'the object has no "labels" key; expected objects like {"%s": ..., "labels": [...]}' % (id_column or "id"),
        )
    ident = _find(keys, [id_column]) if id_column else None
    if id_column and ident is None:
        raise source.at(
            line,
            'the object has no %s key; expected objects like {"%s": ..., "labels": [...]}'
            % (repr(id_column), id_column),
        )
    group_column = context.group_column
    group = _find(keys, [group_column]) if group_column else None
    if group_column and group is None:
        raise source.at(line, "the object has no group key %s (groups.column)" % repr(group_column))
    return (
        _scalar(source, line, obj[keys[ident]], "id") if ident is not None else None,
        obj[keys[value]],
        _scalar(source, line, obj[keys[group]], "group") if group is not None else None,
    )


def _scalar(source, line, value, what):
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise source.at(line, "the %s is a JSON %s; expected a string" % (what, type(value).__name__))
    return str(value).strip()


def _json_records(source, lines, fmt, context, value_names):
    records, has_ids = [], None
    if fmt == "json":
        items = _json_items(source, json_documents.document_text(lines))
    else:
        items = [(line, None, _json_line(source, line, text)) for line, text in _content_lines(source, lines)]
    for line, key, value in items:
        if key is not None:  # {"id": [labels]}
            record = (line, key.strip(), value, None)
        elif isinstance(value, dict):
            ident, labels, group = _object_record(source, line, value, context, value_names)
            record = (line, ident, labels, group)
        else:  # a bare list: aligned by order
            record = (line, None, value, None)
        if has_ids is None:
            has_ids = record[1] is not None
        elif has_ids != (record[1] is not None):
            raise source.at(
                line,
                "the item has %s id, unlike the first item; give every item an id"
                % ("an" if record[1] is not None else "no"),
            )
        records.append(record)
    return "lists", None, records, bool(has_ids)


def _records(source, lines, context, value_names):
    lines = _json_aware_lines(source, lines, context)  # a JSON document is read whole, never as lines
    lines = list(lines)
    fmt = _format_of(source, context, lines)
    if fmt in ("csv", "tsv"):
        return _delimited(source, lines, fmt, context, value_names)
    if fmt in ("json", "jsonl"):
        return _json_records(source, lines, fmt, context, value_names)
    # "lines": one cell of labels per line, in order (an empty line is an item with no label)
    return "cells", None, [(line, None, text.strip(), None) for line, text in lines], False


# ---------------------------------------------------------------------------
# Label sets
# ---------------------------------------------------------------------------
def _tokens(source, line, payload, separator):
    """The labels of one cell or JSON list, stripped; duplicates and empty names are errors."""
    if isinstance(payload, list):
        tokens = []
        for token in payload:
            if isinstance(token, bool) or not isinstance(token, (str, int)):
                raise source.at(
                    line,
                    "the list of labels holds a JSON %s; expected label names as strings"
                    % ("list" if isinstance(token, list) else type(token).__name__),
                )
            tokens.append(str(token).strip())
    elif isinstance(payload, str):
        tokens = [token.strip() for token in payload.split(separator)] if payload.strip() else []
    else:
        raise source.at(
            line,
            'the labels are a JSON %s; expected a list of labels such as ["a", "b"] '
            "(an empty list for none)" % ("null" if payload is None else type(payload).__name__),
        )
    seen = set()
    for token in tokens:
        if token == "":
            raise source.at(
                line,
                "a label is empty (two separators %s in a row, or one at the start or end); remove the extra "
                "separator (an item with no labels is an empty cell)" % repr(separator)
                if isinstance(payload, str)
                else "a label is an empty string; leave it out of the list (an item with no labels is [])",
            )
        if token in seen:
            what = "the label %s" % _q(source, token) if source.may_quote else "a label"
            raise source.at(line, "%s appears twice in the item's labels; list each label once" % what)
        seen.add(token)
    return tokens


def _unknown_label(source, line, token, labels, context):
    configured = context.labels
    separator = context.settings.label_separator
    hint = ""
    other = _other_separator(token, separator, configured)
    if other is not None:
        hint = "; labels in one cell are separated by %s, not %s" % (repr(separator), repr(other))
    if not source.may_quote:
        return source.at(line, "a label is not in the labels list of %s; add it to labels" % context.config_name)
    if configured is None:  # the label set is the gold's: never list or hint at it
        return source.at(
            line, "label %s is not one of the task's labels (labels are case-sensitive)%s" % (_q(source, token), hint)
        )
    if not hint:
        same = [label for label in configured if label.casefold() == token.casefold()]
        if len(same) == 1:
            hint = " (labels are case-sensitive; did you mean %s?)" % repr(same[0])
    return source.at(line, "label %s is not one of the labels: %s%s" % (_q(source, token), _listing(configured), hint))


def _other_separator(token, separator, configured=None):
    """The separator a cell ``token`` was most likely written with instead of ``separator``, or None.

    With configured (public) labels: the one that splits the cell into labels alone, else the first
    likely separator the cell holds outside any label (``fear, anger`` may be one label).  Without
    them (the gold's label set, never hinted at): the first likely separator the cell holds.
    """
    candidates = [other for other in _LIKELY_SEPARATORS if other != separator and other in token]
    if configured is None:
        return candidates[0] if candidates else None
    known = set(configured)
    for other in candidates:
        if all(part.strip() in known for part in token.split(other)):
            return other
    rest = token
    for label in sorted(known, key=len, reverse=True):
        rest = rest.replace(label, " ")
    return next((other for other in candidates if other in rest), None)


def _indicator_row(source, line, cells, columns):
    row = []
    for cell, name in zip(cells, columns):
        if cell not in ("0", "1"):
            what = "is empty" if cell == "" else "holds %s" % _q(source, cell)
            raise source.at(line, "the column %s %s; expected 0 or 1" % (_q(source, name), what))
        row.append(cell == "1")
    return row


def _natural(values):
    def number(text):
        try:
            value = float(text)
        except ValueError:
            return None
        return value if math.isfinite(value) else None

    values = sorted(set(values))
    numbers = [number(v) for v in values]
    if values and all(x is not None for x in numbers):
        return tuple(v for _, v in sorted(zip(numbers, values)))
    return tuple(values)


def read_gold(gold, context):
    """The gold standard's items (:class:`~leaderboard_ci.tasks.protocol.GoldData`): ``values`` (n, K) uint8."""
    source, lines, labels = gold.source, gold.lines(), context.labels
    context = replace(context, format="auto")  # files.format is the predictions' format
    separator = context.settings.label_separator
    kind, columns, records, has_ids = _records(source, lines, context, [context.gold_column] + list(_LABEL_COLUMNS))
    if not records:
        raise source.whole("has no items")
    if kind == "indicators":
        if labels is not None:
            for position, name in enumerate(columns):
                if name not in labels:
                    raise source.whole(
                        "has a label column (number %d of the label columns) that the labels list "
                        "of %s does not name" % (position + 1, context.config_name)
                    )
            missing = [label for label in labels if label not in columns]
            if missing:
                raise source.whole("has no 0/1 column for label %r of the labels list" % missing[0])
        label_set = tuple(labels) if labels is not None else tuple(columns)
        order = [columns.index(label) for label in label_set]
        rows = [_indicator_row(source, line, payload, columns) for line, _, payload, _ in records]
        values = np.array([[row[i] for i in order] for row in rows], dtype=np.uint8).reshape(len(rows), len(order))
    else:
        sets = [_tokens(source, line, payload, separator) for line, _, payload, _ in records]
        if labels is None:
            label_set = _natural(token for tokens in sets for token in tokens)
            if not label_set:
                raise source.whole("has no labels at all; every item is empty")
        else:
            label_set = tuple(labels)
        index = dict((label, k) for k, label in enumerate(label_set))
        values = np.zeros((len(sets), len(label_set)), dtype=np.uint8)
        for row, ((line, _, _, _), tokens) in enumerate(zip(records, sets)):
            for token in tokens:
                k = index.get(token)
                if k is None:
                    raise _unknown_label(source, line, token, label_set, context)
                values[row, k] = 1
    hierarchy = context.settings.hierarchy
    if hierarchy:
        mapped = set(fine for fine, _ in hierarchy)
        inner = set(parent for child, parent in hierarchy if child != parent)  # a deeper tree's inner nodes
        for fine in mapped:
            if fine not in label_set and fine not in inner:
                raise source.whole(
                    "has no item with label %r, which hierarchy maps; list every label under "
                    "labels: in %s" % (fine, context.config_name)
                )
        for k, label in enumerate(label_set):
            if label not in mapped:
                line = records[int(np.flatnonzero(values[:, k])[0])][0] if values[:, k].any() else records[0][0]
                raise source.at(
                    line, "a label has no coarse label in hierarchy; map every label (a label may map to itself)"
                )
    return GoldData(
        [r[0] for r in records],
        values,
        label_set,
        [r[1] for r in records] if has_ids else None,
        [r[3] for r in records] if context.group_column else None,
    )


def _indicator_order(source, columns, labels, index, context):
    """The position of each label's 0/1 column in a header of indicator columns (one sentence when one is
    missing or names no label)."""
    if not any(name in index for name in columns):
        id_name = context.id_column or "id"
        raise source.at(
            1,
            "the header has no labels column; the header should be '%s,labels' (the labels of an "
            "item in one cell) or '%s' followed by one 0/1 column per label" % (id_name, id_name),
        )
    for name in columns:
        if name not in index:
            raise _unknown_label(source, 1, name, labels, context)
    missing = [label for label in labels if label not in columns]
    if missing:
        if context.labels is not None:
            raise source.at(
                1,
                "the header has no 0/1 column for label %s; expected one column per label: %s"
                % (repr(missing[0]), _listing(labels)),
            )
        raise source.at(
            1, "the header has %d label columns; expected one 0/1 column per label (%d)" % (len(columns), len(labels))
        )
    return [columns.index(label) for label in labels]


def read_predictions(submission, gold, context):
    """The participant's label sets as a 0/1 matrix ``(n, K)`` in the gold's item and label order."""
    predictions = submission.file()
    source, lines = predictions.source, predictions.lines()
    labels = tuple(gold.labels)
    context = replace(context, group_column=None)  # groups come from the gold only
    separator = context.settings.label_separator
    names = list(context.prediction_columns or ()) + list(_LABEL_COLUMNS)
    kind, columns, records, has_ids = _records(source, lines, context, names)
    _check_ids_given(source, records, has_ids, gold, context)
    index = dict((label, k) for k, label in enumerate(labels))
    if kind == "indicators":
        order = _indicator_order(source, columns, labels, index, context)
    n = gold.n
    by_id = gold.ids is not None and has_ids
    unscored = UnscoredIds(source, context)
    position = id_positions(gold.ids) if by_id else None
    out = np.zeros((n, len(labels)), dtype=np.uint8)
    seen = np.zeros(n, dtype=np.int64)
    first = {}
    decoy = np.zeros((1, len(labels)), dtype=np.uint8)  # where an unscored id's labels are checked, then dropped
    count = 0
    for line, ident, payload, _ in records:
        target = out
        if by_id:
            error = unscored.count(line)
            if error is not None:
                raise error
            if ident == "":
                raise source.at(line, "the id is empty; expected one of the test ids (like %r)" % (gold.ids[0],))
            if ident in first:
                raise source.at(
                    line,
                    "id %s appears again (first on line %d); give one prediction per id"
                    % (_q(source, ident), first[ident]),
                )
            first[ident] = line
            i = position.get(ident)
            if i is None:  # the first unknown id stops the reading, unless unscored ids are ignored
                error = unscored.unknown(
                    line, "id %s is not in the test set; expected ids like %r" % (_q(source, ident), gold.ids[0])
                )
                if error is not None:
                    raise error
                target, i = decoy, 0
        else:
            if count == n:
                raise source.at(
                    line,
                    "more predictions than the %d test items; expected exactly %d, one per test item in order" % (n, n),
                )
            i = count
        if target is out:
            seen[i] = line
            count += 1
        if kind == "indicators":
            row = _indicator_row(source, line, payload, columns)
            target[i] = [row[j] for j in order]
        else:
            for token in _tokens(source, line, payload, separator):
                k = index.get(token)
                if k is None:
                    raise _unknown_label(source, line, token, labels, context)
                target[i, k] = 1
    _check_count(source, unscored, gold, seen, count, by_id)
    return out


def _check_ids_given(source, records, has_ids, gold, context):
    """With test ids in the gold, the predictions must carry ids too (else: the first record's line)."""
    if gold.ids is not None and records and not has_ids:
        id_column = context.id_column or "id"
        raise source.at(
            records[0][0],
            "the item has no id; give each prediction its id (a %r column, or "
            '{"%s": ..., "labels": [...]} objects)' % (id_column, id_column),
        )


def _check_count(source, unscored, gold, seen, count, by_id):
    """Raise unless every test item got its prediction (by id, or in order)."""
    n = gold.n
    if count == 0 and not unscored.ignore:
        raise source.whole("has no predictions; expected one per test item (%d)" % n)
    if count < n:
        if by_id:
            missing = [gold.ids[i] for i in np.flatnonzero(seen == 0)[:3]]
            raise unscored.missing(
                "is missing %d of the %d test ids (e.g. %s); give one prediction for every id"
                % (n - count, n, ", ".join(repr(x) for x in missing))
            )
        raise source.whole(
            "has %d predictions, expected %d (one per test item, in the order of the test set)" % (count, n)
        )


# ---------------------------------------------------------------------------
# The Python API
# ---------------------------------------------------------------------------
def _as_sets(values, what, labels):
    """Each item's labels as a list of strings, or a 0/1 matrix; ValueError naming ``what``."""
    items = list(values)
    if items and not isinstance(items[0], (str, list, tuple, set, frozenset)):
        matrix = np.asarray(items)
        if matrix.ndim == 2:
            if labels is not None and matrix.shape[1] != len(labels):
                raise ValueError("%s has %d indicator columns for %d labels" % (what, matrix.shape[1], len(labels)))
            if not np.isin(matrix, (0, 1)).all():
                raise ValueError("%s must hold 0/1 label indicators" % what)
            return matrix.astype(np.uint8)
    out = []
    for item in items:
        if isinstance(item, str):
            item = [t.strip() for t in item.split(DEFAULT_SEPARATOR)] if item.strip() else []
        if not isinstance(item, (list, tuple, set, frozenset)):
            raise ValueError("%s: each item must be a list of labels (or a 'a|b' string), got %r" % (what, item))
        item = [str(x) for x in item]
        if len(set(item)) != len(item):
            raise ValueError("%s lists a label twice in one item: %r" % (what, item))
        out.append(item)
    return out


def _indicators(sets, labels, what, n):
    if isinstance(sets, np.ndarray):
        out = sets
    else:
        index = dict((label, k) for k, label in enumerate(labels))
        out = np.zeros((len(sets), len(labels)), dtype=np.uint8)
        for i, item in enumerate(sets):
            for label in item:
                if label not in index:
                    raise ValueError("%s has label %r, not one of the labels: %s" % (what, label, _listing(labels)))
                out[i, index[label]] = 1
    if out.shape[0] != n:
        raise ValueError("%s has %d items for %d gold items" % (what, out.shape[0], n))
    return out


def encode_label_sets(gold_values, systems, labels=None):
    """``(indicators, labels, {name: indicators})`` from label sets, ``'a|b'`` strings or 0/1 rows."""
    gold = _as_sets(gold_values, "the gold", labels)
    if labels is None:
        labels = (
            tuple(str(k) for k in range(gold.shape[1]))
            if isinstance(gold, np.ndarray)
            else _natural(label for item in gold for label in item)
        )
    labels = tuple(str(x) for x in labels)
    n = len(gold)
    gold_matrix = _indicators(gold, labels, "the gold", n)
    coded = {}
    for name, values in systems.items():
        coded[name] = _indicators(_as_sets(values, "system %r" % name, labels), labels, "system %r" % name, n)
    return gold_matrix, labels, coded
