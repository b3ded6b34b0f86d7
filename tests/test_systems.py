"""The paired engine equals the per-submission program system by system, bit for bit."""

import numpy as np
import pytest

from leaderboard_ci.phase.analysis.systems import build_plan as PairedPlan
from leaderboard_ci.phase.analysis.systems import score_systems
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.tasks.shared.scorer import GoldStandard


def _classification(n=400, m=5, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, n)
    groups = rng.integers(0, 3, n)
    preds = [np.where(rng.random(n) < q, y, rng.integers(0, 4, n)) for q in np.linspace(0.4, 0.9, m)]
    gold = GoldStandard(values=y, labels=tuple("abcd"), groups=groups, group_values=("u", "v", "w"))
    return gold, preds


@pytest.mark.parametrize("method", ["percentile", "bca"])
@pytest.mark.parametrize("n_jobs", [1, 3])
def test_classification_scores_equal_evaluate(method, n_jobs):
    gold, preds = _classification()
    cfg = parse_config(
        {
            "metric": "f1_macro",
            "extra_metrics": ["accuracy", "mcc", "qwk", "f1_weighted"],
            "groups": "g",
            "bootstrap": {"n_resamples": 250, "method": method},
        }
    )
    scores = score_systems(cfg, gold, preds, ["s%d" % j for j in range(len(preds))], n_jobs=n_jobs)
    for j, p in enumerate(preds):
        single = evaluate(cfg, gold, p)
        for t, s in enumerate(single.scores):
            assert s.score == scores.full[j, t]
            assert s.replicates.tobytes() == scores.replicates[:, j, t].tobytes()
        if method == "bca":
            jk_scores, jk_weights, inverse = scores.jackknife[j]
            assert jk_weights.sum() == gold.n and inverse.shape == (gold.n,)


def test_regression_scores_equal_evaluate():
    from sklearn.datasets import load_diabetes
    from sklearn.linear_model import Ridge
    from sklearn.neighbors import KNeighborsRegressor

    x, y = load_diabetes(return_X_y=True)
    preds = [
        Ridge().fit(x[:250], y[:250]).predict(x),
        KNeighborsRegressor().fit(x[:250], y[:250]).predict(x),
        np.full_like(y, y[:250].mean()),
    ]
    groups = (x[:, 1] > 0).astype(int)
    gold = GoldStandard(values=y, groups=groups, group_values=("f", "m"))
    cfg = parse_config(
        {
            "metric": "mae",
            "extra_metrics": ["rmse", "r2", "pearson", "spearman"],
            "groups": "sex",
            "bootstrap": {"n_resamples": 120},
        }
    )
    scores = score_systems(cfg, gold, preds, ["ridge", "knn", "mean"], n_jobs=2)
    for j, p in enumerate(preds):
        for t, s in enumerate(evaluate(cfg, gold, p).scores):
            assert s.score == scores.full[j, t]
            assert s.replicates.tobytes() == scores.replicates[:, j, t].tobytes()


def test_identical_systems_share_stacked_columns():
    gold, preds = _classification(m=2)
    cfg = parse_config({"metric": "f1_macro", "bootstrap": {"n_resamples": 10}})
    plan = PairedPlan(cfg, gold, [preds[0], preds[0].copy(), preds[1]], ["a", "b", "c"])
    counts_stack = plan._stacks[0]
    # The gold counts (same for every system) and the two identical systems are stored once.
    distinct = {(n_codes, index) for _, n_codes, index in counts_stack.coded}
    assert len(distinct) == 3  # gold + system a (= b) + system c
    reps = plan.scores_for_span(0, 10)
    np.testing.assert_array_equal(reps[:, 0], reps[:, 1])


def test_a_span_alone_equals_the_same_rows_of_the_whole():
    gold, preds = _classification(n=150)
    cfg = parse_config({"metric": "accuracy", "bootstrap": {"n_resamples": 90}})
    plan = PairedPlan(cfg, gold, preds, list("abcde"))
    whole = plan.scores_for_span(0, 90)
    np.testing.assert_array_equal(plan.scores_for_span(37, 61), whole[37:61])
    np.testing.assert_array_equal(plan.scores_for_span(0, 90, block_rows=7), whole)


def test_custom_executor_gets_spans_and_gives_the_same_result():
    gold, preds = _classification(n=120)
    cfg = parse_config({"metric": "f1_macro", "bootstrap": {"n_resamples": 100}})
    seen = []

    def executor(plan, spans):
        seen.extend(spans)
        return [plan.scores_for_span(a, b) for a, b in spans]

    a = score_systems(cfg, gold, preds, list("abcde"), executor=executor)
    b = score_systems(cfg, gold, preds, list("abcde"))
    assert seen and seen[0][0] == 0 and seen[-1][1] == 100
    assert a.replicates.tobytes() == b.replicates.tobytes()
