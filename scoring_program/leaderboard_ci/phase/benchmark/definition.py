"""A benchmark's definition: ``benchmark.yaml`` read, checked and resolved into :class:`BenchmarkDefinition`."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Optional

import yaml

from ...scoring.errors import ConfigError

__all__ = ["TaskSpec", "BenchmarkDefinition", "load_benchmark", "DEFAULT_PROGRAM", "CD_TESTS"]


DEFAULT_PROGRAM = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
_TASK_KEYS = ("name", "language", "reference", "submissions", "file", "phase", "baselines", "reference_point", "weight")
_TOP_KEYS = (
    "title",
    "seed",
    "confidence_level",
    "n_resamples",
    "names",
    "aggregate",
    "critical_difference",
    "submissions",
    "tasks",
    "program",
)
CD_TESTS = ("nemenyi", "wilcoxon")


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


def _fail(source, message):
    return ConfigError("%s: %s" % (source, message))


def load_benchmark(path):
    """Read and check ``benchmark.yaml``; every mistake is one sentence naming the file and key."""
    shown = os.path.basename(path)
    if not os.path.isfile(path):
        raise ConfigError("the benchmark definition %s does not exist" % path)
    try:
        with open(path, encoding="utf-8-sig") as handle:
            data = yaml.safe_load(handle)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ConfigError(
            "%s%s is not valid YAML: %s"
            % (shown, " line %d" % (mark.line + 1) if mark else "", getattr(exc, "problem", None) or exc)
        )
    if not isinstance(data, dict):
        raise _fail(shown, "must be a mapping with a 'tasks' list")
    unknown = sorted(set(data) - set(_TOP_KEYS))
    if unknown:
        raise _fail(shown, "%r is not a known key; allowed: %s" % (unknown[0], ", ".join(_TOP_KEYS)))
    base = os.path.dirname(os.path.abspath(path))

    def here(value, where):
        if not isinstance(value, str) or not value.strip():
            raise _fail(shown, "%s must be a path, got %r" % (where, value))
        return os.path.normpath(os.path.join(base, value))

    tasks_data = data.get("tasks")
    if not isinstance(tasks_data, list) or not tasks_data:
        raise _fail(shown, "tasks must be a non-empty list of tasks")
    shared_path = here(data["submissions"], "submissions") if data.get("submissions") is not None else None
    tasks, seen = [], set()
    for i, t in enumerate(tasks_data):
        where = "tasks[%d]" % i
        if not isinstance(t, dict):
            raise _fail(shown, "%s must be a mapping" % where)
        unknown = sorted(set(t) - set(_TASK_KEYS))
        if unknown:
            raise _fail(shown, "%s.%s is not a known key; allowed: %s" % (where, unknown[0], ", ".join(_TASK_KEYS)))
        for key in ("name", "reference"):
            if key not in t:
                raise _fail(shown, "%s needs %s" % (where, key))
        if t.get("submissions") is None and shared_path is None:
            raise _fail(
                shown,
                "%s needs submissions (or a top-level submissions: shared by every task, such as "
                "a Codabench multi-task bulk download)" % where,
            )
        name = str(t["name"]).strip()
        language = None if t.get("language") is None else str(t["language"]).strip()
        if (name, language) in seen:
            raise _fail(
                shown,
                "%s: task %r%s appears twice" % (where, name, "" if language is None else " in language %r" % language),
            )
        seen.add((name, language))
        baselines = t.get("baselines") or ()
        if isinstance(baselines, str):
            baselines = [baselines]
        if not isinstance(baselines, (list, tuple)) or not all(isinstance(b, str) for b in baselines):
            raise _fail(shown, "%s.baselines must be a list of file names in the reference folder" % where)
        point = t.get("reference_point")
        if point is not None and (isinstance(point, bool) or not isinstance(point, (int, float))):
            raise _fail(shown, "%s.reference_point must be a number, got %r" % (where, point))
        weight = t.get("weight", 1.0)
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight <= 0:
            raise _fail(shown, "%s.weight must be a positive number, got %r" % (where, weight))
        pattern = t.get("file")
        if pattern is not None and (
            not isinstance(pattern, str)
            or not pattern.strip()
            or pattern.startswith("/")
            or ".." in pattern.split("/")
            or "\\" in pattern
        ):
            raise _fail(
                shown,
                "%s.file must be the name (or glob) of this task's file inside each submission, "
                "such as %s_%s.csv, got %r" % (where, name, language or "predictions", pattern),
            )
        phase = t.get("phase")
        if phase is not None and (isinstance(phase, bool) or not str(phase).strip().isdigit()):
            raise _fail(
                shown,
                "%s.phase must be a Codabench phase id (the number after PhaseId in the bulk "
                "download's names), got %r" % (where, phase),
            )
        submissions = (
            here(t["submissions"], where + ".submissions") if t.get("submissions") is not None else shared_path
        )
        tasks.append(
            TaskSpec(
                name,
                language,
                here(t["reference"], where + ".reference"),
                submissions,
                tuple(baselines),
                None if point is None else float(point),
                float(weight),
                None if pattern is None else pattern.strip(),
                None if phase is None else str(int(str(phase).strip())),
                key=where,
            )
        )
    readers = {}
    for task in tasks:
        readers[task.submissions] = readers.get(task.submissions, 0) + 1
    tasks = [replace(task, shared=readers[task.submissions] > 1) for task in tasks]
    agg = data.get("aggregate") or {}
    cd = data.get("critical_difference") or {}
    if not isinstance(agg, dict) or not isinstance(cd, dict):
        raise _fail(shown, "aggregate and critical_difference must be mappings")
    of = agg.get("of")
    if of not in (None, "gain", "score"):
        raise _fail(shown, "aggregate.of must be gain or score, got %r" % (of,))
    test = cd.get("test", "nemenyi")
    if test not in CD_TESTS:
        raise _fail(shown, "critical_difference.test must be one of: %s, got %r" % (", ".join(CD_TESTS), test))
    seed = data.get("seed", 12345)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise _fail(shown, "seed must be a non-negative integer, got %r" % (seed,))
    level = data.get("confidence_level", 0.95)
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
        raise _fail(shown, "confidence_level must be a number between 0 and 1, got %r" % (level,))
    b = data.get("n_resamples")
    if b is not None and (isinstance(b, bool) or not isinstance(b, int) or b < 1):
        raise _fail(shown, "n_resamples must be a positive integer, got %r" % (b,))
    return BenchmarkDefinition(
        title=str(data.get("title") or "Benchmark"),
        tasks=tuple(tasks),
        seed=seed,
        confidence_level=float(level),
        n_resamples=b,
        names=here(data["names"], "names") if data.get("names") else None,
        aggregate_of=of,
        cd_test=test,
        cd_alpha=float(cd.get("alpha", 0.05)),
        program=here(data["program"], "program") if data.get("program") else DEFAULT_PROGRAM,
        source=shown,
    )
