"""The pieces ``report.html`` is built of: escaping, number cells, tables, embedded figures.

Shared by :mod:`leaderboard_ci.report.html_report` (the page); every name from
the data is escaped with :func:`html.escape`.  :func:`view_figures` draws a
target's figures as the page shows them (cut to the top of the ranking above
the threshold of :mod:`leaderboard_ci.report.scale`).
"""

from __future__ import annotations

import base64
import html
import re

from ..core.numeric import is_finite_number
from .formatting import DASH, MINUS, correction_name, format_ci, format_number, format_p, slug
from .json_report import primary_correction, sides_of
from .verdicts import DIRECTION_MARK, dual_interval, has_rank_sets

__all__ = ["FIGURE_DPI", "target_anchor", "view_figures", "img_attributes"]

#: Resolution of the embedded figures.
FIGURE_DPI = 110
_FIGURE_TEXT = {
    "ordered_ci": "Each system's score (dot) and its %(level)s confidence interval (whisker), best at the top. "
    "The winner is dark blue and its interval is shaded across the plot; light blue marks the "
    "systems tied with the winner (%(tied)s), grey the others%(base)s.",
    "vs_winner": "The difference between the winner and each system (positive: the winner is better, "
    "also where lower is better) with %(interval)s. The colour is the decision in the tables' "
    "row: red, not significantly different from the winner (tied with it) by %(primary)s; green, "
    "significantly worse. %(agree)s Stars: %(primary)s-adjusted p-values.",
    "rank_sets": "Each system's rank (dot) and the ranks it can hold at %(level)s confidence: the thick light bar "
    "is the simultaneous rank set (it holds for all systems at once), the thin dark bar the marginal "
    "one (this system alone). Blue: 1 is in the simultaneous rank set (tied with the winner); grey: "
    "it is not. Best system at the top.",
    "pair_heatmap": "Every pair of systems: the cell is the difference oriented so that positive means the "
    "column's system is better (%(pair_sub)s), blue for larger differences%(marks)s.",
    "bootstrap_difference": "%(winner_sub)s on each bootstrap resample. Under the null "
    "hypothesis of no difference this distribution would be centred at 0 instead of "
    "at the observed difference &delta;; %(tail)s",
    "unit_distribution": "Each system's values over the %(units)s, best system at the top: the box spans the "
    "first to the third quartile with the median, the whiskers the 5th to the 95th "
    "percentile, and the diamond is the mean, which is the score in the table above.",
    "score_distribution": "The full-sample score of every system, stacked: light blue, the winner and the systems "
    "tied with it (%(tied)s); grey, the others. The "
    "dotted line is the score of the last system shown in this section's tables and figures.",
}
_FIGURE_TITLES = {
    "ordered_ci": "Scores with confidence intervals",
    "vs_winner": "Differences to the winner",
    "rank_sets": "Rank confidence sets",
    "pair_heatmap": "All pairwise differences",
    "bootstrap_difference": "The winner's advantage over the runner-up: the bootstrap distribution",
    "score_distribution": "The scores of all systems",
    "unit_distribution": "Distribution of the per-unit values",
}


# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------
def _esc(text):
    """Escape any text from the data or the configuration for HTML text or attributes."""
    return html.escape(str(text), quote=True)


def _name(text):
    """A system name for a table cell: escaped, with line-break chances after ``_ - . /`` only.

    With the cells' ``overflow-wrap: break-word`` a narrow window breaks
    ``team_with_a_long_name`` at its underscores, never inside a word; a table too wide
    for the window scrolls sideways instead.
    """
    return re.sub(r"([_\-./])(?=.)", r"\1<wbr>", _esc(text))


def _num(value, digits=4, signed=False):
    return _esc(format_number(value, digits, signed)).replace("-", MINUS)


def _ci(low, high, digits=4):
    return _esc(format_ci(low, high, digits)).replace("-", MINUS)


def _p(value):
    return _esc(format_p(value))


def _level(result):
    return "%g%%" % (100.0 * float(result.signature.confidence_level))


