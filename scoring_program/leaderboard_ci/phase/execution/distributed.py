"""Run the bootstrap of the end-of-phase analysis on a Dask cluster.

The unit of work is a span of replicate numbers (:meth:`PairedPlan.scores_for_span`),
whose resamples depend only on (seed, span): any worker computes the same
numbers, so the result equals the single-process run bit for bit.

* The inputs (configuration, encoded gold and predictions) are scattered to
  every worker **once**; each worker builds its :class:`PairedPlan` once and
  keeps it for all its tasks.
* Each task returns a ``(span, m, T)`` array of replicate scores; the client
  concatenates them in span order.
* Inside a task BLAS runs single-threaded; parallelism comes from workers.

Dask is an optional extra: ``pip install .[dask]``.  Custom metrics need the
scoring program folder at the same path on the workers.
"""

from __future__ import annotations

import hashlib

import numpy as np

from ...core.parallel import single_threaded_blas
from .runners import DaskRunner
from .worker_cache import CACHE

__all__ = ["dask_executor", "span_scores"]


def _token(recipe):
    """A digest of a plan's recipe: the same analysis gets the same token."""
    function, (config, gold, predictions, names) = recipe
    digest = hashlib.sha256()
    digest.update(repr((function.__module__, function.__name__, config, names)).encode("utf-8"))
    digest.update(np.ascontiguousarray(gold.values).tobytes())
    for codes in (gold.clusters, gold.strata):  # the resampling design (bootstrap.cluster / strata)
        digest.update(b"-" if codes is None else np.ascontiguousarray(codes).tobytes())
    for p in predictions:
        digest.update(np.ascontiguousarray(p).tobytes())
    return digest.hexdigest()


def span_scores(payload, token, start, stop):
    """Replicate scores of one span, on a worker (the plan is built once per worker, in its cache)."""
    function, args = payload
    plan = CACHE.get(token, "plan", lambda: function(*args), keep=1)
    with single_threaded_blas():
        return plan.scores_for_span(start, stop)


def dask_executor(address, n_workers=None, timeout="30s"):
    """An executor for :func:`leaderboard_ci.core.systems.paired_scores`.

    Parameters
    ----------
    address : str
        A scheduler address (``tcp://host:8786``) or ``"local"`` to start a
        ``LocalCluster`` (one single-threaded worker process per core).
    n_workers : int, optional
        Workers of the local cluster (default: the available cores).
    timeout : str
        How long to wait for a remote scheduler.
    """
    DaskRunner.check_installed()

    def execute(plan, spans):
        runner = DaskRunner(address, n_workers=n_workers, timeout=timeout)
        client = runner.client
        try:
            if plan.recipe is None:
                raise ValueError(
                    "a plan without a recipe cannot be rebuilt on workers (build it with "
                    "leaderboard_ci.phase.analysis.systems.build_plan)"
                )
            payload = client.scatter(plan.recipe, broadcast=True)
            token = _token(plan.recipe)
            futures = [client.submit(span_scores, payload, token, a, b, pure=False) for a, b in spans]
            return client.gather(futures)
        finally:
            runner.close()

    return execute
