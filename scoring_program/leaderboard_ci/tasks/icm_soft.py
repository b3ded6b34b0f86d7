"""ICM-Soft over resamples: PyEvALL's soft information content re-estimated in every replicate.

``IC(c, x) = -log2 Q((x - mu_c) / sigma_c)`` for a weight ``x > 0`` of class
``c`` (0 for ``x = 0``), ``Q = 1 - Phi`` evaluated as PyEvALL evaluates it
(``1 - 0.5 * (1 + erf(z / sqrt 2))``, Python's ``statistics.NormalDist``), a
``Q`` that rounds to 0 giving ``log2 N``; ``mu_c`` and ``sigma_c`` are the mean
and the mean absolute deviation of the gold's weights of ``c`` in the
replicate (see :mod:`.icm`).

Two exact-to-rounding paths give ``sum_i w_i IC(c, x_i)`` for a replicate:

* **direct**: every item's ``IC`` under the replicate's ``(mu, sigma)``
  (``n`` normal tail probabilities per replicate and class);
* **expansion**: with ``u_i`` the item's standardized weight under the full
  sample's ``(mu0, sigma0)``, the replicate's is ``u_i + a u_i + c`` with
  ``a = sigma0 / sigma - 1`` and ``c = (mu0 - mu) / sigma``, small for large
  ``n``; a Taylor expansion of ``H(z) = -log2 Q(z)`` of order ``ORDER`` in that
  shift turns the sum into ``sum_{k, j} a^j c^(k-j) S_kj`` with
  ``S_kj = sum_i w_i H^(k)(u_i) u_i^j C(k, j) / k!``: one matrix product of the
  resample counts with ``(ORDER + 1)(ORDER + 2) / 2`` per-item columns.  It is
  used when the shift is at most ``MAX_SHIFT`` on every item, of order 6 up
  to a shift of 0.1 and 10 up to 0.2 (:data:`TIERS`; the remainder is below
  3e-11 bits per item, checked in ``tests/test_icm.py``); items far in the tail
  (``u > TAIL``, where PyEvALL's rounding of ``Q`` matters) and the other
  replicates take the direct path.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.accumulators import ExactSums
from .icm import ALPHA_1, ALPHA_2, BETA

__all__ = ["erf", "information", "SoftICM", "soft_icm_sums", "ORDER", "MAX_SHIFT", "TAIL"]

#: ``(largest shift, order)``: the expansion's order for replicates whose shift is at most that (the remainder
#: is below 3e-11 bits per item in both tiers); replicates that shift more take the direct path.
TIERS = ((0.1, 6), (0.2, 10))
ORDER = TIERS[-1][1]
MAX_SHIFT = TIERS[-1][0]
TAIL = 4.0
_SQRT2 = math.sqrt(2.0)
_LN2 = math.log(2.0)

# ---------------------------------------------------------------------------
# erf, vectorized, within two ulps of math.erf
# ---------------------------------------------------------------------------
_STEP = 1.0 / 32.0
_DEGREE = 11
_LIMIT = 6.0  # |x| > 6: erf is +-1 in float64
_EXACT_ABOVE = 3.0  # x > 3 (Q below 1.2e-5, where 1 - Phi keeps few digits): math.erf itself


def _taylor_table():
    centres = np.arange(0.0, _LIMIT + _STEP, _STEP)
    table = np.zeros((_DEGREE + 1, centres.size))
    scale = 2.0 / math.sqrt(math.pi)
    for j, a in enumerate(centres):
        table[0, j] = math.erf(a)
        # erf^(k+1)(a) = 2/sqrt(pi) (-1)^k H_k(a) exp(-a^2), H the physicists' Hermite polynomials
        h_prev, h = 0.0, 1.0
        factorial = 1.0
        for k in range(_DEGREE):
            factorial *= k + 1
            table[k + 1, j] = scale * (-1.0) ** k * h * math.exp(-a * a) / factorial
            h_prev, h = h, 2.0 * a * h - 2.0 * k * h_prev
    return centres, table


_TABLE = []


def erf(x):
    """``erf`` of an array: Taylor series about the nearest multiple of 1/32; ``math.erf`` above 3."""
    if not _TABLE:
        _TABLE.append(_taylor_table())
    centres, table = _TABLE[0]
    x = np.asarray(x, dtype=np.float64)
    ax = np.minimum(np.abs(x), _LIMIT)
    j = np.rint(ax / _STEP).astype(np.intp)
    h = ax - centres[j]
    acc = table[_DEGREE].take(j)
    for k in range(_DEGREE - 1, -1, -1):
        acc = acc * h + table[k].take(j) if k else table[0].take(j) + acc * h
    out = np.where(np.abs(x) >= _LIMIT, 1.0, acc)
    out = np.where(x < 0, -out, out)
    far = x > _EXACT_ABOVE
    if np.any(far):
        flat, where = out.reshape(-1), np.flatnonzero(far.reshape(-1))
        values = x.reshape(-1)[where]
        flat[where] = [math.erf(v) for v in values]
    return out


def information(x, mu, sigma, log_total):
    """``IC(c, x)`` for weights ``x`` against ``mu``, ``sigma`` (broadcast), PyEvALL's rules.

    sigma = 0 (every gold weight of the class equal): PyEvALL's NormalDist
    raises; here the tail probability is 0 above the common value (``log2 N``),
    1 below it and 1/2 at it.
    """
    safe = np.where(sigma > 0, sigma, 1.0)
    z = (x - mu) / (safe * _SQRT2)
    prob = 1.0 - 0.5 * (1.0 + erf(z))
    degenerate = np.where(x > mu, 0.0, np.where(x < mu, 1.0, 0.5))
    prob = np.where(sigma > 0, prob, degenerate)
    ic = np.where(prob > 0, -np.log2(np.where(prob > 0, prob, 1.0)), log_total)
    return np.where(x == 0, 0.0, ic)


# ---------------------------------------------------------------------------
# The expansion's per-item columns
# ---------------------------------------------------------------------------
def _mills_derivatives(u, order):
    """``lambda^(k)(u)`` for k < order, lambda = phi / Q the inverse Mills ratio (lambda' = lambda (lambda - u))."""
    q = 1.0 - 0.5 * (1.0 + erf(u / _SQRT2))
    lam = np.exp(-0.5 * u * u) / math.sqrt(2.0 * math.pi) / q
    poly = {(1, 0): 1.0}  # {(power of lambda, power of u): coefficient}
    lam_powers, u_powers = [np.ones_like(u)], [np.ones_like(u)]
    for _ in range(order + 1):
        lam_powers.append(lam_powers[-1] * lam)
        u_powers.append(u_powers[-1] * u)
    out = []
    for _ in range(order):
        total = np.zeros_like(u)
        for (a, b), c in poly.items():
            total += c * lam_powers[a] * u_powers[b]
        out.append(total)
        nxt = {}
        for (a, b), c in poly.items():
            for key, value in (((a + 1, b), a * c), ((a, b + 1), -a * c), ((a, b - 1), b * c)):
                if value:
                    nxt[key] = nxt.get(key, 0.0) + value
        poly = nxt
    return out


def _columns(u, h0, order):
    """Per item, ``H^(k)(u) u^j C(k, j) / k!`` for ``0 <= j <= k <= order`` (H^(0) = ``h0``), ``(n, columns)``."""
    derivatives = [h0] + [d / _LN2 for d in _mills_derivatives(u, order)]
    columns = []
    for k in range(order + 1):
        for j in range(k + 1):
            columns.append(derivatives[k] * u**j * (_comb(k, j) / float(math.factorial(k))))
    return np.stack(columns, axis=1)


def _comb(k, j):
    return math.factorial(k) // (math.factorial(j) * math.factorial(k - j))


def _shift_powers(a, c, order):
    """``a^j c^(k-j)`` per replicate, in the columns' order, ``(R, columns)``."""
    out = []
    for k in range(order + 1):
        for j in range(k + 1):
            out.append(a**j * c ** (k - j))
    return np.stack(out, axis=1)


# ---------------------------------------------------------------------------
# Sums per replicate
# ---------------------------------------------------------------------------
def _direct(x, coefficient, weights, mu, sigma, log_total, rows, chunk):
    out = np.zeros(rows.size)
    per_item = np.ndim(coefficient) > 0  # a per-item coefficient vector (hierarchical ICM-Soft's terms)
    for start in range(0, rows.size, chunk):
        r = rows[start : start + chunk]
        ic = information(x[None, :], mu[r, None], sigma[r, None], log_total[r, None])
        if per_item:
            out[start : start + chunk] = [math.fsum(row) for row in (weights[r] * (ic * coefficient)).tolist()]
            continue
        terms = weights[r] * ic
        out[start : start + chunk] = [coefficient * math.fsum(row) for row in terms.tolist()]
    return out


def _dot(columns, factors):
    """Row-wise ``sum_k columns[:, k] * factors[:, k]`` in a fixed order (the same bytes in every numpy)."""
    out = np.zeros(columns.shape[0])
    for k in range(columns.shape[1]):
        out += columns[:, k] * factors[:, k]
    return out


class _ClassPlan(object):
    """What one class's sums need that does not depend on the replicate (built once per submission).

    ``terms``: ``(x, k)`` pairs, ``x`` an ``(n,)`` weight vector and ``k`` a scalar or an ``(n,)`` per-item
    coefficient vector.  ``gold_terms`` (hierarchical ICM-Soft, :mod:`.icm_soft_tree`): ``(values, K)``, the
    class's part of ``sum_i w_i IC(G_i)`` is ``sum_m (w @ K)[m] IC(values[m])``; without it, it is the flat
    ``sum_i w_i IC(g_i)`` of the gold column itself.
    """

    def __init__(self, gold, terms, order, gold_terms=None):
        n = gold.shape[0]
        self.terms = terms
        self.values, codes = np.unique(gold, return_inverse=True)
        codes = np.asarray(codes).reshape(-1)
        self.onehot = np.zeros((n, self.values.size))
        self.onehot[np.arange(n), codes] = 1.0
        base = np.bincount(codes, minlength=self.values.size).astype(np.float64)
        self.gold_values = None
        if gold_terms is not None:  # their counts ride along with the distinct values' (one product)
            self.gold_values = np.asarray(gold_terms[0], dtype=np.float64)
            self.onehot = np.concatenate([self.onehot, np.asarray(gold_terms[1], dtype=np.float64)], axis=1)
        self.mu0 = math.fsum((base * self.values).tolist()) / n
        self.sigma0 = math.fsum((base * np.abs(self.values - self.mu0)).tolist()) / n
        self.order = order
        self.matrix, self.tails, self.reach = None, [], 0.0
        if order <= 0 or self.sigma0 == 0 or n < 2:
            self.order = 0
            return
        matrix = np.zeros((n, (order + 1) * (order + 2) // 2))
        for x, k in terms:
            u = (x - self.mu0) / self.sigma0
            smooth = (x > 0) & (u <= TAIL)
            tail = (x > 0) & (u > TAIL)
            if np.any(smooth):
                h0 = information(x[smooth], self.mu0, self.sigma0, math.log2(n))
                kk = k[smooth][:, None] if np.ndim(k) else k
                matrix[smooth] += kk * _columns(u[smooth], h0, order)
                self.reach = max(self.reach, float(np.abs(u[smooth]).max()))
            if np.any(tail):
                self.tails.append((x[tail], k[tail] if np.ndim(k) else k, np.flatnonzero(tail)))
        self.matrix = matrix

    def moments(self, counts, total):
        """``(mu, sigma, log2 N, sum_i w_i IC(c, g_i))`` per replicate from the distinct gold values' counts."""
        values = self.values
        counts, extra = counts[:, : values.size], counts[:, values.size :]
        safe_total = np.where(total > 0, total, 1.0)
        spread = np.broadcast_to(values[None, :], counts.shape)
        mu = _dot(counts, spread) / safe_total
        sigma = _dot(counts, np.abs(spread - mu[:, None])) / safe_total
        log_total = np.log2(safe_total)
        if self.gold_values is not None:
            counts, spread = extra, np.broadcast_to(self.gold_values[None, :], extra.shape)
        gold_sum = _dot(counts, information(spread, mu[:, None], sigma[:, None], log_total[:, None]))
        return mu, sigma, log_total, gold_sum

    def shift(self, mu, sigma):
        """``(a, c, largest shift)`` per replicate (the shift is infinite where the expansion does not apply)."""
        safe_sigma = np.where(sigma > 0, sigma, 1.0)
        a = self.sigma0 / safe_sigma - 1.0
        c = (self.mu0 - mu) / safe_sigma
        largest = np.where(sigma > 0, np.abs(a) * self.reach + np.abs(c), np.inf)
        return a, c, largest if self.order else np.full(mu.shape, np.inf)


class SoftICM(object):
    """Soft ICM of one system against the gold, for any resample counts (the per-class plans built once).

    Parameters
    ----------
    gold, predicted : arrays ``(n, C)`` of label weights (0 where a label is absent).
    order : the expansion's order (0: always the direct path).
    plans : the per-class plans, built elsewhere (hierarchical ICM-Soft); ``gold`` and ``predicted`` unused.
    """

    def __init__(self, gold, predicted, order=ORDER, plans=None):
        if plans is None:
            gold = np.asarray(gold, dtype=np.float64)
            predicted = np.asarray(predicted, dtype=np.float64)
            both = np.maximum(gold, predicted)
            plans = [
                _ClassPlan(gold[:, c], ((predicted[:, c], ALPHA_1), (both[:, c], -BETA)), order)
                for c in range(gold.shape[1])
            ]
        self.plans = plans
        self.onehot = np.concatenate([plan.onehot for plan in self.plans], axis=1)
        self.offsets = np.cumsum([0] + [plan.onehot.shape[1] for plan in self.plans])
        self.expanding = [j for j, plan in enumerate(self.plans) if plan.order]
        self._exact = {}

    def sums(self, weights, chunk=64):
        """``(N, sum ICM_i, sum ICM(G_i, G_i))`` per replicate, each ``(R,)``; ``weights`` is ``(R, n)``."""
        weights = np.asarray(weights, dtype=np.float64)
        r_total = weights.shape[0]
        total = weights.sum(axis=1)
        counts = weights @ self.onehot  # every class's distinct gold values at once
        out_icm = np.zeros(r_total)
        out_self = np.zeros(r_total)
        state = []
        need = np.zeros(r_total, dtype=np.intp)  # the tier every class fits in; len(TIERS): the direct path
        for j, plan in enumerate(self.plans):
            mu, sigma, log_total, gold_sum = plan.moments(counts[:, self.offsets[j] : self.offsets[j + 1]], total)
            out_icm += ALPHA_2 * gold_sum
            out_self += (ALPHA_1 + ALPHA_2 - BETA) * gold_sum
            a, c, largest = plan.shift(mu, sigma)
            state.append((mu, sigma, log_total, a, c))
            if plan.order:
                fits = np.searchsorted(
                    np.array([limit for limit, _ in TIERS]), largest
                )  # first tier with shift <= limit
                need = np.maximum(need, fits)
        if not self.expanding:
            need[:] = len(TIERS)
        tier_of = np.where(need < len(TIERS), need + 1, 0)  # 0: direct; t: tier t - 1
        for t, (_, order) in enumerate(TIERS):
            rows = np.flatnonzero(tier_of == t + 1)
            if not rows.size:
                continue
            width = (order + 1) * (order + 2) // 2
            if width not in self._exact:  # exact sums: the same bytes whatever the BLAS
                columns = np.concatenate([self.plans[j].matrix[:, :width] for j in self.expanding], axis=1)
                self._exact[width] = ExactSums(columns)
            chosen = weights if rows.size == r_total else weights[rows]
            sums = self._exact[width].block(None, lambda chosen=chosen: chosen)
            for m, j in enumerate(self.expanding):
                _, _, _, a, c = state[j]
                part = sums[:, m * width : (m + 1) * width]
                out_icm[rows] += _dot(part, _shift_powers(a[rows], c[rows], order))
        expanded = np.flatnonzero(tier_of > 0)
        direct = np.flatnonzero(tier_of == 0)
        for j, plan in enumerate(self.plans):
            mu, sigma, log_total, _, _ = state[j]
            rows = expanded if plan.order else np.arange(0)
            for x, k, items in plan.tails:
                if rows.size:
                    out_icm[rows] += _direct(x, k, weights[:, items], mu, sigma, log_total, rows, chunk)
            rest = direct if plan.order else np.arange(r_total)
            for x, k in plan.terms if rest.size else ():
                out_icm[rest] += _direct(x, k, weights, mu, sigma, log_total, rest, chunk)
        return total, out_icm, out_self


def soft_icm_sums(gold, predicted, weights, order=ORDER):
    """``SoftICM(gold, predicted, order).sums(weights)``: ``(N, sum ICM_i, sum ICM(G_i, G_i))`` per replicate."""
    return SoftICM(gold, predicted, order).sums(weights)
