#!/usr/bin/env python3
"""Train a model on train.csv and write submission.zip with predictions.csv for test.csv."""

import argparse
import csv
import io
import os
import zipfile

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler


def read(path):
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    pixels = [k for k in rows[0] if k.startswith("pixel_")]
    X = np.array([[float(r[k]) for k in pixels] for r in rows])
    ids = [r["id"] for r in rows]
    y = [r["label"] for r in rows] if "label" in rows[0] else None
    return ids, X, y


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", default=".", help="folder with train.csv and test.csv")
    parser.add_argument("--out", default="submission.zip")
    args = parser.parse_args()
    _, X_train, y_train = read(os.path.join(args.data, "train.csv"))
    test_ids, X_test, _ = read(os.path.join(args.data, "test.csv"))
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))
    model.fit(X_train, y_train)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["id", "label"])
    writer.writerows(zip(test_ids, model.predict(X_test)))
    with zipfile.ZipFile(args.out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("predictions.csv", buffer.getvalue())
    print("wrote", args.out)


if __name__ == "__main__":
    main()
