"""Compact letter display: systems sharing a letter are not significantly different.

The insert-absorb algorithm of Piepho (2004, "An algorithm for a letter-based
representation of all-pairwise comparisons"): start with one letter shared by
all systems; for every significantly different pair, split each letter that
contains both into two letters (one without each system); then drop letters
whose systems all belong to another letter.  Letters are then named a, b,
c, ... in the order of the best-ranked system they contain, as in Bestgen
(2022).  The result is exact for any significance pattern, including ones
that are not "interval-shaped" (possible with resampling tests).
"""

from __future__ import annotations

import string

__all__ = ["letter_groups", "MAX_SYSTEMS"]

#: Above this many systems the display is not computed (it stops being readable).
MAX_SYSTEMS = 300


def _letter_names(count):
    names = []
    alphabet = string.ascii_lowercase
    for i in range(count):
        name = ""
        i += 1
        while i:
            i, r = divmod(i - 1, 26)
            name = alphabet[r] + name
        names.append(name)
    return names


def letter_groups(order, different):
    """Letters for each system.

    Parameters
    ----------
    order : sequence of hashable
        Systems from best to worst.
    different : set of frozenset
        Pairs ``{a, b}`` that are significantly different.

    Returns
    -------
    dict system -> str of letters (e.g. ``"ab"``), or None if there are more
    than :data:`MAX_SYSTEMS` systems.
    """
    order = list(order)
    if len(order) > MAX_SYSTEMS:
        return None
    rank = {s: i for i, s in enumerate(order)}
    columns = [frozenset(order)] if order else []
    for pair in sorted(different, key=lambda p: sorted(rank[s] for s in p)):
        a, b = tuple(pair)
        new_columns = []
        for col in columns:
            if a in col and b in col:
                new_columns.append(col - {a})
                new_columns.append(col - {b})
            else:
                new_columns.append(col)
        # absorb: drop duplicates and letters contained in another letter
        unique = list(dict.fromkeys(c for c in new_columns if c))
        columns = [c for c in unique if not any(c < other for other in unique)]
    columns.sort(key=lambda col: sorted(rank[s] for s in col))
    names = _letter_names(len(columns))
    out = {s: [] for s in order}
    for name, col in zip(names, columns):  # columns are in letter order already
        for s in col:
            out[s].append(name)
    return {s: "".join(v) for s, v in out.items()}
