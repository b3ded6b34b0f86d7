"""What a process keeps between the tasks of one run: the one worker cache of the local and Dask runners.

A task (scoring a block, a pair of blocks, a span of replicates) rebuilds its
inputs from what it was sent (a block's sources, a plan's recipe) once per
process; the result is kept here, under the run's token, for the run's next
tasks in the same process.  Starting another run drops the previous run's
entries, and each run says how many entries it keeps (a block pair: two).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

__all__ = ["WorkerCache", "CACHE"]


class WorkerCache:
    """Entries keyed by ``(run token, key)``, least recently used dropped first."""

    def __init__(self):
        self._entries = OrderedDict()
        self._lock = threading.Lock()

    def get(self, token, key, build, keep=1):
        """The entry ``key`` of run ``token``, built by ``build()`` on first use; at most ``keep`` are kept."""
        full_key = (token, key)
        with self._lock:
            value = self._entries.get(full_key)
            if value is not None:
                self._entries.move_to_end(full_key)
                return value
            for old in [k for k in self._entries if k[0] != token]:
                del self._entries[old]  # another run's entries
            while len(self._entries) >= keep:
                self._entries.popitem(last=False)
            value = build()
            self._entries[full_key] = value
            return value

    def drop(self, token, key):
        """Drop one entry (its last task is done)."""
        with self._lock:
            self._entries.pop((token, key), None)

    def clear(self):
        """Drop every entry (the end of a run in this process)."""
        with self._lock:
            self._entries.clear()

    def __len__(self):
        return len(self._entries)


#: The cache of this process (a Dask worker's, or the client's for a local run).
CACHE = WorkerCache()
