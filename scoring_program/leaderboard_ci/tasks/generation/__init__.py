"""Text generation (machine translation, summarization, speech recognition, captioning): corpus metrics.

The task type ``TASK`` (see :mod:`.metrics`)."""

from .metrics import TASK

__all__ = ["TASK"]
