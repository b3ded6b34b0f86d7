"""Simultaneous inference over many paired differences: max-t step-down and rank sets.

The family is a set of pairs ``(a, b)`` of systems, each with the oriented
difference ``delta = sign * (s_a - s_b)`` (positive: ``a`` is better) and its
bootstrap replicates ``d*_b`` (both systems scored on the same resample).  With
``se`` the bootstrap standard deviation of ``d*`` (``ddof=1``), the observed
and replicate studentized statistics are

    t = delta / se,        t*_b = (d*_b - delta) / se.

Romano & Wolf's step-down (2005), as Westfall & Young's max-T (1993) computes
it, takes the maximum of ``|t*|`` over the hypotheses not yet rejected, so a
family of any size needs only the replicates already drawn and its adjusted
p-values have a floor of ``1/(B + 1)`` (Bonferroni and Holm: ``P/(B + 1)``).

Rounding noise: with ``gamma`` = :func:`leaderboard_ci.core.significance.tolerance`
of the pair, ``|delta| <= gamma`` counts as no difference and ``se <= gamma``
as no spread; the count compares ``max |t*|`` with ``(|delta| - gamma) / se``,
the studentized form of the paired test's tolerance, so rounding never turns a
tie into a difference.  A system compared with an identical copy gets p = 1.

Memory: pairs are streamed in chunks of ``chunk_pairs * B`` doubles (about
2 MB by default, per thread, so the passes over a chunk stay in cache); no
``(B, P)`` matrix is ever formed.  Rank sets also keep each system's marginal
maxima, two ``(m, B)`` arrays (:mod:`.system_maxima`).

The max-t step-down of :func:`maxt_stepdown`, in detail.

*Hypotheses.*  Each pair carries two one-sided hypotheses, "a is not better than b"
and "b is not better than a", as csranks' step-down has them (Mogstad, Romano, Shaikh &
Wilhelm 2024): a rejection decides a direction, and the family-wise error counted is
that of any wrong direction.  The *forward* hypothesis of a pair is the one its
observed difference points against, with statistic ``u = g((|delta| - gamma)/se)``
(the tolerance above; ``g`` the identity unless the pair is a
near-copy) and replicates ``s g(t*)``, ``s`` the sign of ``delta``; the reverse one
(replicates ``-s g(t*)``) has a statistic at most 0 and is never rejected, so its
maximum over the pairs, ``R_b``, is in every step.

*Step-down.*  Sort the pairs by ``u`` from largest to smallest; with
``M_b(j) = max(R_b, max over the pairs k ranked at or below j of s_k g_k(t*_bk))``,

    raw_j = (#{b : M_b(j) >= u_j} + 1) / (B + 1),
    p_adjusted_j = max of raw_i over the pairs i ranked at or above j.

The floor is ``1/(B + 1)``, whatever the size of the family.  Computed in one backward
pass over the sorted pairs with a running maximum of length ``B``.  Step ``s`` rejects
the pairs left with ``u > c_s``, ``c_s`` the ``(K + 1)``-th largest of ``M(first pair
left)`` and ``K`` the largest count with ``(K + 1)/(B + 1) < alpha``, exactly the pairs
with ``p_adjusted < alpha``.  No rejected direction is wrong with probability
``1 - alpha`` (asymptotically): when it holds for the true nulls' maximum at their own
critical value, no step reaches a true null, since every step's family contains them
and critical values grow with the family.

*Simultaneous intervals.*  ``[low, high] = {theta : |g((delta - theta)/se)| <= c_1}``
(``delta -/+ c_1 se`` for a pair that is not a near-copy), ``c_1`` the first step's
critical value, the ``1 - alpha`` quantile of ``max_j |g_j(t*_j)|``: they hold together
at level ``1 - alpha``, and one excludes 0 exactly when ``p_single < alpha`` (rounding
that would separate them moves the end by the order of ``gamma``).  A pair rejected at a
later step (``c_s < u <= c_1``) has its direction decided while its simultaneous interval
still includes 0 (``direction_only``): a step-down supports only the sign of such a pair
(Stefansson, Kim & Hsu 1988); its step's narrower interval would not hold jointly with
the others.  If no count can give ``p < alpha`` (``B < 1/alpha - 1``), ``c = inf`` and
every interval is the real line.
"""

from __future__ import annotations

import math
import threading
from collections import namedtuple
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from . import balance as balance_rules
from .balance import MIN_RESAMPLES, Shapes, grid_for, non_normal
from .benchmark_stats import ranks
from .parallel import resolve_jobs
from .resolution import STEPDOWN_METHODS, resamples_needed, resolved_resamples, smallest_level  # noqa: F401 (this module's API)
from .significance import tolerance
from .system_maxima import SystemMaxima

__all__ = [
    "FamilyTest",
    "RankSets",
    "maxt_stepdown",
    "maxt_within",
    "rank_sets",
    "resamples_needed",
    "resolved_resamples",
    "smallest_level",
    "STEPDOWN_METHODS",
]

_CHECKPOINTS = 64


