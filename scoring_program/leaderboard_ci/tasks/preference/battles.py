"""Preference: the files (the organizer's battle log, a participant's model name), the in-memory encoding
and what participants submit.

The battle log is ``model_a, model_b, winner`` (CSV with a header, TSV, JSON Lines, or a JSON array of
such objects, as FastChat's ``clean_battle`` files are); ``winner`` is ``model_a``, ``model_b``, ``tie``
or ``tie (bothbad)``.  A submission is one line, the name of its model.  Python 3.7, numpy only.
"""

from __future__ import annotations

import csv
import itertools

import numpy as np

from ..protocol import GoldData, SubmissionFormat
from ..shared import json_documents
from ..shared.header_rows import DATA_NOT_HEADER, first_row_is_data
from .fit import OUTCOMES
from .settings import PreferenceSettings

__all__ = [
    "read_gold",
    "read_battles",
    "read_predictions",
    "read_model",
    "encode_values",
    "decode",
    "submission_format",
]

_COLUMNS = ("model_a", "model_b", "winner")
_WINNER = dict((name, code) for code, name in enumerate(OUTCOMES))
_EXPECTED = "model_a, model_b, winner (model_a, model_b, tie or tie (bothbad))"


def _battle_rows(source, lines, extra=()):
    """``(line, model_a, model_b, winner, (extra values...))`` of every battle, whatever the format.

    ``lines`` is the log's :class:`~leaderboard_ci.scoring.text_files.TextFile`: a JSON array is read as one
    document (a minified one is a single line of any length), CSV, TSV and JSON Lines line by line.
    """
    if lines.first_character() == "[":  # one JSON array (FastChat's clean_battle_*.json)
        try:
            records = json_documents.loads(lines.text().lstrip("\ufeff"))
        except (ValueError, RecursionError):
            raise source.whole("is not valid JSON; expected a JSON array of battles or one battle per line")
        if not isinstance(records, list):
            raise source.whole("must be a JSON array of battles {%s}" % _EXPECTED)
        for k, record in enumerate(records):
            yield _from_object(source, None, record, k + 1, extra)
        return
    content = ((line, text) for line, text in lines if text.strip())
    first = next(content, None)
    if first is None:
        raise source.whole("has no battles; expected the columns %s" % _EXPECTED)
    head = first[1].lstrip("\ufeff").lstrip()
    if head.startswith("{"):  # JSON Lines
        for line, text in itertools.chain([first], content):
            try:
                record = json_documents.loads(text.lstrip("\ufeff"))
            except (ValueError, RecursionError):
                raise source.at(line, "is not a JSON object; expected one battle per line {%s}" % _EXPECTED)
            yield _from_object(source, line, record, None, extra)
        return
    delimiter = "\t" if "\t" in head else ","  # CSV, or TSV when the header holds tabs
    header = [h.strip() for h in next(csv.reader([head], delimiter=delimiter))]
    missing = [c for c in _COLUMNS + tuple(extra) if c not in header]
    if missing:
        following = (next(csv.reader([text], delimiter=delimiter)) for _, text in content)
        if first_row_is_data(header, following):  # no names: a winner cell says model_a
            raise source.at(first[0], DATA_NOT_HEADER % repr(delimiter.join(_COLUMNS + tuple(extra))))
        raise source.at(first[0], "has no column %s; the header must name %s" % (missing[0], _EXPECTED))
    where = [header.index(c) for c in _COLUMNS]
    more = [header.index(c) for c in extra]
    for line, text in content:
        fields = next(csv.reader([text], delimiter=delimiter))
        if len(fields) != len(header):
            raise source.at(line, "has %d fields; the header has %d" % (len(fields), len(header)))
        yield (line,) + tuple(fields[i].strip() for i in where) + (tuple(fields[i] for i in more),)


def _from_object(source, line, record, index, extra=()):
    def fail(message):
        if line is None:
            return source.whole("battle %d %s" % (index, message))
        return source.at(line, message)

    if not isinstance(record, dict):
        raise fail("is not an object {%s}" % _EXPECTED)
    values = []
    for key in _COLUMNS:
        value = record.get(key)
        if not isinstance(value, str):
            raise fail("has no text value for %s; expected %s" % (key, _EXPECTED))
        values.append(value.strip())
    for key in extra:
        if key not in record:
            raise fail("has no value for the style column %s" % key)
    return (line if line is not None else index,) + tuple(values) + (tuple(record[key] for key in extra),)


def read_gold(gold, context):
    """The organizer's battle log (:func:`read_battles`)."""
    return read_battles(gold.source, gold.lines(), PreferenceSettings.given(context.settings), context.config_name)


