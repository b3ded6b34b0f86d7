"""``report.json``: the end-of-phase analysis as a versioned, machine-readable document.

:func:`result_to_dict` turns a :class:`~leaderboard_ci.phase.analysis.PhaseResult`
into plain JSON types (``dict``, ``list``, ``str``, ``int``, ``float``,
``bool``, ``None``) with a fixed key order; :func:`result_to_json` dumps it.
Every number that is not finite (NaN, infinity) becomes ``null``, numpy
scalars become Python numbers, ``-0.0`` becomes ``0.0``, and floats keep
their full precision (they round-trip exactly through :func:`json.loads`).

The layout is documented field by field in ``docs/report_json.md``.  Readers
(such as :mod:`leaderboard_ci.cli.compare`) load a file with :func:`read_report`,
which checks :data:`SCHEMA_VERSION`'s major number.

Orientation, as everywhere in the analysis: a pair ``(a, b)`` has ``a``
ranked above ``b`` and ``diff = sign * (score_a - score_b)``, so a positive
difference always means ``a`` is better.  ``p_value`` is two-sided or
one-sided (H1: ``a`` is better than ``b``) as ``signature.sides`` says; with
two-sided values the one-sided ones are in ``p_one_sided``.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Mapping

from .._version import __version__
from ..core.significance import stars
from ..tasks.registry import pair_test_titles
from .json_values import GENERATOR, SCHEMA_VERSION, clean
from .scale import DEFAULT_TOP, report_scope
from .shakeup_json import shakeup_to_dict
from .verdicts import dual_interval, family_sentence, rank_set_entry

__all__ = [
    "result_to_dict",
    "result_to_json",
    "read_report",
    "check_report",
    "primary_correction",
    "corrections_of",
    "sides_of",
    "ReportFormatError",
    "GENERATOR",
    "SCHEMA_VERSION",
]


#: Columns of the vs-winner and pairs tables that carry other tests' p-values
#: (present only when that test was run), in the order they are written; then
#: the task types' own tests (:func:`~leaderboard_ci.tasks.registry.pair_test_titles`).
TEST_COLUMNS = ("p_one_sided", "p_bootstrap", "p_permutation", "exact")


class ReportFormatError(ValueError):
    """A file is not a ``report.json`` this version can read; the message says why."""


# ---------------------------------------------------------------------------
# Plain JSON values
# ---------------------------------------------------------------------------
#: The cleaner under its old private name (other report modules import it from here).
_clean = clean


def _records(frame, columns=None):
    """Rows of a DataFrame as ordered mappings of cleaned values."""
    if frame is None:
        return []
    columns = list(frame.columns) if columns is None else [c for c in columns if c in frame.columns]
    return [
        OrderedDict((c, _clean(v)) for c, v in zip(columns, row))
        for row in frame[columns].itertuples(index=False, name=None)
    ]


# ---------------------------------------------------------------------------
# Corrections
# ---------------------------------------------------------------------------
def corrections_of(result):
    """The configured corrections (statsmodels names), in the configured order."""
    return [str(c) for c in (result.signature.corrections or [])]


def sides_of(result):
    """``"two"`` or ``"one"``: whether ``p_value`` (and the stars) are two- or one-sided.

    Read from ``result.signature.sides``; a result that does not record it
    is two-sided when its tables carry ``p_one_sided`` beside ``p_value``,
    else one-sided (the analysis before ``analysis.sides`` existed).
    """
    value = result.signature.sides
    if value in ("one", "two"):
        return value
    return "two" if any("p_one_sided" in t.pairs.columns for t in result.targets.values()) else "one"


def _p_column(method):
    return "p_value" if method == "none" else "p_" + method


def _stars_follow(target, method):
    """Whether ``target``'s stars are those of correction ``method``'s p-values."""
    for frame in (target.pairs, target.vs_winner):
        column = _p_column(method)
        if column not in frame.columns:
            return False
        if [stars(p) for p in frame[column]] != list(frame["stars"]):
            return False
    return True


def primary_correction(result):
    """The correction that decided the stars, letters and ties with the winner.

    Read from ``result.settings["primary"]`` or ``result.signature.primary``
    when the analysis records it; otherwise the configuration's default
    (``holm`` if configured, else the first correction, else ``none``),
    checked against the stars actually shown, and else the correction whose
    p-values give those stars.
    """
    for value in ((result.settings or {}).get("primary"), result.signature.primary):
        if value:
            return str(value)
    corrections = corrections_of(result)
    default = "holm" if "holm" in corrections else (corrections[0] if corrections else "none")
    for method in [default] + [c for c in ["none"] + corrections if c != default]:
        if all(_stars_follow(t, method) for t in result.targets.values()):
            return method
    return default


# ---------------------------------------------------------------------------
# Per-target blocks
# ---------------------------------------------------------------------------
def _comparison(row, corrections, first_columns, verdict_interval=None, tests=TEST_COLUMNS):
    """One vs-winner or pair row: its own columns, the simultaneous interval, then p_adjusted, stars, other tests."""
    out = OrderedDict((c, row[c]) for c in first_columns)
    out["fw_low"], out["fw_high"] = row.get("fw_low"), row.get("fw_high")
    for column in ("direction_only", "near_copy"):
        if column in row:
            out[column] = row[column]
    if verdict_interval is not None:
        out["interval"] = verdict_interval
    out["p_value"] = row["p_value"]
    out["p_adjusted"] = OrderedDict((m, row.get("p_" + m)) for m in corrections)
    out["stars"] = row.get("stars", "")
    if "significant" in row:
        out["significant"] = row["significant"]
    for column in tests:
        if column in row:
            out[column] = row[column]
    known = (
        set(first_columns)
        | {"p_value", "stars", "significant", "fw_low", "fw_high", "direction_only", "near_copy"}
        | set(tests)
        | {"p_" + m for m in corrections}
    )
    for column, value in row.items():  # columns a later analysis adds, kept verbatim
        if column not in known:
            out[column] = value
    return out


def _comparisons(frame, corrections, first_columns, primary="none"):
    dual = dual_interval(frame, primary)
    kind = "family_wise" if dual.family_wise else "marginal"
    tests = TEST_COLUMNS + tuple(pair_test_titles())  # then the task types' own tests, in registry order
    return [_comparison(r, corrections, first_columns, kind, tests) for r in _records(frame)]


def _gains(target):
    if target.gains is None:
        return None
    frame = target.gains
    rows = _records(frame, ["name", "gain", "ci_low", "ci_high", "note"])
    for row in rows:
        if not row.get("note"):
            row["note"] = None
    return OrderedDict(
        [
            ("baseline", _clean(frame.attrs.get("baseline"))),
            ("reference_point", _clean(frame.attrs.get("reference_point"))),
            ("systems", rows),
        ]
    )


def _pairs_listed(view, folder):
    """Which pairs ``pairs`` lists: all, or those among the top systems (and where all of them are)."""
    return OrderedDict(
        [
            ("complete", not view.truncated),
            ("systems", len(view.shown.systems)),
            ("count", len(view.shown.pairs)),
            ("total", len(view.target.pairs)),
            ("file", "%s/pairs.csv" % folder),
        ]
    )


def _target(result, key, view, corrections, primary, official, confidence_level, folder):
    target = view.target
    spec = target.metric
    systems = _records(target.systems, ["rank", "name", "score", "ci_low", "ci_high", "letters", "tied_with_winner"])
    sets = [rank_set_entry(r) for r in _records(target.systems)]
    for row, ranks in zip(systems, sets):
        row.setdefault("letters", "")
        row["letters"] = row["letters"] or ""
        row["rank_set"] = ranks
    return OrderedDict(
        [
            ("key", str(key)),
            ("metric", spec.key),
            ("metric_name", spec.name),
            ("group", None if target.group is None else str(target.group)),
            ("title", target.title),
            ("direction", spec.direction),
            ("official", bool(official)),
            ("confidence_level", confidence_level),
            ("winner", target.winner),
            ("stars_correction", primary),
            ("systems", systems),
            ("family_note", family_sentence(target)),
            ("critical_value", _clean(target.critical_value)),
            ("vs_winner", _comparisons(target.vs_winner, corrections, ["name", "diff", "ci_low", "ci_high"], primary)),
            ("pairs", _comparisons(view.shown.pairs, corrections, ["a", "b", "diff", "ci_low", "ci_high"], primary)),
            ("pairs_listed", _pairs_listed(view, folder)),
            ("indicators", _clean(target.indicators)),
            ("tied_with_winner", _clean(list(target.tied_with_winner))),
            ("gains", _gains(target)),
            ("notes", [str(n) for n in target.notes]),
        ]
    )


def _groups(result):
    values = []
    for target in result.targets.values():
        if target.group is not None and str(target.group) not in values:
            values.append(str(target.group))
    if not values:
        return None
    gaps = result.group_gaps
    return OrderedDict(
        [
            ("column", _clean(result.settings.get("groups"))),
            ("values", values),
            (
                "gaps",
                _records(gaps, ["metric", "quantity", "name", "groups", "gap", "ci_low", "ci_high", "p_value"])
                if gaps is not None
                else [],
            ),
        ]
    )


def _units(result):
    """Per-unit (class, label, entity type) scores of every system, or None."""
    units = result.units
    if units is None:
        return None
    return OrderedDict(
        [
            ("unit", units.attrs.get("unit_name", "class")),
            ("titles", list(units.attrs.get("titles", ("precision", "recall", "F1")))),
            ("rows", _records(units, ["system", "unit", "precision", "recall", "f1", "predicted"])),
        ]
    )


# ---------------------------------------------------------------------------
# The document
# ---------------------------------------------------------------------------
def result_to_dict(result, top=DEFAULT_TOP, scope=None):
    """The whole analysis as plain JSON types, keys in a fixed order.

    Parameters
    ----------
    result : PhaseResult
        From :func:`leaderboard_ci.phase.analysis.analyze`.
    top : int or None
        Above this many systems in a target, its ``pairs`` lists the pairs
        among its ``top`` best-ranked systems only, and ``pairs_listed`` says
        so (every pair is in the target's ``pairs.csv``); None: every pair.
        Systems, differences to the winner and gains are always complete.
    scope : ReportScope, optional
        The cut already made (then ``top`` is not used).

    Returns
    -------
    OrderedDict
        See ``docs/report_json.md``.  ``json.dumps(..., allow_nan=False)``
        accepts it as it is.
    """
    corrections = corrections_of(result)
    primary = primary_correction(result)
    settings = _clean(result.settings)
    settings.setdefault("primary", primary)
    settings.setdefault("sides", sides_of(result))
    level = _clean(result.signature.confidence_level)
    official = result.official
    scope = report_scope(result, top) if scope is None else scope
    out = OrderedDict(
        [
            ("schema_version", SCHEMA_VERSION),
            ("generator", OrderedDict([("name", GENERATOR), ("version", __version__)])),
            ("signature", _clean(result.signature.as_dict())),
            ("signature_string", str(result.signature)),
            ("settings", settings),
            ("n_items", _clean(result.n)),
            ("systems", [str(n) for n in result.names]),
            ("baseline", None if result.baseline is None else str(result.baseline)),
            ("official", official.key),
            (
                "metrics",
                OrderedDict(
                    (str(k), _target(result, k, v, corrections, primary, v.target is official, level, scope.folders[k]))
                    for k, v in scope.views.items()
                ),
            ),
            ("groups", _groups(result)),
            ("units", _units(result)),
            ("skipped", _records(result.skipped, ["submission", "reason"])),
        ]
    )
    if result.shakeup is not None:
        out["shakeup"] = shakeup_to_dict(result.shakeup)
    return out


def result_to_json(result, top=DEFAULT_TOP, scope=None):
    """:func:`result_to_dict` as indented JSON text (UTF-8 safe, no NaN), ending in a newline."""
    return (
        json.dumps(result_to_dict(result, top=top, scope=scope), indent=2, allow_nan=False, ensure_ascii=False) + "\n"
    )


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------
REQUIRED_TARGET_KEYS = ("metric", "title", "direction", "winner", "systems", "vs_winner", "pairs", "indicators")
REQUIRED_INDICATORS = (
    "n",
    "m",
    "possible_comparisons",
    "ties_with_winner",
    "non_significant_pairs",
    "winner_minus_median",
    "cv",
    "ppi",
)


def check_report(data, where="report"):
    """Check that ``data`` is a ``report.json`` document this version reads.

    Checks the schema version (same major number as
    :data:`SCHEMA_VERSION`) and the fields readers
    rely on; not every field.

    Raises
    ------
    ReportFormatError
        With a one-line message naming ``where`` and the problem.
    """
    if not isinstance(data, Mapping):
        raise ReportFormatError(
            "%s is not a leaderboard-ci report (a JSON object is expected, got %s)" % (where, type(data).__name__)
        )
    version = data.get("schema_version")
    if version is None:
        raise ReportFormatError("%s is not a leaderboard-ci report (it has no schema_version)" % where)
    major = SCHEMA_VERSION.split(".")[0]
    if not isinstance(version, str) or version.split(".")[0] != major:
        raise ReportFormatError(
            "%s has schema_version %r; this version of leaderboard-ci reads %s.x" % (where, version, major)
        )
    metrics = data.get("metrics")
    if not isinstance(metrics, Mapping) or not metrics:
        raise ReportFormatError("%s has no metrics" % where)
    for key, target in metrics.items():
        if not isinstance(target, Mapping):
            raise ReportFormatError("%s: metrics.%s is not an object" % (where, key))
        missing = [k for k in REQUIRED_TARGET_KEYS if k not in target]
        if missing:
            raise ReportFormatError("%s: metrics.%s has no %s" % (where, key, missing[0]))
        indicators = target["indicators"]
        missing = [k for k in REQUIRED_INDICATORS if not isinstance(indicators, Mapping) or k not in indicators]
        if missing:
            raise ReportFormatError("%s: metrics.%s.indicators has no %s" % (where, key, missing[0]))
    return data


def read_report(path):
    """Load and check a ``report.json`` file.

    Raises
    ------
    ReportFormatError
        One line: the file is missing, not UTF-8, not JSON, or not a report
        of a schema version this package reads.
    """
    try:
        with open(path, "r", encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        raise ReportFormatError("%s: no such file" % path)
    except IsADirectoryError:
        raise ReportFormatError("%s is a folder, not a report.json file" % path)
    except UnicodeDecodeError:
        raise ReportFormatError("%s is not a JSON file (not UTF-8 text)" % path)
    except OSError as exc:
        raise ReportFormatError("%s cannot be read: %s" % (path, exc.strerror or exc))
    try:
        data = json.loads(text, object_pairs_hook=OrderedDict)
    except ValueError as exc:
        raise ReportFormatError(
            "%s is not a JSON file (line %s, column %s: %s)"
            % (path, getattr(exc, "lineno", "?"), getattr(exc, "colno", "?"), getattr(exc, "msg", exc))
        )
    return check_report(data, where=path)
