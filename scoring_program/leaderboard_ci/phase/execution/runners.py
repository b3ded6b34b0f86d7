"""Where the block tasks of :mod:`leaderboard_ci.phase.analysis.blocked` run: here, or on a Dask cluster.

A runner has ``workers``, ``worker_memory`` (bytes or None), ``in_process`` (whether its
tasks run in this process), ``share(obj)`` (send once to every worker), ``put(obj)`` (send
once, to be used by several tasks), ``run(function, calls)`` (yield ``(index, result)`` as
tasks finish) and ``close()``.  Results never depend on the runner.
"""

from __future__ import annotations

from ...core.parallel import available_cpus
from ...scoring.errors import ConfigError
from .worker_cache import CACHE

__all__ = ["LocalRunner", "DaskRunner", "DASK_PAUSE", "DASK_BUDGET"]

#: Dask's default fraction of a worker's memory limit at which it pauses the worker.
DASK_PAUSE = 0.8
#: The default budget, as a fraction of the workers' memory limit (below the pause).
DASK_BUDGET = 0.75


class LocalRunner:
    """Runs the tasks one after the other in this process (each task uses threads inside)."""

    workers = 1
    worker_memory = None
    address = "this process"
    in_process = True

    def share(self, obj):
        return obj

    def put(self, obj):
        return obj

    def run(self, function, calls):
        for index, args in enumerate(calls):
            yield index, function(*args)

    def close(self):
        """Drop every block this process kept (the run is over)."""
        CACHE.clear()


class DaskRunner:
    """Runs the tasks on a Dask cluster: ``"local"`` starts a LocalCluster, else a scheduler address.

    Parameters
    ----------
    address : str or ``dask.distributed.Client``
        ``tcp://host:8786``, ``"local"``, or a connected Client (left open by :meth:`close`).
    n_workers : int, optional
        Workers of a local cluster (default: the available cores), one thread each.
    memory_limit : int, optional
        The budget per worker of a local cluster, in bytes: the workers' Dask
        limit is set to ``memory_limit / 0.8`` so that Dask's pause (80%) lies
        above it.  On a remote cluster the budget defaults to 75% of the
        workers' own limit.
    timeout : str
        How long to wait for a remote scheduler.
    """

    in_process = False

    @staticmethod
    def check_installed():
        """Raise :class:`ConfigError` saying how to install Dask when it is missing."""
        try:
            import dask.distributed  # noqa: F401
        except ImportError:
            raise ConfigError("--dask needs Dask: pip install '.[dask]' (or pip install 'dask[distributed]')")

    def __init__(self, address, n_workers=None, memory_limit=None, timeout="30s"):
        self.check_installed()
        from dask.distributed import Client, LocalCluster

        self.cluster = None
        self.own_client = True
        if isinstance(address, Client):
            self.client = address
            self.own_client = False
            self.address = "the given Dask client (%s)" % (getattr(address.scheduler, "address", None) or "?")
        elif address == "local":
            # Dask pauses a worker at 80% of its limit and restarts it at 95%: the limit is set so
            # that our budget sits below the pause.
            self.cluster = LocalCluster(
                n_workers=n_workers or available_cpus(),
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                host="127.0.0.1",
                memory_limit=int(memory_limit / DASK_PAUSE) if memory_limit else "auto",
            )
            self.client = Client(self.cluster)
            self.address = "a local cluster"
        else:
            try:
                self.client = Client(address, timeout=timeout)
            except (OSError, TimeoutError) as exc:
                raise ConfigError("cannot reach the Dask scheduler at %s: %s" % (address, exc))
            self.address = address
        info = self.client.scheduler_info().get("workers", {})
        if not info:
            self.client.wait_for_workers(1, timeout=timeout)
            info = self.client.scheduler_info().get("workers", {})
        self.workers = max(1, len(info))
        limits = [w.get("memory_limit") or 0 for w in info.values()]
        # The default budget stays below the fraction at which Dask pauses a worker.
        self.worker_memory = int(min(limits) * DASK_BUDGET) if limits and min(limits) > 0 else None

    def share(self, obj):
        return self.client.scatter(obj, broadcast=True)

    def put(self, obj):
        return self.client.scatter(obj)

    def run(self, function, calls):
        from dask.distributed import as_completed

        futures = [self.client.submit(function, *args, pure=False) for args in calls]
        index = {future.key: i for i, future in enumerate(futures)}
        try:
            for future, result in as_completed(futures, with_results=True):
                yield index[future.key], result
                future.release()
        finally:
            for future in futures:
                future.release()

    def close(self):
        if self.own_client:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()
