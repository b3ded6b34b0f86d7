"""Reading soft-label files: EXIST 2023 / PyEvALL JSON, per-item ``{label: probability}`` or annotators' labels.

Accepted shapes (gold and predictions alike):

* PyEvALL's list ``[{"test_case": "EXIST2023", "id": "...", "value": V}, ...]``
  (the official EXIST 2023 run format);
* an object ``{"id": V, ...}``, or the EXIST evaluation kit's ``{"id": {"soft_label":
  V, "hard_label": ...}, ...}`` (its ``soft_label`` is read);
* the EXIST 2023 data set ``{"id": {"labels_task1": [...], ...}, ...}`` with
  ``annotations: labels_task1`` naming the key (gold only); an annotator's
  ``-`` (the data set's NO in tasks 2 and 3) is the label ``NO`` when the
  labels have ``NO`` and not ``-``.

``V`` is ``{label: probability}`` (soft), a label (hard), a list of labels
(hard multi-label) or, for the gold, the annotators' labels: a list with one
entry per annotator, each a label or a list of labels, turned into the share
of annotators who gave each label.  Messages name the file and line, quote a
participant's text only through ``quote`` and never a gold value.
"""

from __future__ import annotations

import math

import numpy as np

from ..shared import json_documents

__all__ = ["read_items", "encode_items", "MAX_ITEMS"]

MAX_ITEMS = 10000000
_EXPECTED = '[{"test_case": ..., "id": "...", "value": {"label": probability, ...}}, ...] or {"id": {...}, ...}'


def _kind(value):
    """A JSON value's type with its article, for messages: "null", "a number", "an object"..."""
    name = json_documents.kind(value)
    return name if name == "null" else ("an " if name == "object" else "a ") + name


def read_items(source, lines, annotations=None, gold=True, quote=repr, check=None):
    """``[(line, id, value)]`` of a soft-label file (ValueError-free: errors come from ``source``).

    ``check(line, id)``, when given, is called on each item as it is read (a participant's unknown or repeated
    id then stops the reading at its line instead of after every record of a large file).
    """
    text = json_documents.document_text(lines)  # read as one document: no line-length limit on minified JSON
    out = []
    for line, key, value in json_documents.members(source, text, _EXPECTED, allow_list=True):
        if len(out) >= MAX_ITEMS:
            raise source.at(line, "has more than %d items" % MAX_ITEMS)
        if key is None:  # PyEvALL's list of records
            if not isinstance(value, dict) or "id" not in value or "value" not in value:
                raise source.at(line, 'each element must be an object with "id" and "value"; expected %s' % _EXPECTED)
            ident = value["id"]
            if isinstance(ident, bool) or not isinstance(ident, (str, int)):
                raise source.at(line, '"id" is %s; expected a string' % _kind(ident))
            key, value = str(ident), value["value"]
        elif annotations not in (None, "value") and gold:
            if not isinstance(value, dict) or annotations not in value:
                raise source.at(line, "the item has no %r key (the annotations setting)" % annotations)
            value = value[annotations]
        elif isinstance(value, dict) and isinstance(value.get("soft_label"), dict):
            value = value["soft_label"]  # the EXIST kit's {"id": {"soft_label": {...}, "hard_label": ...}}
        if check is not None:
            check(line, key)
        out.append((line, key, value))
    if not out:
        raise source.whole("has no items; expected %s" % _EXPECTED)
    return out


def _weight(source, line, label, number, gold, quote):
    if type(number) is float and 0.0 <= number <= 1.0:  # the usual case first (NaN fails the comparison)
        return number
    what = "a gold probability" if gold else "the probability of %s" % quote(label)
    if isinstance(number, bool) or not isinstance(number, (int, float, json_documents.LongNumber)):
        hint = " (write it without quotes)" if isinstance(number, str) else ""
        raise source.at(line, "%s is %s; expected a number in [0, 1]%s" % (what, _kind(number), hint))
    if isinstance(number, float) and not math.isfinite(number):
        raise source.at(line, "%s is not a finite number (NaN or Infinity); expected a number in [0, 1]" % what)
    # compared as an int where it is one: a 400-digit integer does not convert to a float, a 5,000-digit one is text
    if isinstance(number, json_documents.LongNumber) or not 0 <= number <= 1:
        shown = "" if gold else " (%s)" % quote(str(number))
        raise source.at(line, "%s%s is outside [0, 1]" % (what, shown))
    return float(number)


def _label_of(source, line, label, index, labels, gold, quote):
    if isinstance(label, str) and label in index:
        return index[label]
    if gold:
        raise source.at(line, "a gold label is not one of the configured labels (or is not a string)")
    shown = quote(label) if isinstance(label, str) else _kind(label)
    listing = "; the labels are %s" % ", ".join(labels) if labels is not None else ""
    raise source.at(line, "%s is not a label of this task%s" % (shown, listing))


def _no_for_dash(labels, index):
    """EXIST's data set writes an annotator's NO as ``-`` in tasks 2 and 3: read it as ``NO`` (when ``-`` is no
    label and ``NO`` is)."""
    if "-" in index or "NO" not in index:
        return labels
    return ["NO" if label == "-" else label for label in labels]


def _labels_given(value):
    return isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))


def encode_items(source, items, index, public_labels, gold=True, quote=repr, annotators=False):
    """``(n, C)`` float64 weights, NaN where an item's object omits a label.

    ``annotators``: the gold values are annotators' labels (one label, or a
    list of labels, per annotator), turned into the share of annotators who
    gave each label.
    """
    values = np.full((len(items), len(index)), np.nan)
    for row, (line, _, value) in enumerate(items):
        if annotators:
            if not isinstance(value, list) or not value or any(not _labels_given(v) for v in value):
                raise source.at(line, "the annotations are not a list of labels (one per annotator)")
            values[row, :] = 0.0  # the share of annotators who gave each label
            for given in value:
                for label in set(_no_for_dash([given] if isinstance(given, str) else given, index)):
                    values[row, _label_of(source, line, label, index, public_labels, gold, quote)] += 1.0
            values[row] /= len(value)
        elif isinstance(value, dict):
            if not value:
                raise source.at(line, "the value is an empty object; expected {label: probability, ...}")
            for label, number in value.items():
                k = index.get(label) if type(label) is str else None  # the usual case inline (10^5 labels)
                if k is None:
                    k = _label_of(source, line, label, index, public_labels, gold, quote)
                if type(number) is not float or not 0.0 <= number <= 1.0:
                    number = _weight(source, line, label, number, gold, quote)
                values[row, k] = number
        elif isinstance(value, str):
            values[row, :] = 0.0
            values[row, _label_of(source, line, value, index, public_labels, gold, quote)] = 1.0
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            values[row, :] = 0.0  # a hard multi-label value
            for label in value:
                values[row, _label_of(source, line, label, index, public_labels, gold, quote)] = 1.0
        else:
            raise source.at(
                line, "the value is %s; expected {label: probability, ...}, a label or a list of labels" % _kind(value)
            )
    return values
