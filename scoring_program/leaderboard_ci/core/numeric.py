"""Small numeric predicates shared by the adapters."""

from __future__ import annotations

import math

__all__ = ["is_finite_number"]


def is_finite_number(value):
    """Whether ``value`` is a real number that is finite (None, text and NaN are not)."""
    try:
        return value is not None and math.isfinite(float(value))
    except (TypeError, ValueError):
        return False
