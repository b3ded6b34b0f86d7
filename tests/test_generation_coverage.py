"""Coverage of the bootstrap intervals of corpus BLEU and WER on test sets drawn from a simulated population.

A population of 20,000 segments (a translation-like system: references of 8-30 words from a
Zipf-like vocabulary, the hypothesis a damaged copy with a segment-specific damage rate, so that
segments differ in difficulty) has a known corpus BLEU and WER: the corpus formula on all of it.
Each test set draws ``n`` segments without replacement; its 95 % percentile interval is computed
as the product computes it (the per-segment statistics of ``tasks.generation.metrics``, the replicate
indices of ``core.resampling``, the corpus formula on the count-weighted sums,
``core.intervals.confidence_interval``) and the study counts how often it holds the population
value.

Target: 95 +- 2 points at n = 500 and n = 2,000 (the slow test, 2,000 test sets per cell: one
binomial SE is 0.49 points).  The fast test (200 test sets at n = 500, B = 300) widens the band
by 3 SE (4.6 points).
"""

import itertools
import math
import random

import numpy as np
import pytest

from leaderboard_ci.core.intervals import confidence_interval
from leaderboard_ci.core.resampling import replicate_indices
from leaderboard_ci.tasks.generation import metrics as generation
from leaderboard_ci.tasks.shared.base import MetricSpec

POPULATION = 20000


def _spec(name):
    fields, key, _ = generation.METRICS.make_spec(name, {}, {})
    return MetricSpec(name=name, key=key, info=generation.METRICS[name].info, **fields)


def _population(seed=11):
    rng = random.Random(seed)
    vocab = ["w%d" % k for k in range(3000)]
    # cumulative weights once (random.choices accumulates them on every call otherwise: the same draws)
    cum_weights = list(itertools.accumulate(1.0 / (k + 1) for k in range(len(vocab))))
    refs, hyps = [], []
    for _ in range(POPULATION):
        ref = rng.choices(vocab, cum_weights=cum_weights, k=rng.randint(8, 30))
        rate = rng.betavariate(2, 5)  # segment difficulty
        hyp = [
            w if rng.random() >= rate else rng.choices(vocab, cum_weights=cum_weights)[0]
            for w in ref
            if rng.random() >= rate / 4
        ]
        refs.append((" ".join(ref),))
        hyps.append(" ".join(hyp))
    stats = {}
    for name in ("bleu", "wer"):
        spec = _spec(name)
        stats[name] = (spec, generation.segment_statistics(spec, hyps, refs).astype(np.float64))
    return stats


_CACHE = {}


def _stats():
    if not _CACHE:
        _CACHE.update(_population())
    return _CACHE


def _coverage(name, n, n_sets, n_resamples, seed=5):
    spec, stats = _stats()[name]
    truth = generation.corpus_scores(spec, stats.sum(axis=0)[None, :])[0]
    rng = np.random.default_rng(seed)
    hits = 0
    for k in range(n_sets):
        sample = stats[rng.choice(stats.shape[0], size=n, replace=False)]
        idx = replicate_indices(1000 + k, n, 0, n_resamples)
        flat = (np.arange(n_resamples)[:, None] * n + idx).ravel()
        counts = np.bincount(flat, minlength=n_resamples * n).reshape(n_resamples, n).astype(np.float64)
        replicates = generation.corpus_scores(spec, counts @ sample)
        observed = generation.corpus_scores(spec, sample.sum(axis=0)[None, :])[0]
        interval = confidence_interval("percentile", replicates, observed, 0.95)
        hits += interval.low <= truth <= interval.high
    return hits / float(n_sets)


def _band(n_sets, widen):
    se = math.sqrt(0.95 * 0.05 / n_sets)
    return 0.02 + widen * se


@pytest.mark.parametrize("name", ["bleu", "wer"])
def test_coverage_fast(name):
    coverage = _coverage(name, 500, 200, 300)
    assert abs(coverage - 0.95) <= _band(200, 3), coverage


@pytest.mark.slow
@pytest.mark.parametrize("n", [500, 2000])
@pytest.mark.parametrize("name", ["bleu", "wer"])
def test_coverage(name, n):
    coverage = _coverage(name, n, 2000, 1000)
    print("coverage %s n=%d: %.4f" % (name, n, coverage))
    assert abs(coverage - 0.95) <= 0.02, coverage
