"""Multi-label classification: a set of labels per item (``task: multilabel``).

The task type ``TASK`` (see :mod:`.metrics`)."""

from .metrics import TASK

__all__ = ["TASK"]
