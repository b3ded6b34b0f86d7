"""The report's tables as CSV, GitHub Markdown and paste-ready LaTeX.

Each table is a :class:`Table`: formatted plain-text cells (what a reader
sees, e.g. ``0.9912``, ``[0.9827, 0.9982]``, ``<0.001``, ``0.0093 **``) plus
the raw numbers it came from (:attr:`Table.data`, written by
:meth:`Table.to_csv` at full precision).  The formatters are written here,
not borrowed from pandas (``DataFrame.to_latex`` needs jinja2) or tabulate,
so the output is stable across versions:

* Markdown: a GitHub table; ``\\ ` * _ | < > [ ] ~ $ &`` in names are
  backslash-escaped;
* LaTeX: a ``table`` float with ``\\caption``, ``\\label`` and a booktabs
  ``tabular`` (``\\toprule``, ``\\midrule``, ``\\bottomrule``); the special
  characters ``_ & % # $ { } ~ ^ \\`` of names are escaped, ``†`` becomes
  ``$\\dagger$`` and a minus sign ``$-$``.  It needs ``\\usepackage{booktabs}``
  (and ``graphicx`` for the tables shrunk with ``\\resizebox``).

The tables (Nava-Muñoz, Graff & Escalante 2024; Bestgen 2022; ODESIA):

* :func:`systems_table`: rank, system, score, CI, letters, tied with the winner;
* :func:`vs_winner_table`: difference to the winner, CI, p-values, stars;
* :func:`pair_matrix_table`: the lower-triangular all-pairs matrix, cells
  ``"diff stars"`` reading *column minus row* (CompStats' Table 4);
* :func:`indicators_table` / :func:`indicators_text_table`: the competition
  indicators in the order of CompStats' Table 6;
* :func:`gains_table`, :func:`group_gaps_table`: baseline-calibrated gains
  and the gaps between groups.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import List, Optional

import numpy as np
import pandas as pd

from ..core.numeric import is_finite_number
from .comparisons import comparison_cells, comparison_columns, rank_set_words, verdict_caption
from .formatting import (
    DASH,
    MINUS,
    STAR_LEGEND,
    correction_name,
    csv_text,
    family_description,
    format_ci,
    format_count,
    format_number,
    format_p,
    latex_escape,
    latex_number,
    markdown_escape,
    markdown_number,
    slug,
    unit_nouns,
)
from .json_report import corrections_of, primary_correction, sides_of
from .scale import mark_truncated, pair_matrix, view_of
from .verdicts import dual_interval, family_sentence, format_rank_set, has_rank_sets, interval_header

__all__ = [
    "Table",
    "indicators_table",
    "indicator_rows",
    "indicators_text_table",
    "systems_table",
    "vs_winner_table",
    "pair_matrix_table",
    "gains_table",
    "group_gaps_table",
    "target_tables",
    "result_tables",
    "target_n",
    "tables_markdown",
    "tables_latex",
    "format_number",
    "format_p",
    "format_ci",
    "latex_escape",
    "markdown_escape",
    "correction_name",
    "slug",
    "csv_text",
    "STAR_LEGEND",
    "DASH",
]

#: Wider than this many characters (see :meth:`Table.estimated_width`), a LaTeX table is
#: shrunk to the line width with ``\\resizebox`` (needs graphicx); about a single-column
#: article's text width in ``\\small`` type.
LATEX_RESIZE_WIDTH = 76
#: Above this many compared systems the matrix's columns are numbered by rank instead of named.
MATRIX_NAMED_COLUMNS = 8


def _level(result):
    level = result.signature.confidence_level
    return "%g%%" % (100.0 * float(level))


# ---------------------------------------------------------------------------
# The table object
# ---------------------------------------------------------------------------
@dataclass
class Table:
    """A formatted table and the raw data behind it.

    Attributes
    ----------
    name : str
        What it is (``systems``, ``vs_winner``, ``pair_matrix``, ...).
    header : list of str
        Column headings (plain text).
    rows : list of list of str
        Formatted cells (plain text, Unicode allowed).
    kinds : list of str
        ``"text"`` or ``"num"`` per column: numbers are right-aligned and get
        true minus signs in LaTeX.
    caption, label : str
        The LaTeX caption (plain text) and label; Markdown shows the caption
        above the table.
    notes : list of str
        Lines printed under the table.
    data : DataFrame, optional
        The raw numbers (for CSV); the formatted cells otherwise.
    """

    name: str
    header: List[str]
    rows: List[List[str]]
    kinds: List[str]
    caption: str = ""
    label: str = ""
    notes: List[str] = field(default_factory=list)
    data: Optional[pd.DataFrame] = None

    def __post_init__(self):
        width = len(self.header)
        if len(self.kinds) != width or any(len(r) != width for r in self.rows):
            raise ValueError("table %r: every row needs %d cells" % (self.name, width))

    # -- CSV -----------------------------------------------------------------
    def frame(self):
        """The raw data, or the formatted cells as a DataFrame."""
        if self.data is not None:
            return self.data
        return pd.DataFrame(self.rows, columns=self.header)

    def to_csv(self, path=None):
        """CSV text (full precision from :attr:`data`); written to ``path`` if given."""
        text = csv_text(self.frame())
        if path is not None:
            with open(path, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
        return text

    # -- Markdown ------------------------------------------------------------
    def to_markdown(self, heading_level=None):
        """A GitHub Markdown table, the caption in bold above it and the notes below."""

        def cells(values, kinds):
            return [markdown_escape(v) if k == "text" else markdown_number(v) for v, k in zip(values, kinds)]

        lines = []
        if heading_level:
            lines += ["#" * heading_level + " " + markdown_escape(self.caption.split(". ")[0]), ""]
        if self.caption:
            lines += ["**%s**" % markdown_escape(self.caption), ""]
        header = [markdown_escape(h) for h in self.header]
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "|".join(":---" if k == "text" else "---:" for k in self.kinds) + "|")
        for row in self.rows:
            lines.append("| " + " | ".join(cells(row, self.kinds)) + " |")
        if self.notes:
            lines.append("")
            lines += ["%s  " % markdown_escape(n) for n in self.notes]
            lines[-1] = lines[-1].rstrip()
        return "\n".join(lines) + "\n"

    def estimated_width(self):
        """Rough printed width in characters: the widest cell of each column plus the column gaps."""
        width = 0
        for j, heading in enumerate(self.header):
            width += max([len(heading)] + [len(r[j]) for r in self.rows]) + 3
        return width

    # -- LaTeX ---------------------------------------------------------------
    def to_latex(self, size="small", resize=None):
        """A ``table`` float: caption, label, booktabs rules, escaped cells, notes.

        Parameters
        ----------
        size : str or None
            A font size command for the table (``small``, ``footnotesize``, ...).
        resize : bool, optional
            Wrap the tabular in ``\\resizebox{\\linewidth}{!}{...}`` (needs
            graphicx); by default when it has more than
            :data:`LATEX_RESIZE_WIDTH` characters.
        """
        if resize is None:
            resize = self.estimated_width() > LATEX_RESIZE_WIDTH

        def cell(value, kind):
            return latex_escape(value) if kind == "text" else latex_number(value)

        spec = "".join("l" if k == "text" else "r" for k in self.kinds)
        out = [
            "% "
            + (self.name or "table")
            + " -- generated by leaderboard-ci; needs \\usepackage{booktabs}"
            + (" and \\usepackage{graphicx}" if resize else ""),
            r"\begin{table}[htbp]",
            r"\centering",
        ]
        if self.caption:
            out.append(r"\caption{%s}" % latex_escape(self.caption))
        if self.label:
            out.append(r"\label{%s}" % self.label)
        if size:
            out.append("\\" + size)
        if resize:
            out.append(r"\resizebox{\linewidth}{!}{%")
        out.append(r"\begin{tabular}{%s}" % spec)
        out.append(r"\toprule")
        out.append(" & ".join(latex_escape(h) for h in self.header) + r" \\")
        out.append(r"\midrule")
        for row in self.rows:
            out.append(" & ".join(cell(v, k) for v, k in zip(row, self.kinds)) + r" \\")
        out.append(r"\bottomrule")
        out.append(r"\end{tabular}" + ("}" if resize else ""))
        if self.notes:
            out.append(
                r"\par\smallskip{\footnotesize\raggedright %s\par}" % r" \\ ".join(latex_escape(n) for n in self.notes)
            )
        out.append(r"\end{table}")
        return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# Indicators (CompStats' Table 6)
# ---------------------------------------------------------------------------
def _ordered_corrections(columns):
    """``none`` first, then every correction in the order first seen."""
    methods = ["none"]
    for indicators in columns.values():
        for block in ("ties_with_winner", "non_significant_pairs"):
            for method in indicators.get(block) or {}:
                if method not in methods:
                    methods.append(method)
    return methods


def indicator_rows(columns, corrections=None):
    """Indicators of several targets as a DataFrame in CompStats' Table 6 order.

    Parameters
    ----------
    columns : mapping column name -> indicators mapping
        Each as :func:`leaderboard_ci.core.indicators.competition_indicators`
        returns it (or as read back from ``report.json``).
    corrections : list of str, optional
        Corrections to show after ``none``; by default every one present.

    Returns
    -------
    DataFrame
        Index (named ``indicator``): ``n``, ``m``, ``ties with the winner
        (none)``, ... per correction, ``possible comparisons``,
        ``non-significant pairs (none)``, ..., ``|winner − median|``,
        ``CV (%)``, ``PPI``; one column per entry of ``columns``; object
        dtype (counts stay integers, missing values are None).
    """
    methods = (
        ["none"] + [c for c in corrections if c != "none"] if corrections is not None else _ordered_corrections(columns)
    )
    spec = [("n", lambda ind: ind.get("n")), ("m", lambda ind: ind.get("m"))]
    spec += [
        ("ties with the winner (%s)" % correction_name(c), lambda ind, c=c: (ind.get("ties_with_winner") or {}).get(c))
        for c in methods
    ]
    spec += [("possible comparisons", lambda ind: ind.get("possible_comparisons"))]
    spec += [
        (
            "non-significant pairs (%s)" % correction_name(c),
            lambda ind, c=c: (ind.get("non_significant_pairs") or {}).get(c),
        )
        for c in methods
    ]
    spec += [
        ("|winner %s median|" % MINUS, lambda ind: ind.get("winner_minus_median")),
        ("CV (%)", lambda ind: ind.get("cv")),
        ("PPI", lambda ind: ind.get("ppi")),
    ]
    data = OrderedDict()
    for name, indicators in columns.items():
        values = []
        for _, get in spec:
            value = get(indicators)
            if isinstance(value, (np.integer,)):
                value = int(value)
            elif isinstance(value, (float, np.floating)):
                value = float(value) if math.isfinite(value) else None
            values.append(value)
        data[name] = values
    frame = pd.DataFrame(data, index=pd.Index([s[0] for s in spec], name="indicator"), dtype=object)
    return frame


def indicators_table(result):
    """The competition indicators of every target: rows in Table 6 order, one column per target key.

    Parameters
    ----------
    result : PhaseResult

    Returns
    -------
    DataFrame
        See :func:`indicator_rows`; columns are the target keys
        (``f1_macro``, ``f1_macro_even``, ...).
    """
    columns = OrderedDict((key, t.indicators) for key, t in result.targets.items())
    return indicator_rows(columns, corrections_of(result))


def format_indicator(label, value, digits=4):
    """An indicator's cell: counts as integers, |win−med| with ``digits``, CV and PPI with 2 decimals."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return DASH
    if label.startswith("|winner"):
        return format_number(value, digits)
    if label in ("CV (%)", "PPI"):
        return format_number(value, 2)
    return format_count(value)