@dataclass(frozen=True)
class FamilyTest:
    """The max-t step-down of one family of pairs (arrays in the order of the pairs given).

    Attributes
    ----------
    p_adjusted : ndarray ``(P,)``
        Step-down adjusted p-values of the observed direction, in ``[1/(B+1), 1]``;
        significant means ``p_adjusted < alpha``: the pair's direction is decided.
    p_single : ndarray ``(P,)``
        Single-step adjusted p-values (the first step's maximum for every pair):
        ``p_single < alpha`` exactly when ``[low, high]`` excludes 0.
    low, high : ndarray ``(P,)``
        The simultaneous interval of each pair, the single-step max-t interval
        ``{theta : |g((delta - theta)/se)| <= c_1}`` (``delta -/+ c_1 se`` for a pair that is not
        a near-copy): all of them hold together at level ``1 - alpha``.
    critical : ndarray ``(P,)``
        The critical value ``c_s`` of the step at which each pair was decided (on the
        balanced scale; pairs never rejected: the last step's).
    t : ndarray ``(P,)``
        Observed studentized difference (0 within rounding of no difference, +/-inf when
        the replicates have no spread).
    se : ndarray ``(P,)``
        Bootstrap standard deviation of the difference (``ddof=1``).
    critical_simultaneous : float
        ``c_1``: the single-step max-t critical value of the whole family, in standard errors
        of a pair that is not a near-copy (inf when B is too small for any p-value to fall
        below alpha).
    alpha : float
    n_valid : int
        Replicates used (rows with any NaN are left out).
    steps : int
        Steps of the step-down (the last one rejects nothing more).
    near_copy : ndarray of bool ``(P,)``
        Pairs balanced through their own bootstrap distribution (:mod:`.balance`).
    shapes : :class:`~leaderboard_ci.core.balance.Shapes`
        Their transforms (for families built from this one's pairs).
    """

    p_adjusted: np.ndarray
    p_single: np.ndarray
    low: np.ndarray
    high: np.ndarray
    critical: np.ndarray
    t: np.ndarray
    se: np.ndarray
    critical_simultaneous: float
    alpha: float
    n_valid: int
    steps: int
    near_copy: np.ndarray
    shapes: object = field(default=None, repr=False, compare=False)

    @property
    def significant(self):
        """``p_adjusted < alpha``: the step-down decides the pair's direction."""
        return self.p_adjusted < self.alpha

    @property
    def simultaneous(self):
        """``p_single < alpha``, equivalently: the simultaneous interval excludes 0."""
        return self.p_single < self.alpha

    @property
    def direction_only(self):
        """Decided by a later step of the step-down: the direction holds, the simultaneous interval still includes 0."""
        return self.significant & ~self.simultaneous


@dataclass(frozen=True)
class RankSets:
    """Ranks and rank confidence sets of ``m`` systems (arrays in the systems' order).

    Attributes
    ----------
    rank : ndarray of int ``(m,)``
        Joint rank ``1 + #{systems strictly better}`` (ties within rounding share a rank).
    low, high : ndarray of int ``(m,)``
        Simultaneous rank confidence set ``[low, high]`` (all ``m`` sets jointly at level
        ``1 - alpha``), from the all-pairs step-down.
    low_marginal, high_marginal : ndarray of int ``(m,)``
        Marginal rank confidence set of each system (each at level ``1 - alpha``), from the
        step-down over that system's ``m - 1`` comparisons.
    alpha : float
    """

    rank: np.ndarray
    low: np.ndarray
    high: np.ndarray
    low_marginal: np.ndarray
    high_marginal: np.ndarray
    alpha: float


def _check_inputs(replicates, full, pairs, sign, alpha):
    replicates = np.asarray(replicates, dtype=np.float64)
    full = np.asarray(full, dtype=np.float64)
    if replicates.ndim != 2 or full.shape != (replicates.shape[1],):
        raise ValueError(
            "replicates must have shape (B, m) and full shape (m,); got %s and %s" % (replicates.shape, full.shape)
        )
    if pairs is not None:
        pairs = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
        if pairs.size and (pairs.min() < 0 or pairs.max() >= full.shape[0]):
            raise ValueError(
                "pairs must index the %d systems (0 to %d), got values from %d to %d"
                % (full.shape[0], full.shape[0] - 1, pairs.min(), pairs.max())
            )
    if sign not in (1, -1, 1.0, -1.0) or isinstance(sign, bool):
        raise ValueError("sign must be +1 (higher is better) or -1 (lower is better), got %r" % (sign,))
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)) or not 0.0 < alpha < 1.0:
        raise ValueError("alpha must be a number strictly between 0 and 1, got %r" % (alpha,))
    return replicates, full, pairs, float(sign), float(alpha)


def _largest_rejecting_count(n_valid, alpha):
    """The largest count K with ``(K + 1) / (n_valid + 1) < alpha`` (-1 if none), in the p-value's own arithmetic."""
    k = int(math.ceil(alpha * (n_valid + 1.0))) - 2
    while k + 1 >= 1 and (k + 1.0) / (n_valid + 1.0) >= alpha:
        k -= 1
    while (k + 2.0) / (n_valid + 1.0) < alpha and k + 1 < n_valid:
        k += 1
    return max(k, -1)


class _Maximum(object):
    """A running elementwise maximum that the chunks' threads merge into (one vector, not one per chunk).

    A maximum does not depend on the order of its terms, so this equals the maximum of the list.
    """

    def __init__(self, count):
        self.value = np.full(count, -np.inf)
        self._lock = threading.Lock()

    def merge(self, values):
        with self._lock:
            np.maximum(self.value, values, out=self.value)


