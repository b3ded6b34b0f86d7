"""``scripts/``: what an organizer runs from a checkout, without installing the package.

Each script is run as a subprocess in a temporary working folder, by an interpreter started with
``-S`` (no ``site``: no ``.pth`` file is read, so no editable or installed copy of ``leaderboard_ci``
can be found) and an environment whose only ``PYTHONPATH`` is the folders of the third-party
packages (numpy, PyYAML, pandas ...).  A control run shows that ``leaderboard_ci`` is not importable
there; the scripts then find it only through their own checkout.
"""

import os
import subprocess
import sys
import zipfile

import numpy
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPTS = os.path.join(ROOT, "scripts")
SAMPLE = os.path.join(ROOT, "competition_bundle")


def _third_party_path():
    """The folders holding numpy and PyYAML (site-packages), without this checkout or any .pth file."""
    folders = []
    for module in (numpy, yaml):
        folder = os.path.dirname(os.path.dirname(os.path.abspath(module.__file__)))
        if folder not in folders:
            folders.append(folder)
    return os.pathsep.join(folders)


def _run(args, cwd):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": _third_party_path(), "PYTHONNOUSERSITE": "1"}
    return subprocess.run(
        [sys.executable, "-S"] + args,
        cwd=str(cwd),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
        timeout=300,
    )


def test_without_the_scripts_the_package_is_not_importable(tmp_path):
    run = _run(["-c", "import leaderboard_ci"], tmp_path)
    assert run.returncode == 1 and "No module named 'leaderboard_ci'" in run.stderr


def test_every_script_shows_its_command_help(tmp_path):
    expected = {
        "end_of_phase.py": "usage: leaderboard-ci-end-of-phase",
        "build_bundle.py": "usage: leaderboard-ci bundle",
        "leaderboard-ci.py": "usage: leaderboard-ci ",
    }
    scripts = sorted(name for name in os.listdir(SCRIPTS) if name.endswith(".py") and not name.startswith("_"))
    assert scripts == sorted(expected)
    for name in scripts:
        run = _run([os.path.join(SCRIPTS, name), "--help"], tmp_path)
        assert run.returncode == 0, run.stderr
        assert run.stdout.startswith(expected[name]), run.stdout[:200]


def test_build_bundle_writes_the_sample_bundle_from_this_checkout(tmp_path):
    out = tmp_path / "bundle.zip"
    probe = _run([os.path.join(SCRIPTS, "build_bundle.py"), SAMPLE, "--out", str(out), "--no-check"], tmp_path)
    assert probe.returncode == 0, probe.stderr
    with zipfile.ZipFile(str(out)) as archive:
        names = set(archive.namelist())
    assert "competition.yaml" in names and "scoring_program.zip" in names
    assert "wrote %s" % out in probe.stdout


def test_a_script_error_is_one_sentence_and_exit_code_2(tmp_path):
    run = _run(
        [os.path.join(SCRIPTS, "end_of_phase.py"), "--reference", "nowhere", "--submissions", "x", "--out", "o"],
        tmp_path,
    )
    assert run.returncode == 2
    assert run.stderr.startswith("error: ") and "Traceback" not in run.stderr and len(run.stderr.splitlines()) == 1
