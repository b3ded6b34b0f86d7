"""The shake-up's results: small frozen dataclasses of numbers and DataFrames.

They hold numbers only; rendering is in :mod:`leaderboard_ci.report` (the
``shakeup_*`` modules), which these methods import when called.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import pandas as pd

__all__ = ["SetScores", "WinnersCurse", "ShakeupResult", "PARTICIPANT_COLUMNS"]

#: The columns of :attr:`ShakeupResult.participants` (``participants.csv``), in order.
PARTICIPANT_COLUMNS = (
    "participant",
    "submissions",
    "scored",
    "public_run",
    "private_run",
    "public",
    "public_low",
    "public_high",
    "public_rank",
    "public_rank_set_low",
    "public_rank_set_high",
    "public_rank_set_marginal_low",
    "public_rank_set_marginal_high",
    "private",
    "private_low",
    "private_high",
    "private_rank",
    "private_rank_set_low",
    "private_rank_set_high",
    "private_rank_set_marginal_low",
    "private_rank_set_marginal_high",
    "rank_change",
    "gap",
    "gap_low",
    "gap_high",
    "p_value",
    "p_fdr_bh",
    "flagged",
    "direction",
    "best_of_k_bias",
    "best_of_k_shrinkage",
)


@dataclass(frozen=True)
class SetScores:
    """The participants' picked runs on one test set.

    Attributes
    ----------
    label : str
        ``public`` or ``private``.
    names : tuple of str
        The participants, in one order shared by both sets.
    full : ndarray ``(m,)``
    replicates : ndarray ``(B, m)``
        On the set's own resamples (its configuration's seed and B).
    n_items : int
    signature : Signature
        The set's settings (metric, B, seed, interval method, level, n, gold hash).
    source : str
        Where the set comes from (a reference folder, or a part of a split reference).
    """

    label: str
    names: tuple
    full: np.ndarray
    replicates: np.ndarray = field(repr=False)
    n_items: int
    signature: object
    source: str = ""


@dataclass(frozen=True)
class WinnersCurse:
    """The private winner's score, plain and corrected for having been picked as the best of ``m``.

    Attributes
    ----------
    winner : str
    score, ci_low, ci_high : float
        The plain private score and its interval.
    optimism : float
        The bootstrap estimate of the optimism of picking the best of the ``m``
        participants on the private set (:func:`~.noise.selection_optimism`), in the
        metric's units, positive when the winner looks better than it is.
    corrected : float
        ``score - sign * optimism``.
    m : int
    shrinkage : float
        ``lam`` of the noise model's centres.
    method : str
        The method's name (for the page and ``report.json``).
    """

    winner: str
    score: float
    ci_low: float
    ci_high: float
    optimism: float
    corrected: float
    m: int
    shrinkage: float
    method: str


@dataclass(frozen=True)
class ShakeupResult:
    """Public-to-private shake-up of one competition.

    Attributes
    ----------
    participants : DataFrame
        One row per participant (:data:`PARTICIPANT_COLUMNS`), best private rank first.
    competition : OrderedDict
        The competition's numbers: sizes, Kendall's tau and Spearman's rho with
        interval and noise band, the mean gap, the flags, the gap against the
        number of submissions.
    winners_curse : WinnersCurse or None
    metric : MetricSpec
        The official metric.
    mode : str
        ``phases`` (two reference sets) or ``split`` (one reference with a split column).
    public, private : SetScores
    settings : OrderedDict
        alpha, sides, interval method, confidence level, correction, how runs were picked.
    unmatched : DataFrame
        ``participant, only_in``: participants with submissions in one phase only.
    skipped : DataFrame
        ``participant, submission, phase, reason``: runs that could not be read.
    notes : list of str
    """

    participants: pd.DataFrame
    competition: OrderedDict
    winners_curse: Optional[WinnersCurse]
    metric: object
    mode: str
    public: SetScores
    private: SetScores
    settings: OrderedDict
    unmatched: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["participant", "only_in"]))
    skipped: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=["participant", "submission", "phase", "reason"])
    )
    notes: list = field(default_factory=list)

    @property
    def m(self):
        return len(self.participants)

    def to_dict(self):
        from ...report.shakeup_json import shakeup_to_dict

        return shakeup_to_dict(self)

    def to_json(self, path=None):
        from ...report.shakeup_json import shakeup_to_json

        text = shakeup_to_json(self)
        if path is not None:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
        return text

    def to_html(self, path=None):
        from ...report.shakeup_html import render_shakeup_page

        html = render_shakeup_page(self)
        if path is not None:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(html)
        return html

    def write(self, out_dir, **options):
        """Write shakeup.html, shakeup.json, CSV, Markdown and LaTeX tables and figures (see
        :func:`leaderboard_ci.report.shakeup_files.write_shakeup`)."""
        from ...report.shakeup_files import write_shakeup

        return write_shakeup(self, out_dir, **options)
