"""The Execution options (--jobs, --dask, --workers, blocks) are one argparse helper shared by the commands.

``end-of-phase``, ``benchmark`` and ``plan`` take them from
:func:`leaderboard_ci.cli.common.add_execution_arguments` (same names, same help)
and hand the :class:`~leaderboard_ci.phase.execution.runs.Execution` they ask
for to the analysis; a bad value is one sentence and exit code 2.
"""

import io
import os

import pytest

from leaderboard_ci.cli import benchmark as benchmark_cli
from leaderboard_ci.cli import end_of_phase as end_of_phase_cli
from leaderboard_ci.cli import plan as plan_cli
from leaderboard_ci.phase.execution.runs import Execution

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "competition_bundle", "sample_submissions")
COMMON = ("--jobs", "--dask", "--workers")
BLOCKS = ("--memory-limit", "--client-memory-limit", "--block-size")


def _options(parser):
    return {option: action for action in parser._actions for option in action.option_strings}


def test_the_three_commands_share_the_execution_options():
    phase, bench, plan = (_options(m.make_parser()) for m in (end_of_phase_cli, benchmark_cli, plan_cli))
    for option in COMMON:
        assert phase[option].help.split(";")[0] == bench[option].help.split(";")[0] == plan[option].help.split(";")[0]
        assert phase[option].default == bench[option].default == plan[option].default
    for option in BLOCKS:  # blocks of systems: the end of phase only (a test set's systems are scored together)
        assert option in phase and option not in bench and option not in plan


@pytest.mark.parametrize(
    "argv,expected",
    [
        ([], Execution()),
        (["--jobs", "2"], Execution(n_jobs=2)),
        (["--dask", "tcp://h:1", "--workers", "3", "--jobs", "4"], Execution(n_jobs=1, dask="tcp://h:1", workers=3)),
    ],
)
def test_benchmark_hands_the_analysis_the_execution_asked_for(monkeypatch, tmp_path, argv, expected):
    seen = []

    class Stop(Exception):
        pass

    def analyze(definition, execution=None):
        seen.append(execution)
        raise Stop

    monkeypatch.setattr(benchmark_cli, "load_benchmark", lambda path: type("D", (), {"tasks": ()})())
    monkeypatch.setattr(benchmark_cli, "analyze_benchmark", analyze)
    with pytest.raises(Stop):
        benchmark_cli.main(["b.yaml", "--out", str(tmp_path)] + argv, stdout=io.StringIO())
    assert seen == [expected]


def test_plan_pilots_give_the_same_plan_whatever_the_jobs(monkeypatch):
    pilots = [os.path.join(SAMPLES, name + ".zip") for name in ("knn", "rbf_svm")]
    plans = []
    for jobs in ("1", "2"):  # the paragraph holds the plan's numbers (SE, MDE per pair)
        out = io.StringIO()
        assert plan_cli.main(["--pilot"] + pilots + ["--n-resamples", "100", "--jobs", jobs], out=out) == 0
        plans.append(out.getvalue())
    assert plans[0] == plans[1] and "MDE" in plans[0]
    seen = []
    monkeypatch.setattr(plan_cli, "pilot_plan", lambda *a, **k: seen.append(k["execution"]) or 1 / 0)
    with pytest.raises(ZeroDivisionError):
        argv = ["--pilot"] + pilots + ["--dask", "local", "--workers", "2"]
        plan_cli.compute_plan(plan_cli.make_parser().parse_args(argv))
    assert seen == [Execution(n_jobs=1, dask="local", workers=2)]


@pytest.mark.parametrize(
    "argv,sentence",
    [
        (["--jobs", "many"], "--jobs must be 'auto' or an integer"),
        (["--workers", "0"], "--workers must be a positive integer, got 0"),
    ],
)
def test_a_bad_execution_option_is_one_sentence_and_exit_code_2(tmp_path, capsys, argv, sentence):
    out = io.StringIO()
    assert plan_cli.main(argv, out=out) == 2
    assert out.getvalue() == "error: %s\n" % out.getvalue()[7:-1] and sentence in out.getvalue()
    assert benchmark_cli.main(["missing.yaml", "--out", str(tmp_path)] + argv, stdout=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and sentence in err and "Traceback" not in err
    phase = ["--reference", "r", "--submissions", "s", "--out", str(tmp_path)]
    assert end_of_phase_cli.main(phase + argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and sentence in err
