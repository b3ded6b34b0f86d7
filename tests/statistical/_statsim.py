"""Monte Carlo studies over test sets drawn from the known populations.

Each study draws ``reps`` test sets of ``n`` items WITHOUT replacement from a
population (:mod:`_statpop`), scores every system on each with the project's
paired engine (:func:`leaderboard_ci.phase.analysis.systems.score_systems`: one set of
resamples serves every system and metric), and returns per-test-set arrays.
Test set ``rep`` depends only on ``(study seed, n, rep)``, and the bootstrap
seed of test set ``rep`` only on ``rep``, so results do not depend on how many
worker processes run them.

Work is spread over processes (``fork``; the population is built before the
pool starts, so the workers share it).  ``LEADERBOARD_CI_STAT_JOBS`` sets
their number (default: the CPUs this process may use, at most 2).
"""

from __future__ import annotations

import gc
import math
import os
import time
from dataclasses import dataclass

import _statpop
import numpy as np

METHODS = ("percentile", "basic", "bca")
ALPHA = 0.05
LEVEL = 0.95

# Systems whose own CIs are checked, and pairs whose difference CIs are checked.
COVERAGE_SYSTEMS = {"classification": ("rf", "logreg"), "regression": ("hgb", "linear")}
COVERAGE_PAIRS = {
    "classification": (("rf", "logreg"), ("logreg", "twin_1")),
    "regression": (("hgb", "linear"), ("linear", "tree")),
}

# Error-rate study: system A against each other system, pre-specified direction "A better".
ERROR_SYSTEMS = {
    "classification": (
        "logreg",
        "twin_1",
        "acc_minus_1",
        "acc_minus_2",
        "acc_minus_5",
        "f1_minus_1",
        "f1_minus_2",
        "f1_minus_5",
    ),
    "regression": ("linear", "linear_twin"),
}
EQUAL_SYSTEMS = ("logreg",) + tuple("twin_%d" % k for k in range(1, 10))
MIX_SYSTEMS = ("logreg", "twin_1", "twin_2", "twin_3", "mix_4", "mix_5", "mix_6", "mix_7", "mix_8", "mix_9")
CORRECTIONS = ("none", "bonferroni", "holm", "fdr_bh")


# ---------------------------------------------------------------------------
# Binomial bookkeeping
# ---------------------------------------------------------------------------
def binomial_se(p, reps):
    """Standard error of a proportion ``p`` estimated from ``reps`` independent repetitions."""
    return math.sqrt(max(p * (1.0 - p), 0.0) / reps)


def rate(hits):
    """``(rate, se)`` of a boolean array."""
    hits = np.asarray(hits, dtype=bool)
    p = float(hits.mean()) if hits.size else float("nan")
    return p, binomial_se(p, hits.size)


def fmt_pct(p, se=None, digits=1):
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "-"
    if se is None:
        return "%.*f" % (digits, 100 * p)
    return "%.*f ± %.*f" % (digits, 100 * p, digits, 100 * se)


# ---------------------------------------------------------------------------
# Processes
# ---------------------------------------------------------------------------
def n_jobs():
    value = os.environ.get("LEADERBOARD_CI_STAT_JOBS")
    if value:
        return max(1, int(value))
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(2, cpus))


_TASK = None
_LIMITS = None


def _init_worker():
    global _LIMITS
    # statsmodels' Holm runs gc.collect() on every call; freezing the (large,
    # long-lived) heap makes that cheap.  BLAS stays single-threaded: the
    # parallelism is across test sets.
    gc.freeze()
    try:
        from threadpoolctl import threadpool_limits

        _LIMITS = threadpool_limits(limits=1)
    except ImportError:  # pragma: no cover
        pass


def _single_threaded():
    try:
        from threadpoolctl import threadpool_limits

        return threadpool_limits(limits=1)
    except ImportError:  # pragma: no cover
        import contextlib

        return contextlib.nullcontext()


