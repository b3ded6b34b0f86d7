#!/usr/bin/env python3
"""Build the shake-up example: the sample competition (scikit-learn's digits) split into public and private parts.

    python3 examples/shakeup/make_example.py            # rewrites examples/shakeup/{two_phases,split}/

The 540 test items of the sample competition (``leaderboard_ci.tools.sample_competition``:
digits, stratified 30 % test split, random_state 0) are split, stratified by digit, into a
public part (216 items, 40 %) and a private part (324 items).  Nine participants made real
scikit-learn models on the 1,257 training items and submitted several of them over the
competition (hyper-parameter sweeps, oldest first); the leaderboard shows each one's best
public score.  One participant, ``probe_pat``, overfits the public part on purpose:
starting from a heavily regularized logistic regression, it submits 120 probes, each of which
moves one more of the test items its model is least sure of to the model's second most likely
digit, and keeps the change whenever its public macro-F1 went up (hill climbing on the public
leaderboard, as in Blum & Hardt 2015).  The kept changes fix public items it could not have
known; a private item never moves the public score, so the private part stays as the model
predicts it.

Two layouts of the same competition are written:

* ``two_phases/``: a development phase scored on the public part and a final phase scored on
  the private part, each with its reference data (``public_reference/``, ``private_reference/``)
  and its Codabench bulk download (``public_submissions.zip``, ``private_submissions.zip``:
  zips of zips named ``{id}_{owner}_PhaseId{phase}_{date}_{file}``).  In the final phase each
  participant submits, once, the predictions of the model it picked on the public leaderboard;
  the prober, which cannot probe the private part, submits its model's predictions.
* ``split/``: one reference whose ``gold.csv`` has a ``Usage`` column (``Public``,
  ``Private``, as Kaggle's solution files), and one download whose submissions predict all
  540 items.

Everything is deterministic (fixed seeds, fixed zip dates): running it twice gives the same bytes.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections import OrderedDict

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, os.pardir, "scoring_program"))

from leaderboard_ci.tools.bundle import write_zip  # noqa: E402
from leaderboard_ci.tools.sample_competition import csv_bytes, label_csv, load_split  # noqa: E402

SEED = 35
PUBLIC_SHARE = 0.4
PROBER = "probe_pat"
PROBES = 120
CONFIG = """\
# The sample competition's settings (competition_bundle/reference_data/config.yaml), for one phase.
metric: f1_macro
extra_metrics: [accuracy]
labels: ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]
bootstrap:
  n_resamples: 10000
  confidence_level: 0.95
  method: percentile
  seed: 12345
"""


def sweeps():
    """Each participant's models, oldest first: ``owner -> [(file label, estimator), ...]``."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC, LinearSVC
    from sklearn.tree import DecisionTreeClassifier

    return OrderedDict(
        [
            ("ada_lovelace", [("svm_c%g" % c, SVC(C=c, gamma="scale", random_state=0)) for c in (0.3, 1.0, 10.0)]),
            ("bo_knn", [("knn_%d" % k, KNeighborsClassifier(n_neighbors=k)) for k in range(1, 9)]),
            (
                "cy_logreg",
                [
                    ("logreg_c%g" % c, make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=5000)))
                    for c in (0.001, 0.01, 0.03, 0.1, 1.0, 10.0)
                ],
            ),
            (
                "dee_forest",
                [
                    (
                        "forest_%d_%s" % (t, d or "full"),
                        RandomForestClassifier(n_estimators=t, max_depth=d, random_state=s),
                    )
                    for s, (t, d) in enumerate(((10, 4), (30, 6), (60, 8), (100, 12), (200, None)))
                ],
            ),
            (
                "eli_linear",
                [
                    ("linsvm_c%g" % c, make_pipeline(StandardScaler(), LinearSVC(C=c, max_iter=20000, random_state=0)))
                    for c in (0.001, 0.01)
                ],
            ),
            (
                "fay_trees",
                [("tree_depth%d" % d, DecisionTreeClassifier(max_depth=d, random_state=d)) for d in range(3, 13)],
            ),
            ("gus_bayes", [("gaussian_nb", GaussianNB())]),
            ("hal_stump", [("tree_depth4", DecisionTreeClassifier(max_depth=4, random_state=0))]),
        ]
    )


def split_items(y_test, rng):
    """Stratified by digit: a boolean mask of the public items."""
    public = np.zeros(len(y_test), dtype=bool)
    for digit in np.unique(y_test):
        at = np.flatnonzero(y_test == digit)
        chosen = rng.choice(at, size=int(round(PUBLIC_SHARE * at.size)), replace=False)
        public[chosen] = True
    return public


def macro_f1(y, p):
    from sklearn.metrics import f1_score

    return f1_score(y, p, labels=list(range(10)), average="macro", zero_division=0)


