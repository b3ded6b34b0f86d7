"""The end-of-phase analysis of all submissions: who won, and which differences are noise.

:func:`analyze` scores every system on the same bootstrap resamples as the
leaderboard (same configuration, same seed, so every per-system CI equals the
leaderboard's), then for each metric (and each group):

* ranks systems by the **full-sample** score in the metric's direction
  (never by the bootstrap mean);
* compares every system with the winner and every pair with each other:
  oriented difference (positive = the better-ranked system is better), its
  paired CI, and a p-value from the configured test (paired bootstrap or
  permutation), plus McNemar's exact test for accuracy;
* corrects p-values with statsmodels (Bonferroni, Holm, Benjamini-Hochberg or
  any statsmodels method) within the configured family;
* computes the competition indicators, the compact letter display, the set of
  systems tied with the winner and, with a baseline, the baseline-calibrated
  gain of each system (ODESIA) and the gap between groups.

Correction families (``analysis.family``)
------------------------------------------
=============  ===============================  ==========================
family         vs-winner tests corrected over    pairs table corrected over
=============  ===============================  ==========================
``all_pairs``  all m(m-1)/2 pairs                all pairs
``vs_winner``  the m-1 comparisons with winner   all pairs
``per_row``    the winner's row (m-1 tests)      each system's row: the
                                                 systems ranked below it
=============  ===============================  ==========================

Sides (``analysis.sides``)
--------------------------
Which system of a pair is "a" (the better one) is decided by the observed
ranking.  The paired-bootstrap p-values invert the pair's interval
(``bootstrap.method``; definitions in :mod:`leaderboard_ci.core.intervals`):
the one-sided ``p_greater`` ("a is better") is, for ``percentile``,
``sup{q : Q(q) <= 0}`` with ``Q`` the type-7 quantile function of the
replicates ``d*`` (about the share of ``d* <= 0``, interpolated); for
``basic`` the same inversion at ``2δ`` (about the share of ``d* >= 2δ``); for
``bca`` that value mapped back through the BCa level map; for ``normal``
``Phi(-δ/SE)``.  The two-sided value is ``min(1, 2 * min(p_greater,
p_less))``, so it is below ``alpha`` exactly when the interval excludes 0;
every p-value is floored at ``1/(B + 1)``.  A one-sided p-value in a
direction chosen from the data rejects about twice as often as its level
under the null, so by default (``sides: two``) decisions and corrections use
the two-sided p-value (either direction), which controls the error of
declaring a direction; the one-sided value ("a is better") is reported beside
it as ``p_one_sided``.  ``sides: one`` uses the one-sided value throughout, as
CompStats and Berg-Kirkpatrick et al. (2012) do.

``analysis.primary`` (default ``holm``) is the correction that decides the
stars, the letters, the ``significant`` column and the set tied with the
winner; the others are reported beside it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ...scoring.config import config_from_options
from ...tasks.registry import task_type
from ...tasks.shared.base import GoldStandard
from ..execution.runs import LEGACY_KEYWORDS, Execution, from_legacy
from .blocked import SystemSource, analyze_blocks, open_run
from .results import PhaseResult, TargetAnalysis

__all__ = ["analyze", "Execution", "PhaseResult", "TargetAnalysis", "encode_inputs"]


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------
def _natural_sorted(values):
    values = [str(v) for v in values]
    try:
        return sorted(values, key=float)
    except ValueError:
        return sorted(values)


def encode_inputs(config, gold, systems, groups=None):
    """Turn raw gold values and system outputs into a GoldStandard and coded arrays.

    ``gold``: a GoldStandard (then ``systems`` must already be coded), a
    sequence of labels/values, or a mapping the task reads whole (detection: a
    COCO instances dict).  ``systems``: mapping name -> sequence.
    """
    if isinstance(gold, GoldStandard):
        coded = OrderedDict((str(k), np.asarray(v)) for k, v in systems.items())
        for name, values in coded.items():
            if values.shape[:1] != (gold.n,):
                raise ValueError(
                    "system %r has %d encoded predictions for %d gold items"
                    % (name, values.shape[0] if values.ndim else 1, gold.n)
                )
        return gold, coded
    # a mapping is one document (a COCO instances dict): the task's encode_values reads it whole
    gold_values = gold if isinstance(gold, Mapping) else list(gold)
    n = len(gold_values)
    group_codes = group_values = None
    if groups is not None:
        groups = [str(g) for g in groups]
        if len(groups) != n:
            raise ValueError("groups has %d values for %d items" % (len(groups), n))
        group_values = (
            tuple(config.groups.values)
            if config.groups and config.groups.values
            else tuple(_natural_sorted(set(groups)))
        )
        index = {g: i for i, g in enumerate(group_values)}
        missing = sorted(set(groups) - set(index))
        if missing:
            raise ValueError("group value %r is not in groups.values" % missing[0])
        group_codes = np.array([index[g] for g in groups], dtype=np.intp)
    task = task_type(config.kind)
    codes, labels, coded = task.encode_values(
        gold_values,
        OrderedDict((str(k), v) for k, v in systems.items()),
        labels=config.labels,
        settings=config.task_settings,
    )
    gold_std = GoldStandard(
        values=codes,
        labels=labels,
        groups=group_codes,
        group_values=group_values,
        source="gold",
        task=task.name,
        settings=config.task_settings,
    )
    coded = OrderedDict((name, coded[name]) for name in (str(k) for k in systems))
    return gold_std, coded


def _config_from_kwargs(config, metric, extra_metrics, labels, kwargs):
    """Build a Config from keyword arguments (the Python API) or adjust a given one."""
    if config is not None and metric is None and not kwargs and labels is None and extra_metrics is None:
        return config
    if config is not None:
        raise ValueError("pass either config or metric/keyword settings, not both")
    return config_from_options(metric or "accuracy", extra_metrics=extra_metrics, labels=labels, **kwargs)


# ---------------------------------------------------------------------------
# The analysis
# ---------------------------------------------------------------------------
def analyze(
    gold,
    systems=None,
    metric=None,
    config=None,
    *,
    extra_metrics=None,
    labels=None,
    groups=None,
    baseline=None,
    skipped=None,
    execution=None,
    **settings,
):
    """Paired bootstrap analysis of all systems of a competition.

    Parameters
    ----------
    gold : DataFrame, sequence or GoldStandard
        With a DataFrame (CompStats style), ``systems`` is the name of its gold
        column (default ``"y"``) and every other column is a system.
        Otherwise the gold labels or values, one per item.
    systems : mapping name -> predictions, or the gold column name
    metric : str or dict, optional
        The official metric (e.g. ``"f1_macro"``); or pass ``config``.
    config : Config, optional
        A loaded configuration (as the scoring program uses).
    extra_metrics, labels : optional
        As in ``config.yaml``.
    groups : sequence, optional
        A group value per item (e.g. language): every metric is also analysed
        per group.
    baseline : str, optional
        Name of the system that is the baseline (for baseline-calibrated gains).
    skipped : DataFrame or list of (submission, reason), optional
        Carried into the report.
    execution : :class:`~leaderboard_ci.phase.execution.runs.Execution`, optional
        Where and how the work runs (threads, Dask, memory budget, block
        size, progress); the numbers never depend on it.  Without a budget, a
        block size or Dask, the run is one block of all systems in this
        process.  The former keywords ``n_jobs, progress, memory_limit,
        block_size, runner`` still work for one release, with a
        DeprecationWarning.
    **settings
        Any of ``n_resamples, seed, method, confidence_level, test, sides,
        alpha, corrections, primary, family, n_permutations, reference_point,
        pos_label, zero_division``.

    Returns
    -------
    PhaseResult

    Examples
    --------
    >>> result = analyze(df, "y", metric="f1_macro")            # doctest: +SKIP
    >>> result.official.systems                                   # doctest: +SKIP
    >>> result.official.vs_winner                                 # doctest: +SKIP
    """
    if isinstance(gold, pd.DataFrame):
        gold_column = systems or "y"
        if gold_column not in gold.columns:
            raise ValueError("the DataFrame has no gold column %r" % gold_column)
        frame = gold
        gold = frame[gold_column].tolist()
        systems = OrderedDict((str(c), frame[c].tolist()) for c in frame.columns if c != gold_column)
    if not systems:
        raise ValueError("no systems to analyse")
    execution = from_legacy(execution, {k: settings.pop(k) for k in LEGACY_KEYWORDS if k in settings})
    config = _config_from_kwargs(config, metric, extra_metrics, labels, dict(settings))
    gold_std, coded = encode_inputs(config, gold, systems, groups=groups)
    if baseline is not None and str(baseline) not in coded:
        raise ValueError("baseline %r is not one of the systems" % (baseline,))
    baseline = None if baseline is None else str(baseline)
    names = list(coded)
    if len(set(names)) != len(names):
        raise ValueError("system names must be unique")
    sources = [SystemSource(name, values=coded[name]) for name in names]
    with open_run(config, gold_std, sources, execution) as run:
        return analyze_blocks(
            config,
            gold_std,
            sources,
            run.plan,
            run.runner,
            baseline=baseline,
            skipped=skipped or (),
            n_jobs=run.n_jobs,
            progress=execution.progress,
        )
