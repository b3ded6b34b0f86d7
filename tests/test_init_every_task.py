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

import csv
import dataclasses
import io
import json
import os
import re
import shutil
import sys
import zipfile
from fractions import Fraction

import numpy as np
import pytest
import yaml

from leaderboard_ci.cli.main import main
from leaderboard_ci.scoring.readers import read_gold, read_predictions
from leaderboard_ci.tasks.registry import TASKS, task_type
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


def _field_names(fmt):
    """The fields of a SubmissionFormat: a dataclass (the protocol's) or a namedtuple (the legacy adapter's)."""
    return fmt._fields if hasattr(fmt, "_fields") else [f.name for f in dataclasses.fields(fmt)]


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
        changed = [name for name in _field_names(fmt) if getattr(fmt, name) != getattr(other, name)]
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
        assert "above %g" % float(Fraction(str(config["hard_threshold"]))) in section
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
        sample = json.dumps(np.nan_to_num(np.asarray(gold.values)).tolist())
        return fmt._replace(sample=sample) if hasattr(fmt, "_replace") else dataclasses.replace(fmt, sample=sample)

    leaky = dataclasses.replace(task, submission_format=leaking)  # task types are frozen
    monkeypatch.setattr(sys.modules[__name__], "task_type", lambda name: leaky)
    with pytest.raises(AssertionError):
        assert_reveals_no_gold_value("soft_labels", config, gold)


# -- every task type x the gold formats CSV, TSV and JSON -------------------------------------------------------------
#: The class of bug: a gold whose format is not the default CSV (``gold.tsv`` with the default ``files.gold``, a
#: TSV prediction name or ``files.format``) gets a format example the program then refuses, or is read as another
#: format without a word (a CSV of references read as plain text, its header a reference).  For every registered
#: task type and each of CSV, TSV and JSON, a converter writes the task's example gold in that format; init then
#: either writes a folder whose sample the program reads (and whose bundle check passes, in the slow run and for
#: the reported TSV regression case in the default run), or refuses in one sentence that names the gold as given.
GOLD_FORMATS = ("csv", "tsv", "json")
REFUSED = "refused"


def _table(path):
    with io.open(path, encoding="utf-8", newline="") as handle:
        return [row for row in csv.reader(handle)]


def _write_table(rows, fmt, lists=()):
    """A CSV/TSV/JSON (list of records) text of ``rows`` (header first); ``lists``: columns split on ``|`` in JSON."""
    if fmt == "json":
        records = []
        for row in rows[1:]:
            record = dict(zip(rows[0], row))
            for column in lists:
                record[column] = [x for x in record[column].split("|") if x]
            records.append(record)
        return json.dumps(records, ensure_ascii=False)  # one line: a minified JSON gold
    handle = io.StringIO()
    csv.writer(handle, delimiter="\t" if fmt == "tsv" else ",", lineterminator="\n").writerows(rows)
    return handle.getvalue()


def _table_gold(folder, name, lists=(), max_rows=None):
    def convert(fmt):
        rows = _table(os.path.join(folder, name)) if folder else list(csv.reader(io.StringIO(name)))
        return _write_table(rows[: max_rows and max_rows + 1], fmt, lists)

    return convert


def _qrels(fmt):
    rows = [line.split() for line in _read(EXAMPLES, "ranking", "reference_data", "qrels.txt").splitlines()]
    if fmt == "tsv":  # TREC qrels with tabs: the whitespace-separated format
        return "".join("\t".join(row) + "\n" for row in rows)
    if fmt == "json":
        judged = {}
        for query, _, doc, rel in rows:
            judged.setdefault(query, {})[doc] = int(rel)
        return json.dumps(judged)
    return REFUSED


def _references(fmt):
    records = [json.loads(x) for x in _read(EXAMPLES, "generation", "reference_data", "references.jsonl").splitlines()]
    return json.dumps(records, ensure_ascii=False) if fmt == "json" else REFUSED


def _sentences(fmt):
    text = _read(EXAMPLES, "sequence", "reference_data", "gold.conll")
    if fmt == "tsv":  # CoNLL with tabs
        return text.replace(" ", "\t")
    if fmt == "json":  # JSON Lines in a .json file (the page: a .json name selects JSON Lines)
        out, document, tokens = [], 0, []
        for line in text.splitlines() + [""]:
            if line.startswith("-DOCSTART-"):
                document += 1
            elif line.strip():
                tokens.append(line.split())
            elif tokens:
                out.append({"id": "s%d" % len(out), "document": "d%d" % document, "tags": [t[-1] for t in tokens]})
                tokens = []
        return "".join(json.dumps(x) + "\n" for x in out)
    return REFUSED


def _document(folder, name):
    def convert(fmt):
        return _read(folder, name) if fmt == "json" else REFUSED

    return convert


