"""The report of a benchmark of several tasks: ODESIA's three tables, gaps, aggregates, ranks, CD diagram.

Writes ``benchmark.json``, ``benchmark.html`` (self-contained), ``tables.md``,
``tables.tex``, one CSV per table and the figures.  Reads a
:class:`~leaderboard_ci.phase.benchmark.benchmark.BenchmarkResult` by attribute.
"""

from __future__ import annotations

import base64
import html
import json
import os
from collections import OrderedDict

from .._version import __version__
from .formatting import DASH, format_ci, format_number, format_p
from .html_style import CSS
from .json_report import _clean, _records
from .tables import Table, tables_latex, tables_markdown

__all__ = ["benchmark_to_dict", "benchmark_tables", "render_benchmark", "write_benchmark_report"]

SCHEMA = "leaderboard-ci benchmark 1.1"  # 1.1: rank_intervals[] rank_low/rank_high renamed rank_pct_low/rank_pct_high


def benchmark_to_dict(result):
    """Everything as plain JSON types (NaN -> null)."""
    d = result.definition
    return OrderedDict(
        [
            ("schema", SCHEMA),
            ("generator", OrderedDict([("name", "leaderboard-ci"), ("version", __version__)])),
            ("title", d.title),
            ("confidence_level", d.confidence_level),
            ("seed", d.seed),
            (
                "test_sets",
                [
                    OrderedDict(
                        [
                            ("task", ts.task.name),
                            ("language", ts.task.language),
                            ("metric", ts.metric.key),
                            ("direction", ts.metric.direction),
                            ("n_items", ts.n_items),
                            ("n_resamples", int(ts.replicates.shape[0])),
                            ("seed", ts.seed),
                            ("baselines", list(ts.task.baselines)),
                            ("baseline_score", _clean(ts.baseline_full)),
                            ("skipped", [OrderedDict([("submission", s), ("reason", r)]) for s, r in ts.skipped]),
                        ]
                    )
                    for ts in result.test_sets
                ],
            ),
            ("systems", list(result.systems)),
            ("scores", _records(result.scores)),
            ("gains", _records(result.gains)),
            ("gaps", _records(result.gaps)),
            ("aggregate_of", result.aggregate_of),
            ("aggregates", _records(result.aggregates)),
            ("aggregate_pairs", _records(result.aggregate_pairs)),
            ("rank_intervals", _records(result.rank_intervals)),
            ("critical_difference", _clean(result.critical_difference)),
            ("notes", list(result.notes)),
        ]
    )


def _language_table(result, language, digits):
    """ODESIA's per-language table: systems as rows, tasks as columns, score [CI]."""
    frame = result.scores[result.scores["language"].fillna("") == (language or "")]
    tasks = list(OrderedDict.fromkeys(frame["task"]))
    metric = dict((ts.task.name, ts.metric.title) for ts in result.test_sets if ts.task.language == language)
    cells = dict(
        ((r.system, r.task), "%s %s" % (format_number(r.score, digits), format_ci(r.ci_low, r.ci_high, digits)))
        for r in frame.itertuples(index=False)
    )
    rows = [
        [name] + [cells.get((name, t), DASH) for t in tasks]
        for name in result.systems
        if any((name, t) in cells for t in tasks)
    ]
    header = ["System"] + ["%s (%s)" % (t, metric.get(t, "")) for t in tasks]
    level = "%g%%" % (100 * result.definition.confidence_level)
    caption = "Results per task%s: score and %s CI" % (" in %s" % language if language else "", level)
    return Table(
        "scores_%s" % (language or "all"),
        header,
        rows,
        ["text"] + ["num"] * len(tasks),
        caption,
        "tab:scores-%s" % (language or "all"),
        [],
        frame,
    )


def _gap_table(result, digits):
    """ODESIA's third table: the gap between languages per task, with its CI and p-value."""
    if len(result.gaps) == 0:
        return None
    tasks = list(OrderedDict.fromkeys(result.gaps["task"]))
    cells = dict(
        (
            (r.system, r.task),
            "%s %s %s"
            % (
                format_number(r.gap, 2, signed=True),
                format_ci(r.ci_low, r.ci_high, 2, signed=True),
                _p_equals(r.p_value),
            ),
        )
        for r in result.gaps.itertuples(index=False)
    )
    rows = [
        [name] + [cells.get((name, t), DASH) for t in tasks]
        for name in result.systems
        if any((name, t) in cells for t in tasks)
    ]
    languages = result.gaps["languages"].iloc[0]
    of = result.gaps["of"].iloc[0]
    caption = (
        "Gap between languages (%s) of each system's %s per task (ODESIA's Ind), with its %g%% CI and "
        "two-sided p-value for no gap"
        % (languages, "gain over the baseline" if of == "gain" else "score", 100 * result.definition.confidence_level)
    )
    return Table(
        "gaps", ["System"] + tasks, rows, ["text"] + ["num"] * len(tasks), caption, "tab:gaps", [], result.gaps
    )