class _Family(object):
    """Per-pair numbers of one family and the one-sided statistics of any range of its sorted pairs.

    Each pair ``(a, b)`` carries two one-sided hypotheses, "a is not better than b" and "b is
    not better than a" (csranks' step-down).  Its *forward* hypothesis is the one its observed
    difference points against (``s = sign(delta)``, +1 for a tie), with statistic ``s g(t)``
    and replicates ``s g(t*)``; the *reverse* one has ``-s g(t*)``, is never rejected (its
    statistic is at most 0) and so stays in every step's maximum: ``reverse`` is its maximum
    over the pairs, replicate by replicate.  ``g`` is the pair's balance transform
    (:mod:`.balance`): the identity unless the pair is a near-copy.  ``pool``
    (:class:`_pool`) runs the chunks.
    """

    def __init__(
        self, reps_t, full, pairs, sign, chunk_pairs, pool, se=None, shapes=None, balance=True, top=False, given=None
    ):
        self.run = pool.run
        self.reps_t = reps_t
        self.count = reps_t.shape[1]
        self.sign = sign
        self.chunk = chunk_pairs
        self.jobs = pool.jobs
        n = pairs.shape[0]
        a, b = pairs[:, 0], pairs[:, 1]
        self.a, self.b = a, b
        self.delta = sign * (full[a] - full[b])
        self.gamma = tolerance(np.maximum(np.abs(full[a]), np.abs(full[b])), self.delta)
        self.s = np.where(self.delta < 0, -1.0, 1.0)
        self.shapes = Shapes(n) if shapes is None else shapes
        self.reverse = np.zeros(self.count)
        # Decisions only (``top``): the first pass also finds M(0) = max(reverse, every forward statistic);
        # with the standard errors given, the sorted sweep (:class:`_Sweep`) finds the reverse maximum instead.
        self.top = np.zeros(self.count) if top and se is None else None
        self.sweep_reverse = bool(top) and se is not None
        self._given_maxima(top, se, given, full.shape[0])
        undefined = ~np.isfinite(self.delta)  # a score that is NaN: never a difference (p = 1)
        if se is not None:
            self.se = np.asarray(se, dtype=np.float64)
        elif self.count < 2:
            self.se = np.zeros(n)
        else:
            self.se = np.empty(n)
        self.zero = (np.abs(self.delta) <= self.gamma) | undefined
        if se is None and self.count >= 2:
            self._first_pass(n, balance)  # se, the near-copies and the reverse maximum
        self.flat = (self.se <= self.gamma) | ~np.isfinite(self.se) | undefined  # t* = 0: no NaN in the maxima
        if se is not None and self.count >= 2 and not top:
            self._reverse_pass(n)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(self.zero, 0.0, np.where(self.flat, np.sign(self.delta) * np.inf, self.delta / self.se))
            t[undefined] = np.nan
            u = np.where(self.zero, 0.0, np.where(self.flat, np.inf, (np.abs(self.delta) - self.gamma) / self.se))
        for j in np.flatnonzero(self.shapes.balanced & ~self.zero & ~self.flat):  # u = s g(s u)
            u[j] = self.s[j] * float(self.shapes.apply(j, np.array([self.s[j] * u[j]]))[0])
        self.t = t
        self.u = u
        # Sorted by the count's threshold u (descending); ties keep the pairs' order.
        self.order = np.argsort(-u, kind="stable")
        self.u_sorted = u[self.order]
        self.a_sorted = a[self.order]
        self.b_sorted = b[self.order]
        self.held = None  # suffix maxima of the forward statistics at every sorted pair, when one chunk holds them

    def _given_maxima(self, top, se, given, m):
        """A marginal family's ``given`` (top, reverse); an all-pairs first pass's :class:`SystemMaxima` to gather."""
        if given is not None:  # from the all-pairs first pass: no sweep needed for the reverse maximum
            self.top, self.reverse = given[0].copy(), given[1].copy()
            self.sweep_reverse = False
        self.maxima = None
        if top and se is None and self.count >= 2 and SystemMaxima.wanted(m, self.count):
            self.maxima = SystemMaxima(m, self.count, ~((self.delta < 0) | (self.delta > 0)))

    def _spans(self, n):
        return [(lo, min(lo + self.chunk, n)) for lo in range(0, n, self.chunk)]

    def _first_pass(self, n, balance):
        """The pairs' standard deviations, the near-copies' transforms and the reverse maximum, in one pass."""
        count = self.count
        grid = grid_for(count) if balance and count >= MIN_RESAMPLES else None
        own = np.std(self.reps_t, axis=1, ddof=1) if grid is not None else None  # each system's SD
        spans = self._spans(n)
        found = [None] * len(spans)
        tops, forward_tops = _Maximum(self.count), _Maximum(self.count)

        def work(i):
            lo, hi = spans[i]
            d = self._differences(self.a[lo:hi], self.b[lo:hi])
            centred = d - (d.sum(axis=1) / count)[:, None]
            np.multiply(centred, centred, out=centred)
            se = np.sqrt(centred.sum(axis=1) / (count - 1.0))
            del centred
            self.se[lo:hi] = se
            np.subtract(d, self.delta[lo:hi, None], out=d)
            flat = (se <= self.gamma[lo:hi]) | ~np.isfinite(self.delta[lo:hi])
            with np.errstate(divide="ignore", invalid="ignore"):
                np.divide(d, np.where(flat, 1.0, se)[:, None], out=d)  # t*
            d[flat] = 0.0
            built = []
            if grid is not None:
                together = se < balance_rules.TOGETHER * np.minimum(own[self.a[lo:hi]], own[self.b[lo:hi]])
                near = np.flatnonzero(~flat & together)
                if near.size:
                    built = _near_copies(d, near, lo, count, grid)
                for r, transform in built:
                    d[r] = transform.forward(d[r])
            np.multiply(d, -self.s[lo:hi, None], out=d)  # the reverse statistics
            if self.maxima is not None:  # max |d| is the maximum of the forward and the reverse statistics
                reverse, forward = self.maxima.add(lo, self.a[lo:hi], self.b[lo:hi], d)
                tops.merge(reverse)
                forward_tops.merge(forward)
            else:
                tops.merge(d.max(axis=0))
                if self.top is not None:
                    forward_tops.merge(-d.min(axis=0))  # the forward statistics are the reverse ones negated
            found[i] = [(lo + r, transform) for r, transform in built]

        self.run(work, range(len(spans)))
        for built in found:
            for pair, transform in built:
                self.shapes.adopt(pair, transform)
                if self.maxima is not None:
                    self.maxima.taint(self.a[pair], self.b[pair])
        np.maximum(self.reverse, tops.value, out=self.reverse)
        if self.top is not None:
            np.maximum(self.top, self.reverse, out=self.top)
            np.maximum(self.top, forward_tops.value, out=self.top)

    def _reverse_pass(self, n):
        """The reverse maximum when the standard deviations (and transforms) were given."""
        spans = self._spans(n)
        tops = _Maximum(self.count)

        def work(i):
            lo, hi = spans[i]
            tops.merge(self.statistics(np.arange(lo, hi), -1.0).max(axis=0))

        self.run(work, range(len(spans)))
        np.maximum(self.reverse, tops.value, out=self.reverse)

    def _differences(self, a, b):
        """``sign * (reps[a] - reps[b])``, shape ``(len(a), count)``, the same bytes whatever the layout.

        Runs of pairs ``(j, k), (j, k + 1), ...`` (the upper triangle's order) subtract slices; one system
        against many (a marginal family) gathers only the others; anything else gathers both.
        """
        reps = self.reps_t
        n = a.shape[0]
        breaks = np.flatnonzero((a[1:] != a[:-1]) | (b[1:] != b[:-1] + 1)) + 1
        if n and 16 * (breaks.size + 1) <= n:
            d = np.empty((n, self.count))
            for s, e in zip(np.r_[0, breaks], np.r_[breaks, n]):
                np.subtract(reps[a[s]], reps[b[s] : b[s] + e - s], out=d[s:e])
        elif n and np.all(a == a[0]):
            d = reps[b]
            np.subtract(reps[a[0]], d, out=d)
        else:
            d = reps[a]
            np.subtract(d, reps[b], out=d)
        if self.sign != 1.0:
            np.multiply(d, self.sign, out=d)
        return d

    def statistics(self, idx, side):
        """One-sided replicate statistics of pairs ``idx``, ``(len(idx), count)``: ``side * s * g(t*)``.

        ``side`` +1: the forward hypotheses; -1: the reverse ones.  Rows without spread are 0.
        """
        d = self._differences(self.a[idx], self.b[idx])
        np.subtract(d, self.delta[idx][:, None], out=d)
        flat = self.flat[idx]
        with np.errstate(divide="ignore", invalid="ignore"):
            np.divide(d, np.where(flat, 1.0, self.se[idx])[:, None], out=d)
        d[flat] = 0.0
        for r in np.flatnonzero(self.shapes.row[idx] >= 0):
            d[r] = self.shapes.apply(idx[r], d[r])
        np.multiply(d, (side * self.s[idx])[:, None], out=d)
        return d

    def forward(self, lo, hi):
        """Forward statistics of sorted positions ``[lo, hi)``, shape ``(hi - lo, count)``."""
        return self.statistics(self.order[lo:hi], 1.0)

    def suffix_max(self, lo, hi, after):
        """``max(after, max of the forward statistics over sorted positions [lo, hi))`` elementwise."""
        out = after.copy()
        if self.held is not None:
            if lo < self.held.shape[0]:  # held[lo] is the maximum over lo..end, which includes [lo, hi)
                np.maximum(out, self.held[lo], out=out)
            return out
        spans = [(s, min(s + self.chunk, hi)) for s in range(lo, hi, self.chunk)]
        parts = _Maximum(self.count)

        def work(i):
            s, e = spans[i]
            parts.merge(self.forward(s, e).max(axis=0))

        self.run(work, range(len(spans)))
        np.maximum(out, parts.value, out=out)
        return out


