"""Style control: Bradley-Terry scores with style covariates, as LMArena's ``compute_style_control``.

LMArena separates a model's strength from the style of its answers (length, markdown headers,
lists, bold) by adding, to the logit of each battle, a linear term in the *style differences*
of the two answers.  For each style element ``k`` with values ``x_a`` and ``x_b`` of the two
answers (FastChat ``rating_systems.preprocess_for_style``):

    f_k = (x_a - x_b) / (x_a + x_b + 1)          (ratio = True, every element by default)
    f_k = (f_k - mean f_k) / std f_k              (over the battles; std with ddof 0)

and the parameters ``(ratings, beta)`` minimize

    - sum over battles [ y log s(z) + (1 - y) log(1 - s(z)) ]  +  reg / 2 * |(ratings, beta)|^2
    z = ln(BASE) (r_a - r_b) + f . beta

with ``y`` 1, 1/2 or 0 (A wins, a tie of either kind, B wins) and ``reg = 0.5`` (FastChat's
``fit_contextual_bt``: the penalty ``half_reg * |params|^2`` with ``half_reg = reg / 2``, whose
gradient is ``reg * params``; the penalty also makes the scores sum to zero).  The scores are
``SCALE * r + INIT_RATING``.

The fit is Newton's method (the penalized log-likelihood is strictly concave); bootstrap
replicates are given as per-battle weights (resample counts), fitted together with the full
sample's Hessian as the step matrix (:func:`fit_style_control`).  This module is the numerics;
the task's per-submission path does not use it yet (see ``docs/tasks/preference.md``).
"""

from __future__ import annotations

import math

import numpy as np

from .preference_fit import BASE, INIT_RATING, SCALE

__all__ = ["style_features", "fit_style_control", "StyleFit"]

REG = 0.5
MAX_ITER = 200
TOLERANCE = 1e-10


def style_features(values_a, values_b, ratio=None, add_one=True):
    """LMArena's standardized style differences ``(n, K)`` from the elements of the two answers.

    Parameters
    ----------
    values_a, values_b : array ``(n, K)``
        The style elements (token count, headers, lists, bold...) of answer A and of answer B.
    ratio : sequence of bool ``(K,)``, optional
        Elements whose difference is divided by ``x_a + x_b (+ 1)`` (default: all, as LMArena).
    add_one : bool
        Add one to the sums (LMArena's default).
    """
    a = np.asarray(values_a, dtype=np.float64)
    b = np.asarray(values_b, dtype=np.float64)
    if a.ndim != 2 or a.shape != b.shape:
        raise ValueError("values_a and values_b must be (n, K) arrays of one shape, got %s and %s" % (a.shape, b.shape))
    diff = a - b
    total = a + b + (1.0 if add_one else 0.0)
    use = np.ones(a.shape[1], dtype=bool) if ratio is None else np.asarray(ratio, dtype=bool)
    diff[:, use] = diff[:, use] / total[:, use]
    std = diff.std(axis=0)
    if np.any(std == 0):
        raise ValueError("a style element has the same difference in every battle; it cannot be standardized")
    return (diff - diff.mean(axis=0)) / std


class StyleFit(object):
    """Scores and style coefficients of a style-controlled fit.

    Attributes
    ----------
    elo : ndarray ``(m,)`` or ``(R, m)``
    beta : ndarray ``(K,)`` or ``(R, K)``
        The style coefficients (logit per standard deviation of each feature).
    converged : bool or ndarray of bool ``(R,)``
    """

    def __init__(self, elo, beta, converged):
        self.elo = elo
        self.beta = beta
        self.converged = converged


def _design(model_a, model_b, features, n_models, alpha):
    n = features.shape[0]
    x = np.zeros((n, n_models + features.shape[1]))
    rows = np.arange(n)
    x[rows, model_a] = alpha
    x[rows, model_b] = -alpha
    x[:, n_models:] = features
    return x


def fit_style_control(model_a, model_b, outcome, features, n_models, weights=None, reg=REG, base=BASE):
    """Style-controlled Bradley-Terry scores on the Elo scale, on the battles or on weighted replicates.

    Parameters
    ----------
    model_a, model_b : array of int ``(n,)``
    outcome : array of int ``(n,)``
        Outcome codes as :data:`~.preference_fit.OUTCOMES` (0 A wins, 1 B wins, 2 and 3 ties).
    features : array ``(n, K)``
        :func:`style_features` of the battles.
    n_models : int
    weights : array ``(R, n)``, optional
        Per-battle weights of R replicates (bootstrap resample counts); default: the battles once.
    reg : float
        LMArena's ``reg`` (0.5): the penalty is ``reg / 2`` times the squared norm of all parameters.

    Returns
    -------
    StyleFit
    """
    a = np.asarray(model_a, dtype=np.intp)
    b = np.asarray(model_b, dtype=np.intp)
    o = np.asarray(outcome, dtype=np.intp)
    f = np.asarray(features, dtype=np.float64)
    if not (a.shape == b.shape == o.shape == (f.shape[0],)) or f.ndim != 2:
        raise ValueError("model_a, model_b, outcome (n,) and features (n, K) must describe the same battles")
    y = np.where(o == 0, 1.0, np.where(o == 1, 0.0, 0.5))
    x = _design(a, b, f, n_models, math.log(base))
    d = x.shape[1]
    penalty = float(reg)  # the gradient of reg/2 |params|^2
    single = weights is None
    w = np.ones((1, a.shape[0])) if single else np.atleast_2d(np.asarray(weights, dtype=np.float64))
    if w.shape[1] != a.shape[0]:
        raise ValueError("weights must have one column per battle (%d), got %d" % (a.shape[0], w.shape[1]))
    # The full sample's maximum (Newton), then its Hessian as the step matrix of every replicate.
    params = np.zeros(d)
    for _ in range(MAX_ITER):
        p = 1.0 / (1.0 + np.exp(-np.dot(x, params)))
        grad = np.dot(x.T, y - p) - penalty * params
        hess = np.dot(x.T * (p * (1.0 - p)), x) + penalty * np.eye(d)
        step = np.linalg.solve(hess, grad)
        params += step
        if np.abs(step).max() <= TOLERANCE:
            break
    if single:
        return StyleFit(
            SCALE * params[:n_models] + INIT_RATING, params[n_models:], bool(np.abs(step).max() <= TOLERANCE)
        )
    inverse = np.linalg.inv(hess)
    theta = np.tile(params, (w.shape[0], 1))
    active = np.ones(w.shape[0], dtype=bool)
    for _ in range(MAX_ITER):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        p = 1.0 / (1.0 + np.exp(-np.dot(theta[idx], x.T)))  # (R', n)
        grad = np.dot(w[idx] * (y - p), x) - penalty * theta[idx]
        step = np.dot(grad, inverse.T)
        theta[idx] += step
        active[idx[np.abs(step).max(axis=1) <= TOLERANCE]] = False
    return StyleFit(SCALE * theta[:, :n_models] + INIT_RATING, theta[:, n_models:], ~active)
