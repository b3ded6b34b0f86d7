"""evaluate(): scores, intervals, the baseline comparison, custom metrics and determinism."""

import json
import textwrap

import numpy as np
import pytest

from leaderboard_ci.core.intervals import confidence_interval
from leaderboard_ci.core.resampling import replicate_indices
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.tasks.shared.scorer import GoldStandard


@pytest.fixture(scope="module")
def digits_task():
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.naive_bayes import GaussianNB

    x, y = load_digits(return_X_y=True)
    xtr, xte, ytr, yte = train_test_split(x, y, test_size=0.3, random_state=0, stratify=y)
    strong = LogisticRegression(max_iter=2000).fit(xtr, ytr).predict(xte)
    weak = GaussianNB().fit(xtr, ytr).predict(xte)
    labels = tuple(str(k) for k in range(10))
    return GoldStandard(values=yte, labels=labels, sha256="f" * 64), strong, weak


def _config(**bootstrap):
    return parse_config(
        {
            "metric": "f1_macro",
            "extra_metrics": ["accuracy"],
            "labels": [str(k) for k in range(10)],
            "baseline": {"file": "b.csv", "name": "weak"},
            "bootstrap": dict({"n_resamples": 1000, "seed": 3}, **bootstrap),
        }
    )


def test_baseline_comparison_is_paired_and_oriented(digits_task):
    gold, strong, weak = digits_task
    result = evaluate(_config(), gold, strong, baseline=weak)
    for s, b in zip(result.scores, result.baseline):
        assert b.key == s.key + "_vs_base"
        assert b.difference == pytest.approx(s.score - b.baseline_score, abs=1e-15)
        assert b.difference > 0  # logistic regression beats naive Bayes on digits
        # the one-sided p-value is the inversion of the interval shown beside it
        assert b.p_value == b.interval.p_greater
        assert (b.interval.low > 0) == (b.p_value < 0.025)
        assert 0 < b.p_value < 0.01
    # Paired: the difference replicates are the per-replicate differences of the two systems.
    alone = evaluate(_config(), gold, weak)
    np.testing.assert_array_equal(
        result.baseline[0].replicates, result.scores[0].replicates - alone.scores[0].replicates
    )


def test_identical_baseline_gets_p_one_and_a_zero_interval(digits_task):
    gold, strong, _ = digits_task
    result = evaluate(_config(), gold, strong, baseline=strong.copy())
    for b in result.baseline:
        assert b.difference == 0.0 and b.p_value == 1.0
        assert (b.interval.low, b.interval.high) == (0.0, 0.0)


def test_lower_is_better_metrics_are_oriented_too():
    from sklearn.datasets import load_diabetes

    x, y = load_diabetes(return_X_y=True)
    good, bad = y + 10 * x[:, 0], np.full_like(y, y.mean())
    cfg = parse_config({"metric": "mae", "baseline": "b.csv", "bootstrap": {"n_resamples": 500}})
    b = evaluate(cfg, GoldStandard(values=y), good, baseline=bad).baseline[0]
    assert b.difference > 0  # lower MAE than the baseline reads as a positive gain
    assert b.p_value < 0.01


def test_leaderboard_scores_order_and_keys(digits_task):
    gold, strong, weak = digits_task
    scores = evaluate(_config(), gold, strong, baseline=weak).leaderboard_scores()
    assert list(scores)[:6] == [
        "f1_macro",
        "f1_macro_ci_low",
        "f1_macro_ci_high",
        "accuracy",
        "accuracy_ci_low",
        "accuracy_ci_high",
    ]
    assert {"f1_macro_vs_base", "f1_macro_vs_base_ci_low", "f1_macro_vs_base_ci_high", "f1_macro_vs_base_p"} <= set(
        scores
    )
    assert all(len(k) <= 36 and np.isfinite(v) for k, v in scores.items())
    json.dumps(scores, allow_nan=False)


