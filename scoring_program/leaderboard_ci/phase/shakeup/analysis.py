"""The shake-up of one competition from its participants' scores on the public and the private set.

:func:`analyze_shakeup` takes each participant's picked run on both sets
(full-sample score and replicates, :class:`~.results.SetScores`) and computes

* per participant: both scores with their intervals, both ranks with their
  rank confidence sets (Mogstad, Romano, Shaikh & Wilhelm 2024, as the end of
  phase computes them), the private-minus-public gap with its interval and
  p-value, and a flag with false-discovery control over the participants
  (:mod:`.gaps`), beside the optimism of picking the best of the participant's
  ``k`` public runs (:func:`~.noise.selection_optimism`, measured where the runs
  were scored);
* for the competition: Kendall's tau and Spearman's rho between the two
  rankings with their interval and the noise band (:mod:`.rank_agreement`), the
  mean gap, how many gaps are flagged, Spearman's correlation between the gap
  and the number of submissions, and the winner's curse: the private winner's
  score corrected by the bootstrap estimate of the optimism of picking the best
  of the ``m`` participants on the private set.

Roelofs et al. (2019) compared the public and private scores of 120 Kaggle
competitions with per-submission intervals around the identity line; this is
the same comparison for one competition, with the two test sets' noise
measured from the replicates instead of assumed binomial.

References
----------
Roelofs, R., Shankar, V., Recht, B., Fridovich-Keil, S., Hardt, M., Miller, J. &
Schmidt, L. (2019). A meta-analysis of overfitting in machine learning.
NeurIPS 32.
Blum, A. & Hardt, M. (2015). The Ladder: a reliable leaderboard for machine
learning competitions. ICML.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np
import pandas as pd

from ...core.intervals import interval_rows
from ...core.simultaneous import rank_sets
from .gaps import GAP_CORRECTION, gap_tests
from .noise import selection_optimism
from .rank_agreement import rank_agreement
from .results import PARTICIPANT_COLUMNS, ShakeupResult, WinnersCurse

__all__ = ["analyze_shakeup", "WINNERS_CURSE_METHOD", "check_settings", "resamples_to_flag_one"]

#: The winner's-curse correction, as the page and report.json name it.
WINNERS_CURSE_METHOD = (
    "bootstrap optimism of picking the best of m on the same test set, noise added to shrunken centres "
    "(Tibshirani & Tibshirani 2009; empirical-Bayes centres)"
)


def check_settings(method, sides, confidence_level, alpha):
    """Validate the settings the shake-up uses (one ValueError naming the setting)."""
    if method not in ("percentile", "basic", "normal"):
        raise ValueError(
            "bootstrap.method %r is not available for the shake-up (the gaps pair two sets' replicates and BCa "
            "would need both sets' jackknife): use percentile, basic or normal" % (method,)
        )
    if sides not in ("two", "one"):
        raise ValueError("analysis.sides must be 'two' or 'one', got %r" % (sides,))
    if not 0 < float(confidence_level) < 1:
        raise ValueError("confidence_level must be between 0 and 1, got %r" % (confidence_level,))
    if not 0 < float(alpha) < 1:
        raise ValueError("alpha must be between 0 and 1, got %r" % (alpha,))


def _intervals(scores, method, level):
    reps = scores.replicates
    keep = np.all(np.isfinite(reps), axis=1)
    rows = interval_rows(method, reps[keep].T, scores.full, level)
    return rows.low, rows.high


def _ranks(scores, sign, alpha, n_jobs):
    """Joint ranks and the simultaneous and marginal rank sets; one participant: rank 1."""
    m = scores.full.shape[0]
    if m == 1:
        one = np.ones(1, dtype=np.intp)
        return one, one, one, one, one
    reps = scores.replicates[np.all(np.isfinite(scores.replicates), axis=1)]
    sets = rank_sets(reps, scores.full, sign, alpha, n_jobs=n_jobs)
    return sets.rank, sets.low, sets.high, sets.low_marginal, sets.high_marginal


def _gap_against_submissions(gap, sign, scored):
    """Spearman's rho between the oriented gap (negative: worse on private) and the runs scored, with its p-value."""
    k = np.asarray(scored, dtype=np.float64)
    if gap.size < 3 or np.all(k == k[0]) or np.all(gap == gap[0]):
        return None, None
    from scipy.stats import spearmanr  # imported when used: the commands' --help need not load SciPy

    rho, p = spearmanr(sign * gap, k)
    return float(rho), float(p)


