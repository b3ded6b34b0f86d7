"""Simultaneous inference at any number of systems: the studies behind issue 20's proof.

Population (``population(spec)``): a finite set of ``N = 200,000`` items, each with a
difficulty bin ``h`` (20 bins, probability of a right answer from 0.35 to 0.99).
A BASE system is right on item i with the probability of its bin.  A TWIN is the
base's right/wrong vector permuted among the items of the same bin: its population
accuracy is exactly the base's (the same number of right items) and it is
correlated with every other twin the way real systems are (all right on the easy
items, often wrong on the hard ones).  A DEGRADED twin has ``round(delta * N)`` of
its right items (a fixed random choice) turned wrong: its accuracy is exactly
``delta`` lower.  ``spec`` is a tuple of ``(count, delta)`` groups, so
``((60, 0.0),)`` is 60 systems of exactly equal quality (the complete null) and
``((20, 0), (20, 0.02), (20, 0.05))`` a mixed configuration with ties inside the
groups and real differences between them.

Test sets: ``n`` items drawn without replacement (``_statsim.draw``).  Replicates:
the paired bootstrap of per-item correctness, one resample of the ``n`` items
shared by all systems (a resample's accuracy is its count-weighted mean), drawn
from ``default_rng([seed, rep])``.  Accuracy replicates are exactly what the
product's engine computes for the metric (a mean over the resampled items); the
product's own resample stream is not needed to study the statistics, which are the
product's: :func:`leaderboard_ci.core.simultaneous.maxt_stepdown` and
:func:`~leaderboard_ci.core.simultaneous.rank_sets` on the replicates, Holm
(``phase.analysis.corrections.adjust``, statsmodels) on the marginal two-sided p-values of
:func:`leaderboard_ci.core.pairs.pair_statistics`, pairs oriented by the observed
ranking as ``analyze`` orients them.

``test_stat_simultaneous.py`` asserts the targets; the numbers go to the
statistical report (section ``simultaneous``).
"""

from __future__ import annotations

import json
import math
import os
from functools import lru_cache

import _statsim
import numpy as np
from _statsim import ALPHA, rate

N_POP = 200_000
N_BINS = 20
DIFFICULTY = np.linspace(0.35, 0.99, N_BINS)
LEVEL = 1.0 - ALPHA
FAR = 0.30  # "every run 0.30 or more below the winner is significantly worse than it"


@lru_cache(maxsize=None)
def population(spec, seed=2020):
    """``(correct (N, m) bool, truth (m,))`` for the groups ``spec`` (see the module docstring).

    ``spec = "phase60"``: the 60 runs of issue 20's phase (``_phase60``) as a population:
    gold labels drawn from the sample competition's 10 class shares, run ``noise_q`` right
    on each item independently with probability 1 - q, ``majority_class`` right exactly on
    the items of its class, two random runs right with probability 1/10.
    """
    if spec == "phase60":
        return _phase60_population(seed)
    if spec[0] == "copies":  # ("copies", equal systems, near-copies of the first, population share changed)
        return _copies_population(spec[1], spec[2], spec[3], seed)
    rng = np.random.default_rng([seed, 1])
    h = rng.integers(0, N_BINS, N_POP)
    base = rng.random(N_POP) < DIFFICULTY[h]
    strata = [np.flatnonzero(h == b) for b in range(N_BINS)]
    m = sum(c for c, _ in spec)
    correct = np.empty((N_POP, m), dtype=bool)
    j = 0
    for _g, (count, delta) in enumerate(spec):
        for _ in range(count):
            twin = np.empty(N_POP, dtype=bool)
            for idx in strata:
                twin[idx] = base[idx][rng.permutation(idx.size)]
            k = int(round(delta * N_POP))
            if k:
                right = np.flatnonzero(twin)
                twin[rng.choice(right, size=k, replace=False)] = False
            correct[:, j] = twin
            j += 1
    truth = correct.sum(axis=0) / float(N_POP)
    return correct, truth


