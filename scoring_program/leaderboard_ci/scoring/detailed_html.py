"""``detailed_results.html``: the participant's self-contained results page.

Codabench shows this page in an iframe next to the submission.  It opens
offline: inline CSS and inline SVG only, no script, font, image or URL.  It
shows aggregate numbers only (scores, intervals, bootstrap replicates of a
score), never per-item data, and no per-class table unless the organizer sets
``detailed_results.per_class: true`` (the table is an item oracle for a
submission crafted to probe chosen items).  Every string from the config or the data is
escaped; every number that is not finite is shown as an en dash.
"""

from __future__ import annotations

import html
import math

import numpy as np

from ..core.numeric import is_finite_number
from ..core.resampling import draw_in_words
from ..page_style import page_css
from .validity import degenerate_interval_note

__all__ = ["render_detailed_results", "HISTOGRAM_BINS"]

#: Bars in the histogram of the official score's bootstrap replicates.
HISTOGRAM_BINS = 40
DASH = "\u2013"
METHOD_NAMES = {
    "percentile": "percentile",
    "basic": "basic",
    "bca": "BCa (bias-corrected and accelerated)",
    "normal": "normal (score ± z × bootstrap standard error)",
}
_WIDTH = 720  # SVG user units; the SVGs scale to the page width
_BLUE, _PALE, _INK, _GREEN, _RED, _ORANGE = "#3b6ea8", "#c9d7e8", "#1f2328", "#2e7d32", "#b5534a", "#c2610c"

CSS = page_css(
    """
svg{display:block;width:100%;height:auto;margin:4px 0}
svg text{font-family:inherit}
figure svg{min-width:600px}
table{min-width:60%}
td.t{white-space:nowrap}
th{white-space:nowrap}
tr.official td{font-weight:600;background:#f3f6fa}
.better{color:#2e7d32;font-weight:600}.unclear{color:#b5534a;font-weight:600}.worse{color:#8b1f1f;font-weight:600}
""",
    width=940,
)


# ---------------------------------------------------------------------------
# Text and numbers
# ---------------------------------------------------------------------------
def _esc(text):
    """Escape a string from the config or the data for HTML text or attributes."""
    return html.escape(str(text), quote=True)


def _num(value, signed=False):
    """A number with 4 decimals (as on the leaderboard), or an en dash if not finite."""
    if not is_finite_number(value):
        return DASH
    text = ("%+.4f" if signed else "%.4f") % float(value)
    return "0.0000" if text in ("-0.0000", "+0.0000") else text


def _level(confidence_level):
    """``0.95`` -> ``"95%"``."""
    return "%g%%" % (100.0 * confidence_level)


def _ci(interval, signed=False):
    """``[low, high]`` with 4 decimals."""
    return "[%s, %s]" % (_num(interval.low, signed), _num(interval.high, signed))


def _p_text(p):
    """A p-value with 4 decimals (HTML); below 0.0001 as ``< 0.0001``."""
    if not is_finite_number(p):
        return DASH
    return "&lt; 0.0001" if p < 0.0001 else "%.4f" % p


def _group_name(group):
    """A group's display name; ``None`` is all items."""
    return "all items" if group is None else str(group)


def _short(text, limit=26):
    """``text`` cut to ``limit`` characters with an ellipsis."""
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _metrics_in_order(items):
    """The metrics of ``items`` (scores or comparisons) in order, each with its items."""
    order = []
    for item in items:
        if not order or order[-1][0].key != item.metric.key:
            order.append((item.metric, []))
        order[-1][1].append(item)
    return order


# ---------------------------------------------------------------------------
# SVG helpers
# ---------------------------------------------------------------------------
def _domain(values, pad=0.06):
    """A padded (low, high) covering the finite ``values``; never of zero width."""
    finite = [float(v) for v in values if is_finite_number(v)]
    if not finite:
        return 0.0, 1.0
    low, high = min(finite), max(finite)
    span = high - low
    if span <= 1e-12 * max(1.0, abs(high)):
        span = max(abs(high) * 0.1, 1e-3)
        return low - span / 2, high + span / 2
    return low - pad * span, high + pad * span


