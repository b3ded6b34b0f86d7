"""Formatting shared by the report's renderers: numbers, p-values, names of corrections, escaping."""

from __future__ import annotations

import math
import re

from ..core.numeric import is_finite_number
from ..tasks.registry import TASKS

__all__ = [
    "unit_nouns",
    "DASH",
    "MINUS",
    "DAGGER",
    "STAR_LEGEND",
    "CORRECTION_NAMES",
    "correction_name",
    "family_description",
    "format_number",
    "p_phrase",
    "format_p",
    "P_THRESHOLDS",
    "format_ci",
    "format_count",
    "csv_text",
    "latex_escape",
    "latex_number",
    "markdown_escape",
    "markdown_number",
    "slug",
]

DASH = "\u2013"
MINUS = "\u2212"
DAGGER = "\u2020"
STAR_LEGEND = "\u2020 p<.1, * p<.05, ** p<.01, *** p<.001"
#: The corrections' names: statsmodels' own ``multitest_methods_names`` (the tests check
#: them against statsmodels; the report does not import it), keyed by the method names
#: ``analysis.corrections`` accepts.
CORRECTION_NAMES = {
    "none": "no correction",
    "bonferroni": "Bonferroni",
    "sidak": "Sidak",
    "holm-sidak": "Holm-Sidak",
    "holm": "Holm",
    "simes-hochberg": "Simes-Hochberg",
    "hommel": "Hommel",
    "fdr_bh": "FDR Benjamini-Hochberg",
    "fdr_by": "FDR Benjamini-Yekutieli",
    "fdr_tsbh": "FDR 2-stage Benjamini-Hochberg",
    "fdr_tsbky": "FDR 2-stage Benjamini-Krieger-Yekutieli",
    "maxt": "Romano-Wolf max-t step-down",  # ours (leaderboard_ci.core.simultaneous), not statsmodels'
}
#: Abbreviations where a name is too long for running text or a column header.
_SHORT_CORRECTIONS = dict(
    CORRECTION_NAMES,
    none="none",
    maxt="max-t",
    fdr_bh="BH",
    fdr_by="BY",
    fdr_tsbh="two-stage BH",
    fdr_tsbky="two-stage BKY",
)
_FAMILIES = {
    "all_pairs": "all m(m\u22121)/2 pairs",
    "vs_winner": "the comparisons with the winner",
    "per_row": "each system's comparisons with the systems ranked below it",
}


_HEADER_CORRECTIONS = dict(_SHORT_CORRECTIONS, bonferroni="Bonf.")


def correction_name(method, long=False, header=False):
    """Display name of a statsmodels correction (``fdr_bh`` -> ``BH``; ``Bonf.`` in headers)."""
    table = CORRECTION_NAMES if long else (_HEADER_CORRECTIONS if header else _SHORT_CORRECTIONS)
    return table.get(method, method)


def family_description(family):
    """What a correction family is corrected over, in words."""
    return _FAMILIES.get(family, str(family))


# ---------------------------------------------------------------------------
# Numbers
# ---------------------------------------------------------------------------


def format_number(value, digits=4, signed=False):
    """``value`` with ``digits`` decimals; an en dash when missing or not finite; never ``-0.0000``."""
    if not is_finite_number(value):
        return DASH
    text = ("%+.*f" if signed else "%.*f") % (digits, float(value))
    if float(text) == 0.0:
        text = text.lstrip("+-")
    return text


#: The levels a p-value is read against: the stars' thresholds (and the analysis' alpha, when given).
P_THRESHOLDS = (0.001, 0.01, 0.05, 0.1)