def _winners_curse(private, names, sign, low, high):
    full = private.full
    order = np.lexsort((np.arange(full.size), -sign * full))
    w = int(order[0])
    bias = selection_optimism(full, private.replicates, sign)
    return WinnersCurse(
        winner=str(names[w]),
        score=float(full[w]),
        ci_low=float(low[w]),
        ci_high=float(high[w]),
        optimism=bias.optimism,
        corrected=float(full[w] - sign * bias.optimism),
        m=int(full.size),
        shrinkage=bias.shrinkage,
        method=WINNERS_CURSE_METHOD,
    )


def analyze_shakeup(
    public,
    private,
    metric,
    runs,
    *,
    alpha=0.05,
    sides="two",
    method="percentile",
    confidence_level=0.95,
    mode="phases",
    n_jobs=1,
    unmatched=None,
    skipped=None,
    notes=(),
    settings=None,
):
    """The shake-up of the participants whose scores on both sets are given.

    Parameters
    ----------
    public, private : SetScores
        The same participants in the same order.
    metric : MetricSpec
        The official metric (its direction orients gaps and ranks).
    runs : DataFrame
        One row per participant, in the same order: ``submissions`` (found in the
        download), ``scored`` (readable public runs), ``public_run``, ``private_run``
        (the picked runs' names), ``best_of_k_bias`` and ``best_of_k_shrinkage``
        (:class:`~.noise.SelectionBias` of the public runs; 0 and 1 for one run).
    alpha, sides, method, confidence_level
        As ``analysis.alpha``, ``analysis.sides``, ``bootstrap.method`` and
        ``bootstrap.confidence_level`` (BCa is refused: :func:`check_settings`).
    mode : {"phases", "split"}
    n_jobs : int or "auto"
        Threads of the rank sets' step-downs.
    unmatched, skipped : DataFrame, optional
    notes : sequence of str
    settings : mapping, optional
        Extra settings to record (how runs were picked, the sources).

    Returns
    -------
    ShakeupResult
    """
    check_settings(method, sides, confidence_level, alpha)
    names = _checked_names(public, private, runs)
    sign = metric.sign
    pub_low, pub_high = _intervals(public, method, confidence_level)
    priv_low, priv_high = _intervals(private, method, confidence_level)
    gaps = gap_tests(
        public.full, public.replicates, private.full, private.replicates, sign, method, confidence_level, alpha, sides
    )
    pub_ranks = _ranks(public, sign, alpha, n_jobs)
    priv_ranks = _ranks(private, sign, alpha, n_jobs)
    frame = _participant_frame(
        names, runs, (public, pub_low, pub_high, pub_ranks), (private, priv_low, priv_high, priv_ranks), gaps
    )
    competition = _competition(public, private, gaps, sign, runs["scored"], confidence_level)
    m = len(names)
    curse = _winners_curse(private, names, sign, priv_low, priv_high) if m >= 2 else None
    notes = list(notes) + _resolution_notes(gaps.n_valid, m, alpha)
    recorded = OrderedDict(
        [
            ("alpha", float(alpha)),
            ("sides", sides),
            ("method", method),
            ("confidence_level", float(confidence_level)),
            ("correction", GAP_CORRECTION),
            ("gap_pairing", "private replicate b with public replicate (b + 1) mod B"),
        ]
    )
    recorded.update(settings or {})
    empty_unmatched = pd.DataFrame(columns=["participant", "only_in"])
    empty_skipped = pd.DataFrame(columns=["participant", "submission", "phase", "reason"])
    return ShakeupResult(
        participants=frame,
        competition=competition,
        winners_curse=curse,
        metric=metric,
        mode=mode,
        public=public,
        private=private,
        settings=recorded,
        unmatched=empty_unmatched if unmatched is None else unmatched,
        skipped=empty_skipped if skipped is None else skipped,
        notes=list(notes),
    )


def _checked_names(public, private, runs):
    """The participants' names, once both sets and ``runs`` are checked to list the same ones."""
    names = tuple(str(n) for n in public.names)
    if tuple(str(n) for n in private.names) != names:
        raise ValueError("the public and private scores must list the same participants in the same order")
    if not names:
        raise ValueError("no participant has a score on both sets")
    if len(runs) != len(names):
        raise ValueError("runs has %d rows for %d participants" % (len(runs), len(names)))
    return names


