"""Conformance of every registered task type to :class:`leaderboard_ci.tasks.protocol.TaskType`.

Parametrized over :data:`leaderboard_ci.tasks.registry.TASKS`, so a new task type is checked
as soon as it is registered: its names and constants have the right kind, every metric
resolves and ``make_spec`` round-trips it with the defaults, every method accepts the
protocol's arguments, ``Statistics`` is a class with ``prepare`` and ``score``, and
``pair_tests`` returns ``{declared column: (declared title, p-values)}`` on a small sample.
The protocol (``REQUIRED``, ``HOOKS``), the class and ``docs/adding_a_task_type.md`` must
agree.  Each check is shown to fail on a task broken in the way it looks for.

Then no library module outside ``tasks/`` names a task type or probes one: the ``scoring``,
``phase``, ``report`` and ``tools`` layers are scanned for string literals equal to a task's
name, imports of a task's module, and ``getattr``/``hasattr`` on a task or its statistics
(allow-list below, with the reason for each entry).
"""

import ast
import dataclasses
import inspect
import os
import re
import sys

import numpy as np
import pytest

from leaderboard_ci.tasks import protocol
from leaderboard_ci.tasks.protocol import (
    CORE,
    GoldStandard,
    Metric,
    MetricInfo,
    Metrics,
    MetricSpec,
    Option,
    PairTests,
    TaskSettings,
    TaskType,
    UnitTable,
    setting,
)
from leaderboard_ci.tasks.registry import TASKS, pair_test_titles
from leaderboard_ci.tasks.shared.base import canonical_name
from leaderboard_ci.tasks.shared.scorer import SystemScorer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "scoring_program", "leaderboard_ci")
DOCS_PAGE = os.path.join(ROOT, "docs", "adding_a_task_type.md")

#: Per task: ``(gold values, {system: values}, labels, pos_label)`` in the in-memory format of
#: ``encode_values``: a few items, two systems, enough for the task's pair tests to run.
SAMPLES = {
    "classification": (list("abababab"), {"s1": list("abababaa"), "s2": list("aaabbbab")}, None, "b"),
    "regression": (
        [1.0, 2.0, 3.5, 4.0, 5.5, 6.0],
        {"s1": [1.1, 2.2, 3.0, 4.4, 5.0, 6.1], "s2": [0.5, 2.5, 3.5, 3.0, 6.5, 5.0]},
        None,
        None,
    ),
    "scores": (
        ["neg", "pos"] * 4,
        {"s1": [0.1, 0.9, 0.2, 0.7, 0.4, 0.6, 0.3, 0.8], "s2": [0.6, 0.5, 0.1, 0.9, 0.7, 0.2, 0.4, 0.3]},
        None,
        "pos",
    ),
    "multilabel": (
        [["a"], ["b"], ["a", "b"], [], ["a"], ["b"]],
        {"s1": [["a"], ["b"], ["a"], [], ["a", "b"], ["b"]], "s2": [["b"], ["b"], ["a", "b"], ["a"], ["a"], []]},
        None,
        None,
    ),
    "sequence": (
        [["B-PER", "I-PER", "O"], ["O", "B-LOC"], ["B-LOC", "O", "B-PER"]],
        {
            "s1": [["B-PER", "I-PER", "O"], ["O", "O"], ["B-LOC", "O", "B-PER"]],
            "s2": [["B-PER", "O", "O"], ["O", "B-LOC"], ["B-PER", "O", "O"]],
        },
        None,
        None,
    ),
    "qa": (
        ["paris", ["rome", "roma"], "the red house", "madrid"],
        {"s1": ["Paris", "rome", "a red house", "lisbon"], "s2": ["london", "Roma", "the red house", "madrid"]},
        None,
        None,
    ),
    "generation": (
        ["The cat sat on the mat.", ["It rains.", "It is raining."], "我爱北京。", "1,000 people came."],
        {
            "s1": ["The cat sat on a mat.", "It rains.", "我爱北京", ""],
            "s2": ["A cat.", "Rain!", "北京。", "1,000 came"],
        },
        None,
        None,
    ),
    "ranking": (
        [("q1", {"d1": 1, "d2": 0, "d3": 2}), ("q2", {"d4": 1}), ("q3", {"d5": 0, "d6": 1})],
        {
            "s1": {"q1": {"d1": 1.0, "d3": 0.5}, "q2": {"d4": 0.9}, "q3": {"d6": 0.3, "d5": 0.2}},
            "s2": {"q1": {"d2": 1.0, "d1": 0.4}, "q2": {"d9": 0.9}, "q3": {"d5": 0.8}},
        },
        None,
        None,
    ),
    "soft_labels": (
        [{"YES": 0.5, "NO": 0.5}, {"YES": 1.0, "NO": 0.0}, {"YES": 1 / 6.0, "NO": 5 / 6.0}],
        {
            "s1": [{"YES": 0.4, "NO": 0.6}, {"YES": 0.9, "NO": 0.1}, {"YES": 0.2, "NO": 0.8}],
            "s2": [{"YES": 0.7, "NO": 0.3}, {"YES": 0.5, "NO": 0.5}, {"YES": 0.0, "NO": 1.0}],
        },
        ("YES", "NO"),
        None,
    ),
    "preference": (
        [("m1", "m2", "model_a"), ("m2", "m3", "tie"), ("m3", "m1", "model_b"), ("m1", "m3", "tie (bothbad)")],
        {"s1": "m1", "s2": "m3"},
        None,
        None,
    ),
}

