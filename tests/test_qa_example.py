"""The extractive-QA example competition (``examples/qa``) end to end.

The bundle builds and passes the checker; every sample submission scores
through ``score.py`` exactly as the worker runs it, and its scores equal
the official SQuAD v1.1 formulas (tests/test_qa.py) on the same files; the end-of-phase CLI writes the report; and, with
``LEADERBOARD_CI_PY37`` / ``LEADERBOARD_CI_PY312`` set, the py37 and py312
image environments give the same bytes.
"""
import glob
import io
import json
import os
import subprocess
import sys
import zipfile

import pytest

from leaderboard_ci.tools.bundle import build_bundle
from leaderboard_ci.tools.bundle_check import check_bundle
from leaderboard_ci.tools.local_worker import run_scoring

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
EXAMPLE = os.path.join(ROOT, "examples", "qa")
PROGRAM = os.path.join(ROOT, "scoring_program")
REFERENCE = os.path.join(EXAMPLE, "reference_data")
SUBMISSIONS = sorted(glob.glob(os.path.join(EXAMPLE, "sample_submissions", "*.zip")))
IMAGES = {"py37": "LEADERBOARD_CI_PY37", "py312": "LEADERBOARD_CI_PY312"}


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("bundle") / "qa.zip")
    build_bundle(out, bundle_dir=EXAMPLE)
    return out


def test_bundle_passes_the_checker(bundle, tmp_path):
    problems = check_bundle(bundle, submissions=SUBMISSIONS, workdir=str(tmp_path / "work"))
    assert [str(p) for p in problems] == []


def test_every_sample_submission_scores_like_the_official_script(tmp_path):
    from test_qa import official_evaluate

    with io.open(os.path.join(REFERENCE, "gold.json"), encoding="utf-8") as handle:
        dataset = json.load(handle)["data"]
    assert len(SUBMISSIONS) == 4
    for path in SUBMISSIONS:
        result = run_scoring(str(tmp_path / os.path.basename(path)), PROGRAM, REFERENCE, path)
        assert result.returncode == 0, result.stderr
        assert result.stderr == ""
        with zipfile.ZipFile(path) as z:
            predictions = json.loads(z.read("predictions.json").decode("utf-8"))
        expected = official_evaluate(dataset, predictions)
        for key in ("f1", "exact_match"):
            assert abs(result.scores[key] - expected[key] / 100.0) <= 1e-12, (path, key)
            assert result.scores[key + "_ci_low"] <= result.scores[key] <= result.scores[key + "_ci_high"]
        assert os.path.exists(os.path.join(result.output_dir, "detailed_results.html"))


def test_a_missing_answer_exits_1_with_one_line(tmp_path):
    with zipfile.ZipFile(SUBMISSIONS[0]) as z:
        predictions = json.loads(z.read("predictions.json").decode("utf-8"))
    predictions.pop(sorted(predictions)[5])
    bad = str(tmp_path / "bad.zip")
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("predictions.json", json.dumps(predictions))
    result = run_scoring(str(tmp_path / "run"), PROGRAM, REFERENCE, bad)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("predictions.json has no answer for 1 of")


def test_end_of_phase_cli_writes_the_report(tmp_path):
    out = str(tmp_path / "report")
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "end_of_phase.py"), "--reference", REFERENCE,
                           "--submissions", os.path.join(EXAMPLE, "sample_submissions"), "--out", out,
                           "--no-progress", "--jobs", "1"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    with open(os.path.join(out, "report.json")) as handle:
        report = json.load(handle)
    assert "exact_match" in json.dumps(report)
    assert os.path.exists(os.path.join(out, "report.html"))


@pytest.mark.image
@pytest.mark.parametrize("image", sorted(IMAGES))
def test_every_sample_scores_identically_in_the_image(image, tmp_path):
    python = os.environ.get(IMAGES[image])
    if not python:
        pytest.skip("set %s to the %s image's interpreter (.ci/run does)" % (IMAGES[image], image))
    for path in SUBMISSIONS:
        name = os.path.basename(path)
        here = run_scoring(str(tmp_path / ("here-" + name)), PROGRAM, REFERENCE, path)
        there = run_scoring(str(tmp_path / name), PROGRAM, REFERENCE, path, python=python)
        assert there.returncode == 0, "%s in %s: %s" % (name, image, there.stderr)
        assert there.stderr == ""
        assert there.scores_json_bytes == here.scores_json_bytes, "%s differs in %s" % (name, image)
