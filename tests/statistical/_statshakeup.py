"""Populations for the shake-up's validity studies (test_stat_shakeup.py).

A competition is a set of participants with a true ability each, items with a shared difficulty
(so that participants err on the same items, as on a real leaderboard), and two independent test
sets drawn from the same population of items: the public and the private one.  Item ``i`` is
answered correctly by participant ``j`` with probability ``Phi(a_j - d_i)`` (``d_i`` standard normal),
so the true accuracy of ``j`` is ``Phi(a_j / sqrt(2))``.  Each test set is scored by the product's
own engine (``build_plan`` + ``paired_scores``: accuracy, B replicates), and the shake-up's own
functions give the gaps and flags (``gaps.gap_tests``), the rank agreement (``rank_agreement``) and
the optimism of a pick (``noise.selection_optimism``).

Studies:

* ``null``: nobody adapts (one run each): flags, the share of competitions with a flag (under this
  complete null, the false-discovery rate is that share), the share whose tau is declared larger
  than noise, the share whose tau is inside its noise band;
* ``probe``: one participant probes the public set (``probes`` submissions, each flipping
  ``PROBE_ITEMS`` random items of both sets and kept when its public score rose: it cannot see
  the private set): how often it is flagged (power), and how often an honest participant is;
* ``curse``: ``m`` systems of exactly equal accuracy: the winner's score minus its true accuracy,
  plain and corrected (``selection_optimism`` over the ``m`` systems).
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm

from leaderboard_ci.core.systems import paired_scores
from leaderboard_ci.phase.analysis.systems import build_plan
from leaderboard_ci.phase.shakeup.gaps import gap_tests
from leaderboard_ci.phase.shakeup.noise import selection_optimism
from leaderboard_ci.phase.shakeup.rank_agreement import rank_agreement
from leaderboard_ci.scoring.config import config_from_options
from leaderboard_ci.tasks.shared.base import GoldStandard

#: Items each probe of the prober flips (it is kept if the public score rose).
PROBE_ITEMS = 10


def _config(n_resamples, seed):
    return config_from_options("accuracy", labels=["0", "1"], n_resamples=n_resamples, seed=seed)


def score(config, gold, predictions):
    """Full-sample and replicate accuracy of each prediction vector on one test set: ``(m,)``, ``(B, m)``."""
    g = GoldStandard(values=np.asarray(gold), labels=("0", "1"), task="classification")
    plan = build_plan(config, g, [np.asarray(p) for p in predictions], ["s%d" % i for i in range(len(predictions))])
    scores = paired_scores(plan, config.bootstrap.n_resamples)
    return scores.full[:, 0], scores.replicates[:, :, 0]


def draw_set(rng, abilities, n):
    """One test set: gold labels, each participant's correctness matrix ``(m, n)`` and the difficulties."""
    difficulty = rng.normal(size=n)
    gold = rng.integers(0, 2, n)
    correct = rng.random((abilities.size, n)) < norm.cdf(abilities[:, None] - difficulty[None, :])
    return gold, correct


def predictions(gold, correct):
    return [np.where(c, gold, 1 - gold) for c in correct]


def null_study(reps, m=30, n=1000, n_resamples=500, seed=0, alpha=0.05):
    """Nobody adapts: per competition, the flags, tau's verdict and whether tau is in its noise band."""
    rng = np.random.default_rng(seed)
    config = _config(n_resamples, seed)
    flags = competitions_flagged = larger = inside = 0
    for _ in range(reps):
        abilities = rng.uniform(0.3, 1.6, m)
        pub_gold, pub_correct = draw_set(rng, abilities, n)
        priv_gold, priv_correct = draw_set(rng, abilities, n)
        p, pr = score(config, pub_gold, predictions(pub_gold, pub_correct))
        q, qr = score(config, priv_gold, predictions(priv_gold, priv_correct))
        tests = gap_tests(p, pr, q, qr, 1.0, "percentile", 0.95, alpha, "two")
        flags += int(tests.flagged.sum())
        competitions_flagged += bool(tests.flagged.any())
        tau = rank_agreement(p, pr, q, qr, 0.95).tau
        larger += tau.p_value < alpha
        inside += tau.noise_low <= tau.value <= tau.noise_high
    return {
        "competitions": reps,
        "participants": m,
        "n": n,
        "flag_rate": flags / float(reps * m),
        "false_discovery_rate": competitions_flagged / float(reps),
        "tau_larger_than_noise": larger / float(reps),
        "tau_in_band": inside / float(reps),
    }


def _probe(rng, base, public_gold, probes):
    """The prober's kept predictions over both sets (public items first): hill climbing on the public accuracy."""
    public = public_gold.size
    current = base.copy()
    best = np.mean(current[:public] == public_gold)
    for _ in range(probes):
        trial = current.copy()
        items = rng.choice(trial.size, size=PROBE_ITEMS, replace=False)
        trial[items] = 1 - trial[items]
        score = np.mean(trial[:public] == public_gold)  # what the public leaderboard shows
        if score > best:
            best, current = score, trial
    return current


