"""task: generation: parity with sacrebleu 2.6 and jiwer 4 on every replicate, the readers, the options.

The reference implementations are the libraries themselves (installed for the tests only): every
bootstrap replicate of ``evaluate`` is compared with ``sacrebleu.corpus_bleu`` / ``corpus_chrf`` /
``corpus_ter`` and ``jiwer.wer`` / ``jiwer.cer`` run on the resampled corpus (the segments repeated
by their resample counts), on the example competition and on hostile text (typographic and CJK
punctuation, empty hypotheses and references, several and varying numbers of references).
"""

import io
import json
import os
import random

import numpy as np
import pytest

from leaderboard_ci.core.resampling import replicate_indices
from leaderboard_ci.phase.analysis import analyze
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.errors import ConfigError, SubmissionError
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.scoring.readers import read_gold, read_predictions
from leaderboard_ci.tasks.generation import metrics as generation
from leaderboard_ci.tasks.generation.ter import segment_ter
from leaderboard_ci.tasks.generation.text import edit_distance, tokenize_13a, tokenize_char, tokenize_intl, tokenize_zh
from leaderboard_ci.tasks.shared.base import GoldStandard, MetricSpec

sacrebleu = pytest.importorskip("sacrebleu")
jiwer = pytest.importorskip("jiwer")

TOL = 1e-9
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "generation")

HOSTILE = [
    "Hello, world! It's 3.5 km-long (really).",
    "“Quoted” — dash… ¿Qué? ¡Sí! 1,000.5 and 2.000,75",
    "我爱北京天安门。Hello 世界！「引用」",
    "a&amp;b &lt;x&gt; <skipped> e-\nf",
    "",
    "   ",
    "tab\there  x\u00a0nbsp",
    "Ümlaut ñ €5 $10 §3 ©2020 ½ ±0.5% 5°C",
    "end of sentence .",
    "Ｆｕｌｌｗｉｄｔｈ　ｔｅｘｔ，ｙｅｓ！",
    "emoji 🙂 and ZWJ 👩‍💻 math ∑∞ ≠ ≤",
    "'single' \"double\" `back` [brackets] {braces} <angles>",
]


def _resolve(name):
    """``(metric name, implied options)`` of a spelling, or None (the catalog's lookup)."""
    found = generation.METRICS.resolve(name)
    return None if found is None else (found[0].name, found[1])


def _spec(name, **options):
    fields, key, title = generation.METRICS.make_spec(name, options, {})
    return MetricSpec(name=name, key=key, info=generation.METRICS[name].info, display_title=title, **fields)


# ---------------------------------------------------------------------------
# Tokenizers and edit distances
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "ours, module, cls",
    [
        (tokenize_13a, "tokenizer_13a", "Tokenizer13a"),
        (tokenize_intl, "tokenizer_intl", "TokenizerV14International"),
        (tokenize_zh, "tokenizer_zh", "TokenizerZh"),
        (tokenize_char, "tokenizer_char", "TokenizerChar"),
    ],
)
def test_tokenizers_equal_sacrebleus(ours, module, cls):
    import importlib

    theirs = getattr(importlib.import_module("sacrebleu.tokenizers." + module), cls)()
    for text in HOSTILE + [t.lower() for t in HOSTILE] + [a + " " + b for a, b in zip(HOSTILE, HOSTILE[1:])]:
        assert ours(text) == theirs(text), (cls, text)


def test_zh_ranges_as_sacrebleu_compares_them():
    from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

    theirs = TokenizerZh()
    for code in list(range(0x1FF0, 0x2B00)) + list(range(0x2E70, 0x3410)) + list(range(0xF8F0, 0xFFF5)):
        text = "a%sb" % chr(code)
        assert tokenize_zh(text) == theirs(text), hex(code)


def test_edit_distance_and_ter_equal_the_references():
    from rapidfuzz.distance import Levenshtein
    from sacrebleu.metrics.lib_ter import translation_edit_rate

    rng = random.Random(4)
    vocab = "a b c d e the of".split()
    for _ in range(400):
        h = [rng.choice(vocab) for _ in range(rng.randint(0, 16))]
        r = [rng.choice(vocab) for _ in range(rng.randint(0, 16))]
        if r and rng.random() < 0.5:  # a shuffled, damaged copy: shifts pay off
            h = r[:]
            rng.shuffle(h)
            h = h[: rng.randint(0, len(h))] + [rng.choice(vocab) for _ in range(rng.randint(0, 3))]
        assert edit_distance(r, h) == Levenshtein.distance(r, h)
        assert segment_ter(h, r) == translation_edit_rate(h, r), (h, r)
    for _ in range(4):  # long references: the beam widens
        r = [rng.choice(vocab) for _ in range(rng.randint(60, 100))]
        h = r[: rng.randint(1, 5)]
        assert segment_ter(h, r) == translation_edit_rate(h, r)
        assert segment_ter(r, h) == translation_edit_rate(r, h)