#: The defaults ``make_spec`` receives from a config that sets none (besides a sample's pos_label).
DEFAULTS = {"labels": None, "pos_label": None, "zero_division": 0}

#: The positional arguments of each function field and capability (``docs/adding_a_task_type.md``).
ARGUMENTS = {
    "read_gold": 2,
    "read_predictions": 3,
    "encode_values": 4,
    "decode": 2,
    "submission_format": 3,
    "unit_values": 3,
    "analytic_interval": 4,
    "sparse_units": 4,
    "item_contributions": 3,
}


def _spellings(task):
    """Every known metric spelling, with a number for a cut-off written ``k`` (``ndcg@k``, ``top_k_accuracy``)."""
    return [re.sub(r"(?<=[@_])k(?=_|$)", "3", name) for name in task.metrics.known_names()]


def _specs(task, pos_label=None):
    """A MetricSpec of every known spelling, built as the configuration builds it."""
    defaults = dict(DEFAULTS, pos_label=pos_label)
    specs = []
    for text in _spellings(task):
        found = task.metrics.resolve(canonical_name(text))
        assert found is not None, "%s: known name %r does not resolve" % (task.name, text)
        metric, options = found
        assert metric.name in task.metrics, "%s: %r resolves to %r, not one of its metrics" % (task.name, text, metric)
        fields, key, title = task.metrics.make_spec(metric.name, dict(options), defaults)
        assert isinstance(fields, dict) and isinstance(key, str) and key and isinstance(title, str) and title
        specs.append(MetricSpec(name=metric.name, key=key, info=metric.info, display_title=title, **fields))
    return specs


def _takes(function, n_args, what):
    try:
        inspect.signature(function).bind(*([None] * n_args))
    except TypeError:
        raise AssertionError(
            "%s%s does not take the protocol's %d arguments" % (what, inspect.signature(function), n_args)
        )


# ---------------------------------------------------------------------------
# The checks (each takes a task; each must be able to fail, see test_checks_catch_a_broken_task)
# ---------------------------------------------------------------------------
def check_core(task):
    """The core fields have the right kind; every metric belongs to the task; every setting is documented."""
    assert isinstance(task, TaskType)
    assert isinstance(task.name, str) and task.name
    assert isinstance(task.metrics, Metrics) and len(task.metrics), "%s has no metrics" % task.name
    for name, metric in task.metrics.items():
        assert isinstance(metric, Metric) and metric.name == name
        assert isinstance(metric.info, MetricInfo), "%s: %r has no MetricInfo" % (task.name, name)
        assert metric.info.task == task.name, "%s: metric %r belongs to task %r" % (task.name, name, metric.info.task)
        assert metric.direction in ("higher", "lower")
        for option in metric.options:
            assert isinstance(option, Option) and option.doc, "%s: %s's option %r has no doc" % (
                task.name,
                name,
                option,
            )
    assert all(isinstance(k, str) for k in task.metrics.aliases)
    assert inspect.isclass(task.Settings) and issubclass(task.Settings, TaskSettings)
    docs = task.Settings.docs()
    assert all(isinstance(v, str) and v for v in docs.values()), "%s: settings without a line: %s" % (
        task.name,
        sorted(k for k, v in docs.items() if not v),
    )
    hash(task.Settings())  # hashable defaults: configurations compare and hash
    assert isinstance(task.unit_name, str) and task.unit_name


