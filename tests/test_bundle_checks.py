"""The bundle check's organizer checks: the primary column is the official metric, public_data sits on a phase,
and ``leaderboard-ci bundle`` leaves no zip behind when the check fails."""

import io
import os

import pytest
import yaml
from test_bundle import mutate

from leaderboard_ci.cli.main import main
from leaderboard_ci.tools.bundle import build_bundle
from leaderboard_ci.tools.bundle_check import check_bundle


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("bundle") / "bundle.zip")
    build_bundle(path)
    return path


def test_a_primary_column_that_is_not_the_official_metric_is_a_problem(bundle, tmp_path):
    def rank_by_accuracy(c):
        columns = c["leaderboards"][0]["columns"]
        c["leaderboards"][0]["primary_index"] = next(col["index"] for col in columns if col["key"] == "accuracy")

    problems = check_bundle(mutate(bundle, tmp_path / "b.zip", edit_yaml=rank_by_accuracy), run_program=False)
    assert [p.where for p in problems] == ["leaderboards[0]"]
    text = problems[0].message
    assert "key 'accuracy'" in text and "official metric 'f1_macro'" in text and "set primary_index: 0" in text
    assert "different winners" in text and "\n" not in text


def test_the_shipped_primary_column_is_the_official_metric(bundle):
    assert check_bundle(bundle, run_program=False) == []


@pytest.mark.parametrize("key", ["public_data", "starting_kit"])
def test_public_data_under_a_task_says_where_it_belongs(bundle, tmp_path, key):
    def misplace(c):
        c["tasks"][0][key] = "pages/terms.md"

    problems = check_bundle(mutate(bundle, tmp_path / "b.zip", edit_yaml=misplace), run_program=False)
    assert [p.where for p in problems] == ["tasks[0]"]
    assert "%s belongs to a phase, not to a task" % key in problems[0].message
    assert "phases[...].%s" % key in problems[0].message


def test_bundle_removes_the_zip_when_the_check_fails(tmp_path):
    """A zip that failed its check is not left where it could be uploaded."""
    import shutil

    from leaderboard_ci.tools.bundle import BUNDLE_DIR

    folder = str(tmp_path / "comp")
    shutil.copytree(BUNDLE_DIR, folder)
    path = os.path.join(folder, "competition.yaml")
    with open(path) as handle:
        competition = yaml.safe_load(handle)
    competition["leaderboards"][0]["columns"][0]["sorting"] = "asc"
    with open(path, "w") as handle:
        yaml.safe_dump(competition, handle, sort_keys=False)
    target = str(tmp_path / "out.zip")
    out = io.StringIO()
    assert main(["bundle", folder, "--out", target, "--static"], out) == 1
    assert not os.path.exists(target)
    assert "removed %s" % target in out.getvalue()
    # --no-check keeps it; --check on an existing zip never removes it.
    assert main(["bundle", folder, "--out", target, "--no-check"], io.StringIO()) == 0
    assert main(["bundle", "--check", target, "--static"], io.StringIO()) == 1
    assert os.path.exists(target)