def _p_equals(value):
    """``p=0.462``, and ``p<0.001`` (not ``p=<0.001``) below the smallest value shown."""
    text = format_p(value)
    return "p" + text if text.startswith("<") else "p=" + text


def _gains_table(result, language):
    """The gain over the baseline of every system per task in one language, with its CI."""
    frame = result.gains[result.gains["language"].fillna("") == (language or "")]
    if len(frame) == 0:
        return None
    tasks = list(OrderedDict.fromkeys(frame["task"]))
    cells = dict(
        (
            (r.system, r.task),
            "%s %s" % (format_number(r.gain, 2, signed=True), format_ci(r.ci_low, r.ci_high, 2, signed=True)),
        )
        for r in frame.itertuples(index=False)
    )
    rows = [
        [name] + [cells.get((name, t), DASH) for t in tasks]
        for name in result.systems
        if any((name, t) in cells for t in tasks)
    ]
    caption = "Gain over the baseline%s, 100 (s - b) / |b - r| (ODESIA), with its CI; r per task in benchmark.json" % (
        " in %s" % language if language else ""
    )
    return Table(
        "gains_%s" % (language or "all"),
        ["System"] + tasks,
        rows,
        ["text"] + ["num"] * len(tasks),
        caption,
        "tab:gains-%s" % (language or "all"),
        [],
        frame,
    )


def _aggregate_table(result, digits):
    frame = result.aggregates
    scopes = list(OrderedDict.fromkeys(frame["scope"]))
    ranks = result.rank_intervals
    cells = {}
    for r in frame.itertuples(index=False):
        ri = ranks[(ranks["scope"] == r.scope) & (ranks["system"] == r.system)]
        rank_text = (
            "%d [%d, %d]" % (r.rank, ri["rank_pct_low"].iloc[0], ri["rank_pct_high"].iloc[0])
            if len(ri)
            else str(r.rank)
        )
        cells[(r.system, r.scope)] = "%s %s rank %s" % (
            format_number(r.value, 2 if result.aggregate_of == "gain" else digits),
            format_ci(r.ci_low, r.ci_high, 2 if result.aggregate_of == "gain" else digits),
            rank_text,
        )
    order = list(frame[frame["scope"] == "all"]["system"])
    rows = [
        [name]
        + [cells.get((name, s), DASH) for s in scopes]
        + [format_number(frame[(frame["scope"] == "all") & (frame["system"] == name)]["average_rank"].iloc[0], 2)]
        for name in order
    ]
    caption = (
        "Mean %s over tasks with its CI (independent resampling of every test set) and the rank with its "
        "bootstrap interval; last column: average rank over tasks" % result.aggregate_of
    )
    return Table(
        "aggregates",
        ["System"] + scopes + ["Average rank"],
        rows,
        ["text"] + ["num"] * (len(scopes) + 1),
        caption,
        "tab:aggregates",
        [],
        frame,
    )


def benchmark_tables(result, digits=4):
    """The report's tables: per language (ODESIA 1 and 2), gaps (ODESIA 3), gains, aggregates."""
    languages = list(OrderedDict.fromkeys(ts.task.language for ts in result.test_sets))
    tables = [_language_table(result, language, digits) for language in languages]
    tables += [_gap_table(result, digits)] + [_gains_table(result, language) for language in languages]
    tables.append(_aggregate_table(result, digits))
    return [table for table in tables if table is not None]


def _figures(result):
    # lazy: matplotlib (imported by report.plots) is heavy, and the tables and JSON do without it
    # lazy: matplotlib (report.plots), loaded only when figures are drawn
    from .benchmark_plots import critical_difference_diagram, rank_interval_plot
    from .plots import figure_png

    out = OrderedDict()
    ranks = result.rank_intervals
    for scope in ["all"] + [s for s in OrderedDict.fromkeys(ranks["scope"]) if s != "all"]:
        frame = ranks[ranks["scope"] == scope]
        if len(frame):
            title = "Rank on the aggregate" if scope == "all" else "Rank on %s" % scope
            out["ranks_%s" % scope] = (title, figure_png(rank_interval_plot(frame, title)))
    if result.critical_difference is not None:
        out["critical_difference"] = (
            "Critical-difference diagram: systems at their average rank over the test sets "
            "(1 = best, on the right); a red bar joins systems whose differences are not "
            "significant",
            figure_png(critical_difference_diagram(result.critical_difference)),
        )
    return out


