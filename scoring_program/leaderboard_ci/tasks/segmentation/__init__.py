"""Semantic segmentation: class masks per image, mIoU / Dice / pixel accuracy, resampled by image.

One subpackage: :mod:`.png` (a numpy + zlib PNG decoder), :mod:`.masks` (one
mask file), :mod:`.folders` (which file is which image), :mod:`.reading` (gold
and submission folders into per-image counts), :mod:`.counts` (the per-image
confusion counts), :mod:`.metrics` (the formulas), :mod:`.statistics` (exact
sums under the resample counts) and :mod:`.task` (the task type, ``TASK``).
"""

from .task import TASK, SegmentationTask

__all__ = ["TASK", "SegmentationTask"]