def indicators_text_table(frame, titles=None, caption="", label="tab:indicators", digits=4, notes=None):
    """A :class:`Table` of an indicators DataFrame (from :func:`indicator_rows`).

    ``titles`` maps column names to display headings.
    """
    titles = titles or {}
    header = ["Indicator"] + [str(titles.get(c, c)) for c in frame.columns]
    rows = [
        [str(label)] + [format_indicator(str(label), frame.loc[label, c], digits) for c in frame.columns]
        for label in frame.index
    ]
    data = frame.reset_index()
    return Table(
        "indicators", header, rows, ["text"] + ["num"] * len(frame.columns), caption, label, list(notes or []), data
    )


def _result_indicators_table(result, digits=4):
    frame = indicators_table(result)
    titles = OrderedDict((k, t.title) for k, t in result.targets.items())
    notes = [
        "n: test %s; m: systems; ties with the winner: systems whose difference to the winner is "
        "not significant at %s = %g after each correction; |winner %s median|: distance between the "
        "winner's score and the median score; CV: coefficient of variation of the scores (%%); PPI: "
        "100 %s |best possible value %s winner's score|."
        % (unit_nouns(result.official.metric)[1], "\u03b1", result.signature.alpha, MINUS, "\u00d7", MINUS)
    ]
    ppi_reasons = [
        "%s: %s" % (t.title, t.indicators.get("ppi_reason"))
        for t in result.targets.values()
        if t.indicators.get("ppi_reason")
    ]
    if ppi_reasons:
        notes.append("PPI not defined for " + "; ".join(ppi_reasons) + ".")
    return indicators_text_table(
        frame,
        titles,
        caption="Competition indicators (%s family)" % family_description(result.signature.family),
        label="tab:indicators",
        digits=digits,
        notes=notes,
    )


