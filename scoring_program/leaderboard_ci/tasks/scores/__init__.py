"""The scores task type (see :mod:`.metrics`)."""

from .metrics import TASK

__all__ = ["TASK"]
