"""Plain JSON values of ``report.json`` and the shake-up's ``shakeup.json``: the cleaner and the schema's names.

Kept apart from :mod:`leaderboard_ci.report.json_report` so that section writers it calls
(:mod:`leaderboard_ci.report.shakeup_json`) can use them without an import cycle.
"""

from __future__ import annotations

import math
import numbers
from collections import OrderedDict
from collections.abc import Mapping

import numpy as np

__all__ = ["clean", "GENERATOR", "SCHEMA_VERSION"]

GENERATOR = "leaderboard-ci"
#: The major number changes when a reader of an older report.json would misread this one.
SCHEMA_VERSION = "1.5"  # 1.1: "units" (per-class, per-label or per-type scores of every system)
#                          1.2: "pairs_listed" (above the report's threshold "pairs" holds the top systems' pairs)
#                          1.3: per system "rank_set" {"simultaneous", "marginal"}; per comparison "fw_low",
#                               "fw_high" (max-t family-wise interval) and "interval" (which one the verdict
#                               goes with); per target "family_note" and "critical_value"
#                          1.4: "fw_low", "fw_high" are the simultaneous (single-step max-t) intervals; per
#                               comparison "direction_only" (a later step decides the direction) and "near_copy"
#                          1.5: "shakeup" (the public-to-private shake-up, when both sets were given)


def clean(value):
    """``value`` as plain JSON types: NaN/inf -> None, numpy -> Python, mappings keep their order.

    Raises
    ------
    TypeError
        For a value with no JSON counterpart (a bug in the caller).
    """
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        value = float(value)
        if not math.isfinite(value):
            return None
        return 0.0 if value == 0.0 else value  # no "-0.0"
    if isinstance(value, Mapping):
        return OrderedDict((str(k), clean(v)) for k, v in value.items())
    if isinstance(value, (list, tuple, np.ndarray)):
        return [clean(v) for v in value]
    try:
        import pandas as pd

        if value is pd.NA or value is pd.NaT:
            return None
    except ImportError:  # pragma: no cover - pandas is a dependency of the analysis
        pass
    raise TypeError("cannot write %r (%s) to report.json" % (value, type(value).__name__))
