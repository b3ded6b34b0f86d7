"""Public entry points check their inputs first and say what they got; the console scripts run when installed."""

import argparse
import configparser
import importlib
import os
import shutil
import site
import subprocess
import sys

import numpy as np
import pytest

from leaderboard_ci.core.pairs import pair_statistics
from leaderboard_ci.core.permutation import permutation_pvalues
from leaderboard_ci.phase.analysis import analyze
from leaderboard_ci.phase.analysis.systems import build_plan
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.errors import ConfigError
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.tasks.shared.base import GoldStandard
from leaderboard_ci.tasks.shared.scorer import SystemScorer

CFG = parse_config({"metric": "f1_macro", "labels": ["a", "b", "c"], "bootstrap": {"n_resamples": 50}})
REG = parse_config({"metric": "mae", "bootstrap": {"n_resamples": 50}})
GOLD = GoldStandard(values=np.array([0, 1, 2, 0, 1]), labels=("a", "b", "c"))


def test_evaluate_refuses_a_short_prediction_array_instead_of_broadcasting():
    with pytest.raises(ValueError, match=r"predictions has 1 values for 5 gold items"):
        evaluate(CFG, GOLD, np.array([0]))
    with pytest.raises(ValueError, match=r"baseline has 4 values for 5 gold items"):
        evaluate(CFG, GOLD, np.array([0, 1, 2, 0, 1]), baseline=np.array([0, 1, 2, 0]))


@pytest.mark.parametrize(
    "predictions, message",
    [
        (np.array([0, 1, 2, 0, 3]), "class codes from 0 to 2"),
        (np.array([0, 1, -1, 0, 1]), "class codes from 0 to 2"),
        (np.array([0.0, 1.0, 2.0, 0.0, 1.0]), "class codes from 0 to 2"),
        (np.array([[0, 1, 2, 0, 1]]), r"shape \(5,\)"),
    ],
)
def test_scorer_refuses_out_of_range_codes(predictions, message):
    with pytest.raises(ValueError, match=message):
        SystemScorer(CFG.metrics, GOLD, predictions)


