"""The work of one block of systems, done where the block lives (this process or a Dask worker).

A *block* is a list of :class:`SystemSource` (a submission to read, the
organizer's baseline, or predictions already encoded).  Its worker reads,
validates and encodes the submissions (:func:`load_block`: the scoring
program's own readers, so a bad submission is skipped with the message its
participant saw), builds the block's :class:`~leaderboard_ci.core.systems.PairedPlan`
and keeps it for the block's tasks (:func:`block_state`, at most two blocks per
process).  The tasks are

* :func:`score_block`: the block's replicate scores on a span of replicates
  (and, on the first span, its full-sample scores, validity flags and per-unit
  table);
* :func:`pair_block`: every pair between two blocks (or within one), for
  every target: the paired-bootstrap difference, CI and p-values from the
  replicate scores it is given, and the item-level tests (permutation,
  McNemar, a task's own such as DeLong) from the two blocks' predictions.

The resamples depend only on (seed, replicate number), and each number
depends only on its own system or pair, so blocks scored anywhere give the
single-process result bit for bit.
"""

from __future__ import annotations

import threading
import tracemalloc
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ...core.pairs import PairStatistics, pair_statistics
from ...core.parallel import resolve_jobs, run_spans, single_threaded_blas, split_range
from ...core.permutation import PermutationUnsupported, permutation_pvalues
from ...scoring.errors import ConfigError
from ...scoring.readers import read_baseline
from ..execution.worker_cache import CACHE
from ..ingestion.submissions import read_entry
from .assemble import unit_table
from .systems import build_plan
from .targets import item_pair_tests, system_validity_flags
from .unit_values import unit_value_summaries

__all__ = [
    "SystemSource",
    "Block",
    "RunContext",
    "load_block",
    "block_state",
    "score_block",
    "pair_block",
    "measure_system_bytes",
    "BlockScores",
    "PairNumbers",
]


@dataclass(frozen=True)
class SystemSource:
    """Where one system's predictions come from: exactly one of the three fields."""

    name: str
    entry: object = None  # a SubmissionEntry, read as the scoring program reads it
    values: object = None  # predictions already encoded and aligned with the gold
    baseline_dir: Optional[str] = None  # the organizer's baseline (read_baseline)


@dataclass(frozen=True)
class Block:
    index: int
    sources: tuple


@dataclass(frozen=True)
class RunContext:
    """What every task of one run shares (sent to each worker once)."""

    token: str
    config: object
    gold: object
    n_jobs: int = 1
    item_tests: bool = False
    #: Called with the replicates scored (a run in this process only: never sent to Dask workers).
    progress: object = None


@dataclass(frozen=True)
class BlockScores:
    """What a scoring task sends back (small: no per-item data)."""

    index: int
    start: int
    stop: int
    names: tuple  # the block's readable systems, in order
    skipped: tuple  # (name, reason)
    replicates: np.ndarray  # (stop - start, len(names), T)
    full: Optional[np.ndarray] = None  # (len(names), T), first span only
    flags: Optional[list] = None  # per system, per target: (sparse, heavy)
    units: object = None  # the per-unit table (a DataFrame) or None
    unit_values: object = None  # {target key: per-system summary of per-unit values}, first span only
    jackknife: Optional[list] = None  # per system (scores, weights, inverse) for BCa, first span only


@dataclass(frozen=True)
class PairNumbers:
    """One target's numbers over some of its ranked pairs: what :func:`pair_block` sends back.

    ``tests`` holds the item-level tests as ``((name, values), ...)`` in
    :func:`~leaderboard_ci.phase.analysis.targets.item_pair_tests`' order; ``values`` is an
    array over the pairs, or a tuple of arrays (``permutation``: one-sided, two-sided, exact).
    """

    difference: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    p_value: np.ndarray
    p_two_sided: np.ndarray
    se: np.ndarray
    tests: tuple = ()

    @classmethod
    def assemble(cls, pieces, n_pairs):
        """The numbers of all ``n_pairs`` pairs from ``[(rows, PairNumbers)]`` that cover them."""

        def place(arrays, dtype=None):
            out = np.empty(n_pairs, dtype=np.asarray(arrays[0]).dtype if dtype is None else dtype)
            for (rows, _), values in zip(pieces, arrays):
                out[rows] = values
            return out

        if not pieces:
            empty = np.empty(0)
            return cls(empty, empty, empty, empty, empty, empty, ())
        numbers = [piece for _, piece in pieces]
        columns = [place([getattr(p, name) for p in numbers], np.float64) for name in _STATISTICS]
        tests = []
        for j, (name, values) in enumerate(numbers[0].tests):
            if isinstance(values, tuple):
                joined = tuple(place([p.tests[j][1][i] for p in numbers]) for i in range(len(values)))
            else:
                joined = place([p.tests[j][1] for p in numbers])
            tests.append((name, joined))
        return cls(*columns, tests=tuple(tests))

    def statistics(self, pairs):
        """A :class:`~leaderboard_ci.core.pairs.PairStatistics` of ranked ``pairs``."""
        return PairStatistics(
            pairs[:, 0],
            pairs[:, 1],
            self.difference,
            self.ci_low,
            self.ci_high,
            self.p_value,
            self.p_two_sided,
            self.se,
        )


