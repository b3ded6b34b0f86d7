"""leaderboard-ci-compare: the indicators of several reports side by side; clear errors for bad files."""

import json
import os
import subprocess
import sys

import _report_examples as E
import pandas as pd
import pytest

from leaderboard_ci.cli.compare import main, make_parser
from leaderboard_ci.report.compare import OUTPUT_NAMES, comparison_frame, default_name
from leaderboard_ci.report.tables import indicators_table

#: The shared report examples (lru-cached analyses and pages) are built once: these modules run on one xdist worker.
pytestmark = pytest.mark.xdist_group("report_examples")

PROGRAM = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scoring_program")
#: The console script's main, run from this checkout (not from whatever is installed).
COMMAND = [sys.executable, "-m", "leaderboard_ci.cli.compare"]
ENV = dict(os.environ, PYTHONPATH=PROGRAM + os.pathsep + os.environ.get("PYTHONPATH", ""))


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    folder = tmp_path_factory.mktemp("reports")
    paths = []
    for name in ("classification", "groups", "regression"):
        os.makedirs(str(folder / name))
        path = str(folder / name / "report.json")
        E.ALL[name]().to_json(path)
        paths.append(path)
    return paths


def test_default_name():
    assert default_name("out/task1/report.json") == "task1"
    assert default_name("runs/english.json") == "english"


def test_comparison_frame_puts_every_target_side_by_side(reports):
    loaded = [json.load(open(p, encoding="utf-8")) for p in reports]
    frame = comparison_frame(loaded, ["C", "G", "R"])
    assert list(frame.columns) == [
        "C: macro-F1",
        "C: accuracy",
        "G: macro-F1",
        "G: macro-F1 [en]",
        "G: macro-F1 [es<&>]",
        "R: MAE",
        "R: Pearson r",
    ]
    own = indicators_table(E.regression())
    assert frame["R: MAE"].tolist() == own["mae"].tolist()  # same rows, same values as the report's own table
    assert list(frame.index) == list(own.index)
    official = comparison_frame(loaded, ["C", "G", "R"], official_only=True)
    assert list(official.columns) == ["C", "G", "R"]
    assert official.loc["m"].tolist() == [5, 4, 5]
    with pytest.raises(ValueError):
        comparison_frame(loaded, ["only one"])


def test_duplicate_names_get_numbered(reports):
    loaded = [json.load(open(reports[0], encoding="utf-8"))] * 2
    assert list(comparison_frame(loaded, ["A", "A"], official_only=True).columns) == ["A", "A (2)"]


def test_main_writes_csv_markdown_and_latex(reports, tmp_path, capsys):
    out = tmp_path / "cmp"
    assert main(reports + ["--out", str(out), "--names", "Cls,Grp,Reg", "--official-only"]) == 0
    printed = capsys.readouterr().out.split()
    assert [os.path.basename(p) for p in printed] == list(OUTPUT_NAMES)
    csv = pd.read_csv(str(out / "comparison.csv"))
    assert list(csv.columns) == ["indicator", "Cls", "Grp", "Reg"]
    assert csv["indicator"].iloc[0] == "n" and csv["indicator"].iloc[-1] == "PPI"
    md = (out / "comparison.md").read_text(encoding="utf-8")
    assert "| Indicator | Cls | Grp | Reg |" in md
    tex = (out / "comparison.tex").read_text(encoding="utf-8")
    assert r"\toprule" in tex and r"\label{tab:competitions}" in tex
    assert "\u2013" not in csv.to_string()


def _run(argv, capsys):
    code = main(argv)
    err = capsys.readouterr().err
    return code, err


def test_bad_report_files_give_one_line_errors(reports, tmp_path, capsys):
    bad_json = tmp_path / "bad.json"
    bad_json.write_text("{not json", encoding="utf-8")
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"schema_version": "99.0", "metrics": {}}), encoding="utf-8")
    cases = [
        (str(tmp_path / "missing.json"), "no such file"),
        (str(bad_json), "is not a JSON file"),
        (str(wrong), "schema_version '99.0'"),
    ]
    for path, message in cases:
        code, err = _run([reports[0], path, "--out", str(tmp_path / "o")], capsys)
        assert code == 1
        assert err.count("\n") == 1 and message in err and err.startswith("leaderboard-ci-compare: error: ")
    assert not (tmp_path / "o").exists()  # nothing written on error


def test_usage_errors(reports, tmp_path, capsys):
    code, err = _run(reports + ["--out", str(tmp_path / "o"), "--names", "A,B"], capsys)
    assert code == 2 and "2 names for 3 reports" in err
    afile = tmp_path / "file"
    afile.write_text("x", encoding="utf-8")
    code, err = _run(reports[:1] + ["--out", str(afile)], capsys)
    assert code == 2 and "is a file" in err
    with pytest.raises(SystemExit):
        make_parser().parse_args(["r.json"])  # --out is required


def test_module_runs(reports, tmp_path):
    run = subprocess.run(
        COMMAND + [reports[0], "--out", str(tmp_path / "s")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "s" / "comparison.md").is_file()
    run = subprocess.run(
        COMMAND + [str(tmp_path / "nope.json"), "--out", str(tmp_path / "s")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
        timeout=120,
    )
    assert run.returncode == 1 and b"no such file" in run.stderr
