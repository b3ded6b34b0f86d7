"""A benchmark read from a Codabench multi-task phase's bulk download equals the one read from per-task folders.

The download is built as Codabench makes it (see
``leaderboard_ci/phase/benchmark/submissions.py`` for the code read): a zip of
the participants' zips, one per *parent* submission, each named
``{id}_{owner}_PhaseId{phase}_{date}_{file}`` with ``:`` replaced by ``_``;
every participant zip holds one prediction file per task (each task's scoring
program picks its own), plus what participants' machines and the platform add
(``metadata``, ``__MACOSX/``).  Added on purpose: a submission missing one
task's file, a corrupt zip, a child submission fetched through the API (the
parent's bytes under the child's id) and a ``failed.txt``.
"""

import io
import json
import os
import shutil
import zipfile
from dataclasses import replace

import numpy as np
import pytest
import yaml

from leaderboard_ci.cli.benchmark import main
from leaderboard_ci.phase.benchmark.benchmark import analyze_benchmark, load_benchmark
from leaderboard_ci.phase.ingestion.discovery import FAILED_REASON
from leaderboard_ci.scoring.errors import ConfigError
from leaderboard_ci.scoring.text_files import list_names

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE_DIR = os.path.join(ROOT, "examples", "benchmark")
EXAMPLE = os.path.join(EXAMPLE_DIR, "benchmark.yaml")
B = 200
SYSTEMS = ["decision_tree", "knn", "linear_model", "linear_svm", "nb_or_ridge", "random_forest"]
TEST_SETS = [(t["name"], t["language"]) for t in yaml.safe_load(open(EXAMPLE))["tasks"]]
DATE = "2026-05-01_13-22"  # Codabench's '%Y-%m-%d:%M-%S' after the browser's ':' -> '_'


def _prediction(task, language, system):
    with open(os.path.join(EXAMPLE_DIR, language, task, "submissions", system + ".csv"), "rb") as handle:
        return handle.read()


def _participant_zip(files, folder=None):
    """A participant's zip: one file per task, with the litter of a Mac and a legacy metadata file."""
    buffer = io.BytesIO()
    prefix = folder + "/" if folder else ""
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(prefix + name, data)
            z.writestr("__MACOSX/%s._%s" % (prefix, name), b"\x00\x05\x16\x07 mac resource fork")
        z.writestr(prefix + "metadata", "description: all tasks in one zip\n")
        z.writestr(prefix + ".DS_Store", b"\x00\x00\x00\x01Bud1")
    return buffer.getvalue()


def _member(sub_id, owner, phase, file_name="submission.zip"):
    return "%d_%s_PhaseId%d_%s_%s" % (sub_id, owner, phase, DATE, file_name)


def _names(test_sets, two_phases):
    """``{(task, language): name in the zip}``: one phase with all test sets, or one phase per language."""
    return {(t, l): ("%s.csv" % t if two_phases else "%s_%s.csv" % (t, l)) for t, l in test_sets}


def build_bulk(path, two_phases=False):
    """Write a Codabench bulk download of the sample benchmark; returns the names-map rows."""
    names = _names(TEST_SETS, two_phases)
    phases = {"en": 7, "es": 8} if two_phases else {"en": 7, "es": 7}
    rows = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as bulk:
        sub_id = 100
        for phase in sorted(set(phases.values())):
            for _k, system in enumerate(SYSTEMS):
                sub_id += 1
                files = {names[(t, l)]: _prediction(t, l, system) for t, l in TEST_SETS if phases[l] == phase}
                data = _participant_zip(files, folder="my_submission" if system == "knn" else None)
                bulk.writestr(_member(sub_id, system, phase, "%s.zip" % system), data)
                rows.append((sub_id, system))
                if system == "knn":  # its child for one task, asked for through the API: same file, own id
                    bulk.writestr(_member(sub_id + 50, system, phase, "%s.zip" % system), data)
            # A participant who forgot one task's file; a corrupt upload.
            files = {
                names[(t, l)]: _prediction(t, l, "random_forest")
                for t, l in TEST_SETS
                if phases[l] == phase and (t, l) != ("wine", "es")
            }
            bulk.writestr(_member(sub_id + 1, "team_partial", phase), _participant_zip(files))
            bulk.writestr(_member(sub_id + 2, "broken", phase), b"PK\x03\x04 this upload was cut short")
            sub_id += 2
        bulk.writestr("__MACOSX/._%s" % _member(101, "decision_tree", 7), b"\x00\x05\x16\x07")
        bulk.writestr(
            "failed.txt", "The following submissions failed to download:\n\n%s (HTTP 404)\n" % _member(999, "late", 7)
        )
    return rows


