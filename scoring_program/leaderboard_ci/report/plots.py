"""The report's figures (the only module of the package that imports matplotlib).

One function per figure, each taking a :class:`~leaderboard_ci.phase.analysis.TargetAnalysis`
and returning a :class:`matplotlib.figure.Figure` drawn on the Agg canvas
(no pyplot, no global state, nothing shown on screen):

* :func:`ordered_ci_plot`: systems sorted by score, point and CI whisker,
  winner highlighted, the systems tied with it and the baseline marked
  (CompStats Fig. 1);
* :func:`difference_plot`: each system's difference to the winner with its
  CI, red when the interval contains 0 and green otherwise (CompStats Fig. 2);
* :func:`pair_heatmap`: the lower-triangular matrix of pairwise differences
  (column minus row) on a diverging colour map centred at 0, with stars;
* :func:`bootstrap_difference_plot`: the bootstrap distribution of the
  difference winner minus runner-up, with lines at 0 and the observed
  difference δ, the interval, and the tail its p-value reads shaded (CompStats Fig. 3);
* :func:`~.unit_plots.unit_distribution_plot` (drawn on this module's figures):
  when the task scores the mean of a value per unit (a query), each system's
  distribution of those values.

:func:`save_figure` writes a figure as PNG, PDF or SVG; :func:`figure_png`
returns PNG bytes (for the HTML report).  Artists carry ``gid`` values
(``ci:<system>``, ``point:<system>``) so tests and tools can find them.
"""

from __future__ import annotations

import io
import math
import os
from collections import OrderedDict

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle

from ..core.numeric import is_finite_number
from .figure_layout import (
    BASELINE,
    FIGURES,
    GREEN,
    HEATMAP_STARS_MAX,
    HEATMAP_VALUES_MAX,
    INK,
    MARKS_KEY,
    MINUS,
    OTHER,
    RED,
    TIED,
    WINNER,
    ci_contains_zero,
    counted_replicates,
    decimals_for,
    far_off,
    figure_title,
    heatmap_key_box,
    heatmap_marks,
    heatmap_scale,
    histogram_edges,
    interval_bar,
    name_fontsize,
    name_width,
    oriented_difference,
    p_value_tail,
    png_texts,
    ranked_axis,
    set_png_text,
    short_name,
    short_names,
)
from .figure_layout import fit_texts as _fit
from .formatting import format_p, p_phrase
from .scale import pair_matrix
from .unit_plots import unit_distribution_plot
from .verdicts import DIRECTION_MARK, dual_interval, verdict_marks

__all__ = [
    "ordered_ci_plot",
    "difference_plot",
    "pair_heatmap",
    "bootstrap_difference_plot",
    "target_figures",
    "counted_replicates",
    "save_figure",
    "figure_png",
    "freeze_layout",
    "FIGURES",
    "RED",
    "GREEN",
    "ci_contains_zero",
    "short_name",
]


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------
def _figure(width, height):
    """A Figure on the Agg canvas with constrained layout."""
    try:
        fig = Figure(figsize=(width, height), layout="constrained")
    except TypeError:  # matplotlib < 3.5
        fig = Figure(figsize=(width, height), constrained_layout=True)
    FigureCanvasAgg(fig)
    return fig


def _mark_off_scale(ax, side, limits, y, value, colour, fontsize, digits=4, name=None):
    """Clip the axis to ``limits`` and mark a row whose value is beyond them with an arrow and the value."""
    low, high = limits
    pad = 0.06 * (high - low)
    ax.set_xlim(low - pad, high + pad)
    x = low - pad if side == "left" else high + pad
    marker = "<" if side == "left" else ">"
    (edge,) = ax.plot([x], [y], marker=marker, color=colour, markersize=8, ls="none", clip_on=False, zorder=4)
    edge.set_gid("offscale" if name is None else "offscale:%s" % name)
    text = ("%.*f" % (digits, value)).replace("-", MINUS) + " (off scale)"
    ax.annotate(
        text,
        (x, y),
        xytext=(9 if side == "left" else -9, 0),
        textcoords="offset points",
        va="center",
        ha="left" if side == "left" else "right",
        fontsize=fontsize - 1,
        color=colour,
    )


