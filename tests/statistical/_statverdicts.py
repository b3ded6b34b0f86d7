"""Issue 33's proof: intervals that cover as labelled, near-copies that do not set the critical value,
cluster-robust McNemar and DeLong.

Studies (each returns one row of rates with binomial standard errors):

``joint(name, reps, n_resamples)``
    :class:`_statmaxt.FamilyTask` on the twins population of ``_statmaxt`` (n = 1,000):
    ``null-10``/``null-60`` (all systems of exactly equal accuracy) and ``tiered-10`` (4 equal,
    3 at -2 points, 3 at -5) / ``tiered-60`` (four groups of 15: 0, -1, -3, -6 points).  Joint
    coverage of the simultaneous intervals the report shows (every pair's at once), the
    family-wise error (any rejection of a tie or in the wrong direction), the coverage the
    step-wise intervals shown before issue 33 would have had, and the same test sets with
    today's studentized maximum (``balance=False``).  ``phase60``: the 60 runs of issue 20 as a
    population (n = 540): the share of runs 0.30 or more below the winner flagged.
``copies(reps, n_resamples)``
    20 equal twins and 10 near-copies of the first (each differs from it on about 4 of the
    1,000 items, with exactly its accuracy): the family-wise error with balance and with the
    plain studentized maximum, and both critical values.
``auc_phase(seed, n_resamples)``
    The 61-system ROC-AUC phase of the issue: scikit-learn's breast-cancer data split 70/30
    (n = 171), 46 runs scoring ``y mu + N(0, 1)`` (AUC 0.99 to 0.60), an inverted, a constant
    and a uniform run, and 12 random forests that differ only in their seed.  Through the
    product's ``analyze`` (B = ``n_resamples``), then :func:`maxt_stepdown` on its replicates
    with and without balance, and on the columns without the 11 extra seeds (the same
    resamples: a system's replicates depend only on its own predictions): the critical values,
    Gauss-Bonferroni's bound, and how many verdicts about the distinct runs change.
``pair_tests(kind, clusters, reps)``
    Type I error at alpha = 0.05 (two-sided) of McNemar's (exact) and DeLong's tests and of
    their cluster-robust versions, for two systems of equal quality on clustered items: C
    clusters of 1 to 20 items; a cluster has its own difficulty (shared) and each system its
    own effect in it (exchangeable, so the systems are equal in the population), so the
    discordant items of a cluster lean the same way.  No bootstrap: cheap.

``python3 tests/statistical/_statverdicts.py --study joint:tiered-10 --reps 1000 --B 10000``
runs one study and appends its row to ``tests/statistical/results/verdicts.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import _statmaxt  # noqa: E402
import _statsim  # noqa: E402
from _statsim import ALPHA, rate  # noqa: E402

RESULTS = os.path.join(HERE, "results", "verdicts.jsonl")
JOINT = {
    "null-10": ((10, 0.0),),
    "null-60": ((60, 0.0),),
    "tiered-10": ((4, 0.0), (3, 0.02), (3, 0.05)),
    "tiered-60": ((15, 0.0), (15, 0.01), (15, 0.03), (15, 0.06)),
    "phase60": "phase60",
}
SEEDS = {"null-10": 331, "null-60": 332, "tiered-10": 333, "tiered-60": 334, "phase60": 335, "copies": 336}
COPIES = ("copies", 20, 10, 0.002)


def joint(name, reps, n_resamples, plain=True, first=0):
    n = 540 if name == "phase60" else 1000
    row = _statmaxt.family_study(
        JOINT[name], n, reps, n_resamples, SEEDS[name], holm=False, ranks=False, label=name, plain=plain, first=first
    )
    return row


def copies(reps, n_resamples, first=0):
    return _statmaxt.family_study(
        COPIES,
        1000,
        reps,
        n_resamples,
        SEEDS["copies"],
        holm=False,
        ranks=False,
        label="copies",
        plain=True,
        first=first,
    )


def combine(rows):
    """One row from the batches of a study (test sets ``first`` ... of each): rates pooled over the test sets."""
    total = sum(r["reps"] for r in rows)
    out = dict(rows[0], reps=total, first=min(r["first"] for r in rows), batches=len(rows))
    out["seconds"] = sum(r["seconds"] for r in rows)
    for key, value in rows[0].items():
        if isinstance(value, (list, tuple)) and len(value) == 2 and key.endswith(("_fwer", "coverage", "_only")):
            p = sum(r[key][0] * r["reps"] for r in rows) / total
            out[key] = (p, _statsim.binomial_se(p, total))
        elif key.startswith("mean_") or key in ("maxt_share_found", "maxt_mean_rejections", "far_runs_per_test_set"):
            out[key] = sum(r[key] * r["reps"] for r in rows) / total
    far = [(r["far_runs_per_test_set"] * r["reps"], r["maxt_share_far_found"]) for r in rows]
    weight = sum(w for w, share in far if share is not None)
    out["maxt_share_far_found"] = sum(w * s for w, s in far if s is not None) / weight if weight else None
    return out


# ---------------------------------------------------------------------------
# The ROC-AUC phase with near-copies
# ---------------------------------------------------------------------------
def auc_runs(seed=0, seeds=12, trees=100, distinct=46):
    """``(y, {name: scores})``: the issue's 61 runs on a 171-item test set (module docstring)."""
    from scipy.stats import norm
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.model_selection import train_test_split

    features, target = load_breast_cancer(return_X_y=True)
    y = (target == 0).astype(int)
    x_train, x_test, y_train, y_test = train_test_split(features, y, test_size=0.3, random_state=seed, stratify=y)
    rng = np.random.default_rng([seed, 5])
    runs = {}
    for a in np.linspace(0.99, 0.60, distinct):
        mu = math.sqrt(2) * norm.ppf(a)
        runs["auc_%03d" % round(1000 * a)] = 1 / (1 + np.exp(-(y_test * mu + rng.normal(0, 1, y_test.size) - mu / 2)))
    runs["inverted"] = 1 - runs["auc_990"]
    runs["prior"] = np.full(y_test.size, y_train.mean())
    runs["random"] = rng.random(y_test.size)
    for s in range(seeds):
        model = RandomForestClassifier(n_estimators=trees, random_state=s, n_jobs=1).fit(x_train, y_train)
        runs["rf_seed%02d" % s] = model.predict_proba(x_test)[:, 1]
    return y_test, runs


