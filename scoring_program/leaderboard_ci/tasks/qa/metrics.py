"""Extractive question answering: one answer string per question, scored as SQuAD v1.1 scores it.

The task type's pieces (see :mod:`leaderboard_ci.tasks`) for answers:

* **parse**: :func:`read_gold` reads SQuAD v1.1 JSON (``data`` / ``paragraphs``
  / ``qas`` / ``answers``) or ``{question id: [answer, ...]}``;
  :func:`read_predictions` reads ``{question id: answer text}``, what the
  official evaluation script reads.  Answers are normalized once, at read
  time (setting ``normalization``);
* **per-question statistics**: exact match and token F1 of each question,
  each the maximum over its gold answers, summed exactly on every replicate
  (see :class:`Statistics`);
* **metrics**: ``exact_match`` and ``f1``, the means over questions, as
  fractions (the official script prints 100 times these).

Normalization (setting ``normalization``)
-----------------------------------------
``en`` (default): SQuAD v1.1's ``normalize_answer``: lower case, ASCII
punctuation (``string.punctuation``) removed, the articles *a*, *an*, *the*
removed as words, whitespace collapsed.  ``es`` (SQAC): the same with the
Spanish articles *el, la, los, las, un, una, unos, unas* and the punctuation
``string.punctuation`` plus ``¿ ¡ « » “ ” ‘ ’``.  ``none``: the text as
given.  Tokens are the normalized text split on whitespace.

Token F1 of a prediction against one gold answer: ``c`` = the tokens they
share (counted with multiplicity), 0 if ``c`` is 0, else ``2PR / (P + R)``
with ``P = c / len(prediction)`` and ``R = c / len(gold)``.  An empty answer
is allowed and scores 0 (unless a gold answer normalizes to nothing too).
"""

from __future__ import annotations

import json
import re
import string
from collections import Counter, OrderedDict
from dataclasses import dataclass

import numpy as np

from ...core.accumulators import CodeCounts, ExactSums, split_fixed_point
from ..metrics import Metric, Metrics
from ..protocol import GoldData, SubmissionFormat
from ..settings import TaskSettings, setting
from ..shared import json_documents
from ..shared.base import UnscoredIds, id_positions

__all__ = [
    "NAME",
    "METRICS",
    "QASettings",
    "NORMALIZATIONS",
    "SPANISH_ARTICLES",
    "normalizer",
    "exact_match",
    "token_f1",
    "question_scores",
    "read_gold",
    "read_predictions",
    "encode_values",
    "decode",
    "submission_format",
    "Statistics",
]

NAME = "qa"
NORMALIZATIONS = ("en", "es", "none")
SPANISH_ARTICLES = ("el", "la", "los", "las", "un", "una", "unos", "unas")
_SPANISH_PUNCTUATION = "\u00bf\u00a1\u00ab\u00bb\u201c\u201d\u2018\u2019"
_EXAMPLE = '{"question id": "answer text", ...}'
_SHOWN_IDS = 3
#: The longest answer read (characters): an answer is a span of a passage, and a 100 MB one would take gigabytes
#: to normalize and tokenize (docs/tasks/qa.md says the bound).
MAX_ANSWER_CHARS = 100000
#: The nesting of SQuAD v1.1, for messages.
_SQUAD_SHAPE = '{"data": [{"paragraphs": [{"qas": [{"id": "...", "answers": [{"text": "..."}, ...]}, ...]}]}]}'


# ---------------------------------------------------------------------------
# Normalization and the official formulas
# ---------------------------------------------------------------------------
def normalizer(name):
    """The answer normalization ``name`` (``en``, ``es`` or ``none``) as a function of a string."""
    if name == "none":
        return lambda text: text
    if name == "en":
        articles = re.compile(r"\b(a|an|the)\b")
        exclude = set(string.punctuation)
    elif name == "es":
        articles = re.compile(r"\b(%s)\b" % "|".join(SPANISH_ARTICLES))
        exclude = set(string.punctuation) | set(_SPANISH_PUNCTUATION)
    else:
        raise ValueError("normalization must be one of: %s, got %r" % (", ".join(NORMALIZATIONS), name))

    def normalize(text):
        text = "".join(ch for ch in text.lower() if ch not in exclude)
        return " ".join(articles.sub(" ", text).split())

    return normalize


def exact_match(prediction, truth):
    """1.0 if the two normalized answers are equal, else 0.0."""
    return 1.0 if prediction == truth else 0.0


