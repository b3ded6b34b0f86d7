"""Sequence labelling: one tag per token, scored on the entities the tags spell (named-entity recognition).

The task type ``TASK`` (see :mod:`.metrics`)."""

from .metrics import TASK

__all__ = ["TASK"]
