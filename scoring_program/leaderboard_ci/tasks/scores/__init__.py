"""Scored predictions: a score or one probability per class for each item, gold class labels.

The task type ``TASK``: the gold labels are read by the id and value columns as in
classification (:class:`~leaderboard_ci.tasks.shared.columns.ColumnFormat`), the
files of scores by :mod:`.files`; the metrics, statistics, DeLong's interval and
test are in :mod:`.metrics`, the rank statistics in :mod:`.curves`.
"""

from ..classification import COLUMNS as LABEL_COLUMNS
from ..protocol import TaskType
from .metrics import (
    METRICS,
    NAME,
    PAIR_TESTS,
    ScoresSettings,
    Statistics,
    analytic_interval,
    decode,
    encode_values,
    item_contributions,
    read_predictions,
    sparse_units,
)
from .submission import submission_format

__all__ = ["TASK"]

TASK = TaskType(
    name=NAME,
    metrics=METRICS,
    Statistics=Statistics,
    read_gold=LABEL_COLUMNS.read_gold,
    read_predictions=read_predictions,
    encode_values=encode_values,
    Settings=ScoresSettings,
    decode=decode,
    submission_format=submission_format,
    pair_tests=PAIR_TESTS,
    analytic_interval=analytic_interval,
    sparse_units=sparse_units,
    item_contributions=item_contributions,
)