def write_definition(folder, two_phases=False, bulk_name="bulk_submissions.zip", **changes):
    """A benchmark.yaml reading every task from one bulk download (the sample's references and baselines)."""
    rows = build_bulk(os.path.join(folder, bulk_name), two_phases)
    with open(os.path.join(folder, "names.csv"), "w") as handle:
        handle.write("submission,name\n" + "".join("%d,%s\n" % row for row in rows))
    example = yaml.safe_load(open(EXAMPLE))
    names = _names(TEST_SETS, two_phases)
    tasks = []
    for task in example["tasks"]:
        t = dict(task)
        del t["submissions"]
        t["reference"] = os.path.join(EXAMPLE_DIR, task["reference"])
        t["file"] = names[(t["name"], t["language"])]
        if two_phases:
            t["phase"] = {"en": 7, "es": 8}[t["language"]]
        tasks.append(t)
    definition = dict(example, submissions=bulk_name, names="names.csv", tasks=tasks, n_resamples=B)
    definition.update(changes)
    path = os.path.join(folder, "benchmark.yaml")
    with open(path, "w") as handle:
        yaml.safe_dump(definition, handle, sort_keys=False)
    return path


@pytest.fixture(scope="module")
def from_folders():
    return analyze_benchmark(replace(load_benchmark(EXAMPLE), n_resamples=B), n_jobs=1)


@pytest.fixture(scope="module", params=[False, True], ids=["one_phase", "one_phase_per_language"])
def from_bulk(request, tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("bulk"))
    return analyze_benchmark(load_benchmark(write_definition(folder, two_phases=request.param)), n_jobs=1)


def _rows(frame, keys):
    return {tuple(r[k] for k in keys): r for r in frame.to_dict("records")}


def test_every_task_reads_its_own_file_from_the_same_bulk(from_bulk, from_folders):
    assert [ts.label for ts in from_bulk.test_sets] == [ts.label for ts in from_folders.test_sets]
    for bulk_ts, folder_ts in zip(from_bulk.test_sets, from_folders.test_sets):
        # one submission in the download: named by its owner; one per phase: told apart by id
        partial = (
            "team_partial"
            if bulk_ts.task.phase is None
            else "team_partial (%s)" % ("115" if bulk_ts.task.phase == "8" else "107")
        )
        expected = set(folder_ts.names) | ({partial} if bulk_ts.label != "wine (es)" else set())
        assert set(bulk_ts.names) == expected, bulk_ts.label
        assert [bulk_ts.full[bulk_ts.names.index(n)] for n in SYSTEMS] == [
            folder_ts.full[folder_ts.names.index(n)] for n in SYSTEMS
        ]
        for n in SYSTEMS:
            np.testing.assert_array_equal(
                bulk_ts.replicates[:, bulk_ts.names.index(n)], folder_ts.replicates[:, folder_ts.names.index(n)]
            )
        assert bulk_ts.baseline_full == folder_ts.baseline_full
        assert bulk_ts.seed == folder_ts.seed


