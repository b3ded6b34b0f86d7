"""Dask scale-out gives the same numbers as one process; a clear message without Dask."""

import builtins

import numpy as np
import pytest

from leaderboard_ci.phase.analysis.systems import score_systems
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.errors import ConfigError
from leaderboard_ci.tasks.shared.scorer import GoldStandard


def _inputs():
    rng = np.random.default_rng(0)
    n, m = 600, 6
    y = rng.integers(0, 3, n)
    groups = rng.integers(0, 2, n)
    preds = [np.where(rng.random(n) < q, y, rng.integers(0, 3, n)) for q in np.linspace(0.5, 0.9, m)]
    gold = GoldStandard(values=y, labels=tuple("abc"), groups=groups, group_values=("en", "es"))
    cfg = parse_config(
        {"metric": "f1_macro", "extra_metrics": ["accuracy"], "groups": "lang", "bootstrap": {"n_resamples": 700}}
    )
    return cfg, gold, preds, ["s%d" % j for j in range(m)]


def test_local_cluster_gives_identical_results():
    pytest.importorskip("distributed")
    from leaderboard_ci.phase.execution.distributed import dask_executor

    cfg, gold, preds, names = _inputs()
    single = score_systems(cfg, gold, preds, names, n_jobs=1)
    spread = score_systems(cfg, gold, preds, names, executor=dask_executor("local", n_workers=2))
    assert spread.replicates.tobytes() == single.replicates.tobytes()
    assert spread.full.tobytes() == single.full.tobytes()


def test_threads_give_identical_results():
    cfg, gold, preds, names = _inputs()
    one = score_systems(cfg, gold, preds, names, n_jobs=1)
    for jobs in (2, 5):
        assert score_systems(cfg, gold, preds, names, n_jobs=jobs).replicates.tobytes() == one.replicates.tobytes()


def test_without_dask_the_flag_says_how_to_install(monkeypatch):
    real_import = builtins.__import__

    def no_dask(name, *args, **kwargs):
        if name.startswith("dask") or name.startswith("distributed"):
            raise ImportError("No module named %r" % name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    from leaderboard_ci.phase.execution.distributed import dask_executor

    with pytest.raises(ConfigError, match=r"pip install '\.\[dask\]'"):
        dask_executor("local")


def test_unreachable_scheduler_is_an_organizer_error():
    pytest.importorskip("distributed")
    from leaderboard_ci.phase.execution.distributed import dask_executor

    cfg, gold, preds, names = _inputs()
    with pytest.raises(ConfigError, match="cannot reach the Dask scheduler"):
        score_systems(cfg, gold, preds, names, executor=dask_executor("tcp://127.0.0.1:1", timeout="2s"))


def test_analyze_on_a_given_client_leaves_it_open():
    """Execution(dask=client): the blocks run on the caller's cluster, numbers as in one process."""
    pytest.importorskip("distributed")
    from dask.distributed import Client, LocalCluster

    from leaderboard_ci.phase import Execution, analyze

    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 150)
    systems = {
        "s%d" % j: np.where(rng.random(150) < 0.5 + 0.1 * j, y, rng.integers(0, 3, 150)).tolist() for j in range(4)
    }
    local = analyze(y.tolist(), systems, metric="accuracy", n_resamples=50, execution=Execution(n_jobs=1))
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, Client(
        cluster
    ) as client:
        remote = analyze(y.tolist(), systems, metric="accuracy", n_resamples=50, execution=Execution(dask=client))
        assert client.status == "running"
    for a, b in ((local.official.systems, remote.official.systems), (local.official.pairs, remote.official.pairs)):
        assert a.to_csv() == b.to_csv()
