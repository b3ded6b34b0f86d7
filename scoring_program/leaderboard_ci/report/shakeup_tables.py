"""The shake-up's tables: plain-text cells for Markdown and LaTeX, raw numbers for CSV.

* :func:`participants_table`: both scores with intervals, both ranks with their
  simultaneous rank sets, the rank change (best private rank first);
* :func:`gaps_table`: the private-minus-public gap, its interval, its p-value and
  the Benjamini-Hochberg-adjusted one, the flag, and the optimism of the best of
  the participant's k public submissions;
* :func:`competition_table`: the competition's numbers (rank agreement and its
  noise band, the mean gap, the flags, the winner's curse).

Above ``top`` participants the Markdown and LaTeX tables list the ``top`` best
private ranks and every flagged participant below them (:func:`shown_rows`);
the CSV files hold every participant.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pandas as pd

from .formatting import DASH, MINUS, correction_name, format_p
from .shakeup_words import interval_text as _ci
from .shakeup_words import level_words as _level
from .shakeup_words import number_text as _n
from .tables import Table
from .verdicts import format_rank_set

__all__ = [
    "shown_rows",
    "participants_table",
    "gaps_table",
    "competition_table",
    "competition_frame",
    "shakeup_tables",
    "gap_header",
]


def shown_rows(result, top=None):
    """``(rows, truncated)``: every participant, or above ``top`` the best ``top`` private ranks and the flagged."""
    frame = result.participants
    if top is None or len(frame) <= top:
        return frame, False
    keep = np.zeros(len(frame), dtype=bool)
    keep[:top] = True
    keep |= frame["flagged"].to_numpy(dtype=bool)
    return frame[keep], bool(not keep.all())


def gap_header(result):
    """``Gap (private − public)``; for a metric where lower is better, says so."""
    return "Gap (private %s public)" % MINUS


def participants_table(result, top=None, digits=4):
    """Scores, intervals, ranks and rank sets on both leaderboards."""
    shown, truncated = shown_rows(result, top)
    level = _level(result)
    header = [
        "Participant",
        "Subm.",
        "Public",
        "Public %s CI" % level,
        "Public rank",
        "Public rank set",
        "Private",
        "Private %s CI" % level,
        "Private rank",
        "Private rank set",
        "Change",
    ]
    rows = []
    for r in shown.itertuples(index=False):
        rows.append(
            [
                str(r.participant),
                "%d" % r.submissions,
                _n(r.public, digits),
                _ci(r.public_low, r.public_high, digits),
                "%d" % r.public_rank,
                format_rank_set(r.public_rank_set_low, r.public_rank_set_high),
                _n(r.private, digits),
                _ci(r.private_low, r.private_high, digits),
                "%d" % r.private_rank,
                format_rank_set(r.private_rank_set_low, r.private_rank_set_high),
                ("%+d" % r.rank_change).replace("-", MINUS) if r.rank_change else "0",
            ]
        )
    notes = [
        "%s (%s). Rank 1 is the best; rank sets are simultaneous at %s (every participant's set holds at once; "
        "Mogstad et al. 2024), on each leaderboard's own replicates. Change: public rank minus private rank "
        "(positive: moved up)." % (result.metric.title, result.metric.better, level)
    ] + _top_notes(result, shown, truncated)
    return Table(
        "shakeup_participants",
        header,
        rows,
        ["text"] + ["num"] * 10,
        caption="%s: public and private leaderboards" % result.metric.title,
        label="tab:shakeup-participants",
        notes=notes,
        data=result.participants,
    )


def _top_notes(result, shown, truncated):
    if not truncated:
        return []
    return [
        "%d of %d participants shown: the best private ranks and every flagged participant below them; every "
        "participant is in shakeup/participants.csv." % (len(shown), result.m)
    ]


def gaps_table(result, top=None, digits=4):
    """The gap, its interval and p-values, the flag, and the best-of-k optimism of each participant."""
    shown, truncated = shown_rows(result, top)
    level = _level(result)
    alpha = result.settings["alpha"]
    sides = "two-sided" if result.settings["sides"] == "two" else "one-sided (private worse)"
    header = [
        "Participant",
        "Subm.",
        gap_header(result),
        "%s CI" % level,
        "p (%s)" % sides,
        "p (%s)" % correction_name(result.settings["correction"]),
        "Flag",
        "Best-of-k optimism",
    ]
    rows = []
    for r in shown.itertuples(index=False):
        rows.append(
            [
                str(r.participant),
                "%d" % r.submissions,
                _n(r.gap, digits, signed=True),
                _ci(r.gap_low, r.gap_high, digits),
                format_p(r.p_value, alpha=alpha),
                format_p(r.p_fdr_bh, alpha=alpha),
                r.direction if r.flagged else "",
                _n(r.best_of_k_bias, digits) if r.scored > 1 else DASH,
            ]
        )
    notes = [
        "The gap's interval is this participant's alone: the public and private sets are independent samples, so "
        "its replicates pair the private set's replicate b with the public set's replicate b + 1. Flag: the "
        "%s-adjusted p-value over the %d participants is at most %g (a false-discovery rate of %g), so a gap whose "
        "interval excludes 0 may still not be flagged."
        % (correction_name(result.settings["correction"]), result.m, alpha, alpha),
        "Best-of-k optimism: how much better the best of the participant's k public submissions (Subm.: submissions "
        "in the download) looks than it is, on average, from the public set's replicates (%s when it has one)." % DASH,
    ] + _top_notes(result, shown, truncated)
    return Table(
        "shakeup_gaps",
        header,
        rows,
        ["text", "num", "num", "num", "num", "num", "text", "num"],
        caption="%s: private-minus-public gaps" % result.metric.title,
        label="tab:shakeup-gaps",
        notes=notes,
        data=result.participants,
    )


def competition_frame(result):
    """The competition's numbers as ``quantity, value, low, high, p_value`` rows (``competition.csv``)."""
    c = result.competition
    rows = [
        ("participants", result.m, None, None, None),
        ("public items", c["n_public"], None, None, None),
        ("private items", c["n_private"], None, None, None),
    ]
    agreement = c.get("agreement")
    if agreement is not None:
        for stat, label in ((agreement.tau, "Kendall's tau"), (agreement.rho, "Spearman's rho")):
            rows.append((label, stat.value, stat.ci_low, stat.ci_high, None))
            rows.append((label + " from noise alone", stat.noise, stat.noise_low, stat.noise_high, stat.p_value))
    rows.append(("mean gap (private - public)", c["mean_gap"], c["mean_gap_low"], c["mean_gap_high"], c["mean_gap_p"]))
    rows.append(("flagged gaps", c["flagged"], None, None, None))
    rows.append(("flagged, worse on private", c["flagged_worse"], None, None, None))
    rows.append(("flagged, better on private", c["flagged_better"], None, None, None))
    if c.get("gap_vs_submissions_rho") is not None:
        rows.append(
            ("gap vs submissions (Spearman)", c["gap_vs_submissions_rho"], None, None, c["gap_vs_submissions_p"])
        )
    curse = result.winners_curse
    if curse is not None:
        rows.append(("winner's private score", curse.score, curse.ci_low, curse.ci_high, None))
        rows.append(("optimism of the best of m", curse.optimism, None, None, None))
        rows.append(("winner's score, corrected", curse.corrected, None, None, None))
    return pd.DataFrame(rows, columns=["quantity", "value", "low", "high", "p_value"])


