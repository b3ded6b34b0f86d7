"""Soft labels: the gold and a participant's run (:mod:`.files` parses them), the in-memory encoding
(``analyze``) and what participants submit (``leaderboard-ci init``).

Python 3.7, numpy only.
"""

from __future__ import annotations

import json
from collections import OrderedDict

import numpy as np

from ..protocol import GoldData, SubmissionFormat
from ..shared.base import UnscoredIds, id_positions
from .files import encode_items, read_items
from .settings import HARD, SoftLabelsSettings

__all__ = ["read_gold", "read_predictions", "encode_values", "decode", "submission_format", "quote"]


def quote(text):
    """A participant's id or label for a message: ``repr``, shortened past 40 characters."""
    text = str(text)
    return repr(text if len(text) <= 40 else text[:40] + "...")


def read_gold(gold, context):
    """The gold distributions ``(n, C)`` (NaN: a label the item's object omits), its ids and labels."""
    source, lines, labels = gold.source, gold.lines(), context.labels
    annotations = SoftLabelsSettings.given(context.settings).annotations
    items = read_items(source, lines, annotations=annotations, gold=True)
    if labels is None:
        found = set()
        for _, _, value in items:
            if isinstance(value, dict):
                found.update(k for k in value if isinstance(k, str))
            elif isinstance(value, str):
                found.add(value)
            elif isinstance(value, list):
                for v in value:
                    found.update(
                        [v]
                        if isinstance(v, str)
                        else [x for x in v if isinstance(x, str)]
                        if isinstance(v, list)
                        else []
                    )
        labels = tuple(sorted(found))
    index = dict((label, k) for k, label in enumerate(labels))
    values = encode_items(source, items, index, labels, gold=True, annotators=annotations is not None)
    seen = {}
    for line, ident, _ in items:
        if ident in seen:
            raise source.at(
                line,
                "item id %s appears again (first on line %d); gold ids must be unique" % (quote(ident), seen[ident]),
            )
        seen[ident] = line
    return GoldData([line for line, _, _ in items], values, tuple(labels), [ident for _, ident, _ in items])


def read_predictions(submission, gold, context):
    """A participant's distributions in gold order; every gold item needs one.

    Another id is refused, or with ``files.unscored_ids: ignore`` read, checked and dropped
    (:class:`~.base.UnscoredIds`).  Ids are checked as each item is read: a large file of unknown ids stops at
    its first line instead of after every record.
    """
    predictions = submission.file()
    source, lines = predictions.source, predictions.lines()
    unscored = UnscoredIds(source, context)
    position = id_positions(gold.ids)
    found = np.zeros(len(gold.ids), dtype=bool)
    first = {}

    def check(line, ident):
        error = unscored.count(line)
        if error is not None:
            raise error
        if ident in first:
            raise source.at(
                line,
                "item id %s appears again (first on line %d); give one value per item, each id once"
                % (quote(ident), first[ident]),
            )
        first[ident] = line
        i = position.get(ident)
        if i is None:
            error = unscored.unknown(
                line, "item id %s is not in the test set; give one value per test item" % quote(ident)
            )
            if error is not None:
                raise error
            return
        found[i] = True

    items = read_items(source, lines, gold=False, check=check)
    public = context.labels
    index = dict((label, k) for k, label in enumerate(gold.labels))
    values = encode_items(source, items, index, public, gold=False, quote=quote)  # every value checked
    out = np.full(gold.values.shape, np.nan)
    for row, (_, ident, _) in enumerate(items):
        i = position.get(ident)
        if i is not None:  # else an unscored id (files.unscored_ids: ignore), read and checked
            out[i] = values[row]
    if not found.all():
        missing = int((~found).sum())
        raise unscored.missing(
            "has no value for %d of the %d test items (e.g. %s); give one value per item"
            % (missing, len(found), quote(gold.ids[int(np.flatnonzero(~found)[0])]))
        )
    return out


