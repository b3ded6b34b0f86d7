"""Confidence intervals against numpy, SciPy's bootstrap fed the same resamples, and naive loops."""
import numpy as np
import pytest
import scipy.special
import scipy.stats
import scipy.stats._resampling as scipy_resampling

from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.core.intervals import confidence_interval, ndtr, ndtri, quantile
from leaderboard_ci.core.resampling import replicate_indices
from leaderboard_ci.tasks.scorer import GoldStandard


def test_ndtri_and_ndtr_match_scipy():
    ps = np.concatenate([np.logspace(-300, -1, 300), np.linspace(0.001, 0.999, 997), 1 - np.logspace(-15, -3, 50)])
    for p in ps:
        assert abs(ndtri(p) - scipy.special.ndtri(p)) <= 1e-14 * max(1.0, abs(scipy.special.ndtri(p)))
    for x in np.linspace(-37, 8, 901):
        assert abs(ndtr(x) - scipy.special.ndtr(x)) <= 1e-16 + 1e-14 * scipy.special.ndtr(x)
    assert ndtri(0.0) == -np.inf and ndtri(1.0) == np.inf


@pytest.mark.parametrize("size", [1, 2, 10, 9999])
def test_quantile_is_numpys_linear_percentile(size):
    x = np.sort(np.random.default_rng(size).normal(size=size))
    for q in np.linspace(0, 1, 201):
        assert abs(quantile(x, q) - np.percentile(x, 100 * q)) <= 1e-14 * max(1, np.abs(x).max())


def test_percentile_and_basic_endpoints():
    reps = np.random.default_rng(0).gamma(2.0, size=5000)
    iv = confidence_interval("percentile", reps, 2.0, 0.95)
    assert iv.low == pytest.approx(np.percentile(reps, 2.5), abs=1e-12)
    assert iv.high == pytest.approx(np.percentile(reps, 97.5), abs=1e-12)
    basic = confidence_interval("basic", reps, 2.0, 0.9)
    assert basic.low == pytest.approx(4.0 - np.percentile(reps, 95), abs=1e-12)
    assert basic.high == pytest.approx(4.0 - np.percentile(reps, 5), abs=1e-12)


def test_nan_replicates_are_left_out_and_counted():
    reps = np.array([np.nan, 1.0, 2.0, 3.0, np.nan])
    iv = confidence_interval("percentile", reps, 2.0, 0.5)
    assert iv.n_valid == 3
    assert (iv.low, iv.high) == (1.5, 2.5)
    empty = confidence_interval("percentile", np.full(4, np.nan), 0.7, 0.95)
    assert (empty.low, empty.high, empty.n_valid) == (0.7, 0.7, 0)


def _scipy_with_our_resamples(monkeypatch, idx):
    def resample(sample, n_resamples=None, rng=None, *, xp=None):
        assert n_resamples == idx.shape[0]
        return sample[..., idx]
    monkeypatch.setattr(scipy_resampling, "_bootstrap_resample", resample)


@pytest.mark.parametrize("metric", ["accuracy", "f1_macro"])
@pytest.mark.parametrize("method", ["BCa", "percentile", "basic"])
def test_endpoints_equal_scipy_bootstrap_fed_the_same_resamples(monkeypatch, metric, method):
    from sklearn.datasets import load_iris
    from sklearn.tree import DecisionTreeClassifier

    x, y = load_iris(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(y))
    x, y = x[order], y[order]
    p = DecisionTreeClassifier(max_depth=2, random_state=0).fit(x[:60], y[:60]).predict(x[60:])
    y = y[60:]
    n, b, seed = len(y), 2000, 77
    cfg = parse_config({"metric": metric, "labels": ["0", "1", "2"],
                        "bootstrap": {"n_resamples": b, "seed": seed, "method": method.lower(), "n_jobs": 1}})
    ours = evaluate(cfg, GoldStandard(values=y, labels=("0", "1", "2")), p).official.interval

    def statistic(t, q, axis=-1):
        if metric == "accuracy":
            return (t == q).mean(axis=axis)
        f1s = []
        for k in range(3):
            tp = ((t == k) & (q == k)).sum(axis=axis)
            den = (t == k).sum(axis=axis) + (q == k).sum(axis=axis)
            f1s.append(np.where(den == 0, 0.0, 2.0 * tp / np.where(den == 0, 1, den)))
        return np.mean(f1s, axis=0)

    _scipy_with_our_resamples(monkeypatch, replicate_indices(seed, n, 0, b))
    ref = scipy.stats.bootstrap((y, p), statistic, paired=True, vectorized=True, n_resamples=b,
                                confidence_level=0.95, method=method).confidence_interval
    assert ours.low == pytest.approx(ref.low, abs=1e-10)
    assert ours.high == pytest.approx(ref.high, abs=1e-10)


def test_bca_for_a_regression_metric_equals_scipy(monkeypatch):
    from sklearn.datasets import load_diabetes

    x, y = load_diabetes(return_X_y=True)
    p = np.round(y * 0.8 + 30 + 40 * x[:, 2], 1)
    n, b, seed = len(y), 1500, 5
    cfg = parse_config({"metric": "mae", "bootstrap": {"n_resamples": b, "seed": seed, "method": "bca", "n_jobs": 1}})
    ours = evaluate(cfg, GoldStandard(values=y), p).official.interval
    _scipy_with_our_resamples(monkeypatch, replicate_indices(seed, n, 0, b))
    ref = scipy.stats.bootstrap((y, p), lambda t, q, axis=-1: np.abs(t - q).mean(axis=axis), paired=True,
                                vectorized=True, n_resamples=b, method="BCa").confidence_interval
    assert ours.low == pytest.approx(ref.low, abs=1e-10)
    assert ours.high == pytest.approx(ref.high, abs=1e-10)


def test_bca_degenerate_rules_never_give_nan():
    same = np.full(100, 0.5)
    iv = confidence_interval("bca", same, 0.5, 0.95, jackknife=(np.full(10, 0.5), None))
    assert (iv.low, iv.high) == (0.5, 0.5)
    outside = np.linspace(1.0, 2.0, 100)  # observed value below every replicate
    iv = confidence_interval("bca", outside, 0.0, 0.95, jackknife=(np.linspace(0, 1, 10), None))
    assert np.isfinite(iv.low) and np.isfinite(iv.high) and iv.note
    with pytest.raises(ValueError, match="jackknife"):
        confidence_interval("bca", outside, 0.0, 0.95)


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, "high", True])
def test_bad_confidence_levels(bad):
    with pytest.raises(ValueError, match="confidence_level"):
        confidence_interval("percentile", [1.0, 2.0], 1.0, bad)


def test_unknown_method():
    with pytest.raises(ValueError, match="percentile, basic, bca"):
        confidence_interval("studentized", [1.0], 1.0, 0.95)