# ---------------------------------------------------------------------------
# Per-target tables
# ---------------------------------------------------------------------------
def target_n(result, target):
    """The number of items a target is scored on: the group's size for a group, else all items."""
    n = (target.indicators or {}).get("n")
    return int(n) if n is not None else int(result.signature.n_items)


def _settings_phrase(result, target):
    sig = result.signature
    settings = result.settings or {}
    design = "".join(
        ", %s%s%s" % (what, "" if column is None else " of %s" % column, "" if count is None else " (%s)" % count)
        for what, column, count in (
            ("clusters resampled", sig.cluster, settings.get("n_clusters")),
            ("within strata", sig.strata, settings.get("n_strata")),
        )
        if column is not None or count is not None
    )
    return "%s bootstrap, B = %s, n = %s%s" % (sig.method, sig.n_resamples, target_n(result, target), design)


def _label(target, what):
    return "tab:%s-%s" % (slug(target.key), what)


def systems_table(result, target, digits=4):
    """Rank, system, score, CI, rank sets (when computed), letters and whether each system is tied with the winner."""
    frame = target.systems
    level = _level(result)
    primary = primary_correction(result)
    ranked = has_rank_sets(frame)
    header = ["Rank", "System", target.title, "%s CI" % level]
    header += ["Rank set, simultaneous", "Rank set, marginal"] if ranked else []
    header += ["Letters", "Tied"]
    rows = []
    for r in frame.itertuples(index=False):
        sets = (
            [
                format_rank_set(r.rank_set_low, r.rank_set_high),
                format_rank_set(r.rank_set_marginal_low, r.rank_set_marginal_high),
            ]
            if ranked
            else []
        )
        rows.append(
            ["%d" % r.rank, str(r.name), format_number(r.score, digits), format_ci(r.ci_low, r.ci_high, digits)]
            + sets
            + [
                str(getattr(r, "letters", "") or ""),
                "yes" if bool(getattr(r, "tied_with_winner", False)) and r.name != target.winner else "",
            ]
        )
    caption = (
        "%s: systems ranked by score (%s) with %s confidence intervals (%s). Systems sharing a letter "
        "are not significantly different (%s, %s = %g). "
        % (
            target.title,
            target.metric.better,
            level,
            _settings_phrase(result, target),
            correction_name(primary, long=True),
            "\u03b1",
            result.signature.alpha,
        )
    )
    caption += rank_set_words(result) if ranked else "Tied: not significantly different from the winner."
    notes = [str(n) for n in target.notes]
    note = family_sentence(target)
    if note:
        notes.insert(0, note)
    kinds = ["num", "text", "num", "num"] + (["num", "num"] if ranked else []) + ["text", "text"]
    return Table("systems", header, rows, kinds, caption, _label(target, "systems"), notes, frame)