def check_capabilities(task):
    """Each capability is None or of its type; pair tests declare columns of the task's metrics."""
    assert task.pair_tests is None or isinstance(task.pair_tests, PairTests)
    if task.pair_tests is not None:
        assert isinstance(task.pair_tests.columns, tuple) and task.pair_tests.columns
        for entry in task.pair_tests.columns:
            assert isinstance(entry, tuple) and len(entry) == 3, "%s: pair test %r" % (task.name, entry)
            column, title, metrics = entry
            assert isinstance(column, str) and isinstance(title, str) and set(metrics) <= set(task.metrics)
    assert task.unit_table is None or (isinstance(task.unit_table, UnitTable) and task.unit_table.unit)


def check_signatures(task):
    """Every function takes the protocol's positional arguments; Statistics is a class."""
    for name, n_args in ARGUMENTS.items():
        function = getattr(task, name)
        if function is not None or name in CORE:
            assert callable(function), "%s.%s is not callable" % (task.name, name)
            _takes(function, n_args, "%s.%s" % (task.name, name))
    if task.pair_tests is not None:
        _takes(task.pair_tests.run, 6, "%s.pair_tests.run" % task.name)
    if task.unit_table is not None:
        _takes(task.unit_table.rows, 7, "%s.unit_table.rows" % task.name)
    stats = task.Statistics
    assert inspect.isclass(stats), "%s.Statistics is not a class" % task.name
    assert callable(stats.prepare) and callable(stats.score)
    inspect.signature(stats).bind(*([None] * 6))  # add, gold, predictions, metrics, group_codes, n_groups


def check_metric_names(task):
    """Every metric resolves by its own name, and every known spelling round-trips through make_spec."""
    for name in task.metrics:
        found = task.metrics.resolve(name)
        assert found is not None and found[0].name == name, "%s: metric %r does not resolve" % (task.name, name)
    for alias in list(task.metrics.aliases) + list(task.metrics.shorthands):
        assert task.metrics.resolve(alias) is not None, "%s: alias %r does not resolve" % (task.name, alias)
    pos_label = SAMPLES[task.name][3] if task.name in SAMPLES else None
    for spec in _specs(task, pos_label):
        # The key a metric gets by default names it again: the same metric with the same fields.
        again = task.metrics.resolve(canonical_name(spec.key))
        assert again is not None, "%s: the default key %r does not resolve" % (task.name, spec.key)
        fields, key, _ = task.metrics.make_spec(again[0].name, dict(again[1]), dict(DEFAULTS, pos_label=pos_label))
        rebuilt = MetricSpec(name=again[0].name, key=key, info=again[0].info, **fields)
        assert (rebuilt.name, rebuilt.key, rebuilt.average, rebuilt.weights, rebuilt.options) == (
            spec.name,
            spec.key,
            spec.average,
            spec.weights,
            spec.options,
        ), "%s: %r does not round-trip" % (task.name, spec.key)


def check_pair_tests(task):
    """pair_tests gives ``{declared column: (declared title, p-values in [0, 1] per pair)}``."""
    if task.pair_tests is None:
        return
    gold_values, systems, labels, pos_label = SAMPLES[task.name]
    values, labels, coded = task.encode_values(gold_values, systems, labels, task.Settings())
    gold = GoldStandard(values=values, labels=labels, task=task.name)
    predictions = np.stack([coded[name] for name in systems], axis=1)
    items = np.ones(gold.n, dtype=bool)
    pairs = np.array([[0, 1], [1, 0]], dtype=np.intp)
    declared = task.pair_tests.titles()
    seen = set()
    for spec in _specs(task, pos_label):
        for sides in ("one", "two"):
            out = task.pair_tests.run(spec, gold, predictions, items, pairs, sides)
            assert isinstance(out, dict), "%s.pair_tests returned %r" % (task.name, type(out))
            for column, value in out.items():
                assert column in declared, "%s: pair test %r is not declared" % (task.name, column)
                assert isinstance(value, tuple) and len(value) == 2, "%s: %r is not (title, p-values)" % (
                    task.name,
                    column,
                )
                title, p = value
                assert title == declared[column], "%s: %r has title %r, declared %r" % (
                    task.name,
                    column,
                    title,
                    declared[column],
                )
                p = np.asarray(p, dtype=np.float64)
                assert p.shape == (len(pairs),) and np.all((p >= 0) & (p <= 1)), (task.name, column, p)
                assert task.pair_tests.needed([spec]), "%s: %s has a pair test but is not needed" % (
                    task.name,
                    spec.key,
                )
                seen.add(column)
    assert seen == set(declared), "%s: declared pair tests never returned on the sample: %s" % (
        task.name,
        sorted(set(declared) - seen),
    )


