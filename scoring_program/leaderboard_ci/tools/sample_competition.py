"""``leaderboard-ci sample-competition``: build the sample competition's data from scikit-learn's digits data set.

    leaderboard-ci sample-competition [--bundle-dir DIR]
    python -m leaderboard_ci.tools.sample_competition    # the same, without the console script

Why digits (``sklearn.datasets.load_digits``): it ships with scikit-learn (no
download), it is real data (1,797 8x8 scans of handwritten digits, UCI), and
it has 10 balanced classes, so macro-F1 and accuracy are both meaningful.  A
stratified 30% test split gives 540 test items: enough that the 95%
intervals are narrow (about +-0.01 at 0.98) and weak models separate clearly,
yet few enough that the best models are statistical ties -- exactly what a
leaderboard with confidence intervals is for.  (iris/wine have under 60 test
items, so every interval would overlap; breast_cancer is binary.)

Writes, deterministically (running it twice gives identical bytes):

* ``competition_bundle/reference_data/gold.csv``: ``id,label`` of the test items;
* ``competition_bundle/reference_data/baseline.csv``: the majority-class baseline;
* ``competition_bundle/sample_submissions/<model>.zip``: ``predictions.csv``
  (``id,label``) of each real model, as a participant would upload it;
* ``competition_bundle/public_data/``: what participants get (train.csv with
  labels, test.csv without), zipped into the bundle by ``leaderboard-ci bundle``;
* ``competition_bundle/starting_kit/``: a README, an example submission (the
  majority-class baseline, which reveals nothing) and an example script;
* ``competition_bundle/logo.png``.

Prints the models' accuracy and macro-F1 as computed by scikit-learn.

The sample submissions predict the test labels well, so they must never be
given to participants: only the baseline goes into the starting kit.
"""

from __future__ import annotations

import csv
import io
import os
from collections import OrderedDict

import numpy as np

from .bundle import BUNDLE_DIR, format_table, write_zip

SEED = 0
TEST_SIZE = 0.3
PREDICTIONS_NAME = "predictions.csv"
BASELINE_NAME = "majority_class"
#: Stable item ids: the row of the item in load_digits().
ID_FORMAT = "digit_{:04d}"

DESCRIPTIONS = OrderedDict(
    [
        ("rbf_svm", "SVM, RBF kernel (C=10, gamma=scale) on the raw pixels"),
        ("knn", "3-nearest neighbours, Euclidean distance on the raw pixels"),
        ("logistic_regression", "multinomial logistic regression on standardized pixels"),
        ("random_forest", "random forest, 200 trees"),
        ("linear_svm", "linear SVM (one-vs-rest) on standardized pixels"),
        ("decision_tree", "one unpruned decision tree"),
        ("gaussian_nb", "Gaussian naive Bayes"),
        ("shallow_tree", "decision tree of depth 4 (deliberately weak)"),
        (BASELINE_NAME, "always the most frequent training class (the baseline)"),
    ]
)


def make_models():
    """The real models, each with a fixed random_state where it has one."""
    from sklearn.dummy import DummyClassifier
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
            ("rbf_svm", SVC(kernel="rbf", C=10.0, gamma="scale", random_state=SEED)),
            ("knn", KNeighborsClassifier(n_neighbors=3)),
            (
                "logistic_regression",
                make_pipeline(StandardScaler(), LogisticRegression(C=0.1, max_iter=5000, random_state=SEED)),
            ),
            ("random_forest", RandomForestClassifier(n_estimators=200, random_state=SEED, n_jobs=1)),
            ("linear_svm", make_pipeline(StandardScaler(), LinearSVC(C=0.01, max_iter=20000, random_state=SEED))),
            ("decision_tree", DecisionTreeClassifier(random_state=SEED)),
            ("gaussian_nb", GaussianNB()),
            ("shallow_tree", DecisionTreeClassifier(max_depth=4, random_state=SEED)),
            (BASELINE_NAME, DummyClassifier(strategy="most_frequent")),
        ]
    )