#: task type -> (the CASES entry whose config is used, the gold's base name, converter(format) -> text or REFUSED).
GOLD_CONVERTERS = {
    "classification": (
        "sample_competition",
        "gold",
        _table_gold(CASES["classification"]["sample_competition"][0], "gold.csv"),
    ),
    "regression": ("synthetic", "gold", _table_gold(None, _regression_gold())),
    "scores": ("binary", "gold", _table_gold(os.path.join(EXAMPLES, "scores", "reference_data"), "gold.csv")),
    "multilabel": (
        "example",
        "gold",
        _table_gold(os.path.join(EXAMPLES, "multilabel", "reference_data"), "gold.csv", lists=("labels",)),
    ),
    "sequence": ("example", "gold", _sentences),
    "qa": ("example", "gold", _document(os.path.join(EXAMPLES, "qa", "reference_data"), "gold.json")),
    "ranking": ("example", "qrels", _qrels),
    "soft_labels": ("exist2023_t1_mono", "gold", _document(os.path.join(ODESIA, "reference_data"), "gold.json")),
    "preference": (
        "example",
        "battles",
        _table_gold(os.path.join(EXAMPLES, "preference", "reference_data"), "battles.csv", max_rows=3000),
    ),
    "generation": ("text_lines", "references", _references),
}


def _format_case(tmp, task, fmt, files=None, name_gold=True):
    """The gold in ``fmt`` and a config for it; ``name_gold=False`` leaves ``files.gold`` at its default."""
    case, stem, convert = GOLD_CONVERTERS[task]
    text = convert(fmt)
    gold_path, config_path, _ = _inputs(tmp, task, case)
    os.remove(gold_path)
    gold_path = os.path.join(tmp, "%s.%s" % (stem, fmt))
    with io.open(gold_path, "w", encoding="utf-8", newline="") as handle:
        handle.write("" if text == REFUSED else text)
    config = yaml.safe_load(_read(tmp, "config.yaml"))
    config["files"] = dict(config.get("files") or {})
    config["files"].pop("gold", None)
    if name_gold:
        config["files"]["gold"] = os.path.basename(gold_path)
    config["files"].update(files or {})
    with io.open(config_path, "w", encoding="utf-8") as handle:
        yaml.safe_dump(config, handle, sort_keys=False, allow_unicode=True)
    return gold_path, config_path, text == REFUSED


@pytest.fixture
def no_plan(monkeypatch):
    """The README's plan section (a bootstrap of its own, tested above and in test_plan) left out: speed."""
    monkeypatch.setattr("leaderboard_ci.tools.plan_output.readme_plan_section", lambda *args: "")


def _init(tmp, gold_path, config_path, *more):
    folder = os.path.join(tmp, "competition")
    out = io.StringIO()
    code = main(["init", folder, "--gold", gold_path, "--config", config_path] + list(more), out)
    return code, out.getvalue(), folder


def _assert_one_sentence(code, text, named):
    assert code == 2, text
    lines = text.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in text, text
    assert named in lines[0], lines[0]
    assert "ref/" not in lines[0], "the message names a path the organizer never gave: " + lines[0]


def _assert_sample_read(folder, task):
    ref = os.path.join(folder, "reference_data")
    config = load_organizer_config(os.path.join(ref, "config.yaml"))
    gold = read_gold(ref, config)
    with zipfile.ZipFile(os.path.join(folder, "sample_submissions", "format_example.zip")) as archive:
        (inner,) = archive.namelist()
        path = os.path.join(folder, "sample_check", inner)
        os.makedirs(os.path.dirname(path))
        with open(path, "wb") as handle:
            handle.write(archive.read(inner))
    assert np.asarray(read_predictions(path, config, gold)).shape[0] == gold.n
    shutil.rmtree(os.path.dirname(path))
    return config, inner


#: Task types whose gold has one format of its own (init reads it in test_init_then_bundle_check_passes).
ONE_GOLD_FORMAT = {
    "detection": "a COCO instances JSON file",
    "segmentation": "a folder of mask files",
    "forecasting": "a long CSV (unique_id, ds, y) beside its history file",
}


def test_every_registered_task_type_has_gold_formats():
    assert sorted(TASKS) == sorted(set(GOLD_CONVERTERS) | set(ONE_GOLD_FORMAT))


@pytest.mark.parametrize("fmt", GOLD_FORMATS)
@pytest.mark.parametrize("task", sorted(GOLD_CONVERTERS))
def test_init_reads_every_gold_format_or_refuses_in_one_sentence(tmp_path, no_plan, task, fmt):
    """A gold in a format of the task: init's folder has a sample the program reads; else one sentence."""
    tmp = str(tmp_path)
    gold_path, config_path, refused = _format_case(tmp, task, fmt)
    code, text, folder = _init(tmp, gold_path, config_path)
    if refused:
        _assert_one_sentence(code, text, gold_path)
        return
    assert code == 0, text
    config, _ = _assert_sample_read(folder, task)
    assert config.files.gold == os.path.basename(gold_path)


