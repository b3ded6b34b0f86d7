"""The package's layers, enforced by an import scan (the rules are in docs/architecture.md, "Layers").

Every ``import`` and ``from ... import`` of every module of ``leaderboard_ci`` is read
with :mod:`ast`, at module level and inside functions, and checked against the rules:

* ``core``: the standard library, numpy and ``core`` only;
* ``tasks``: adds ``core`` (and Pillow, optional: segmentation's PNG masks decode faster with it);
* ``scoring``: adds ``tasks`` and PyYAML (the per-submission path: Python 3.7, no more);
* ``phase``: adds ``scoring``, pandas, SciPy, statsmodels, tqdm and Dask; ``report`` only inside
  functions (to write what it computed);
* ``report``: ``core``, ``tasks`` (metric facts), pandas and numpy; never ``phase``; matplotlib only
  in ``report/plots.py``;
* ``tools``: anything but ``cli``; nothing but ``cli``, scripts and tests imports ``tools``;
* ``cli``: anything (the command line, the outermost layer); nothing in the package imports it;
* top-level modules (``__init__``, ``_version``): the standard library only;
* no import cycle, counting imports inside functions too;
* in ``core``, ``scoring`` and ``phase``'s ``analysis``, ``execution`` and ``ingestion``, package
  imports sit at the module top: a function-local one needs its reason in ``LOCAL_IMPORTS`` (the
  ``phase`` -> ``report`` imports, local by rule, excepted);
* no cycle between the subpackages of ``phase`` either (``analysis`` may import ``execution`` or the
  reverse, not both), counting each subpackage as one node.

Functions stay short (issue 36): none over 100 lines, none over 60 in ``core``, but those listed
in ``LONG_FUNCTIONS`` with a reason.

The same checker is run on a copy of the package with a wrong import planted, to show that it fails.
"""

import ast
import functools
import io
import os
import shutil
import sys
import tokenize

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "scoring_program", "leaderboard_ci")
NAME = "leaderboard_ci"

#: Third-party top-level modules each layer may import (the standard library is always allowed).
THIRD_PARTY = {
    "core": {"numpy", "threadpoolctl"},  # threadpoolctl: optional, used when installed
    "tasks": {"numpy", "PIL"},  # PIL: optional, the faster decoder of 8-bit PNG masks when installed
    "scoring": {"numpy", "yaml"},
    "phase": {"numpy", "yaml", "pandas", "scipy", "statsmodels", "tqdm", "dask", "distributed"},
    "report": {"numpy", "pandas", "matplotlib", "PIL"},  # PIL: matplotlib's own dependency, in plots
    "tools": {"numpy", "yaml", "pandas", "scipy", "sklearn", "matplotlib", "dateutil", "PIL"},  # PIL: the sample logo
    "cli": {"numpy", "yaml", "pandas", "tqdm"},  # tqdm: optional, the progress bar of the end of phase
    "": set(),
}
#: Layers of this package each layer may import (module level; see LAZY_ONLY for inside functions).
INTERNAL = {
    "core": {"core"},
    "tasks": {"core", "tasks"},
    "scoring": {"core", "tasks", "scoring", ""},
    "phase": {"core", "tasks", "scoring", "phase", "report", ""},
    "report": {"core", "tasks", "report", ""},
    "tools": {"core", "tasks", "scoring", "phase", "report", "tools", ""},
    "cli": {"core", "tasks", "scoring", "phase", "report", "tools", "cli", ""},
    "": {""},
}
#: (importer layer, imported layer) allowed only inside functions, never at module level.
LAZY_ONLY = {("phase", "report")}
#: Where this package's own imports sit at the module top (issue 36: no hidden coupling); dotted prefixes.
TOP_IMPORT_SCOPES = ("core", "scoring", "phase.analysis", "phase.execution", "phase.ingestion", "report", "tools")
#: Function-local package imports allowed there: ``{(module, imported module): reason}`` (module names
#: without the leading ``leaderboard_ci.``).  Keep a lazy import only for a heavy optional dependency.
_MATPLOTLIB = "matplotlib (report.plots and the figure modules on it), loaded only when figures are drawn"
_SHAKEUP = "not moved in session 5: the shake-up's report files were another branch's (v5-shake)"
LOCAL_IMPORTS = {
    ("report.benchmark_report", "report.benchmark_plots"): _MATPLOTLIB,
    ("report.benchmark_report", "report.plots"): _MATPLOTLIB,
    ("report.file_writer", "report.plots"): _MATPLOTLIB,
    ("report.files", "report.plots"): _MATPLOTLIB,
    ("report.html_parts", "report.field_plots"): _MATPLOTLIB,
    ("report.html_parts", "report.plots"): _MATPLOTLIB,
    ("report.html_parts", "report.rank_plots"): _MATPLOTLIB,
    ("report.html_report", "report.plots"): _MATPLOTLIB,
    ("tools.plan_output", "report.plots"): _MATPLOTLIB,
    ("report.shakeup_files", "report.plots"): _MATPLOTLIB,
    ("report.shakeup_files", "report.shakeup_plots"): _MATPLOTLIB,
    ("report.shakeup_html", "report.plots"): _MATPLOTLIB,
    ("report.shakeup_html", "report.shakeup_plots"): _MATPLOTLIB,
    ("report.shakeup_files", "report.html_parts"): _SHAKEUP,
    ("report.shakeup_files", "report.shakeup_html"): _SHAKEUP,
    ("report.shakeup_plots", "report.shakeup_tables"): _SHAKEUP,
}
#: The only module that may import matplotlib.
MATPLOTLIB_MODULE = NAME + ".report.plots"
#: Modules with more lines of code than this need a reason here.  Lines of code: not blank, not only a
#: comment, not part of a docstring, as ``ruff format`` lays them out (docstrings are not penalized).
MAX_LINES = 600
LONG_MODULES = {}


