"""Scoring the participants' runs for the shake-up, in blocks, here or on Dask.

A block holds whole participants (all the runs of one participant are in one
block, so that a block can pick each participant's run and measure the
optimism of that pick).  :func:`score_participants` is the block task: it reads
and encodes the runs with the scoring program's readers (a run that fails
validation is left out with the message its participant saw), scores every
readable run on the first set, picks each participant's run (``best``,
``last`` or ``listed``), computes the optimism of picking the best of the
participant's ``k`` runs (:func:`~.noise.selection_optimism`, when asked) and,
in split mode, scores the picked run on the second set.  Only each
participant's picked run's replicates (``B`` numbers per set) come back.

The replicates are those of :class:`~leaderboard_ci.core.systems.PairedPlan`,
the leaderboard's own: every participant's interval equals the leaderboard's,
and blocks, threads and workers never change a number.
"""

from __future__ import annotations

import re
import threading
import weakref
from dataclasses import dataclass, replace
from typing import Optional, Tuple

import numpy as np

from ...core.systems import SharedCounts, paired_scores
from ...scoring.errors import ConfigError
from ..analysis.blocks import read_source
from ..analysis.systems import build_plan
from .noise import SelectionBias, selection_optimism
from .references import subset_values

__all__ = [
    "SELECTIONS",
    "ParticipantRuns",
    "ShakeupContext",
    "ParticipantScores",
    "score_participants",
    "blocks_of_participants",
    "score_all",
]

#: Blocks of a pass that scores only each participant's picked run on all ``B`` replicates hold
#: this many times ``block_size`` runs: every block draws the ``B`` replicates' counts again,
#: and the picked runs are a small part of the runs (the default: 1,024 runs a block).
PICKED_BLOCK_FACTOR = 4

#: The first pass's count matrices in this process, one :class:`SharedCounts` (<= 128 MB) per pass,
#: keyed by ``id`` of the pass's :class:`ShakeupContext` and dropped when that context is (the end of
#: the pass: a Dask worker frees the broadcast context when the client releases it).
_FIRST_PASS_COUNTS = {}
_FIRST_PASS_LOCK = threading.Lock()


def _first_pass_counts(context):
    """The :class:`SharedCounts` of ``context``'s pass in this process, shared by its blocks, living as long as it."""
    key = id(context)
    with _FIRST_PASS_LOCK:
        counts = _FIRST_PASS_COUNTS.get(key)
        if counts is None:
            counts = _FIRST_PASS_COUNTS[key] = SharedCounts()
            weakref.finalize(context, _FIRST_PASS_COUNTS.pop, key, None)
    return counts


#: How a participant's run is picked on a leaderboard.
SELECTIONS = ("best", "last", "listed")


@dataclass(frozen=True)
class ParticipantRuns:
    """One participant's submissions on one phase, in the download's order.

    Attributes
    ----------
    key : str
        The participant (the submissions' owner).
    runs : tuple of SystemSource
        Its submissions (a file to read, or predictions already encoded).
    found : int
        Submissions of this participant in the download, including the ones that
        failed to download or unpack.
    """

    key: str
    runs: tuple
    found: int


@dataclass(frozen=True)
class ShakeupContext:
    """What every block task of one scoring pass shares (sent to each worker once).

    ``first`` is the set the runs are scored and picked on; ``second`` (split mode)
    the set the picked run is also scored on.  ``reader`` is ``(config, gold)``
    that submissions are read against (the whole split reference, or ``first``'s).
    ``bias_resamples`` is how many of the leaderboard's replicates (the first ones)
    the best-of-k optimism is measured on (None: all ``B``); ``pick_only`` leaves
    out the picked runs' replicates (:func:`score_all`'s first pass); ``known_rows``:
    the picked runs' first replicates on ``first`` are known (from the first pass),
    only the later ones are scored.
    """

    token: str
    first: object
    second: object
    reader: tuple
    select: str
    bias: bool
    n_jobs: int = 1
    bias_resamples: Optional[int] = None
    pick_only: bool = False
    known_rows: int = 0


@dataclass(frozen=True)
class ParticipantScores:
    """What a block task sends back for one participant.

    ``chosen`` is None when no run could be read (or, with ``listed``, none is
    listed); then the scores are None.  Replicates are ``(B,)`` on each set.
    ``chosen_index`` is the picked run's place in the participant's ``runs``.
    """

    key: str
    chosen: Optional[str]
    scored: int
    found: int
    skipped: Tuple[Tuple[str, str], ...]
    first_full: Optional[float] = None
    first_replicates: Optional[np.ndarray] = None
    second_full: Optional[float] = None
    second_replicates: Optional[np.ndarray] = None
    bias: Optional[SelectionBias] = None
    listed: int = 0
    chosen_index: Optional[int] = None


def _natural(text):
    return [(0, int(p), "") if p.isdigit() else (1, 0, p.casefold()) for p in re.split(r"(\d+)", text or "")]