def auc_phase(seed, n_resamples, trees=100, seeds=12, distinct=46):
    """The near-copy phase through ``analyze`` (module docstring); fewer trees, seeds, runs: a faster one."""
    from scipy.stats import norm

    from leaderboard_ci.core.pairs import ranked_pairs
    from leaderboard_ci.core.simultaneous import maxt_stepdown
    from leaderboard_ci.phase.analysis import analyze

    y, runs = auc_runs(seed, seeds, trees, distinct)
    gold = ["malignant" if v else "benign" for v in y]
    result = analyze(
        gold,
        {k: v.tolist() for k, v in runs.items()},
        metric="roc_auc",
        task="scores",
        labels=["benign", "malignant"],
        pos_label="malignant",
        n_resamples=n_resamples,
    )
    target = result.official
    names = list(target.systems["name"])
    reps, full = target.replicates, np.asarray(target.systems["score"], dtype=float)  # rank order
    extra = np.array([n.startswith("rf_seed") and n != "rf_seed00" for n in names])
    keep = np.flatnonzero(~extra)
    pairs_all = ranked_pairs(np.arange(len(names)))
    pairs_kept = ranked_pairs(np.arange(keep.size))
    out = {"seed": seed, "n_resamples": n_resamples, "systems": len(names), "distinct": int(keep.size)}
    verdicts = {}
    for label, balance in (("balanced", True), ("plain", False)):
        whole = maxt_stepdown(reps, full, pairs_all, 1, ALPHA, balance=balance)
        alone = maxt_stepdown(reps[:, keep], full[keep], pairs_kept, 1, ALPHA, balance=balance)
        out["critical_" + label] = whole.critical_simultaneous
        out["critical_without_copies_" + label] = alone.critical_simultaneous
        out["near_copies_" + label] = int(whole.near_copy.sum())
        index = {(a, b): i for i, (a, b) in enumerate(map(tuple, pairs_all))}
        rows = [index[(keep[a], keep[b])] for a, b in pairs_kept]
        changed = whole.significant[rows] != alone.significant
        changed_interval = whole.simultaneous[rows] != alone.simultaneous
        winner = pairs_kept[:, 0] == 0
        out["changed_" + label] = int(changed.sum())
        out["changed_interval_" + label] = int(changed_interval.sum())
        out["changed_vs_winner_" + label] = int((changed | changed_interval)[winner].sum())
        out["distinct_pairs"] = int(len(pairs_kept))
        verdicts[label] = whole
    out["bonferroni"] = float(norm.isf(ALPHA / 2 / len(pairs_all)))
    out["bonferroni_without_copies"] = float(norm.isf(ALPHA / 2 / len(pairs_kept)))
    out["analysis_critical_value"] = target.critical_value
    out["note_names_near_copies"] = any("near-copies" in note for note in target.notes)
    return out


# ---------------------------------------------------------------------------
# Cluster-robust McNemar and DeLong
# ---------------------------------------------------------------------------
def _clustered_sample(kind, clusters, rng):
    sizes = rng.integers(1, 21, clusters)
    code = np.repeat(np.arange(clusters), sizes)
    shared = rng.normal(0, 1.0, clusters)[code]
    own = rng.normal(0, 0.8, (clusters, 2))[code]  # each system's effect in a cluster: exchangeable
    if kind == "mcnemar":
        logit = 1.0 + shared[:, None] + own
        correct = rng.random((code.size, 2)) < 1 / (1 + np.exp(-logit))
        return correct, code
    y = rng.random(code.size) < 1 / (1 + np.exp(-(0.6 * shared - 0.3)))
    scores = y[:, None] * 1.0 + 0.7 * shared[:, None] + own + rng.normal(0, 1, (code.size, 2))
    return (y, scores), code