def token_f1(prediction, truth):
    """SQuAD v1.1's token F1 of two normalized answers."""
    prediction_tokens = prediction.split()
    truth_tokens = truth.split()
    common = Counter(prediction_tokens) & Counter(truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0.0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(truth_tokens)
    return (2 * precision * recall) / (precision + recall)


def question_scores(gold_answers, predictions):
    """Per question ``(exact match, F1)``, each the maximum over the gold answers: two float64 arrays."""
    n = len(gold_answers)
    em = np.empty(n)
    f1 = np.empty(n)
    for i, (truths, prediction) in enumerate(zip(gold_answers, predictions)):
        em[i] = max(exact_match(prediction, t) for t in truths)
        f1[i] = max(token_f1(prediction, t) for t in truths)
    return em, f1


# ---------------------------------------------------------------------------
# Settings and metrics
# ---------------------------------------------------------------------------
def _normalization(value):
    """``normalization`` (default ``en``; ValueError for anything else)."""
    text = "en" if value is None else str(value).strip().lower()
    if text not in NORMALIZATIONS:
        raise ValueError("normalization must be one of: %s, got %r" % (", ".join(NORMALIZATIONS), value))
    return text


@dataclass(frozen=True)
class QASettings(TaskSettings):
    """The top-level key of a question-answering task: ``normalization``."""

    normalization: str = setting(
        "en",
        "Answer normalization: en (SQuAD v1.1), es (SQAC: Spanish articles, \u00bf\u00a1\u00ab\u00bb), none.",
        parse=_normalization,
    )


def _mean_of(column):
    def formula(means, spec):
        return means[:, column]

    return formula


#: Each metric is the mean of its per-question value (the columns of :meth:`Statistics.prepare`).
METRICS = Metrics(
    [
        Metric(
            NAME,
            "exact_match",
            "exact match",
            "higher",
            1.0,
            aliases=("em", "exact", "squad_em"),
            needs=("em",),
            formula=_mean_of(0),
        ),
        Metric(
            NAME,
            "f1",
            "token F1",
            "higher",
            1.0,
            aliases=("token_f1", "squad_f1", "f1_score"),
            needs=("f1",),
            formula=_mean_of(1),
        ),
    ]
)


# ---------------------------------------------------------------------------
# JSON with line numbers (:mod:`.json_documents`)
# ---------------------------------------------------------------------------
_kind = json_documents.kind


def _object_items(source, text, expected):
    """``(line, key, value)`` of the members of the top-level JSON object, in file order."""
    return json_documents.members(source, text, expected)


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------
def _answers_array(items):
    out = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):
        out[i] = item
    return out


def _without_answers(data):
    """The SQuAD articles as participants see them: titles, contexts, question ids and texts; no answer.

    A whitelist (``title``, ``paragraphs``, ``context``, ``qas``, ``id``, ``question``): any other key of a
    question (``answers``, ``plausible_answers``, ``is_impossible``) could tell an answer.
    """
    articles = []
    for article in data:
        kept = OrderedDict()
        if isinstance(article.get("title"), str):
            kept["title"] = article["title"]
        kept["paragraphs"] = [
            OrderedDict(
                [
                    ("context", paragraph.get("context", "")),
                    (
                        "qas",
                        [
                            OrderedDict([("id", qa["id"]), ("question", qa.get("question", ""))])
                            for qa in paragraph["qas"]
                        ],
                    ),
                ]
            )
            for paragraph in article["paragraphs"]
        ]
        articles.append(kept)
    return OrderedDict([("version", "test"), ("data", articles)])


def _squad_questions(source, line, data):
    """``(id, [answer texts])`` of SQuAD v1.1's ``data`` list (organizer errors name the path)."""
    if not isinstance(data, list):
        raise source.at(line, '"data" is a JSON %s; expected a list of articles: %s' % (_kind(data), _SQUAD_SHAPE))
    for a, article in enumerate(data):
        paragraphs = article.get("paragraphs") if isinstance(article, dict) else None
        if not isinstance(paragraphs, list):
            raise source.at(line, 'data[%d] has no "paragraphs" list; expected SQuAD v1.1: %s' % (a, _SQUAD_SHAPE))
        for p, paragraph in enumerate(paragraphs):
            qas = paragraph.get("qas") if isinstance(paragraph, dict) else None
            if not isinstance(qas, list):
                raise source.at(
                    line, 'data[%d].paragraphs[%d] has no "qas" list; expected SQuAD v1.1: %s' % (a, p, _SQUAD_SHAPE)
                )
            for q, qa in enumerate(qas):
                where = "data[%d].paragraphs[%d].qas[%d]" % (a, p, q)
                if (
                    not isinstance(qa, dict)
                    or not isinstance(qa.get("id"), (str, int))
                    or isinstance(qa.get("id"), bool)
                ):
                    raise source.at(line, '%s has no "id" (a string); expected SQuAD v1.1: %s' % (where, _SQUAD_SHAPE))
                answers = qa.get("answers")
                if (
                    not isinstance(answers, list)
                    or not answers
                    or any(not isinstance(x, dict) or not isinstance(x.get("text"), str) for x in answers)
                ):
                    raise source.at(
                        line,
                        '%s needs "answers": a non-empty list of {"text": "..."}; expected SQuAD v1.1: %s'
                        % (where, _SQUAD_SHAPE),
                    )
                title = article.get("title")
                yield (
                    str(qa["id"]),
                    [x["text"] for x in answers],
                    (title if isinstance(title, str) and title else "data[%d]" % a, "data[%d].paragraphs[%d]" % (a, p)),
                )


