"""Single-label classification: one class label per item.

The task type ``TASK`` (see :mod:`.metrics`)."""

from .metrics import TASK

__all__ = ["TASK"]
