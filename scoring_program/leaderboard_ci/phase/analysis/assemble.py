"""The end-of-phase result assembled from analysed targets: the per-unit table, gaps, signature.

Shared by the single-process analysis (:mod:`.analysis`) and the analysis in
blocks (:mod:`.blocked`), so both build the same :class:`PhaseResult`.
"""

from __future__ import annotations

import platform as _platform
from collections import OrderedDict

import numpy as np
import pandas as pd

from ..._version import __version__
from ...core.signature import Signature
from ...scoring.evaluation import design_expansion
from ...tasks.registry import official_metric_options
from .results import PhaseResult
from .targets import group_gaps

__all__ = ["phase_result", "unit_table"]


def phase_result(config, gold, targets, names, baseline, skipped, units):
    """The :class:`PhaseResult` from the analysed targets: group gaps, units in ranking order, signature."""
    gaps = group_gaps(config, targets, baseline) if gold.group_values else None
    if units is not None:  # in the official ranking's order
        rank = dict((name, i) for i, name in enumerate(next(iter(targets.values())).systems["name"]))
        units = units.iloc[np.argsort([rank[s] for s in units["system"]], kind="stable")].reset_index(drop=True)
    if skipped is None:
        skipped = pd.DataFrame(columns=["submission", "reason"])
    elif not isinstance(skipped, pd.DataFrame):
        skipped = pd.DataFrame(list(skipped), columns=["submission", "reason"])
    return PhaseResult(
        targets=targets,
        signature=_signature(config, gold, len(names)),
        settings=_settings(config),
        n=gold.n,
        names=tuple(names),
        baseline=baseline,
        skipped=skipped,
        group_gaps=gaps,
        units=units,
    )


def unit_table(plan, gold, config, names):
    """Every system's per-unit scores on the full sample (per class, label or entity type), or None.

    Uses the task's ``unit_rows`` (the detailed results' table); the end of phase shows
    the full-sample values only, so the rows' intervals are not used.  Columns: system,
    unit, precision, recall, f1, predicted; ``attrs["unit_name"]`` names the unit.
    """
    table = plan.scorers[0].task.unit_table
    if table is None:  # the task has no per-unit table
        return None
    by_name = dict(zip(plan.names, plan.scorers))
    rows = []
    for name in names:
        scorer = by_name[name]
        full = [acc.full()[None, :] for acc in scorer.accumulators]
        units = table.rows(
            scorer.statistics,
            full,
            full,
            gold.labels,
            "percentile",
            config.bootstrap.confidence_level,
            config.zero_division,
        )
        if units is None:  # the task has no per-unit table
            return None
        for r in units:
            rows.append(
                OrderedDict(
                    [
                        ("system", name),
                        ("unit", r.label),
                        ("precision", r.precision),
                        ("recall", r.recall),
                        ("f1", r.f1),
                        ("predicted", r.predicted),
                    ]
                )
            )
    frame = pd.DataFrame(rows, columns=["system", "unit", "precision", "recall", "f1", "predicted"])
    frame.attrs["unit_name"] = table.unit
    return frame


def _signature(config, gold, m):
    import numpy
    import scipy
    import statsmodels

    bs, an = config.bootstrap, config.analysis
    return Signature(
        metric=config.official.key,
        n_resamples=bs.n_resamples,
        seed=bs.seed,
        method=bs.method,
        confidence_level=bs.confidence_level,
        test=an.test,
        n_permutations=an.n_permutations if an.test == "permutation" else None,
        sides=an.sides,
        family=an.family,
        corrections=tuple(an.corrections),
        primary=an.primary,
        alpha=an.alpha,
        n_items=gold.n,
        n_systems=m,
        gold_sha256=gold.sha256 or None,
        version=__version__,
        cluster=bs.cluster,
        strata=bs.strata,
        expansion=_expansion(config, gold),
        metric_options=official_metric_options(config, gold),
        environment=(
            ("python", _platform.python_version()),
            ("numpy", numpy.__version__),
            ("pandas", pd.__version__),
            ("scipy", scipy.__version__),
            ("statsmodels", statsmodels.__version__),
        ),
    )


def _expansion(config, gold):
    """The signature's small-cluster factor (None when no correction applies), as the per-submission one."""
    expansion = design_expansion(config, gold.resampling())
    return None if expansion == 1.0 else float("%.4g" % expansion)


def _settings(config):
    return OrderedDict(
        [
            ("metrics", [m.key for m in config.metrics]),
            ("labels", list(config.labels) if config.labels else None),
            ("groups", config.groups.column if config.groups else None),
            ("reference_point", config.analysis.reference_point),
        ]
    )