# ---------------------------------------------------------------------------
# Corpus metrics on every replicate
# ---------------------------------------------------------------------------
def _references(refs, rows):
    """sacrebleu's reference streams of the resampled corpus (None where a segment has fewer references)."""
    width = max(len(r) for r in refs)
    return [[refs[i][k] if k < len(refs[i]) else None for i in rows] for k in range(width)]


def _segment_references(r, i):
    return [stream[i] for stream in r if stream[i] is not None]


def _best_reference_rate(h, r, words):
    """jiwer's WER (CER) of the corpus whose segment i has, as its one reference, the one with the fewest edits
    (the first on a tie): jiwer's own edit counts per segment, then jiwer's corpus rate."""
    chosen = []
    for i, hyp in enumerate(h):
        best = None
        for ref in _segment_references(r, i):
            out = (jiwer.process_words if words else jiwer.process_characters)(ref, hyp) if ref.strip() else None
            edits = out.substitutions + out.deletions + out.insertions if out is not None else None
            if edits is None:  # jiwer refuses an empty reference alone: every hypothesis token is an insertion
                edits = len(hyp.split()) if words else len(hyp.strip())
            if best is None or edits < best[0]:
                best = (edits, ref)
        chosen.append(best[1])
    return (jiwer.wer if words else jiwer.cer)(chosen, h)


def _exact_match(h, r):
    """The share of the (resampled) segments whose stripped hypothesis is one of their stripped references."""
    hits = [hyp.strip() in set(ref.strip() for ref in _segment_references(r, i)) for i, hyp in enumerate(h)]
    return sum(hits) / float(len(hits))


REFERENCE_METRICS = {
    "bleu_n2": lambda h, r: sacrebleu.BLEU(max_ngram_order=2).corpus_score(h, r).score,
    "bleu_eff_n6": lambda h, r: sacrebleu.BLEU(max_ngram_order=6, effective_order=True).corpus_score(h, r).score,
    "chrf_c4_w1_b3": lambda h, r: sacrebleu.CHRF(char_order=4, word_order=1, beta=3).corpus_score(h, r).score,
    "chrf_pp_b1": lambda h, r: sacrebleu.CHRF(word_order=2, beta=1).corpus_score(h, r).score,
    "ter_norm": lambda h, r: sacrebleu.TER(normalized=True).corpus_score(h, r).score,
    "ter_nopunct_asian": lambda h, r: sacrebleu.TER(no_punct=True, asian_support=True).corpus_score(h, r).score,
    "ter_cs_norm_nopunct_asian": lambda h, r: (
        sacrebleu.TER(case_sensitive=True, normalized=True, no_punct=True, asian_support=True).corpus_score(h, r).score
    ),
    "exact_match": _exact_match,
    "bleu": lambda h, r: sacrebleu.corpus_bleu(h, r).score,
    "bleu_intl": lambda h, r: sacrebleu.corpus_bleu(h, r, tokenize="intl").score,
    "bleu_zh_lc": lambda h, r: sacrebleu.corpus_bleu(h, r, tokenize="zh", lowercase=True).score,
    "bleu_char_sfloor": lambda h, r: sacrebleu.corpus_bleu(h, r, tokenize="char", smooth_method="floor").score,
    "bleu_saddk_eff": lambda h, r: sacrebleu.BLEU(smooth_method="add-k", effective_order=True).corpus_score(h, r).score,
    "bleu_snone": lambda h, r: sacrebleu.corpus_bleu(h, r, smooth_method="none").score,
    "bleu_sfloor_k0p3": lambda h, r: sacrebleu.corpus_bleu(h, r, smooth_method="floor", smooth_value=0.3).score,
    "chrf": lambda h, r: sacrebleu.corpus_chrf(h, r).score,
    "chrf_pp": lambda h, r: sacrebleu.corpus_chrf(h, r, word_order=2).score,
    "chrf_lc_space_eps": lambda h, r: (
        sacrebleu.CHRF(lowercase=True, whitespace=True, eps_smoothing=True).corpus_score(h, r).score
    ),
    "ter": lambda h, r: sacrebleu.corpus_ter(h, r).score,
    "ter_cs": lambda h, r: sacrebleu.corpus_ter(h, r, case_sensitive=True).score,
    "wer": lambda h, r: jiwer.wer(r[0], h),
    "cer": lambda h, r: jiwer.cer(r[0], h),
    "wer_best": lambda h, r: _best_reference_rate(h, r, True),
    "cer_best": lambda h, r: _best_reference_rate(h, r, False),
}