def _copies_population(m_equal, n_copies, changed, seed):
    """``m_equal`` twins of equal accuracy, then ``n_copies`` near-copies of the first twin.

    A near-copy is the first twin with ``k = round(changed * N)`` of its right items made wrong
    and ``k`` of its wrong items made right (a fresh random choice per copy): exactly the same
    population accuracy, and on a test set of ``n`` items about ``2 k n / N`` items differ from
    the twin (4 at ``changed = 0.002``, ``n = 1,000``).  Every system is of equal quality: the
    complete null.
    """
    correct, _ = population(((m_equal, 0.0),), seed)
    rng = np.random.default_rng([seed, 33])
    k = int(round(changed * N_POP))
    base = correct[:, 0]
    copies = []
    for _ in range(n_copies):
        c = base.copy()
        c[rng.choice(np.flatnonzero(base), k, replace=False)] = False
        c[rng.choice(np.flatnonzero(~base), k, replace=False)] = True
        copies.append(c)
    correct = np.column_stack([correct] + copies)
    return correct, correct.sum(axis=0) / float(N_POP)


def _phase60_population(seed):
    import _phase60

    rng = np.random.default_rng([seed, 60])
    _, rows = _phase60._read_csv(_phase60.BUNDLE_REF + "/gold.csv")
    _, base = _phase60._read_csv(_phase60.BUNDLE_REF + "/baseline.csv")
    prior = np.bincount([int(r[1]) for r in rows], minlength=10) / float(len(rows))
    gold = rng.choice(10, size=N_POP, p=prior)
    columns = [rng.random(N_POP) < 1.0 - q for q in _phase60.NOISE_LEVELS]
    columns.append(gold == int(base[0][1]))
    random_1 = rng.random(N_POP) < 0.1
    # random_2: random_1 permuted (exactly the same population accuracy: a true tie)
    columns += [random_1, random_1[rng.permutation(N_POP)]]
    correct = np.stack(columns, axis=1)
    return correct, correct.sum(axis=0) / float(N_POP)