def _count(value):
    return "{:,}".format(int(value)) if is_finite_number(value) else DASH


def _names(names, limit=6):
    """Escaped names joined by commas; past ``limit``, the first ones and how many more."""
    names = [str(n) for n in names]
    if len(names) <= limit:
        return ", ".join(_name(n) for n in names)
    return "%s and %d more" % (", ".join(_name(n) for n in names[: limit - 1]), len(names) - limit + 1)


def target_anchor(key):
    """The in-page anchor of a target's section."""
    return "t-" + slug(key)


def _table(header, rows, classes=None, table_class="", key_columns=()):
    """An HTML table from escaped header cells and rows of (html, css class) cells.

    ``key_columns``: the columns a reader must see without scrolling sideways (their headers get the class
    ``key``, which ``docs/check_report_pages.py`` checks at 800 px).
    """
    head = "".join(
        '<th class="key">%s</th>' % h if k in key_columns else "<th>%s</th>" % h for k, h in enumerate(header)
    )
    body = []
    for i, row in enumerate(rows):
        row_class = ' class="%s"' % classes[i] if classes and classes[i] else ""
        body.append(
            "<tr%s>%s</tr>"
            % (
                row_class,
                "".join('<td class="%s">%s</td>' % (css, cell) if css else "<td>%s</td>" % cell for cell, css in row),
            )
        )
    return '<div class="scroll"><table%s><thead><tr>%s</tr></thead><tbody>%s</tbody></table></div>' % (
        ' class="%s"' % table_class if table_class else "",
        head,
        "".join(body),
    )


# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------
def view_figures(result, view):
    """The figures of one target as the page shows them: ``name -> Figure``.

    Not cut: exactly :func:`leaderboard_ci.report.plots.target_figures`.  Cut:
    the same figures of the shown systems, each title saying "top N of M",
    then ``score_distribution``, the scores of the whole field.
    """
    # lazy: matplotlib (report.plots), loaded only when figures are drawn
    from .field_plots import mark_top, score_distribution_plot
    from .plots import target_figures
    from .rank_plots import rank_set_plot

    level = float(result.signature.confidence_level)
    figures = target_figures(
        view.shown,
        baseline=result.baseline,
        confidence_level=level,
        sides=sides_of(result),
        decision=correction_name(primary_correction(result)),
        primary=primary_correction(result),
        method=result.signature.method,
    )
    if has_rank_sets(view.shown.systems) and len(view.shown.systems) > 1:
        figures = _after(
            figures,
            "ordered_ci",
            "rank_sets",
            rank_set_plot(view.shown, confidence_level=level, baseline=result.baseline),
        )
    if not view.truncated:
        return figures
    shown = len(view.shown.systems)
    for name in ("ordered_ci", "rank_sets", "vs_winner", "pair_heatmap"):
        if name in figures:
            mark_top(figures[name], shown, view.m)
    figures["score_distribution"] = score_distribution_plot(view.target, shown, baseline=result.baseline)
    return figures


def _after(figures, first, name, fig):
    """``figures`` with ``name`` inserted right after ``first`` (an OrderedDict, order kept)."""
    out = type(figures)()
    for key, value in figures.items():
        out[key] = value
        if key == first:
            out[name] = fig
    if name not in out:
        out[name] = fig
    return out


def _png_size(data):
    """(width, height) of PNG bytes, from the IHDR chunk."""
    if len(data) >= 24 and data[:8] == b"\x89PNG\r\n\x1a\n":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    return None


def _png_text(data, key):
    """The value of PNG text chunk ``key`` (``tEXt``), or None."""
    at = 8
    token = key.encode("latin-1") + b"\0"
    while at + 8 <= len(data):
        length = int.from_bytes(data[at : at + 4], "big")
        kind = data[at + 4 : at + 8]
        if kind == b"tEXt" and data[at + 8 : at + 8 + len(token)] == token:
            return data[at + 8 + len(token) : at + 8 + length].decode("latin-1")
        if kind == b"IDAT":
            return None
        at += 12 + length
    return None


