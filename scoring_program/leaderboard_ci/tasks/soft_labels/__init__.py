"""Soft labels (learning with disagreement): per-item label distributions, scored as PyEvALL scores EXIST 2023.

The task type ``TASK`` (see :mod:`.metrics`)."""

from .metrics import TASK

__all__ = ["TASK"]
