"""Ranking and retrieval: a ranked list of documents per query, judged by graded relevance.

The task type ``TASK``: its files (TREC qrels and runs, JSON) and settings are in
:mod:`.files` (the runs parsed in blocks by :mod:`.trec_runs`), its metrics and
statistics in :mod:`.metrics`.
"""

from ..protocol import TaskType, statistics_unit_values
from .metrics import (
    METRICS,
    NAME,
    RankingSettings,
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
    Settings=RankingSettings,
    decode=decode,
    unit_name="query",
    submission_format=submission_format,
    unit_values=statistics_unit_values,
    sparse_units=sparse_units,
)
