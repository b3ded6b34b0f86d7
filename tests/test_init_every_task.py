"""``leaderboard-ci init`` then ``leaderboard-ci bundle`` for EVERY registered task type.

The class of bug this guards: a task type whose submissions are not the protocol's default CSV (id and
gold columns) but which does not override ``submission_format``; init then writes a folder whose own
bundle check fails (a CSV named ``predictions.json`` in ``format_example.zip``) and whose pages describe
a CSV the program refuses.  The cases are parametrized over :data:`leaderboard_ci.tasks.registry.TASKS`
itself, so a task type registered later appears here at once and fails until it is given a case below
(a gold and a config, preferably an example's reference data).

Each case: init from the gold and the config (the config's baseline dropped, so that the format example
is the only submission the check scores; 200 resamples), then

* the bundle check passes (0 problems);
* the format example is read by the task's own reader (``scoring.readers.read_predictions``), one value
  per gold unit;
* the pages and the starting kit describe the file the reader takes: JSON for ``.json``, JSON Lines for
  ``.jsonl``, no CSV where the file is JSON or text, and the sample parses as what its name says;
* the sample, the description and the public files do not change when the gold's values are permuted
  across items (ids, labels and the file layout kept): they reveal no per-item gold value.
"""

import dataclasses
import io
import json
import os
import re
import shutil
import zipfile

import numpy as np
import pytest
import yaml

from leaderboard_ci.scoring.readers import read_gold, read_predictions
from leaderboard_ci.tasks.registry import TASKS, task_type
from leaderboard_ci.tasks.soft_labels.metrics import _share as soft_label_share
from leaderboard_ci.tools.cli import main
from leaderboard_ci.tools.scaffold import load_organizer_config

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")
ODESIA = os.path.join(EXAMPLES, "odesia")


def _regression_gold():
    rng = np.random.RandomState(3)
    return "id,label\n" + "".join("r%03d,%.3f\n" % (i, v) for i, v in enumerate(rng.normal(size=80)))


#: task type -> {case name: (reference_data folder, or ``{file name: text}`` for a synthetic gold; config
#: overrides)}.  A registered task type missing here fails ``test_init_then_bundle_check_passes``.
CASES = {
    "classification": {"sample_competition": (os.path.join(ROOT, "competition_bundle", "reference_data"), {})},
    "regression": {
        "synthetic": ({"gold.csv": _regression_gold(), "config.yaml": "task: regression\nmetric: mae\n"}, {})
    },
    "scores": {
        "binary": (os.path.join(EXAMPLES, "scores", "reference_data"), {}),
        "multiclass": (os.path.join(EXAMPLES, "scores_multiclass", "reference_data"), {}),
    },
    "multilabel": {"example": (os.path.join(EXAMPLES, "multilabel", "reference_data"), {})},
    "sequence": {"example": (os.path.join(EXAMPLES, "sequence", "reference_data"), {})},
    "qa": {"example": (os.path.join(EXAMPLES, "qa", "reference_data"), {})},
    "ranking": {"example": (os.path.join(EXAMPLES, "ranking", "reference_data"), {})},
    "soft_labels": {
        # EXIST 2023 task 1: mono hard labels, PyEvALL run named run.json by the config
        "exist2023_t1_mono": (os.path.join(ODESIA, "reference_data"), {}),
        # EXIST 2023 task 3: multi hard labels, six labels, no prediction file name
        "exist2023_t3_multi": (os.path.join(ODESIA, "en", "exist_2023_t3", "reference_data"), {}),
        "dipromats2023_t3": (os.path.join(ODESIA, "en", "dipromats_2023_t3", "reference_data"), {}),
    },
    "forecasting": {"example": (os.path.join(EXAMPLES, "forecasting", "reference_data"), {})},
    "preference": {"example": (os.path.join(EXAMPLES, "preference", "reference_data"), {})},
    "detection": {"example": (os.path.join(EXAMPLES, "detection", "reference_data"), {})},
    "segmentation": {
        # masks as a folder; the example's video clusters need its design file, which init does not copy
        "example": (
            os.path.join(EXAMPLES, "segmentation", "reference_data"),
            {"bootstrap": {"cluster": None, "design_file": None}},
        )
    },
    "generation": {
        "text_lines": (os.path.join(EXAMPLES, "generation", "reference_data"), {}),
        "jsonl": (os.path.join(EXAMPLES, "generation", "reference_data"), {"files": {"predictions": "run.jsonl"}}),
        "text_unnamed": (os.path.join(EXAMPLES, "generation", "reference_data"), {"files": {"predictions": None}}),
    },
}

PARAMS = [
    pytest.param(task, case, id="%s-%s" % (task, case)) for task in TASKS for case in sorted(CASES.get(task, {None: 0}))
]


def _merge(base, over):
    out = dict(base)
    for key, value in over.items():
        out[key] = _merge(out.get(key) or {}, value) if isinstance(value, dict) else value
    return out


