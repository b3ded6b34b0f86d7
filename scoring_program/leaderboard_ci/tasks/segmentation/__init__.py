"""Semantic segmentation: class masks per image, mIoU / Dice / pixel accuracy, resampled by image.

The task type ``TASK``, built from the subpackage's modules: :mod:`.png` (a numpy +
zlib PNG decoder), :mod:`.masks` (one mask file), :mod:`.folders` (which file is
which image), :mod:`.reading` (the gold and a submission into per-image counts),
:mod:`.counts` (the per-image confusion counts), :mod:`.metrics` (the formulas and
the catalog), :mod:`.settings` (``ignore_index``, ``max_pixels``), :mod:`.statistics`
(exact sums under the resample counts) and :mod:`.task` (the in-memory encoding
and what participants submit).  See ``docs/tasks/segmentation.md``.
"""

from ..protocol import TaskType, UnitTable, statistics_unit_values
from .metrics import METRICS, NAME
from .reading import read_gold, read_predictions
from .settings import SegmentationSettings
from .statistics import Statistics, unit_rows
from .task import encode_values, submission_format

__all__ = ["TASK"]

TASK = TaskType(
    name=NAME,
    metrics=METRICS,
    Statistics=Statistics,
    read_gold=read_gold,
    read_predictions=read_predictions,
    encode_values=encode_values,
    Settings=SegmentationSettings,
    unit_name="image",
    submission_format=submission_format,
    unit_table=UnitTable("class", unit_rows),
    unit_values=statistics_unit_values,
)
