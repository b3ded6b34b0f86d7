"""Bad submissions of the ``scores`` task: one sentence naming the file, the line and what was expected.

Each case runs the scoring program's entry (``codabench.run``) on a fresh
``input/ref`` + ``input/res`` tree: exit code 1, one line on stderr, no traceback, and
no gold label quoted.
"""

import io
import os

import pytest
import yaml

from leaderboard_ci.scoring.codabench import run

PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scoring_program")
BINARY_GOLD = "id,label\na,yes\nb,no\nc,yes\nd,no\n"
MULTI_GOLD = "id,label\na,cat\nb,dog\nc,bird\nd,cat\n"
CONFIG = {"task": "scores", "metric": "roc_auc", "extra_metrics": ["log_loss"], "bootstrap": {"n_resamples": 50}}


def _score(tmp_path, gold, predictions, config=CONFIG, name="predictions.csv"):
    ref = tmp_path / "input" / "ref"
    res = tmp_path / "input" / "res"
    ref.mkdir(parents=True)
    res.mkdir(parents=True)
    (ref / "gold.csv").write_text(gold)
    (ref / "config.yaml").write_text(yaml.safe_dump(config))
    (res / name).write_text(predictions)
    out, err = io.StringIO(), io.StringIO()
    code = run(str(tmp_path / "input"), str(tmp_path / "output"), PROGRAM, stdout=out, stderr=err)
    return code, err.getvalue()


CASES = [
    (
        "binary probability above 1",
        BINARY_GOLD,
        "id,score\na,0.9\nb,1.2\nc,0.8\nd,0.1\n",
        "predictions.csv line 3: the probability is 1.2; probabilities must lie between 0 and 1",
    ),
    (
        "not a number",
        BINARY_GOLD,
        "id,score\na,0.9\nb,high\nc,0.8\nd,0.1\n",
        "predictions.csv line 3: the probability 'high' is not a number",
    ),
    (
        "decimal comma",
        BINARY_GOLD,
        "id\tscore\na\t0,9\nb\t0.2\nc\t0.8\nd\t0.1\n",
        "line 2: the probability '0,9' is not a number (use a dot as the decimal separator)",
    ),
    (
        "missing header",
        BINARY_GOLD,
        "a,0.9\nb,0.2\nc,0.8\nd,0.1\n",
        "predictions.csv line 1: the first line is data, not a header; start the file with the header id,score",
    ),
    (
        "missing id",
        BINARY_GOLD,
        "id,score\na,0.9\nb,0.2\nc,0.8\n",
        "predictions.csv is missing 1 of the 4 test ids (e.g. 'd')",
    ),
    (
        "repeated id",
        BINARY_GOLD,
        "id,score\na,0.9\nb,0.2\na,0.8\nd,0.1\n",
        "predictions.csv line 4: id 'a' appears again (first on line 2)",
    ),
    (
        "unknown id",
        BINARY_GOLD,
        "id,score\na,0.9\nb,0.2\nzz,0.8\nd,0.1\nc,0.5\n",
        "predictions.csv line 4: id 'zz' is not in the test set; expected ids like",
    ),
    (
        "wrong field count",
        BINARY_GOLD,
        "id,score\na,0.9\nb,0.2,0.1\nc,0.8\nd,0.1\n",
        "predictions.csv line 3: expected 2 fields, found 3",
    ),
    (
        "multi-class rows must sum to 1",
        MULTI_GOLD,
        "id,cat,dog,bird\na,0.7,0.2,0.1\nb,0.1,0.8,0.05\nc,0.1,0.1,0.8\nd,0.6,0.3,0.1\n",
        "predictions.csv line 3: the class probabilities sum to 0.9500000000000001; for log_loss each row must sum to "
        "1 (within sum_tolerance 1e-06)",
    ),
    (
        "multi-class missing class column",
        MULTI_GOLD,
        "id,cat,dog\na,0.7,0.3\nb,0.1,0.9\nc,0.5,0.5\nd,0.6,0.4\n",
        "predictions.csv line 1: the header has 2 of the 3 class columns; the header should be id,bird,cat,dog",
    ),
    (
        "multi-class unknown column",
        MULTI_GOLD,
        "id,cat,dog,fish\na,0.7,0.2,0.1\nb,0.1,0.8,0.1\nc,0.1,0.1,0.8\nd,0.6,0.3,0.1\n",
        "predictions.csv line 1: the column 'fish' is not a class of the task; the header should be id,bird,cat,dog",
    ),
    (
        "multi-class one score column",
        MULTI_GOLD,
        "id,score\na,0.7\nb,0.1\nc,0.1\nd,0.6\n",
        "predictions.csv line 1: the file has one score column, but the task has 3 classes",
    ),
    (
        "JSON",
        BINARY_GOLD,
        '[{"id": "a", "score": 0.1}]\n',
        "predictions.csv line 1: looks like JSON; scored predictions are a CSV file with the header id,score",
    ),
    ("empty", BINARY_GOLD, "", "predictions.csv is empty; expected the header id,score"),
    ("header only", BINARY_GOLD, "id,score\n", "predictions.csv has a header but no predictions"),
    (
        "infinite",
        BINARY_GOLD,
        "id,score\na,inf\nb,0.2\nc,0.8\nd,0.1\n",
        "predictions.csv line 2: the probability 'inf' is not a finite number",
    ),
]


