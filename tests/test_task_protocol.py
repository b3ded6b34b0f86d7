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
import inspect
import os
import re
import sys

import numpy as np
import pytest

from leaderboard_ci.tasks import protocol
from leaderboard_ci.tasks.base import GoldStandard, MetricInfo, MetricSpec, canonical_name
from leaderboard_ci.tasks.classification import ClassificationTask
from leaderboard_ci.tasks.protocol import CONSTANTS, HOOKS, REQUIRED, TaskType
from leaderboard_ci.tasks.registry import TASKS, pair_test_titles

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
    "detection": (
        {
            "images": [{"id": 1}, {"id": 2}, {"id": 3}],
            "categories": [{"id": 1, "name": "cat"}, {"id": 2, "name": "dog"}],
            "annotations": [
                {"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "area": 100, "iscrowd": 0},
                {"id": 2, "image_id": 2, "category_id": 2, "bbox": [5, 5, 40, 30], "area": 1200, "iscrowd": 0},
                {"id": 3, "image_id": 3, "category_id": 1, "bbox": [0, 0, 200, 200], "area": 40000, "iscrowd": 0},
            ],
        },
        {
            "s1": [
                {"image_id": 1, "category_id": 1, "bbox": [1, 1, 10, 10], "score": 0.9},
                {"image_id": 3, "category_id": 1, "bbox": [0, 0, 190, 200], "score": 0.7},
            ],
            "s2": [{"image_id": 2, "category_id": 2, "bbox": [5, 5, 40, 30], "score": 0.8}],
        },
        None,
        None,
    ),
}

#: The defaults ``make_spec`` receives from a config that sets none (besides a sample's pos_label).
DEFAULTS = {"labels": None, "pos_label": None, "zero_division": 0}


def _callable_names():
    return [name for name in REQUIRED + HOOKS if name not in CONSTANTS and name != "Statistics"]


def _spellings(task):
    """Every known metric spelling, with a number for a cut-off written ``k`` (``ndcg@k``, ``top_k_accuracy``)."""
    return [re.sub(r"(?<=[@_])k(?=_|$)", "3", name) for name in task.known_names()]


def _specs(task, pos_label=None):
    """A MetricSpec of every known spelling, built as the configuration builds it."""
    defaults = dict(DEFAULTS, pos_label=pos_label)
    specs = []
    for text in _spellings(task):
        found = task.resolve_name(canonical_name(text))
        assert found is not None, "%s: known name %r does not resolve" % (task.NAME, text)
        metric, options = found
        assert metric in task.METRICS, "%s: %r resolves to %r, not one of METRICS" % (task.NAME, text, metric)
        fields, key, title = task.make_spec(metric, dict(options), defaults)
        assert isinstance(fields, dict) and isinstance(key, str) and key and isinstance(title, str) and title
        specs.append(MetricSpec(name=metric, key=key, info=task.METRICS[metric], display_title=title, **fields))
    return specs


# ---------------------------------------------------------------------------
# The checks (each takes a task; each must be able to fail, see test_checks_catch_a_broken_task)
# ---------------------------------------------------------------------------
def check_constants(task):
    """Names and constants of the right kind; METRICS' infos belong to the task."""
    assert isinstance(task, TaskType)
    assert isinstance(task.NAME, str) and task.NAME
    assert isinstance(task.METRICS, dict) and task.METRICS, "%s has no metrics" % task.NAME
    for name, info in task.METRICS.items():
        assert isinstance(info, MetricInfo), "%s: METRICS[%r] is not a MetricInfo" % (task.NAME, name)
        assert info.task == task.NAME, "%s: METRICS[%r] belongs to task %r" % (task.NAME, name, info.task)
        assert info.direction in ("higher", "lower")
    assert isinstance(task.ALIASES, dict) and all(isinstance(k, str) for k in task.ALIASES)
    for attr in ("OPTIONS", "SETTINGS"):
        value = getattr(task, attr)
        assert isinstance(value, tuple) and all(isinstance(k, str) for k in value), "%s.%s" % (task.NAME, attr)
    assert isinstance(task.OWN_GOLD_FORMAT, bool) and isinstance(task.OWN_PREDICTION_FORMAT, bool)
    assert isinstance(task.UNIT_NAME, str) and isinstance(task.UNIT_VALUES_NAME, str)
    for attr, keys in (("SETTING_DOCS", task.SETTINGS), ("OPTION_DOCS", task.OPTIONS)):
        docs = getattr(task, attr)
        assert isinstance(docs, dict) and set(docs) <= set(keys), "%s.%s documents unknown keys" % (task.NAME, attr)
        assert all(isinstance(v, str) and v for v in docs.values()), "%s.%s" % (task.NAME, attr)
    assert set(task.SETTINGS) <= set(task.SETTING_DOCS), "%s: settings without a line in SETTING_DOCS: %s" % (
        task.NAME,
        sorted(set(task.SETTINGS) - set(task.SETTING_DOCS)),
    )
    assert isinstance(task.PAIR_TESTS, tuple)
    for entry in task.PAIR_TESTS:
        assert isinstance(entry, tuple) and len(entry) == 3, "%s: PAIR_TESTS holds %r" % (task.NAME, entry)
        column, title, metrics = entry
        assert isinstance(column, str) and isinstance(title, str) and set(metrics) <= set(task.METRICS)