def _config(metrics, n_resamples=30, gold="references.jsonl", seed=3, **extra):
    entries = [_resolve(key) for key in metrics]
    entries = [dict(options, name=name) for name, options in entries]
    config = {
        "task": "generation",
        "metric": entries[0],
        "extra_metrics": entries[1:],
        "files": {"gold": gold},
        "bootstrap": {"n_resamples": n_resamples, "seed": seed, "n_jobs": 1},
    }
    config.update(extra)
    return parse_config(config)


def _check_replicates(config, gold, hypotheses, keys, n_resamples, refs=None):
    refs = list(gold.values) if refs is None else refs
    result = evaluate(config, gold, generation.text_array(hypotheses))
    scores = dict((s.key, s) for s in result.scores)
    rows = [np.arange(gold.n)] + list(replicate_indices(3, gold.n, 0, n_resamples))
    for b, row in enumerate(rows):
        h = [hypotheses[i] for i in row]
        r = _references(refs, row)
        for key in keys:
            got = scores[key].score if b == 0 else scores[key].replicates[b - 1]
            expected = REFERENCE_METRICS[key](h, r)
            assert abs(got - expected) <= TOL * max(1.0, abs(expected)), (key, b, got, expected)


def test_every_replicate_of_the_example_equals_sacrebleu_and_jiwer():
    keys = ["bleu", "chrf", "chrf_pp", "ter", "wer", "cer", "bleu_intl"]
    config = _config(keys, n_resamples=3)
    gold = read_gold(os.path.join(EXAMPLE, "reference_data"), config)
    assert gold.n == 800 and gold.ids[0] == "s0000"
    import zipfile

    with zipfile.ZipFile(os.path.join(EXAMPLE, "sample_submissions", "lowercase_nopunct.zip")) as z:
        hypotheses = z.read("hypotheses.txt").decode("utf-8").split("\n")[: gold.n]
    _check_replicates(config, gold, hypotheses, keys, 3)


def _hostile_corpus(seed, n, n_refs):
    rng = random.Random(seed)
    words = [w for text in HOSTILE for w in text.split()] + ["the", "cat", "sat", "on", "mat", "。", "，"]
    refs, hyps = [], []
    for _ in range(n):
        base = [rng.choice(words) for _ in range(rng.randint(0, 14))]
        k = n_refs if n_refs > 0 else rng.randint(1, 3)
        segment = []
        for _ in range(k):
            ref = [w if rng.random() < 0.8 else rng.choice(words) for w in base]
            segment.append(" ".join(ref) if rng.random() < 0.9 else rng.choice(HOSTILE))
        refs.append(tuple(segment))
        roll = rng.random()
        if roll < 0.1:
            hyps.append("")
        elif roll < 0.2:
            hyps.append(rng.choice(HOSTILE))
        else:
            hyp = [w for w in base if rng.random() < 0.85]
            if len(hyp) > 2 and rng.random() < 0.3:
                hyp[0], hyp[-1] = hyp[-1], hyp[0]
            hyps.append(("".join if rng.random() < 0.1 else " ".join)(hyp))
    return refs, hyps


@pytest.mark.parametrize("n_refs", [1, 2, -1])
def test_every_replicate_on_hostile_text_equals_sacrebleu_and_jiwer(n_refs):
    refs, hyps = _hostile_corpus(10 + n_refs, 60, n_refs)
    keys = sorted(REFERENCE_METRICS)
    if n_refs != 1:  # jiwer takes one reference per segment: wer and cer take the first, wer_best the best
        keys = [k for k in keys if k not in ("wer", "cer")]
    config = _config(keys, n_resamples=12)
    values, _, coded = generation.encode_values(refs, {"s": hyps})
    gold = GoldStandard(values=values, task="generation")
    _check_replicates(config, gold, hyps, keys, 12, refs)


