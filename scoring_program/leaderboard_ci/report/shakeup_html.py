"""The shake-up on a page: a section of the end-of-phase ``report.html``, or the page ``shakeup.html``.

Self-contained like the report (inline CSS, figures as base64 PNG, no
script); every name from the data is escaped.  The section opens with the one
sentence that says whether the shake-up is larger than noise, then the other
verdicts, how to read the numbers, the competition's table, the figures and
the participants' tables (folded from :data:`FOLD_FROM` rows).
"""

from __future__ import annotations

import base64

from .._version import __version__
from .formatting import MINUS
from .html_parts import FIGURE_DPI, _esc, _name, img_attributes
from .html_style import CSS
from .shakeup_tables import shakeup_tables, shown_rows
from .shakeup_words import agreement_sentence, level_words, shakeup_larger_than_noise, summary_sentences

__all__ = ["shakeup_section", "render_shakeup_page", "render_shakeup_figures", "FOLD_FROM", "SECTION_ID"]

#: From this many rows a participants' table starts folded under its heading.
FOLD_FROM = 21
#: The section's anchor in the page.
SECTION_ID = "shakeup"

_CAPTIONS = {
    "public_private": "Each participant's public score (across) against its private score (up), each with its "
    "%(level)s interval. On the dashed identity line a participant scores the same on both sets; %(above)s. "
    "Red: the gap is flagged as worse on private (beyond noise, %(control)s); green: flagged as better; "
    "dark blue: the private winner; grey: within noise.",
    "rank_change": "Each participant's public rank (orange ring, with its %(level)s simultaneous rank set as a light "
    "orange bar) and private rank (blue dot, light blue bar), joined by a line; best private rank at the top. A "
    "line that leaves its own bars moved more than the rank sets allow.",
    "gap_submissions": "The gap (private %(minus)s public, with its %(level)s interval) against the number of "
    "submissions in the public download; grey diamonds: the gap that picking the best of the participant's public "
    "submissions explains on average (the best-of-k optimism, from the public set's replicates).",
}
_TITLES = {
    "public_private": "Public against private score",
    "rank_change": "Rank change from public to private",
    "gap_submissions": "The gap against the number of submissions",
}


def render_shakeup_figures(result, top=None):
    """PNG bytes of each figure, as the page embeds them."""
    from .plots import figure_png
    from .shakeup_plots import shakeup_figures

    return {name: figure_png(fig, dpi=FIGURE_DPI, palette=True) for name, fig in shakeup_figures(result, top).items()}


def _figure(name, data, result):
    if not data:
        return ""
    text = _CAPTIONS[name] % {
        "level": level_words(result),
        "minus": MINUS,
        "above": "above it, better on private"
        if result.metric.sign > 0
        else "above it, worse on private (lower is better)",
        "control": "Benjamini-Hochberg at %g" % result.settings["alpha"],
    }
    return (
        '<figure class="plot" id="shakeup-%s"><img alt="%s" src="data:image/png;base64,%s"%s><figcaption>%s'
        "</figcaption></figure>"
        % (name, _esc("Shake-up: " + _TITLES[name]), base64.b64encode(data).decode("ascii"), img_attributes(data), text)
    )


def _html_table(table, result=None, first_is_name=True):
    """A :class:`~leaderboard_ci.report.tables.Table` as HTML: names breakable, numbers right-aligned."""
    head = "".join("<th>%s</th>" % _esc(h) for h in table.header)
    body = []
    winner = result.winners_curse.winner if result is not None and result.winners_curse is not None else None
    for row in table.rows:
        cells = []
        for j, (cell, kind) in enumerate(zip(row, table.kinds)):
            text = _name(cell) if (j == 0 and first_is_name) else _esc(cell)
            if kind == "num":
                text = text.replace("-", MINUS)
            if cell in ("worse on private", "better on private"):
                text = '<span class="%s">%s</span>' % ("zero" if cell.startswith("worse") else "nonzero", _esc(cell))
            cells.append('<td class="n">%s</td>' % text if kind == "num" else "<td>%s</td>" % text)
        css = ' class="winner"' if winner is not None and row[0] == winner and first_is_name else ""
        body.append("<tr%s>%s</tr>" % (css, "".join(cells)))
    notes = "".join(
        '<p class="note%s">%s</p>' % (" truncated" if " participants shown: " in n else "", _esc(n))
        for n in table.notes
    )
    return '<div class="scroll"><table><thead><tr>%s</tr></thead><tbody>%s</tbody></table></div>%s' % (
        head,
        "".join(body),
        notes,
    )