def check_signatures(task):
    """Every method accepts the protocol's positional arguments; Statistics is a class."""
    base = TaskType()
    for name in _callable_names():
        method = getattr(task, name)
        assert callable(method), "%s.%s is not callable" % (task.NAME, name)
        n_args = len(inspect.signature(getattr(base, name)).parameters)
        try:
            inspect.signature(method).bind(*([None] * n_args))
        except TypeError:
            raise AssertionError(
                "%s.%s%s does not take the protocol's %d arguments %s"
                % (task.NAME, name, inspect.signature(method), n_args, inspect.signature(getattr(base, name)))
            )
    stats = task.Statistics
    assert inspect.isclass(stats), "%s.Statistics is not a class" % task.NAME
    assert callable(getattr(stats, "prepare", None)) and callable(getattr(stats, "score", None))
    inspect.signature(stats).bind(*([None] * 6))  # add, gold, predictions, metrics, group_codes, n_groups
    for flag, method in (("OWN_GOLD_FORMAT", "read_gold"), ("OWN_PREDICTION_FORMAT", "read_predictions")):
        overridden = getattr(type(task), method) is not getattr(TaskType, method)
        assert getattr(task, flag) == overridden, "%s: %s is %s but %s is %s" % (
            task.NAME,
            flag,
            getattr(task, flag),
            method,
            "its own" if overridden else "the default",
        )


def check_metric_names(task):
    """Every metric resolves by its own name, and every known spelling round-trips through make_spec."""
    for metric in task.METRICS:
        found = task.resolve_name(metric)
        assert found is not None and found[0] == metric, "%s: metric %r does not resolve" % (task.NAME, metric)
    for alias, _target in task.ALIASES.items():
        assert task.resolve_name(alias) is not None, "%s: alias %r does not resolve" % (task.NAME, alias)
    pos_label = SAMPLES[task.NAME][3] if task.NAME in SAMPLES else None
    for spec in _specs(task, pos_label):
        # The key a metric gets by default names it again: the same metric with the same fields.
        again = task.resolve_name(canonical_name(spec.key))
        assert again is not None, "%s: the default key %r does not resolve" % (task.NAME, spec.key)
        fields, key, _ = task.make_spec(again[0], dict(again[1]), dict(DEFAULTS, pos_label=pos_label))
        rebuilt = MetricSpec(name=again[0], key=key, info=task.METRICS[again[0]], **fields)
        assert (rebuilt.name, rebuilt.key, rebuilt.average, rebuilt.weights, rebuilt.options) == (
            spec.name,
            spec.key,
            spec.average,
            spec.weights,
            spec.options,
        ), "%s: %r does not round-trip" % (task.NAME, spec.key)


def check_pair_tests(task):
    """pair_tests gives ``{declared column: (declared title, p-values in [0, 1] per pair)}``."""
    gold_values, systems, labels, pos_label = SAMPLES[task.NAME]
    values, labels, coded = task.encode_values(gold_values, systems, labels, None)
    gold = GoldStandard(values=values, labels=labels, task=task.NAME)
    predictions = np.stack([coded[name] for name in systems], axis=1)
    items = np.ones(gold.n, dtype=bool)
    pairs = np.array([[0, 1], [1, 0]], dtype=np.intp)
    declared = dict((column, title) for column, title, _ in task.PAIR_TESTS)
    seen = set()
    for spec in _specs(task, pos_label):
        for sides in ("one", "two"):
            out = task.pair_tests(spec, gold, predictions, items, pairs, sides)
            assert isinstance(out, dict), "%s.pair_tests returned %r" % (task.NAME, type(out))
            for column, value in out.items():
                assert column in declared, "%s: pair test %r is not in PAIR_TESTS" % (task.NAME, column)
                assert isinstance(value, tuple) and len(value) == 2, "%s: %r is not (title, p-values)" % (
                    task.NAME,
                    column,
                )
                title, p = value
                assert title == declared[column], "%s: %r has title %r, declared %r" % (
                    task.NAME,
                    column,
                    title,
                    declared[column],
                )
                p = np.asarray(p, dtype=np.float64)
                assert p.shape == (len(pairs),) and np.all((p >= 0) & (p <= 1)), (task.NAME, column, p)
                assert task.needs_pair_tests([spec]), "%s: %s has a pair test but needs_pair_tests is False" % (
                    task.NAME,
                    spec.key,
                )
                seen.add(column)
    assert seen == set(declared), "%s: declared pair tests never returned on the sample: %s" % (
        task.NAME,
        sorted(set(declared) - seen),
    )


