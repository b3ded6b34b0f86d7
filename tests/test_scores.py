"""The ``scores`` task: parity with scikit-learn on the full sample and on every replicate, DeLong, files.

Every metric is compared with scikit-learn's, with ``sample_weight`` = the resample
counts of ``replicate_indices(seed, n, 0, B)``, to 1e-12.  One-vs-one ROC-AUC takes
no sample weights in scikit-learn, so it is compared on the resampled data itself.
"""

import numpy as np
import pytest

sklearn_metrics = pytest.importorskip("sklearn.metrics")
from sklearn.preprocessing import label_binarize  # noqa: E402

from leaderboard_ci.core.replicates import compute_replicates  # noqa: E402
from leaderboard_ci.core.resampling import counts_from_indices, replicate_indices  # noqa: E402
from leaderboard_ci.scoring.config import parse_config  # noqa: E402
from leaderboard_ci.scoring.errors import ConfigError  # noqa: E402
from leaderboard_ci.tasks.shared.base import GoldStandard  # noqa: E402
from leaderboard_ci.tasks.shared.scorer import SystemScorer  # noqa: E402

SEED, B = 20261123, 40
TOL = 1e-12


def _metrics(names, extra=None):
    data = {"task": "scores", "metric": names[0], "extra_metrics": list(names[1:]) + list(extra or [])}
    return parse_config(data).metrics


def _scores(metrics, y, labels, pred, groups=None, group_values=None):
    gold = GoldStandard(
        values=np.asarray(y), labels=tuple(labels), groups=groups, group_values=group_values, task="scores"
    )
    scorer = SystemScorer(metrics, gold, pred)
    full = scorer.scores([acc.full()[None, :] for acc in scorer.accumulators])[0]
    reps = scorer.scores(compute_replicates(scorer.accumulators, len(y), SEED, B))
    counts = counts_from_indices(replicate_indices(SEED, len(y), 0, B), len(y))
    return scorer, full, reps, counts


def _binary_data(n=300, ties=True, seed=1):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.35).astype(np.intp)
    p = 1.0 / (1.0 + np.exp(-(rng.normal(size=n) + 1.2 * y)))
    if ties:
        p = np.round(p, 1)  # many tied scores
    return y, p


def _check(full, reps, counts, t, reference, full_weight=None):
    assert abs(full[t] - reference(full_weight)) <= TOL
    for r in range(B):
        assert abs(reps[r, t] - reference(counts[r])) <= TOL, r


@pytest.mark.parametrize("ties", [True, False])
def test_binary_metrics_equal_sklearn_on_every_replicate(ties):
    y, p = _binary_data(ties=ties)
    metrics = _metrics(
        ["roc_auc", "average_precision", "log_loss", "brier", "accuracy", "f1_macro", "mcc"],
        [{"name": "balanced_accuracy", "threshold": 0.3}],
    )
    _, full, reps, counts = _scores(metrics, y, ("neg", "pos"), p[:, None])
    m = sklearn_metrics
    refs = [
        lambda w: m.roc_auc_score(y, p, sample_weight=w),
        lambda w: m.average_precision_score(y, p, sample_weight=w),
        lambda w: m.log_loss(y, p, sample_weight=w),
        lambda w: m.brier_score_loss(y, p, sample_weight=w),
        lambda w: m.accuracy_score(y, (p > 0.5).astype(int), sample_weight=w),
        lambda w: m.f1_score(y, (p > 0.5).astype(int), average="macro", sample_weight=w),
        lambda w: m.matthews_corrcoef(y, (p > 0.5).astype(int), sample_weight=w),
        lambda w: m.balanced_accuracy_score(y, (p > 0.3).astype(int), sample_weight=w),
    ]
    for t, ref in enumerate(refs):
        _check(full, reps, counts, t, ref)


