"""The sample competition end to end: real data, real models, scored as Codabench's worker runs them."""

import csv
import io
import json
import math
import os
import shutil
import zipfile

import pytest
import yaml

from leaderboard_ci.cli import demo
from leaderboard_ci.cli import main as cli
from leaderboard_ci.tools import sample_competition as make_sample_competition
from leaderboard_ci.tools.bundle import BUNDLE_DIR, REFERENCE_DIR, sample_submissions, score_one, write_zip

SAMPLES = sample_submissions()
SAMPLE_IDS = [os.path.basename(p)[:-4] for p in SAMPLES]
#: Fewer resamples where the number of resamples is not what is tested (the shipped B is tested once).
FAST_RESAMPLES = 1000


def leaderboard_keys():
    with open(os.path.join(BUNDLE_DIR, "competition.yaml"), "rb") as handle:
        competition = yaml.safe_load(handle)
    return [c["key"] for c in competition["leaderboards"][0]["columns"]]


def read_labels(data):
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"))))
    assert rows[0] == ["id", "label"]
    return dict(rows[1:])


@pytest.fixture(scope="module")
def fast_reference(tmp_path_factory):
    """The competition's reference data with B lowered (a test-local ref/config.yaml override)."""
    ref = str(tmp_path_factory.mktemp("ref") / "reference_data")
    shutil.copytree(REFERENCE_DIR, ref)
    path = os.path.join(ref, "config.yaml")
    with open(path, "rb") as handle:
        config = yaml.safe_load(handle)
    config["bootstrap"]["n_resamples"] = FAST_RESAMPLES
    with open(path, "w") as handle:
        yaml.safe_dump(config, handle)
    return ref


@pytest.fixture(scope="module")
def fast_runs(fast_reference, tmp_path_factory):
    """Every sample submission scored once, each in a fresh tree."""
    base = tmp_path_factory.mktemp("runs")
    return {
        name: score_one(path, str(base / name), reference=fast_reference) for name, path in zip(SAMPLE_IDS, SAMPLES)
    }


# ---------------------------------------------------------------------------
# The data
# ---------------------------------------------------------------------------
def test_there_are_enough_real_models():
    assert len(SAMPLES) >= 7
    assert "majority_class" in SAMPLE_IDS
    assert set(SAMPLE_IDS) == set(make_sample_competition.DESCRIPTIONS)


def test_gold_holds_the_real_digits_test_labels():
    from sklearn.datasets import load_digits

    target = load_digits().target
    with open(os.path.join(REFERENCE_DIR, "gold.csv"), "rb") as handle:
        gold = read_labels(handle.read())
    assert len(gold) == 540  # 30% of 1,797, stratified
    for item, label in gold.items():
        assert int(label) == target[int(item.split("_")[1])]
    counts = [list(gold.values()).count(str(d)) for d in range(10)]
    assert min(counts) >= 52 and max(counts) <= 56


def test_sample_predictions_cover_the_gold_ids():
    with open(os.path.join(REFERENCE_DIR, "gold.csv"), "rb") as handle:
        gold = read_labels(handle.read())
    for path in SAMPLES:
        with zipfile.ZipFile(path) as archive:
            assert archive.namelist() == ["predictions.csv"]
            predictions = read_labels(archive.read("predictions.csv"))
        assert list(predictions) == list(gold)
        assert set(predictions.values()) <= set(str(d) for d in range(10))
    with open(os.path.join(REFERENCE_DIR, "baseline.csv"), "rb") as handle:
        baseline = handle.read()
    with zipfile.ZipFile(os.path.join(BUNDLE_DIR, "sample_submissions", "majority_class.zip")) as archive:
        assert archive.read("predictions.csv") == baseline


