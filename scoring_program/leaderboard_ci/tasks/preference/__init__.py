"""Preference arenas: Bradley-Terry scores on the Elo scale from a battle log (LMArena / FastChat).

The task type ``TASK`` (see :mod:`.metrics`)."""

from .metrics import TASK

__all__ = ["TASK"]