def _fold(html_text, rows, summary):
    if rows < FOLD_FROM:
        return html_text
    return "<details><summary>%s</summary>%s</details>" % (_esc(summary), html_text)


def _explanations(result):
    level = level_words(result)
    return (
        '<div class="explain">'
        "<p><b>Gap.</b> A participant's private score minus its public score. The two test sets are independent "
        "samples of items, so the gap's interval combines both sets' noise: its replicates pair the private set's "
        "resample b with the public set's resample b + 1.</p>"
        "<p><b>Flag.</b> A gap beyond what noise explains: its p-value, adjusted by Benjamini and Hochberg over the "
        "%d participants, is at most &alpha; = %g, so that among the flagged gaps at most a share &alpha; is "
        "expected to be noise.</p>"
        "<p><b>Kendall's &tau;.</b> How well the two rankings agree (1: the same order). Even with nobody adapting to "
        "the public set, two test sets disagree by noise: the noise band is the middle %s of &tau; over pairs of "
        "test sets of these sizes drawn from the replicates; below it, the shake-up is larger than noise.</p>"
        "<p><b>Best-of-k optimism.</b> A participant who keeps the best of k public submissions keeps the one the "
        "public set's noise favoured: the optimism is how much better that score looks than it is, on average.</p>"
        "<p><b>Winner's curse.</b> The private winner is the best of m on one test set, so its score is the highest "
        "of m noisy scores; the corrected score takes off the optimism of that pick.</p>"
        "</div>" % (result.m, result.settings["alpha"], level)
    )


def _settings(result):
    rows = []
    for label, scores in (("public", result.public), ("private", result.private)):
        rows.append(
            '<p><b>%s set</b>: %s, %d items.</p><code class="sig">%s</code>'
            % (label.capitalize(), _esc(scores.source), scores.n_items, _esc(str(scores.signature)))
        )
    s = result.settings
    rows.append(
        '<p class="note">Runs: %s on the public set; %s on the private one. Intervals: %s at %s; p-values %s; '
        "flags: %s at &alpha; = %g.</p>"
        % (
            _esc(s.get("select")),
            _esc(s.get("private_select")),
            _esc(s["method"]),
            level_words(result),
            "two-sided" if s["sides"] == "two" else "one-sided (private worse)",
            _esc(s["correction"]),
            s["alpha"],
        )
    )
    return "".join(rows)


def _others(result):
    parts = []
    if len(result.unmatched):
        rows = "".join(
            "<tr><td>%s</td><td>%s</td></tr>" % (_name(r.participant), _esc("only in the %s phase" % r.only_in))
            for r in result.unmatched.itertuples(index=False)
        )
        parts.append(
            '<details><summary>%d participant%s in one phase only (not compared)</summary><div class="scroll">'
            "<table><thead><tr><th>Participant</th><th>Submissions</th></tr></thead><tbody>%s</tbody></table></div>"
            "</details>" % (len(result.unmatched), "" if len(result.unmatched) == 1 else "s", rows)
        )
    if len(result.skipped):
        rows = "".join(
            "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>"
            % (_name(r.participant), _name(r.submission), _esc(r.phase), _esc(r.reason))
            for r in result.skipped.itertuples(index=False)
        )
        parts.append(
            '<details><summary>%d submission%s not read (the participant\'s message)</summary><div class="scroll">'
            "<table><thead><tr><th>Participant</th><th>Submission</th><th>Phase</th><th>Reason</th></tr></thead>"
            "<tbody>%s</tbody></table></div></details>"
            % (len(result.skipped), "" if len(result.skipped) == 1 else "s", rows)
        )
    others = [n for n in result.notes if not n.startswith("With B = ")]
    if others:
        parts.append('<ul class="notes">%s</ul>' % "".join("<li>%s</li>" % _esc(n) for n in others))
    return "".join(parts)


