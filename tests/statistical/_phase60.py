"""The 60-system phase of issue 20, as folders the organizer's command reads.

``make_phase(root, variant, n_resamples)`` writes ``root/ref`` (gold file and
``config.yaml``, the product's defaults otherwise) and ``root/submissions`` (one
prediction file per run) and returns a :class:`Phase` with both paths and the
systems' population values (the noise processes below have known expected
scores).  Everything is seeded; the same call writes the same bytes.

Variants
--------
``classification`` (the issue's scenario)
    Gold: the sample competition's 540 test labels (``competition_bundle``: digits,
    10 classes, real data).  Official metric macro-F1, accuracy as extra metric.
    57 runs ``noise_XX`` replace each gold label, with probability q (1 % to
    45 %, evenly spaced), by a uniformly drawn *other* label (population accuracy
    exactly 1 - q), plus ``majority_class`` (the sample competition's baseline
    file: the training majority class for every item) and two uniform-random
    runs ``random_1``, ``random_2``: 60 systems.
``scores`` (ROC-AUC)
    Gold: the first 540 labels of scikit-learn's breast-cancer data (bundled, real).
    57 runs score item i as ``y_i * mu + N(0, 1)`` (AUC = Phi(mu / sqrt 2), from
    0.99 down to 0.60), an ``inverted`` run (1 - the best run's score, AUC near
    0.01), a ``prior`` run (the same score for every item, AUC 0.5) and a
    ``random`` run (uniform scores): 60 systems.
``ranking`` (nDCG@10)
    100 synthetic queries of 30 judged passages each (graded 0/1/2).  57 runs
    rank by ``relevance + N(0, s)`` (s from 0.1 to 4), an ``inverted`` run
    (the best run's ranking reversed) and two random rankings: 60 systems.

Used by ``test_stat_phase60.py`` (B = 2,000) and ``benchmarks/`` (B = 10,000).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, os.pardir, os.pardir))
BUNDLE_REF = os.path.join(ROOT, "competition_bundle", "reference_data")
N_NOISE_RUNS = 57
NOISE_LEVELS = np.linspace(0.01, 0.45, N_NOISE_RUNS)
VARIANTS = ("classification", "scores", "ranking")
#: Runs that are broken by construction: none of them may be tied with the winner.
BROKEN = {
    "classification": ("majority_class", "random_1", "random_2"),
    "scores": ("inverted", "prior", "random"),
    "ranking": ("inverted", "random_1", "random_2"),
}
OFFICIAL = {"classification": "f1_macro", "scores": "roc_auc", "ranking": "ndcg@10"}


@dataclass(frozen=True)
class Phase:
    """Paths of a written phase and what is known about its systems."""

    variant: str
    ref: str
    submissions: str
    metric: str
    names: tuple
    broken: tuple
    truth: dict = field(default_factory=dict)  # name -> population value of the official metric (where known)


def _read_csv(path):
    with open(path, encoding="utf-8") as handle:
        rows = [line.rstrip("\n").split(",") for line in handle if line.strip()]
    return rows[0], rows[1:]


def _write(path, text):
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def _config(metric, extra, n_resamples, more=""):
    return "%smetric: %s\nextra_metrics: [%s]\nbootstrap:\n  n_resamples: %d\n  seed: 12345\n" % (
        more,
        metric,
        ", ".join(extra),
        n_resamples,
    )


def _noise_name(q):
    return "noise_%03d" % int(round(1000 * q))  # per mille: unique at this spacing


def _classification(ref, subs, n_resamples, rng):
    _, gold_rows = _read_csv(os.path.join(BUNDLE_REF, "gold.csv"))
    _, base_rows = _read_csv(os.path.join(BUNDLE_REF, "baseline.csv"))
    ids = [r[0] for r in gold_rows]
    gold = np.array([int(r[1]) for r in gold_rows])
    labels = [str(k) for k in range(10)]
    _write(os.path.join(ref, "gold.csv"), "id,label\n" + "".join("%s,%d\n" % r for r in zip(ids, gold)))
    _write(
        os.path.join(ref, "config.yaml"),
        _config("f1_macro", ["accuracy"], n_resamples, "labels: [%s]\n" % ", ".join('"%s"' % c for c in labels)),
    )
    prior = np.bincount(gold, minlength=10) / gold.size
    runs, truth = {}, {}
    for q in NOISE_LEVELS:
        pred = gold.copy()
        flip = rng.random(gold.size) < q
        pred[flip] = (gold[flip] + rng.integers(1, 10, int(flip.sum()))) % 10  # a uniformly drawn other label
        runs[_noise_name(q)] = pred
        truth[_noise_name(q)] = _macro_f1_under_symmetric_noise(prior, q)
    runs["majority_class"] = np.array([int(r[1]) for r in base_rows])
    constant = int(runs["majority_class"][0])
    assert (runs["majority_class"] == constant).all()
    # one class predicted for every item: F1 of that class only, over 10 classes
    truth["majority_class"] = float(2 * prior[constant] / (2 * prior[constant] + 1 - prior[constant]) / 10)
    for k in (1, 2):
        runs["random_%d" % k] = rng.integers(0, 10, gold.size)
        # uniform over the 10 labels: tp = p/10, fp = (1 - p)/10, fn = 9p/10
        truth["random_%d" % k] = float(np.mean(2 * prior / (1 + 10 * prior)))
    for name, pred in runs.items():
        _write(os.path.join(subs, name + ".csv"), "id,label\n" + "".join("%s,%d\n" % r for r in zip(ids, pred)))
    return runs, truth


def _macro_f1_under_symmetric_noise(prior, q):
    """Population macro-F1 of 'gold, replaced w.p. q by a uniform other label' (class shares ``prior``)."""
    k = prior.size
    tp = prior * (1 - q)
    fn = prior * q
    fp = (1 - prior) * q / (k - 1)
    return float(np.mean(2 * tp / (2 * tp + fp + fn)))


def _scores(ref, subs, n_resamples, rng):
    from sklearn.datasets import load_breast_cancer

    target = load_breast_cancer().target[:540]  # 0 = malignant, 1 = benign
    y = (target == 0).astype(int)
    ids = ["case_%03d" % i for i in range(y.size)]
    names = np.where(y == 1, "malignant", "benign")
    _write(os.path.join(ref, "gold.csv"), "id,label\n" + "".join("%s,%s\n" % r for r in zip(ids, names)))
    _write(
        os.path.join(ref, "config.yaml"),
        _config(
            "roc_auc",
            ["average_precision", "brier"],
            n_resamples,
            "task: scores\nlabels: [benign, malignant]\npos_label: malignant\n",
        ),
    )
    from scipy.stats import norm

    aucs = np.linspace(0.99, 0.60, N_NOISE_RUNS)
    runs, truth = {}, {}
    for a in aucs:
        mu = math.sqrt(2) * norm.ppf(a)
        s = 1.0 / (1.0 + np.exp(-(y * mu + rng.normal(0, 1, y.size) - mu / 2)))
        name = "auc_%03d" % int(round(1000 * a))
        runs[name], truth[name] = s, float(a)
    best = runs["auc_990"]
    runs["inverted"], truth["inverted"] = 1.0 - best, 0.01
    runs["prior"], truth["prior"] = np.full(y.size, float(y.mean())), 0.5
    runs["random"], truth["random"] = rng.random(y.size), 0.5
    for name, s in runs.items():
        _write(os.path.join(subs, name + ".csv"), "id,score\n" + "".join("%s,%.6f\n" % r for r in zip(ids, s)))
    return runs, truth


def _ranking(ref, subs, n_resamples, rng):
    n_queries, depth = 100, 30
    rel = rng.choice([0, 1, 2], size=(n_queries, depth), p=[0.6, 0.25, 0.15])
    qrels = "".join("q%03d 0 p%03d_%02d %d\n" % (q, q, d, rel[q, d]) for q in range(n_queries) for d in range(depth))
    _write(os.path.join(ref, "qrels.txt"), qrels)
    _write(
        os.path.join(ref, "config.yaml"),
        _config(
            "ndcg@10",
            ["map", "mrr"],
            n_resamples,
            "task: ranking\nrelevance_threshold: 1\nmissing_queries: zero\nfiles:\n  gold: qrels.txt\n",
        ),
    )
    runs = {}
    for s in np.linspace(0.1, 4.0, N_NOISE_RUNS):
        runs["noise_%03d" % int(round(100 * s))] = rel + rng.normal(0, s, rel.shape)
    runs["inverted"] = -runs["noise_010"]
    for k in (1, 2):
        runs["random_%d" % k] = rng.random(rel.shape)
    for name, score in runs.items():
        lines = []
        for q in range(n_queries):
            order = np.argsort(-score[q], kind="stable")
            lines += [
                "q%03d Q0 p%03d_%02d %d %.6f %s\n" % (q, q, d, r + 1, depth - r, name) for r, d in enumerate(order)
            ]
        _write(os.path.join(subs, name + ".txt"), "".join(lines))
    return runs, {}


def make_phase(root, variant="classification", n_resamples=10000, seed=2020):
    """Write the phase under ``root`` (created) and return a :class:`Phase`.

    Parameters
    ----------
    root : str
        An empty or new folder.
    variant : {"classification", "scores", "ranking"}
    n_resamples : int
        ``bootstrap.n_resamples`` of the written config (the product's default is 10,000).
    seed : int
        Seed of the noise.
    """
    if variant not in VARIANTS:
        raise ValueError("variant must be one of %s, got %r" % (", ".join(VARIANTS), variant))
    ref, subs = os.path.join(root, "ref"), os.path.join(root, "submissions")
    os.makedirs(ref, exist_ok=True)
    os.makedirs(subs, exist_ok=True)
    rng = np.random.default_rng([seed, VARIANTS.index(variant)])
    make = {"classification": _classification, "scores": _scores, "ranking": _ranking}[variant]
    runs, truth = make(ref, subs, n_resamples, rng)
    return Phase(variant, ref, subs, OFFICIAL[variant], tuple(runs), BROKEN[variant], truth)


def analyze_phase(phase, n_jobs="auto"):
    """What the organizer's command computes on the phase, without writing the report (seconds, not a minute).

    The same steps as ``leaderboard_ci.cli.end_of_phase.run``: the program's config merged
    with ``ref/config.yaml``, the gold file, the submissions folder, ``analyze``.
    Returns the PhaseResult; ``result_to_dict(result, top=None)`` is its report.json.
    """
    import tempfile
    from collections import OrderedDict

    from leaderboard_ci.phase.analysis import Execution, analyze
    from leaderboard_ci.phase.ingestion.submissions import load_systems
    from leaderboard_ci.scoring.config import load_config
    from leaderboard_ci.scoring.readers import read_gold

    config = load_config(os.path.join(ROOT, "scoring_program"), phase.ref)
    gold = read_gold(phase.ref, config)
    with tempfile.TemporaryDirectory() as work:
        coded, skipped, _ = load_systems(phase.submissions, config, gold, os.path.join(work, "submissions"))
    if len(coded) != len(phase.names) or len(skipped):
        raise RuntimeError("read %d of the %d runs (%d skipped)" % (len(coded), len(phase.names), len(skipped)))
    return analyze(gold, OrderedDict(coded), config=config, execution=Execution(n_jobs=n_jobs), skipped=skipped)


def run_phase(phase, out, extra_args=()):
    """The organizer's command (``leaderboard-ci-end-of-phase``) on the phase; returns report.json as a dict."""
    import json

    from leaderboard_ci.cli import end_of_phase as cli

    code = cli.main(
        ["--reference", phase.ref, "--submissions", phase.submissions, "--out", out, "--no-progress"] + list(extra_args)
    )
    if code != 0:
        raise RuntimeError("end_of_phase exited with %d" % code)
    with open(os.path.join(out, "report.json"), encoding="utf-8") as handle:
        return json.load(handle)