def _participant_frame(names, runs, public, private, gaps):
    """The participants table (``PARTICIPANT_COLUMNS``), private rank order then public.

    ``public`` and ``private`` are ``(SetScores, low, high, ranks)``.
    """
    pub, pub_low, pub_high, pub_ranks = public
    priv, priv_low, priv_high, priv_ranks = private
    frame = pd.DataFrame(
        OrderedDict(
            [
                ("participant", list(names)),
                ("submissions", np.asarray(runs["submissions"], dtype=np.int64)),
                ("scored", np.asarray(runs["scored"], dtype=np.int64)),
                ("public_run", [str(r) for r in runs["public_run"]]),
                ("private_run", [str(r) for r in runs["private_run"]]),
                ("public", pub.full),
                ("public_low", pub_low),
                ("public_high", pub_high),
            ]
            + [("public_" + c, v) for c, v in zip(_RANK_COLUMNS, pub_ranks)]
            + [("private", priv.full), ("private_low", priv_low), ("private_high", priv_high)]
            + [("private_" + c, v) for c, v in zip(_RANK_COLUMNS, priv_ranks)]
            + [
                ("rank_change", pub_ranks[0] - priv_ranks[0]),
                ("gap", gaps.gap),
                ("gap_low", gaps.ci_low),
                ("gap_high", gaps.ci_high),
                ("p_value", gaps.p_value),
                ("p_fdr_bh", gaps.p_adjusted),
                ("flagged", gaps.flagged),
                ("direction", [_direction(w, f) for w, f in zip(gaps.worse, gaps.flagged)]),
                ("best_of_k_bias", np.asarray(runs["best_of_k_bias"], dtype=np.float64)),
                ("best_of_k_shrinkage", np.asarray(runs["best_of_k_shrinkage"], dtype=np.float64)),
            ]
        )
    )
    order = np.lexsort((np.array(names, dtype=object).astype(str), frame["public_rank"], frame["private_rank"]))
    return frame.iloc[order].reset_index(drop=True)[list(PARTICIPANT_COLUMNS)]


def _competition(public, private, gaps, sign, scored, confidence_level):
    """The competition's numbers: sizes, rank agreement with its noise band, the mean gap, flags."""
    m = public.full.shape[0]
    agreement = rank_agreement(public.full, public.replicates, private.full, private.replicates, confidence_level)
    rho, rho_p = _gap_against_submissions(gaps.gap, sign, scored)
    return OrderedDict(
        [
            ("m", m),
            ("n_public", int(public.n_items)),
            ("n_private", int(private.n_items)),
            ("n_resamples_public", int(public.replicates.shape[0])),
            ("n_resamples_private", int(private.replicates.shape[0])),
            ("n_paired", gaps.n_valid),
            ("agreement", agreement if m >= 3 else None),
            ("mean_gap", gaps.mean_gap),
            ("mean_gap_low", gaps.mean_low),
            ("mean_gap_high", gaps.mean_high),
            ("mean_gap_p", gaps.mean_p),
            ("flagged", int(np.count_nonzero(gaps.flagged))),
            ("flagged_worse", int(np.count_nonzero(gaps.flagged & gaps.worse))),
            ("flagged_better", int(np.count_nonzero(gaps.flagged & ~gaps.worse))),
            ("gap_vs_submissions_rho", rho),
            ("gap_vs_submissions_p", rho_p),
        ]
    )


_RANK_COLUMNS = ("rank", "rank_set_low", "rank_set_high", "rank_set_marginal_low", "rank_set_marginal_high")


def resamples_to_flag_one(m, alpha):
    """The smallest B at which one gap among ``m`` can be flagged alone: ``1/(B+1) <= alpha/m``."""
    return int(math.ceil(m / float(alpha))) - 1


def _resolution_notes(n_valid, m, alpha):
    """One sentence when B is too small for Benjamini-Hochberg to flag a single gap among ``m``."""
    needed = resamples_to_flag_one(m, alpha)
    if m < 2 or n_valid >= needed:
        return []
    return [
        "With B = %d paired resamples the smallest p-value is 1/%d, and a gap flagged on its own needs p <= "
        "alpha/m = %.2g: B >= %s resamples are needed before a single participant can be flagged"
        % (n_valid, n_valid + 1, alpha / m, format(needed, ","))
    ]


def _direction(worse, flagged):
    if not flagged:
        return ""
    return "worse on private" if worse else "better on private"
