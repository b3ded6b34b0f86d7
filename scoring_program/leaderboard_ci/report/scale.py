"""Reports of thousands of systems: the top of the ranking on the page, every row in the files.

With ``m`` systems a target has ``m (m - 1) / 2`` pairs: two million at
``m = 2,000``, which no page, paper table or figure can show.  Above a
threshold ``top`` (:data:`DEFAULT_TOP`), ``report.html``, ``tables.md`` /
``tables.tex`` and the figures show the ``top`` best-ranked systems of each
target (its own ranking by the full-sample score, so the official target's
winner first) and the pairs among them, plus summaries of the whole field
(how many systems, how many tied with the winner, the indicators, the
distribution of every system's score); every page and table says that it is
truncated and which file holds all rows.  The full tables always go to CSV,
and to Parquet when pyarrow is installed (``pip install 'leaderboard-ci[parquet]'``).
At or below the threshold nothing changes.

:func:`top_view` cuts one target; :func:`report_scope` cuts every target of a
result once, so that the page, the tables and ``report.json`` share the cut.
The views are shallow copies of the analysis' dataclasses (``dataclasses.replace``,
so this module never imports ``phase``), filtered with vectorized pandas.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import numbers
import re
from collections import OrderedDict
from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd

from .verdicts import verdict_marks

__all__ = [
    "DEFAULT_TOP",
    "PARQUET_HINT",
    "check_top",
    "top_view",
    "report_scope",
    "TopView",
    "ReportScope",
    "parquet_available",
    "truncation_note",
    "full_files",
    "safe_file_name",
    "target_folders",
    "pair_matrix",
    "view_of",
    "mark_truncated",
]

#: Systems a page, a paper table and a figure show per target before they are cut to the top of the ranking.
DEFAULT_TOP = 60
#: The one line that says how to get the Parquet copies of the full tables.
PARQUET_HINT = (
    "Parquet copies of the full tables need pyarrow: pip install 'leaderboard-ci[parquet]' (or pip install pyarrow)"
)
_RESERVED = {"figures", "con", "prn", "aux", "nul"}


def safe_file_name(text, taken=()):
    """``text`` as a file name: ``[A-Za-z0-9_.-]`` only, no leading dot, not reserved, not in ``taken``.

    >>> safe_file_name("f1_macro_even")
    'f1_macro_even'
    >>> safe_file_name("../x y")
    'x_y'
    """
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(text)).strip("._-")
    name = re.sub(r"\.{2,}", ".", name)[:80] or "target"
    if name.lower() in _RESERVED:
        name = name + "_"
    base, k = name, 2
    lowered = set(t.lower() for t in taken)
    while name.lower() in lowered:
        name = "%s_%d" % (base, k)
        k += 1
    return name


def target_folders(result):
    """Target key -> the folder of its files, as :func:`write_report` names them."""
    folders = OrderedDict()
    for key in result.targets:
        folders[key] = safe_file_name(key, taken=list(folders.values()))
    return folders


def check_top(top):
    """``top`` checked: a positive integer, or None for no cut (every system on the page).

    Raises
    ------
    TypeError, ValueError
        With a message that says what was given.
    """
    if top is None:
        return None
    if isinstance(top, bool) or not isinstance(top, numbers.Integral):
        raise TypeError("top must be a positive integer or None (no cut), got %r" % (top,))
    if int(top) < 1:
        raise ValueError("top must be a positive integer or None (no cut), got %r" % (top,))
    return int(top)


def parquet_available():
    """Whether pandas can write Parquet here (pyarrow is installed; pandas imports it when it writes)."""
    return importlib.util.find_spec("pyarrow") is not None


@dataclass(frozen=True)
class TopView:
    """One target as the page shows it.

    Attributes
    ----------
    target : TargetAnalysis
        The whole analysis of the target (every system, every pair).
    shown : TargetAnalysis
        The same with only the ``top`` best-ranked systems and the pairs among
        them; ``target`` itself when nothing is cut.
    top : int or None
        The threshold.
    m : int
        Systems in the whole target.
    """

    target: object
    shown: object
    top: Optional[int]
    m: int

    @property
    def truncated(self):
        return self.shown is not self.target

    @property
    def names(self):
        """The names shown, in rank order."""
        return list(self.shown.systems["name"])


def _rows_of(frame, column, names):
    if frame is None:
        return None
    out = frame[frame[column].isin(names)]
    out.attrs = dict(frame.attrs)
    return out


def _unit_values_of(target, names):
    """``unit_values`` cut to the systems shown (the per-unit figure has the rows of the ranking table)."""
    frame = getattr(target, "unit_values", None)
    if frame is None or "system" not in frame.columns:
        return {}
    return {"unit_values": _rows_of(frame, "system", names)}


def top_view(target, top=DEFAULT_TOP):
    """``target`` cut to its ``top`` best-ranked systems when it has more; see :class:`TopView`.

    The systems kept are the first ``top`` rows of ``target.systems`` (rank
    order: the full-sample score), and the winner if the baseline outranks
    it and ``top`` is 1.  ``vs_winner``, ``gains`` and ``pairs`` keep their
    rows among those systems, in their own order; ``replicates`` (rank order)
    its first columns.  Indicators, ties with the winner and notes are the
    whole field's, unchanged.
    """
    top = check_top(top)
    systems = target.systems
    m = len(systems)
    if top is None or m <= top:
        return TopView(target, target, top, m)
    kept = systems.iloc[:top]
    names = list(kept["name"])
    if target.winner not in names:  # top = 1 and the baseline ranks first
        kept = systems[systems["name"].isin(names + [target.winner])]
        names = list(kept["name"])
    kept = kept.copy()
    kept.attrs = dict(systems.attrs)
    pairs = target.pairs
    inside = pairs["a"].isin(names).to_numpy() & pairs["b"].isin(names).to_numpy()
    shown_pairs = pairs[inside]
    shown_pairs.attrs = dict(pairs.attrs)
    replicates = target.replicates
    if replicates is not None:
        replicates = np.asarray(replicates)[:, : len(names)]
    shown = dataclasses.replace(
        target,
        systems=kept,
        vs_winner=_rows_of(target.vs_winner, "name", names),
        pairs=shown_pairs,
        gains=_rows_of(target.gains, "name", names),
        replicates=replicates,
        **_unit_values_of(target, names),
    )
    return TopView(target, shown, top, m)


@dataclass(frozen=True)
class ReportScope:
    """Every target's :class:`TopView`, its folder of full tables, and what else the cut touches.

    Attributes
    ----------
    top : int or None
    views : OrderedDict
        Target key -> :class:`TopView`.
    folders : OrderedDict
        Target key -> the folder of its files (``f1_macro``), as
        :func:`leaderboard_ci.report.files.write_report` names them.
    official_names : list of str or None
        The systems shown of the official target (for the tables across
        targets: gaps between groups); None when nothing is cut.
    parquet : bool
        Whether the Parquet copies are written.
    """

    top: Optional[int]
    views: OrderedDict
    folders: OrderedDict
    official_names: Optional[list]
    parquet: bool

    @property
    def truncated(self):
        return any(v.truncated for v in self.views.values())


def report_scope(result, top=DEFAULT_TOP, parquet=None):
    """Cut every target of ``result`` once (see :func:`top_view`)."""
    top = check_top(top)
    views = OrderedDict((key, top_view(t, top)) for key, t in result.targets.items())
    official = next(iter(views.values()))
    return ReportScope(
        top,
        views,
        target_folders(result),
        official.names if official.truncated else None,
        parquet_available() if parquet is None else bool(parquet),
    )


def full_files(scope, key, target):
    """(relative path, description) of the files that hold ``target``'s full tables."""
    folder = scope.folders[key]
    described = [
        ("systems", "every system: rank, score, CI, letters, tied with the winner"),
        ("vs_winner", "every system's difference to the winner, CI and p-values"),
        (
            "pairs",
            "all %s pairs: difference, CI, p-values (raw and corrected), stars"
            % "{:,}".format(scope.views[key].m * (scope.views[key].m - 1) // 2),
        ),
    ]
    if target.gains is not None:
        described.append(("gains", "every system's gain over the baseline"))
    out = []
    for name, what in described:
        out.append(("%s/%s.csv" % (folder, name), what))
        if scope.parquet:
            out.append(("%s/%s.parquet" % (folder, name), "the same as Parquet"))
    return out


def truncation_note(view, folder):
    """The sentence that says a table shows the top of the ranking and where every row is."""
    return (
        "Truncated: the %d best-ranked of %s systems (by score); every system is in %s/systems.csv and "
        "every pair in %s/pairs.csv." % (len(view.shown.systems), "{:,}".format(view.m), folder, folder)
    )


def pair_matrix(target, value="diff"):
    """``target.pair_matrix(value)`` built with numpy indexing (no loop over the pairs).

    Row = the lower-ranked system (``b``), column = the higher-ranked one
    (``a``); cells off the pairs are NaN (``""`` for ``stars`` and ``marks``); object dtype.
    ``value="marks"``: each pair's verdict as shown (:func:`~leaderboard_ci.report.verdicts.verdict_marks`).
    """
    names = list(target.systems["name"])
    index = pd.Index(names)
    pairs = target.pairs
    rows, cols = index.get_indexer(pairs["b"]), index.get_indexer(pairs["a"])
    cells = np.full((len(names), len(names)), "" if value in ("stars", "marks") else np.nan, dtype=object)
    known = (rows >= 0) & (cols >= 0)
    values = np.asarray(verdict_marks(pairs), dtype=object) if value == "marks" else pairs[value].to_numpy(dtype=object)
    cells[rows[known], cols[known]] = values[known]
    return pd.DataFrame(cells, index=names, columns=names, dtype=object)


def view_of(scope, target):
    """(key, TopView) of ``target`` in ``scope``, or (None, None) when nothing cuts it."""
    if scope is None:
        return None, None
    for key, view in scope.views.items():
        if view.target is target:
            return key, (view if view.truncated else None)
    return None, None


def mark_truncated(table, view, folder, what):
    """Say in ``table``'s caption and first note that it shows the top of the ranking, and where all rows are."""
    shown = len(view.shown.systems)
    table.caption = "%s (top %d of %s systems; %s)" % (table.caption.rstrip("."), shown, "{:,}".format(view.m), what)
    table.notes.insert(0, truncation_note(view, folder))
    return table