def _sides_phrase(result, short=False):
    """``two-sided`` or ``one-sided (H1: the winner is better)``."""
    if sides_of(result) == "two":
        return "two-sided"
    return "one-sided" if short else "one-sided (H1: the better-ranked system is better)"


def _test_name(result):
    return "permutation" if result.signature.test == "permutation" else "paired bootstrap"


def vs_winner_table(result, target, digits=4):
    """Each system's difference to the winner (winner − system, oriented), the interval dual with the verdict,
    its p-value and stars, then the other intervals and p-values (see :func:`comparison_columns`)."""
    frame = target.vs_winner
    cols = comparison_columns(result, frame)
    header = ["System", "Difference"] + [h for _, h in cols]
    rows = []
    for _, r in frame.iterrows():
        rows.append(
            [str(r["name"]), format_number(r["diff"], digits)]
            + comparison_cells(r, cols, digits, result.signature.alpha)
        )
    orientation = ("winner %s system" if target.metric.direction == "higher" else "system %s winner") % MINUS
    caption = (
        "%s: difference between the winner (%s) and each system (%s; positive: the winner is better), "
        "%s %s p-values. %s Stars (%s): %s."
        % (
            target.title,
            target.winner,
            orientation,
            _sides_phrase(result),
            _test_name(result),
            verdict_caption(result, frame),
            correction_name(primary_correction(result)),
            STAR_LEGEND,
        )
    )
    kinds = ["text", "num"] + ["text" if c == "stars" else "num" for c, _ in cols]
    return Table("vs_winner", header, rows, kinds, caption, _label(target, "vs-winner"), [], frame)


