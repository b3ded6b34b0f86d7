"""Multi-label task: parity with scikit-learn on the full sample and on every replicate of a block.

Every metric is compared with scikit-learn's on the label-indicator matrices, with
``sample_weight`` = the resample counts of ``replicate_indices(seed, n, 0, B)``, to 1e-12:
``precision_recall_fscore_support`` / ``f1_score`` / ``jaccard_score`` (micro, macro,
weighted, samples; a labels subset; zero_division 0 and 1), ``hamming_loss`` and
``accuracy_score``; the coarse level against scikit-learn on coarse matrices built here
independently; groups against scikit-learn with the weights of the other items set to 0.
"""

import numpy as np
import pytest

from leaderboard_ci.core.accumulators import IndicatorSums
from leaderboard_ci.core.replicates import compute_replicates
from leaderboard_ci.core.resampling import counts_from_indices, replicate_indices
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.tasks.shared.base import GoldStandard
from leaderboard_ci.tasks.shared.scorer import SystemScorer

metrics = pytest.importorskip("sklearn.metrics")

SEED = 20260
B = 48
LABELS = ("a", "b", "c", "d", "e", "f")
HIERARCHY = {"a": "X", "b": "X", "c": "Y", "d": "Y", "e": "Z", "f": "Z"}


def _data(n=150, seed=3):
    """Gold and predictions with empty rows, a rare label and a label that is never predicted."""
    rng = np.random.default_rng(seed)
    p_gold = np.array([0.4, 0.3, 0.2, 0.1, 0.02, 0.25])
    y = (rng.random((n, len(LABELS))) < p_gold).astype(np.uint8)
    y[:5] = 0  # items with no gold label
    flip = rng.random(y.shape) < 0.2
    p = np.where(flip, 1 - y, y).astype(np.uint8)
    p[:, 4] = 0  # never predicted: precision 0/0 for label e
    p[5:8] = 0  # items with no predicted label
    p[8] = y[8]
    return y, p


def _sklearn(spec, y, p, w, zero_division):
    """The reference value of ``spec`` with weights ``w``."""
    kw = dict(sample_weight=w)
    name = spec.name
    if name == "hamming_loss":
        return metrics.hamming_loss(y, p, **kw)
    if name == "subset_accuracy":
        return metrics.accuracy_score(y, p, **kw)
    labels = None
    if spec.labels is not None:
        names = LABELS if spec.option("level", "fine") == "fine" else tuple(dict.fromkeys(HIERARCHY.values()))
        labels = [names.index(x) for x in spec.labels]
    if name == "jaccard":
        return metrics.jaccard_score(y, p, average=spec.average, labels=labels, zero_division=zero_division, **kw)
    prf = metrics.precision_recall_fscore_support(
        y, p, average=spec.average, labels=labels, zero_division=zero_division, **kw
    )
    return prf[("precision", "recall", "f1").index(name)]


def _coarse(m):
    coarse = tuple(dict.fromkeys(HIERARCHY.values()))
    out = np.zeros((m.shape[0], len(coarse)), dtype=np.uint8)
    for k, label in enumerate(LABELS):
        out[:, coarse.index(HIERARCHY[label])] |= m[:, k]
    return out


METRIC_NAMES = [
    "%s_%s" % (base, avg)
    for base in ("precision", "recall", "f1", "jaccard")
    for avg in ("micro", "macro", "weighted", "samples")
] + ["hamming_loss", "subset_accuracy"]


def _config(zero_division, extra=()):
    entries = (
        METRIC_NAMES[1:]
        + ["coarse_" + m for m in METRIC_NAMES]
        + [
            {"name": "f1", "average": "macro", "labels": ["b", "e"], "key": "f1_be"},
            {"name": "precision", "average": "weighted", "labels": ["e", "f"], "key": "p_ef"},
            {"name": "jaccard", "average": "micro", "labels": ["a", "e"], "key": "j_ae"},
            {"name": "recall", "average": "macro", "level": "coarse", "labels": ["Z"], "key": "r_z"},
        ]
        + list(extra)
    )
    return parse_config(
        {
            "task": "multilabel",
            "metric": METRIC_NAMES[0],
            "extra_metrics": entries,
            "labels": list(LABELS),
            "hierarchy": HIERARCHY,
            "zero_division": zero_division,
            "bootstrap": {"n_resamples": B, "seed": SEED},
        }
    )


def _gold(y, config, groups=None):
    group_values = None
    if groups is not None:
        group_values = tuple(sorted(set(groups)))
        groups = np.array([group_values.index(g) for g in groups], dtype=np.intp)
    return GoldStandard(
        values=y,
        labels=LABELS,
        ids=None,
        groups=groups,
        group_values=group_values,
        task="multilabel",
        settings=config.task_settings,
    )


