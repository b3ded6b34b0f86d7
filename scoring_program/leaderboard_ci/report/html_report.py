"""``report.html``: the organizer's self-contained end-of-phase report.

One file that opens offline: inline CSS, figures embedded as base64 PNG, no
script, font, stylesheet or image from anywhere else (in-page ``#`` links
only, and, above the threshold of :mod:`leaderboard_ci.report.scale`, relative
links to the full CSV and Parquet files written beside it).  Every name from the data (systems, groups, metrics, skipped
submissions and their reasons) is escaped with :func:`html.escape`.

The page shows a summary of every target (metric, or metric on a group) and
how to read the numbers, then per target: the ranking with CIs, letters and
ties with the winner; the differences to the winner; the bootstrap
distribution of winner minus runner-up; the all-pairs matrix; the indicators
and the baseline-calibrated gains; then the competition indicators of all
targets side by side, the gaps between groups, the skipped submissions with
their reasons, the settings and the signature line.

Above ``top`` systems a target's section shows its ``top`` best-ranked systems
(tables and figures say "top N of M"), after a summary of the whole field: how
many systems, how many tied with the winner, the distribution of every score;
a "Full tables" section links the files that hold every row.
"""

from __future__ import annotations

from ..core.numeric import is_finite_number
from .comparisons import comparison_columns, verdict_caption
from .figure_layout import ci_contains_zero, short_names
from .formatting import DASH, MINUS, correction_name, format_ci, format_number, format_p, unit_nouns
from .html_closing import files_section, footer, group_gaps_section, settings_section, skipped_section, units_section
from .html_intro import baseline_above_winner, explanations, header, summary
from .html_parts import (
    FIGURE_DPI,
    _ci,
    _count,
    _esc,
    _figure,
    _level,
    _name,
    _names,
    _num,
    _table,
    target_anchor,
    view_figures,
)
from .html_style import CSS
from .json_report import corrections_of, primary_correction, sides_of
from .notes import resolution_notes
from .scale import DEFAULT_TOP, report_scope
from .shakeup_html import shakeup_section
from .tables import format_indicator, indicators_table, pair_matrix, target_n
from .verdicts import (
    dual_interval,
    family_sentence,
    format_rank_set,
    has_rank_sets,
    interval_header,
    significance_word,
    verdict_mark,
)

__all__ = ["render_report", "view_figures", "target_anchor", "resolution_notes", "FIGURE_DPI"]


def _render_figures(result, view):
    """PNG bytes of each figure of a target's :class:`~leaderboard_ci.report.scale.TopView`.

    Drawn here when not given.
    """
    # lazy: matplotlib (report.plots), loaded only when figures are drawn
    from .plots import figure_png

    # the heatmap keeps its colours: 256 of them would turn a near-zero positive cell into the negative hue
    return {
        name: figure_png(fig, dpi=FIGURE_DPI, palette=name != "pair_heatmap")
        for name, fig in view_figures(result, view).items()
    }


# ---------------------------------------------------------------------------
# Notes on what the numbers can show
# ---------------------------------------------------------------------------
# ---------------------------------------------------------------------------
# Sections
# ---------------------------------------------------------------------------
def _indicators_section(result, digits):
    frame = indicators_table(result)
    header = ["Indicator"] + [
        '<a href="#%s">%s</a>' % (target_anchor(k), _esc(result.targets[k].title)) for k in frame.columns
    ]
    rows = [
        [(_esc(label), "")]
        + [
            (_esc(format_indicator(str(label), frame.loc[label, c], digits)).replace("-", MINUS), "n")
            for c in frame.columns
        ]
        for label in frame.index
    ]
    reasons = [
        "%s: %s" % (t.title, t.indicators["ppi_reason"])
        for t in result.targets.values()
        if t.indicators.get("ppi_reason")
    ]
    reason_html = ('<p class="note">PPI is not defined for %s.</p>' % _esc("; ".join(reasons))) if reasons else ""
    return (
        '<section id="indicators"><h2>Competition indicators</h2>%s<p class="note">n: test %s; m: '
        "systems; ties with the winner: systems not significantly different from the winner at &alpha; = "
        "%g, with no correction and after each correction; possible comparisons m(m&minus;1)/2 and how "
        "many pairs are not significantly different; |winner &minus; median|: how far the winner is from "
        "the median system; CV: coefficient of variation of the scores (%%); PPI (performance potential "
        "index): 100 &times; the distance from the winner to the best possible value.</p>%s</section>"
        % (_table(header, rows), unit_nouns(result.official.metric)[1], result.signature.alpha, reason_html)
    )


