"""The columns of a comparison table (vs-winner) and the captions that say which interval goes with which verdict.

Shared by the Markdown/LaTeX tables (:mod:`leaderboard_ci.report.tables`) and
the page (:mod:`leaderboard_ci.report.html_report`), so that both show the same
columns under the same headings: first the interval dual with the verdict
(:func:`leaderboard_ci.report.verdicts.dual_interval`) and the p-value it is
the inversion of, then the stars; with the max-t step-down, the marginal
interval and the unadjusted p-value (which go together); then the other
corrections' p-values and the item tests.
"""

from __future__ import annotations

from ..tasks.registry import pair_test_titles
from .formatting import correction_name, family_description, format_ci, format_p
from .json_report import corrections_of, primary_correction
from .verdicts import direction_words, dual_interval, interval_header, verdict_mark

__all__ = ["comparison_columns", "comparison_cells", "verdict_caption", "rank_set_words", "p_columns"]


def _level(result):
    return "%g%%" % (100.0 * float(result.signature.confidence_level))


def p_columns(frame, corrections):
    """(column, heading) of the p-values a comparison table shows."""
    cols = [("p_value", "p")]
    cols += [("p_" + m, "p (%s)" % correction_name(m, header=True)) for m in corrections if "p_" + m in frame.columns]
    cols += [(c, title) for c, title in pair_test_titles().items() if c in frame.columns]  # the tasks' own tests
    return cols


def rank_set_words(result):
    """The caption's sentence on the rank sets and on "tied" (1 in the simultaneous rank set)."""
    return (
        "Rank sets (%s confidence; Mogstad, Romano, Shaikh & Wilhelm 2024): the ranks each system can hold; "
        "simultaneous: they hold for all systems at once; marginal: for this system alone. Tied: 1 is in its "
        "simultaneous rank set (it may be first)." % _level(result)
    )


def comparison_columns(result, frame):
    """The columns of a vs-winner table after the difference: ``[(column(s), heading), ...]``.

    The interval dual with the verdict comes first, then the p-value it is the
    inversion of, then the stars; with the max-t step-down, the marginal
    interval and the unadjusted p-value follow (they go together); then the
    other corrections' p-values and the item tests.  A column is a pair of
    names for an interval.
    """
    level = _level(result)
    primary = primary_correction(result)
    dual = dual_interval(frame, primary)
    if dual.family_wise:
        cols = [
            ((dual.low, dual.high), dual.header(level)),
            (dual.p, "p (%s)" % correction_name(primary, header=True)),
            ("stars", "Stars"),
            (("ci_low", "ci_high"), interval_header(False, level)),
            ("p_value", "p (this pair alone)"),
        ]
    else:
        cols = [((dual.low, dual.high), dual.header(level)), ("p_value", "p (this pair alone)")]
        if primary != "none" and "p_" + primary in frame.columns:
            cols.append(("p_" + primary, "p (%s)" % correction_name(primary, header=True)))
        cols.append(("stars", "Stars"))
    shown = set(c for c, _ in cols)
    for c, h in p_columns(frame, corrections_of(result)):
        if c not in shown:
            cols.append((c, h))
    return cols


def verdict_caption(result, frame):
    """What the interval beside the verdict is, in plain words (no correction is blamed for a disagreement)."""
    level = _level(result)
    primary = primary_correction(result)
    dual = dual_interval(frame, primary)
    family = family_description(result.signature.family)
    if dual.family_wise:
        return (
            "The verdict (stars, significant) is the max-t step-down's (Romano-Wolf) over %s: a pair is "
            "significant when p (max-t) < %s = %g, in the direction of its difference. The simultaneous %s "
            "intervals (single-step max-t) hold together over %s; one excludes 0 exactly when the "
            "step-down decides the pair at its first step. %s. The %s interval, this pair alone, goes with the "
            "unadjusted p-value (p (this pair alone))."
            % (family, "\u03b1", result.signature.alpha, level, family, direction_words(level), level)
        )
    if primary == "none":
        return (
            "The verdict comes from the unadjusted p-value, which is the inversion of the %s interval, this "
            "pair alone: it excludes 0 exactly when p < %s = %g." % (level, "\u03b1", result.signature.alpha)
        )
    return (
        "The verdict comes from %s-adjusted p-values over %s. %s adjusts p-values and has no interval: the "
        "interval shown is this pair's alone and goes with the unadjusted p-value (p (this pair alone))."
        % (correction_name(primary), family, correction_name(primary, long=True))
    )


def comparison_cells(r, cols, digits, alpha):
    """The formatted cells of one comparison row for :func:`comparison_columns`."""
    cells = []
    for column, _ in cols:
        if isinstance(column, tuple):
            cells.append(format_ci(r.get(column[0]), r.get(column[1]), digits))
        elif column == "stars":
            cells.append(verdict_mark(r))
        else:
            cells.append(format_p(r.get(column), alpha=alpha))
    return cells