def test_wer_and_cer_take_the_first_reference_and_jiwers_empty_reference_rule():
    refs = [("", "ignored"), ("a b", "x")]
    hyps = ["one two", "a b c"]
    values, _, coded = generation.encode_values(refs, {"s": hyps})
    gold = GoldStandard(values=values, task="generation")
    config = _config(["wer", "cer"], n_resamples=5)
    result = evaluate(config, gold, coded["s"])
    scores = dict((s.key, s.score) for s in result.scores)
    assert scores["wer"] == jiwer.wer(["", "a b"], hyps)
    assert scores["cer"] == jiwer.cer(["", "a b"], hyps)
    only_empty = generation.corpus_scores(_spec("wer"), np.array([[3.0, 0.0]]))
    assert only_empty[0] == jiwer.wer([""], ["x y z"]) == 3


def test_exact_match_is_the_share_of_hypotheses_equal_to_a_reference():
    refs = [("a b", "c"), ("x",), ("y ",)]
    stats = generation.segment_statistics(_spec("exact_match"), [" c", "x y", "y"], refs)
    assert stats[:, 0].tolist() == [1, 0, 1]
    assert generation.corpus_scores(_spec("exact_match"), stats.sum(axis=0)[None, :]).tolist() == [2 / 3.0]


def test_exact_match_is_a_fraction_in_the_leaderboard_its_interval_and_the_end_of_phase():
    """On the example (800 segments), the score, every replicate and the end-of-phase value are the share of
    matching segments (0..1, best 1.0), computed here from the drawn segments themselves."""
    import zipfile

    config = _config(["exact_match"], n_resamples=40)
    gold = read_gold(os.path.join(EXAMPLE, "reference_data"), config)
    with zipfile.ZipFile(os.path.join(EXAMPLE, "sample_submissions", "lowercase_nopunct.zip")) as z:
        hypotheses = z.read("hypotheses.txt").decode("utf-8").split("\n")[: gold.n]
    hypotheses[:91] = [gold.values[i][0] for i in range(91)]  # 91 exact matches at least
    result = evaluate(config, gold, generation.text_array(hypotheses)).scores[0]
    hits = np.array([h.strip() in set(r.strip() for r in refs) for h, refs in zip(hypotheses, gold.values)])
    assert result.score == hits.mean() and 91 / 800.0 <= result.score < 1
    rows = replicate_indices(3, gold.n, 0, 40)
    np.testing.assert_allclose(result.replicates, [hits[row].mean() for row in rows], rtol=0, atol=1e-15)
    assert 0 <= result.interval.low <= result.score <= result.interval.high <= 1
    systems = {"s": hypotheses, "copy": [refs[0] for refs in gold.values]}
    table = analyze([list(v) for v in gold.values], systems, config=config).targets["exact_match"].systems
    table = table.set_index("name")
    assert table.loc["s", "score"] == result.score and table.loc["copy", "score"] == 1.0
    assert (table.loc["s", "ci_low"], table.loc["s", "ci_high"]) == (result.interval.low, result.interval.high)
    assert table.loc["s", "ci_high"] <= 1 and table.loc["s", "ci_low"] >= 0


def test_analyze_api_ranks_the_example_systems():
    import zipfile

    config = _config(["bleu", "chrf"], n_resamples=200)
    gold = read_gold(os.path.join(EXAMPLE, "reference_data"), config)
    systems = {}
    for name in ("paraphraser", "truncate", "reorder"):
        with zipfile.ZipFile(os.path.join(EXAMPLE, "sample_submissions", name + ".zip")) as z:
            systems[name] = z.read("hypotheses.txt").decode("utf-8").split("\n")[: gold.n]
    phase = analyze([list(v) for v in gold.values], systems, config=config)
    table = phase.targets["bleu"].systems
    scores = dict(zip(table["name"], table["score"]))
    refs = _references(list(gold.values), range(gold.n))
    for name, hyps in systems.items():
        assert abs(scores[name] - sacrebleu.corpus_bleu(hyps, refs).score) <= TOL * 100


