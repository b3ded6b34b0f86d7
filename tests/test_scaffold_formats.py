"""``leaderboard-ci init`` for every task type: the pages, starting kit and ``public_data/`` follow the
task's file format, and the sample file it writes is scored by the program as the worker runs it.

The competitions are built from scratch on synthetic gold files (none of the examples' data): a
three-class log-loss competition, a binary ROC-AUC one, a ranking one (TREC qrels), a multi-label one,
regression, classification, CoNLL tagging and SQuAD-style QA.
"""

import io
import json
import os
import random
import zipfile

import pytest
import yaml

from leaderboard_ci.cli.main import main
from leaderboard_ci.tools.bundle import score_one


def _gold_csv(rows, header=("id", "label")):
    return "\n".join([",".join(header)] + [",".join(r) for r in rows]) + "\n"


def _cases():
    rng = random.Random(7)
    animals = ["cat", "dog", "bird"]
    ids = ["q%03d" % i for i in range(60)]
    genres = ["red", "green", "blue"]
    conll = []
    for _ in range(30):
        for t in range(rng.randint(2, 6)):
            conll.append("w%d %s" % (t, rng.choice(["O", "B-PER", "B-LOC"])))
        conll.append("")
    squad = {
        "version": "1.1",
        "data": [
            {
                "title": "t",
                "paragraphs": [
                    {
                        "context": "alpha beta gamma delta",
                        "qas": [
                            {"id": "qa%02d" % i, "question": "which?", "answers": [{"text": "beta", "answer_start": 6}]}
                            for i in range(25)
                        ],
                    }
                ],
            }
        ],
    }
    qrels = "".join(
        "topic%02d 0 d%03d %d\n" % (q, d, rng.randint(0, 2)) for q in range(25) for d in rng.sample(range(200), 8)
    )
    return {
        "log_loss": (
            "task: scores\nmetric: log_loss\nextra_metrics: [accuracy]\nlabels: [cat, dog, bird]\n",
            "gold.csv",
            _gold_csv([(i, rng.choice(animals)) for i in ids]),
        ),
        "roc_auc": (
            "task: scores\nmetric: roc_auc\nextra_metrics: [brier]\nlabels: [neg, pos]\npos_label: pos\n",
            "gold.csv",
            _gold_csv([(i, rng.choice(["neg", "pos"])) for i in ids]),
        ),
        "classification": (
            "metric: f1_macro\nlabels: [cat, dog, bird]\n",
            "gold.csv",
            _gold_csv([(i, rng.choice(animals)) for i in ids]),
        ),
        "regression": ("metric: mae\n", "gold.csv", _gold_csv([(i, "%.2f" % rng.gauss(0, 1)) for i in ids])),
        "multilabel": (
            "task: multilabel\nmetric: f1_macro\nlabels: [red, green, blue]\nfiles:\n  gold_column: labels\n",
            "gold.csv",
            _gold_csv([(i, "|".join(g for g in genres if rng.random() < 0.5)) for i in ids], header=("id", "labels")),
        ),
        "sequence": ("task: sequence\nmetric: f1_micro\nfiles:\n  gold: gold.conll\n", "gold.conll", "\n".join(conll)),
        "qa": ("task: qa\nmetric: f1\nfiles:\n  gold: gold.json\n", "gold.json", json.dumps(squad)),
        "ranking": ("task: ranking\nmetric: ndcg@10\nfiles:\n  gold: qrels.txt\n", "qrels.txt", qrels),
    }


CASES = _cases()


def _init(tmp_path, name):
    config, gold_name, gold = CASES[name]
    (tmp_path / "config.yaml").write_text(config + "bootstrap:\n  n_resamples: 200\n")
    (tmp_path / gold_name).write_text(gold)
    folder = str(tmp_path / ("comp_" + name))
    out = io.StringIO()
    code = main(["init", folder, "--gold", str(tmp_path / gold_name), "--config", str(tmp_path / "config.yaml")], out)
    assert code == 0, out.getvalue()
    return folder


def _read(folder, *parts):
    with io.open(os.path.join(folder, *parts), encoding="utf-8") as handle:
        return handle.read()


