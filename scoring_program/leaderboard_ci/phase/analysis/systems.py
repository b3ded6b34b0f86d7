"""Score every system of a phase on shared resamples, from a configuration.

Builds one :class:`~leaderboard_ci.tasks.shared.scorer.SystemScorer` per system
(the same as the per-submission program, in the ``reduced`` layout) and runs
the paired engine of :mod:`leaderboard_ci.core.systems` with the configured
seed, number of resamples and interval method.
"""

from __future__ import annotations

from ...core.systems import PairedPlan, paired_scores
from ...scoring.custom import custom_functions
from ...scoring.evaluation import design_expansion
from ...tasks.shared.scorer import SystemScorer

__all__ = ["build_plan", "score_systems"]


def build_plan(config, gold, predictions, names):
    """The :class:`PairedPlan` of ``predictions`` (one aligned array per system)."""
    if len(predictions) != len(names):
        raise ValueError(
            "one name per system is needed: %d prediction arrays, %d names" % (len(predictions), len(names))
        )
    custom = custom_functions(config)
    scorers = [SystemScorer(config.metrics, gold, p, layout="reduced", custom=custom) for p in predictions]
    resampling = gold.resampling()
    return PairedPlan(
        scorers,
        gold.n,
        config.bootstrap.seed,
        names,
        recipe=(build_plan, (config, gold, list(predictions), list(names))),
        resampling=resampling,
        expansion=design_expansion(config, resampling),
    )


def score_systems(config, gold, predictions, names, n_jobs=1, progress=None, executor=None):
    """Full-sample and replicate scores of every system (:class:`~leaderboard_ci.core.systems.SystemScores`).

    Parameters
    ----------
    config, gold : Config, GoldStandard
    predictions : sequence of arrays (one per system, aligned with the gold)
    names : sequence of str
    n_jobs, progress, executor
        As in :func:`leaderboard_ci.core.systems.paired_scores`.
    """
    bs = config.bootstrap
    plan = build_plan(config, gold, predictions, names)
    return paired_scores(
        plan, bs.n_resamples, n_jobs=n_jobs, progress=progress, executor=executor, jackknife=bs.method == "bca"
    )