def read_battles(source, lines, settings, config_name="config.yaml"):
    """The battle log into :class:`~leaderboard_ci.tasks.protocol.GoldData`: ``(n, 3)`` codes ``(model_a,
    model_b, outcome)`` (then the style columns of answer A and of answer B, with ``style_columns``); the
    labels are the model names, sorted.  ``lines`` is the log's text file, ``settings`` the task's."""
    style = settings.style_columns
    extra = tuple(e + side for e in style for side in ("_a", "_b"))
    rows = list(_battle_rows(source, lines, extra))
    if not rows:
        raise source.whole("has no battles; expected the columns %s" % _EXPECTED)
    for line, a, b, winner, _ in rows:
        if not a or not b:
            raise source.at(line, "has an empty model name")
        if a == b:
            raise source.at(line, "is a battle of a model against itself")
        if winner not in _WINNER:
            raise source.at(line, "has a winner that is none of model_a, model_b, tie, tie (bothbad)")
    models = tuple(sorted(set(r[1] for r in rows) | set(r[2] for r in rows)))
    if len(models) < 2:
        raise source.whole("has battles of fewer than two models")
    index = dict((name, k) for k, name in enumerate(models))
    values = np.array([(index[a], index[b], _WINNER[w]) for _, a, b, w, _ in rows], dtype=np.int64)
    if extra:
        # style columns: (n, 3 + 2 K) floats, the elements of answer A then of answer B
        numbers = np.array([_style_numbers(source, row[0], row[4], extra) for row in rows], dtype=np.float64)
        k = len(style)
        values = np.concatenate([values, numbers[:, 0::2], numbers[:, 1::2]], axis=1).reshape(-1, 3 + 2 * k)
    anchor = settings.anchor_model
    if anchor is not None and anchor not in index:
        raise source.whole("has no battle of the anchor model (anchor_model in %s)" % config_name)
    return GoldData([r[0] for r in rows], values, models)


def _style_numbers(source, line, raw, columns):
    out = []
    for column, value in zip(columns, raw):
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = float("nan")
        if isinstance(value, bool) or not np.isfinite(number):
            raise source.at(line, "the style column %s is not a finite number" % column)
        out.append(number)
    return out


def read_predictions(submission, gold, context):
    """The submission's one file (:func:`read_model`)."""
    predictions = submission.file()
    return read_model(predictions.source, predictions.lines(), gold)


def read_model(source, lines, gold):
    """The submission's one line, the name of its model in the battle log, as an array of its index (one per battle)."""
    names = ((line, text.strip().lstrip("\ufeff").strip()) for line, text in lines if text.strip())
    first = next(names, None)
    if first is None:
        raise source.whole("is empty; expected one line: the name of your model in the arena")
    second = next(names, None)  # stop there: a name followed by millions of lines is not read to its end
    if second is not None:
        raise source.at(second[0], "is a second line; expected one line: the name of your model in the arena")
    line, name = first
    models = gold.labels or ()
    if name not in models:
        raise source.at(line, "names no model of the arena's battles; expected your model's name as registered")
    return np.full(gold.n, models.index(name), dtype=np.intp)


def encode_values(gold_values, systems, labels=None, settings=None):
    """In memory: battles ``[(model_a, model_b, winner), ...]`` and ``{system: model name}``."""
    rows = []
    for k, battle in enumerate(gold_values):
        if not isinstance(battle, (tuple, list)) or len(battle) != 3:
            raise ValueError("battle %d must be (model_a, model_b, winner), got %r" % (k, battle))
        a, b, w = (str(x) for x in battle)
        if a == b or w not in _WINNER:
            raise ValueError("battle %d must be two different models and a winner in %s" % (k, ", ".join(OUTCOMES)))
        rows.append((a, b, w))
    models = tuple(sorted(set(r[0] for r in rows) | set(r[1] for r in rows)))
    index = dict((name, k) for k, name in enumerate(models))
    values = np.array([(index[a], index[b], _WINNER[w]) for a, b, w in rows], dtype=np.int64).reshape(-1, 3)
    out = {}
    for system, model in systems.items():
        if model not in index:
            raise ValueError("system %r names no model of the battles, got %r" % (system, model))
        out[system] = np.full(len(rows), index[model], dtype=np.intp)
    return values, models, out


def decode(gold, values):
    """A custom metric receives the model's name."""
    return gold.labels[int(np.asarray(values)[0])] if len(values) else None


def submission_format(gold, files, metrics):
    """What participants submit: a one-line text file, the name under which their model entered the arena.

    The sample names one model of the log (the first in name order, which the reader needs to accept it);
    nothing of the battles (outcomes, counts) is shown and there are no public files.
    """
    models = list(gold.labels or ())
    example = models[0] if models else "your-model-name"
    return SubmissionFormat(
        unit="battle",
        units="battles",
        goal="Enter your model in the arena: it is scored by its Bradley-Terry (Elo-scale) rating over the {n} "
        "battles of the log.",
        description=(
            "A plain-text file of one line: the name under which your model entered the arena (as the battle "
            "log records it, case and punctuation included). No header, no other line.\n\n```\n%s\n```\n" % example
        ),
        file_name="model.txt",
        sample=example + "\n",
        public_files=(),
    )
