"""Statistical validity suite: settings, the shared study cache and the results report.

Every test in this folder carries the ``statistical`` marker.

* Without ``--full-stats``: a FAST subset (about 2-3 minutes on 2 cores): the
  same studies with fewer repetitions (500 test sets for coverage), asserting
  each target with a tolerance of 3 binomial standard errors at that number of
  repetitions, so a correct implementation passes and a broken one fails.
  The n = 100 coverage and type-I error studies are also marked ``slow``: the default
  ``python3 -m pytest`` leaves them out (their n = 1000 cells are the asserted targets);
  ``-m slow`` or ``-m statistical`` runs them.
* With ``--full-stats`` (or ``LEADERBOARD_CI_FULL_STATS=1``): the full run
  (>= 2,000 test sets per cell), asserting the tight targets.

``--full-stats`` is defined here, in a sub-folder conftest, so pytest only knows
it when this folder is named on the command line::

    python3 -m pytest tests/statistical -m statistical --full-stats --stats-report tests/statistical/results

(``python3 tests/statistical/run_full.py`` runs exactly that.)  From the repository
root without the path, use ``LEADERBOARD_CI_FULL_STATS=1 python3 -m pytest -m statistical``.

``--stats-report DIR`` writes the measured tables as ``DIR/latest.json`` and
``DIR/latest.md`` at the end of the session.
"""

from __future__ import annotations

import math
import os
import sys
import time
from dataclasses import dataclass, field

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)


def pytest_addoption(parser):
    group = parser.getgroup("leaderboard-ci statistical suite")
    group.addoption(
        "--full-stats",
        action="store_true",
        default=False,
        help="run the full statistical validity suite (tight targets, many repetitions)",
    )
    group.addoption(
        "--stats-report",
        default=None,
        metavar="DIR",
        help="write the measured tables to DIR/latest.json and DIR/latest.md",
    )


def _full(config):
    try:
        flag = config.getoption("--full-stats")
    except ValueError:  # this conftest was not an initial one: the option is unknown
        flag = False
    return bool(flag) or os.environ.get("LEADERBOARD_CI_FULL_STATS", "") not in ("", "0")


def _report_dir(config):
    try:
        return config.getoption("--stats-report")
    except ValueError:
        return os.environ.get("LEADERBOARD_CI_STATS_REPORT") or None


@dataclass(frozen=True)
class StatSettings:
    """Repetitions and resampling sizes of each study (see the module docstring)."""

    full: bool
    n_resamples: int = 1000  # B: see docs/validity.md for why 1000 suffices at this precision
    n_permutations: int = 1000
    coverage_reps: dict = field(default_factory=dict)  # n -> test sets
    error_reps: dict = field(default_factory=dict)  # (kind, n) -> test sets
    fwer_reps: int = 0
    fwer_permutation_reps: int = 0
    fdr_reps: int = 0
    b_sensitivity_reps: int = 0
    simultaneous_reps: dict = field(default_factory=dict)  # study name (test_stat_simultaneous.py) -> test sets
    shakeup_reps: dict = field(default_factory=dict)  # study name (test_stat_shakeup.py) -> competitions

    @property
    def mode(self):
        return "full" if self.full else "fast"

    def tolerance(self, target, reps, k=3.0):
        """Extra allowance of the fast run: ``k`` binomial SEs at the target rate; 0 in the full run."""
        if self.full:
            return 0.0
        return k * math.sqrt(target * (1.0 - target) / reps)


FAST = StatSettings(
    full=False,
    coverage_reps={100: 300, 1000: 300},
    error_reps={("classification", 1000): 250, ("classification", 100): 300, ("regression", 1000): 200},
    fwer_reps=200,
    fwer_permutation_reps=120,
    fdr_reps=150,
    b_sensitivity_reps=0,
    simultaneous_reps={
        "null-10": 100,
        "null-60": 40,
        "null-200": 10,
        "mixed-10": 100,
        "mixed-60": 20,
        "phase60": 6,
        "power-10": 40,
    },
    shakeup_reps={"null": 12, "probe": 10, "curse": 30},
)
FULL = StatSettings(
    full=True,
    coverage_reps={100: 4000, 1000: 4000},
    error_reps={("classification", 1000): 5000, ("classification", 100): 5000, ("regression", 1000): 3000},
    fwer_reps=2000,
    fwer_permutation_reps=2000,
    fdr_reps=2000,
    b_sensitivity_reps=2000,
    simultaneous_reps={
        "null-10": 2000,
        "null-60": 1000,
        "null-200": 1000,
        "mixed-10": 2000,
        "mixed-60": 1000,
        "phase60": 200,
        "power-10": 1000,
    },
    shakeup_reps={"null": 1000, "probe": 400, "curse": 2000},
)


