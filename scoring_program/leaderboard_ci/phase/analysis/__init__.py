"""The paired analysis of all systems: rankings, pairs, corrections, indicators and the results.

:func:`analyze` (in :mod:`.analysis`) is the entry point; :mod:`.systems` builds the paired
plan, :mod:`.targets` analyses one metric target, :mod:`.corrections` corrects p-values,
:mod:`.assemble` and :mod:`.unit_values` build the frozen :class:`PhaseResult` of :mod:`.results`;
:mod:`.blocked` runs it in blocks of systems (:mod:`.blocks`: one block's work) on a runner of
:mod:`leaderboard_ci.phase.execution`, which never imports this package.
The names below are imported on first use (no work at import time).
"""

__all__ = ["analyze", "encode_inputs", "Execution", "PhaseResult", "TargetAnalysis"]


def __getattr__(name):
    if name in __all__:
        from . import analysis

        return getattr(analysis, name)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