def pair_matrix_table(result, target, digits=4, named_columns=MATRIX_NAMED_COLUMNS):
    """The lower-triangular matrix of pairwise differences, cells ``"diff stars"``.

    Row = the lower-ranked system, column = the higher-ranked one; a cell reads
    column minus row (oriented: positive means the column's system is
    better).  The winner's row and the last system's column, always empty,
    are left out.  With more than ``named_columns`` columns, columns are
    numbered by rank and the rows say which number each system has.
    """
    names = list(target.systems["name"])
    m = len(names)
    diff = pair_matrix(target, "diff")
    star = pair_matrix(target, "marks")
    cols = names[:-1]
    numbered = len(cols) > named_columns
    header = [""] + (["(%d)" % (j + 1) for j in range(len(cols))] if numbered else cols)
    rows = []
    for i in range(1, m):
        row_name = names[i]
        cells = ["(%d) %s" % (i + 1, row_name) if numbered else row_name]
        for j, col_name in enumerate(cols):
            if j < i:
                value = diff.loc[row_name, col_name]
                mark = star.loc[row_name, col_name] or ""
                cells.append(format_number(value, digits) + (" " + mark if mark else ""))
            else:
                cells.append("")
        rows.append(cells)
    primary = primary_correction(result)
    subtraction = ("column %s row" if target.metric.direction == "higher" else "row %s column") % MINUS
    caption = (
        "%s: pairwise differences, %s (positive: the column's system is better; %s); stars "
        "from %s-adjusted %s p-values: %s."
        % (
            target.title,
            subtraction,
            target.metric.better,
            correction_name(primary),
            _sides_phrase(result, short=True),
            STAR_LEGEND,
        )
    )
    dual = dual_interval(target.pairs, primary)
    caption += (
        " Every pair's %s and %s are in pairs.csv (%s)."
        % (
            dual.header(_level(result)),
            interval_header(False, _level(result)),
            "fw_low, fw_high; ci_low, ci_high" if dual.family_wise else "ci_low, ci_high",
        )
        if dual.family_wise
        else " Every pair's %s is in pairs.csv (ci_low, ci_high)." % interval_header(False, _level(result))
    )
    notes = ["Column (k) is the system ranked k."] if numbered else []
    text = pd.DataFrame([[name] + r[1:] for name, r in zip(names[1:], rows)], columns=["row \\ column"] + cols)
    return Table(
        "pair_matrix", header, rows, ["text"] + ["num"] * len(cols), caption, _label(target, "pairs"), notes, text
    )