def _ticks(low, high, count=5):
    """Round tick values inside [low, high] and the decimals to print them with."""
    raw = (high - low) / count
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    decimals = max(0, -int(math.floor(math.log10(step))))
    if abs(round(step, decimals) - step) > step * 1e-6:
        decimals += 1
    first = math.ceil(low / step - 1e-9)
    ticks = []
    k = first
    while k * step <= high + step * 1e-9 and len(ticks) < 20:
        ticks.append(0.0 if abs(k) < 1e-12 else k * step)
        k += 1
    return ticks, decimals


def _scale(low, high, x0, x1):
    """A function mapping data values in [low, high] to x in [x0, x1]."""
    return lambda v: x0 + (float(v) - low) / (high - low) * (x1 - x0)


def _axis(x, low, high, y, top):
    """An x axis at ``y`` with ticks, labels and light grid lines up to ``top``."""
    ticks, decimals = _ticks(low, high)
    parts = ['<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#8c959f"/>' % (x(low), y, x(high), y)]
    for t in ticks:
        parts.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eef1f4"/>' % (x(t), top, x(t), y))
        parts.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#8c959f"/>' % (x(t), y, x(t), y + 4))
        parts.append(
            '<text x="%.1f" y="%.1f" text-anchor="middle" font-size="11" fill="#57606a">%.*f</text>'
            % (x(t), y + 16, decimals, t)
        )
    return "".join(parts)


def _forest_svg(rows, label, reference=None, signed=False):
    """Point estimates with their intervals drawn as whiskers, one row each.

    Parameters
    ----------
    rows : list of (name, estimate, low, high, colour)
    label : str
        The chart's accessible name (plain text; escaped here).
    reference : float, optional
        A value drawn as a dashed vertical line (0 for differences).
    signed : bool
        Print the numbers with a sign.
    """
    texts = ["%s [%s, %s]" % (_num(r[1], signed), _num(r[2], signed), _num(r[3], signed)) for r in rows]
    names = [_short(r[0]) for r in rows]
    row_h, top = 30, 10
    left = min(max(28 + 7.6 * max(len(n) for n in names), 90), 230)
    right = max(_WIDTH - 22 - 6.9 * max(len(t) for t in texts), left + 160)
    height = top + row_h * len(rows) + 30
    values = [v for r in rows for v in r[1:4]] + ([reference] if reference is not None else [])
    low, high = _domain(values)
    x = _scale(low, high, left, right)
    axis_y = top + row_h * len(rows) + 4
    out = [
        '<svg viewBox="0 0 %d %d" role="img" aria-label="%s">' % (_WIDTH, height, _esc(label)),
        _axis(x, low, high, axis_y, top),
    ]
    if reference is not None:
        out.append(
            '<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#57606a" stroke-dasharray="4 3"/>'
            % (x(reference), top - 6, x(reference), axis_y)
        )
    for i, (name, est, lo, hi, colour) in enumerate(rows):
        y = top + row_h * i + row_h / 2.0
        out.append(
            '<text x="%.1f" y="%.1f" text-anchor="end" font-size="13"><title>%s</title>%s</text>'
            % (left - 12, y + 4, _esc(name), _esc(names[i]))
        )
        if is_finite_number(lo) and is_finite_number(hi):
            out.append(
                '<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2.5"/>'
                % (x(lo), y, x(hi), y, colour)
            )
            for end in (lo, hi):
                out.append(
                    '<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/>'
                    % (x(end), y - 7, x(end), y + 7, colour)
                )
        if is_finite_number(est):
            out.append(
                '<circle cx="%.1f" cy="%.1f" r="5" fill="%s" stroke="#fff" stroke-width="1.5"/>' % (x(est), y, colour)
            )
        head, tail = texts[i].split(" ", 1)
        out.append(
            '<text x="%d" y="%.1f" text-anchor="end" font-size="13">%s <tspan fill="#57606a">%s</tspan>'
            "</text>" % (_WIDTH - 4, y + 4, head, tail)
        )
    out.append("</svg>")
    return "".join(out)


