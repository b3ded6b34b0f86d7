"""Reports of many systems: above ``top`` the page, the paper tables and the figures show the top of each
ranking and summaries of the whole field; the CSV and Parquet files hold every row; below it nothing changes."""

import functools
import html
import json
import os
import re

import _report_examples as E
import numpy as np
import pandas as pd
import pytest

from leaderboard_ci.cli.common import parse_top
from leaderboard_ci.phase.analysis import analyze
from leaderboard_ci.report import scale
from leaderboard_ci.report.files import write_report
from leaderboard_ci.report.html_report import render_report, target_anchor, view_figures
from leaderboard_ci.report.json_report import result_to_dict
from leaderboard_ci.report.tables import pair_matrix, result_tables, target_tables

#: The shared report examples (lru-cached analyses and pages) are built once: these modules run on one xdist worker.
pytestmark = pytest.mark.xdist_group("report_examples")

TOP = 5


@functools.lru_cache(maxsize=None)
def field(m=14):
    """``m`` systems (macro-F1 official, accuracy), a majority baseline that ranks last, B = 200.

    Benjamini-Hochberg over the comparisons with the winner decides, so that
    some systems are tied with the winner and others are not.
    """
    rng = np.random.default_rng(21)
    n = 300
    gold = rng.integers(0, 3, n)
    systems = {}
    for i in range(m - 1):
        pred = gold.copy()
        flip = rng.random(n) > 0.45 + 0.45 * i / (m - 2)
        pred[flip] = rng.integers(0, 3, int(flip.sum()))
        systems['run %02d, "team" <%d>' % (i, i % 3)] = pred
    systems["majority"] = np.zeros(n, dtype=int)
    return analyze(
        [str(g) for g in gold],
        {k: [str(x) for x in v] for k, v in systems.items()},
        metric="f1_macro",
        extra_metrics=["accuracy"],
        baseline="majority",
        n_resamples=200,
        family="vs_winner",
        primary="fdr_bh",
    )


@pytest.fixture(scope="module")
def cut(tmp_path_factory):
    out = tmp_path_factory.mktemp("cut")
    written = write_report(field(), str(out), top=TOP, figure_formats=())  # figure files: test_report_files
    return field(), written


def _read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def _section(page, key):
    start = page.index('<section id="%s">' % target_anchor(key))
    return page[start : page.index("</section>", start)]


def _tables(html):
    """Each <table> of ``html`` as a list of rows, each a list of its cells' text."""
    out = []
    for table in re.findall(r"<table.*?</table>", html, re.S):
        body = re.search(r"<tbody>(.*)</tbody>", table, re.S).group(1)
        rows = []
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S):
            cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)
            rows.append([re.sub(r"<[^>]+>", "", c) for c in cells])
        out.append(rows)
    return out


# ---------------------------------------------------------------------------
# The cut itself
# ---------------------------------------------------------------------------
def test_top_view_keeps_the_top_systems_and_the_pairs_among_them():
    target = field().official
    view = scale.top_view(target, TOP)
    names = list(target.systems["name"][:TOP])
    assert view.truncated and view.m == 14 and view.names == names
    assert list(view.shown.vs_winner["name"]) == names[1:]
    expected = target.pairs[target.pairs["a"].isin(names) & target.pairs["b"].isin(names)]
    pd.testing.assert_frame_equal(view.shown.pairs, expected)
    assert len(view.shown.pairs) == TOP * (TOP - 1) // 2
    assert list(view.shown.gains["name"]) == [n for n in target.gains["name"] if n in names]
    np.testing.assert_array_equal(view.shown.replicates, target.replicates[:, :TOP])
    # the whole field's numbers are untouched
    assert view.shown.indicators is target.indicators
    assert view.shown.tied_with_winner == target.tied_with_winner
    assert len(target.systems) == 14 and len(target.pairs) == 91


def test_no_cut_at_or_below_the_threshold():
    target = field().official
    for top in (14, 100, None):
        view = scale.top_view(target, top)
        assert not view.truncated and view.shown is target


def test_the_winner_is_always_shown():
    target = E.classification().official  # the baseline is not first here: force it
    systems = target.systems
    order = [1, 0] + list(range(2, len(systems)))
    import dataclasses

    swapped = dataclasses.replace(
        target, systems=systems.iloc[order].reset_index(drop=True), winner=systems["name"].iloc[0]
    )
    view = scale.top_view(swapped, 1)
    assert swapped.winner in view.names and len(view.names) == 2