# ---------------------------------------------------------------------------
# sacrebleu's paired bootstrap p-values, reproduced in distribution
# ---------------------------------------------------------------------------
def _sacrebleu_paired_p(metric, sys_stats, base_stats, sys_score, base_score, n_samples, seed):
    """sacrebleu's _paired_bs_test, run on its own statistics (its RNG, its formula)."""
    from sacrebleu.significance import _compute_p_value

    rng = np.random.default_rng(seed)
    idxs = rng.choice(len(sys_stats), size=(n_samples, len(sys_stats)), replace=True)
    s = np.array(sys_stats, dtype="float32")
    b = np.array(base_stats, dtype="float32")
    scores_sys = np.array([metric._compute_score_from_stats(x.sum(0)).score for x in s[idxs]])
    scores_bl = np.array([metric._compute_score_from_stats(x.sum(0)).score for x in b[idxs]])
    diffs = np.abs(scores_sys - scores_bl)
    return _compute_p_value(diffs - diffs.mean(), abs(base_score - sys_score))


def _our_paired_p(spec, sys_stats, base_stats, n_samples, seed):
    """The same p-value definition on our replicates: our resampling, our statistics and corpus formula."""
    idx = replicate_indices(seed, sys_stats.shape[0], 0, n_samples)
    counts = np.stack([np.bincount(row, minlength=sys_stats.shape[0]) for row in idx]).astype(np.float64)
    full = generation.corpus_scores(spec, np.stack([sys_stats.sum(0), base_stats.sum(0)]).astype(np.float64))
    diffs = np.abs(
        generation.corpus_scores(spec, counts @ sys_stats) - generation.corpus_scores(spec, counts @ base_stats)
    )
    centered = diffs - diffs.mean()
    return (np.sum(centered > abs(full[0] - full[1])) + 1.0) / (n_samples + 1.0)


def _p_values(n_seeds, n_samples, n, every=8):
    from scipy import stats as _  # noqa: F401 (the comparison below needs scipy)

    rng = random.Random(7)
    import zipfile

    config = _config(["bleu"], n_resamples=10)
    gold = read_gold(os.path.join(EXAMPLE, "reference_data"), config)
    rows = sorted(rng.sample(range(gold.n), n))
    refs = [gold.values[i] for i in rows]
    lines = {}
    for name in ("drop_words", "reorder"):
        with zipfile.ZipFile(os.path.join(EXAMPLE, "sample_submissions", name + ".zip")) as z:
            lines[name] = z.read("hypotheses.txt").decode("utf-8").split("\n")
    # Two systems of close BLEU (a p-value in the middle of [0, 1]): reorder, and reorder with one
    # segment in ``every`` taken from drop_words.
    outputs = {
        "a": [lines["reorder"][i] for i in rows],
        "b": [lines["drop_words" if k % every == 0 else "reorder"][i] for k, i in enumerate(rows)],
    }
    metric = sacrebleu.BLEU()
    streams = _references(refs, range(n))
    theirs_stats = [metric._extract_corpus_statistics(outputs[k], streams) for k in ("a", "b")]
    scores = [metric._aggregate_and_compute(s).score for s in theirs_stats]
    spec = _spec("bleu")
    ours_stats = [generation.segment_statistics(spec, outputs[k], refs) for k in ("a", "b")]
    assert np.array_equal(np.asarray(theirs_stats[0]), ours_stats[0])  # the same sufficient statistics
    theirs = [
        _sacrebleu_paired_p(metric, theirs_stats[0], theirs_stats[1], scores[0], scores[1], n_samples, 1000 + s)
        for s in range(n_seeds)
    ]
    ours = [_our_paired_p(spec, ours_stats[0], ours_stats[1], n_samples, 1000 + s) for s in range(n_seeds)]
    return np.array(theirs), np.array(ours)


def _same_distribution(theirs, ours):
    from scipy import stats

    assert 0.05 < np.mean(theirs) < 0.95, "choose systems whose p-value is not at an end"
    assert stats.ks_2samp(theirs, ours).pvalue > 0.001
    spread = np.sqrt(np.var(theirs) / len(theirs) + np.var(ours) / len(ours))
    assert abs(np.mean(theirs) - np.mean(ours)) <= 4 * spread + 1e-12


def test_paired_bootstrap_p_values_match_sacrebleus_in_distribution_fast():
    theirs, ours = _p_values(n_seeds=30, n_samples=300, n=120)
    _same_distribution(theirs, ours)


@pytest.mark.slow
def test_paired_bootstrap_p_values_match_sacrebleus_in_distribution():
    theirs, ours = _p_values(n_seeds=200, n_samples=1000, n=300, every=40)
    _same_distribution(theirs, ours)


