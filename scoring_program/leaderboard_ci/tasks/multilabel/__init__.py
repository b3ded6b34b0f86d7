"""Multi-label classification: a set of labels per item (``task: multilabel``).

The task type ``TASK``: its files (a label set per id as a separated cell, 0/1
columns or JSON) are read by :mod:`.files`; the metrics, statistics, the
coarse level and the per-label table are in :mod:`.metrics`.
"""

from ..protocol import TaskType
from .metrics import (
    METRICS,
    NAME,
    UNIT_TABLE,
    MultilabelSettings,
    Statistics,
    decode,
    encode_values,
    read_gold,
    read_predictions,
    sparse_units,
    submission_format,
)

__all__ = ["TASK"]

TASK = TaskType(
    name=NAME,
    metrics=METRICS,
    Statistics=Statistics,
    read_gold=read_gold,
    read_predictions=read_predictions,
    encode_values=encode_values,
    Settings=MultilabelSettings,
    decode=decode,
    submission_format=submission_format,
    unit_table=UNIT_TABLE,
    sparse_units=sparse_units,
)