@pytest.mark.parametrize(
    "top, error", [(0, ValueError), (-3, ValueError), (2.5, TypeError), (True, TypeError), ("10", TypeError)]
)
def test_top_is_checked(top, error):
    with pytest.raises(error, match="top must be a positive integer or None"):
        scale.check_top(top)
    with pytest.raises(error):
        render_report(E.two_systems(), figures={}, top=top)


def test_vectorized_pair_matrix_equals_the_analysis_own():
    for result in (field(), E.classification(), E.regression()):
        for target in result.targets.values():
            for value in ("diff", "p_value", "stars"):
                pd.testing.assert_frame_equal(pair_matrix(target, value), target.pair_matrix(value))


# ---------------------------------------------------------------------------
# The page
# ---------------------------------------------------------------------------
def test_truncated_page_holds_exactly_the_top_rows_and_the_summaries(cut):
    result, written = cut
    page = _read(written["report.html"])
    for key, target in result.targets.items():
        section = _section(page, key)
        tables = _tables(section)
        field_table, ranking, vs_winner, matrix = tables[:4]
        names = list(target.systems["name"][:TOP])
        # the whole field first: systems, ties with the winner (all of them, not only the shown ones)
        summary = dict((row[0], row[1]) for row in field_table)
        assert summary["systems"] == "14"
        tied = [n for n in target.tied_with_winner if n != target.winner]
        assert re.match(r"%d\b" % len(tied), summary["tied with the winner (1 in the simultaneous rank set)"])
        assert summary["not tied with the winner (1 not in their simultaneous rank set)"] == str(13 - len(tied))
        # then exactly the top rows, in rank order
        assert [r[1].replace("winner", "").replace("baseline", "") for r in ranking] == [
            __import__("html").escape(n, quote=True) for n in names
        ]
        assert len(vs_winner) == TOP - 1
        assert len(matrix) == TOP - 1 and all(len(r) == TOP for r in matrix)
        # said clearly, with the file that holds every row
        assert "Top %d of 14 systems." % TOP in section
        assert 'href="%s/systems.csv"' % key in section and 'href="%s/pairs.csv"' % key in section
        assert 'Ranking <span class="muted">(top %d of 14)</span>' % TOP in section
        assert 'id="%s-score_distribution"' % target_anchor(key) in section
    files = page[page.index('<section id="files">') :]
    for link in re.findall(r'href="([^"#][^"]*)"', page):
        assert link in written, link  # every file link names a file that was written
    assert "pair_matrix.csv</code> is not written above %d systems" % TOP in files


def test_truncated_figures_show_the_top_and_the_whole_field():
    result = field()
    view = scale.top_view(result.official, TOP)
    figures = view_figures(result, view)
    assert list(figures) == [
        "ordered_ci",
        "rank_sets",
        "vs_winner",
        "pair_heatmap",
        "bootstrap_difference",
        "score_distribution",
    ]
    names = view.names
    points = [
        a.get_gid()[len("point:") :]
        for a in figures["ordered_ci"].axes[0].get_lines()
        if (a.get_gid() or "").startswith("point:")
    ]
    assert points == names
    points = [
        a.get_gid()[len("point:") :]
        for a in figures["vs_winner"].axes[0].get_lines()
        if (a.get_gid() or "").startswith("point:")
    ]
    assert points == names[1:]
    for name in ("ordered_ci", "rank_sets", "vs_winner", "pair_heatmap"):
        assert "the top %d of 14 systems" % TOP in figures[name].axes[0].get_title(loc="left")
    ax = figures["score_distribution"].axes[0]
    tied = [p.get_height() for p in ax.patches if p.get_gid() == "tied"]
    others = [p.get_height() for p in ax.patches if p.get_gid() == "others"]
    assert sum(tied) == len(result.official.tied_with_winner) and sum(tied) + sum(others) == 14
    cut_line = [line for line in ax.get_lines() if line.get_gid() == "mark:cut"][0]
    assert cut_line.get_xdata()[0] == result.official.systems["score"].iloc[TOP - 1]