def gains_table(result, target, digits=2):
    """Baseline-calibrated gains 100·(s − b)/|b − r| with their CIs (ODESIA); None without a baseline."""
    frame = target.gains
    if frame is None:
        return None
    level = _level(result)
    rows = [
        [
            str(r["name"]),
            format_number(r["gain"], digits),
            format_ci(r["ci_low"], r["ci_high"], digits),
            str(r.get("note") or ""),
        ]
        for _, r in frame.iterrows()
    ]
    header = ["System", "Gain", "%s CI" % level, "Note"]
    kinds = ["text", "num", "num", "text"]
    if not any(r[3] for r in rows):
        header, kinds, rows = header[:3], kinds[:3], [r[:3] for r in rows]
    b = frame.attrs.get("baseline", result.baseline)
    ref = frame.attrs.get("reference_point")
    caption = (
        "%s: gain over the baseline (%s), 100 %s (s %s b) / |b %s r| with r = %s, in %% of the distance "
        "from the baseline to the reference point (positive: better than the baseline), with %s "
        "percentile intervals."
        % (
            target.title,
            b,
            "\u00b7",
            MINUS,
            MINUS,
            format_number(ref, 4).rstrip("0").rstrip(".") if is_finite_number(ref) else DASH,
            level,
        )
    )
    return Table("gains", header, rows, kinds, caption, _label(target, "gains"), [], frame)


def group_gaps_table(result, digits=2, names=None):
    """Gaps between groups of each system's gain (or score): one column per metric and pair of groups.

    ``names``: only these systems (the top of the official ranking), said in the caption.
    """
    gaps = result.group_gaps
    if gaps is None or len(gaps) == 0:
        return None
    columns = list(OrderedDict.fromkeys(zip(gaps["metric"], gaps["groups"])))
    every = list(OrderedDict.fromkeys(gaps["name"]))
    if names is not None:
        keep = set(names)
        names = [n for n in every if n in keep]
    else:
        names = every
    quantity = dict(zip(gaps["metric"], gaps["quantity"]))
    titles = {}
    for t in result.targets.values():
        titles.setdefault(t.metric.key, t.metric.title)
    lookup = {(r.metric, r.groups, r.name): r for r in gaps.itertuples(index=False)}
    header = ["System"] + [
        "%s %s (%s)" % (titles.get(mk, mk), q, g.replace(" - ", " %s " % MINUS))
        for (mk, g), q in zip(columns, [quantity[c[0]] for c in columns])
    ]
    rows = []
    for name in names:
        cells = [name]
        for mk, g in columns:
            d = 2 if quantity[mk] == "gain" else 4
            row = lookup.get((mk, g, name))
            if row is None:
                cells.append(DASH)
                continue
            cell = format_number(row.gap, d, signed=True)
            if hasattr(row, "ci_low"):
                cell += " " + format_ci(row.ci_low, row.ci_high, d, signed=True)
            cells.append(cell)
        rows.append(cells)
    caption = (
        "Gap between groups of each system's %s (first group minus second; ODESIA's gap between "
        "languages), with its %s CI"
        % ("gain over the baseline" if set(quantity.values()) == {"gain"} else "score", _level(result))
    )
    notes = []
    if len(names) < len(every):
        caption += " (the top %d of %s systems of the official ranking; all in group_gaps.csv)" % (
            len(names),
            "{:,}".format(len(every)),
        )
        notes.append(
            "Truncated: the %d best-ranked systems of the official metric; every system is in "
            "group_gaps.csv." % len(names)
        )
    return Table("group_gaps", header, rows, ["text"] + ["num"] * len(columns), caption, "tab:group-gaps", notes, gaps)


