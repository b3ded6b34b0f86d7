"""The shake-up's statistics (phase/shakeup: gaps, rank agreement, the noise model) against references.

* Kendall's tau-b and Spearman's rho of many rows equal ``scipy.stats.kendalltau`` and
  ``spearmanr`` row by row (ties, constant rows, two items);
* a gap's replicates pair the private replicate b with the public replicate b + 1; its interval and
  p-value are ``core.intervals.interval_rows`` of those replicates; the flags are statsmodels'
  ``fdr_bh`` (``flagged == p_adjusted <= alpha``), and a flagged two-sided gap's interval excludes 0;
* the noise-only worlds give back the observed leaderboards when the drawn difference is the
  observed one; the observed agreement's interval contains it;
* the optimism of the best of k: 0 for one system, the naive loop's value, the expected maximum of
  the deviations for equal systems.
"""

import numpy as np
import pytest
from scipy.stats import kendalltau, spearmanr

from leaderboard_ci.core.intervals import interval_rows
from leaderboard_ci.phase.shakeup.gaps import gap_tests, paired_gap_replicates
from leaderboard_ci.phase.shakeup.noise import deviations, noise_spread, selection_optimism, shrunk_centres
from leaderboard_ci.phase.shakeup.rank_agreement import (
    kendall_tau_rows,
    noise_worlds,
    rank_agreement,
    spearman_rho_rows,
)


@pytest.mark.parametrize("k", [2, 3, 8, 41])
def test_rank_correlations_equal_scipy_row_by_row(k):
    rng = np.random.default_rng(k)
    x = rng.integers(0, 4, (60, k)).astype(float)  # many ties
    y = np.where(rng.random((60, k)) < 0.5, x, rng.integers(0, 4, (60, k)))
    x[0] = 1.0  # a constant row: undefined, NaN as scipy gives it
    x[1], y[1] = np.arange(k), np.arange(k)[::-1]  # perfectly reversed
    with _quiet():
        tau_ref = np.array([kendalltau(a, b)[0] for a, b in zip(x, y)])
        rho_ref = np.array([spearmanr(a, b)[0] for a, b in zip(x, y)])
    tau, rho = kendall_tau_rows(x, y), spearman_rho_rows(x, y)
    assert np.array_equal(np.isnan(tau), np.isnan(tau_ref)) and np.array_equal(np.isnan(rho), np.isnan(rho_ref))
    np.testing.assert_allclose(tau[~np.isnan(tau)], tau_ref[~np.isnan(tau_ref)], rtol=0, atol=1e-12)
    np.testing.assert_allclose(rho[~np.isnan(rho)], rho_ref[~np.isnan(rho_ref)], rtol=0, atol=1e-12)
    assert tau[1] == -1.0


def _quiet():
    import warnings

    catcher = warnings.catch_warnings()
    catcher.__enter__()
    warnings.simplefilter("ignore")

    class _Exit:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            catcher.__exit__(*exc)

    return _Exit()


def test_continuous_kendall_equals_scipy():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(30, 200))
    y = x + rng.normal(size=x.shape)
    ref = np.array([kendalltau(a, b)[0] for a, b in zip(x, y)])
    np.testing.assert_allclose(kendall_tau_rows(x, y), ref, rtol=0, atol=1e-12)


def _sets(seed=0, m=6, b=400):
    """Scores and replicates around them (the bootstrap's distribution is centred near the observed score)."""
    rng = np.random.default_rng(seed)
    truth = np.linspace(0.6, 0.8, m)
    public = truth + rng.normal(0, 0.02, m)
    private = truth + rng.normal(0, 0.015, m)
    public[2] += 0.15  # an overfitted public score
    pub_reps = public + rng.normal(0, 0.02, (b, m)) + rng.normal(0, 0.01, (b, 1))
    priv_reps = private + rng.normal(0, 0.015, (b + 50, m)) + rng.normal(0, 0.01, (b + 50, 1))
    return public, pub_reps, private, priv_reps


def test_gap_replicates_pair_private_b_with_public_b_plus_one():
    _, pub_reps, _, priv_reps = _sets()
    gaps = paired_gap_replicates(pub_reps, priv_reps)
    b = pub_reps.shape[0]
    assert gaps.shape == (b, pub_reps.shape[1])
    for r in (0, 17, b - 1):
        np.testing.assert_array_equal(gaps[r], priv_reps[r] - pub_reps[(r + 1) % b])


@pytest.mark.parametrize("sides", ["two", "one"])
def test_gap_tests_are_the_interval_of_the_paired_replicates_and_bh(sides):
    from statsmodels.stats.multitest import multipletests

    public, pub_reps, private, priv_reps = _sets()
    out = gap_tests(public, pub_reps, private, priv_reps, 1.0, "percentile", 0.95, 0.05, sides)
    rows = interval_rows(
        "percentile",
        paired_gap_replicates(pub_reps, priv_reps).T,
        private - public,
        0.95,
        scale=np.maximum(abs(public), abs(private)),
    )
    np.testing.assert_array_equal(out.ci_low, rows.low)
    np.testing.assert_array_equal(out.ci_high, rows.high)
    expected_p = rows.p_two_sided if sides == "two" else rows.p_less  # private worse: a negative gap
    np.testing.assert_array_equal(out.p_value, expected_p)
    np.testing.assert_array_equal(out.p_adjusted, multipletests(expected_p, alpha=0.05, method="fdr_bh")[1])
    np.testing.assert_array_equal(out.flagged, out.p_adjusted <= 0.05)
    assert out.flagged[2] and out.worse[2]  # the overfitted public score
    if sides == "two":
        assert np.all((out.ci_high[out.flagged] < 0) | (out.ci_low[out.flagged] > 0))
    assert out.n_valid == pub_reps.shape[0]


