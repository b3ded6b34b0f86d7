"""What ``leaderboard-ci init`` tells the organizer about their gold beyond its checks: notes, not errors.

A note is one sentence about something the gold makes the program do that the organizer may not
expect (a forecasting history shorter than one season, scaled with ``m = 1``).  ``init`` prints each
on stdout and writes them in the competition's README; counts of the gold's items are fine there
(the organizer's eyes only), they never reach a participant's message.
"""

from ..tasks.forecasting.gold import short_histories

__all__ = ["init_notes", "readme_notes"]


def init_notes(config, gold):
    """The notes (sentences) about ``gold``, the :class:`~leaderboard_ci.tasks.protocol.GoldData` read."""
    notes = []
    if config.kind == "forecasting":
        short = short_histories(gold.values, config.metrics)
        if short:
            notes.append(
                "%d of the %d series have a history of one season or less (m points or fewer, m > 1): MASE "
                "scales them by the in-sample error of the one-step naive forecast (m = 1, as GluonTS does), "
                "not the seasonal one (docs/tasks/forecasting.md)" % (short, len(gold.values))
            )
    return notes


def readme_notes(notes):
    """The README section of ``notes`` ("" without any)."""
    if not notes:
        return ""
    return "\n## Notes on the gold\n\n" + "".join("* %s.\n" % note.rstrip(".") for note in notes)