#: Systems shown as columns of the per-unit F1 table in Markdown, LaTeX and HTML (all are in the CSV).
UNIT_TABLE_SYSTEMS = 8


def unit_f1_table(result, digits=4, max_systems=UNIT_TABLE_SYSTEMS):
    """The F1 of each unit (the third of ``attrs["titles"]``) for the best-ranked systems: units as rows."""
    units = getattr(result, "units", None)
    if units is None or len(units) == 0:
        return None
    unit_name = units.attrs.get("unit_name", "class")
    score = units.attrs.get("titles", ("precision", "recall", "F1"))[2]
    systems = list(OrderedDict.fromkeys(units["system"]))[:max_systems]
    labels = list(OrderedDict.fromkeys(units["unit"]))
    lookup = {(r.system, r.unit): r.f1 for r in units.itertuples(index=False)}
    header = [unit_name[:1].upper() + unit_name[1:]] + systems
    rows = [[label] + [format_number(lookup.get((name, label)), digits) for name in systems] for label in labels]
    more = len(OrderedDict.fromkeys(units["system"])) - len(systems)
    caption = "%s per %s on all items, systems in rank order of the official metric%s" % (
        score,
        unit_name,
        " (the first %d; all in units.csv)" % len(systems) if more > 0 else "",
    )
    return Table("units", header, rows, ["text"] + ["num"] * len(systems), caption, "tab:units", [], units)


def target_tables(result, target, digits=4, scope=None):
    """The main tables of one target: systems, vs-winner, pair matrix and gains (if a baseline).

    With a ``scope`` (:func:`leaderboard_ci.report.scale.report_scope`) that
    cuts the target, the tables show its top systems and say so; their
    :attr:`Table.data` is then the shown rows too.
    """
    key, view = view_of(scope, target)
    shown = target if view is None else view.shown
    tables = [systems_table(result, shown, digits)]
    if len(shown.systems) > 1:
        tables += [vs_winner_table(result, shown, digits), pair_matrix_table(result, shown, digits)]
    gains = gains_table(result, shown)
    if gains is not None:
        tables.append(gains)
    if view is not None:
        folder = scope.folders[key]
        where = {
            "systems": "all in %s/systems.csv" % folder,
            "vs_winner": "all in %s/vs_winner.csv" % folder,
            "pair_matrix": "the pairs among them; all pairs in %s/pairs.csv" % folder,
            "gains": "all in %s/gains.csv" % folder,
        }
        for table in tables:
            mark_truncated(table, view, folder, where[table.name])
    return tables


def result_tables(result, digits=4, scope=None):
    """Every table of the report: per target (in order), then indicators and group gaps."""
    tables = []
    for target in result.targets.values():
        tables += target_tables(result, target, digits, scope=scope)
    tables.append(_result_indicators_table(result, digits))
    gaps = group_gaps_table(result, names=None if scope is None else scope.official_names)
    if gaps is not None:
        tables.append(gaps)
    units = unit_f1_table(result, digits)
    if units is not None:
        tables.append(units)
    return tables


def tables_markdown(tables, title=None):
    """Several tables as one Markdown document."""
    parts = ["# %s\n" % markdown_escape(title)] if title else []
    parts += [t.to_markdown() for t in tables]
    return "\n".join(parts)


def tables_latex(tables, title=None):
    """Several tables as one LaTeX fragment to ``\\input`` (preamble: booktabs, graphicx)."""
    head = [
        "% " + (title or "leaderboard-ci tables"),
        "% preamble: \\usepackage{booktabs} \\usepackage{graphicx} (UTF-8 source)",
        "",
    ]
    return "\n".join(head) + "\n".join(t.to_latex() for t in tables)