def test_same_inputs_same_bytes_any_threads(digits_task):
    gold, strong, weak = digits_task
    a = evaluate(_config(n_jobs=1), gold, strong, baseline=weak).leaderboard_scores()
    b = evaluate(_config(n_jobs=4), gold, strong, baseline=weak).leaderboard_scores()
    assert json.dumps(a) == json.dumps(b)


def test_interval_is_the_percentile_of_the_replicates(digits_task):
    gold, strong, _ = digits_task
    s = evaluate(_config(), gold, strong).official
    ref = confidence_interval("percentile", s.replicates, s.score, 0.95)
    assert (s.interval.low, s.interval.high) == (ref.low, ref.high)
    assert s.interval.low < s.score < s.interval.high


def test_per_class_rows(digits_task):
    from sklearn.metrics import precision_recall_fscore_support

    gold, strong, _ = digits_task
    result = evaluate(_config(), gold, strong)
    p, r, f, _ = precision_recall_fscore_support(gold.values, strong, labels=list(range(10)), zero_division=0)
    for k, row in enumerate(result.per_class):
        assert (row.precision, row.recall, row.f1) == pytest.approx((p[k], r[k], f[k]), abs=1e-12)
        assert row.predicted == int((strong == k).sum())
        assert row.f1_interval.low <= row.f1 <= row.f1_interval.high


CUSTOM = textwrap.dedent("""
    import numpy as np
    KIND = "classification"
    DIRECTION = "higher"
    NAME = "weighted-by-counts macro-F1"
    BEST = 1.0
    def score(y_true, y_pred, weights):
        labels = sorted(set(y_true.tolist()))
        f1 = []
        for k in labels:
            t, p = (y_true == k), (y_pred == k)
            tp = (weights * (t & p)).sum(axis=1)
            den = (weights * t).sum(axis=1) + (weights * p).sum(axis=1)
            f1.append(np.where(den == 0, 0.0, 2.0 * tp / np.where(den == 0, 1, den)))
        return np.mean(f1, axis=0)
""")


def test_custom_metric_on_resample_counts_equals_the_builtin(tmp_path, digits_task):
    gold, strong, _ = digits_task
    (tmp_path / "my_f1.py").write_text(CUSTOM)
    labels = [str(k) for k in range(10)]
    cfg = parse_config(
        {
            "metric": "f1_macro",
            "extra_metrics": [{"custom": "my_f1.py"}],
            "labels": labels,
            "bootstrap": {"n_resamples": 300, "method": "bca"},
        },
        program_dir=str(tmp_path),
    )
    builtin, custom = evaluate(cfg, gold, strong).scores
    assert custom.key == "my_f1" and custom.metric.title == "weighted-by-counts macro-F1"
    assert custom.score == pytest.approx(builtin.score, abs=1e-12)
    np.testing.assert_allclose(custom.replicates, builtin.replicates, atol=1e-12)
    assert custom.interval.low == pytest.approx(builtin.interval.low, abs=1e-12)


def test_bca_runs_for_every_kind(digits_task):
    gold, strong, weak = digits_task
    result = evaluate(_config(method="bca"), gold, strong, baseline=weak)
    for s in result.scores:
        assert s.interval.method == "bca" and s.interval.low < s.score < s.interval.high
    assert result.baseline[0].interval.low > 0


def test_signature_names_what_determines_the_numbers(digits_task):
    gold, strong, _ = digits_task
    sig = str(evaluate(_config(), gold, strong).signature)
    assert sig.startswith("metric:f1_macro|B:1000|seed:3|ci:percentile|level:0.95|n:540|gold:-|version:")


def test_replicates_use_the_documented_resamples(digits_task):
    gold, strong, _ = digits_task
    s = evaluate(_config(), gold, strong).scores[1]  # accuracy
    idx = replicate_indices(3, gold.n, 0, 1000)
    expected = (np.asarray(gold.values)[idx] == strong[idx]).mean(axis=1)
    np.testing.assert_allclose(s.replicates, expected, atol=1e-15)