def _inputs(tmp, task, case):
    """The gold and config files of a case in ``tmp`` (the config without baseline, 200 resamples)."""
    source, overrides = CASES[task][case]
    if isinstance(source, dict):
        files = dict(source)
    else:
        with io.open(os.path.join(source, "config.yaml"), encoding="utf-8") as handle:
            files = {"config.yaml": handle.read()}
    config = yaml.safe_load(files["config.yaml"]) or {}
    config.pop("baseline", None)
    config = _merge(config, overrides)
    config["bootstrap"] = _merge(config.get("bootstrap") or {}, {"n_resamples": 200})
    config.setdefault("task", task)
    gold_name = (config.get("files") or {}).get("gold") or "gold.csv"
    gold_path = os.path.join(tmp, gold_name)
    if isinstance(source, dict):
        with io.open(gold_path, "w", encoding="utf-8") as handle:
            handle.write(files[gold_name])
    elif os.path.isdir(os.path.join(source, gold_name)):  # a task that reads folders (segmentation masks)
        shutil.copytree(os.path.join(source, gold_name), gold_path)
    else:
        shutil.copy(os.path.join(source, gold_name), gold_path)
    config_path = os.path.join(tmp, "config.yaml")
    with io.open(config_path, "w", encoding="utf-8") as handle:
        yaml.safe_dump(config, handle, sort_keys=False, allow_unicode=True)
    data = []  # the other reference files the config names (a forecasting history)
    if not isinstance(source, dict):
        for key in ("history", "series_file", "naive2"):
            if config.get(key):
                data.append(os.path.join(source, config[key]))
    return gold_path, config_path, data


def _read(folder, *parts):
    with io.open(os.path.join(folder, *parts), encoding="utf-8") as handle:
        return handle.read()


def _what_you_submit(page):
    return page.split("## What you submit", 1)[1].split("## The scores", 1)[0]


def test_every_registered_task_type_has_a_case():
    """A task type added to the registry needs a case here (its test below fails until then)."""
    assert sorted(set(TASKS) - set(CASES)) == []
    assert set(CASES) <= set(TASKS), "a case names a task type that is not registered"


@pytest.mark.parametrize("task, case", PARAMS)
def test_init_then_bundle_check_passes(tmp_path, task, case):
    if case is None:
        pytest.fail(
            "task type %r is registered but tests/test_init_every_task.py has no case for it: add a gold and a "
            "config to CASES (and a submission_format if its submissions are not the default CSV)" % task
        )
    tmp = str(tmp_path)
    gold_path, config_path, data = _inputs(tmp, task, case)
    folder = os.path.join(tmp, "competition")
    out = io.StringIO()
    extra = [arg for path in data for arg in ("--data", path)]
    assert main(["init", folder, "--gold", gold_path, "--config", config_path] + extra, out) == 0, out.getvalue()

    # 1. The folder passes its own bundle check (the format example is scored by the program).
    out = io.StringIO()
    code = main(["bundle", folder, "--out", os.path.join(tmp, "bundle.zip")], out)
    assert code == 0 and "0 problems" in out.getvalue(), out.getvalue()

    # 2. The format example is read by the task's reader: one value per gold unit.
    ref = os.path.join(folder, "reference_data")
    config = load_organizer_config(os.path.join(ref, "config.yaml"))
    assert config.kind == task
    gold = read_gold(ref, config)
    if task_type(task).submission_format(gold, config.files, config.metrics).sample_files:  # a folder of files
        check_folder_sample(folder, tmp, config, gold)
        assert_reveals_no_gold_value(task, config, gold)
        return
    with zipfile.ZipFile(os.path.join(folder, "sample_submissions", "format_example.zip")) as archive:
        (inner,) = archive.namelist()
        sample = archive.read(inner).decode("utf-8")
    path = os.path.join(tmp, "submission", inner)
    os.makedirs(os.path.dirname(path))
    with io.open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(sample)
    predictions = read_predictions(path, config, gold)
    assert np.asarray(predictions).shape[0] == gold.n
    assert sample == _read(folder, "starting_kit", inner)

    # 3. The pages describe the file the reader takes, and the sample is what its name says.
    evaluation = _read(folder, "pages", "evaluation.md")
    section = _what_you_submit(evaluation)
    assert "`%s`" % inner in section
    extension = os.path.splitext(inner)[1].lower()
    kit = _read(folder, "starting_kit", "README.md")
    if extension in (".csv", ".tsv"):
        assert re.search(r"\b(CSV|TSV)\b", section), section
    else:
        assert "CSV" not in section, "the pages describe a CSV for %s" % inner
        assert "CSV" not in kit, "the starting kit describes a CSV for %s" % inner
        first = sample.splitlines()[0] if sample.strip() else ""
        default_header = "%s,%s" % (config.files.id_column, config.files.gold_column)
        assert first not in (default_header, config.files.gold_column), "the sample is the default CSV"
    if extension == ".json":
        json.loads(sample)
        assert "JSON" in section
    if extension == ".jsonl":
        assert all(isinstance(json.loads(line), dict) for line in sample.splitlines() if line.strip())
        assert "JSON Lines" in section

    # 4. Nothing of the gold's values: the same pages, sample and public files with the values permuted.
    assert_reveals_no_gold_value(task, config, gold)


