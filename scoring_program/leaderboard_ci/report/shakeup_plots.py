"""The shake-up's figures (drawn on :mod:`leaderboard_ci.report.plots`' figures; no matplotlib import here).

* :func:`public_private_plot`: each participant's public score (x) against its
  private score (y), each with its interval, and the identity line: a
  participant on the line scores the same on both sets;
* :func:`rank_change_plot`: each participant's row (best private rank at the
  top) with its public rank and simultaneous rank set above, its private rank
  and set below, joined by a line: a slope chart drawn per participant, so that
  it stays legible at 60 rows;
* :func:`gap_submissions_plot`: the gap (private - public) with its interval
  against the number of submissions, with the gap that picking the best of the
  participant's public submissions explains on average.

Colours: red, a gap flagged as worse on private; green, flagged as better;
dark blue, the private winner; grey, the others.  Drawn elements carry ``gid``
values (``point:<name>``, ``public_ci:<name>``, ``private_ci:<name>``,
``rank:public:<name>``, ``rankset:public:<name>``, ``gap:<name>``, ...) so that
tests read back what was drawn and compare it with the tables.
"""

from __future__ import annotations

import numpy as np

from ..core.numeric import is_finite_number
from .figure_layout import GREEN, INK, OTHER, RED, WINNER, name_fontsize, name_width, short_name, short_names
from .figure_layout import fit_texts as _fit
from .plots import _figure, bottom_legend
from .shakeup_tables import shown_rows

__all__ = ["public_private_plot", "rank_change_plot", "gap_submissions_plot", "shakeup_figures", "PUBLIC", "LABELS_MAX"]

#: The public leaderboard's colour in the rank-change figure (the private one is the winner's blue).
PUBLIC = "#b36b00"
#: At most this many participants are named inside the scatter figures (the flagged ones first, then the winner).
LABELS_MAX = 12


def _colour(row, winner):
    if bool(row.flagged):
        return RED if row.direction == "worse on private" else GREEN
    return WINNER if row.participant == winner else OTHER


def _light(colour, share=0.35):
    rgb = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    return "#%02x%02x%02x" % tuple(int(round(255 - share * (255 - c))) for c in rgb)


def _labelled(frame, winner):
    """The participants named in a scatter: the flagged ones (smallest adjusted p first), then the winner."""
    flagged = frame[frame["flagged"]].sort_values("p_fdr_bh", kind="stable")
    names = list(flagged["participant"][:LABELS_MAX])
    if winner is not None and winner not in names and len(names) < LABELS_MAX:
        names.append(winner)
    return names


def _handles(ax, frame, winner, extra=()):
    out = []
    if winner is not None:
        out.append(ax.plot([], [], "o", color=WINNER, label="private winner")[0])
    if (frame["direction"] == "worse on private").any():
        out.append(ax.plot([], [], "o", color=RED, label="gap flagged: worse on private")[0])
    if (frame["direction"] == "better on private").any():
        out.append(ax.plot([], [], "o", color=GREEN, label="gap flagged: better on private")[0])
    out.append(ax.plot([], [], "o", color=OTHER, label="gap within noise")[0])
    return out + list(extra)


def public_private_plot(result, confidence_level=None):
    """Public (x) against private (y) score, both intervals, and the identity line (see the module docstring)."""
    frame = result.participants
    m = len(frame)
    level = float(result.settings["confidence_level"] if confidence_level is None else confidence_level)
    winner = result.winners_curse.winner if result.winners_curse is not None else None
    fig = _figure(6.6, 7.0)
    ax = fig.add_subplot(1, 1, 1)
    values = np.concatenate(
        [
            frame[c].to_numpy(dtype=float)
            for c in ("public_low", "public_high", "private_low", "private_high", "public", "private")
        ]
    )
    values = values[np.isfinite(values)]
    low, high = (float(values.min()), float(values.max())) if values.size else (0.0, 1.0)
    pad = 0.04 * (high - low) if high > low else 0.01 * max(1.0, abs(high))
    low, high = low - pad, high + pad
    (diagonal,) = ax.plot([low, high], [low, high], color=INK, lw=1, ls="--", zorder=1)
    diagonal.set_gid("identity")
    thin = m > 60
    for row in frame.itertuples(index=False):
        colour = _colour(row, winner)
        width = 0.8 if thin else 1.3
        alpha = 0.45 if thin and not row.flagged else 0.9
        (xci,) = ax.plot(
            [row.public_low, row.public_high], [row.private, row.private], color=colour, lw=width, alpha=alpha, zorder=2
        )
        xci.set_gid("public_ci:%s" % row.participant)
        (yci,) = ax.plot(
            [row.public, row.public], [row.private_low, row.private_high], color=colour, lw=width, alpha=alpha, zorder=2
        )
        yci.set_gid("private_ci:%s" % row.participant)
        (point,) = ax.plot(
            [row.public],
            [row.private],
            "o",
            color=colour,
            markersize=3.5 if thin else 5.5,
            markeredgecolor="white",
            markeredgewidth=0.6,
            zorder=3 if not row.flagged else 4,
        )
        point.set_gid("point:%s" % row.participant)
    fs = 8.5
    for name in _labelled(frame, winner):
        row = frame[frame["participant"] == name].iloc[0]
        text = ax.annotate(
            short_name(str(name), 24),
            (row["public"], row["private"]),
            xytext=(5, 4),
            textcoords="offset points",
            fontsize=fs,
            color=INK,
            zorder=5,
        )
        text.set_gid("label:%s" % name)
    ax.set_xlim(low, high)
    ax.set_ylim(low, high)
    ax.set_aspect("equal", adjustable="box")
    ax.grid(color="#e6e9ed", lw=0.8)
    ax.set_axisbelow(True)
    title = result.metric.title
    ax.set_xlabel("public score (%s), %g%% CI" % (result.metric.better, 100 * level))
    ax.set_ylabel("private score, %g%% CI" % (100 * level))
    above = "better" if result.metric.sign > 0 else "worse"
    ax.set_title(
        "%s: public against private score (%d participants)" % (short_name(title, 60), m), fontsize=11, loc="left"
    )
    identity = ax.plot(
        [], [], color=INK, lw=1, ls="--", label="identity: the same score on both sets (above: %s on private)" % above
    )[0]
    bottom_legend(fig, _handles(ax, frame, winner, [identity]), ncol=2)
    return _fit(fig)


