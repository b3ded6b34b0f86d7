"""Scored predictions: a score or one probability per class for each item, gold class labels.

The task type ``TASK`` (see :mod:`.metrics`)."""

from .metrics import TASK

__all__ = ["TASK"]