@pytest.mark.parametrize(
    "table, keys, columns",
    [
        ("scores", ("task", "language", "system"), ("score", "ci_low", "ci_high")),
        ("gains", ("task", "language", "system"), ("gain", "ci_low", "ci_high", "reference_point", "baseline")),
        ("gaps", ("task", "languages", "system"), ("gap", "ci_low", "ci_high", "p_value")),
    ],
)
def test_per_task_tables_equal_the_ones_from_the_folders(from_bulk, from_folders, table, keys, columns):
    bulk, folders = _rows(getattr(from_bulk, table), keys), _rows(getattr(from_folders, table), keys)
    assert set(k for k in bulk if k[-1] in SYSTEMS) == set(folders)
    for key, row in folders.items():
        for column in columns:
            assert bulk[key][column] == pytest.approx(row[column], rel=1e-12, abs=1e-12), (key, column)


def test_skipped_submissions_are_listed_with_their_reason(from_bulk, tmp_path):
    for ts in from_bulk.test_sets:
        reasons = dict(ts.skipped)
        broken = [r for s, r in ts.skipped if s.startswith("broken")]
        assert len(broken) == 1 and broken[0].startswith("is not a valid zip file"), ts.label
        if ts.task.phase in (None, "7"):  # failed.txt names a submission of phase 7
            assert reasons["late (999)"] == FAILED_REASON
        else:
            assert "late (999)" not in reasons
        child = [(s, r) for s, r in ts.skipped if s.startswith("knn (")]
        assert len(child) == 1 and "the same submission file as knn" in child[0][1], ts.label
        partial = [(s, r) for s, r in ts.skipped if s.startswith("team_partial")]
        if ts.label == "wine (es)":
            file_name = ts.task.file
            held = sorted(f for t, l, f in _all_files(ts))
            assert partial == [
                (partial[0][0], "has no file matching '%s' (it holds %s)" % (file_name, list_names(held, 5)))
            ]
        else:
            assert partial == []
    written = from_bulk.write(str(tmp_path))
    html = open(written["benchmark.html"], encoding="utf-8").read()
    assert "Submissions not used" in html
    assert "wine (es): <b>team_partial" in html
    data = json.load(open(written["benchmark.json"], encoding="utf-8"))
    wine_es = [t for t in data["test_sets"] if (t["task"], t["language"]) == ("wine", "es")][0]
    assert any(
        s["submission"].startswith("team_partial") and s["reason"].startswith("has no file matching")
        for s in wine_es["skipped"]
    )


def _all_files(ts):
    """The files of the partial submission that reads ``ts``'s phase."""
    names = _names(TEST_SETS, ts.task.phase is not None)
    same_phase = [(t, l) for t, l in TEST_SETS if ts.task.phase is None or l == ts.task.language]
    return [(t, l, names[(t, l)]) for t, l in same_phase if (t, l) != ("wine", "es")]


def test_systems_are_matched_by_submission_without_a_names_map(tmp_path):
    path = write_definition(str(tmp_path), names=None)
    definition = load_benchmark(path)
    result = analyze_benchmark(replace(definition, tasks=definition.tasks[:2]), n_jobs=1)
    for ts in result.test_sets:  # one shared download: the same names in every task
        assert ts.names == result.test_sets[0].names
        # linear_model submitted once: its owner's name; knn's child submissions share the file: ids tell them apart
        assert "linear_model" in ts.names and "knn (102)" in ts.names


def test_a_glob_picks_the_task_file(tmp_path):
    path = write_definition(str(tmp_path))
    data = yaml.safe_load(open(path))
    data["tasks"][0]["file"] = "*its_en.c?v"
    data["tasks"] = data["tasks"][:2]
    with open(path, "w") as handle:
        yaml.safe_dump(data, handle)
    result = analyze_benchmark(load_benchmark(path), n_jobs=1)
    assert len(result.test_sets[0].names) == len(SYSTEMS) + 1