def _run_chunk(chunk):
    return [_TASK(rep) for rep in chunk]


def run_reps(task, reps, jobs=None):
    """``[task(0), ..., task(reps - 1)]`` stacked into arrays (dict of arrays per rep)."""
    global _TASK
    jobs = n_jobs() if jobs is None else jobs
    _TASK = task
    started = time.perf_counter()
    chunk = max(1, min(50, reps // (8 * jobs) or 1))
    chunks = [list(range(i, min(i + chunk, reps))) for i in range(0, reps, chunk)]
    ctx = None
    if jobs > 1 and reps >= 4:
        import multiprocessing

        try:
            ctx = multiprocessing.get_context("fork")
        except ValueError:  # no fork on this platform: run here
            ctx = None
    if ctx is None:  # in this process, leaving its gc and BLAS settings as they were
        with _single_threaded():
            results = [task(rep) for rep in range(reps)]
    else:
        with ctx.Pool(jobs, initializer=_init_worker) as pool:
            results = [r for part in pool.imap(_run_chunk, chunks) for r in part]
    _TASK = None
    keys = results[0].keys()
    out = {k: np.stack([np.asarray(r[k]) for r in results]) for k in keys}
    out["_seconds"] = time.perf_counter() - started
    out["_jobs"] = jobs
    return out


# ---------------------------------------------------------------------------
# Test sets
# ---------------------------------------------------------------------------
def draw(population_size, n, study_seed, rep):
    """Item indices of test set ``rep``: ``n`` distinct items of the population."""
    rng = np.random.default_rng([int(study_seed), int(n), int(rep)])
    return np.sort(rng.choice(population_size, size=n, replace=False))


def bootstrap_seed(study_seed, rep):
    return 1_000_003 * int(rep) + int(study_seed)


def rank_order(full, sign, names):
    """As analysis._rank_order: best first by full-sample score, ties broken by name."""
    return sorted(range(len(names)), key=lambda j: (-sign * full[j], names[j]))


@dataclass
class TestSet:
    kind: str
    n: int
    rep: int
    idx: np.ndarray
    gold: object  # GoldStandard
    names: tuple
    predictions: list


def test_set(kind, names, n, study_seed, rep):
    pop = _statpop.population(kind)
    idx = draw(pop.n, n, study_seed, rep)
    gold = _statpop.gold_standard(kind, pop.gold[idx])
    return TestSet(kind, n, rep, idx, gold, tuple(names), [pop.systems[s][idx] for s in names])


# ---------------------------------------------------------------------------
# Coverage of single-system and paired-difference CIs
# ---------------------------------------------------------------------------
class CoverageTask:
    """Endpoints of every CI (3 methods) on one test set."""

    def __init__(self, kind, n, n_resamples, study_seed):
        self.kind, self.n, self.b, self.seed = kind, n, n_resamples, study_seed
        systems = COVERAGE_SYSTEMS[kind]
        pair_names = [s for p in COVERAGE_PAIRS[kind] for s in p]
        self.names = tuple(dict.fromkeys(systems + tuple(pair_names)))
        self.own = [self.names.index(s) for s in systems]
        self.pairs = np.array([[self.names.index(a), self.names.index(b)] for a, b in COVERAGE_PAIRS[kind]])

    def config(self, rep, method="bca", baseline=None):
        return _statpop.config_for(
            self.kind, n_resamples=self.b, seed=bootstrap_seed(self.seed, rep), method=method, baseline=baseline
        )

    def __call__(self, rep):
        from leaderboard_ci.core.intervals import confidence_interval
        from leaderboard_ci.core.pairs import pair_statistics
        from leaderboard_ci.phase.analysis.systems import score_systems

        ts = test_set(self.kind, self.names, self.n, self.seed, rep)
        scores = score_systems(self.config(rep), ts.gold, ts.predictions, ts.names, n_jobs=1)
        n_targets = len(scores.targets)
        own_lo = np.empty((len(METHODS), len(self.own), n_targets))
        own_hi = np.empty_like(own_lo)
        pair_lo = np.empty((len(METHODS), self.pairs.shape[0], n_targets))
        pair_hi = np.empty_like(pair_lo)
        for t, target in enumerate(scores.targets):
            for k, method in enumerate(METHODS):
                for i, j in enumerate(self.own):
                    jk_scores, jk_weights, _ = scores.jackknife[j]
                    iv = confidence_interval(
                        method,
                        scores.replicates[:, j, t],
                        scores.full[j, t],
                        LEVEL,
                        jackknife=(jk_scores[:, t], jk_weights),
                    )
                    own_lo[k, i, t], own_hi[k, i, t] = iv.low, iv.high
                stats = pair_statistics(
                    scores.replicates[:, :, t],
                    scores.full[:, t],
                    self.pairs,
                    target.metric.sign,
                    method,
                    LEVEL,
                    jackknife=scores.jackknife_matrix(t) if method == "bca" else None,
                )
                pair_lo[k, :, t], pair_hi[k, :, t] = stats.ci_low, stats.ci_high
        return {
            "own_lo": own_lo,
            "own_hi": own_hi,
            "pair_lo": pair_lo,
            "pair_hi": pair_hi,
            "own_full": scores.full[self.own],
            "pair_diff": np.stack(
                [
                    target.metric.sign * (scores.full[self.pairs[:, 0], t] - scores.full[self.pairs[:, 1], t])
                    for t, target in enumerate(scores.targets)
                ],
                axis=1,
            ),
        }


def coverage_study(kind, n, reps, n_resamples, study_seed=11):
    """Coverage, misses on each side and mean width of every CI, with binomial SEs."""
    task = CoverageTask(kind, n, n_resamples, study_seed)
    raw = run_reps(task, reps)
    pop = _statpop.population(kind)
    keys = [m if isinstance(m, str) else m["key"] for m in _statpop.metrics_for(kind)]
    signs = [1.0 if k not in ("mae", "mse", "rmse") else -1.0 for k in keys]
    cells = []
    for k, method in enumerate(METHODS):
        for i, system in enumerate(COVERAGE_SYSTEMS[kind]):
            for t, key in enumerate(keys):
                truth = pop.truth[(system, key)]
                cells.append(
                    _cell(
                        "system",
                        kind,
                        n,
                        method,
                        system,
                        key,
                        truth,
                        raw["own_lo"][:, k, i, t],
                        raw["own_hi"][:, k, i, t],
                    )
                )
        for p, (a, b) in enumerate(COVERAGE_PAIRS[kind]):
            for t, key in enumerate(keys):
                truth = signs[t] * (pop.truth[(a, key)] - pop.truth[(b, key)])
                cells.append(
                    _cell(
                        "difference",
                        kind,
                        n,
                        method,
                        "%s - %s" % (a, b),
                        key,
                        truth,
                        raw["pair_lo"][:, k, p, t],
                        raw["pair_hi"][:, k, p, t],
                    )
                )
    return {
        "kind": kind,
        "n": n,
        "reps": reps,
        "n_resamples": n_resamples,
        "seconds": raw["_seconds"],
        "jobs": raw["_jobs"],
        "cells": cells,
    }


def _cell(what, kind, n, method, system, metric, truth, lo, hi):
    covered = (lo <= truth) & (truth <= hi)
    p, se = rate(covered)
    return {
        "what": what,
        "kind": kind,
        "n": n,
        "method": method,
        "system": system,
        "metric": metric,
        "truth": truth,
        "coverage": p,
        "se": se,
        "reps": int(lo.size),
        "miss_interval_below_truth": float(np.mean(hi < truth)),
        "miss_interval_above_truth": float(np.mean(lo > truth)),
        "mean_width": float(np.mean(hi - lo)),
    }


# ---------------------------------------------------------------------------
# Tests of a difference: type I error and power
# ---------------------------------------------------------------------------
class ErrorTask:
    """p-values of A (the first system) against each other system on one test set."""

    def __init__(self, kind, n, n_resamples, n_permutations, study_seed, names=None):
        self.kind, self.n, self.b, self.p, self.seed = kind, n, n_resamples, n_permutations, study_seed
        self.names = tuple(names or ERROR_SYSTEMS[kind])
        self.permutation = bool(n_permutations)

    def config(self, rep):
        return _statpop.config_for(self.kind, n_resamples=self.b, seed=bootstrap_seed(self.seed, rep))

    def __call__(self, rep):
        ts = test_set(self.kind, self.names, self.n, self.seed, rep)
        return pvalues_against_first(self.config(rep), ts, self.p, self.permutation)


def pvalues_against_first(config, ts, n_permutations, permutation=True):
    """For every other system X: p-values of "A better than X" and the data-directed ones.

    Returns arrays ``(X, T)``: ``delta`` (oriented A - X), ``boot_one`` (pre-specified
    A > X, the inversion of the percentile interval, as evaluate() computes _vs_base_p), ``boot_two``
    (pair_statistics' two-sided p, what analyze reports with sides='two'),
    ``boot_dd`` (one-sided p of the better-ranked system, analyze's sides='one'),
    and the same three for the permutation test (NaN when ``permutation`` is False).
    """
    from leaderboard_ci.core.intervals import confidence_interval
    from leaderboard_ci.core.pairs import pair_statistics
    from leaderboard_ci.core.permutation import permutation_pvalues
    from leaderboard_ci.phase.analysis.systems import score_systems
    from leaderboard_ci.tasks.shared.scorer import SystemScorer

    scores = score_systems(config, ts.gold, ts.predictions, ts.names, n_jobs=1)
    m, n_targets = scores.full.shape
    others = range(1, m)
    out = {
        k: np.full((m - 1, n_targets), np.nan)
        for k in ("delta", "boot_sd", "boot_one", "boot_two", "boot_dd", "perm_one", "perm_two", "perm_dd")
    }
    ranked = {}
    for t, target in enumerate(scores.targets):
        sign = target.metric.sign
        full = scores.full[:, t]
        reps = scores.replicates[:, :, t]
        for i, x in enumerate(others):
            delta = sign * (full[0] - full[x])
            out["delta"][i, t] = delta
            out["boot_sd"][i, t] = np.std(reps[:, 0] - reps[:, x], ddof=1)
            out["boot_one"][i, t] = confidence_interval(
                "percentile", sign * (reps[:, 0] - reps[:, x]), delta, LEVEL, scale=max(abs(full[0]), abs(full[x]))
            ).p_greater
            order = rank_order(full[[0, x]], sign, [ts.names[0], ts.names[x]])
            pair = ([0, x][order[0]], [0, x][order[1]])
            ranked[(i, t)] = pair
            st = pair_statistics(reps, full, np.array([pair]), sign, "percentile", LEVEL)
            out["boot_two"][i, t] = st.p_two_sided[0]
            out["boot_dd"][i, t] = st.p_value[0]
    if permutation:
        # The pre-specified orientation (A, X) for every X, and (X, A) where X ranks first.
        wanted = [(0, x) for x in others] + sorted(set(p for p in ranked.values() if p[0] != 0))
        where = {p: k for k, p in enumerate(wanted)}
        pred_matrix = np.stack(ts.predictions, axis=1)
        scorers = [SystemScorer(config.metrics, ts.gold, p, layout="reduced") for p in ts.predictions]
        perm_one, _, perm_two, _ = permutation_pvalues(
            scorers, scores.full, np.array(wanted), pred_matrix, config.bootstrap.seed, n_permutations
        )
        for (i, t), pair in ranked.items():
            out["perm_one"][i, t] = perm_one[i, t]
            out["perm_two"][i, t] = perm_two[i, t]  # symmetric in the orientation
            out["perm_dd"][i, t] = perm_one[where[pair], t]
    return out


def error_study(kind, n, reps, n_resamples, n_permutations, study_seed=23, names=None):
    task = ErrorTask(kind, n, n_resamples, n_permutations, study_seed, names)
    raw = run_reps(task, reps)
    pop = _statpop.population(kind)
    keys = [m if isinstance(m, str) else m["key"] for m in _statpop.metrics_for(kind)]
    names = task.names
    signs = [1.0 if k not in ("mae", "mse", "rmse") else -1.0 for k in keys]
    rows = []
    for i, other in enumerate(names[1:]):
        for t, key in enumerate(keys):
            truth = signs[t] * (pop.truth[(names[0], key)] - pop.truth[(other, key)])
            delta = raw["delta"][:, i, t]
            row = {
                "kind": kind,
                "n": n,
                "a": names[0],
                "b": other,
                "metric": key,
                "true_difference": truth,
                "reps": reps,
                # Is the bootstrap's spread of the difference right?  Its mean SD over test sets
                # against the SD of the observed difference across test sets (the truth).
                "sd_of_difference": float(np.std(delta, ddof=1)),
                "mean_bootstrap_sd": float(np.mean(raw["boot_sd"][:, i, t])),
            }
            for test in ("boot", "perm"):
                if np.isnan(raw["%s_one" % test][:, i, t]).any():
                    continue
                one = raw["%s_one" % test][:, i, t] <= ALPHA
                two = raw["%s_two" % test][:, i, t] <= ALPHA
                dd = raw["%s_dd" % test][:, i, t] <= ALPHA
                row["%s_one_sided" % test] = rate(one)
                row["%s_two_sided" % test] = rate(two)
                row["%s_two_sided_right_direction" % test] = rate(two & (delta > 0))
                row["%s_two_sided_wrong_direction" % test] = rate(two & (delta < 0))
                row["%s_one_sided_data_directed" % test] = rate(dd)
            rows.append(row)
    return {
        "kind": kind,
        "n": n,
        "reps": reps,
        "n_resamples": n_resamples,
        "n_permutations": n_permutations,
        "seconds": raw["_seconds"],
        "jobs": raw["_jobs"],
        "rows": rows,
    }


# ---------------------------------------------------------------------------
# Many systems: family-wise error and false discovery rate
# ---------------------------------------------------------------------------
class FamilyTask:
    """Corrected decisions over all pairs of ``names`` on one test set (analyze's all_pairs family)."""

    def __init__(self, names, n, n_resamples, n_permutations, study_seed, tests=("bootstrap",)):
        self.names, self.n, self.b, self.p, self.seed, self.tests = (
            tuple(names),
            n,
            n_resamples,
            n_permutations,
            study_seed,
            tests,
        )

    def config(self, rep):
        return _statpop.config_for("classification", n_resamples=self.b, seed=bootstrap_seed(self.seed, rep))

    def __call__(self, rep):
        ts = test_set("classification", self.names, self.n, self.seed, rep)
        return family_decisions(self.config(rep), ts, self.p, self.tests)


def family_decisions(config, ts, n_permutations, tests=("bootstrap",)):
    """Per target, test, sides and correction: which pairs are rejected (in rank order).

    Returns ``reject`` of shape ``(T, tests, 2 sides, corrections, P)``, ``pairs``
    ``(T, P, 2)`` (system indices, better-ranked first) and ``delta`` ``(T, P)``.
    """
    from leaderboard_ci.core.pairs import pair_statistics, ranked_pairs
    from leaderboard_ci.core.permutation import permutation_pvalues
    from leaderboard_ci.phase.analysis.corrections import adjust
    from leaderboard_ci.phase.analysis.systems import score_systems
    from leaderboard_ci.tasks.shared.scorer import SystemScorer

    scores = score_systems(config, ts.gold, ts.predictions, ts.names, n_jobs=1)
    m, n_targets = scores.full.shape
    n_pairs = m * (m - 1) // 2
    reject = np.zeros((n_targets, len(tests), 2, len(CORRECTIONS), n_pairs), dtype=bool)
    pairs_out = np.empty((n_targets, n_pairs, 2), dtype=np.intp)
    delta = np.empty((n_targets, n_pairs))
    ranked = []
    for t, target in enumerate(scores.targets):
        pairs = ranked_pairs(rank_order(scores.full[:, t], target.metric.sign, ts.names))
        pairs_out[t] = pairs
        ranked.extend((int(a), int(b)) for a, b in pairs)
    perm = None
    if "permutation" in tests:
        wanted = sorted(set(ranked))
        pred_matrix = np.stack(ts.predictions, axis=1)
        scorers = [SystemScorer(config.metrics, ts.gold, p, layout="reduced") for p in ts.predictions]
        p_one, _, p_two, _ = permutation_pvalues(
            scorers, scores.full, np.array(wanted), pred_matrix, config.bootstrap.seed, n_permutations
        )
        perm = {pair: (p_one[k], p_two[k]) for k, pair in enumerate(wanted)}
    for t, target in enumerate(scores.targets):
        sign = target.metric.sign
        full = scores.full[:, t]
        pairs = pairs_out[t]
        st = pair_statistics(scores.replicates[:, :, t], full, pairs, sign, "percentile", LEVEL)
        delta[t] = st.difference
        for k, test in enumerate(tests):
            if test == "bootstrap":
                sided = (st.p_two_sided, st.p_value)
            else:
                sided = (
                    np.array([perm[(int(a), int(b))][1][t] for a, b in pairs]),
                    np.array([perm[(int(a), int(b))][0][t] for a, b in pairs]),
                )
            for s, p in enumerate(sided):
                for c, method in enumerate(CORRECTIONS):
                    reject[t, k, s, c] = adjust(p, method, ALPHA) <= ALPHA
    return {"reject": reject, "pairs": pairs_out, "delta": delta}


def fwer_study(n, reps, n_resamples, n_permutations, study_seed=31, tests=("bootstrap", "permutation")):
    """Ten systems of equal population quality: P(at least one pair declared different)."""
    raw = run_reps(FamilyTask(EQUAL_SYSTEMS, n, n_resamples, n_permutations, study_seed, tests), reps)
    keys = [m if isinstance(m, str) else m["key"] for m in _statpop.metrics_for("classification")]
    rows = []
    any_reject = raw["reject"].any(axis=-1)  # (reps, T, tests, sides, corrections)
    for t, key in enumerate(keys):
        for k, test in enumerate(tests):
            for s, sides in enumerate(("two", "one")):
                row = {"n": n, "metric": key, "test": test, "sides": sides, "reps": reps, "m": len(EQUAL_SYSTEMS)}
                for c, method in enumerate(CORRECTIONS):
                    row[method] = rate(any_reject[:, t, k, s, c])
                rows.append(row)
    return {
        "n": n,
        "reps": reps,
        "n_resamples": n_resamples,
        "n_permutations": n_permutations,
        "seconds": raw["_seconds"],
        "jobs": raw["_jobs"],
        "rows": rows,
    }


def fdr_study(n, reps, n_resamples, study_seed=37):
    """Ten systems in three quality groups (accuracy exactly equal within a group)."""
    raw = run_reps(FamilyTask(MIX_SYSTEMS, n, n_resamples, 1, study_seed), reps)
    pop = _statpop.population("classification")
    truth = np.array([pop.truth[(s, "accuracy")] for s in MIX_SYSTEMS])
    t = 0  # accuracy (the official metric of the config)
    pairs = raw["pairs"][:, t]  # (reps, P, 2)
    true_diff = truth[pairs[..., 0]] - truth[pairs[..., 1]]  # oriented like delta (a ranked above b)
    null = np.abs(true_diff) < 1e-12
    wrong_direction = (~null) & (true_diff < 0)  # the better-ranked system is truly worse
    rows = []
    for s, sides in enumerate(("two", "one")):
        for c, method in enumerate(CORRECTIONS):
            rejected = raw["reject"][:, t, 0, s, c]  # (reps, P)
            false = rejected & (null | wrong_direction)
            r = rejected.sum(axis=1)
            v = false.sum(axis=1)
            fdp = np.where(r > 0, v / np.maximum(r, 1), 0.0)
            fdr = float(fdp.mean())
            fdr_se = float(fdp.std(ddof=1) / math.sqrt(reps))
            true_effects = (~null).sum(axis=1)
            found = (rejected & ~null & ~wrong_direction).sum(axis=1)
            rows.append(
                {
                    "n": n,
                    "sides": sides,
                    "correction": method,
                    "reps": reps,
                    "fdr": (fdr, fdr_se),
                    "fwer": rate(v > 0),
                    "directional_errors_per_test_set": float((rejected & wrong_direction).sum(axis=1).mean()),
                    "share_of_real_differences_found": float((found / np.maximum(true_effects, 1)).mean()),
                }
            )
    groups = {"L": list(MIX_SYSTEMS[:4]), "L - 2 points": list(MIX_SYSTEMS[4:7]), "L - 5 points": list(MIX_SYSTEMS[7:])}
    return {
        "n": n,
        "reps": reps,
        "n_resamples": n_resamples,
        "seconds": raw["_seconds"],
        "jobs": raw["_jobs"],
        "groups": groups,
        "true_null_pairs": int(null[0].sum()),
        "pairs": int(null.shape[1]),
        "rows": rows,
    }


# ---------------------------------------------------------------------------
# B sensitivity (full run only)
# ---------------------------------------------------------------------------
class BTask:
    def __init__(self, n, bs, study_seed):
        self.n, self.bs, self.seed = n, bs, study_seed

    def __call__(self, rep):
        from leaderboard_ci.core.intervals import confidence_interval
        from leaderboard_ci.phase.analysis.systems import score_systems

        ts = test_set("classification", ("logreg",), self.n, self.seed, rep)
        out = np.empty((len(self.bs), 2, 3))
        for k, b in enumerate(self.bs):
            cfg = _statpop.config_for("classification", n_resamples=b, seed=bootstrap_seed(self.seed, rep))
            scores = score_systems(cfg, ts.gold, ts.predictions, ts.names, n_jobs=1)
            for t in range(3):
                iv = confidence_interval("percentile", scores.replicates[:, 0, t], scores.full[0, t], LEVEL)
                out[k, 0, t], out[k, 1, t] = iv.low, iv.high
        return {"ci": out}


def b_sensitivity_study(n, reps, bs=(1000, 4000), study_seed=41):
    raw = run_reps(BTask(n, bs, study_seed), reps)
    pop = _statpop.population("classification")
    keys = [m if isinstance(m, str) else m["key"] for m in _statpop.metrics_for("classification")]
    rows = []
    for t, key in enumerate(keys):
        truth = pop.truth[("logreg", key)]
        covered = (raw["ci"][:, :, 0, t] <= truth) & (truth <= raw["ci"][:, :, 1, t])  # (reps, len(bs))
        row = {"n": n, "metric": key, "reps": reps, "method": "percentile", "system": "logreg"}
        for k, b in enumerate(bs):
            row["B=%d" % b] = rate(covered[:, k])
        diff = covered[:, 0].astype(float) - covered[:, -1].astype(float)
        row["difference"] = (float(diff.mean()), float(diff.std(ddof=1) / math.sqrt(reps)))
        rows.append(row)
    return {"n": n, "reps": reps, "bs": list(bs), "seconds": raw["_seconds"], "jobs": raw["_jobs"], "rows": rows}
