"""Ranking and retrieval: a ranked list of documents per query, judged by graded relevance.

The task type ``TASK`` (see :mod:`.metrics`)."""

from .metrics import TASK

__all__ = ["TASK"]