# ---------------------------------------------------------------------------
# Figure 1: ordered CIs
# ---------------------------------------------------------------------------
def ordered_ci_plot(target, baseline=None, confidence_level=0.95):
    """Systems sorted by score, each a point with its CI whisker (CompStats Fig. 1).

    Parameters
    ----------
    target : TargetAnalysis
    baseline : str, optional
        The baseline system's name: drawn in its own colour with a dashed
        vertical line at its score; when it is far below (or above) every
        other system, the axis covers the others only and the baseline is an
        arrow at the edge with its score.
    confidence_level : float
        For the axis label only.

    Returns
    -------
    matplotlib.figure.Figure
        The winner is dark blue (its interval shaded across the plot), the
        systems not significantly different from it light blue, the others
        grey; the best system is at the top.
    """
    frame = target.systems
    names = list(frame["name"])
    m = len(names)
    fs = name_fontsize(m)
    tied = set(target.tied_with_winner)
    height = 1.5 + 0.27 * m
    fig = _figure(max(5.6, 3.4 + name_width(names, fs)), height)
    ax = fig.add_subplot(1, 1, 1)
    winner = frame.iloc[0]
    if is_finite_number(winner["ci_low"]) and is_finite_number(winner["ci_high"]):
        ax.axvspan(winner["ci_low"], winner["ci_high"], color=WINNER, alpha=0.08, lw=0, zorder=0)
    far, limits = far_off(frame, protect=(target.winner,))
    if baseline is not None and baseline in names and baseline not in far:
        b_score = float(frame.loc[frame["name"] == baseline, "score"].iloc[0])
        ax.axvline(b_score, color=BASELINE, ls="--", lw=1, zorder=1)
    for y, row in enumerate(frame.itertuples(index=False)):
        if row.name == target.winner:
            colour, marker = WINNER, "D"
        elif row.name == baseline:
            colour, marker = BASELINE, "s"
        elif row.name in tied:
            colour, marker = TIED, "o"
        else:
            colour, marker = OTHER, "o"
        if row.name in far:  # drawn outside the axis' limits (clipped): an arrow at the edge shows it
            _mark_off_scale(ax, far[row.name], limits, y, float(row.score), colour, fs, name=row.name)
        _ci_bar(ax, row, y, colour)
        (point,) = ax.plot(
            [row.score],
            [y],
            marker=marker,
            color=colour,
            markersize=6 if m <= 30 else 4.5,
            markeredgecolor="white",
            markeredgewidth=0.8,
            ls="none",
            zorder=3,
        )
        point.set_gid("point:%s" % row.name)
    ranked_axis(ax, names, target.winner, baseline, fs)
    ax.set_xlabel("%s (%s), %g%% CI" % (figure_title(target), target.metric.better, 100 * confidence_level))
    ax.set_title("%s: systems ranked by score" % figure_title(target), fontsize=11, loc="left")
    handles = [
        Line2D([], [], color=WINNER, marker="D", lw=2, label="winner (shaded: its CI)"),
        Line2D([], [], color=TIED, marker="o", lw=2, label="tied with the winner"),
        Line2D([], [], color=OTHER, marker="o", lw=2, label="not tied with the winner"),
    ]
    if baseline is not None and baseline in names:
        handles.append(Line2D([], [], color=BASELINE, marker="s", ls="--", lw=1, label="baseline"))
    bottom_legend(fig, handles, ncol=2)
    return _fit(fig)


def bottom_legend(fig, handles, ncol):
    """The figure's legend centred below the axes (outside them where matplotlib allows), small and frameless."""
    fig.legend(
        handles=handles,
        loc="outside lower center" if _outside_ok() else "lower center",
        ncol=ncol,
        fontsize=9,
        frameon=False,
    )


def _outside_ok():
    """Whether legends can be placed outside the axes (matplotlib >= 3.7)."""
    import matplotlib

    major, minor = (int(x) for x in matplotlib.__version__.split(".")[:2])
    return (major, minor) >= (3, 7)


# ---------------------------------------------------------------------------
# Figure 2: differences to the winner
# ---------------------------------------------------------------------------
def _decision_colour(row):
    """Red: not significantly different from the winner (tied); green: significantly worse.

    The decision is the analysis' own (``significant``, from the primary correction's
    p-values); without it, whether the interval contains 0.
    """
    significant = getattr(row, "significant", None)
    if significant is None or not isinstance(significant, (bool, np.bool_)):
        if not (is_finite_number(row.ci_low) and is_finite_number(row.ci_high)):
            return OTHER
        return RED if ci_contains_zero(row.ci_low, row.ci_high) else GREEN
    return GREEN if bool(significant) else RED


