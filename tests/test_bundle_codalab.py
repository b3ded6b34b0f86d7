"""Legacy CodaLab (competition.yaml v1.5): ``init --platform codalab`` writes a bundle CodaLab's unpacker accepts,
``bundle`` builds and checks it, and the leaderboard columns are read from ``scores.txt`` as CodaLab reads it.

``_unpack_like_codalab`` replays the steps of codalab/codalab-competitions'
``CompetitionDefBundle.unpack`` (codalab/apps/web/models.py) and of ``update_submission`` reading
``scores.txt`` (codalab/apps/web/tasks.py) on the zip: the first ``.yaml`` entry, the pages, the phases'
zips, the leaderboard's column -> leaderboard label lookups, ``start_date`` as Django's ``parse_datetime``
or a YAML timestamp.
"""

import datetime
import io
import os
import re
import zipfile

import pytest
import yaml

from leaderboard_ci.cli.main import main
from leaderboard_ci.tools.bundle import score_one, write_zip
from leaderboard_ci.tools.bundle_check import check_bundle
from leaderboard_ci.tools.bundle_check_codalab import read_scores_txt

CONFIG = "task: scores\nmetric: log_loss\nextra_metrics: [accuracy]\nlabels: [cat, dog, bird]\n"
CONFIG += "bootstrap:\n  n_resamples: 200\n"


def _unpack_like_codalab(path):
    """The spec CodaLab's v1.5 unpacker would build from the zip; raises where it would fail."""
    zf = zipfile.ZipFile(path)
    spec_file = [x for x in zf.namelist() if ".yaml" in x][0]
    assert spec_file == "competition.yaml"
    spec = yaml.full_load(zf.open(spec_file).read())
    for page in ("overview", "evaluation", "terms", "data"):
        zf.read(spec["html"][page]).decode("utf-8")
    zf.read(spec["image"])
    for phase in spec["phases"].values():
        start = phase["start_date"]
        if isinstance(start, str):  # Django's parse_datetime needs a time
            assert re.match(r"^\d{4}-\d{1,2}-\d{1,2}[T ]\d{1,2}:\d{1,2}", start)
        else:
            assert isinstance(start, (datetime.date, datetime.datetime))
        assert phase["reference_data"].endswith(".zip")
        for key in ("scoring_program", "reference_data", "starting_kit", "public_data"):
            zipfile.ZipFile(io.BytesIO(zf.read(phase[key])))
    labels = dict((v["label"].strip(), v["rank"]) for v in spec["leaderboard"]["leaderboards"].values())
    for column in spec["leaderboard"]["columns"].values():
        assert column["leaderboard"]["label"] in labels
        assert column.get("sort", "desc") in ("asc", "desc")
    return spec


@pytest.fixture(scope="module")
def competition(tmp_path_factory):
    base = tmp_path_factory.mktemp("codalab")
    (base / "config.yaml").write_text(CONFIG)
    rows = ["id,label"] + ["x%02d,%s" % (i, ("cat", "dog", "bird")[i % 3]) for i in range(45)]
    (base / "gold.csv").write_text("\n".join(rows) + "\n")
    folder = str(base / "legacy")
    out = io.StringIO()
    code = main(
        [
            "init",
            folder,
            "--gold",
            str(base / "gold.csv"),
            "--config",
            str(base / "config.yaml"),
            "--platform",
            "codalab",
        ],
        out,
    )
    assert code == 0, out.getvalue()
    return folder


@pytest.fixture(scope="module")
def bundle(competition, tmp_path_factory):
    target = str(tmp_path_factory.mktemp("zip") / "legacy.zip")
    out = io.StringIO()
    code = main(["bundle", competition, "--out", target], out)
    assert code == 0 and out.getvalue().rstrip().endswith("0 problems"), out.getvalue()
    return target


def test_init_writes_a_v15_competition_with_html_pages(competition):
    with open(os.path.join(competition, "competition.yaml")) as handle:
        spec = yaml.safe_load(handle)
    assert "version" not in spec and "leaderboards" not in spec
    assert sorted(spec["html"]) == ["data", "evaluation", "overview", "terms"]
    with open(os.path.join(competition, "pages", "evaluation.html")) as handle:
        page = handle.read()
    assert page.startswith("<h1>Evaluation</h1>") and "<code>predictions.csv</code>" in page
    assert "sum to 1 within 1e-06" in page
    columns = spec["leaderboard"]["columns"]
    assert list(columns)[0] == "log_loss" and columns["log_loss"]["selection_default"] == 1
    assert columns["log_loss"]["sort"] == "asc" and columns["accuracy"]["sort"] == "desc"


def test_the_bundle_is_what_codalabs_unpacker_reads(bundle):
    spec = _unpack_like_codalab(bundle)
    assert os.path.getsize(bundle) > 100000  # the program and data zips are inside (not a 738-byte shell)
    assert spec["phases"][1]["scoring_program"] == "scoring_program.zip"


