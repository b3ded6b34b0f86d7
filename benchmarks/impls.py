"""Implementations: ours and the peers, as runnable closures.

Imported by the parent (for metadata only: no heavy imports at module level)
and by ``child.py``, which calls ``IMPLEMENTATIONS[name].build(ctx)`` to get a
function ``run(n_resamples) -> dict``; only calls of that function are timed.

``run`` returns ``{"score": float|None, "ci": [low, high]|None, "head": [...]|None}``
where ``head`` holds the first replicate values (up to 64) when the
implementation used *our* resamples, so the parent can check that they equal
ours exactly.
"""

from __future__ import annotations

import functools
import inspect
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Optional, Tuple

import numpy as np

HEAD = 64
SEED = 12345  # the project's default seed; every case uses it
CONFIDENCE = 0.95
LABELS = (0, 1, 2)  # classification3's / systems3's class codes
CORRECTIONS = ("bonferroni", "holm", "fdr_bh")  # end of phase: all pairs under these three
COMPSTATS_JOBS = 1  # StatisticSamples/performance n_jobs for CompStats (see README: 1 measured faster than -1)


@dataclass(frozen=True)
class Impl:
    name: str
    label: str
    env: str  # "project" (this interpreter) or "peers" (benchmarks/.venv-peers)
    build: Callable
    same_resamples: bool  # uses leaderboard_ci.core.resampling's replicates
    scalable: bool = True  # may run at a smaller B and scale linearly
    requires: Tuple[str, ...] = ()  # import names; a missing one skips the impl with a reason
    path: Optional[str] = None  # prepended to sys.path ("scoring_program")
    notes: str = ""
    index_matrix: bool = False  # materializes a (B, n) int64 index matrix (memory ~ 8*B*n bytes)


# ---------------------------------------------------------------------------
# Statistics for the peers
# ---------------------------------------------------------------------------
def _last_axis(x, axis):
    x = np.asarray(x)
    return x if axis in (-1, x.ndim - 1) else np.moveaxis(x, axis, -1)


def vec_f1_macro(y, p, axis=-1, k=len(LABELS)):  # noqa: B008 (a constant)
    """Macro-F1 of every row (resample) at once: one bincount of gold*K+pred codes.

    ``y`` and ``p`` are integer class codes in ``[0, k)`` of shape ``(..., n)``
    (scipy passes ``(batch, n)``).  Averages over all ``k`` classes with
    zero_division=0, like ``f1_score(average='macro', labels=range(k))``.
    """
    y = _last_axis(y, axis)
    p = _last_axis(p, axis)
    lead, m = y.shape[:-1], y.shape[-1]
    codes = y.reshape(-1, m) * k + p.reshape(-1, m)  # new (R, m) int64 array
    rows = codes.shape[0]
    codes += (np.arange(rows, dtype=codes.dtype) * (k * k))[:, None]
    cm = np.bincount(codes.ravel(), minlength=rows * k * k).reshape(rows, k, k)
    tp = np.diagonal(cm, axis1=1, axis2=2)
    den = cm.sum(axis=1) + cm.sum(axis=2)  # predicted + true per class
    f1 = np.divide(2.0 * tp, den, out=np.zeros(den.shape), where=den > 0)
    return f1.mean(axis=-1).reshape(lead)


def vec_accuracy(y, p, axis=-1):
    return np.mean(np.asarray(y) == np.asarray(p), axis=axis)


def vec_mae(y, p, axis=-1):
    return np.mean(np.abs(np.asarray(y) - np.asarray(p)), axis=axis)


def vec_pearson(y, p, axis=-1):
    y = _last_axis(y, axis)
    p = _last_axis(p, axis)
    dy = y - y.mean(axis=-1, keepdims=True)
    dp = p - p.mean(axis=-1, keepdims=True)
    num = np.einsum("...i,...i->...", dy, dp)
    den = np.sqrt(np.einsum("...i,...i->...", dy, dy) * np.einsum("...i,...i->...", dp, dp))
    return np.divide(num, den, out=np.zeros(np.shape(num)), where=den > 0)


