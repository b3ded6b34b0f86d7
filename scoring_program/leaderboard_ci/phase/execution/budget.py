"""The memory budget of a phase run in blocks: how many systems per block, and the estimated peaks.

A worker holds one block of systems at a time (two during the pair stage when
item-level tests need both blocks' predictions): their encoded predictions and
per-item statistics, the replicate scores of the block (``B x s x T``
doubles) and a span's working arrays (the resample counts of a block of
replicates).  The client holds every system's replicate scores (``B x m x T``
doubles), a rank-ordered copy per target and the pairs tables.

:func:`plan_blocks` turns measured costs (:func:`~leaderboard_ci.phase.analysis.blocks.measure_system_bytes`)
and the budgets into a :class:`BlockPlan`, printed before any work starts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...scoring.errors import ConfigError

__all__ = ["BlockPlan", "parse_memory", "plan_blocks", "blocks_of", "check_client", "format_bytes", "process_rss"]

_UNITS = {
    "": 1,
    "b": 1,
    "k": 10**3,
    "kb": 10**3,
    "m": 10**6,
    "mb": 10**6,
    "g": 10**9,
    "gb": 10**9,
    "t": 10**12,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}

#: Bytes a pairs-table row takes at the client per target: about 16 numeric columns, two names, the
#: stars, and the corrected p-values on the way (measured: 1.37 GB at m = 2,000, B = 10,000, one target).
PAIR_ROW_BYTES = 320
#: Bytes per pair the max-t step-down holds for one target at a time (about 20 arrays over the pairs:
#: sort order, thresholds, counts, adjusted p-values, family-wise intervals...), besides one copy of the
#: target's replicate scores laid out by system and 64 MB of chunks.
MAXT_PAIR_BYTES = 200


def parse_memory(text, what="--memory-limit"):
    """Bytes from ``"2GB"``, ``"1.5 GiB"``, ``"500MB"`` or a plain number of bytes.

    >>> parse_memory("2GB")
    2000000000
    >>> parse_memory("1.5GiB")
    1610612736
    """
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value, unit = float(text), ""
    else:
        match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][0-9]+)?)\s*([A-Za-z]*)\s*", str(text))
        if match is None or match.group(2).lower() not in _UNITS:
            raise ConfigError("%s must be a size such as 2GB, 1.5GiB or 500MB, got %r" % (what, text))
        value, unit = float(match.group(1)), match.group(2).lower()
    size = int(value * _UNITS[unit])
    if size < 50 * 10**6:
        raise ConfigError(
            "%s must be at least 50MB (a worker's Python and numpy alone take more), got %r" % (what, text)
        )
    return size


def format_bytes(size):
    """``1.23 GB``, ``456 MB`` (decimal units, as Dask prints)."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            return "%.3g %s" % (size / scale, unit)
    return "%d B" % size


def process_rss():
    """This process's resident memory in bytes (Linux), or 0 where unknown."""
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


