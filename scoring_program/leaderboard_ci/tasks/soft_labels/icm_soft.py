"""ICM-Soft over resamples: PyEvALL's soft information content re-estimated in every replicate.

``IC(c, x) = -log2 Q((x - mu_c) / sigma_c)`` for a weight ``x > 0`` of class
``c`` (0 for ``x = 0``), ``Q = 1 - Phi`` evaluated as PyEvALL evaluates it
(``1 - 0.5 * (1 + erf(z / sqrt 2))``, Python's ``statistics.NormalDist``), a
``Q`` that rounds to 0 giving ``log2 N``; ``mu_c`` and ``sigma_c`` are the mean
and the mean absolute deviation of the gold's weights of ``c`` in the
replicate (see :mod:`.icm`).

A system's sum is ``sum_t sum_i k_ti w_i IC(c, x_ti)`` over its *terms*
``(x_t, k_t)`` per class (``k`` a scalar or one coefficient per item).  Two
exact-to-rounding paths give it for a replicate:

* **direct**: every item's ``IC`` under the replicate's ``(mu, sigma)``
  (items with equal ``(x, k)`` evaluated once);
* **expansion**: with ``u_i`` the item's standardized weight under the full
  sample's ``(mu0, sigma0)``, the replicate's is ``u_i + a u_i + c`` with
  ``a = sigma0 / sigma - 1`` and ``c = (mu0 - mu) / sigma``, small for large
  ``n``; a Taylor expansion of ``H(z) = -log2 Q(z)`` of order ``K`` in that
  shift turns the sum into ``sum_{k<=K, j<=k} a^j c^(k-j) S_kj`` with
  ``S_kj = sum_i w_i H^(k)(u_i) u_i^j C(k, j) / k!``: one matrix product of the
  resample counts with the per-item columns.

**The order of a replicate** is the smallest ``K`` (from :data:`MIN_ORDER`)
whose Lagrange remainder bound ``D_(K+1) s^(K+1)`` is at most
:data:`TOLERANCE` bits per item and unit coefficient, where ``s = |a| r + |c|``
is the largest shift of an item (``r`` bounds ``|u|`` of the expanded items:
``max(TAIL, mu0 / sigma0)``) and ``D_k`` is twice the largest
``|H^(k)| / k!`` over ``[-r - MAX_SHIFT, TAIL + MAX_SHIFT]`` (a grid of step
1/64).  It depends on the gold and the replicate only, so every system of a
phase takes the same order in a replicate.  Replicates that shift more than
:data:`MAX_SHIFT`, or need more than the plan's order, take the direct path;
so do items far in the tail (``u > TAIL``, where PyEvALL's rounding of ``Q``
matters) in every replicate.  At ``n = 10**4`` the order is 4 to 8, mostly 5 or 6.

**Exact sums.** Column sums are integer-valued fixed-point sums (below
``2**52``, so exact whatever BLAS does, the same bytes in every numpy): the
order-0 column in two parts (:func:`~..core.accumulators.split_fixed_point`),
the others (multiplied by ``s^k``, ``s`` at most 0.2) rounded to
``52 - bitlength(N)`` bits of their largest value (at most
``M_kj 2**-(53 - bitlength(N)) s^k`` per item and column, ``M_kj`` the
column's largest value: a few 1e-11 bits at ``n = 10**4`` and ``s = 0.2`` if
every item rounded the same way; measured, 7e-13 with the remainder).  The
sums do not depend on
which other columns, systems or replicates share the product, so the
end-of-phase batch (:class:`SoftICMBatch`) equals the per-submission path bit
for bit.

**Products.** A block of replicates takes one wide product with the gold's
counting columns and every class's columns up to its *cut* order (the order
that minimizes the columns multiplied on average, from a pilot of the gold's
multinomial counts), and, per class, one narrow product of the few rows that
need more with that class's columns above the cut (:class:`_Stack`); the
direct path evaluates ``IC`` on the ``(rows, groups)`` grid with erf only
where it is not 0 or 1 (:func:`_row_information`).
"""

from __future__ import annotations

import math

import numpy as np

from ...core.accumulators import _combine, split_fixed_point
from ..shared.icm import ALPHA_1, ALPHA_2, BETA
from .icm_soft_erf import (  # noqa: F401  (_DEGREE, _LIMIT, _STEP, _TABLES, _TAIL_FROM, _horner: the tests' view)
    _DEGREE,
    _LIMIT,
    _SQRT2,
    _STEP,
    _TABLES,
    _TAIL_FROM,
    _horner,
    _row_information,
    erf,
    information,
)

__all__ = ["erf", "information", "SoftICM", "SoftICMBatch", "soft_icm_sums", "ORDER", "MAX_SHIFT", "TAIL"]

