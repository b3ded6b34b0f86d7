"""The documentation site builds with no dead link or anchor, and the README stays the front door.

``mkdocs build --strict`` turns every warning into an error; ``mkdocs.yml``'s ``validation:``
makes a link to a missing page or a missing anchor a warning (mkdocs >= 1.6).  Skipped where
mkdocs or its Material theme is not installed (``pip install -e ".[docs]"``; the ``test`` extra
installs both).
"""

import importlib.util
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
MAX_README_LINES = 300


def _installed(name):
    return importlib.util.find_spec(name) is not None


def test_site_builds_strict(tmp_path):
    """``mkdocs build --strict``: no dead link, page or anchor. Skipped where the docs tools are missing, except
    under ``.ci/run`` (``LEADERBOARD_CI_REQUIRE_DOCS=1``), where a missing tool fails."""
    if not (_installed("mkdocs") and _installed("material") and _installed("mkdocstrings_handlers.python")):
        missing = "mkdocs-material or mkdocstrings[python] is not installed"
        if os.environ.get("LEADERBOARD_CI_REQUIRE_DOCS", "") not in ("", "0"):
            pytest.fail(missing + " (CI requires the site build: pip install -e '.[test]')")
        pytest.skip(missing)
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--config-file",
            os.path.join(ROOT, "mkdocs.yml"),
            "--site-dir",
            str(tmp_path / "site"),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout
    assert (tmp_path / "site" / "index.html").is_file()
    with open(str(tmp_path / "site" / "api" / "index.html"), encoding="utf-8") as handle:
        api = handle.read()
    for name in API_NAMES:  # each one rendered from its docstring, with its own anchor
        assert 'id="leaderboard_ci.%s"' % name in api, name


#: What the API reference page (docs/api.md) documents: the public entry points of the package.
API_NAMES = (
    "phase.analysis.analysis.analyze",
    "phase.execution.runs.Execution",
    "scoring.config.read_config",
    "tasks.protocol.TaskType",
    "tasks.settings.TaskSettings",
    "tasks.metrics.Metric",
    "core.resampling.replicate_indices",
    "core.intervals",
    "core.significance",
)


def _readme():
    with open(README, encoding="utf-8") as handle:
        return handle.read()


def test_readme_is_short():
    lines = _readme().count("\n")
    assert lines <= MAX_README_LINES, "README.md has %d lines; the details belong on the site (docs/)" % lines


def test_readme_keeps_the_ci_test_command():
    """.ci/run takes the second line after the marker (awk: getline; getline) as the test command."""
    lines = _readme().split("\n")
    at = lines.index("<!-- ci:test-command -->")
    assert lines[at + 1] == "```bash"
    assert lines[at + 2] == 'python3 -m pip install -e ".[test]" && python3 -m pytest -n auto'


def test_readme_links_resolve():
    """Every relative link of the README names a file of the repository (the site checks its own)."""
    for target in re.findall(r"\]\(([^)\s]+)\)", _readme()):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = target.split("#", 1)[0]
        assert os.path.exists(os.path.join(ROOT, path)), "README.md links to %s, which does not exist" % target


def test_getting_started_gives_the_readme_test_command():
    """Both pages say .ci/run runs their test command: it must be the same one (issue 37)."""
    with open(os.path.join(ROOT, "docs", "getting-started.md"), encoding="utf-8") as handle:
        page = handle.read()
    lines = _readme().split("\n")
    command = lines[lines.index("<!-- ci:test-command -->") + 2]
    assert "```bash\n%s\n```" % command in page
    assert not re.search(r"python3 -m pytest\n```", page)  # no second, shorter test command


def test_the_organizer_guide_lists_every_subcommand():
    """The guide's list of subcommands names each one the command line has (plan and demo were missing)."""
    import argparse

    from leaderboard_ci.cli.main import make_parser

    parser = make_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    with open(os.path.join(ROOT, "docs", "organizer-guide.md"), encoding="utf-8") as handle:
        guide = handle.read()
    listing = guide[guide.index("its\nsubcommands are") :].split("(`leaderboard-ci COMMAND --help`)")[0]
    assert sorted(c for c in commands if "`%s`" % c not in listing) == []
