"""Bradley-Terry scores on the Elo scale from a battle log, as LMArena (FastChat) defines them.

A battle is ``(model_a, model_b, outcome)`` with the outcome ``model_a`` (A wins),
``model_b`` (B wins) or a tie (``tie`` and ``tie (bothbad)`` alike).  The battles are
aggregated into *cells*, one per (unordered pair, outcome): a replicate of the bootstrap
only changes the cells' counts, so each fit costs O(pairs), not O(battles).

The definition (FastChat's ``compute_mle_elo`` and ``rating_systems.compute_bt``)
-------------------------------------------------------------------------------
With ``alpha = ln(BASE)``, the scores ``theta`` maximize

    sum over battles  y * log s(alpha (theta_a - theta_b)) + (1 - y) * log s(alpha (theta_b - theta_a))

where ``s`` is the logistic function and ``y`` is 1 when A wins, 0 when B wins and 1/2 for
a tie (FastChat's old ``compute_mle_elo`` writes the same likelihood, doubled, as a weighted
logistic regression: weight ``2 * wins + ties`` per ordered pair).  The likelihood only
sees differences; FastChat's optimizers start at zero and every gradient sums to zero, so
its solution is the one with ``sum(theta) = 0``, ours too.  The Elo scores are
``SCALE * theta + INIT_RATING`` (400 and 1000), then shifted so that the anchor model,
when one is named, has the anchor rating (FastChat: 1114 for mixtral-8x7b-instruct-v0.1).

The fit is Newton's method on all replicates at once (the Hessian is the weighted graph
Laplacian of the pairs; the null direction of the constant vector is removed by adding
``1 1^T``, which leaves the fixed point unchanged), with steps capped at ``MAX_STEP``
(log-``BASE`` units).  The scores are then rounded to multiples of ``2**-32``
(about 1e-7 Elo points), so that the py37 and py312 images write the same bytes.

Unbounded scores.  A model that never won nor tied (or never lost nor tied) a battle has
no maximum: its score goes to minus (plus) infinity, and its battles then weigh nothing
on the others.  :func:`unbounded_models` finds such models (again after setting them
aside, since a model whose only wins were against one of them becomes one); the fit
leaves their battles out, the bounded models' scores sum to zero among themselves, and
each unbounded model gets a finite stand-in, ``UNBOUNDED`` log-``BASE`` units (4,000 Elo
points) below (above) the bounded models' average, one unit (400 points) farther for each
round of setting aside it preceded: it sorts last (first) in the limit's order and keeps
``scores.json`` finite, and a note says what it stands for (FastChat's L-BFGS stops after
100 iterations there and reports wherever it stopped).  A replicate that still moves
after ``MAX_ITER`` iterations (the pairs do not connect every model, or a group of models
never beat the rest) is reported as not converged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...core.intervals import interval_rows
from ...core.resampling import check_n_resamples, check_seed
from ...core.simultaneous import rank_sets

__all__ = [
    "SCALE",
    "BASE",
    "INIT_RATING",
    "OUTCOMES",
    "Cells",
    "cells_from_battles",
    "fit_bradley_terry",
    "elo_from_theta",
    "elo_scores",
    "resample_cell_counts",
    "bootstrap_elo",
    "win_fraction_matrix",
    "battle_count_matrix",
    "unbounded_models",
    "UNBOUNDED",
    "TIES",
    "ArenaLeaderboard",
    "arena_leaderboard",
]

SCALE = 400.0
BASE = 10.0
INIT_RATING = 1000.0
#: The outcome codes of a battle: 0 = model_a wins, 1 = model_b wins, 2 = tie, 3 = tie (both bad).
OUTCOMES = ("model_a", "model_b", "tie", "tie (bothbad)")
MAX_STEP = 2.0
MAX_ITER = 100
#: A score with no maximum is written this many log-BASE units from the bounded models' average (4,000 Elo).
UNBOUNDED = 10.0
#: How the win-fraction and battle-count matrices take ties: ``exclude`` (LMArena's published heatmaps, from
#: FastChat's battles without ties) or ``count`` (a tie is a battle, not a win).
TIES = ("exclude", "count")
CHORD_ITER = 40
TOLERANCE = 1e-10  # largest Newton step (log-BASE units) at which the fit has converged
#: The scores are rounded to multiples of 1 / _GRID (log-BASE units; 1e-7 Elo points): the last bits of
#: ``exp`` and of LAPACK differ between numpy builds, the rounded scores do not (but for a score within
#: about 1e-13 of a rounding boundary).
_GRID = 2.0**32
_CHUNK_BYTES = 64 << 20  # memory for the Newton systems of one chunk of replicates


class Cells(object):
    """Battles aggregated by (unordered pair, outcome).

    Attributes
    ----------
    n_models : int
    first, second : ndarray of int ``(P,)``
        The pairs that met at least once, ``first < second``.
    counts : ndarray of int ``(3 P,)``
        Cell ``3 p + o``: battles of pair ``p`` won by ``first[p]`` (o = 0), by
        ``second[p]`` (o = 1), tied (o = 2; both kinds of tie).
    codes : ndarray of int ``(n,)``
        Every battle's cell, in the log's order (what a bootstrap over battles resamples).
    """

    def __init__(self, n_models, first, second, codes):
        self.n_models = int(n_models)
        self.first = np.asarray(first, dtype=np.intp)
        self.second = np.asarray(second, dtype=np.intp)
        self.codes = np.asarray(codes, dtype=np.intp)
        self.n_cells = 3 * self.first.shape[0]
        self.counts = np.bincount(self.codes, minlength=self.n_cells).astype(np.int64)

    @property
    def n_battles(self):
        return int(self.codes.shape[0])


def cells_from_battles(model_a, model_b, outcome, n_models):
    """:class:`Cells` of battles given as model indices and outcome codes (:data:`OUTCOMES`).

    Parameters
    ----------
    model_a, model_b : array of int ``(n,)``, values in ``[0, n_models)``, ``model_a != model_b``
    outcome : array of int ``(n,)``, values 0 to 3
    n_models : int
    """
    a = np.asarray(model_a, dtype=np.intp)
    b = np.asarray(model_b, dtype=np.intp)
    o = np.asarray(outcome, dtype=np.intp)
    if not (a.ndim == b.ndim == o.ndim == 1 and a.shape == b.shape == o.shape):
        raise ValueError("model_a, model_b and outcome must be 1-d arrays of one length")
    if a.size and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= n_models):
        raise ValueError("model indices must lie in [0, %d)" % n_models)
    if np.any(a == b):
        raise ValueError("a battle needs two different models")
    if o.size and (o.min() < 0 or o.max() > 3):
        raise ValueError("outcome codes must be 0 to 3 (%s)" % ", ".join(OUTCOMES))
    lo = np.minimum(a, b)
    hi = np.maximum(a, b)
    keys, pair = np.unique(lo * n_models + hi, return_inverse=True)
    # outcome relative to the pair's first model: a win of ``lo`` is 0, of ``hi`` 1, a tie 2
    swapped = a != lo
    rel = np.where(o >= 2, 2, np.where(swapped, 1 - np.minimum(o, 1), o))
    return Cells(n_models, keys // n_models, keys % n_models, 3 * pair.astype(np.intp) + rel)


def _pair_matrix(cells):
    """``(P, m)`` incidence matrix: +1 at each pair's first model, -1 at its second."""
    n_pairs = cells.first.shape[0]
    e = np.zeros((n_pairs, cells.n_models))
    rows = np.arange(n_pairs)
    e[rows, cells.first] = 1.0
    e[rows, cells.second] = -1.0
    return e