#: The largest order of the expansion (the columns a plan builds); 0 is always the direct path.
ORDER = 10
#: The smallest order a replicate takes.
MIN_ORDER = 3
#: Replicates whose items shift more than this (in gold standard deviations) take the direct path.
MAX_SHIFT = 0.2
#: Items standardized above this take the direct path (PyEvALL's rounding of small tail probabilities).
TAIL = 4.0
#: Bound on the expansion's remainder, bits per item and unit of coefficient (PyEvALL's flat ICM-Soft has
#: coefficients alpha_1 = 2 and -beta = -3 per item: at most 2.5e-11 bits per item).
TOLERANCE = 5e-12
_GRID = 1.0 / 64.0
#: Pilot replicates that choose a class's cut order (:meth:`_GoldClass.usual_order`).
PILOT = 256
#: The cost of a column in the second, narrow product relative to one in the block's wide product.
NARROW = 3.0
#: A class whose columns are non-zero on at most this share of the items multiplies those items only (:class:`_Stack`).
SPARSE = 0.5
_WIDE = 4  # a product with this many times more columns than rows is computed columns-first
_LN2 = math.log(2.0)


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


def _levels(u, h0, order):
    """Per item and order ``k``, the columns ``H^(k)(u) u^j C(k, j) / k!`` for ``j <= k``: ``[(n,), (n, 2), ...]``."""
    derivatives = _mills_derivatives(u, order)
    powers = np.empty((u.shape[0], order + 1))
    powers[:, 0] = 1.0
    for j in range(1, order + 1):
        powers[:, j] = powers[:, j - 1] * u
    out = [h0]
    for k in range(1, order + 1):
        scale = np.array([_comb(k, j) / (float(math.factorial(k)) * _LN2) for j in range(k + 1)])
        out.append(derivatives[k - 1][:, None] * powers[:, : k + 1] * scale[None, :])
    return out


def _comb(k, j):
    return math.factorial(k) // (math.factorial(j) * math.factorial(k - j))


def _rounded(values, total):
    """``values`` (n, F) rounded to integers times ``2**e`` per column, so that weighted sums stay exact.

    With ``b = 52 - bitlength(total)`` and ``M < 2**E`` the column's largest
    magnitude, ``rint(v * 2**(b - E))`` has magnitude at most ``2**b``: a sum
    with non-negative integer weights totalling at most ``total`` stays below
    ``2**52``.  Returns ``(integers, exponents)``.
    """
    bits = 52 - int(total).bit_length()
    top = np.max(np.abs(values), axis=0) if values.shape[0] else np.zeros(values.shape[1])
    _, e = np.frexp(top)  # top < 2**e (e = 0 for a column of zeros)
    e = e.astype(np.int64)
    return np.rint(_scaled(values, bits - e)), e - bits


def _scaled(values, exponents):
    """``np.ldexp(values, exponents[None, :])``: one multiplication by ``2**e`` where every ``2**e`` is a normal
    double (both are the correctly rounded ``v 2**e``, so the same bits; numpy's ldexp is several times slower)."""
    exponents = np.asarray(exponents)
    if exponents.size and (int(exponents.min()) < -1022 or int(exponents.max()) > 1023):
        return np.ldexp(values, exponents[None, :])
    return values * np.ldexp(1.0, exponents)[None, :]


# ---------------------------------------------------------------------------
# The gold side of a class (shared by every system scored against that gold)
# ---------------------------------------------------------------------------
def _with_columns(matrix, more):
    """``(matrix with the columns of more that it lacks appended, where each column of more is)``.

    A hierarchy's gold terms of a node are often its distinct gold weights themselves (every item's ``IC(G)``
    term at the node is its own gold weight, coefficient 1): their counts are already in the product, and a
    column counted twice gives the same integers, so it is multiplied once.
    """
    known, where, extra = {}, [], []
    for q in range(matrix.shape[1]):  # columns by their bytes: linear in the columns (bytes equal: values equal)
        known.setdefault(np.ascontiguousarray(matrix[:, q]).tobytes(), q)
    for m in range(more.shape[1]):
        column = np.ascontiguousarray(more[:, m])
        key = column.tobytes()
        if key not in known:
            known[key] = matrix.shape[1] + len(extra)
            extra.append(column[:, None])
        where.append(known[key])
    return np.concatenate([matrix] + extra, axis=1), np.array(where, dtype=np.intp)


