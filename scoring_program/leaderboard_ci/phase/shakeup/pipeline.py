"""From two test sets and the participants' runs to the :class:`~.results.ShakeupResult`: the one path.

Both the command (:mod:`.cli`) and the Python API (:mod:`.api`) come here:

1. match the participants of the two phases by owner (split mode: every
   participant has both parts);
2. score every participant's public runs in blocks (:func:`~.scoring.score_all`),
   pick its run, measure the optimism of that pick and, in split mode, score the
   picked run on the private part;
3. in two-phase mode, score the private phase's runs and pick one per participant;
4. keep the participants with a picked run on both sets and analyse them
   (:func:`~.analysis.analyze_shakeup`).
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from dataclasses import replace

import numpy as np
import pandas as pd

from ..._version import __version__
from ...core.signature import Signature
from ...scoring.errors import ConfigError
from .analysis import analyze_shakeup, check_settings
from .results import SetScores
from .scoring import SELECTIONS, ShakeupContext, bias_rows, score_all

__all__ = ["DEFAULT_BLOCK_SIZE", "DEFAULT_BIAS_RESAMPLES", "run_shakeup", "set_signature", "check_sets"]

#: Runs per block when none is given: about 20 MB of replicates per block at B = 10,000.
DEFAULT_BLOCK_SIZE = 256

#: Replicates the best-of-k optimism is measured on when none is given (the first of the
#: leaderboard's B): its Monte-Carlo error is then about 1% of the optimism (docs/shakeup.md).
DEFAULT_BIAS_RESAMPLES = 1000


def set_signature(test_set, m, alpha, sides, method):
    """The :class:`~leaderboard_ci.core.signature.Signature` of one set's leaderboard in the shake-up."""
    bs = test_set.config.bootstrap
    return Signature(
        metric=test_set.config.official.key,
        n_resamples=bs.n_resamples,
        seed=bs.seed,
        method=method,
        confidence_level=bs.confidence_level,
        n_items=test_set.gold.n,
        version=__version__,
        gold_sha256=test_set.gold.sha256 or None,
        sides=sides,
        corrections=("fdr_bh",),
        primary="fdr_bh",
        alpha=alpha,
        n_systems=m,
        cluster=bs.cluster,
        strata=bs.strata,
    )


def check_sets(public, private):
    """One sentence when the two sets cannot be compared (different metrics) or a setting is not available."""
    a, b = public.config.official, private.config.official
    if a.key != b.key or a.sign != b.sign:
        raise ConfigError(
            "the two phases rank by different official metrics (%s on the public set, %s on the private one); "
            "a shake-up compares the same metric" % (a.key, b.key)
        )
    for test_set in (public, private):
        bs = test_set.config.bootstrap
        an = test_set.config.analysis
        try:
            check_settings(bs.method, an.sides, bs.confidence_level, an.alpha)
        except ValueError as exc:
            raise ConfigError("the %s set's configuration: %s" % (test_set.label, exc))


def _matched(public_participants, private_participants):
    """``(public, private, unmatched)``: the participants of both phases, in the public phase's order."""
    if private_participants is None:
        return list(public_participants), None, []
    private_by = OrderedDict((p.key, p) for p in private_participants)
    public_keys = set(p.key for p in public_participants)
    both = [p for p in public_participants if p.key in private_by]
    unmatched = [(p.key, "public") for p in public_participants if p.key not in private_by]
    unmatched += [(key, "private") for key in private_by if key not in public_keys]
    return both, [private_by[p.key] for p in both], unmatched


def _frame(rows, columns):
    return pd.DataFrame(rows, columns=list(columns))