def bootstrap_replicates(correct, n_resamples, seed):
    """``(B, m)`` accuracy replicates: every system on the same resamples of the ``n`` items."""
    n = correct.shape[0]
    rng = np.random.default_rng(seed)
    out = np.empty((n_resamples, correct.shape[1]))
    x = correct.astype(np.float64)
    step = max(1, (1 << 22) // n)
    for lo in range(0, n_resamples, step):
        hi = min(lo + step, n_resamples)
        idx = rng.integers(0, n, size=(hi - lo, n))
        counts = np.bincount((idx + n * np.arange(hi - lo)[:, None]).ravel(), minlength=(hi - lo) * n)
        out[lo:hi] = counts.reshape(hi - lo, n) @ x / n
    return out


def ranked_pairs(full, sign=1.0):
    """All pairs, better-ranked system first (``analyze``'s orientation and order)."""
    from leaderboard_ci.core.pairs import ranked_pairs as product_pairs

    names = ["s%04d" % j for j in range(full.size)]
    return product_pairs(_statsim.rank_order(full, sign, names))


def true_rank(truth):
    """``1 + #{systems strictly better}`` in the population."""
    return 1 + (truth[None, :] > truth[:, None]).sum(axis=1)


class FamilyTask:
    """On one test set: maxt and Holm verdicts, family-wise intervals and rank sets against the truth."""

    def __init__(self, spec, n, n_resamples, study_seed, holm=True, ranks=True, plain=False):
        self.spec, self.n, self.b, self.seed = (
            spec if isinstance(spec, str) else tuple(spec),
            n,
            n_resamples,
            study_seed,
        )
        self.holm, self.ranks, self.plain = holm, ranks, plain

    def __call__(self, rep):
        from leaderboard_ci.core.pairs import pair_statistics
        from leaderboard_ci.core.parallel import keep_freed_memory
        from leaderboard_ci.core.simultaneous import maxt_stepdown, rank_sets
        from leaderboard_ci.phase.analysis.corrections import adjust

        keep_freed_memory()  # as the product's entry points do (no page faults per chunk of pairs)
        correct, truth = population(self.spec)
        idx = _statsim.draw(N_POP, self.n, self.seed, rep)
        sample = correct[idx]
        full = sample.mean(axis=0)
        reps = bootstrap_replicates(sample, self.b, [self.seed, rep, 7])
        pairs = ranked_pairs(full)
        a, b = pairs[:, 0], pairs[:, 1]
        true_diff = truth[a] - truth[b]
        null = np.abs(true_diff) < 1e-12
        fam = maxt_stepdown(reps, full, pairs, 1, ALPHA)
        maxt = fam.significant
        # Runs 0.30 or more below the observed winner in the population: detected against the winner?
        winner = pairs[0, 0] if pairs.size else 0
        far = (a == winner) & (true_diff >= FAR - 1e-12)
        out = {
            "maxt_false": bool((maxt & (null | (true_diff < 0))).any()),  # a rejection with the wrong sign or of a tie
            "maxt_false_null": bool((maxt & null).any()),
            "maxt_found": float((maxt & (true_diff > 0)).sum() / max(1, (~null).sum())),
            "maxt_rejections": int(maxt.sum()),
            "far": int(far.sum()),
            "maxt_far_found": int((maxt & far).sum()),
            # the simultaneous intervals the report shows (single-step max-t, near-copies balanced)
            "fw_covered": bool(np.all((fam.low <= true_diff) & (true_diff <= fam.high))),
            # delta -/+ c_1 * se for every pair (the same, but for near-copies)
            "c1_covered": bool(np.all(np.abs(full[a] - full[b] - true_diff) <= fam.critical_simultaneous * fam.se)),
            "critical_simultaneous": fam.critical_simultaneous,
            "steps": fam.steps,
            "direction_only": int(fam.direction_only.sum()),
            "near_copies": int(fam.near_copy.sum()),
            # the intervals shown before issue 33: delta -/+ c_s se with the step that decided the pair
            "stepwise_covered": bool(np.all(np.abs(full[a] - full[b] - true_diff) <= fam.critical * fam.se)),
        }
        if self.plain:  # today's studentized maximum for every pair, on the same replicates
            plain = maxt_stepdown(reps, full, pairs, 1, ALPHA, balance=False)
            out["plain_false"] = bool((plain.significant & (null | (true_diff < 0))).any())
            out["plain_covered"] = bool(np.all((plain.low <= true_diff) & (true_diff <= plain.high)))
            out["plain_critical"] = plain.critical_simultaneous
        if self.holm:
            st = pair_statistics(reps, full, pairs, 1, "percentile", LEVEL)
            holm = adjust(np.asarray(st.p_two_sided), "holm", ALPHA) <= ALPHA
            out.update(
                {
                    "holm_false": bool((holm & (null | (true_diff < 0))).any()),
                    "holm_false_null": bool((holm & null).any()),
                    "holm_found": float((holm & (true_diff > 0)).sum() / max(1, (~null).sum())),
                    "holm_rejections": int(holm.sum()),
                    "holm_far_found": int((holm & far).sum()),
                }
            )
        if self.ranks:
            rs = rank_sets(reps, full, 1, ALPHA, family_test=fam, pairs=pairs)
            r = true_rank(truth)
            inside = (rs.low <= r) & (r <= rs.high)
            inside_m = (rs.low_marginal <= r) & (r <= rs.high_marginal)
            out.update(
                {
                    "ranks_covered": bool(inside.all()),
                    "marginal_covered": inside_m,
                    "rank_width": float(np.mean(rs.high - rs.low)),
                    "marginal_width": float(np.mean(rs.high_marginal - rs.low_marginal)),
                }
            )
        return out


class _Shifted(object):
    """Test sets ``first, first + 1, ...`` of ``task`` (a batch of a longer study)."""

    def __init__(self, task, first):
        self.task, self.first = task, first

    def __call__(self, rep):
        return self.task(self.first + rep)


def family_study(spec, n, reps, n_resamples, study_seed, holm=True, ranks=True, label=None, plain=False, first=0):
    """Rates over ``reps`` test sets (``first`` to ``first + reps - 1``), each with its binomial SE."""
    spec = spec if isinstance(spec, str) else tuple(spec)
    population(spec)  # built before the workers fork
    task = FamilyTask(spec, n, n_resamples, study_seed, holm, ranks, plain)
    raw = _statsim.run_reps(_Shifted(task, first) if first else task, reps)
    m = population(spec)[1].size
    row = {
        "label": label or "m=%d" % m,
        "m": m,
        "spec": spec if isinstance(spec, str) or spec[0] == "copies" else [list(g) for g in spec],
        "n": n,
        "reps": reps,
        "first": first,
        "n_resamples": n_resamples,
        "pairs": m * (m - 1) // 2,
        "seconds": raw["_seconds"],
        "jobs": raw["_jobs"],
        "maxt_fwer": rate(raw["maxt_false"]),
        "maxt_fwer_nulls_only": rate(raw["maxt_false_null"]),
        "maxt_share_found": float(np.mean(raw["maxt_found"])),
        "maxt_mean_rejections": float(np.mean(raw["maxt_rejections"])),
        "far_runs_per_test_set": float(np.mean(raw["far"])),
        "maxt_share_far_found": _share(raw["maxt_far_found"], raw["far"]),
        "fw_interval_coverage": rate(raw["fw_covered"]),
        "single_step_interval_coverage": rate(raw["c1_covered"]),
        "mean_critical_simultaneous": float(np.mean(raw["critical_simultaneous"])),
        "mean_steps": float(np.mean(raw["steps"])),
        "stepwise_interval_coverage": rate(raw["stepwise_covered"]),
        "mean_direction_only": float(np.mean(raw["direction_only"])),
        "mean_near_copies": float(np.mean(raw["near_copies"])),
    }
    if plain:
        row.update(
            {
                "plain_fwer": rate(raw["plain_false"]),
                "plain_interval_coverage": rate(raw["plain_covered"]),
                "mean_plain_critical": float(np.mean(raw["plain_critical"])),
            }
        )
    if holm:
        row.update(
            {
                "holm_fwer": rate(raw["holm_false"]),
                "holm_fwer_nulls_only": rate(raw["holm_false_null"]),
                "holm_share_found": float(np.mean(raw["holm_found"])),
                "holm_mean_rejections": float(np.mean(raw["holm_rejections"])),
                "holm_share_far_found": _share(raw["holm_far_found"], raw["far"]),
            }
        )
    if ranks:
        marginal = raw["marginal_covered"]  # (reps, m)
        per_system = marginal.mean(axis=0)
        worst = int(np.argmin(per_system))
        row.update(
            {
                "rank_set_coverage": rate(raw["ranks_covered"]),
                "marginal_rank_coverage_mean": float(per_system.mean()),
                "marginal_rank_coverage_worst": (
                    float(per_system[worst]),
                    _statsim.binomial_se(float(per_system[worst]), reps),
                ),
                "marginal_rank_worst_system": worst,
                "mean_rank_set_width": float(np.mean(raw["rank_width"])),
                "mean_marginal_rank_set_width": float(np.mean(raw["marginal_width"])),
            }
        )
    log = os.environ.get("LEADERBOARD_CI_STAT_ROWS")
    if log:  # one JSON line per study as soon as it is done (long full runs)
        with open(log, "a") as handle:
            handle.write(json.dumps(row, default=float) + "\n")
    return row


def _share(found, total):
    total = int(np.sum(total))
    return float(np.sum(found)) / total if total else None


def fmt_rate(pair):
    return _statsim.fmt_pct(pair[0], pair[1], 2 if pair[0] < 0.1 else 1)


def se(p, reps):
    return math.sqrt(p * (1 - p) / reps)
