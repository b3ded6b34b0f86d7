"""Numbers in text cells, as every task type reads them: Python's ``float`` without its extensions.

``float`` accepts ``1_000`` (PEP 515), ``nan`` and ``inf``; a cell of a gold or
prediction file is a number only without underscores, and a finite one only
without the other two.  Standard library only.
"""

import math
import re

__all__ = ["number", "finite_number", "decimal_comma_hint"]

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


def decimal_comma_hint(text):
    """`` (use a dot as the decimal separator)`` for ``3,5``; else ``""``."""
    return " (use a dot as the decimal separator)" if _DECIMAL_COMMA.match(text) else ""