def format_p(value, digits=3, alpha=None):
    """A p-value with enough digits that it never looks like it is on the other side of a threshold.

    ``digits`` decimals (``<0.001`` below 0.001), and more when the rounded text
    would equal or cross one of :data:`P_THRESHOLDS` or ``alpha`` while the value
    does not: 0.0504 is ``0.0504``, not ``0.050`` (which would read as significant
    at 0.05 beside "not significant"); 0.0496 is ``0.0496``.  An en dash when missing.
    """
    if not is_finite_number(value):
        return DASH
    v = float(value)
    thresholds = set(P_THRESHOLDS)
    if alpha is not None and is_finite_number(alpha):
        thresholds.add(float(alpha))
    floor = 10.0**-digits
    if v < floor and all(t >= floor for t in thresholds):
        return "<" + ("%.*f" % (digits, floor))
    places = digits
    while True:
        text = "%.*f" % (places, v)
        shown = float(text)
        if places >= 10 or all((shown <= t) == (v <= t) and (shown != t or v == t) for t in thresholds):
            return text
        places += 1


def format_ci(low, high, digits=4, signed=False):
    """``[low, high]``."""
    return "[%s, %s]" % (format_number(low, digits, signed), format_number(high, digits, signed))


def csv_text(frame):
    """``frame`` as CSV text with ``\\n`` line ends and no index (pandas 1.3 and later)."""
    try:
        return frame.to_csv(index=False, lineterminator="\n")
    except TypeError:  # pandas < 1.5 names it line_terminator
        return frame.to_csv(index=False, line_terminator="\n")


def format_count(value):
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return DASH
    return "%d" % int(value)


# ---------------------------------------------------------------------------
# Escaping
# ---------------------------------------------------------------------------
_LATEX_TEXT = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    DAGGER: r"$\dagger$",
    "\u2021": r"$\ddagger$",
    MINUS: r"$-$",
    DASH: "--",
    "\u2014": "---",
    "\u03b1": r"$\alpha$",
    "\u03b4": r"$\delta$",
    "\u00b2": r"$^2$",
    "\u2264": r"$\leq$",
    "\u2265": r"$\geq$",
    "\u00d7": r"$\times$",
    "\u2026": r"\ldots{}",
    "\u00b7": r"$\cdot$",
    "\u2713": "yes",
}
_LATEX_RE = re.compile("|".join(re.escape(k) for k in sorted(_LATEX_TEXT, key=len, reverse=True)))
_NEGATIVE_RE = re.compile(r"(?<![\w.])-(?=\d)")


def latex_escape(text):
    """Plain text as LaTeX text: ``_ & % # $ { } ~ ^ \\ < > |`` escaped, ``†``/``‡`` as daggers."""
    return _LATEX_RE.sub(lambda m: _LATEX_TEXT[m.group(0)], str(text))


def latex_number(text):
    """A formatted number cell: escaped, with true minus signs and ``$<$``."""
    out = latex_escape(text).replace(r"\textless{}", "$<$").replace(r"\textgreater{}", "$>$")
    return _NEGATIVE_RE.sub("$-$", out)


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_|<>\[\]~$&])")


def markdown_escape(text):
    """Text for a GitHub Markdown table cell: specials backslash-escaped, no line breaks."""
    text = str(text).replace("\r", " ").replace("\n", " ")
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def markdown_number(text):
    return str(text).replace("|", r"\|")


def slug(text):
    """``text`` as a LaTeX label or file name part: lower case ``[a-z0-9-]``."""
    out = re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-")
    return out or "table"


def p_phrase(value, digits=3, alpha=None):
    """``"p = 0.0123"``, or ``"p < 0.001"`` below the floor of :func:`format_p` (never ``"p = <0.001"``)."""
    text = format_p(value, digits, alpha)
    return "p < %s" % text[1:] if text.startswith("<") else "p = %s" % text


def unit_nouns(metric):
    """("query", "queries"): what one resampled unit of ``metric``'s task is, from the task type.

    The task type names it in ``unit_name`` (``tasks/protocol.py``: "query" for ranking,
    "item" by default); a metric of no registered task reads as "item".
    """
    word = TASKS[metric.task].unit_name if metric.task in TASKS else "item"
    if word.endswith("y") and word[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        return word, word[:-1] + "ies"
    return word, word + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s")