def _one_statistic(metric):
    """The per-resample statistic a user of scikit-learn / SciPy would call."""
    if metric == "f1_macro":
        from sklearn.metrics import f1_score

        return functools.partial(f1_score, average="macro", labels=list(LABELS), zero_division=0)
    if metric == "accuracy":
        from sklearn.metrics import accuracy_score

        return accuracy_score
    if metric == "mae":
        from sklearn.metrics import mean_absolute_error

        return mean_absolute_error
    if metric == "pearson":  # scikit-learn has no Pearson r: SciPy's
        from scipy.stats import pearsonr

        def pearson(y, p):
            return pearsonr(y, p)[0]

        return pearson
    raise KeyError(metric)


STATISTICS = {"f1_macro": vec_f1_macro, "accuracy": vec_accuracy, "mae": vec_mae, "pearson": vec_pearson}

ONE_STATISTIC_NOTES = {
    "f1_macro": "sklearn.metrics.f1_score(average='macro')",
    "accuracy": "sklearn.metrics.accuracy_score",
    "mae": "sklearn.metrics.mean_absolute_error",
    "pearson": "scipy.stats.pearsonr (sklearn has no Pearson)",
}


def _percentile_ci(values):
    a = 100.0 * (1.0 - CONFIDENCE) / 2.0
    lo, hi = np.percentile(values, [a, 100.0 - a])
    return [float(lo), float(hi)]


def _head(values):
    return [float(v) for v in np.asarray(values, dtype=np.float64)[:HEAD]]


# ---------------------------------------------------------------------------
# Ours
# ---------------------------------------------------------------------------
def _build_ours(n_jobs):
    def build(ctx):
        if ctx["workload"].get("kind") == "end_of_phase":
            return _build_ours_eop(ctx, n_jobs)
        from leaderboard_ci.scoring.config import parse_config
        from leaderboard_ci.scoring.evaluation import evaluate
        from leaderboard_ci.tasks.shared.scorer import GoldStandard

        data, workload = ctx["data"], ctx["workload"]
        classification = data["gold"].dtype.kind in "iu"
        labels = tuple(str(c) for c in LABELS) if classification else None
        baseline = data["baseline"] if workload["baseline"] else None

        def run(n_resamples):
            raw = {
                "metric": workload["metric"],
                "bootstrap": {
                    "n_resamples": int(n_resamples),
                    "seed": SEED,
                    "method": "percentile",
                    "confidence_level": CONFIDENCE,
                    "n_jobs": n_jobs,
                },
            }
            if baseline is not None:
                raw["baseline"] = {"file": "baseline.csv", "name": "baseline"}
            config = parse_config(raw)
            gold = GoldStandard(values=data["gold"], labels=labels)
            result = evaluate(config, gold, data["pred"], baseline=baseline)
            if baseline is not None:
                b = result.baseline[0]
                return {"score": b.difference, "ci": [b.interval.low, b.interval.high], "head": _head(b.replicates)}
            s = result.official
            return {"score": s.score, "ci": [s.interval.low, s.interval.high], "head": _head(s.replicates)}

        return run

    return build


