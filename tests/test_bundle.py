"""The Codabench bundle: built deterministically, and the checker catches what Codabench rejects."""

import io
import os
import zipfile

import pytest
import yaml

from leaderboard_ci.cli import main as cli
from leaderboard_ci.tools.bundle import BUNDLE_DIR, sample_submissions, write_zip, zip_bytes
from leaderboard_ci.tools.bundle import build_bundle as build
from leaderboard_ci.tools.bundle_check import check_bundle


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("bundle") / "bundle.zip")
    build(path)
    return path


def read_entries(path):
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def mutate(src, dst, edit_yaml=None, remove=(), replace=None):
    """A copy of the bundle ``src`` with its competition.yaml edited / entries removed or replaced."""
    entries = read_entries(src)
    if edit_yaml is not None:
        competition = yaml.safe_load(entries["competition.yaml"])
        edit_yaml(competition)
        entries["competition.yaml"] = yaml.safe_dump(competition, sort_keys=False).encode("utf-8")
    for name in remove:
        del entries[name]
    entries.update(replace or {})
    write_zip(str(dst), entries)
    return str(dst)


def messages(problems):
    return "\n".join(str(p) for p in problems)


# ---------------------------------------------------------------------------
# The shipped bundle
# ---------------------------------------------------------------------------
def test_bundle_layout(bundle):
    entries = read_entries(bundle)
    assert "competition.yaml" in entries  # at the root: unpack_competition looks nowhere else
    competition = yaml.safe_load(entries["competition.yaml"])
    assert competition["version"] == 2
    for name in (
        "logo.png",
        "pages/overview.md",
        "pages/evaluation.md",
        "pages/data.md",
        "pages/terms.md",
        "scoring_program.zip",
        "reference_data.zip",
        "public_data.zip",
        "starting_kit.zip",
    ):
        assert name in entries, name
    program = zipfile.ZipFile(io.BytesIO(entries["scoring_program.zip"])).namelist()
    assert "metadata.yaml" in program and "score.py" in program and "config.yaml" in program
    assert "leaderboard_ci/scoring/codabench.py" in program
    # Only the per-submission path: no end-of-phase, report or tools code in the drop-in.
    packages = set(n.split("/")[1] for n in program if n.startswith("leaderboard_ci/") and n.count("/") >= 2)
    assert packages == {"core", "tasks", "scoring"}, packages
    assert not [n for n in program if "__pycache__" in n or n.endswith(".pyc") or "egg-info" in n]
    reference = zipfile.ZipFile(io.BytesIO(entries["reference_data.zip"])).namelist()
    assert sorted(reference) == ["baseline.csv", "config.yaml", "gold.csv"]
    kit = zipfile.ZipFile(io.BytesIO(entries["starting_kit.zip"])).namelist()
    # The sample submissions predict the gold labels well: only the baseline may be given out.
    assert "example_submission.zip" in kit and not [n for n in kit if "svm" in n or "knn" in n]


def test_bundle_bytes_are_deterministic(bundle, tmp_path):
    again = str(tmp_path / "again.zip")
    build(again)
    with open(bundle, "rb") as a, open(again, "rb") as b:
        assert a.read() == b.read()


def test_leaderboard_follows_codabench_rules():
    with open(os.path.join(BUNDLE_DIR, "competition.yaml"), "rb") as handle:
        competition = yaml.safe_load(handle)
    (board,) = competition["leaderboards"]
    columns = board["columns"]
    keys = [c["key"] for c in columns]
    assert keys[board["primary_index"]] == "f1_macro"
    assert len(set(keys)) == len(keys) and len(set(c["index"] for c in columns)) == len(columns)
    for column in columns:
        assert len(column["key"]) <= 36 and len(column["title"]) <= 36
        assert column["precision"] == 4
        assert column["sorting"] == ("asc" if column["key"].endswith("_p") else "desc")
    for key in (
        "f1_macro",
        "f1_macro_ci_low",
        "f1_macro_ci_high",
        "accuracy",
        "accuracy_ci_low",
        "accuracy_ci_high",
        "f1_macro_vs_base",
        "f1_macro_vs_base_ci_low",
        "f1_macro_vs_base_ci_high",
        "f1_macro_vs_base_p",
    ):
        assert key in keys


