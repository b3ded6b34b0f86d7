"""The opening of the report page: the headline, the summary table and how to read the report."""

from __future__ import annotations

from .formatting import STAR_LEGEND, correction_name, family_description, unit_nouns
from .html_parts import _ci, _count, _esc, _level, _name, _names, _num, _table, target_anchor
from .json_report import corrections_of, sides_of
from .verdicts import DIRECTION_MARK, family_notes, has_rank_sets

__all__ = ["header", "summary", "explanations", "baseline_above_winner"]


def header(result, primary):
    official = result.official
    win = official.systems.iloc[0]
    tied = [n for n in official.tied_with_winner if n != official.winner]
    ranked = has_rank_sets(official.systems)
    tied_text = (
        "%s (%s = %g): %s."
        % (
            "Tied with the winner, 1 in their simultaneous rank set"
            if ranked
            else "Not significantly different from the winner, %s," % _esc(correction_name(primary)),
            "&alpha;",
            result.signature.alpha,
            ("<b>%s</b>" % _names(tied, 8)) if len(tied) <= 8 else "%d systems (%s)" % (len(tied), _names(tied, 8)),
        )
        if tied
        else "%s (%s = %g)."
        % (
            "No other system has 1 in its simultaneous rank set"
            if ranked
            else "Every other system is significantly worse than the winner, %s," % _esc(correction_name(primary)),
            "&alpha;",
            result.signature.alpha,
        )
    )
    sig = result.signature
    return (
        "<header><h1>leaderboard-ci &middot; end-of-phase analysis</h1>"
        '<p class="headline">Winner on %s: %s %s <span class="ci">(%s CI %s)</span></p>'
        '<p class="lead">%s</p>%s%s'
        '<p class="muted">%s systems, %s test %s, %s paired bootstrap resamples (%s intervals, seed %s); '
        "%s p-values from the %s test, adjusted over %s.</p></header>"
        % (
            _esc(official.title),
            "<b>%s</b>" % _esc(official.winner),
            _num(win["score"]),
            _level(result),
            _ci(win["ci_low"], win["ci_high"]),
            tied_text,
            ('<p class="warn">%s</p>' % baseline_above_winner(result, official))
            if baseline_above_winner(result, official)
            else "",
            "".join('<p class="warn family-note">%s</p>' % _esc(n) for n in family_notes(result)),
            _count(len(result.names)),
            _count(result.n),
            unit_nouns(official.metric)[1],
            _count(sig.n_resamples),
            _esc(sig.method),
            _esc(sig.seed),
            "two-sided" if sides_of(result) == "two" else "one-sided",
            "permutation" if sig.test == "permutation" else "paired bootstrap",
            _esc(family_description(sig.family)),
        )
    )


def summary(result, scope=None):
    rows = []
    for key, t in result.targets.items():
        w = t.systems.iloc[0]
        tied = [n for n in t.tied_with_winner if n != t.winner]
        rows.append(
            [
                ('<a href="#%s">%s</a>' % (target_anchor(key), _esc(t.title)), ""),
                (_esc(t.metric.better), ""),
                (_name(t.winner), ""),
                (_num(w["score"]), "n"),
                (_ci(w["ci_low"], w["ci_high"]), "n"),
                (
                    ("%s%s" % ("%d: " % len(tied) if len(tied) > 4 else "", _names(tied, 4)))
                    if tied
                    else '<span class="muted">none</span>',
                    "",
                ),
            ]
        )
    table = _table(["Metric", "Direction", "Winner", "Score", "%s CI" % _level(result), "Tied with the winner"], rows)
    links = ['<li><a href="#%s">%s</a></li>' % (target_anchor(k), _esc(t.title)) for k, t in result.targets.items()]
    links += ['<li><a href="#indicators">Competition indicators</a></li>']
    if result.group_gaps is not None and len(result.group_gaps):
        links.append('<li><a href="#group-gaps">Gaps between groups</a></li>')
    if scope is not None and scope.truncated:
        links.append('<li><a href="#files">Full tables (every system, every pair)</a></li>')
    links += [
        '<li><a href="#skipped">Skipped submissions (%d)</a></li>' % len(result.skipped),
        '<li><a href="#settings">Settings and signature</a></li>',
    ]
    return '<section id="summary"><h2>Summary</h2>%s<nav><p class="muted">Contents</p><ul>%s</ul></nav></section>' % (
        table,
        "".join(links),
    )


def _duality_text(result, primary):
    """How each interval goes with a p-value, and which one decides (no correction blamed for a disagreement)."""
    level = _level(result)
    marginal = (
        "Each difference&rsquo;s <b>%s interval, this pair alone</b>, is the inversion of its unadjusted "
        "p-value: it excludes 0 exactly when p &lt; &alpha;." % level
    )
    if primary == "maxt":
        return (
            "%s The verdicts (stars, letters, significant, tied with the winner) come from the <b>max-t "
            "step-down</b> (Romano &amp; Wolf 2005) over %s, computed from the same resamples; beside each "
            "verdict is its <b>simultaneous %s interval</b> (single-step max-t): all of them hold together "
            "with %s confidence, and one excludes 0 exactly when the step-down decides the difference at its "
            "first step. A difference decided at a later step is marked %s: the step-down vouches for its "
            "direction (every direction claimed holds together with %s confidence), while its simultaneous "
            "interval still includes 0."
            % (marginal, _esc(family_description(result.signature.family)), level, level, DIRECTION_MARK, level)
        )
    if primary == "none":
        return marginal + " The verdicts come from these unadjusted p-values."
    return (
        "%s The verdicts come from the %s-adjusted p-values; %s adjusts p-values and has no interval, so the "
        "interval shown beside a verdict is this pair&rsquo;s alone."
        % (marginal, _esc(correction_name(primary)), _esc(correction_name(primary, long=True)))
    )


