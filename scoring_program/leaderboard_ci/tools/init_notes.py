"""What ``leaderboard-ci init`` tells the organizer about their gold beyond its checks: notes, not errors.

A note is one sentence about something the gold makes the program do that the organizer may not
expect (a forecasting history shorter than one season, scaled with ``m = 1``): the task type's
``gold_notes`` capability (:class:`~leaderboard_ci.tasks.protocol.TaskType`).  ``init`` prints each on
stdout and writes them in the competition's README; counts of the gold's items are fine there (the
organizer's eyes only), they never reach a participant's message.
"""

from ..tasks.registry import task_type

__all__ = ["init_notes", "readme_notes"]


def init_notes(config, gold):
    """The notes (sentences) about ``gold``, the :class:`~leaderboard_ci.tasks.protocol.GoldData` read."""
    task = task_type(config.kind)
    if task.gold_notes is None:
        return []
    return list(task.gold_notes(gold, config.metrics))


def readme_notes(notes):
    """The README section of ``notes`` ("" without any)."""
    if not notes:
        return ""
    return "\n## Notes on the gold\n\n" + "".join("* %s.\n" % note.rstrip(".") for note in notes)
