"""Soft labels (learning with disagreement): per-item label distributions, scored as PyEvALL scores EXIST 2023.

The task type ``TASK``, wired from the modules: :mod:`.files` (EXIST 2023 / PyEvALL JSON), :mod:`.reading`
(the gold, a run, the in-memory encoding, what participants submit), :mod:`.settings`, :mod:`.metrics` (the
catalog and the statistics), :mod:`.icm_soft` and :mod:`.icm_soft_tree` (ICM-Soft).  See
``docs/tasks/soft_labels.md``.
"""

from ..protocol import TaskType
from .metrics import METRICS, NAME, Statistics, item_contributions
from .reading import decode, encode_values, read_gold, read_predictions, submission_format
from .settings import SoftLabelsSettings

__all__ = ["TASK"]

TASK = TaskType(
    name=NAME,
    metrics=METRICS,
    Statistics=Statistics,
    read_gold=read_gold,
    read_predictions=read_predictions,
    encode_values=encode_values,
    Settings=SoftLabelsSettings,
    decode=decode,
    submission_format=submission_format,
    item_contributions=item_contributions,
    counts_only=Statistics.counts_only,
)
