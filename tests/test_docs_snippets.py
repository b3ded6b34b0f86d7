"""Every ``config.yaml`` snippet of the task pages (``docs/tasks/*.md``) works with the stock scoring program.

An organizer copies a snippet into ``reference_data/config.yaml`` beside the unchanged ``scoring_program/``
(whose own ``config.yaml`` has ``extra_metrics: [accuracy]``); the program merges the two (issue 31: a
soft-label or preference snippet without ``extra_metrics`` inherited ``accuracy`` and was refused).  Each
snippet is loaded exactly so, and once more through a whole run of the worker on the preference example.
"""

import glob
import os
import re
import shutil

import pytest
import yaml

from leaderboard_ci.scoring.config import load_config, offered_extra_metrics
from leaderboard_ci.scoring.errors import ConfigError
from leaderboard_ci.tools.local_worker import run_scoring

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
PROGRAM = os.path.join(ROOT, "scoring_program")
_BLOCK = re.compile(r"```ya?ml\n(.*?)```", re.S)


def _snippets():
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "docs", "tasks", "*.md"))):
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        for k, match in enumerate(_BLOCK.finditer(text)):
            data = yaml.safe_load(match.group(1))
            if isinstance(data, dict) and {"metric", "task"} & set(data):
                out.append(pytest.param(match.group(1), id="%s-%d" % (os.path.basename(path)[:-3], k)))
    return out


SNIPPETS = _snippets()


def test_the_task_pages_have_config_snippets():
    assert len(SNIPPETS) >= 10


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_a_snippet_is_a_valid_ref_config_of_the_stock_program(tmp_path, snippet):
    (tmp_path / "config.yaml").write_text(snippet, encoding="utf-8")
    config = load_config(PROGRAM, str(tmp_path))
    given = yaml.safe_load(snippet)
    if "extra_metrics" not in given:
        assert all(spec.task == config.metrics[0].task for spec in config.metrics)


def test_inherited_extra_metrics_are_those_the_task_offers():
    stock = {"metric": "f1_macro", "extra_metrics": ["accuracy", {"custom": "mine.py"}]}
    assert offered_extra_metrics(dict(stock, metric="f1_macro")) == ["accuracy", {"custom": "mine.py"}]
    assert offered_extra_metrics(dict(stock, task="soft_labels", metric="icm_soft")) == [{"custom": "mine.py"}]
    assert offered_extra_metrics(dict(stock, metric="elo")) == [{"custom": "mine.py"}]
    assert offered_extra_metrics(dict(stock, metric="mae")) == [{"custom": "mine.py"}]
    assert offered_extra_metrics(dict(stock, metric="elo", extra_metrics=["acuracy"])) == ["acuracy"]  # refused later


@pytest.mark.parametrize("official", ["accuracy", "acc", {"name": "accuracy"}])
def test_an_official_metric_the_program_also_lists_is_one_column(tmp_path, official):
    """ref/config.yaml ``metric: accuracy`` beside the stock program's ``extra_metrics: [accuracy]``: the
    inherited copy goes (it was refused as 'two metrics have the key accuracy', for every submission)."""
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({"metric": official}), encoding="utf-8")
    assert [m.key for m in load_config(PROGRAM, str(tmp_path)).metrics] == ["accuracy"]
    stock = {"metric": "accuracy", "extra_metrics": ["accuracy", "f1_macro"]}
    assert offered_extra_metrics(stock) == ["f1_macro"]
    # a copy with its own key, or the organizer's own list, is theirs: kept (and a real clash still named)
    assert offered_extra_metrics(dict(stock, extra_metrics=[{"name": "accuracy", "key": "acc2"}])) == [
        {"name": "accuracy", "key": "acc2"}
    ]
    (tmp_path / "config.yaml").write_text("metric: accuracy\nextra_metrics: [accuracy]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="two metrics have the key 'accuracy'"):
        load_config(PROGRAM, str(tmp_path))


def test_the_preference_snippet_scores_a_submission_with_the_stock_program(tmp_path):
    """The whole run: the preference page's snippet (no extra_metrics) as ref/config.yaml of the example."""
    example = os.path.join(ROOT, "examples", "preference")
    ref = tmp_path / "ref"
    shutil.copytree(os.path.join(example, "reference_data"), str(ref))
    (ref / "config.yaml").write_text(
        "task: preference\nmetric: elo\nfiles: {gold: battles.csv, predictions: model.txt}\n"
        "bootstrap: {n_resamples: 50, seed: 12345}\n",
        encoding="utf-8",
    )
    sample = sorted(glob.glob(os.path.join(example, "sample_submissions", "*.zip")))[0]
    result = run_scoring(str(tmp_path / "run"), PROGRAM, str(ref), sample)
    assert result.returncode == 0, result.stderr
    assert b'"elo"' in result.scores_json_bytes and b"accuracy" not in result.scores_json_bytes