def load_split():
    """(ids_train, X_train, y_train, ids_test, X_test, y_test), test items in id order."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    X, y = digits.data, digits.target
    rows = np.arange(len(y))
    r_train, r_test = train_test_split(rows, test_size=TEST_SIZE, stratify=y, random_state=SEED)
    r_train, r_test = np.sort(r_train), np.sort(r_test)
    ids = np.array([ID_FORMAT.format(int(r)) for r in rows])
    return ids[r_train], X[r_train], y[r_train], ids[r_test], X[r_test], y[r_test]


def csv_bytes(header, rows):
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


def label_csv(ids, labels):
    return csv_bytes(["id", "label"], [(i, str(int(l))) for i, l in zip(ids, labels)])


def features_csv(ids, X, y=None):
    header = (
        ["id"] + (["label"] if y is not None else []) + ["pixel_%d_%d" % (r, c) for r in range(8) for c in range(8)]
    )
    rows = []
    for k, item in enumerate(ids):
        row = [item] + ([str(int(y[k]))] if y is not None else [])
        row += [str(int(v)) for v in X[k]]
        rows.append(row)
    return csv_bytes(header, rows)


def write_file(path, data):
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        os.makedirs(folder)
    with open(path, "wb") as handle:
        handle.write(data)


def make_logo(path, X_test, y_test):
    """A 256x256 logo: four real digit scans above a leaderboard of CI bars."""
    from PIL import Image, ImageDraw

    size = 256
    image = Image.new("RGB", (size, size), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle([4, 4, size - 5, size - 5], radius=28, fill=(22, 48, 84))
    # four real digit scans (for each of 1, 0, 9, 5 the test item closest to its class mean), 8x8 -> 40x40
    cell = 5
    picks = []
    for digit in (1, 0, 9, 5):
        items = X_test[y_test == digit]
        picks.append(items[int(np.argmin(((items - items.mean(axis=0)) ** 2).sum(axis=1)))])
    x0 = (size - (4 * 8 * cell + 3 * 10)) // 2
    for k, pixels in enumerate(picks):
        ox, oy = x0 + k * (8 * cell + 10), 30
        draw.rectangle([ox - 3, oy - 3, ox + 8 * cell + 2, oy + 8 * cell + 2], fill=(255, 255, 255))
        for r in range(8):
            for c in range(8):
                v = int(255 - pixels[r * 8 + c] * 255 / 16)
                draw.rectangle(
                    [ox + c * cell, oy + r * cell, ox + (c + 1) * cell - 1, oy + (r + 1) * cell - 1], fill=(v, v, v)
                )
    # a leaderboard: points with 95% interval whiskers
    bars = [(0.90, 0.84, 0.95), (0.80, 0.72, 0.87), (0.62, 0.52, 0.71), (0.45, 0.36, 0.55)]
    left, right, top = 40, size - 40, 112
    for k, (point, low, high) in enumerate(bars):
        y = top + k * 30
        draw.line([left, y, right, y], fill=(60, 86, 122), width=2)
        xl, xh, xp = (left + (right - left) * v for v in (low, high, point))
        draw.line([xl, y, xh, y], fill=(255, 196, 61), width=6)
        draw.line([xl, y - 8, xl, y + 8], fill=(255, 196, 61), width=3)
        draw.line([xh, y - 8, xh, y + 8], fill=(255, 196, 61), width=3)
        draw.ellipse([xp - 7, y - 7, xp + 7, y + 7], fill=(255, 255, 255), outline=(255, 196, 61), width=3)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    write_file(path, buffer.getvalue())


STARTING_KIT_README = """\
# Starting kit: handwritten digits with confidence intervals

## What to submit

A zip file containing one file, `predictions.csv`, with a header and one row
per test item:

```
id,label
digit_0003,3
digit_0007,7
...
```

* `id`: every id of `test.csv` (public data), each exactly once, in any order;
* `label`: the predicted digit, `0` to `9`.

`example_submission.zip` is a valid submission: it predicts the most frequent
training class for every item (the baseline of the leaderboard).

## Making a real submission