# ---------------------------------------------------------------------------
# Options, keys, settings
# ---------------------------------------------------------------------------
def test_keys_titles_and_signatures():
    spec = _spec("bleu", tokenize="intl", lowercase=True)
    assert (spec.key, spec.title) == ("bleu_intl_lc", "BLEU (intl, lc)")
    assert _resolve("bleu_intl_lc") == ("bleu", {"tokenize": "intl", "lowercase": True})
    assert _resolve("chrf++") == ("chrf_pp", {})
    assert _resolve("bleu_nonsense") is None
    assert generation.metric_signature(_spec("bleu"), 2) == "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp"
    for metric, spec in (
        (sacrebleu.BLEU(smooth_method="floor", tokenize="intl"), _spec("bleu", smooth="floor", tokenize="intl")),
        (sacrebleu.BLEU(lowercase=True, effective_order=True), _spec("bleu", lowercase=True, effective_order=True)),
        (sacrebleu.CHRF(word_order=2), _spec("chrf_pp")),
        (sacrebleu.CHRF(whitespace=True, eps_smoothing=True), _spec("chrf", whitespace=True, eps_smoothing=True)),
        (sacrebleu.TER(), _spec("ter")),
        (sacrebleu.TER(case_sensitive=True), _spec("ter", case_sensitive=True)),
        (
            sacrebleu.TER(normalized=True, no_punct=True, asian_support=True),
            _spec("ter", normalized=True, no_punct=True, asian_support=True),
        ),
        (sacrebleu.CHRF(char_order=4, word_order=1), _spec("chrf", char_order=4, word_order=1)),
        (sacrebleu.BLEU(max_ngram_order=4), _spec("bleu", max_ngram_order=4)),
    ):
        metric.corpus_score(["a b"], [["a b"], ["a c"]])  # sacrebleu knows nrefs once it has scored
        assert metric.get_signature().format().startswith(generation.metric_signature(spec, 2) + "|")


@pytest.mark.parametrize(
    "name, options, message",
    [
        ("bleu", {"tokenize": "moses"}, "tokenize must be one of: 13a, intl, zh, char, none, got 'moses'"),
        ("bleu", {"smooth": "laplace"}, "smooth must be one of"),
        ("bleu", {"smooth_value": 0.2}, "smooth_value applies to smooth floor or add-k only"),
        ("bleu", {"lowercase": "yes"}, "lowercase must be true or false, got 'yes'"),
        (
            "chrf",
            {"tokenize": "13a"},
            "chrf takes no option 'tokenize'; it takes: char_order, word_order, beta, lowercase, whitespace",
        ),
        ("wer", {"lowercase": True}, "wer takes no option 'lowercase'; it takes: references"),
        ("bleu", {"tokenize": "flores200"}, "needs the sentencepiece package and its model"),
        ("bleu", {"max_ngram_order": 0}, "max_ngram_order must be a whole number from 1 to 9, got 0"),
        ("chrf", {"char_order": 0, "word_order": 0}, "char_order and word_order cannot both be 0"),
        ("chrf", {"beta": -1}, "beta must be a positive number"),
        ("wer", {"references": "all"}, "references must be first or best, got 'all'"),
    ],
)
def test_bad_options_say_what_is_allowed(name, options, message):
    with pytest.raises(ValueError) as info:
        generation.METRICS.make_spec(name, options, {})
    assert message in str(info.value)


@pytest.mark.parametrize(
    "entry, listed",
    [
        ({"name": "chrf", "foo": 3}, "chrf takes: name, key, beta, char_order, eps_smoothing, lowercase, whitespace, "),
        ({"name": "ter", "foo": 3}, "ter takes: name, key, asian_support, case_sensitive, no_punct, normalized"),
        ({"name": "exact_match", "foo": 3}, "exact_match takes: name, key"),
    ],
)
def test_an_unknown_option_lists_only_what_that_metric_takes(entry, listed):
    with pytest.raises(ConfigError) as info:
        parse_config({"task": "generation", "metric": entry})
    message = str(info.value)
    assert listed in message
    if entry["name"] != "bleu":
        assert "tokenize" not in message and "smooth_value" not in message


def test_config_rejects_a_bad_separator():
    with pytest.raises(ConfigError):
        _config(["bleu"], reference_separator="")


# ---------------------------------------------------------------------------
# Files: formats and hostile inputs
# ---------------------------------------------------------------------------
SECRET = "Zanzibarian secret reference"


def _write(path, text):
    with io.open(str(path), "w", encoding="utf-8", newline="") as handle:
        handle.write(text)