@pytest.mark.parametrize("gold, predictions, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_submission_is_one_sentence(tmp_path, gold, predictions, expected):
    config = dict(CONFIG)
    if gold is MULTI_GOLD:
        config["metric"] = "roc_auc_ovr"
    code, err = _score(tmp_path, gold, predictions, config)
    assert code == 1, err
    assert expected in err
    assert err.count("\n") == 1 and "Traceback" not in err
    for label in ("yes", "no", "cat", "dog", "bird"):
        if label not in predictions.split("\n")[0]:
            assert "'%s'" % label not in err


def test_real_scores_allowed_for_auc_and_rows_need_not_sum_to_one(tmp_path):
    config = {"task": "scores", "metric": "roc_auc_ovr", "bootstrap": {"n_resamples": 50}}
    preds = "id,dog,cat,bird\na,-1,3,0\nb,2.5,0,1\nc,0,0,7\nd,0,1,0\n"
    code, err = _score(tmp_path, MULTI_GOLD, preds, config)
    assert code == 0, err


def test_sum_tolerance_is_configurable(tmp_path):
    config = dict(CONFIG, metric="log_loss", extra_metrics=[], sum_tolerance=0.1)
    preds = "id,cat,dog,bird\na,0.7,0.2,0.1\nb,0.1,0.8,0.05\nc,0.1,0.1,0.8\nd,0.6,0.3,0.1\n"
    code, err = _score(tmp_path, MULTI_GOLD, preds, config)
    assert code == 0, err


def test_config_mistakes_are_config_errors(tmp_path):
    config = {"task": "scores", "metric": "top_k_accuracy", "bootstrap": {"n_resamples": 50}}
    code, err = _score(tmp_path, MULTI_GOLD, "id,cat,dog,bird\na,1,0,0\nb,0,1,0\nc,0,0,1\nd,1,0,0\n", config)
    assert code == 2 and "top_k_accuracy needs k" in err
    config = {"task": "scores", "metric": "top_3_accuracy", "bootstrap": {"n_resamples": 50}}
    code, err = _score(tmp_path / "b", MULTI_GOLD, "id,cat,dog,bird\na,1,0,0\nb,0,1,0\nc,0,0,1\nd,1,0,0\n", config)
    # labels not configured: the message may not reveal the gold's number of classes (issue 14)
    assert code == 2 and "metric top_3_accuracy" in err and "needs another number of classes" in err
    assert "(3)" not in err
    config["labels"] = ["cat", "dog", "bird"]
    code, err = _score(tmp_path / "c", MULTI_GOLD, "id,cat,dog,bird\na,1,0,0\nb,0,1,0\nc,0,0,1\nd,1,0,0\n", config)
    assert code == 2 and "k = 3 is not below the number of classes (3)" in err


def test_a_binary_file_with_a_column_per_class_scores_as_its_positive_column(tmp_path):
    """id,no,yes is read as id,score with yes's column: the same scores.json, the same (n, 1) layout."""
    one = "id,score\na,0.9\nb,0.2\nc,0.6\nd,0.4\n"
    two = "id,no,yes\na,0.1,0.9\nb,0.8,0.2\nc,0.4,0.6\nd,0.6,0.4\n"
    outputs = []
    for k, text in enumerate((one, two)):
        code, err = _score(tmp_path / str(k), BINARY_GOLD, text)
        assert code == 0 and err == "", err
        outputs.append((tmp_path / str(k) / "output" / "scores.json").read_bytes())
    assert outputs[0] == outputs[1]


def test_the_end_of_phase_takes_both_binary_layouts_in_one_phase(tmp_path):
    """One submission id,score and one id,no,yes stopped the end of phase's item tests ('all input arrays must
    have the same shape'); now both are the same system twice."""
    import csv
    import io
    import zipfile

    ref = tmp_path / "ref"
    ref.mkdir()
    items = ["i%d" % k for k in range(40)]
    (ref / "gold.csv").write_text(
        "id,label\n" + "".join("%s,%s\n" % (i, "yes" if k % 3 else "no") for k, i in enumerate(items))
    )
    (ref / "config.yaml").write_text(yaml.safe_dump(dict(CONFIG, bootstrap={"n_resamples": 50, "seed": 1})))
    subs = tmp_path / "subs"
    subs.mkdir()
    scores = [((k * 7) % 40) / 40.0 for k in range(40)]
    layouts = {
        "one": "id,score\n" + "".join("%s,%.3f\n" % (i, s) for i, s in zip(items, scores)),
        "two": "id,no,yes\n" + "".join("%s,%.3f,%.3f\n" % (i, 1 - s, s) for i, s in zip(items, scores)),
    }
    for name, text in layouts.items():
        with zipfile.ZipFile(str(subs / (name + ".zip")), "w") as archive:
            archive.writestr("predictions.csv", text)
    from leaderboard_ci.cli.main import main

    command = ["end-of-phase", "--reference", str(ref), "--submissions", str(subs), "--out", str(tmp_path / "out")]
    assert main(command + ["--figure-files", "none"], out=io.StringIO()) == 0
    with open(str(tmp_path / "out" / "roc_auc" / "systems.csv")) as handle:
        rows = list(csv.DictReader(handle))
    assert sorted(r["name"] for r in rows) == ["one", "two"]
    assert rows[0]["score"] == rows[1]["score"] and rows[0]["ci_low"] == rows[1]["ci_low"]