def _is_stdlib(top):
    if top in sys.builtin_module_names:
        return True
    names = getattr(sys, "stdlib_module_names", None)
    if names is not None:
        return top in names
    import importlib.util

    spec = importlib.util.find_spec(top)
    origin = getattr(spec, "origin", None) or ""
    return spec is not None and "site-packages" not in origin and "dist-packages" not in origin


def modules(package_dir):
    """``{dotted name: path}`` of every module under ``package_dir``."""
    out = {}
    for root, dirs, files in os.walk(package_dir):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for f in files:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(root, f), package_dir)[:-3].split(os.sep)
                if rel[-1] == "__init__":
                    rel = rel[:-1]
                out[".".join([NAME] + rel)] = os.path.join(root, f)
    return out


def _is_package(path):
    return os.path.basename(path) == "__init__.py"


def imports(name, path):
    """``[(imported dotted name, line, inside a function?)]`` of one module."""
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    return _imports_of(name, _is_package(path), source)


@functools.lru_cache(maxsize=None)
def _imports_of(name, is_package, source):
    """:func:`imports` of a module's source, parsed once per content: the planted copies below reparse
    only the module they change (the scan of the 289 others would cost seconds per copy)."""
    tree = ast.parse(source, name)
    package = name if is_package else name.rsplit(".", 1)[0]
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend((alias.name, child.lineno, in_function) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[: len(base) - (child.level - 1)]
                    target = ".".join(base + ([child.module] if child.module else []))
                    if child.module is None:  # from . import x: x may be a module
                        found.extend((target + "." + alias.name, child.lineno, in_function) for alias in child.names)
                        continue
                else:
                    target = child.module
                found.append((target, child.lineno, in_function))
            visit(child, inner)

    visit(tree, False)
    return tuple(found)


def layer_of(dotted):
    """``core``, ``tasks``, ... for a module of the package; ``""`` for a top-level module."""
    parts = dotted.split(".")
    if len(parts) >= 3 or (len(parts) == 2 and parts[1] in INTERNAL):
        return parts[1]
    return ""


def _resolve(dotted, known):
    """The package module an import names (``from x import name`` may name a module or an attribute)."""
    while dotted and dotted not in known:
        dotted = dotted.rsplit(".", 1)[0] if "." in dotted else ""
    return dotted


def _in_scope(name):
    short = name[len(NAME) + 1 :]
    return any(short == scope or short.startswith(scope + ".") for scope in TOP_IMPORT_SCOPES)


def local_imports(package_dir):
    """The function-local package imports of :data:`TOP_IMPORT_SCOPES` not excused by a rule or a reason."""
    known = modules(package_dir)
    out = []
    for name, path in sorted(known.items()):
        if not _in_scope(name):
            continue
        for target, line, lazy in imports(name, path):
            if not lazy or target.split(".")[0] != NAME:
                continue
            resolved = _resolve(target, known) or target
            key = (name[len(NAME) + 1 :], resolved[len(NAME) + 1 :])
            if (layer_of(name), layer_of(resolved)) in LAZY_ONLY or key in LOCAL_IMPORTS:
                continue
            where = "%s:%d" % (os.path.relpath(path, os.path.dirname(package_dir)), line)
            out.append("%s: %s imports %s inside a function; move it to the module top" % (where, key[0], key[1]))
    return out


def violations(package_dir):
    """Every broken rule, as one line each (empty when the layout is clean)."""
    known = modules(package_dir)
    problems = local_imports(package_dir)
    graph = {name: set() for name in known}
    for name, path in sorted(known.items()):
        layer = layer_of(name)
        for target, line, lazy in imports(name, path):
            where = "%s:%d" % (os.path.relpath(path, os.path.dirname(package_dir)), line)
            top = target.split(".")[0]
            if top == NAME:
                resolved = _resolve(target, known)
                if resolved and resolved != name:
                    graph[name].add(resolved)
                other = layer_of(resolved or target)
                if other not in INTERNAL[layer]:
                    problems.append(
                        "%s: %s (%s) imports %s (%s)"
                        % (where, name, layer or "top level", target, other or "top level")
                    )
                elif (layer, other) in LAZY_ONLY and not lazy:
                    problems.append(
                        "%s: %s imports %s at module level; %s may import %s only inside functions"
                        % (where, name, target, layer, other)
                    )
                if other == "tools" and layer not in ("tools", "cli"):
                    problems.append("%s: %s imports tools; only cli, scripts and tests may" % (where, name))
                if other == "cli" and layer != "cli":
                    problems.append("%s: %s imports the command line; nothing in the package may" % (where, name))
                continue
            if top == "matplotlib" and name != MATPLOTLIB_MODULE:
                problems.append("%s: %s imports matplotlib; only %s may" % (where, name, MATPLOTLIB_MODULE))
                continue
            if top == "__future__" or _is_stdlib(top):
                continue
            if top not in THIRD_PARTY[layer]:
                problems.append(
                    "%s: %s (%s) imports %s, which that layer may not use" % (where, name, layer or "top level", top)
                )
    problems.extend(cycles(graph))
    problems.extend(cycles(collapsed(graph, NAME + ".phase"), "subpackage import cycle"))
    return problems


def collapsed(graph, package):
    """``graph`` with every module below ``package`` merged into its subpackage (or module) one level down.

    ``leaderboard_ci.phase.analysis.targets`` becomes ``leaderboard_ci.phase.analysis``; modules
    outside ``package`` and ``package`` itself are dropped, so what remains is the graph between
    ``package``'s parts, whose cycles :func:`cycles` reports.
    """
    prefix = package + "."

    def part(name):
        return prefix + name[len(prefix) :].split(".")[0] if name.startswith(prefix) else None

    out = {}
    for name, targets in graph.items():
        source = part(name)
        if source is not None:
            out.setdefault(source, set()).update(t for t in map(part, targets) if t is not None and t != source)
    return out


def cycles(graph, what="import cycle"):
    """One line per import cycle (strongly connected component of more than one module)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = [0]

    def connect(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            # a package's __init__ importing its own modules is not a cycle of concern
            if len(component) > 1:
                out.append("%s: %s" % (what, " -> ".join(sorted(component))))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return out


# ---------------------------------------------------------------------------
def test_the_package_follows_its_layers():
    assert violations(PACKAGE) == []


def test_the_allowed_local_imports_still_exist_and_say_why():
    known = modules(PACKAGE)
    local = set()
    for name, path in known.items():
        for target, _, lazy in imports(name, path):
            if lazy and target.split(".")[0] == NAME:
                local.add((name[len(NAME) + 1 :], (_resolve(target, known) or target)[len(NAME) + 1 :]))
    for key, reason in LOCAL_IMPORTS.items():
        assert key in local, "LOCAL_IMPORTS lists %s -> %s, which is no longer imported inside a function" % key
        assert len(reason) > 20, "say why %s imports %s inside a function" % key


def test_every_layer_states_its_rule_in_its_init():
    for layer in INTERNAL:
        if not layer:
            continue
        path = os.path.join(PACKAGE, layer, "__init__.py")
        doc = ast.get_docstring(ast.parse(open(path, encoding="utf-8").read()))
        assert doc and "import" in doc, "%s/__init__.py must state its import rule" % layer


def code_lines(source):
    """The lines of ``source`` that hold code: not blank, not only a comment, not in a docstring."""
    tree = ast.parse(source)
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                docstrings.update(range(first.lineno, first.end_lineno + 1))
    skip = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)
    lines = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in skip:
            lines.update(n for n in range(token.start[0], token.end[0] + 1) if n not in docstrings)
    return len(lines)


def test_code_lines_count_code_only():
    source = (
        '"""Module.\n\nMore."""\n\n# a comment\nx = 1  # trailing\n\n\n'
        'def f(a):\n    """Doc."""\n    return (a +\n            1)\n'
    )
    assert code_lines(source) == 4  # x = 1, def f, and the two lines of the return


def test_no_module_is_over_the_size_limit():
    long = {}
    for name, path in modules(PACKAGE).items():
        with open(path, encoding="utf-8") as handle:
            count = code_lines(handle.read())
        if count > MAX_LINES and name not in LONG_MODULES:
            long[name] = count
    assert long == {}


#: Functions longer than this (lines from ``def`` to the end, docstring included) need a reason here;
#: in ``core/`` (the statistics every path runs) the limit is lower.
MAX_FUNCTION_LINES = 100
MAX_CORE_FUNCTION_LINES = 60
#: ``{"module path:function": reason}``: a function allowed over its limit, with the reason. Empty: every
#: entry point reads as a sequence of named steps (issue 36).
LONG_FUNCTIONS = {}


def long_functions(package_dir):
    """``["path:function (lines)"]`` over the limits and not in :data:`LONG_FUNCTIONS`."""
    out = []
    for _, path in sorted(modules(package_dir).items()):
        rel = os.path.relpath(path, package_dir).replace(os.sep, "/")
        limit = MAX_CORE_FUNCTION_LINES if rel.startswith("core/") else MAX_FUNCTION_LINES
        for node in ast.walk(ast.parse(open(path, encoding="utf-8").read(), path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > limit and "%s:%s" % (rel, node.name) not in LONG_FUNCTIONS:
                    out.append("%s:%s (%d lines)" % (rel, node.name, lines))
    return out


def test_no_function_is_over_its_length_limit():
    assert long_functions(PACKAGE) == []


def test_the_length_check_catches_a_long_function(tmp_path):
    package = tmp_path / NAME  # a package of two modules: one function at the core limit, one over it
    (package / "core").mkdir(parents=True)
    (package / "core" / "__init__.py").write_text("", encoding="utf-8")
    body = "".join("    x%d = %d\n" % (i, i) for i in range(MAX_CORE_FUNCTION_LINES))
    source = "def _short():\n" + body[body.index("\n") + 1 :] + "\n\ndef _planted():\n" + body
    (package / "core" / "letters.py").write_text(source, encoding="utf-8")
    assert long_functions(str(package)) == ["core/letters.py:_planted (%d lines)" % (MAX_CORE_FUNCTION_LINES + 1)]


PLANTED = [
    ("core/resampling.py", "import pandas\n", "imports pandas"),
    ("core/intervals.py", "from ..scoring import config\n", "imports leaderboard_ci.scoring"),
    ("tasks/shared/scorer.py", "import yaml\n", "imports yaml"),
    ("report/tables.py", "from ..phase import analysis\n", "imports leaderboard_ci.phase"),
    ("report/json_report.py", "import matplotlib\n", "imports matplotlib"),
    ("phase/analysis/analysis.py", "from ...report import files\n", "only inside functions"),
    ("scoring/readers.py", "from ..tools import bundle\n", "imports tools"),
    ("scoring/readers.py", "import pandas\n", "imports pandas"),
    ("tools/bundle.py", "from ..cli import main\n", "imports the command line"),
    ("phase/execution/runs.py", "from ...cli import common\n", "imports leaderboard_ci.cli"),
    ("core/letters.py", "from . import pairs\n", None),  # allowed: core -> core (no cycle)
    ("core/significance.py", "from .intervals import quantile\n", "import cycle"),  # intervals imports significance
    # analysis imports execution (runs, runners, budget); execution importing analysis is a loop of subpackages
    ("phase/execution/budget.py", "from ..analysis import corrections\n", "subpackage import cycle"),
    # a package import inside a function of core/ (planted as the body of a new function)
    ("core/letters.py", "def _late():\n    from . import pairs\n", "inside a function"),
]


@pytest.mark.parametrize("module, line, expected", PLANTED, ids=["%s:%s" % (m, l.strip()) for m, l, _ in PLANTED])
def test_a_planted_wrong_import_is_caught(tmp_path, module, line, expected):
    copy = tmp_path / NAME
    shutil.copytree(PACKAGE, str(copy), ignore=shutil.ignore_patterns("__pycache__"))
    target = copy / module
    text = target.read_text(encoding="utf-8")
    # plant the import after the module docstring and __future__ import
    anchor = "from __future__ import annotations\n"
    text = text.replace(anchor, anchor + line, 1) if anchor in text else line + text
    target.write_text(text, encoding="utf-8")
    found = violations(str(copy))
    if expected is None:
        assert found == []
    else:
        assert any(expected in problem for problem in found), found