def test_a_glob_matching_two_files_is_named(tmp_path):
    def edit(data):
        data["tasks"][0]["file"] = "digits_e?.csv"

    message = _error(tmp_path, edit)
    assert message.startswith(
        "benchmark.yaml: tasks[0] (digits (en)): no submission in bulk_submissions.zip could "
        "be used: all 10 were skipped (decision_tree: has 2 files matching 'digits_e?.csv' "
        "(digits_en.csv, digits_es.csv); make file: match one; "
    )


def _error(tmp_path, edit, two_phases=False):
    path = write_definition(str(tmp_path), two_phases=two_phases)
    data = yaml.safe_load(open(path))
    edit(data)
    with open(path, "w") as handle:
        yaml.safe_dump(data, handle)
    with pytest.raises(ConfigError) as info:
        definition = load_benchmark(path)
        analyze_benchmark(replace(definition, tasks=definition.tasks[:2]), n_jobs=1)
    message = info.value.message
    assert "\n" not in message and message.startswith("benchmark.yaml")
    return message


def test_a_task_file_in_no_submission_is_one_sentence(tmp_path):
    def edit(data):
        data["tasks"][1]["file"] = "digits_fr.csv"

    message = _error(tmp_path, edit)
    assert message.startswith(
        "benchmark.yaml: tasks[1] (digits (es)): no submission in bulk_submissions.zip has "
        "a file matching 'digits_fr.csv' (expected this task's prediction file in each "
        "submission; "
    )
    assert "digits_es.csv" in message


def test_a_shared_task_without_a_file_is_one_sentence(tmp_path):
    def edit(data):
        del data["tasks"][0]["file"]

    message = _error(tmp_path, edit)
    assert message.startswith(
        "benchmark.yaml: tasks[0] (digits (en)) reads the submissions bulk_submissions.zip, "
        "shared with other tasks, but names no file of its own and none could be read "
        "(decision_tree: the submission has 8 candidate prediction files ("
    )
    assert message.endswith(
        "; give file: (this task's prediction file in each submission, e.g. "
        "digits_predictions.csv) or files.predictions in its config.yaml"
    )


def test_without_file_a_task_reads_its_configs_predictions_file(tmp_path, from_folders):
    """What the task's scoring program reads on Codabench: files.predictions of its config.yaml."""
    path = write_definition(str(tmp_path))
    data = yaml.safe_load(open(path))
    data["tasks"] = data["tasks"][:2]
    reference = str(tmp_path / "digits_en_reference")
    shutil.copytree(data["tasks"][0]["reference"], reference)
    config = yaml.safe_load(open(os.path.join(reference, "config.yaml")))
    config["files"] = {"predictions": data["tasks"][0].pop("file")}
    with open(os.path.join(reference, "config.yaml"), "w") as handle:
        yaml.safe_dump(config, handle)
    data["tasks"][0]["reference"] = reference
    with open(path, "w") as handle:
        yaml.safe_dump(data, handle)
    ts = analyze_benchmark(load_benchmark(path), n_jobs=1).test_sets[0]
    expected = from_folders.test_sets[0]
    assert [ts.full[ts.names.index(n)] for n in SYSTEMS] == [expected.full[expected.names.index(n)] for n in SYSTEMS]


@pytest.mark.parametrize(
    "edit, expected",
    [
        (
            lambda d: d["tasks"][0].update(fille="x.csv"),
            "benchmark.yaml: tasks[0].fille is not a known key (did you mean 'file'?); allowed: ",
        ),
        (
            lambda d: d["tasks"][0].update(file="../x.csv"),
            "tasks[0].file must be the name (or glob) of this task's file",
        ),
        (lambda d: d["tasks"][0].update(phase="seven"), "tasks[0].phase must be a Codabench phase id"),
        (lambda d: d.pop("submissions"), "tasks[0] needs submissions (or a top-level submissions: shared"),
        (
            lambda d: d["tasks"][0].update(phase=9),
            "tasks[0] (digits (en)): bulk_submissions.zip holds no submission of "
            "phase 9 (the PhaseId in Codabench's names; found: 7, 8)",
        ),
    ],
)
def test_bad_keys_are_one_sentence(tmp_path, edit, expected):
    assert expected in _error(tmp_path, edit, two_phases=True)


