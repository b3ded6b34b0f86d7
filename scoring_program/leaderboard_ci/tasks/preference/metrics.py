"""Preference arenas: Bradley-Terry scores on the Elo scale from a battle log (LMArena / FastChat).

* **gold**: the battle log, the organizer's (``model_a, model_b, winner``; CSV with a
  header, JSON Lines, or a JSON array of such objects, as FastChat's ``clean_battle``
  files are); ``winner`` is ``model_a``, ``model_b``, ``tie`` or ``tie (bothbad)``;
* **a submission** names one model of the log (one line: the model's name); its score is
  that model's Bradley-Terry score on the Elo scale, fitted on the whole log;
* **the unit of resampling** is a battle: one :class:`~leaderboard_ci.core.accumulators.CodeCounts`
  of every battle's (pair, outcome) cell, so a replicate's statistic is the resampled log's
  cell counts and each replicate is one Bradley-Terry fit (:mod:`.preference_fit`).  Every
  model's submission sees the same resamples of the same log, so the end of phase gets
  paired replicates of every submitted model's score (pairs, rank sets) with no more code.
"""

from __future__ import annotations

import csv
import itertools
import json

import numpy as np

from ...core.accumulators import CodeCounts, WeightedFunction
from ..legacy import TaskType
from ..shared.base import MetricInfo
from .fit import (
    INIT_RATING,
    OUTCOMES,
    SCALE,
    UNBOUNDED,
    cells_from_battles,
    elo_from_theta,
    fit_bradley_terry,
    unbounded_models,
)
from .style import StyleModel, style_features

__all__ = ["NAME", "METRICS", "ALIASES", "OPTIONS", "SETTINGS", "read_gold", "read_predictions", "Statistics", "TASK"]

NAME = "preference"
METRICS = {
    "elo": MetricInfo(NAME, "higher", None, "Bradley-Terry score (Elo scale)"),
    "style_elo": MetricInfo(NAME, "higher", None, "style-controlled Bradley-Terry score (Elo scale)"),
}
ALIASES = {
    "bradley_terry": "elo",
    "bt": "elo",
    "arena_score": "elo",
    "arena_elo": "elo",
    "style_control": "style_elo",
    "style_controlled_elo": "style_elo",
}
OPTIONS = ()
SETTINGS = ("anchor_model", "anchor_rating", "style_columns")
DEFAULT_SETTINGS = {"anchor_model": None, "anchor_rating": INIT_RATING, "style_columns": ()}
_COLUMNS = ("model_a", "model_b", "winner")
_WINNER = dict((name, code) for code, name in enumerate(OUTCOMES))
_EXPECTED = "model_a, model_b, winner (model_a, model_b, tie or tie (bothbad))"


def parse_settings(values):
    """``anchor_model`` (a model name or None) and ``anchor_rating`` (a number; default 1000)."""
    out = dict(DEFAULT_SETTINGS)
    anchor = values.get("anchor_model")
    if anchor is not None:
        if not isinstance(anchor, str) or not anchor.strip():
            raise ValueError("anchor_model must be the name of a model of the battle log, got %r" % (anchor,))
        out["anchor_model"] = anchor.strip()
    rating = values.get("anchor_rating")
    if rating is not None:
        if isinstance(rating, bool) or not isinstance(rating, (int, float)) or not np.isfinite(rating):
            raise ValueError("anchor_rating must be a number (the anchor model's Elo score), got %r" % (rating,))
        out["anchor_rating"] = float(rating)
    style = values.get("style_columns")
    if style is not None:
        if isinstance(style, str):
            style = [style]
        if not isinstance(style, (list, tuple)) or not all(isinstance(e, str) and e.strip() for e in style):
            raise ValueError(
                "style_columns must be a list of style elements (the log's columns <element>_a and <element>_b), "
                "got %r" % (style,)
            )
        out["style_columns"] = tuple(e.strip() for e in style)
    return out


