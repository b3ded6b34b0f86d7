"""Each system's distribution of per-unit values (per-query nDCG, ...) for the end-of-phase report.

A task whose scores are means of a value per unit offers those values
(``Statistics.unit_values`` and ``UNIT_VALUES_NAME``, see
:mod:`leaderboard_ci.tasks`); this module summarizes them per system and
target, so the report can draw the distributions without knowing the task.
Summaries, not the values: the table stays small with thousands of systems.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import replace

import numpy as np
import pandas as pd

from ...scoring.config import column_key

__all__ = ["unit_value_summaries", "attach_unit_values", "SUMMARY_COLUMNS"]

#: Columns of a summary: the mean is the system's full-sample score.
SUMMARY_COLUMNS = ["system", "n_units", "mean", "p05", "q25", "median", "q75", "p95"]


def _plural(word):
    """English plural of a unit name: query -> queries, item -> items."""
    if word.endswith("y") and word[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        return word[:-1] + "ies"
    return word + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s")


def _summary(name, values):
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return [name, 0] + [np.nan] * 6
    p05, q25, median, q75, p95 = np.percentile(values, [5, 25, 50, 75, 95])
    # the correctly rounded sum, as the scores' exact sums give: the mean is the score to the last bit
    return [name, int(values.size), math.fsum(values.tolist()) / values.size, p05, q25, median, q75, p95]


def unit_value_summaries(plan, names):
    """``{target key: DataFrame}`` of every system's per-unit value summary, or ``{}``.

    Parameters
    ----------
    plan : PairedPlan
        Its scorers (one per system, in ``names`` order) hold the task's statistics.
    names : sequence of str
    """
    scorers = list(plan.scorers)
    if not scorers:
        return {}
    task = scorers[0].task
    unit = task.unit_name
    out = OrderedDict()
    if task.unit_values is None:
        return out
    for spec in scorers[0].metrics:
        for j, group in enumerate((None,) + scorers[0].group_values):
            rows = []
            for name, scorer in zip(names, scorers):
                values = task.unit_values(scorer.statistics, spec, j)  # None: not a mean of per-unit values
                if values is None:
                    break
                rows.append(_summary(name, values))
            else:
                frame = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
                frame.attrs["unit_name"] = unit
                frame.attrs["unit_plural"] = _plural(unit)
                out[column_key(spec.key, group)] = frame
    return out


def attach_unit_values(targets, summaries):
    """``targets`` with each one's ``unit_values`` set to its summary, rows in the target's ranking order.

    Returns a new OrderedDict (the :class:`~leaderboard_ci.phase.analysis.results.TargetAnalysis` are frozen:
    a target with a summary is replaced by a copy that has it).
    """
    out = OrderedDict(targets)
    for key, frame in summaries.items():
        target = out.get(key)
        if target is None:
            continue
        order = dict((name, i) for i, name in enumerate(target.systems["name"]))
        ranked = frame.iloc[np.argsort([order[s] for s in frame["system"]], kind="stable")].reset_index(drop=True)
        ranked.attrs = dict(frame.attrs)
        out[key] = replace(target, unit_values=ranked)
    return out