@pytest.mark.parametrize("name", sorted(CASES))
def test_init_sample_is_scored_by_the_worker(tmp_path, name):
    """The format example init writes (no --baseline) runs through the program as the worker runs it."""
    folder = _init(tmp_path, name)
    sample = os.path.join(folder, "sample_submissions", "format_example.zip")
    run = score_one(
        sample,
        str(tmp_path / "run"),
        program=os.path.join(folder, "scoring_program"),
        reference=os.path.join(folder, "reference_data"),
    )
    assert run.returncode == 0, run.stderr
    official = yaml.safe_load(_read(folder, "competition.yaml"))["leaderboards"][0]["columns"][0]["key"]
    assert official in run.scores
    # The starting kit carries the same file under the name the pages give.
    with zipfile.ZipFile(sample) as archive:
        (inner,) = archive.namelist()
        assert archive.read(inner).decode("utf-8") == _read(folder, "starting_kit", inner)
    assert "`%s`" % inner in _read(folder, "pages", "evaluation.md")


def test_log_loss_pages_say_probabilities_sum_to_one_within_the_tolerance(tmp_path):
    folder = _init(tmp_path, "log_loss")
    page = _read(folder, "pages", "evaluation.md")
    assert "one column per class" in page and "sum to 1 within 1e-06" in page
    assert "`cat`, `dog`, `bird`" in page
    assert "columns `id` and `label`" not in page
    assert "probability of each class" in _read(folder, "pages", "overview.md")


def test_a_three_decimal_log_loss_file_is_refused_as_the_pages_warn(tmp_path):
    """The page's warning is true: %.3f rows of 1/3 sum to 0.999 and the program refuses the file."""
    folder = _init(tmp_path, "log_loss")
    ids = [line.split(",")[0] for line in CASES["log_loss"][2].splitlines()[1:]]
    text = "id,cat,dog,bird\n" + "".join("%s,%.3f,%.3f,%.3f\n" % (i, 1 / 3.0, 1 / 3.0, 1 / 3.0) for i in ids)
    sub = str(tmp_path / "rounded.zip")
    with zipfile.ZipFile(sub, "w") as archive:
        archive.writestr("predictions.csv", text)
    run = score_one(
        sub,
        str(tmp_path / "run"),
        program=os.path.join(folder, "scoring_program"),
        reference=os.path.join(folder, "reference_data"),
    )
    assert run.returncode != 0
    assert "sum to 1" in run.stderr


def test_ranking_pages_speak_of_queries_and_a_trec_run(tmp_path):
    folder = _init(tmp_path, "ranking")
    evaluation = _read(folder, "pages", "evaluation.md")
    assert "TREC run" in evaluation and "25 queries" in evaluation
    assert "test items" not in evaluation
    assert "25 test queries" in _read(folder, "pages", "overview.md")
    queries = _read(folder, "public_data", "queries.tsv").splitlines()
    assert len(queries) == 25 and queries[0].startswith("topic")
    competition = yaml.safe_load(_read(folder, "competition.yaml"))
    assert competition["phases"][0]["public_data"] == "public_data.zip"
    assert competition["phases"][0]["starting_kit"] == "starting_kit.zip"


def test_samples_reveal_no_gold_answer(tmp_path):
    """The public files hold ids only: a gold label that is not an id never appears in them."""
    folder = _init(tmp_path, "qa")
    public = _read(folder, "starting_kit", "predictions.json") + _read(folder, "public_data", "test_ids.txt")
    assert "beta" not in public
    folder = _init(tmp_path, "classification")
    sample = _read(folder, "starting_kit", "predictions.csv").splitlines()[1:]
    assert len(set(line.split(",")[1] for line in sample)) == 1  # one constant label


def test_bundle_without_baseline_checks_clean(tmp_path):
    """init without --baseline, then bundle: the format example is scored, 0 problems."""
    folder = _init(tmp_path, "log_loss")
    out = io.StringIO()
    code = main(["bundle", folder, "--out", str(tmp_path / "b.zip")], out)
    assert code == 0, out.getvalue()
    assert "0 problems" in out.getvalue()
    with zipfile.ZipFile(str(tmp_path / "b.zip")) as archive:
        names = archive.namelist()
    assert "starting_kit.zip" in names and "public_data.zip" in names and "pages/data.md" in names


@pytest.mark.image
@pytest.mark.parametrize("image", ["LEADERBOARD_CI_PY37", "LEADERBOARD_CI_PY312"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_init_sample_is_scored_in_the_images(tmp_path, name, image):
    """The same runs with the interpreters of Codabench's images (py37 with numpy 1.17, py312)."""
    python = os.environ.get(image)
    if not python:
        pytest.skip("%s is not set" % image)
    folder = _init(tmp_path, name)
    run = score_one(
        os.path.join(folder, "sample_submissions", "format_example.zip"),
        str(tmp_path / "run"),
        program=os.path.join(folder, "scoring_program"),
        reference=os.path.join(folder, "reference_data"),
        python=python,
    )
    assert run.returncode == 0, run.stderr
    assert os.path.isfile(os.path.join(run.output_dir, "scores.txt"))
