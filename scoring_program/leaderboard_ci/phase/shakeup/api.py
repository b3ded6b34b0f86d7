"""The shake-up from predictions in memory: :func:`shakeup`.

Two ways a competition holds its two test sets, as on the command line:

* two phases: ``shakeup(public_gold, public_runs, private_gold, private_runs, metric=...)``;
* one gold with a public/private split: ``shakeup(gold, runs, split=parts, metric=...)``.

``runs`` maps each participant to its submissions in the order they were made
(oldest first; a single prediction sequence is one submission).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from ...core.parallel import resolve_jobs
from ...scoring.config import config_from_options
from ..analysis.analysis import encode_inputs
from ..analysis.blocks import SystemSource
from ..execution.runs import Execution
from .pipeline import DEFAULT_BIAS_RESAMPLES, DEFAULT_BLOCK_SIZE, run_shakeup
from .references import TestSet, official_only, subset_gold
from .scoring import ParticipantRuns

__all__ = ["shakeup"]


def _runs_of(runs):
    """``{participant: [predictions, ...]}`` from a mapping of one or several prediction sequences each."""
    out = OrderedDict()
    for key, value in runs.items():
        many = isinstance(value, (list, tuple)) and len(value) > 0 and isinstance(value[0], (list, tuple, np.ndarray))
        out[str(key)] = list(value) if many else [value]
        if not out[str(key)]:
            raise ValueError("participant %r has no submission" % (key,))
    return out


def _encoded(config, gold, runs):
    """The GoldStandard and each participant's :class:`ParticipantRuns` of encoded predictions."""
    flat = OrderedDict()
    for key, sequences in runs.items():
        for k, values in enumerate(sequences):
            flat["%s (%d)" % (key, k + 1)] = values
    gold_std, coded = encode_inputs(config, gold, flat)
    participants = []
    for key, sequences in runs.items():
        sources = tuple(
            SystemSource("%s (%d)" % (key, k + 1), values=coded["%s (%d)" % (key, k + 1)])
            for k in range(len(sequences))
        )
        participants.append(ParticipantRuns(key, sources, len(sources)))
    return gold_std, participants


def _split_items(split, n):
    parts = [str(v).strip().lower() for v in split]
    if len(parts) != n:
        raise ValueError("split has %d values for %d items" % (len(parts), n))
    public = np.flatnonzero(np.array(parts) == "public")
    private = np.flatnonzero(np.array(parts) == "private")
    if not public.size or not private.size:
        raise ValueError("split must name some items 'public' and some 'private'")
    return public, private


def shakeup(
    public_gold,
    public_runs,
    private_gold=None,
    private_runs=None,
    *,
    split=None,
    metric=None,
    config=None,
    select="best",
    private_select="last",
    execution=None,
    block_size=DEFAULT_BLOCK_SIZE,
    bias_resamples=DEFAULT_BIAS_RESAMPLES,
    **settings,
):
    """Public-to-private shake-up of predictions in memory.

    Parameters
    ----------
    public_gold : sequence
        The public set's gold labels or values (split mode: every item's).
    public_runs : mapping
        Participant -> its public submissions, oldest first (split mode: its
        submissions over every item).  A single prediction sequence is one submission.
    private_gold, private_runs : optional
        The private set and each participant's private submissions (two-phase mode).
    split : sequence of str, optional
        Split mode: ``"public"`` or ``"private"`` per item (other values: in neither part).
    metric : str or dict, optional
        The official metric (or pass ``config``).
    config : Config, optional
    select, private_select : {"best", "last"}
        The public run of each participant (its best public score, or its last); the
        private phase's run (two-phase mode).
    execution : Execution, optional
        Threads, Dask and runner; never changes a number.
    block_size : int
        Runs per block task.
    bias_resamples : int or None
        Replicates the best-of-k optimism is measured on (the first of the ``B``;
        None: all); every other number uses all ``B``.
    **settings
        ``n_resamples, seed, method, confidence_level, alpha, sides, labels, ...``
        (as :func:`~leaderboard_ci.phase.analysis.analyze`).

    Returns
    -------
    ShakeupResult
    """
    if config is None:
        config = config_from_options(metric or "accuracy", source="shakeup()", **settings)
    elif metric is not None or settings:
        raise ValueError("pass either config or metric/keyword settings, not both")
    execution = execution if execution is not None else Execution()
    public_runs = _runs_of(public_runs)
    scoring = official_only(config)
    if split is not None:
        if private_gold is not None or private_runs is not None:
            raise ValueError("split mode takes one gold and one set of runs; give split or private_gold, not both")
        gold, participants = _encoded(config, public_gold, public_runs)
        pub_items, priv_items = _split_items(split, gold.n)
        public = TestSet("public", scoring, subset_gold(gold, pub_items), pub_items, "public part")
        private = TestSet("private", scoring, subset_gold(gold, priv_items), priv_items, "private part")
        private_participants, readers = None, ((scoring, gold), None)
    else:
        if private_gold is None or private_runs is None:
            raise ValueError("give private_gold and private_runs (two phases), or split (one split gold)")
        pub_gold, participants = _encoded(config, public_gold, public_runs)
        priv_gold, private_participants = _encoded(config, private_gold, _runs_of(private_runs))
        public = TestSet("public", scoring, pub_gold, None, "public set")
        private = TestSet("private", scoring, priv_gold, None, "private set")
        readers = ((scoring, pub_gold), (scoring, priv_gold))
    runner = execution.open_runner()
    try:
        local = runner.in_process
        return run_shakeup(
            public,
            private,
            participants,
            private_participants,
            public_reader=readers[0],
            private_reader=readers[1],
            select=select,
            private_select=private_select,
            runner=runner,
            n_jobs=resolve_jobs(execution.n_jobs) if local else 1,
            block_size=block_size,
            bias_resamples=bias_resamples,
        )
    finally:
        if execution.runner is None:
            runner.close()