def check_encodes_the_sample(task):
    """The in-memory encoding of the sample scores every metric on the full sample (finite or NaN)."""
    gold_values, systems, labels, pos_label = SAMPLES[task.name]
    values, labels, coded = task.encode_values(gold_values, systems, labels, task.Settings())
    gold = GoldStandard(values=values, labels=labels, task=task.name, settings=task.Settings())
    specs = []
    for spec in _specs(task, pos_label):
        try:
            task.Settings().check([spec], labels)
        except ValueError:  # a metric that needs a setting the sample does not have (a coarse level, style_elo)
            continue
        specs.append(spec)
    for name in systems:
        scorer = SystemScorer(specs, gold, coded[name])
        stats = [acc.full()[None, :] for acc in scorer.accumulators]
        scores = scorer.scores(stats)
        assert scores.shape == (1, len(scorer.targets))


CHECKS = (
    check_core,
    check_capabilities,
    check_signatures,
    check_metric_names,
    check_pair_tests,
    check_encodes_the_sample,
)


@pytest.mark.parametrize("name", list(TASKS))
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_task_conforms(name, check):
    assert TASKS[name].name == name
    check(TASKS[name])


def test_every_task_has_a_sample():
    assert set(SAMPLES) == set(TASKS), "add a sample of the new task to SAMPLES"


# ---------------------------------------------------------------------------
# The checks fail on tasks broken the way they look for
# ---------------------------------------------------------------------------
def _classification(**changes):
    return dataclasses.replace(TASKS["classification"], **changes)


def _wrong_task():
    metrics = TASKS["classification"].metrics.values()
    return Metrics(list(metrics) + [Metric("regression", "extra", "extra", "higher", 1.0)])


def _undocumented():
    @dataclasses.dataclass(frozen=True)
    class Undocumented(TaskSettings):
        threshold: float = setting(0.5)  # and no line for the reference

    return Undocumented


def _wrong_signature(name):
    return name, name, name


def _undeclared(spec, gold, predictions, items, pairs, sides):
    return {"p_other": ("p (other)", np.ones(len(pairs)))}


BROKEN = [
    (check_core, lambda: _classification(Settings=_undocumented())),
    (
        check_capabilities,
        lambda: _classification(pair_tests=PairTests((("p", "p", ("no_such_metric",)),), _undeclared)),
    ),
    (check_signatures, lambda: _classification(read_gold=_wrong_signature)),
    (check_metric_names, lambda: _classification(metrics=_renamed())),
    (
        check_pair_tests,
        lambda: _classification(pair_tests=PairTests((("p_mcnemar", "p", ("accuracy",)),), _undeclared)),
    ),
]


def _renamed():
    """A catalog whose names list a spelling that resolves to nothing."""

    class Listed(object):
        def __init__(self, inner):
            self.inner = inner

        def __getattr__(self, name):
            return getattr(self.inner, name)

        def __iter__(self):
            return iter(self.inner)

        def __contains__(self, name):
            return name in self.inner

        def __len__(self):
            return len(self.inner)

        def known_names(self):
            return self.inner.known_names() + ["no_such_metric"]

    return Listed(TASKS["classification"].metrics)


@pytest.mark.parametrize("check, broken", BROKEN, ids=lambda x: getattr(x, "__name__", str(x)))
def test_checks_catch_a_broken_task(check, broken):
    check(TASKS["classification"])  # the task it is derived from passes
    with pytest.raises(AssertionError):
        check(broken())


def test_a_metric_of_another_task_is_refused():
    with pytest.raises(ValueError, match="belongs to task regression"):
        _classification(metrics=_wrong_task())


# ---------------------------------------------------------------------------
# The protocol, the class and the documentation page agree
# ---------------------------------------------------------------------------
def test_documentation_page_lists_the_protocol():
    with open(DOCS_PAGE) as f:
        page = f.read()
    fields = protocol.CORE + protocol.CAPABILITIES
    assert set(fields) == set(f.name for f in dataclasses.fields(protocol.TaskType))
    # The definition headings (the line before ":   ") of the core and the capabilities name exactly the fields.
    described = page[page.index("### The core") : page.index("## Reading files")]
    documented = []
    lines = described.splitlines()
    for line, following in zip(lines, lines[1:]):
        if following.startswith(":   "):
            documented.append(line.split("`")[1].split("(")[0])
    assert sorted(documented) == sorted(fields), sorted(set(documented) ^ set(fields))
    assert "docs/adding_a_task_type.md" in protocol.__doc__


