"""The end-of-phase analysis' results: small dataclasses of DataFrames.

They hold numbers only; rendering is in :mod:`leaderboard_ci.report`, which
these methods import when called (never at module level).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import pandas as pd

__all__ = ["PhaseResult", "TargetAnalysis"]


@dataclass(frozen=True)
class TargetAnalysis:
    """The analysis of one metric on all items or on one group."""

    key: str
    metric: object
    group: Optional[str]
    winner: str
    systems: pd.DataFrame
    vs_winner: pd.DataFrame
    pairs: pd.DataFrame
    indicators: OrderedDict
    tied_with_winner: list
    gains: Optional[pd.DataFrame] = None
    replicates: Optional[np.ndarray] = field(default=None, repr=False)  # (B, m) in rank order
    notes: list = field(default_factory=list)
    #: Each system's summary of per-unit values (per-query nDCG, ...), in rank order, when the task has them.
    unit_values: Optional[pd.DataFrame] = field(default=None, repr=False)
    #: One sentence when B is too small for the primary correction over the pairs' family (with the B needed).
    family_note: Optional[str] = None
    #: ``c_1``: the single-step max-t critical value of the all-pairs family (the simultaneous intervals'
    #: multiplier of the standard error; inf when B is too small for any verdict).
    critical_value: Optional[float] = None

    @property
    def title(self):
        return self.metric.title + ("" if self.group is None else " [%s]" % self.group)

    def pair_matrix(self, value="diff"):
        """Lower-triangular matrix: row = lower-ranked system, column = higher-ranked.

        ``value`` is a column of :attr:`pairs` (e.g. ``diff``, ``p_value``, ``stars``).
        Entries read "column minus row" (positive: the column is better).
        """
        names = list(self.systems["name"])
        matrix = pd.DataFrame("" if value == "stars" else np.nan, index=names, columns=names, dtype=object)
        for row in self.pairs.itertuples(index=False):
            matrix.loc[row.b, row.a] = getattr(row, value)
        return matrix


@dataclass(frozen=True)
class PhaseResult:
    """Everything the report shows; DataFrames per metric target."""

    targets: "OrderedDict[str, TargetAnalysis]"
    signature: OrderedDict
    settings: OrderedDict
    n: int
    names: tuple
    baseline: Optional[str] = None
    skipped: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["submission", "reason"]))
    group_gaps: Optional[pd.DataFrame] = None
    #: Every system's per-unit (class, label, entity type) scores on the full sample, or None.
    units: Optional[pd.DataFrame] = None
    #: The public-to-private shake-up (:class:`~leaderboard_ci.phase.shakeup.results.ShakeupResult`) when both
    #: sets were given, else None.
    shakeup: Optional[object] = None

    @property
    def official(self):
        return next(iter(self.targets.values()))

    def indicators_frame(self):
        """Indicators as a table: one row per indicator, one column per target."""
        from ...report.tables import indicators_table

        return indicators_table(self)

    def to_dict(self):
        from ...report.json_report import result_to_dict

        return result_to_dict(self)

    def to_json(self, path=None):
        from ...report.json_report import result_to_json

        text = result_to_json(self)
        if path is not None:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
        return text

    def to_html(self, path=None):
        from ...report.html_report import render_report

        html = render_report(self)
        if path is not None:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(html)
        return html

    def write(self, out_dir, **options):
        """Write report.html, report.json, CSV, Parquet, Markdown and LaTeX tables and figures.

        ``options`` are those of :func:`leaderboard_ci.report.files.write_report`, e.g.
        ``top=50`` (above that many systems the page, the paper tables and the
        figures show the top of each ranking; None: every system).
        """
        from ...report.files import write_report

        return write_report(self, out_dir, **options)
