"""Preference arenas: Bradley-Terry scores on the Elo scale from a battle log (LMArena / FastChat).

The task type ``TASK``, wired from the modules: :mod:`.battles` (the battle log, a submission's model
name, the in-memory encoding, what participants submit), :mod:`.metrics` (the catalog, the statistics),
:mod:`.settings` (the anchor, the style columns), :mod:`.fit` (Bradley-Terry) and :mod:`.style`
(style control).  See ``docs/tasks/preference.md``.
"""

from ..protocol import TaskType
from .battles import decode, encode_values, read_gold, read_predictions, submission_format
from .metrics import METRICS, NAME, Statistics, score_notes
from .settings import PreferenceSettings

__all__ = ["TASK"]

TASK = TaskType(
    name=NAME,
    metrics=METRICS,
    Statistics=Statistics,
    read_gold=read_gold,
    read_predictions=read_predictions,
    encode_values=encode_values,
    Settings=PreferenceSettings,
    decode=decode,
    unit_name="battle",
    submission_format=submission_format,
    score_notes=score_notes,
)