def _histogram_svg(score):
    """Histogram of a score's finite bootstrap replicates, CI and observed value marked."""
    reps = np.asarray(score.replicates, dtype=np.float64).ravel()
    reps = reps[np.isfinite(reps)]
    if reps.size == 0:
        return '<p class="muted">No bootstrap replicate of this score could be computed.</p>'
    iv = score.interval
    r_low, r_high = _domain([reps.min(), reps.max()], pad=0.0)
    counts, edges = np.histogram(reps, bins=HISTOGRAM_BINS, range=(r_low, r_high))
    low, high = _domain([r_low, r_high, iv.low, iv.high, score.score], pad=0.03)
    top, bottom, height = 44, 200, 230
    x = _scale(low, high, 16, _WIDTH - 16)
    tallest = float(max(counts.max(), 1))
    out = [
        '<svg viewBox="0 0 %d %d" role="img" aria-label="Histogram of %d bootstrap scores">'
        % (_WIDTH, height, reps.size),
        _axis(x, low, high, bottom, top),
    ]
    for count, a, b in zip(counts, edges[:-1], edges[1:]):
        if count == 0:
            continue
        inside = is_finite_number(iv.low) and is_finite_number(iv.high) and iv.low <= (a + b) / 2.0 <= iv.high
        h = max((bottom - top) * count / tallest, 1.0)
        out.append(
            '<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>'
            % (x(a) + 0.5, bottom - h, max(x(b) - x(a) - 1.0, 0.8), h, _BLUE if inside else _PALE)
        )
    # The CI labels sit outside the interval (left of the low line, right of the high line), so
    # they never overlap; the observed value's label has a row of its own above them.
    marks = [
        (iv.low, "CI low %s" % _num(iv.low), _ORANGE, "4 3", 30, "end"),
        (iv.high, "CI high %s" % _num(iv.high), _ORANGE, "4 3", 30, "start"),
        (score.score, "observed %s" % _num(score.score), _INK, "", 14, "middle"),
    ]
    for value, text, colour, dash, label_y, anchor in marks:
        if not is_finite_number(value):
            continue
        px = x(value)
        if px < 110:
            anchor = "start"
        elif px > _WIDTH - 110:
            anchor = "end"
        shift = {"start": 4, "end": -4, "middle": 0}[anchor] if label_y == 30 else 0
        out.append(
            '<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="2"%s/>'
            % (px, label_y + 4, px, bottom, colour, ' stroke-dasharray="%s"' % dash if dash else "")
        )
        out.append(
            '<text x="%.1f" y="%d" text-anchor="%s" font-size="12" fill="%s">%s</text>'
            % (px + shift, label_y, anchor, colour, text)
        )
    out.append("</svg>")
    return "".join(out)


# ---------------------------------------------------------------------------
# Sections
# ---------------------------------------------------------------------------
def _headline(result):
    """The official score with its CI, and what the interval means."""
    s = result.official
    iv = s.interval
    width = iv.high - iv.low
    return (
        "<header><h1>Detailed results</h1>"
        '<p class="headline">%s %s <span class="ci">(%s CI %s%s%s)</span></p>'
        '<p class="muted">Official metric <code>%s</code>, %s, on %s.</p>'
        '<p class="lead">If the test set were drawn again from the same population, with the same number '
        "of %s, your score would likely fall between <b>%s</b> and <b>%s</b> (a %s confidence interval). "
        "Submissions whose scores differ by less than the interval&#39;s width (%s) may not really differ: "
        "the gap can be noise from which items happened to be in the test set.</p></header>"
        % (
            _esc(s.metric.title),
            _num(s.score),
            _level(iv.confidence_level),
            _num(iv.low),
            DASH,
            _num(iv.high),
            _esc(s.metric.key),
            s.metric.better,
            _test_items(s.n_items),
            "items"
            if result.signature.cluster is None
            else "clusters of <code>%s</code>" % _esc(result.signature.cluster),
            _num(iv.low),
            _num(iv.high),
            _level(iv.confidence_level),
            _num(width),
        )
    )


def _intervals_section(result):
    """One whisker chart per metric: all items and each group, on the metric's own axis."""
    parts = [
        "<section><h2>Scores with their confidence intervals</h2>"
        '<p class="muted">The dot is the score on the test set; the line spans the %s confidence '
        "interval. Each metric has its own axis.</p>" % _level(result.official.interval.confidence_level)
    ]
    for metric, scores in _metrics_in_order(result.scores):
        rows = [(_group_name(s.group), s.score, s.interval.low, s.interval.high, _BLUE) for s in scores]
        parts.append(
            '<figure><h3>%s <span class="muted">(%s)</span></h3>%s</figure>'
            % (_esc(metric.title), metric.better, _forest_svg(rows, metric.title))
        )
    parts.append("</section>")
    return "".join(parts)