def test_checker_static_passes(bundle):
    assert messages(check_bundle(bundle, run_program=False)) == ""


def test_checker_passes_with_the_shipped_program_and_config(bundle, tmp_path):
    """Scores every sample submission with the bundle's own program and B=10,000 config."""
    assert len(sample_submissions()) >= 7
    assert messages(check_bundle(bundle, workdir=str(tmp_path / "work"))) == ""


def test_build_bundle_cli(tmp_path, capsys):
    out = str(tmp_path / "dist" / "bundle.zip")
    assert cli.main(["bundle", "--out", out, "--static"]) == 0
    assert "0 problems" in capsys.readouterr().out
    assert cli.main(["bundle", "--check", out, "--static"]) == 0
    broken = mutate(out, tmp_path / "broken.zip", remove=["pages/data.md"])
    assert cli.main(["bundle", "--check", broken, "--static"]) == 1
    assert "pages/data.md" in capsys.readouterr().out


# ---------------------------------------------------------------------------
# The checker catches injected problems
# ---------------------------------------------------------------------------
def _columns(c):
    return c["leaderboards"][0]["columns"]


def _dup_key(c):
    _columns(c)[1]["key"] = _columns(c)[0]["key"]


def _long_key(c):
    _columns(c)[3]["key"] = "a" * 40


def _long_title(c):
    _columns(c)[3]["title"] = "T" * 37


def _dup_index(c):
    _columns(c)[2]["index"] = _columns(c)[1]["index"]


def _bad_sorting(c):
    _columns(c)[0]["sorting"] = "descending"


def _bad_primary(c):
    c["leaderboards"][0]["primary_index"] = 42


def _no_columns(c):
    c["leaderboards"][0]["columns"] = []


def _no_leaderboards(c):
    del c["leaderboards"]


def _version_1(c):
    c["version"] = 1


def _no_image(c):
    del c["image"]


def _no_terms(c):
    del c["terms"]


def _phase_bad_task(c):
    c["phases"][0]["tasks"] = [3]


def _phase_no_start(c):
    del c["phases"][0]["start"]


def _phase_order(c):
    second = dict(c["phases"][0], index=1, name="Final", start="2024-06-01 00:00:00")
    c["phases"][0]["end"] = "2025-06-01 00:00:00"
    c["phases"].append(second)


def _phase_no_end_before_next(c):
    c["phases"].append(dict(c["phases"][0], index=1, name="Final", start="2030-01-01 00:00:00"))


def _task_no_program(c):
    del c["tasks"][0]["scoring_program"]


def _task_no_index(c):
    del c["tasks"][0]["index"]


def _task_missing_file(c):
    c["tasks"][0]["reference_data"] = "missing_reference.zip"


@pytest.mark.parametrize(
    "edit, expected",
    [
        (_dup_key, "unique keys"),
        (_long_key, "40 characters"),
        (_long_title, "37 characters"),
        (_dup_index, "unique indexes"),
        (_bad_sorting, "sorting"),
        (_bad_primary, "primary_index"),
        (_no_columns, "at least 1 column"),
        (_no_leaderboards, "leaderboards"),
        (_version_1, "version must be 2"),
        (_no_image, "'image'"),
        (_no_terms, "'terms'"),
        (_phase_bad_task, "task index 3"),
        (_phase_no_start, "'start'"),
        (_phase_order, "before or when"),
        (_phase_no_end_before_next, "must have an end"),
        (_task_no_program, "scoring_program"),
        (_task_no_index, "no 'index'"),
        (_task_missing_file, "missing_reference.zip"),
    ],
)
def test_checker_catches_yaml_problems(bundle, tmp_path, edit, expected):
    broken = mutate(bundle, tmp_path / "broken.zip", edit_yaml=edit)
    problems = check_bundle(broken, run_program=False)
    assert problems, "the checker missed: %s" % edit.__name__
    assert expected in messages(problems)