def difference_plot(target, confidence_level=0.95, baseline=None, decision=None, primary=None):
    """Each system's difference to the winner with its CI (CompStats Fig. 2).

    The difference is oriented (positive: the winner is better), and the axis says
    which system is subtracted from which.  The colour is the decision shown in the
    tables' row: red when the system is not significantly different from the winner
    (tied with it), green when it is, by the ``decision`` correction's p-values (the
    analysis' ``significant`` column); the bars are the unadjusted intervals, and the
    legend says so.  Without a ``significant`` column, red means the interval contains
    0.  With ``primary="maxt"`` and family-wise intervals in the frame, the bars are the
    simultaneous intervals ``[fw_low, fw_high]`` of the max-t family, the intervals beside the
    verdicts (a bar excludes 0 exactly when the row is significant and not ``direction_only``;
    a direction-only row's bar is dashed).
    The stars of the corrected test are printed beside each interval.  A
    ``baseline`` far beyond every other system is drawn as an arrow at the edge with its
    difference, so that it does not squash the others.

    Raises
    ------
    ValueError
        With fewer than two systems.
    """
    frame = target.vs_winner
    if len(frame) == 0:
        raise ValueError("the differences to the winner need at least two systems")
    dual = dual_interval(frame, primary or "none")
    if dual.family_wise:  # draw the interval the verdict comes from
        frame = frame.assign(ci_low=frame[dual.low], ci_high=frame[dual.high])
    by_decision = "significant" in frame.columns
    names = list(frame["name"])
    m = len(names)
    fs = name_fontsize(m)
    fig = _figure(max(6.4, 3.8 + name_width(names, fs)), 1.9 + 0.27 * m)
    ax = fig.add_subplot(1, 1, 1)
    ax.axvline(0.0, color=INK, lw=1, zorder=1)
    direction = bool(dual.family_wise and "direction_only" in frame.columns and frame["direction_only"].any())
    _interval_rows(ax, frame, m, direction)
    far, limits = far_off(frame, keep=(0.0,))
    marks = verdict_marks(frame)
    # stars just right of each interval, in data coordinates padded by a few points
    for y, row in enumerate(frame.itertuples(index=False)):
        mark = marks[y]
        x = row.ci_high if is_finite_number(row.ci_high) else row.diff
        if mark and is_finite_number(x) and row.name not in far:
            ax.annotate(
                mark, (x, y), xytext=(4, 0), textcoords="offset points", va="center", fontsize=fs - 1, color=INK
            )
    ax.set_yticks(range(m))
    ax.set_yticklabels(short_names(names), fontsize=fs)
    ax.set_ylim(m - 0.5, -0.5)
    for y, row in enumerate(frame.itertuples(index=False)):
        if row.name in far:  # a system far beyond the others: an arrow at the edge with its difference
            _mark_off_scale(ax, far[row.name], limits, y, float(row.diff), _decision_colour(row), fs, name=row.name)
            mark = marks[y]
            if mark:
                ax.texts[-1].set_text(ax.texts[-1].get_text() + " " + mark)
    low, high = ax.get_xlim()
    span = high - low
    ax.set_xlim(min(low, -0.05 * span), high + 0.06 * span)  # 0 always visible, room for the stars
    ax.grid(axis="x", color="#e6e9ed", lw=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.set_xlabel(
        "%s, %g%% %s (positive: %s is better; %s)"
        % (
            oriented_difference(target.metric, target.winner, "system"),
            100 * confidence_level,
            "simultaneous interval" if dual.family_wise else "CI",
            short_name(target.winner, 24),
            target.metric.better,
        )
    )
    ax.set_title("%s: differences to the winner" % figure_title(target), fontsize=11, loc="left")
    handles = _difference_legend(by_decision, dual.family_wise, direction, decision, confidence_level)
    bottom_legend(fig, handles, ncol=1)
    return _fit(fig)


# ---------------------------------------------------------------------------


def _ci_bar(ax, row, y, colour, **style):
    """A system's interval ``row.ci_low``..``row.ci_high`` as a bar with end ticks (nothing when it is undefined)."""
    if is_finite_number(row.ci_low) and is_finite_number(row.ci_high):
        bar = dict(lw=2.2, solid_capstyle="butt", zorder=2, **style)
        interval_bar(ax, row.ci_low, row.ci_high, y, colour, "ci:%s" % row.name, 0.22, **bar)


def _interval_rows(ax, frame, m, direction):
    """One row per system: its interval (a bar with end ticks) and its difference (a dot), in its decision's colour."""
    for y, row in enumerate(frame.itertuples(index=False)):
        colour = _decision_colour(row)
        # dashed where only its direction is decided
        _ci_bar(ax, row, y, colour, ls="--" if direction and bool(row.direction_only) else "-")
        (point,) = ax.plot(
            [row.diff],
            [y],
            "o",
            color=colour,
            markersize=5.5 if m <= 30 else 4,
            markeredgecolor="white",
            markeredgewidth=0.8,
            zorder=3,
        )
        point.set_gid("point:%s" % row.name)


def _difference_legend(by_decision, family_wise, direction, decision, confidence_level):
    """The legend of :func:`difference_plot`: what the colours decide and which intervals the bars are."""
    if by_decision:
        how = decision or "the corrected test"
        handles = [
            Line2D([], [], color=RED, marker="o", lw=2, label="tied with the winner: not significant (%s)" % how),
            Line2D([], [], color=GREEN, marker="o", lw=2, label="differs from the winner: significant (%s)" % how),
            Line2D(
                [],
                [],
                color=OTHER,
                lw=2,
                label=(
                    "bars: simultaneous %g%% intervals (max-t), 0 outside when decided at the first step"
                    % (100 * confidence_level)
                )
                if family_wise
                else "bars: %g%% intervals, each pair alone; colour: %s decision"
                % (100 * confidence_level, "the %s" % decision if decision else "the corrected test's"),
            ),
        ]
        words = "%s dashed: a later step decides the direction; the interval still holds 0" % DIRECTION_MARK
        handles += [Line2D([], [], color=GREEN, lw=2, ls="--", label=words)] if direction else []
    else:
        handles = [
            Line2D([], [], color=RED, marker="o", lw=2, label="CI includes 0: may not differ from the winner"),
            Line2D([], [], color=GREEN, marker="o", lw=2, label="CI excludes 0: differs from the winner"),
        ]
    return handles


# ---------------------------------------------------------------------------
# Pairwise heatmap
# ---------------------------------------------------------------------------
def pair_heatmap(target, cmap="RdBu"):
    """The lower-triangular matrix of pairwise differences, coloured and starred.

    Row = the lower-ranked system, column = the higher-ranked one; a cell is
    column minus row (oriented: positive means the column is better), on a
    diverging colour map centred at 0.  Cells show the difference and its
    stars up to :data:`HEATMAP_VALUES_MAX` compared systems, the stars only
    up to :data:`HEATMAP_STARS_MAX`, then colours only.  Fonts shrink with
    the number of systems.

    Raises
    ------
    ValueError
        With fewer than two systems.
    """
    names = list(target.systems["name"])
    m = len(names)
    if m < 2:
        raise ValueError("the pairwise matrix needs at least two systems")
    k = m - 1
    rows, cols = names[1:], names[:-1]
    diff = target.pair_matrix("diff").loc[rows, cols].to_numpy(dtype=float)
    star = pair_matrix(target, "marks").loc[rows, cols].to_numpy(dtype=object)
    lower = np.tril(np.ones((k, k), dtype=bool))
    values = np.where(lower, diff, np.nan)
    scale = heatmap_scale(values, rows, cols, far_off(target.systems, protect=(target.winner,))[0])
    vmax = scale.vmax
    fs = name_fontsize(m)
    cell = 0.5 if k <= HEATMAP_VALUES_MAX else max(0.2, 0.36 - 0.004 * (k - 12))
    label_room = name_width(names, fs)
    side = k * cell + label_room
    fig = _figure(max(4.2, side + 1.9), max(3.0, side + 0.6))
    ax = fig.add_subplot(1, 1, 1)
    if scale.sequential:  # every difference >= 0 (the usual case: rank order): one hue from 0
        cmap, norm = cmap if cmap != "RdBu" else "Blues", Normalize(0.0, vmax)
    else:
        norm = Normalize(-vmax, vmax)
    image = ax.imshow(
        np.ma.masked_invalid(values),  # beyond the scale: the end colours (the colour map's over/under)
        cmap=cmap,
        norm=norm,
        aspect="equal",
        interpolation="nearest",
    )
    image.set_gid("heatmap")
    for i, j in zip(*np.nonzero(scale.clipped)):  # beyond the colour scale: hatched
        ax.add_patch(
            Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="////", edgecolor="white", lw=0, gid="clipped")
        )
    ax.set_xticks(range(k))
    ax.set_yticks(range(k))
    labels = dict(zip(names, short_names(names)))
    if k <= 15:
        ax.set_xticklabels([labels[n] for n in cols], rotation=45, ha="right", rotation_mode="anchor", fontsize=fs)
    else:
        ax.set_xticklabels([labels[n] for n in cols], rotation=90, fontsize=fs)
    ax.set_yticklabels([labels[n] for n in rows], fontsize=fs)
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    if k <= HEATMAP_STARS_MAX:
        _heatmap_cell_texts(ax, values, star, k, vmax)
    _heatmap_key(fig, ax, image, scale, target, k, cell)
    ax.set_title("%s: pairwise differences" % figure_title(target), fontsize=11, loc="left")
    return _fit(fig)


