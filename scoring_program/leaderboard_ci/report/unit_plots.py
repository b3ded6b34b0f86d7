"""The distribution of per-unit values of every system (per-query nDCG, ...), for the end-of-phase report.

Drawn on a figure that :mod:`leaderboard_ci.report.plots` (which alone imports
matplotlib) makes and passes in, from a target's ``unit_values`` summary
(:mod:`leaderboard_ci.phase.analysis.unit_values`); the report shows it when the task
offers per-unit values, without naming the task.
"""

from __future__ import annotations

from ..core.numeric import is_finite_number
from .figure_layout import (
    BASELINE,
    OTHER,
    TIED,
    WINNER,
    figure_title,
    interval_bar,
    name_fontsize,
    name_width,
    ranked_axis,
)
from .figure_layout import fit_texts as _fit

__all__ = ["unit_distribution_plot", "UNIT_PLOT_MAX"]

#: At most this many systems (the best-ranked) in the distribution figure.
UNIT_PLOT_MAX = 100


def unit_distribution_plot(target, new_figure, baseline=None, legend_loc="lower center"):
    """Each system's distribution of per-unit values (per-query nDCG, ...), best system at the top.

    Draws ``target.unit_values`` (see :mod:`leaderboard_ci.phase.analysis.unit_values`):
    a box from the first to the third quartile with the median, whiskers from
    the 5th to the 95th percentile, and a diamond at the mean, which is the
    system's score in the ranking table.  Colours as in :func:`ordered_ci_plot`.
    Returns None when the target has no per-unit values.

    Parameters
    ----------
    target : TargetAnalysis
    new_figure : callable
        ``new_figure(width, height)`` -> a matplotlib Figure (constrained layout).
    baseline : str, optional
    legend_loc : str
        Where the legend goes (``"outside lower center"`` where matplotlib has it).
    """
    frame = getattr(target, "unit_values", None)
    if frame is None or len(frame) == 0:
        return None
    total = len(frame)
    frame = frame.iloc[:UNIT_PLOT_MAX]
    names = list(frame["system"])
    m = len(names)
    unit = str(frame.attrs.get("unit_name", "unit"))
    fs = name_fontsize(m)
    tied = set(target.tied_with_winner)
    fig = new_figure(max(5.6, 3.4 + name_width(names, fs)), 1.6 + 0.27 * m)
    ax = fig.add_subplot(1, 1, 1)
    half = 0.32 if m <= 30 else 0.38
    for y, row in enumerate(frame.itertuples(index=False)):
        if row.system == target.winner:
            colour, face = WINNER, WINNER
        elif row.system == baseline:
            colour, face = BASELINE, BASELINE
        elif row.system in tied:
            colour, face = TIED, TIED
        else:
            colour, face = OTHER, OTHER
        if not is_finite_number(row.mean):
            continue
        interval_bar(ax, row.p05, row.p95, y, colour, "whisker:%s" % row.system, lw=1.1, zorder=2)
        box = ax.fill_between(
            [row.q25, row.q75],
            [y - half] * 2,
            [y + half] * 2,
            facecolor=face,
            alpha=0.28,
            edgecolor=colour,
            lw=1.0,
            zorder=2,
        )
        box.set_gid("box:%s" % row.system)
        ax.plot([row.median, row.median], [y - half, y + half], color=colour, lw=1.8, zorder=3)
        (mean,) = ax.plot(
            [row.mean],
            [y],
            marker="D",
            color=colour,
            markersize=5.5 if m <= 30 else 4,
            markeredgecolor="white",
            markeredgewidth=0.8,
            ls="none",
            zorder=4,
        )
        mean.set_gid("mean:%s" % row.system)
    ranked_axis(ax, names, target.winner, baseline, fs)
    ax.set_xlabel("%s per %s" % (figure_title(target), unit))
    shown = "" if total <= m else " (the best %d of %d systems)" % (m, total)
    plural = str(frame.attrs.get("unit_plural", unit + "s"))
    ax.set_title("%s: distribution over the %s%s" % (figure_title(target), plural, shown), fontsize=11, loc="left")
    handles = [
        ax.fill_between([], [], [], facecolor=OTHER, alpha=0.28, edgecolor=OTHER, label="quartiles and median"),
        ax.plot([], [], color=OTHER, lw=1.1, label="5th to 95th percentile")[0],
        ax.plot([], [], color=OTHER, marker="D", ls="none", label="mean (the score)")[0],
    ]
    fig.legend(handles=handles, loc=legend_loc, ncol=3, fontsize=9, frameon=False)
    return _fit(fig)
