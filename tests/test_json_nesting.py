"""JSON nested deeper than Python's recursion limit, read while garbage with a finalizer waits.

Python's ``json`` recurses once per level; a garbage collection that starts deep in that recursion runs the
waiting objects' finalizers with almost no stack left, and their RecursionError is printed as "Exception
ignored in ..." on stderr (what a Codabench participant reads), or under pytest fails whichever test was
running (it did in CI, in test_detection_inputs' nested_deep case).  The readers decode with the collector
paused (``json_documents.paused_collection``).  Here the collection is made to start deep on purpose: the
collector's threshold is set to fire a given number of levels short of the limit, just after an object whose
finalizer needs 40 frames has become garbage; margins of 5 to 75 levels are tried.  The same harness
with the pause switched off must see the ignored exception, so the test can fail.
"""

import gc
import json
import sys

import pytest

from leaderboard_ci.scoring.errors import SubmissionError
from leaderboard_ci.scoring.text_files import Source
from leaderboard_ci.tasks.shared import json_documents
from leaderboard_ci.tasks.shared.json_stream import JsonStream

DEEP = "[" * 100000 + "]" * 100000


class _NeedsFrames(object):
    def __del__(self):
        def down(n):
            return down(n - 1) if n else 0

        down(40)


def _frames():
    frame, count = sys._getframe(), 0
    while frame is not None:
        frame, count = frame.f_back, count + 1
    return count


def _ignored_while(read):
    """The exceptions ignored (sys.unraisablehook) while ``read()`` runs with a collection due deep in it."""
    ignored = []
    hook, threshold = sys.unraisablehook, gc.get_threshold()
    sys.unraisablehook = ignored.append
    try:
        for margin in range(5, 80, 10):
            frames = _frames()
            gc.collect()
            thing = _NeedsFrames()
            thing.cycle = thing  # only the collector frees it
            del thing
            gc.set_threshold(max(10, sys.getrecursionlimit() - frames - margin))
            try:
                read()
            except (SubmissionError, RecursionError):
                pass
            gc.set_threshold(*threshold)
            gc.collect(0)
    finally:
        sys.unraisablehook = hook
        gc.set_threshold(*threshold)
    return [repr(event.exc_value) for event in ignored]


READERS = {
    "document members": lambda: list(json_documents.members(Source("a.json", "a.json"), '{"a": ' + DEEP + "}", "x")),
    "stream value": lambda: JsonStream(Source("d.json", "d.json"), [(DEEP, True)], "x").value(),
    "one JSON line": lambda: json_documents.loads(DEEP),
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_no_finalizer_runs_deep_in_a_nested_document(reader):
    assert _ignored_while(READERS[reader]) == []


def test_without_the_pause_the_harness_sees_the_ignored_exception(monkeypatch):
    monkeypatch.setattr(json_documents, "paused_collection", lambda decode, *args, **kwargs: decode(*args, **kwargs))
    assert any("RecursionError" in shown for shown in _ignored_while(lambda: json.loads(DEEP)))
    assert any("RecursionError" in shown for shown in _ignored_while(READERS["stream value"]))