_STATISTICS = ("difference", "ci_low", "ci_high", "p_value", "p_two_sided", "se")


def read_source(source, config, gold):
    """``(values, None)`` or ``(None, reason)`` for a participant's submission."""
    if source.values is not None:
        return np.asarray(source.values), None
    if source.baseline_dir is not None:  # an organizer file: its errors stop the run
        return read_baseline(source.baseline_dir, config, gold), None
    return read_entry(source.entry, config, gold)


class _BlockState:
    def __init__(self, names, values, skipped, plan):
        self.names = tuple(names)
        self.values = values
        self.skipped = tuple(skipped)
        self.plan = plan


def load_block(context, block):
    """Read, validate and encode a block's submissions and build its plan (ingestion)."""
    names, values, skipped = [], [], []
    for source in block.sources:
        value, reason = read_source(source, context.config, context.gold)
        if reason is None:
            names.append(source.name)
            values.append(value)
        else:
            skipped.append((source.name, reason))
    plan = build_plan(context.config, context.gold, values, names) if names else None
    return _BlockState(names, values, skipped, plan)


_KEEP = 2  # blocks kept per process: the two of a pair (one when the pair stage needs no predictions)


def block_state(context, block):
    """The block's state, built once per process and kept for its next tasks (at most two blocks)."""
    return CACHE.get(
        context.token,
        ("block", block.index),
        lambda: load_block(context, block),
        keep=_KEEP if context.item_tests else 1,
    )


def plan_end(context):
    return context.config.bootstrap.n_resamples


def release_block(context, block):
    """Drop one kept block (its last task is done)."""
    CACHE.drop(context.token, ("block", block.index))


def forget_blocks():
    """Drop every kept block (end of a run in this process)."""
    CACHE.clear()


def score_block(context, block, start, stop):
    """:class:`BlockScores` of ``block`` on replicates ``start .. stop-1``."""
    state = block_state(context, block)
    plan = state.plan
    if plan is None:
        return BlockScores(block.index, start, stop, (), state.skipped, np.empty((stop - start, 0, 0)))
    replicates = np.empty((stop - start, plan.m, len(plan.targets)))
    jobs = resolve_jobs(context.n_jobs)

    report = None
    if context.progress is not None:
        lock = threading.Lock()

        def report(k):
            with lock:
                context.progress(k)

    def work(span):
        replicates[span[0] - start : span[1] - start] = plan.scores_for_span(span[0], span[1], progress=report)

    run_spans(work, split_range(start, stop, jobs * 4 if jobs > 1 else 1), jobs)
    full = flags = units = unit_values = jack = None
    if stop == plan_end(context) and not context.item_tests:
        release_block(context, block)  # its pairs need only the replicate scores
    if start == 0:
        full = plan.full_scores()
        flags = [
            [system_validity_flags(context.gold, target, values) for target in plan.targets] for values in state.values
        ]
        units = unit_table(plan, context.gold, context.config, list(state.names))
        unit_values = unit_value_summaries(plan, list(state.names))
        if context.config.bootstrap.method == "bca":
            jack = plan.jackknife()
    return BlockScores(
        block.index, start, stop, state.names, state.skipped, replicates, full, flags, units, unit_values, jack
    )


