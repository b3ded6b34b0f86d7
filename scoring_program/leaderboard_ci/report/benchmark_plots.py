"""The benchmark report's figures: rank intervals and the critical-difference diagram.

Drawn on the figures of :mod:`leaderboard_ci.report.plots` (which alone imports matplotlib).
"""

from __future__ import annotations

import numpy as np

from ..core.numeric import is_finite_number
from .figure_layout import INK, OTHER, RED, WINNER, interval_bar, name_fontsize, name_width, short_name, short_names
from .plots import _figure, _p

__all__ = ["rank_interval_plot", "critical_difference_diagram"]


def rank_interval_plot(frame, title="Rank with its bootstrap interval"):
    """Each system's observed rank (dot) and rank interval (bar), with P(rank = 1) at the right.

    ``frame`` has ``system``, ``rank``, ``rank_pct_low``, ``rank_pct_high`` and ``p_first``
    (one scope of :attr:`BenchmarkResult.rank_intervals`).
    """
    frame = frame.sort_values(["rank", "system"], kind="stable")
    names = list(frame["system"])
    count = len(names)
    fs = name_fontsize(count)
    fig = _figure(max(5.5, 3.0 + name_width(names, fs)), max(1.8, 0.28 * count + 1.1))
    ax = fig.add_subplot(111)
    y = np.arange(count)[::-1]
    for yi, row in zip(y, frame.itertuples(index=False)):
        colour = WINNER if row.rank == 1 else OTHER
        interval_bar(ax, row.rank_pct_low, row.rank_pct_high, yi, colour, lw=3, alpha=0.55, solid_capstyle="round")
        ax.plot([row.rank], [yi], "o", color=colour, ms=5)
        ax.annotate(
            "P(1st) %.2f" % row.p_first,
            (1.0, yi),
            xycoords=("axes fraction", "data"),
            xytext=(4, 0),
            textcoords="offset points",
            va="center",
            fontsize=fs - 1,
            color=INK,
        )
    ax.set_yticks(y)
    ax.set_yticklabels(short_names(names), fontsize=fs)
    ax.set_xlim(0.5, count + 0.5)
    ax.set_xlabel("rank (1 = best); bar: bootstrap rank interval", fontsize=9)
    ax.set_title(short_name(title, 80), fontsize=10, loc="left")
    ax.grid(axis="x", alpha=0.3)
    return fig


def critical_difference_diagram(cd, title="Critical-difference diagram"):
    """Demšar's diagram: systems on an axis of average rank, cliques of non-different systems joined.

    ``cd`` is :attr:`BenchmarkResult.critical_difference`.  Rank 1 is on the right;
    each thick bar joins systems whose differences are not significant.
    """
    names, avg = list(cd["systems"]), np.asarray(cd["average_ranks"], dtype=float)
    k = len(names)
    order = np.argsort(avg, kind="mergesort")
    cliques = cd.get("cliques") or []
    fs = 9.0
    left = [names[j] for j in order[(k + 1) // 2 :]][::-1]  # worst ranks, on the left
    right = [names[j] for j in order[: (k + 1) // 2]]  # best ranks, on the right
    rows = max(len(left), len(right))
    first_row = -0.18 - 0.09 * len(cliques)
    bottom = first_row - 0.26 * (rows - 1) - 0.2
    fig = _figure(max(6.0, 2.8 + 2 * name_width(names, fs)), 1.3 + 1.15 * (0.75 - bottom))
    ax = fig.add_subplot(111)
    ax.set_xlim(k + 0.5, 0.5)
    ax.set_ylim(bottom, 0.75)
    ax.axhline(0, color=INK, lw=1)
    for r in range(1, k + 1):
        ax.plot([r, r], [0, 0.08], color=INK, lw=0.8)
        ax.annotate(str(r), (r, 0.1), ha="center", va="bottom", fontsize=8)
    position = {names[j]: avg[j] for j in range(k)}
    labels = dict(zip(names, short_names(names)))
    for side, members, edge in (("left", left, k + 0.5), ("right", right, 0.5)):
        for i, name in enumerate(members):
            yy = first_row - 0.26 * i
            ax.plot([position[name], position[name], edge], [0, yy, yy], color=INK, lw=0.8, clip_on=False)
            ax.annotate(
                "%s (%.2f)" % (labels[name], position[name]),
                (edge, yy),
                xytext=(-4 if side == "left" else 4, 0),
                textcoords="offset points",
                ha="right" if side == "left" else "left",
                va="center",
                fontsize=fs,
                annotation_clip=False,
            )
    for i, clique in enumerate(cliques):
        ranks_ = [position[n] for n in clique]
        ax.plot(
            [min(ranks_) - 0.04, max(ranks_) + 0.04], [-0.1 - 0.09 * i] * 2, color=RED, lw=3, solid_capstyle="round"
        )
    if cd.get("cd") is not None:
        ax.plot([1, 1 + cd["cd"]], [0.55, 0.55], color=INK, lw=1.5)
        ax.annotate("CD = %.2f" % cd["cd"], (1 + cd["cd"] / 2.0, 0.57), ha="center", va="bottom", fontsize=8)
    ax.axis("off")
    test = "Nemenyi" if cd.get("test") == "nemenyi" else "Wilcoxon + Holm"
    p = cd.get("friedman_p")
    p_text = "p < 0.001" if is_finite_number(p) and p < 0.001 else "p = %s" % _p(p)
    ax.set_title(
        "%s\nFriedman %s; %s at \u03b1 = %g" % (short_name(title, 60), p_text, test, cd.get("alpha", 0.05)),
        fontsize=9,
        loc="left",
    )
    return fig
