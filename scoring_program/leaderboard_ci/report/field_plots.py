"""Figures of reports of many systems (:mod:`leaderboard_ci.report.scale`): the top of a ranking, the whole field.

Like :mod:`leaderboard_ci.report.figure_layout`, this module works on the
figures of :mod:`leaderboard_ci.report.plots` (which alone imports matplotlib)
through their methods:

* :func:`mark_top`: a figure's title says that it shows the top N of M systems;
* :func:`score_distribution_plot`: the histogram of every system's score, the
  ties with the winner stacked apart, the winner, the cut and the baseline marked.
"""

from __future__ import annotations

import numpy as np

from ..core.numeric import is_finite_number
from .figure_layout import BASELINE, INK, TIED, WINNER, figure_title, short_name
from .figure_layout import fit_texts as _fit
from .plots import _figure, _short, bottom_legend

__all__ = ["mark_top", "score_distribution_plot"]

#: The bars of the systems significantly worse than the winner.
OTHER_BARS = "#b8bfc7"


def mark_top(fig, shown, m):
    """Say in ``fig``'s title that it shows the ``shown`` best-ranked of ``m`` systems; refit its texts."""
    ax = fig.axes[0]
    # on a line of its own: appended, a title near the canvas' width could lose its end at another dpi
    ax.set_title(
        "%s\nthe top %d of %s systems" % (ax.get_title(loc="left"), shown, "{:,}".format(m)), fontsize=11, loc="left"
    )
    return _fit(fig)


def score_distribution_plot(target, shown, baseline=None, bins=40):
    """Histogram of every system's full-sample score, the ``shown`` best-ranked marked.

    The bars are stacked: the systems not significantly different from the
    winner (``target.tied_with_winner``) in light blue, the others grey, so
    that the whole field's ties can be read beside the truncated tables.
    Vertical lines mark the winner's score, the score of the last system
    shown (the cut) and the baseline's.
    """
    frame = target.systems
    scores = frame["score"].to_numpy(dtype=float)
    finite = np.isfinite(scores)
    tied = frame["name"].isin(list(target.tied_with_winner)).to_numpy() & finite
    fig = _figure(7.2, 4.4)
    ax = fig.add_subplot(1, 1, 1)
    if finite.any():
        low, high = float(scores[finite].min()), float(scores[finite].max())
        edges = np.linspace(low, high, bins + 1) if high > low else np.array([low - 0.5, high + 0.5])
        others, _ = np.histogram(scores[finite & ~tied], bins=edges)
        ties, _ = np.histogram(scores[tied], bins=edges)
        widths = np.diff(edges)
        others_tied = int(tied.sum()) - int(target.winner in set(target.tied_with_winner))
        bars = ax.bar(
            edges[:-1],
            ties,
            width=widths,
            bottom=others,
            align="edge",
            color=TIED,
            edgecolor="white",
            lw=0.4,
            label="the winner and the %s tied with it" % "{:,}".format(others_tied),
        )
        for patch in bars.patches:
            patch.set_gid("tied")
        bars = ax.bar(
            edges[:-1],
            others,
            width=widths,
            align="edge",
            color=OTHER_BARS,
            edgecolor="white",
            lw=0.4,
            label="significantly worse (%s)" % "{:,}".format(int((finite & ~tied).sum())),
        )
        for patch in bars.patches:
            patch.set_gid("others")
    winner = float(frame.loc[frame["name"] == target.winner, "score"].iloc[0])
    cut = float(frame["score"].iloc[min(shown, len(frame)) - 1])
    marks = [
        (winner, WINNER, "-", "winner %s (%s)" % (short_name(target.winner, 24), _short(winner)), "winner"),
        (cut, INK, ":", "rank %d, the last shown in the tables (%s)" % (shown, _short(cut)), "cut"),
    ]
    if baseline is not None and baseline in set(frame["name"]):
        b = float(frame.loc[frame["name"] == baseline, "score"].iloc[0])
        marks.append((b, BASELINE, "--", "baseline (%s)" % _short(b), "baseline"))
    for x, colour, style, label, gid in marks:
        if is_finite_number(x):
            line = ax.axvline(x, color=colour, ls=style, lw=1.4, label=label)
            line.set_gid("mark:%s" % gid)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.set_xlabel("%s (%s)" % (figure_title(target), target.metric.better))
    ax.set_ylabel("systems")
    ax.set_title(
        "%s: scores of all %s systems" % (figure_title(target), "{:,}".format(len(frame))), fontsize=11, loc="left"
    )
    bottom_legend(fig, ax.get_legend_handles_labels()[0], ncol=2)
    return _fit(fig)
