"""Extractive question answering: one answer string per question, scored as SQuAD v1.1 scores it.

The task type ``TASK``: its answers (SQuAD JSON), normalization, metrics and
statistics are in :mod:`.metrics`.
"""

from ..protocol import TaskType
from .metrics import (
    METRICS,
    NAME,
    QASettings,
    Statistics,
    decode,
    encode_values,
    read_gold,
    read_predictions,
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
    Settings=QASettings,
    decode=decode,
    submission_format=submission_format,
)
