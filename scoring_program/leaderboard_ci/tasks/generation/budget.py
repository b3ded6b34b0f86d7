"""The CPU time the generation metrics may spend on one submission: :class:`WorkBudget`.

BLEU's and chrF's n-gram counts grow with the hypotheses' length and TER's
shift search with their length and disorder, so a participant's file of long,
shuffled hypotheses could keep the scoring program busy for minutes.  One
budget bounds the per-segment statistics of every configured metric together
(they run one after another on the same file): CPU seconds of the thread that
scores, counted from the first metric's first segment.  By default
:data:`MAX_SECONDS`, or :data:`SECONDS_PER_WORD` per reference word when the
test set is larger; the generation setting ``max_seconds`` sets it outright.
Past it the metrics raise :class:`WorkExceeded` naming the segment, and the
reader's :func:`~.files.work_error` turns it into the participant's sentence
with the file and line.  The scores never depend on the budget, only whether
a file is scored.

Python 3.7, the standard library only.
"""

from __future__ import annotations

import time

__all__ = ["MAX_SECONDS", "SECONDS_PER_WORD", "CHECK_EVERY", "WorkExceeded", "WorkBudget", "time_budget"]

#: The most CPU seconds (of the thread that scores) the generation metrics' statistics may take on one
#: file by default, at least: on a test set of up to 8,750 reference words the worst file a participant
#: may send (800 hypotheses of 1,000 shuffled words) is refused within about 8 s of CPU for the whole run
#: in the Python 3.7 image (start-up and reading take under a second).  A word's cost differs tenfold
#: between files (TER's search on a shuffled 32-word sentence costs 10-25 us an edit-distance row, on a
#: shuffled 1,000-word segment 1 us), so counting words or rows could not bound the time without refusing
#: honest files.
MAX_SECONDS = 7.0

#: ... and per word of the references (their mean length per segment, summed), when that gives more: an
#: honest file's work grows with the test set (the generation example's reordered sample takes 0.4 ms of
#: TER a reference word in the Python 3.7 image; BLEU, chrF++ and WER together about 0.05 ms), so a large
#: test set's honest files are not refused by a bound sized for a small one.
SECONDS_PER_WORD = 0.0008

#: Units of work (words, or TER's edit-distance rows) between two readings of the clock: reading it costs
#: about 2 us, a unit 1-25 us, so the budget costs well under 1% and is overrun by a few milliseconds at most.
CHECK_EVERY = 1000


def time_budget(references, max_seconds=None):
    """CPU seconds the metrics may take on ``references`` (per segment, a tuple of reference strings):
    ``max_seconds`` when given, else the larger of :data:`MAX_SECONDS` and :data:`SECONDS_PER_WORD` per
    reference word."""
    if max_seconds is not None:
        return max_seconds
    words = sum(sum(len(r.split()) for r in refs) / max(1, len(refs)) for refs in references)
    return max(MAX_SECONDS, SECONDS_PER_WORD * words)


class WorkExceeded(ValueError):
    """The statistics up to segment ``segment`` (0-based) took more than ``limit`` CPU seconds (``seconds``),
    or TER's search more than ``limit`` edit-distance rows; ``given``: the organizer set the limit
    (a limit derived from the references' length is not shown to participants)."""

    def __init__(self, segment, limit, seconds=True, given=False):
        what = "%g CPU seconds" % limit if seconds else "%d edit-distance rows" % limit
        ValueError.__init__(self, "segment %d: the generation metrics' work exceeds %s" % (segment, what))
        self.segment, self.limit, self.seconds, self.given = segment, limit, seconds, given


class WorkBudget:
    """CPU seconds of this thread that the statistics of one file may still take.

    Each metric calls :meth:`spend` after a segment with its work on it
    (words, or rows); the clock is read once :data:`CHECK_EVERY` units have
    been spent since the last reading.  ``seconds`` None: no bound.
    ``given``: the organizer set ``seconds`` (the participant's sentence may
    show it).
    """

    def __init__(self, seconds=None, given=False):
        self.seconds, self.given = seconds, given
        self._started = _cpu_seconds()
        self._pending = 0

    def spend(self, segment, units):
        """Count ``units`` of work on ``segment``; raises :class:`WorkExceeded` once past the budget."""
        self._pending += units
        if self._pending >= CHECK_EVERY:
            self._pending = 0
            if self.seconds is not None and _cpu_seconds() - self._started > self.seconds:
                raise WorkExceeded(segment, self.seconds, given=self.given)


def _cpu_seconds():
    """This thread's CPU time (the scoring program computes the statistics in one thread; other threads'
    work, such as another submission's in the end of phase, is not counted)."""
    return time.thread_time()