def _heatmap_cell_texts(ax, values, star, k, vmax):
    """Each lower-triangle cell's difference and stars (the stars only above :data:`HEATMAP_VALUES_MAX`)."""
    finite = values[np.isfinite(values)]
    decimals = decimals_for(finite) if finite.size else 3
    text_fs = 8.0 if k <= HEATMAP_VALUES_MAX else max(6.5, 7.5 - 0.08 * k)
    for i in range(k):
        for j in range(i + 1):
            value = values[i, j]
            if not np.isfinite(value):
                continue
            mark = star[i, j] or ""
            text = (
                ("%.*f" % (decimals, value)).replace("-", MINUS) + ("\n" + mark if mark else "")
                if k <= HEATMAP_VALUES_MAX
                else mark
            )
            if not text:
                continue
            dark = abs(value) > 0.55 * vmax
            ax.text(
                j, i, text, ha="center", va="center", fontsize=text_fs, linespacing=1.0, color="white" if dark else INK
            )


def _wrap_to(text, inches, fontsize):
    """``text`` with each line wrapped at spaces to at most ``inches`` long at ``fontsize`` (a generous estimate)."""
    import textwrap

    chars = max(12, int(inches * 72.0 / (0.6 * fontsize)))
    return "\n".join(textwrap.fill(line, chars) for line in text.split("\n"))


