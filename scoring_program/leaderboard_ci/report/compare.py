"""Compare competitions, tasks or groups side by side by their indicators.

CompStats (Nava-Muñoz, Graff & Escalante 2024, Tables 7-11) characterizes a
competition by a column of indicators: test items ``n``, systems ``m``, ties
with the winner under each correction, possible comparisons, pairs not
significantly different under each correction, ``|winner − median|``, the
coefficient of variation and the performance potential index.  This module
reads several ``report.json`` files (see ``docs/report_json.md``) and puts
those columns in one table, written as CSV, Markdown and LaTeX::

    leaderboard-ci-compare a/report.json b/report.json --out cmp --names A,B   # leaderboard_ci.cli.compare

Each report gives a column per target (metric, or metric on a group), or only
its official target with ``--official-only``.
"""

from __future__ import annotations

import os
from collections import OrderedDict

from .tables import csv_text, indicator_rows, indicators_text_table, tables_latex, tables_markdown

__all__ = ["default_name", "report_columns", "comparison_frame", "comparison_table", "write_comparison", "OUTPUT_NAMES"]

#: The files :func:`write_comparison` writes in the output folder.
OUTPUT_NAMES = ("comparison.csv", "comparison.md", "comparison.tex")


def default_name(path):
    """A column name for a report file: its folder's name for ``report.json``, else its stem."""
    stem = os.path.splitext(os.path.basename(path))[0]
    if stem == "report":
        folder = os.path.basename(os.path.dirname(os.path.abspath(path)))
        return folder or stem
    return stem


def report_columns(report, name, official_only=False):
    """The indicator columns one report contributes: ``label -> (indicators, title)``.

    Parameters
    ----------
    report : mapping
        A loaded ``report.json``.
    name : str
        The report's name (a competition or task).
    official_only : bool
        Only the official target; otherwise every target, official first.

    Returns
    -------
    OrderedDict
        Labels are ``name`` alone when the report contributes one column,
        else ``"name: title"``.
    """
    metrics = report["metrics"]
    official = report.get("official") if report.get("official") in metrics else next(iter(metrics))
    keys = [official] if official_only else [official] + [k for k in metrics if k != official]
    out = OrderedDict()
    for key in keys:
        target = metrics[key]
        label = name if len(keys) == 1 else "%s: %s" % (name, target.get("title") or key)
        out[label] = target["indicators"]
    return out


def _unique(label, taken):
    if label not in taken:
        return label
    k = 2
    while "%s (%d)" % (label, k) in taken:
        k += 1
    return "%s (%d)" % (label, k)


def comparison_frame(reports, names=None, official_only=False):
    """The indicators of several reports as one DataFrame (rows in CompStats' Table 6 order).

    Parameters
    ----------
    reports : list of mapping
        Loaded ``report.json`` documents.
    names : list of str, optional
        One name per report (default: ``report 1``, ``report 2``, ...).
    official_only : bool
        One column per report (its official target).

    Returns
    -------
    DataFrame
        Index ``indicator``; one column per report target; corrections are
        the union of the reports' (``none`` first).
    """
    names = list(names) if names is not None else ["report %d" % (i + 1) for i in range(len(reports))]
    if len(names) != len(reports):
        raise ValueError("%d names for %d reports" % (len(names), len(reports)))
    columns = OrderedDict()
    for report, name in zip(reports, names):
        for label, indicators in report_columns(report, name, official_only).items():
            columns[_unique(label, columns)] = indicators
    return indicator_rows(columns)


def comparison_table(frame, digits=4):
    """A :class:`~leaderboard_ci.report.tables.Table` of a comparison frame (for Markdown and LaTeX)."""
    return indicators_text_table(
        frame,
        caption="Competition indicators compared: n test items, m systems, ties with the winner and "
        "non-significant pairs without and after each correction, |winner \u2212 median|, "
        "coefficient of variation (%) and performance potential index",
        label="tab:competitions",
        digits=digits,
    )


def write_comparison(frame, out_dir, digits=4):
    """Write ``comparison.csv``, ``comparison.md`` and ``comparison.tex`` in ``out_dir``.

    Returns
    -------
    OrderedDict
        File name -> absolute path.
    """
    out_dir = os.path.abspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    table = comparison_table(frame, digits)
    texts = OrderedDict(
        [
            ("comparison.csv", csv_text(frame.reset_index())),
            ("comparison.md", tables_markdown([table])),
            ("comparison.tex", tables_latex([table], title="leaderboard-ci: competitions compared")),
        ]
    )
    written = OrderedDict()
    for name, text in texts.items():
        path = os.path.join(out_dir, name)
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        written[name] = path
    return written