def test_binary_real_scores_and_pos_label():
    """Any real score for AUC/AP; pos_label picks the positive class (here the first label)."""
    y, p = _binary_data(ties=False)
    s = np.log(p / (1 - p)) * 3.0  # not probabilities
    data = {"task": "scores", "metric": "roc_auc", "extra_metrics": ["average_precision"], "pos_label": "a"}
    metrics = parse_config(data).metrics
    _, full, reps, counts = _scores(metrics, 1 - y, ("a", "b"), s[:, None])  # class "a" (code 0) is y == 1
    _check(full, reps, counts, 0, lambda w: sklearn_metrics.roc_auc_score(y, s, sample_weight=w))
    _check(full, reps, counts, 1, lambda w: sklearn_metrics.average_precision_score(y, s, sample_weight=w))


def _multi_data(n=400, k=4, seed=2, ties=True):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    logits = rng.normal(size=(n, k)) + 1.5 * np.eye(k)[y]
    if ties:
        logits = np.round(logits)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    return y, p


def test_multiclass_metrics_equal_sklearn_on_every_replicate():
    y, p = _multi_data()
    labels = ("ant", "bee", "cat", "dog")
    metrics = _metrics(
        [
            "roc_auc_ovr",
            "roc_auc_ovr_weighted",
            "average_precision_macro",
            "average_precision_weighted",
            "log_loss",
            "brier",
            "top_2_accuracy",
            "accuracy",
            "f1_macro",
            "cohen_kappa",
        ]
    )
    _, full, reps, counts = _scores(metrics, y, labels, p)
    m = sklearn_metrics
    onehot = label_binarize(y, classes=range(4))
    pred = np.argmax(p, axis=1)
    refs = [
        lambda w: m.roc_auc_score(y, p, multi_class="ovr", average="macro", sample_weight=w),
        lambda w: m.roc_auc_score(y, p, multi_class="ovr", average="weighted", sample_weight=w),
        lambda w: m.average_precision_score(onehot, p, average="macro", sample_weight=w),
        lambda w: m.average_precision_score(onehot, p, average="weighted", sample_weight=w),
        lambda w: m.log_loss(y, p, sample_weight=w),
        lambda w: m.brier_score_loss(y, p, sample_weight=w),
        lambda w: m.top_k_accuracy_score(y, p, k=2, sample_weight=w),
        lambda w: m.accuracy_score(y, pred, sample_weight=w),
        lambda w: m.f1_score(y, pred, average="macro", sample_weight=w),
        lambda w: m.cohen_kappa_score(y, pred, sample_weight=w),
    ]
    for t, ref in enumerate(refs):
        _check(full, reps, counts, t, ref)


def test_multiclass_ovo_equals_sklearn_on_resampled_data():
    y, p = _multi_data(k=3, ties=True)
    metrics = _metrics(["roc_auc_ovo"])
    _, full, reps, _ = _scores(metrics, y, ("x", "y", "z"), p)
    assert abs(full[0] - sklearn_metrics.roc_auc_score(y, p, multi_class="ovo")) <= TOL
    indices = replicate_indices(SEED, len(y), 0, B)
    for r in range(B):
        idx = indices[r]
        assert abs(reps[r, 0] - sklearn_metrics.roc_auc_score(y[idx], p[idx], multi_class="ovo")) <= TOL


def test_groups_equal_sklearn_on_the_group_items():
    y, p = _binary_data(n=400)
    rng = np.random.default_rng(5)
    groups = rng.integers(0, 2, size=y.size)
    metrics = _metrics(["roc_auc", "log_loss"])
    scorer, full, reps, counts = _scores(metrics, y, ("0", "1"), p, groups=groups, group_values=("g1", "g2"))
    assert [t.group for t in scorer.targets] == [None, "g1", "g2", None, "g1", "g2"]
    for j in (0, 1):
        mask = groups == j
        _check(
            full, reps, counts * mask, 1 + j, lambda w: sklearn_metrics.roc_auc_score(y, p, sample_weight=w), mask * 1.0
        )
        _check(full, reps, counts * mask, 4 + j, lambda w: sklearn_metrics.log_loss(y, p, sample_weight=w), mask * 1.0)