def _recency(source, index):
    """Oldest to newest: the download's day, then the submission id, then the order given."""
    entry = source.entry
    if entry is None:
        return ("", -1, index)
    number = int(entry.submission_id) if entry.submission_id and entry.submission_id.isdigit() else -1
    return ((entry.date or "")[:10], number, index)


def choose(runs, scores, select, sign, key):
    """The index of the picked run among ``runs`` (readable, in order), or None (``listed``: none listed)."""
    if select == "listed":
        listed = [i for i, run in enumerate(runs) if run.entry is not None and run.entry.renamed]
        if len(listed) > 1:
            raise ConfigError(
                "the names map lists %d runs of %s in one phase (%s); list one per participant"
                % (len(listed), key, ", ".join(runs[i].name for i in listed[:3]))
            )
        return listed[0] if listed else None
    if len(runs) == 1:
        return 0
    if select == "last":
        return max(range(len(runs)), key=lambda i: _recency(runs[i], i))

    def rank(i):
        s = scores[i]
        return (bool(np.isfinite(s)), sign * s if np.isfinite(s) else 0.0, _recency(runs[i], i))

    return max(range(len(runs)), key=rank)


def _scores(test_set, values, names, n_jobs, n_resamples=None, start=0, counts=None):
    """Full-sample and replicate scores of the official metric: ``(m,)`` and ``(B - start, m)``.

    ``n_resamples`` below the set's ``B``: the first ``n_resamples`` of the leaderboard's
    replicates (the same numbers as the first rows of the full ``(B, m)``); ``start``:
    from replicate ``start`` on (the same numbers as those rows of the full one).  ``counts``: the
    :class:`SharedCounts` of the first pass, used when ``n_resamples`` is below ``B``.
    """
    plan = build_plan(test_set.config, test_set.gold, values, names)
    if counts is not None and n_resamples is not None and n_resamples < test_set.config.bootstrap.n_resamples:
        plan.counts_cache = counts  # every block of the first pass draws these same replicates
    scores = paired_scores(plan, n_resamples or test_set.config.bootstrap.n_resamples, n_jobs=n_jobs, start=start)
    return scores.full[:, 0], scores.replicates[:, :, 0]


def _part(test_set, values):
    return values if test_set.items is None else subset_values(values, test_set.items)


def bias_rows(context):
    """Replicates the best-of-k optimism is measured on: ``bias_resamples``, at most the first set's ``B``."""
    b = context.first.config.bootstrap.n_resamples
    return b if context.bias_resamples is None else min(b, int(context.bias_resamples))


def _read_block(block, config, gold):
    """``(readable, skipped)``: per participant, ``[(run, values)]`` and ``((name, reason), ...)``."""
    readable, skipped = [], []
    for participant in block:
        ok, bad = [], []
        for run in participant.runs:
            values, reason = read_source(run, config, gold)
            if reason is None:
                ok.append((run, values))
            else:
                bad.append((run.name, reason))
        readable.append(ok)
        skipped.append(tuple(bad))
    return readable, skipped


def _first_set_scores(context, flat):
    """Every readable run on the first set: ``(full (r,), replicates (b, r) or None)``.

    The replicates (for the optimism) are the first :func:`bias_rows` of the leaderboard's.
    """
    if not flat:
        return None, None
    first = context.first
    part_values = [_part(first, values) for _, _, values in flat]
    names = [run.name for _, run, _ in flat]
    if context.bias:
        return _scores(first, part_values, names, context.n_jobs, bias_rows(context), 0, _first_pass_counts(context))
    plan = build_plan(first.config, first.gold, part_values, names)
    return plan.full_scores()[:, 0], None


def _pick(context, block, readable, skipped, full, reps):
    """``(scores, chosen_at)``: each participant's :class:`ParticipantScores` and its picked run's column."""
    sign = context.first.config.official.sign
    out, chosen_at = [], []
    start = 0
    for p, participant in enumerate(block):
        k = len(readable[p])
        columns = np.arange(start, start + k)
        start += k
        runs = [run for run, _ in readable[p]]
        pick = choose(runs, full[columns], context.select, sign, participant.key) if k else None
        listed = sum(1 for run in runs if run.entry is not None and run.entry.renamed)
        if pick is None:
            out.append(ParticipantScores(participant.key, None, k, participant.found, skipped[p], listed=listed))
            chosen_at.append(None)
            continue
        bias = selection_optimism(full[columns], reps[:, columns], sign) if context.bias else None
        keep = reps is not None  # all B, or the first pass's first rows (score_all completes them)
        out.append(
            ParticipantScores(
                participant.key,
                runs[pick].name,
                k,
                participant.found,
                skipped[p],
                float(full[columns[pick]]),
                reps[:, columns[pick]].copy() if keep else None,
                bias=bias,
                listed=listed,
                chosen_index=participant.runs.index(runs[pick]),
            )
        )
        chosen_at.append(int(columns[pick]))
    return out, chosen_at