def check_config(metrics, settings, labels):
    """``style_elo`` needs ``style_columns``."""
    if any(spec.name == "style_elo" for spec in metrics) and not dict(settings).get("style_columns"):
        raise ValueError(
            "metric style_elo needs style_columns: the style elements of the battle log (its columns "
            "<element>_a and <element>_b, e.g. [tokens, bold])"
        )


def _settings(settings):
    merged = dict(DEFAULT_SETTINGS)
    merged.update((k, v) for k, v in dict(settings or {}).items() if k in SETTINGS and v is not None)
    return merged


# -- the battle log --------------------------------------------------------------------------------------------------
def _battle_rows(source, lines, extra=()):
    """``(line, model_a, model_b, winner, (extra values...))`` of every battle, whatever the format.

    ``lines`` is the log's :class:`~leaderboard_ci.scoring.text_files.TextFile`: a JSON array is read as one
    document (a minified one is a single line of any length), CSV, TSV and JSON Lines line by line.
    """
    if lines.first_character() == "[":  # one JSON array (FastChat's clean_battle_*.json)
        try:
            records = json.loads(lines.text().lstrip("\ufeff"))
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
                record = json.loads(text.lstrip("\ufeff"))
            except (ValueError, RecursionError):
                raise source.at(line, "is not a JSON object; expected one battle per line {%s}" % _EXPECTED)
            yield _from_object(source, line, record, None, extra)
        return
    delimiter = "\t" if "\t" in head else ","  # CSV, or TSV when the header holds tabs
    header = [h.strip() for h in next(csv.reader([head], delimiter=delimiter))]
    missing = [c for c in _COLUMNS + tuple(extra) if c not in header]
    if missing:
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


def read_gold(source, lines, labels=None, settings=None):
    """The battle log into ``(n, 3)`` codes ``(model_a, model_b, outcome)``; the labels are the model names, sorted."""
    style = _settings(settings)["style_columns"]
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
    anchor = _settings(settings)["anchor_model"]
    if anchor is not None and anchor not in index:
        raise source.whole(
            "has no battle of the anchor model (anchor_model in %s)" % dict(settings or {}).get("config_name", "config")
        )
    return {"lines": [r[0] for r in rows], "values": values, "labels": models, "ids": None, "groups": None}


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


def read_predictions(source, lines, gold, settings=None):
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


def battle_cells(gold):
    """:class:`~.preference_fit.Cells` of the gold's battle log."""
    v = np.asarray(gold.values)[:, :3].astype(np.intp)
    return cells_from_battles(v[:, 0], v[:, 1], v[:, 2], len(gold.labels))


def style_model(gold):
    """:class:`~.preference_style.StyleModel` of the gold's battles and style columns."""
    v = np.asarray(gold.values)
    k = (v.shape[1] - 3) // 2
    codes = v[:, :3].astype(np.intp)
    features = style_features(v[:, 3 : 3 + k], v[:, 3 + k : 3 + 2 * k])
    return StyleModel(codes[:, 0], codes[:, 1], codes[:, 2], features, len(gold.labels))


class Statistics:
    """The cell counts of the battle log under each replicate, and the submitted model's Elo score on it."""

    def __init__(self, add, gold, predictions, metrics, group_codes, n_groups, layout=None):
        p = np.asarray(predictions)
        n = gold.n
        if p.shape != (n,) or (n and (p.min() != p.max() or not 0 <= p[0] < len(gold.labels))):
            raise ValueError("predictions must name one model of the battle log (%d equal indices)" % n)
        self.model = int(p[0])
        settings = _settings(dict(gold.settings))
        anchor = settings["anchor_model"]
        self.anchor = gold.labels.index(anchor) if anchor is not None else None
        self.anchor_rating = settings["anchor_rating"]
        self.cells = battle_cells(gold)
        self._start, _ = fit_bradley_terry(self.cells)
        self._slot = add(CodeCounts(self.cells.codes, self.cells.n_cells))
        self._style = None
        if any(spec.name == "style_elo" for spec in metrics):
            if np.asarray(gold.values).shape[1] < 5:
                raise ValueError("style_elo needs the battle log's style columns (style_columns)")
            model, fit, anchor, rating = style_model(gold), self.model, self.anchor, self.anchor_rating

            def style_scores(weights):
                elo = model.replicates(weights).elo
                return elo[:, fit] if anchor is None else elo[:, fit] + (rating - elo[:, anchor])

            self._style = add(WeightedFunction(style_scores, n))

    def prepare(self, stats):
        counts = np.asarray(stats[self._slot])
        theta, _ = fit_bradley_terry(self.cells, counts.reshape(-1, self.cells.n_cells), start=self._start)
        prepared = {"elo": elo_from_theta(theta, self.anchor, self.anchor_rating)}
        if self._style is not None:
            prepared["style_elo"] = np.asarray(stats[self._style], dtype=np.float64).reshape(-1)
        return prepared

    def score(self, prepared, spec, j):
        if j != 0:
            raise ValueError("the preference task has no groups")
        if spec is not None and spec.name == "style_elo":
            return prepared["style_elo"]
        return prepared["elo"][:, self.model]


