"""The end of phase in blocks of systems gives the single-process result, for every task type.

* the planner: a budget gives the block size it promises, and too small a budget is one sentence;
* every sample competition (every task type) analysed with a tiny memory budget that forces
  at least 8 blocks, on a Dask cluster whose workers read the submissions themselves, equals
  the threaded run (report.json, every number);
* regression and the permutation test through the Python API, in blocks of one system;
* a real cluster started from the command line (``dask scheduler``, two ``dask worker``).
"""

import glob
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile

import numpy as np
import pytest
import yaml

from leaderboard_ci.cli import end_of_phase as cli
from leaderboard_ci.phase.analysis import Execution, analyze
from leaderboard_ci.phase.analysis import blocked as blocked_module
from leaderboard_ci.phase.analysis.blocked import SystemSource, plan_phase
from leaderboard_ci.phase.execution import budget
from leaderboard_ci.phase.ingestion.submissions import find_submissions
from leaderboard_ci.scoring.config import load_config
from leaderboard_ci.scoring.errors import ConfigError
from leaderboard_ci.scoring.readers import read_gold

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
PROGRAM = os.path.join(ROOT, "scoring_program")
EXAMPLES = [os.path.join(ROOT, "competition_bundle")] + sorted(
    d
    for d in glob.glob(os.path.join(ROOT, "examples", "*"))
    if os.path.isdir(os.path.join(d, "reference_data")) and glob.glob(os.path.join(d, "sample_submissions", "*.zip"))
)
FAKE_RSS = 80 * 10**6
B = 120


def _phase(example, tmp, copies=9, samples=None):
    """A fast reference (B small) and a folder of >= ``copies`` submissions (of the first ``samples``
    sample submissions) plus one broken one."""
    ref = str(tmp / "ref")
    shutil.copytree(os.path.join(example, "reference_data"), ref)
    path = os.path.join(ref, "config.yaml")
    with open(path, encoding="utf-8") as handle:
        data = yaml.safe_load(handle) or {}
    data.setdefault("bootstrap", {})["n_resamples"] = B
    with open(path, "w", encoding="utf-8") as handle:
        yaml.safe_dump(data, handle)
    subs = tmp / "subs"
    subs.mkdir()
    samples = sorted(glob.glob(os.path.join(example, "sample_submissions", "*.zip")))[:samples]
    for k in range(max(copies, len(samples))):
        shutil.copy(
            samples[k % len(samples)], str(subs / ("%02d_%s" % (k, os.path.basename(samples[k % len(samples)]))))
        )
    (subs / "99_broken.zip").write_bytes(b"not a zip at all")  # refused when unpacking, on the client
    with zipfile.ZipFile(samples[0]) as good, zipfile.ZipFile(str(subs / "98_garbled.zip"), "w") as bad:
        for info in good.infolist():  # the same files, unreadable: refused where its block is read
            bad.writestr(info.filename, "" if info.is_dir() else "id,label\n\x00\x01 not a prediction\n")
    return ref, str(subs)


def _numbers(out):
    with open(os.path.join(out, "report.json"), encoding="utf-8") as handle:
        data = json.load(handle)
    data.pop("signature")
    return data


def _tiny_budget(ref, subs, tmp, block_size=1):
    """The worker budget that makes the planner choose ``block_size`` systems per block."""
    config = load_config(PROGRAM, ref)
    gold = read_gold(ref, config)
    entries, _ = find_submissions(subs, str(tmp / "probe"))
    plan = plan_phase(config, gold, [SystemSource(e.name, entry=e) for e in entries])
    cost = plan.blocks.budget_for(2) - plan.blocks.budget_for(1)
    return plan.blocks.budget_for(block_size) + cost // 2


