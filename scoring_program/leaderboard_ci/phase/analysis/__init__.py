"""The paired analysis of all systems: rankings, pairs, corrections, indicators and the results.

:func:`analyze` (in :mod:`.analysis`) is the entry point; :mod:`.systems` builds the paired
plan, :mod:`.targets` analyses one metric target, :mod:`.corrections` corrects p-values,
:mod:`.assemble` and :mod:`.unit_values` build the frozen :class:`PhaseResult` of :mod:`.results`;
:mod:`.blocked` runs it in blocks of systems (:mod:`.blocks`: one block's work) on a runner of
:mod:`leaderboard_ci.phase.execution`, which never imports this package.
"""

from .analysis import Execution, PhaseResult, TargetAnalysis, analyze, encode_inputs

__all__ = ["analyze", "encode_inputs", "Execution", "PhaseResult", "TargetAnalysis"]
