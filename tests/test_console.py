"""Every command-line entry point ends quietly when its reader stops early (``leaderboard-ci plan ... | head -1``).

Each ``main`` is run with standard output on a pipe whose read end is already closed, so the first write fails
with EPIPE: the command must return 141 (a shell's code for SIGPIPE) without a traceback.  One command is also
run as a process, to show that nothing is printed at the interpreter's exit either.  A BrokenPipeError that
does not come from standard output is not swallowed.
"""

import ast
import importlib
import io
import os
import subprocess
import sys

import pytest

from leaderboard_ci.console import CLOSED_PIPE_EXIT, entry_point

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUNDLE = os.path.join(ROOT, "competition_bundle", "reference_data")

#: Every module with a ``main`` that a user runs (console scripts, subcommands, ``python -m``).
ENTRY_MODULES = [
    "leaderboard_ci.cli.main",
    "leaderboard_ci.cli.plan",
    "leaderboard_ci.cli.demo",
    "leaderboard_ci.tools.config_reference",
    "leaderboard_ci.cli.end_of_phase",
    "leaderboard_ci.cli.benchmark",
    "leaderboard_ci.cli.shakeup",
    "leaderboard_ci.cli.compare",
    "leaderboard_ci.cli.sample_competition",
]
#: The scoring program's main prints one summary line after a whole scoring run; it is wrapped the same way.
PROGRAM_MODULE = "leaderboard_ci.scoring.codabench"


class _ClosedPipe(io.TextIOBase):
    """Standard output after its reader went: every write and flush fails as a closed pipe does (EPIPE)."""

    def __init__(self, fd):
        self.fd = fd

    def fileno(self):
        return self.fd

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")


@pytest.fixture
def closed_pipe():
    read, write = os.pipe()
    os.close(read)
    yield write
    os.close(write)


@pytest.mark.parametrize("module", ENTRY_MODULES)
def test_help_into_a_closed_pipe_ends_quietly(module, closed_pipe, monkeypatch):
    main = importlib.import_module(module).main
    monkeypatch.setattr(sys, "stdout", _ClosedPipe(closed_pipe))  # here: pytest resets sys.stdout after fixtures
    assert getattr(main, "__wrapped__", None) is not None, "%s.main is not wrapped by console.entry_point" % module
    try:
        code = main(["--help"])
    except SystemExit as exc:  # argparse exits after printing the help; printing must have failed first
        pytest.fail("%s printed its help into a closed pipe without an error (exit %s)" % (module, exc.code))
    assert code == CLOSED_PIPE_EXIT


def test_the_scoring_program_is_wrapped_too():
    assert getattr(importlib.import_module(PROGRAM_MODULE).main, "__wrapped__", None) is not None


def test_every_console_script_and_delegated_command_is_covered():
    """The console scripts of setup.cfg and the subcommands delegated by leaderboard-ci are in the list."""
    from leaderboard_ci.cli.main import _DELEGATED

    with io.open(os.path.join(ROOT, "setup.cfg"), encoding="utf-8") as handle:
        scripts = handle.read().split("console_scripts =", 1)[1].split("\n\n", 1)[0]
    targets = [line.split("=", 1)[1].strip().split(":")[0] for line in scripts.strip().splitlines()]
    delegated = [module for module, _ in _DELEGATED.values()]
    missing = sorted(set(targets + delegated) - set(ENTRY_MODULES))
    assert not missing, missing


#: Command lines outside ``leaderboard_ci.cli``: the scoring program (the per-submission path, Python 3.7) and
#: the generators of docs/configuration.md and the benchmark.yaml reference (a developer's ``python -m``).
OUTSIDE_CLI = {
    "leaderboard_ci.scoring.codabench",
    "leaderboard_ci.tools.config_reference",
    "leaderboard_ci.tools.benchmark_reference",
}


def test_the_command_line_lives_in_one_module_tree():
    """Every ``main`` is in ``leaderboard_ci/cli/`` (one module per command) and listed above; none elsewhere."""
    package = os.path.join(ROOT, "scoring_program", "leaderboard_ci")
    commands, elsewhere = set(), set()
    for folder, _, files in os.walk(package):
        for name in files:
            if not name.endswith(".py"):
                continue
            with io.open(os.path.join(folder, name), encoding="utf-8") as handle:
                tree = ast.parse(handle.read())
            module = os.path.relpath(os.path.join(folder, name[:-3]), package).replace(os.sep, ".")
            module = "leaderboard_ci." + module
            defined = set(node.name for node in tree.body if isinstance(node, ast.FunctionDef))
            if defined & {"main", "make_parser"}:
                (commands if module.startswith("leaderboard_ci.cli.") else elsewhere).add(module)
    assert elsewhere == OUTSIDE_CLI
    assert commands - set(ENTRY_MODULES) == set(), "commands missing from ENTRY_MODULES"
    assert set(m for m in ENTRY_MODULES if m.startswith("leaderboard_ci.cli.")) == commands


def test_a_broken_pipe_elsewhere_is_not_swallowed():
    @entry_point
    def main():
        raise BrokenPipeError("a socket")

    with pytest.raises(BrokenPipeError):
        main()


def test_a_command_into_head_prints_no_traceback():
    """As a process, the class of ``plan ... | head -1``: output written after the reader has gone."""
    read, write = os.pipe()
    os.close(read)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "scoring_program"))
    command = [sys.executable, "-m", "leaderboard_ci.cli.main", "columns", os.path.join(BUNDLE, "config.yaml")]
    try:
        run = subprocess.run(command, stdout=write, stderr=subprocess.PIPE, env=env, timeout=120)
    finally:
        os.close(write)
    assert run.returncode == CLOSED_PIPE_EXIT
    assert run.stderr.decode() == ""
