"""The CompStats side of the cross-check; runs in the PEER interpreter, prints JSON.

    PEER_PYTHON compstats_peer.py --data-csv            # print CompStats' own test data (data.csv)
    PEER_PYTHON compstats_peer.py INPUT.npz METRIC ALPHA

``INPUT.npz`` holds ``y`` (n,), ``systems`` (m, n), ``names`` (m,) and ``indices``
(B, n): leaderboard-ci's resamples, ``replicate_indices(seed, n, 0, B)``.
CompStats 0.1.15 is fed those resamples by setting ``StatisticSamples._samples``
(``StatisticSamples.samples(N)`` returns ``_samples`` when its width is N), and
run as its documentation shows: ``performance`` -> ``difference_multiple`` and
``all_differences_multiple``.  This file imports only CompStats, numpy, pandas
and scikit-learn (never leaderboard_ci): CompStats is not a project dependency.
"""

import json
import os
import sys

import numpy as np


def _metric(name):
    from sklearn.metrics import accuracy_score, f1_score

    if name == "accuracy":
        return accuracy_score
    if name in ("f1_macro", "f1_weighted"):
        average = name.split("_")[1]
        return lambda y, hy: f1_score(y, hy, average=average)
    raise SystemExit("unknown metric %r" % name)


def data_csv():
    import CompStats
    import pandas as pd

    path = os.path.join(os.path.dirname(CompStats.__file__), "tests", "data.csv")
    df = pd.read_csv(path)
    print(
        json.dumps(
            {"path": path, "columns": list(df.columns), "values": {c: [int(v) for v in df[c]] for c in df.columns}}
        )
    )


def run(path, metric, alpha):
    import CompStats
    import pandas as pd
    from CompStats import StatisticSamples, all_differences_multiple, difference_multiple, performance
    from CompStats.measurements import CI

    data = np.load(path, allow_pickle=False)
    names = [str(x) for x in data["names"]]
    frame = pd.DataFrame({"y": data["y"]})
    for name, values in zip(names, data["systems"]):
        frame[name] = values
    score = _metric(metric)
    samples = StatisticSamples(statistic=score, num_samples=int(data["indices"].shape[0]), n_jobs=1, BiB=True)
    samples._samples = np.asarray(data["indices"])  # our resamples, not np.random.randint's
    perf = performance(
        frame, gold="y", score=score, num_samples=samples.num_samples, n_jobs=1, statistic_samples=samples
    )
    assert samples._samples is not None and samples._samples.shape == data["indices"].shape
    results = {"samples": {metric: dict(perf.calls)}, "BiB": {metric: True}}
    winner = difference_multiple(results, CI=alpha)["winner"][metric]
    every = all_differences_multiple(results, alpha=alpha)["all"][metric]
    out = {
        "version": CompStats.__version__,
        "replicates": {k: [float(x) for x in v] for k, v in perf.calls.items()},
        "ci": {k: [float(x) for x in CI(v, alpha=alpha)] for k, v in perf.calls.items()},
        "best": winner["best"],
        "diff_ci": {k: [float(x) for x in v] for k, v in winner["CI"].items()},
        "p_value": {k: float(v) for k, v in winner["p_value"].items()},
        "ties": {c: int(winner[c]) for c in ("none", "bonferroni", "holm", "HB")},
        "all_p_value": {k: float(v) for k, v in every["p_value"].items()},
        "all_not_significant": {c: int(every[c]) for c in ("none", "bonferroni", "holm", "HB")},
    }
    print(json.dumps(out))


if __name__ == "__main__":
    if sys.argv[1:] == ["--data-csv"]:
        data_csv()
    elif sys.argv[1:] == ["--version"]:
        import CompStats

        print(json.dumps({"version": CompStats.__version__}))
    else:
        run(sys.argv[1], sys.argv[2], float(sys.argv[3]))