def test_auc_jackknife_is_exact_and_bounded():
    from leaderboard_ci.core.accumulators import _FromCounts
    from leaderboard_ci.tasks.scores.curves import BinaryCurve

    y, p = _binary_data(n=200)
    auc_only = BinaryCurve(p, y == 1, with_ap=False)
    items = np.arange(200)
    weights = 1.0 - np.eye(200)
    assert np.array_equal(auc_only.jackknife_stats(items), auc_only._from_weights(weights))
    with_ap = BinaryCurve(p, y == 1)
    assert np.allclose(with_ap.jackknife_stats(items), with_ap._from_weights(weights), rtol=0, atol=1e-9)
    big = BinaryCurve(np.arange(_FromCounts.JACKKNIFE_LIMIT + 1.0), np.arange(_FromCounts.JACKKNIFE_LIMIT + 1) % 2 == 0)
    with pytest.raises(ValueError, match="jackknife"):
        big.jackknife_stats(np.arange(3))


def test_block_and_weights_paths_agree():
    from leaderboard_ci.tasks.scores.curves import BinaryCurve

    y, p = _binary_data(n=250)
    acc = BinaryCurve(p[50:], y[50:] == 1, n_total=250, items=np.arange(50, 250))
    indices = replicate_indices(3, 250, 0, 30)
    assert np.array_equal(acc.block(indices), acc._from_weights(counts_from_indices(indices, 250)[:, 50:]))


def test_block_size_and_threads_change_no_bit():
    y, p = _binary_data(n=300)
    metrics = _metrics(["roc_auc", "average_precision"])
    gold = GoldStandard(values=y, labels=("0", "1"), task="scores")
    scorer = SystemScorer(metrics, gold, p[:, None])
    runs = [
        scorer.scores(compute_replicates(scorer.accumulators, y.size, SEED, 50, n_jobs=jobs, block_rows=rows))
        for jobs, rows in ((1, 1), (1, 7), (2, 50), (2, 3))
    ]
    for other in runs[1:]:
        assert other.tobytes() == runs[0].tobytes()


# ---------------------------------------------------------------------------
# ROC-AUC alone: the prefix-sum path (item-major counts shared by the curves of a block)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("ties", [True, False])
def test_auc_alone_equals_sklearn_on_every_replicate(ties):
    """Without average precision ROC-AUC takes the prefix-sum path: still scikit-learn's value."""
    y, p = _binary_data(ties=ties)
    metrics = _metrics(["roc_auc", "log_loss"])
    scorer, full, reps, counts = _scores(metrics, y, ("neg", "pos"), p[:, None])
    assert not any(getattr(acc, "with_ap", True) for acc in scorer.accumulators if hasattr(acc, "with_ap")) and any(
        hasattr(acc, "with_ap") for acc in scorer.accumulators
    )
    _check(full, reps, counts, 0, lambda w: sklearn_metrics.roc_auc_score(y, p, sample_weight=w))


def test_multiclass_auc_alone_equals_sklearn_on_every_replicate():
    y, p = _multi_data()
    metrics = _metrics(["roc_auc_ovr", "roc_auc_ovr_weighted"])
    _, full, reps, counts = _scores(metrics, y, ("ant", "bee", "cat", "dog"), p)
    _check(
        full,
        reps,
        counts,
        0,
        lambda w: sklearn_metrics.roc_auc_score(y, p, multi_class="ovr", average="macro", sample_weight=w),
    )
    _check(
        full,
        reps,
        counts,
        1,
        lambda w: sklearn_metrics.roc_auc_score(y, p, multi_class="ovr", average="weighted", sample_weight=w),
    )


def _curve_cases():
    rng = np.random.default_rng(11)
    n = 240
    cases = []
    for name, scores in (
        ("continuous", rng.normal(size=n)),
        ("ties", np.round(rng.normal(size=n))),
        ("constant", np.zeros(n)),
    ):
        positive = rng.random(n) < 0.4
        cases.append((name, scores, positive, None))
        sub = np.sort(rng.choice(n, size=90, replace=False))
        cases.append((name + "-subset", scores[sub], positive[sub], sub))
    cases.append(("no-positive", rng.normal(size=n), np.zeros(n, dtype=bool), None))
    cases.append(("no-negative", rng.normal(size=n), np.ones(n, dtype=bool), None))
    cases.append(("one-item", np.array([0.3]), np.array([True]), np.array([17])))
    return n, cases