def run_shakeup(
    public,
    private,
    public_participants,
    private_participants=None,
    *,
    public_reader,
    private_reader=None,
    select="best",
    private_select="last",
    runner,
    n_jobs=1,
    block_size=DEFAULT_BLOCK_SIZE,
    bias_resamples=DEFAULT_BIAS_RESAMPLES,
    progress=None,
    names=None,
    notes=(),
    sources=None,
):
    """The shake-up of two test sets (:class:`~.references.TestSet`).

    Parameters
    ----------
    public, private : TestSet
        In split mode both carry ``items`` (the parts of one reference).
    public_participants : list of ParticipantRuns
        Each participant's runs of the public phase (split mode: its only runs).
    private_participants : list of ParticipantRuns, optional
        The private phase's runs (two-phase mode); None in split mode.
    public_reader, private_reader : (config, gold)
        What each phase's submissions are read against.
    select, private_select : {"best", "last", "listed"}
        How a participant's run is picked on the public set (split mode: the run
        whose two parts are used) and on the private phase.
    runner : LocalRunner or DaskRunner
    n_jobs : int
        Threads inside each block task and for the rank sets.
    block_size : int
        Runs per block task (whole participants).
    bias_resamples : int or None
        Replicates (the first of the public set's ``B``) the best-of-k optimism is
        measured on; None: all ``B``.  Every other number uses all ``B``.
    progress : callable, optional
        Called with 1 per block done.
    names : mapping, optional
        ``{participant key: name shown}``.
    notes : sequence of str
    sources : mapping, optional
        Where each set comes from, recorded in the settings.

    Returns
    -------
    ShakeupResult
    """
    _check_options(select, private_select, bias_resamples)
    check_sets(public, private)
    split = private_participants is None
    pub_parts, priv_parts, unmatched = _matched(public_participants, private_participants)
    if not pub_parts:
        raise ConfigError(
            "no participant has submissions in both phases (public: %d participants, private: %d); participants "
            "are matched by owner" % (len(public_participants), len(private_participants or ()))
        )
    context = ShakeupContext(
        uuid.uuid4().hex, public, private if split else None, public_reader, select, True, n_jobs, bias_resamples
    )
    pub_scores, priv_scores = _score_both(
        context, runner, pub_parts, (priv_parts, private, private_reader, private_select), block_size, progress
    )
    kept, dropped, skipped = _kept(pub_scores, priv_scores, split)
    notes = list(notes) + _dropped_notes(dropped, select, private_select, split)
    if not kept:
        raise ConfigError("no participant has a readable run on both sets; %s" % "; ".join(notes[-3:]))
    shown = [str((names or {}).get(p.key, p.key)) for p, _ in kept]
    if len(set(shown)) != len(shown):
        raise ConfigError("two participants would be shown under the same name; check the names map")
    public_scores, private_scores = _set_scores(public, private, kept, tuple(shown), split)
    settings = _settings(select, "same run" if split else private_select, bias_rows(context), sources)
    an = private.config.analysis
    return analyze_shakeup(
        public_scores,
        private_scores,
        private.config.official,
        _runs_frame(kept),
        alpha=an.alpha,
        sides=an.sides,
        method=private.config.bootstrap.method,
        confidence_level=private.config.bootstrap.confidence_level,
        mode="split" if split else "phases",
        n_jobs=n_jobs,
        unmatched=_frame(unmatched, ("participant", "only_in")),
        skipped=_frame(skipped, ("participant", "submission", "phase", "reason")),
        notes=notes,
        settings=settings,
    )


def _check_options(select, private_select, bias_resamples):
    """One sentence (ConfigError) for an unknown selection rule or too few replicates for the optimism."""
    for option, value in (("select", select), ("private_select", private_select)):
        if value not in SELECTIONS:
            raise ConfigError("%s must be one of %s, got %r" % (option, ", ".join(SELECTIONS), value))
    if bias_resamples is not None and int(bias_resamples) < 2:
        raise ConfigError("bias_resamples must be at least 2 (or None: all B), got %r" % (bias_resamples,))


def _settings(select, private_select, best_of_k_resamples, sources):
    """The settings recorded in the result (and report.json): the selection rules, then where each set comes from."""
    return OrderedDict(
        [("select", select), ("private_select", private_select), ("best_of_k_resamples", best_of_k_resamples)]
        + list((sources or {}).items())
    )