def probe_runs(X_train, y_train, X_test, y_test, public):
    """The prober's submissions: its model, then every probe (hill climbing on the public macro-F1)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    model = make_pipeline(StandardScaler(), LogisticRegression(C=3e-4, max_iter=5000)).fit(X_train, y_train)
    probabilities = model.predict_proba(X_test)
    base = probabilities.argmax(axis=1)
    second = np.argsort(probabilities, axis=1)[:, -2]
    runs = [("logreg_c0.0003", base.copy())]
    probabilities = np.sort(probabilities, axis=1)
    unsure = np.argsort(probabilities[:, -1] - probabilities[:, -2], kind="stable")  # smallest margin first
    current = base.copy()
    best = macro_f1(y_test[public], current[public])
    for k in range(PROBES):
        trial = current.copy()
        trial[unsure[k]] = second[unsure[k]]
        runs.append(("probe_%03d" % (k + 1), trial))
        score = macro_f1(y_test[public], trial[public])  # what the public leaderboard shows the prober
        if score > best:
            best, current = score, trial
    return base, runs


def member(index, owner, phase, minute, label):
    """A Codabench bulk member's name (``%Y-%m-%d:%M-%S`` with ``:`` written ``_``)."""
    day = 1 + minute // 600
    return "%d_%s_PhaseId%d_2026-03-%02d_%02d-%02d_%s.zip" % (
        index,
        owner,
        phase,
        day,
        (minute // 10) % 60,
        minute % 60,
        label,
    )


def zip_of_zips(path, members):
    import io

    inner = {}
    for name, data in members:
        buffer = io.BytesIO()
        write_zip(buffer, {"predictions.csv": data})
        inner[name] = buffer.getvalue()
    write_zip(path, inner)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(data if isinstance(data, bytes) else data.encode("utf-8"))


def build(out=HERE, verbose=True):
    ids_train, X_train, y_train, ids_test, X_test, y_test = load_split()
    rng = np.random.default_rng(SEED)
    public = split_items(y_test, rng)
    runs = OrderedDict()
    for owner, models in sweeps().items():
        runs[owner] = [(label, model.fit(X_train, y_train).predict(X_test)) for label, model in models]
    final_of_prober, runs[PROBER] = probe_runs(X_train, y_train, X_test, y_test, public)
    # the final phase: the model each participant picked on the public leaderboard (its best public score)
    finals = OrderedDict()
    for owner, subs in runs.items():
        scores = [macro_f1(y_test[public], p[public]) for _, p in subs]
        label, predictions = subs[int(np.argmax(scores))]
        finals[owner] = (label, final_of_prober if owner == PROBER else predictions)
    for folder in ("two_phases", "split"):
        shutil.rmtree(os.path.join(out, folder), ignore_errors=True)
    # two phases
    two = os.path.join(out, "two_phases")
    write(os.path.join(two, "public_reference", "gold.csv"), label_csv(ids_test[public], y_test[public]))
    write(os.path.join(two, "private_reference", "gold.csv"), label_csv(ids_test[~public], y_test[~public]))
    for ref in ("public_reference", "private_reference"):
        write(os.path.join(two, ref, "config.yaml"), CONFIG)
    members, index, minute = [], 1000, 0
    for owner, subs in runs.items():
        for label, predictions in subs:
            index += 1
            minute += 7
            members.append((member(index, owner, 11, minute, label), label_csv(ids_test[public], predictions[public])))
    zip_of_zips(os.path.join(two, "public_submissions.zip"), members)
    finals_members = []
    for owner, (label, predictions) in finals.items():
        index += 1
        minute += 11
        finals_members.append(
            (member(index, owner, 12, minute, "final_" + label), label_csv(ids_test[~public], predictions[~public]))
        )
    zip_of_zips(os.path.join(two, "private_submissions.zip"), finals_members)
    # one split reference
    split = os.path.join(out, "split")
    usage = np.where(public, "Public", "Private")
    write(
        os.path.join(split, "reference", "gold.csv"),
        csv_bytes(["id", "label", "Usage"], [(i, str(int(v)), u) for i, v, u in zip(ids_test, y_test, usage)]),
    )
    write(os.path.join(split, "reference", "config.yaml"), CONFIG)
    members, index, minute = [], 5000, 0
    for owner, subs in runs.items():
        for label, predictions in subs:
            index += 1
            minute += 7
            members.append((member(index, owner, 21, minute, label), label_csv(ids_test, predictions)))
    zip_of_zips(os.path.join(split, "submissions.zip"), members)
    if verbose:
        print("digits test items: %d public, %d private" % (public.sum(), (~public).sum()))
        print("%-14s %5s  %-14s %9s %9s" % ("participant", "runs", "best public", "public", "private"))
        for owner, subs in runs.items():
            scores = [macro_f1(y_test[public], p[public]) for _, p in subs]
            label, p = subs[int(np.argmax(scores))]
            print(
                "%-14s %5d  %-14s %9.4f %9.4f"
                % (owner, len(subs), label, max(scores), macro_f1(y_test[~public], p[~public]))
            )
    return runs


if __name__ == "__main__":
    build()