def _picked_replicates(context, flat, out, chosen_at):
    """The picked runs' replicates on the first set (when not yet there) and their scores on the second."""
    picked = [i for i in chosen_at if i is not None]
    if not picked:
        return out
    names = [flat[i][1].name for i in picked]
    changes = [{} for _ in picked]
    if out[next(p for p, at in enumerate(chosen_at) if at is not None)].first_replicates is None or context.known_rows:
        values = [_part(context.first, flat[i][2]) for i in picked]
        _, reps = _scores(context.first, values, names, context.n_jobs, start=context.known_rows)
        for j, change in enumerate(changes):
            change["first_replicates"] = reps[:, j].copy()
    if context.second is not None:
        values = [_part(context.second, flat[i][2]) for i in picked]
        second_full, second_reps = _scores(context.second, values, names, context.n_jobs)
        for j, change in enumerate(changes):
            change.update(second_full=float(second_full[j]), second_replicates=second_reps[:, j].copy())
    j = 0
    for p, at in enumerate(chosen_at):
        if at is not None:
            out[p] = replace(out[p], **changes[j])
            j += 1
    return out


def score_participants(context, block):
    """Score one block of participants (a tuple of :class:`ParticipantRuns`); a list of :class:`ParticipantScores`.

    Steps: read every run; score every readable run on the first set (full sample, and
    :func:`bias_rows` replicates when the optimism is asked); pick each participant's
    run and measure the optimism of that pick; unless ``context.pick_only``, the picked
    runs' replicates on the first set (all ``B``) and their scores on the second.
    """
    config, gold = context.reader
    readable, skipped = _read_block(block, config, gold)
    flat = [(p, run, values) for p, ok in enumerate(readable) for run, values in ok]
    full, reps = _first_set_scores(context, flat)
    out, chosen_at = _pick(context, block, readable, skipped, full, reps)
    if context.pick_only:
        return out
    return _picked_replicates(context, flat, out, chosen_at)


def blocks_of_participants(participants, block_size):
    """Consecutive groups of whole participants with at most ``block_size`` runs each (one larger participant alone)."""
    if block_size < 1:
        raise ValueError("block_size must be at least 1, got %r" % (block_size,))
    blocks, current, size = [], [], 0
    for participant in participants:
        k = max(1, len(participant.runs))
        if current and size + k > block_size:
            blocks.append(tuple(current))
            current, size = [], 0
        current.append(participant)
        size += k
    if current:
        blocks.append(tuple(current))
    return blocks


def _run_blocks(runner, context, participants, block_size, progress):
    blocks = blocks_of_participants(participants, block_size)
    shared = runner.share(context)
    results = [None] * len(blocks)
    for index, result in runner.run(score_participants, [(shared, block) for block in blocks]):
        results[index] = result
        if progress is not None:
            progress(1)
    return [scores for block in results for scores in block]


def score_all(runner, context, participants, block_size, progress=None):
    """Every participant's :class:`ParticipantScores`, in the order of ``participants``.

    ``runner`` is a :class:`~leaderboard_ci.phase.execution.runners.LocalRunner` or
    ``DaskRunner``; each block is one task.  ``progress`` is called with 1 per block done.

    When the optimism is measured on fewer replicates than ``B`` (:func:`bias_rows`),
    two passes: the first scores every run on those replicates, picks and measures
    the optimism; the second scores only the picked runs (one per participant, in
    blocks of :data:`PICKED_BLOCK_FACTOR` times ``block_size``) on all ``B`` replicates
    of both sets.  The first pass's blocks share one draw of their replicates' counts
    in each process (:class:`~leaderboard_ci.core.systems.SharedCounts`).  Picking a run of ``k`` on
    ``B`` replicates would cost ``k`` times the second pass, for a Monte-Carlo mean
    that ``bias_resamples`` replicates already give (docs/shakeup.md).
    """
    b = context.first.config.bootstrap.n_resamples
    if not context.bias:
        return _run_blocks(runner, context, participants, PICKED_BLOCK_FACTOR * block_size, progress)
    if bias_rows(context) >= b:
        return _run_blocks(runner, context, participants, block_size, progress)
    picks = _run_blocks(runner, replace(context, pick_only=True), participants, block_size, progress)
    chosen = [
        ParticipantRuns(p.key, (p.runs[s.chosen_index],), p.found)
        for p, s in zip(participants, picks)
        if s.chosen is not None
    ]
    # The picked runs' first bias_rows replicates on the first set come from the first pass.
    second = replace(context, token=context.token + "-picked", select="best", bias=False, known_rows=bias_rows(context))
    scored = iter(_run_blocks(runner, second, chosen, PICKED_BLOCK_FACTOR * block_size, progress))
    out = []
    for pick in picks:
        if pick.chosen is None:
            out.append(pick)
            continue
        again = next(scored)
        out.append(
            replace(
                pick,
                first_replicates=np.concatenate([pick.first_replicates, again.first_replicates]),
                second_full=again.second_full,
                second_replicates=again.second_replicates,
            )
        )
    return out
