"""Custom metrics: a Python file in the scoring program folder.

The file defines::

    KIND = "classification"     # or "regression": how predictions are parsed
    DIRECTION = "higher"        # or "lower": which is better
    NAME = "my score"           # optional: the title shown in reports
    BEST = 1.0                  # optional: the best possible value (enables PPI)

    def score(y_true, y_pred, weights):
        # y_true, y_pred: numpy arrays aligned by item (labels as str, or floats)
        # weights: (R, n) int array; weights[r, i] = times item i is in resample r
        # return: R scores, one per row
        ...

A bootstrap resample is the test set with item ``i`` repeated
``weights[r, i]`` times, so any metric of the resampled data can be written
with these weights; the full-sample score is the call with one row of ones.
Keep it vectorized over rows: it is called once per block of resamples.
"""

from __future__ import annotations

import importlib.util
import math
import os
import threading

from ..tasks.protocol import MetricInfo
from ..tasks.registry import DEFAULT_TASK, TASKS
from .errors import ConfigError

__all__ = ["load_custom_metric", "custom_function", "custom_functions"]

_CACHE = {}
_LOCK = threading.Lock()


def _load_module(program_dir, path, where):
    full = os.path.normpath(os.path.join(program_dir, path))
    if not full.startswith(os.path.normpath(program_dir) + os.sep):
        raise ConfigError("%s: custom metric %r must be inside the program folder" % (where, path))
    with _LOCK:
        if full in _CACHE:
            return _CACHE[full]
        if not os.path.isfile(full):
            raise ConfigError("%s: custom metric file %s is not in the program folder" % (where, path))
        name = "leaderboard_ci_custom_%d" % len(_CACHE)
        spec = importlib.util.spec_from_file_location(name, full)
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # the organizer's code: report it, do not crash
            raise ConfigError("%s: custom metric %s failed to load: %s: %s" % (where, path, type(exc).__name__, exc))
        _CACHE[full] = module
        return module


def load_custom_metric(program_dir, path, where):
    """Load and check a custom metric file; return its :class:`MetricInfo`."""
    module = _load_module(program_dir, path, where)
    fn = getattr(module, "score", None)
    if not callable(fn):
        raise ConfigError("%s: %s must define score(y_true, y_pred, weights)" % (where, path))
    kind = getattr(module, "KIND", DEFAULT_TASK)
    if kind not in TASKS:
        raise ConfigError(
            "%s: %s: KIND must be one of the task types (%s), got %r" % (where, path, ", ".join(TASKS), kind)
        )
    direction = getattr(module, "DIRECTION", None)
    if direction not in ("higher", "lower"):
        raise ConfigError("%s: %s must set DIRECTION = 'higher' or 'lower' (which is better)" % (where, path))
    best = getattr(module, "BEST", None)
    if best is not None and not (isinstance(best, (int, float)) and math.isfinite(best)):
        raise ConfigError("%s: %s: BEST must be a finite number, got %r" % (where, path, best))
    title = str(getattr(module, "NAME", os.path.splitext(os.path.basename(path))[0]))
    return MetricInfo(kind, direction, None if best is None else float(best), title, ppi=best is not None)


def custom_function(program_dir, path):
    """The ``score`` function of an already loaded custom metric file."""
    return _load_module(program_dir, path, path).score


def custom_functions(config):
    """``{metric key: score function}`` of a configuration's custom metrics (for the scorers)."""
    return dict(
        (spec.key, custom_function(config.program_dir, spec.custom_path))
        for spec in config.metrics
        if spec.name == "custom"
    )