def test_the_command_reads_a_bulk_download(tmp_path, capsys):
    path = write_definition(str(tmp_path))
    data = yaml.safe_load(open(path))
    data["tasks"] = data["tasks"][:4]
    with open(path, "w") as handle:
        yaml.safe_dump(data, handle)
    assert main([path, "--out", str(tmp_path / "out"), "--jobs", "1"], stdout=io.StringIO()) == 0
    data["tasks"][3]["file"] = "wine_xx.csv"
    with open(path, "w") as handle:
        yaml.safe_dump(data, handle)
    assert main([path, "--out", str(tmp_path / "out2"), "--jobs", "1"], stdout=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "wine_xx.csv" in err and "Traceback" not in err


IMAGES = {"py37": "LEADERBOARD_CI_PY37", "py312": "LEADERBOARD_CI_PY312"}


@pytest.mark.image
@pytest.mark.parametrize("image", sorted(IMAGES))
def test_each_task_program_scores_its_own_file_of_the_multi_task_zip_in_the_image(image, tmp_path):
    """On Codabench every task's scoring program gets the whole zip: files.predictions picks its file."""
    from leaderboard_ci.tools.local_worker import run_scoring

    python = os.environ.get(IMAGES[image])
    if not python:
        pytest.skip("set %s to the %s image's interpreter (.ci/run does)" % (IMAGES[image], image))
    names = _names(TEST_SETS, False)
    submission = str(tmp_path / "all_tasks.zip")
    with open(submission, "wb") as handle:
        handle.write(_participant_zip({names[ts]: _prediction(ts[0], ts[1], "knn") for ts in TEST_SETS}))
    for task, language in TEST_SETS:
        reference = str(tmp_path / ("ref_%s_%s" % (task, language)))
        shutil.copytree(os.path.join(EXAMPLE_DIR, language, task, "reference_data"), reference)
        config_path = os.path.join(reference, "config.yaml")
        config = yaml.safe_load(open(config_path))
        config.setdefault("files", {})["predictions"] = names[(task, language)]
        with open(config_path, "w") as handle:
            yaml.safe_dump(config, handle)
        single = str(tmp_path / ("knn_%s_%s.zip" % (task, language)))
        with zipfile.ZipFile(single, "w") as z:
            z.writestr("predictions.csv", _prediction(task, language, "knn"))
        alone = run_scoring(
            str(tmp_path / ("a_%s_%s" % (task, language))),
            os.path.join(ROOT, "scoring_program"),
            os.path.join(EXAMPLE_DIR, language, task, "reference_data"),
            single,
            python=python,
        )
        multi = run_scoring(
            str(tmp_path / ("m_%s_%s" % (task, language))),
            os.path.join(ROOT, "scoring_program"),
            reference,
            submission,
            python=python,
        )
        assert alone.returncode == 0 and multi.returncode == 0, multi.stderr
        assert multi.scores == alone.scores
    # A participant who forgot the file of a task: that task's program says so (exit 1, one line).
    partial = str(tmp_path / "partial.zip")
    with open(partial, "wb") as handle:
        handle.write(
            _participant_zip({names[ts]: _prediction(ts[0], ts[1], "knn") for ts in TEST_SETS if ts != ("wine", "es")})
        )
    run = run_scoring(
        str(tmp_path / "partial"),
        os.path.join(ROOT, "scoring_program"),
        str(tmp_path / "ref_wine_es"),
        partial,
        python=python,
    )
    assert run.returncode == 1 and run.stderr.count("\n") == 1, run.stderr
    assert "the submission has no file named 'wine_es.csv'" in run.stderr