def _gold(tmp_path, text, name="refs.txt", **extra):
    ref = tmp_path / "ref"
    ref.mkdir(exist_ok=True)
    _write(ref / name, text)
    config = _config(["bleu", "wer"], gold=name, **extra)
    return config, read_gold(str(ref), config)


def test_plain_text_gold_with_a_separator_and_trailing_blank_lines(tmp_path):
    config, gold = _gold(tmp_path, "a b\tc d\n\t\ne f\tg\n\n\n", reference_separator="\t")
    assert [tuple(v) for v in gold.values] == [("a b", "c d"), ("", ""), ("e f", "g")]
    with pytest.raises(ConfigError) as info:
        _gold(tmp_path, "a\tb\nc\n", reference_separator="\t")
    assert str(info.value).startswith("ref/refs.txt line 2: has 1 references where line 1 has 2")


def test_plain_text_predictions(tmp_path):
    config, gold = _gold(tmp_path, "one %s\ntwo\nthree\n" % SECRET)
    path = tmp_path / "hyp.txt"
    _write(path, "x\n\nz\n\n\n")  # an empty hypothesis, then blank lines after the last segment
    assert list(read_predictions(str(path), config, gold)) == ["x", "", "z"]
    for text, expected in (
        ("x\ny\n", "hyp.txt has 2 lines, expected 3 (one hypothesis per test segment, in order"),
        ("x\ny\nz\nw\n", "hyp.txt line 4: more lines than the 3 test segments"),
        ("", "hyp.txt has 0 lines, expected 3"),
        ("x\n", "hyp.txt has 1 line, expected 3"),
        ("x\ny\x00\nz\n", "hyp.txt line 2: the line holds a NUL byte"),  # 8 bytes: no longer "binary"
    ):
        _write(path, text)
        with pytest.raises(SubmissionError) as info:
            read_predictions(str(path), config, gold)
        message = str(info.value)
        assert expected in message and "\n" not in message and "Zanzibar" not in message, message


def test_a_million_blank_lines_keep_the_segments_aligned(tmp_path):
    n = 3 + 1200000
    config, gold = _gold(tmp_path, "a\n" + "\n" * 1200000 + "b\nc\n")
    assert gold.n == n - 1 + 1 and tuple(gold.values[-1]) == ("c",) and tuple(gold.values[5]) == ("",)


JSONL_GOLD = '{"id": "s1", "references": ["%s", "other"]}\n{"id": "s2", "reference": "two"}\n' % SECRET


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"id": "s1", "hypothesis": "x"}\n', "hyp.jsonl has no hypothesis for 1 of the 2 test segments (e.g. 's2')"),
        ('{"id": "s1", "hypothesis": "x"}\n{"id": "s9", "hypothesis": "y"}\n', "line 2: segment id 's9' is not in"),
        ('{"id": "s1", "hypothesis": 3}\n', "line 1: segment 's1' needs \"hypothesis\": a string"),
        ('{"id": "s1", "text": "x"}\n', "got nothing"),
        ('{"id": "s1", "hypothesis": "x"}\n{"id": "s1", "hypothesis": "y"}\n', "line 2: segment id 's1' appears again"),
        ('["s1", "x"]\n', "line 1: holds a JSON list; expected one object per line"),
        ('{"id": true, "hypothesis": "x"}\n', 'line 1: needs an "id"'),
        ('{"id": "s1", "hypothesis": "x"\n', "line 1: not valid JSON"),
        ('{"id": "s1", "hypothesis": ' + "[" * 100000 + "]" * 100000 + "}\n", "line 1: the JSON is nested too deeply"),
    ],
)
def test_bad_jsonl_predictions(tmp_path, text, expected):
    config, gold = _gold(tmp_path, JSONL_GOLD, name="refs.jsonl")
    path = tmp_path / "hyp.jsonl"
    _write(path, text)
    with pytest.raises(SubmissionError) as info:
        read_predictions(str(path), config, gold)
    message = str(info.value)
    assert expected in message and "\n" not in message and "Zanzibar" not in message and "other" not in message


