"""The end-of-phase analysis: systems in blocks, here or on Dask (every run takes this path).

:func:`plan_phase` chooses how many systems go in a block (:mod:`.budget`):
all of them when there is no budget (the in-memory run: one block in this
process, nothing measured), else as many as the budget holds, measured by
building a small plan; :func:`analyze_blocks` then

1. scores every block where it lives (:func:`~leaderboard_ci.phase.analysis.blocks.score_block`):
   its submissions are read, validated and encoded there, and only replicate
   scores (``B x s x T``) come back;
2. ranks the systems of each target on the client, which holds every
   system's replicate scores but no per-item data;
3. runs the pair stage in block pairs (:func:`~leaderboard_ci.phase.analysis.blocks.pair_block`),
   each task getting the two blocks' replicate columns, and places each
   block pair's :class:`~leaderboard_ci.phase.analysis.blocks.PairNumbers` into the pairs table;
4. corrects the p-values and builds the frozen
   :class:`~leaderboard_ci.phase.analysis.results.PhaseResult`; the numbers never depend on the blocks.

``method: bca`` needs every system's per-item jackknife in one process: it
runs in the one-block plan in this process, and is refused with more blocks or on Dask.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ...core.pairs import ranked_pairs
from ...core.parallel import resolve_jobs
from ...core.systems import SystemScores
from ...scoring.config import column_key
from ...scoring.errors import ConfigError
from ...tasks.registry import task_type
from ..execution.budget import blocks_of, plan_blocks, process_rss
from ..execution.runners import LocalRunner
from ..ingestion.submissions import names_after_selection, no_systems, select_entries
from .assemble import phase_result
from .blocks import (
    Block,
    PairNumbers,
    RunContext,
    SystemSource,
    forget_blocks,
    measure_system_bytes,
    pair_block,
    read_source,
    score_block,
)
from .systems import build_plan
from .targets import finish_target, target_order
from .unit_values import attach_unit_values

__all__ = ["PhasePlan", "plan_phase", "open_run", "Run", "analyze_blocks", "needs_item_tests", "SystemSource"]


@dataclass(frozen=True)
class PhasePlan:
    """A :class:`~leaderboard_ci.phase.execution.budget.BlockPlan` and what the run needs besides."""

    blocks: object
    item_tests: bool
    targets: tuple

    def describe(self):
        return self.blocks.describe()

    @property
    def progress_total(self):
        """What ``progress`` adds up to: replicates scored and block pairs in this process, tasks on Dask."""
        b = self.blocks
        return b.n_blocks * b.n_resamples + b.n_block_pairs if b.in_process else b.n_tasks


def needs_item_tests(config, gold):
    """Whether the pair stage needs per-item predictions (permutation, a task's own tests such as McNemar's)."""
    if config.analysis.test == "permutation":  # with bootstrap.cluster it swaps whole clusters
        return True
    pair_tests = task_type(gold.kind).pair_tests  # with clusters: their cluster-robust versions
    return pair_tests is not None and pair_tests.needed(config.metrics)


def plan_phase(
    config,
    gold,
    sources,
    workers=1,
    worker_budget=None,
    client_budget=None,
    block_size=None,
    in_process=False,
    threads=1,
):
    """Measure one system's cost and choose the blocks (see :func:`~leaderboard_ci.phase.execution.budget.plan_blocks`).

    ``in_process`` (no Dask: the client's budget also holds the blocks) and ``threads``
    (threads scoring a block) are passed to the planner.  Without a budget or a block
    size, all systems form one block and nothing is measured: the in-memory run.
    """
    if not sources:
        raise ConfigError("no systems to analyse")
    context = RunContext("probe", config, gold)
    if worker_budget is None and client_budget is None and block_size is None and in_process:
        per_system, fixed, targets = 0, 0, _targets(context, list(sources))
    else:
        per_system, fixed, targets = measure_system_bytes(context, list(sources))
    item_tests = needs_item_tests(config, gold)
    blocks = plan_blocks(
        len(sources),
        gold.n,
        config.bootstrap.n_resamples,
        max(len(targets), 1),
        per_system,
        process_rss() + fixed,
        workers=workers,
        worker_budget=worker_budget,
        client_budget=client_budget,
        item_tests=item_tests,
        block_size=block_size,
        in_process=in_process,
        threads=threads,
    )
    if config.bootstrap.method == "bca" and not (in_process and blocks.n_blocks == 1):
        raise ConfigError(
            "bootstrap.method: bca is not available with --memory-limit or --dask (its pair intervals "
            "need every system's per-item jackknife in one process); use percentile or basic, or run "
            "without them"
        )
    return PhasePlan(blocks, item_tests, tuple(targets))


@dataclass(frozen=True)
class Run:
    """An open run: its runner, its plan of blocks and the threads of each task."""

    runner: object
    plan: object
    n_jobs: int


@contextmanager
def open_run(config, gold, sources, execution):
    """Open the runner, measure one system and plan the blocks; close the runner at the end.

    The one place where a run is set up, for :func:`~leaderboard_ci.phase.analysis.analyze`
    and the ``end_of_phase`` command.  Yields a :class:`Run`.
    """
    if not sources:
        raise ConfigError("no systems to analyse")
    budget, client_budget = execution.budgets()
    runner = execution.open_runner(budget)
    try:
        if budget is None:
            budget = runner.worker_memory
        local = isinstance(runner, LocalRunner)
        jobs = resolve_jobs(execution.n_jobs) if local else 1
        plan = plan_phase(
            config,
            gold,
            sources,
            workers=runner.workers,
            worker_budget=budget,
            client_budget=client_budget,
            block_size=execution.block_size,
            in_process=local,
            threads=jobs,
        )
        yield Run(runner, plan, jobs)
    finally:
        if execution.runner is None:
            runner.close()


def _targets(context, sources):
    """The configuration's targets, from the plan of the first readable source (no measurement)."""
    for source in sources:
        value, reason = read_source(source, context.config, context.gold)
        if reason is None:
            return build_plan(context.config, context.gold, [value], [source.name]).targets
    return ()


@dataclass(frozen=True)
class ScoredBlock:
    """One block's results on every replicate, joined on the client."""

    names: tuple
    skipped: tuple
    full: object  # (s, T) full-sample scores, or None for a block with no readable system
    flags: object
    units: object
    unit_values: object
    replicates: object  # (B, s, T), or None once joined into the phase's matrix
    jackknife: object = None  # per system (scores, weights, inverse) for BCa, else None


def _score_blocks(runner, context, blocks, plan, progress):
    """Every block's :class:`ScoredBlock`, in block order."""
    spans = plan.spans()
    calls = [(context, block, a, b) for block in blocks for a, b in spans]
    pieces = [{} for _ in blocks]
    firsts = [None] * len(blocks)
    for _index, result in runner.run(score_block, calls):
        pieces[result.index][result.start] = result.replicates
        if result.start == 0:
            firsts[result.index] = result
        if progress is not None:
            progress(1)
    parts = []
    for first, piece in zip(firsts, pieces):
        replicates = np.concatenate([piece.pop(a) for a, _ in spans], axis=0) if first.names else None
        parts.append(
            ScoredBlock(
                first.names,
                first.skipped,
                first.full,
                first.flags,
                first.units,
                first.unit_values,
                replicates,
                first.jackknife,
            )
        )
    return parts


def _select(parts, sources, per_participant, sign):
    """Global system list after ``per_participant``: ``[(block, position in block)]`` and names."""
    by_name = dict((s.name, s) for s in sources)
    readable = [((k, i), name) for k, part in enumerate(parts) for i, name in enumerate(part.names)]
    if per_participant == "all":
        return [where for where, _ in readable]
    entries = [(by_name[name].entry, (where, name)) for where, name in readable if by_name[name].entry is not None]
    fixed = set(where for where, name in readable if by_name[name].entry is None)  # the baseline stays
    chosen = select_entries(entries, per_participant, sign, lambda item: parts[item[0][0]].full[item[0][1], 0])
    keep = set(item[1][0] for item in chosen) | fixed
    return [where for where, _ in readable if where in keep]


def _pair_stage(runner, context, blocks, members, columns, scores, orders, progress):
    """Every target's ranked pairs with their statistics and item tests, computed in block pairs."""
    m = len(scores.names)
    n_targets = len(scores.targets)
    block_of = np.empty(m, dtype=np.intp)
    position = np.empty(m, dtype=np.intp)
    for k, mem in enumerate(members):
        block_of[mem] = k
        position[mem] = np.arange(len(mem))
    valid = np.stack([np.all(np.isfinite(scores.replicates[:, :, t]), axis=1) for t in range(n_targets)])
    shared = [runner.put(np.ascontiguousarray(scores.replicates[:, mem, :])) if len(mem) else None for mem in members]
    nb = len(members)
    pairs_of = []
    groups = OrderedDict()  # (lo, hi) -> list of (t, rows, local pairs)
    for t in range(n_targets):
        pairs = ranked_pairs(orders[t])
        pairs_of.append(pairs)
        ba, bb = block_of[pairs[:, 0]], block_of[pairs[:, 1]]
        lo, hi = np.minimum(ba, bb), np.maximum(ba, bb)
        key = lo * nb + hi
        sort = np.argsort(key, kind="stable")
        bounds = np.flatnonzero(np.diff(key[sort])) + 1
        for rows in np.split(sort, bounds):
            if not rows.size:
                continue
            k_lo, k_hi = int(lo[rows[0]]), int(hi[rows[0]])
            local = np.empty((rows.size, 2), dtype=np.intp)
            for side in (0, 1):
                systems = pairs[rows, side]
                offset = np.where(block_of[systems] == k_lo, 0, len(members[k_lo]))
                local[:, side] = position[systems] + offset
            groups.setdefault((k_lo, k_hi), []).append((t, rows, local))
    # BCa (a run in one block in this process): the per-item leave-one-out scores of every target.
    jackknife = None if scores.jackknife is None else [scores.jackknife_matrix(t) for t in range(n_targets)]
    calls, keys = [], []
    for (k_lo, k_hi), work in groups.items():
        cols = np.concatenate([members[k_lo]] + ([members[k_hi]] if k_hi != k_lo else []))
        calls.append(
            (
                context,
                blocks[k_lo],
                blocks[k_hi],
                columns[k_lo],
                columns[k_hi] if k_hi != k_lo else np.empty(0, np.intp),
                shared[k_lo],
                shared[k_hi] if k_hi != k_lo else None,
                scores.full[cols],
                valid,
                [(t, scores.targets[t].metric.sign, local) for t, _, local in work],
                None if jackknife is None else [jackknife[t][:, cols] for t, _, _ in work],
            )
        )
        keys.append((k_lo, k_hi))
    pieces = [[] for _ in range(n_targets)]
    for index, result in runner.run(pair_block, calls):
        for (t, rows, _), numbers in zip(groups[keys[index]], result):
            pieces[t].append((rows, numbers))
        if progress is not None:
            progress(1)
    results = []
    for t in range(n_targets):
        pairs = pairs_of[t]
        numbers = PairNumbers.assemble(pieces[t], len(pairs))
        results.append((pairs, numbers.statistics(pairs), OrderedDict(numbers.tests)))
    return results


def analyze_blocks(
    config,
    gold,
    sources,
    plan,
    runner,
    baseline=None,
    skipped=(),
    per_participant="all",
    n_jobs=1,
    progress=None,
    chosen_out=None,
):
    """The :class:`~leaderboard_ci.phase.analysis.results.PhaseResult` of ``sources`` scored in ``plan``'s blocks.

    Parameters
    ----------
    config, gold : Config, GoldStandard
    sources : list of :class:`~leaderboard_ci.phase.analysis.blocks.SystemSource`
    plan : PhasePlan (:func:`plan_phase`)
    runner : :class:`~leaderboard_ci.phase.execution.runners.LocalRunner` or ``DaskRunner``
    baseline : str, optional
        The baseline system's name.
    skipped : list of (submission, reason)
        Submissions already left out (discovery); those a block cannot read are added.
    per_participant : {"all", "best", "last", "listed"}
        With ``best`` or ``last`` the kept runs are named by their owners
        (:func:`~leaderboard_ci.phase.ingestion.submissions.names_after_selection`).
    n_jobs : int
        Threads inside each task (1 on Dask workers).
    progress : callable, optional
        Called as work finishes: in this process with the replicates scored, and 1 per
        block pair; on Dask with 1 per task (``plan.progress_total`` in all).
    chosen_out : list, optional
        Receives the names (as in ``sources``) of the systems kept, before the
        owner names of ``best`` and ``last``.
    """
    bplan = plan.blocks
    local = runner.in_process
    context = RunContext(
        uuid.uuid4().hex, config, gold, n_jobs=n_jobs, item_tests=plan.item_tests, progress=progress if local else None
    )
    shared_context = runner.share(context)
    blocks = [Block(k, tuple(sources[a:b])) for k, (a, b) in enumerate(blocks_of(len(sources), bplan.block_size))]
    parts = _score_blocks(runner, shared_context, blocks, bplan, None if local else progress)
    skipped = list(skipped) + [item for part in parts for item in part.skipped]
    chosen, names, baseline = _chosen_systems(parts, sources, per_participant, config, baseline, skipped, chosen_out)
    members, columns = _block_columns(parts, chosen)
    scores, flags = _joined_scores(config, parts, chosen, names, members, columns, plan.targets)
    unit_frames = [part.units for part in parts if part.units is not None]
    parts = [replace(part, replicates=None) for part in parts]  # the joined matrix is the one copy kept
    orders, order_notes = _target_orders(scores, baseline)
    if not plan.item_tests and local:
        # Here every replicate score is in memory already and no pair needs predictions: one
        # group of all systems (pair_statistics works in chunks of pairs, so memory stays bounded).
        members, columns = [np.arange(len(names), dtype=np.intp)], [np.empty(0, np.intp)]
        blocks = blocks[:1]
    pair_results = _pair_stage(runner, shared_context, blocks, members, columns, scores, orders, progress)
    forget_blocks()  # this process's blocks (a local run); workers drop theirs at the next run
    analyses = OrderedDict()
    for t, target in enumerate(scores.targets):
        pairs, stats, tests = pair_results[t]
        flags_t = [f[t] for f in flags]
        analyses[column_key(target.metric.key, target.group)] = finish_target(
            config, gold, scores, t, names, orders[t], order_notes[t], pairs, stats, tests, flags_t, baseline, n_jobs
        )
    analyses = attach_unit_values(analyses, _unit_values(parts, set(names)))
    return phase_result(config, gold, analyses, names, baseline, skipped, _units_table(unit_frames, names))


def _chosen_systems(parts, sources, per_participant, config, baseline, skipped, chosen_out):
    """The systems kept after ``per_participant``: ``(chosen, names, baseline)``.

    Parameters
    ----------
    parts : list of ScoredBlock
    sources : list of SystemSource
    per_participant : str
    config : Config
    baseline : str or None
    skipped : list of (submission, reason)
        Said in the error when no system is left.
    chosen_out : list or None
        Receives the kept names as in ``sources``.

    Returns
    -------
    chosen : list of (block, position in block)
    names : list of str
        The kept systems' names, renamed to their owners with ``best`` and ``last``.
    baseline : str or None
        The baseline's name after the same renaming.
    """
    chosen = _select(parts, sources, per_participant, config.official.sign)
    if not chosen:
        raise no_systems("the submissions", skipped)
    names = [parts[k].names[i] for k, i in chosen]
    if chosen_out is not None:
        chosen_out.extend(names)
    renames = names_after_selection([s.entry for s in sources if s.entry is not None], per_participant)
    return chosen, [renames.get(name, name) for name in names], renames.get(baseline, baseline)


def _block_columns(parts, chosen):
    """Each block's kept columns and their positions in the joined system list: ``(members, columns)``."""
    columns = [np.array([i for kk, i in chosen if kk == k], dtype=np.intp) for k in range(len(parts))]
    members, start = [], 0
    for cols in columns:
        members.append(np.arange(start, start + len(cols), dtype=np.intp))
        start += len(cols)
    return members, columns


def _joined_scores(config, parts, chosen, names, members, columns, targets):
    """Every kept system's scores joined over the blocks: ``(SystemScores, validity flags)``.

    The full-sample and replicate scores of each block's kept ``columns`` are concatenated in
    block order (the order of ``chosen``); the jackknife is kept for ``method: bca`` only.
    """
    kept = [k for k in range(len(parts)) if len(columns[k])]
    full = np.concatenate([parts[k].full[columns[k]] for k in kept], axis=0)
    replicates = np.concatenate([parts[k].replicates[:, columns[k]] for k in kept], axis=1)
    flags = [parts[k].flags[i] for k, i in chosen]
    jackknife = [parts[k].jackknife[i] for k, i in chosen] if config.bootstrap.method == "bca" else None
    return SystemScores(tuple(names), targets, full, replicates, jackknife), flags


def _target_orders(scores, baseline):
    """Each target's ranking and its notes: ``(orders, notes)``.

    See :func:`~leaderboard_ci.phase.analysis.targets.target_order` (the baseline is ranked too).
    """
    orders, order_notes = [], []
    for t, target in enumerate(scores.targets):
        order, notes = target_order(scores.full[:, t], target.metric, list(scores.names), baseline)
        orders.append(order)
        order_notes.append(notes)
    return orders, order_notes


def _units_table(unit_frames, names):
    """The per-unit table of the kept systems (the blocks' frames joined), or None when no block has one."""
    if not unit_frames:
        return None
    units = pd.concat(unit_frames, ignore_index=True)
    units = units[units["system"].isin(set(names))].reset_index(drop=True)
    units.attrs["unit_name"] = unit_frames[0].attrs.get("unit_name", "class")
    return units


def _unit_values(parts, names):
    """Every block's per-unit value summaries joined per target, chosen systems only."""
    joined = OrderedDict()
    for part in parts:
        for key, frame in (part.unit_values or {}).items():
            joined.setdefault(key, []).append(frame)
    out = OrderedDict()
    for key, frames in joined.items():
        frame = pd.concat(frames, ignore_index=True)
        frame = frame[frame["system"].isin(names)].reset_index(drop=True)
        frame.attrs = dict(frames[0].attrs)
        out[key] = frame
    return out