@pytest.mark.parametrize("task", ["classification", "regression", "scores", "multilabel", "preference"])
def test_init_names_the_gold_when_the_config_leaves_files_gold_at_its_default(tmp_path, no_plan, task):
    """``--gold gold.tsv`` with no files.gold: init sets it (a TSV copied as gold.csv would be read as a CSV)."""
    tmp = str(tmp_path)
    gold_path, config_path, _ = _format_case(tmp, task, "tsv", name_gold=False)
    code, text, folder = _init(tmp, gold_path, config_path)
    assert code == 0, text
    config, _ = _assert_sample_read(folder, task)
    assert config.files.gold == os.path.basename(gold_path)
    assert yaml.safe_load(_read(folder, "scoring_program", "config.yaml"))["files"]["gold"] == config.files.gold


def test_a_gold_named_against_files_gold_is_refused_naming_both(tmp_path):
    tmp = str(tmp_path)
    gold_path, config_path, _ = _format_case(tmp, "regression", "tsv", files={"gold": "gold.csv"})
    code, text, _ = _init(tmp, gold_path, config_path)
    _assert_one_sentence(code, text, gold_path)
    assert "files.gold" in text and "gold.csv" in text


#: Prediction formats a table task may be configured for: (files overrides, expected format of the sample).
PREDICTION_FORMATS = [
    ({"predictions": "predictions.tsv"}, "tsv"),
    ({"format": "tsv"}, "tsv"),
    ({"predictions": "predictions.json"}, "json"),
    ({"format": "jsonl"}, "jsonl"),
    ({"format": "lines"}, "lines"),
]


@pytest.mark.parametrize("files, fmt", PREDICTION_FORMATS, ids=[f for _, f in PREDICTION_FORMATS])
@pytest.mark.parametrize("task", ["classification", "regression", "scores", "multilabel"])
def test_the_format_example_is_in_the_prediction_format_or_init_refuses(tmp_path, no_plan, task, files, fmt):
    """The sample is written in the format the reader will apply; a config the reader cannot serve is refused."""
    tmp = str(tmp_path)
    gold_path, config_path, _ = _format_case(tmp, task, "csv", files=files)
    code, text, folder = _init(tmp, gold_path, config_path)
    if code != 0:  # e.g. scored predictions are CSV or TSV only: the program's own sentence, before any folder
        _assert_one_sentence(code, text, "config.yaml")
        assert not os.path.exists(folder)
        return
    _, inner = _assert_sample_read(folder, task)
    sample = _read(folder, "starting_kit", inner)
    first = sample.splitlines()[0]
    if fmt == "tsv":
        assert "\t" in first and "," not in first
    elif fmt == "json":
        assert isinstance(json.loads(sample), list)
    elif fmt == "jsonl":
        assert all(isinstance(json.loads(line), dict) for line in sample.splitlines())
    section = _what_you_submit(_read(folder, "pages", "evaluation.md"))
    noun = {"tsv": "TSV", "json": "JSON", "jsonl": "JSON Lines", "lines": "plain-text"}[fmt]
    assert "A %s file" % noun in section, section


def test_a_tsv_baseline_gives_a_tsv_format_example(tmp_path, no_plan):
    tmp = str(tmp_path)
    gold_path, config_path, _ = _format_case(tmp, "regression", "csv")
    baseline = os.path.join(tmp, "baseline.tsv")
    rows = _table(gold_path)
    with io.open(baseline, "w", encoding="utf-8") as handle:
        handle.write("".join("%s\t%s\n" % (row[0], "label" if k == 0 else "0.1") for k, row in enumerate(rows)))
    code, text, folder = _init(tmp, gold_path, config_path, "--baseline", baseline)
    assert code == 0, text
    _, inner = _assert_sample_read(folder, "regression")
    assert inner == "predictions.tsv" and "\t" in _read(folder, "starting_kit", inner).splitlines()[0]


def _bundle_passes(tmp, folder):
    out = io.StringIO()
    code = main(["bundle", folder, "--out", os.path.join(tmp, "bundle.zip")], out)
    assert code == 0 and "0 problems" in out.getvalue(), out.getvalue()


def test_init_then_bundle_of_a_tsv_regression_gold_passes(tmp_path):
    """The reported case: gold.tsv and no files.gold; init's own folder passes its bundle check."""
    tmp = str(tmp_path)
    gold_path, config_path, _ = _format_case(tmp, "regression", "tsv", name_gold=False)
    code, text, folder = _init(tmp, gold_path, config_path)
    assert code == 0, text
    _bundle_passes(tmp, folder)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", GOLD_FORMATS)
@pytest.mark.parametrize("task", sorted(TASKS))
def test_init_then_bundle_passes_for_every_gold_format(tmp_path, task, fmt):
    tmp = str(tmp_path)
    gold_path, config_path, refused = _format_case(tmp, task, fmt)
    if refused:
        pytest.skip("%s has no %s gold (init refuses it: the default run checks the sentence)" % (task, fmt))
    code, text, folder = _init(tmp, gold_path, config_path)
    assert code == 0, text
    _bundle_passes(tmp, folder)
