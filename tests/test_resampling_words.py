"""Every page that describes an interval names what a resample draws: items, clusters of a column, strata.

With ``bootstrap.cluster: paragraph`` a QA competition's resamples draw passages, each with all its questions;
the Evaluation page that ``init`` writes, each submission's ``detailed_results.html`` and the end-of-phase
report ("How to read", the settings, the table captions) say so, with the column and the number of clusters
(issue 37: they all said the questions were drawn).  One function, :func:`draw_in_words`, words it for all.
"""

import io
import os

import numpy as np
import pytest
import yaml

from leaderboard_ci.core.resampling import draw_in_words, unit_codes
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.detailed_html import render_detailed_results
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.tasks.shared.base import GoldStandard

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QA = os.path.join(ROOT, "examples", "qa", "reference_data")


def test_the_words_name_the_unit_the_column_and_the_counts():
    assert draw_in_words(540, "test items") == "the 540 test items are drawn at random with replacement"
    clustered = draw_in_words(1574, "questions", cluster="paragraph", n_clusters=348)
    assert clustered == (
        "the 348 clusters of questions (one per value of `paragraph`) are drawn at random with replacement, "
        "each with all its questions"
    )
    both = draw_in_words(100, "test items", cluster="doc", n_clusters=20, strata="lang", n_strata=3)
    assert both.endswith("within each of the 3 strata of the column `lang` (each stratum keeps its number of clusters)")
    assert draw_in_words(None, "test items", strata="lang") == (
        "the test items are drawn at random with replacement, within each of the strata of the column `lang` "
        "(each stratum keeps its number of test items)"
    )
    assert "clusters" in draw_in_words(10, "test items", n_clusters=4)  # a design without a column name


def _paragraphs():
    import json

    with io.open(os.path.join(QA, "gold.json"), encoding="utf-8") as handle:
        data = json.load(handle)["data"]
    return len([p for a in data for p in a["paragraphs"]]), sum(len(p["qas"]) for a in data for p in a["paragraphs"])


def test_init_pages_name_the_clusters(tmp_path, monkeypatch):
    from leaderboard_ci.cli.main import main

    monkeypatch.setattr("leaderboard_ci.tools.plan_output.readme_plan_section", lambda *args: "")
    with io.open(os.path.join(QA, "config.yaml"), encoding="utf-8") as handle:
        config = yaml.safe_load(handle)
    config.pop("baseline")
    config["bootstrap"].update(cluster="paragraph", n_resamples=100)
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    folder = str(tmp_path / "qa")
    out = io.StringIO()
    assert main(["init", folder, "--gold", os.path.join(QA, "gold.json"), "--config", str(path)], out) == 0
    with io.open(os.path.join(folder, "pages", "evaluation.md"), encoding="utf-8") as handle:
        page = " ".join(handle.read().split())
    passages, questions = _paragraphs()
    assert "the %d clusters of questions (one per value of `paragraph`) are drawn" % passages in page
    assert "a sample of %d clusters of questions (%d questions, grouped by `paragraph`)" % (passages, questions) in page
    assert "%d questions are drawn" % questions not in page


def _clustered(seed=0, n_clusters=30):
    rng = np.random.RandomState(seed)
    clusters = np.repeat(np.arange(n_clusters), rng.randint(1, 8, n_clusters))
    y = rng.randint(0, 3, clusters.size)
    pred = np.where(rng.rand(clusters.size) < 0.7, y, rng.randint(0, 3, clusters.size))
    return y, pred, clusters


def test_detailed_results_name_the_clusters():
    y, pred, clusters = _clustered()
    config = parse_config(
        {"metric": "accuracy", "labels": ["0", "1", "2"], "bootstrap": {"n_resamples": 100, "cluster": "doc"}}
    )
    gold = GoldStandard(values=y, labels=("0", "1", "2"), clusters=unit_codes(clusters)[0])
    page = render_detailed_results(evaluate(config, gold, pred), config)
    words = "the 30 clusters of test items (one per value of <code>doc</code>) are drawn at random"
    assert page.count(words) == 2  # the histogram's caption and the footer
    assert "with the same number of clusters of <code>doc</code>" in page
    plain = parse_config({"metric": "accuracy", "labels": ["0", "1", "2"], "bootstrap": {"n_resamples": 100}})
    page = render_detailed_results(evaluate(plain, GoldStandard(values=y, labels=("0", "1", "2")), pred), plain)
    assert "the %d test items are drawn at random" % y.size in page and "clusters" not in page


def test_the_report_names_the_clusters():
    pytest.importorskip("pandas")
    from leaderboard_ci.phase import analyze
    from leaderboard_ci.report.tables import result_tables, tables_markdown

    y, pred, clusters = _clustered(1)
    rng = np.random.RandomState(2)
    systems = {"s%d" % j: np.where(rng.rand(y.size) < 0.2 * j, y, pred) for j in range(3)}
    gold = GoldStandard(values=y, labels=("0", "1", "2"), clusters=unit_codes(clusters)[0])
    result = analyze(gold, systems, metric="accuracy", labels=["0", "1", "2"], n_resamples=100, seed=3)
    page = result.to_html()
    assert "in each, the 30 clusters of test items are drawn at random with replacement" in page
    assert result.to_dict()["settings"]["n_clusters"] == 30
    assert "clusters resampled (30)" in tables_markdown(result_tables(result))