def _systems_table(result, target, digits):
    tied = set(target.tied_with_winner)
    ranked = has_rank_sets(target.systems)
    rows, classes = [], []
    for r in target.systems.itertuples(index=False):
        tags = ""
        if r.name == target.winner:
            tags += '<span class="tag win">winner</span>'
        if result.baseline is not None and r.name == result.baseline:
            tags += '<span class="tag">baseline</span>'
        sets = (
            [
                (_esc(format_rank_set(r.rank_set_low, r.rank_set_high)), "n"),
                (_esc(format_rank_set(r.rank_set_marginal_low, r.rank_set_marginal_high)), "n"),
            ]
            if ranked
            else []
        )
        # "Tied with winner" right after the interval: at 800 px it stays on screen, the long letters scroll
        rows.append(
            [
                ("%d" % r.rank, "n"),
                (_name(r.name) + tags, "name"),
                (_num(r.score, digits), "n"),
                (_ci(r.ci_low, r.ci_high, digits), "n"),
                (
                    '<span class="yes" title="%s">&#10003;</span>'
                    % ("1 is in its simultaneous rank set" if ranked else "not significantly different from the winner")
                    if r.name in tied and r.name != target.winner  # the winner is not "tied with" itself
                    else "",
                    "c",
                ),
            ]
            + sets
            + [(_esc(getattr(r, "letters", "") or ""), "letters")]
        )
        classes.append("winner" if r.name == target.winner else ("baseline" if r.name == result.baseline else ""))
    sets = ["Rank set, simultaneous", "Rank set, marginal"] if ranked else []
    return _table(
        ["Rank", "System", _esc(target.title), "%s CI" % _level(result), "Tied with winner"] + sets + ["Letters"],
        rows,
        classes,
        key_columns=(0, 1, 2, 3, 4),
    )


def _vs_winner_table(result, target, digits, corrections):
    """The table of :func:`leaderboard_ci.report.tables.comparison_columns`, intervals coloured by their own test."""
    frame = target.vs_winner
    cols = comparison_columns(result, frame)
    alpha = result.signature.alpha
    rows = []
    for _, r in frame.iterrows():
        cells = [(_name(r["name"]), "name"), (_num(r["diff"], digits), "n")]
        for column, _ in cols:
            if isinstance(column, tuple):
                low, high = r.get(column[0]), r.get(column[1])
                # an interval's colour is the verdict of its own (dual) test: green when it excludes 0
                excludes = is_finite_number(low) and is_finite_number(high) and not ci_contains_zero(low, high)
                cells.append((_ci(low, high, digits), "n " + ("nonzero" if excludes else "zero")))
            elif column == "stars":
                cells.append((_esc(verdict_mark(r)), ""))
            else:
                cells.append((_esc(format_p(r.get(column), alpha=alpha)), "n"))
        cells.append((significance_word(r), ""))
        rows.append(cells)
    return _table(
        ["System", "Difference"]
        + [_esc(h) for _, h in cols]
        + ["Significant (%s)" % _esc(correction_name(primary_correction(result)))],
        rows,
    )


def rank_marks(systems):
    """The rank of each row of ``systems`` as the ranking table shows it, a letter added where ranks are shared.

    >>> import pandas as pd
    >>> rank_marks(pd.DataFrame({"rank": [1, 2, 2, 4]}))
    ['1', '2a', '2b', '4']
    """
    ranks = (
        [int(r) if is_finite_number(r) else k + 1 for k, r in enumerate(systems["rank"])] if "rank" in systems else []
    )
    ranks = ranks or list(range(1, len(systems) + 1))
    counts, seen, out = {}, {}, []
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    for r in ranks:
        seen[r] = seen.get(r, 0) + 1
        out.append("%d%s" % (r, "abcdefghijklmnopqrstuvwxyz"[(seen[r] - 1) % 26] if counts[r] > 1 else ""))
    return out