class PairTestTask:
    """One test set: the independent and the cluster-robust test of two equal systems."""

    def __init__(self, kind, clusters, seed):
        self.kind, self.clusters, self.seed = kind, clusters, seed

    def __call__(self, rep):
        from leaderboard_ci.tasks.scores.curves import delong_pvalues
        from leaderboard_ci.tasks.shared.sign_test import mcnemar_clustered_pvalues, mcnemar_pvalues

        rng = np.random.default_rng([self.seed, self.clusters, rep])
        data, code = _clustered_sample(self.kind, self.clusters, rng)
        if self.kind == "mcnemar":
            a, b = data[:, 0], data[:, 1]
            independent = float(mcnemar_pvalues(a, b, "two"))
            robust = float(mcnemar_clustered_pvalues(a, b, code, "two"))
        else:
            y, scores = data
            independent = float(delong_pvalues(y, scores.T, [[0, 1]], "two")[0])
            robust = float(delong_pvalues(y, scores.T, [[0, 1]], "two", code)[0])
        return {"independent": independent < ALPHA, "robust": robust < ALPHA}


def pair_tests(kind, clusters, reps):
    raw = _statsim.run_reps(PairTestTask(kind, clusters, 337), reps)
    return {
        "label": "%s-%d" % (kind, clusters),
        "kind": kind,
        "clusters": clusters,
        "reps": reps,
        "independent_type_one": rate(raw["independent"]),
        "robust_type_one": rate(raw["robust"]),
        "seconds": raw["_seconds"],
    }


# ---------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------
def _pct(pair):
    return _statsim.fmt_pct(pair[0], pair[1], 1)


def table(path=RESULTS):
    """docs/validity.md's rows of the joint and near-copy studies, the batches of each pooled."""
    rows = {}
    for line in open(path):
        row = json.loads(line)
        if row.get("study", "").startswith(("joint:", "copies")) and row.get("n_resamples") == 10000:
            rows.setdefault(row["study"], []).append(row)
    lines = []
    for study in ("joint:null-10", "joint:tiered-10", "joint:null-60", "joint:tiered-60", "copies", "joint:phase60"):
        if study not in rows:
            continue
        r = combine(rows[study])
        cells = [study.partition(":")[2] or study, "{:,}".format(r["reps"]), _pct(r["fw_interval_coverage"])]
        cells += [_pct(r["maxt_fwer"]), "%.2f" % r["mean_critical_simultaneous"], "%.2f" % r["mean_direction_only"]]
        cells.append(_pct(r["stepwise_interval_coverage"]))
        plain = r.get("plain_fwer")
        cells.append(
            "%s; %s; %.2f" % (_pct(plain), _pct(r["plain_interval_coverage"]), r["mean_plain_critical"])
            if plain
            else "—"
        )
        far = r["maxt_share_far_found"]
        cells.append("—" if far is None else "%.1f %%" % (100 * far))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run(study, reps, n_resamples, first=0):
    kind, _, name = study.partition(":")
    started = time.perf_counter()
    load = os.getloadavg()
    if kind == "joint":
        row = joint(name, reps, n_resamples, plain=name != "phase60", first=first)
    elif kind == "copies":
        row = copies(reps, n_resamples, first=first)
    elif kind == "auc":
        row = auc_phase(int(name or 0), n_resamples)
    elif kind in ("mcnemar", "delong"):
        row = pair_tests(kind, int(name), reps)
    else:
        raise SystemExit("unknown study %r" % study)
    row["study"] = study
    row["wall_seconds"] = time.perf_counter() - started
    row["load_average"] = [load, os.getloadavg()]
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--study", action="append", default=[], help="joint:tiered-10, copies, auc:3, mcnemar:50")
    parser.add_argument("--table", action="store_true", help="print docs/validity.md's rows from --out")
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--B", type=int, default=10000)
    parser.add_argument("--batch", type=int, default=0, help="append a row every BATCH test sets (joint, copies)")
    parser.add_argument("--first", type=int, default=0, help="first test set (continue a study cut off)")
    parser.add_argument("--out", default=RESULTS)
    args = parser.parse_args(argv)
    if args.table:
        print(table(args.out))
    for study in args.study:
        batched = args.batch and study.partition(":")[0] in ("joint", "copies")
        step = args.batch if batched else args.reps
        for first in range(args.first, args.first + args.reps, step):
            row = run(study, min(step, args.first + args.reps - first), args.B, first)
            print(json.dumps(row, default=float), flush=True)
            with open(args.out, "a") as handle:
                handle.write(json.dumps(row, default=float) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
