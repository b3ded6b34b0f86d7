"""Sequence labelling: one tag per token, scored on the entities the tags spell (named-entity recognition).

The task type ``TASK``: its files (CoNLL, JSON Lines) are read by :mod:`.files`, its
tags by :mod:`.tagging` (the schemes); the metrics, statistics and the per-type table
are in :mod:`.metrics`.
"""

from ..protocol import TaskType
from .metrics import (
    METRICS,
    NAME,
    UNIT_TABLE,
    SequenceSettings,
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
    Settings=SequenceSettings,
    decode=decode,
    submission_format=submission_format,
    unit_table=UNIT_TABLE,
    sparse_units=sparse_units,
)