def _matrix_table(target, digits, primary="none", level="95%"):
    names = list(target.systems["name"])
    m = len(names)
    diff = pair_matrix(target, "diff")
    star = pair_matrix(target, "marks")
    values = [abs(float(v)) for v in target.pairs["diff"] if is_finite_number(v)]
    top = max(values) if values else 1.0
    top = top if top > 0 else 1.0
    numbered = m - 1 > 8
    marks = rank_marks(target.systems)
    header = [""] + [("(%s)" % marks[j]) if numbered else _name(n) for j, n in enumerate(names[:-1])]
    head = "".join("<th>%s</th>" % h for h in header)
    dual = dual_interval(target.pairs, primary)
    words = dual.header(level).lower() if dual.family_wise else interval_header(False, level)
    bounds = dict(zip(zip(target.pairs["a"], target.pairs["b"]), zip(target.pairs[dual.low], target.pairs[dual.high])))
    body = []
    for i in range(1, m):
        cells = ['<th class="row">%s%s</th>' % ("(%s) " % marks[i] if numbered else "", _name(names[i]))]
        for j in range(m - 1):
            if j >= i:
                cells.append('<td class="empty"></td>')
                continue
            value = diff.loc[names[i], names[j]]
            mark = star.loc[names[i], names[j]] or ""
            alpha = 0.08 + 0.5 * min(1.0, abs(float(value)) / top) if is_finite_number(value) else 0
            colour = "33,102,172" if not is_finite_number(value) or value >= 0 else "178,24,43"
            low, high = bounds.get((names[j], names[i]), (None, None))
            cells.append(
                '<td style="background:rgba(%s,%.2f)" title="%s">%s%s</td>'
                % (
                    colour,
                    alpha,
                    _esc(
                        "%s %s %s = %s, %s %s"
                        % (names[j], MINUS, names[i], format_number(value, digits), words, format_ci(low, high, digits))
                    ),
                    _num(value, digits),
                    (" " + _esc(mark)) if mark else "",
                )
            )
        body.append("<tr>%s</tr>" % "".join(cells))
    note = (
        '<p class="note">Column (k) is the system of rank k in the ranking table%s.</p>'
        % (
            "; systems that share a rank are told apart by a letter (4a, 4b)"
            if any(not c.isdigit() for c in marks)
            else ""
        )
        if numbered
        else ""
    )
    return '<div class="scroll"><table class="matrix"><thead><tr>%s</tr></thead><tbody>%s</tbody></table></div>%s' % (
        head,
        "".join(body),
        note,
    )


def _target_indicators(result, target, digits):
    ind = target.indicators
    pairs = [
        ("n (%s)" % unit_nouns(result.official.metric)[1], _count(ind.get("n"))),
        ("m (systems)", _count(ind.get("m"))),
        ("possible comparisons", _count(ind.get("possible_comparisons"))),
    ]
    for c, v in (ind.get("ties_with_winner") or {}).items():
        pairs.append(("ties with the winner (%s)" % correction_name(c), _count(v)))
    for c, v in (ind.get("non_significant_pairs") or {}).items():
        pairs.append(("non-significant pairs (%s)" % correction_name(c), _count(v)))
    pairs += [
        ("|winner %s median|" % MINUS, _num(ind.get("winner_minus_median"), digits)),
        ("CV (%)", _num(ind.get("cv"), 2)),
        ("PPI", _num(ind.get("ppi"), 2)),
    ]
    rows = [[(_esc(a), ""), (b, "n")] for a, b in pairs]
    reason = ind.get("ppi_reason")
    return _table(["Indicator", "Value"], rows) + (('<p class="note">PPI: %s.</p>' % _esc(reason)) if reason else "")


def _gains_table(result, target):
    frame = target.gains
    if frame is None:
        return ""
    with_notes = any(bool(n) for n in frame.get("note", []))
    rows = []
    for _, r in frame.iterrows():
        rows.append(
            [(_name(r["name"]), "name"), (_num(r["gain"], 2), "n"), (_ci(r["ci_low"], r["ci_high"], 2), "n")]
            + ([(_esc(r.get("note") or ""), "note")] if with_notes else [])
        )
    ref = frame.attrs.get("reference_point")
    header = ["System", "Gain", "%s CI" % _level(result)] + (["Note"] if with_notes else [])
    return (
        '<div><h3>Gain over the baseline</h3><p class="note">100&middot;(s &minus; b)/|b &minus; r| with b the '
        "score of the baseline <b>%s</b> and r = %s:<br>0 is the baseline, 100 the reference point; %s "
        "percentile intervals.</p>%s</div>"
        % (
            _esc(frame.attrs.get("baseline", result.baseline)),
            _esc(format_number(ref, 4).rstrip("0").rstrip(".")) if is_finite_number(ref) else DASH,
            _level(result),
            _table(header, rows),
        )
    )