# ---------------------------------------------------------------------------
# The paper tables
# ---------------------------------------------------------------------------
def test_truncated_paper_tables_show_the_top_and_say_where_the_rest_is(cut):
    result, written = cut
    scope = scale.report_scope(result, TOP)
    for key, target in result.targets.items():
        tables = {t.name: t for t in target_tables(result, target, scope=scope)}
        assert len(tables["systems"].rows) == TOP
        assert [r[1] for r in tables["systems"].rows] == list(target.systems["name"][:TOP])
        assert len(tables["vs_winner"].rows) == TOP - 1
        assert len(tables["pair_matrix"].rows) == TOP - 1
        for table in tables.values():
            assert "top %d of 14 systems" % TOP in table.caption
            assert table.notes[0].startswith("Truncated: the %d best-ranked of 14 systems" % TOP)
            assert "%s/systems.csv" % key in table.notes[0]
        markdown, latex = _read(written["%s/tables.md" % key]), _read(written["%s/tables.tex" % key])
        assert markdown.count("Truncated: the %d best-ranked of 14 systems" % TOP) == len(tables)
        assert latex.count("Truncated: the %d best-ranked of 14 systems" % TOP) == len(tables)
        # a systems table of the top rows: the rest of its header, the rule and TOP rows
        block = markdown.split("| Rank | System |", 1)[1].split("\n\n", 1)[0]
        assert len(block.strip().splitlines()) == 2 + TOP
    everything = result_tables(result, scope=scope)
    assert sum(1 for t in everything if t.name == "systems") == len(result.targets)


def test_group_gaps_are_cut_to_the_official_top():
    result = E.with_groups()
    scope = scale.report_scope(result, 2)
    gaps = [t for t in result_tables(result, scope=scope) if t.name == "group_gaps"][0]
    assert [r[0] for r in gaps.rows] == list(result.official.systems["name"][:2])
    assert "all in group_gaps.csv" in gaps.caption
    page = render_report(result, figures={}, top=2)
    section = page[page.index('<section id="group-gaps">') :]
    section = section[: section.index("</section>")]
    shown = set(re.sub(r"<[^>]+>", "", row[2]) for row in _tables(section)[0])
    assert shown == set(result.official.systems["name"][:2])


# ---------------------------------------------------------------------------
# The full files
# ---------------------------------------------------------------------------
def test_full_csv_files_hold_every_row(cut):
    result, written = cut
    for key, target in result.targets.items():
        for name in ("systems", "vs_winner", "pairs", "gains"):
            frame = getattr(target, name)
            back = pd.read_csv(written["%s/%s.csv" % (key, name)], keep_default_na=False, na_values=[""])
            assert len(back) == len(frame) and list(back.columns) == list(frame.columns)
            for column in frame.columns:
                if frame[column].dtype.kind == "f":
                    np.testing.assert_array_equal(back[column].to_numpy(float), frame[column].to_numpy(float))
                else:
                    assert [str(x) if x == x else "" for x in back[column]] == [
                        str(x) if x == x and x is not None else "" for x in frame[column]
                    ], column
        assert "%s/pair_matrix.csv" % key not in written  # m x m: not written above the threshold
    assert len(pd.read_csv(written["f1_macro/pairs.csv"])) == 91


def test_full_parquet_files_equal_the_frames(cut):
    pytest.importorskip("pyarrow")
    result, written = cut
    for key, target in result.targets.items():
        for name in ("systems", "vs_winner", "pairs", "gains"):
            frame = getattr(target, name)
            back = pd.read_parquet(written["%s/%s.parquet" % (key, name)])
            pd.testing.assert_frame_equal(back, frame.reset_index(drop=True), check_dtype=False)


def test_without_pyarrow_a_note_says_how_to_get_it(tmp_path):
    written = write_report(field(), str(tmp_path), top=TOP, figures=False, parquet=False)
    assert not any(k.endswith(".parquet") for k in written)
    page = _read(written["report.html"])
    assert scale.PARQUET_HINT in page.replace("&#x27;", "'")
    assert "pyarrow" in scale.PARQUET_HINT and "leaderboard-ci[parquet]" in scale.PARQUET_HINT


# ---------------------------------------------------------------------------
# report.json
# ---------------------------------------------------------------------------
def test_json_lists_the_top_pairs_and_says_so(cut):
    result, written = cut
    data = json.loads(_read(written["report.json"]))
    for key, target in result.targets.items():
        block = data["metrics"][key]
        names = set(target.systems["name"][:TOP])
        assert [(p["a"], p["b"]) for p in block["pairs"]] == [
            (a, b) for a, b in zip(target.pairs["a"], target.pairs["b"]) if a in names and b in names
        ]
        assert block["pairs_listed"] == {
            "complete": False,
            "systems": TOP,
            "count": TOP * (TOP - 1) // 2,
            "total": 91,
            "file": "%s/pairs.csv" % key,
        }
        assert len(block["systems"]) == 14 and len(block["vs_winner"]) == 13  # complete
    full = result_to_dict(result, top=None)["metrics"]["f1_macro"]
    assert len(full["pairs"]) == 91 and full["pairs_listed"]["complete"] is True