class Store:
    """Measured tables of the session, and the test outcomes, for the report."""

    def __init__(self, settings):
        self.settings = settings
        self.sections = {}
        self.outcomes = {}
        self.durations = {}
        self.cache = {}
        self.started = time.time()
        self.load_start = _loadavg()

    def record(self, section, key, value):
        self.sections.setdefault(section, {})[key] = value

    def study(self, key, compute):
        """Compute a study once per session (a study that raised raises again, without rerunning)."""
        if key not in self.cache:
            try:
                self.cache[key] = ("ok", compute())
            except Exception as exc:  # noqa: BLE001 - re-raised for every test that needs it
                self.cache[key] = ("error", exc)
        status, value = self.cache[key]
        if status == "error":
            raise value
        return value


def _loadavg():
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


_STORE_KEY = pytest.StashKey()


def _scaled(settings, factor):
    """Settings with every repetition count multiplied by ``factor`` (a debugging knob)."""
    import dataclasses

    def scale(value):
        return max(20, int(round(value * factor))) if value else value

    return dataclasses.replace(
        settings,
        coverage_reps={k: scale(v) for k, v in settings.coverage_reps.items()},
        error_reps={k: scale(v) for k, v in settings.error_reps.items()},
        fwer_reps=scale(settings.fwer_reps),
        fwer_permutation_reps=scale(settings.fwer_permutation_reps),
        fdr_reps=scale(settings.fdr_reps),
        b_sensitivity_reps=scale(settings.b_sensitivity_reps),
        simultaneous_reps={k: scale(v) for k, v in settings.simultaneous_reps.items()},
        shakeup_reps={k: scale(v) for k, v in settings.shakeup_reps.items()},
    )


def pytest_configure(config):
    settings = FULL if _full(config) else FAST
    factor = os.environ.get("LEADERBOARD_CI_STAT_REPS_SCALE")
    if factor:  # e.g. 0.1 while developing; the tolerances follow the smaller counts
        settings = _scaled(settings, float(factor))
    config.stash[_STORE_KEY] = Store(settings)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    marker = pytest.mark.statistical
    for item in items:
        if str(item.fspath).startswith(HERE + os.sep):
            item.add_marker(marker)


@pytest.fixture(scope="session")
def stat_store(request):
    return request.config.stash[_STORE_KEY]


@pytest.fixture(scope="session")
def stat_settings(stat_store):
    return stat_store.settings


_current_store = None


def pytest_runtest_logreport(report):
    """Remember each statistical test's outcome for the report."""
    store = _current_store
    nodeid = report.nodeid.replace("\\", "/")
    if store is None or "statistical/" not in nodeid:
        return
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        store.outcomes[nodeid] = report.outcome
        store.durations[nodeid] = round(report.duration, 3)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    global _current_store
    _current_store = session.config.stash[_STORE_KEY]


@pytest.fixture(scope="session", autouse=True)
def _stat_store_current(request):
    # A conftest that is not an initial one misses pytest_sessionstart.
    global _current_store
    _current_store = request.config.stash[_STORE_KEY]


def pytest_sessionfinish(session, exitstatus):
    store = session.config.stash.get(_STORE_KEY, None)
    out_dir = _report_dir(session.config)
    if store is None or not out_dir or not store.sections:
        return
    from _statreport import write_report

    meta = {
        "mode": store.settings.mode,
        "command": " ".join(
            [os.path.basename(sys.executable), "-m", "pytest"] + list(session.config.invocation_params.args)
        ),
        "started": time.strftime("%Y-%m-%d %H:%M:%S %z", time.localtime(store.started)),
        "seconds": round(time.time() - store.started, 1),
        "load_average_start": store.load_start,
        "load_average_end": _loadavg(),
        "exit_status": int(exitstatus),
    }
    write_report(store, meta, out_dir)
