"""Test-set planning: which differences of the official metric a test set can detect.

For a paired comparison of two systems A and B on the same ``n`` test items,
the official metric's difference ``d = sign * (M(A) - M(B))`` has a standard
error ``SE(n)`` that scales like ``sigma / sqrt(n)`` (the metric is a smooth
function of per-item sums, so its bootstrap distribution is asymptotically
normal with variance ``sigma**2 / n``).  A two-sided test at level ``alpha``
corrected for a family of ``m`` comparisons (Bonferroni, which is also the
first and strictest step of Holm) detects a true difference ``delta`` with
probability ``power`` when

    delta >= (z_{1 - alpha / (2 m)} + z_{power}) * SE(n)

which is the *minimal detectable difference* ``MDE(n)``; the test-set size
needed for a difference ``delta`` is ``n = ((z_{1-alpha/(2m)} + z_power) *
sigma / delta)**2``, rounded up.

``SE(n)`` is estimated with the package's own machinery: the scorers of the
per-submission program (:class:`~leaderboard_ci.tasks.shared.scorer.SystemScorer`)
and the paired engine of the end-of-phase analysis
(:func:`~leaderboard_ci.core.systems.paired_scores`: both systems on the same
resamples), as the standard deviation of the replicate differences.

* **Pilot predictions** of two or more systems: ``SE`` of every pair on the
  test set itself; the plan uses the median over the pairs of *neighbours* in
  the pilots' ranking (the comparisons where detection matters: a pair of
  far-apart systems differs on many items, so its SE is larger and says
  little about close contests); every pair is listed.
* **Assumed rates** (label-valued gold only): a pair of systems is simulated
  on a large test set drawn from the gold's class distribution: each system
  is right on a share ``accuracy`` of the items, the two give the same
  prediction on a share ``agreement`` of them (items both get right, and items
  both get wrong with the same wrong label, drawn from the gold's class
  distribution without the true class); ``sigma`` is read there and scaled to
  the test set's size.

The ``1/sqrt(n)`` scaling is checked, not assumed silently: the same pair is
scored on random subsets of a quarter and a half of the items
(:attr:`Plan.scaling`) and the measured SE is compared with ``sigma /
sqrt(n)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Optional, Tuple

import numpy as np

from ..core.systems import PairedPlan, paired_scores
from ..phase.benchmark.execution import open_scoring
from ..phase.execution.runs import Execution
from ..scoring.custom import custom_functions
from ..tasks.shared.scorer import SystemScorer

__all__ = [
    "Plan",
    "PairSE",
    "parse_assumptions",
    "z_total",
    "pilot_plan",
    "assumed_plan",
    "simulate_pair",
    "can_simulate",
    "design_effect",
    "ASSUMPTION_KEYS",
]

#: The keys ``--assume`` accepts, with what each means.
ASSUMPTION_KEYS = {
    "accuracy": "the share of items each of the two systems gets right (0 < accuracy < 1)",
    "agreement": "the share of items on which the two systems give the same prediction (0 < agreement <= 1)",
}
#: Default assumptions when neither pilots nor --assume are given.
DEFAULT_ASSUMPTIONS = (("accuracy", 0.8), ("agreement", 0.9))
#: Items of the simulated test set on which sigma is read (assumed rates).
SIMULATED_ITEMS = 20000
#: Shares of the items whose SE checks the 1/sqrt(n) scaling.
SCALING_SHARES = (0.25, 0.5)
#: Simulated test sets per size in the scaling check of assumed rates.
SCALING_REPEATS = 4


def _norm_ppf(p):
    """The standard normal quantile (SciPy's ``norm.ppf``; the package's Python 3.7 check forbids ``NormalDist``)."""
    # imported here: scipy.stats takes about a second to import, and every command (init, score, --help) imports
    # this module through the scaffold, which writes the plan into the competition's README only at init
    from scipy.stats import norm

    return float(norm.ppf(p))


def z_total(alpha, power, family_size):
    """``z_{1 - alpha / (2 m)} + z_{power}``: the MDE in standard errors."""
    return _norm_ppf(1.0 - alpha / (2.0 * family_size)) + _norm_ppf(power)


@dataclass(frozen=True)
class PairSE:
    """One pair of systems: its observed oriented difference and the SE of the difference.

    With clusters, ``se`` is the item bootstrap's SE times ``sqrt(design_effect)``.
    """

    a: str
    b: str
    difference: float
    se: float
    design_effect: float = 1.0


@dataclass(frozen=True)
class Plan:
    """What a test set of ``n`` items can detect for the official metric.

    Attributes
    ----------
    metric_key, metric_title, better : str
        The official metric, and which way is better (in words).
    n : int
        The test set's size (resampling units).
    alpha, power : float
    family_size : int
        ``m``: the number of comparisons corrected together.
    z : float
        ``z_{1-alpha/(2m)} + z_{power}``.
    se : float
        The SE of a paired difference at ``n`` items.
    source : str
        ``"pilot"`` or ``"assumed"``.
    pairs : tuple of PairSE
        Each pilot pair (the plan uses the median SE of the ranking's neighbours), or the simulated pair.
    assumptions : tuple of (str, float)
        The assumed rates (empty for pilots).
    scaling : tuple of (n_sub, measured SE, sigma / sqrt(n_sub))
        The check of the 1/sqrt(n) scaling.
    n_resamples, seed : int
        The bootstrap behind every SE.
    difference : float or None
        The difference asked for with ``--difference``.
    cluster_column : str or None
        The gold column whose values are clusters (``--cluster``).
    n_clusters : int or None
    """

    metric_key: str
    metric_title: str
    better: str
    n: int
    alpha: float
    power: float
    family_size: int
    z: float
    se: float
    source: str
    pairs: Tuple[PairSE, ...]
    assumptions: Tuple[Tuple[str, float], ...]
    scaling: Tuple[Tuple[int, float, float], ...]
    n_resamples: int
    seed: int
    difference: Optional[float] = None
    cluster_column: Optional[str] = None
    n_clusters: Optional[int] = None

    @property
    def sigma(self):
        """``SE(n) * sqrt(n)``: the per-item standard deviation of the difference."""
        return self.se * math.sqrt(self.n)

    @property
    def mde(self):
        """The minimal detectable difference at the test set's size."""
        return self.mde_at(self.n)

    def mde_at(self, n):
        """The minimal detectable difference at ``n`` items (``z * sigma / sqrt(n)``)."""
        return self.z * self.sigma / math.sqrt(n)

    def n_for(self, difference):
        """The test-set size needed to detect ``difference`` with the plan's power."""
        if not difference > 0:
            raise ValueError("the difference must be > 0, got %r" % (difference,))
        return int(math.ceil((self.z * self.sigma / difference) ** 2))

    @property
    def n_needed(self):
        """:meth:`n_for` of :attr:`difference` (None without one)."""
        return None if self.difference is None else self.n_for(self.difference)

    def as_dict(self):
        """Plain values for JSON."""
        return {
            "metric": self.metric_key,
            "metric_title": self.metric_title,
            "better": self.better,
            "n": self.n,
            "alpha": self.alpha,
            "power": self.power,
            "family_size": self.family_size,
            "z": self.z,
            "se": self.se,
            "sigma": self.sigma,
            "mde": self.mde,
            "difference": self.difference,
            "n_needed": self.n_needed,
            "source": self.source,
            "assumptions": dict(self.assumptions),
            "pairs": [
                {"a": p.a, "b": p.b, "difference": p.difference, "se": p.se, "design_effect": p.design_effect}
                for p in self.pairs
            ],
            "cluster_column": self.cluster_column,
            "n_clusters": self.n_clusters,
            "scaling": [{"n": k, "se": s, "predicted_se": e} for k, s, e in self.scaling],
            "n_resamples": self.n_resamples,
            "seed": self.seed,
        }


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------
def _check_design(alpha, power, family_size, difference):
    if not (isinstance(alpha, float) and 0 < alpha < 1):
        raise ValueError("alpha must be a number between 0 and 1, got %r" % (alpha,))
    if not (isinstance(power, float) and 0 < power < 1):
        raise ValueError("power must be a number between 0 and 1, got %r" % (power,))
    if isinstance(family_size, bool) or not isinstance(family_size, int) or family_size < 1:
        raise ValueError("the family size must be an integer >= 1, got %r" % (family_size,))
    if difference is not None and not (isinstance(difference, float) and difference > 0):
        raise ValueError("the difference must be a number > 0, got %r" % (difference,))


def parse_assumptions(text):
    """``"accuracy=0.8,agreement=0.9"`` -> ``(("accuracy", 0.8), ("agreement", 0.9))``.

    Keys left out take their defaults (:data:`DEFAULT_ASSUMPTIONS`).
    """
    values = dict(DEFAULT_ASSUMPTIONS)
    for part in text.split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in ASSUMPTION_KEYS:
            raise ValueError(
                "--assume takes KEY=VALUE pairs separated by commas, with KEY one of %s; got %r"
                % (", ".join(sorted(ASSUMPTION_KEYS)), part.strip())
            )
        try:
            values[key] = float(value)
        except ValueError:
            raise ValueError("--assume %s must be a number, got %r" % (key, value.strip()))
    return check_assumptions(tuple(sorted(values.items())))


def check_assumptions(assumptions):
    values = dict(assumptions)
    accuracy, agreement = values["accuracy"], values["agreement"]
    if not 0 < accuracy < 1:
        raise ValueError("--assume accuracy must be between 0 and 1 (exclusive), got %g" % accuracy)
    if not 0 < agreement <= 1:
        raise ValueError("--assume agreement must be above 0 and at most 1, got %g" % agreement)
    # each system alone is right on (1 - agreement) / 2 of the items
    if (1 - agreement) / 2 > min(accuracy, 1 - accuracy) + 1e-12:
        raise ValueError(
            "--assume agreement=%g is impossible with accuracy=%g: two systems that are both right on "
            "a share %g of the items agree on at least %g of them"
            % (agreement, accuracy, accuracy, 1 - 2 * min(accuracy, 1 - accuracy))
        )
    return tuple(sorted(values.items()))


# ---------------------------------------------------------------------------
# Standard errors with the package's machinery
# ---------------------------------------------------------------------------
def _official(config):
    return config.metrics[0]


def official_plan(config, gold, predictions, names):
    """The paired plan of the official metric alone, seeded by ``bootstrap.seed``.

    It carries its own recipe, so a Dask worker rebuilds it
    (:func:`leaderboard_ci.phase.execution.distributed.span_scores`).
    """
    custom = custom_functions(config)
    scorers = [SystemScorer([_official(config)], gold, p, layout="reduced", custom=custom) for p in predictions]
    recipe = (official_plan, (config, gold, list(predictions), list(names)))
    return PairedPlan(scorers, gold.n, config.bootstrap.seed, names, recipe=recipe)


def paired_replicates(config, gold, predictions, names, n_resamples, seed, jackknife=False, scoring=None):
    """Full-sample scores ``(m,)`` and replicates ``(B, m)`` of the official metric on shared resamples.

    With ``jackknife``, also the per-item leave-one-out scores ``(n, m)``.
    ``scoring`` (:class:`~leaderboard_ci.phase.benchmark.execution.ScoringRun`)
    says where the replicates are scored; None: in this process, one thread.
    """
    config = replace(config, bootstrap=replace(config.bootstrap, seed=seed))
    plan = official_plan(config, gold, predictions, names)
    where = scoring.keywords() if scoring is not None else {}
    scores = paired_scores(plan, n_resamples, jackknife=jackknife, **where)
    t = [i for i, target in enumerate(plan.targets) if target.group is None][0]
    if jackknife:
        return scores.full[:, t], scores.replicates[:, :, t], scores.jackknife_matrix(t)
    return scores.full[:, t], scores.replicates[:, :, t]


def design_effect(leave_one_out, clusters):
    """The variance of a statistic under cluster sampling over its variance under item sampling.

    The linearization (jackknife influence) estimate: with ``psi_i`` the
    centred influence of item ``i`` (``(n - 1) * (mean - leave_one_out_i)``),

        deff = [C / (C - 1) * sum_c (sum_{i in c} psi_i)**2] / [n / (n - 1) * sum_i psi_i**2]

    for ``C`` clusters.  Items that are copies of one another in one cluster
    give ``deff`` = the cluster size; independent items give about 1.

    Parameters
    ----------
    leave_one_out : array ``(n,)``
        The statistic without each item.
    clusters : array of int ``(n,)``
        Cluster codes ``0 .. C-1``.
    """
    values = np.asarray(leave_one_out, dtype=np.float64)
    n = values.shape[0]
    psi = (n - 1) * (values.mean() - values)
    psi = psi - psi.mean()
    item = n / (n - 1.0) * float(np.sum(psi**2))
    sums = np.bincount(clusters, weights=psi)
    c = sums.shape[0]
    if c < 2 or not item > 0:
        return float("nan")
    return (c / (c - 1.0) * float(np.sum(sums**2))) / item


def _pair_ses(spec, full, reps, names, loo=None, clusters=None):
    out = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            d = spec.sign * (reps[:, i] - reps[:, j])
            d = d[np.isfinite(d)]
            se = float(np.std(d, ddof=1)) if d.size > 1 else float("nan")
            deff = 1.0
            if clusters is not None:
                deff = design_effect(loo[:, i] - loo[:, j], clusters)
                se = se * math.sqrt(deff) if np.isfinite(deff) else float("nan")
            out.append(PairSE(names[i], names[j], float(spec.sign * (full[i] - full[j])), se, deff))
    return out


def _subset(gold, index):
    return replace(gold, values=gold.values[index], ids=None, groups=None, group_values=None)


def _scaling(config, gold, predictions, names, sigma, n_resamples, seed, pairs, scoring=None):
    """The SE measured on random subsets of the items against ``sigma / sqrt(n_sub)``.

    For each share, :data:`SCALING_REPEATS` random subsets; the median SE of
    ``pairs`` (``(a, b)`` names) on each, pooled as a root mean square.
    """
    spec = _official(config)
    rng = np.random.default_rng(seed)
    rows = []
    for share in SCALING_SHARES:
        k = int(round(share * gold.n))
        if k < 20:
            continue
        squares = []
        for _ in range(SCALING_REPEATS):
            index = np.sort(rng.choice(gold.n, size=k, replace=False))
            subset = [p[index] for p in predictions]
            full, reps = paired_replicates(
                config, _subset(gold, index), subset, names, n_resamples, seed, scoring=scoring
            )
            ses = [p.se for p in _pair_ses(spec, full, reps, names) if np.isfinite(p.se) and (p.a, p.b) in pairs]
            if ses:
                squares.append(float(np.median(ses)) ** 2)
        if squares:
            rows.append((k, math.sqrt(float(np.mean(squares))), sigma / math.sqrt(k)))
    return tuple(rows)


def _plan(config, n, alpha, power, family_size, difference, se, source, pairs, assumptions, scaling, b, seed):
    spec = _official(config)
    return Plan(
        metric_key=spec.key,
        metric_title=spec.title,
        better=spec.better,
        n=int(n),
        alpha=alpha,
        power=power,
        family_size=family_size,
        z=z_total(alpha, power, family_size),
        se=float(se),
        source=source,
        pairs=tuple(pairs),
        assumptions=tuple(assumptions),
        scaling=tuple(scaling),
        n_resamples=int(b),
        seed=int(seed),
        difference=difference,
    )


def pilot_plan(
    config,
    gold,
    predictions,
    names,
    alpha=0.05,
    power=0.8,
    family_size=1,
    difference=None,
    n_resamples=None,
    clusters=None,
    cluster_column=None,
    execution=None,
):
    """The plan from pilot predictions of two or more systems (aligned, encoded arrays).

    With ``clusters`` (one code ``0 .. C-1`` per item), each pair's SE is the item
    bootstrap's times the square root of its :func:`design_effect`.  ``execution``
    (:class:`~leaderboard_ci.phase.execution.runs.Execution`, default one thread
    in this process) says where the replicates are scored, as for the end of phase.
    """
    _check_design(alpha, power, family_size, difference)
    if len(predictions) < 2:
        raise ValueError(
            "a paired difference needs pilot predictions of at least two systems, got %d" % len(predictions)
        )
    b = n_resamples or config.bootstrap.n_resamples
    seed = config.bootstrap.seed
    spec = _official(config)
    with open_scoring(execution or Execution(n_jobs=1)) as scoring:
        if clusters is not None:
            clusters = np.asarray(clusters, dtype=np.intp)
            if clusters.shape != (gold.n,) or clusters.min() < 0:
                raise ValueError("clusters must hold one code >= 0 per item, got shape %r" % (clusters.shape,))
            clusters = np.unique(clusters, return_inverse=True)[1].reshape(-1)
            full, reps, loo = paired_replicates(
                config, gold, predictions, names, b, seed, jackknife=True, scoring=scoring
            )
            pairs = _pair_ses(spec, full, reps, names, loo, clusters)
        else:
            full, reps = paired_replicates(config, gold, predictions, names, b, seed, scoring=scoring)
            pairs = _pair_ses(spec, full, reps, names)
        order = [names[i] for i in np.argsort(-spec.sign * full, kind="stable")]
        neighbours = set(zip(order[:-1], order[1:]))
        ses = [p.se for p in pairs if np.isfinite(p.se) and ((p.a, p.b) in neighbours or (p.b, p.a) in neighbours)]
        if not ses or not max(ses) > 0:
            raise ValueError(
                "the pilot systems give the same %s on every resample, so their difference has no spread; "
                "give pilots that make different predictions" % _official(config).key
            )
        se = float(np.median(ses))
        used = set((p.a, p.b) for p in pairs if (p.a, p.b) in neighbours or (p.b, p.a) in neighbours)
        # the scaling check subsamples items, which breaks clusters: only without them
        scaling = (
            ()
            if clusters is not None
            else _scaling(config, gold, predictions, names, se * math.sqrt(gold.n), b, seed, used, scoring)
        )
    plan = _plan(config, gold.n, alpha, power, family_size, difference, se, "pilot", pairs, (), scaling, b, seed)
    if clusters is not None:
        plan = replace(plan, cluster_column=cluster_column or "cluster", n_clusters=int(clusters.max()) + 1)
    return plan


# ---------------------------------------------------------------------------
# Simulated pairs from assumed rates
# ---------------------------------------------------------------------------
def can_simulate(gold):
    """Whether pairs of systems can be simulated from assumed rates: label-valued gold, one code per item."""
    values = np.asarray(gold.values)
    return gold.labels is not None and values.ndim == 1 and values.dtype.kind in "iu" and len(gold.labels) >= 2


def simulate_pair(gold_codes, n_labels, accuracy, agreement, rng, difference=0.0, class_weights=None):
    """Two systems' class codes for ``gold_codes``: right on ``accuracy +- difference/2``, agreeing on ``agreement``.

    Each item is one of: both right, only A right, only B right, both wrong
    (with the same wrong label), with probabilities ``accuracy - (1 -
    agreement) / 2``, ``(1 - agreement + difference) / 2``, ``(1 - agreement
    - difference) / 2`` and the rest.  A wrong label is drawn from
    ``class_weights`` (default: uniform) without the true class.
    """
    n = gold_codes.shape[0]
    half = (1.0 - agreement) / 2.0
    p = np.array([accuracy - half, half + difference / 2.0, half - difference / 2.0])
    p = np.append(p, 1.0 - p.sum())
    if np.any(p < -1e-12):
        raise ValueError(
            "accuracy=%g, agreement=%g, difference=%g are incompatible" % (accuracy, agreement, difference)
        )
    kind = rng.choice(4, size=n, p=np.clip(p, 0, None) / np.clip(p, 0, None).sum())
    weights = np.ones(n_labels) if class_weights is None else np.asarray(class_weights, dtype=float)
    wrong = _wrong_labels(gold_codes, weights, rng)
    a = np.where((kind == 0) | (kind == 1), gold_codes, wrong)
    b = np.where((kind == 0) | (kind == 2), gold_codes, wrong)
    return a.astype(np.intp), b.astype(np.intp)


def _wrong_labels(gold_codes, weights, rng):
    """A label other than the true one for every item, drawn with ``weights`` renormalized without it."""
    k = weights.shape[0]
    cum = np.cumsum(weights)
    total = cum[-1] - weights[gold_codes]
    u = rng.random(gold_codes.shape[0]) * total
    # skip the true class: positions at or after its start move one class on
    start = cum[gold_codes] - weights[gold_codes]
    u = np.where(u >= start, u + weights[gold_codes], u)
    return np.minimum(np.searchsorted(cum, u, side="right"), k - 1)


def class_weights(gold):
    """The gold's class distribution (counts per label code, at least a tiny weight for each)."""
    counts = np.bincount(np.asarray(gold.values), minlength=len(gold.labels)).astype(float)
    return np.maximum(counts, 1e-9)


def simulated_gold(gold, n, rng):
    """A label-valued gold of ``n`` items drawn from ``gold``'s class distribution."""
    weights = class_weights(gold)
    codes = rng.choice(len(gold.labels), size=n, p=weights / weights.sum()).astype(gold.values.dtype)
    return replace(gold, values=codes, ids=None, groups=None, group_values=None)


def assumed_plan(
    config,
    gold,
    assumptions=DEFAULT_ASSUMPTIONS,
    alpha=0.05,
    power=0.8,
    family_size=1,
    difference=None,
    n_resamples=None,
    simulated_items=SIMULATED_ITEMS,
    check_scaling=True,
):
    """The plan from assumed rates (:data:`ASSUMPTION_KEYS`), simulated on the gold's class distribution.

    ``check_scaling=False`` skips the 1/sqrt(n) check (:attr:`Plan.scaling` empty).
    """
    _check_design(alpha, power, family_size, difference)
    values = dict(check_assumptions(tuple(sorted(dict(assumptions).items()))))
    if not can_simulate(gold):
        raise ValueError(
            "assumed rates describe systems that predict one label per item; this gold holds other "
            "values, so give pilot predictions of two or more systems (--pilot FILE FILE)"
        )
    b = n_resamples or config.bootstrap.n_resamples
    seed = config.bootstrap.seed
    rng = np.random.default_rng(seed)
    weights = class_weights(gold)
    # sigma is per item: simulated_items estimate it as well at any test set size, so a larger gold is not
    # simulated at its own size (10^6 items x B resamples took init minutes) unless clusters or strata,
    # one code per gold item, need every item
    design = gold.clusters is not None or gold.strata is not None
    big = simulated_gold(gold, max(simulated_items, gold.n) if design else simulated_items, rng)
    pair = simulate_pair(big.values, len(gold.labels), values["accuracy"], values["agreement"], rng, 0.0, weights)
    full, reps = paired_replicates(config, big, list(pair), ["A", "B"], b, seed)
    pairs = _pair_ses(_official(config), full, reps, ["A", "B"])
    sigma = pairs[0].se * math.sqrt(big.n)
    if not sigma > 0:
        raise ValueError("the simulated pair's difference has no spread (agreement=1): nothing to detect")
    # the scaling check: pairs simulated on test sets of the gold's own size, a quarter and a half of it;
    # SCALING_REPEATS test sets each, their SEs pooled (root mean square)
    scaling = []
    sizes = [max(20, int(round(s * gold.n))) for s in SCALING_SHARES] + [gold.n]
    for k in sorted(set(sizes)) if check_scaling else ():
        squares = []
        for _ in range(SCALING_REPEATS):
            small = simulated_gold(gold, k, rng)
            pair_k = simulate_pair(
                small.values, len(gold.labels), values["accuracy"], values["agreement"], rng, 0, weights
            )
            full_k, reps_k = paired_replicates(config, small, list(pair_k), ["A", "B"], b, seed)
            squares.append(_pair_ses(_official(config), full_k, reps_k, ["A", "B"])[0].se ** 2)
        scaling.append((k, math.sqrt(float(np.mean(squares))), sigma / math.sqrt(k)))
    se = sigma / math.sqrt(gold.n)
    return _plan(
        config, gold.n, alpha, power, family_size, difference, se, "assumed", pairs, values.items(), scaling, b, seed
    )
