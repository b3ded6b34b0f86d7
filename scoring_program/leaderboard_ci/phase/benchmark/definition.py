"""A benchmark's definition: ``benchmark.yaml`` read through the config schema into :class:`BenchmarkDefinition`.

The keys are declared as :func:`~leaderboard_ci.scoring.schema.setting` fields of
:class:`BenchmarkSettings` (top level), :class:`BenchmarkTaskSettings` (each
entry of ``tasks:``), :class:`AggregateSettings` and
:class:`CriticalDifferenceSettings`, and read by the schema's
:func:`~leaderboard_ci.scoring.schema.validate_section`: the same sentences as
``config.yaml`` (file, key, what was expected; the line of a YAML mistake).
The reference section of ``docs/tasks/benchmarks.md`` is generated from the
same fields (:mod:`.reference`).

:func:`load_benchmark` is a sequence of named steps: read the YAML, validate
the top level, validate each task, check the tasks against each other, resolve
the paths.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Optional

from ...scoring.config import read_config
from ...scoring.errors import ConfigError
from ...scoring.schema import (
    Check,
    Choice,
    Integer,
    ListOf,
    Name,
    Nullable,
    Number,
    section_keys,
    setting,
    setting_fields,
    unknown_key,
    validate_section,
)

__all__ = [
    "TaskSpec",
    "BenchmarkDefinition",
    "BenchmarkSettings",
    "BenchmarkTaskSettings",
    "AggregateSettings",
    "CriticalDifferenceSettings",
    "load_benchmark",
    "DEFAULT_PROGRAM",
    "CD_TESTS",
]


DEFAULT_PROGRAM = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
CD_TESTS = ("nemenyi", "wilcoxon")
MAX_SEED = 2**63 - 1


class Path(Check):
    """A path relative to ``benchmark.yaml`` (resolved by :func:`load_benchmark`)."""

    kind = "path"

    def __call__(self, value, where):
        if not isinstance(value, str) or not value.strip():
            raise ConfigError("%s must be a path relative to the benchmark file, got %r" % (where, value))
        return value.strip()


class Glob(Check):
    """The name (or glob) of a file inside each submission: relative, no ``..``, forward slashes."""

    kind = "file name or glob"

    def __call__(self, value, where):
        pattern = value.strip() if isinstance(value, str) else ""
        if not pattern or pattern.startswith("/") or ".." in pattern.split("/") or "\\" in pattern:
            raise ConfigError(
                "%s must be the name (or glob) of this task's file inside each submission, "
                "such as sentiment_en.csv, got %r" % (where, value)
            )
        return pattern


class PhaseId(Check):
    """A Codabench phase id: digits, read as their canonical string."""

    kind = "Codabench phase id"

    def __call__(self, value, where):
        if isinstance(value, bool) or not str(value).strip().isdigit():
            raise ConfigError(
                "%s must be a Codabench phase id (the number after PhaseId in the bulk download's names), "
                "got %r" % (where, value)
            )
        return str(int(str(value).strip()))


@dataclass(frozen=True)
class BenchmarkTaskSettings:
    """One entry of ``tasks:``: a test set (a task in one language) and where its files are."""

    name: str = setting(doc="The task's name; systems are compared within a task across languages.", check=Name())
    reference: str = setting(
        doc="Its reference-data folder: gold + config.yaml, as for the scoring program.", check=Path()
    )
    language: Optional[str] = setting(None, "A split tag (language, stratum...).", Nullable(Name()))
    submissions: Optional[str] = setting(
        None,
        "Anything the end-of-phase command reads (folder, zip, bulk download).",
        Nullable(Path()),
        default_doc="the top-level submissions",
    )
    file: Optional[str] = setting(None, "This task's file in each submission (a glob).", Nullable(Glob()))
    phase: Optional[str] = setting(None, "Only the submissions of this Codabench phase id.", Nullable(PhaseId()))
    baselines: Optional[tuple] = setting(
        (),
        "Files in the reference folder; b = the mean of their scores.",
        Nullable(ListOf(Name(file=True), "a list of file names in the reference folder", single=True)),
    )
    reference_point: Optional[float] = setting(
        None,
        "r of the gain.",
        Nullable(Number(float("-inf"), float("inf"), kind="number")),
        default_doc="ODESIA's rule (core.benchmark_stats)",
    )
    weight: float = setting(1.0, "The task's weight in the aggregates.", Number(0, float("inf"), kind="number > 0"))


@dataclass(frozen=True)
class AggregateSettings:
    """``aggregate:``: what the per-language and overall aggregates average."""

    of: Optional[str] = setting(
        None,
        "gain or score.",
        Nullable(Choice(("gain", "score"))),
        default_doc="gain when every task has baselines, else score",
    )


@dataclass(frozen=True)
class CriticalDifferenceSettings:
    """``critical_difference:``: the test of the critical-difference diagram (Demšar 2006)."""

    test: str = setting("nemenyi", "nemenyi, or wilcoxon (Wilcoxon signed-rank + Holm).", Choice(CD_TESTS))
    alpha: float = setting(0.05, "Its level.", Number(0, 1))


@dataclass(frozen=True)
class BenchmarkSettings:
    """The top level of ``benchmark.yaml``."""

    tasks: tuple = setting(doc="The test sets, each a mapping (the task keys below).", kind="list of tasks")
    title: str = setting("Benchmark", "The report's title.", Name())
    seed: int = setting(12345, "Every test set derives its own seed from it.", Integer(0, MAX_SEED))
    confidence_level: float = setting(0.95, "The level of every interval.", Number(0, 1))
    n_resamples: Optional[int] = setting(
        None, "B for every test set.", Nullable(Integer(1, 10**7)), default_doc="each task's config"
    )
    names: Optional[str] = setting(None, "A submission,name CSV (systems are matched by name).", Nullable(Path()))
    submissions: Optional[str] = setting(
        None, "Submissions read by every task that gives none (a Codabench bulk download).", Nullable(Path())
    )
    program: Optional[str] = setting(
        None, "The scoring program folder.", Nullable(Path()), default_doc="this package's program"
    )
    aggregate: AggregateSettings = setting(
        AggregateSettings(), "What the aggregates average.", section=AggregateSettings
    )
    critical_difference: CriticalDifferenceSettings = setting(
        CriticalDifferenceSettings(), "The critical-difference test.", section=CriticalDifferenceSettings
    )


@dataclass(frozen=True)
class TaskSpec:
    name: str
    language: Optional[str]
    reference: str
    submissions: str
    baselines: tuple = ()
    reference_point: Optional[float] = None
    weight: float = 1.0
    file: Optional[str] = None  # this task's prediction file in each submission (a glob)
    phase: Optional[str] = None  # the Codabench phase id of the submissions read
    shared: bool = False  # the submissions path is read by other tasks too
    key: str = ""  # "tasks[i]", for messages

    @property
    def label(self):
        return self.name if self.language is None else "%s (%s)" % (self.name, self.language)


@dataclass(frozen=True)
class BenchmarkDefinition:
    title: str
    tasks: tuple
    seed: int = 12345
    confidence_level: float = 0.95
    n_resamples: Optional[int] = None
    names: Optional[str] = None
    aggregate_of: Optional[str] = None
    cd_test: str = "nemenyi"
    cd_alpha: float = 0.05
    program: str = DEFAULT_PROGRAM
    source: str = "benchmark.yaml"


_SECTIONS = (("aggregate", AggregateSettings), ("critical_difference", CriticalDifferenceSettings))


def _top_level(data, shown):
    """The top level read against :class:`BenchmarkSettings` as ``parse_config`` reads ``config.yaml``'s."""
    keys = section_keys(BenchmarkSettings)
    unknown = sorted(set(data) - set(keys), key=str)
    if unknown:
        others = dict((name, section_keys(cls)) for name, cls in _SECTIONS)
        others["tasks[i]"] = section_keys(BenchmarkTaskSettings)
        raise unknown_key("%s: %r" % (shown, unknown[0]), unknown[0], keys, others)
    tasks = data.get("tasks")
    if not isinstance(tasks, list) or not tasks:
        raise ConfigError("%s: tasks must be a non-empty list of tasks, got %r" % (shown, tasks))
    values = dict(
        (f.name, s.check(data[f.name], "%s: %s" % (shown, f.name)))
        for f, s in setting_fields(BenchmarkSettings)
        if s.check is not None and f.name in data
    )
    values.update((name, validate_section(cls, data.get(name), name, shown)) for name, cls in _SECTIONS)
    return BenchmarkSettings(tasks=tuple(tasks), **values)


