"""The workload registry: what the benchmark runs, at which sizes, with whom.

Adding a workload is one :func:`register` call here (plus, for a new kind of
statistic, an entry in ``impls.STATISTICS`` / a new implementation in
``impls.IMPLEMENTATIONS``).  ``run.py`` picks workloads by ``group``
(``--only per_submission``) or by name (``--only f1_macro``).

Sizes are per mode: ``quick`` (a smoke run, about a minute), ``full`` and
``ratios`` (the cases whose peer ratios the docs quote, ours and the peers
only, about ten minutes per group: ``run.py --ratios``).
Sizes are ``(n, B)`` for one submission and ``(m, n, B)`` for the
end-of-phase analysis of ``m`` systems.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

OURS = ("ours", "ours-1job")
PEERS = ("scipy", "sklearn-loop", "compstats")
EOP_PEERS = ("compstats", "sklearn-loop")
DASK = ("ours-dask1", "ours-dask2")


@dataclass(frozen=True)
class Target:
    """A performance target of ours (n_jobs='auto') on one case.

    ``m`` is the number of systems (end of phase; None for one submission).
    With ``peer`` set, the target is a speed ratio instead: ``peer``'s time /
    ours >= ``min_ratio`` (``seconds`` is then ignored).
    """

    n: int
    n_resamples: int
    seconds: Optional[float] = None
    rss_mb: Optional[float] = None
    modes: Tuple[str, ...] = ("full",)
    m: Optional[int] = None
    peer: Optional[str] = None
    min_ratio: Optional[float] = None
    report_rss: bool = False  # no limit, but state the peak RSS

    def describe(self):
        where = ("m=%s " % _human(self.m) if self.m else "") + "n=%s B=%s" % (_human(self.n), _human(self.n_resamples))
        if self.peer is not None:
            return "%s: at least %gx faster than %s" % (where, self.min_ratio, self.peer)
        text = "%s: time < %g s" % (where, self.seconds)
        if self.rss_mb is not None:
            text += ", peak RSS < %g MB" % self.rss_mb
        return text


@dataclass(frozen=True)
class Workload:
    name: str
    group: str
    title: str
    data: str  # a key of datasets.GENERATORS
    metric: str  # the config's metric (ours) and impls.STATISTICS key (peers)
    sizes: Dict[str, List[Tuple[int, ...]]]  # mode -> [(n, B), ...] or, with systems, [(m, n, B), ...]
    impls: Tuple[str, ...] = OURS + PEERS
    quick_impls: Optional[Tuple[str, ...]] = None  # a subset for --quick (peer imports cost ~1-2.5 s each)
    axis: str = "n"  # which size varies: "m", "n" or "B" (for the plot)
    fit_axes: Tuple[str, ...] = ()  # growth exponents along these axes (default: (axis,))
    baseline: bool = False  # also score a baseline system (paired difference)
    targets: Tuple[Target, ...] = ()
    notes: str = ""
    kind: str = "per_submission"  # "per_submission" (evaluate) or "end_of_phase" (analyze over m systems)
    always_scale: Tuple[str, ...] = ("sklearn-loop",)  # peers always run at a smaller B (<= B/10) and scaled
    peer_max_m: Optional[int] = None  # peers are not run above this many systems (reason in the table)
    extra: Dict[str, object] = field(default_factory=dict)

    def cases(self, mode):
        """``[(m, n, B), ...]``; m = 1 for one submission."""
        return [tuple(s) if len(s) == 3 else (1,) + tuple(s) for s in self.sizes.get(mode, ())]

    def impls_for(self, mode):
        if mode == "quick" and self.quick_impls is not None:
            return tuple(i for i in self.impls if i in self.quick_impls)
        if mode == "ratios":  # the ratios are to ours (n_jobs="auto"): no one-thread or Dask rows
            return tuple(i for i in self.impls if i not in ("ours-1job",) + DASK)
        return tuple(self.impls)

    @property
    def axes(self):
        return tuple(self.fit_axes) or (self.axis,)


WORKLOADS: Dict[str, Workload] = {}


def register(workload):
    if workload.name in WORKLOADS:
        raise ValueError("workload %r registered twice" % workload.name)
    WORKLOADS[workload.name] = workload
    return workload


def select(only=None):
    """Workloads whose name or group is in ``only`` (a list), in registry order."""
    if not only:
        return list(WORKLOADS.values())
    wanted = set(only)
    unknown = wanted - set(WORKLOADS) - set(w.group for w in WORKLOADS.values())
    if unknown:
        raise SystemExit(
            "unknown workload or group: %s (known: %s; groups: %s)"
            % (
                ", ".join(sorted(unknown)),
                ", ".join(WORKLOADS),
                ", ".join(sorted(set(w.group for w in WORKLOADS.values()))),
            )
        )
    return [w for w in WORKLOADS.values() if w.name in wanted or w.group in wanted]


def _human(x):
    for exp in range(9, 2, -1):
        if x >= 10**exp and x % 10**exp == 0:
            mant = x // 10**exp
            return ("1e%d" % exp) if mant == 1 else ("%de%d" % (mant, exp))
    return str(x)


# ---------------------------------------------------------------------------
# Per-submission scoring (scoring_program/score.py's evaluate())
# ---------------------------------------------------------------------------
B = 10000

register(
    Workload(
        name="f1_macro",
        group="per_submission",
        title="macro-F1, 3 classes, one submission",
        data="classification3",
        metric="f1_macro",
        sizes={
            "quick": [(1000, 200), (10000, 200)],
            "full": [(1000, B), (10000, B), (100000, B), (1000000, B)],
            "ratios": [(1000, B), (10000, B), (100000, B)],
        },
        targets=(Target(10000, B, 1.0), Target(100000, B, 5.0, rss_mb=1024.0), Target(1000000, B, 30.0, rss_mb=1536.0)),
    )
)

register(
    Workload(
        name="f1_macro_B",
        group="per_submission",
        title="macro-F1, 3 classes: time vs B (ours only)",
        data="classification3",
        metric="f1_macro",
        sizes={
            "quick": [(1000, 100), (1000, 400)],
            "full": [(10000, 1000), (10000, 3000), (10000, 10000), (10000, 30000)],
        },
        impls=OURS,
        axis="B",
    )
)

register(
    Workload(
        name="accuracy",
        group="per_submission",
        title="accuracy, 3 classes, one submission",
        data="classification3",
        metric="accuracy",
        sizes={"quick": [(1000, 200)], "full": [(10000, B), (100000, B)], "ratios": [(10000, B), (100000, B)]},
        quick_impls=OURS + ("scipy",),
    )
)

register(
    Workload(
        name="mae",
        group="per_submission",
        title="MAE, regression, one submission",
        data="regression_diabetes",
        metric="mae",
        sizes={"quick": [(1000, 200)], "full": [(10000, B), (100000, B)], "ratios": [(10000, B), (100000, B)]},
        quick_impls=OURS + ("scipy",),
    )
)

register(
    Workload(
        name="pearson",
        group="per_submission",
        title="Pearson r, regression, one submission",
        data="regression_diabetes",
        metric="pearson",
        sizes={"quick": [(1000, 200)], "full": [(10000, B), (100000, B)], "ratios": [(10000, B), (100000, B)]},
        quick_impls=OURS + ("scipy",),
    )
)

register(
    Workload(
        name="f1_macro_vs_baseline",
        group="per_submission",
        title="macro-F1 difference to a baseline (paired), one submission",
        data="classification3",
        metric="f1_macro",
        baseline=True,
        sizes={"quick": [(1000, 200)], "full": [(10000, B)], "ratios": [(10000, B)]},
        impls=OURS + PEERS + ("bootci",),
        quick_impls=OURS + ("bootci",),
        notes="ours: evaluate(..., baseline=...) (CI of the difference + p-value); peers compute "
        "F1(system) - F1(baseline) on each resample",
    )
)


# ---------------------------------------------------------------------------
# End of phase (leaderboard_ci.phase.analysis.analyze over m systems)
# ---------------------------------------------------------------------------
CORRECTIONS = ("bonferroni", "holm", "fdr_bh")
EOP_NOTES = (
    "ours: analyze(GoldStandard, {name: coded predictions}, metric='f1_macro', n_resamples=B, "
    "corrections=[bonferroni, holm, fdr_bh]) - per-system CIs, all m(m-1)/2 pairs (difference, CI, "
    "p-values), three corrections, indicators, letters (m <= 300); arrays built before the timed call"
)

register(
    Workload(
        name="eop_f1_macro",
        group="end_of_phase",
        title="end of phase: macro-F1, 3 classes, all pairs, 3 corrections",
        data="systems3",
        metric="f1_macro",
        kind="end_of_phase",
        sizes={
            "quick": [(5, 500, 200), (20, 500, 200), (20, 2000, 200)],
            "full": [(m, n, B) for n in (1000, 10000) for m in (10, 100, 1000)],
            "ratios": [(m, n, B) for n in (1000, 10000) for m in (10, 100)],
        },
        impls=OURS + EOP_PEERS,
        quick_impls=OURS + EOP_PEERS,
        axis="m",
        fit_axes=("m", "n"),
        always_scale=(),
        peer_max_m=100,
        targets=(
            Target(1000, B, 0.5, m=10),
            Target(10000, B, 5.0, rss_mb=1024.0, m=100),
            Target(10000, B, 120.0, m=1000, report_rss=True),
        ),
        notes=EOP_NOTES,
    )
)

register(
    Workload(
        name="eop_paper",
        group="end_of_phase",
        title="end of phase, the paper's size: m=31 systems, n=13,000 items",
        data="systems3",
        metric="f1_macro",
        kind="end_of_phase",
        sizes={"quick": [(8, 1300, 200)], "full": [(31, 13000, B)], "ratios": [(31, 13000, B)]},
        impls=OURS + EOP_PEERS,
        always_scale=(),
        axis="m",
        targets=(
            Target(13000, B, m=31, peer="compstats", min_ratio=100.0),
            Target(1300, 200, m=8, peer="compstats", min_ratio=100.0, modes=("quick",)),
        ),
        notes="Nava-Munoz, Graff & Escalante (2024): m <= 31, n <= 13,000. " + EOP_NOTES,
    )
)

register(
    Workload(
        name="eop_n",
        group="end_of_phase",
        title="end of phase: time vs n (m=100, ours only)",
        data="systems3",
        metric="f1_macro",
        kind="end_of_phase",
        sizes={"quick": [(20, 500, 200), (20, 2000, 200)], "full": [(100, n, B) for n in (1000, 3000, 10000, 30000)]},
        impls=OURS,
        axis="n",
        notes=EOP_NOTES,
    )
)

register(
    Workload(
        name="eop_B",
        group="end_of_phase",
        title="end of phase: time vs B (m=100, n=10,000, ours only)",
        data="systems3",
        metric="f1_macro",
        kind="end_of_phase",
        sizes={
            "quick": [(20, 1000, 100), (20, 1000, 400)],
            "full": [(100, 10000, b) for b in (1000, 3000, 10000, 30000)],
        },
        impls=OURS,
        axis="B",
        notes=EOP_NOTES,
    )
)

register(
    Workload(
        name="eop_dask",
        group="end_of_phase",
        title="end of phase on Dask: 1 and 2 local workers vs threads (m=100, n=10,000)",
        data="systems3",
        metric="f1_macro",
        kind="end_of_phase",
        sizes={"quick": [(20, 2000, 400)], "full": [(100, 10000, B)]},
        impls=OURS + DASK,
        axis="m",
        notes="ours-daskK: analyze(..., execution=Execution(dask='local', workers=K)); the time includes starting and "
        "closing the LocalCluster (as the API does per call); peak RSS is the client process only. " + EOP_NOTES,
    )
)