def _heatmap_key(fig, ax, image, scale, target, k, cell):
    """The colour bar, its label (with the hatching's meaning) and the marks' key in the PNG's text."""
    vmax = scale.vmax
    # the colour bar hugs the image (an inset of the axes, which aspect="equal" shrinks to the image); a large
    # matrix is wider than a window, so its bar lies across the empty upper triangle, near the names on the left
    # (on the right it was off-screen at 800 px)
    box, across = heatmap_key_box(k, cell)  # a large matrix's bar lies across its empty upper triangle
    cax = ax.inset_axes(box)
    cax.set_gid("key")  # what the reader needs to read the colours: the page checks that it is on screen
    bar = fig.colorbar(image, cax=cax, extend=scale.extend, orientation="horizontal" if across else "vertical")
    set_png_text(fig, MARKS_KEY, heatmap_marks(k))
    label = "%s (positive: column better)%s" % (
        oriented_difference(target.metric, "column", "row"),
        "\nhatched: beyond %s (far-off systems; values in the table)" % ("%.*f" % (decimals_for([vmax]), vmax))
        if scale.clipped.any()
        else "",
    )
    if across:  # from the bar's left end rightwards: over the empty triangle, never over the cells
        cax.set_xlabel(label, fontsize=8, loc="left")
    else:
        # a vertical label longer than the figure is tall collapses the layout (a small matrix with far-off
        # systems: the hatching's line): each line wrapped to the height left beside the title
        room = fig.get_size_inches()[1] - 0.8
        bar.set_label(_wrap_to(label, room, 8), fontsize=8)
    bar.ax.tick_params(labelsize=8)


# ---------------------------------------------------------------------------
# Figure 3: bootstrap distribution of winner - runner-up
# ---------------------------------------------------------------------------
def _sides(target, sides):
    """The sides of ``target``'s p-values: as given, else two when a one-sided column sits beside them."""
    if sides in ("one", "two"):
        return sides
    return "two" if "p_one_sided" in target.vs_winner.columns else "one"


