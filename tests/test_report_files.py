"""write_report: every file, inside out_dir only, with safe names; the CSVs hold the analysis' numbers."""

import json
import os

import _report_examples as E
import pandas as pd
import pytest

from leaderboard_ci.report.files import _Writer, safe_file_name, write_report

#: The shared report examples (lru-cached analyses and pages) are built once: these modules run on one xdist worker.
pytestmark = pytest.mark.xdist_group("report_examples")


def test_safe_file_name():
    assert safe_file_name("f1_macro_even") == "f1_macro_even"
    assert safe_file_name("../../etc/passwd") == "etc_passwd"
    assert safe_file_name("a b/c\\d") == "a_b_c_d"
    assert safe_file_name("...") == "target"
    assert safe_file_name("figures") == "figures_"  # never the figures folder
    assert safe_file_name("x", taken=["x", "X_2"]) == "x_3"


def test_writer_refuses_paths_outside(tmp_path):
    writer = _Writer(str(tmp_path / "out"))
    for bad in ("../escape.txt", "/etc/x", "a/../../b"):
        with pytest.raises(ValueError, match="outside"):
            writer.text(bad, "x")
    assert not (tmp_path / "escape.txt").exists()


def test_write_report_writes_everything_inside_out_dir(tmp_path):
    result = E.with_groups()
    out = tmp_path / "new" / "report"
    written = result.write(str(out))
    root = os.path.realpath(str(out))
    for relative, path in written.items():
        assert os.path.isfile(path), relative
        assert os.path.commonpath([root, os.path.realpath(path)]) == root
        assert os.path.relpath(path, root).replace(os.sep, "/") == relative
    on_disk = sorted(
        os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/") for d, _, files in os.walk(root) for f in files
    )
    assert on_disk == sorted(written)
    for name in (
        "report.html",
        "report.json",
        "tables.md",
        "tables.tex",
        "indicators.csv",
        "skipped.csv",
        "group_gaps.csv",
    ):
        assert name in written
    for key in result.targets:
        for name in (
            "systems.csv",
            "vs_winner.csv",
            "pairs.csv",
            "pair_matrix.csv",
            "gains.csv",
            "tables.md",
            "tables.tex",
        ):
            assert "%s/%s" % (key, name) in written
        for figure in ("ordered_ci", "vs_winner", "pair_heatmap", "bootstrap_difference"):
            for fmt in ("png", "pdf"):
                assert "figures/%s-%s.%s" % (key, figure, fmt) in written
    with open(written["report.json"], encoding="utf-8") as handle:
        assert json.load(handle) == json.loads(result.to_json())


def test_csv_files_hold_the_dataframes(tmp_path):
    result = E.classification()
    written = write_report(result, str(tmp_path), figures=False)
    assert not any(k.startswith("figures/") for k in written)
    target = result.official
    systems = pd.read_csv(written["f1_macro/systems.csv"])
    assert list(systems["name"]) == list(target.systems["name"])
    assert list(systems["score"]) == list(target.systems["score"])
    pairs = pd.read_csv(written["f1_macro/pairs.csv"], keep_default_na=False)
    assert list(pairs["diff"]) == list(target.pairs["diff"])
    assert list(pairs["stars"]) == list(target.pairs["stars"])
    indicators = pd.read_csv(written["indicators.csv"])
    assert list(indicators.columns) == ["indicator"] + list(result.targets)
    assert indicators.iloc[0].tolist() == ["n", 400, 400]
    skipped = pd.read_csv(written["skipped.csv"])
    assert list(skipped["submission"]) == [s for s, _ in E.SKIPPED]
    with open(written["tables.tex"], encoding="utf-8") as handle:
        tex = handle.read()
    # 4 tables per target (2 targets), the indicators and the per-class F1
    assert tex.count(r"\begin{table}") == tex.count(r"\end{table}") == 2 * 4 + 1 + 1
    units = pd.read_csv(written["units.csv"])
    assert list(units.columns) == ["system", "unit", "precision", "recall", "f1", "predicted"]
    assert list(units["f1"]) == list(result.units["f1"])
    with open(written["f1_macro/tables.md"], encoding="utf-8") as handle:
        assert handle.read().startswith("# macro-F1")