def test_scorer_refuses_non_finite_regression_predictions():
    gold = GoldStandard(values=np.array([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="finite"):
        SystemScorer(REG.metrics, gold, np.array([1.0, np.nan, 3.0]))
    with pytest.raises(ValueError, match="regression metric"):
        SystemScorer(REG.metrics, GOLD, np.array([0, 1, 2, 0, 1]))  # a classification gold


def test_analyze_names_an_unknown_sides_value():
    with pytest.raises(ConfigError, match=r"analysis.sides must be one of: two, one, got 'three'"):
        analyze(["a", "b"], {"x": ["a", "b"]}, metric="accuracy", sides="three")


def test_analyze_names_the_system_with_the_wrong_length():
    with pytest.raises(ValueError, match=r"system 'x' has 1 predictions for 2 items"):
        analyze(["a", "b"], {"x": ["a"]}, metric="accuracy")
    with pytest.raises(ValueError, match=r"system 'y' has 3 encoded predictions for 5 gold items"):
        analyze(GOLD, {"y": np.array([0, 1, 2])}, config=CFG)


def test_pair_statistics_checks_shapes_indices_and_sign():
    reps = np.zeros((10, 3))
    full = np.zeros(3)
    with pytest.raises(ValueError, match=r"pairs must index the 3 systems \(0 to 2\), got values from 0 to 3"):
        pair_statistics(reps, full, np.array([[0, 3]]), 1.0)
    with pytest.raises(ValueError, match=r"shape \(B, m\)"):
        pair_statistics(reps, np.zeros(4), np.array([[0, 1]]), 1.0)
    with pytest.raises(ValueError, match="sign must be"):
        pair_statistics(reps, full, np.array([[0, 1]]), 0.5)
    with pytest.raises(ValueError, match="method must be one of: percentile, basic, bca"):
        pair_statistics(reps, full, np.array([[0, 1]]), 1.0, method="student")


def test_permutation_checks_its_matrices():
    preds = [np.array([0, 1, 2, 0, 1]), np.array([0, 1, 1, 0, 1])]
    plan = build_plan(CFG, GOLD, preds, ["a", "b"])
    with pytest.raises(ValueError, match=r"predictions must have shape \(n, 2\)"):
        permutation_pvalues(plan.scorers, plan.full_scores(), np.array([[0, 1]]), np.stack(preds), 1, 10)
    with pytest.raises(ValueError, match="pairs must index the 2 systems"):
        permutation_pvalues(plan.scorers, plan.full_scores(), np.array([[0, 2]]), np.stack(preds, 1), 1, 10)


def test_one_seed_bound_and_one_jobs_check_everywhere():
    from leaderboard_ci.core.parallel import check_jobs
    from leaderboard_ci.core.resampling import check_seed

    assert check_seed(2**128 - 1) == 2**128 - 1
    assert parse_config({"metric": "mae", "bootstrap": {"seed": 2**100}}).bootstrap.seed == 2**100
    for bad in (2**128, -1):
        with pytest.raises(ConfigError, match=r"bootstrap.seed must be an integer from 0 to 2\*\*128-1"):
            parse_config({"metric": "mae", "bootstrap": {"seed": bad}})
    with pytest.raises(ValueError, match="n_jobs must be 'auto' or an integer from 1 to 256, got 0"):
        check_jobs(0)
    with pytest.raises(ConfigError, match="bootstrap.n_jobs must be 'auto' or an integer from 1 to 256, got 300"):
        parse_config({"metric": "mae", "bootstrap": {"n_jobs": 300}})


# ---------------------------------------------------------------------------
# Console scripts: every command runs from an installed entry point
# ---------------------------------------------------------------------------
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = os.path.join(ROOT, "scoring_program")
#: The modules that also run as ``python -m MODULE``, and the name their --help shows.
MODULES = {
    "leaderboard_ci.cli.main": "leaderboard-ci",
    "leaderboard_ci.cli.end_of_phase": "leaderboard-ci-end-of-phase",
    "leaderboard_ci.cli": "leaderboard-ci",
    "leaderboard_ci.cli.compare": "leaderboard-ci-compare",
    "leaderboard_ci.cli.shakeup": "leaderboard-ci shakeup",
    "leaderboard_ci.cli.benchmark": "leaderboard-ci benchmark",
    "leaderboard_ci.cli.demo": "leaderboard-ci demo",
    "leaderboard_ci.cli.sample_competition": "leaderboard-ci sample-competition",
    "leaderboard_ci.cli.plan": "leaderboard-ci plan",
}


def console_scripts():
    """``{name: "module:function"}`` of setup.cfg's console_scripts."""
    parser = configparser.ConfigParser()
    parser.read(os.path.join(ROOT, "setup.cfg"), encoding="utf-8")
    lines = parser["options.entry_points"]["console_scripts"].strip().splitlines()
    return dict((name.strip(), target.strip()) for name, target in (line.split("=", 1) for line in lines))


def subcommands():
    """The subcommands of ``leaderboard-ci``, as its parser lists them."""
    from leaderboard_ci.cli import main as cli

    action = next(a for a in cli.make_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(action.choices)


def _usage_name(text):
    """``leaderboard-ci score`` from ``usage: leaderboard-ci score [-h] ...`` (every parser has -h first)."""
    first = text.strip().splitlines()[0]
    assert first.startswith("usage: ") and " [-h]" in first, text
    return first[len("usage: ") : first.index(" [-h]")]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A virtual environment (sharing this one's packages) with this checkout installed by pip: its bin folder.

    pip installs a copy of setup.cfg, pyproject.toml, README.md and scoring_program/, so the console
    scripts are the ones setup.cfg declares and they import this checkout's code, not another install.
    """
    work = tmp_path_factory.mktemp("install")
    source = work / "source"
    os.makedirs(str(source))
    for name in ("setup.cfg", "pyproject.toml", "README.md"):
        shutil.copy(os.path.join(ROOT, name), str(source / name))
    shutil.copytree(
        PROGRAM, str(source / "scoring_program"), ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    env = str(work / "env")
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", env], check=True)
    bin_dir = os.path.join(env, "Scripts" if os.name == "nt" else "bin")
    _see_the_running_packages(os.path.join(bin_dir, "python"))
    pip = subprocess.run(
        [
            os.path.join(bin_dir, "python"),
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--disable-pip-version-check",
            str(source),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
        timeout=600,
    )
    assert pip.returncode == 0, (
        "pip install of this checkout failed (it builds with setuptools and wheel):\n" + pip.stdout[-3000:]
    )
    return bin_dir


def _see_the_running_packages(python):
    """Let the venv at ``python`` import what the interpreter running the tests imports (pandas, numpy ...).

    ``--system-site-packages`` adds the *base* interpreter's packages: when pytest runs in a virtualenv, as the
    README allows, the dependencies are in that virtualenv instead ("No module named 'pandas'").  A ``.pth`` file
    in the new venv lists the running interpreter's site directories after the venv's own (plain path lines: the
    ``.pth`` files inside them, such as an editable install of another checkout, are not run).
    """
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        stdout=subprocess.PIPE,
        universal_newlines=True,
        check=True,
    ).stdout.strip()
    running = [p for p in site.getsitepackages() + [site.getusersitepackages()] if os.path.isdir(p)]
    with open(os.path.join(purelib, "running_interpreter.pth"), "w") as handle:
        handle.write("\n".join(running) + "\n")


def _run(command, **kwargs):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.update(kwargs.pop("env", {}))
    return subprocess.run(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
        env=env,
        cwd=kwargs.pop("cwd", None),
        timeout=300,
    )


def test_console_scripts_name_importable_functions():
    scripts = console_scripts()
    assert set(scripts) == {"leaderboard-ci", "leaderboard-ci-end-of-phase", "leaderboard-ci-compare"}
    for name, target in scripts.items():
        module, function = target.split(":")
        assert callable(getattr(importlib.import_module(module), function)), name
        assert MODULES[module] == name


def test_every_console_script_runs_its_help_when_installed(installed, tmp_path):
    where = _run(
        [os.path.join(installed, "python"), "-c", "import leaderboard_ci; print(leaderboard_ci.__file__)"],
        cwd=str(tmp_path),
    )
    assert where.stdout.startswith(os.path.dirname(installed)), where.stdout + where.stderr
    for name in console_scripts():
        run = _run([os.path.join(installed, name), "--help"], cwd=str(tmp_path))
        assert run.returncode == 0, run.stderr
        assert _usage_name(run.stdout) == name, run.stdout


def test_every_subcommand_runs_its_help_when_installed(installed, tmp_path):
    names = subcommands()
    assert {
        "init",
        "columns",
        "bundle",
        "score",
        "end-of-phase",
        "compare",
        "benchmark",
        "demo",
        "sample-competition",
    } <= set(names)
    for name in names:
        run = _run([os.path.join(installed, "leaderboard-ci"), name, "--help"], cwd=str(tmp_path))
        assert run.returncode == 0, (name, run.stderr)
        usage = _usage_name(run.stdout)
        # a delegated subcommand shows its own console script's name where it has one
        assert usage in ("leaderboard-ci " + name, "leaderboard-ci-" + name), (name, run.stdout)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_python_dash_m_runs_every_command_module(module, tmp_path):
    run = _run([sys.executable, "-m", module, "--help"], env={"PYTHONPATH": PROGRAM}, cwd=str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert _usage_name(run.stdout) == MODULES[module], run.stdout