def rank_change_plot(result, rows=None, confidence_level=None):
    """Each participant's public and private rank with their simultaneous rank sets (module docstring).

    ``rows``: the participants to draw (a part of ``result.participants``, in its
    order); by default all of them.
    """
    frame = result.participants if rows is None else rows
    names = [str(n) for n in frame["participant"]]
    k = len(names)
    level = float(result.settings["confidence_level"] if confidence_level is None else confidence_level)
    winner = result.winners_curse.winner if result.winners_curse is not None else None
    fs = name_fontsize(k)
    ranks = [int(v) for c in ("public_rank_set_high", "private_rank_set_high") for v in frame[c]] or [1]
    fig = _figure(max(6.4, 3.8 + name_width(names, fs) + min(5.0, 0.06 * max(ranks))), 1.9 + 0.34 * k)
    ax = fig.add_subplot(1, 1, 1)
    highest = 1
    offset = 0.2
    for y, row in enumerate(frame.itertuples(index=False)):
        colour = _colour(row, winner) if row.flagged else INK
        for side, dy, hue in (("public", -offset, PUBLIC), ("private", offset, WINNER)):
            lo, hi = int(getattr(row, side + "_rank_set_low")), int(getattr(row, side + "_rank_set_high"))
            highest = max(highest, hi)
            (bar,) = ax.plot(
                [lo, hi],
                [y + dy, y + dy],
                color=_light(hue),
                lw=5.0,
                solid_capstyle="butt",
                marker="s",
                markersize=5.0,
                markeredgewidth=0,
                zorder=2,
            )
            bar.set_gid("rankset:%s:%s" % (side, row.participant))
        pub, priv = int(row.public_rank), int(row.private_rank)
        (line,) = ax.plot([pub, priv], [y - offset, y + offset], color=colour, lw=1.4 if row.flagged else 0.9, zorder=3)
        line.set_gid("change:%s" % row.participant)
        (a,) = ax.plot(
            [pub], [y - offset], "o", color="white", markeredgecolor=PUBLIC, markeredgewidth=1.4, markersize=5, zorder=4
        )
        a.set_gid("rank:public:%s" % row.participant)
        (b,) = ax.plot(
            [priv],
            [y + offset],
            "o",
            color=WINNER,
            markeredgecolor="white",
            markeredgewidth=0.6,
            markersize=5.5,
            zorder=4,
        )
        b.set_gid("rank:private:%s" % row.participant)
    ax.set_yticks(range(k))
    ax.set_yticklabels(short_names(names), fontsize=fs)
    for label, name, flagged, direction in zip(ax.get_yticklabels(), names, frame["flagged"], frame["direction"]):
        if flagged:
            label.set_color(RED if direction == "worse on private" else GREEN)
        elif name == winner:
            label.set_color(WINNER)
            label.set_fontweight("bold")
    ax.set_ylim(k - 0.5, -0.5)
    ax.set_xlim(0.4, highest + 0.6)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.grid(axis="x", color="#e6e9ed", lw=0.8)
    ax.set_axisbelow(True)
    for spine in ("top", "right"):
        ax.spines[spine].set_visible(False)
    ax.set_xlabel("rank (1 = best), %g%% simultaneous rank sets" % (100 * level))
    shown = "" if k == result.m else " (%d of %d)" % (k, result.m)
    ax.set_title(
        "%s: rank change from the public to the private leaderboard%s" % (short_name(result.metric.title, 50), shown),
        fontsize=11,
        loc="left",
    )
    handles = [
        ax.plot([], [], "o", color="white", markeredgecolor=PUBLIC, markeredgewidth=1.4, label="public rank")[0],
        ax.plot([], [], color=_light(PUBLIC), lw=5, label="public rank set")[0],
        ax.plot([], [], "o", color=WINNER, label="private rank")[0],
        ax.plot([], [], color=_light(WINNER), lw=5, label="private rank set")[0],
        ax.plot([], [], color=RED, lw=1.4, label="red / green name: gap flagged (worse / better on private)")[0],
    ]
    bottom_legend(fig, handles, ncol=2)
    return _fit(fig)


