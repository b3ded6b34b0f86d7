"""Every ODESIA core task as its own Codabench competition (``make_odesia.py --bundle TASK --lang en|es``).

* default run: each of the 10 tasks' English folder is generated, its bundle builds and passes
  ``check_bundle``, which scores the baseline and the best system with the bundle's own program and
  checks every leaderboard column against the scores written; the pages name the campaign and the
  official metric, the samples are the baseline and the six systems in the participants' format; the
  bundle's official scores are the benchmark's (same config, read by ``evaluate``);
* marked ``image``: one sample per task type scores to the same ``scores.json`` bytes in the py37
  and py312 image environments (the other tasks and the Spanish folders are ``slow``: not in CI);
* marked ``slow``: both languages, every sample through the bundle check.
"""

import os
import sys
import zipfile
from dataclasses import replace

import pytest
import yaml

from leaderboard_ci.scoring.config import load_config
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.scoring.readers import read_gold, read_predictions
from leaderboard_ci.tools.bundle import build_bundle, sample_submissions
from leaderboard_ci.tools.bundle_check import check_bundle
from leaderboard_ci.tools.local_worker import run_scoring

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "odesia")
sys.path.insert(0, EXAMPLE)
import odesia_bundle  # noqa: E402

IMAGES = {"py37": "LEADERBOARD_CI_PY37", "py312": "LEADERBOARD_CI_PY312"}
SYSTEMS = ("bert_base", "bilstm_crf", "distilbert", "mdeberta_v3", "roberta_bne", "xlm_roberta_large")
#: One task per task type (and per kind of soft_labels use): the image step's representatives.
IMAGE_TASKS = ("diann_2023", "dipromats_2023_t3", "exist_2022_t2", "exist_2023_t2", "sqac_squad_2024")
_FOLDERS = {}


def _folder(task, language, tmp_path_factory):
    """The generated competition folder, once per module run."""
    if (task, language) not in _FOLDERS:
        out = str(tmp_path_factory.mktemp("odesia-%s-%s" % (task, language)) / ("odesia_%s_%s" % (task, language)))
        odesia_bundle.build_folder(task, language, out)
        _FOLDERS[task, language] = out
    return _FOLDERS[task, language]


def _slow_unless(condition):
    return [] if condition else [pytest.mark.slow]


def test_there_is_one_bundle_per_core_task():
    with open(os.path.join(EXAMPLE, "benchmark.yaml")) as handle:
        tasks = sorted(set(t["name"] for t in yaml.safe_load(handle)["tasks"]))
    assert sorted(odesia_bundle.TASKS) == tasks and len(tasks) == 10


#: The campaigns whose bundles are built and checked in the default run (a flat soft-label task, EXIST's and
#: DIPROMATS' hierarchies, a sequence task, QA); every campaign in the slow selection (2-4 s each).
BUNDLE_TASKS = ("diann_2023", "dipromats_2023_t3", "exist_2022_t2", "exist_2023_t3", "sqac_squad_2024")


@pytest.mark.parametrize(
    "task", [pytest.param(task, marks=_slow_unless(task in BUNDLE_TASKS)) for task in odesia_bundle.TASKS]
)
def test_the_bundle_builds_passes_the_check_and_names_the_campaign(task, tmp_path, tmp_path_factory):
    folder = _folder(task, "en", tmp_path_factory)
    info = odesia_bundle.CAMPAIGNS[task]
    names = build_bundle(str(tmp_path / "bundle.zip"), bundle_dir=folder)
    assert {"competition.yaml", "scoring_program.zip", "reference_data.zip", "starting_kit.zip"} <= set(names)
    samples = sample_submissions(os.path.join(folder, "sample_submissions"))
    stem = info["baseline"][0]
    assert [os.path.basename(p) for p in samples] == sorted([stem + ".zip"] + [s + ".zip" for s in SYSTEMS])
    for path in samples:
        with zipfile.ZipFile(path) as archive:
            assert archive.namelist() == [info["prediction"]], path
    scored = [os.path.join(folder, "sample_submissions", n) for n in (stem + ".zip", "mdeberta_v3.zip")]
    problems = check_bundle(str(tmp_path / "bundle.zip"), submissions=scored, workdir=str(tmp_path / "work"))
    assert [str(p) for p in problems] == []

    with open(os.path.join(EXAMPLE, "en", task, "reference_data", "config.yaml")) as handle:
        benchmark = yaml.safe_load(handle)
    with open(os.path.join(folder, "reference_data", "config.yaml")) as handle:
        config = yaml.safe_load(handle)
    for key in ("task", "metric", "extra_metrics", "labels", "hierarchy", "hard_labels", "hard_threshold"):
        assert config.get(key) == benchmark.get(key), key
    with open(os.path.join(folder, "competition.yaml")) as handle:
        columns = yaml.safe_load(handle)["leaderboards"][0]["columns"]
    assert columns[0]["key"] == benchmark["metric"]
    pages = dict((n, open(os.path.join(folder, "pages", n)).read()) for n in os.listdir(os.path.join(folder, "pages")))
    assert set(pages) == {"overview.md", "evaluation.md", "data.md", "terms.md"}
    official = info["official"].format(lang="English")
    for name in ("overview.md", "evaluation.md"):
        assert info["campaign"].split(" (")[0] in pages[name] and official in pages[name], name
    assert info["prediction"] in pages["data.md"]


