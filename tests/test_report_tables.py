"""Tables: LaTeX escaping and booktabs structure, Markdown, CSV, indicator order, pair matrix orientation."""

import io
import re
import shutil
import subprocess

import _report_examples as E
import pandas as pd
import pytest

from leaderboard_ci.report.formatting import p_phrase
from leaderboard_ci.report.json_report import sides_of
from leaderboard_ci.report.tables import (
    Table,
    format_ci,
    format_number,
    format_p,
    gains_table,
    group_gaps_table,
    indicator_rows,
    indicators_table,
    latex_escape,
    markdown_escape,
    pair_matrix_table,
    result_tables,
    systems_table,
    tables_latex,
    tables_markdown,
    target_tables,
    vs_winner_table,
)
from leaderboard_ci.report.verdicts import DIRECTION_MARK

#: The shared report examples (lru-cached analyses and pages) are built once: these modules run on one xdist worker.
pytestmark = pytest.mark.xdist_group("report_examples")

TABLE6_ORDER = [
    "n",
    "m",
    "ties with the winner (none)",
    "ties with the winner (max-t)",
    "ties with the winner (Holm)",
    "ties with the winner (Bonferroni)",
    "ties with the winner (BH)",
    "possible comparisons",
    "non-significant pairs (none)",
    "non-significant pairs (max-t)",
    "non-significant pairs (Holm)",
    "non-significant pairs (Bonferroni)",
    "non-significant pairs (BH)",
    "|winner \u2212 median|",
    "CV (%)",
    "PPI",
]


# ---------------------------------------------------------------------------
# Escaping and number formats
# ---------------------------------------------------------------------------
def test_latex_escape_of_the_special_characters():
    assert latex_escape("a_b & c%") == r"a\_b \& c\%"
    assert latex_escape("#$") == r"\#\$"
    assert latex_escape("{x}") == r"\{x\}"
    assert latex_escape("~^") == r"\textasciitilde{}\textasciicircum{}"
    assert latex_escape("a\\b") == r"a\textbackslash{}b"  # the backslash is not escaped twice
    assert latex_escape("\u2020") == r"$\dagger$"
    assert latex_escape("<|>") == r"\textless{}\textbar{}\textgreater{}"
    assert latex_escape("plain text 1.5") == "plain text 1.5"


def test_markdown_escape():
    assert markdown_escape("a_b & c%") == r"a\_b \& c%"
    assert markdown_escape("x|y*z") == r"x\|y\*z"
    assert markdown_escape("<b>\nx") == r"\<b\> x"


def test_number_formats():
    assert format_number(0.991237, 4) == "0.9912"
    assert format_number(-0.00001, 4) == "0.0000"  # never "-0.0000"
    assert format_number(float("nan")) == "\u2013" and format_number(None) == "\u2013"
    assert format_number(1.5, 2, signed=True) == "+1.50"
    assert format_p(0.0004) == "<0.001"
    assert p_phrase(0.0004) == "p < 0.001" and p_phrase(0.0123) == "p = 0.012"  # never "p = <0.001"
    assert format_p(0.001) == "0.001"
    assert format_p(0.04997) == "0.04997"  # "0.050" would sit on the threshold it is below
    assert format_p(None) == "\u2013"
    assert format_ci(-0.0012, 0.0205) == "[-0.0012, 0.0205]"


# ---------------------------------------------------------------------------
# LaTeX
# ---------------------------------------------------------------------------
def _rows_of(latex):
    body = latex.split("\\midrule\n", 1)[1].split("\\bottomrule", 1)[0]
    return [line for line in body.splitlines() if line.strip()]


def test_latex_is_booktabs_with_caption_and_label():
    table = systems_table(E.classification(), E.classification().official)
    latex = table.to_latex()
    positions = [
        latex.index(s)
        for s in (
            r"\begin{table}",
            r"\caption{",
            r"\label{tab:f1-macro-systems}",
            r"\begin{tabular}{rlrrrrll}",
            r"\toprule",
            r"\midrule",
            r"\bottomrule",
            r"\end{tabular}",
            r"\end{table}",
        )
    ]
    assert positions == sorted(positions)
    assert r"\hline" not in latex
    assert latex.count(r"\toprule") == latex.count(r"\midrule") == latex.count(r"\bottomrule") == 1
    rows = _rows_of(latex)
    assert len(rows) == len(table.rows) == 5
    for row in rows:  # an escaped \& is not a column separator
        assert row.endswith(r"\\")
        assert len(re.findall(r"(?<!\\)&", row)) == len(table.header) - 1


def test_latex_escapes_system_names_in_every_table():
    result = E.classification()
    latex = tables_latex(result_tables(result))
    assert r"a\_b \& c\%" in latex
    assert r"\textless{}script\textgreater{}" in latex
    assert r"tab$\dagger$ \#1 \$x\$ \{y\} \textasciitilde{}z\textasciicircum{} \textbackslash{}s" in latex
    assert "a_b & c%" not in latex
    assert "<script>" not in latex