def test_every_column_is_a_scores_txt_line_as_codalab_reads_it(bundle, competition, tmp_path):
    spec = _unpack_like_codalab(bundle)
    run = score_one(
        os.path.join(competition, "sample_submissions", "format_example.zip"),
        str(tmp_path / "run"),
        program=os.path.join(competition, "scoring_program"),
        reference=os.path.join(competition, "reference_data"),
    )
    assert run.returncode == 0, run.stderr
    with open(os.path.join(run.output_dir, "scores.txt")) as handle:
        text = handle.read()
    parsed = {}
    for line in text.split("\n"):  # tasks.py: label, value = line.split(":"); float(value)
        if len(line) > 0:
            label, value = line.split(":")
            parsed[label.strip()] = float(value)
    assert set(spec["leaderboard"]["columns"]) <= set(parsed)
    assert parsed == read_scores_txt(os.path.join(run.output_dir, "scores.txt"))
    assert parsed == pytest.approx(run.scores)


def _mutated(bundle, tmp_path, edit):
    with zipfile.ZipFile(bundle) as archive:
        entries = {n: archive.read(n) for n in archive.namelist()}
    spec = yaml.full_load(entries["competition.yaml"])
    edit(spec)
    entries["competition.yaml"] = yaml.safe_dump(spec, sort_keys=False).encode("utf-8")
    path = str(tmp_path / "broken.zip")
    write_zip(path, entries)
    return path


def _quoted_start(spec):
    spec["phases"][1]["start_date"] = "2026-01-01"


def _rank_by_accuracy(spec):
    columns = spec["leaderboard"]["columns"]
    del columns["log_loss"]["selection_default"]
    columns["accuracy"]["selection_default"] = 1


@pytest.mark.parametrize(
    "edit, where, expected",
    [
        (lambda s: s.update(version=1.5), "competition.yaml", "key 'version' is not a field"),
        (lambda s: s["html"].pop("data"), "html", "'data' page is required"),
        (_quoted_start, "phases.1", "start_date '2026-01-01' is not a date CodaLab reads"),
        (lambda s: s["phases"][1].pop("reference_data"), "phases.1", "has no reference_data"),
        (lambda s: s["phases"][1].update(tasks=[0]), "phases.1", "key 'tasks' is not a field"),
        (
            lambda s: s["leaderboard"]["columns"].update(
                f1_micro={"leaderboard": {"label": "Results", "rank": 1}, "label": "Micro-F1", "rank": 20}
            ),
            "leaderboard.columns.f1_micro",
            "key 'f1_micro' is not one of the",
        ),
        (
            lambda s: s["leaderboard"]["columns"]["accuracy"].update(sort="asc"),
            "leaderboard.columns.accuracy",
            "use sorting: desc",
        ),
        (_rank_by_accuracy, "leaderboard", "give the column 'log_loss' selection_default: 1"),
        (
            lambda s: s["leaderboard"]["columns"]["accuracy"].update(leaderboard={"label": "Other", "rank": 2}),
            "leaderboard.columns.accuracy",
            "must be one of leaderboard.leaderboards",
        ),
    ],
)
def test_the_v15_check_catches_what_codalab_refuses(bundle, tmp_path, edit, where, expected):
    problems = check_bundle(_mutated(bundle, tmp_path, edit), run_program=False)
    assert [p.where for p in problems] == [where], problems
    assert expected in problems[0].message and "\n" not in problems[0].message


def test_the_v15_check_scores_the_submissions_and_reads_scores_txt(bundle, competition, tmp_path):
    samples = [os.path.join(competition, "sample_submissions", "format_example.zip")]
    assert check_bundle(bundle, submissions=samples, workdir=str(tmp_path / "w")) == []
    broken = str(tmp_path / "bad.zip")
    write_zip(broken, {"predictions.csv": b"id,cat,dog,bird\nx00,0.333,0.333,0.333\n"})
    problems = check_bundle(bundle, submissions=[broken], workdir=str(tmp_path / "w2"))
    assert len(problems) == 1 and "exited 1 without scores" in problems[0].message


def test_read_scores_txt_says_what_codalab_would_trip_on(tmp_path):
    path = tmp_path / "scores.txt"
    path.write_text("a: 1.0\nb: 2: 3\n")
    assert read_scores_txt(str(path)) == "scores.txt line 2 has 2 colons; CodaLab splits each line at its one colon"
    path.write_text("a: nan-ish\n")
    assert "not a number" in read_scores_txt(str(path))
    assert "no scores.txt" in read_scores_txt(str(tmp_path / "absent.txt"))


def test_a_hand_written_v15_folder_bundles_its_phase_zips(competition, tmp_path):
    """The issue's case: bundle on a v1.5 competition.yaml used to write a 738-byte zip with false problems."""
    import shutil

    folder = str(tmp_path / "hand")
    shutil.copytree(competition, folder)
    target = str(tmp_path / "hand.zip")
    assert main(["bundle", folder, "--out", target, "--static"], io.StringIO()) == 0
    with zipfile.ZipFile(target) as archive:
        names = set(archive.namelist())
    assert {"scoring_program.zip", "reference_data.zip", "pages/data.html", "logo.png"} <= names


def test_columns_prints_the_v15_columns_of_the_competition(competition):
    out = io.StringIO()
    config = os.path.join(competition, "reference_data", "config.yaml")
    assert main(["columns", config, "--platform", "codalab"], out) == 0
    printed = yaml.safe_load(out.getvalue())["columns"]
    with open(os.path.join(competition, "competition.yaml")) as handle:
        written = yaml.safe_load(handle)["leaderboard"]["columns"]
    assert printed == written
