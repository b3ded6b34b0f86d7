"""The scoring program in the stock Codabench images' environments gives the same bytes.

``.ci/run`` builds Python 3.7 + numpy 1.17.2 + PyYAML 5.1 (codalab-legacy:py37)
and Python 3.12 + numpy 1.26.4 + PyYAML 6.0.2 (py312) and points
``LEADERBOARD_CI_PY37`` / ``LEADERBOARD_CI_PY312`` at them; without those
variables these tests are skipped.  Each sample submission runs through the
metadata command in a fresh /app-like tree, exactly as the worker runs it.
"""

import glob
import os
import subprocess
import sys

import pytest

from leaderboard_ci.tools.local_worker import run_scoring

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
PROGRAM = os.path.join(ROOT, "scoring_program")
REFERENCE = os.path.join(ROOT, "competition_bundle", "reference_data")
SUBMISSIONS = sorted(glob.glob(os.path.join(ROOT, "competition_bundle", "sample_submissions", "*.zip")))
IMAGES = {"py37": "LEADERBOARD_CI_PY37", "py312": "LEADERBOARD_CI_PY312"}


@pytest.fixture(scope="module")
def current_bytes(tmp_path_factory):
    out = {}
    for path in SUBMISSIONS:
        result = run_scoring(str(tmp_path_factory.mktemp("current")), PROGRAM, REFERENCE, path)
        assert result.returncode == 0, result.stderr
        out[os.path.basename(path)] = result.scores_json_bytes
    return out


@pytest.mark.image
@pytest.mark.slow  # the zipped program below (the files the bundle uploads, unpacked as the worker does) represents it
@pytest.mark.parametrize("image", sorted(IMAGES))
def test_every_sample_scores_identically_in_the_image(image, current_bytes, tmp_path, program_compiled_by):
    python = os.environ.get(IMAGES[image])
    if not python:
        pytest.skip("set %s to the %s image's interpreter (.ci/run does)" % (IMAGES[image], image))
    assert SUBMISSIONS, "no sample submissions"
    for path in SUBMISSIONS:
        name = os.path.basename(path)
        result = run_scoring(str(tmp_path / name), program_compiled_by(python), REFERENCE, path, python=python)
        assert result.returncode == 0, "%s in %s: %s" % (name, image, result.stderr)
        assert result.stderr == ""
        assert result.scores_json_bytes == current_bytes[name], "%s differs in %s" % (name, image)
        assert os.path.exists(os.path.join(result.output_dir, "detailed_results.html"))


def test_scoring_path_imports_only_numpy_and_yaml():
    code = (
        "import sys; sys.path.insert(0, %r)\n"
        "from leaderboard_ci.scoring.codabench import run\n"
        "import io\n"
        "rc = run(%r, %r, %r, stdout=io.StringIO(), stderr=io.StringIO())\n"
        "heavy = [m for m in ('pandas', 'scipy', 'sklearn', 'statsmodels', 'matplotlib') if m in sys.modules]\n"
        "print(rc, heavy)\n"
    )
    import tempfile

    from leaderboard_ci.tools.local_worker import prepare_tree

    root = tempfile.mkdtemp()
    prepare_tree(root, PROGRAM, REFERENCE, SUBMISSIONS[0])
    out = subprocess.run(
        [sys.executable, "-c", code % (PROGRAM, os.path.join(root, "input"), os.path.join(root, "output"), PROGRAM)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )
    assert out.stdout.strip() == "0 []", out.stderr


# ---------------------------------------------------------------------------
# The drop-in zip as build_bundle writes it: only the per-submission path
# ---------------------------------------------------------------------------
HEAVY = ("pandas", "scipy", "sklearn", "statsmodels", "matplotlib", "tqdm", "dask")


@pytest.fixture(scope="module")
def zipped_program(tmp_path_factory):
    """scoring_program.zip exactly as the bundle carries it, unpacked as the worker does."""
    import io
    import zipfile

    from leaderboard_ci.tools.bundle import program_entries, zip_bytes

    folder = tmp_path_factory.mktemp("zipped") / "program"
    with zipfile.ZipFile(io.BytesIO(zip_bytes(program_entries(PROGRAM)))) as archive:
        archive.extractall(str(folder))
    return str(folder)


def test_the_drop_in_carries_only_core_tasks_and_scoring(zipped_program):
    package = os.path.join(zipped_program, "leaderboard_ci")
    assert sorted(d for d in os.listdir(package) if os.path.isdir(os.path.join(package, d))) == [
        "core",
        "scoring",
        "tasks",
    ]
    assert os.path.isfile(os.path.join(zipped_program, "score.py"))
    assert os.path.isfile(os.path.join(zipped_program, "metadata.yaml"))


def test_the_zipped_program_scores_with_the_heavy_libraries_unimportable(zipped_program, current_bytes, tmp_path):
    """pandas, SciPy, statsmodels, matplotlib... made unimportable: every sample scores to the same bytes."""
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(
        "import sys\n"
        "class _Block(object):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in %r:\n"
        "            raise ImportError('blocked: ' + name)\n"
        "    find_module = None\n"
        "sys.meta_path.insert(0, _Block())\n" % (HEAVY,)
    )
    env = dict(os.environ, PYTHONPATH=str(blocker))
    probe = subprocess.run(
        [sys.executable, "-c", "import pandas"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )
    assert probe.returncode != 0 and "blocked: pandas" in probe.stderr  # the blocker works
    for path in SUBMISSIONS:
        name = os.path.basename(path)
        result = run_scoring(str(tmp_path / name), zipped_program, REFERENCE, path, env=env)
        assert result.returncode == 0, "%s: %s" % (name, result.stderr)
        assert result.scores_json_bytes == current_bytes[name]


@pytest.mark.image
@pytest.mark.parametrize("image", sorted(IMAGES))
def test_the_zipped_program_scores_every_sample_in_the_image(image, zipped_program, current_bytes, tmp_path):
    python = os.environ.get(IMAGES[image])
    if not python:
        pytest.skip("set %s to the %s image's interpreter (.ci/run does)" % (IMAGES[image], image))
    for path in SUBMISSIONS:
        name = os.path.basename(path)
        result = run_scoring(str(tmp_path / name), zipped_program, REFERENCE, path, python=python)
        assert result.returncode == 0, "%s in %s: %s" % (name, image, result.stderr)
        assert result.scores_json_bytes == current_bytes[name], "%s differs in %s" % (name, image)
