"""Known finite populations for the statistical validity suite.

Everything here is deterministic (fixed seeds, single-threaded fits), takes a
few seconds, and is cached per process (and, optionally, on disk outside the
repository; see :func:`_disk_cache`).

Classification population (``classification()``)
------------------------------------------------
``sklearn.datasets.make_classification``: 3 classes with imbalance 15/25/60 %,
12 features (6 informative, 2 redundant), 2 clusters per class, 5 % label
noise.  The first 10,000 items train the models; the other 200,000 items are
the POPULATION.  Class codes 0, 1, 2 are named ``against``, ``favor``,
``none`` (a stance-detection label set; "F1 over a subset" is macro-F1 over
``favor`` and ``against``, as VaxxStance ranks).

Trained systems (predictions on the whole population):

* ``rf``      random forest (25 trees, depth 12)       strong
* ``logreg``  multinomial logistic regression          medium
* ``tree``    decision tree (depth 6)                  medium
* ``nb``      Gaussian naive Bayes                     weak

Systems of EXACTLY equal population quality (the null of the error-rate
studies): ``twin_k`` (k = 1..9) is ``logreg``'s prediction vector permuted
among the items that share both the gold label and the ``rf`` prediction.
Within a gold class the multiset of predictions is unchanged, so the
population confusion matrix (hence accuracy, every F1, MCC, kappa, ...) is
identical to ``logreg``'s, bit for bit; and because the strata follow a
strong model's prediction, a twin is correlated with ``logreg`` the way two
real systems of a competition are (both right on the easy items, both wrong
on the hard ones), not independent of it.

Degraded systems (power, FDR): ``twin_1`` with ``k`` of its correct
predictions replaced by a wrong label (fixed random items, fixed random wrong
label).  For accuracy ``k = delta * N`` exactly, so the population accuracy
drops by exactly ``delta``; for macro-F1 ``k`` is the smallest count whose
macro-F1 drop reaches ``delta`` (the achieved drop is recorded; it is within
1e-5 of ``delta``).

Regression population (``regression()``)
----------------------------------------
``sklearn.datasets.make_friedman1`` (10 features, noise sd 1), 10,000
training items and a 200,000-item population; systems ``hgb``
(histogram gradient boosting), ``linear`` (least squares) and ``tree``
(depth 6), and ``linear_twin``: ``y + r`` where ``r`` is ``linear``'s residual
vector permuted within 20 quantile bins of ``tree``'s residual, so its
population MAE and MSE equal ``linear``'s exactly (the multiset of residuals
is the same) while it stays correlated with ``linear``.

True values are computed with the project's own scorer on the whole
population and cross-checked against scikit-learn / numpy.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

POPULATION_SIZE = 200_000
TRAIN_SIZE = 10_000
LABELS = ("against", "favor", "none")
SUBSET = ("favor", "against")
CONSTRUCTION_VERSION = 4  # bump when anything below changes

CLASSIFICATION_METRICS = [
    "accuracy",
    "f1_macro",
    {"name": "f1", "average": "macro", "labels": list(SUBSET), "key": "f1_fa"},
]
REGRESSION_METRICS = ["mae", "pearson"]
ACCURACY_DELTAS = (0.01, 0.02, 0.05)
F1_DELTAS = (0.01, 0.02, 0.05)
N_TWINS = 9


@dataclass
class Population:
    kind: str
    gold: np.ndarray
    systems: dict
    labels: tuple = None
    truth: dict = field(default_factory=dict)  # (system, metric key) -> population value
    notes: dict = field(default_factory=dict)

    @property
    def n(self):
        return int(self.gold.shape[0])


def metrics_for(kind):
    return CLASSIFICATION_METRICS if kind == "classification" else REGRESSION_METRICS


def config_for(kind, n_resamples=1000, seed=12345, method="percentile", baseline=None, **analysis):
    from leaderboard_ci.scoring.config import parse_config

    data = {
        "metric": metrics_for(kind)[0],
        "extra_metrics": metrics_for(kind)[1:],
        "bootstrap": {"n_resamples": n_resamples, "seed": seed, "method": method, "n_jobs": 1},
    }
    if baseline is not None:
        # evaluate(..., baseline=...) takes the baseline's name from the config
        data["baseline"] = {"file": "baseline.csv", "name": baseline}
    if kind == "classification":
        data["labels"] = list(LABELS)
    if analysis:
        data["analysis"] = dict(analysis)
    return parse_config(data)


def gold_standard(kind, values):
    from leaderboard_ci.tasks.shared.scorer import GoldStandard

    if kind == "classification":
        return GoldStandard(values=np.asarray(values, dtype=np.intp), labels=LABELS)
    return GoldStandard(values=np.asarray(values, dtype=np.float64))


def population_scores(kind, gold, systems):
    """Full-sample scores of every system on the whole population, with our scorer."""
    from leaderboard_ci.tasks.shared.scorer import SystemScorer

    config = config_for(kind)
    gs = gold_standard(kind, gold)
    out = {}
    for name, pred in systems.items():
        scorer = SystemScorer(config.metrics, gs, pred)
        full = scorer.scores([acc.full()[None, :] for acc in scorer.accumulators])[0]
        for target, value in zip(scorer.targets, full):
            out[(name, target.metric.key)] = float(value)
    return out


# ---------------------------------------------------------------------------
# Construction
# ---------------------------------------------------------------------------
def _limited():
    try:
        from threadpoolctl import threadpool_limits

        return threadpool_limits(limits=1)
    except ImportError:  # pragma: no cover
        import contextlib

        return contextlib.nullcontext()


def _permute_within(values, strata, rng):
    """``values`` permuted uniformly at random within each stratum."""
    out = values.copy()
    order = np.argsort(strata, kind="stable")
    bounds = np.flatnonzero(np.diff(strata[order])) + 1
    for members in np.split(order, bounds):
        out[members] = values[members[rng.permutation(members.size)]]
    return out


def _macro_f1(gold, pred, k=3):
    tp = np.bincount(gold[gold == pred], minlength=k).astype(float)
    true = np.bincount(gold, minlength=k).astype(float)
    predicted = np.bincount(pred, minlength=k).astype(float)
    den = true + predicted
    return float(np.mean(np.where(den > 0, 2 * tp / np.where(den > 0, den, 1), 0.0)))


def _degrade(gold, pred, rng):
    """Candidate flips of ``pred``: items where it is right, in random order, each with a wrong label."""
    right = np.flatnonzero(pred == gold)
    right = right[rng.permutation(right.size)]
    wrong = (gold[right] + rng.integers(1, 3, right.size)) % 3
    return right, wrong


def _flipped(pred, items, labels, k):
    out = pred.copy()
    out[items[:k]] = labels[:k]
    return out


def _build_classification():
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    x, y = make_classification(
        n_samples=POPULATION_SIZE + TRAIN_SIZE,
        n_features=12,
        n_informative=6,
        n_redundant=2,
        n_classes=3,
        n_clusters_per_class=2,
        weights=[0.15, 0.25, 0.60],
        class_sep=0.9,
        flip_y=0.05,
        random_state=20240,
    )
    xt, yt, xp, gold = x[:TRAIN_SIZE], y[:TRAIN_SIZE], x[TRAIN_SIZE:], y[TRAIN_SIZE:].astype(np.intp)
    models = {
        "rf": RandomForestClassifier(n_estimators=25, max_depth=12, random_state=0, n_jobs=1),
        "logreg": LogisticRegression(max_iter=2000),
        "tree": DecisionTreeClassifier(max_depth=6, random_state=0),
        "nb": GaussianNB(),
    }
    systems = {}
    with _limited():
        for name, model in models.items():
            systems[name] = model.fit(xt, yt).predict(xp).astype(np.intp)
    rng = np.random.default_rng(777)
    strata = gold * 3 + systems["rf"]
    for k in range(1, N_TWINS + 1):
        systems["twin_%d" % k] = _permute_within(systems["logreg"], strata, rng)
    notes = {}
    # Degraded copies of twin_1 (power) and of twins 4..9 (FDR mix), accuracy exact.
    for k in range(1, N_TWINS + 1):
        base = systems["twin_%d" % k]
        items, labels = _degrade(gold, base, np.random.default_rng(1000 + k))
        if k == 1:
            for delta in ACCURACY_DELTAS:
                flips = int(round(delta * POPULATION_SIZE))
                systems["acc_minus_%g" % (100 * delta)] = _flipped(base, items, labels, flips)
            f1_base = _macro_f1(gold, base)
            for delta in F1_DELTAS:
                lo, hi = 0, items.size  # smallest k with drop >= delta (the drop grows with k)
                while lo < hi:
                    mid = (lo + hi) // 2
                    if f1_base - _macro_f1(gold, _flipped(base, items, labels, mid)) >= delta:
                        hi = mid
                    else:
                        lo = mid + 1
                name = "f1_minus_%g" % (100 * delta)
                systems[name] = _flipped(base, items, labels, lo)
                notes[name] = {"flips": int(lo), "achieved_f1_drop": f1_base - _macro_f1(gold, systems[name])}
        elif k >= 4:
            delta = 0.02 if k <= 6 else 0.05
            systems["mix_%d" % k] = _flipped(base, items, labels, int(round(delta * POPULATION_SIZE)))
    return gold, systems, notes


def _build_regression():
    from sklearn.datasets import make_friedman1
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.linear_model import LinearRegression
    from sklearn.tree import DecisionTreeRegressor

    x, y = make_friedman1(n_samples=POPULATION_SIZE + TRAIN_SIZE, n_features=10, noise=1.0, random_state=7)
    xt, yt, xp, gold = x[:TRAIN_SIZE], y[:TRAIN_SIZE], x[TRAIN_SIZE:], y[TRAIN_SIZE:]
    models = {
        "hgb": HistGradientBoostingRegressor(max_iter=60, early_stopping=False, random_state=0),
        "linear": LinearRegression(),
        "tree": DecisionTreeRegressor(max_depth=6, random_state=0),
    }
    systems = {}
    with _limited():
        for name, model in models.items():
            systems[name] = model.fit(xt, yt).predict(xp).astype(np.float64)
    residual = systems["linear"] - gold
    tree_residual = systems["tree"] - gold
    bins = np.searchsorted(np.quantile(tree_residual, np.linspace(0, 1, 21)[1:-1]), tree_residual)
    twin_residual = _permute_within(residual, bins, np.random.default_rng(4242))
    # |(gold + r) - gold| equals |r| up to one rounding, so the twin's population MAE
    # equals linear's to ~1e-15 (not bit for bit; recorded in describe()).
    systems["linear_twin"] = gold + twin_residual
    return gold, systems, {}


def _check_truth(kind, pop):
    """Our population scores against scikit-learn / numpy (guards the construction)."""
    from sklearn.metrics import accuracy_score, f1_score, mean_absolute_error

    for name, pred in pop.systems.items():
        if kind == "classification":
            ref = {
                "accuracy": accuracy_score(pop.gold, pred),
                "f1_macro": f1_score(pop.gold, pred, average="macro", labels=[0, 1, 2], zero_division=0),
                "f1_fa": f1_score(pop.gold, pred, average="macro", labels=[1, 0], zero_division=0),
            }
        else:
            ref = {"mae": mean_absolute_error(pop.gold, pred), "pearson": float(np.corrcoef(pop.gold, pred)[0, 1])}
        for key, value in ref.items():
            assert abs(pop.truth[(name, key)] - value) <= 1e-12, (name, key, pop.truth[(name, key)], value)


def _source_digest():
    with open(__file__, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()[:16]


def _disk_cache(kind):
    """A cache file outside the repository, keyed by this file and the library versions."""
    import numpy
    import sklearn

    root = os.environ.get("LEADERBOARD_CI_STAT_CACHE")
    if root is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "leaderboard-ci", "statistical")
    if root in ("", "0", "off", "none"):
        return None
    key = "%s-v%d-%s-np%s-skl%s" % (
        kind,
        CONSTRUCTION_VERSION,
        _source_digest(),
        numpy.__version__,
        sklearn.__version__,
    )
    return os.path.join(root, key + ".npz")


def _load_or_build(kind):
    path = _disk_cache(kind)
    if path and os.path.exists(path):
        try:
            with np.load(path, allow_pickle=False) as data:
                gold = data["gold"]
                systems = {name[len("sys_") :]: data[name] for name in data.files if name.startswith("sys_")}
                notes = json.loads(str(data["notes"]))
            return gold, systems, notes
        except Exception:  # noqa: BLE001 - a damaged cache is rebuilt
            pass
    gold, systems, notes = _build_classification() if kind == "classification" else _build_regression()
    if path:
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            arrays = {"gold": gold}
            arrays.update({"sys_" + k: v for k, v in systems.items()})
            arrays["notes"] = np.asarray(json.dumps(notes))
            tmp = path + ".%d.tmp.npz" % os.getpid()
            np.savez(tmp, **arrays)
            os.replace(tmp, path)
        except OSError:
            pass
    return gold, systems, notes


@lru_cache(maxsize=None)
def population(kind):
    """The population of ``kind`` ("classification" or "regression"), built once per process."""
    gold, systems, notes = _load_or_build(kind)
    pop = Population(
        kind=kind, gold=gold, systems=systems, labels=LABELS if kind == "classification" else None, notes=notes
    )
    pop.truth = population_scores(kind, gold, systems)
    _check_truth(kind, pop)
    return pop


def classification():
    return population("classification")


def regression():
    return population("regression")


def describe(pop):
    """A JSON-ready description: size, class shares, each system's true metric values."""
    out = {"kind": pop.kind, "size": pop.n}
    if pop.kind == "classification":
        shares = np.bincount(pop.gold, minlength=len(LABELS)) / pop.n
        out["class_shares"] = {label: round(float(s), 5) for label, s in zip(LABELS, shares)}
    keys = [m if isinstance(m, str) else m["key"] for m in metrics_for(pop.kind)]
    out["systems"] = {name: {key: pop.truth[(name, key)] for key in keys} for name in pop.systems}
    if pop.kind == "classification":
        base = pop.systems["logreg"]
        out["agreement_logreg_twin_1"] = float(np.mean(base == pop.systems["twin_1"]))
    else:
        out["corr_residuals_linear_twin"] = float(
            np.corrcoef(pop.systems["linear"] - pop.gold, pop.systems["linear_twin"] - pop.gold)[0, 1]
        )
    out["notes"] = pop.notes
    return out