def _near_copies(tstar, rows, offset, count, grid):
    """``[(pair, transform)]`` of the candidate ``rows`` of a chunk whose replicates are measurably non-normal."""
    x = tstar[rows]
    x = x - x.mean(axis=1)[:, None]
    m2 = np.einsum("ij,ij->i", x, x) / count
    x3 = x * x * x
    skew = x3.sum(axis=1) / count / m2**1.5
    kurt = np.einsum("ij,ij->i", x3, x) / count / (m2 * m2) - 3.0
    heavy = non_normal(skew, kurt, count)
    return [(r, Shapes.transform(tstar[r], grid)) for r in rows[heavy]]


def _backward_counts(fam, n):
    """Counts ``#{b : max(reverse, max_{k >= q} forward_bk) >= u_q}`` for every sorted position q, and checkpoints."""
    counts = np.empty(n, dtype=np.int64)
    running = fam.reverse.copy()
    segment = max(fam.chunk, -(-n // _CHECKPOINTS))
    checkpoints = {n: running.copy()}
    block = fam.chunk * max(1, fam.jobs)
    for seg_lo in range(((n - 1) // segment) * segment, -1, -segment):
        seg_hi = min(seg_lo + segment, n)
        for hi in range(seg_hi, seg_lo, -block):
            lo = max(seg_lo, hi - block)
            spans = [(s, min(s + fam.chunk, hi)) for s in range(lo, hi, fam.chunk)]
            cums = [None] * len(spans)

            def accumulate(i):
                s, e = spans[i]
                x = fam.forward(s, e)
                for r in range(x.shape[0] - 2, -1, -1):  # row r: max over rows r..end (in place; a row
                    np.maximum(x[r], x[r + 1], out=x[r])  # at a time is ~5x faster than ufunc.accumulate)
                if e - s == n:
                    fam.held = x  # the whole family: the steps read its suffix maxima instead of recomputing
                cums[i] = x

            fam.run(accumulate, range(len(spans)))
            suffixes = [None] * len(spans)
            after = running
            for i in range(len(spans) - 1, -1, -1):
                suffixes[i] = after
                after = np.maximum(cums[i][0], after)

            def count(i):
                s, e = spans[i]
                cum = cums[i]
                np.maximum(cum, suffixes[i][None, :], out=cum)
                counts[s:e] = np.count_nonzero(cum >= fam.u_sorted[s:e, None], axis=1)
                cums[i] = None

            fam.run(count, range(len(spans)))
            running = after
        checkpoints[seg_lo] = running.copy()
    return counts, checkpoints, segment


class _Sweep(object):
    """Suffix maxima of the forward statistics over the sorted positions ``[lo, n)``, from one backward pass.

    A checkpoint every ``gap`` positions (at most :data:`_CHECKPOINTS` vectors of length B), so a
    step's maximum recomputes fewer than ``gap`` pairs.  When ``fam.sweep_reverse`` (standard errors
    given, nothing has read the replicates yet; ``lo`` is 0) the same pass finds the reverse maximum:
    the forward statistics negated.
    """

    def __init__(self, fam, lo):
        n = fam.u_sorted.shape[0]
        self.fam, self.lo, self.n = fam, lo, n
        self.gap = max(1, -(-(n - lo) // _CHECKPOINTS))
        self.points = {n: np.full(fam.count, -np.inf)}
        after = self.points[n]
        block = fam.chunk * max(1, fam.jobs)
        for hi in range(n, lo, -block):
            spans = [(s, min(s + fam.chunk, hi)) for s in range(max(lo, hi - block), hi, fam.chunk)]
            parts = [None] * len(spans)
            fam.run(lambda i: parts.__setitem__(i, self._groups(*spans[i])), range(len(spans)))
            for groups in parts[::-1]:
                for start, top, low in groups[::-1]:
                    after = np.maximum(after, top)
                    if low is not None:
                        np.maximum(fam.reverse, -low, out=fam.reverse)
                    if (start - lo) % self.gap == 0:
                        self.points[start] = after

    def _groups(self, s, e):
        """``[(start, max, min or None)]`` of the forward statistics of ``[s, e)`` cut at the checkpoints."""
        x = self.fam.forward(s, e)
        first = self.lo + -(-(s - self.lo) // self.gap) * self.gap
        cuts = sorted(set([s, e] + list(range(first, e, self.gap))))
        low = self.fam.sweep_reverse
        return [
            (c, x[c - s : d - s].max(axis=0), x[c - s : d - s].min(axis=0) if low else None)
            for c, d in zip(cuts[:-1], cuts[1:])
        ]

    def suffix(self, start):
        """The maximum of the forward statistics over the sorted positions ``[start, n)``, replicate by replicate."""
        cp = min(self.lo + -(-(start - self.lo) // self.gap) * self.gap, self.n)
        out = self.points[cp].copy()
        for s in range(start, cp, self.fam.chunk):
            np.maximum(out, self.fam.forward(s, min(s + self.fam.chunk, cp)).max(axis=0), out=out)
        return out


def _significant(fam, alpha):
    """Boolean ``(P,)``: the pairs the step-down rejects, ``p_adjusted < alpha`` of :func:`_stepdown` exactly.

    The steps alone, without the p-values: step 1 from M(0) (the first pass's ``top``, or a sorted sweep
    over every pair), then one sweep over the pairs step 1 left, whose checkpoints give each later
    step's maximum.  A pair is rejected at a step exactly when its count there is at most K, so the
    rejections are those of the p-values (module docstring).
    """
    n, count = fam.u_sorted.shape[0], fam.count
    significant = np.zeros(n, dtype=bool)
    k_max = _largest_rejecting_count(count, alpha)
    if n == 0 or count < 2 or k_max < 0:
        return significant
    u = fam.u_sorted
    start, sweep = 0, None
    while True:
        if start == 0 and fam.top is not None:
            vector = fam.top
        else:
            sweep = _Sweep(fam, start) if sweep is None else sweep
            vector = np.maximum(fam.reverse, sweep.suffix(start))
        c = float(np.partition(vector, count - 1 - k_max)[count - 1 - k_max])  # (K+1)-th largest
        stop = start + int(np.count_nonzero(u[start:] > c))
        if stop == start or stop == n:
            break
        start = stop
    significant[fam.order[:stop]] = True
    return significant


def maxt_stepdown(replicates, full, pairs, sign, alpha=0.05, chunk_pairs=None, n_jobs=1, balance=True):
    """Romano-Wolf max-t step-down over a family of paired differences, with its simultaneous intervals.

    Parameters
    ----------
    replicates : ndarray ``(B, m)``
        Replicate scores of each system on one target (the same resamples for all).
        Rows where any system is NaN are left out, as in
        :func:`leaderboard_ci.core.pairs.pair_statistics`.
    full : ndarray ``(m,)``
        Full-sample scores.
    pairs : ndarray ``(P, 2)``
        System indices ``(a, b)``; the difference is ``sign * (s_a - s_b)``.
    sign : {+1, -1}
        +1 when higher is better, -1 when lower is better.
    alpha : float
        Family-wise error rate of the decisions and of the simultaneous intervals.
    chunk_pairs : int, optional
        Pairs per chunk (memory only: ``chunk_pairs * B`` doubles per thread, about 2 MB
        by default).  Results do not depend on it.
    n_jobs : int or "auto"
        Threads over chunks.  Results do not depend on it.
    balance : bool
        Send near-copy pairs through their own bootstrap distribution before the maximum
        (:mod:`leaderboard_ci.core.balance`); False: the plain studentized maximum for every pair.

    Returns
    -------
    FamilyTest

    Notes
    -----
    The hypotheses (two directions per pair), the step-down and its simultaneous intervals
    (``direction_only``) are defined in the module docstring, after "in detail".

    References
    ----------
    Romano, J. P. & Wolf, M. (2005). Stepwise multiple testing as formalized data
    snooping. Econometrica 73(4), 1237-1282.
    Romano, J. P. & Wolf, M. (2005). Exact and approximate stepdown methods for multiple
    hypothesis testing. JASA 100(469), 94-108.
    Stefansson, G., Kim, W.-C. & Hsu, J. C. (1988). On confidence sets in multiple
    comparisons. Statistical Decision Theory and Related Topics IV, 2, 89-104.
    Westfall, P. H. & Young, S. S. (1993). Resampling-Based Multiple Testing. Wiley.

    Examples
    --------
    >>> import numpy as np
    >>> reps = np.array([[0.5, 0.5], [0.6, 0.6], [0.4, 0.4]])
    >>> float(maxt_stepdown(reps, np.array([0.5, 0.5]), [[0, 1]], 1).p_adjusted[0])
    1.0
    """
    replicates, full, pairs, sign, alpha = _check_inputs(replicates, full, pairs, sign, alpha)
    _chunk(chunk_pairs, 1)
    jobs = resolve_jobs(n_jobs)
    reps_t = _valid_columns(replicates)
    with _pool(jobs) as pool:
        return _stepdown(
            reps_t, full, pairs, sign, alpha, _chunk(chunk_pairs, reps_t.shape[1]), pool, balance=bool(balance)
        )


def maxt_within(replicates, full, pairs, sign, families, alpha=0.05, chunk_pairs=None, n_jobs=1, balance=True):
    """:func:`maxt_stepdown` within each family of ``pairs`` separately.

    ``families`` is a list of index arrays into ``pairs``.  Returns a list of
    :class:`FamilyTest`, one per family (over ``pairs[family]``).  The replicates are laid out
    once for all families.
    """
    replicates, full, pairs, sign, alpha = _check_inputs(replicates, full, pairs, sign, alpha)
    _chunk(chunk_pairs, 1)
    jobs = resolve_jobs(n_jobs)
    reps_t = _valid_columns(replicates)
    chunk = _chunk(chunk_pairs, reps_t.shape[1])
    with _pool(jobs) as pool:
        return [
            _stepdown(
                reps_t, full, pairs[np.asarray(members, dtype=np.intp)], sign, alpha, chunk, pool, None, None, balance
            )
            for members in families
        ]


#: Replicate statistics per chunk of pairs by default: 2 MB of float64, so that the ten or so passes
#: over a chunk run in the processor's cache (32 MB chunks made every pass a trip to memory: the
#: shake-up's rank sets at 500 systems took about twice as long).
CHUNK_VALUES = 1 << 18


def _chunk(chunk_pairs, count):
    if chunk_pairs is None:
        return max(1, CHUNK_VALUES // max(1, count))
    if isinstance(chunk_pairs, bool) or int(chunk_pairs) < 1:
        raise ValueError("chunk_pairs must be a positive integer, got %r" % (chunk_pairs,))
    return int(chunk_pairs)


def _valid_columns(replicates):
    """The replicates without rows holding NaN, as ``(m, count)`` (each system's replicates contiguous)."""
    valid = np.all(np.isfinite(replicates), axis=1)
    reps = replicates[valid] if not valid.all() else replicates
    return np.ascontiguousarray(reps.T)


class _pool(object):
    """Threads for the chunks, kept for a whole call (``with _pool(jobs) as pool``).

    Each chunk writes its own slice, so the threads never change a result.  No BLAS is
    used here, so no BLAS thread limits are set (that costs milliseconds per call).
    """

    def __init__(self, jobs):
        self.jobs = int(jobs)
        self.executor = ThreadPoolExecutor(max_workers=self.jobs) if self.jobs > 1 else None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.executor is not None:
            self.executor.shutdown()
        return False

    def run(self, work, items):
        """``work(item)`` for every item, on the threads when there is more than one item."""
        items = list(items)
        if self.executor is None or len(items) <= 1:
            for item in items:
                work(item)
        else:
            list(self.executor.map(work, items))


def _stepdown(reps_t, full, pairs, sign, alpha, chunk_pairs, pool, se=None, shapes=None, balance=True):
    """:func:`maxt_stepdown` on replicates already laid out by :func:`_valid_columns`.

    ``se`` and ``shapes``: the pairs' bootstrap standard deviations and balance transforms
    when already known (from a family that holds these pairs, in their orientation here).
    """
    count = int(reps_t.shape[1])
    n = int(pairs.shape[0])
    fam = _Family(reps_t, full, pairs, sign, chunk_pairs, pool, se, shapes, balance)
    k_max = _largest_rejecting_count(count, alpha)
    near = fam.shapes.balanced.copy()
    if n == 0 or count < 2:
        inf = np.full(n, np.inf)
        one = np.ones(n)
        bounds = (-inf, inf.copy(), inf.copy())
        return FamilyTest(one, one.copy(), *bounds, np.zeros(n), fam.se, math.inf, alpha, count, 0, near, fam.shapes)
    counts, checkpoints, segment = _backward_counts(fam, n)
    u = fam.u_sorted
    # Ties in u share the count of the first of their run (R(j) holds every tie of j).
    starts = np.r_[0, np.flatnonzero(u[1:] != u[:-1]) + 1]
    run_start = np.repeat(starts, np.diff(np.r_[starts, n]))
    raw = (counts[run_start] + 1.0) / (count + 1.0)
    p_sorted = np.maximum.accumulate(raw)

    # Steps: c_s from the suffix maximum at the step's first pair.
    crit_sorted = np.empty(n)
    start, steps, c1 = 0, 0, math.inf
    while True:
        steps += 1
        if k_max < 0:
            c = math.inf
        else:
            cp = min(((start + segment - 1) // segment) * segment, n)
            vector = fam.suffix_max(start, cp, checkpoints[cp])
            c = float(np.partition(vector, count - 1 - k_max)[count - 1 - k_max])  # (K+1)-th largest
        if steps == 1:
            c1 = c
        # Rejected at this step: u > c (exactly #{M >= u} <= K); u is sorted descending.
        stop = start + int(np.count_nonzero(u[start:] > c))
        crit_sorted[start:stop] = c
        if stop == start or stop == n:
            crit_sorted[stop:] = c
            break
        start = stop
    p_adjusted = np.empty(n)
    p_adjusted[fam.order] = p_sorted
    critical = np.empty(n)
    critical[fam.order] = crit_sorted
    # Single step: every pair against the whole family's maximum M(first pair).
    top = np.sort(checkpoints[0])
    p_single = (count - np.searchsorted(top, fam.u, side="left") + 1.0) / (count + 1.0)
    low, high = _simultaneous(fam, c1, p_single < alpha)
    return FamilyTest(
        p_adjusted, p_single, low, high, critical, fam.t, fam.se, c1, alpha, count, steps, near, fam.shapes
    )


def _simultaneous(fam, c1, rejected):
    """``(low, high)``: the single-step intervals ``{theta : |g((delta - theta)/se)| <= c_1}``, dual with
    ``rejected``."""
    delta, se = fam.delta, fam.se
    with np.errstate(invalid="ignore"):
        half = np.where(np.isinf(c1), np.inf, c1 * se)
    low, high = delta - half, delta + half
    if not math.isinf(c1):
        for j in np.flatnonzero(fam.shapes.balanced & ~fam.flat):
            low[j] = delta[j] - se[j] * fam.shapes.inverse(j, c1)
            high[j] = delta[j] - se[j] * fam.shapes.inverse(j, -c1)
    # Duality by construction: rounding must not separate the interval from the verdict.
    up = fam.s > 0
    tiny = np.nextafter(0.0, 1.0)
    low = np.where(rejected & up & ~(low > 0), tiny, low)
    high = np.where(rejected & ~up & ~(high < 0), -tiny, high)
    low = np.where(~rejected & (low > 0), 0.0, low)
    high = np.where(~rejected & (high < 0), 0.0, high)
    return low, high


def rank_sets(replicates, full, sign, alpha=0.05, family_test=None, pairs=None, chunk_pairs=None, n_jobs=1):
    """Joint ranks with marginal and simultaneous rank confidence sets.

    Parameters
    ----------
    replicates : ndarray ``(B, m)``
    full : ndarray ``(m,)``
    sign : {+1, -1}
    alpha : float
        The sets hold at level ``1 - alpha``.
    family_test : FamilyTest, optional
        The all-pairs :func:`maxt_stepdown` already computed, over ``pairs`` (every
        unordered pair once, in any order and orientation), at the same ``alpha``.
    pairs : ndarray ``(m (m - 1) / 2, 2)``, optional
        The pairs of ``family_test``; required with it.
    chunk_pairs, n_jobs
        As in :func:`maxt_stepdown`.

    Returns
    -------
    RankSets

    Notes
    -----
    A pair rejected by a step-down decides the direction by the sign of its difference.
    Simultaneous: from the all-pairs step-down, ``low_j = 1 + #{k significantly better
    than j}`` and ``high_j = m - #{k significantly worse than j}``.  Marginal: the same
    from the step-down over the ``m - 1`` comparisons of ``j`` only.  The point rank lies in
    both sets (a rejected difference has the sign of the point estimate), and the
    simultaneous set contains the marginal one (a pair's adjusted p-value in the smaller
    family is never larger: its maxima run over fewer pairs).

    The step-downs are :func:`maxt_stepdown`'s: one-sided hypotheses of ordered pairs, a
    rejected "j better than k" keeping "k better than j" in the later maxima, as csranks'
    (``csdiffmeans`` with ``stepdown=TRUE``), which is what makes the directions hold together
    with the sets; near-copies go through their own bootstrap distribution (the all-pairs
    family's transforms, mirrored where a pair's orientation is).

    References
    ----------
    Mogstad, M., Romano, J. P., Shaikh, A. M. & Wilhelm, D. (2024). Inference for ranks
    with applications to mobility across neighbourhoods and academic achievement across
    countries. Review of Economic Studies 91(1), 476-518.
    """
    replicates, full, _, sign, alpha = _check_inputs(replicates, full, None, sign, alpha)
    _chunk(chunk_pairs, 1)
    m = full.shape[0]
    all_pairs = np.stack(np.triu_indices(m, k=1), axis=1).astype(np.intp)
    reps_t = _valid_columns(replicates)
    chunk = _chunk(chunk_pairs, reps_t.shape[1])
    with _pool(resolve_jobs(n_jobs)) as pool:
        if family_test is None:
            pairs = all_pairs
            fam = _Family(reps_t, full, pairs, sign, chunk, pool, top=True)  # decisions only, no p-values
            family_test, maxima = _Decided(_significant(fam, alpha), fam.t, fam.se, fam.shapes), fam.maxima
        else:
            pairs, maxima = _checked_family_pairs(family_test, pairs, all_pairs, m, alpha), None
        better, worse = _tally(pairs, family_test.significant, family_test.t, m)
        low_m, high_m = _marginal_rank_sets(reps_t, full, pairs, sign, alpha, family_test, chunk, pool, maxima)
    return RankSets(ranks(full, sign), 1 + better, m - worse, low_m, high_m, alpha)


_Decided = namedtuple("_Decided", "significant t se shapes")  # what rank sets read of a family test


def _checked_family_pairs(family_test, pairs, all_pairs, m, alpha):
    """The pairs of a given ``family_test`` as an array; ValueError unless they are every pair once, at ``alpha``."""
    if pairs is None:
        raise ValueError("rank_sets needs the pairs of the family_test given")
    pairs = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
    keys = np.sort(np.minimum(pairs[:, 0], pairs[:, 1]) * m + np.maximum(pairs[:, 0], pairs[:, 1]))
    if pairs.shape[0] != all_pairs.shape[0] or not np.array_equal(keys, all_pairs[:, 0] * m + all_pairs[:, 1]):
        raise ValueError("family_test must cover every pair of the %d systems once, got %d pairs" % (m, pairs.shape[0]))
    if family_test.alpha != alpha:
        raise ValueError(
            "family_test was computed at alpha = %g, not at the alpha asked, %g" % (family_test.alpha, alpha)
        )
    if family_test.p_adjusted.shape != (pairs.shape[0],):
        raise ValueError("family_test has %d p-values for %d pairs" % (family_test.p_adjusted.size, pairs.shape[0]))
    return pairs


def _marginal_rank_sets(reps_t, full, pairs, sign, alpha, family_test, chunk, pool, maxima=None):
    """``(low, high)`` of each system's marginal rank set: a step-down over its own ``m - 1`` comparisons.

    Each system's comparisons reuse the family's standard errors and near-copy shapes
    (``family_test``, over ``pairs``); only the decisions are computed (:func:`_significant`: one sorted sweep over
    the ``m - 1`` pairs, no p-values).  ``low`` is 1 + the others significantly better, ``high`` is
    ``m`` - the others significantly worse.  ``maxima`` (:class:`~.system_maxima.SystemMaxima`,
    from the all-pairs first pass) gives each untainted system's first-step and reverse maxima,
    which spares its family a pass over its ``m - 1`` comparisons.
    """
    m = full.shape[0]
    se, shapes = family_test.se, family_test.shapes
    low_m = np.empty(m, dtype=np.intp)
    high_m = np.empty(m, dtype=np.intp)
    index = np.zeros((m, m), dtype=np.intp)  # pair (j, k) -> its position in ``pairs`` (either orientation)
    index[pairs[:, 0], pairs[:, 1]] = np.arange(pairs.shape[0])
    index[pairs[:, 1], pairs[:, 0]] = np.arange(pairs.shape[0])
    for j in range(m):
        others = np.delete(np.arange(m), j)
        own = np.stack([np.full(m - 1, j), others], axis=1)
        rows = index[j, others]
        sub = None if shapes is None else shapes.subset(rows, pairs[rows, 0] != j)
        given = None if maxima is None or maxima.tainted[j] else (maxima.top[j], maxima.reverse[j])
        fam = _Family(reps_t, full, own, sign, chunk, pool, se=se[rows], shapes=sub, top=True, given=given)
        sig = _significant(fam, alpha)
        low_m[j] = 1 + np.count_nonzero(sig & (fam.t < 0))  # others significantly better than j
        high_m[j] = m - np.count_nonzero(sig & (fam.t > 0))
    return low_m, high_m


def _tally(pairs, significant, t, m):
    """``(better, worse)``: for each rejected pair, the better system counted in ``worse``, the other in ``better``.

    ``better[j]``: systems significantly better than j; ``worse[j]``: significantly worse.
    """
    better = np.zeros(m, dtype=np.intp)
    worse = np.zeros(m, dtype=np.intp)
    a, b, t = pairs[significant, 0], pairs[significant, 1], t[significant]
    winner = np.where(t > 0, a, b)
    loser = np.where(t > 0, b, a)
    np.add.at(better, loser, 1)
    np.add.at(worse, winner, 1)
    return better, worse