def test_checker_catches_missing_page(bundle, tmp_path):
    broken = mutate(bundle, tmp_path / "broken.zip", remove=["pages/evaluation.md"])
    assert "pages/evaluation.md" in messages(check_bundle(broken, run_program=False))


def test_checker_catches_empty_page(bundle, tmp_path):
    broken = mutate(bundle, tmp_path / "broken.zip", replace={"pages/terms.md": b""})
    assert "empty" in messages(check_bundle(broken, run_program=False))


def test_checker_catches_missing_logo(bundle, tmp_path):
    broken = mutate(bundle, tmp_path / "broken.zip", remove=["logo.png"])
    assert "logo.png" in messages(check_bundle(broken, run_program=False))


def test_checker_catches_yaml_not_at_root(bundle, tmp_path):
    entries = {"sample/" + name: data for name, data in read_entries(bundle).items()}
    broken = str(tmp_path / "nested.zip")
    write_zip(broken, entries)
    text = messages(check_bundle(broken, run_program=False))
    assert "competition.yaml is missing from the zip's root" in text and "sample/competition.yaml" in text


def test_checker_catches_metadata_not_at_program_root(bundle, tmp_path):
    program = zipfile.ZipFile(io.BytesIO(read_entries(bundle)["scoring_program.zip"]))
    nested = zip_bytes({"scoring_program/" + n: program.read(n) for n in program.namelist()})
    broken = mutate(bundle, tmp_path / "broken.zip", replace={"scoring_program.zip": nested})
    text = messages(check_bundle(broken, run_program=False))
    assert "no metadata.yaml at its root" in text and "scoring_program/metadata.yaml" in text


def test_checker_catches_metadata_without_command(bundle, tmp_path):
    program = zipfile.ZipFile(io.BytesIO(read_entries(bundle)["scoring_program.zip"]))
    entries = {n: program.read(n) for n in program.namelist()}
    entries["metadata.yaml"] = b"description: no command here\n"
    broken = mutate(bundle, tmp_path / "broken.zip", replace={"scoring_program.zip": zip_bytes(entries)})
    assert "has no 'command'" in messages(check_bundle(broken, run_program=False))


def test_checker_catches_a_column_the_program_never_writes(bundle, tmp_path):
    def add_column(c):
        _columns(c).append({"title": "Micro-F1", "key": "f1_micro", "index": 10, "sorting": "desc", "precision": 4})

    broken = mutate(bundle, tmp_path / "broken.zip", edit_yaml=add_column)
    # Known from the bundle's own config, before any run, and said once (not once per submission).
    problems = check_bundle(broken, run_program=False)
    assert [p.where for p in problems] == ["leaderboards[0].columns[10]"]
    assert "key 'f1_micro' is not one of the 14 keys the scoring program writes" in problems[0].message
    two = [os.path.join(BUNDLE_DIR, "sample_submissions", n) for n in ("knn.zip", "shallow_tree.zip")]
    assert len(check_bundle(broken, submissions=two, workdir=str(tmp_path / "work"))) == 1


def test_checker_catches_a_sorting_against_the_metrics_direction(bundle, tmp_path):
    def flip(c):
        _columns(c)[0]["sorting"] = "asc"  # macro-F1, higher is better
        _columns(c)[9]["sorting"] = "desc"  # the p-value

    broken = mutate(bundle, tmp_path / "broken.zip", edit_yaml=flip)
    problems = check_bundle(broken, run_program=False)
    assert [p.where for p in problems] == ["leaderboards[0].columns[0]", "leaderboards[0].columns[9]"]
    assert str(problems[0]) == (
        "leaderboards[0].columns[0]: key 'f1_macro' sorts asc (lowest first) but "
        "for macro-F1 higher is better, so the leaderboard would rank the worst "
        "submission first; use sorting: desc"
    )
    assert all(str(p).count(". ") == 0 and "\n" not in str(p) for p in problems)  # one sentence each


def test_checker_rejects_a_non_zip(tmp_path):
    path = tmp_path / "bundle.zip"
    path.write_bytes(b"not a zip")
    assert "not a readable zip" in messages(check_bundle(str(path)))