def fit_bradley_terry(cells, counts=None, base=BASE, start=None):
    """Maximum-likelihood Bradley-Terry scores (log-``base`` units, summing to zero) per replicate.

    Parameters
    ----------
    cells : Cells
    counts : array ``(R, 3 P)`` or ``(3 P,)``, optional
        Cell counts of R replicates (default: the log's own counts).
    base : float
    start : array ``(m,)``, optional
        Where the iterations start (default: zeros).  With a start (the full log's scores)
        and several replicates, the first steps all use the Hessian of the full log at the
        start (:func:`_chord`), then Newton's method finishes the replicates still moving.
        The maximum does not depend on the path.

    Returns
    -------
    theta : ndarray ``(R, m)`` (or ``(m,)`` for 1-d counts)
    converged : ndarray of bool ``(R,)`` (or a bool)
        False where the last Newton step was still above the tolerance after
        ``MAX_ITER`` iterations (no maximum: a model won or lost every battle, or
        the pairs do not connect every model).
    """
    counts = cells.counts if counts is None else np.asarray(counts)
    single = counts.ndim == 1
    k = np.atleast_2d(counts).astype(np.float64)
    if k.shape[1] != cells.n_cells:
        raise ValueError("counts must have %d cells per replicate, got %d" % (cells.n_cells, k.shape[1]))
    m = cells.n_models
    alpha = math.log(base)
    e = _pair_matrix(cells)
    side, depth = _peel(cells, k)
    out = side != 0
    if out.any():  # their battles weigh nothing at the limit: leave them out of the fit
        gone = out[:, cells.first] | out[:, cells.second]
        k = k * np.repeat(~gone, 3, axis=1)
    theta = np.zeros((k.shape[0], m))
    if start is not None:
        theta += np.asarray(start, dtype=np.float64)
    converged = np.zeros(k.shape[0], dtype=bool)
    if start is not None and k.shape[0] > 1:
        theta, converged = _chord(cells, e, k, alpha, theta)
    rest = np.flatnonzero(~converged)
    chunk = max(1, _CHUNK_BYTES // (8 * m * m))
    for begin in range(0, rest.size, chunk):
        rows = rest[begin : begin + chunk]
        theta[rows], converged[rows] = _newton(cells, e, k[rows], alpha, theta[rows])
    bounded = (~out).astype(np.float64)
    centre = (theta * bounded).sum(axis=1, keepdims=True) / np.maximum(bounded.sum(axis=1, keepdims=True), 1.0)
    theta = np.where(out, side * (UNBOUNDED + depth), theta - centre)
    theta = np.round(theta * _GRID) / _GRID
    return (theta[0], bool(converged[0])) if single else (theta, converged)


def unbounded_models(cells, counts=None):
    """``(R, m)`` int8 per replicate: -1 a model whose score has no maximum below, +1 above, 0 bounded.

    A model with battles that never won nor tied one is unbounded below (never lost nor tied: above);
    setting it aside can leave another model with only losses (or wins) among the rest, so the check is
    repeated until nothing changes.  A model with no battles is bounded (its score is the average).
    """
    side, _ = _peel(cells, counts)
    return side[0] if counts is not None and np.asarray(counts).ndim == 1 else side


def _peel(cells, counts):
    """``(side, depth)``: :func:`unbounded_models`, and how many rounds after it each such model's last peer
    was set aside (0 for the last round): the model set aside first is the farthest from the others."""
    k = np.atleast_2d(cells.counts if counts is None else np.asarray(counts)).astype(np.float64)
    m = cells.n_models
    side = np.zeros((k.shape[0], m), dtype=np.int8)
    found = np.zeros((k.shape[0], m), dtype=np.int64)  # the round in which each was set aside
    first_wins, second_wins, ties = k[:, 0::3], k[:, 1::3], k[:, 2::3]
    first, second = np.zeros((cells.first.shape[0], m)), np.zeros((cells.first.shape[0], m))
    first[np.arange(cells.first.shape[0]), cells.first] = 1.0
    second[np.arange(cells.first.shape[0]), cells.second] = 1.0
    for round_ in range(m):
        alive = (side[:, cells.first] == 0) & (side[:, cells.second] == 0)
        # wins and ties, losses and ties, against the models still in (integer counts: exact products)
        scored = np.dot((first_wins + ties) * alive, first) + np.dot((second_wins + ties) * alive, second)
        conceded = np.dot((second_wins + ties) * alive, first) + np.dot((first_wins + ties) * alive, second)
        played = (scored + conceded) > 0
        new = np.where(played & (scored == 0), -1, np.where(played & (conceded == 0), 1, 0)).astype(np.int8)
        new = np.where(side != 0, side, new)
        if np.array_equal(new, side):
            break
        found = np.where((new != 0) & (side == 0), round_, found)
        side = new
    last = np.where(side != 0, found, -1).max(axis=1, keepdims=True)
    return side, np.where(side != 0, last - found, 0)


def _gradient(cells, e, wins, total, theta, alpha):
    """``(gradient (R, m), p (R, P))`` of the log-likelihood at ``theta``."""
    d = alpha * (theta[:, cells.first] - theta[:, cells.second])
    p = 1.0 / (1.0 + np.exp(-d))
    return alpha * np.dot(wins - total * p, e), p


def _laplacian(cells, e, w):
    """``(R, m, m)``: the weighted Laplacian of the pairs (weights ``w`` (R, P)) plus ``1 1^T``."""
    m = cells.n_models
    h = np.ones((w.shape[0], m, m))  # the 1 1^T that removes the constant direction
    h[:, cells.first, cells.second] -= w
    h[:, cells.second, cells.first] -= w
    diag = np.arange(m)
    h[:, diag, diag] += np.dot(w, np.abs(e)) + 1e-12
    return h


def _split(k):
    """The first model's score (a tie counting one half) and the battles, per pair: ``(R, P)`` each."""
    return k[:, 0::3] + 0.5 * k[:, 2::3], k[:, 0::3] + k[:, 1::3] + k[:, 2::3]


def _chord(cells, e, k, alpha, theta):
    """Newton steps with one matrix for every replicate: the full log's Hessian at the start.

    A replicate's Hessian differs from it by a few per cent, so each step divides the
    distance to the maximum by tens (linear convergence, one ``m x m`` factorization for
    all); the replicates still moving after ``CHORD_ITER`` steps go on with Newton's method.
    """
    wins, total = _split(k)
    full_wins, full_total = _split(cells.counts[None, :].astype(np.float64))
    _, p = _gradient(cells, e, full_wins, full_total, theta[:1], alpha)
    inverse = np.linalg.inv(_laplacian(cells, e, (alpha * alpha) * full_total * p * (1.0 - p))[0])
    active = np.ones(k.shape[0], dtype=bool)
    for _ in range(CHORD_ITER):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        grad, _ = _gradient(cells, e, wins[idx], total[idx], theta[idx], alpha)
        step = np.dot(grad, inverse.T)
        size = np.abs(step).max(axis=1)
        step *= np.minimum(1.0, MAX_STEP / np.maximum(size, 1e-300))[:, None]
        theta[idx] += step
        active[idx[size <= TOLERANCE]] = False
    return theta, ~active


def _newton(cells, e, k, alpha, theta):
    wins, total = _split(k)
    theta = np.array(theta, dtype=np.float64)
    active = np.ones(k.shape[0], dtype=bool)
    for _ in range(MAX_ITER):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        grad, p = _gradient(cells, e, wins[idx], total[idx], theta[idx], alpha)
        h = _laplacian(cells, e, (alpha * alpha) * total[idx] * p * (1.0 - p))
        step = np.linalg.solve(h, grad[:, :, None])[:, :, 0]
        size = np.abs(step).max(axis=1)
        step *= np.minimum(1.0, MAX_STEP / np.maximum(size, 1e-300))[:, None]
        theta[idx] += step
        active[idx[size <= TOLERANCE]] = False
    return theta, ~active


def elo_from_theta(theta, anchor=None, anchor_rating=INIT_RATING, scale=SCALE, init_rating=INIT_RATING):
    """``scale * theta + init_rating``, shifted so that model ``anchor`` (an index) has ``anchor_rating``."""
    elo = scale * np.asarray(theta, dtype=np.float64) + init_rating
    if anchor is not None:
        elo = elo + (anchor_rating - elo[..., anchor : anchor + 1])
    return elo


def elo_scores(cells, anchor=None, anchor_rating=INIT_RATING):
    """The log's Elo scores ``(m,)`` (FastChat's ``compute_mle_elo`` with its default constants)."""
    theta, _ = fit_bradley_terry(cells)
    return elo_from_theta(theta, anchor, anchor_rating)


def resample_cell_counts(seed, counts, n_resamples):
    """Cell counts of ``n_resamples`` bootstrap replicates of the battles, ``(B, C)`` int64.

    Resampling the ``n`` battles with replacement gives cell counts that are
    multinomial(``n``, ``counts / n``).  They are drawn cell by cell as conditional
    binomials: with ``G = numpy.random.Generator(PCG64(seed))``, cell ``c`` (in order)
    gets ``G.binomial(n - drawn_c, counts[c] / (n - before_c), size=B)``, where
    ``drawn_c`` is what the earlier cells drew in the same replicate and ``before_c``
    the earlier cells' observed counts (the last non-empty cell takes what is left;
    empty cells draw nothing and consume no output).  Each replicate is thus exactly a
    bootstrap resample of the battles in distribution; the values depend on the seed,
    on ``B`` (the draws are made replicate-vectorized) and on numpy's binomial
    sampler (Generator API, numpy >= 1.17).
    """
    seed = check_seed(seed)
    n_resamples = check_n_resamples(n_resamples)
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    out = np.zeros((n_resamples, counts.shape[0]), dtype=np.int64)
    nonzero = np.flatnonzero(counts)
    if nonzero.size == 0:
        return out
    generator = np.random.Generator(np.random.PCG64(seed))
    left = np.full(n_resamples, n, dtype=np.int64)
    before = n
    for c in nonzero[:-1]:
        draw = generator.binomial(left, counts[c] / float(before))
        out[:, c] = draw
        left -= draw
        before -= int(counts[c])
    out[:, nonzero[-1]] = left
    return out


def bootstrap_elo(cells, seed, n_resamples, anchor=None, anchor_rating=INIT_RATING):
    """Elo scores of the log and of ``n_resamples`` bootstrap replicates of its battles.

    Returns
    -------
    full : ndarray ``(m,)``
    replicates : ndarray ``(B, m)``
    converged : ndarray of bool ``(B,)``
    """
    counts = resample_cell_counts(seed, cells.counts, n_resamples)
    full, _ = fit_bradley_terry(cells)
    theta, converged = fit_bradley_terry(cells, counts, start=full)
    return elo_from_theta(full, anchor, anchor_rating), elo_from_theta(theta, anchor, anchor_rating), converged


def _ties(ties):
    if ties not in TIES:
        raise ValueError("ties must be one of: %s, got %r" % (", ".join(TIES), ties))
    return ties


def battle_count_matrix(cells, ties="count"):
    """``(m, m)`` symmetric battle counts between every two models.

    ``ties="count"`` (default): every battle, as a model's number of battles on the leaderboard;
    ``"exclude"``: the decisive ones, as LMArena's battle-count heatmap (FastChat's ``battles_no_ties``).
    """
    m = cells.n_models
    k = cells.counts.reshape(-1, 3)
    total = k.sum(axis=1) if _ties(ties) == "count" else k[:, 0] + k[:, 1]
    out = np.zeros((m, m), dtype=np.int64)
    out[cells.first, cells.second] = total
    out[cells.second, cells.first] = total
    return out


def win_fraction_matrix(cells, ties="exclude"):
    """``(m, m)``: the share of the battles between row and column that the row model won.

    FastChat's ``compute_pairwise_win_fraction`` counts the battles it is given; LMArena's
    published matrix gives it the battles without ties (``battles_no_ties`` in FastChat's
    ``report_elo_analysis_results``): ``ties="exclude"`` (default), the share of the decisive
    battles.  ``ties="count"``: ties count as battles, not as wins.  NaN where two models never
    met (or, excluding ties, only tied).
    """
    m = cells.n_models
    k = cells.counts.reshape(-1, 3)
    wins = np.zeros((m, m))
    wins[cells.first, cells.second] = k[:, 0]
    wins[cells.second, cells.first] = k[:, 1]
    total = battle_count_matrix(cells, ties).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, wins / np.where(total > 0, total, 1.0), np.nan)


