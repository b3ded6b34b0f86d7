"""The rank confidence sets of a target as a figure (drawn on :mod:`leaderboard_ci.report.plots`' figures).

Like :mod:`leaderboard_ci.report.field_plots`, this module does not import
matplotlib itself: it draws through the methods of the figures that
:mod:`leaderboard_ci.report.plots` makes.

:func:`rank_set_plot` draws, for each system in rank order (best at the top),
its point rank (a dot), its simultaneous rank set (a thick light bar: the
ranks it can hold while the sets of all systems hold together at the
confidence level) and its marginal rank set (a thin dark bar: this system
alone), from the columns ``rank``, ``rank_set_low``, ``rank_set_high``,
``rank_set_marginal_low`` and ``rank_set_marginal_high`` of ``TargetAnalysis.systems``
(Mogstad, Romano, Shaikh & Wilhelm 2024).  The bars span exactly
``[low, high]`` in data coordinates (square or bar ends keep a one-rank set
visible), and carry ``gid`` values
``rankset:simultaneous:<system>``, ``rankset:marginal:<system>`` and
``rank:<system>`` so that tests can read back what was drawn.
"""

from __future__ import annotations

from .figure_layout import BASELINE, INK, OTHER, TIED, WINNER, figure_title, name_fontsize, name_width, ranked_axis
from .figure_layout import fit_texts as _fit
from .plots import _figure, bottom_legend
from .verdicts import has_rank_sets

__all__ = ["rank_set_plot", "LIGHT", "DARK"]

#: Share of the system's colour in the simultaneous (thick) bars, mixed with white; the marginal bars are dark.
LIGHT = 0.35
#: Line widths (points) of the simultaneous and marginal bars.
THICK, THIN = 7.0, 1.8
DARK = INK


def _light(colour, share=LIGHT):
    """``colour`` (``#rrggbb``) mixed with white, ``share`` of it kept: opaque, so ends and bar do not add up."""
    rgb = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    return "#%02x%02x%02x" % tuple(int(round(255 - share * (255 - c))) for c in rgb)


def _colour(row, winner, baseline):
    if row.name == winner:
        return WINNER
    if baseline is not None and row.name == baseline:
        return BASELINE
    return TIED if int(row.rank_set_low) == 1 else OTHER


def rank_set_plot(target, confidence_level=0.95, baseline=None):
    """Each system's rank with its simultaneous and marginal rank confidence sets.

    Parameters
    ----------
    target : TargetAnalysis
        Its ``systems`` (rank order) with ``rank_set_low``, ``rank_set_high``,
        ``rank_set_marginal_low`` and ``rank_set_marginal_high``.
    confidence_level : float
        For the axis label.
    baseline : str, optional
        Drawn in the baseline's colour.

    Returns
    -------
    matplotlib.figure.Figure
        Blue: 1 is in the system's simultaneous rank set (tied with the
        winner); dark blue: the winner; grey: the others.

    Raises
    ------
    ValueError
        When the systems carry no rank sets.
    """
    frame = target.systems
    if not has_rank_sets(frame):
        raise ValueError(
            "the rank-set figure needs the columns rank_set_low, rank_set_high, rank_set_marginal_low and "
            "rank_set_marginal_high; the systems have %s" % ", ".join(map(str, frame.columns))
        )
    names = list(frame["name"])
    m = len(names)
    fs = name_fontsize(m)
    fig = _figure(max(5.6, 3.6 + name_width(names, fs)), 1.7 + 0.27 * m)
    ax = fig.add_subplot(1, 1, 1)
    highest = 1
    for y, row in enumerate(frame.itertuples(index=False)):
        _draw_row(ax, y, row, _colour(row, target.winner, baseline), 5.5 if m <= 30 else 4)
        highest = max(highest, int(row.rank_set_high), int(row.rank_set_marginal_high), int(row.rank))
    ranked_axis(ax, names, target.winner, baseline, fs)
    ax.set_xlim(0.4, highest + 0.6)
    ax.xaxis.get_major_locator().set_params(integer=True)  # the default locator is a MaxNLocator
    ax.set_xlabel("rank (1 = best), %g%% rank confidence sets" % (100 * confidence_level))
    ax.set_title("%s: rank confidence sets" % figure_title(target), fontsize=11, loc="left")
    _legend(fig, ax)
    return _fit(fig)


def _draw_row(ax, y, row, colour, point_size):
    """One system's marks: its simultaneous set (thick, light), marginal set (thin, dark) and rank (dot)."""
    lo, hi = int(row.rank_set_low), int(row.rank_set_high)
    mlo, mhi = int(row.rank_set_marginal_low), int(row.rank_set_marginal_high)
    # square ends (markers) keep a one-rank set visible; the line spans exactly [low, high]
    (wide,) = ax.plot(
        [lo, hi],
        [y, y],
        color=_light(colour),
        lw=THICK,
        solid_capstyle="butt",
        marker="s",
        markersize=THICK,
        markeredgewidth=0,
        zorder=2,
    )
    wide.set_gid("rankset:simultaneous:%s" % row.name)
    (thin,) = ax.plot(
        [mlo, mhi],
        [y, y],
        color=DARK,
        lw=THIN,
        solid_capstyle="butt",
        marker="|",
        markersize=THICK + 2,
        markeredgewidth=THIN,
        zorder=3,
    )
    thin.set_gid("rankset:marginal:%s" % row.name)
    (point,) = ax.plot(
        [int(row.rank)],
        [y],
        "o",
        color=colour,
        markersize=point_size,
        markeredgecolor="white",
        markeredgewidth=0.8,
        zorder=4,
    )
    point.set_gid("rank:%s" % row.name)


def _legend(fig, ax):
    """The legend below the axes: the two kinds of set and the rank's dot."""
    handles = [
        ax.plot(
            [],
            [],
            color=_light(OTHER),
            lw=THICK,
            marker="s",
            markersize=THICK,
            markeredgewidth=0,
            label="simultaneous rank set (all systems at once)",
        )[0],
        ax.plot(
            [],
            [],
            color=DARK,
            lw=THIN,
            marker="|",
            markersize=THICK + 2,
            markeredgewidth=THIN,
            label="marginal rank set (this system alone)",
        )[0],
        ax.plot([], [], "o", color=TIED, label="rank; blue: 1 in the simultaneous set (tied)")[0],
    ]
    bottom_legend(fig, handles, ncol=1)
