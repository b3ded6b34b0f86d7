"""Tests import the package from this checkout's scoring_program/, whatever else is installed.

An editable install of another checkout (or an installed wheel) would otherwise be imported
first, and the tests would exercise code other than the code under test.
"""

import os
import sys

import pytest

_PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scoring_program")
if sys.path[:1] != [_PROGRAM]:
    sys.path.insert(0, _PROGRAM)
for _name in [m for m in sys.modules if m == "leaderboard_ci" or m.startswith("leaderboard_ci.")]:
    if not os.path.abspath(getattr(sys.modules[_name], "__file__", "") or "").startswith(_PROGRAM):
        del sys.modules[_name]


def _shared_group(item):
    """The xdist group of a test that shares an expensive fixture with other tests, or None.

    A module-scoped fixture groups its module's tests; a session-scoped fixture defined in a sub-folder's
    conftest (the statistical suite's study cache) groups that folder's tests.
    """
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    for name in info.names_closure:
        for definition in info.name2fixturedefs.get(name, ()):
            if definition.scope == "module":
                return item.nodeid.split("::", 1)[0]
            if definition.scope == "session" and definition.baseid.count("/") >= 1:
                return definition.baseid
    return None


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the group marks to schedule by group
def pytest_collection_modifyitems(config, items):
    """Keep the tests that share an expensive fixture on one xdist worker.

    ``setup.cfg`` runs xdist with ``--dist loadgroup``: tests without a group are spread one by one, and a
    shared fixture (a corpus of submissions scored once, a competition run once, a simulation study cached
    for the session) would otherwise be built again on every worker that receives one of its tests,
    doubling its cost on two cores.
    """
    for item in items:
        group = _shared_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(name=group))


@pytest.fixture(scope="session")
def program_compiled_by(tmp_path_factory):
    """``program_compiled_by(python)``: a copy of scoring_program/ with the .pyc files of that interpreter.

    The image tests run the program many times with the image's Python; a fresh tree copies the program,
    and a copy holding only the host's .pyc makes 3.7 (or 3.12) compile every module again in each run.
    Compiled once per interpreter (and xdist worker); what the runs compute is the same either way.
    """
    import shutil
    import subprocess

    made = {}

    def get(python):
        if python not in made:
            path = str(tmp_path_factory.mktemp("program") / "scoring_program")
            source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scoring_program")
            shutil.copytree(source, path, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc"))
            subprocess.run([python, "-m", "compileall", "-q", path], check=True, stdout=subprocess.DEVNULL)
            made[python] = path
        return made[python]

    return get
