"""Text generation (machine translation, summarization, speech recognition, captioning): corpus metrics.

The task type ``TASK``: its files (plain text, JSON Lines) are read by :mod:`.files`;
its metrics, one class each, are in :mod:`.metrics`, their per-segment statistics in
:mod:`.stats` (BLEU, chrF, edit rates), :mod:`.ter` and :mod:`.text` (the tokenizers).
"""

from ..protocol import TaskType
from .metrics import (
    METRICS,
    NAME,
    GenerationSettings,
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
    Settings=GenerationSettings,
    decode=decode,
    unit_name="segment",
    submission_format=submission_format,
)