def test_jsonl_predictions_in_any_order_and_text_predictions_against_jsonl_gold(tmp_path):
    config, gold = _gold(tmp_path, JSONL_GOLD, name="refs.jsonl")
    assert gold.ids == ("s1", "s2")
    path = tmp_path / "hyp.jsonl"
    _write(path, '{"id": "s2", "hypothesis": "b"}\n\n{"id": "s1", "hypothesis": ""}\n')
    assert list(read_predictions(str(path), config, gold)) == ["", "b"]
    path = tmp_path / "hyp.txt"
    _write(path, "a\nb\n")
    assert list(read_predictions(str(path), config, gold)) == ["a", "b"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"id": "s1", "references": []}\n', 'ref/refs.jsonl line 1: needs "references": a non-empty list'),
        ('{"id": "s1", "references": ["%s", 3]}\n' % SECRET, 'line 1: needs "references"'),
        ('{"id": "s1", "reference": "a"}\n{"id": "s1", "reference": "b"}\n', "line 2: segment id 's1' appears again"),
        ("\n\n", "ref/refs.jsonl has no segments"),
        ('{"id": "s1", "reference": "%s"\n' % SECRET, "ref/refs.jsonl line 1: not valid JSON"),
    ],
)
def test_bad_jsonl_gold_never_quotes_a_reference(tmp_path, text, expected):
    with pytest.raises(ConfigError) as info:
        _gold(tmp_path, text, name="refs.jsonl")
    message = str(info.value)
    assert expected in message and "Zanzibar" not in message and "\n" not in message


def test_text_predictions_when_the_gold_has_no_ids_must_not_be_jsonl(tmp_path):
    config, gold = _gold(tmp_path, "a\nb\n")
    path = tmp_path / "hyp.jsonl"
    _write(path, '{"id": "1", "hypothesis": "a"}\n')
    with pytest.raises(SubmissionError) as info:
        read_predictions(str(path), config, gold)
    assert "the test set has no segment ids; send plain text" in str(info.value)


def test_example_gold_reads_and_json_lines_are_well_formed():
    with io.open(os.path.join(EXAMPLE, "reference_data", "references.jsonl"), encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    assert len(rows) == 800 and all(len(r["references"]) == 2 for r in rows)


def test_ter_refuses_a_hostile_hypothesis_of_a_million_words(tmp_path):
    ref = tmp_path / "ref"
    ref.mkdir()
    _write(ref / "refs.txt", "a b c\nd e\n")
    config = _config(["bleu", "ter"], gold="refs.txt")
    gold = read_gold(str(ref), config)
    path = tmp_path / "hyp.txt"
    _write(path, "a b\n" + "x " * 1000000 + "\n")
    with pytest.raises(SubmissionError) as info:
        read_predictions(str(path), config, gold)
    assert str(info.value) == (
        "hyp.txt line 2: the hypothesis has 1,000,000 words; TER (a search over word shifts) is computed "
        "for hypotheses of at most 1,000 words"
    )
    config = _config(["bleu"], gold="refs.txt")  # without TER, a long line is only long
    assert len(read_predictions(str(path), config, gold)[1].split()) == 1000000


def test_the_signature_carries_sacrebleus_for_the_official_metric(tmp_path):
    """The leaderboard's and the report's signature name tokenizer, smoothing and references as sacrebleu does."""
    import sacrebleu

    from leaderboard_ci.core.signature import Signature
    from leaderboard_ci.scoring.config import parse_config
    from leaderboard_ci.tasks.registry import official_metric_options
    from leaderboard_ci.tasks.shared.base import GoldStandard

    config = parse_config({"task": "generation", "metric": {"name": "bleu", "tokenize": "intl"}})
    gold = GoldStandard(values=np.array([("a b", "a c"), ("d", "e")], dtype=object), task="generation")
    options = official_metric_options(config, gold)
    bleu = sacrebleu.BLEU(tokenize="intl")
    bleu.corpus_score(["a b", "d"], [["a b", "d"], ["a c", "e"]])  # sacrebleu learns nrefs from the corpus
    assert options == "nrefs:2|case:mixed|eff:no|tok:intl|smooth:exp"
    assert bleu.get_signature().format().startswith(options + "|")
    text = str(Signature("bleu", 1000, 1, "percentile", 0.95, 2, "0.1", metric_options=options))
    assert text.startswith("metric:bleu|nrefs:2|case:mixed|eff:no|tok:intl|smooth:exp|B:1000|")
    plain = parse_config({"metric": "accuracy"})
    assert official_metric_options(plain, GoldStandard(values=np.array([0, 1]), labels=("a", "b"))) is None
    assert "metric_options" not in Signature("f1", 10, 1, "percentile", 0.95, 2, "0.1").as_dict()
