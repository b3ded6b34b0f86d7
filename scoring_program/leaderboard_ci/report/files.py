"""Write the whole end-of-phase report to a folder.

:func:`write_report` writes, under ``out_dir`` only (created if needed)::

    report.html            the self-contained page (leaderboard_ci.report.html_report)
    report.json            the machine-readable result (leaderboard_ci.report.json_report)
    tables.md, tables.tex  every main table of every target, indicators, group gaps
    indicators.csv         the competition indicators, one column per target
    skipped.csv            submissions left out, with the reason
    group_gaps.csv         with groups only
    units.csv              every system's precision, recall and F1 per class (label, entity type)
    <target>/systems.csv, vs_winner.csv, pairs.csv, pair_matrix.csv, gains.csv,
             tables.md, tables.tex
    shakeup/...            with the public-to-private shake-up (leaderboard_ci.report.shakeup_files)
    <target>/systems.parquet, vs_winner.parquet, pairs.parquet, gains.parquet
    units.parquet          with pyarrow installed (pip install 'leaderboard-ci[parquet]')
    figures/<target>-<figure>.png and .pdf

``<target>`` is the target's key (``f1_macro``, ``f1_macro_even``) made safe
as a file name.  Figures are drawn once and reused for the page.

Above ``top`` systems (:data:`leaderboard_ci.report.scale.DEFAULT_TOP`) the page,
the Markdown/LaTeX tables, the figures and the pairs of ``report.json`` cover
the top of each ranking (see :mod:`leaderboard_ci.report.scale`);
``pair_matrix.csv`` (m x m cells) is then not written, and the CSV and Parquet
files still hold every system and every pair.
"""

from __future__ import annotations

from collections import OrderedDict

from .file_writer import FIGURE_FORMATS, _Writer
from .html_report import FIGURE_DPI, render_report, view_figures
from .json_report import result_to_json
from .scale import DEFAULT_TOP, report_scope, safe_file_name, target_folders
from .shakeup_files import write_shakeup_parts
from .tables import indicators_table, result_tables, tables_latex, tables_markdown, target_tables

__all__ = ["write_report", "safe_file_name", "target_folders", "FIGURE_FORMATS"]


def write_report(
    result, out_dir, figures=True, figure_formats=FIGURE_FORMATS, dpi=150, digits=4, top=DEFAULT_TOP, parquet=None
):
    """Write report.html, report.json, CSV, Parquet, Markdown and LaTeX tables and figures under ``out_dir``.

    Parameters
    ----------
    result : PhaseResult
    out_dir : str
        Created if needed; nothing is written outside it.
    figures : bool
        Draw the figures (for the page and as files).  Without them the
        page has tables only.
    figure_formats : tuple of str
        Formats of the figure files (``png``, ``pdf``, ``svg``).
    dpi : int
        Resolution of the PNG files (the page embeds its own, smaller ones).
    digits : int
        Decimals of scores and differences in the tables.
    top : int or None
        Above this many systems in a target, the page, the Markdown/LaTeX
        tables, the figures and the pairs of ``report.json`` show its ``top``
        best-ranked systems and summaries of the whole field, and
        ``pair_matrix.csv`` is not written (see :mod:`leaderboard_ci.report.scale`).
        None: every system everywhere.  The CSV and Parquet files always hold
        every row.
    parquet : bool, optional
        Write Parquet copies of the full tables; by default when pyarrow is
        installed.

    Returns
    -------
    OrderedDict
        Relative name (``report.html``, ``f1_macro/systems.csv``,
        ``figures/f1_macro-ordered_ci.png``, ...) -> absolute path.
    """
    scope = report_scope(result, top, parquet=parquet)
    writer = _Writer(out_dir)
    page_figures = OrderedDict()
    for key, view in scope.views.items():
        target, folder = view.target, scope.folders[key]
        full = [("systems", target.systems), ("vs_winner", target.vs_winner), ("pairs", target.pairs)]
        if target.gains is not None:
            full.append(("gains", target.gains))
        for name, frame in full:
            writer.csv("%s/%s.csv" % (folder, name), frame)
            if scope.parquet:
                writer.parquet("%s/%s.parquet" % (folder, name), frame)
        tables = target_tables(result, target, digits, scope=scope)
        if not view.truncated:  # the matrix has m x m cells: above the threshold pairs.csv holds the pairs
            for table in tables:
                if table.name == "pair_matrix":
                    writer.csv("%s/pair_matrix.csv" % folder, table.frame())
        writer.text("%s/tables.md" % folder, tables_markdown(tables, title=target.title))
        writer.text("%s/tables.tex" % folder, tables_latex(tables, title=target.title))
        page_figures[key] = {}
        if figures:
            # lazy: matplotlib (report.plots), loaded only when figures are drawn
            from .plots import figure_png

            for name, fig in view_figures(result, view).items():
                # The page's PNG first: its layout is computed at its own resolution (text metrics do not
                # scale exactly with dpi, so a layout frozen at another dpi can push a label off the canvas).
                page_figures[key][name] = figure_png(fig, dpi=FIGURE_DPI, palette=True)
                writer.figure("figures/%s-%s" % (folder, name), fig, figure_formats, dpi)
    writer.csv("indicators.csv", indicators_table(result).reset_index())
    writer.csv(
        "skipped.csv",
        result.skipped
        if result.skipped is not None
        else __import__("pandas").DataFrame(columns=["submission", "reason"]),
    )
    if result.group_gaps is not None:
        writer.csv("group_gaps.csv", result.group_gaps)
    if getattr(result, "units", None) is not None:
        writer.csv("units.csv", result.units)
        if scope.parquet:
            writer.parquet("units.parquet", result.units)
    if getattr(result, "shakeup", None) is not None:  # shakeup/*.csv, .md, .tex, figures/shakeup-*
        page_figures["shakeup"] = write_shakeup_parts(result.shakeup, writer, top, figures, figure_formats, dpi, digits)
    everything = result_tables(result, digits, scope=scope)
    title = "leaderboard-ci: %s" % result.official.title
    writer.text("tables.md", tables_markdown(everything, title=title))
    writer.text("tables.tex", tables_latex(everything, title=title))
    writer.text("report.json", result_to_json(result, scope=scope))
    writer.text("report.html", render_report(result, figures=page_figures, digits=digits, scope=scope))
    return writer.written