def test_the_budget_gives_the_promised_block_size():
    for per_system in (10**3, 10**6, 3 * 10**7):
        for item_tests in (False, True):
            probe = budget.plan_blocks(500, 10**4, 1000, 3, per_system, 10**8, item_tests=item_tests)
            for size in (1, 7, 40, 500):
                plan = budget.plan_blocks(
                    500, 10**4, 1000, 3, per_system, 10**8, worker_budget=probe.budget_for(size), item_tests=item_tests
                )
                assert plan.n_blocks == -(-500 // size) and plan.worker_peak <= probe.budget_for(size)


def test_too_small_a_budget_is_one_sentence():
    with pytest.raises(
        ConfigError,
        match=r"^--memory-limit 100 MB is too small: one system needs about .* give "
        r"at least [0-9.]+ [MG]B$",
    ):
        budget.plan_blocks(10, 10**6, 1000, 1, 10**9, 9 * 10**7, worker_budget=10**8)
    for text in ("2 apples", "-1GB", "", "1e3"):
        with pytest.raises(ConfigError, match="--memory-limit must"):
            budget.parse_memory(text)
    assert budget.parse_memory("2GB") == 2 * 10**9 and budget.parse_memory("1 GiB") == 2**30


@pytest.fixture(scope="module")
def cluster():
    pytest.importorskip("distributed")
    from dask.distributed import LocalCluster

    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        host="127.0.0.1",
        memory_limit="1.5GB",
    ) as local:
        yield local.scheduler_address


def assert_same_result(one, other):
    """Every table, note and indicator of two PhaseResults is equal."""
    assert list(one.targets) == list(other.targets) and one.names == other.names
    for key, target in one.targets.items():
        twin = other.targets[key]
        for attr in ("systems", "vs_winner", "pairs", "gains"):
            frame = getattr(target, attr)
            assert (frame is None and getattr(twin, attr) is None) or frame.equals(getattr(twin, attr)), (key, attr)
        assert target.notes == twin.notes and target.indicators == twin.indicators, key
        # The max-t step-down and the rank sets run on the client, which holds every replicate score:
        # p_maxt, fw_low/fw_high and the rank-set columns are in the frames compared above.
        for column in ("p_maxt", "fw_low", "fw_high"):
            assert column in target.pairs.columns and column in target.vs_winner.columns, (key, column)
        for column in ("rank_set_low", "rank_set_high", "rank_set_marginal_low", "rank_set_marginal_high"):
            assert column in target.systems.columns, (key, column)
        assert (target.family_note, target.critical_value) == (twin.family_note, twin.critical_value), key
        values = getattr(target, "unit_values", None)
        assert (values is None and getattr(twin, "unit_values", None) is None) or values.equals(twin.unit_values), key
        assert target.replicates.tobytes() == twin.replicates.tobytes(), key
    for attr in ("units", "group_gaps", "skipped"):
        frame = getattr(one, attr)
        assert (frame is None and getattr(other, attr) is None) or frame.equals(getattr(other, attr)), attr


#: The examples whose run in blocks on a cluster stays in the default run: one per way a system is read and
#: resampled (a classification table, clustered QA answers, a ranking run file). Every other example runs in
#: the slow selection (python3 -m pytest -m slow): 10-45 s each on two cores, the same code path as these.
FAST_IN_BLOCKS = ("competition_bundle", "qa", "ranking")