def test_pair_test_titles_come_from_the_tasks():
    titles = pair_test_titles()
    for task in TASKS.values():
        if task.pair_tests is not None:
            for column, title, _ in task.pair_tests.columns:
                assert titles[column] == title


# ---------------------------------------------------------------------------
# No task name outside tasks/
# ---------------------------------------------------------------------------
#: ``(module path under leaderboard_ci, literal) -> reason`` of the task names that may stay.
ALLOWED = {
    ("report/benchmark_report.py", "scores"): "the benchmark JSON's key for the per-system scores, not the task",
    ("tools/bundle_check.py", "scores"): "the name of the bundle check on scores.json, not the task",
}
SCANNED = ("scoring", "phase", "report", "tools")


def _string(node):
    """The value of a string literal node, else None (``ast.Str`` before Python 3.8)."""
    if sys.version_info < (3, 8) and isinstance(node, ast.Str):
        return node.s
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _docstrings(tree):
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and _string(first.value) is not None:
                out.add(id(first.value))
    return out


def _names_a_task(expr):
    """Whether an expression is a task or its statistics (``task``, ``scorer.task``, ``main.statistics``...)."""
    words = [n.id for n in ast.walk(expr) if isinstance(n, ast.Name)] + [
        n.attr for n in ast.walk(expr) if isinstance(n, ast.Attribute)
    ]
    words += [n.func.id for n in ast.walk(expr) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    return any("task" in w.lower() or w == "statistics" for w in words)


def task_names_in(package_dir, task_names, module_names):
    """``[(path, line, what)]``: string literals equal to a task name, imports of a task module, and
    ``getattr``/``hasattr`` probes on a task (its hooks have defaults: call them)."""
    found = []
    for layer in SCANNED:
        for root, dirs, files in os.walk(os.path.join(package_dir, layer)):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for f in sorted(files):
                if not f.endswith(".py"):
                    continue
                path = os.path.join(root, f)
                rel = os.path.relpath(path, package_dir).replace(os.sep, "/")
                with open(path) as handle:
                    tree = ast.parse(handle.read())
                docstrings = _docstrings(tree)
                for node in ast.walk(tree):
                    text = _string(node)
                    if text in task_names and id(node) not in docstrings and (rel, text) not in ALLOWED:
                        found.append((rel, node.lineno, repr(text)))
                    elif (
                        isinstance(node, ast.Call)
                        and isinstance(node.func, ast.Name)
                        and node.func.id in ("getattr", "hasattr")
                        and node.args
                        and _names_a_task(node.args[0])
                    ):
                        found.append((rel, node.lineno, "%s probe on a task" % node.func.id))
                    elif isinstance(node, ast.ImportFrom) and node.module:
                        modules = [node.module + "." + a.name for a in node.names] + [node.module]
                        if any(_in_a_task(m, module_names) for m in modules):
                            found.append((rel, node.lineno, "import from %s" % node.module))
                    elif isinstance(node, ast.Import):
                        for alias in node.names:
                            if _in_a_task(alias.name, module_names):
                                found.append((rel, node.lineno, "import %s" % alias.name))
    return found


def _in_a_task(module, packages):
    """Whether a dotted module name is a task's subpackage or a module in it (``..tasks.ranking.files``)."""
    parts = module.split(".")
    return any(part == "tasks" and parts[i + 1 : i + 2] and parts[i + 1] in packages for i, part in enumerate(parts))


def _task_module_names():
    """The subpackages of the registered task types (``tasks/<name>/``)."""
    return set(TASKS)


def test_no_task_name_outside_tasks():
    found = task_names_in(PACKAGE, set(TASKS), _task_module_names())
    assert not found, "task types named outside tasks/ (go through the TaskType protocol instead): %s" % found


def test_the_scan_finds_a_planted_task_name(tmp_path):
    for layer in SCANNED:
        os.makedirs(str(tmp_path / layer))
    (tmp_path / "phase" / "planted.py").write_text(
        '"""A docstring may say classification."""\n'
        "from ..tasks.classification import check_labels\n\n\n"
        'def f(gold):\n    return gold.kind == "regression"\n\n\n'
        'def g(gold, scorer):\n    return getattr(task_type(gold.kind), "sparse_units", None), '
        'hasattr(scorer.statistics, "unit_values"), getattr(gold, "labels", None)\n'
    )
    found = task_names_in(str(tmp_path), set(TASKS), _task_module_names())
    assert sorted((path, line) for path, line, _ in found) == [
        ("phase/planted.py", 2),
        ("phase/planted.py", 6),
        ("phase/planted.py", 10),
        ("phase/planted.py", 10),
    ]