def test_gap_of_a_lower_is_better_metric_is_worse_when_positive():
    public, pub_reps, private, priv_reps = _sets()
    out = gap_tests(-public, -pub_reps, -private, -priv_reps, -1.0, "percentile", 0.95, 0.05, "one")
    assert out.worse[2] and out.flagged[2] and out.gap[2] > 0


def test_identical_sets_give_p_one():
    rng = np.random.default_rng(1)
    reps = rng.normal(0.7, 0.01, (300, 3))
    full = np.full(3, 0.7)
    constant = np.broadcast_to(full, (300, 3))
    out = gap_tests(full, constant, full, constant, 1.0, "percentile", 0.95, 0.05, "two")
    np.testing.assert_array_equal(out.p_value, np.ones(3))
    assert not out.flagged.any()
    assert reps.shape == (300, 3)


def test_bad_settings_are_refused():
    public, pub_reps, private, priv_reps = _sets()
    with pytest.raises(ValueError, match="percentile, basic or normal"):
        gap_tests(public, pub_reps, private, priv_reps, 1.0, "bca", 0.95, 0.05, "two")
    with pytest.raises(ValueError, match="sides"):
        gap_tests(public, pub_reps, private, priv_reps, 1.0, "percentile", 0.95, 0.05, "both")


def test_noise_worlds_give_back_the_observed_leaderboards():
    public, pub_reps, private, priv_reps = _sets()
    dev_p, dev_q = deviations(pub_reps[:50]), deviations(priv_reps[:50])
    observed = (public - private)[None, :]
    # a world whose drawn difference is the observed one is the observed pair
    wp = dev_p.var(axis=0) / (dev_p.var(axis=0) + dev_q.var(axis=0))
    shift = np.zeros_like(dev_p)
    shift[0] = observed[0]
    p0, q0 = noise_worlds(public, private, dev_p * 0 + shift * wp, dev_q * 0 - shift * (1 - wp))
    np.testing.assert_allclose(p0[0], public, atol=1e-12)
    np.testing.assert_allclose(q0[0], private, atol=1e-12)
    # every world keeps each participant's precision-weighted mean
    p, q = noise_worlds(public, private, dev_p, dev_q)
    wq = 1 - wp
    np.testing.assert_allclose(wq * p + wp * q, np.broadcast_to(wq * public + wp * private, p.shape), atol=1e-12)


def test_rank_agreement_numbers():
    public, pub_reps, private, priv_reps = _sets(m=9)
    out = rank_agreement(public, pub_reps, private, priv_reps, 0.9)
    assert out.tau.value == pytest.approx(kendalltau(public, private)[0], abs=1e-12)
    assert out.rho.value == pytest.approx(spearmanr(public, private)[0], abs=1e-12)
    for stat in (out.tau, out.rho):
        assert stat.ci_low <= stat.value <= stat.ci_high
        assert stat.noise_low <= stat.noise <= stat.noise_high
        assert 1.0 / (out.n_valid + 1) <= stat.p_value <= 1.0
    # the p-value counts the noise-only worlds that agree at most as little (+1 smoothing)
    b = min(pub_reps.shape[0], priv_reps.shape[0])
    dev_p = deviations(np.roll(pub_reps[:b], -1, axis=0))
    dev_q = deviations(priv_reps[:b])
    worlds = kendall_tau_rows(*noise_worlds(public, private, dev_p, dev_q))
    assert out.tau.p_value == (1 + np.sum(worlds <= out.tau.value + 1e-12)) / (b + 1)
    assert out.tau.noise == pytest.approx(np.median(worlds), abs=1e-12)


def test_optimism_of_one_system_is_zero():
    reps = np.random.default_rng(0).normal(0.5, 0.02, (200, 1))
    bias = selection_optimism(np.array([0.5]), reps, 1.0)
    assert bias.optimism == 0.0 and bias.k == 1


def test_optimism_equals_the_naive_loop():
    rng = np.random.default_rng(2)
    full = np.array([0.70, 0.71, 0.69, 0.74])
    reps = full + rng.normal(0, 0.02, (300, 4)) + rng.normal(0, 0.01, (300, 1))
    sign = -1.0  # lower is better: the best is the smallest
    bias = selection_optimism(full, reps, sign)
    dev = reps - reps.mean(axis=0)
    spread = np.var(full, ddof=1)
    noise = np.mean([np.sum((row - row.mean()) ** 2) for row in dev]) / 3
    lam = np.sqrt(max(0.0, 1 - noise / spread))
    centres = full.mean() + lam * (full - full.mean())
    total = 0.0
    for row in dev:
        j = min(range(4), key=lambda i: centres[i] + row[i])
        total += sign * row[j]
    assert bias.optimism == pytest.approx(total / len(dev), abs=1e-12)
    assert bias.shrinkage == pytest.approx(lam, abs=1e-12)
    assert noise_spread(dev) == pytest.approx(noise, abs=1e-15)
    assert shrunk_centres(full, dev)[1] == pytest.approx(lam, abs=1e-12)


def test_optimism_of_equal_systems_is_the_expected_maximum():
    rng = np.random.default_rng(3)
    full = np.full(12, 0.8)  # equal scores: no spread, lam = 0
    reps = 0.8 + rng.normal(0, 0.02, (500, 12))
    bias = selection_optimism(full, reps, 1.0)
    dev = reps - reps.mean(axis=0)
    assert bias.shrinkage == 0.0
    assert bias.optimism == pytest.approx(dev.max(axis=1).mean(), abs=1e-12)