def check_folder_sample(folder, tmp, config, gold):
    """A task that reads folders: the format example unzips to a submission the reader takes, one value per
    unit, the starting kit holds the same files, and the pages say how to zip a folder (no CSV)."""
    from leaderboard_ci.scoring.readers import read_submission

    submission = os.path.join(tmp, "submission")
    with zipfile.ZipFile(os.path.join(folder, "sample_submissions", "format_example.zip")) as archive:
        names = archive.namelist()
        archive.extractall(submission)
    predictions = read_submission(submission, config, gold)
    assert np.asarray(predictions).shape[0] == gold.n
    kit = os.path.join(folder, "starting_kit", "sample_submission")
    for name in names:
        with open(os.path.join(kit, name), "rb") as handle, open(os.path.join(submission, name), "rb") as other:
            assert handle.read() == other.read(), name
    section = _what_you_submit(_read(folder, "pages", "evaluation.md"))
    assert "zip file of the files described below" in section and "CSV" not in section
    assert "zip -r ../submission.zip" in _read(folder, "starting_kit", "README.md")


#: Task types whose encoded gold carries the participants' input layout (the CoNLL sample repeats each
#: sentence's tokens with a constant tag, so permuting whole sentences changes it legitimately; a forecasting
#: gold row holds its series' horizon dates: test_forecasting permutes the actuals alone instead).
LAYOUT_IN_GOLD = {"sequence", "forecasting"}


def assert_reveals_no_gold_value(task, config, gold):
    if task in LAYOUT_IN_GOLD:
        return
    values = np.asarray(gold.values)
    fmt = task_type(task).submission_format(gold, config.files, config.metrics)
    rng = np.random.RandomState(0)
    for _ in range(3):
        order = rng.permutation(values.shape[0])
        shuffled = dataclasses.replace(gold, values=values[order])
        other = task_type(task).submission_format(shuffled, config.files, config.metrics)
        # field names only: pytest's diff of two large samples would take minutes
        names = fmt._fields if isinstance(fmt, tuple) else [f.name for f in dataclasses.fields(fmt)]
        changed = [name for name in names if getattr(fmt, name) != getattr(other, name)]
        assert not changed, "%s changes with the gold values: %s" % (task, ", ".join(changed))


@pytest.mark.parametrize("name", ["exist2023_t1_mono", "exist2023_t3_multi"])
def test_soft_labels_pages_follow_the_hard_labels_rule(tmp_path, name):
    """The pages say how the hard metrics read a distribution: mono (most probable) or multi (threshold)."""
    tmp = str(tmp_path)
    gold_path, config_path, _ = _inputs(tmp, "soft_labels", name)
    config = yaml.safe_load(_read(tmp, "config.yaml"))
    config["extra_metrics"] = list(config.get("extra_metrics") or []) + ["f1"]
    config["extra_metrics"] = sorted(set(config["extra_metrics"]), key=config["extra_metrics"].index)
    with io.open(config_path, "w", encoding="utf-8") as handle:
        yaml.safe_dump(config, handle, sort_keys=False)
    folder = os.path.join(tmp, "competition")
    out = io.StringIO()
    assert main(["init", folder, "--gold", gold_path, "--config", config_path], out) == 0, out.getvalue()
    section = _what_you_submit(_read(folder, "pages", "evaluation.md"))
    assert '"test_case"' in section and '"value"' in section
    if config.get("hard_labels", "mono") == "mono":
        assert "most probable label" in section
    else:
        assert "above %g" % soft_label_share(config["hard_threshold"], "hard_threshold") in section
    public = _read(folder, "public_data", "test_ids.txt").split()
    with io.open(gold_path, encoding="utf-8") as handle:
        gold = json.load(handle)
    assert sorted(public) == sorted(str(record["id"]) for record in gold)


def test_the_no_leak_check_catches_a_sample_made_of_gold_values(tmp_path, monkeypatch):
    """The permutation check can fail: a submission_format that copies the gold into its sample is caught."""
    tmp = str(tmp_path)
    gold_path, config_path, _ = _inputs(tmp, "soft_labels", "exist2023_t1_mono")
    ref = os.path.dirname(gold_path)
    config = load_organizer_config(config_path)
    gold = read_gold(ref, config)
    task = task_type("soft_labels")
    honest = task.submission_format

    def leaking(gold, files, metrics):
        fmt = honest(gold, files, metrics)
        return fmt._replace(sample=json.dumps(np.nan_to_num(np.asarray(gold.values)).tolist()))

    monkeypatch.setitem(TASKS._loaded, "soft_labels", dataclasses.replace(task, submission_format=leaking))
    with pytest.raises(AssertionError):
        assert_reveals_no_gold_value("soft_labels", config, gold)
