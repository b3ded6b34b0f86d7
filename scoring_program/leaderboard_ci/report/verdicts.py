"""Which interval goes with which verdict, the rank confidence sets, and the note that B is too small.

Every renderer (HTML, Markdown, LaTeX, CSV, ``report.json``, the figures) asks
this module the same three questions, so that they cannot answer them
differently:

* :func:`dual_interval`: the interval shown beside the row's verdict.  With the
  max-t step-down as the primary correction (``maxt``) it is the simultaneous
  interval ``[fw_low, fw_high]`` (the single-step max-t intervals, which hold
  together for every pair of the family), beside ``p_maxt``: it excludes 0
  exactly when the step-down decides the pair at its first step; a pair decided
  at a later step has its *direction* decided while its simultaneous interval
  still includes 0, and its verdict says so (:func:`verdict_mark`: the stars
  and ``‡``).  Otherwise it is the marginal interval ``[ci_low, ci_high]``
  beside the unadjusted ``p_value`` (Holm, Bonferroni and BH adjust p-values
  and have no matching interval).
* :func:`verdict_mark`: the stars of a row, with ``‡`` when the step-down decides
  its direction only.
* :func:`rank_set_entry`: each system's simultaneous and marginal rank confidence
  sets, when the analysis computed them.
* :func:`family_notes`: the one sentence that says the number of resamples B
  is too small for the family of comparisons, with the B that would be
  needed (the analysis' ``TargetAnalysis.family_note``).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from ..core.numeric import is_finite_number
from .formatting import DASH

__all__ = [
    "DualInterval",
    "dual_interval",
    "marginal_interval",
    "has_rank_sets",
    "rank_set_entry",
    "format_rank_set",
    "family_sentence",
    "family_notes",
    "interval_header",
    "MARGINAL_WORDS",
    "FAMILY_WISE_WORDS",
    "DIRECTION_MARK",
    "direction_words",
    "verdict_mark",
    "verdict_marks",
    "significance_word",
]

#: How the two kinds of interval are named in headers and captions (plain words).
FAMILY_WISE_WORDS = "Simultaneous %s interval (max-t)"
MARGINAL_WORDS = "%s interval, this pair alone"
#: After the stars of a pair whose direction only is decided (a later step of the max-t step-down).
DIRECTION_MARK = "\u2021"


def direction_words(level):
    """What :data:`DIRECTION_MARK` means, in one sentence (``level``: ``"95%"``)."""
    return (
        "%s: decided at a later step of the max-t step-down, which establishes the direction only (every "
        "direction the report claims holds together with %s confidence); the simultaneous interval, which bounds "
        "every difference at once, still includes 0" % (DIRECTION_MARK, level)
    )


def verdict_mark(row):
    """The verdict of a comparison row (a mapping or a named tuple) as shown: its stars, and
    :data:`DIRECTION_MARK` when only its direction is decided (``direction_only``)."""
    get = row.get if hasattr(row, "get") else (lambda k, d=None: getattr(row, k, d))
    text = str(get("stars", "") or "")
    direction = get("direction_only", False)
    return text + DIRECTION_MARK if text and isinstance(direction, (bool, np.bool_)) and bool(direction) else text


def significance_word(row):
    """``yes``, ``direction`` (only its direction is decided) or ``no``: a row's ``significant`` in words."""
    get = row.get if hasattr(row, "get") else (lambda k, d=None: getattr(row, k, d))
    if not bool(get("significant", False)):
        return "no"
    return "direction" + DIRECTION_MARK if bool(get("direction_only", False) or False) else "yes"


def verdict_marks(frame):
    """:func:`verdict_mark` of every row of a vs-winner or pairs frame, as a list."""
    if "direction_only" not in frame.columns:
        return [str(s or "") for s in frame["stars"]]
    return [verdict_mark({"stars": s, "direction_only": d}) for s, d in zip(frame["stars"], frame["direction_only"])]


@dataclass(frozen=True)
class DualInterval:
    """The interval a table shows beside a verdict, and the p-value it is the inversion of.

    Attributes
    ----------
    low, high : str
        Columns of the interval (``fw_low``/``fw_high`` or ``ci_low``/``ci_high``).
    p : str
        Column of the p-value dual with it (``p_maxt`` or ``p_value``).
    family_wise : bool
        Whether the interval is the simultaneous one of the max-t step-down.
    decides : bool
        Whether the row's verdict (``significant``, stars) comes from this
        p-value: the interval excludes 0 exactly when the verdict is significant
        (the marginal interval), or, with the max-t step-down, when it is significant
        and not ``direction_only``.
    """

    low: str
    high: str
    p: str
    family_wise: bool
    decides: bool

    def header(self, level):
        """Column heading, e.g. ``95% interval, this pair alone`` or ``Simultaneous 95% interval (max-t)``."""
        return interval_header(self.family_wise, level)


