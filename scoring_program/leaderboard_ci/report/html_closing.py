"""The closing sections of ``report.html``: gaps between groups, the per-class table, the
files written beside the page, the skipped submissions, the settings and the footer.

Split from :mod:`leaderboard_ci.report.html_report` (one job per module); the same
escaping rules hold: every name from the data goes through :func:`html.escape`.
"""

from __future__ import annotations

from .._version import __version__
from .formatting import DASH, MINUS, correction_name, family_description, format_ci, unit_nouns
from .html_intro import draw_text
from .html_parts import _count, _esc, _level, _name, _num, _p, _table, target_anchor
from .json_report import corrections_of
from .scale import PARQUET_HINT, full_files
from .tables import unit_f1_table


def group_gaps_section(result, digits, names=None):
    gaps = result.group_gaps
    if gaps is None or len(gaps) == 0:
        return ""
    truncated = ""
    if names is not None:
        every = gaps["name"].nunique()
        gaps = gaps[gaps["name"].isin(names)]
        truncated = (
            '<p class="warn truncated"><b>Top %d of %s systems</b> of the official ranking; every system '
            'is in <a href="group_gaps.csv">group_gaps.csv</a>.</p>' % (gaps["name"].nunique(), _count(every))
        )
    rows = [
        [
            (_esc(r.metric), ""),
            (_esc(r.groups), ""),
            (_name(r.name), "name"),
            (_num(r.gap, 2 if r.quantity == "gain" else digits, signed=True), "n"),
            (
                _esc(
                    format_ci(
                        getattr(r, "ci_low", None),
                        getattr(r, "ci_high", None),
                        2 if r.quantity == "gain" else digits,
                        signed=True,
                    )
                ).replace("-", MINUS),
                "n",
            ),
            (_p(getattr(r, "p_value", None)), "n"),
            (_esc(r.quantity), ""),
        ]
        for r in gaps.itertuples(index=False)
    ]
    return (
        '<section id="group-gaps"><h2>Gaps between groups</h2><p class="note">For each system, its gain over '
        "the baseline (or its score, without a baseline) on the first group minus that on the second "
        "(ODESIA&rsquo;s gap between languages): a large gap means the system works much better on one "
        "group.</p>%s%s</section>"
        % (truncated, _table(["Metric", "Groups", "System", "Gap", "%s CI" % _level(result), "p (no gap)", "Of"], rows))
    )


def units_section(result, digits):
    table = unit_f1_table(result, digits)
    if table is None:
        return ""
    unit = _esc(result.units.attrs.get("unit_name", "class"))
    score = _esc(result.units.attrs.get("titles", ("precision", "recall", "F1"))[2])
    rows = [[(_esc(row[0]), "")] + [(_esc(cell).replace("-", MINUS), "n") for cell in row[1:]] for row in table.rows]
    return '<section id="units"><h2>Per-%s %s</h2><p class="note">%s.</p>%s</section>' % (
        unit,
        score,
        _esc(table.caption),
        _table([_esc(h) for h in table.header], rows),
    )


def files_section(result, scope):
    """Above the threshold: the files that hold every row, linked relative to the page."""
    if not scope.truncated:
        return ""
    items = []
    for key, view in scope.views.items():
        files = full_files(scope, key, view.target)
        items.append(
            '<li><a href="#%s">%s</a> (%s systems): %s</li>'
            % (
                target_anchor(key),
                _esc(view.target.title),
                _count(view.m),
                "; ".join('<a href="%s">%s</a> (%s)' % (_esc(path), _esc(path), _esc(what)) for path, what in files),
            )
        )
    extra = ['<a href="indicators.csv">indicators.csv</a>']
    if result.group_gaps is not None:
        extra.append('<a href="group_gaps.csv">group_gaps.csv</a>')
    if getattr(result, "units", None) is not None:
        extra.append(
            '<a href="units.csv">units.csv</a>'
            + (' and <a href="units.parquet">units.parquet</a>' if scope.parquet else "")
        )
    notes = [
        '<p class="note">The tables above show the top %d systems of each ranking. <code>pair_matrix.csv</code> '
        "is not written above %d systems (it would have m &times; m cells): the pairs files hold every pair, "
        "one row each (<code>a</code> ranked above <code>b</code>; <code>diff</code> positive when "
        "<code>a</code> is better).</p>" % (scope.top, scope.top)
    ]
    if not scope.parquet:
        notes.append('<p class="note">%s.</p>' % _esc(PARQUET_HINT))
    return (
        '<section id="files"><h2>Full tables</h2><p>Every system and every pair, in the folder of this page:</p>'
        "<ul>%s<li>%s</li></ul>%s</section>" % ("".join(items), ", ".join(extra), "".join(notes))
    )