`make_submission.py` trains a model on `train.csv` and writes
`submission.zip`:

```
python make_submission.py --data PUBLIC_DATA_FOLDER --out submission.zip
```

It needs Python 3, numpy and scikit-learn.
"""

STARTING_KIT_SCRIPT = '''\
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
    writer = csv.writer(buffer, lineterminator="\\n")
    writer.writerow(["id", "label"])
    writer.writerows(zip(test_ids, model.predict(X_test)))
    with zipfile.ZipFile(args.out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("predictions.csv", buffer.getvalue())
    print("wrote", args.out)


if __name__ == "__main__":
    main()
'''

PUBLIC_DATA_README = """\
# Public data: handwritten digits

8x8 grey-level scans of handwritten digits (scikit-learn's `load_digits`, a
copy of the UCI "Optical Recognition of Handwritten Digits" test set).
Pixel values go from 0 (white) to 16 (black).

* `train.csv`: `id,label,pixel_0_0,...,pixel_7_7` -- 1,257 labelled items;
* `test.csv`: `id,pixel_0_0,...,pixel_7_7` -- 540 items to predict.

Predict a `label` (0-9) for every id of `test.csv`; see the starting kit for
the submission format.
"""


def build(bundle_dir=BUNDLE_DIR, verbose=True):
    """Write every generated file of the sample competition; returns the score table rows."""
    from sklearn.metrics import accuracy_score, f1_score

    ids_train, X_train, y_train, ids_test, X_test, y_test = load_split()
    labels = list(range(10))
    ref_dir = os.path.join(bundle_dir, "reference_data")
    samples_dir = os.path.join(bundle_dir, "sample_submissions")
    write_file(os.path.join(ref_dir, "gold.csv"), label_csv(ids_test, y_test))

    if os.path.isdir(samples_dir):  # stale models from an older run must not linger
        for name in os.listdir(samples_dir):
            if name.endswith(".zip") and name[:-4] not in DESCRIPTIONS:
                os.remove(os.path.join(samples_dir, name))

    rows = []
    for name, model in make_models().items():
        model.fit(X_train, y_train)
        predicted = model.predict(X_test)
        data = label_csv(ids_test, predicted)
        write_zip(os.path.join(samples_dir, name + ".zip"), {PREDICTIONS_NAME: data})
        if name == BASELINE_NAME:
            write_file(os.path.join(ref_dir, "baseline.csv"), data)
            write_zip(os.path.join(bundle_dir, "starting_kit", "example_submission.zip"), {PREDICTIONS_NAME: data})
        rows.append(
            (
                name,
                accuracy_score(y_test, predicted),
                f1_score(y_test, predicted, labels=labels, average="macro", zero_division=0),
            )
        )

    public = os.path.join(bundle_dir, "public_data")
    write_file(os.path.join(public, "train.csv"), features_csv(ids_train, X_train, y_train))
    write_file(os.path.join(public, "test.csv"), features_csv(ids_test, X_test))
    write_file(os.path.join(public, "README.md"), PUBLIC_DATA_README.encode("utf-8"))
    kit = os.path.join(bundle_dir, "starting_kit")
    write_file(os.path.join(kit, "README.md"), STARTING_KIT_README.encode("utf-8"))
    write_file(os.path.join(kit, "make_submission.py"), STARTING_KIT_SCRIPT.encode("utf-8"))
    make_logo(os.path.join(bundle_dir, "logo.png"), X_test, y_test)

    rows.sort(key=lambda r: (-r[2], r[0]))
    if verbose:
        print(
            "digits: %d train / %d test items, %d classes (stratified split, random_state=%d)"
            % (len(ids_train), len(ids_test), len(labels), SEED)
        )
        print(
            format_table(
                ["model", "accuracy", "macro-F1", "description"],
                [(n, "%.4f" % a, "%.4f" % f, DESCRIPTIONS[n]) for n, a, f in rows],
                align=["<", ">", ">", "<"],
            )
        )
        print("wrote %s" % os.path.relpath(bundle_dir))
    return rows