def _score_both(context, runner, pub_parts, private_phase, block_size, progress):
    """Each participant's :class:`~.scoring.ParticipantScores` on the public and the private phase.

    ``private_phase`` is ``(participants, test set, reader, select)``; split mode (no private
    participants): the public pass also scores the picked run on the private part.
    """
    pub_scores = score_all(runner, replace(context, token=context.token + "-public"), pub_parts, block_size, progress)
    priv_parts, private, private_reader, private_select = private_phase
    if priv_parts is None:
        return pub_scores, pub_scores
    private_context = ShakeupContext(
        context.token + "-private", private, None, private_reader, private_select, False, context.n_jobs
    )
    return pub_scores, score_all(runner, private_context, priv_parts, block_size, progress)


def _kept(pub_scores, priv_scores, split):
    """``(kept, dropped, skipped)``: participants with a picked run on both sets, the others, the unread runs."""
    kept, dropped, skipped = [], [], []
    for p_pub, p_priv in zip(pub_scores, priv_scores):
        for phase, scores in [("public", p_pub)] + ([] if split else [("private", p_priv)]):
            skipped.extend((scores.key, run, phase, reason) for run, reason in scores.skipped)
        if p_pub.chosen is None or p_priv.chosen is None:
            dropped.append((p_pub.key, p_pub, p_priv))
            continue
        kept.append((p_pub, p_priv))
    return kept, dropped, skipped


def _set_scores(public, private, kept, shown, split):
    """The :class:`~.results.SetScores` of the public and the private set, the kept participants in order."""
    an = private.config.analysis
    method = private.config.bootstrap.method
    m = len(kept)
    pub_full = np.array([p.first_full for p, _ in kept])
    pub_reps = np.stack([p.first_replicates for p, _ in kept], axis=1)
    if split:
        priv_full = np.array([p.second_full for p, _ in kept])
        priv_reps = np.stack([p.second_replicates for p, _ in kept], axis=1)
    else:
        priv_full = np.array([q.first_full for _, q in kept])
        priv_reps = np.stack([q.first_replicates for _, q in kept], axis=1)
    return tuple(
        SetScores(
            label,
            shown,
            full,
            reps,
            test_set.n,
            set_signature(test_set, m, an.alpha, an.sides, method),
            test_set.source,
        )
        for label, test_set, full, reps in (
            ("public", public, pub_full, pub_reps),
            ("private", private, priv_full, priv_reps),
        )
    )


def _runs_frame(kept):
    """One row per kept participant: submissions found and scored, the picked runs, the best-of-k optimism."""
    return pd.DataFrame(
        OrderedDict(
            [
                ("submissions", [p.found for p, _ in kept]),
                ("scored", [p.scored for p, _ in kept]),
                ("public_run", [p.chosen for p, _ in kept]),
                ("private_run", [q.chosen for _, q in kept]),
                ("best_of_k_bias", [p.bias.optimism for p, _ in kept]),
                ("best_of_k_shrinkage", [p.bias.shrinkage for p, _ in kept]),
            ]
        )
    )


def _dropped_notes(dropped, select, private_select, split):
    """One sentence per kind of participant left out."""
    unread = [key for key, p, q in dropped if p.scored == 0 or (not split and q.scored == 0)]
    unlisted = [key for key, p, q in dropped if key not in unread]
    notes = []
    if unread:
        notes.append(
            "%d participant%s left out: no run could be read on %s (%s)"
            % (
                len(unread),
                "" if len(unread) == 1 else "s",
                "the reference" if split else "one of the phases",
                ", ".join(unread[:5]) + (" ..." if len(unread) > 5 else ""),
            )
        )
    if unlisted:
        notes.append(
            "%d participant%s left out: the names map lists none of their runs (--select listed) (%s)"
            % (
                len(unlisted),
                "" if len(unlisted) == 1 else "s",
                ", ".join(unlisted[:5]) + (" ..." if len(unlisted) > 5 else ""),
            )
        )
    return notes