def skipped_section(result):
    skipped = result.skipped
    if skipped is None or len(skipped) == 0:
        body = '<p class="muted">No submission was skipped: every system above was analysed.</p>'
    else:
        rows = [[(_esc(r.submission), ""), (_esc(r.reason), "")] for r in skipped.itertuples(index=False)]
        body = "<p>These submissions are not in the analysis:</p>%s" % _table(["Submission", "Reason"], rows)
    return '<section id="skipped"><h2>Skipped submissions (%d)</h2>%s</section>' % (len(skipped), body)


def settings_section(result, primary):
    sig = result.signature
    rows = [
        ("metrics", ", ".join(str(m) for m in result.settings.get("metrics") or [])),
        ("official metric", sig.metric),
        ("%s (n)" % unit_nouns(result.official.metric)[1], _count(result.n)),
        ("systems (m)", _count(len(result.names))),
        ("baseline", result.baseline or DASH),
        ("resamples (B)", _count(sig.n_resamples)),
        ("each resample", draw_text(result, html=False)),
        ("seed", sig.seed),
        ("interval method", sig.method),
        ("confidence level", sig.confidence_level),
        ("test", sig.test),
    ]
    if sig.test == "permutation":
        rows.append(("permutations", _count(sig.n_permutations)))
    rows += [
        ("correction family", "%s (%s)" % (sig.family, family_description(sig.family))),
        ("corrections", ", ".join(correction_name(c, long=True) for c in corrections_of(result)) or DASH),
        ("stars and letters from", correction_name(primary, long=True)),
        ("alpha", sig.alpha),
        ("labels", ", ".join(result.settings.get("labels") or []) or DASH),
        ("group column", result.settings.get("groups") or DASH),
        (
            "reference point",
            result.settings.get("reference_point")
            if result.settings.get("reference_point") is not None
            else "metric's best value",
        ),
        ("gold standard SHA-256", sig.gold_sha256 or DASH),
        (
            "software",
            "leaderboard-ci %s, Python %s, numpy %s, pandas %s, scipy %s, statsmodels %s"
            % tuple(
                sig.as_dict().get(k, "?") for k in ("version", "python", "numpy", "pandas", "scipy", "statsmodels")
            ),
        ),
    ]
    return '<section id="settings"><h2>Settings</h2>%s</section>' % _table(
        ["Setting", "Value"], [[(_esc(a), ""), (_esc(b), "")] for a, b in rows]
    )


def footer(result):
    return (
        "<footer><p>Signature (quote it with these numbers; it identifies how they were computed):</p>"
        '<code class="sig">%s</code><p>Generated by leaderboard-ci %s. Methods: paired bootstrap with '
        "percentile intervals, differences to the winner and all-pairs tests with corrections and the "
        "competition indicators (Nava-Mu&ntilde;oz, Graff &amp; Escalante 2024, CompStats); intervals of "
        "differences and letter groups (Bestgen 2022); baseline-calibrated gains and gaps between groups "
        "(ODESIA).</p></footer>" % (_esc(str(result.signature)), _esc(__version__))
    )
