"""DeLong's interval and paired test for ROC-AUC, against published implementations.

References (installed only for the tests, ``pip install MLstatkit confidenceinterval``):
``MLstatkit.Delong_test`` (the paired test, and each AUC's DeLong interval) and
``confidenceinterval.roc_auc_score(method="delong")``.  Both implement DeLong et al.
(1988) with Sun & Xu's (2014) placements, as R's ``pROC::roc.test(method="delong")`` does.
"""

import io
import os

import numpy as np
import pytest
import yaml

from leaderboard_ci.tasks.scores.curves import delong_auc, delong_pvalues, delong_test, normal_quantile

mlstatkit = pytest.importorskip("MLstatkit")
confidenceinterval = pytest.importorskip("confidenceinterval")


def _data(seed, n=300, ties=True):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    a = rng.normal(size=n) + y
    b = rng.normal(size=n) + 0.6 * y
    if ties:
        a, b = np.round(a, 1), np.round(b, 1)
    return y, a, b


@pytest.mark.parametrize("seed, ties", [(3, True), (4, False), (5, True)])
def test_paired_test_equals_mlstatkit(seed, ties):
    y, a, b = _data(seed, ties=ties)
    z_ref, p_ref, ci_a, ci_b, auc_a, auc_b, _ = mlstatkit.Delong_test(y, a, b, return_ci=True, return_auc=True)
    auc_a_ours, auc_b_ours, z, p = delong_test(y == 1, a, b)
    assert abs(auc_a_ours - auc_a) < 1e-12 and abs(auc_b_ours - auc_b) < 1e-12
    assert abs(abs(z) - abs(z_ref)) < 1e-9
    assert abs(p - p_ref) < 1e-12
    for scores, ci in ((a, ci_a), (b, ci_b)):
        _, _, low, high = delong_auc(y == 1, scores, 0.95)
        assert abs(low - ci[0]) < 1e-9 and abs(high - ci[1]) < 1e-9


def test_interval_equals_confidenceinterval():
    y, a, _ = _data(7, ties=False)
    auc_ref, (low_ref, high_ref) = confidenceinterval.roc_auc_score(list(y), list(a), confidence_level=0.9)
    auc, _, low, high = delong_auc(y == 1, a, 0.9)
    assert abs(auc - auc_ref) < 1e-6  # the package returns a float32 AUC
    assert abs(low - low_ref) < 1e-6 and abs(high - high_ref) < 1e-6


def test_pair_pvalues_equal_the_single_pair_test():
    y, a, b = _data(8)
    c = a + np.random.default_rng(1).normal(0, 2, a.size)
    scores = np.vstack([a, b, c])
    pairs = np.array([[0, 1], [0, 2], [1, 2], [2, 0]])
    p = delong_pvalues(y == 1, scores, pairs)
    for (i, j), value in zip(pairs, p):
        assert abs(value - delong_test(y == 1, scores[i], scores[j])[3]) < 1e-12
    same = delong_pvalues(y == 1, np.vstack([a, a]), np.array([[0, 1]]))
    assert same[0] == 1.0  # a system against itself


def test_normal_quantile():
    from statistics import NormalDist

    for p in (1e-6, 0.01, 0.025, 0.3, 0.5, 0.9, 0.975, 0.999999):
        assert abs(normal_quantile(p) - NormalDist().inv_cdf(p)) < 1e-12


def test_delong_interval_in_scores_json(tmp_path):
    """``interval: delong`` on roc_auc: the leaderboard CI is DeLong's, not the bootstrap's."""
    from leaderboard_ci.scoring.codabench import run

    y, a, _ = _data(9, n=120)
    ref, res = tmp_path / "input" / "ref", tmp_path / "input" / "res"
    ref.mkdir(parents=True)
    res.mkdir(parents=True)
    ids = ["i%03d" % i for i in range(y.size)]
    (ref / "gold.csv").write_text("id,label\n" + "".join("%s,%s\n" % (i, v) for i, v in zip(ids, y)))
    (res / "predictions.csv").write_text("id,score\n" + "".join("%s,%r\n" % (i, float(s)) for i, s in zip(ids, a)))
    config = {"task": "scores", "metric": {"name": "roc_auc", "interval": "delong"}, "bootstrap": {"n_resamples": 100}}
    (ref / "config.yaml").write_text(yaml.safe_dump(config))
    err = io.StringIO()
    code = run(
        str(tmp_path / "input"),
        str(tmp_path / "output"),
        os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scoring_program"),
        stdout=io.StringIO(),
        stderr=err,
    )
    assert code == 0, err.getvalue()
    import json

    scores = json.load(open(str(tmp_path / "output" / "scores.json")))
    _, (low, high) = None, confidenceinterval.roc_auc_score(list(y), list(a), confidence_level=0.95)[1]
    assert abs(scores["roc_auc_ci_low"] - low) < 1e-6 and abs(scores["roc_auc_ci_high"] - high) < 1e-6


def test_end_of_phase_pairs_table_has_delong_column():
    from leaderboard_ci.phase.analysis import analyze

    y, a, b = _data(10, n=400)
    labels = np.where(y == 1, "pos", "neg")
    result = analyze(
        list(labels),
        {"a": a, "b": b, "c": np.random.default_rng(2).normal(size=y.size)},
        metric="roc_auc",
        n_resamples=200,
        seed=1,
        sides="two",
    )
    target = result.targets[0] if isinstance(result.targets, (list, tuple)) else list(result.targets.values())[0]
    pairs = target.pairs
    assert "p_delong" in pairs.columns
    row = pairs[(pairs["a"] == "a") & (pairs["b"] == "b")].iloc[0]
    assert abs(row["p_delong"] - mlstatkit.Delong_test((labels == "pos").astype(int), a, b)[1]) < 1e-12
