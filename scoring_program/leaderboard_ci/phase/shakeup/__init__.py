"""The competition as a whole: public-to-private shake-up, overfitting of the public set, the winner's curse.

:func:`shakeup` (in :mod:`.api`) analyses predictions in memory;
``leaderboard-ci shakeup`` (:mod:`.cli`) reads two phases' reference data and
downloads, or one reference split by a column.  :mod:`.pipeline` is the one
path both take: :mod:`.references` (the two test sets), :mod:`.scoring` (the
participants' runs in blocks, here or on Dask), :mod:`.analysis` (gaps,
:mod:`.gaps`; rank agreement, :mod:`.rank_agreement`; the noise model,
:mod:`.noise`), :mod:`.results` (the frozen :class:`ShakeupResult`).  The names
below are imported on first use (no work at import time).
"""

__all__ = ["shakeup", "analyze_shakeup", "ShakeupResult", "SetScores", "WinnersCurse"]

_WHERE = {
    "shakeup": "api",
    "analyze_shakeup": "analysis",
    "ShakeupResult": "results",
    "SetScores": "results",
    "WinnersCurse": "results",
}


def __getattr__(name):
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(__name__ + "." + _WHERE[name]), name)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