#: Natural widths above this scroll sideways at their size instead of shrinking (the page is 1,156 px wide).
WIDE_FIGURE = 1100


def img_attributes(data):
    """The ``<img>`` attributes of embedded PNG bytes: natural size, smallest text (for the page checker), wide."""
    size = _png_size(data)
    dims = ' width="%d" height="%d"' % size if size else ""
    smallest = _png_text(data, "leaderboard-ci:smallest-text-px")
    dims += (' data-text-px="%s"' % _esc(smallest)) if smallest else ""
    marks = _png_text(data, "leaderboard-ci:marks")  # what the cells show, as drawn: the caption says that
    dims += (' data-marks="%s"' % _esc(marks)) if marks is not None else ""
    key_right = _png_text(data, "leaderboard-ci:key-right-px")  # the colour bar: the page checks it is on screen
    dims += (' data-key-right="%s"' % _esc(key_right)) if key_right else ""
    return dims + (' class="wide"' if size and size[0] > WIDE_FIGURE else "")


def _figure(name, data, target, result, primary):
    if not data:
        return ""
    marks = _png_text(data, "leaderboard-ci:marks")
    two = sides_of(result) == "two"
    dual = dual_interval(target.vs_winner, primary)
    text = _FIGURE_TEXT.get(name, "") % {
        "tail": (
            "the share of resamples at least as far from &delta; as 0 is, at or beyond 2&delta; or at or "
            "below 0 (orange), is the two-sided bootstrap p-value."
            if two
            else "the share of resamples at or beyond 2&delta; (orange) is the one-sided bootstrap p-value."
        ),
        "level": _level(result),
        "primary": _esc(correction_name(primary)),
        "minus": MINUS,
        "tied": (
            "1 is in their simultaneous rank set"
            if has_rank_sets(target.systems)
            else "not significantly different from it, %s" % _esc(correction_name(primary))
        ),
        "interval": ("its simultaneous %s interval (max-t), the interval beside the verdict" % _level(result))
        if dual.family_wise
        else ("its %s interval, this pair alone" % _level(result)),
        "agree": (
            (
                "The bar excludes 0 exactly when the difference is significant at the step-down&rsquo;s first "
                "step; a dashed green bar (%s) is a difference whose direction a later step decides." % DIRECTION_MARK
            )
            if dual.family_wise
            else "The bar excludes 0 exactly when the difference is significant."
            if dual.decides
            else "%s has no interval: the bar is this pair's alone and goes with the unadjusted p-value."
            % _esc(correction_name(primary, long=True))
        ),
        "units": _esc(
            target.unit_values.attrs.get("unit_plural", "units")
            if getattr(target, "unit_values", None) is not None
            else "units"
        ),
        "winner_sub": "The winner minus the runner-up"
        if target.metric.sign > 0
        else "The runner-up minus the winner (%s, so positive means the winner is better)" % _esc(target.metric.better),
        "marks": {
            "values stars": ", with its value and the stars of its %s-adjusted p-value"
            % _esc(correction_name(primary)),
            "stars": ", with the stars of its %s-adjusted p-value" % _esc(correction_name(primary)),
        }.get(
            marks,
            "; with this many systems the cells are too small for values or stars (they are in the table of all pairs)",
        ),
        "pair_sub": ("column %s row" if target.metric.sign > 0 else "row %s column, as %s")
        % ((MINUS,) if target.metric.sign > 0 else (MINUS, _esc(target.metric.better))),
        "base": (
            "; the baseline is orange, with a dashed line at its score (an arrow at the edge when it is "
            "far from every other system)"
        )
        if result.baseline
        else "",
    }
    alt = "%s: %s" % (target.title, _FIGURE_TITLES.get(name, name))
    return (
        '<figure class="plot" id="%s-%s"><img alt="%s" src="data:image/png;base64,%s"%s><figcaption>%s</figcaption>'
        "</figure>"
        % (
            target_anchor(target.key),
            name,
            _esc(alt),
            base64.b64encode(data).decode("ascii"),
            img_attributes(data),
            text,
        )
    )
