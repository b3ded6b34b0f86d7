"""Text generation (machine translation, summarization, speech recognition, captioning): corpus metrics.

The task type protocol for generated text:

* **parse**: :mod:`.generation_files` reads plain text (one segment per
  line) or JSON Lines with ids; a segment has one or more references;
* **per-segment statistics**: :mod:`.generation_stats`: BLEU's n-gram
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
default, ``floor``, ``add-k``, ``none``), ``smooth_value``, ``lowercase`` and
``effective_order``; ``chrf`` / ``chrf_pp`` take ``lowercase``,
``whitespace`` and ``eps_smoothing``; ``ter`` takes ``case_sensitive``.  :func:`metric_signature`
writes a metric's configuration as sacrebleu's signature does.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from ...core.accumulators import ExactSums
from ..legacy import TaskType
from ..shared.base import MetricInfo
from .files import read_gold, read_predictions, text_array
from .stats import (
    SMOOTHING,
    bleu_scores,
    bleu_statistics,
    chrf_scores,
    chrf_statistics,
    edit_rates,
    edit_statistics,
    ter_scores,
)
from .text import TOKENIZERS, tokenizer

__all__ = ["NAME", "METRICS", "GenerationTask", "TASK", "metric_signature", "Statistics", "encode_values"]

NAME = "generation"
METRICS = {
    "bleu": MetricInfo(NAME, "higher", 100.0, "BLEU", ppi=False),
    "chrf": MetricInfo(NAME, "higher", 100.0, "chrF", ppi=False),
    "chrf_pp": MetricInfo(NAME, "higher", 100.0, "chrF++", ppi=False),
    "ter": MetricInfo(NAME, "lower", 0.0, "TER", ppi=False),
    "wer": MetricInfo(NAME, "lower", 0.0, "WER"),
    "cer": MetricInfo(NAME, "lower", 0.0, "CER"),
    "exact_match": MetricInfo(NAME, "higher", 1.0, "exact match"),
}
ALIASES = {
    "sacrebleu": "bleu",
    "sacrebleu_bleu": "bleu",
    "chrf2": "chrf",
    "chrf++": "chrf_pp",
    "chrfpp": "chrf_pp",
    "chrf_plus_plus": "chrf_pp",
    "word_error_rate": "wer",
    "character_error_rate": "cer",
    "em": "exact_match",
    "exact": "exact_match",
}
#: Per metric, its options and their defaults (sacrebleu's: TER is case-insensitive unless told).
_DEFAULTS = {
    "bleu": OrderedDict(
        [
            ("tokenize", "13a"),
            ("smooth", "exp"),
            ("smooth_value", None),
            ("lowercase", False),
            ("effective_order", False),
        ]
    ),
    "chrf": OrderedDict([("lowercase", False), ("whitespace", False), ("eps_smoothing", False)]),
    "ter": OrderedDict([("case_sensitive", False)]),
}
_DEFAULTS["chrf_pp"] = _DEFAULTS["chrf"]
OPTIONS = tuple(sorted(set(k for d in _DEFAULTS.values() for k in d)))
OPTION_DOCS = {
    "tokenize": "bleu: sacrebleu's tokenizer: 13a (default), intl, zh, char or none.",
    "smooth": "bleu: sacrebleu's smoothing: exp (default), floor, add-k or none.",
    "smooth_value": "bleu: the value of smooth floor (default 0.1) or add-k (default 1).",
    "lowercase": "bleu, chrf, chrf_pp: compare lower-cased text (default false).",
    "effective_order": "bleu: average only the n-gram orders the hypotheses have (default false).",
    "whitespace": "chrf, chrf_pp: keep whitespace in character n-grams (default false).",
    "eps_smoothing": "chrf, chrf_pp: average the per-order F-scores (chrF++.py, NLTK) (default false).",
    "case_sensitive": "ter: compare case-sensitively (default false, as sacrebleu).",
}
SETTINGS = ("reference_separator",)
SETTING_DOCS = {
    "reference_separator": "Plain-text gold with several references per line: the text between them "
    '(e.g. "\\t" or " ||| "); default: one reference per line.'
}


def parse_settings(values):
    """``{"reference_separator": str or None}`` (ValueError for an empty or non-string separator)."""
    separator = values.get("reference_separator")
    if separator is not None and (not isinstance(separator, str) or separator == ""):
        raise ValueError('reference_separator must be a non-empty string such as "\\t", got %r' % (separator,))
    return {"reference_separator": separator}


def _flag(name, value):
    if not isinstance(value, bool):
        raise ValueError("%s must be true or false, got %r" % (name, value))
    return value


def make_spec(name, options, defaults):
    """``(fields, key, title)``: the options checked and stored; non-default ones named in the key and title."""
    allowed = _DEFAULTS.get(name, {})
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(
            "%s takes no option %r%s" % (name, unknown[0], "; it takes: " + ", ".join(allowed) if allowed else "")
        )
    chosen = []
    for option, default in allowed.items():
        value = options.get(option, default)
        if option == "tokenize" and value not in TOKENIZERS:
            raise ValueError("tokenize must be one of: %s, got %r" % (", ".join(TOKENIZERS), value))
        elif option == "smooth" and value not in SMOOTHING:
            raise ValueError("smooth must be one of: %s, got %r" % (", ".join(SMOOTHING), value))
        elif option == "smooth_value" and value is not None:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise ValueError("smooth_value must be a non-negative number, got %r" % (value,))
            value = float(value)
        elif option not in ("tokenize", "smooth", "smooth_value"):
            value = _flag(option, value)
        if value != default:
            chosen.append((option, value))
    if dict(chosen).get("smooth_value") is not None and dict(chosen).get("smooth", "exp") not in ("floor", "add-k"):
        raise ValueError("smooth_value applies to smooth floor or add-k only")
    title = METRICS[name].title
    suffix = [_short(option, value) for option, value in chosen]
    key = "_".join([name] + suffix)
    if suffix:
        title = "%s (%s)" % (title, ", ".join(suffix))
    return {"options": tuple(sorted(chosen))}, key, title


_FLAG_NAMES = OrderedDict(
    [
        ("lowercase", "lc"),
        ("effective_order", "eff"),
        ("whitespace", "space"),
        ("eps_smoothing", "eps"),
        ("case_sensitive", "cs"),
    ]
)


def _short(option, value):
    """How an option that differs from its default is written in the key (``bleu_intl_lc``)."""
    if option == "tokenize":
        return value
    if option == "smooth":
        return "s" + value.replace("-", "")
    if option == "smooth_value":
        return "k" + ("%g" % value).replace(".", "p")
    return _FLAG_NAMES[option]


def _from_short(name, word):
    """``(option, value)`` of a key's word (the inverse of :func:`_short`), or None."""
    allowed = _DEFAULTS.get(name, {})
    if "tokenize" in allowed and word in TOKENIZERS:
        return "tokenize", word
    if "smooth" in allowed and word.startswith("s"):
        for method in SMOOTHING:
            if word[1:] == method.replace("-", ""):
                return "smooth", method
    if "smooth_value" in allowed and word.startswith("k"):
        try:
            return "smooth_value", float(word[1:].replace("p", "."))
        except ValueError:
            return None
    for option, short in _FLAG_NAMES.items():
        if option in allowed and word == short:
            return option, True
    return None


