"""``leaderboard-ci``: init a competition from scikit-learn's diabetes set, build and check its bundle,
score its submissions through the worker emulation, and the one-sentence errors on the way."""

import csv
import io
import os
import shutil
import tempfile
import zipfile

import numpy as np
import pytest
import yaml

from leaderboard_ci.cli.main import main
from leaderboard_ci.tools.bundle import write_zip

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIG = """\
metric: mae
extra_metrics: [rmse]
groups: sex
baseline:
  name: training mean
bootstrap:
  n_resamples: 500
"""


def _write_csv(path, header, rows):
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """gold.csv (id, label, sex), baseline.csv and two models' submissions, from the diabetes set."""
    from sklearn.datasets import load_diabetes
    from sklearn.linear_model import LinearRegression
    from sklearn.model_selection import train_test_split
    from sklearn.neighbors import KNeighborsRegressor

    base = tmp_path_factory.mktemp("inputs")
    data = load_diabetes(as_frame=True)
    x, y = data.data, data.target.to_numpy()
    sex = np.where(x["sex"].to_numpy() > 0, "male", "female")
    train, test = train_test_split(np.arange(len(y)), test_size=0.3, random_state=0)
    ids = ["p%03d" % i for i in test]
    _write_csv(str(base / "gold.csv"), ["id", "label", "sex"], zip(ids, y[test], sex[test]))
    _write_csv(str(base / "baseline.csv"), ["id", "label"], [(i, y[train].mean()) for i in ids])
    (base / "config.yaml").write_text(CONFIG)
    submissions = []
    for name, model in (("linreg", LinearRegression()), ("knn", KNeighborsRegressor(15))):
        predictions = model.fit(x.iloc[train], y[train]).predict(x.iloc[test])
        text = io.StringIO()
        csv.writer(text).writerows([("id", "label")] + list(zip(ids, predictions)))
        path = str(base / (name + ".zip"))
        write_zip(path, {"predictions.csv": text.getvalue().encode()})
        submissions.append(path)
    return base, submissions


def _init(inputs, folder, *extra):
    base, _ = inputs
    out = io.StringIO()
    code = main(
        [
            "init",
            folder,
            "--gold",
            str(base / "gold.csv"),
            "--config",
            str(base / "config.yaml"),
            "--baseline",
            str(base / "baseline.csv"),
            "--title",
            "Diabetes progression",
        ]
        + list(extra),
        out=out,
    )
    return code, out.getvalue()


@pytest.fixture(scope="module")
def competition(inputs, tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("org") / "diabetes")
    code, text = _init(inputs, folder)
    assert code == 0, text
    for path in inputs[1]:
        shutil.copy(path, os.path.join(folder, "sample_submissions"))
    return folder


def _columns(folder):
    with open(os.path.join(folder, "competition.yaml"), "rb") as handle:
        return yaml.safe_load(handle)["leaderboards"][0]["columns"]


def test_init_writes_one_column_per_key_with_the_metrics_direction(competition):
    columns = _columns(competition)
    # 2 metrics x (all, female, male) x (score, CI low, CI high) + the same 6 targets x 4 baseline keys.
    assert len(columns) == 2 * 3 * 3 + 2 * 3 * 4
    by_key = dict((c["key"], c) for c in columns)
    assert by_key["mae"]["sorting"] == "asc" and by_key["rmse_male_ci_high"]["sorting"] == "asc"
    assert by_key["mae_vs_base"]["sorting"] == "desc" and by_key["mae_female_vs_base_p"]["sorting"] == "asc"
    assert all(len(c["title"]) <= 36 and c["precision"] == 4 for c in columns)
    assert [c["index"] for c in columns] == list(range(len(columns)))
    for name in (
        "logo.png",
        "pages/overview.md",
        "pages/evaluation.md",
        "pages/terms.md",
        "reference_data/gold.csv",
        "reference_data/baseline.csv",
        "reference_data/config.yaml",
        "scoring_program/metadata.yaml",
        "scoring_program/score.py",
        "scoring_program/config.yaml",
    ):
        assert os.path.isfile(os.path.join(competition, name)), name
    config = open(os.path.join(competition, "reference_data", "config.yaml"), encoding="utf-8").read()
    assert config.count("baseline:") == 1  # merged, not a second key that YAML would read silently
    assert yaml.safe_load(config)["baseline"] == {"name": "training mean", "file": "baseline.csv"}
    evaluation = open(os.path.join(competition, "pages", "evaluation.md"), encoding="utf-8").read()
    assert "95% confidence interval" in evaluation and "positive means better than the baseline" in evaluation


def test_bundle_passes_the_check_and_scores_every_submission(competition, tmp_path):
    out = io.StringIO()
    target = str(tmp_path / "bundle.zip")
    assert main(["bundle", competition, "--out", target], out=out) == 0, out.getvalue()
    text = out.getvalue()
    # the two models, the baseline and the format example init writes
    assert "scoring 4 submissions with its program" in text and text.rstrip().endswith("0 problems")
    with zipfile.ZipFile(target) as archive:
        assert {"competition.yaml", "scoring_program.zip", "reference_data.zip", "logo.png"} <= set(archive.namelist())
        program = zipfile.ZipFile(io.BytesIO(archive.read("scoring_program.zip")))
        assert b"metric: mae" in program.read("config.yaml")  # the competition's own program and config