def _histogram_section(result):
    """The bootstrap distribution of the official score."""
    s = result.official
    return (
        "<section><h2>Bootstrap distribution of the official score</h2><figure>%s<figcaption>"
        "Each bar counts the resampled test sets (in each, %s) whose %s fell in "
        "that range. The dark bars lie inside the %s interval (dashed lines); the solid line is your "
        "score on the actual test set.</figcaption></figure></section>"
        % (_histogram_svg(s), _draw(result), _esc(s.metric.title), _level(s.interval.confidence_level))
    )


def _scores_table(result, config):
    """Every score of ``result.scores`` with its interval and number of items."""
    column = " (%s)" % _esc(config.groups.column) if config.groups is not None else ""
    rows = []
    for s in result.scores:
        rows.append(
            '<tr%s><td>%s <code>%s</code></td><td>%s</td><td class="n">%s</td><td class="n">%s</td>'
            '<td class="n">%s</td><td class="n">%s</td></tr>'
            % (
                ' class="official"' if s is result.official else "",
                _esc(s.metric.title),
                _esc(s.key),
                _esc(_group_name(s.group)),
                _num(s.score),
                _num(s.interval.low),
                _num(s.interval.high),
                DASH if s.n_items is None else "{:,}".format(s.n_items),
            )
        )
    return (
        '<section><h2>All scores</h2><div class="scroll"><table><thead><tr><th>Metric (key)</th>'
        "<th>Group%s</th><th>Score</th><th>CI low</th><th>CI high</th><th>Items</th></tr></thead>"
        '<tbody>%s</tbody></table></div><p class="muted">The first row is the official score.</p>'
        "</section>" % (column, "".join(rows))
    )


def _row_shown(row, min_count):
    """Whether a per-class row's scores may be shown: at least ``min_count`` predictions and gold items.

    Below that, precision, recall or F1 of a class the submission predicted
    once (or that the gold holds once) says whether single chosen items are
    right: an item-level oracle.  A row whose gold count is not known is
    shown only if it can be derived (recall > 0) and is large enough.
    """
    support = getattr(row, "support", None)
    if support is None and is_finite_number(row.recall) and row.recall > 0:
        support = int(round(row.precision * row.predicted / row.recall))
    return row.predicted >= min_count and support is not None and support >= min_count


def _table_settings(config):
    """``detailed_results`` of ``config`` when the organizer turned the per-class table on, else None.

    Off by default (and for a config without the section): the table is an item
    oracle.  A submission predicting one class on 10 chosen items and another
    on 10 others reads from the two precisions which of those items are right
    (and precision * predicted / recall gives the gold's class counts);
    ``min_count`` only makes such a probe larger.
    """
    settings = config.detailed_results if config is not None else None
    return settings if settings is not None and settings.per_class else None


def _shown_rows(result, config):
    """The per-class rows whose scores the page may show: none unless the organizer turned the table on."""
    settings = _table_settings(config)
    if settings is None:
        return []
    return [r for r in result.per_class if _row_shown(r, settings.min_count)]