def _scores(config, gold, p):
    scorer = SystemScorer(config.metrics, gold, p)
    full = scorer.scores([a.full()[None, :] for a in scorer.accumulators])[0]
    reps = scorer.scores(compute_replicates(scorer.accumulators, gold.n, SEED, B))
    return scorer, full, reps


@pytest.mark.parametrize("zero_division", [0, pytest.param(1, marks=pytest.mark.slow)])  # 0 stays in the default run
def test_every_metric_equals_sklearn_on_full_sample_and_replicates(zero_division):
    y, p = _data()
    config = _config(zero_division)
    gold = _gold(y, config)
    scorer, full, reps = _scores(config, gold, p)
    counts = counts_from_indices(replicate_indices(SEED, gold.n, 0, B), gold.n)
    checked = 0
    for t, target in enumerate(scorer.targets):
        spec = target.metric
        coarse = spec.option("level", "fine") == "coarse"
        yy, pp = (_coarse(y), _coarse(p)) if coarse else (y, p)
        expected = _sklearn(spec, yy, pp, None, zero_division)
        assert full[t] == pytest.approx(expected, abs=1e-12), spec.key
        for r in range(B):
            assert reps[r, t] == pytest.approx(_sklearn(spec, yy, pp, counts[r], zero_division), abs=1e-12), (
                spec.key,
                r,
            )
            checked += 1
    assert checked == B * len(scorer.targets)


def test_groups_equal_sklearn_with_the_other_items_weighted_zero():
    y, p = _data(n=120, seed=5)
    config = _config(0)
    groups = ["g%d" % (i % 3) for i in range(y.shape[0])]
    gold = _gold(y, config, groups)
    scorer, full, reps = _scores(config, gold, p)
    counts = counts_from_indices(replicate_indices(SEED, gold.n, 0, B), gold.n)
    codes = np.asarray(gold.groups)
    for t, target in enumerate(scorer.targets):
        if target.group is None:
            continue
        spec = target.metric
        mask = codes == gold.group_values.index(target.group)
        yy, pp = (_coarse(y), _coarse(p)) if spec.option("level", "fine") == "coarse" else (y, p)
        assert full[t] == pytest.approx(_sklearn(spec, yy[mask], pp[mask], None, 0), abs=1e-12)
        for r in range(0, B, 7):
            w = counts[r] * mask
            assert reps[r, t] == pytest.approx(_sklearn(spec, yy, pp, w, 0), abs=1e-12), (spec.key, target.group, r)


def test_weighted_average_with_no_support_is_the_plain_mean():
    # Labels e and f have no gold item here: scikit-learn averages their zero_division values plainly.
    y, p = _data(n=60, seed=8)
    y[:, 4:] = 0
    config = _config(1)
    gold = _gold(y, config)
    scorer, full, _ = _scores(config, gold, p)
    t = [x.metric.key for x in scorer.targets].index("p_ef")
    assert full[t] == pytest.approx(
        metrics.precision_score(y, p, average="weighted", labels=[4, 5], zero_division=1), abs=1e-12
    )


def test_indicator_sums_match_a_naive_loop_and_stack_exactly():
    rng = np.random.default_rng(1)
    values = (rng.random((40, 7)) < 0.3).astype(np.uint8)
    acc = IndicatorSums(values)
    idx = replicate_indices(7, 40, 0, 20)
    counts = counts_from_indices(idx, 40)
    block = acc.block(idx, lambda: counts)
    naive = np.array([values[row].sum(axis=0) for row in idx])
    assert block.dtype == np.int64 and np.array_equal(block, naive)
    assert np.array_equal(acc.from_linear(counts.astype(np.float32) @ acc.linear_matrix(np.float32)), naive)
    left_out = acc.jackknife_stats(np.arange(40))
    assert np.array_equal(left_out, values.sum(axis=0)[None, :] - values)
    with pytest.raises(ValueError):
        IndicatorSums(np.full((3, 2), 2))


def test_names_keys_and_directions():
    config = _config(0)
    by_key = dict((m.key, m) for m in config.metrics)
    assert by_key["hamming_loss"].direction == "lower"
    assert by_key["coarse_jaccard_samples"].option("level") == "coarse"
    assert by_key["f1_macro"].task == "multilabel"
    assert all(len(m.key) <= 36 for m in config.metrics)
    alias = parse_config({"task": "multilabel", "metric": "exact_match", "extra_metrics": ["macro_f1", "hamming"]})
    assert [m.key for m in alias.metrics] == ["subset_accuracy", "f1_macro", "hamming_loss"]
    # Without task:, names only this task has select it.
    assert parse_config({"metric": "jaccard_samples"}).kind == "multilabel"


