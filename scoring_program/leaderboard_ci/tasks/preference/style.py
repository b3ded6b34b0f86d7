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

from .fit import BASE, INIT_RATING, SCALE

__all__ = ["style_features", "fit_style_control", "StyleFit", "StyleModel"]

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


class StyleModel(object):
    """The battles, their style features and the full sample's fit, ready for replicates.

    Parameters are those of :func:`fit_style_control`.  ``params`` holds the full sample's
    ``(ratings, beta)`` and ``inverse`` the inverse of its penalized Hessian, the step matrix of
    every replicate's iterations (:meth:`replicates`).
    """

    def __init__(self, model_a, model_b, outcome, features, n_models, reg=REG, base=BASE):
        a = np.asarray(model_a, dtype=np.intp)
        b = np.asarray(model_b, dtype=np.intp)
        o = np.asarray(outcome, dtype=np.intp)
        f = np.asarray(features, dtype=np.float64)
        if f.ndim != 2 or not (a.shape == b.shape == o.shape == (f.shape[0],)):
            raise ValueError("model_a, model_b, outcome (n,) and features (n, K) must describe the same battles")
        self.n_models = int(n_models)
        self.y = np.where(o == 0, 1.0, np.where(o == 1, 0.0, 0.5))
        self.x = _design(a, b, f, self.n_models, math.log(base))
        self.penalty = float(reg)  # the gradient of reg/2 |params|^2
        d = self.x.shape[1]
        params = np.zeros(d)
        for _ in range(MAX_ITER):
            p = 1.0 / (1.0 + np.exp(-np.dot(self.x, params)))
            grad = np.dot(self.x.T, self.y - p) - self.penalty * params
            hess = np.dot(self.x.T * (p * (1.0 - p)), self.x) + self.penalty * np.eye(d)
            step = np.linalg.solve(hess, grad)
            params += step
            if np.abs(step).max() <= TOLERANCE:
                break
        self.converged = bool(np.abs(step).max() <= TOLERANCE)
        self.params = _rounded(params)
        self.inverse = np.linalg.inv(hess)

    def full(self):
        """:class:`StyleFit` of the battles."""
        return self._fit(self.params, self.converged)

    def replicates(self, weights):
        """:class:`StyleFit` of R replicates given as per-battle weights ``(R, n)``."""
        w = np.atleast_2d(np.asarray(weights, dtype=np.float64))
        if w.shape[1] != self.y.shape[0]:
            raise ValueError("weights must have one column per battle (%d), got %d" % (self.y.shape[0], w.shape[1]))
        theta = np.tile(self.params, (w.shape[0], 1))
        active = np.ones(w.shape[0], dtype=bool)
        for _ in range(MAX_ITER):
            idx = np.flatnonzero(active)
            if idx.size == 0:
                break
            p = 1.0 / (1.0 + np.exp(-np.dot(theta[idx], self.x.T)))  # (R', n)
            grad = np.dot(w[idx] * (self.y - p), self.x) - self.penalty * theta[idx]
            step = np.dot(grad, self.inverse.T)
            theta[idx] += step
            active[idx[np.abs(step).max(axis=1) <= TOLERANCE]] = False
        return self._fit(_rounded(theta), ~active)

    def _fit(self, params, converged):
        m = self.n_models
        return StyleFit(SCALE * params[..., :m] + INIT_RATING, params[..., m:], converged)


def _rounded(params):
    """Multiples of 2**-32, as :mod:`.preference_fit` rounds (the same bytes from every numpy build)."""
    return np.round(params * 2.0**32) / 2.0**32


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
        Newton's method on the battles; each replicate then iterates from the full sample's
        parameters with the full sample's Hessian as step matrix, to a step below 1e-10.
    """
    model = StyleModel(model_a, model_b, outcome, features, n_models, reg, base)
    return model.full() if weights is None else model.replicates(weights)
