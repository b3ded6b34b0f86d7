"""Numbers in text cells, as every task type reads them: Python's ``float`` without its extensions.

``float`` accepts ``1_000`` (PEP 515), ``nan`` and ``inf``; a cell of a gold or
prediction file is a number only without underscores, and a finite one only
without the other two.  Standard library only.
"""

import math
import re

import numpy as np

__all__ = ["number", "finite_number", "finite_numbers", "decimal_comma_hint"]

_DECIMAL_COMMA = re.compile(r"^[+-]?[0-9]*,[0-9]+$")


def number(text):
    """The float ``text`` denotes (``nan`` and ``inf`` included), or None (also for ``1_000``)."""
    try:
        value = float(text)
    except ValueError:
        return None
    return None if "_" in text else value


def finite_number(text):
    """The finite float ``text`` denotes, or None."""
    value = number(text)
    return value if value is not None and math.isfinite(value) else None


def finite_numbers(texts, limit=math.inf):
    """The float64 array of ``texts`` when every one is a finite number of magnitude at most ``limit``, else None.

    The fast check of a whole column: the same values as :func:`finite_number` text by text
    (Python's ``float``, no underscores), in C; None sends the caller to its text-by-text
    reading, which names the first bad line.
    """
    try:
        values = np.array(list(map(float, texts)), dtype=np.float64).reshape(-1)
    except (ValueError, TypeError):
        return None
    if not np.all(np.abs(values) <= limit) or "_" in "".join(texts):  # NaN and infinities fail the first
        return None
    return values


def decimal_comma_hint(text):
    """`` (use a dot as the decimal separator)`` for ``3,5``; else ``""``."""
    return " (use a dot as the decimal separator)" if _DECIMAL_COMMA.match(text) else ""