@pytest.mark.image
@pytest.mark.skipif(not os.environ.get("LEADERBOARD_CI_PY37"), reason="LEADERBOARD_CI_PY37 is not set")
def test_bundle_passes_in_the_py37_image(competition, tmp_path):
    out = io.StringIO()
    code = main(
        ["bundle", competition, "--out", str(tmp_path / "b.zip"), "--python", os.environ["LEADERBOARD_CI_PY37"]],
        out=out,
    )
    assert code == 0, out.getvalue()


def test_a_wrong_sorting_fails_the_check_in_one_sentence(competition, tmp_path):
    folder = str(tmp_path / "wrong")
    shutil.copytree(competition, folder)
    path = os.path.join(folder, "competition.yaml")
    text = open(path, encoding="utf-8").read()
    head, sep, tail = text.partition("  key: mae\n")
    assert sep
    tail = tail.replace("sorting: asc", "sorting: desc", 1)  # the MAE column: the worst would rank first
    open(path, "w", encoding="utf-8").write(head + sep + tail)
    out = io.StringIO()
    assert main(["bundle", folder, "--out", str(tmp_path / "wrong.zip"), "--static"], out=out) == 1
    problems = [line for line in out.getvalue().splitlines() if line.strip().startswith("PROBLEM")]
    assert problems == [
        "  PROBLEM leaderboards[0].columns[0]: key 'mae' sorts desc (highest first) but for MAE "
        "lower is better, so the leaderboard would rank the worst submission first; use sorting: asc"
    ]


@pytest.mark.parametrize(
    "args, message",
    [
        (["bundle", "no/such/folder"], "error: the competition folder no/such/folder does not exist\n"),
        (["bundle", "--check", "no/such.zip"], "error: the bundle no/such.zip does not exist\n"),
    ],
)
def test_bad_paths_are_one_sentence(args, message):
    out = io.StringIO()
    assert main(args, out=out) == 2
    assert out.getvalue() == message


def test_a_folder_without_competition_yaml_is_one_sentence(tmp_path):
    out = io.StringIO()
    assert main(["bundle", str(tmp_path)], out=out) == 2
    assert out.getvalue() == (
        "error: %s has no competition.yaml at its root; leaderboard-ci init DIR writes a "
        "complete competition folder\n" % tmp_path
    )


def test_init_refuses_a_bad_config_in_one_sentence(inputs, tmp_path):
    base, _ = inputs
    bad = tmp_path / "config.yaml"
    bad.write_text("metric: mae\ngroups: region\n")
    out = io.StringIO()
    assert main(["init", str(tmp_path / "c"), "--gold", str(base / "gold.csv"), "--config", str(bad)], out=out) == 2
    text = out.getvalue()
    assert text.startswith("error: ") and text.count("\n") == 1 and "region" in text
    assert not os.path.exists(str(tmp_path / "c"))  # nothing half-written


def test_columns_prints_what_init_wrote(competition):
    out = io.StringIO()
    assert main(["columns", os.path.join(competition, "reference_data", "config.yaml")], out=out) == 0
    printed = yaml.safe_load(out.getvalue())["columns"]
    assert printed == _columns(competition)


def test_outputs_section_chooses_the_columns(inputs, tmp_path):
    base, _ = inputs
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG + "outputs:\n  ci: false\n  groups: false\n  baseline: official\n")
    out = io.StringIO()
    assert (
        main(
            [
                "init",
                str(tmp_path / "c"),
                "--gold",
                str(base / "gold.csv"),
                "--config",
                str(config),
                "--baseline",
                str(base / "baseline.csv"),
            ],
            out=out,
        )
        == 0
    )
    assert [c["key"] for c in _columns(str(tmp_path / "c"))] == [
        "mae",
        "rmse",
        "mae_vs_base",
        "mae_vs_base_ci_low",
        "mae_vs_base_ci_high",
        "mae_vs_base_p",
    ]


def test_score_names_its_sources_and_leaves_nothing_behind(competition, inputs, monkeypatch, tmp_path):
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    out = io.StringIO()
    assert main(["score", inputs[1][0], "--competition-dir", competition], out=out) == 0
    text = out.getvalue()
    assert "reference data:   %s" % os.path.join(competition, "reference_data") in text
    assert "columns compared: %s" % os.path.join(competition, "competition.yaml") in text
    assert "MISSING" not in text and "mae_female_vs_base_p" in text
    assert os.listdir(str(temp)) == []
    out = io.StringIO()
    assert (
        main(
            [
                "score",
                inputs[1][0],
                "--reference",
                os.path.join(competition, "reference_data"),
                "--competition",
                "none",
            ],
            out=out,
        )
        == 0
    )
    assert "columns compared: none (--competition none)" in out.getvalue()
    assert os.listdir(str(temp)) == []
    keep = str(tmp_path / "kept")
    assert main(["score", inputs[1][0], "--competition-dir", competition, "--keep", keep], out=io.StringIO()) == 0
    assert os.path.isfile(os.path.join(keep, "output", "detailed_results.html"))


def test_score_outside_the_sample_requires_the_reference(inputs):
    out = io.StringIO()
    assert main(["score", inputs[1][0]], out=out) == 2
    assert out.getvalue().startswith("error: give --competition-dir DIR") and out.getvalue().count("\n") == 1


def test_the_console_script_is_declared():
    text = open(os.path.join(REPO, "setup.cfg"), encoding="utf-8").read()
    assert "leaderboard-ci = leaderboard_ci.cli.main:main" in text


def test_end_of_phase_and_compare_are_subcommands(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["end-of-phase", "--help"])
    assert stop.value.code == 0 and "--submissions" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:
        main(["compare", "--help"])
    assert stop.value.code == 0 and "report" in capsys.readouterr().out
