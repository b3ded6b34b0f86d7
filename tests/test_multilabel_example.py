"""The multi-label example competition (examples/multilabel): bundle, worker runs, images, end of phase."""
import glob
import json
import os

import pytest
import yaml

from leaderboard_ci.tools.bundle import build_bundle
from leaderboard_ci.tools.bundle_check import check_bundle
from leaderboard_ci.tools.local_worker import run_scoring

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "multilabel")
PROGRAM = os.path.join(ROOT, "scoring_program")
REFERENCE = os.path.join(EXAMPLE, "reference_data")
SUBMISSIONS = sorted(glob.glob(os.path.join(EXAMPLE, "sample_submissions", "*.zip")))
IMAGES = {"py37": "LEADERBOARD_CI_PY37", "py312": "LEADERBOARD_CI_PY312"}


def _columns():
    with open(os.path.join(EXAMPLE, "competition.yaml")) as handle:
        competition = yaml.safe_load(handle)
    return [c["key"] for c in competition["leaderboards"][0]["columns"]]


def test_bundle_builds_and_passes_the_check(tmp_path):
    out = str(tmp_path / "multilabel.zip")
    names = build_bundle(out, bundle_dir=EXAMPLE)
    assert {"competition.yaml", "scoring_program.zip", "reference_data.zip", "public_data.zip"} <= set(names)
    problems = check_bundle(out, submissions=SUBMISSIONS, workdir=str(tmp_path / "runs"))
    assert [str(p) for p in problems] == []


@pytest.fixture(scope="module")
def current(tmp_path_factory):
    out = {}
    for path in SUBMISSIONS:
        result = run_scoring(str(tmp_path_factory.mktemp("ml")), PROGRAM, REFERENCE, path)
        assert result.returncode == 0, result.stderr
        out[os.path.basename(path)] = result
    return out


def test_every_sample_scores_with_every_leaderboard_column(current):
    assert len(current) == 5
    columns = _columns()
    scores = {}
    for name, result in current.items():
        assert result.stderr == ""
        assert set(columns) <= set(result.scores), name
        scores[name] = result.scores
        with open(os.path.join(result.output_dir, "detailed_results.html"), encoding="utf-8") as handle:
            html = handle.read()
        assert "Documentary" in html  # the per-label table
    # The real models beat the trivial baseline (every film a drama) on macro-F1.
    base = scores["most_frequent_set.zip"]["f1_macro"]
    assert all(s["f1_macro"] > base for n, s in scores.items() if n != "most_frequent_set.zip")
    assert scores["most_frequent_set.zip"]["f1_macro_vs_base"] == 0.0


@pytest.mark.image
@pytest.mark.parametrize("image", sorted(IMAGES))
def test_samples_score_identically_in_the_image(image, current, tmp_path):
    python = os.environ.get(IMAGES[image])
    if not python:
        pytest.skip("set %s to the %s image's interpreter (.ci/run does)" % (IMAGES[image], image))
    for path in SUBMISSIONS:
        name = os.path.basename(path)
        result = run_scoring(str(tmp_path / name), PROGRAM, REFERENCE, path, python=python)
        assert result.returncode == 0, "%s in %s: %s" % (name, image, result.stderr)
        assert result.stderr == ""
        assert result.scores_json_bytes == current[name].scores_json_bytes, "%s differs in %s" % (name, image)


def test_end_of_phase_reads_the_example_and_writes_the_report(tmp_path):
    from leaderboard_ci.phase.cli import main
    with open(os.path.join(REFERENCE, "config.yaml")) as handle:
        config = yaml.safe_load(handle)
    with open(os.path.join(PROGRAM, "config.yaml")) as handle:
        merged = yaml.safe_load(handle)
    merged.update(config)
    merged["bootstrap"] = dict(config["bootstrap"], n_resamples=300)
    merged["analysis"] = dict(merged.get("analysis") or {}, test="permutation", n_permutations=200)
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(merged))
    out = tmp_path / "report"
    code = main(["--reference", REFERENCE, "--submissions", os.path.join(EXAMPLE, "sample_submissions"),
                 "--out", str(out), "--config", str(path), "--no-progress", "--jobs", "1"])
    assert code == 0
    with open(str(out / "report.json"), encoding="utf-8") as handle:
        report = json.load(handle)
    text = json.dumps(report)
    for key in ("f1_macro", "hamming_loss", "coarse_f1_macro", "classifier_chain"):
        assert key in text
