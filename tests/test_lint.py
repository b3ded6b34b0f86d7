"""ruff's lint and format checks are clean on the whole tree (configured in pyproject.toml; pinned in setup.cfg).

Skipped when ruff is not installed (the ``test`` extra installs it).  Fix with
``ruff check --fix . && ruff format .``.
"""

import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _ruff(*args):
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    return subprocess.run([ruff] + list(args), cwd=ROOT, capture_output=True, text=True)


def test_ruff_check_is_clean():
    result = _ruff("check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_ruff_format_is_clean():
    result = _ruff("format", "--check", "--no-cache", ".")
    assert result.returncode == 0, "run `ruff format .`:\n" + result.stdout[-4000:] + result.stderr[-2000:]
