#!/usr/bin/env python3
"""Regenerate the multi-class scored-predictions example from scikit-learn's digits data set.

``sklearn.datasets.load_digits`` (1,797 8x8 scans, 10 classes, UCI; no download),
split 70/30, stratified, ``random_state=0``: 540 test items.  Writes, deterministically:

* ``reference_data/gold.csv``: ``id,label`` (``0`` ... ``9``);
* ``reference_data/baseline.csv``: the training class shares for every item;
* ``sample_submissions/<model>.zip``: ``predictions.csv`` with ``id,0,1,...,9``, the
  class probabilities of real models (10 decimals, so each row sums to 1 within 1e-9).

Run from the repository root: ``python3 examples/scores_multiclass/make_data.py``.
"""

from __future__ import annotations

import os
import sys
from collections import OrderedDict

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scoring_program"))

from leaderboard_ci.tools.bundle import write_zip  # noqa: E402

SEED = 0
ID_FORMAT = "digit_{:04d}"


def make_models():
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    return OrderedDict(
        [
            ("logistic_regression", make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))),
            ("random_forest", RandomForestClassifier(n_estimators=200, random_state=SEED)),
            ("knn", KNeighborsClassifier(n_neighbors=5)),
            ("gaussian_nb", GaussianNB()),
            ("shallow_tree", DecisionTreeClassifier(max_depth=3, random_state=SEED)),
        ]
    )


def _rows(ids, probabilities):
    header = "id," + ",".join(str(k) for k in range(10))
    lines = [header] + ["%s,%s" % (i, ",".join("%.10f" % v for v in row)) for i, row in zip(ids, probabilities)]
    return ("\n".join(lines) + "\n").encode("utf-8")


def main():
    from sklearn import metrics
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    data = load_digits()
    ids = np.array([ID_FORMAT.format(i) for i in range(data.target.size)])
    x_train, x_test, y_train, y_test, _, id_test = train_test_split(
        data.data, data.target, ids, test_size=0.3, stratify=data.target, random_state=SEED
    )
    ref = os.path.join(HERE, "reference_data")
    with open(os.path.join(ref, "gold.csv"), "wb") as handle:
        handle.write(("id,label\n" + "".join("%s,%d\n" % (i, y) for i, y in zip(id_test, y_test))).encode())
    prior = np.bincount(y_train, minlength=10) / float(y_train.size)
    with open(os.path.join(ref, "baseline.csv"), "wb") as handle:
        handle.write(_rows(id_test, np.repeat(prior[None, :], y_test.size, axis=0)))
    print("%-20s %8s %8s %8s %8s" % ("model", "auc_ovr", "auc_ovo", "logloss", "top2"))
    for name, model in make_models().items():
        model.fit(x_train, y_train)
        p = np.round(model.predict_proba(x_test), 10)
        write_zip(os.path.join(HERE, "sample_submissions", name + ".zip"), {"predictions.csv": _rows(id_test, p)})
        print(
            "%-20s %8.4f %8.4f %8.4f %8.4f"
            % (
                name,
                metrics.roc_auc_score(y_test, p, multi_class="ovr"),
                metrics.roc_auc_score(y_test, p, multi_class="ovo"),
                metrics.log_loss(y_test, p),
                metrics.top_k_accuracy_score(y_test, p, k=2),
            )
        )


if __name__ == "__main__":
    main()
