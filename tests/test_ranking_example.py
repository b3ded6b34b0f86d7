"""The ranking example competition (examples/ranking): builds, passes the check, scores in the images.

Also: the end-of-phase analysis runs on its sample runs, through ``analyze()``
(the in-memory form, ``encode_values``) and through ``scripts/end_of_phase.py``
(the file readers), and both agree with pytrec_eval's per-query values.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest
import yaml

from leaderboard_ci.tools.bundle import build_bundle, score_one
from leaderboard_ci.tools.bundle_check import check_bundle
from leaderboard_ci.tools.local_worker import run_scoring

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = os.path.join(ROOT, "scoring_program")
EXAMPLE = os.path.join(ROOT, "examples", "ranking")
REFERENCE = os.path.join(EXAMPLE, "reference_data")
SUBMISSIONS = sorted(glob.glob(os.path.join(EXAMPLE, "sample_submissions", "*.zip")))
IMAGES = {"py37": "LEADERBOARD_CI_PY37", "py312": "LEADERBOARD_CI_PY312"}
FAST = 500


def leaderboard_keys():
    with open(os.path.join(EXAMPLE, "competition.yaml"), "rb") as handle:
        return [c["key"] for c in yaml.safe_load(handle)["leaderboards"][0]["columns"]]


@pytest.fixture(scope="module")
def fast_reference(tmp_path_factory):
    ref = str(tmp_path_factory.mktemp("ref") / "reference_data")
    shutil.copytree(REFERENCE, ref)
    path = os.path.join(ref, "config.yaml")
    with open(path, "rb") as handle:
        config = yaml.safe_load(handle)
    config["bootstrap"]["n_resamples"] = FAST
    with open(path, "w") as handle:
        yaml.safe_dump(config, handle)
    return ref


def read_run(zip_path):
    with zipfile.ZipFile(zip_path) as archive:
        name = archive.namelist()[0]
        text = archive.read(name).decode("utf-8")
    if name.endswith(".json"):
        return json.loads(text)
    run = {}
    for line in text.splitlines():
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    return run


def read_qrels():
    qrels = {}
    with open(os.path.join(REFERENCE, "qrels.txt")) as handle:
        for line in handle:
            qid, _, doc, rel = line.split()
            qrels.setdefault(qid, {})[doc] = int(rel)
    return qrels


def test_the_bundle_builds_and_passes_the_check(tmp_path):
    out = str(tmp_path / "ranking.zip")
    names = build_bundle(out, bundle_dir=EXAMPLE)
    assert "scoring_program.zip" in names and "reference_data.zip" in names
    problems = check_bundle(out, submissions=SUBMISSIONS, workdir=str(tmp_path / "work"))
    assert problems == [], "\n".join(str(p) for p in problems)


def test_the_samples_score_with_every_leaderboard_column(fast_reference, tmp_path):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = read_qrels()
    keys = leaderboard_keys()
    for path in SUBMISSIONS:
        name = os.path.basename(path)[:-4]
        result = score_one(path, str(tmp_path / name), reference=fast_reference)
        assert result.returncode == 0 and result.stderr == "", result.stderr
        assert set(keys) <= set(result.scores)
        per_query = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10", "map"}).evaluate(read_run(path))
        for key, measure in (("ndcg_10", "ndcg_cut_10"), ("map", "map")):
            expected = sum(per_query[q][measure] if q in per_query else 0.0 for q in qrels) / len(qrels)
            assert abs(result.scores[key] - expected) < 1e-12, (name, key)
        assert os.path.exists(result.detailed_results)


@pytest.mark.image
@pytest.mark.parametrize("image", sorted(IMAGES))
def test_the_samples_score_identically_in_the_images(image, fast_reference, tmp_path):
    python = os.environ.get(IMAGES[image])
    if not python:
        pytest.skip("set %s to the %s image's interpreter" % (IMAGES[image], image))
    for path in SUBMISSIONS:
        name = os.path.basename(path)
        here = run_scoring(str(tmp_path / ("here_" + name)), PROGRAM, fast_reference, path)
        there = run_scoring(str(tmp_path / name), PROGRAM, fast_reference, path, python=python)
        assert there.returncode == 0, "%s in %s: %s" % (name, image, there.stderr)
        assert there.stderr == ""
        assert there.scores_json_bytes == here.scores_json_bytes, "%s differs in %s" % (name, image)


def test_analyze_on_the_in_memory_runs():
    from leaderboard_ci.phase.analysis import Execution, analyze
    qrels = read_qrels()
    runs = dict((os.path.basename(p)[:-4], read_run(p)) for p in SUBMISSIONS)
    runs["bm25_again"] = runs["bm25"]
    result = analyze(list(qrels.items()), runs, metric="ndcg@10", extra_metrics=["map", "p@10"], n_resamples=FAST,
                     test="permutation", n_permutations=FAST, execution=Execution(n_jobs=1))
    table = result.official.systems.set_index("name")
    assert table.loc["bm25", "score"] == table.loc["bm25_again", "score"]
    assert table.loc["bm25", "score"] > table.loc["random", "score"]
    pairs = result.official.pairs
    same = pairs[((pairs["a"] == "bm25") & (pairs["b"] == "bm25_again"))
                 | ((pairs["a"] == "bm25_again") & (pairs["b"] == "bm25"))]
    assert len(same) == 1 and same["p_value"].iloc[0] == 1.0 and same["p_permutation"].iloc[0] == 1.0
    differs = pairs[(pairs["a"] == "bm25") & (pairs["b"] == "random")]
    assert differs["p_permutation"].iloc[0] < 0.01


def test_end_of_phase_script_writes_report_json(fast_reference, tmp_path):
    subs = tmp_path / "submissions"
    subs.mkdir()
    for path in SUBMISSIONS:
        shutil.copy(path, str(subs))
    out = tmp_path / "report"
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "end_of_phase.py"), "--reference",
                           fast_reference, "--submissions", str(subs), "--out", str(out), "--jobs", "1",
                           "--no-progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    assert proc.returncode == 0, proc.stderr
    report = json.loads((out / "report.json").read_text())
    assert report
    assert "ndcg_10" in json.dumps(report)