@dataclass(frozen=True)
class BlockPlan:
    """How a phase is split, and the peaks it is expected to reach.

    Attributes
    ----------
    n_systems, n_items, n_resamples, n_targets : int
    block_size : int
        Systems per block (the last block may be smaller).
    n_blocks : int
    span : int
        Replicates per scoring task (``n_resamples`` unless there are fewer
        blocks than workers).
    workers : int
    per_system : int
        Measured bytes of one system's predictions and statistics on a worker.
    overhead : int
        A process's bytes before any block (interpreter, libraries, gold).
    pair_blocks : int
        Blocks a worker holds at once in the pair stage (2 with item-level tests, else 0).
    worker_peak, client_peak : int
        Estimated peaks in bytes.
    worker_budget, client_budget : int or None
    """

    n_systems: int
    n_items: int
    n_resamples: int
    n_targets: int
    block_size: int
    n_blocks: int
    span: int
    workers: int
    per_system: int
    overhead: int
    pair_blocks: int
    worker_peak: int
    client_peak: int
    worker_budget: int = None
    client_budget: int = None
    in_process: bool = False
    threads: int = 1

    @property
    def n_spans(self):
        return -(-self.n_resamples // self.span)

    @property
    def n_block_pairs(self):
        """Pair-stage tasks: every pair of blocks, or one in a single process that needs no predictions."""
        if self.in_process and not self.pair_blocks:
            return 1
        return self.n_blocks * (self.n_blocks + 1) // 2

    @property
    def n_tasks(self):
        """Scoring tasks plus pair-stage tasks."""
        return self.n_blocks * self.n_spans + self.n_block_pairs

    def spans(self):
        """``(start, stop)`` replicate ranges of the scoring tasks."""
        bounds = [self.n_resamples * i // self.n_spans for i in range(self.n_spans + 1)]
        return [(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]

    def budget_for(self, block_size):
        """The smallest worker budget for which :func:`plan_blocks` chooses ``block_size`` systems per block."""
        fixed = _fixed_bytes(
            self.overhead, self.threads, self.n_systems, self.n_items, self.n_resamples, self.n_targets, self.in_process
        )
        return fixed + block_size * _system_bytes(
            self.per_system, bool(self.pair_blocks), self.n_resamples, self.n_targets
        )

    def describe(self):
        """The plan in two lines, printed before the work starts."""
        budget = "" if self.worker_budget is None else " (budget %s)" % format_bytes(self.worker_budget)
        client = "" if self.client_budget is None else " (budget %s)" % format_bytes(self.client_budget)
        return (
            "Plan: %d systems in %d block%s of up to %d, %d replicates in span%s of %d, %d worker%s; "
            "%d scoring + %d pair tasks.\n"
            "Estimated peak: %s per worker%s, %s on the client%s (one system: %s on a worker).\n"
            % (
                self.n_systems,
                self.n_blocks,
                "" if self.n_blocks == 1 else "s",
                self.block_size,
                self.n_resamples,
                "" if self.n_spans == 1 else "s",
                self.span,
                self.workers,
                "" if self.workers == 1 else "s",
                self.n_blocks * self.n_spans,
                self.n_block_pairs,
                format_bytes(self.worker_peak),
                budget,
                format_bytes(self.client_peak),
                client,
                format_bytes(self.per_system),
            )
        )


def _system_bytes(per_system, item_tests, b, t):
    """One system's share of a worker's budget: its state (twice when the pair stage holds two
    blocks) and its replicate scores, once scored and twice as pair-stage slices."""
    return (2 if item_tests else 1) * per_system + 3 * b * t * 8


def _fixed_bytes(overhead, threads, m, n, b, t, in_process):
    """A worker's bytes before any system: the process, each thread's span arrays, and in one
    process (no Dask) the client's arrays as well."""
    return overhead + threads * _span_bytes(n) + (_client_data(m, b, t) if in_process else 0)


def _client_data(m, b, t):
    """The client's arrays: every replicate score (and two copies on the way), the pairs tables, and
    the max-t step-down's working arrays for one target (:mod:`leaderboard_ci.core.simultaneous`)."""
    pairs = m * (m - 1) // 2
    return 3 * b * m * t * 8 + t * pairs * PAIR_ROW_BYTES + b * m * 8 + pairs * MAXT_PAIR_BYTES + (64 << 20)


def _span_bytes(n):
    """A span's working arrays: 2**20 resample indices and their counts, and 32 MB of
    counts for the matrix product (see PairedPlan.product_rows), per thread."""
    rows = max(8, (1 << 20) // max(1, n))
    return rows * n * 24 + (32 << 20)


def plan_blocks(
    n_systems,
    n_items,
    n_resamples,
    n_targets,
    per_system,
    overhead,
    workers=1,
    worker_budget=None,
    client_budget=None,
    item_tests=False,
    block_size=None,
    in_process=False,
    threads=1,
):
    """Choose the block size from the budgets (or take ``block_size``) and estimate the peaks.

    Parameters
    ----------
    n_systems, n_items, n_resamples, n_targets : int
    per_system : int
        Bytes of one system on a worker (predictions and per-item statistics).
    overhead : int
        Bytes of a process before any block.
    workers : int
    worker_budget, client_budget : int, optional
        Bytes.  Without ``worker_budget`` (and ``block_size``) all systems form one block.
    item_tests : bool
        Whether the pair stage needs per-item predictions (permutation, McNemar,
        DeLong): a worker then holds two blocks at once.
    block_size : int, optional
        Force the block size (tests).
    in_process : bool
        The blocks run in the client's process (no Dask): the budget holds both.
    threads : int
        Threads scoring a block at once (each has its own working arrays).

    Raises
    ------
    ConfigError
        When not even one system fits the worker budget.
    """
    m, n, b, t = int(n_systems), int(n_items), int(n_resamples), int(n_targets)
    held = 2 if item_tests else 1
    per_replicates = b * t * 8  # one system's replicate scores on a worker
    fixed = _fixed_bytes(overhead, threads, m, n, b, t, in_process)
    if block_size is None:
        if worker_budget is None:
            block_size = m
        else:
            cost = _system_bytes(per_system, item_tests, b, t)
            room = worker_budget - fixed
            block_size = int(room // cost) if room > 0 else 0
            if block_size < 1:
                raise ConfigError(
                    "--memory-limit %s is too small: one system needs about %s on a worker on top "
                    "of %s for the process itself; give at least %s"
                    % (format_bytes(worker_budget), format_bytes(cost), format_bytes(fixed), format_bytes(fixed + cost))
                )
    block_size = max(1, min(int(block_size), m))
    n_blocks = -(-m // block_size)
    block_size = -(-m // n_blocks)  # balanced blocks
    span = b
    if n_blocks < workers:  # too few blocks to keep every worker busy: split the replicates too
        spans = min(b, -(-workers // n_blocks))
        span = -(-b // spans)
    worker_peak = fixed + held * block_size * per_system + block_size * (span * t * 8) + 2 * block_size * per_replicates
    client_peak = worker_peak if in_process else overhead + _client_data(m, b, t)
    return BlockPlan(
        n_systems=m,
        n_items=n,
        n_resamples=b,
        n_targets=t,
        block_size=block_size,
        n_blocks=n_blocks,
        span=span,
        workers=int(workers),
        per_system=int(per_system),
        overhead=int(overhead),
        pair_blocks=held if item_tests else 0,
        worker_peak=int(worker_peak),
        client_peak=int(client_peak),
        worker_budget=worker_budget,
        client_budget=client_budget,
        in_process=bool(in_process),
        threads=int(threads),
    )


def blocks_of(n_systems, block_size):
    """``[(start, stop)]`` of consecutive system indices."""
    return [(a, min(a + block_size, n_systems)) for a in range(0, n_systems, block_size)]


def check_client(plan):
    """A warning sentence when the client's estimated peak exceeds its budget, else None."""
    if plan.client_budget is not None and plan.client_peak > plan.client_budget:
        return (
            "the client's estimated peak (%s) exceeds its budget (%s): it holds every system's replicate "
            "scores and the pairs tables (%d systems, B = %d); lower n_resamples or analyse fewer systems"
            % (format_bytes(plan.client_peak), format_bytes(plan.client_budget), plan.n_systems, plan.n_resamples)
        )
    return None