def resolve_name(name):
    """``(metric, implied options)`` of a metric name, an alias or a key such as ``bleu_intl_lc``, or None."""
    name = ALIASES.get(name, name)
    if name in METRICS:
        return name, {}
    for metric in sorted(METRICS, key=len, reverse=True):
        if name.startswith(metric + "_"):
            options = {}
            for word in name[len(metric) + 1 :].split("_"):
                found = _from_short(metric, word)
                if found is None or found[0] in options:
                    return None
                options[found[0]] = found[1]
            return metric, options
    return None


def _settings_of(spec):
    settings = OrderedDict(_DEFAULTS.get(spec.name, {}))
    settings.update(spec.options)
    return settings


def metric_signature(spec, n_refs):
    """``spec``'s configuration written as sacrebleu's signature (without sacrebleu's version field).

    ``n_refs`` is the number of references per segment (-1 when it varies).
    """
    o = _settings_of(spec)
    head = "nrefs:%s" % ("var" if n_refs < 0 else n_refs)
    if spec.name == "bleu":
        smooth = o["smooth"]
        if SMOOTHING[smooth] is not None:
            smooth += "[%.2f]" % (SMOOTHING[smooth] if o["smooth_value"] is None else o["smooth_value"])
        return "%s|case:%s|eff:%s|tok:%s|smooth:%s" % (
            head,
            "lc" if o["lowercase"] else "mixed",
            "yes" if o["effective_order"] else "no",
            o["tokenize"],
            smooth,
        )
    if spec.name in ("chrf", "chrf_pp"):
        return "%s|case:%s|eff:%s|nc:6|nw:%d|space:%s" % (
            head,
            "lc" if o["lowercase"] else "mixed",
            "no" if o["eps_smoothing"] else "yes",
            2 if spec.name == "chrf_pp" else 0,
            "yes" if o["whitespace"] else "no",
        )
    if spec.name == "ter":
        return "%s|case:%s|tok:tercom|norm:no|punct:yes|asian:no" % (head, "mixed" if o["case_sensitive"] else "lc")
    if spec.name in ("wer", "cer"):
        return "%s|jiwer:%s_default" % (head, spec.name)
    return head


