"""The execution model: one Execution object, one path (plan -> runner -> blocks), frozen results.

Where and how the work runs never changes a number: the in-memory run (one block on the
local runner), blocks of any size and the deprecated keywords give the same result.
"""

import dataclasses
import warnings

import numpy as np
import pytest

from leaderboard_ci.phase import Execution, analyze
from leaderboard_ci.phase.execution.worker_cache import CACHE, WorkerCache


def _case(m=5, n=120, seed=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    systems = {"s%d" % j: np.where(rng.random(n) < 0.5 + 0.1 * j, y, rng.integers(0, 3, n)).tolist() for j in range(m)}
    return y.tolist(), systems


def _numbers(result):
    t = result.official
    return (
        t.systems[["name", "score", "ci_low", "ci_high"]].to_numpy().tolist(),
        t.pairs[["a", "b", "diff", "ci_low", "ci_high", "p_value"]].to_numpy().tolist(),
    )


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_execution_never_changes_the_numbers(method):
    gold, systems = _case()
    base = analyze(gold, systems, metric="accuracy", n_resamples=60, method=method, execution=Execution(n_jobs=1))
    threads = analyze(gold, systems, metric="accuracy", n_resamples=60, method=method, execution=Execution(n_jobs=2))
    assert _numbers(threads) == _numbers(base)
    if method != "bca":  # bca needs every system's jackknife in one block
        blocks = analyze(gold, systems, metric="accuracy", n_resamples=60, execution=Execution(block_size=2))
        assert _numbers(blocks) == _numbers(base)


def test_former_keywords_warn_and_agree():
    gold, systems = _case()
    new = analyze(gold, systems, metric="f1_macro", n_resamples=40, execution=Execution(n_jobs=1))
    with pytest.warns(DeprecationWarning, match="execution=Execution"):
        old = analyze(gold, systems, metric="f1_macro", n_resamples=40, n_jobs=1)
    assert _numbers(old) == _numbers(new)
    with pytest.raises(TypeError, match="not both"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        analyze(gold, systems, metric="f1_macro", n_jobs=1, execution=Execution())
    with pytest.raises(TypeError, match="Execution\\(dask="):
        analyze(gold, systems, metric="f1_macro", executor=lambda plan, spans: None)


def test_execution_is_checked_and_frozen():
    with pytest.raises(ValueError, match="n_jobs"):
        Execution(n_jobs=0)
    with pytest.raises(ValueError, match="block_size"):
        Execution(block_size=0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        Execution().n_jobs = 2


@pytest.mark.parametrize("block_size, expected", [(None, 30 + 1), (2, 3 * 30 + 6)])
def test_progress_counts_replicates_and_block_pairs(block_size, expected):
    """In this process: the replicates scored in every block, and 1 per block pair (6 systems in 3 blocks: 6)."""
    gold, systems = _case(m=6)
    seen = []
    analyze(
        gold,
        systems,
        metric="accuracy",
        n_resamples=30,
        execution=Execution(n_jobs=2, block_size=block_size, progress=seen.append),
    )
    assert sum(seen) == expected


def test_results_are_frozen():
    gold, systems = _case()
    result = analyze(gold, systems, metric="accuracy", n_resamples=30, execution=Execution(n_jobs=1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.baseline = "s0"
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.official.winner = "s0"


def test_one_worker_cache_keeps_one_run():
    cache = WorkerCache()
    built = []
    for key in ("a", "b", "a"):
        cache.get("run1", key, lambda key=key: built.append(key) or key, keep=2)
    assert built == ["a", "b"] and len(cache) == 2
    cache.get("run2", "plan", lambda: "p", keep=1)  # another run drops the first run's entries
    assert len(cache) == 1
    cache.drop("run2", "plan")
    assert len(cache) == 0
    gold, systems = _case()
    analyze(gold, systems, metric="accuracy", n_resamples=30, execution=Execution(n_jobs=1))
    assert len(CACHE) == 0  # a local run leaves nothing behind