def bootstrap_difference_plot(target, bins=40, sides=None, method="percentile", confidence_level=0.95):
    """Histogram of the bootstrap replicates of winner minus runner-up (CompStats Fig. 3).

    The replicate differences are ``sign * (replicates[:, 0] -
    replicates[:, 1])`` (positive: the winner is better).  Vertical lines mark
    0 and the observed difference δ (and 2δ for ``basic``); a bar at the top
    spans the interval of the winner-vs-runner-up row (``ci_low``, ``ci_high``).
    The p-value in the title inverts that interval
    (:mod:`leaderboard_ci.core.intervals`), and the figure shades what it reads
    (:func:`~.figure_layout.p_value_tail`): for ``percentile`` and ``bca`` the
    replicates at or below 0 (the one-sided p is their share, interpolated; BCa
    maps it through its level map), for ``basic`` those at or beyond 2δ, for
    ``normal`` the area below 0 of the normal curve ``N(δ, SE²)``.  The legend says
    how the p-value follows (two-sided: twice the shaded tail's one-sided p).

    Parameters
    ----------
    target : TargetAnalysis
    bins : int
        Bars when the differences do not lie on a lattice.
    sides : {"one", "two"}, optional
        Which p-value ``p_bootstrap`` is (default: two when the target also
        has ``p_one_sided``, else one).
    method : {"percentile", "basic", "bca", "normal"}
        The analysis' ``bootstrap.method`` (the interval the p-value inverts).
    confidence_level : float
        The level of the interval, for its legend entry.

    Raises
    ------
    ValueError
        With fewer than two systems or without replicates, or an unknown method.
    """
    if target.replicates is None or target.replicates.shape[1] < 2 or len(target.vs_winner) == 0:
        raise ValueError("the bootstrap distribution needs two systems and their replicates")
    two = _sides(target, sides) == "two"
    tail = p_value_tail(target, method, two)
    reps = np.asarray(target.replicates, dtype=float)
    d = target.metric.sign * (reps[:, 0] - reps[:, 1])
    d = d[np.all(np.isfinite(reps), axis=1)]
    first = target.vs_winner.iloc[0]
    delta = float(first["diff"])
    winner, runner = target.winner, str(first["name"])
    fig = _figure(7.2, 5.2)
    ax = fig.add_subplot(1, 1, 1)
    handles = []
    _replicate_histogram(ax, d, tail, method, delta, bins, handles)
    top = ax.get_ylim()[1]
    ax.set_ylim(0, top * 1.3)
    _mark_lines(ax, delta, method, handles)
    _interval_bar(ax, first, top, method, confidence_level, handles)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.set_xlabel(
        "%s, %s (positive: %s is better; %s)"
        % (
            oriented_difference(target.metric, winner, runner),
            figure_title(target),
            short_name(winner, 24),
            target.metric.better,
        )
    )
    ax.set_ylabel("resamples")
    ax.set_title(
        "Winner vs runner-up over %s resamples: %s %s (%s)"
        % ("{:,}".format(d.size), "two-sided" if two else "one-sided", p_phrase(tail.p), method),
        fontsize=11,
        loc="left",
    )
    bottom_legend(fig, handles, ncol=2)
    return _fit(fig)


