"""Write the shake-up to a folder: its page, ``shakeup.json``, CSV, Markdown and LaTeX tables and figures.

:func:`write_shakeup` (``leaderboard-ci shakeup``) writes, under ``out_dir`` only::

    shakeup.html                 the self-contained page
    shakeup.json                 the machine-readable result (docs/report_json.md, "shakeup")
    shakeup/participants.csv     every participant, every column (full precision)
    shakeup/competition.csv      the competition's numbers
    shakeup/unmatched.csv, shakeup/skipped.csv
    shakeup/tables.md, shakeup/tables.tex
    figures/shakeup-public_private.png/.pdf, -rank_change, -gap_submissions

:func:`write_shakeup_parts` writes the same files but the page and the JSON
(the end-of-phase report embeds the section in ``report.html`` and the object
in ``report.json``) and returns the page's figures.
"""

from __future__ import annotations

from collections import OrderedDict

from .file_writer import FIGURE_FORMATS, _Writer
from .html_parts import FIGURE_DPI
from .shakeup_html import render_shakeup_page
from .shakeup_json import shakeup_to_json
from .shakeup_tables import shakeup_tables
from .tables import tables_latex, tables_markdown

__all__ = ["write_shakeup", "write_shakeup_parts", "SHAKEUP_FOLDER", "DEFAULT_SHAKEUP_TOP"]

#: The folder of the shake-up's CSV, Markdown and LaTeX files.
SHAKEUP_FOLDER = "shakeup"
#: Participants the page's tables and rank-change figure show before cutting to the best private ranks.
DEFAULT_SHAKEUP_TOP = 60


def write_shakeup_parts(
    result, writer, top=DEFAULT_SHAKEUP_TOP, figures=True, figure_formats=FIGURE_FORMATS, dpi=150, digits=4
):
    """The tables and figures through a report writer; returns ``name -> PNG bytes`` for the page."""

    writer.csv("%s/participants.csv" % SHAKEUP_FOLDER, result.participants)
    tables = shakeup_tables(result, top, digits)
    writer.csv("%s/competition.csv" % SHAKEUP_FOLDER, tables["competition"].frame())
    writer.csv("%s/unmatched.csv" % SHAKEUP_FOLDER, result.unmatched)
    writer.csv("%s/skipped.csv" % SHAKEUP_FOLDER, result.skipped)
    title = "Shake-up: %s" % result.metric.title
    writer.text("%s/tables.md" % SHAKEUP_FOLDER, tables_markdown(list(tables.values()), title=title))
    writer.text("%s/tables.tex" % SHAKEUP_FOLDER, tables_latex(list(tables.values()), title=title))
    page = OrderedDict()
    if figures:
        from .plots import figure_png
        from .shakeup_plots import shakeup_figures

        for name, fig in shakeup_figures(result, top).items():
            page[name] = figure_png(fig, dpi=FIGURE_DPI, palette=True)
            writer.figure("figures/shakeup-%s" % name, fig, figure_formats, dpi)
    return page


def write_shakeup(
    result, out_dir, top=DEFAULT_SHAKEUP_TOP, figures=True, figure_formats=FIGURE_FORMATS, dpi=150, digits=4
):
    """Write the shake-up's page, JSON, tables and figures under ``out_dir``; returns ``relative name -> path``.

    ``top``: above that many participants the page's tables, the Markdown/LaTeX
    tables and the rank-change figure show the best private ranks and every
    flagged participant (None: everyone); the CSV files hold everyone.
    """

    writer = _Writer(out_dir)
    page = write_shakeup_parts(result, writer, top, figures, figure_formats, dpi, digits)
    writer.text("shakeup.json", shakeup_to_json(result))
    writer.text("shakeup.html", render_shakeup_page(result, figures=page, top=top, digits=digits))
    return writer.written