def _task_settings(entry, i, shown):
    """One ``tasks:`` entry read against :class:`BenchmarkTaskSettings`."""
    where = "tasks[%d]" % i
    if isinstance(entry, dict):
        for key in ("name", "reference"):
            if entry.get(key) is None:
                raise ConfigError("%s: %s needs %s" % (shown, where, key))
    return validate_section(BenchmarkTaskSettings, entry, where, shown)


def _check_tasks(tasks, top, shown):
    """Each task has submissions (its own or the top-level ones) and each (task, language) appears once."""
    seen = set()
    for i, task in enumerate(tasks):
        where = "tasks[%d]" % i
        if task.submissions is None and top.submissions is None:
            raise ConfigError(
                "%s: %s needs submissions (or a top-level submissions: shared by every task, such as "
                "a Codabench multi-task bulk download)" % (shown, where)
            )
        if (task.name, task.language) in seen:
            raise ConfigError(
                "%s: %s: task %r%s appears twice"
                % (shown, where, task.name, "" if task.language is None else " in language %r" % task.language)
            )
        seen.add((task.name, task.language))


def _resolve(tasks, top, base, shown):
    """The :class:`BenchmarkDefinition`: paths made absolute from the file's folder, shared submissions marked."""

    def here(value):
        return None if value is None else os.path.normpath(os.path.join(base, value))

    specs = [
        TaskSpec(
            t.name,
            t.language,
            here(t.reference),
            here(t.submissions if t.submissions is not None else top.submissions),
            tuple(t.baselines or ()),
            t.reference_point,
            float(t.weight),
            t.file,
            t.phase,
            key="tasks[%d]" % i,
        )
        for i, t in enumerate(tasks)
    ]
    readers = {}
    for spec in specs:
        readers[spec.submissions] = readers.get(spec.submissions, 0) + 1
    return BenchmarkDefinition(
        title=str(top.title),
        tasks=tuple(replace(spec, shared=readers[spec.submissions] > 1) for spec in specs),
        seed=top.seed,
        confidence_level=float(top.confidence_level),
        n_resamples=top.n_resamples,
        names=here(top.names),
        aggregate_of=top.aggregate.of,
        cd_test=top.critical_difference.test,
        cd_alpha=float(top.critical_difference.alpha),
        program=here(top.program) or DEFAULT_PROGRAM,
        source=shown,
    )


def load_benchmark(path):
    """Read and check ``benchmark.yaml``; every mistake is one sentence naming the file and the key.

    Raises
    ------
    ConfigError
        A missing file, invalid YAML (with its line), an unknown key (with "did
        you mean"), a value of the wrong type or range, a task without
        submissions, or a (task, language) listed twice.
    """
    shown = os.path.basename(path)
    if not os.path.isfile(path):
        raise ConfigError("the benchmark definition %s does not exist" % path)
    data = read_config(path, shown)
    top = _top_level(data, shown)
    tasks = [_task_settings(entry, i, shown) for i, entry in enumerate(data["tasks"])]
    _check_tasks(tasks, top, shown)
    return _resolve(tasks, top, os.path.dirname(os.path.abspath(path)), shown)
