"""The signature: what determines a result's numbers, printed with every result.

One :class:`Signature` serves the per-submission program and the end-of-phase
analysis (fields that do not apply are None).  Its string form is
sacrebleu's style, ``metric:f1_macro|B:10000|seed:12345|ci:percentile|...``,
with the fields that are None left out.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Optional, Tuple

__all__ = ["Signature"]

#: (field, label in the string form); fields with a None label are not in the string.
_FIELDS = (
    ("metric", "metric"),
    ("metric_options", ""),
    ("n_resamples", "B"),
    ("seed", "seed"),
    ("method", "ci"),
    ("confidence_level", "level"),
    ("test", "test"),
    ("n_permutations", None),
    ("sides", "sides"),
    ("family", "family"),
    ("corrections", "corrections"),
    ("primary", "primary"),
    ("alpha", "alpha"),
    ("n_items", "n"),
    ("n_systems", "m"),
    ("cluster", "cluster"),
    ("strata", "strata"),
    ("expansion", "k"),
    ("gold_sha256", "gold"),
    ("version", "version"),
)

#: Fields left out of :meth:`Signature.as_dict` when None (added after report.json's layout was fixed).
_OPTIONAL = ("metric_options", "cluster", "strata", "expansion")


@dataclass(frozen=True)
class Signature:
    """Settings and inputs that determine a result.

    Attributes
    ----------
    metric, n_resamples, seed, method, confidence_level, n_items, version
        Always set.
    gold_sha256 : str or None
        Hex digest of the gold file (None when the gold did not come from a file).
    test, n_permutations, sides, family, corrections, primary, alpha, n_systems
        End-of-phase settings; None for one submission.
    metric_options : str or None
        The official metric's options in its field's own signature style (a task type's
        ``metric_signature``, e.g. sacrebleu's ``nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp``),
        written as is after ``metric:``; None (left out) for most metrics.
    cluster, strata : str or None
        The gold columns resampled as clusters and as strata (``bootstrap.cluster``,
        ``bootstrap.strata``); None for the item bootstrap (and then left out of
        both forms, so item-bootstrap signatures are as before).
    expansion : float or None
        The small-cluster correction's factor ``k`` applied to the replicates
        (``bootstrap.cluster_correction``), to 4 significant digits; None (left out) when no
        correction applies.
    environment : tuple of (name, version)
        Interpreter and library versions, end of phase only.
    """

    metric: str
    n_resamples: int
    seed: int
    method: str
    confidence_level: float
    n_items: int
    version: str
    gold_sha256: Optional[str] = None
    test: Optional[str] = None
    n_permutations: Optional[int] = None
    sides: Optional[str] = None
    family: Optional[str] = None
    corrections: Optional[Tuple[str, ...]] = None
    primary: Optional[str] = None
    alpha: Optional[float] = None
    n_systems: Optional[int] = None
    environment: Tuple[Tuple[str, str], ...] = ()
    cluster: Optional[str] = None
    strata: Optional[str] = None
    metric_options: Optional[str] = None
    expansion: Optional[float] = None

    def __str__(self):
        parts = []
        for name, label in _FIELDS:
            value = getattr(self, name)
            if label is None or (value is None and name != "gold_sha256"):
                continue
            if name == "gold_sha256":
                value = (value or "-")[:12]
            elif name == "corrections":
                value = ",".join(value)
            elif name == "confidence_level" and self.n_systems is None:
                value = "%g" % value
            parts.append(str(value) if name == "metric_options" else "%s:%s" % (label, value))
        return "|".join(parts)

    def as_dict(self):
        """Every field in a fixed order, then the environment's versions (for report.json)."""
        out = OrderedDict()
        for name, _ in _FIELDS:
            value = getattr(self, name)
            if name in _OPTIONAL and value is None:
                continue
            out[name] = list(value) if name == "corrections" and value is not None else value
        out.update(self.environment)
        return out