CHECKS = (check_constants, check_signatures, check_metric_names, check_pair_tests)


@pytest.mark.parametrize("name", list(TASKS))
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_task_conforms(name, check):
    assert TASKS[name].NAME == name
    check(TASKS[name])


def test_every_task_has_a_sample():
    assert set(SAMPLES) == set(TASKS), "add a sample of the new task to SAMPLES"


# ---------------------------------------------------------------------------
# The checks fail on tasks broken the way they look for
# ---------------------------------------------------------------------------
class _WrongInfo(ClassificationTask):
    METRICS = dict(ClassificationTask.METRICS, extra=MetricInfo("regression", "higher", 1.0, "extra"))


class _UndocumentedSetting(ClassificationTask):
    SETTINGS = ("threshold",)  # and no SETTING_DOCS line for it


class _WrongSignature(ClassificationTask):
    @staticmethod
    def make_spec(name):  # the protocol passes (name, options, defaults)
        return {}, name, name


class _UnknownSpelling(ClassificationTask):
    def known_names(self):
        return list(ClassificationTask.known_names()) + ["no_such_metric"]


class _UndeclaredPairTest(ClassificationTask):
    PAIR_TESTS = ()  # yet pair_tests still returns p_mcnemar for accuracy


class _FlagWithoutReader(ClassificationTask):
    OWN_GOLD_FORMAT = True  # but read_gold is the default


@pytest.mark.parametrize(
    "check, broken",
    [
        (check_constants, _WrongInfo),
        (check_constants, _UndocumentedSetting),
        (check_signatures, _WrongSignature),
        (check_signatures, _FlagWithoutReader),
        (check_metric_names, _UnknownSpelling),
        (check_pair_tests, _UndeclaredPairTest),
    ],
    ids=lambda x: getattr(x, "__name__", str(x)),
)
def test_checks_catch_a_broken_task(check, broken):
    check(ClassificationTask())  # the task it is derived from passes
    with pytest.raises(AssertionError):
        check(broken())


# ---------------------------------------------------------------------------
# The protocol, the class and the documentation page agree
# ---------------------------------------------------------------------------
def test_protocol_lists_the_class():
    public = set(n for n in dir(TaskType) if not n.startswith("_"))
    assert public == set(REQUIRED + HOOKS)
    assert len(set(REQUIRED + HOOKS)) == len(REQUIRED + HOOKS)
    for name in CONSTANTS:
        assert not callable(getattr(TaskType, name)), name


def test_documentation_page_lists_the_protocol():
    with open(DOCS_PAGE) as f:
        page = f.read()
    for name in REQUIRED + HOOKS:
        assert ("`%s`" % name in page) or ("`%s(" % name in page), "%s is not documented in %s" % (name, DOCS_PAGE)
    # Every name a definition heading of the page documents (the line before ":   ") is one of the protocol's.
    documented = set()
    lines = page.splitlines()
    for line, following in zip(lines, lines[1:]):
        if following.startswith(":   "):
            for part in line.split("`")[1::2]:
                documented.add(part.split("(")[0].split(" ")[0])
    assert documented <= set(REQUIRED + HOOKS), sorted(documented - set(REQUIRED + HOOKS))
    assert "docs/adding_a_task_type.md" in protocol.__doc__


def test_pair_test_titles_come_from_the_tasks():
    titles = pair_test_titles()
    for task in TASKS.values():
        for column, title, _ in task.PAIR_TESTS:
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
                        if any(m.split(".")[-1] in module_names and ".tasks" in "." + m for m in modules):
                            found.append((rel, node.lineno, "import from %s" % node.module))
                    elif isinstance(node, ast.Import):
                        for alias in node.names:
                            parts = alias.name.split(".")
                            if "tasks" in parts and parts[-1] in module_names:
                                found.append((rel, node.lineno, "import %s" % alias.name))
    return found


def _task_module_names():
    return set(type(task).__module__.split(".")[-1] for task in TASKS.values())


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