def _per_class_section(result, config=None):
    """Precision, recall and F1 (with its CI) of each class with enough items; empty for regression.

    Only with ``detailed_results.per_class: true`` (the organizer's opt-in;
    see :func:`_table_settings`); ``detailed_results.min_count`` (default 10)
    then withholds the scores of a class predicted, or present in the gold,
    fewer times.
    """
    settings = _table_settings(config)
    if not result.per_class or settings is None:
        return ""
    min_count = settings.min_count
    shown = set(id(r) for r in _shown_rows(result, config))
    rows = []
    for r in result.per_class:
        if id(r) in shown:
            cells = (_num(r.precision), _num(r.recall), _num(r.f1), _ci(r.f1_interval))
        else:
            cells = (DASH,) * 4
        rows.append(
            '<tr><td>%s</td><td class="n">%s</td><td class="n">%s</td><td class="n">%s</td>'
            '<td class="n">%s</td><td class="n">%s</td></tr>'
            % ((_esc(r.label),) + cells + ("{:,}".format(r.predicted),))
        )
    level = _level(result.per_class[0].f1_interval.confidence_level)
    unit = _esc(result.unit_name)
    first, second, third = (_esc(t[:1].upper() + t[1:]) for t in result.unit_titles)
    withheld = ""
    if len(shown) < len(result.per_class):
        withheld = (
            " A dash: the scores of a %s are shown only when your submission predicted it, and the test "
            "set holds it, at least %d times each, so that no row tells whether single items are right."
            % (unit, min_count)
        )
    return (
        '<section><h2>Per-%s scores</h2><div class="scroll"><table><thead><tr><th>%s</th>'
        "<th>%s</th><th>%s</th><th>%s</th><th>%s %s CI</th><th>Predicted</th></tr></thead>"
        '<tbody>%s</tbody></table></div><p class="muted">On all test items. &ldquo;Predicted&rdquo; is how '
        "many times your submission predicted the %s.%s</p></section>"
        % (unit, unit[:1].upper() + unit[1:], first, second, third, third, level, "".join(rows), unit, withheld)
    )


def _verdict(comparison):
    """(css class, colour, words) for a difference's interval against 0."""
    iv = comparison.interval
    if is_finite_number(iv.low) and iv.low > 0:
        return "better", _GREEN, "better"
    if is_finite_number(iv.high) and iv.high < 0:
        return "worse", "#8b1f1f", "worse"
    return "unclear", _RED, "unclear"


def _baseline_section(result):
    """Differences to the baseline: whisker charts against 0, a table and what they mean."""
    if not result.baseline:
        return ""
    name = _esc(result.baseline[0].baseline_name)
    conf = result.baseline[0].interval.confidence_level
    level = _level(conf)
    parts = [
        "<section><h2>Compared with the baseline &ldquo;%s&rdquo;</h2>"
        "<p>Each difference is your score minus the baseline&#39;s, signed so that <b>positive means "
        "better than the baseline</b> (for metrics where lower is better it is the baseline&#39;s score "
        "minus yours). The verdict reads the %s interval:</p><ul>"
        '<li><b class="better">better</b> (green): the whole interval lies above 0, so the difference is '
        "unlikely to be an accident of which items are in the test set;</li>"
        '<li><b class="unclear">unclear</b> (red): the interval includes 0, so the difference may be noise;</li>'
        '<li><b class="worse">worse</b>: the interval lies below 0.</li></ul>'
        "<p>The p-value is the one-sided p-value that the submission is better than the baseline, "
        "read from the same bootstrap as the interval: the smaller, the stronger the evidence. It is "
        "below %g exactly when the whole interval lies above 0 (the interval is two-sided, so each "
        "side gets half of %g).</p>" % (name, level, round((1.0 - conf) / 2.0, 6), round(1.0 - conf, 6))
    ]
    for metric, comps in _metrics_in_order(result.baseline):
        rows = [(_group_name(c.group), c.difference, c.interval.low, c.interval.high, _verdict(c)[1]) for c in comps]
        parts.append(
            "<figure><h3>%s: difference to the baseline</h3>%s</figure>"
            % (_esc(metric.title), _forest_svg(rows, metric.title + " difference", 0.0, True))
        )
    rows = []
    for c in result.baseline:
        css, _, words = _verdict(c)
        rows.append(
            '<tr><td class="t">%s</td><td>%s</td><td class="n">%s</td><td class="n">%s</td>'
            '<td class="n">%s</td><td class="n">%s</td><td class="%s">%s</td></tr>'
            % (
                _esc(c.metric.title),
                _esc(_group_name(c.group)),
                _num(c.baseline_score),
                _num(c.difference, True),
                _ci(c.interval, True),
                _p_text(c.p_value),
                css,
                words,
            )
        )
    parts.append(
        '<div class="scroll"><table><thead><tr><th>Metric</th><th>Group</th><th>Baseline</th>'
        "<th>Difference</th><th>%s CI</th><th>p-value</th><th>Verdict</th></tr></thead><tbody>%s"
        "</tbody></table></div></section>" % (level, "".join(rows))
    )
    return "".join(parts)


