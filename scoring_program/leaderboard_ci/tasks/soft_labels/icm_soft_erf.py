"""PyEvALL's information content ``IC(c, x) = -log2 Q((x - mu) / sigma)`` on arrays, bit for bit (ICM-Soft).

``Q = 1 - 0.5 (1 + erf(z / sqrt 2))`` as PyEvALL evaluates it (Python's ``statistics.NormalDist``), erf by a
Taylor series about the multiples of 1/32 with ``+`` and ``*`` only (the same bytes in every numpy), within two
ulps of ``math.erf``; in the tail (``3 < z / sqrt 2 < 6``) ``1 - erfc``, erfc by its own series, so that the tail
probability, which keeps only the bits of erf near 1, rounds as with ``math.erf``.  Used by :mod:`.icm_soft`
(the direct path and the expansion's columns).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["erf", "information"]

_SQRT2 = math.sqrt(2.0)

# ---------------------------------------------------------------------------
# erf, vectorized, within two ulps of math.erf
# ---------------------------------------------------------------------------
_STEP = 1.0 / 32.0
_DEGREE = 11
_LIMIT = 6.0  # |x| >= 6: erf is +-1 in float64 (math.erf(6.0) == 1.0)
_TAIL_FROM = 3.0  # x > 3 (Q below 1.1e-5, where 1 - Phi keeps few digits): 1 - erfc, erfc to a few ulps


def _taylor_table(function, start):
    """Taylor coefficients of ``function`` (erf or erfc) about the multiples of 1/32 from ``start`` to 6.

    ``erf^(k+1)(a) = 2/sqrt(pi) (-1)^k H_k(a) exp(-a^2)`` (``H`` the physicists' Hermite polynomials), and
    erfc's derivatives are their negatives; the coefficients are divided by ``k!``.
    """
    centres = np.arange(start, _LIMIT + _STEP, _STEP)
    table = np.zeros((_DEGREE + 1, centres.size))
    sign = 1.0 if function is math.erf else -1.0
    scale = 2.0 / math.sqrt(math.pi)
    for j, a in enumerate(centres):
        table[0, j] = function(a)
        h_prev, h = 0.0, 1.0
        factorial = 1.0
        for k in range(_DEGREE):
            factorial *= k + 1
            table[k + 1, j] = sign * scale * (-1.0) ** k * h * math.exp(-a * a) / factorial
            h_prev, h = h, 2.0 * a * h - 2.0 * k * h_prev
    return centres, table


_TABLES = {}


def _horner(x, function, start):
    """``function`` (erf or erfc) of ``x`` (values in ``[start, 6]``) by the Taylor table; + and * only.

    ``c_D h`` then ``(acc + c_k) h`` down to ``c_0 + acc``: Horner's operations in Horner's order, in place,
    each coefficient taken from its own contiguous row of the table.
    """
    if function not in _TABLES:
        _TABLES[function] = _taylor_table(function, start)
    centres, table = _TABLES[function]
    j = np.rint((x - start) / _STEP).astype(np.intp)
    h = x - centres[j]
    acc = table[_DEGREE].take(j)
    acc *= h
    for k in range(_DEGREE - 1, 0, -1):
        acc += table[k].take(j)
        acc *= h
    return table[0].take(j) + acc


def erf(x):
    """``erf`` of an array, within two ulps of ``math.erf``, with ``+`` and ``*`` only (the same bytes in every numpy).

    A Taylor series about the nearest multiple of 1/32 (``-6 < x <= 3``).  ``3 < x < 6``: ``1 - erfc(x)``, erfc by
    its own Taylor series (accurate to a few ulps *of erfc*), so that PyEvALL's tail probability
    ``1 - (1 + erf) / 2``, which keeps only the bits of ``erf`` near 1, comes out as with ``math.erf``: both
    round ``1 - erfc`` to the nearest double, and differ only where ``1 - erfc`` lies within a few ulps of erfc
    of a rounding midpoint (near x = 3, a relative change of the tail probability below 1e-11).
    ``|x| >= 6``: +-1, as ``math.erf``.
    """
    x = np.asarray(x, dtype=np.float64)
    ax = np.minimum(np.abs(x), _LIMIT)
    tail = (x > _TAIL_FROM) & (x < _LIMIT)
    if np.any(tail):  # each value by one of the two series
        out = np.empty(x.shape)
        rest = ~tail
        out[rest] = _horner(ax[rest], math.erf, 0.0)
        out[tail] = 1.0 - _horner(x[tail], math.erfc, _TAIL_FROM)
    else:
        out = _horner(ax, math.erf, 0.0)
    out = np.where(ax >= _LIMIT, 1.0, out)
    return np.where(x < 0, -out, out)


def information(x, mu, sigma, log_total):
    """``IC(c, x)`` for weights ``x`` against ``mu``, ``sigma`` (broadcast), PyEvALL's rules.

    sigma = 0 (every gold weight of the class equal): PyEvALL's NormalDist
    raises; here the tail probability is 0 above the common value (``log2 N``),
    1 below it and 1/2 at it.
    """
    x, mu, sigma, log_total = np.broadcast_arrays(*[np.asarray(v, dtype=np.float64) for v in (x, mu, sigma, log_total)])
    degenerate = sigma <= 0
    safe = np.where(degenerate, 1.0, sigma) if degenerate.any() else sigma
    z = (x - mu) / (safe * _SQRT2)
    prob = np.where(z > 0, 0.0, 1.0)  # |z| >= 6: erf is +-1, the probability 0 or 1 (most of a rare class's tail)
    middle = np.abs(z) < _LIMIT
    if middle.any():
        prob[middle] = 1.0 - 0.5 * (1.0 + erf(z[middle]))
    if degenerate.any():
        prob = np.where(degenerate, np.where(x > mu, 0.0, np.where(x < mu, 1.0, 0.5)), prob)
    positive = prob > 0
    ic = np.array(log_total, dtype=np.float64)  # a tail probability of 0: log2 N
    ic[positive] = -np.log2(prob[positive])
    zero = x == 0
    if zero.any():
        ic[zero] = 0.0
    return ic


def _row_information(x, mu, sigma, log_total, needed=None):
    """``information(x[None, :], mu[:, None], sigma[:, None], log_total[:, None])`` for ``x > 0``, bit for bit.

    The same arithmetic on the ``(rows, len(x))`` grid with fewer passes: erf only where ``|z| < 6``, by the
    series of :func:`erf` without its checks (on ``(-6, 3]`` the series of ``|z|``, its sign restored, where the
    tail probability is positive; on ``(3, 6)`` erfc's series alone).  ``needed`` (a boolean grid, optional):
    the cells computed; the others hold ``log2 N`` or ``-0.0``, finite values that a weight of 0 multiplies.
    """
    if not np.all(sigma > 0):
        return information(x[None, :], mu[:, None], sigma[:, None], log_total[:, None])
    z = ((x[None, :] - mu[:, None]) / (sigma * _SQRT2)[:, None]).reshape(-1)
    ic = np.repeat(np.asarray(log_total, dtype=np.float64)[:, None], x.size, axis=1)  # z >= 6: probability 0
    flat = ic.reshape(-1)
    flat[z <= -_LIMIT] = -0.0  # probability 1: -log2(1)
    tail, middle = (z > _TAIL_FROM) & (z < _LIMIT), (z > -_LIMIT) & (z <= _TAIL_FROM)
    if needed is not None:
        tail &= needed.reshape(-1)
        middle &= needed.reshape(-1)
    where = np.flatnonzero(tail)
    if where.size:  # on (3, 6) erf is 1 - erfc (see erf): that series alone; the probability may round to 0
        prob = 1.0 - 0.5 * (1.0 + (1.0 - _horner(z[where], math.erfc, _TAIL_FROM)))
        positive = prob > 0
        flat[where[positive]] = -np.log2(prob[positive])
    where = np.flatnonzero(middle)
    if where.size:  # erf(z) = sign(z) erf(|z|) (|z| < 6); the probability is at least Q(3 sqrt 2) > 0
        z = z[where]
        value = _horner(np.abs(z), math.erf, 0.0)
        np.negative(value, out=value, where=z < 0)
        flat[where] = -np.log2(1.0 - 0.5 * (1.0 + value))
    return ic