def shakeup_section(result, figures=None, top=None, digits=4, heading="h2", files="shakeup"):
    """The shake-up as one ``<section id="shakeup">`` (for the end-of-phase report or its own page).

    ``figures``: ``name -> PNG bytes`` already drawn (drawn here when None); ``top``:
    above that many participants the tables and the rank-change figure show the
    best private ranks and every flagged participant; ``files``: the folder of the CSV files.
    """
    figures = render_shakeup_figures(result, top) if figures is None else figures
    tables = shakeup_tables(result, top, digits)
    shown, truncated = shown_rows(result, top)
    sub = "h3" if heading == "h2" else "h2"
    sentences = summary_sentences(result)
    larger = shakeup_larger_than_noise(result)
    lead_class = "warn" if larger else "lead"
    parts = [
        '<section id="%s"><%s>Shake-up: from the public to the private leaderboard <span class="muted">(%s, %s)'
        "</span></%s>" % (SECTION_ID, heading, _esc(result.metric.title), _esc(result.metric.better), heading),
        '<p class="%s shakeup-verdict">%s</p>' % (lead_class, _esc(agreement_sentence(result))),
        "".join('<p class="warn">%s.</p>' % _esc(n) for n in result.notes if n.startswith("With B = ")),
        '<ul class="notes">%s</ul>' % "".join("<li>%s</li>" % _esc(s) for s in sentences[1:]),
        _explanations(result),
        "<%s>The competition</%s>" % (sub, sub),
        _html_table(tables["competition"], None, first_is_name=False),
        "<%s>Public against private</%s>" % (sub, sub),
        _figure("public_private", figures.get("public_private"), result),
        "<%s>Rank change%s</%s>"
        % (
            sub,
            (' <span class="muted">(%d of %d participants)</span>' % (len(shown), result.m)) if truncated else "",
            sub,
        ),
        _figure("rank_change", figures.get("rank_change"), result),
        "<%s>Scores and ranks</%s>" % (sub, sub),
        _fold(_html_table(tables["participants"], result), len(shown), "The table: %d participants" % len(shown)),
        "<%s>Gaps and the number of submissions</%s>" % (sub, sub),
        _fold(_html_table(tables["gaps"], result), len(shown), "The table: %d gaps" % len(shown)),
        _figure("gap_submissions", figures.get("gap_submissions"), result),
        '<p class="note">Every participant: <a href="%s/participants.csv">%s/participants.csv</a>; the '
        'competition\'s numbers: <a href="%s/competition.csv">%s/competition.csv</a>.</p>'
        % (_esc(files), _esc(files), _esc(files), _esc(files)),
        _others(result),
        "<%s>Settings</%s>" % (sub, sub),
        _settings(result),
        "</section>",
    ]
    return "".join(parts)


def render_shakeup_page(result, figures=None, top=None, digits=4):
    """The page ``shakeup.html``: the section, with the report's style and a header."""
    body = (
        "<header><h1>leaderboard-ci &middot; shake-up</h1>"
        '<p class="headline">%s: %d participants, public %d and private %d items</p></header>'
        % (_esc(result.metric.title), result.m, result.public.n_items, result.private.n_items)
    ) + shakeup_section(result, figures, top, digits, heading="h2")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>Shake-up: %s</title><style>%s</style></head><body><main>%s<footer>leaderboard-ci %s</footer></main>"
        "</body></html>\n" % (_esc(result.metric.title), CSS, body, _esc(__version__))
    )