def probe_study(reps, probes=300, m=20, n=1000, n_resamples=500, seed=1, alpha=0.05):
    """One participant (the last) probes the public set with ``probes`` submissions; the others do not."""
    rng = np.random.default_rng(seed)
    config = _config(n_resamples, seed)
    caught = honest_flags = larger = 0
    gaps = []
    for _ in range(reps):
        abilities = rng.uniform(0.3, 1.6, m)
        pub_gold, pub_correct = draw_set(rng, abilities, n)
        priv_gold, priv_correct = draw_set(rng, abilities, n)
        pub_pred = predictions(pub_gold, pub_correct)
        priv_pred = predictions(priv_gold, priv_correct)
        # the prober submits predictions of both sets' items at once and sees only the public score
        both = np.concatenate([pub_pred[-1], priv_pred[-1]])
        kept = _probe(rng, both, pub_gold, probes)
        pub_pred[-1], priv_pred[-1] = kept[:n], kept[n:]
        p, pr = score(config, pub_gold, pub_pred)
        q, qr = score(config, priv_gold, priv_pred)
        tests = gap_tests(p, pr, q, qr, 1.0, "percentile", 0.95, alpha, "two")
        caught += bool(tests.flagged[-1])
        honest_flags += int(tests.flagged[:-1].sum())
        gaps.append(float(tests.gap[-1]))
        larger += rank_agreement(p, pr, q, qr, 0.95).tau.p_value < alpha
    return {
        "competitions": reps,
        "participants": m,
        "n": n,
        "probes": probes,
        "probe_items": PROBE_ITEMS,
        "power": caught / float(reps),
        "honest_flag_rate": honest_flags / float(reps * (m - 1)),
        "prober_mean_gap": float(np.mean(gaps)),
        "tau_larger_than_noise": larger / float(reps),
    }


def curse_study(reps, m=20, n=1000, n_resamples=500, seed=2, ability=0.9):
    """``m`` systems of exactly equal true accuracy: the winner's bias, plain and corrected."""
    rng = np.random.default_rng(seed)
    config = _config(n_resamples, seed)
    truth = float(norm.cdf(ability / np.sqrt(2.0)))
    plain, corrected = [], []
    for _ in range(reps):
        gold, correct = draw_set(rng, np.full(m, ability), n)
        full, replicates = score(config, gold, predictions(gold, correct))
        winner = int(np.argmax(full))
        optimism = selection_optimism(full, replicates, 1.0).optimism
        plain.append(full[winner] - truth)
        corrected.append(full[winner] - optimism - truth)
    plain, corrected = np.array(plain), np.array(corrected)
    return {
        "competitions": reps,
        "systems": m,
        "n": n,
        "true_accuracy": truth,
        "bias_plain": float(plain.mean()),
        "bias_corrected": float(corrected.mean()),
        "bias_removed": float(1.0 - corrected.mean() / plain.mean()),
        "se_corrected": float(corrected.std(ddof=1) / np.sqrt(reps)),
        "rmse_plain": float(np.sqrt(np.mean(plain**2))),
        "rmse_corrected": float(np.sqrt(np.mean(corrected**2))),
    }


def gaussian_band_study(
    reps, m=30, spread=0.5, sigma_public=1.0, sigma_private=1.0, shared=0.0, n_resamples=400, seed=3, alpha=0.05
):
    """Kendall's tau's noise band when everything is normal and the truth is known (no test set is drawn).

    True scores ``mu ~ N(0, spread^2)``; each set adds independent noise with its own scale, a part
    ``shared`` of whose variance moves every participant together; the replicates' deviations are
    draws of the same noise (an ideal bootstrap).  The product's ``noise_worlds`` and
    ``kendall_tau_rows`` give the band; returns the share of competitions declared larger than noise
    and the share whose tau is inside its band.
    """
    from leaderboard_ci.phase.shakeup.rank_agreement import kendall_tau_rows, noise_worlds

    rng = np.random.default_rng(seed)

    def noise(scale, shape):
        own = rng.normal(0, 1, shape)
        common = rng.normal(0, 1, shape[:-1] + (1,))
        return scale * (np.sqrt(1 - shared) * own + np.sqrt(shared) * common)

    larger = inside = 0
    for _ in range(reps):
        mu = rng.normal(0, spread, m)
        public = mu + noise(sigma_public, (m,))
        private = mu + noise(sigma_private, (m,))
        tau = kendall_tau_rows(public[None], private[None])[0]
        worlds = kendall_tau_rows(
            *noise_worlds(
                public, private, noise(sigma_public, (n_resamples, m)), noise(sigma_private, (n_resamples, m))
            )
        )
        larger += (1 + np.sum(worlds <= tau + 1e-12)) / (n_resamples + 1.0) < alpha
        low, high = np.quantile(worlds, [alpha / 2, 1 - alpha / 2])
        inside += low <= tau <= high
    return {
        "competitions": reps,
        "participants": m,
        "spread": spread,
        "sigma_public": sigma_public,
        "sigma_private": sigma_private,
        "shared": shared,
        "tau_larger_than_noise": larger / float(reps),
        "tau_in_band": inside / float(reps),
    }