class _GoldClass(object):
    """One class's distinct gold weights, full-sample ``(mu0, sigma0)`` and the remainder bounds ``D_k``.

    ``gold_terms`` (hierarchical ICM-Soft, :mod:`.icm_soft_tree`): ``(values, K)``, the class's part of
    ``sum_i w_i IC(G_i)`` is ``sum_m (w @ K)[m] IC(values[m])``; without it, it is the flat ``sum_i w_i IC(g_i)``
    of the gold column itself.
    """

    def __init__(self, gold, order, gold_terms=None):
        gold = np.asarray(gold, dtype=np.float64)
        n = gold.shape[0]
        self.n = n
        self.values, codes = np.unique(gold, return_inverse=True)
        codes = np.asarray(codes).reshape(-1)
        self.onehot = np.zeros((n, self.values.size))
        self.onehot[np.arange(n), codes] = 1.0
        self.gold_values = self.term_columns = None
        if gold_terms is not None:  # their counts ride along with the distinct values' (one product)
            self.gold_values = np.asarray(gold_terms[0], dtype=np.float64)
            self.onehot, self.term_columns = _with_columns(self.onehot, np.asarray(gold_terms[1], dtype=np.float64))
        base = np.bincount(codes, minlength=self.values.size).astype(np.float64)
        self.base = base
        self._usual = None
        self.mu0 = math.fsum((base * self.values).tolist()) / n if n else 0.0
        self.sigma0 = math.fsum((base * np.abs(self.values - self.mu0)).tolist()) / n if n else 0.0
        self.order = int(order) if order > 0 and self.sigma0 > 0 and n >= 2 else 0
        self.reach = max(TAIL, self.mu0 / self.sigma0) if self.order else 0.0
        self.bounds = np.zeros(0)
        if self.order:
            grid = np.arange(-self.reach - MAX_SHIFT, TAIL + MAX_SHIFT + _GRID, _GRID)
            derivatives = _mills_derivatives(grid, self.order + 1)  # H^(k) = lambda^(k-1) / ln 2
            self.bounds = np.array(
                [0.0]
                + [2.0 * float(np.max(np.abs(d))) / _LN2 / math.factorial(k + 1) for k, d in enumerate(derivatives)]
            )

    def usual_order(self):
        """The cut of :class:`_Stack`: the order that minimizes the columns a replicate multiplies, on average.

        Estimated on :data:`PILOT` replicates of the gold's distinct values (multinomial counts, a fixed seed),
        with each column above the cut counted :data:`NARROW` times (a second, narrow product); speed only.
        """
        if self._usual is None:
            self._usual = 0
            if self.order:
                counts = np.random.RandomState(0).multinomial(self.n, self.base / self.n, size=PILOT)
                mu = counts @ self.values / self.n
                sigma = (counts * np.abs(self.values[None, :] - mu[:, None])).sum(axis=1) / self.n
                orders = self.orders(mu, sigma)[2]
                width = np.array([(k + 1) * (k + 2) // 2 + 1 for k in range(self.order + 1)])
                cost = [
                    width[q] + NARROW * np.mean(np.where(orders > q, width[orders] - width[q], 0))
                    for q in range(self.order + 1)
                ]
                self._usual = max(1, int(np.argmin(cost)))
        return self._usual

    def moments(self, counts, total):
        """``(mu, sigma, log2 N, sum_i w_i IC(c, g_i))`` per replicate from the distinct gold values' counts."""
        mu, sigma, log_total, (weights, values) = self.parts(counts, total)
        spread = np.broadcast_to(values[None, :], weights.shape)
        gold_sum = _dot(weights, information(spread, mu[:, None], sigma[:, None], log_total[:, None]))
        return mu, sigma, log_total, gold_sum

    def parts(self, counts, total):
        """``(mu, sigma, log2 N, (weights, values))``: :meth:`moments` before ``IC`` (``sum_m weights[:, m]
        IC(values[m])`` is the gold's sum), so that many classes' ``IC`` take one call (:class:`_GoldState`)."""
        values = self.values
        counts, extra = counts[:, : values.size], counts[:, values.size :]
        safe_total = np.where(total > 0, total, 1.0)
        spread = np.broadcast_to(values[None, :], counts.shape)
        mu = _dot(counts, spread) / safe_total
        sigma = _dot(counts, np.abs(spread - mu[:, None])) / safe_total
        log_total = np.log2(safe_total)
        if self.gold_values is not None:
            extra = np.concatenate([counts, extra], axis=1)[:, self.term_columns]  # a term's column may be a value's
            return mu, sigma, log_total, (extra, self.gold_values)
        return mu, sigma, log_total, (counts, values)

    def orders(self, mu, sigma):
        """``(a, c, order)`` per replicate: the shift's parts and the order it needs (0: the direct path)."""
        safe_sigma = np.where(sigma > 0, sigma, 1.0)
        a = self.sigma0 / safe_sigma - 1.0
        c = (self.mu0 - mu) / safe_sigma
        order = np.zeros(mu.shape, dtype=np.intp)
        if not self.order:
            return a, c, order
        shift = np.where((sigma > 0) & np.isfinite(a) & np.isfinite(c), np.abs(a) * self.reach + np.abs(c), np.inf)
        fits = shift <= MAX_SHIFT
        step = np.where(fits, shift, 0.0).reshape(-1)
        # s^(k+1) in column k by repeated multiplication (accumulate multiplies left to right: the loop's bits)
        powers = np.multiply.accumulate(np.repeat(step[:, None], self.order + 1, axis=1), axis=1)
        ks = np.arange(MIN_ORDER, self.order + 1)
        ok = self.bounds[ks + 1][None, :] * powers[:, ks] <= TOLERANCE  # the Lagrange bound D_(k+1) s^(k+1)
        lowest = MIN_ORDER + np.argmax(ok, axis=1)  # the smallest order whose bound holds
        order = np.where(fits.reshape(-1) & ok.any(axis=1), lowest, 0).astype(np.intp).reshape(mu.shape)
        return a, c, order


class _GoldState(object):
    """What every system's sums need from one block of replicates: totals, per-class moments, the orders.

    ``class_orders[j]`` is class ``j``'s order in each replicate (0: the direct path for that class alone),
    ``order`` the largest over the classes (0: no class expands), the width of the replicate's product.
    """

    def __init__(self, golds, weights, counts=None):
        self.golds = list(golds)
        if counts is None:  # exact: integer-valued
            counts = _product(weights, np.concatenate([g.onehot for g in golds], axis=1))
        offsets = np.cumsum([0] + [g.onehot.shape[1] for g in golds])  # distinct values, then any gold terms
        self.total = counts[:, : golds[0].values.size].sum(axis=1) if golds else weights.sum(axis=1)  # exact
        self.classes = []
        self.class_orders = []
        self.order = np.zeros(weights.shape[0], dtype=np.intp)
        self.gold_sum = np.zeros(weights.shape[0])
        parts = [g.parts(counts[:, offsets[j] : offsets[j + 1]], self.total) for j, g in enumerate(golds)]
        if parts:  # every class's IC(gold values) in one call: the same numbers element by element, fewer calls
            widths = [values.size for _, _, _, (_, values) in parts]
            x = np.concatenate([np.broadcast_to(values[None, :], w.shape) for _, _, _, (w, values) in parts], axis=1)
            mu, sigma, log_total = [
                np.repeat(np.stack([p[k] for p in parts], axis=1), widths, axis=1) for k in range(3)
            ]
            ic = information(x, mu, sigma, log_total)
            ends = np.cumsum([0] + widths)
        for j, g in enumerate(golds):
            mu, sigma, log_total, (weights_j, _) = parts[j]
            gold_sum = _dot(weights_j, ic[:, ends[j] : ends[j + 1]])
            a, c, order = g.orders(mu, sigma)
            self.classes.append((mu, sigma, log_total, a, c))
            self.class_orders.append(order)
            self.gold_sum += gold_sum
            self.order = np.maximum(self.order, order)


# ---------------------------------------------------------------------------
# Direct sums over groups of equal (x, k)
# ---------------------------------------------------------------------------
class _Groups(object):
    """Items' terms ``(x, k)`` (``k`` non-zero) grouped by equal weight ``x``: ``IC(x)`` once per replicate."""

    def __init__(self, x, k, items):
        items = np.asarray(items, dtype=np.intp)
        order = np.lexsort((items, x))  # by x, then item; an item's terms of one weight have their k added
        x, items, k = x[order], items[order], np.asarray(k, dtype=np.float64)[order]
        first = np.flatnonzero(np.r_[True, (np.diff(x) != 0) | (np.diff(items) != 0)])
        k = np.add.reduceat(k, first) if first.size else k
        keep = k != 0
        x, self.items, self.coefficients = x[first][keep], items[first][keep], k[keep]
        self.starts = np.flatnonzero(np.r_[True, np.diff(x) != 0]) if x.size else np.zeros(0, dtype=np.intp)
        self.x = x[self.starts]
        self.gathered = self.items  # the items whose columns a block's sums take, group by group
        self.whole = self.items.size == self.x.size  # every group one item: no sum within groups

    def sums(self, weights, rows, mu, sigma, log_total, gathered=None):
        """``sum_v (sum_{i in v} k_i w_i) IC(x_v)`` per row of ``weights[rows]`` (None: every row), groups in order.

        ``gathered``: ``weights.take(self.gathered, axis=1)`` if already taken (:func:`_tail_columns`), else None.

        With integer coefficients (PyEvALL's ``alpha_1 = 2``, ``beta = 3`` and the hierarchy's integer
        combinations of them) a group's ``sum k_i w_i`` is exact.  Each row's sum is its own (added group by group,
        never a pairwise or BLAS sum), so it does not depend on the other rows of the block: the block
        size and the batch change no bit.
        """
        if rows is not None and rows.size == 0:
            return np.zeros(0)
        every = rows is None or 2 * rows.size >= weights.shape[0]  # most rows: columns taken, rows picked after
        if not self.x.size:
            return np.zeros(weights.shape[0] if rows is None else rows.size)
        if gathered is not None:
            gathered = gathered if every else gathered[rows]
        else:
            gathered = (weights if every else weights[rows]).take(self.gathered, axis=1)  # 1.6x faster than [:, i]
        grouped = gathered * self.coefficients[None, :]
        if not self.whole:  # each group's terms added left to right, its items in order
            grouped = np.add.reduceat(grouped, self.starts, axis=1)
        if every and rows is not None:
            grouped = grouped[rows]  # each row's sums are its own: the other rows change no bit
        terms = grouped * _row_information(self.x, mu, sigma, log_total, grouped != 0)  # 0 * IC: 0
        # left to right (accumulate adds one group at a time: the same bytes in every numpy); + 0.0 as a sum
        # started at 0.0 would give it (-0.0 when every term is -0.0)
        return np.add.accumulate(terms, axis=1)[:, -1] + 0.0


def _groups(terms, mask_of):
    """``_Groups`` of the items ``mask_of(x)`` selects, over every term, or None."""
    xs, ks, items = [], [], []
    for x, k in terms:
        keep = mask_of(x) & (k != 0)
        xs.append(x[keep])
        ks.append(k[keep])
        items.append(np.flatnonzero(keep))
    if not sum(v.size for v in xs):
        return None
    return _Groups(np.concatenate(xs), np.concatenate(ks), np.concatenate(items))


# ---------------------------------------------------------------------------
# A class of one system
# ---------------------------------------------------------------------------
class _ClassPlan(object):
    """What one class's sums need that does not depend on the replicate (built once per submission).

    Parameters
    ----------
    gold_column : (n,) gold weights of the class.
    terms : iterable of ``(x, k)``: ``x`` an (n,) weight vector, ``k`` a scalar or an (n,) coefficient per item;
        the class contributes ``sum_i w_i k_i IC(x_i)``.
    order : the expansion's largest order (0: always the direct path; with ``gold`` given, any other value
        takes the gold's order).
    gold : the class's :class:`_GoldClass`, shared between systems (built from ``gold_column`` if None).
    """

    def __init__(self, gold_column, terms, order, gold=None):
        self.gold = gold if gold is not None else _GoldClass(gold_column, order)
        g = self.gold
        n = g.n
        self.terms = [
            (np.asarray(x, dtype=np.float64).reshape(n), np.broadcast_to(np.asarray(k, dtype=np.float64), (n,)))
            for x, k in terms
        ]
        self.order = g.order if order > 0 else 0  # the gold's order: every plan of a replicate takes the same
        self._everything = None
        self.levels, self.tails, self._fixed = None, None, None
        if not self.order:
            return
        log_n = math.log2(n)

        def smooth_of(x):
            u = (x - g.mu0) / g.sigma0
            return (x != 0) & (u <= TAIL) & (np.abs(u) <= g.reach)

        # each order's columns in an array of its own (contiguous: the rounding's passes read nothing else)
        levels = [np.zeros(n)] + [np.zeros((n, k + 1)) for k in range(1, self.order + 1)]
        for x, k in self.terms:
            smooth = np.flatnonzero(smooth_of(x) & (k != 0))
            if smooth.size:
                u = (x[smooth] - g.mu0) / g.sigma0
                h0 = information(x[smooth], g.mu0, g.sigma0, log_n)
                factor = k[smooth]
                for level, part in zip(levels, _levels(u, h0, self.order)):
                    level[smooth] += part * (factor if part.ndim == 1 else factor[:, None])
        self.levels = levels
        self.tails = _groups(self.terms, lambda x: (x != 0) & ~smooth_of(x))

    def fixed(self, total):
        """Per order, the columns as integers and their exponents (order 0 in two parts), computed once.

        The float columns are dropped then (a phase holds every system's plans): one ``total`` per plan.
        """
        if self._fixed is not None and self._fixed[0] != total:
            raise ValueError("a plan's columns are rounded for one total weight, %d, not %d" % (self._fixed[0], total))
        if self._fixed is None:
            parts = []
            for k, level in enumerate(self.levels):
                if k == 0:
                    hi, lo, e, _ = split_fixed_point(level, total)
                    parts.append((np.concatenate([hi, lo], axis=1), np.concatenate([e, e])))
                else:
                    parts.append(_rounded(level, total))
            self._fixed = (total, parts)
            self.levels = None
        return self._fixed[1]

    @property
    def everything(self):
        """Every item's terms in groups of equal ``(x, k)`` (the direct path; built on first use)."""
        if self._everything is None:
            self._everything = _groups(self.terms, lambda x: x != 0) or False
        return self._everything or None


class _Stack(object):
    """The fixed-point columns of many class plans, and the gold's counting columns, in two kinds of product.

    Per gold class (its plans, one per system, expand with the same order in a replicate) a *cut* order ``q``
    (:meth:`_GoldClass.usual_order`): the columns of orders up to ``q`` of every class, after the gold's
    counting columns (:class:`_GoldState`), form one matrix that every replicate of a block multiplies at
    once (one wide product, no copy of the block); the replicates of a class that need more than ``q``
    take a second, narrow product of their rows with that class's columns above ``q`` only.  A column's
    sum is exact whatever product it comes from, so neither the cut nor the block changes a number.
    """

    def __init__(self, plans, total, classes, golds):
        self.plans = list(plans)
        self.class_of = list(classes)  # each plan's gold class (its position in its system)
        self.bits = 52 - int(total).bit_length()
        self.golds = list(golds)
        head = [g.onehot for g in golds]
        self.head = sum(part.shape[1] for part in head)
        grouped = {}
        for m, (j, plan) in enumerate(zip(self.class_of, self.plans)):
            grouped.setdefault(j, []).append((m, plan))
        built = [(j,) + self._class_columns(grouped[j], total) for j in sorted(grouped)]
        # a class whose columns are 0 on most items (a rare class: x = 0 there) multiplies only the items where
        # they are not, gathered once for every such class (the sparse product); the other classes' columns
        # follow the gold's counting columns in the wide product
        sparse = [bool(np.mean(rows) <= SPARSE) for _, _, _, _, _, rows in built]
        self.items = None
        if any(sparse):
            self.items = np.flatnonzero(np.any([b[5] for b, s in zip(built, sparse) if s], axis=0))
        first, exponents = list(head), [np.zeros(self.head, dtype=np.int64)]
        wide = self.head + sum(sum(p.shape[1] for (p, _), _ in b[3]) for b, s in zip(built, sparse) if not s)
        column, sparse_column = self.head, wide
        thin, thin_exponents = [], []
        self.classes = []  # [(class, [(m, plan)], cut, spans, second (transposed), its exponents, its ends, sparse)]
        for (j, members, cut, cut_parts, later, _), is_sparse in zip(built, sparse):
            spans = [dict() for _ in members]
            for (part, exp), (i, k) in cut_parts:
                if is_sparse:
                    thin.append(part[self.items])
                    thin_exponents.append(exp)
                    spans[i][k] = (sparse_column, part.shape[1])
                    sparse_column += part.shape[1]
                else:
                    first.append(part)
                    exponents.append(exp)
                    spans[i][k] = (column, part.shape[1])
                    column += part.shape[1]
            second, second_exponents, ends = None, None, []
            if later:
                offset = 0
                for (part, _), (i, k) in later:
                    spans[i][k] = (offset, part.shape[1])
                    offset += part.shape[1]
                    if k > cut and (not ends or ends[-1][0] != k):
                        ends.append([k, offset])
                    ends[-1][1] = offset
                # stored column by column (columns x items): a block's product reads only the columns its rows need
                second = np.concatenate([part for (part, _), _ in later], axis=1).T
                second = np.ascontiguousarray(second[:, self.items] if is_sparse else second)
                second_exponents = np.concatenate([exp for (_, exp), _ in later])
            self.classes.append((j, members, cut, spans, second, second_exponents, [e for _, e in ends], is_sparse))
        self.first = np.ascontiguousarray(np.concatenate(first, axis=1))
        self.thin = np.ascontiguousarray(np.concatenate(thin, axis=1)) if thin else None
        self.exponents = np.concatenate(exponents + thin_exponents)

    @staticmethod
    def _class_columns(members, total):
        """``(members, cut, [((part, exponents), (i, k))] up to the cut, the same above it, rows)`` of a class.

        ``rows``: the items where some column of the class is not 0.
        """
        top = max(plan.order for _, plan in members)
        cut = min(top, members[0][1].gold.usual_order())
        cut_parts, later = [], []
        rows = np.zeros(members[0][1].gold.n, dtype=bool)
        for k in range(top + 1):
            for i, (_, plan) in enumerate(members):
                if k > plan.order:
                    continue
                part, exp = plan.fixed(total)[k]
                rows |= np.any(part != 0, axis=1)
                (cut_parts if k <= cut else later).append(((part, exp), (i, k)))
        return members, cut, cut_parts, later, rows

    def counts(self, weights, gathered=None):
        """``(raw, gathered)``: the block's products, the gold's counts (``raw[:, :head]``) then the columns (the
        wide product's, then the sparse product's), and the block's columns of the sparse items (or None).

        ``gathered``: ``weights.take(self.items, axis=1)`` if already taken (:func:`_gathered`).
        """
        raw = _product(weights, self.first)
        if self.thin is None:
            return raw, None
        if gathered is None:
            gathered = weights.take(self.items, axis=1)
        return np.concatenate([raw, _product(gathered, self.thin)], axis=1), gathered

    def sums(self, weights, state, raw, gathered=None):
        """``[levels (order-k sums (R, k+1) for k <= the class's largest order in the block) or None, per plan]``.

        ``raw, gathered`` are :meth:`counts` of ``weights``; ``state`` the block's :class:`_GoldState`.  Exact
        sums; a plan whose class expands on no row gets None, and the levels of a row above its class's order
        are zeros or sums that :func:`_expanded` multiplies by 0.
        """
        out = [None] * len(self.plans)
        scaled = _scaled(raw, self.exponents)
        for j, members, cut, spans, second, second_exponents, ends, is_sparse in self.classes:
            orders = state.class_orders[j]
            top = min(int(orders.max()), members[0][1].order)
            if top <= 0:
                continue
            extra = np.flatnonzero(orders > cut)
            if extra.size:
                end = ends[top - cut - 1]
                rows = (gathered if is_sparse else weights)[extra]
                later = _scaled(_product(rows, second[:end].T), second_exponents[:end])
            for i, (m, plan) in enumerate(members):
                levels = []
                for k in range(min(top, plan.order) + 1):
                    start, width = spans[i][k]
                    if k == 0:
                        levels.append(_combine(raw[:, start], raw[:, start + 1], self.exponents[start], self.bits))
                    elif k <= cut:
                        levels.append(scaled[:, start : start + width])
                    else:
                        level = np.zeros((weights.shape[0], width))
                        level[extra] = later[:, start : start + width]
                        levels.append(level)
                out[m] = levels
        return out


def _product(weights, matrix):
    """``weights @ matrix``, columns first when the matrix is much wider than the block is tall (exact either way)."""
    if matrix.shape[1] >= _WIDE * weights.shape[0]:  # columns x items x rows: OpenBLAS splits the wide side well
        return (matrix.T @ weights.T).T
    return weights @ matrix


def _expanded(levels, a, c, orders):
    """``sum_{k <= K, j <= k} S_kj a^j c^(k-j)`` per row of order ``K = orders``, in a fixed order.

    The terms above a row's order are multiplied by 0: adding the zeros leaves
    every sum as it is, so the value does not depend on the other rows.
    """
    top = len(levels) - 1
    if top < 1:
        return levels[0].copy()
    pa, pc = np.empty((a.shape[0], top + 1)), np.empty((c.shape[0], top + 1))
    pa[:, 0], pc[:, 0] = 1.0, 1.0
    for k in range(1, top + 1):
        pa[:, k] = pa[:, k - 1] * a
        pc[:, k] = pc[:, k - 1] * c
    ks, js = _expansion_terms(top)
    keep = np.where(orders[:, None] >= np.arange(1, top + 1)[None, :], 1.0, 0.0)
    factors = pa[:, js] * pc[:, ks - js] * keep[:, ks - 1]  # column (k, j): a^j c^(k-j), 0 above the row's order
    terms = np.concatenate([levels[0][:, None]] + list(levels[1:]), axis=1)
    terms[:, 1:] *= factors
    # added left to right from the order-0 sum (accumulate adds one term at a time: the loop's bytes)
    return np.add.accumulate(terms, axis=1)[:, -1]


def _expansion_terms(top):
    """``(k, j)`` of the expansion's columns, order by order: ``k = 1..top``, ``j = 0..k``."""
    ks = np.concatenate([np.full(k + 1, k) for k in range(1, top + 1)])
    js = np.concatenate([np.arange(k + 1) for k in range(1, top + 1)])
    return ks, js


def _dot(columns, factors):
    """Row-wise ``sum_k columns[:, k] * factors[:, k]`` in a fixed order (the same bytes in every numpy)."""
    out = np.zeros(columns.shape[0])
    for k in range(columns.shape[1]):
        out += columns[:, k] * factors[:, k]
    return out


# ---------------------------------------------------------------------------
# Systems
# ---------------------------------------------------------------------------
class SoftICM(object):
    """Soft ICM of one system against the gold, for any resample counts (the per-class plans built once).

    Parameters
    ----------
    gold, predicted : arrays ``(n, C)`` of label weights (0 where a label is absent).
    order : the expansion's largest order (0: always the direct path).
    total : the largest total weight of a replicate (default ``n``; a cluster bootstrap's bound).
    golds : the gold's per-class :class:`_GoldClass` (shared between systems; built if None).
    """

    def __init__(self, gold, predicted, order=ORDER, total=None, golds=None):
        gold = np.asarray(gold, dtype=np.float64)
        predicted = np.asarray(predicted, dtype=np.float64)
        both = np.maximum(gold, predicted)
        if golds is None:
            golds = [_GoldClass(gold[:, c], order) for c in range(gold.shape[1])]
        self.golds = list(golds)
        self.plans = [
            _ClassPlan(gold[:, c], ((predicted[:, c], ALPHA_1), (both[:, c], -BETA)), order, self.golds[c])
            for c in range(gold.shape[1])
        ]
        self._init(total if total is not None else gold.shape[0])

    @classmethod
    def from_plans(cls, plans, total):
        """A system from its class plans (``_ClassPlan``, e.g. a hierarchy's per-item terms)."""
        self = cls.__new__(cls)
        self.plans = list(plans)
        self.golds = [plan.gold for plan in self.plans]
        self._init(total)
        return self

    def _init(self, total):
        self.total = int(total)
        self.expanding = [plan for plan in self.plans if plan.order]
        self.expanding_classes = [j for j, plan in enumerate(self.plans) if plan.order]
        self.tails = [plan.tails for plan in self.expanding if plan.tails is not None]
        self._stack = None

    @property
    def stack(self):
        """This system's :class:`_Stack` (built on first use: a batch builds its own)."""
        if self._stack is None:
            self._stack = _Stack(self.expanding, self.total, self.expanding_classes, self.golds)
        return self._stack

    def sums(self, weights):
        """``(N, sum ICM_i, sum ICM(G_i, G_i))`` per replicate, each ``(R,)``; ``weights`` is ``(R, n)``."""
        weights = np.asarray(weights, dtype=np.float64)
        items, gathered = _gathered(self.stack, self.tails, weights)
        state, linear = _linear_sums(self.stack, weights, items)
        return self.sums_from(weights, state, linear, gathered)

    def sums_from(self, weights, state, linear, gathered=None):
        """:meth:`sums` from the block's gold state and the expansion's column sums ``(rows, sums)``.

        Class ``j`` expands on the replicates where its own order is positive and takes the direct path on
        the others (:class:`_GoldState`); its tail items always take the direct path.  ``gathered``: the tails'
        columns of ``weights`` (:func:`_tail_columns`), or None (each tail takes its own).
        """
        gathered = gathered or {}
        out_icm = ALPHA_2 * state.gold_sum
        out_self = (ALPHA_1 + ALPHA_2 - BETA) * state.gold_sum
        everywhere = np.arange(weights.shape[0])
        position = dict((id(plan), m) for m, plan in enumerate(self.expanding))
        for j, plan in enumerate(self.plans):
            mu, sigma, log_total, a, c = state.classes[j]
            rest = everywhere
            if plan.order:
                order = state.class_orders[j]
                expanded, rest = np.flatnonzero(order > 0), np.flatnonzero(order == 0)
                if expanded.size:
                    rows, sums = linear
                    levels = sums[position[id(plan)]]
                    r = None if expanded.size == weights.shape[0] else expanded  # None: every row, no copy
                    if r is not None or rows.size != weights.shape[0]:
                        at = np.searchsorted(rows, expanded)  # ``rows``: every replicate where some class expands
                        levels = [level[at] for level in levels]
                    _add(out_icm, r, _expanded(levels, _at(a, r), _at(c, r), _at(order, r)))
                    if plan.tails is not None:
                        tails = plan.tails
                        columns = gathered.get(id(tails))
                        _add(out_icm, r, tails.sums(weights, r, _at(mu, r), _at(sigma, r), _at(log_total, r), columns))
            if rest.size and plan.everything is not None:  # built on first use: only a class that takes it
                r = rest
                out_icm[r] += plan.everything.sums(weights, r, mu[r], sigma[r], log_total[r])
        return state.total, out_icm, out_self


def _at(values, rows):
    """``values[rows]``, or ``values`` itself when ``rows`` is None (every row)."""
    return values if rows is None else values[rows]


def _add(out, rows, values):
    """``out[rows] += values`` (``rows`` None: every row, in place)."""
    if rows is None:
        out += values
    else:
        out[rows] += values


def _gathered(stack, tails, weights):
    """``(the stack's sparse items' columns of weights or None, {id(groups): its items' columns})``, one take.

    The items of the sparse product (:class:`_Stack`) and of every tail (:class:`_Groups`) are spread over the
    block, which is larger than the caches: one gather of all their columns reads it once (a gather each read
    it once each); each part is a view of it.
    """
    parts = ([stack.items] if stack.items is not None else []) + [groups.gathered for groups in tails]
    if not parts:
        return None, {}
    ends = np.cumsum([0] + [part.size for part in parts])
    taken = weights.take(np.concatenate(parts), axis=1)
    views = [taken[:, ends[t] : ends[t + 1]] for t in range(len(parts))]
    items = views.pop(0) if stack.items is not None else None
    return items, dict((id(groups), view) for groups, view in zip(tails, views))


def _linear_sums(stack, weights, items=None):
    """``(state, (rows, per-plan column sums))`` of a block: its :class:`_GoldState` and exact column sums.

    One product gives the gold's counts and the columns every replicate takes (:class:`_Stack`); ``rows`` are
    every row of the block (the levels of a class that takes the direct path on a row are not read there).
    """
    raw, gathered = stack.counts(weights, items)
    state = _GoldState(stack.golds, weights, raw[:, : stack.head])
    if not stack.plans or not (state.order > 0).any():
        return state, (np.flatnonzero(state.order > 0), None)
    return state, (np.arange(weights.shape[0]), stack.sums(weights, state, raw, gathered))


class SoftICMBatch(object):
    """Many systems scored against one gold on the same replicates: the gold's part once, one product in all.

    Every system's numbers equal its own :meth:`SoftICM.sums` bit for bit (the
    same exact column sums, combined by the same code).
    """

    def __init__(self, systems):
        self.systems = list(systems)
        self.golds = self.systems[0].golds
        plans = [plan for s in self.systems for plan in s.expanding]
        classes = [j for s in self.systems for j in s.expanding_classes]
        total = max(s.total for s in self.systems)
        same = all(s.total == total for s in self.systems)
        self.stack = _Stack(plans, total, classes, self.golds) if same else None

    def sums(self, weights):
        """One ``(N, sum ICM_i, sum ICM(G_i, G_i))`` per system."""
        weights = np.asarray(weights, dtype=np.float64)
        if self.stack is None:
            return [s.sums(weights) for s in self.systems]
        items, gathered = _gathered(self.stack, [groups for s in self.systems for groups in s.tails], weights)
        state, (rows, sums) = _linear_sums(self.stack, weights, items)
        out, m = [], 0
        for s in self.systems:
            count = len(s.expanding)
            out.append(s.sums_from(weights, state, (rows, None if sums is None else sums[m : m + count]), gathered))
            m += count
        return out


def soft_icm_sums(gold, predicted, weights, order=ORDER):
    """``SoftICM(gold, predicted, order).sums(weights)``: ``(N, sum ICM_i, sum ICM(G_i, G_i))`` per replicate."""
    return SoftICM(gold, predicted, order).sums(weights)