def interval_header(family_wise, level):
    """``Simultaneous 95% interval (max-t)`` or ``95% interval, this pair alone``."""
    return (FAMILY_WISE_WORDS if family_wise else MARGINAL_WORDS) % level


def marginal_interval(primary):
    """The marginal interval and the unadjusted p-value (dual with each other, whatever decides)."""
    return DualInterval("ci_low", "ci_high", "p_value", False, primary == "none")


def dual_interval(frame, primary):
    """The interval dual with the verdict of a vs-winner or pairs ``frame`` under correction ``primary``.

    Parameters
    ----------
    frame : DataFrame
        ``TargetAnalysis.vs_winner`` or ``.pairs``.
    primary : str
        The correction that decides the verdicts (``maxt``, ``holm``, ``none`` ...).

    Returns
    -------
    DualInterval
        ``fw_low``/``fw_high`` with ``p_maxt`` when ``primary`` is ``maxt`` and the
        frame has them; the marginal interval with ``p_value`` otherwise (its
        ``decides`` is then False unless ``primary`` is ``none``).
    """
    columns = set(frame.columns)
    if primary == "maxt" and {"fw_low", "fw_high"} <= columns:
        return DualInterval("fw_low", "fw_high", "p_maxt" if "p_maxt" in columns else "p_value", True, True)
    return marginal_interval(primary)


# ---------------------------------------------------------------------------
# Rank sets
# ---------------------------------------------------------------------------
_RANK_COLUMNS = ("rank_set_low", "rank_set_high", "rank_set_marginal_low", "rank_set_marginal_high")


def has_rank_sets(systems):
    """Whether a systems frame carries both rank confidence sets."""
    return set(_RANK_COLUMNS) <= set(systems.columns)


def _rank(value):
    return int(value) if is_finite_number(value) else None


def rank_set_entry(row):
    """report.json's ``rank_set`` of one systems row: ``{"simultaneous": [lo, hi], "marginal": [lo, hi]}``.

    ``row`` is a mapping (or a named tuple) of ``TargetAnalysis.systems``
    whose ``rank_set_low``/``rank_set_high`` (and ``*_marginal``) columns come from
    :func:`leaderboard_ci.core.simultaneous.rank_sets` (Mogstad et al.'s sets);
    a member is None when absent.  Not to be confused with the benchmark's
    ``rank_pct_low``/``rank_pct_high`` (bootstrap-rank percentiles).
    """
    get = row.get if hasattr(row, "get") else (lambda k, d=None: getattr(row, k, d))
    out = OrderedDict()
    for kind, (low, high) in (
        ("simultaneous", ("rank_set_low", "rank_set_high")),
        ("marginal", ("rank_set_marginal_low", "rank_set_marginal_high")),
    ):
        lo, hi = _rank(get(low, None)), _rank(get(high, None))
        out[kind] = [lo, hi] if lo is not None and hi is not None else None
    return out


def format_rank_set(low, high):
    """``[1, 3]``; ``[2, 2]`` when the rank is certain; an en dash when missing."""
    lo, hi = _rank(low), _rank(high)
    if lo is None or hi is None:
        return DASH
    return "[%d, %d]" % (lo, hi)


# ---------------------------------------------------------------------------
# B too small for the family
# ---------------------------------------------------------------------------
def family_sentence(target):
    """The target's "B too small" sentence (``TargetAnalysis.family_note``) as one sentence, or None.

    The analysis writes it (``leaderboard_ci.phase.analysis.targets.too_few_resamples_note``: the
    correction, the family, the smallest adjusted p-value possible and the B
    that would be needed); here it only gets a capital letter and a full stop.
    """
    note = target.family_note
    if not note:
        return None
    text = " ".join(str(note).split())
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def family_notes(result):
    """The distinct notes of every target, in order (usually one: m and B are shared)."""
    notes = []
    for target in result.targets.values():
        note = family_sentence(target)
        if note and note not in notes:
            notes.append(note)
    return notes