# ---------------------------------------------------------------------------
# Peers
# ---------------------------------------------------------------------------
def scipy_batch(n, draws=1 << 21):
    """Resamples per scipy batch: ~2M draws (16 MiB of int64 indices) per batch.

    scipy's default (batch=None) would materialize all B x n indices at once
    (80 GB at n=1e6).  A sweep of 2**18..2**23 draws per batch (min of 3, on
    the shared, busy reference machine) gave 16.7 ns/draw for 2**21 vs 16.7
    best at n=1e5, and 18.8 vs 13.7 best (2**22) at n=1e4: scipy's n=1e4
    times may be up to ~25% pessimistic.  See README.
    """
    return max(1, draws // int(n))


def build_scipy(ctx):
    from scipy import stats

    data, workload, n = ctx["data"], ctx["workload"], ctx["n"]
    vec = STATISTICS[workload["metric"]]
    if workload["baseline"]:

        def statistic(y, p, q, axis=-1):
            return vec(y, p, axis=axis) - vec(y, q, axis=axis)

        samples = (data["gold"], data["pred"], data["baseline"])
    else:
        statistic = vec
        samples = (data["gold"], data["pred"])
    seed_kw = "rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state"
    batch = ctx.get("scipy_batch") or scipy_batch(n)

    def run(n_resamples):
        res = stats.bootstrap(
            samples,
            statistic,
            vectorized=True,
            paired=True,
            n_resamples=int(n_resamples),
            method="percentile",
            confidence_level=CONFIDENCE,
            batch=batch,
            **{seed_kw: np.random.default_rng(SEED)},
        )
        ci = res.confidence_interval
        return {"score": float(statistic(*samples)), "ci": [float(ci.low), float(ci.high)], "head": None}

    return run


def _paired_one(workload):
    one = _one_statistic(workload["metric"])
    if workload["baseline"]:

        def diff(y, p, q):
            return one(y, p) - one(y, q)

        return diff
    return one


def _statistic_and_arrays(ctx):
    """The per-resample statistic (a difference when the workload has a baseline), its input arrays, and n."""
    data, workload = ctx["data"], ctx["workload"]
    arrays = [data["gold"], data["pred"]] + ([data["baseline"]] if workload["baseline"] else [])
    return _paired_one(workload), arrays, ctx["n"]


def build_sklearn_loop(ctx):
    from leaderboard_ci.core.resampling import iter_index_blocks

    stat, arrays, n = _statistic_and_arrays(ctx)

    def run(n_resamples):
        values = np.empty(int(n_resamples))
        for r0, _, idx in iter_index_blocks(SEED, n, 0, int(n_resamples)):
            for k, row in enumerate(idx):
                values[r0 + k] = stat(*[a[row] for a in arrays])
        return {"score": float(stat(*arrays)), "ci": _percentile_ci(values), "head": _head(values)}

    return run


def build_compstats(ctx):
    from CompStats import StatisticSamples

    from leaderboard_ci.core.resampling import replicate_indices

    stat, arrays, n = _statistic_and_arrays(ctx)

    def run(n_resamples):
        samples = StatisticSamples(statistic=stat, num_samples=int(n_resamples))
        samples._samples = replicate_indices(SEED, n, 0, int(n_resamples))  # our resamples
        values = samples(*arrays)
        return {"score": float(stat(*arrays)), "ci": _percentile_ci(values), "head": _head(values)}

    return run


def build_bootci(ctx):
    from BootCI.paired_bootstrap_interval import Bootstrap

    data, workload = ctx["data"], ctx["workload"]
    one = _one_statistic(workload["metric"])

    def stat(x, y):  # BootCI calls stat(predictions, truth)
        return one(y, x)

    def run(n_resamples):
        np.random.seed(SEED)  # BootCI draws its own resamples with np.random.randint
        b = Bootstrap(data["pred"], data["baseline"], data["gold"], stat=stat, n_iter=int(n_resamples))
        dist = b.get_distribution()
        # BootCI's own method='percentile' reflects around theta (a "basic" interval);
        # take the percentile interval of its distribution so the numbers compare with ours.
        return {"score": float(b.theta), "ci": _percentile_ci(dist), "head": None}

    return run


# ---------------------------------------------------------------------------
# End of phase: ours
# ---------------------------------------------------------------------------
def _eop_inputs(data):
    """Gold and coded predictions as the end-of-phase command holds them (built before timing)."""
    from leaderboard_ci.tasks.shared.scorer import GoldStandard

    gold = GoldStandard(values=np.ascontiguousarray(data["gold"], dtype=np.intp), labels=tuple(str(c) for c in LABELS))
    names = [str(x) for x in data["names"]]
    systems = OrderedDict((name, np.ascontiguousarray(data["preds"][j], dtype=np.intp)) for j, name in enumerate(names))
    return gold, systems, names


_STAGES = {}


def _instrument_analysis():
    """Time the stages of analyze(): wrappers on the names the analysis modules call (~1 us per call).

    Each stage function is wrapped in every module of ``leaderboard_ci.phase.analysis`` that holds
    it; a name the code no longer uses is skipped (the stages are a breakdown, not the timing).
    """
    import importlib

    import leaderboard_ci.phase.analysis as analysis

    if getattr(analysis, "_benchmark_instrumented", False):
        return analysis
    modules = [
        importlib.import_module("leaderboard_ci.phase.analysis." + name)
        for name in ("analysis", "blocked", "blocks", "targets")
    ]
    for attr, stage in (
        ("score_block", "score_systems"),
        ("pair_statistics", "pair_statistics"),
        ("adjust_within", "corrections"),
        ("letter_groups", "letters"),
        ("competition_indicators", "indicators"),
    ):
        for module in modules:
            original = getattr(module, attr, None)
            if original is None:
                continue

            def wrapper(*args, _original=original, _stage=stage, **kwargs):
                t = time.perf_counter()
                try:
                    return _original(*args, **kwargs)
                finally:
                    _STAGES[_stage] = _STAGES.get(_stage, 0.0) + time.perf_counter() - t

            setattr(module, attr, wrapper)
    analysis._benchmark_instrumented = True
    return analysis


def _eop_summary(result, names):
    target = result.official
    ranked = list(target.systems["name"])
    col = ranked.index(names[0])
    ind = target.indicators
    winner = target.systems.iloc[0]
    return {
        "score": float(winner["score"]),
        "ci": [float(winner["ci_low"]), float(winner["ci_high"])],
        "head": _head(target.replicates[:, col]),
        "summary": {
            "winner": target.winner,
            "pairs": int(len(target.pairs)),
            "non_significant_pairs": dict(ind["non_significant_pairs"]),
            "ties_with_winner": dict(ind["ties_with_winner"]),
        },
    }


def _build_ours_eop(ctx, n_jobs, dask=None, workers=None):
    analysis = _instrument_analysis()
    gold, systems, names = _eop_inputs(ctx["data"])
    metric = ctx["workload"]["metric"]

    def run(n_resamples):
        _STAGES.clear()
        t = time.perf_counter()
        result = analysis.analyze(
            gold,
            systems,
            metric=metric,
            n_resamples=int(n_resamples),
            seed=SEED,
            confidence_level=CONFIDENCE,
            corrections=list(CORRECTIONS),
            execution=analysis.Execution(n_jobs=n_jobs, dask=dask, workers=workers),
        )
        total = time.perf_counter() - t
        out = _eop_summary(result, names)
        stages = dict(_STAGES)
        stages["other"] = total - sum(stages.values())
        out["stages"] = stages
        return out

    return run


def _time_local_cluster():
    """Make dask.distributed.LocalCluster record its start and close times in the stages.

    DaskRunner imports LocalCluster when it is opened, so patching the
    module attribute first is enough; the stage "score_systems" then excludes
    the cluster's start ("cluster_start") and shutdown ("cluster_close").
    """
    import dask.distributed as dd

    if getattr(dd.LocalCluster, "_benchmark_timed", False):
        return
    base = dd.LocalCluster

    class TimedLocalCluster(base):
        _benchmark_timed = True

        def __init__(self, *args, **kwargs):
            t = time.perf_counter()
            try:
                super().__init__(*args, **kwargs)
            finally:
                _STAGES["cluster_start"] = _STAGES.get("cluster_start", 0.0) + time.perf_counter() - t

        def close(self, *args, **kwargs):
            t = time.perf_counter()
            try:
                return super().close(*args, **kwargs)
            finally:
                _STAGES["cluster_close"] = _STAGES.get("cluster_close", 0.0) + time.perf_counter() - t

    dd.LocalCluster = TimedLocalCluster


def _build_ours_dask(n_workers):
    def build(ctx):
        _time_local_cluster()
        # Execution(dask="local") starts a LocalCluster with n_workers single-threaded worker processes
        # on every analyze() call and closes it afterwards: that cost is part of the time.
        run = _build_ours_eop(ctx, 1, dask="local", workers=n_workers)

        def run_dask(n_resamples):
            out = run(n_resamples)
            st = out["stages"]
            cluster = st.get("cluster_start", 0.0) + st.get("cluster_close", 0.0)
            # score_systems included the cluster's start and close, which "other" then subtracted twice
            st["score_systems"] = st.get("score_systems", 0.0) - cluster  # spans on workers, scatter, gather
            st["other"] = st.get("other", 0.0) + cluster
            return out

        return run_dask

    return build


# ---------------------------------------------------------------------------
# End of phase: peers (on our resamples)
# ---------------------------------------------------------------------------
def _eop_pairs(full):
    """All pairs (a, b), a ranked above b by full-sample score (higher is better), like ours."""
    order = np.argsort(-np.asarray(full), kind="stable")
    rows, cols = np.triu_indices(order.shape[0], k=1)
    return order[rows], order[cols]


def build_sklearn_loop_eop(ctx):
    """A plain scikit-learn loop: f1_score per system per replicate, then numpy for the pairs."""
    from statsmodels.stats.multitest import multipletests

    from leaderboard_ci.core.resampling import iter_index_blocks

    data, n = ctx["data"], ctx["n"]
    f1 = _one_statistic(ctx["workload"]["metric"])
    gold = np.asarray(data["gold"], dtype=np.int64)
    preds = np.asarray(data["preds"], dtype=np.int64)
    m = preds.shape[0]
    alpha = 100.0 * (1.0 - CONFIDENCE) / 2.0

    def run(n_resamples):
        B = int(n_resamples)
        reps = np.empty((B, m))
        for r0, _, idx in iter_index_blocks(SEED, n, 0, B):
            for k, row in enumerate(idx):
                y = gold[row]
                for j in range(m):
                    reps[r0 + k, j] = f1(y, preds[j, row])
        full = np.array([f1(gold, preds[j]) for j in range(m)])
        system_ci = np.percentile(reps, [alpha, 100.0 - alpha], axis=0)
        a, b = _eop_pairs(full)
        P = a.shape[0]
        lo, hi, p_one, p_two = (np.empty(P) for _ in range(4))
        step = max(1, (8 << 20) // B)  # ~64 MB of differences at a time
        for s in range(0, P, step):
            sl = slice(s, s + step)
            d = reps[:, a[sl]] - reps[:, b[sl]]
            delta = full[a[sl]] - full[b[sl]]
            lo[sl], hi[sl] = np.percentile(d, [alpha, 100.0 - alpha], axis=0)
            p_one[sl] = ((d >= 2.0 * delta).sum(axis=0) + 1.0) / (B + 1.0)
            p_two[sl] = ((np.abs(d - delta) >= np.abs(delta)).sum(axis=0) + 1.0) / (B + 1.0)
        adjusted = {c: multipletests(p_two, alpha=0.05, method=c)[1] for c in CORRECTIONS} if P else {}
        w = int(np.argmax(full))
        return {
            "score": float(full[w]),
            "ci": [float(system_ci[0, w]), float(system_ci[1, w])],
            "head": _head(reps[:, 0]),
            "summary": {
                "pairs": int(P),
                "non_significant_pairs": {c: int(np.count_nonzero(v > 0.05)) for c, v in adjusted.items()},
            },
        }

    return run


def build_compstats_eop(ctx):
    """CompStats 0.1.15: performance + difference + all_differences, CIs, p-values, 3 corrections."""
    import pandas as pd
    from CompStats import StatisticSamples, all_differences, difference, performance
    from CompStats.measurements import CI, difference_p_value
    from statsmodels.stats.multitest import multipletests

    from leaderboard_ci.core.resampling import replicate_indices

    data, n = ctx["data"], ctx["n"]
    f1 = _one_statistic(ctx["workload"]["metric"])
    names = [str(x) for x in data["names"]]
    frame = pd.DataFrame(
        OrderedDict(
            [("y", np.asarray(data["gold"], dtype=np.int64))]
            + [(name, np.asarray(data["preds"][j], dtype=np.int64)) for j, name in enumerate(names)]
        )
    )

    def run(n_resamples):
        B = int(n_resamples)
        samples = StatisticSamples(statistic=f1, num_samples=B, n_jobs=COMPSTATS_JOBS)
        samples._samples = replicate_indices(SEED, n, 0, B)  # our resamples (CompStats: np.random.randint)
        perf = performance(frame, gold="y", score=f1, num_samples=B, n_jobs=COMPSTATS_JOBS, statistic_samples=samples)
        system_ci = CI(perf)
        diff = difference(perf)  # every system vs the best
        _diff_ci, diff_p = CI(diff), difference_p_value(diff)  # timed as the peer computes it
        pairs = all_differences(perf)  # all m(m-1)/2 pairs
        pair_ci, pair_p = CI(pairs), difference_p_value(pairs)
        p = np.array(list(pair_p.values()), dtype=np.float64)
        adjusted = {c: multipletests(p, alpha=0.05, method=c)[1] for c in CORRECTIONS} if p.size else {}
        best = diff.info["best"]
        return {
            "score": float(f1(frame["y"], frame[best])),
            "ci": [float(x) for x in system_ci[best]],
            "head": _head(perf.calls[names[0]]),
            "summary": {
                "winner": best,
                "pairs": int(len(pair_ci)),
                "vs_best": int(len(diff_p)),
                "non_significant_pairs": {c: int(np.count_nonzero(v > 0.05)) for c, v in adjusted.items()},
            },
        }

    return run


def _dispatch(per_submission, end_of_phase):
    def build(ctx):
        if ctx["workload"].get("kind") == "end_of_phase":
            return end_of_phase(ctx)
        return per_submission(ctx)

    return build


IMPLEMENTATIONS = {
    impl.name: impl
    for impl in [
        Impl(
            "ours",
            "ours (n_jobs=auto)",
            "project",
            _build_ours("auto"),
            same_resamples=True,
            scalable=False,
            path="scoring_program",
            notes="per submission: evaluate() (parse_config + GoldStandard + bootstrap + CI); end of phase: analyze()",
        ),
        Impl(
            "ours-1job",
            "ours (n_jobs=1)",
            "project",
            _build_ours(1),
            same_resamples=True,
            scalable=False,
            path="scoring_program",
        ),
        Impl(
            "ours-dask1",
            "ours, Dask 1 local worker",
            "project",
            _build_ours_dask(1),
            same_resamples=True,
            scalable=False,
            requires=("dask", "distributed"),
            path="scoring_program",
            notes="analyze(..., execution=Execution(dask='local', workers=1))",
        ),
        Impl(
            "ours-dask2",
            "ours, Dask 2 local workers",
            "project",
            _build_ours_dask(2),
            same_resamples=True,
            scalable=False,
            requires=("dask", "distributed"),
            path="scoring_program",
            notes="analyze(..., execution=Execution(dask='local', workers=2))",
        ),
        Impl(
            "scipy",
            "scipy.stats.bootstrap",
            "peers",
            build_scipy,
            same_resamples=False,
            requires=("scipy",),
            notes="vectorized=True, paired=True, method='percentile', own resamples, batch ~2M draws",
        ),
        Impl(
            "sklearn-loop",
            "sklearn loop",
            "peers",
            _dispatch(build_sklearn_loop, build_sklearn_loop_eop),
            same_resamples=True,
            requires=("sklearn",),
            path="scoring_program",
            notes="one metric call per resample (end of phase: per system per resample) on our index rows; "
            "end of phase: pair differences, percentile CIs, p-values in numpy, statsmodels corrections",
        ),
        Impl(
            "compstats",
            "CompStats 0.1.15",
            "peers",
            _dispatch(build_compstats, build_compstats_eop),
            same_resamples=True,
            requires=("CompStats",),
            path="scoring_program",
            index_matrix=True,
            notes="StatisticSamples(statistic=<sklearn metric>) with _samples = our index matrix; end of phase: "
            "performance + difference + all_differences, CI, difference_p_value, statsmodels corrections",
        ),
        Impl(
            "bootci",
            "BootCI 1.0.1",
            "peers",
            build_bootci,
            same_resamples=False,
            requires=("BootCI",),
            index_matrix=True,
            notes="Bootstrap(x1, x2, y, stat).get_distribution(); own resamples",
        ),
    ]
}