@pytest.mark.parametrize(
    "example",
    [e if os.path.basename(e) in FAST_IN_BLOCKS else pytest.param(e, marks=pytest.mark.slow) for e in EXAMPLES],
    ids=[os.path.basename(e) for e in EXAMPLES],
)
def test_blocks_on_a_cluster_equal_one_process(example, tmp_path, cluster, monkeypatch):
    """Tiny budget, >= 8 blocks, submissions read on the workers; the threaded run as the reference."""
    from leaderboard_ci.phase.analysis.blocked import analyze_blocks
    from leaderboard_ci.phase.execution.runners import DaskRunner
    from leaderboard_ci.phase.ingestion.submissions import load_systems
    from leaderboard_ci.scoring.readers import read_baseline

    ref, subs = _phase(example, tmp_path)
    config = load_config(PROGRAM, ref)
    gold = read_gold(ref, config)
    coded, skipped, _ = load_systems(subs, config, gold, str(tmp_path / "threaded"))
    baseline = config.baseline.name if config.baseline is not None else None
    if baseline is not None:
        coded[baseline] = read_baseline(ref, config, gold)
    threaded = analyze(gold, coded, config=config, baseline=baseline, skipped=skipped, execution=Execution(n_jobs=2))

    monkeypatch.setattr(blocked_module, "process_rss", lambda: FAKE_RSS)
    entries, skipped = find_submissions(subs, str(tmp_path / "blocked"))
    sources = [SystemSource(e.name, entry=e) for e in entries]
    if baseline is not None:
        sources.append(SystemSource(baseline, baseline_dir=ref))
    measured = blocked_module.measure_system_bytes(blocked_module.RunContext("probe", config, gold), sources)
    assert measured[0] > 0 and measured[2]
    monkeypatch.setattr(blocked_module, "measure_system_bytes", lambda *args: measured)  # one measurement for both
    probe = plan_phase(config, gold, sources).blocks
    tiny = probe.budget_for(1) + (probe.budget_for(2) - probe.budget_for(1)) // 2
    runner = DaskRunner(cluster)
    try:
        plan = plan_phase(config, gold, sources, workers=runner.workers, worker_budget=tiny)
        assert plan.blocks.n_blocks >= 8 and plan.blocks.block_size == 1, plan.describe()
        assert plan.blocks.worker_peak <= tiny
        result = analyze_blocks(config, gold, sources, plan, runner, baseline=baseline, skipped=skipped)
    finally:
        runner.close()
    skipped_names = list(result.skipped["submission"])
    assert any("broken" in name for name in skipped_names) and any("garbled" in name for name in skipped_names)
    assert_same_result(threaded, result)


@pytest.mark.slow  # fast representative: test_blocks_on_a_cluster_equal_one_process (the same numbers in blocks)
def test_the_command_line_in_blocks_writes_the_same_report(tmp_path):
    """--memory-limit through scripts' entry point: the printed plan, the same report.json."""
    ref, subs = _phase(os.path.join(ROOT, "competition_bundle"), tmp_path, copies=3, samples=3)
    plain, blocked = str(tmp_path / "plain"), str(tmp_path / "blocked")
    assert (
        cli.main(["--reference", ref, "--submissions", subs, "--out", plain, "--no-progress", "--figure-files", "none"])
        == 0
    )
    printed = io.StringIO()
    cli.run(
        cli.make_parser().parse_args(
            [
                "--reference",
                ref,
                "--submissions",
                subs,
                "--out",
                blocked,
                "--no-progress",
                "--figure-files",
                "none",
                "--memory-limit",
                "20GB",
                "--block-size",
                "2",
            ]
        ),
        stdout=printed,
    )
    assert re.search(
        r"Plan: 5 systems in 3 blocks of up to 2, %d replicates in span of %d, 1 worker; "
        r"3 scoring \+ 6 pair tasks\.\nEstimated peak: [0-9.]+ [MG]B per worker \(budget 20 GB\)" % (B, B),
        printed.getvalue(),
    ), printed.getvalue()
    assert _numbers(blocked) == _numbers(plain)


def _regression_inputs(rng, n=400, m=9):
    y = rng.normal(size=n) * 5
    groups = np.where(rng.random(n) < 0.5, "en", "es")
    systems = {
        "r%d" % j: y + rng.normal(size=n) * (1 + j) + (rng.standard_t(3, size=n) if j % 3 == 0 else 0) for j in range(m)
    }
    return y, systems, groups