def _interval_notes(where, interval, n_resamples, best=None, title="the metric"):
    """Plain-text notes on one interval: its own note, a degenerate interval, and resamples left out.

    ``best`` is the best value of the metric (None for a difference to the baseline).
    """
    notes = []
    if interval.note:
        notes.append("%s: %s." % (where, interval.note))
    degenerate = degenerate_interval_note(interval.low, interval.high, where, best, title)
    if degenerate is not None:
        notes.append(degenerate)
    if 0 < interval.n_valid < n_resamples:
        notes.append(
            "%s: %s of %s resamples had no items for this score (the group was not drawn); the "
            "interval uses the remaining %s."
            % (
                where,
                "{:,}".format(n_resamples - interval.n_valid),
                "{:,}".format(n_resamples),
                "{:,}".format(interval.n_valid),
            )
        )
    return notes


def _notes_section(result, config=None):
    """Notes attached to intervals, and resamples left out for empty groups."""
    b = result.signature.n_resamples
    notes = list(result.warnings)
    for s in result.scores:
        notes += _interval_notes(
            "%s, %s" % (s.metric.title, _group_name(s.group)), s.interval, b, s.metric.info.best, s.metric.title
        )
    for c in result.baseline:
        notes += _interval_notes(
            "%s, %s, difference to the baseline" % (c.metric.title, _group_name(c.group)), c.interval, b
        )
    per_class = _shown_rows(result, config)
    score = result.unit_titles[2]
    for r in per_class:
        notes += _interval_notes("%s of %s %s" % (score, result.unit_name, r.label), r.f1_interval, b, 1.0, score)
    methods = set(r.f1_interval.method for r in per_class) - {result.signature.method}
    if methods:
        notes.append(
            "Per-%s %s intervals use the %s method, not %s."
            % (
                result.unit_name,
                score,
                ", ".join(sorted(methods)),
                METHOD_NAMES.get(result.signature.method, result.signature.method),
            )
        )
    if not notes:
        return ""
    unique = list(dict.fromkeys(notes))
    return '<section><h2>Notes</h2><ul class="notes">%s</ul></section>' % "".join(
        "<li>%s</li>" % _esc(n) for n in unique
    )


def _test_items(n):
    """``540 test items``; ``test items`` when the count is withheld (the gold scores decoy ids)."""
    return "test items" if n is None else "%s test items" % "{:,}".format(n)


def _draw(result):
    """How one resample is drawn: the test items, or the clusters of a column, within strata (HTML)."""
    sig = result.signature
    return draw_in_words(
        sig.n_items,
        "test items",
        cluster=sig.cluster,
        n_clusters=result.n_clusters,
        strata=sig.strata,
        n_strata=result.n_strata,
        code=lambda name: "<code>%s</code>" % _esc(name),
    )


def _footer(result):
    """The signature line and the bootstrap settings in words."""
    sig = result.signature
    return (
        "<footer><p>Intervals: %s bootstrap, %s confidence level, from %s resamples (B): in each, %s; "
        "seed %s. The same resamples are used for every submission.</p>"
        "<p>Signature (quote it with these numbers; it identifies how they were computed):</p>"
        '<code class="sig">%s</code><p>Generated by leaderboard-ci %s.</p></footer>'
        % (
            _esc(METHOD_NAMES.get(sig.method, sig.method)),
            _level(sig.confidence_level),
            "{:,}".format(sig.n_resamples),
            _draw(result),
            _esc(sig.seed),
            _esc(str(sig)),
            _esc(sig.version),
        )
    )


def render_detailed_results(result, config):
    """The complete, self-contained ``detailed_results.html`` page.

    Parameters
    ----------
    result : SubmissionResult
        From :func:`leaderboard_ci.scoring.evaluation.evaluate`.
    config : Config
        The scoring configuration (for the group column's name).

    Returns
    -------
    str
        An HTML5 document with inline CSS and SVG, no script and no URL.
    """
    official = result.official
    body = [
        _headline(result),
        _intervals_section(result),
        _histogram_section(result),
        _baseline_section(result),
        _scores_table(result, config),
        _per_class_section(result, config),
        _notes_section(result, config),
        _footer(result),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>Detailed results: %s %s</title><style>%s</style></head><body><main>%s</main></body></html>\n"
        % (_esc(official.metric.title), _num(official.score), CSS, "".join(body))
    )