def _replicate_histogram(ax, d, tail, method, delta, bins, handles):
    """The replicate differences ``d`` as bars, the tail the p-value reads shaded (a normal curve for ``normal``)."""
    shade = "#e8a33d"
    low, high = min(0.0, delta), max(0.0, delta)
    if d.size == 0:
        ax.text(0.5, 0.5, "no finite bootstrap replicate", ha="center", va="center", transform=ax.transAxes)
    else:
        edges = histogram_edges(d, bins)
        counted = tail.mask if method != "normal" else np.zeros(d.size, bool)
        # Two histograms on the same edges, stacked: the shaded tail and the others; a bin can hold both.
        inside, _ = np.histogram(d[~counted], bins=edges)
        beyond, _ = np.histogram(d[counted], bins=edges)
        widths = np.diff(edges)
        keep = inside > 0
        bars = ax.bar(
            edges[:-1][keep], inside[keep], width=widths[keep], align="edge", color="#9db9dc", edgecolor="white", lw=0.4
        )
        for patch in bars.patches:
            patch.set_gid("replicates")
        handles.append(Patch(color="#9db9dc", label="bootstrap replicates of the difference"))
        keep = beyond > 0
        if keep.any():
            bars = ax.bar(
                edges[:-1][keep],
                beyond[keep],
                width=widths[keep],
                bottom=inside[keep],
                align="edge",
                color=shade,
                edgecolor="white",
                lw=0.4,
            )
            for patch in bars.patches:
                patch.set_gid("beyond")
        low, high = min(float(edges[0]), low, tail.edge), max(float(edges[-1]), high, tail.edge)
        if method == "normal":
            se = float(np.std(d, ddof=1)) if d.size > 1 else 0.0
            if se > 0:
                low, high = min(low, delta - 4 * se), max(high, delta + 4 * se)
                x = np.linspace(low, high, 400)
                y = (
                    d.size
                    * float(np.median(widths))
                    * np.exp(-0.5 * ((x - delta) / se) ** 2)
                    / (se * math.sqrt(2 * math.pi))
                )
                ax.plot(x, y, color=INK, lw=1.2, gid="normal")
                part = x <= 0.0 if tail.below else x >= 0.0
                area = ax.fill_between(x[part], 0, y[part], color=shade, alpha=0.75, lw=0)
                area.set_gid("tail:normal")
        handles.append(Patch(color=shade, label="%s\n%s" % (tail.label, tail.relation)))
        pad = 0.04 * (high - low if high > low else 1.0)
        ax.set_xlim(low - pad, high + pad)


def _mark_lines(ax, delta, method, handles):
    """Vertical lines at 0 and the observed difference (and 2 delta for ``basic``), each labelled at its top."""
    marks = [
        (0.0, "0", "no difference", INK, "-"),
        (delta, "\u03b4", "\u03b4 = %s, the observed difference" % _short(delta), WINNER, "-"),
    ]
    if method == "basic":
        marks.append((2 * delta, "2\u03b4", "2\u03b4 = %s, where basic inverts" % _short(2 * delta), "#b35900", "--"))
    x0, x1 = ax.get_xlim()
    previous = []
    for x, short, text, colour, style in marks:
        line = ax.axvline(x, color=colour, ls=style, lw=1.4)
        line.set_gid("mark:%s" % short)
        handles.append(Line2D([], [], color=colour, ls=style, lw=1.4, label=text))
        # a short label at the top of each line, raised when another label is close
        frac = (x - x0) / (x1 - x0)
        level = sum(1 for f in previous if abs(f - frac) < 0.06)
        previous.append(frac)
        ax.annotate(
            short,
            (x, 1.0),
            xycoords=("data", "axes fraction"),
            xytext=(3, -12 - 11 * level),
            textcoords="offset points",
            color=colour,
            fontsize=9,
            ha="left",
            va="bottom",
        )


def _interval_bar(ax, first, top, method, confidence_level, handles):
    """The interval the p-value inverts: a bar with end ticks just above the tallest column."""
    ci_low, ci_high = first.get("ci_low"), first.get("ci_high")
    if is_finite_number(ci_low) and is_finite_number(ci_high):
        # the interval the p-value inverts: a bar with end ticks just above the tallest column
        level = top * 1.06
        ax.plot(
            [float(ci_low), float(ci_high)],
            [level, level],
            color=INK,
            lw=2.0,
            marker="|",
            ms=10,
            mew=2.0,
            gid="ci",
            solid_capstyle="butt",
        )
        handles.append(
            Line2D(
                [],
                [],
                color=INK,
                lw=2.0,
                marker="|",
                ms=10,
                mew=2.0,
                label="%g%% %s interval [%s, %s]"
                % (100.0 * float(confidence_level), method, _short(ci_low), _short(ci_high)),
            )
        )


def _short(value):
    if not is_finite_number(value):
        return "\u2013"
    return ("%.*f" % (decimals_for([value]) + 1, value)).replace("-", MINUS)


def _p(value):
    return format_p(value)


