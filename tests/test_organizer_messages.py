"""What an organizer reads from init, plan and score (issue 37): paths as given, help that points right, pages
that say what is scored.

* a config with ``baseline: {name: ...}`` and no ``--baseline``: one sentence saying to give the file;
* a bad ``--gold`` is named as the organizer typed it, with its line (never ``ref/gold.csv``), by init,
  columns and plan alike;
* ``init --help`` points to the configuration reference page;
* init's README suggests pilot files named like the competition's prediction file (``A.json`` for QA);
* a SQuAD gold gives ``public_data/test.json``: its articles, contexts and questions, without answers;
* a soft-label competition's evaluation page shows the label tree and the hard-label rule (``hard_threshold``);
* ``score`` against a legacy CodaLab competition labels its table ``scores.txt`` (what CodaLab reads).
"""

import io
import json
import os
import re

import pytest
import yaml

from leaderboard_ci.cli.main import main, make_parser

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")
BUNDLE_REF = os.path.join(ROOT, "competition_bundle", "reference_data")


@pytest.fixture(autouse=True)
def no_plan(monkeypatch):
    """The README's plan section is not what these tests read (one test restores it): speed."""
    monkeypatch.setattr("leaderboard_ci.tools.plan_output.readme_plan_section", lambda *args: "")


def _config(tmp, source_dir, **changes):
    with io.open(os.path.join(source_dir, "config.yaml"), encoding="utf-8") as handle:
        config = yaml.safe_load(handle)
    config.pop("baseline", None)
    config["bootstrap"] = dict(config.get("bootstrap") or {}, n_resamples=200)
    config.update(changes)
    path = os.path.join(tmp, "config.yaml")
    with io.open(path, "w", encoding="utf-8") as handle:
        yaml.safe_dump(config, handle, sort_keys=False, allow_unicode=True)
    return path


def _run(*argv):
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def test_a_baseline_name_without_baseline_file_asks_for_the_file(tmp_path):
    config = _config(str(tmp_path), BUNDLE_REF, baseline={"name": "majority class"})
    code, text = _run("init", str(tmp_path / "c"), "--gold", os.path.join(BUNDLE_REF, "gold.csv"), "--config", config)
    assert code == 2 and len(text.strip().splitlines()) == 1, text
    assert "--baseline FILE" in text and "majority class" in text
    assert "None" not in text and "non-empty" not in text


@pytest.fixture
def bad_gold(tmp_path):
    """A gold in a sub-folder, as the organizer names it, with an empty id on line 3."""
    folder = tmp_path / "data"
    folder.mkdir()
    path = folder / "my_gold.csv"
    with io.open(os.path.join(BUNDLE_REF, "gold.csv"), encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    lines[2] = "," + lines[2].split(",", 1)[1]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return os.path.relpath(str(path))


@pytest.mark.parametrize("command", ["init", "columns", "plan"])
def test_a_bad_gold_is_named_as_given(tmp_path, bad_gold, command):
    config = _config(str(tmp_path), BUNDLE_REF, groups=None)
    if command == "init":
        argv = ["init", str(tmp_path / "c"), "--gold", bad_gold, "--config", config]
    elif command == "columns":
        with io.open(config, encoding="utf-8") as handle:
            data = yaml.safe_load(handle)
        data["groups"] = {"column": "label"}  # columns reads the gold only for the group values
        with io.open(config, "w", encoding="utf-8") as handle:
            yaml.safe_dump(data, handle)
        argv = ["columns", config, "--gold", bad_gold]
    else:
        argv = ["plan", "--config", config, "--gold", bad_gold, "--n-resamples", "100"]
    if command == "plan":
        import contextlib

        stream = io.StringIO()
        with contextlib.redirect_stdout(stream), contextlib.redirect_stderr(stream):
            code = main(argv)
        text = stream.getvalue()
    else:
        code, text = _run(*argv)
    assert code == 2, text
    (line,) = [x for x in text.splitlines() if x.strip()]
    assert "%s line 3" % bad_gold in line, line
    assert "ref/" not in line, line


def test_init_help_points_to_the_configuration_reference():
    parser = make_parser()
    init = parser._subparsers._group_actions[0].choices["init"]
    assert "docs/configuration.md" in init.format_help()
    assert "README's configuration reference" not in init.format_help()


def _init(tmp, source_dir, gold_name, **changes):
    config = _config(tmp, source_dir, **changes)
    folder = os.path.join(tmp, "competition")
    code, text = _run("init", folder, "--gold", os.path.join(source_dir, gold_name), "--config", config)
    assert code == 0, text
    return folder


def _read(*parts):
    with io.open(os.path.join(*parts), encoding="utf-8") as handle:
        return handle.read()


def test_the_readme_suggests_pilots_named_like_the_prediction_file(tmp_path, monkeypatch):
    monkeypatch.undo()  # this one reads the plan section
    folder = _init(str(tmp_path), os.path.join(EXAMPLES, "qa", "reference_data"), "gold.json")
    readme = _read(folder, "README.md")
    assert "--pilot A.json B.json" in readme and "A.csv" not in readme


def test_a_squad_gold_gives_its_contexts_and_questions_without_answers(tmp_path):
    source = os.path.join(EXAMPLES, "qa", "reference_data")
    folder = _init(str(tmp_path), source, "gold.json")
    public = json.loads(_read(folder, "public_data", "test.json"))
    gold = json.loads(_read(source, "gold.json"))
    assert "answers" not in json.dumps(public) and "answer_start" not in json.dumps(public)

    def questions(data, keep):
        return [
            (a.get("title"), p["context"], [keep(q) for q in p["qas"]]) for a in data["data"] for p in a["paragraphs"]
        ]

    assert questions(public, lambda q: (q["id"], q["question"])) == questions(gold, lambda q: (q["id"], q["question"]))
    assert "test.json" in _read(folder, "public_data", "README.md")


def test_the_soft_label_page_shows_the_tree_and_the_hard_label_rule(tmp_path):
    source = os.path.join(EXAMPLES, "odesia", "en", "exist_2023_t3", "reference_data")
    with io.open(os.path.join(source, "config.yaml"), encoding="utf-8") as handle:
        config = yaml.safe_load(handle)
    folder = _init(str(tmp_path), source, config["files"]["gold"], extra_metrics=["icm", "f1"])
    page = _read(folder, "pages", "evaluation.md").split("## The scores", 1)[0]
    assert "The labels form a tree" in page
    for child, parent in config["hierarchy"].items():
        assert "`%s`" % child in page and "under `%s`" % parent in page
    assert re.search(r"above 0\.1666\d* \(hard_threshold\)", page), page  # 1/6 in the example's config


def test_score_on_a_codalab_competition_labels_scores_txt(tmp_path):
    tmp = str(tmp_path)
    config = _config(tmp, BUNDLE_REF, groups=None)
    folder = os.path.join(tmp, "legacy")
    code, text = _run(
        "init", folder, "--gold", os.path.join(BUNDLE_REF, "gold.csv"), "--config", config, "--platform", "codalab"
    )
    assert code == 0, text
    sample = os.path.join(folder, "sample_submissions", "format_example.zip")
    code, text = _run("score", sample, "--competition-dir", folder)
    assert code == 0, text
    assert "---- scores (scores.txt, which CodaLab reads) ----" in text
    assert "scores (scores.json)" not in text
