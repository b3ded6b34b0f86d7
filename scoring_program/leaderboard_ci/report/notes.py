"""Plain-language notes on what the analysis' settings let its numbers show."""

from __future__ import annotations

import math

from ..core.significance import stars
from .formatting import correction_name, format_p
from .json_report import primary_correction

__all__ = ["resolution_notes"]

#: Corrections that control the family-wise error (their smallest adjusted p-value is K/(B+1)).
_FWER = ("bonferroni", "holm", "sidak", "holm-sidak")
#: Corrections whose smallest adjusted p-value is the floor 1/(B+1) itself, whatever the family.
_FLOOR_ONLY = ("maxt", "none")


def _family_sizes(family, m):
    """(tests in the vs-winner family, largest family of the pairs table)."""
    pairs = m * (m - 1) // 2
    if family == "all_pairs":
        return pairs, pairs
    if family == "vs_winner":
        return m - 1, pairs
    return m - 1, m - 1


def resolution_notes(result, target):
    """Plain-text warnings when B is too small for the corrected p-values to reach significance.

    A bootstrap p-value is at least ``1 / (B + 1)``, so after a Bonferroni or
    Holm correction over ``K`` tests the smallest adjusted p-value is
    ``min(1, K / (B + 1))``; after the max-t step-down (or none) it is
    ``1 / (B + 1)``.  When nothing can be significant and the analysis says so
    in ``target.family_note``, that sentence is the note.  Returns a list of sentences (empty when the
    settings can show every level of significance).
    """
    sig = result.signature
    primary = primary_correction(result)
    if sig.test != "bootstrap" or primary not in _FWER + _FLOOR_ONLY:
        return []
    b = int(sig.n_resamples or 0)
    alpha = float(sig.alpha)
    m = len(target.systems)
    if m < 2 or b <= 0:
        return []
    _, k = _family_sizes(sig.family, m) if primary in _FWER else (1, 1)
    floor = 1.0 / (b + 1)
    smallest = min(1.0, k * floor)
    if smallest <= 0.001:
        return []
    need_alpha = int(math.ceil(k / alpha)) - 1
    need_star = int(math.ceil(k / 0.001)) - 1
    if smallest > alpha:
        if getattr(target, "family_note", None):  # the analysis' own sentence says it (with the B needed)
            return []
        return [
            "With B = %s resamples no bootstrap p-value can be below 1/(B+1) = %.5f, so after the %s "
            "correction over %s comparisons no difference can be significant at %s = %g (the smallest "
            "possible adjusted p-value is %s). Run the analysis with B \u2265 %s to be able to detect "
            "differences."
            % (
                "{:,}".format(b),
                floor,
                correction_name(primary),
                "{:,}".format(k),
                "\u03b1",
                alpha,
                format_p(smallest),
                "{:,}".format(need_alpha + 1),
            )
        ]
    if primary in _FLOOR_ONLY:
        return [
            "With B = %s resamples no %sp-value can be below 1/(B+1) = %s, whatever the number of "
            "comparisons, so the strongest mark possible here is %s; B \u2265 %s would allow ***."
            % (
                "{:,}".format(b),
                "max-t adjusted " if primary == "maxt" else "",
                format_p(smallest),
                _stars_of(smallest),
                "{:,}".format(need_star + 1),
            )
        ]
    return [
        "With B = %s resamples and the %s correction over %s comparisons, no adjusted p-value can be "
        "below %s, so the strongest mark possible here is %s; B \u2265 %s would allow ***."
        % (
            "{:,}".format(b),
            correction_name(primary),
            "{:,}".format(k),
            format_p(smallest),
            _stars_of(smallest),
            "{:,}".format(need_star + 1),
        )
    ]


def _stars_of(p):
    return stars(p) or "none"