# ---------------------------------------------------------------------------
# All figures of a target; saving
# ---------------------------------------------------------------------------
def target_figures(
    target, baseline=None, confidence_level=0.95, sides=None, decision=None, primary=None, method="percentile"
):
    """The figures of one target as ``name -> Figure`` (see :data:`FIGURES` for the names).

    With a single system only the ordered CI plot is made; the bootstrap
    distribution needs the replicates.  ``sides`` and ``method`` (the analysis'
    ``bootstrap.method``) are passed to :func:`bootstrap_difference_plot`; ``decision`` (the primary correction's
    display
    name) and ``primary`` (its key) to :func:`difference_plot`.  The rank-set figure is
    drawn by :func:`leaderboard_ci.report.html_parts.view_figures` (it is in another module).
    """
    out = OrderedDict()
    out["ordered_ci"] = ordered_ci_plot(target, baseline=baseline, confidence_level=confidence_level)
    distribution = unit_distribution_plot(
        target, _figure, baseline=baseline, legend_loc="outside lower center" if _outside_ok() else "lower center"
    )
    if distribution is not None:
        out["unit_distribution"] = distribution
    if len(target.systems) >= 2:
        out["vs_winner"] = difference_plot(
            target, confidence_level=confidence_level, baseline=baseline, decision=decision, primary=primary
        )
        out["pair_heatmap"] = pair_heatmap(target)
        if target.replicates is not None:
            out["bootstrap_difference"] = bootstrap_difference_plot(
                target, sides=sides, method=method, confidence_level=confidence_level
            )
    return out


def save_figure(fig, stem, formats=("png", "pdf"), dpi=150):
    """Write ``fig`` as ``stem.<format>`` for each format (png, pdf, svg); returns the paths."""
    paths = []
    for fmt in formats:
        path = "%s.%s" % (stem, fmt)
        fig.savefig(path, format=fmt, dpi=dpi, metadata=_metadata(fmt))
        paths.append(os.path.abspath(path))
    return paths


def _metadata(fmt):
    """Fixed metadata so that the same figure gives the same file."""
    if fmt == "pdf":
        return {"Creator": "leaderboard-ci", "Producer": "leaderboard-ci", "CreationDate": None}
    if fmt == "svg":
        return {"Creator": "leaderboard-ci", "Date": None}
    if fmt == "png":
        return {"Software": "leaderboard-ci"}
    return None


def freeze_layout(fig):
    """Keep the current positions of the axes: later saves skip the layout (faster, same result)."""
    try:
        fig.set_layout_engine("none")
    except AttributeError:  # matplotlib < 3.6
        fig.set_constrained_layout(False)


#: The PNG text chunk that records the smallest text of a figure, in pixels of the image (the page checks it).
MIN_FONT_KEY = "leaderboard-ci:smallest-text-px"


def smallest_text_px(fig, dpi):
    """The size in pixels, at ``dpi``, of the smallest visible text of ``fig`` (labels, ticks, notes)."""
    from matplotlib.text import Text

    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return min(sizes) * dpi / 72.0 if sizes else 0.0


#: Largest error (0-255, any channel) a palette PNG may have; above it the full-colour PNG is kept.
PALETTE_TOLERANCE = 12


def figure_png(fig, dpi=110, palette=False):
    """The figure as PNG bytes.

    With ``palette=True`` the image is reduced to 256 colours (Pillow's
    max-coverage quantizer, no dithering), about a third of the size, for
    embedding in a page; if any pixel would change by more than
    :data:`PALETTE_TOLERANCE` the full-colour PNG is returned instead.
    """
    buffer = io.BytesIO()
    texts = png_texts(fig, dpi, {MIN_FONT_KEY: "%.2f" % smallest_text_px(fig, dpi)})
    fig.savefig(buffer, format="png", dpi=dpi, metadata=dict(_metadata("png"), **texts))
    data = buffer.getvalue()
    if not palette:
        return data
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - Pillow is a dependency of matplotlib
        return data
    image = Image.open(io.BytesIO(data)).convert("RGB")
    reduced = (
        image.quantize(colors=256, method=Image.Quantize.MAXCOVERAGE, dither=Image.Dither.NONE)
        if hasattr(Image, "Quantize")
        else image.quantize(colors=256, method=1, dither=0)
    )
    error = np.abs(np.asarray(reduced.convert("RGB"), dtype=np.int16) - np.asarray(image, dtype=np.int16)).max()
    if error > PALETTE_TOLERANCE:
        return data
    out = io.BytesIO()
    from PIL.PngImagePlugin import PngInfo

    info = PngInfo()
    for key, value in dict(_metadata("png"), **texts).items():
        info.add_text(key, value)
    reduced.save(out, format="PNG", optimize=True, pnginfo=info)
    return out.getvalue() if out.tell() < len(data) else data
