"""Single-label classification's values: class labels in the gold column and the prediction column.

:func:`encode_gold` (the gold column's labels into codes over the task's label
set) and :func:`value_parser` (a participant's label into a code, with a hint for
case variants and ``1.0`` for ``1``) are the cell encodings of the id/value-column
format (:class:`~leaderboard_ci.tasks.shared.columns.ColumnFormat`); no message
lists labels unless the configuration does (``labels``).
"""

from __future__ import annotations

import numpy as np

from ..shared.numbers import finite_number

__all__ = ["encode_gold", "value_parser", "is_value", "encode_values", "decode"]

_LISTED_LABELS = 20


def _sorted_labels(values):
    """Unique labels, numerically sorted when all are numbers, else as strings."""
    unique = sorted(set(values))
    numbers = [finite_number(label) for label in unique]
    if all(number is not None for number in numbers):
        return tuple(label for _, label in sorted(zip(numbers, unique)))
    return tuple(unique)


def encode_gold(source, lines, values, context):
    """``(codes, labels)`` of the gold column: codes into the configured or found label set.

    Messages name the file and line, never a gold label.
    """
    labels, config_name = context.labels, context.config_name
    for line, value in zip(lines, values):
        if value == "":
            raise source.at(line, "the label is empty; expected a class label on every line")
    if labels is None:
        labels = _sorted_labels(values)
    else:
        labels = tuple(labels)
        known = set(labels)
        for line, value in zip(lines, values):
            if value not in known:
                raise source.at(line, "the label is not in the labels list of %s; add it to labels" % config_name)
    index = dict((label, code) for code, label in enumerate(labels))
    return np.array([index[value] for value in values], dtype=np.intp), labels


def encode_values(gold_values, systems, labels=None, settings=None):
    """In-memory encoding for the analysis API: ``(codes, labels, {name: codes})`` (ValueError)."""
    gold_values = [str(v) for v in gold_values]
    if labels is None:
        labels = _natural_sorted(set(gold_values))
    labels = tuple(str(x) for x in labels)
    index = dict((label, i) for i, label in enumerate(labels))
    unknown = sorted(set(gold_values) - set(index))
    if unknown:
        raise ValueError("gold label %r is not one of the labels: %s" % (unknown[0], ", ".join(labels)))
    coded = {}
    for name, preds in systems.items():
        preds = [str(v) for v in preds]
        if len(preds) != len(gold_values):
            raise ValueError("system %r has %d predictions for %d items" % (name, len(preds), len(gold_values)))
        bad = [p for p in preds if p not in index]
        if bad:
            raise ValueError("system %r predicts %r, not one of the labels: %s" % (name, bad[0], ", ".join(labels)))
        coded[name] = np.array([index[p] for p in preds], dtype=np.intp)
    return np.array([index[v] for v in gold_values], dtype=np.intp), labels, coded


def _natural_sorted(values):
    values = [str(v) for v in values]
    try:
        return tuple(sorted(values, key=float))
    except ValueError:
        return tuple(sorted(values))


def _label_list(labels):
    if len(labels) <= _LISTED_LABELS:
        return "one of: %s" % ", ".join(labels)
    return "one of the %d labels (%s, ...)" % (len(labels), ", ".join(labels[:_LISTED_LABELS]))


def _label_hint(text, labels, quote):
    """Why a participant's label may not match: letter case or a number's spelling."""
    same_case = [label for label in labels if label.casefold() == text.casefold()]
    if len(same_case) == 1:
        return " (labels are case-sensitive; did you mean %s?)" % quote(same_case[0])
    number = finite_number(text)
    if number is not None:
        same_number = [label for label in labels if finite_number(label) == number]
        if len(same_number) == 1:
            return " (write %s, not %s)" % (quote(same_number[0])[1:-1], quote(text)[1:-1])
    return ""


def value_parser(file, gold, context):
    """``(convert(line, text) -> code, typecode)``; messages list labels only if configured (``context.labels``)."""
    source, quote = file.source, file.quote
    labels = gold.labels
    index = dict((label, code) for code, label in enumerate(labels))
    public = context.labels

    def convert(line, text):
        found = index.get(text)
        if found is not None:
            return found
        if public is None:
            what = "one of the task's labels"
            if text == "":
                raise source.at(line, "the prediction is empty; expected %s" % what)
            raise source.at(line, "label %s is not %s" % (quote(text), what))
        if text == "":
            raise source.at(line, "the prediction is empty; expected %s" % _label_list(labels))
        raise source.at(
            line, "label %s is not %s%s" % (quote(text), _label_list(labels), _label_hint(text, labels, quote))
        )

    return convert, "q"


def is_value(gold, text):
    """Whether a header field is really a value (a label), i.e. the file has no header."""
    return text in set(gold.labels or ())


def decode(gold, codes):
    """Labels as strings, for custom metric functions."""
    return np.asarray(gold.labels, dtype=object)[np.asarray(codes, dtype=np.intp)]