@pytest.mark.parametrize("test", ["bootstrap", "permutation"])
def test_regression_and_permutation_in_blocks_of_one(test):
    rng = np.random.default_rng(5)
    y, systems, groups = _regression_inputs(rng)
    settings = dict(
        metric="mae",
        extra_metrics=["rmse"],
        groups=groups,
        n_resamples=200,
        baseline="r8",
        test=test,
        n_permutations=150,
    )
    one = analyze(list(y), systems, **settings)
    blocked = analyze(list(y), systems, execution=Execution(block_size=1), **settings)
    for key, target in one.targets.items():
        other = blocked.targets[key]
        for attr in ("systems", "vs_winner", "pairs", "gains"):
            assert getattr(target, attr).equals(getattr(other, attr)), (key, attr)
        assert target.notes == other.notes and target.indicators == other.indicators
        assert target.replicates.tobytes() == other.replicates.tobytes()
    assert one.group_gaps.equals(blocked.group_gaps)


def test_bca_in_blocks_is_refused_with_a_reason():
    rng = np.random.default_rng(1)
    y, systems, _ = _regression_inputs(rng, n=50, m=3)
    with pytest.raises(ConfigError, match="bca is not available with --memory-limit"):
        analyze(list(y), systems, metric="mae", method="bca", n_resamples=50, execution=Execution(block_size=1))


def _wait_for(path, seconds=60):
    end = time.time() + seconds
    while time.time() < end:
        if os.path.exists(path) and os.path.getsize(path) > 0:
            return
        time.sleep(0.2)
    raise AssertionError("%s did not appear" % path)


@pytest.mark.slow  # fast representative: test_blocks_on_a_cluster_equal_one_process (an in-process cluster)
def test_a_cluster_started_from_the_command_line(tmp_path):
    """``dask scheduler`` and two ``dask worker`` processes, then ``python -m leaderboard_ci.cli.end_of_phase`` on them.

    The workers run in a folder of their own and the command is given relative paths (from another
    folder): every path is resolved on the client, so the report equals the threaded one.
    """
    pytest.importorskip("distributed")
    dask_cli = shutil.which("dask")
    if dask_cli is None:
        pytest.skip("the dask command is not installed")
    ref, subs = _phase(os.path.join(ROOT, "competition_bundle"), tmp_path, copies=5, samples=5)
    scheduler_file = str(tmp_path / "scheduler.json")
    workers_dir = tmp_path / "workers"
    workers_dir.mkdir()
    env = dict(os.environ, PYTHONPATH=PROGRAM + os.pathsep + os.environ.get("PYTHONPATH", ""))
    processes = [
        subprocess.Popen(
            [
                dask_cli,
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                scheduler_file,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
    ]
    try:
        _wait_for(scheduler_file)
        for _ in range(2):
            processes.append(
                subprocess.Popen(
                    [
                        dask_cli,
                        "worker",
                        "--scheduler-file",
                        scheduler_file,
                        "--nthreads",
                        "1",
                        "--memory-limit",
                        "1GB",
                        "--no-dashboard",
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    env=env,
                    cwd=str(workers_dir),
                )
            )
        with open(scheduler_file, encoding="utf-8") as handle:
            address = json.load(handle)["address"]
        from dask.distributed import Client

        with Client(address, timeout="60s") as client:
            client.wait_for_workers(2, timeout=120)
        command = [sys.executable, "-m", "leaderboard_ci.cli.end_of_phase"]  # this checkout's, through PYTHONPATH
        threaded, distributed = str(tmp_path / "threaded"), str(tmp_path / "distributed")
        run = subprocess.run(
            command
            + ["--reference", ref, "--submissions", subs, "--out", threaded, "--no-progress", "--figure-files", "none"],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
        assert run.returncode == 0, run.stderr
        run = subprocess.run(
            command
            + [
                "--reference",
                os.path.relpath(ref, str(tmp_path)),
                "--submissions",
                os.path.relpath(subs, str(tmp_path)),
                "--out",
                "distributed",
                "--no-progress",
                "--figure-files",
                "none",
                "--dask",
                address,
                "--block-size",
                "2",
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
            cwd=str(tmp_path),
        )
        assert run.returncode == 0, run.stderr
        assert "2 workers" in run.stdout and "in 4 blocks of up to 2" in run.stdout, run.stdout
        assert _numbers(distributed) == _numbers(threaded)
    finally:
        for process in processes[::-1]:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