def _field_summary(result, view, folder, figures, primary):
    """Above the threshold: what the section shows, the whole field in numbers, and its scores' distribution."""
    target = view.target
    shown = len(view.shown.systems)
    tied = [n for n in target.tied_with_winner if n != target.winner]
    names_shown = set(view.names)
    below = [n for n in tied if n not in names_shown]
    scores = target.systems["score"].astype(float)
    quartiles = scores.quantile([0.0, 0.25, 0.5, 0.75, 1.0]).tolist()
    rows = [
        ("systems", _count(view.m)),
        ("shown in this section", "the top %d (ranks 1&ndash;%d)" % (shown, shown)),
        (
            "tied with the winner (1 in the simultaneous rank set)"
            if has_rank_sets(target.systems)
            else "tied with the winner (%s)" % _esc(correction_name(primary)),
            "%s%s"
            % (_count(len(tied)), (" (%s of them below the top %d)" % (_count(len(below)), shown)) if below else ""),
        ),
        (
            "not tied with the winner (1 not in their simultaneous rank set)"
            if has_rank_sets(target.systems)
            else "significantly worse than the winner",
            _count(view.m - 1 - len(tied)),
        ),
        (
            "scores: best, quartiles, worst"
            if target.metric.direction == "higher"
            else "scores: worst, quartiles, best",
            ", ".join(_num(q) for q in quartiles[::-1]),
        ),
    ]
    base = result.baseline
    if base is not None and base in set(target.systems["name"]) and base not in names_shown:
        row = target.systems[target.systems["name"] == base].iloc[0]
        rows.append(("baseline %s" % _esc(base), "rank %d, score %s" % (int(row["rank"]), _num(row["score"]))))
    if below and len(below) <= 12:
        rows.append(("tied, below the top %d" % shown, _names(below, 12)))
    table = _table(["The whole field", ""], [[(a, ""), (b, "n")] for a, b in rows])
    link = '<a href="%s/systems.csv">%s/systems.csv</a>' % (_esc(folder), _esc(folder))
    pairs = '<a href="%s/pairs.csv">%s/pairs.csv</a>' % (_esc(folder), _esc(folder))
    note = (
        '<p class="warn truncated"><b>Top %d of %s systems.</b> The tables and figures of this section show the %d '
        "best-ranked systems (by score) and the pairs among them; the indicators and the ties with the "
        "winner are those of the whole field. Every system is in %s, every pair in %s "
        '(see <a href="#files">Full tables</a>).</p>' % (shown, _count(view.m), shown, link, pairs)
    )
    distribution = _figure("score_distribution", figures.get("score_distribution"), target, result, primary)
    return note + "<h3>The whole field</h3>" + table + distribution


#: From this many systems on a section's page, its long tables (differences, all pairs, gains) start folded.
FOLD_FROM = 21


def _fold(html_text, m, summary):
    """``html_text`` in a closed ``<details>`` when the section shows ``m >= FOLD_FROM`` systems, else as is."""
    if not html_text or m < FOLD_FROM:
        return html_text
    return "<details><summary>%s</summary>%s</details>" % (_esc(summary), html_text)


def _label_legend(target):
    """The full names behind the figures' shortened labels (a folded table), or "" when none is cut."""
    names = [str(n) for n in target.systems["name"]]
    labels = short_names(names)
    rows = [
        [(_esc(label.replace("\\$", "$")), "label"), (_name(name), "name")]
        for label, name in zip(labels, names)
        if label != name
    ]
    if not rows:
        return ""
    return "<details><summary>Figure labels: %d shortened names in full</summary>%s</details>" % (
        len(rows),
        _table(["Label in the figures", "System"], rows, table_class="labels"),
    )