def test_generator_is_deterministic_and_reproduces_the_gold(tmp_path):
    first, second = str(tmp_path / "a"), str(tmp_path / "b")
    make_sample_competition.build(first, verbose=False)
    make_sample_competition.build(second, verbose=False)
    for root, _, files in os.walk(first):
        for name in files:
            path = os.path.join(root, name)
            other = os.path.join(second, os.path.relpath(path, first))
            with open(path, "rb") as a, open(other, "rb") as b:
                assert a.read() == b.read(), path
    for name in ("gold.csv", "baseline.csv"):
        with open(os.path.join(first, "reference_data", name), "rb") as a, open(
            os.path.join(REFERENCE_DIR, name), "rb"
        ) as b:
            assert a.read() == b.read(), name


# ---------------------------------------------------------------------------
# Scoring as the platform does
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", SAMPLE_IDS)
def test_every_sample_scores_with_every_column(fast_runs, name):
    run = fast_runs[name]
    assert run.returncode == 0, run.stderr
    assert run.scores_json_bytes is not None
    for key in leaderboard_keys():
        assert key in run.scores, key
        value = run.scores[key]
        assert isinstance(value, float) and math.isfinite(value), (key, value)
    assert run.scores["f1_macro_ci_low"] <= run.scores["f1_macro"] <= run.scores["f1_macro_ci_high"]
    assert 0 < run.scores["f1_macro_vs_base_p"] <= 1
    assert os.path.exists(run.detailed_results)
    assert not os.path.exists(os.path.join(run.output_dir, "metadata"))


@pytest.mark.parametrize("name", SAMPLE_IDS)
def test_official_score_equals_sklearn(fast_runs, name):
    from sklearn.metrics import accuracy_score, f1_score

    run = fast_runs[name]
    with open(os.path.join(run.root, "input", "ref", "gold.csv"), "rb") as handle:
        gold = read_labels(handle.read())
    with open(os.path.join(run.root, "input", "res", "predictions.csv"), "rb") as handle:
        predicted = read_labels(handle.read())
    y_true = [gold[i] for i in gold]
    y_pred = [predicted[i] for i in gold]
    labels = [str(d) for d in range(10)]
    expected = f1_score(y_true, y_pred, labels=labels, average="macro", zero_division=0)
    assert abs(run.scores["f1_macro"] - expected) <= 1e-12
    assert abs(run.scores["accuracy"] - accuracy_score(y_true, y_pred)) <= 1e-12
    with open(os.path.join(REFERENCE_DIR, "baseline.csv"), "rb") as handle:
        baseline = read_labels(handle.read())
    base_f1 = f1_score(y_true, [baseline[i] for i in gold], labels=labels, average="macro", zero_division=0)
    assert abs(run.scores["f1_macro_vs_base"] - (expected - base_f1)) <= 1e-12


def test_the_demo_shows_clear_differences_and_ties(fast_runs):
    s = {name: run.scores for name, run in fast_runs.items()}
    # clear: the RBF SVM's interval is above logistic regression's, which is above the linear SVM's ...
    assert s["rbf_svm"]["f1_macro_ci_low"] > s["logistic_regression"]["f1_macro"]
    assert s["gaussian_nb"]["f1_macro_ci_high"] < s["linear_svm"]["f1_macro_ci_low"]
    # ... while random forest and logistic regression, and naive Bayes and the tree, are ties.
    assert s["random_forest"]["f1_macro_ci_low"] < s["logistic_regression"]["f1_macro"]
    assert s["decision_tree"]["f1_macro_ci_high"] > s["gaussian_nb"]["f1_macro"]
    # The baseline compared with itself: no gain, p = 1.
    assert s["majority_class"]["f1_macro_vs_base"] == 0.0 and s["majority_class"]["f1_macro_vs_base_p"] == 1.0


