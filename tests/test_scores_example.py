"""The scored-predictions example competition (``examples/scores/``) end to end.

The bundle builds and passes the check (which scores every sample submission through
the emulated worker); the samples score in the py37 and py312 image environments with
the same bytes; ``analyze()`` and ``scripts/end_of_phase.py`` run on it.
"""
import glob
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from leaderboard_ci.tools.bundle import build_bundle
from leaderboard_ci.tools.bundle_check import check_bundle
from leaderboard_ci.tools.local_worker import run_scoring

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
EXAMPLE = os.path.join(ROOT, "examples", "scores")
PROGRAM = os.path.join(ROOT, "scoring_program")
REFERENCE = os.path.join(EXAMPLE, "reference_data")
SUBMISSIONS = sorted(glob.glob(os.path.join(EXAMPLE, "sample_submissions", "*.zip")))
IMAGES = {"py37": "LEADERBOARD_CI_PY37", "py312": "LEADERBOARD_CI_PY312"}
#: The binary example and its multi-class variant (digits, one probability column per class).
EXAMPLES = ("scores", "scores_multiclass")


def _example(name):
    folder = os.path.join(ROOT, "examples", name)
    return folder, os.path.join(folder, "reference_data"), sorted(glob.glob(os.path.join(folder, "sample_submissions",
                                                                                       "*.zip")))


@pytest.mark.parametrize("example", EXAMPLES)
def test_bundle_builds_and_checks_clean(tmp_path, example):
    folder, _, submissions = _example(example)
    assert submissions
    out = str(tmp_path / "bundle.zip")
    names = build_bundle(out, bundle_dir=folder)
    assert "competition.yaml" in names and "reference_data.zip" in names
    problems = check_bundle(out, submissions=submissions, workdir=str(tmp_path / "work"))
    assert [str(p) for p in problems] == []


def test_sample_scores_equal_sklearn(tmp_path):
    metrics = pytest.importorskip("sklearn.metrics")
    import csv
    import io
    import zipfile
    gold = dict((r["id"], r["label"] == "malignant") for r in csv.DictReader(open(os.path.join(REFERENCE, "gold.csv"))))
    path = os.path.join(EXAMPLE, "sample_submissions", "gradient_boosting.zip")
    rows = list(csv.DictReader(io.StringIO(zipfile.ZipFile(path).read("predictions.csv").decode())))
    y = np.array([gold[r["id"]] for r in rows])
    p = np.array([float(r["score"]) for r in rows])
    result = run_scoring(str(tmp_path), PROGRAM, REFERENCE, path)
    assert result.returncode == 0, result.stderr
    assert abs(result.scores["roc_auc"] - metrics.roc_auc_score(y, p)) < 1e-12
    assert abs(result.scores["log_loss"] - metrics.log_loss(y, p)) < 1e-12
    assert result.scores["roc_auc_ci_low"] < result.scores["roc_auc"] < result.scores["roc_auc_ci_high"]


@pytest.mark.image
@pytest.mark.parametrize("example", EXAMPLES)
@pytest.mark.parametrize("image", sorted(IMAGES))
def test_samples_score_identically_in_the_image(image, example, tmp_path):
    python = os.environ.get(IMAGES[image])
    if not python:
        pytest.skip("set %s to the %s image's interpreter" % (IMAGES[image], image))
    _, reference, submissions = _example(example)
    for path in submissions:
        name = os.path.basename(path)
        here = run_scoring(str(tmp_path / ("here_" + name)), PROGRAM, reference, path)
        there = run_scoring(str(tmp_path / name), PROGRAM, reference, path, python=python)
        assert there.returncode == 0, "%s in %s: %s" % (name, image, there.stderr)
        assert there.stderr == ""
        assert there.scores_json_bytes == here.scores_json_bytes, "%s differs in %s" % (name, image)
        assert os.path.exists(os.path.join(there.output_dir, "detailed_results.html"))


def test_analyze_through_encode_values():
    from leaderboard_ci.phase.analysis import analyze
    rng = np.random.default_rng(0)
    y = np.where(rng.random(300) < 0.4, "pos", "neg")
    truth = (y == "pos").astype(float)
    systems = {"good": truth + rng.normal(0, 0.6, 300), "weak": truth + rng.normal(0, 1.5, 300),
               "noise": rng.normal(size=300)}
    result = analyze(list(y), systems, metric="roc_auc", extra_metrics=["average_precision"], n_resamples=300,
                     seed=1)
    assert result is not None


def test_end_of_phase_script_writes_report_json(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text(open(os.path.join(REFERENCE, "config.yaml")).read().replace("n_resamples: 10000",
                                                                                 "n_resamples: 200"))
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "end_of_phase.py"), "--reference", REFERENCE,
                           "--submissions", os.path.join(EXAMPLE, "sample_submissions"), "--out", str(out),
                           "--config", str(config), "--no-progress"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    report = json.loads((out / "report.json").read_text())
    assert "roc_auc" in json.dumps(report)


def test_multiclass_sample_scores_equal_sklearn(tmp_path):
    metrics = pytest.importorskip("sklearn.metrics")
    import csv
    import io
    import zipfile
    _, reference, submissions = _example("scores_multiclass")
    gold = dict((r["id"], int(r["label"])) for r in csv.DictReader(open(os.path.join(reference, "gold.csv"))))
    path = [p for p in submissions if p.endswith("gaussian_nb.zip")][0]
    rows = list(csv.DictReader(io.StringIO(zipfile.ZipFile(path).read("predictions.csv").decode())))
    y = np.array([gold[r["id"]] for r in rows])
    p = np.array([[float(r[str(k)]) for k in range(10)] for r in rows])
    result = run_scoring(str(tmp_path), PROGRAM, reference, path)
    assert result.returncode == 0, result.stderr
    assert abs(result.scores["roc_auc"] - metrics.roc_auc_score(y, p, multi_class="ovr")) < 1e-12
    assert abs(result.scores["roc_auc_ovo"] - metrics.roc_auc_score(y, p, multi_class="ovo")) < 1e-12
    assert abs(result.scores["log_loss"] - metrics.log_loss(y, p)) < 1e-12
    assert abs(result.scores["top_2_accuracy"] - metrics.top_k_accuracy_score(y, p, k=2)) < 1e-12