# ---------------------------------------------------------------------------
# Below the threshold: unchanged
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("example", ["classification", "groups", "regression", "two", "one"])
def test_below_the_threshold_the_report_is_the_uncut_one(example, tmp_path):
    result = E.ALL[example]()
    default = write_report(result, str(tmp_path / "default"), figures=False)
    uncut = write_report(result, str(tmp_path / "uncut"), figures=False, top=None)
    assert list(default) == list(uncut)
    assert not any(k.endswith("score_distribution.png") for k in default)
    for name in default:
        if name.endswith(".parquet"):
            continue
        with open(default[name], "rb") as a, open(uncut[name], "rb") as b:
            assert a.read() == b.read(), name
    page = _read(default["report.html"])
    assert 'id="files"' not in page and "Top " not in page and '.csv"' not in page
    for key in result.targets:
        if len(result.targets[key].systems) > 1:
            assert "%s/pair_matrix.csv" % key in default


def _bundle_reference(tmp_path, n_resamples, extra=""):
    """The sample competition's reference folder, copied, with ``n_resamples`` and ``extra`` config lines."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "competition_bundle")
    ref = tmp_path / "ref"
    ref.mkdir()
    for name in os.listdir(os.path.join(root, "reference_data")):
        with open(os.path.join(root, "reference_data", name), "rb") as src:
            (ref / name).write_bytes(src.read())
    text = (ref / "config.yaml").read_text().replace("n_resamples: 10000", "n_resamples: %d" % n_resamples)
    assert "n_resamples: %d" % n_resamples in text
    (ref / "config.yaml").write_text(text + extra)
    return root, ref


@pytest.mark.slow  # fast representatives: test_analysis.py::test_family_note_names_the_resamples_needed
def test_cli_prints_the_family_note_on_stderr(tmp_path, capsys):
    """With Holm as the primary correction, B = 200 is too small for the 45 pairs of the sample competition: the
    command line says so on stderr in one line, the sentence of report.json and of the page."""
    from leaderboard_ci.cli import end_of_phase as cli

    root, ref = _bundle_reference(tmp_path, 200, "\nanalysis:\n  primary: holm\n")
    out = tmp_path / "out"
    assert (
        cli.main(
            [
                "--reference",
                str(ref),
                "--submissions",
                os.path.join(root, "sample_submissions"),
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    data = json.loads(_read(str(out / "report.json")))
    page = _read(str(out / "report.html"))
    official = data["metrics"][data["official"]]
    note = official["family_note"]
    # 45/(B + 1) <= 0.05 needs B >= 899; about 10 replicates beyond alpha/45 needs B >= 9,000
    assert note and "Holm" in note and "B >= 9,000 is needed" in note
    assert captured.err.splitlines() == ["warning: " + note]  # one line, once (every target has the same B and m)
    assert note not in captured.out
    assert page.count(html.escape(note)) >= 2  # the headline and the official target's section


@pytest.mark.slow  # fast representatives: the in-process --top tests above (top view, truncated page and tables)
def test_cli_top_option(tmp_path, capsys):
    """``--top 3`` on the sample competition (9 submissions, B = 500): the page shows the top 3 of each ranking."""
    from leaderboard_ci.cli import end_of_phase as cli

    root, ref = _bundle_reference(tmp_path, 500)
    out = tmp_path / "out"
    assert (
        cli.main(
            [
                "--reference",
                str(ref),
                "--submissions",
                os.path.join(root, "sample_submissions"),
                "--out",
                str(out),
                "--no-progress",
                "--top",
                "3",
            ]
        )
        == 0
    )
    page = _read(str(out / "report.html"))
    data = json.loads(_read(str(out / "report.json")))
    # B = 500 is enough for the max-t step-down (the default) over 45 pairs (it asks for 10 x 45 = 450):
    # no "B too small" note anywhere
    assert capsys.readouterr().err == ""
    assert all(block["family_note"] is None for block in data["metrics"].values())
    assert "family-note" not in page
    m = len(data["systems"])
    assert m > 3 and "Top 3 of %d systems." % m in page
    for block in data["metrics"].values():
        assert block["pairs_listed"]["systems"] == 3 and len(block["pairs"]) == 3
    assert not os.path.exists(str(out / data["official"] / "pair_matrix.csv"))
    assert parse_top("all") is None and parse_top("7") == 7
    assert cli.make_parser().parse_args(["--reference", "r", "--submissions", "s", "--out", "o"]).top == str(
        scale.DEFAULT_TOP
    )
    for bad in ("0", "-1", "many"):
        assert (
            cli.main(["--reference", str(ref), "--submissions", "s", "--out", str(tmp_path / "x"), "--top", bad]) == 2
        )
        err = capsys.readouterr().err.strip().splitlines()
        assert err == ["error: --top must be a positive integer or 'all', got %r" % bad]
