"""Regression's values: finite numbers in the gold column and the prediction column.

:func:`encode_gold` and :func:`value_parser` are the cell encodings of the
id/value-column format (:class:`~leaderboard_ci.tasks.shared.columns.ColumnFormat`):
a decimal comma, NaN, infinity and out-of-range values get their own sentence.
"""

from __future__ import annotations

import math

import numpy as np

from ..shared.numbers import decimal_comma_hint, finite_number, finite_numbers, number

__all__ = ["encode_gold", "value_parser", "is_value", "encode_values", "decode"]

_MAX_ABS = 1e100


def encode_gold(source, lines, values, context):
    """``(float64 targets, None)``; a value that is not a finite number names its line."""
    fast = finite_numbers(values)
    if fast is not None:
        return fast, None
    numbers = [finite_number(value) for value in values]
    for line, value in zip(lines, numbers):
        if value is None:
            raise source.at(line, "the value is not a finite number (the metric is a regression metric)")
    return np.array(numbers, dtype=np.float64), None


def encode_values(gold_values, systems, labels, settings):
    """In-memory encoding for the analysis API: ``(targets, None, {name: values})`` (ValueError)."""
    gold = np.asarray(gold_values, dtype=np.float64)
    if gold.ndim != 1 or not np.all(np.isfinite(gold)):
        raise ValueError("the gold values must be %d finite numbers" % gold.size)
    coded = {}
    for name, preds in systems.items():
        arr = np.asarray(preds, dtype=np.float64)
        if arr.shape != gold.shape or not np.all(np.isfinite(arr)):
            raise ValueError("system %r needs %d finite numeric predictions" % (name, gold.size))
        coded[name] = arr
    return gold, None, coded


def value_parser(file, gold, context):
    """``(convert(line, text) -> float, typecode)`` for a participant's numbers."""
    source, quote = file.source, file.quote

    def convert(line, text):
        if text == "":
            raise source.at(line, "the prediction is empty; expected a number")
        value = number(text)
        if value is None:
            raise source.at(line, "%s is not a number%s" % (quote(text), decimal_comma_hint(text)))
        if value != value:
            raise source.at(line, "the prediction is NaN; expected a finite number")
        if math.isinf(value) and text.strip("+-").lower() in ("inf", "infinity"):
            raise source.at(line, "the prediction is infinite; expected a finite number")
        if not abs(value) <= _MAX_ABS:
            raise source.at(
                line, "the prediction %s is out of range (the limit is 1e100 in absolute value)" % quote(text)
            )
        return value

    convert.batch = lambda texts: finite_numbers(texts, _MAX_ABS)  # None: convert row by row (the messages)
    return convert, "d"


def is_value(gold, text):
    """Whether a header field is really a value (a number), i.e. the file has no header."""
    return finite_number(text) is not None


def decode(gold, values):
    return np.asarray(values, dtype=np.float64)