def test_scoring_twice_gives_identical_bytes(fast_reference, tmp_path):
    path = os.path.join(BUNDLE_DIR, "sample_submissions", "random_forest.zip")
    first = score_one(path, str(tmp_path / "one"), reference=fast_reference)
    second = score_one(path, str(tmp_path / "two"), reference=fast_reference)
    assert first.returncode == second.returncode == 0
    assert first.scores_json_bytes == second.scores_json_bytes
    with open(os.path.join(first.output_dir, "scores.txt"), "rb") as a, open(
        os.path.join(second.output_dir, "scores.txt"), "rb"
    ) as b:
        assert a.read() == b.read()


def test_the_shipped_config(tmp_path):
    """Once with the competition's own reference data: B = 10,000, seed 12345."""
    path = os.path.join(BUNDLE_DIR, "sample_submissions", "knn.zip")
    run = score_one(path, str(tmp_path / "run"))
    assert run.returncode == 0, run.stderr
    assert set(leaderboard_keys()) <= set(run.scores)
    assert run.signature is not None
    assert "metric:f1_macro" in run.signature and "B:10000" in run.signature and "seed:12345" in run.signature
    assert "n:540" in run.signature


# ---------------------------------------------------------------------------
# leaderboard-ci score and leaderboard-ci demo
# ---------------------------------------------------------------------------
def test_score_submission_scores_a_sample(fast_reference, tmp_path, capsys):
    keep = str(tmp_path / "tree")
    sample = os.path.join(BUNDLE_DIR, "sample_submissions", "logistic_regression.zip")
    assert cli.main(["score", sample, "--reference", fast_reference, "--keep", keep]) == 0
    out = capsys.readouterr().out
    assert "exit code:  0" in out and "f1_macro_vs_base_p" in out and "signature:" in out
    assert os.path.exists(os.path.join(keep, "output", "detailed_results.html"))
    assert os.path.join(keep, "output") in out
    # A previous run's tree may be replaced; a folder with other files is refused.
    assert cli.main(["score", sample, "--reference", fast_reference, "--keep", keep]) == 0
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    assert cli.main(["score", sample, "--keep", str(other)]) == 2
    assert (other / "notes.txt").exists()


def test_score_submission_fails_a_broken_zip(fast_reference, tmp_path, capsys):
    with open(os.path.join(REFERENCE_DIR, "gold.csv"), "rb") as handle:
        lines = handle.read().decode("utf-8").splitlines()
    half = "\n".join(lines[: len(lines) // 2]) + "\n"  # half of the ids are missing
    broken = str(tmp_path / "missing_ids.zip")
    write_zip(broken, {"predictions.csv": half.encode("utf-8")})
    assert cli.main(["score", broken, "--reference", fast_reference, "--keep", str(tmp_path / "t")]) == 1
    out = capsys.readouterr().out
    assert "exit code:  1" in out and "no scores were written" in out
    not_a_zip = tmp_path / "garbage.zip"
    not_a_zip.write_bytes(b"PK\x03\x04 this is not really a zip")
    assert cli.main(["score", str(not_a_zip), "--reference", fast_reference]) == 1


def test_demo_prints_the_leaderboard(fast_reference, tmp_path, capsys):
    out_dir = str(tmp_path / "demo")
    assert demo.main(["--reference", fast_reference, "--out", out_dir]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    ranked = [line.split()[1] for line in lines if line.strip()[:2].strip().isdigit() and "[" in line]
    assert ranked[0] == "rbf_svm" and ranked[-1] == "majority_class" and len(ranked) == len(SAMPLES)
    assert "signature: metric:f1_macro|B:%d|" % FAST_RESAMPLES in out
    for name in SAMPLE_IDS:
        assert os.path.join(out_dir, name, "output", "detailed_results.html") in out
    assert demo.end_of_phase_report is not None
    # the submitted majority-class baseline is the baseline, not a second system beside the config's copy
    assert "Analysing %d systems" % len(SAMPLES) in out
    report = json.load(open(os.path.join(out_dir, "report", "report.json"), encoding="utf-8"))
    assert report["baseline"] == "majority_class"
    assert "majority class" not in [s["name"] for s in report["metrics"]["f1_macro"]["systems"]]
