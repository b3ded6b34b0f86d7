"""Text generation (machine translation, summarization, speech recognition, captioning): corpus metrics.

The task type's pieces for generated text; each metric is one class (:class:`BLEU`,
:class:`ChrF`, :class:`TER`, :class:`ErrorRate`, :class:`ExactMatch`), as sacrebleu keeps them:

* **parse**: :mod:`.files` reads plain text (one segment per
  line) or JSON Lines with ids; a segment has one or more references;
* **per-segment statistics**: :mod:`.stats`: BLEU's n-gram
  matches and lengths, chrF's character (and word) n-gram counts, edit
  counts and reference lengths: integers whose weighted sums under the
  resample counts (:class:`~leaderboard_ci.core.accumulators.ExactSums`)
  are exact;
* **metrics**: the corpus formulas of sacrebleu 2.6 (``bleu``, ``chrf``,
  ``chrf_pp``, ``ter``, on sacrebleu's 0-100 scale) and jiwer 4 (``wer``,
  ``cer``, fractions), and ``exact_match`` (the fraction of hypotheses equal
  to one of their references, both stripped of surrounding whitespace): on
  every replicate equal to those libraries on the resampled corpus
  (``tests/test_generation.py``).

Metric options (sacrebleu's argument names): ``bleu`` takes ``tokenize``
(``13a`` default, ``intl``, ``zh``, ``char``, ``none``), ``smooth`` (``exp``
default, ``floor``, ``add-k``, ``none``), ``smooth_value``, ``lowercase``,
``effective_order`` and ``max_ngram_order``; ``chrf`` / ``chrf_pp`` take
``char_order``, ``word_order``, ``beta``, ``lowercase``, ``whitespace`` and
``eps_smoothing``; ``ter`` takes ``case_sensitive``, ``normalized``,
``no_punct`` and ``asian_support``; ``wer`` / ``cer`` take ``references``
(``first``, jiwer's one reference per segment, or ``best``, the reference
with the fewest edits).  sacrebleu's SentencePiece tokenizers (``flores101``,
``flores200``, ``spm``) are not offered: they need the ``sentencepiece``
package, which the stock images do not have.  :func:`metric_signature`
writes a metric's configuration as sacrebleu's signature does.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ...core.accumulators import ExactSums
from ..metrics import Metric, Metrics, Option
from ..protocol import SubmissionFormat
from ..settings import TaskSettings, setting
from .budget import MAX_SECONDS, SECONDS_PER_WORD, WorkBudget, WorkExceeded, time_budget
from .files import read_gold, read_predictions, text_array, work_error
from .stats import (
    BETA,
    BLEU_ORDER,
    CHAR_ORDER,
    SMOOTHING,
    bleu_scores,
    bleu_statistics,
    chrf_scores,
    chrf_statistics,
    edit_rates,
    edit_statistics,
    ter_scores,
)
from .ter import ter_statistics
from .text import TOKENIZERS, tokenizer

__all__ = [
    "NAME",
    "METRICS",
    "GenerationMetric",
    "GenerationSettings",
    "metric_signature",
    "segment_statistics",
    "corpus_scores",
    "Statistics",
    "read_gold",
    "read_predictions",
    "encode_values",
    "decode",
    "submission_format",
]

NAME = "generation"
#: sacrebleu's tokenizers that segment with a SentencePiece model (the sentencepiece package): not offered.
SENTENCEPIECE_TOKENIZERS = ("flores101", "flores200", "spm")
_LIMITS = {"max_ngram_order": (1, 9), "char_order": (0, 12), "word_order": (0, 6)}


# ---------------------------------------------------------------------------
# Settings
# ---------------------------------------------------------------------------
def _separator(separator):
    """``reference_separator``: None or a non-empty string (ValueError)."""
    if separator is not None and (not isinstance(separator, str) or separator == ""):
        raise ValueError('reference_separator must be a non-empty string such as "\\t", got %r' % (separator,))
    return separator


def _check_seconds(value):
    if value is None:  # the default: from the test set's size (budget.time_budget)
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 86400:
        raise ValueError("max_seconds must be a number of seconds from 0 (excluded) to 86400, got %r" % (value,))
    return value


@dataclass(frozen=True)
class GenerationSettings(TaskSettings):
    """The top-level keys of a generation task: ``reference_separator`` of a plain-text gold, and
    ``max_seconds``, the CPU budget of a submission's statistics (:mod:`.budget`)."""

    reference_separator: Optional[str] = setting(
        None,
        "Plain-text gold with several references per line: the text between them "
        '(e.g. "\\t" or " ||| "); default: one reference per line.',
        parse=_separator,
    )
    max_seconds: Optional[float] = setting(
        None,
        "The most CPU seconds the generation metrics (all of them together) may take on one submission before "
        "it is refused with one sentence (default: %g s, or %g ms per word of the references when that is "
        "more; raise it with the competition's execution time limit)." % (MAX_SECONDS, 1000 * SECONDS_PER_WORD),
        parse=_check_seconds,
    )