# ---------------------------------------------------------------------------
# Per-segment statistics
# ---------------------------------------------------------------------------
def _config_key(spec):
    return (spec.name, tuple(sorted(spec.options)))


def segment_statistics(spec, hypotheses, references):
    """The ``(n, F)`` integer (TER: float) statistics of metric ``spec`` on every segment."""
    o = _settings_of(spec)
    if spec.name == "bleu":
        tokenize = tokenizer(o["tokenize"])
        if o["lowercase"]:

            def preprocess(text):
                return tokenize(text.lower().rstrip())

        else:

            def preprocess(text):
                return tokenize(text.rstrip())

        return bleu_statistics(hypotheses, references, preprocess)
    if spec.name in ("chrf", "chrf_pp"):
        return chrf_statistics(
            hypotheses,
            references,
            word_order=2 if spec.name == "chrf_pp" else 0,
            lowercase=o["lowercase"],
            whitespace=o["whitespace"],
            eps_smoothing=o["eps_smoothing"],
        )
    if spec.name in ("wer", "cer"):
        return edit_statistics(hypotheses, references, "words" if spec.name == "wer" else "chars")
    if spec.name == "ter":
        from .ter import ter_statistics

        return ter_statistics(hypotheses, references, o)
    out = np.zeros((len(hypotheses), 1), dtype=np.int64)
    for i, (hypothesis, refs) in enumerate(zip(hypotheses, references)):
        out[i, 0] = hypothesis.strip() in set(r.strip() for r in refs)
    return out


def corpus_scores(spec, sums):
    """The corpus metric ``spec`` of each row of summed statistics ``(N, F)``."""
    o = _settings_of(spec)
    if spec.name == "bleu":
        return bleu_scores(sums, o["smooth"], o["smooth_value"], o["effective_order"])
    if spec.name in ("chrf", "chrf_pp"):
        return chrf_scores(sums, 2 if spec.name == "chrf_pp" else 0, o["eps_smoothing"])
    if spec.name in ("wer", "cer"):
        return edit_rates(sums)
    if spec.name == "ter":
        return ter_scores(sums)
    return np.asarray(sums, dtype=np.float64)[:, 0]


class Statistics:
    """Per-segment sufficient statistics of every configured metric, summed exactly; scores by the corpus formulas.

    One :class:`~leaderboard_ci.core.accumulators.ExactSums` per distinct
    metric configuration (two BLEU entries with the same options share one).
    """

    def __init__(self, add, gold, predictions, metrics, group_codes, n_groups, layout=None):
        if gold.groups is not None:
            raise ValueError("the generation task has no groups")
        predictions = np.asarray(predictions, dtype=object)
        if predictions.shape != (gold.n,) or any(not isinstance(p, str) for p in predictions):
            raise ValueError("predictions must be %d hypothesis strings" % gold.n)
        self.n = gold.n
        self._slots = OrderedDict()
        hypotheses = list(predictions)
        references = list(gold.values)
        for spec in metrics:
            if spec.name not in METRICS:
                continue
            key = _config_key(spec)
            if key not in self._slots:
                stats = segment_statistics(spec, hypotheses, references)
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
    import json

    from ..legacy import SubmissionFormat

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


class GenerationTask(TaskType):
    """Generated text scored by corpus metrics (see the module's docstring)."""

    NAME, METRICS, ALIASES, OPTIONS, SETTINGS, Statistics = NAME, METRICS, ALIASES, OPTIONS, SETTINGS, Statistics
    SETTING_DOCS, OPTION_DOCS = SETTING_DOCS, OPTION_DOCS
    OWN_GOLD_FORMAT = OWN_PREDICTION_FORMAT = True
    UNIT_VALUES_NAME = "segment"
    make_spec, parse_settings = staticmethod(make_spec), staticmethod(parse_settings)
    resolve_name = staticmethod(resolve_name)
    read_gold, read_predictions = staticmethod(read_gold), staticmethod(read_predictions)
    encode_values, decode = staticmethod(encode_values), staticmethod(decode)
    submission_format = staticmethod(submission_format)

    def metric_signature(self, spec, gold):
        """sacrebleu's signature of ``spec`` for this gold (``nrefs``: references per segment, ``var`` if it varies)."""
        if spec.task != NAME:
            return None
        counts = set(len(refs) for refs in gold.values)
        return metric_signature(spec, counts.pop() if len(counts) == 1 else -1)


TASK = GenerationTask()