def _target_heading(result, key, view, figures, primary, folder):
    """A target section's heading, its winner and ties, its warnings and (above the top N) the field's summary."""
    full, target = view.target, view.shown
    official = full is result.official
    m = len(target.systems)
    tied = [n for n in target.tied_with_winner if n != target.winner]
    parts = [
        '<section id="%s"><h2>%s%s <span class="muted">(%s)</span></h2>'
        % (target_anchor(key), _esc(target.title), " &middot; official" if official else "", _esc(target.metric.better))
    ]
    parts.append(
        "<p>n = %s %s. Winner: <b>%s</b>. %s</p>"
        % (
            _count(target_n(result, target)),
            unit_nouns(result.official.metric)[1],
            _esc(target.winner),
            (
                "%s (%d): %s."
                % (
                    "Tied with it, 1 in their simultaneous rank set"
                    if has_rank_sets(full.systems)
                    else "Not significantly different from it",
                    len(tied),
                    _names(tied, 12),
                )
            )
            if tied
            else (
                "No other system can be first."
                if has_rank_sets(full.systems) and m > 1
                else "All other systems are significantly worse."
                if m > 1
                else ""
            ),
        )
    )
    warnings = resolution_notes(result, full)
    above = baseline_above_winner(result, full)
    if above:
        parts.append('<p class="warn">%s</p>' % above)
    for w in warnings:
        parts.append('<p class="warn">%s</p>' % _esc(w))
    note = family_sentence(full)
    if note:
        parts.append('<p class="warn family-note">%s</p>' % _esc(note))
    if view.truncated:
        parts.append(_field_summary(result, view, folder, figures, primary))
    return parts


def _ranking_parts(result, target, figures, digits, primary, top):
    """The ranking table beside (or above) the ordered intervals, the unit distribution and the rank sets."""
    m = len(target.systems)
    parts = []
    parts.append("<h3>Ranking%s</h3>" % top)
    ranking = _systems_table(result, target, digits)
    ordered = _figure("ordered_ci", figures.get("ordered_ci"), target, result, primary)
    longest = max(len(str(n)) for n in target.systems["name"])
    if m <= 15 and longest <= 24:  # side by side while the table is narrow and the figure stays legible
        parts.append('<div class="two"><div>%s</div><div>%s</div></div>' % (ranking, ordered))
    else:
        parts.append(ranking + ordered)
    parts.append(_figure("unit_distribution", figures.get("unit_distribution"), target, result, primary))
    if figures.get("rank_sets"):
        parts.append("<h3>Rank confidence sets%s</h3>" % top)
        parts.append(_figure("rank_sets", figures.get("rank_sets"), target, result, primary))
    return parts