def test_the_bundles_official_scores_are_the_benchmarks(tmp_path, tmp_path_factory):
    """The leaderboard's official score of a system = the benchmark's cell (the same config read by evaluate)."""
    for task in ("dipromats_2023_t2", "exist_2022_t1"):
        folder = _folder(task, "en", tmp_path_factory)
        run = run_scoring(
            str(tmp_path / task),
            os.path.join(folder, "scoring_program"),
            os.path.join(folder, "reference_data"),
            os.path.join(folder, "sample_submissions", "roberta_bne.zip"),
        )
        assert run.returncode == 0, run.stderr
        reference = os.path.join(EXAMPLE, "en", task, "reference_data")
        config = load_config(os.path.join(ROOT, "scoring_program"), reference)
        config = replace(config, bootstrap=replace(config.bootstrap, n_resamples=20))
        gold = read_gold(reference, config)
        subs = os.path.join(EXAMPLE, "en", task, "submissions")
        sub = os.path.join(subs, [n for n in os.listdir(subs) if n.startswith("roberta_bne.")][0])
        cell = evaluate(config, gold, read_predictions(sub, config, gold)).official.score
        metric = yaml.safe_load(open(os.path.join(folder, "reference_data", "config.yaml")))["metric"]
        assert run.scores[metric] == pytest.approx(cell, abs=1e-12), task


@pytest.mark.parametrize(
    "task, language",
    [
        pytest.param(task, language, marks=_slow_unless(task in IMAGE_TASKS and language == "en"))
        for task in odesia_bundle.TASKS
        for language in ("en", "es")
    ],
)
@pytest.mark.image
def test_a_sample_scores_identically_in_both_images(task, language, tmp_path, tmp_path_factory):
    pythons = dict((image, os.environ.get(variable)) for image, variable in IMAGES.items())
    missing = [variable for image, variable in IMAGES.items() if not pythons[image]]
    if missing:
        pytest.skip("set %s to the image's interpreter (.ci/run does)" % " and ".join(missing))
    folder = _folder(task, language, tmp_path_factory)
    submission = os.path.join(folder, "sample_submissions", "distilbert.zip")
    written = {}
    for image, python in sorted(pythons.items()):
        run = run_scoring(
            str(tmp_path / image),
            os.path.join(folder, "scoring_program"),
            os.path.join(folder, "reference_data"),
            submission,
            python=python,
        )
        assert run.returncode == 0 and run.stderr == "", "%s in %s: %s" % (task, image, run.stderr)
        written[image] = run.scores_json_bytes
    assert written["py37"] == written["py312"], "%s (%s): scores.json differs between the images" % (task, language)


@pytest.mark.slow
@pytest.mark.parametrize("task", odesia_bundle.TASKS)
@pytest.mark.parametrize("language", ("en", "es"))
def test_every_sample_of_both_languages_passes_the_bundle_check(task, language, tmp_path, tmp_path_factory):
    folder = _folder(task, language, tmp_path_factory)
    build_bundle(str(tmp_path / "bundle.zip"), bundle_dir=folder)
    samples = sample_submissions(os.path.join(folder, "sample_submissions"))
    assert len(samples) == 7
    problems = check_bundle(str(tmp_path / "bundle.zip"), submissions=samples, workdir=str(tmp_path / "work"))
    assert [str(p) for p in problems] == []