def encode_values(gold_values, systems, labels=None, settings=None):
    """In-memory encoding: ``{label: probability}`` per item (ValueError naming the system)."""
    gold_values = list(gold_values)
    if labels is None:
        labels = tuple(sorted(set(k for d in gold_values for k in d)))
    index = dict((label, k) for k, label in enumerate(labels))

    def encode(rows, who):
        out = np.full((len(rows), len(labels)), np.nan)
        for i, row in enumerate(rows):
            if not isinstance(row, dict):
                raise ValueError("%s: item %d is not a {label: probability} dict" % (who, i))
            for label, p in row.items():
                if label not in index or not 0 <= float(p) <= 1:
                    raise ValueError(
                        "%s: item %d has %r: %r (labels %s, probabilities in [0, 1])" % (who, i, label, p, labels)
                    )
                out[i, index[label]] = float(p)
        return out

    gold = encode(gold_values, "the gold")
    coded = {}
    for name, rows in systems.items():
        rows = list(rows)
        if len(rows) != len(gold_values):
            raise ValueError("system %r has %d values for %d items" % (name, len(rows), len(gold_values)))
        coded[name] = encode(rows, "system %r" % (name,))
    return gold, tuple(labels), coded


def decode(gold, values):
    return np.asarray(values, dtype=np.float64)


def submission_format(gold, files, metrics):
    """What participants submit: a PyEvALL JSON run, ``[{"test_case", "id", "value": {label: probability}}]``.

    The sample gives every test item the uniform distribution over the configured labels (a constant: it
    reveals no gold value); the public file lists the test ids only.
    """
    labels = list(gold.labels or ())
    ids = list(gold.ids or ())
    settings = SoftLabelsSettings.of(gold)
    mode, threshold = settings.hard_labels, settings.hard_threshold
    uniform = 1.0 / len(labels) if labels else 0.0

    def record(ident):
        return '{"test_case": "EXIST2023", "id": %s, "value": {%s}}' % (
            json.dumps(ident, ensure_ascii=False),
            ", ".join("%s: %r" % (json.dumps(label, ensure_ascii=False), uniform) for label in labels),
        )

    shown = ",\n".join(record(i) for i in ids[:2]) + (",\n..." if len(ids) > 2 else "")
    hard = (
        "the hard metrics compare your most probable label with an item's gold label, the label whose share of "
        "annotators is above %g (hard_threshold; items with no such label are left out of the hard metrics)" % threshold
        if mode == "mono"
        else "the hard metrics compare label sets: every label whose probability is above %g (hard_threshold), "
        "in the gold and in your predictions alike" % threshold
    )
    hard_used = any(spec.name in HARD for spec in metrics or ())
    tree = ""
    if settings.hierarchy:
        children = OrderedDict()
        for child, parent in settings.hierarchy:
            children.setdefault(parent, []).append(child)
        tree = (
            " The labels form a tree, which ICM and ICM-Soft read (a label's ancestors share its information, so a "
            "prediction of a sibling or of the parent earns partial credit): %s."
            % "; ".join("`%s` under `%s`" % ("`, `".join(kids), parent) for parent, kids in children.items())
        )
    return SubmissionFormat(
        unit="test item",
        units="test items",
        goal="Predict the distribution of labels (the share of annotators giving each) of each of the {n} test items.",
        description=(
            "A JSON file, a PyEvALL / EXIST 2023 run: a list with one object per test item, in any order, "
            '`{"test_case": ..., "id": ..., "value": {label: probability, ...}}`, every probability in [0, 1]. '
            'Also accepted: one object `{"id": {label: probability, ...}, ...}`, or a label (or a list of labels) '
            "as the value for a hard prediction. The labels are %s.%s%s\n\n```\n[\n%s\n]\n```\n"
            % (
                ", ".join("`%s`" % label for label in labels),
                tree,
                (" For scoring, %s." % hard) if hard_used else "",
                shown,
            )
        ),
        file_name="predictions.json",
        sample="[\n" + ",\n".join(record(i) for i in ids) + "\n]\n",
        public_files=(("test_ids.txt", "\n".join(ids) + "\n"),) if ids else (),
    )