def _jitter(count, spread):
    """Deterministic horizontal offsets (a factor around 1) for ``count`` points at the same x."""
    if count <= 1:
        return np.ones(1)
    return np.exp(np.linspace(-spread, spread, count))


def gap_submissions_plot(result, confidence_level=None):
    """The gap against the number of submissions, with the best-of-k optimism (module docstring)."""
    frame = result.participants
    m = len(frame)
    level = float(result.settings["confidence_level"] if confidence_level is None else confidence_level)
    winner = result.winners_curse.winner if result.winners_curse is not None else None
    sign = result.metric.sign
    fig = _figure(7.2, 5.2)
    ax = fig.add_subplot(1, 1, 1)
    k = frame["submissions"].to_numpy(dtype=float)
    logscale = k.max() / max(k.min(), 1.0) > 12
    xs = np.empty(m)
    for value in np.unique(k):
        at = np.flatnonzero(k == value)
        xs[at] = (
            value * _jitter(at.size, 0.12 if logscale else 0.0)
            if logscale
            else value + np.linspace(-0.25, 0.25, at.size) * (at.size > 1)
        )
    thin = m > 60
    ax.axhline(0.0, color=INK, lw=1, ls="--", zorder=1)
    for x, row in zip(xs, frame.itertuples(index=False)):
        colour = _colour(row, winner)
        if is_finite_number(row.gap_low) and is_finite_number(row.gap_high):
            (ci,) = ax.plot(
                [x, x],
                [row.gap_low, row.gap_high],
                color=colour,
                lw=0.8 if thin else 1.3,
                alpha=0.5 if thin and not row.flagged else 0.9,
                zorder=2,
            )
            ci.set_gid("gap_ci:%s" % row.participant)
        (point,) = ax.plot(
            [x],
            [row.gap],
            "o",
            color=colour,
            markersize=3.5 if thin else 5.5,
            markeredgecolor="white",
            markeredgewidth=0.6,
            zorder=3,
        )
        point.set_gid("gap:%s" % row.participant)
        if row.scored > 1:
            (expected,) = ax.plot(
                [x], [-sign * row.best_of_k_bias], "D", color="none", markeredgecolor=OTHER, markersize=4.5, zorder=3
            )
            expected.set_gid("best_of_k:%s" % row.participant)
    for name in _labelled(frame, None):
        at = int(np.flatnonzero(frame["participant"].to_numpy() == name)[0])
        text = ax.annotate(
            short_name(str(name), 24),
            (xs[at], frame["gap"].iloc[at]),
            xytext=(5, 3),
            textcoords="offset points",
            fontsize=8.5,
            color=INK,
            zorder=5,
        )
        text.set_gid("label:%s" % name)
    if logscale:
        ax.set_xscale("log")
    else:
        ax.xaxis.get_major_locator().set_params(integer=True)
    ax.grid(color="#e6e9ed", lw=0.8)
    ax.set_axisbelow(True)
    ax.set_xlabel("submissions in the public download" + (" (log scale)" if logscale else ""))
    ax.set_ylabel("gap: private %s public, %g%% CI" % ("\u2212", 100 * level))
    ax.set_title(
        "%s: the gap against the number of submissions" % short_name(result.metric.title, 50), fontsize=11, loc="left"
    )
    expected = ax.plot(
        [], [], "D", color="none", markeredgecolor=OTHER, label="gap expected from picking the best of k public runs"
    )[0]
    bottom_legend(fig, _handles(ax, frame, winner, [expected]), ncol=2)
    return _fit(fig)


def shakeup_figures(result, top=None):
    """``name -> Figure``: ``public_private``, ``rank_change`` (the rows of the tables) and ``gap_submissions``."""
    from collections import OrderedDict

    rows, _ = shown_rows(result, top)
    out = OrderedDict()
    out["public_private"] = public_private_plot(result)
    out["rank_change"] = rank_change_plot(result, rows)
    out["gap_submissions"] = gap_submissions_plot(result)
    return out