def _html_table(table):
    head = "".join("<th>%s</th>" % html.escape(h) for h in table.header)
    body = "".join(
        "<tr>%s</tr>"
        % "".join(
            "<td%s>%s</td>"
            % (
                ' class="n"' if k == "num" else "",
                html.escape(c).replace("-", "\u2212") if k == "num" else html.escape(c),
            )
            for c, k in zip(row, table.kinds)
        )
        for row in table.rows
    )
    return '<h3>%s</h3><div class="scroll"><table><thead><tr>%s</tr></thead><tbody>%s</tbody></table></div>' % (
        html.escape(table.caption),
        head,
        body,
    )


def render_benchmark(result, figures=None, digits=4):
    """A self-contained HTML page (inline CSS and PNG figures)."""
    figures = _figures(result) if figures is None else figures
    d = result.definition
    parts = [
        '<header><h1>%s</h1><p class="muted">%d test sets, %d systems, B = %s resamples per test set '
        "(independent seeds), %g%% intervals; aggregate of %s.</p></header>"
        % (
            html.escape(d.title),
            len(result.test_sets),
            len(result.systems),
            "{:,}".format(int(result.test_sets[0].replicates.shape[0])),
            100 * d.confidence_level,
            html.escape(result.aggregate_of),
        )
    ]
    parts += ["<section>%s</section>" % _html_table(t) for t in benchmark_tables(result, digits)]
    cd = result.critical_difference
    if cd is not None:
        p_text = format_p(cd["friedman_p"])
        parts.append(
            "<section><h2>Across tasks</h2><p>Friedman test over %d test sets: &chi;&sup2; = %s, p %s. "
            "%s</p></section>"
            % (
                cd["n_test_sets"],
                format_number(cd["friedman_statistic"], 2),
                html.escape("< " + p_text[1:] if p_text.startswith("<") else "= " + p_text),
                "Nemenyi critical difference %s." % format_number(cd["cd"], 3)
                if cd.get("cd") is not None
                else "Pairs: Wilcoxon signed-rank tests, Holm.",
            )
        )
    for _name, (title, png) in figures.items():
        parts.append(
            '<figure><img alt="%s" src="data:image/png;base64,%s"><figcaption>%s</figcaption></figure>'
            % (html.escape(title), base64.b64encode(png).decode("ascii"), html.escape(title))
        )
    skipped = [(ts.label, name, reason) for ts in result.test_sets for name, reason in ts.skipped]
    if skipped:
        parts.append(
            "<section><h2>Submissions not used</h2><ul>%s</ul></section>"
            % "".join("<li>%s: <b>%s</b> %s</li>" % tuple(html.escape(x) for x in row) for row in skipped)
        )
    if result.notes:
        parts.append(
            "<section><h2>Notes</h2><ul>%s</ul></section>"
            % "".join("<li>%s</li>" % html.escape(n) for n in result.notes)
        )
    parts.append(
        '<footer><p class="muted">leaderboard-ci %s. Gain and gap between languages: ODESIA '
        "(UNED); critical-difference diagram: Dem&scaron;ar (2006).</p></footer>" % html.escape(__version__)
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>%s</title><style>%s</style>'
        "</head><body><main>%s</main></body></html>\n" % (html.escape(d.title), CSS, "".join(parts))
    )


def write_benchmark_report(result, out_dir, digits=4):
    """Write benchmark.json, benchmark.html, tables.md/.tex, CSV files and PNG figures; returns the paths."""
    os.makedirs(out_dir, exist_ok=True)
    written = OrderedDict()

    def put(name, text, mode="w"):
        path = os.path.join(out_dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, mode, **({} if "b" in mode else {"encoding": "utf-8"})) as handle:
            handle.write(text)
        written[name] = path

    put("benchmark.json", json.dumps(benchmark_to_dict(result), indent=2, allow_nan=False, ensure_ascii=False) + "\n")
    tables = benchmark_tables(result, digits)
    put("tables.md", tables_markdown(tables, result.definition.title))
    put("tables.tex", tables_latex(tables, result.definition.title))
    for name, frame in (
        ("scores.csv", result.scores),
        ("gains.csv", result.gains),
        ("gaps.csv", result.gaps),
        ("aggregates.csv", result.aggregates),
        ("aggregate_pairs.csv", result.aggregate_pairs),
        ("rank_intervals.csv", result.rank_intervals),
    ):
        put(name, frame.to_csv(index=False))
    figures = _figures(result)
    for name, (_, png) in figures.items():
        put("figures/%s.png" % name, png, "wb")
    put("benchmark.html", render_benchmark(result, figures, digits))
    return written