def _local_permutation(context, scorers, full, work, predictions):
    """Permutation p-values of every pair any target needs, once: ``(pairs a < b, results)``."""
    keys = set()
    m = predictions.shape[1]
    for _, _, pairs in work:
        low, high = np.minimum(pairs[:, 0], pairs[:, 1]), np.maximum(pairs[:, 0], pairs[:, 1])
        keys.update((low * m + high).tolist())
    keys = np.array(sorted(keys), dtype=np.intp)
    unordered = np.stack([keys // m, keys % m], axis=1)
    an = context.config.analysis
    try:
        return unordered, permutation_pvalues(
            scorers,
            full,
            unordered,
            predictions,
            context.config.bootstrap.seed,
            an.n_permutations,
            clusters=context.gold.clusters,  # bootstrap.cluster: whole clusters are swapped
        )
    except PermutationUnsupported as exc:
        raise ConfigError("analysis.test: %s" % exc)


def pair_block(context, block_a, block_b, columns_a, columns_b, reps_a, reps_b, full, valid, work, jackknife=None):
    """Every pair's numbers between two blocks (or within one), for every target.

    Parameters
    ----------
    block_a, block_b : Block (``block_b`` is ``block_a`` for the pairs within a block)
    columns_a, columns_b : int arrays
        Which of each block's readable systems take part (positions in its state),
        in the local order: ``columns_a`` then ``columns_b`` (empty within a block).
    reps_a, reps_b : ``(B, s, T)`` replicate scores of those systems (``reps_b`` None within a block)
    full : ``(s_a + s_b, T)`` full-sample scores
    valid : ``(T, B)`` bool, the replicates every system has (the global rule of pair_statistics)
    work : list of ``(t, sign, pairs)``, ``pairs`` ``(P, 2)`` ranked local indices
    jackknife : list of ``(n, s_a + s_b)`` arrays per ``work`` entry, optional
        Per-item leave-one-out scores (``method: bca``, a run in one block in this process).

    Returns
    -------
    list of :class:`PairNumbers`, one per ``work`` entry.
    """
    config = context.config
    bs = config.bootstrap
    reps = reps_a if reps_b is None else np.concatenate([reps_a, reps_b], axis=1)
    predictions = scorers = None
    if context.item_tests:
        state_a = block_state(context, block_a)
        predictions = [state_a.values[c] for c in columns_a]
        scorers = [state_a.plan.scorers[c] for c in columns_a]
        if reps_b is not None:
            state_b = block_state(context, block_b)
            predictions += [state_b.values[c] for c in columns_b]
            scorers += [state_b.plan.scorers[c] for c in columns_b]
        predictions = np.stack(predictions, axis=1)
    targets = None
    permutation = None
    if context.item_tests:
        targets = scorers[0].targets
        if config.analysis.test == "permutation":
            permutation = _local_permutation(context, scorers, full, work, predictions)
    out = []
    with single_threaded_blas():
        for k, (t, sign, pairs) in enumerate(work):
            stats = pair_statistics(
                reps[valid[t]][:, :, t],
                full[:, t],
                pairs,
                sign,
                bs.method,
                bs.confidence_level,
                jackknife=None if jackknife is None else jackknife[k],
                n_jobs=context.n_jobs,
            )
            tests = ()
            if context.item_tests:
                tests = tuple(
                    item_pair_tests(config, context.gold, targets[t], t, pairs, predictions, permutation).items()
                )
            out.append(
                PairNumbers(
                    stats.difference, stats.ci_low, stats.ci_high, stats.p_value, stats.p_two_sided, stats.se, tests
                )
            )
    return out


def measure_system_bytes(context, sources, limit=3):
    """Bytes one system takes on a worker, and the process's fixed part, by building small plans.

    Reads the first readable sources (at most ``limit`` tried) and builds plans of one
    and of two systems under :mod:`tracemalloc` (numpy reports its arrays there); the
    difference of the peaks is one system's cost.  Returns ``(per_system, fixed, targets)``
    (the configuration's targets, from the plan); with fewer than two readable sources
    the one measurement is used for both.
    """
    readable = []
    for source in sources[: max(limit, 2)]:
        value, reason = read_source(source, context.config, context.gold)
        if reason is None:
            readable.append((source.name, value))
        if len(readable) == 2:
            break
    if not readable:
        return 0, 0, ()
    peaks = []
    targets = ()
    build_plan(context.config, context.gold, [readable[0][1]], [readable[0][0]]).full_scores()  # warm caches
    for k in (1, 2) if len(readable) == 2 else (1,):
        tracemalloc.start()
        try:
            copies = [np.array(v) for _, v in readable[:k]]
            plan = build_plan(context.config, context.gold, copies, [name for name, _ in readable[:k]])
            plan.full_scores()
            current, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        targets = plan.targets
        del plan, copies
        peaks.append((current, peak))
    if len(peaks) == 1:
        return peaks[0][1], 0, targets
    # What a system keeps (its plan's arrays) or adds to the peak, whichever is larger.
    per_system = max(peaks[1][0] - peaks[0][0], peaks[1][1] - peaks[0][1], readable[0][1].nbytes, 1)
    return per_system, max(peaks[0][1] - per_system, 0), targets
