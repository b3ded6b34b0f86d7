"""The walk-through of ``docs/adding_a_task_type.md`` is real code: its blocks build a task type that scores.

The Python blocks of the page's walk-through section run in order in one namespace; the task they build is
registered for the test and scores a submission through the scoring program's configuration, readers and
evaluation, against numpy on the same files.
"""

import os
import re

import numpy as np
import pytest

from leaderboard_ci.core.resampling import counts_from_indices, replicate_indices
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.errors import SubmissionError
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.scoring.readers import read_gold, read_predictions
from leaderboard_ci.tasks import protocol
from leaderboard_ci.tasks.registry import TASKS

PAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "docs", "adding_a_task_type.md")


def _walk_through():
    with open(PAGE, encoding="utf-8") as handle:
        page = handle.read()
    section = page[page.index("## A walk-through") : page.index("## Tests a task type ships")]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    namespace = {"__name__": "counting_walk_through"}
    for block in blocks:
        exec(compile(block, PAGE, "exec"), namespace)
    return blocks, namespace


@pytest.fixture
def counting(monkeypatch):
    blocks, namespace = _walk_through()
    assert len(blocks) == 5
    task = namespace["TASK"]
    monkeypatch.setitem(TASKS._names, "counting", "counting")
    monkeypatch.setitem(TASKS._loaded, "counting", task)
    return task


GOLD = [3, 0, 12, 7, 5, 1, 9, 4]
PRED = [2.5, 0, 15, 7, 8, 1, 6.5, 4]


def _config(**extra):
    data = dict(task="counting", metric="count_mae", extra_metrics=["within_tolerance"], tolerance=2)
    data["files"] = {"gold_column": "count", "gold": "gold.csv", "predictions": "pred.csv"}
    data["bootstrap"] = {"n_resamples": 200, "seed": 3}
    data.update(extra)
    return parse_config(data)


def _files(tmp_path, predictions):
    ref = tmp_path / "ref"
    ref.mkdir(exist_ok=True)
    (ref / "gold.csv").write_text("id,count\n" + "".join("i%d,%d\n" % (i, c) for i, c in enumerate(GOLD)))
    path = tmp_path / "pred.csv"
    path.write_text("id,count\n" + "".join("i%d,%s\n" % (i, c) for i, c in reversed(list(enumerate(predictions)))))
    return str(ref), str(path)


def test_the_walk_through_builds_a_task_type(counting):
    assert isinstance(counting, protocol.TaskType)
    assert counting.Settings.keys() == ("tolerance",)
    assert counting.metrics.resolve("within")[0].name == "within_tolerance"


def test_the_walk_through_task_scores_like_numpy_on_every_replicate(counting, tmp_path):
    config = _config()
    ref, path = _files(tmp_path, PRED)
    gold = read_gold(ref, config)
    predictions = read_predictions(path, config, gold)
    result = evaluate(config, gold, predictions)
    error = np.abs(np.array(GOLD, dtype=float) - np.array(PRED))
    by_key = dict((score.key, score) for score in result.scores)
    assert by_key["count_mae"].score == pytest.approx(error.mean(), abs=1e-12)
    assert by_key["within_tolerance"].score == pytest.approx(np.mean(error <= 2), abs=1e-12)
    # every replicate is numpy's value on the data set the replicate draws (the resample counts as weights)
    counts = counts_from_indices(replicate_indices(3, gold.n, 0, 200), gold.n)
    for key, per_image in (("count_mae", error), ("within_tolerance", error <= 2)):
        expected = counts @ per_image / counts.sum(axis=1)
        np.testing.assert_allclose(by_key[key].replicates, expected, rtol=0, atol=1e-12)


def test_a_bad_count_is_one_sentence_naming_the_line(counting, tmp_path):
    config = _config()
    ref, path = _files(tmp_path, PRED[:-1] + ["many"])
    gold = read_gold(ref, config)
    with pytest.raises(SubmissionError, match=r"^pred\.csv line 2: the count 'many' is not a number >= 0$"):
        read_predictions(path, config, gold)