def _comparison_parts(result, view, figures, digits, primary, corrections, top):
    """The differences to the winner, winner against runner-up, and all pairs (table and heat map)."""
    target = view.shown
    m = len(target.systems)
    parts = []
    orientation = (
        "winner %s system" % MINUS
        if target.metric.direction == "higher"
        else "system %s winner (lower is better)" % MINUS
    )
    parts.append("<h3>Differences to the winner%s</h3>" % top)
    parts.append(
        '<p class="note">Difference = %s, positive when the winner is better; %s p-values. %s '
        "An interval is green when it excludes 0 and red when it contains it.</p>"
        % (
            orientation,
            "two-sided" if sides_of(result) == "two" else "one-sided",
            _esc(verdict_caption(result, target.vs_winner)),
        )
    )
    parts.append(_fold(_vs_winner_table(result, target, digits, corrections), m, "The table: %d differences" % (m - 1)))
    parts.append(_figure("vs_winner", figures.get("vs_winner"), target, result, primary))
    parts.append(  # the literal subtraction of the figure's axis: runner-up - winner when lower is better
        "<h3>%s</h3>"
        % ("Winner %s runner-up" % MINUS if target.metric.direction == "higher" else "Runner-up %s winner" % MINUS)
    )
    parts.append(_figure("bootstrap_difference", figures.get("bootstrap_difference"), target, result, primary))
    parts.append(
        "<h3>All pairs%s</h3>"
        % (
            (
                ' <span class="muted">(among the top %d: %s of %s pairs)</span>'
                % (m, _count(len(target.pairs)), _count(view.m * (view.m - 1) // 2))
            )
            if view.truncated
            else ""
        )
    )
    parts.append(
        '<p class="note">Row = the lower-ranked system, column = the higher-ranked one; each cell is '
        "%s (positive: the column is better) with the stars of its %s-adjusted p-value. "
        "Hover a cell for the pair.</p>"
        % (
            ("column %s row" if target.metric.direction == "higher" else "row %s column, as %s is better lower")
            % ((MINUS,) if target.metric.direction == "higher" else (MINUS, _esc(target.title))),
            _esc(correction_name(primary)),
        )
    )
    parts.append(
        _fold(
            _matrix_table(target, digits, primary, _level(result)),
            m,
            "The table: %s pairs, %d columns" % (_count(len(target.pairs)), m - 1),
        )
    )
    parts.append(_figure("pair_heatmap", figures.get("pair_heatmap"), target, result, primary))
    return parts


def _target_section(result, key, view, figures, digits, primary, corrections, folder=None):
    full = view.target
    target = view.shown  # the rows the tables and figures show; ``full`` for the field's numbers
    official = full is result.official
    m = len(target.systems)
    parts = _target_heading(result, key, view, figures, primary, folder)
    body = len(parts)
    top = (' <span class="muted">(top %d of %s)</span>' % (m, _count(view.m))) if view.truncated else ""
    parts.extend(_ranking_parts(result, target, figures, digits, primary, top))
    if m > 1:
        parts.extend(_comparison_parts(result, view, figures, digits, primary, corrections, top))
    parts.append(
        '<div class="row"><div><h3>Indicators</h3>%s</div>%s</div>'
        % (
            _target_indicators(result, target, digits),
            _fold(_gains_table(result, target), m, "Gain over the baseline: %d systems" % m)
            if target.gains is not None
            else "",
        )
    )
    parts.append(_label_legend(target))
    if target.notes:
        parts.append('<h3>Notes</h3><ul class="notes">%s</ul>' % "".join("<li>%s</li>" % _esc(n) for n in target.notes))
    if not official and m >= FOLD_FROM:  # a group's or another metric's details: one click away on a long page
        parts[body:] = [
            "<details><summary>The ranking, figures and tables of %s (%d systems)</summary>%s</details>"
            % (_esc(target.title), m, "".join(parts[body:]))
        ]
    parts.append("</section>")
    return "".join(parts)


def render_report(result, figures=None, digits=4, top=DEFAULT_TOP, scope=None):
    """The complete, self-contained ``report.html`` page.

    Parameters
    ----------
    result : PhaseResult
        From :func:`leaderboard_ci.phase.analysis.analyze`.
    figures : mapping, optional
        ``target key -> {figure name -> PNG bytes}`` already drawn (as
        :func:`leaderboard_ci.report.files.write_report` passes them); drawn
        here with :mod:`leaderboard_ci.report.plots` when omitted.
    digits : int
        Decimals of scores and differences.
    top : int or None
        Above this many systems, a target's section shows its ``top``
        best-ranked systems and a summary of the whole field, and the page
        links the full tables (see :mod:`leaderboard_ci.report.scale`); None:
        every system.
    scope : ReportScope, optional
        The cut already made (:func:`leaderboard_ci.report.scale.report_scope`);
        then ``top`` is not used.

    Returns
    -------
    str
        An HTML5 document: inline CSS, base64 PNG figures, no script, no URL
        (above the threshold, relative links to the full tables' files).
    """
    scope = report_scope(result, top) if scope is None else scope
    primary = primary_correction(result)
    corrections = corrections_of(result)
    sections = [header(result, primary), summary(result, scope), explanations(result, primary)]
    for key, view in scope.views.items():
        target_figures = figures.get(key, {}) if figures is not None else _render_figures(result, view)
        sections.append(
            _target_section(result, key, view, target_figures, digits, primary, corrections, folder=scope.folders[key])
        )
    if getattr(result, "shakeup", None) is not None:
        drawn = figures.get("shakeup", {}) if figures is not None else None  # None: drawn here
        sections.append(shakeup_section(result.shakeup, figures=drawn, top=scope.top))
    sections += [
        _indicators_section(result, digits),
        group_gaps_section(result, digits, scope.official_names),
        units_section(result, digits),
        files_section(result, scope),
        skipped_section(result),
        settings_section(result, primary),
        footer(result),
    ]
    official = result.official
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>Analysis: %s, winner %s</title><style>%s</style></head><body><main>%s</main></body></html>\n"
        % (_esc(official.title), _esc(official.winner), CSS, "".join(sections))
    )
