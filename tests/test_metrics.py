"""Every metric equals scikit-learn's or SciPy's value on the full sample and on each resample.

The comparison uses the same resamples (our index rows) and the same
``labels`` and ``zero_division`` arguments, to 1e-12.  Degenerate cases
follow the documented rules (no NaN).
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from sklearn import metrics as skm

from leaderboard_ci.core.resampling import replicate_indices
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.errors import ConfigError
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.scoring.metric_config import parse_metric
from leaderboard_ci.tasks.classification.metrics import ClassStats, classification_score
from leaderboard_ci.tasks.regression.metrics import RegressionSums
from leaderboard_ci.tasks.shared.scorer import GoldStandard, SystemScorer

TOL = 1e-12
LABELS = ("a", "b", "c", "d")


def sk_classification(key, zero_division=0.0, labels=(0, 1, 2, 3), subset=(0, 2), pos=1):
    zd = zero_division
    table = {
        "accuracy": lambda y, p: skm.accuracy_score(y, p),
        "balanced_accuracy": lambda y, p: skm.balanced_accuracy_score(y, p),
        "mcc": lambda y, p: skm.matthews_corrcoef(y, p),
        "cohen_kappa": lambda y, p: skm.cohen_kappa_score(y, p, labels=list(labels), replace_undefined_by=0.0),
        "qw_kappa": lambda y, p: skm.cohen_kappa_score(
            y, p, labels=list(labels), weights="quadratic", replace_undefined_by=0.0
        ),
        "lw_kappa": lambda y, p: skm.cohen_kappa_score(
            y, p, labels=list(labels), weights="linear", replace_undefined_by=0.0
        ),
    }
    for name, fn in (("precision", skm.precision_score), ("recall", skm.recall_score), ("f1", skm.f1_score)):
        for avg in ("macro", "micro", "weighted"):
            table["%s_%s" % (name, avg)] = (
                lambda f, a: lambda y, p: f(y, p, labels=list(labels), average=a, zero_division=zd)
            )(fn, avg)
        table["%s_sub" % name] = (
            lambda f: lambda y, p: f(y, p, labels=list(subset), average="macro", zero_division=zd)
        )(fn)
    return table[key]


CLASSIFICATION_CONFIG = {
    "metric": "f1_macro",
    "labels": list(LABELS),
    "extra_metrics": [
        "accuracy",
        "balanced_accuracy",
        "mcc",
        "cohen_kappa",
        "qwk",
        "linear_kappa",
        "precision_macro",
        "recall_macro",
        "precision_micro",
        "recall_micro",
        "f1_micro",
        "precision_weighted",
        "recall_weighted",
        "f1_weighted",
        {"name": "f1", "average": "macro", "labels": ["a", "c"], "key": "f1_sub"},
        {"name": "precision", "average": "macro", "labels": ["a", "c"], "key": "precision_sub"},
        {"name": "recall", "average": "macro", "labels": ["a", "c"], "key": "recall_sub"},
    ],
    "bootstrap": {"n_resamples": 60, "seed": 11},
}


def _run(config_dict, gold, pred, n_jobs=1):
    cfg = parse_config(dict(config_dict, bootstrap=dict(config_dict["bootstrap"], n_jobs=n_jobs)))
    return cfg, evaluate(cfg, gold, pred)


def _check_against(reference, y, p, score, n_resamples, seed, items=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = np.ones(len(y), bool) if items is None else items
        assert abs(reference(y[sel], p[sel]) - score.score) <= TOL, score.key
        idx = replicate_indices(seed, len(y), 0, n_resamples)
        expected = []
        for row in idx:
            keep = sel[row]
            expected.append(reference(y[row][keep], p[row][keep]) if keep.any() else np.nan)
    np.testing.assert_allclose(score.replicates, expected, rtol=0, atol=TOL, err_msg=score.key)


@pytest.mark.parametrize("zero_division", [0, 1])
def test_classification_parity_with_sklearn_on_the_same_resamples(zero_division):
    rng = np.random.default_rng(3)
    n = 150
    # A rare class (3) makes some replicates miss it: the label-set rule matters.
    y = rng.choice(4, size=n, p=[0.45, 0.35, 0.17, 0.03])
    p = np.where(rng.random(n) < 0.6, y, rng.choice(4, size=n, p=[0.5, 0.3, 0.15, 0.05]))
    cfg_dict = dict(CLASSIFICATION_CONFIG, zero_division=zero_division)
    cfg, result = _run(cfg_dict, GoldStandard(values=y, labels=LABELS), p)
    for s in result.scores:
        _check_against(sk_classification(s.metric.key, zero_division), y, p, s, 60, 11)


def test_classification_groups_match_sklearn_on_each_group():
    rng = np.random.default_rng(8)
    n = 120
    y = rng.integers(0, 4, n)
    p = np.where(rng.random(n) < 0.7, y, rng.integers(0, 4, n))
    groups = rng.choice(3, size=n, p=[0.6, 0.37, 0.03])  # group 'z' is tiny: empty in some resamples
    cfg_dict = dict(CLASSIFICATION_CONFIG, groups="lang")
    gold = GoldStandard(values=y, labels=LABELS, groups=groups, group_values=("x", "y", "z"))
    cfg, result = _run(cfg_dict, gold, p)
    seen_empty = False
    for s in result.scores:
        items = None if s.group is None else groups == ("x", "y", "z").index(s.group)
        _check_against(sk_classification(s.metric.key), y, p, s, 60, 11, items=items)
        seen_empty |= bool(np.isnan(s.replicates).any())
        assert s.interval.n_valid == int((~np.isnan(s.replicates)).sum())
    assert seen_empty, "the tiny group should be absent from some resample"


def test_binary_average_matches_sklearn():
    rng = np.random.default_rng(5)
    n = 90
    y = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < 0.75, y, 1 - y)
    cfg = {
        "metric": "f1_binary",
        "extra_metrics": ["precision_binary", "recall_binary"],
        "labels": ["neg", "pos"],
        "pos_label": "pos",
        "bootstrap": {"n_resamples": 40, "seed": 2},
    }
    _, result = _run(cfg, GoldStandard(values=y, labels=("neg", "pos")), p)
    fns = {"f1_binary": skm.f1_score, "precision_binary": skm.precision_score, "recall_binary": skm.recall_score}
    for s in result.scores:
        ref = (lambda f: lambda a, b: f(a, b, pos_label=1, average="binary", zero_division=0))(fns[s.metric.key])
        _check_against(ref, y, p, s, 40, 2)


REGRESSION_CONFIG = {
    "metric": "mae",
    "extra_metrics": ["mse", "rmse", "r2", "pearson", "spearman"],
    "bootstrap": {"n_resamples": 50, "seed": 4},
}


def sk_regression(key):
    return {
        "mae": skm.mean_absolute_error,
        "mse": skm.mean_squared_error,
        "rmse": skm.root_mean_squared_error,
        "r2": skm.r2_score,
        "pearson": lambda y, p: sps.pearsonr(y, p)[0],
        "spearman": lambda y, p: sps.spearmanr(y, p)[0],
    }[key]


def test_regression_parity_on_a_real_dataset():
    from sklearn.datasets import load_diabetes
    from sklearn.linear_model import Ridge

    data = load_diabetes()
    x, y = data.data, data.target.astype(float)
    p = Ridge(alpha=1.0).fit(x[:300], y[:300]).predict(x)  # real model predictions
    p = np.round(p)  # ties, as in real submissions, exercise Spearman's average ranks
    groups = (x[:, 1] > 0).astype(int)
    gold = GoldStandard(values=y, groups=groups, group_values=("f", "m"))
    _, result = _run(dict(REGRESSION_CONFIG, groups="sex"), gold, p)
    for s in result.scores:
        items = None if s.group is None else groups == ("f", "m").index(s.group)
        ref = sk_regression(s.metric.key)
        # Relative tolerance for metrics in the target's squared units.
        scale = max(1.0, abs(s.score))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sel = np.ones(len(y), bool) if items is None else items
            assert abs(ref(y[sel], p[sel]) - s.score) <= TOL * scale, s.key
            for b, row in enumerate(replicate_indices(4, len(y), 0, 50)):
                keep = sel[row]
                assert abs(ref(y[row][keep], p[row][keep]) - s.replicates[b]) <= TOL * scale, (s.key, b)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=40), st.sampled_from([0, 1]))
def test_random_labelings_match_sklearn(pairs, zero_division):
    """Absent classes and single-class samples included: same values as scikit-learn."""
    y = np.array([a for a, _ in pairs])
    p = np.array([b for _, b in pairs])
    cfg = parse_config(
        dict(CLASSIFICATION_CONFIG, zero_division=zero_division, bootstrap={"n_resamples": 5, "seed": 1, "n_jobs": 1})
    )
    scorer = SystemScorer(cfg.metrics, GoldStandard(values=y, labels=LABELS), p)
    scores = scorer.scores([acc.full()[None, :] for acc in scorer.accumulators])[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for t, target in enumerate(scorer.targets):
            expected = sk_classification(target.metric.key, zero_division)(y, p)
            assert abs(expected - scores[t]) <= TOL, (target.metric.key, expected, scores[t])
            assert np.isfinite(scores[t])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3)), min_size=3, max_size=30))
def test_random_regression_samples_match_scipy(pairs):
    y = np.array([a for a, _ in pairs], dtype=float) * 1.5
    p = np.array([b for _, b in pairs], dtype=float) * 0.25
    cfg = parse_config(dict(REGRESSION_CONFIG, bootstrap={"n_resamples": 5, "n_jobs": 1}))
    scorer = SystemScorer(cfg.metrics, GoldStandard(values=y), p)
    scores = scorer.scores([acc.full()[None, :] for acc in scorer.accumulators])[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for t, target in enumerate(scorer.targets):
            key = target.metric.key
            expected = sk_regression(key)(y, p)
            if key in ("pearson", "spearman") and (np.ptp(y) == 0 or np.ptp(p) == 0):
                expected = 0.0  # documented rule: no association measurable
            assert abs(expected - scores[t]) <= TOL * max(1.0, abs(expected)), (key, expected, scores[t])


def test_documented_degenerate_rules():
    # Constant predictions: Pearson/Spearman 0 (SciPy gives NaN); R² force_finite; MCC 0; kappa 0.
    y = np.array([1.0, 2.0, 3.0, 4.0])
    cfg = parse_config(dict(REGRESSION_CONFIG, bootstrap={"n_resamples": 5, "n_jobs": 1}))
    scorer = SystemScorer(cfg.metrics, GoldStandard(values=y), np.full(4, 2.5))
    scores = dict(
        zip([t.metric.key for t in scorer.targets], scorer.scores([a.full()[None, :] for a in scorer.accumulators])[0])
    )
    assert scores["pearson"] == 0.0 and scores["spearman"] == 0.0
    assert scores["r2"] == skm.r2_score(y, np.full(4, 2.5))
    const = GoldStandard(values=np.full(4, 7.0))
    for pred, r2 in ((np.full(4, 7.0), 1.0), (np.array([7.0, 7.0, 7.0, 8.0]), 0.0)):
        s = SystemScorer(cfg.metrics, const, pred)
        values = dict(zip([t.metric.key for t in s.targets], s.scores([a.full()[None, :] for a in s.accumulators])[0]))
        assert values["r2"] == r2
        assert all(np.isfinite(v) for v in values.values())
    stats = ClassStats.from_confusion(np.array([[5.0, 0.0], [0.0, 0.0]]))
    for name in ("mcc", "cohen_kappa"):
        spec = parse_metric(name, "test")
        assert classification_score(spec, stats)[()] == 0.0


def test_empty_sample_is_nan_only_for_groups():
    spec = parse_metric("accuracy", "test")
    stats = ClassStats(np.zeros((1, 2)), np.zeros((1, 2)), np.zeros((1, 2)))
    assert np.isnan(classification_score(spec, stats)[0])
    sums = RegressionSums(np.array([0.0]), abs_err=np.array([0.0]))
    from leaderboard_ci.tasks.regression.metrics import regression_score

    assert np.isnan(regression_score(parse_metric("mae", "test"), sums)[0])


@pytest.mark.parametrize(
    "entry,message",
    [
        ("f1", "needs an average"),
        ("f2_macro", "unknown metric"),
        ({"name": "f1", "average": "median"}, "average must be one of"),
        ({"name": "accuracy", "labels": ["a"]}, "only precision, recall and f1"),
        ({"name": "f1_binary"}, "needs pos_label"),
        ({"name": "cohen_kappa", "weights": "cubic"}, "weights must be one of"),
        ({"name": "f1_macro", "zero_division": 0.5}, "zero_division must be 0 or 1"),
        ({"name": "f1_macro", "key": "x" * 37}, "Codabench allows 36"),
        ({"name": "f1_macro", "key": "f1 macro"}, "letters, digits and underscores"),
        ({"name": "f1_macro", "colour": "red"}, "unknown key 'colour'"),
    ],
)
def test_bad_metric_entries_name_the_problem(entry, message):
    with pytest.raises(ConfigError, match=message):
        parse_metric(entry, "config.yaml: metric", label_set=["a", "b", "c"])


def test_binary_needs_two_labels():
    with pytest.raises(ConfigError, match="exactly two labels"):
        parse_metric({"name": "f1_binary", "pos_label": "a"}, "config.yaml: metric", label_set=["a", "b", "c"])


@pytest.mark.parametrize(
    "text,name,average",
    [
        ("f1_macro", "f1", "macro"),
        ("macro_f1", "f1", "macro"),
        ("Macro-F1", "f1", "macro"),
        ("matthews_corrcoef", "mcc", None),
        ("spearmanr", "spearman", None),
    ],
)
def test_shorthand_names(text, name, average):
    spec = parse_metric(text, "test")
    assert (spec.name, spec.average) == (name, average)