def read_gold(gold, context):
    """The gold answers: SQuAD v1.1 JSON or ``{id: [answer, ...]}`` (messages never quote an answer)."""
    source = gold.source
    normalize = normalizer(context.settings.normalization)
    text = gold.lines().text()
    expected = 'SQuAD v1.1 JSON or {"question id": ["answer", ...], ...}'
    items = list(_object_items(source, text, expected))
    ids, answers, where, design = [], [], [], None
    squad = [(line, value) for line, key, value in items if key == "data" and isinstance(value, list)]
    public = ()
    if squad:  # SQuAD v1.1: {"version": ..., "data": [...]}; other keys are ignored
        line, data = squad[0]
        design = {"title": [], "paragraph": []}  # clusters for bootstrap.cluster (the article, the passage)
        for ident, texts, (title, paragraph) in _squad_questions(source, line, data):
            ids.append(ident)
            answers.append(texts)
            where.append(line)
            design["title"].append(title)
            design["paragraph"].append(paragraph)
        public = (("test.json", _without_answers(data)),)
    else:
        for line, key, value in items:
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not value or any(not isinstance(x, str) for x in value):
                raise source.at(line, "question %s needs a non-empty list of answer strings" % _quoted(key))
            ids.append(key)
            answers.append(value)
            where.append(line)
    if not ids:
        raise source.whole("has no questions; expected %s" % expected)
    seen = {}
    for line, ident in zip(where, ids):
        if ident in seen:
            raise source.at(
                line, "question id %r appears again (first on line %d); gold ids must be unique" % (ident, seen[ident])
            )
        seen[ident] = line
    values = _answers_array([tuple(normalize(a) for a in texts) for texts in answers])
    return GoldData(where, values, ids=ids, design=design, public=public)


def read_predictions(submission, gold, context):
    """A participant's ``{question id: answer text}``, in the gold's question order, normalized."""
    answers = submission.file()
    source = answers.source
    normalize = normalizer(context.settings.normalization)
    unscored = UnscoredIds(source, context)
    position = id_positions(gold.ids)
    found = [None] * len(gold.ids)
    first_line = {}
    for line, key, value in _object_items(source, answers.lines().text(), _EXAMPLE):
        error = unscored.count(line)
        if error is not None:
            raise error
        i = position.get(key)
        if i is None and key in ("data", "version") and key not in position:
            raise source.at(
                line,
                "holds the key %s of a SQuAD dataset file; expected the answers alone: %s" % (_quoted(key), _EXAMPLE),
            )
        if i is None:
            error = unscored.unknown(
                line,
                "question id %s is not in the test set (ids look like %s); give one answer per "
                "test question" % (_quoted(key), _quoted(gold.ids[0])),
            )
            if error is not None:
                raise error
        if key in first_line:
            raise source.at(
                line,
                "question id %s appears again (first on line %d); give one answer per question, each id once"
                % (_quoted(key), first_line[key]),
            )
        if not isinstance(value, str):
            raise source.at(
                line,
                "the answer to question %s is a JSON %s; expected a string%s (an empty string "
                "is allowed and scores 0)"
                % (_quoted(key), _kind(value), " (write it in double quotes)" if _kind(value) == "number" else ""),
            )
        if len(value) > MAX_ANSWER_CHARS:
            raise source.at(
                line,
                "the answer to question %s is %s characters long; expected at most %s (an answer is a short span "
                "of text)" % (_quoted(key), format(len(value), ","), format(MAX_ANSWER_CHARS, ",")),
            )
        first_line[key] = line
        if i is not None:  # else an unscored id (files.unscored_ids: ignore), read and checked
            found[i] = normalize(value)
    missing = [gold.ids[i] for i, v in enumerate(found) if v is None]
    if missing:
        raise unscored.missing(
            "has no answer for %d of the %d test questions (e.g. %s); give one answer per question "
            "(an empty string if you have none)"
            % (len(missing), len(gold.ids), ", ".join(_quoted(m) for m in missing[:_SHOWN_IDS]))
        )
    return _answers_array(found)


def _quoted(text):
    text = str(text)
    return repr(text if len(text) <= 40 else text[:40] + "...")