@pytest.mark.parametrize(
    "data, message",
    [
        ({"metric": "coarse_f1_macro"}, "needs hierarchy"),
        ({"metric": "f1_macro", "hierarchy": {"a": "X"}, "labels": ["a", "b"]}, "no coarse label for 'b'"),
        ({"metric": "f1_macro", "hierarchy": {"a": "X", "q": "X"}, "labels": ["a"] * 1 + ["b"]}, "maps 'q'"),
        ({"metric": {"name": "f1", "average": "samples", "labels": ["a"]}}, "labels subset"),
        ({"metric": "f1_binary"}, "unknown metric"),
        ({"metric": "f1_macro", "label_separator": ""}, "label_separator"),
        ({"metric": {"name": "f1", "average": "macro", "level": "middle"}}, "level must be one of"),
        (
            {
                "metric": {"name": "recall", "average": "macro", "level": "coarse", "labels": ["Q"]},
                "hierarchy": {"a": "X"},
            },
            "not a coarse label",
        ),
    ],
)
def test_config_mistakes_are_one_sentence(data, message):
    from leaderboard_ci.scoring.errors import ConfigError

    with pytest.raises(ConfigError, match=message):
        parse_config(dict({"task": "multilabel"}, **data))


def test_end_of_phase_stacking_equals_the_per_submission_replicates_bit_for_bit():
    from leaderboard_ci.phase.analysis.systems import score_systems

    y, p = _data(n=90, seed=11)
    rng = np.random.default_rng(2)
    q = np.where(rng.random(p.shape) < 0.1, 1 - p, p).astype(np.uint8)
    config = parse_config(
        {
            "task": "multilabel",
            "metric": "f1_macro",
            "extra_metrics": ["f1_samples", "hamming_loss", "coarse_jaccard_samples"],
            "labels": list(LABELS),
            "hierarchy": HIERARCHY,
            "bootstrap": {"n_resamples": B, "seed": SEED},
        }
    )
    gold = _gold(y, config)
    stacked = score_systems(config, gold, [p, q], ["p", "q"])
    for j, system in enumerate((p, q)):
        _, full, reps = _scores(config, gold, system)
        assert np.array_equal(stacked.full[j], full)
        assert np.array_equal(stacked.replicates[:, j, :], reps)


def test_permutation_test_runs_and_a_system_against_itself_gets_p_1():
    from leaderboard_ci.phase.analysis import analyze

    y, p = _data(n=80, seed=12)
    config = parse_config(
        {
            "task": "multilabel",
            "metric": "f1_macro",
            "extra_metrics": ["jaccard_samples"],
            "labels": list(LABELS),
            "bootstrap": {"n_resamples": 200, "seed": SEED},
            "analysis": {"test": "permutation", "n_permutations": 200},
        }
    )
    gold = _gold(y, config)
    rng = np.random.default_rng(4)
    other = np.where(rng.random(p.shape) < 0.3, 1 - p, p).astype(np.uint8)
    result = analyze(gold, {"a": p, "b": p.copy(), "c": other}, config=config)
    pairs = result.official.pairs
    same = pairs[((pairs["a"] == "a") & (pairs["b"] == "b")) | ((pairs["a"] == "b") & (pairs["b"] == "a"))]
    assert len(same) == 1 and float(same["p_value"].iloc[0]) == 1.0
    assert ((pairs["p_value"] > 0) & (pairs["p_value"] <= 1)).all()


def test_analyze_takes_label_lists():
    from leaderboard_ci.phase.analysis import analyze

    gold = [["a", "b"], [], ["c"], ["a"], ["b", "c"], ["a", "c"]] * 5
    systems = {"s1": [["a"], [], ["c"], ["a"], ["b"], ["a", "c"]] * 5, "s2": ["a|b", "", "b", "a", "b|c", "c"] * 5}
    config = parse_config({"task": "multilabel", "metric": "f1_micro", "bootstrap": {"n_resamples": 100}})
    result = analyze(gold, systems, config=config)
    table = result.official.systems.set_index("name")
    y = np.array([[1, 1, 0], [0, 0, 0], [0, 0, 1], [1, 0, 0], [0, 1, 1], [1, 0, 1]] * 5)
    s2 = np.array([[1, 1, 0], [0, 0, 0], [0, 1, 0], [1, 0, 0], [0, 1, 1], [0, 0, 1]] * 5)
    assert table.loc["s2", "score"] == pytest.approx(metrics.f1_score(y, s2, average="micro"), abs=1e-12)
    with pytest.raises(ValueError, match="not one of the labels"):
        analyze(gold, {"bad": [["z"]] * 30}, config=config)
