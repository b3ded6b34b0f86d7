"""The shake-up's first-pass counts (``phase/shakeup/scoring.py``) live as long as their pass, in every process.

:func:`~leaderboard_ci.phase.shakeup.scoring.score_all` scores every run on the first ``bias_resamples``
replicates, its blocks sharing one draw of their counts per process (a
:class:`~leaderboard_ci.core.systems.SharedCounts`, up to 128 MB).  That cache used to be module-level,
cleared only in the client: a Dask worker kept it after the run.  It is now keyed by the pass's context
and dropped with it (the worker frees the broadcast context when the client releases it).  Fast
representative: in this process; ``test_a_dask_worker_keeps_no_counts_after_the_run`` (slow) on two workers.
"""

import gc

import pytest
from test_shakeup_pipeline import _competition

from leaderboard_ci.phase.execution.runs import Execution
from leaderboard_ci.phase.shakeup import scoring, shakeup


def _run(**kwargs):
    gold, split, runs = _competition(n=300, m=4)
    return shakeup(gold, runs, split=split, metric="accuracy", n_resamples=120, seed=5, bias_resamples=40, **kwargs)


def test_the_first_pass_counts_are_shared_by_its_blocks_and_dropped_after_it(monkeypatch):
    made = []
    original = scoring._first_pass_counts

    def recorded(context):
        counts = original(context)
        made.append(counts)
        return counts

    monkeypatch.setattr(scoring, "_first_pass_counts", recorded)
    result = _run(block_size=2)
    gc.collect()
    assert scoring._FIRST_PASS_COUNTS == {}, "the first pass's counts outlived the pass"
    assert len(made) > 1 and all(counts is made[0] for counts in made), "blocks of one pass share one cache"
    assert made[0]._table, "the blocks drew their counts through the cache"
    monkeypatch.undo()
    assert _run(block_size=50).to_json() == result.to_json()  # the block size changes no number


@pytest.mark.slow  # a LocalCluster takes seconds to start (fast representative: the test above)
def test_a_dask_worker_keeps_no_counts_after_the_run():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = distributed.Client(cluster)
    try:
        spread = _run(block_size=2, execution=Execution(dask=client))
        gc.collect()
        left = client.run(lambda: (__import__("gc").collect(), len(scoring._FIRST_PASS_COUNTS))[1])
        assert sorted(left.values()) == [0, 0], left
        assert spread.to_json() == _run(block_size=2).to_json()
    finally:
        client.close()
        cluster.close()
