"""Extractive question answering: one answer string per question, scored as SQuAD v1.1 scores it.

The task type ``TASK`` (see :mod:`.metrics`)."""

from .metrics import TASK

__all__ = ["TASK"]
