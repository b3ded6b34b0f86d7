"""Sequence labelling: one tag per token, scored on the entities the tags spell (named-entity recognition).

The task type's pieces (see :mod:`leaderboard_ci.tasks`) for tag sequences:

* **parse**: :func:`read_gold` and :func:`read_predictions` read CoNLL files
  (one token per line, the tag in the last column, a blank line between
  sentences, ``-DOCSTART-`` lines) or JSON Lines (``{"id": ..., "tags": [...]}``)
  (:mod:`.tagged_files`); the tags are checked against the tagging ``scheme``
  and turned into entities once, at read time, by the ``mode``'s extractor
  (:mod:`.tagging`);
* **per-unit statistics**: per entity type, the numbers of gold, predicted
  and correct entities in each resampling unit, and its tokens and correctly
  tagged tokens: integer columns whose weighted sums
  (:class:`~leaderboard_ci.core.accumulators.ExactSums`) are exact;
* **metrics**: entity-level precision, recall and F1 (micro, macro, weighted)
  and token accuracy, equal to ``seqeval``'s on every replicate
  (``tests/test_sequence.py``);
* **unit table**: :func:`unit_rows`, per entity type.

Definitions (seqeval 1.2.2)
---------------------------
``mode: default`` is conlleval's lenient chunking (seqeval's
``get_entities``): any ``B-``, ``I-``, ``E-``, ``S-`` tag is read whatever the
scheme, a chunk starts at ``B``/``S``, at an ``I``/``E`` after ``O`` or after a
chunk of another type, and ends where the next cannot continue it.  Under
``scheme: BILOU`` the ``L-`` and ``U-`` tags are read as ``E-`` and ``S-``.
``mode: strict`` is seqeval's ``mode="strict"`` with the scheme's class
(:class:`seqeval.scheme.IOB2`...): only the scheme's prefixes are allowed, and
a chunk counts only when it starts and ends as the scheme says.

An entity is correct when a predicted entity has the same type, start and end.
Per type, precision = correct / predicted, recall = correct / gold and
F1 = 2PR / (P + R), with ``zero_division`` for 0/0.  ``micro`` pools the
counts of all types; ``macro`` is the mean over the entity types that occur
(in the gold or the predictions) *in the sample scored*, and ``weighted`` is
weighted by the gold counts, exactly as seqeval defines them, so on a
bootstrap replicate the types that were not drawn drop out of the macro mean.
A sample with no entity at all has macro and weighted values equal to the
micro value (seqeval returns NaN for macro there).  Token accuracy is the
fraction of tokens whose tag equals the gold tag (seqeval's ``accuracy_score``).

Encoding
--------
A resampling unit (a sentence, or a document with ``unit: document``) is one
fixed-width record: two int32 per token, padded with -1 to the longest unit.
The first is the tag's code (0 for ``O``, ``1 + 6*type + prefix`` with the
prefixes ``BIESLU``, plus ``2**30`` on a sentence's first token, so the
sentences of a document can be recovered from the gold); the second is 0, or, on the first token of an entity,
``1 + type + T*(length - 1)`` (T entity types).  Records compare as wholes,
so the end-of-phase analysis can tell which units two systems tag differently.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from ...core.accumulators import ExactSums
from ...core.intervals import Interval, confidence_interval
from ..metrics import Metrics, Option
from ..protocol import GoldData, SubmissionFormat, UnitTable
from ..settings import TaskSettings, setting
from ..shared.averaged import AveragedMetric
from ..shared.base import item_mask
from ..shared.sparse import few_units
from ..shared.words import counted
from .files import Memory as _Memory
from .files import align_ids as _align_ids
from .files import memory_units as _memory_units
from .files import quoted as _q
from .files import read_sentences as _read_sentences
from .files import type_list as _type_list
from .tagging import MODES, SCHEMES, entities_default, entities_strict
from .tagging import PREFIXES as _PREFIXES
from .tagging import TagReader as _TagReader
from .tagging import sentence_entities as _sentence_entities

__all__ = [
    "NAME",
    "METRICS",
    "SequenceSettings",
    "SCHEMES",
    "MODES",
    "UNITS",
    "EntityCounts",
    "sequence_score",
    "read_gold",
    "read_predictions",
    "encode_values",
    "decode",
    "entities_default",
    "entities_strict",
    "Statistics",
    "UNIT_TABLE",
    "TypeRow",
    "sparse_units",
    "submission_format",
]

NAME = "sequence"
AVERAGES = ("micro", "macro", "weighted")
_AVERAGED = ("precision", "recall", "f1")
UNITS = ("sentence", "document")
#: Marks a sentence's first token in its tag code (gold and predictions alike).
_SENTENCE_START = 1 << 30


# ---------------------------------------------------------------------------
# Settings
# ---------------------------------------------------------------------------
_DEFAULTS = {"scheme": "IOB2", "mode": "default", "unit": "sentence"}


def _choice(key, allowed, case):
    def parse(value):
        if value is None:
            return _DEFAULTS[key]
        text = case(str(value).strip())
        if text not in allowed:
            raise ValueError("%s must be one of: %s, got %r" % (key, ", ".join(allowed), value))
        return text

    return parse


@dataclass(frozen=True)
class SequenceSettings(TaskSettings):
    """The keys of a sequence-labelling task: the tagging ``scheme``, the ``mode``, the resampling ``unit``."""

    scheme: str = setting(
        _DEFAULTS["scheme"], "IOB1, IOB2, IOE1, IOE2, IOBES or BILOU.", parse=_choice("scheme", SCHEMES, str.upper)
    )
    mode: str = setting(
        _DEFAULTS["mode"],
        "default: conlleval's lenient chunking; strict: seqeval's mode=\"strict\" with the scheme.",
        parse=_choice("mode", MODES, str.lower),
    )
    unit: str = setting(
        _DEFAULTS["unit"],
        'The resampling unit: sentence, or document (-DOCSTART- or a "document" key).',
        parse=_choice("unit", UNITS, str.lower),
    )


# ---------------------------------------------------------------------------
# The metrics: one object each
# ---------------------------------------------------------------------------
#: The options of the entity metrics.
OPTIONS = (
    Option(
        "average",
        "How per-class (per-label, per-entity-type) values are averaged: macro, micro, weighted, and binary "
        "(one class) or samples (per item) where the task has them.",
    ),
    Option(
        "zero_division", "The value of a 0/0 precision, recall or F1 (0 or 1); default: the top-level zero_division."
    ),
)


@dataclass(frozen=True, eq=False, repr=False)
class SequenceMetric(AveragedMetric):
    """A metric of entities or tokens; precision, recall and F1 take ``average`` (default micro, seqeval's)."""

    def make_spec(self, options, defaults):
        """``(fields, default key, title)`` (ValueError saying what is wrong)."""
        name = self.name
        average = options.get("average")
        if average is not None:
            average = str(average).strip().lower()
        if self.averaged:
            average = average or "micro"
            if average not in AVERAGES:
                raise ValueError("average must be one of: %s, got %r" % (", ".join(AVERAGES), options.get("average")))
        elif average is not None:
            raise ValueError("%s takes no average (got %r)" % (name, average))
        zero_division = options.get("zero_division", defaults.get("zero_division", 0.0))
        if isinstance(zero_division, bool) or zero_division not in (0, 1):
            raise ValueError("zero_division must be 0 or 1, got %r" % (zero_division,))
        key = name if average is None else "%s_%s" % (name, average)
        title = self.title if average is None else "entity %s-%s" % (average, "F1" if name == "f1" else name)
        return dict(average=average, zero_division=float(zero_division)), key, title


def _token_accuracy(counts, spec):
    tokens = counts.tokens
    return np.where(tokens == 0, np.nan, counts.correct_tokens / np.where(tokens == 0, 1.0, tokens))


def _entity_metric(counts, spec):
    """seqeval's precision, recall or F1 of the entities: micro, macro (types with an entity) or weighted."""
    which = _AVERAGED.index(spec.name)
    zd = spec.zero_division
    micro = _prf(counts.correct.sum(axis=-1), counts.pred.sum(axis=-1), counts.true.sum(axis=-1), zd)[which]
    if spec.average == "micro":
        return micro
    values = _prf(counts.correct, counts.pred, counts.true, zd)[which]
    if spec.average == "macro":
        present = (counts.true + counts.pred) > 0
        k = present.sum(axis=-1)
        mean = (values * present).sum(axis=-1) / np.where(k == 0, 1, k)
        return np.where(k == 0, micro, mean)
    weights = counts.true
    total = weights.sum(axis=-1)
    weighted = (values * weights).sum(axis=-1) / np.where(total == 0, 1.0, total)
    if spec.name == "recall":
        fallback = np.full_like(total, zd)
    else:
        fallback = np.where(counts.pred.sum(axis=-1) == 0, zd, 0.0)
    return np.where(total == 0, fallback, weighted)


def _entity(name, title, aliases):
    return SequenceMetric(
        NAME, name, title, "higher", 1.0, aliases=aliases, options=OPTIONS, averages=AVERAGES, formula=_entity_metric
    )


METRICS = Metrics(
    [
        _entity("precision", "entity precision", ("precision_score",)),
        _entity("recall", "entity recall", ("recall_score",)),
        _entity("f1", "entity F1", ("f1_score", "fscore")),
        SequenceMetric(
            NAME,
            "accuracy",
            "token accuracy",
            "higher",
            1.0,
            aliases=("accuracy_score", "token_accuracy", "acc"),
            options=OPTIONS[1:],
            formula=_token_accuracy,
        ),
    ]
)


# ---------------------------------------------------------------------------
# Tags
# ---------------------------------------------------------------------------
# ---------------------------------------------------------------------------
# Reading: CoNLL and JSON Lines into sentences
# ---------------------------------------------------------------------------
# ---------------------------------------------------------------------------
# Encoding
# ---------------------------------------------------------------------------
class _Encoder(object):
    """Sentences of ``(prefix, type)`` pairs into the per-token codes of one unit."""

    def __init__(self, types, settings):
        self.types = tuple(types)
        self.index = dict((t, i) for i, t in enumerate(self.types))
        self.settings = settings
        self.t = len(self.types)

    def sentence_codes(self, pairs):
        """``(tag codes, entity codes)`` of one sentence (lists of int)."""
        index = self.index
        tag_codes = [0 if p == "O" else 1 + 6 * index[t] + _PREFIXES.index(p) for p, t in pairs]
        if tag_codes:
            tag_codes[0] |= _SENTENCE_START
        ent = [0] * len(pairs)
        t = self.t
        for type_, start, end in _sentence_entities(pairs, self.settings):
            ent[start] = 1 + index[type_] + t * (end - start - 1)
        return tag_codes, ent


def _records(units, width):
    """Units (lists of ``(tag codes, entity codes)``) as fixed-width records ``(n,)``."""
    n = len(units)
    width = max(width, 1)
    block = np.full((n, width, 2), -1, dtype=np.int32)
    for u, (tags, ents) in enumerate(units):
        k = len(tags)
        block[u, :k, 0] = tags
        block[u, :k, 1] = ents
    return _as_records(block)


def _as_records(block):
    n = block.shape[0]
    flat = np.ascontiguousarray(block, dtype=np.int32).reshape(n, -1)
    return flat.view(np.dtype((np.void, flat.shape[1] * 4))).reshape(n)


def unit_codes(values):
    """The ``(n, L, 2)`` int32 codes of records (tag code, entity code; -1 pads)."""
    values = np.ascontiguousarray(values)
    if values.dtype.kind != "V" or values.ndim != 1 or values.dtype.itemsize % 8:
        raise ValueError(
            "sequence values must be the records read_gold/read_predictions/encode_values make, "
            "got an array of %s %s" % (values.shape, values.dtype)
        )
    return values.view(np.int32).reshape(values.shape[0], values.dtype.itemsize // 8, 2)


def _group_units(sentences, settings, lengths=None):
    """Sentence positions per unit: one per sentence, or per document."""
    if settings.unit == "sentence":
        return [[i] for i in range(len(sentences))]
    order = OrderedDict()
    for i, s in enumerate(sentences):
        order.setdefault(s.document, []).append(i)
    return list(order.values())


def _encode_units(groups, sentence_codes):
    units = []
    width = 0
    for members in groups:
        tags, ents = [], []
        for i in members:
            a, b = sentence_codes[i]
            tags.extend(a)
            ents.extend(b)
        units.append((tags, ents))
        width = max(width, len(tags))
    return units, width


def read_gold(gold, context):
    """The gold standard, one entry per unit (sentence or document).

    Messages name the file and line and never quote a gold tag.
    """
    source, labels, settings = gold.source, context.labels, context.settings
    sentences, fmt = _read_sentences(source, gold.lines(), context.format)
    reader = _TagReader(source, settings)
    pairs = [[reader(line, tag) for line, tag in zip(s.tag_lines, s.tags)] for s in sentences]
    found = sorted(set(t for sentence in pairs for p, t in sentence if p != "O"))
    if labels is not None:
        known = set(labels)
        for s, sentence in zip(sentences, pairs):
            for line, (p, t) in zip(s.tag_lines, sentence):
                if p != "O" and t not in known:
                    raise source.at(
                        line,
                        "the tag's entity type is not in the labels list of %s; add it to labels" % context.config_name,
                    )
        types = tuple(labels)
    else:
        types = tuple(found)
    if not types:
        raise source.whole("has no entity tags (every tag is O); entity-level scores need entities")
    if settings.unit == "document":
        if fmt == "jsonl" and any(s.document is None for s in sentences):
            missing = next(s for s in sentences if s.document is None)
            raise source.at(missing.line, 'has no "document" key; with unit: document every sentence needs one')
        if fmt == "jsonl":
            finished = set()
            for before, s in zip(sentences, sentences[1:]):
                if s.document != before.document:
                    finished.add(before.document)
                    if s.document in finished:
                        raise source.at(
                            s.line,
                            "this sentence's document appeared earlier and other documents "
                            "came between; keep the sentences of a document together",
                        )
        if fmt == "conll" and len(set(s.document for s in sentences)) < 2:
            raise source.whole(
                "has fewer than two -DOCSTART- documents; unit: document needs them (or use unit: sentence)"
            )
    encoder = _Encoder(types, settings)
    codes = [encoder.sentence_codes(p) for p in pairs]
    groups = _group_units(sentences, settings)
    units, width = _encode_units(groups, codes)
    ids = None
    if fmt == "jsonl" and settings.unit == "sentence" and all(s.ident is not None for s in sentences):
        ids = [s.ident for s in sentences]
    design = None  # bootstrap.cluster: document (the -DOCSTART- document or the "document" key of each unit)
    if all(s.document is not None for s in sentences):
        design = {"document": [str(sentences[g[0]].document) for g in groups]}
    lines = [sentences[g[0]].line for g in groups]
    return GoldData(lines, _records(units, width), types, ids, None, design)


def _layout_of(gold):
    """``(sentence lengths, unit of each sentence, width)`` recovered from the gold's records."""
    codes = unit_codes(np.asarray(gold.values))
    tags = codes[:, :, 0]
    real = tags >= 0
    starts = real & ((tags & _SENTENCE_START) != 0)
    unit_of = np.nonzero(starts)[0]
    sentence_of_token = np.cumsum(starts[real]) - 1
    lengths = np.bincount(sentence_of_token, minlength=unit_of.size)
    groups = [[] for _ in range(codes.shape[0])]
    for i, u in enumerate(unit_of.tolist()):
        groups[u].append(i)
    return lengths.tolist(), groups, codes.shape[1]


def _check_sentence_breaks(source, sentences, lengths, fmt):
    """The first sentence that ends too early or too late, named by the line where the break is (or is missing).

    Sentences are compared in order with the test set's token counts (public:
    the participant tags the test tokens), so a missing blank line is named
    where it should be, and an extra one where it is.
    """
    n = len(lengths)
    for number, (s, length) in enumerate(zip(sentences, lengths), 1):
        if len(s.tags) > length:
            if fmt == "conll":
                message = (
                    "sentence %d (from line %d) should end before this line: the test sentence has %s; "
                    "expected a blank line here" % (number, s.line, counted(length, "token"))
                )
            else:
                message = "sentence %d has %d tags, the test sentence has %d; give one tag per token" % (
                    number,
                    len(s.tags),
                    length,
                )
            raise source.at(s.tag_lines[length] if fmt == "conll" else s.line, message)
        if len(s.tags) < length:
            got, missing = counted(len(s.tags), "token"), counted(length - len(s.tags), "more token line")
            if fmt == "conll" and number == len(sentences):
                raise source.at(
                    s.tag_lines[-1],
                    "the file ends after %s of sentence %d (from line %d), but the test sentence has %d; "
                    "expected %s" % (got, number, s.line, length, missing),
                )
            if fmt == "conll":
                raise source.at(
                    s.tag_lines[-1] + 1,
                    "sentence %d (from line %d) ends here after %s, but the test sentence has %d; "
                    "expected %s before a blank line (is this blank line extra?)"
                    % (number, s.line, got, length, missing),
                )
            raise source.at(
                s.line,
                "sentence %d has %d tags, the test sentence has %d; give one tag per token"
                % (number, len(s.tags), length),
            )
    if len(sentences) > n:
        raise source.at(
            sentences[n].line,
            "sentence %d starts here, but the test set has %d sentences; expected exactly %d, in the order "
            "of the test set" % (n + 1, n, n),
        )
    if len(sentences) < n:
        last = sentences[-1].tag_lines[-1] if sentences else 1
        raise source.at(
            last,
            "the file ends after sentence %d, but the test set has %d sentences; expected one sentence per "
            "test sentence, in order, separated by blank lines" % (len(sentences), n),
        )


def _known_type(source, line, tag, pair, known, types):
    """``pair`` (prefix, entity type) of ``tag``; the error when its type is not one of the gold's ``types``."""
    if pair[0] != "O" and pair[1] not in known:
        raise source.at(
            line,
            "tag %s has entity type %s, which is not one of the %s"
            % (_q(source, tag), _q(source, pair[1]), _type_list(types)),
        )
    return pair


def read_predictions(submission, gold, context):
    """A participant's tags, checked against the gold's sentences and encoded like the gold."""
    tags = submission.file()
    source, settings = tags.source, context.settings
    lengths, groups, width = _layout_of(gold)
    sentences, fmt = _read_sentences(source, tags.lines(), context.format)
    dropped = []
    if fmt == "jsonl" and gold.ids is not None and all(s.ident is not None for s in sentences):
        sentences, dropped = _align_ids(source, sentences, gold.ids, context)
    else:
        _check_sentence_breaks(source, sentences, lengths, fmt)
    reader = _TagReader(source, settings)
    encoder = _Encoder(gold.labels, settings)
    known = encoder.index
    for s in dropped:  # sentences of unscored ids (files.unscored_ids: ignore): their tags are checked too
        for line, tag in zip(s.tag_lines, s.tags):
            _known_type(source, line, tag, reader(line, tag), known, gold.labels)
    codes = []
    for number, (s, length) in enumerate(zip(sentences, lengths), 1):
        if len(s.tags) != length:
            where = s.tag_lines[min(len(s.tags), length) - 1] if s.tags else s.line
            raise source.at(
                where,
                "sentence %d (from line %d) has %d tokens, the test set's sentence %d has %d; "
                "give one tag per token" % (number, s.line, len(s.tags), number, length),
            )
        pairs = []
        for line, tag in zip(s.tag_lines, s.tags):
            pairs.append(_known_type(source, line, tag, reader(line, tag), known, gold.labels))
        codes.append(encoder.sentence_codes(pairs))
    units, _ = _encode_units(groups, codes)
    return _records(units, width)


# ---------------------------------------------------------------------------
# In-memory encoding (the analysis API) and the readers' fallbacks
# ---------------------------------------------------------------------------
def encode_values(gold_values, systems, labels, settings):
    """In-memory encoding: ``(records, entity types, {name: records})`` (ValueError naming the system).

    ``gold_values`` and each system: one entry per resampling unit, a
    sentence (a list of tags) or a document (a list of sentences).
    """
    settings = settings or SequenceSettings()
    gold_units = _memory_units(gold_values, "the gold")
    source = _Memory("the gold")
    reader = _TagReader(source, settings)
    pairs = [[[reader(s + 1, t) for t in sentence] for s, sentence in enumerate(unit)] for unit in gold_units]
    found = sorted(set(t for unit in pairs for sentence in unit for p, t in sentence if p != "O"))
    types = tuple(str(x) for x in labels) if labels is not None else tuple(found)
    unknown = sorted(set(found) - set(types))
    if unknown:
        raise ValueError("gold entity type %r is not one of the labels: %s" % (unknown[0], ", ".join(types)))
    encoder = _Encoder(types, settings)
    width = max([sum(len(s) for s in unit) for unit in gold_units] + [1])

    def encode(units_pairs):
        out = []
        for unit in units_pairs:
            tags, ents = [], []
            for sentence in unit:
                a, b = encoder.sentence_codes(sentence)
                tags.extend(a)
                ents.extend(b)
            out.append((tags, ents))
        return _records(out, width)

    coded = OrderedDict()
    for name, values in systems.items():
        units = _memory_units(values, name)
        if len(units) != len(gold_units):
            raise ValueError("system %r has %d units for %d gold units" % (name, len(units), len(gold_units)))
        src = _Memory("system %r" % name)
        sys_reader = _TagReader(src, settings)
        sys_pairs = []
        for u, (unit, gunit) in enumerate(zip(units, gold_units)):
            if [len(s) for s in unit] != [len(s) for s in gunit]:
                raise ValueError(
                    "system %r: unit %d has sentences of %s tokens, the gold %s"
                    % (name, u + 1, [len(s) for s in unit], [len(s) for s in gunit])
                )
            unit_pairs = []
            for _s, sentence in enumerate(unit):
                row = [sys_reader(u + 1, t) for t in sentence]
                bad = [t for p, t in row if p != "O" and t not in encoder.index]
                if bad:
                    raise ValueError("system %r: entity type %r is not one of: %s" % (name, bad[0], ", ".join(types)))
                unit_pairs.append(row)
            sys_pairs.append(unit_pairs)
        coded[name] = encode(sys_pairs)
    return encode(pairs), types, coded


def decode(gold, values):
    """Per unit, the list of tags (strings), for custom metric functions."""
    codes = unit_codes(values)
    out = np.empty(codes.shape[0], dtype=object)
    types = gold.labels
    for u in range(codes.shape[0]):
        row = codes[u, :, 0] & ~_SENTENCE_START
        row = row[codes[u, :, 0] >= 0]
        out[u] = ["O" if c == 0 else "%s-%s" % (_PREFIXES[(c - 1) % 6], types[(c - 1) // 6]) for c in row]
    return out


# ---------------------------------------------------------------------------
# Per-unit statistics and scores
# ---------------------------------------------------------------------------
class EntityCounts(object):
    """Entity and token counts of one or many (re)samples: arrays ``(N, T)`` and ``(N,)``."""

    __slots__ = ("true", "pred", "correct", "tokens", "correct_tokens")

    def __init__(self, true, pred, correct, tokens, correct_tokens):
        self.true = np.asarray(true, dtype=np.float64)
        self.pred = np.asarray(pred, dtype=np.float64)
        self.correct = np.asarray(correct, dtype=np.float64)
        self.tokens = np.asarray(tokens, dtype=np.float64)
        self.correct_tokens = np.asarray(correct_tokens, dtype=np.float64)


def _divide(num, den, zero_division):
    zero = den == 0
    out = num / np.where(zero, 1.0, den)
    return np.where(zero, zero_division, out)


def _prf(tp, pred, true, zero_division):
    """seqeval's precision, recall and F1 (F from P and R, 0 where P + R is 0)."""
    precision = _divide(tp, pred, zero_division)
    recall = _divide(tp, true, zero_division)
    denom = precision + recall
    f1 = 2.0 * precision * recall / np.where(denom == 0, 1.0, denom)
    return precision, recall, f1


def per_type_scores(counts, zero_division=0.0):
    """Per-type precision, recall and F1, arrays ``(N, T)``."""
    return _prf(counts.correct, counts.pred, counts.true, zero_division)


def sequence_score(spec, counts):
    """Scores of ``spec`` for every (re)sample in ``counts`` (EntityCounts): its formula."""
    return METRICS[spec.name].score(counts, spec)


def unit_statistics(gold_values, predictions, n_types):
    """Per-unit integer columns.

    Gold ``[true_t..., tokens]`` and system ``[pred_t..., correct_t..., correct tokens]``.
    """
    g = unit_codes(gold_values)
    p = unit_codes(predictions)
    n, width = g.shape[0], g.shape[1]
    t = n_types
    unit = np.repeat(np.arange(n, dtype=np.int64), width)
    g_tag, g_ent = g[:, :, 0].ravel(), g[:, :, 1].ravel()
    p_tag, p_ent = p[:, :, 0].ravel(), p[:, :, 1].ravel()
    real = g_tag >= 0

    def per_type(mask, ents):
        codes = unit[mask] * t + (ents[mask].astype(np.int64) - 1) % t
        return np.bincount(codes, minlength=n * t).reshape(n, t)

    true = per_type(g_ent > 0, g_ent)
    pred = per_type(p_ent > 0, p_ent)
    correct = per_type((g_ent > 0) & (g_ent == p_ent), g_ent)
    tokens = np.bincount(unit[real], minlength=n)
    right = np.bincount(unit[real & (g_tag == p_tag)], minlength=n)
    gold_cols = np.concatenate([true, tokens[:, None]], axis=1).astype(np.float64)
    sys_cols = np.concatenate([pred, correct, right[:, None]], axis=1).astype(np.float64)
    return gold_cols, sys_cols


class Statistics:
    """Per-unit entity and token counts of one system, summed exactly; scores from the sums.

    Two :class:`ExactSums` of integer columns: the gold's (gold entities per
    type, tokens: identical for every system, so the end-of-phase analysis
    stacks them once) and the system's (predicted and correct entities per
    type, correctly tagged tokens).
    """

    def __init__(self, add, gold, predictions, metrics, group_codes, n_groups, layout=None):
        if gold.groups is not None:
            raise ValueError("the sequence task has no groups")
        gold_values = np.asarray(gold.values)
        predictions = np.asarray(predictions)
        if predictions.shape != gold_values.shape or predictions.dtype != gold_values.dtype:
            raise ValueError(
                "predictions must be %d unit records like the gold's (%s), got %s %s"
                % (gold_values.shape[0], gold_values.dtype, predictions.shape, predictions.dtype)
            )
        self.n_types = len(gold.labels)
        gold_cols, sys_cols = unit_statistics(gold_values, predictions, self.n_types)
        self._gold = add(ExactSums(gold_cols))
        self._system = add(ExactSums(sys_cols))

    def counts(self, stats):
        """EntityCounts of the statistics rows ``stats`` (one per (re)sample)."""
        t = self.n_types
        g = np.asarray(stats[self._gold], dtype=np.float64)
        s = np.asarray(stats[self._system], dtype=np.float64)
        return EntityCounts(g[:, :t], s[:, :t], s[:, t : 2 * t], g[:, t], s[:, 2 * t])

    def prepare(self, stats):
        return self.counts(stats)

    def score(self, prepared, spec, j):
        if j != 0:
            raise ValueError("the sequence task has no groups")
        return sequence_score(spec, prepared)


@dataclass(frozen=True)
class TypeRow:
    """Per-entity-type scores of a submission on all units (the fields of ``ClassRow``)."""

    label: str
    precision: float
    recall: float
    f1: float
    f1_interval: Interval
    predicted: int


def unit_rows(statistics, full_stats, rep_stats, labels, method, confidence_level, zero_division):
    """Per-entity-type rows of the detailed results: precision, recall, F1 and the F1's CI."""
    full = statistics.counts(full_stats)
    reps = statistics.counts(rep_stats)
    precision, recall, f1 = per_type_scores(full, zero_division)
    f1_reps = per_type_scores(reps, zero_division)[2]
    method = method if method != "bca" else "percentile"
    rows = []
    for k, label in enumerate(labels):
        interval = confidence_interval(method, f1_reps[:, k], f1[0, k], confidence_level)
        rows.append(
            TypeRow(label, float(precision[0, k]), float(recall[0, k]), float(f1[0, k]), interval, int(full.pred[0, k]))
        )
    return tuple(rows)


# ---------------------------------------------------------------------------
# Where an interval rests on almost nothing (the sparse_units hook)
# ---------------------------------------------------------------------------
#: What the coverage study found for macro averages over entity types with few entities.
SPARSE_COVERAGE = "93% instead of 95% for entity macro-F1 at n = 200 in a coverage study"


def sparse_units(spec, gold, predictions=None, items=None):
    """Entity types on which a macro average's interval rests on almost nothing, in the ``items``.

    For entity macro precision, recall or F1: the types with at most
    :data:`~.base.FEW_UNITS` gold entities and, with ``predictions`` (one
    system's unit records), those it predicts at most that many times.
    """
    if spec.average != "macro" or spec.name not in _AVERAGED or gold.labels is None:
        return ()
    values = np.asarray(gold.values)
    keep = item_mask(values.shape[0], items)
    t = len(gold.labels)
    gold_cols, sys_cols = unit_statistics(values, values if predictions is None else np.asarray(predictions), t)
    return few_units(
        "entity type",
        gold.labels,
        gold_cols[keep, :t].sum(axis=0),
        None if predictions is None else sys_cols[keep, :t].sum(axis=0),
        SPARSE_COVERAGE,
        gold_of="gold entities",
        predicted_of="predicted entities",
    )


def _writes_jsonl(files):
    """Whether the prediction file is read as JSON Lines (``files.format``, or the name's extension)."""
    fmt = getattr(files, "format", None)
    if fmt in ("jsonl", "json"):
        return True
    name = getattr(files, "predictions", None) or ""
    return fmt in (None, "auto") and name.lower().endswith((".jsonl", ".ndjson", ".json"))


def submission_format(gold, files, metrics):
    """What participants submit: the test sentences with one tag per token (CoNLL, or JSON Lines by its name)."""
    lengths = _layout_of(gold)[0]
    jsonl = _writes_jsonl(files)
    if jsonl:  # the name (files.predictions: x.jsonl) or files.format says JSON Lines: a CoNLL sample is unreadable
        ids = gold.ids if gold.ids is not None else [None] * len(lengths)
        sample = "".join(
            json.dumps(dict(([("id", ident)] if ident is not None else []) + [("tags", ["O"] * length)])) + "\n"
            for ident, length in zip(ids, lengths)
        )
    else:
        sample = "\n".join("\n".join(["O"] * length) + "\n" for length in lengths)
    types = list(gold.labels or ())
    settings = SequenceSettings.of(gold)
    scheme, unit = settings.scheme, settings.unit
    kind = types[0] if types else "PER"
    example = "Ada B-%s\nLovelace I-%s\nwrote O\n\nShe O" % (kind, kind)
    return SubmissionFormat(
        unit=unit,
        units=unit + "s",
        goal="Tag every token of the {n} test %ss with its entity tag (%s scheme)." % (unit, scheme),
        description=(
            "A JSON Lines file, one line per test sentence in the test file's order (or with its `id`), "
            '`{"id": "s1", "tags": ["B-%s", "I-%s", "O"]}`: one tag per token, the same sentences and tokens. '
            "Tags follow the %s scheme (`B-TYPE`, `I-TYPE`, `O`); the entity types are %s. A sentence with a "
            "token too many or too few is refused with its line.\n"
            % (kind, kind, scheme, ", ".join("`%s`" % t for t in types) or "those of the task")
            if jsonl
            else "A CoNLL file: the test file with your tag of each token in the last column (or only the tags, one "
            "per line), a blank line between sentences, the same sentences and tokens in the same order; "
            "`-DOCSTART-` lines may be kept or dropped. Tags follow the %s scheme (`B-TYPE`, `I-TYPE`, `O`); the "
            "entity types are %s. A sentence with a token too many or too few is refused with its line.\n\n"
            "```\n%s\n```\n" % (scheme, ", ".join("`%s`" % t for t in types) or "those of the task", example)
        ),
        file_name="predictions.jsonl" if jsonl else "predictions.conll",
        sample=sample,
        public_files=(),
    )


#: The per-entity-type table of the detailed results and the end-of-phase report.
UNIT_TABLE = UnitTable("entity type", unit_rows)