def test_latex_numbers_p_values_and_stars():
    result = E.classification()
    latex = vs_winner_table(result, result.targets["accuracy"]).to_latex()
    assert "p (McNemar)" in latex and "$<$0.001" in latex  # McNemar's p-values reach below 0.001
    assert "$-$0.00" in latex  # the runner-up's interval starts below 0
    assert r"$\dagger$" in latex  # the runner-up's stars
    caption = re.search(r"\\caption\{(.*)\}", latex).group(1)
    assert r"$\dagger$ p\textless{}.1" in caption
    assert ("two-sided" in caption) == (sides_of(result) == "two")
    one = E.one_sided()
    assert "one-sided (H1: the better-ranked system is better)" in vs_winner_table(one, one.official).caption


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_latex_compiles(tmp_path):
    body = tables_latex(result_tables(E.classification())) + tables_latex(result_tables(E.many_systems()))
    (tmp_path / "body.tex").write_text(body, encoding="utf-8")
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n"
        "\\begin{document}\n\\input{body}\n\\end{document}\n",
        encoding="utf-8",
    )
    run = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
        cwd=str(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout.decode("utf-8", "replace")[-2000:]
    assert (tmp_path / "doc.pdf").stat().st_size > 1000


def test_wide_tables_are_resized_and_matrices_numbered():
    result = E.many_systems()
    matrix = pair_matrix_table(result, result.official)
    assert matrix.header[1:4] == ["(1)", "(2)", "(3)"]
    assert matrix.rows[0][0].startswith("(2) ")
    assert r"\resizebox{\linewidth}{!}{%" in matrix.to_latex()
    assert "Column (k)" in matrix.notes[0]
    small = pair_matrix_table(E.two_systems(), E.two_systems().official)  # one cell
    assert r"\resizebox" not in small.to_latex()


# ---------------------------------------------------------------------------
# Markdown and CSV
# ---------------------------------------------------------------------------
def test_markdown_tables_are_github_tables():
    result = E.classification()
    for table in target_tables(result, result.official):
        text = table.to_markdown()
        lines = [l for l in text.splitlines() if l.startswith("|")]
        width = len(table.header)
        assert re.fullmatch(r"\|(:---|---:)(\|(:---|---:))*\|", lines[1])
        for line in lines:
            assert len(re.findall(r"(?<!\\)\|", line)) == width + 1, line
        assert len(lines) == len(table.rows) + 2
    md = tables_markdown(result_tables(result))
    assert r"a\_b \& c%" in md
    assert 'O\'Brien "q" \\| pipe' in md  # the pipe escaped, the quotes kept
    assert "<script>" not in md


def test_csv_has_the_raw_numbers():
    result = E.classification()
    table = systems_table(result, result.official)
    back = pd.read_csv(io.StringIO(table.to_csv()))
    assert list(back["name"]) == list(result.official.systems["name"])
    assert list(back["score"]) == list(result.official.systems["score"])  # full precision


def test_table_rejects_ragged_rows():
    with pytest.raises(ValueError):
        Table("x", ["a", "b"], [["1"]], ["text", "num"])


# ---------------------------------------------------------------------------
# Indicators
# ---------------------------------------------------------------------------
def test_indicator_rows_follow_table_6():
    result = E.classification()
    frame = indicators_table(result)
    assert list(frame.index) == TABLE6_ORDER
    assert list(frame.columns) == list(result.targets)
    assert frame.equals(result.indicators_frame())
    for key, target in result.targets.items():
        ind = target.indicators
        assert frame.loc["n", key] == ind["n"] and isinstance(frame.loc["n", key], int)
        assert frame.loc["ties with the winner (Holm)", key] == ind["ties_with_winner"]["holm"]
        assert frame.loc["non-significant pairs (BH)", key] == ind["non_significant_pairs"]["fdr_bh"]
        assert frame.loc["possible comparisons", key] == ind["possible_comparisons"]
        assert frame.loc["CV (%)", key] == ind["cv"]
        assert frame.loc["PPI", key] == ind["ppi"]


def test_indicator_rows_with_other_corrections_and_missing_values():
    frame = indicator_rows(
        {
            "x": {
                "n": 10,
                "m": 2,
                "ties_with_winner": {"none": 1, "sidak": 1},
                "non_significant_pairs": {"none": 1, "sidak": 1},
                "ppi": None,
                "cv": float("nan"),
            }
        }
    )
    assert "ties with the winner (Sidak)" in frame.index  # statsmodels' own name
    assert frame.loc["PPI", "x"] is None and frame.loc["CV (%)", "x"] is None


# ---------------------------------------------------------------------------
# Pair matrix
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("example", [E.classification, E.regression])
def test_pair_matrix_reads_column_minus_row(example):
    result = example()
    target = result.official
    table = pair_matrix_table(result, target, digits=6)
    names = list(target.systems["name"])
    scores = dict(zip(target.systems["name"], target.systems["score"]))
    sign = target.metric.sign
    assert table.header[1:] == names[:-1]  # columns: best first, the last system has no column
    assert [r[0] for r in table.rows] == names[1:]  # rows: the winner has no row
    for i, row in enumerate(table.rows, start=1):
        for j, cell in enumerate(row[1:]):
            if j >= i:
                assert cell == ""  # upper triangle empty
                continue
            value = float(cell.split()[0])
            expected = sign * (scores[names[j]] - scores[names[i]])  # column minus row, oriented
            assert value == pytest.approx(expected, abs=1e-6)
            assert value >= 0
            row_ = target.pairs.set_index(["a", "b"]).loc[(names[j], names[i])]
            stars = row_["stars"] + (DIRECTION_MARK if row_["stars"] and row_["direction_only"] else "")
            assert cell == format_number(value, 6) + (" " + stars if stars else "")


def test_gains_and_group_gap_tables():
    result = E.with_groups()
    gains = gains_table(result, result.official)
    assert [r[0] for r in gains.rows] == list(result.official.gains["name"])
    assert "100" in gains.caption and "majority" in gains.caption
    gaps = group_gaps_table(result)
    assert gaps.header[1] == "macro-F1 gain (en \u2212 es<&>)"
    assert r"es\textless{}\&\textgreater{}" in gaps.to_latex()
    assert group_gaps_table(E.classification()) is None
    assert gains_table(E.two_systems(), E.two_systems().official) is None


def test_single_system_has_only_the_systems_table():
    result = E.one_system()
    assert [t.name for t in target_tables(result, result.official)] == ["systems"]
    assert "indicators" in [t.name for t in result_tables(result)]
