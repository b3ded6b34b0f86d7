"""The segmentation task's own ``config.yaml`` keys: ``ignore_index`` and ``max_pixels``.

``labels`` (the configuration's own key) names the classes, index 0 first; the task
needs it (:meth:`SegmentationSettings.check`).  Python 3.7, the standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..settings import TaskSettings, setting

__all__ = ["SegmentationSettings", "DEFAULT_IGNORE_INDEX", "DEFAULT_MAX_PIXELS"]

DEFAULT_IGNORE_INDEX = 255
#: The most pixels a gold mask may have by default (64 megapixels: above every public benchmark's images).
DEFAULT_MAX_PIXELS = 64 * 2**20


def _ignore_index(value):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 65535:
        raise ValueError("ignore_index must be an integer from 0 to 65535 (or null), got %r" % (value,))
    return int(value)


def _max_pixels(value):
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 2**31:
        raise ValueError("max_pixels must be an integer from 1 to 2**31, got %r" % (value,))
    return int(value)


@dataclass(frozen=True)
class SegmentationSettings(TaskSettings):
    """``ignore_index`` (gold pixels not scored) and ``max_pixels`` (a gold mask's most pixels)."""

    ignore_index: Optional[int] = setting(
        DEFAULT_IGNORE_INDEX,
        "Gold pixels with this value are not scored (default 255; null: every pixel is a class).",
        parse=_ignore_index,
    )
    max_pixels: int = setting(
        DEFAULT_MAX_PIXELS,
        "The most pixels a gold mask may have (default 67,108,864); a submitted mask must have its gold image's size.",
        parse=_max_pixels,
    )

    def check(self, metrics, labels):
        """Classes must be named (``labels``), and ``ignore_index`` must not be one of their indices."""
        if labels is None:
            raise ValueError("task segmentation needs labels: the class names, in the order of their indices 0, 1, ...")
        if self.ignore_index is not None and self.ignore_index < len(labels):
            raise ValueError(
                "ignore_index %d is the index of class %r; set it to a value that is not a class (255 by default)"
                % (self.ignore_index, labels[self.ignore_index])
            )
        if len(labels) > 65535:
            raise ValueError("a mask holds at most 65,536 classes (16-bit values)")
