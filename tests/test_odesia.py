"""The ODESIA example (``examples/odesia``): every test set's official score equals the campaign's reference tool.

* DIPROMATS 2023 and EXIST 2023: PyEvALL 0.2.11 (ICM-Norm, hard, over the techniques' tree for
  tasks 2-3; ICM-Soft-Norm on the annotators' shares);
* EXIST 2022: scikit-learn (accuracy, macro F1);
* DIANN 2023: ODESIA's "Macro F1" as Hugging Face ``evaluate``'s seqeval adaptation computes it,
  the mean over entity types of seqeval's ``classification_report(..., output_dict=True)`` F1;
* SQuAD / SQAC 2024: the SQuAD v1.1 token F1 (``tests/test_qa.py`` checks the formulas themselves).

The benchmark run that writes ODESIA's three tables (en, es, gap) is marked slow.
"""

import json
import os
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest
import yaml

from leaderboard_ci.scoring.config import load_config
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.scoring.readers import read_gold, read_predictions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "odesia")
PROGRAM = os.path.join(ROOT, "scoring_program")
TOL = 1e-9

with open(os.path.join(EXAMPLE, "benchmark.yaml")) as _handle:
    DEFINITION = yaml.safe_load(_handle)
TEST_SETS = [(t["name"], t["language"]) for t in DEFINITION["tasks"]]


def test_the_example_has_the_ten_core_tasks_in_both_languages():
    names = sorted(set(name for name, _ in TEST_SETS))
    assert len(names) == 10 and len(TEST_SETS) == 20
    for name, language in TEST_SETS:
        submissions = os.listdir(os.path.join(EXAMPLE, language, name, "submissions"))
        assert len(submissions) >= 6, (name, language)


def _official(name, language, system):
    folder = os.path.join(EXAMPLE, language, name)
    reference = os.path.join(folder, "reference_data")
    config = load_config(PROGRAM, reference)
    config = replace(config, bootstrap=replace(config.bootstrap, n_resamples=20))
    gold = read_gold(reference, config)
    path = [p for p in os.listdir(os.path.join(folder, "submissions")) if p.startswith(system + ".")][0]
    coded = read_predictions(os.path.join(folder, "submissions", path), config, gold)
    result = evaluate(config, gold, coded)
    return (
        result.official.score,
        os.path.join(reference, config.files.gold),
        os.path.join(folder, "submissions", path),
        config,
    )


def _records(path):
    with open(path, encoding="utf-8") as handle:
        return [(r["id"], r["value"]) for r in json.load(handle)]


def _nested(config):
    """The config's ``{child: parent}`` as PyEvALL's nested hierarchy (None without one)."""
    tree = config.task_settings.hierarchy
    return pytest.importorskip("test_icm_tree").nested(dict(tree)) if tree else None


@pytest.mark.parametrize("language", ["en", "es"])
@pytest.mark.parametrize(
    "name",
    ["dipromats_2023_t1", "dipromats_2023_t2", "dipromats_2023_t3", "exist_2023_t1", "exist_2023_t2", "exist_2023_t3"],
)
def test_pyevall_tasks_equal_pyevall(name, language):
    test_icm = pytest.importorskip("test_icm")
    score, gold_path, run_path, config = _official(name, language, "bert_base")
    gold, run = _records(gold_path), _records(run_path)
    if name.startswith("exist_2023"):
        expected = test_icm.pyevall("ICMSoftNorm", gold, run, _nested(config))  # tasks 2-3 over their tree
    else:
        expected = test_icm.pyevall("ICMNorm", gold, run, _nested(config))
    assert abs(score - expected) <= TOL, (name, language, score, expected)


@pytest.mark.parametrize("language", ["en", "es"])
@pytest.mark.parametrize("name", ["exist_2022_t1", "exist_2022_t2"])
def test_exist_2022_equals_scikit_learn(name, language):
    metrics = pytest.importorskip("sklearn.metrics")
    score, gold_path, run_path, config = _official(name, language, "distilbert")
    read = lambda p: [line.rstrip("\n").split("\t")[2] for line in open(p, encoding="utf-8")][1:]  # noqa: E731
    y, p = read(gold_path), read(run_path)
    expected = metrics.accuracy_score(y, p) if name.endswith("t1") else metrics.f1_score(y, p, average="macro")
    assert abs(score - expected) <= TOL


@pytest.mark.parametrize("language", ["en", "es"])
def test_diann_macro_f1_equals_the_evaluate_seqeval_adaptation(language):
    seqeval_metrics = pytest.importorskip("seqeval.metrics")
    score, gold_path, run_path, _ = _official("diann_2023", language, "roberta_bne")

    def sentences(path):
        out = [[]]
        for line in open(path, encoding="utf-8"):
            if line.strip():
                out[-1].append(line.split()[-1])
            elif out[-1]:
                out.append([])
        return [s for s in out if s]

    # evaluate's seqeval: classification_report(references, predictions, output_dict=True), scheme and mode None
    report = seqeval_metrics.classification_report(sentences(gold_path), sentences(run_path), output_dict=True)
    types = [k for k in report if k not in ("micro avg", "macro avg", "weighted avg")]
    assert abs(score - np.mean([report[k]["f1-score"] for k in types])) <= TOL


@pytest.mark.slow
def test_benchmark_writes_the_three_odesia_tables(tmp_path):
    definition = dict(DEFINITION, n_resamples=100)
    for task in definition["tasks"]:
        for key in ("reference", "submissions"):
            task[key] = os.path.join(EXAMPLE, task[key])
    path = tmp_path / "benchmark.yaml"
    path.write_text(yaml.safe_dump(definition), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "leaderboard_ci.cli.main", "benchmark", str(path), "--out", str(tmp_path / "out")],
        env=dict(os.environ, PYTHONPATH=PROGRAM),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )
    assert run.returncode == 0, run.stderr
    tables = (tmp_path / "out" / "tables.md").read_text(encoding="utf-8")
    assert "Results per task in en" in tables and "Results per task in es" in tables
    assert "gap" in tables.lower()