def encode_values(gold_values, systems, labels, settings):
    """In-memory encoding: gold = one answer or a list of answers per question; systems = one answer each."""
    normalize = normalizer((settings or QASettings()).normalization)
    gold = []
    for i, value in enumerate(gold_values):
        texts = [value] if isinstance(value, str) else list(value)
        if not texts or any(not isinstance(t, str) for t in texts):
            raise ValueError("gold question %d needs an answer string or a non-empty list of them" % i)
        gold.append(tuple(normalize(t) for t in texts))
    coded = OrderedDict()
    for name, answers in systems.items():
        answers = list(answers)
        if len(answers) != len(gold):
            raise ValueError("system %r has %d answers for %d questions" % (name, len(answers), len(gold)))
        bad = [a for a in answers if not isinstance(a, str)]
        if bad:
            raise ValueError("system %r: every answer must be a string, got %r" % (name, bad[0]))
        coded[name] = _answers_array([normalize(a) for a in answers])
    return _answers_array(gold), None, coded


def decode(gold, values):
    """The normalized answers (gold: tuples of answers; predictions: strings)."""
    return np.asarray(values, dtype=object)


# ---------------------------------------------------------------------------
# Per-question statistics and scores
# ---------------------------------------------------------------------------
class Statistics:
    """Per-question exact match and F1, summed exactly; the scores are their means.

    A question's ``(EM, F1)`` pair takes few distinct values (F1 is a ratio of
    small token counts), so the accumulator is a :class:`CodeCounts` of the
    pair's index among the distinct pairs: no count matrix, and the
    end-of-phase analysis stacks it like class counts.  The sums are the
    distinct values' fixed-point parts (:func:`split_fixed_point`, the split
    :class:`~leaderboard_ci.core.accumulators.ExactSums` uses) times those
    integer counts: exact, then rounded once, the same bytes as ``ExactSums``
    of the per-question values.  The end-of-phase analysis (``layout="reduced"``)
    uses that ``ExactSums`` itself: two float columns per system stack into a
    smaller product than one count per distinct pair.
    """

    def __init__(self, add, gold, predictions, metrics, group_codes, n_groups, layout=None):
        if gold.groups is not None:
            raise ValueError("the qa task has no groups")
        predictions = np.asarray(predictions, dtype=object)
        if predictions.shape != (gold.n,) or any(not isinstance(p, str) for p in predictions):
            raise ValueError("predictions must be %d normalized answer strings" % gold.n)
        em, f1 = question_scores(gold.values, predictions)
        self.n = gold.n
        if layout == "reduced":  # the end-of-phase analysis: a few float columns stack better than codes
            self._sums = add(ExactSums(np.stack([em, f1], axis=1)))
            return
        self._sums = None
        pairs, codes = np.unique(np.stack([em, f1], axis=1), axis=0, return_inverse=True)
        hi, lo, self._exponents, self._k = split_fixed_point(pairs, max(self.n, 1))
        self._parts = np.concatenate([hi, lo], axis=1)  # (distinct pairs, 4), integer-valued
        self._codes = add(CodeCounts(np.asarray(codes).reshape(-1), pairs.shape[0]))

    def prepare(self, stats):
        if self._sums is not None:
            return np.asarray(stats[self._sums], dtype=np.float64) / float(self.n)
        counts = np.asarray(stats[self._codes], dtype=np.float64)
        parts = counts @ self._parts  # exact: integers below 2**52
        sums = np.ldexp(parts[:, :2] + np.ldexp(parts[:, 2:], -self._k), self._exponents)
        return sums / float(self.n)

    def score(self, prepared, spec, j):
        if j != 0:
            raise ValueError("the qa task has no groups")
        return METRICS[spec.name].score(prepared, spec)


def submission_format(gold, files, metrics):
    """What participants submit: one JSON object mapping every question id to an answer string."""
    ids = list(gold.ids or ())
    shown = ", ".join("%s: %s" % (json.dumps(i), json.dumps("")) for i in ids[:2])
    return SubmissionFormat(
        unit="question",
        units="questions",
        goal="Answer each of the {n} test questions with a span of its context.",
        description=(
            "A JSON file: one object mapping every test question id to your answer string (an empty "
            "string is allowed and scores 0), as SQuAD's evaluation script reads it.\n\n```\n{%s%s}\n```\n"
            % (shown, ", ..." if len(ids) > 2 else "")
        ),
        file_name="predictions.json",
        sample=json.dumps(OrderedDict((i, "") for i in ids), ensure_ascii=False) + "\n",
        public_files=(("test_ids.txt", "\n".join(ids) + "\n"),)
        + tuple((name, json.dumps(value, ensure_ascii=False, indent=1) + "\n") for name, value in gold.public_inputs),
    )