@pytest.mark.parametrize("rows", [1, 2, 5, 13, 64, 200])
def test_auc_prefix_path_equals_the_cell_path_bit_for_bit(rows):
    """Both block paths give the same integers (P, Q, 2U), whatever the chunk length the block size picks."""
    from leaderboard_ci.core.accumulators import block_counts_factory
    from leaderboard_ci.tasks.scores.curves import BinaryCurve

    n, cases = _curve_cases()
    indices = replicate_indices(SEED, n, 0, rows)
    counts = block_counts_factory(indices, n)
    for name, scores, positive, items in cases:
        curve = BinaryCurve(scores, positive, n_total=n, items=items, with_ap=False)
        fast = curve.block(indices, counts)
        assert fast.tobytes() == curve._cell_block(indices).tobytes(), name
        assert np.array_equal(fast, curve._from_weights(curve._subset(counts()))), name


def test_auc_prefix_path_int64_products_beyond_92681_items():
    """Past 92,681 items a product sum may exceed int32: the int64 path gives the cell path's integers."""
    from leaderboard_ci.core.accumulators import block_counts_factory
    from leaderboard_ci.tasks.scores.curves import _INT32_PRODUCTS, BinaryCurve

    n = _INT32_PRODUCTS + 1
    rng = np.random.default_rng(3)
    items = np.sort(rng.choice(n, size=500, replace=False))
    scores = np.round(rng.uniform(0.1, 0.9, size=items.size), 1)
    positive = rng.random(items.size) < 0.5
    scores[0], positive[0] = 1.0, True  # the top positive ...
    scores[1], positive[1] = 0.0, False  # ... above the bottom negative
    curve = BinaryCurve(scores, positive, n_total=n, items=items, with_ap=False)
    # row 0: half the draws on each of them, so U = 46,341**2 > 2**31; row 1: the usual draws
    indices = np.stack([np.where(np.arange(n) % 2 == 0, items[0], items[1]), replicate_indices(SEED, n, 0, 1)[0]])
    counts = block_counts_factory(indices, n)
    fast = curve.block(indices, counts)
    assert fast[0, 2] == (n // 2) * (n - n // 2) > 2**31
    assert fast.tobytes() == curve._cell_block(indices).tobytes()


def test_auc_shared_counts_follow_the_block():
    """Curves of one thread share the block's item-major counts; a new block (even a matrix refilled
    in place) is transposed again, so no curve reads another block's counts."""
    from leaderboard_ci.tasks.scores.curves import BinaryCurve

    n, cases = _curve_cases()
    curves = [BinaryCurve(s, pos, n_total=n, items=it, with_ap=False) for _, s, pos, it in cases]
    first = counts_from_indices(replicate_indices(SEED, n, 0, 6), n)
    second = counts_from_indices(replicate_indices(SEED, n, 6, 12), n)
    expected = [[c._from_weights(c._subset(m)) for m in (first, second)] for c in curves]
    matrix = first.copy()
    for c, e in zip(curves, expected):
        assert np.array_equal(c.block(None, lambda: matrix), e[0])
    matrix[:] = second  # the same object, new values
    for c, e in zip(curves, expected):
        assert np.array_equal(c.block(None, lambda: matrix), e[1])
    for c, e in zip(curves[::-1], expected[::-1]):  # a fresh matrix, curves in another order
        assert np.array_equal(c.block(None, lambda: first), e[0])


def test_paired_engine_auc_equals_each_system_alone():
    """End of phase: many systems' ROC-AUC on shared resamples equals each system's own replicates."""
    from leaderboard_ci.core.systems import PairedPlan, paired_scores

    y, p = _binary_data(n=500, ties=True)
    rng = np.random.default_rng(8)
    preds = [np.clip(p + rng.normal(0, 0.2 * j, p.size), 0, 1).round(2) for j in range(6)]
    metrics = _metrics(["roc_auc"])
    gold = GoldStandard(values=y, labels=("0", "1"), task="scores")
    scorers = [SystemScorer(metrics, gold, q[:, None], layout="reduced") for q in preds]
    plan = PairedPlan(scorers, y.size, SEED, ["s%d" % j for j in range(6)])
    together = [paired_scores(plan, 70, n_jobs=jobs).replicates for jobs in (1, 2)]
    assert together[0].tobytes() == together[1].tobytes()
    assert together[0].tobytes() == plan.scores_for_span(0, 70, block_rows=9).tobytes()
    for j, scorer in enumerate(scorers):
        alone = scorer.scores(compute_replicates(scorer.accumulators, y.size, SEED, 70))
        assert alone.tobytes() == together[0][:, j, :].tobytes()
        for r in (0, 33, 69):
            w = counts_from_indices(replicate_indices(SEED, y.size, r, r + 1), y.size)[0]
            assert abs(together[0][r, j, 0] - sklearn_metrics.roc_auc_score(y, preds[j], sample_weight=w)) <= TOL


def test_a_named_multi_class_keeps_its_name_in_the_key():
    """roc_auc_ovr writes its score under roc_auc_ovr, as roc_auc_ovo and roc_auc_ovr_weighted do."""
    from leaderboard_ci.scoring.config import parse_config

    keys = [
        m.key
        for m in parse_config(
            {
                "task": "scores",
                "metric": "roc_auc_ovr",
                "extra_metrics": ["roc_auc_ovo", "roc_auc_ovr_weighted", {"name": "roc_auc", "key": "auc_plain"}],
            }
        ).metrics
    ]
    assert keys == ["roc_auc_ovr", "roc_auc_ovo", "roc_auc_ovr_weighted", "auc_plain"]
    assert parse_config({"task": "scores", "metric": "roc_auc"}).metrics[0].key == "roc_auc"
    explicit = parse_config({"task": "scores", "metric": {"name": "roc_auc", "multi_class": "ovr"}})
    assert explicit.metrics[0].key == "roc_auc_ovr"


def test_positive_when_at_or_above_counts_a_score_at_the_threshold_as_positive():
    """Scores rounded to 0.1 put many items exactly at 0.5 and 0.3: '>' and '>=' differ, each equals scikit-learn's."""
    y, p = _binary_data()
    assert np.sum(p == 0.5) > 10 and np.sum(p == 0.3) > 10
    metrics = _metrics(
        ["accuracy"],
        [
            {"name": "accuracy", "positive_when": "at_or_above", "key": "acc_ge"},
            {"name": "f1_binary", "pos_label": "1", "threshold": 0.3, "positive_when": "at_or_above", "key": "f1_ge"},
            {"name": "f1_binary", "pos_label": "1", "threshold": 0.3, "key": "f1_gt"},
        ],
    )
    _, full, reps, counts = _scores(metrics, y, ("0", "1"), p)
    cases = [(0, p > 0.5, "accuracy"), (1, p >= 0.5, "accuracy"), (2, p >= 0.3, "f1"), (3, p > 0.3, "f1")]
    for t, positive, metric in cases:
        predicted = positive.astype(int)
        score = sklearn_metrics.accuracy_score if metric == "accuracy" else sklearn_metrics.f1_score
        _check(full, reps, counts, t, lambda w, predicted=predicted, score=score: score(y, predicted, sample_weight=w))
    assert full[0] != full[1] and full[2] != full[3]
    with pytest.raises(ConfigError, match="positive_when must be above or at_or_above"):
        _metrics(["accuracy"], [{"name": "accuracy", "positive_when": "below", "key": "x"}])
    with pytest.raises(ConfigError, match="positive_when"):
        _metrics(["roc_auc"], [{"name": "log_loss", "positive_when": "at_or_above"}])
