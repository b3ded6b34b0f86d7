"""Metrics averaged over units (classes, labels, entity types), spelled with their average: ``f1_macro``.

:class:`AveragedMetric` is the :class:`~leaderboard_ci.tasks.metrics.Metric` of
precision, recall and F1 in ``classification``, ``multilabel`` and ``sequence``:
its spellings list one name per average, and ``f1_macro`` or ``macro_f1`` imply
``average: macro``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

from ..metrics import Metric

__all__ = ["AveragedMetric"]


@dataclass(frozen=True, eq=False, repr=False)
class AveragedMetric(Metric):
    """A metric that may be averaged over units; ``averages`` are the averages it takes (empty: none)."""

    averages: Tuple[str, ...] = ()

    @property
    def averaged(self):
        return bool(self.averages)

    def known_names(self):
        if self.averages:
            return tuple("%s_%s" % (self.name, average) for average in self.averages)
        return self.spellings or (self.name,)

    def parse_name(self, name):
        for average in self.averages:
            if name in ("%s_%s" % (self.name, average), "%s_%s" % (average, self.name)):
                return {"average": average}
        return None