# ---------------------------------------------------------------------------
# Options: sacrebleu's and jiwer's argument names
# ---------------------------------------------------------------------------
def _flag(name, value):
    if not isinstance(value, bool):
        raise ValueError("%s must be true or false, got %r" % (name, value))
    return value


def _check_tokenize(value):
    if value in SENTENCEPIECE_TOKENIZERS:
        raise ValueError(
            "tokenize %s is sacrebleu's SentencePiece tokenizer: it needs the sentencepiece package and its "
            "model, which the stock Codabench images do not have; use one of: %s" % (value, ", ".join(TOKENIZERS))
        )
    if value not in TOKENIZERS:
        raise ValueError("tokenize must be one of: %s, got %r" % (", ".join(TOKENIZERS), value))
    return value


def _check_smooth(value):
    if value not in SMOOTHING:
        raise ValueError("smooth must be one of: %s, got %r" % (", ".join(SMOOTHING), value))
    return value


def _check_smooth_value(value):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise ValueError("smooth_value must be a non-negative number, got %r" % (value,))
    return float(value)


def _check_order(option):
    low, high = _LIMITS[option]

    def check(value):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError("%s must be a whole number from %d to %d, got %r" % (option, low, high, value))
        return value

    return check


def _check_beta(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1e6:
        raise ValueError("beta must be a positive number (recall's weight), got %r" % (value,))
    return value


def _check_references(value):
    if value not in ("first", "best"):
        raise ValueError("references must be first or best, got %r" % (value,))
    return value


def _check_flag(option):
    def check(value):
        return _flag(option, value)

    return check


def _option(name, default, doc, check=None):
    return Option(name, doc, default, check or _check_flag(name))


_TOKENIZE = _option(
    "tokenize",
    "13a",
    "bleu: sacrebleu's tokenizer: 13a (default), intl, zh, char or none (not flores101, flores200 or "
    "spm: they need the sentencepiece package, which the stock images lack).",
    _check_tokenize,
)
_SMOOTH = _option("smooth", "exp", "bleu: sacrebleu's smoothing: exp (default), floor, add-k or none.", _check_smooth)
_SMOOTH_VALUE = _option(
    "smooth_value", None, "bleu: the value of smooth floor (default 0.1) or add-k (default 1).", _check_smooth_value
)
_LOWERCASE = _option("lowercase", False, "bleu, chrf, chrf_pp: compare lower-cased text (default false).")
_EFFECTIVE_ORDER = _option(
    "effective_order", False, "bleu: average only the n-gram orders the hypotheses have (default false)."
)
_MAX_NGRAM_ORDER = _option(
    "max_ngram_order",
    BLEU_ORDER,
    "bleu: the largest n-gram order (default 4, sacrebleu's max_ngram_order).",
    _check_order("max_ngram_order"),
)
_CHAR_ORDER = _option(
    "char_order",
    CHAR_ORDER,
    "chrf, chrf_pp: the largest character n-gram order (default 6).",
    _check_order("char_order"),
)
_WORD_ORDER = _option(
    "word_order",
    0,
    "chrf, chrf_pp: the largest word n-gram order (default 0 for chrf, 2 for chrf_pp).",
    _check_order("word_order"),
)
_BETA = _option("beta", BETA, "chrf, chrf_pp: recall's weight in the F-score (default 2).", _check_beta)
_WHITESPACE = _option("whitespace", False, "chrf, chrf_pp: keep whitespace in character n-grams (default false).")
_EPS_SMOOTHING = _option(
    "eps_smoothing", False, "chrf, chrf_pp: average the per-order F-scores (chrF++.py, NLTK) (default false)."
)
_CASE_SENSITIVE = _option("case_sensitive", False, "ter: compare case-sensitively (default false, as sacrebleu).")
_NORMALIZED = _option(
    "normalized", False, "ter: tercom's normalization of punctuation and XML entities (default false)."
)
_NO_PUNCT = _option("no_punct", False, "ter: remove punctuation (default false).")
_ASIAN_SUPPORT = _option(
    "asian_support",
    False,
    "ter: with normalized, split CJK characters; with no_punct, remove CJK punctuation too (default false).",
)


_REFERENCES = _option(
    "references",
    "first",
    "wer, cer: first (default; jiwer's one reference per segment) or best (per segment, the "
    "reference with the fewest edits, and its length).",
    _check_references,
)

_FLAG_NAMES = OrderedDict(
    [
        ("lowercase", "lc"),
        ("effective_order", "eff"),
        ("whitespace", "space"),
        ("eps_smoothing", "eps"),
        ("case_sensitive", "cs"),
        ("normalized", "norm"),
        ("no_punct", "nopunct"),
        ("asian_support", "asian"),
    ]
)
#: Numeric options and the letter that starts their word in a key (``bleu_n2``, ``chrf_c4_w1_b3``).
_NUMBER_NAMES = OrderedDict(
    [("smooth_value", "k"), ("max_ngram_order", "n"), ("char_order", "c"), ("word_order", "w"), ("beta", "b")]
)


def _short(option, value):
    """How an option that differs from its default is written in the key (``bleu_intl_lc``)."""
    if option == "tokenize":
        return value
    if option == "smooth":
        return "s" + value.replace("-", "")
    if option == "references":
        return "best" if value == "best" else value
    if option in _NUMBER_NAMES:
        return _NUMBER_NAMES[option] + ("%g" % value).replace(".", "p")
    return _FLAG_NAMES[option]


def _from_short(allowed, word):
    """``(option, value)`` of a key's word (the inverse of :func:`_short`) among the options ``allowed``, or None."""
    if "tokenize" in allowed and word in TOKENIZERS:
        return "tokenize", word
    if "smooth" in allowed and word.startswith("s"):
        for method in SMOOTHING:
            if word[1:] == method.replace("-", ""):
                return "smooth", method
    if "references" in allowed and word == "best":
        return "references", "best"
    for option, letter in _NUMBER_NAMES.items():
        if option in allowed and word.startswith(letter) and word[1:2].isdigit():
            try:
                number = float(word[1:].replace("p", "."))
            except ValueError:
                return None
            return option, (int(number) if option in _LIMITS and number == int(number) else number)
    for option, short in _FLAG_NAMES.items():
        if option in allowed and word == short:
            return option, True
    return None


# ---------------------------------------------------------------------------
# The metrics: one class each, as sacrebleu keeps them
# ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False, repr=False)
class GenerationMetric(Metric):
    """A corpus metric of generated text: its options, per-segment statistics, corpus formula and signature.

    A subclass gives :meth:`statistics` (the ``(n, F)`` per-segment statistics
    whose sums the replicates weight), :meth:`corpus` (the score of summed
    statistics) and :meth:`signature_of` (sacrebleu's signature fields);
    non-default options are named in the key and title (``bleu_intl_lc``).
    """

    def settings_of(self, spec):
        """``{option: value}`` of every option of ``spec``, defaults included."""
        out = OrderedDict((option.name, option.default) for option in self.options)
        out.update(spec.options)
        return out

    def parse_name(self, name):
        if not name.startswith(self.name + "_"):
            return None
        allowed = [option.name for option in self.options]
        options = {}
        for word in name[len(self.name) + 1 :].split("_"):
            found = _from_short(allowed, word)
            if found is None or found[0] in options:
                return None
            options[found[0]] = found[1]
        return options

    def make_spec(self, options, defaults):
        """``(fields, key, title)``: the options checked and stored; non-default ones named in the key and title."""
        allowed = OrderedDict((option.name, option) for option in self.options)
        unknown = sorted(set(options) - set(allowed))
        if unknown:
            raise ValueError(
                "%s takes no option %r%s"
                % (self.name, unknown[0], "; it takes: " + ", ".join(allowed) if allowed else "")
            )
        chosen = []
        for name, option in allowed.items():
            value = option.value(options.get(name, option.default))
            if value != option.default:
                chosen.append((name, value))
        if dict(chosen).get("smooth_value") is not None and dict(chosen).get("smooth", "exp") not in ("floor", "add-k"):
            raise ValueError("smooth_value applies to smooth floor or add-k only")
        self.check_options(dict((o.name, o.default) for o in self.options), dict(chosen))
        suffix = [_short(option, value) for option, value in chosen]
        key = "_".join([self.name] + suffix)
        title = "%s (%s)" % (self.title, ", ".join(suffix)) if suffix else self.title
        return {"options": tuple(sorted(chosen))}, key, title

    def check_options(self, defaults, chosen):
        """Cross-checks of the options (ValueError; default: none)."""
        return None

    def signature(self, spec, gold):
        """sacrebleu's signature of ``spec`` for this gold (``nrefs``: references per segment, ``var`` if it varies)."""
        counts = set(len(refs) for refs in gold.values)
        n_refs = counts.pop() if len(counts) == 1 else -1
        return metric_signature(spec, n_refs)

    def signature_of(self, head, settings):
        """The signature's fields after ``nrefs`` (``head``) for these ``settings`` (default: none)."""
        return head

    def statistics(self, settings, hypotheses, references, budget):
        """The ``(n, F)`` per-segment statistics, spending ``budget`` (a :class:`~.budget.WorkBudget`)."""
        raise NotImplementedError

    def corpus(self, settings, sums):
        """The score of each row of summed statistics ``(N, F)``."""
        raise NotImplementedError

    def score(self, sums, spec):
        return self.corpus(self.settings_of(spec), sums)


@dataclass(frozen=True, eq=False, repr=False)
class BLEU(GenerationMetric):
    """sacrebleu's BLEU: clipped n-gram matches and lengths per segment; the corpus brevity penalty and smoothing."""

    def statistics(self, o, hypotheses, references, budget):
        tokenize = tokenizer(o["tokenize"])
        if o["lowercase"]:

            def preprocess(text):
                return tokenize(text.lower().rstrip())

        else:

            def preprocess(text):
                return tokenize(text.rstrip())

        return bleu_statistics(hypotheses, references, preprocess, o["max_ngram_order"], budget)

    def corpus(self, o, sums):
        return bleu_scores(sums, o["smooth"], o["smooth_value"], o["effective_order"], o["max_ngram_order"])

    def signature_of(self, head, o):
        smooth = o["smooth"]
        if SMOOTHING[smooth] is not None:
            smooth += "[%.2f]" % (SMOOTHING[smooth] if o["smooth_value"] is None else o["smooth_value"])
        out = "%s|case:%s|eff:%s|tok:%s|smooth:%s" % (
            head,
            "lc" if o["lowercase"] else "mixed",
            "yes" if o["effective_order"] else "no",
            o["tokenize"],
            smooth,
        )
        # sacrebleu's signature leaves max_ngram_order out; ours names it when it is not 4
        return out + ("" if o["max_ngram_order"] == BLEU_ORDER else "|ngram:%d" % o["max_ngram_order"])


@dataclass(frozen=True, eq=False, repr=False)
class ChrF(GenerationMetric):
    """sacrebleu's chrF and chrF++: character (and word) n-gram counts per segment; the corpus F-beta."""

    def check_options(self, defaults, chosen):
        settings = dict(defaults, **chosen)
        if settings["char_order"] + settings["word_order"] == 0:
            raise ValueError("char_order and word_order cannot both be 0")

    def statistics(self, o, hypotheses, references, budget):
        return chrf_statistics(
            hypotheses,
            references,
            word_order=o["word_order"],
            lowercase=o["lowercase"],
            whitespace=o["whitespace"],
            eps_smoothing=o["eps_smoothing"],
            char_order=o["char_order"],
            beta=o["beta"],
            budget=budget,
        )

    def corpus(self, o, sums):
        return chrf_scores(sums, o["word_order"], o["eps_smoothing"], o["beta"], o["char_order"])

    def signature_of(self, head, o):
        out = "%s|case:%s|eff:%s|nc:%d|nw:%d|space:%s" % (
            head,
            "lc" if o["lowercase"] else "mixed",
            "no" if o["eps_smoothing"] else "yes",
            o["char_order"],
            o["word_order"],
            "yes" if o["whitespace"] else "no",
        )
        # sacrebleu writes beta in the score's name (chrF2); ours names it in the signature when it is not 2
        return out + ("" if o["beta"] == BETA else "|beta:%g" % o["beta"])


@dataclass(frozen=True, eq=False, repr=False)
class TER(GenerationMetric):
    """sacrebleu's TER: edits with shifts per segment (tercom's search); edits over reference words."""

    def statistics(self, o, hypotheses, references, budget):
        return ter_statistics(hypotheses, references, o, budget=budget)

    def corpus(self, o, sums):
        return ter_scores(sums)

    def signature_of(self, head, o):
        return "%s|case:%s|tok:tercom|norm:%s|punct:%s|asian:%s" % (
            head,
            "mixed" if o["case_sensitive"] else "lc",
            "yes" if o["normalized"] else "no",
            "no" if o["no_punct"] else "yes",
            "yes" if o["asian_support"] else "no",
        )


@dataclass(frozen=True, eq=False, repr=False)
class ErrorRate(GenerationMetric):
    """jiwer's WER (words) and CER (characters): edits and reference lengths per segment; their ratio."""

    def statistics(self, o, hypotheses, references, budget):
        unit = "words" if self.name == "wer" else "chars"
        return edit_statistics(hypotheses, references, unit, best=o["references"] == "best", budget=budget)

    def corpus(self, o, sums):
        return edit_rates(sums)

    def signature_of(self, head, o):
        return "%s|jiwer:%s_default%s" % (head, self.name, "|refs:best" if o["references"] == "best" else "")


@dataclass(frozen=True, eq=False, repr=False)
class ExactMatch(GenerationMetric):
    """The share of segments whose hypothesis equals one of its references (both stripped of surrounding space)."""

    def statistics(self, o, hypotheses, references, budget):
        # [1 if the hypothesis equals one of the references, 1] (the second sums to the segments drawn)
        out = np.ones((len(hypotheses), 2), dtype=np.int64)
        for i, (hypothesis, refs) in enumerate(zip(hypotheses, references)):
            out[i, 0] = hypothesis.strip() in set(r.strip() for r in refs)
        return out

    def corpus(self, o, sums):
        sums = np.asarray(sums, dtype=np.float64).reshape(-1, 2)
        return np.where(sums[:, 1] > 0, sums[:, 0] / np.where(sums[:, 1] > 0, sums[:, 1], 1.0), np.nan)


def _with_default(option, default):
    return Option(option.name, option.doc, default, option.check)


_CHRF_OPTIONS = (_CHAR_ORDER, _WORD_ORDER, _BETA, _LOWERCASE, _WHITESPACE, _EPS_SMOOTHING)
METRICS = Metrics(
    [
        BLEU(
            NAME,
            "bleu",
            "BLEU",
            "higher",
            100.0,
            ppi=False,
            aliases=("sacrebleu", "sacrebleu_bleu"),
            options=(_TOKENIZE, _SMOOTH, _SMOOTH_VALUE, _LOWERCASE, _EFFECTIVE_ORDER, _MAX_NGRAM_ORDER),
        ),
        ChrF(NAME, "chrf", "chrF", "higher", 100.0, ppi=False, aliases=("chrf2",), options=_CHRF_OPTIONS),
        ChrF(
            NAME,
            "chrf_pp",
            "chrF++",
            "higher",
            100.0,
            ppi=False,
            aliases=("chrf++", "chrfpp", "chrf_plus_plus"),
            options=tuple(_with_default(o, 2) if o is _WORD_ORDER else o for o in _CHRF_OPTIONS),
        ),
        TER(
            NAME,
            "ter",
            "TER",
            "lower",
            0.0,
            ppi=False,
            options=(_CASE_SENSITIVE, _NORMALIZED, _NO_PUNCT, _ASIAN_SUPPORT),
        ),
        ErrorRate(NAME, "wer", "WER", "lower", 0.0, aliases=("word_error_rate",), options=(_REFERENCES,)),
        ErrorRate(NAME, "cer", "CER", "lower", 0.0, aliases=("character_error_rate",), options=(_REFERENCES,)),
        ExactMatch(NAME, "exact_match", "exact match", "higher", 1.0, aliases=("em", "exact")),
    ],
    options=sorted(
        [_TOKENIZE, _SMOOTH, _SMOOTH_VALUE, _LOWERCASE, _EFFECTIVE_ORDER, _MAX_NGRAM_ORDER, _REFERENCES]
        + [_CASE_SENSITIVE, _NORMALIZED, _NO_PUNCT, _ASIAN_SUPPORT]
        + list(_CHRF_OPTIONS),
        key=lambda option: option.name,
    ),
)


def metric_signature(spec, n_refs):
    """``spec``'s configuration written as sacrebleu's signature (without sacrebleu's version field).

    ``n_refs`` is the number of references per segment (-1 when it varies).
    """
    metric = METRICS[spec.name]
    return metric.signature_of("nrefs:%s" % ("var" if n_refs < 0 else n_refs), metric.settings_of(spec))


# ---------------------------------------------------------------------------
# Per-segment statistics
# ---------------------------------------------------------------------------
def _config_key(spec):
    return (spec.name, tuple(sorted(spec.options)))


def segment_statistics(spec, hypotheses, references, budget=None):
    """The ``(n, F)`` integer (TER: float) statistics of metric ``spec`` on every segment.

    ``budget``: a :class:`~.budget.WorkBudget` the statistics spend (None: no bound).
    """
    metric = METRICS[spec.name]
    return metric.statistics(metric.settings_of(spec), hypotheses, references, budget)


def corpus_scores(spec, sums):
    """The corpus metric ``spec`` of each row of summed statistics ``(N, F)``."""
    return METRICS[spec.name].score(sums, spec)


class Statistics:
    """Per-segment sufficient statistics of every configured metric, summed exactly; scores by the corpus formulas.

    One :class:`~leaderboard_ci.core.accumulators.ExactSums` per distinct
    metric configuration (two BLEU entries with the same options share one).
    """

    def __init__(self, add, gold, predictions, metrics, group_codes, n_groups, layout=None):
        if gold.groups is not None:
            raise ValueError("the generation task has no groups")
        submitted, predictions = predictions, np.asarray(predictions, dtype=object)
        if predictions.shape != (gold.n,) or any(not isinstance(p, str) for p in predictions):
            raise ValueError("predictions must be %d hypothesis strings" % gold.n)
        self.n = gold.n
        self._slots = OrderedDict()
        hypotheses = list(predictions)
        references = list(gold.values)
        # one CPU budget for every metric's statistics of this file (budget.py)
        given = GenerationSettings.of(gold).max_seconds
        budget = WorkBudget(time_budget(references, given), given=given is not None)
        for spec in metrics:
            if spec.name not in METRICS:
                continue
            key = _config_key(spec)
            if key not in self._slots:
                try:
                    stats = segment_statistics(spec, hypotheses, references, budget)
                except WorkExceeded as exc:
                    raise work_error(submitted, exc)
                self._slots[key] = add(ExactSums(np.asarray(stats, dtype=np.float64)))

    def prepare(self, stats):
        return dict((key, np.asarray(stats[slot], dtype=np.float64)) for key, slot in self._slots.items())

    def score(self, prepared, spec, j):
        if j != 0:
            raise ValueError("the generation task has no groups")
        return corpus_scores(spec, prepared[_config_key(spec)])


# ---------------------------------------------------------------------------
# In-memory values (the analysis API)
# ---------------------------------------------------------------------------
def encode_values(gold_values, systems, labels=None, settings=None):
    """Gold: one reference string or a non-empty list of them per segment; systems: one hypothesis string each."""
    gold = []
    for i, value in enumerate(gold_values):
        refs = [value] if isinstance(value, str) else list(value)
        if not refs or any(not isinstance(r, str) for r in refs):
            raise ValueError("gold segment %d needs a reference string or a non-empty list of them" % i)
        gold.append(tuple(refs))
    coded = OrderedDict()
    for name, hypotheses in systems.items():
        hypotheses = list(hypotheses)
        if len(hypotheses) != len(gold):
            raise ValueError("system %r has %d hypotheses for %d segments" % (name, len(hypotheses), len(gold)))
        bad = [h for h in hypotheses if not isinstance(h, str)]
        if bad:
            raise ValueError("system %r: every hypothesis must be a string, got %r" % (name, bad[0]))
        coded[name] = text_array(hypotheses)
    return text_array(gold), None, coded


def decode(gold, values):
    """The texts (gold: tuples of references; predictions: strings)."""
    return np.asarray(values, dtype=object)


# -- What participants submit (leaderboard-ci init's pages and sample) -----------------------------------------------
def submission_format(gold, files, metrics):
    """What participants submit: plain text, one hypothesis per line in test order, or JSON Lines with ids.

    JSON Lines when the config names a ``*.jsonl`` prediction file or sets ``files.format: jsonl`` (and the
    gold has segment ids), as :func:`.generation_files.is_jsonl` reads it; plain text otherwise.  The sample
    holds one constant hypothesis per segment (it reveals no reference); the public file lists the ids only.
    """
    ids = list(gold.ids or ())
    named = files.predictions or ""
    jsonl = bool(ids) and (named.lower().endswith(".jsonl") or files.format == "jsonl")
    placeholder = "your output"
    public = (("test_ids.txt", "\n".join(ids) + "\n"),) if ids else ()
    if jsonl:
        rows = [json.dumps(OrderedDict([("id", i), ("hypothesis", placeholder)]), ensure_ascii=False) for i in ids]
        what = (
            'A JSON Lines file: one object per test segment, in any order, `{"id": ..., "hypothesis": "..."}` '
            "(an empty string is an empty hypothesis); every test segment id of `test_ids.txt` exactly once."
        )
        name = "hypotheses.jsonl"
    else:
        rows = [placeholder] * int(gold.n)
        what = (
            "A plain-text UTF-8 file with exactly one line per test segment, in the order of the test set: "
            "line i is your output for segment i (an empty line is an empty hypothesis; no header, no ids)."
        )
        if ids and not named:
            what += ' Also accepted: a file named `*.jsonl` with one `{"id": ..., "hypothesis": "..."}` per segment.'
        name = "hypotheses.txt"
    example = "\n".join(rows[:3] + (["..."] if len(rows) > 3 else []))
    return SubmissionFormat(
        unit="segment",
        units="test segments",
        goal="Generate the output text of each of the {n} test segments.",
        description="%s\n\n```\n%s\n```\n" % (what, example),
        file_name=name,
        sample="\n".join(rows) + "\n",
        public_files=public,
    )
