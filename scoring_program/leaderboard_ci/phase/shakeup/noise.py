"""The noise model of selection: centres with the spread of the true scores, plus bootstrap noise.

The optimism of picking the best of ``k`` scores on one test set (a
participant's best of ``k`` public submissions, the winner's curse) is measured
on *worlds*:
each system gets a **centre**, a stand-in for its true score, and each world
adds one bootstrap draw of the test set's noise to the centres.

The noise of replicate ``b`` is the deviation ``D[b, j] = X[b, j] - mean_b X[., j]``
of system ``j``'s replicate score from its bootstrap mean: every system is
scored on the same resample, so the draws keep the correlation of systems that
err on the same items.  The centres cannot be the observed scores themselves:
the observed scores already carry one draw of noise, so their spread across
systems is wider than the spread of the true scores by the noise,

    E[S^2] = S_mu^2 + N,    N = E[ sum_j (e_j - mean_j e)^2 ] / (k - 1),

with ``S^2`` the variance of the ``k`` observed scores (``ddof=1``) and ``e``
the noise.  ``N`` is estimated from the replicates by the same sum over the
deviations (:func:`noise_spread`), and the centres are the observed scores
pulled toward their mean until their variance is ``max(0, S^2 - N)``
(:func:`shrunk_centres`, the method of moments of empirical Bayes; Efron 2010,
ch. 1): ``c = mean + lam (x - mean)``, ``lam = sqrt(max(0, 1 - N / S^2))``.
With systems that differ by much more than the noise ``lam`` is about 1 and
the centres are the scores; with systems of equal quality it is about 0 and
every world is pure noise around one common centre.

References
----------
Efron, B. (2010). *Large-Scale Inference*. Cambridge University Press.
Tibshirani, R. J. & Tibshirani, R. (2009). A bias correction for the minimum
error rate in cross-validation. Ann. Appl. Stat. 3(2), 822-829.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["deviations", "noise_spread", "shrunk_centres", "SelectionBias", "selection_optimism", "finite_rows"]


def finite_rows(*matrices):
    """The replicate rows (first axis) on which every given ``(B, k)`` matrix is finite."""
    keep = None
    for matrix in matrices:
        ok = np.all(np.isfinite(matrix), axis=1)
        keep = ok if keep is None else keep & ok
    return keep


def deviations(replicates):
    """``D = X - mean_b X``: each system's replicate scores around their bootstrap mean, shape ``(B, k)``."""
    x = np.asarray(replicates, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 1:
        raise ValueError("replicates must have shape (B, k) with B >= 1, got %s" % (x.shape,))
    return x - x.mean(axis=0)


def noise_spread(dev):
    """``N``: the variance that noise adds to the spread of ``k`` systems' scores (module docstring).

    ``mean_b sum_j (D[b, j] - mean_j D[b, .])^2 / (k - 1)``: the part of the noise
    shared by every system (an easier resample) moves all scores together and does
    not spread them, so it is taken out.  0 for one system.
    """
    dev = np.asarray(dev, dtype=np.float64)
    k = dev.shape[1]
    if k < 2:
        return 0.0
    centred = dev - dev.mean(axis=1, keepdims=True)
    return float(np.einsum("ij,ij->", centred, centred) / (dev.shape[0] * (k - 1)))


def _spread(full):
    full = np.asarray(full, dtype=np.float64)
    return float(np.var(full, ddof=1)) if full.size > 1 else 0.0


def shrunk_centres(full, dev):
    """``(centres, lam)``: the scores pulled toward their mean until their spread is the true one.

    ``c = mean + lam (x - mean)`` with ``lam = sqrt(max(0, 1 - N / S^2))``
    (module docstring); ``lam = 0`` when the scores do not vary.
    """
    full = np.asarray(full, dtype=np.float64)
    spread = _spread(full)
    noise = noise_spread(dev)
    lam = float(np.sqrt(max(0.0, 1.0 - noise / spread))) if spread > 0 else 0.0
    centre = float(full.mean())
    return centre + lam * (full - centre), lam


@dataclass(frozen=True)
class SelectionBias:
    """How much picking the best of ``k`` scores on one test set inflates the picked score.

    Attributes
    ----------
    optimism : float
        ``mean_b sign * D[b, j*_b]`` with ``j*_b`` the best system of world ``b``
        (:func:`selection_optimism`): the expected amount, in the metric's units and
        oriented so that positive means "looks better than it is", by which the
        picked score exceeds the picked system's true score.  0 for ``k = 1``.
    k : int
        Systems (submissions) the best was picked from.
    shrinkage : float
        ``lam`` of the centres (1: the scores differ by much more than the noise;
        0: they are equal within noise).
    n_valid : int
        Replicates used.
    """

    optimism: float
    k: int
    shrinkage: float
    n_valid: int


def selection_optimism(full, replicates, sign):
    """The bootstrap estimate of the optimism of picking the best of ``k`` systems on one test set.

    Parameters
    ----------
    full : ndarray ``(k,)``
        The systems' scores on the test set.
    replicates : ndarray ``(B, k)``
        Their replicate scores on the same resamples (rows with a non-finite value
        are left out).
    sign : {+1, -1}
        +1 when higher is better.

    Returns
    -------
    SelectionBias

    Notes
    -----
    World ``b`` is ``W[b] = c + D[b]`` (centres :func:`shrunk_centres`, deviations
    :func:`deviations`); its best system ``j*_b`` maximizes ``sign * W[b, j]``, and
    the optimism is the mean of ``sign * (W[b, j*_b] - c[j*_b]) = sign * D[b, j*_b]``:
    how much better the picked score looks than the picked system is (Tibshirani &
    Tibshirani 2009 estimate it with the observed scores as centres; the shrunk
    centres keep the estimate from shrinking to nothing when the systems are equal,
    where the observed scores' spread is noise alone).  With equal centres it is
    the expected maximum of ``k`` correlated noisy scores, ``E[max_j sign * e_j]``.
    """
    x = np.asarray(replicates, dtype=np.float64)
    full = np.asarray(full, dtype=np.float64).reshape(-1)
    if x.ndim != 2 or x.shape[1] != full.shape[0]:
        raise ValueError("replicates must have shape (B, %d), got %s" % (full.shape[0], x.shape))
    k = full.shape[0]
    x = x[finite_rows(x)]
    if k == 1 or x.shape[0] == 0:
        return SelectionBias(0.0, k, 1.0, int(x.shape[0]))
    dev = deviations(x)
    centres, lam = shrunk_centres(full, dev)
    picked = np.argmax(sign * (centres + dev), axis=1)
    optimism = float(sign * dev[np.arange(dev.shape[0]), picked].mean())
    return SelectionBias(optimism, k, lam, int(x.shape[0]))
