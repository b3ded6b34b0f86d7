"""Confidence intervals against numpy, SciPy's bootstrap fed the same resamples, and naive loops."""

import numpy as np
import pytest
import scipy.special
import scipy.stats
import scipy.stats._resampling as scipy_resampling

from leaderboard_ci.core.intervals import confidence_interval, ndtr, ndtri, quantile
from leaderboard_ci.core.resampling import replicate_indices
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.tasks.shared.scorer import GoldStandard


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
    cfg = parse_config(
        {
            "metric": metric,
            "labels": ["0", "1", "2"],
            "bootstrap": {"n_resamples": b, "seed": seed, "method": method.lower(), "n_jobs": 1},
        }
    )
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
    ref = scipy.stats.bootstrap(
        (y, p), statistic, paired=True, vectorized=True, n_resamples=b, confidence_level=0.95, method=method
    ).confidence_interval
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
    ref = scipy.stats.bootstrap(
        (y, p),
        lambda t, q, axis=-1: np.abs(t - q).mean(axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=b,
        method="BCa",
    ).confidence_interval
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


# ---------------------------------------------------------------------------
# p-values: the inversion of the interval (duality by construction)
# ---------------------------------------------------------------------------
from leaderboard_ci.core.intervals import METHODS, acceleration_rows, interval_rows  # noqa: E402

ALPHAS = (0.5, 0.2, 0.1, 0.05, 0.01, 0.001)
TOO_LARGE = "the acceleration is too large"


def _random_replicates(rng, i, n):
    """Skewed, tied, constant, zero-heavy and tiny-scale replicate distributions, by case number."""
    kind = i % 9
    if kind == 0:
        return rng.normal(rng.normal(0, 1), 1, n)
    if kind == 1:
        return rng.lognormal(0, 1.5, n) - rng.uniform(0, 3)  # skewed
    if kind == 2:
        return np.round(rng.normal(rng.normal(0, 0.5), 1, n))  # heavy ties, many exactly at 0
    if kind == 3:
        return np.full(n, float(rng.choice([0.0, 0.3, -0.2])))  # constant
    if kind == 4:
        return rng.choice([-1.0, 0.0, 0.0, 0.0, 2.0], size=n)
    if kind == 5:
        return rng.exponential(0.1) - rng.exponential(1, n)
    if kind == 6:
        return np.where(rng.random(n) < 0.9, 0.0, rng.normal(0.5, 0.1, n))
    if kind == 7:
        return rng.normal(0, 1, n) * 1e-3 + rng.choice([0, 1e-3])
    return np.abs(rng.normal(0, 1, n))


def _observed(rng, d):
    u = rng.random()
    if u < 0.4:
        return float(rng.choice(d[~np.isnan(d)]))
    if u < 0.6:
        return 0.0
    return float(np.nanmean(d) + rng.normal(0, np.nanstd(d) + 1e-9))


def _levels(n):
    """The alphas of the brief, and levels whose quantile falls exactly on an order statistic."""
    out = [1.0 - a for a in ALPHAS]
    for j in (1, 2, 3, (n - 1) // 20, (n - 1) // 4):
        if j > 0 and 2.0 * j / (n - 1) < 1:
            out.append(1.0 - 2.0 * j / (n - 1))
    return out


def _assert_dual(low, high, p_greater, p_less, p_two, level, n, where):
    """excludes 0 <=> p < alpha for alpha > 1/(B+1), each side p < alpha/2 for alpha > 2/(B+1); no rejection below."""
    a, floor = 1.0 - level, 1.0 / (n + 1)
    if a / 2 > floor:
        assert (low > 0) == (p_greater < a / 2), where
        assert (high < 0) == (p_less < a / 2), where
    else:
        assert not min(p_greater, p_less) < a / 2, where
    if a > floor:
        assert ((low > 0) or (high < 0)) == (p_two < a), where
    else:
        assert not p_two < a, where
    if min(p_greater, p_less) > floor:
        assert p_two == min(1.0, 2.0 * min(p_greater, p_less))
    else:  # the floor applies to 2 * min of the unfloored one-sided values
        assert floor <= p_two <= 2 * floor
    assert floor <= min(p_greater, p_less, p_two) and max(p_greater, p_less, p_two) <= 1.0


def test_every_scalar_interval_excludes_zero_exactly_when_p_is_below_alpha():
    rng = np.random.default_rng(2026)
    checked = skipped = 0
    for i in range(160):
        n = int(rng.choice([19, 20, 21, 39, 40, 99, 100, 101, 999, 1000, 10000]))
        d = _random_replicates(rng, i, n)
        if i % 5 == 4:
            d = d.copy()
            d[rng.random(n) < 0.05] = np.nan
        obs = _observed(rng, d)
        jk = (rng.normal(obs, 0.1 + abs(obs), 30) if i % 7 else np.full(30, obs), None)
        valid = int(np.count_nonzero(~np.isnan(d)))
        for method in METHODS:
            first = None
            for level in _levels(valid):
                iv = confidence_interval(method, d, obs, level, jackknife=jk)
                ps = (iv.p_greater, iv.p_less, iv.p_two_sided)
                first = first or ps
                assert ps == first  # one p-value for every level
                if iv.note and TOO_LARGE in iv.note:
                    skipped += 1
                    continue
                _assert_dual(iv.low, iv.high, *ps, level, valid, (i, method, level, n))
                checked += 1
    assert checked > 5000 and skipped < checked / 100


@pytest.mark.parametrize("method", METHODS)
def test_every_row_of_the_vectorized_code_is_dual_and_equals_the_scalar_call(method):
    rng = np.random.default_rng(7)
    for n in (19, 40, 1000):
        d = np.stack([_random_replicates(rng, i, n) for i in range(27)])
        obs = np.array([_observed(rng, row) for row in d])
        jack = obs[:, None] + rng.normal(0, 0.2, size=(27, 25))
        acc = acceleration_rows(jack)
        for level in _levels(n):
            rows = interval_rows(method, d, obs, level, acceleration=acc)
            for j in range(d.shape[0]):
                iv = confidence_interval(method, d[j], obs[j], level, jackknife=(jack[j], None))
                assert (iv.low, iv.high, iv.p_greater, iv.p_less, iv.p_two_sided, iv.se, iv.note) == (
                    rows.low[j],
                    rows.high[j],
                    rows.p_greater[j],
                    rows.p_less[j],
                    rows.p_two_sided[j],
                    rows.se[j],
                    rows.notes[j],
                )
                if not (iv.note and TOO_LARGE in iv.note):
                    _assert_dual(
                        rows.low[j],
                        rows.high[j],
                        rows.p_greater[j],
                        rows.p_less[j],
                        rows.p_two_sided[j],
                        level,
                        n,
                        (method, n, j, level),
                    )


def test_percentile_p_is_where_numpys_quantile_function_crosses_zero():
    rng = np.random.default_rng(3)
    for i in range(200):
        n = int(rng.choice([20, 101, 1000]))
        d = rng.normal(rng.uniform(-0.3, 0.3), 1, n)
        if i % 3 == 0:
            d = np.round(d, 1)  # ties, some exactly at 0
        iv = confidence_interval("percentile", d, 0.0, 0.95)
        q = np.quantile
        if 1.0 / (n + 1) < iv.p_greater < 1.0:  # not floored or capped: sup{q : Q(q) <= 0}
            assert q(d, iv.p_greater - 1e-7) <= 0 < q(d, iv.p_greater + 1e-7)
        if 1.0 / (n + 1) < iv.p_less < 1.0:  # sup{x : Q(1 - x) >= 0}
            assert q(d, 1 - iv.p_less - 1e-7) < 0 <= q(d, 1 - iv.p_less + 1e-7)


def test_percentile_p_by_hand():
    d = np.array([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0])  # Q crosses 0 at h = 2.5 of 8
    iv = confidence_interval("percentile", d, 1.0, 0.95)
    assert (iv.p_greater, iv.p_less, iv.p_two_sided) == (0.3125, 0.6875, 0.625)
    basic = confidence_interval("basic", d, 1.0, 0.95)  # the same inversion at 2 * observed = 2: h = 4
    assert (basic.p_greater, basic.p_less) == (1.0 - 0.5, 0.5)
    every_positive = confidence_interval("percentile", d + 10.0, 11.0, 0.95)
    assert (every_positive.p_greater, every_positive.p_less, every_positive.p_two_sided) == (0.1, 1.0, 0.1)


@pytest.mark.parametrize("method", METHODS)
def test_an_identical_copy_gets_p_one(method):
    jk = (np.zeros(20), None)
    iv = confidence_interval(method, np.zeros(1000), 0.0, 0.95, jackknife=jk)
    assert (iv.low, iv.high, iv.p_greater, iv.p_less, iv.p_two_sided) == (0.0, 0.0, 1.0, 1.0, 1.0)
    # The same counts summed in another order: rounding noise, not a difference.
    noise = np.full(999, 0.1 + 0.2 - 0.3)
    iv = confidence_interval(method, noise, 2e-17, 0.95, jackknife=jk, scale=0.7)
    assert (iv.p_greater, iv.p_less, iv.p_two_sided) == (1.0, 1.0, 1.0) and iv.low <= 0 <= iv.high
    # Without the scale of the scores a difference of 5.6e-17 in every replicate is a difference.
    assert confidence_interval(method, noise, 2e-17, 0.95, jackknife=jk).p_two_sided == 1 / 1000


def test_normal_p_values():
    rng = np.random.default_rng(1)
    d = rng.normal(0.02, 0.01, 5000)
    iv = confidence_interval("normal", d, 0.02, 0.95)
    se = np.std(d, ddof=1)
    assert iv.se == pytest.approx(se, rel=1e-13)
    assert iv.p_greater == pytest.approx(scipy.stats.norm.sf(0.02 / se), rel=1e-9)
    assert iv.p_less == pytest.approx(scipy.stats.norm.cdf(0.02 / se), rel=1e-9)
    point = confidence_interval("normal", np.full(50, 0.5), 0.5, 0.95)  # SE = 0: the interval is the point
    assert (point.low, point.high, point.p_greater, point.p_less) == (0.5, 0.5, 1 / 51, 1.0)
    zero = confidence_interval("normal", np.full(50, 0.5), 0.0, 0.95)
    assert (zero.p_greater, zero.p_less, zero.p_two_sided) == (1.0, 1.0, 1.0)


def test_bca_p_is_the_level_map_inverted():
    rng = np.random.default_rng(5)
    d = rng.gamma(2.0, 0.01, 4000) - 0.015
    jk = (rng.gamma(2.0, 0.01, 200), None)
    iv = confidence_interval("bca", d, 0.004, 0.95, jackknife=jk)
    # the formula: q0 = the percentile inversion at 0, w = ndtri(q0) - z0, z = w/(1 + a w) - z0, p = ndtr(z)
    q0 = confidence_interval("percentile", d, 0.004, 0.95).p_greater
    share = (np.sum(d < 0.004) + np.sum(d <= 0.004)) / (2.0 * d.size)
    z0 = scipy.special.ndtri(share)
    a = acceleration_rows(jk[0][None, :])[0]
    w = scipy.special.ndtri(q0) - z0
    assert iv.p_greater == pytest.approx(scipy.special.ndtr(w / (1 + a * w) - z0), rel=1e-9)


def test_vectorized_percentile_rows_equal_numpy_percentile():
    rng = np.random.default_rng(9)
    d = rng.gamma(2.0, size=(30, 999)) - 2.0
    rows = interval_rows("percentile", d, np.zeros(30), 0.9)
    np.testing.assert_allclose(rows.low, np.percentile(d, 5, axis=1), rtol=0, atol=1e-14)
    np.testing.assert_allclose(rows.high, np.percentile(d, 95, axis=1), rtol=0, atol=1e-14)
    np.testing.assert_allclose(rows.se, np.std(d, axis=1, ddof=1), rtol=1e-12)
