#!/usr/bin/env python3
"""Regenerate the scored-predictions example from scikit-learn's breast cancer data set.

Why breast cancer (``sklearn.datasets.load_breast_cancer``): it ships with
scikit-learn (no download), it is real data (569 fine-needle aspirates, 30
features, Wisconsin Diagnostic Breast Cancer, UCI), and it is binary with a
natural positive class (malignant), the typical ROC-AUC competition.  A
stratified 30% test split gives 171 test items.

Writes, deterministically (running it twice gives identical bytes):

* ``reference_data/gold.csv``: ``id,label`` (``benign`` / ``malignant``);
* ``reference_data/baseline.csv``: the trivial baseline, the training share of
  malignant cases for every item (ROC-AUC 0.5);
* ``sample_submissions/<model>.zip``: ``predictions.csv`` (``id,score``,
  the predicted probability of ``malignant``) of real models, as a
  participant would upload them.

Prints each model's scores as scikit-learn computes them.  Run from the
repository root: ``python3 examples/scores/make_data.py``.
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
ID_FORMAT = "case_{:03d}"


def make_models():
    from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    return OrderedDict(
        [
            ("logistic_regression", make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))),
            ("random_forest", RandomForestClassifier(n_estimators=200, random_state=SEED)),
            ("gradient_boosting", GradientBoostingClassifier(random_state=SEED)),
            ("knn", make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=7))),
            ("gaussian_nb", GaussianNB()),
            ("shallow_tree", DecisionTreeClassifier(max_depth=1, random_state=SEED)),
        ]
    )


def _csv(header, rows):
    return ("\n".join([header] + rows) + "\n").encode("utf-8")


def main():
    from sklearn import metrics
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    data = load_breast_cancer()
    names = np.array(["malignant", "benign"])  # target 0 = malignant, 1 = benign
    ids = np.array([ID_FORMAT.format(i) for i in range(data.target.size)])
    x_train, x_test, y_train, y_test, _, id_test = train_test_split(
        data.data, data.target, ids, test_size=0.3, stratify=data.target, random_state=SEED
    )
    malignant = (y_test == 0).astype(int)
    ref = os.path.join(HERE, "reference_data")
    with open(os.path.join(ref, "gold.csv"), "wb") as handle:
        handle.write(_csv("id,label", ["%s,%s" % (i, names[y]) for i, y in zip(id_test, y_test)]))
    prior = float(np.mean(y_train == 0))
    with open(os.path.join(ref, "baseline.csv"), "wb") as handle:
        handle.write(_csv("id,score", ["%s,%.6f" % (i, prior) for i in id_test]))
    print("%-20s %8s %8s %8s %8s" % ("model", "roc_auc", "ap", "logloss", "brier"))
    for name, model in make_models().items():
        model.fit(x_train, y_train)
        p = np.round(model.predict_proba(x_test)[:, list(model.classes_).index(0)], 6)
        body = _csv("id,score", ["%s,%.6f" % (i, s) for i, s in zip(id_test, p)])
        write_zip(os.path.join(HERE, "sample_submissions", name + ".zip"), {"predictions.csv": body})
        print(
            "%-20s %8.4f %8.4f %8.4f %8.4f"
            % (
                name,
                metrics.roc_auc_score(malignant, p),
                metrics.average_precision_score(malignant, p),
                metrics.log_loss(malignant, p),
                metrics.brier_score_loss(malignant, p),
            )
        )


if __name__ == "__main__":
    main()