@dataclass(frozen=True)
class ArenaLeaderboard:
    """Every model of a battle log: Elo scores, intervals and rank confidence sets (arrays in model order).

    Attributes
    ----------
    elo, low, high : ndarray ``(m,)``
        Scores and their percentile intervals over the bootstrap replicates.
    rank, rank_set_low, rank_set_high : ndarray of int ``(m,)``
        Rank (1 = best) and its simultaneous confidence set at ``1 - alpha``
        (:func:`leaderboard_ci.core.simultaneous.rank_sets`: all models' sets hold jointly).
    rank_set_marginal_low, rank_set_marginal_high : ndarray of int ``(m,)``
        Each model's own rank set at ``1 - alpha``.
    battles : ndarray of int ``(m,)``
        Each model's number of battles.
    replicates : ndarray ``(B, m)``
    converged : ndarray of bool ``(B,)``
        Replicates whose fit converged.
    unbounded : ndarray of int8 ``(m,)``
        On the whole log, -1 (+1) for a model whose score has no maximum below (above): its ``elo`` is
        the stand-in of :func:`fit_bradley_terry`; 0 for the others.
    unbounded_replicates : ndarray of int ``(m,)``
        In how many replicates each model's score had no maximum (and was a stand-in).
    """

    elo: np.ndarray
    low: np.ndarray
    high: np.ndarray
    rank: np.ndarray
    rank_set_low: np.ndarray
    rank_set_high: np.ndarray
    rank_set_marginal_low: np.ndarray
    rank_set_marginal_high: np.ndarray
    battles: np.ndarray
    replicates: np.ndarray
    converged: np.ndarray
    unbounded: np.ndarray
    unbounded_replicates: np.ndarray


def arena_leaderboard(
    cells, seed, n_resamples, confidence_level=0.95, alpha=0.05, anchor=None, anchor_rating=INIT_RATING
):
    """The organizer's view of the whole log: :class:`ArenaLeaderboard` from :func:`bootstrap_elo`.

    The intervals are percentile intervals (``core.intervals.interval_rows``, the product's
    definition); the rank sets come from the max-t step-down over all pairs of models on the
    same replicates (paired: every model is refitted on each resample of the battles).
    """
    full, reps, converged = bootstrap_elo(cells, seed, n_resamples, anchor, anchor_rating)
    counts = resample_cell_counts(seed, cells.counts, n_resamples)  # the replicates bootstrap_elo fitted
    rows = interval_rows("percentile", reps.T.copy(), full, confidence_level)
    ranks = rank_sets(reps, full, 1.0, alpha)
    return ArenaLeaderboard(
        full,
        rows.low,
        rows.high,
        ranks.rank,
        ranks.low,
        ranks.high,
        ranks.low_marginal,
        ranks.high_marginal,
        battle_count_matrix(cells).sum(axis=1),
        reps,
        converged,
        unbounded_models(cells, cells.counts),
        (unbounded_models(cells, counts) != 0).sum(axis=0),
    )