def score_notes(spec, gold, predictions):
    """When the submitted model's Bradley-Terry score has no maximum (:func:`.preference_fit.unbounded_models`)."""
    if spec.name != "elo" or gold.labels is None or not len(predictions):
        return ()
    model = int(np.asarray(predictions)[0])
    cells = battle_cells(gold)
    side = int(unbounded_models(cells, cells.counts)[model])
    if side == 0:
        return ()
    k = cells.counts.reshape(-1, 3)
    as_first, as_second = cells.first == model, cells.second == model
    won = int(k[as_first, 0].sum() + k[as_second, 1].sum())
    lost = int(k[as_first, 1].sum() + k[as_second, 0].sum())
    tied = int(k[as_first | as_second, 2].sum())
    if side < 0:
        how = (
            "never won nor tied any of its %d battles" % lost
            if won + tied == 0
            else ("won or tied only against models whose own scores are unbounded below")
        )
    else:
        how = (
            "never lost nor tied any of its %d battles" % won
            if lost + tied == 0
            else ("lost or tied only against models whose own scores are unbounded above")
        )
    where = "below" if side < 0 else "above"
    return (
        "Your model %s, so its Bradley-Terry score has no maximum: it lies %s the other models' by an unbounded "
        "margin. The leaderboard shows a stand-in, %d Elo points %s the average of the models whose scores "
        "are bounded, and its interval rests on such stand-ins." % (how, where, int(SCALE * UNBOUNDED), where),
    )


# -- What participants submit (leaderboard-ci init's pages and sample) -----------------------------------------------
def submission_format(gold, files, metrics):
    """What participants submit: a one-line text file, the name under which their model entered the arena.

    The sample names one model of the log (the first in name order, which the reader needs to accept it);
    nothing of the battles (outcomes, counts) is shown and there are no public files.
    """
    from ..legacy import SubmissionFormat

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


class PreferenceTask(TaskType):
    """Bradley-Terry arenas: the gold is the battle log, a submission names its model."""

    NAME, METRICS, ALIASES, OPTIONS, SETTINGS, Statistics = NAME, METRICS, ALIASES, OPTIONS, SETTINGS, Statistics
    SETTING_DOCS = {
        "anchor_model": "The model whose Elo score is fixed at anchor_rating (default: none, the scores "
        "average 1000 as FastChat's do).",
        "anchor_rating": "The anchor model's Elo score (default 1000; LMArena anchors mixtral-8x7b-instruct-v0.1 "
        "at 1114).",
        "style_columns": "Style elements for style_elo (LMArena's style control), e.g. [tokens, bold]: the log's "
        "columns <element>_a and <element>_b.",
    }
    OWN_GOLD_FORMAT = True
    OWN_PREDICTION_FORMAT = True
    UNIT_VALUES_NAME = "battle"
    parse_settings, check_config = staticmethod(parse_settings), staticmethod(check_config)
    read_gold, read_predictions = staticmethod(read_gold), staticmethod(read_predictions)
    encode_values, decode = staticmethod(encode_values), staticmethod(decode)
    submission_format, score_notes = staticmethod(submission_format), staticmethod(score_notes)


TASK = PreferenceTask()