def competition_table(result, digits=4):
    """The competition's numbers in words (quantity, value, interval or band, p-value)."""
    c = result.competition
    level = _level(result)
    alpha = result.settings["alpha"]
    rows = [
        ["Participants", "%d" % result.m, "", ""],
        ["Public / private items", "%d / %d" % (c["n_public"], c["n_private"]), "", ""],
    ]
    agreement = c.get("agreement")
    if agreement is not None:
        for stat, label in ((agreement.tau, "Kendall's \u03c4"), (agreement.rho, "Spearman's \u03c1")):
            rows.append([label, _n(stat.value, 3), _ci(stat.ci_low, stat.ci_high, 3), ""])
            rows.append(
                [
                    label + " from noise alone",
                    _n(stat.noise, 3),
                    _ci(stat.noise_low, stat.noise_high, 3),
                    format_p(stat.p_value, alpha=alpha),
                ]
            )
    rows.append(
        [
            "Mean gap (private %s public)" % MINUS,
            _n(c["mean_gap"], digits, signed=True),
            _ci(c["mean_gap_low"], c["mean_gap_high"], digits),
            format_p(c["mean_gap_p"], alpha=alpha),
        ]
    )
    rows.append(
        [
            "Flagged gaps (worse / better on private)",
            "%d (%d / %d)" % (c["flagged"], c["flagged_worse"], c["flagged_better"]),
            "",
            "",
        ]
    )
    if c.get("gap_vs_submissions_rho") is not None:
        rows.append(
            [
                "Gap vs submissions, Spearman's \u03c1",
                _n(c["gap_vs_submissions_rho"], 2),
                "",
                format_p(c["gap_vs_submissions_p"], alpha=alpha),
            ]
        )
    curse = result.winners_curse
    if curse is not None:
        rows.append(
            [
                "Winner's private score (%s)" % curse.winner,
                _n(curse.score, digits),
                _ci(curse.ci_low, curse.ci_high, digits),
                "",
            ]
        )
        rows.append(["Optimism of the best of %d" % curse.m, _n(curse.optimism, digits), "", ""])
        rows.append(["Winner's score, corrected", _n(curse.corrected, digits), "", ""])
    notes = [
        "Intervals at %s. The noise band of a rank correlation is the middle %s of its value over pairs of test sets "
        "drawn from the replicates with nobody adapting to the public set; its p-value is the share of those draws "
        "that agree at most as little as the observed leaderboards (one-sided)." % (level, level),
        "Winner's curse: %s." % (curse.method if curse is not None else DASH),
    ]
    return Table(
        "shakeup_competition",
        ["Quantity", "Value", "%s interval or band" % level, "p"],
        rows,
        ["text", "num", "num", "num"],
        caption="%s: the competition from public to private" % result.metric.title,
        label="tab:shakeup-competition",
        notes=notes,
        data=competition_frame(result),
    )


def shakeup_tables(result, top=None, digits=4):
    """The three tables, in the page's order: ``OrderedDict(name -> Table)``."""
    return OrderedDict(
        [
            ("competition", competition_table(result, digits)),
            ("participants", participants_table(result, top, digits)),
            ("gaps", gaps_table(result, top, digits)),
        ]
    )
