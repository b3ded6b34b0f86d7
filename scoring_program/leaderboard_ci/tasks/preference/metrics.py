"""Preference arenas: the metrics (Bradley-Terry scores on the Elo scale) and their statistics.

* **a submission** names one model of the battle log (:mod:`.battles`); its score is that model's
  Bradley-Terry score on the Elo scale, fitted on the whole log;
* **the unit of resampling** is a battle: one :class:`~leaderboard_ci.core.accumulators.CodeCounts`
  of every battle's (pair, outcome) cell, so a replicate's statistic is the resampled log's
  cell counts and each replicate is one Bradley-Terry fit (:mod:`.fit`).  Every
  model's submission sees the same resamples of the same log, so the end of phase gets
  paired replicates of every submitted model's score (pairs, rank sets) with no more code.
"""

from __future__ import annotations

import numpy as np

from ...core.accumulators import CodeCounts, WeightedFunction
from ..metrics import Metric, Metrics
from .fit import SCALE, UNBOUNDED, cells_from_battles, elo_from_theta, fit_bradley_terry, unbounded_models
from .settings import PreferenceSettings
from .style import StyleModel, style_features

__all__ = ["NAME", "METRICS", "battle_cells", "style_model", "Statistics", "score_notes"]

NAME = "preference"
#: The catalog: adding a metric is one entry here and its replicate in :meth:`Statistics.prepare`.
METRICS = Metrics(
    [
        Metric(
            NAME,
            "elo",
            "Bradley-Terry score (Elo scale)",
            "higher",
            None,
            aliases=("bradley_terry", "bt", "arena_score", "arena_elo"),
        ),
        Metric(
            NAME,
            "style_elo",
            "style-controlled Bradley-Terry score (Elo scale)",
            "higher",
            None,
            aliases=("style_control", "style_controlled_elo"),
        ),
    ]
)


def battle_cells(gold):
    """:class:`~.preference_fit.Cells` of the gold's battle log."""
    v = np.asarray(gold.values)[:, :3].astype(np.intp)
    return cells_from_battles(v[:, 0], v[:, 1], v[:, 2], len(gold.labels))


def style_model(gold):
    """:class:`~.preference_style.StyleModel` of the gold's battles and style columns."""
    v = np.asarray(gold.values)
    k = (v.shape[1] - 3) // 2
    codes = v[:, :3].astype(np.intp)
    features = style_features(v[:, 3 : 3 + k], v[:, 3 + k : 3 + 2 * k])
    return StyleModel(codes[:, 0], codes[:, 1], codes[:, 2], features, len(gold.labels))


class Statistics:
    """The cell counts of the battle log under each replicate, and the submitted model's Elo score on it."""

    def __init__(self, add, gold, predictions, metrics, group_codes, n_groups, layout=None):
        p = np.asarray(predictions)
        n = gold.n
        if p.shape != (n,) or (n and (p.min() != p.max() or not 0 <= p[0] < len(gold.labels))):
            raise ValueError("predictions must name one model of the battle log (%d equal indices)" % n)
        self.model = int(p[0])
        settings = PreferenceSettings.of(gold)
        anchor = settings.anchor_model
        self.anchor = gold.labels.index(anchor) if anchor is not None else None
        self.anchor_rating = settings.anchor_rating
        self.cells = battle_cells(gold)
        self._start, _ = fit_bradley_terry(self.cells)
        self._slot = add(CodeCounts(self.cells.codes, self.cells.n_cells))
        self._style = None
        if any(spec.name == "style_elo" for spec in metrics):
            if np.asarray(gold.values).shape[1] < 5:
                raise ValueError("style_elo needs the battle log's style columns (style_columns)")
            model, fit, anchor, rating = style_model(gold), self.model, self.anchor, self.anchor_rating

            def style_scores(weights):
                elo = model.replicates(weights).elo
                return elo[:, fit] if anchor is None else elo[:, fit] + (rating - elo[:, anchor])

            self._style = add(WeightedFunction(style_scores, n))

    def prepare(self, stats):
        counts = np.asarray(stats[self._slot])
        theta, _ = fit_bradley_terry(self.cells, counts.reshape(-1, self.cells.n_cells), start=self._start)
        prepared = {"elo": elo_from_theta(theta, self.anchor, self.anchor_rating)}
        if self._style is not None:
            prepared["style_elo"] = np.asarray(stats[self._style], dtype=np.float64).reshape(-1)
        return prepared

    def score(self, prepared, spec, j):
        if j != 0:
            raise ValueError("the preference task has no groups")
        if spec is not None and spec.name == "style_elo":
            return prepared["style_elo"]
        return prepared["elo"][:, self.model]


def score_notes(spec, gold, predictions):
    """When the submitted model's Bradley-Terry score has no maximum (:func:`.preference_fit.unbounded_models`)."""
    if spec.name != "elo" or gold.labels is None or not len(predictions):
        return ()
    model = int(np.asarray(predictions)[0])
    cells = battle_cells(gold)
    side = int(unbounded_models(cells, cells.counts)[model])
    if side == 0:
        return ()
    k = cells.counts.reshape(-1, 3)
    as_first, as_second = cells.first == model, cells.second == model
    won = int(k[as_first, 0].sum() + k[as_second, 1].sum())
    lost = int(k[as_first, 1].sum() + k[as_second, 0].sum())
    tied = int(k[as_first | as_second, 2].sum())
    if side < 0:
        how = (
            "never won nor tied any of its %d battles" % lost
            if won + tied == 0
            else ("won or tied only against models whose own scores are unbounded below")
        )
    else:
        how = (
            "never lost nor tied any of its %d battles" % won
            if lost + tied == 0
            else ("lost or tied only against models whose own scores are unbounded above")
        )
    where = "below" if side < 0 else "above"
    return (
        "Your model %s, so its Bradley-Terry score has no maximum: it lies %s the other models' by an unbounded "
        "margin. The leaderboard shows a stand-in, %d Elo points %s the average of the models whose scores "
        "are bounded, and its interval rests on such stand-ins." % (how, where, int(SCALE * UNBOUNDED), where),
    )