def explanations(result, primary):
    sig = result.signature
    level = _level(result)
    corrections = corrections_of(result)
    names = ", ".join(_esc(correction_name(c, long=True)) for c in corrections) or "none"
    two = sides_of(result) == "two"
    side = (
        "They are two-sided: a difference this large in either direction counts, since which system is "
        "&ldquo;better&rdquo; was itself read from the data (the one-sided values are in report.json)."
        if two
        else "They are one-sided: the alternative is that the better-ranked system is really better."
    )
    if sig.test == "permutation":
        p_text = (
            "<b>p-values</b> come from a paired permutation test: the outputs of the two systems are "
            "swapped item by item at random; p is the share of swaps giving a difference at least as "
            "large as the one observed. %s" % side
        )
    else:
        p_text = (
            "<b>p-values</b> are paired-bootstrap p-values: if the two systems were equally good, how "
            "often would a difference at least this large appear? The bootstrap distribution of the "
            "difference, shifted to be centred at 0, plays the role of the null (see the histogram). %s" % side
        )
    return (
        '<section id="how-to-read"><h2>How to read this report</h2><div class="explain">'
        "<p><b>Score and its interval.</b> The score is computed on the whole test set. Its %(level)s "
        "confidence interval (CI) comes from %(b)s bootstrap resamples of the test %(units)s: if the test set "
        "were drawn again, the score would likely fall in that range.</p>"
        "<p><b>CI of a difference.</b> Both systems are scored on the <i>same</i> resampled test sets, so "
        "their difference is resampled as a pair. If the interval of the difference contains 0, the data "
        "are compatible with no real difference. Overlapping score intervals do <i>not</i> mean two systems "
        "are tied: judge by the interval of their difference.</p>"
        "<p>%(p_text)s</p><p><b>Intervals and verdicts.</b> %(duality)s</p>%(ranks)s"
        "<p><b>Stars</b>: %(stars)s, from the adjusted p-values of the <b>%(primary)s</b> correction%(mark)s. "
        "The orientation is always &ldquo;better-ranked minus worse-ranked&rdquo;, signed so that a "
        "positive difference means better, also for metrics where lower is better.</p>"
        "<p><b>Corrections.</b> Many comparisons make some look significant by chance, so p-values are "
        "adjusted (%(names)s) over %(family)s (family <code>%(family_key)s</code>). Bonferroni and Holm "
        "control the chance of any false finding; Benjamini-Hochberg (BH) the expected share of false "
        "findings. <b>%(primary_long)s</b> decides the stars, the letters and who is tied with the "
        "winner; the others are shown beside it.</p>"
        "<p><b>Letters.</b> Systems that share a letter are not significantly different from each other "
        "(compact letter display).%(tied)s%(gain)s</p>"
        "</div></section>"
        % {
            "level": level,
            "b": _count(sig.n_resamples),
            "units": unit_nouns(result.official.metric)[1],
            "p_text": p_text,
            "stars": _esc(STAR_LEGEND),
            "mark": (
                "; %s after them: a direction decided at a later step (its simultaneous interval includes 0)"
                % DIRECTION_MARK
                if primary == "maxt"
                else ""
            ),
            "primary": _esc(correction_name(primary)),
            "primary_long": _esc(correction_name(primary, long=True)),
            "names": names,
            "family": _esc(family_description(sig.family)),
            "family_key": _esc(sig.family),
            "duality": _duality_text(result, primary),
            "tied": ""
            if has_rank_sets(result.official.systems)
            else (" <b>Tied with the winner</b>: not significantly different from the first-ranked system."),
            "ranks": (
                "<p><b>Rank sets</b> (Mogstad, Romano, Shaikh &amp; Wilhelm 2024): the ranks a system can "
                "hold at %s confidence, simultaneous (they hold for all systems at once) and marginal (for "
                "one system alone), from the same resamples. <b>Tied with the winner</b>: 1 is in the "
                "system&rsquo;s simultaneous rank set.</p>" % level
            )
            if has_rank_sets(result.official.systems)
            else "",
            "gain": (
                " <b>Gain over the baseline</b> (ODESIA): 100&middot;(s &minus; b)/|b &minus; r|, the "
                "share (%) of the way from the baseline&rsquo;s score b to the reference r (the "
                "metric&rsquo;s best value) that a system covers."
            )
            if result.baseline
            else "",
        }
    )


def baseline_above_winner(result, target):
    """A sentence when the baseline scores better than the winner (the best non-baseline system), else ""."""
    base = result.baseline
    if base is None or base not in set(target.systems["name"]):
        return ""
    frame = target.systems.set_index("name")
    b, w = float(frame.loc[base, "score"]), float(frame.loc[target.winner, "score"])
    if target.metric.sign * (b - w) <= 0:
        return ""
    return "The baseline %s scores better than the winner (%s against %s): no submission beats the baseline." % (
        _esc(base),
        _num(b),
        _num(w),
    )
