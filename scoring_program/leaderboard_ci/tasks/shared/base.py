"""What every task type shares: a metric's fixed facts, a configured metric, the gold standard, a target.

These are plain frozen values; the task modules (:mod:`.classification`,
:mod:`.regression`, ...) give them meaning.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Tuple

import numpy as np

from ...core.intervals import Interval
from ...core.resampling import Resampling

__all__ = [
    "MetricInfo",
    "MetricSpec",
    "GoldStandard",
    "Target",
    "ppi",
    "resolve_averaged",
    "SparseUnits",
    "FEW_UNITS",
    "item_mask",
    "id_positions",
    "UnscoredIds",
    "ClassRow",
    "canonical_name",
    "check_labels",
]


@dataclass(frozen=True)
class MetricInfo:
    """What is fixed about a metric.

    Attributes
    ----------
    task : str
        The task type whose values the metric scores (``classification``, ``regression``, ...).
    direction : {"higher", "lower"}
        Which is better.
    best : float or None
        The best value the metric can take (None: unbounded).
    title : str
        Its name in reports.
    ppi : bool
        Whether the Performance Potential Index (100 x distance from the winner
        to ``best``) is meaningful: only for metrics on a fixed, unit-free scale.
    """

    task: str
    direction: str
    best: Optional[float]
    title: str
    ppi: bool = True


@dataclass(frozen=True)
class MetricSpec:
    """One configured metric: a registry name, its leaderboard key and its parameters.

    Built by the scoring program's configuration (which validates the
    parameters through the metric's task module).  The classification
    parameters have fields of their own; other task types keep theirs in
    ``options`` (sorted ``(name, value)`` pairs, read with :meth:`option`).
    """

    name: str
    key: str
    info: MetricInfo = field(compare=False)
    average: Optional[str] = None
    labels: Optional[Tuple[str, ...]] = None
    pos_label: Optional[str] = None
    zero_division: float = 0.0
    weights: Optional[str] = None
    options: Tuple[Tuple[str, Any], ...] = ()
    custom_path: Optional[str] = None
    display_title: Optional[str] = None

    @property
    def task(self):
        """The task type this metric belongs to."""
        return self.info.task

    @property
    def kind(self):
        """Alias of :attr:`task`."""
        return self.info.task

    @property
    def direction(self):
        return self.info.direction

    @property
    def better(self):
        """Which way is better, in words: ``"higher is better"`` or ``"lower is better"``."""
        return "%s is better" % self.direction

    @property
    def sign(self):
        """+1 when higher is better, -1 when lower is better."""
        return 1.0 if self.direction == "higher" else -1.0

    @property
    def title(self):
        return self.display_title or self.info.title

    def option(self, name, default=None):
        """The value of task option ``name`` (see ``options``)."""
        return dict(self.options).get(name, default)


@dataclass(frozen=True)
class GoldStandard:
    """The reference data, parsed and encoded by its task module.

    Attributes
    ----------
    values : ndarray
        The encoded gold values, one row per resampling unit (class codes,
        float64 targets, ...: the task module's encoding).
    labels : tuple of str or None
        The task's label set, in order, where the task has one.
    ids : tuple of str or None
        Item ids, when the gold file has them.
    groups : ndarray of int or None
        Group codes (indices into ``group_values``).
    group_values : tuple of str or None
    source : str
        The gold file's name, for messages.
    sha256 : str
        Hex digest of the gold file's bytes (for the end-of-phase signature).
    task : str or None
        The task type; None means classification when there are labels, else regression.
    settings : tuple of (str, value) pairs
        The task's own settings (``config.task_settings``, e.g. a multi-label
        hierarchy), for the task's ``Statistics``; ``()`` when it has none.
    clusters, strata : ndarray of int or None
        Each unit's cluster and stratum code (``bootstrap.cluster``,
        ``bootstrap.strata``; codes in order of first appearance), or None.
    reference : object or None
        What a task that reads its submissions itself keeps of the gold to
        compare each submission with (segmentation: the gold masks); not part
        of the statistics, never resampled, compared or hashed.
    public_inputs : tuple of (str, value) pairs
        Files of the participants' inputs that a gold of the task's own format
        carries, without its answers (``((file name, JSON value), ...)``, e.g.
        SQuAD's contexts and questions), for ``init``'s ``public_data/``; ``()``.
    """

    values: np.ndarray
    labels: Optional[Tuple[str, ...]] = None
    ids: Optional[Tuple[str, ...]] = None
    groups: Optional[np.ndarray] = None
    group_values: Optional[Tuple[str, ...]] = None
    source: str = "gold"
    sha256: str = ""
    task: Optional[str] = None
    settings: Tuple[Tuple[str, Any], ...] = ()
    clusters: Optional[np.ndarray] = None
    strata: Optional[np.ndarray] = None
    reference: Any = field(default=None, compare=False, repr=False)
    public_inputs: Tuple[Tuple[str, Any], ...] = ()

    @property
    def n(self):
        return int(self.values.shape[0])

    def resampling(self):
        """The :class:`~leaderboard_ci.core.resampling.Resampling` of the clusters and strata, or None."""
        if self.clusters is None and self.strata is None:
            return None
        return Resampling(self.n, clusters=self.clusters, strata=self.strata)

    @property
    def kind(self):
        """The task type (:attr:`task`, or inferred from the labels)."""
        if self.task is not None:
            return self.task
        return "classification" if self.labels is not None else "regression"


@dataclass(frozen=True)
class Target:
    """A metric on all items (``group`` None) or on one group."""

    metric: MetricSpec
    group: Optional[str] = None


@dataclass(frozen=True)
class ClassRow:
    """Scores of one unit (class, label, entity type) of a submission on all items: the per-unit table's row."""

    label: str
    precision: float
    recall: float
    f1: float
    f1_interval: Interval
    predicted: int
    support: Optional[int] = None  # the gold's count of the class (None: not known)


def check_labels(name, average, labels, pos_label, label_set):
    """Check a metric's ``labels`` and ``pos_label`` against a label set (ValueError naming the set)."""
    label_set = [str(x) for x in label_set]
    for label in labels or ():
        if label not in label_set:
            raise ValueError("label %r is not one of the task's labels: %s" % (label, ", ".join(label_set)))
    if pos_label is not None and pos_label not in label_set:
        raise ValueError("pos_label %r is not one of the task's labels: %s" % (pos_label, ", ".join(label_set)))
    if average == "binary" and len(label_set) != 2:
        raise ValueError(
            "%s_binary needs exactly two labels, the task has %d (%s); for one class's score use "
            "{name: %s, average: macro, labels: [%s]}" % (name, len(label_set), ", ".join(label_set), name, pos_label)
        )


def canonical_name(text):
    """A name as looked up: lower case, ``-`` and spaces as ``_``."""
    return str(text).strip().lower().replace("-", "_").replace(" ", "_")


#: A unit (class, label, entity type) with this many gold or predicted occurrences, or fewer, is sparse.
FEW_UNITS = 3


@dataclass(frozen=True)
class SparseUnits:
    """Units on which a metric's interval rests on almost nothing (a task's ``sparse_units`` hook).

    Attributes
    ----------
    unit : str
        What a unit is, singular: ``"class"``, ``"label"``, ``"entity type"``, ``"query"``.
    side : {"gold", "predicted"}
        Whether the gold holds the units few times, or the system predicts them few times.
    counts : tuple of (str, int)
        Each sparse unit's name and count.  A name of ``""`` stands for units that
        are not named (queries): ``(("", k),)`` says that only ``k`` units count.
    few : int
        The threshold the counts are at or below.
    coverage : str
        What a coverage study found for such intervals, e.g. ``"89% instead of 95% for
        macro-F1 at n = 200 in a coverage study"``.
    of : str
        What is counted, plural (``"gold items"``, ``"gold entities"``, ``"positive items"``).
    """

    unit: str
    side: str
    counts: Tuple[Tuple[str, int], ...]
    few: int
    coverage: str
    of: str = "gold items"


def item_mask(n, items):
    """``items`` as a boolean mask of ``n`` items (all items when None)."""
    return np.ones(n, dtype=bool) if items is None else np.asarray(items, dtype=bool)


def id_positions(ids):
    """``{id: position}`` of a gold's ids (the last position of a repeated id), built in C."""
    return dict(zip(ids, range(len(ids))))


def ppi(spec, winner_score):
    """Performance Potential Index: 100 x the winner's distance to the best value.

    Returns ``(value, reason)``: ``value`` is None when the metric has no fixed
    unit-free scale, and ``reason`` says why.
    """
    info = spec.info
    if not info.ppi or info.best is None:
        return None, ("%s is measured in the target's units and has no fixed best-to-worst scale" % spec.title)
    return 100.0 * abs(info.best - float(winner_score)), None


def resolve_averaged(name, metrics, averaged, averages):
    """Shared name resolution of tasks with averaged metrics: ``(metric, implied options)`` or None.

    ``f1_macro`` and ``macro_f1`` give ``("f1", {"average": "macro"})`` when ``f1`` is in
    ``averaged`` and ``macro`` in ``averages``; a plain name in ``metrics`` gives
    ``(name, {})``.
    """
    for average in averages:
        for base in averaged:
            if name in ("%s_%s" % (base, average), "%s_%s" % (average, base)):
                return base, {"average": average}
    if name in metrics:
        return name, {}
    return None


class UnscoredIds(object):
    """``files.unscored_ids`` for a task that reads its own prediction format (its ``read_predictions``).

    With ``error`` (the default) a prediction for an id the gold does not have is refused by the task's own
    sentence.  With ``ignore`` (decoys: the public test set holds more ids than the gold scores) it is read,
    checked like any other and dropped; the file may hold at most ``files.max_ids`` predictions, and no
    message gives a count of scored items or names a scored id (:meth:`missing`).
    """

    MISSING = "has no prediction for some of the test ids; give one prediction for every id of the test set"

    def __init__(self, source, context):
        self.source = source
        self.ignore = context.unscored_ids == "ignore"
        self.max_ids = context.max_ids if self.ignore else None
        self.read = 0
        self._decoys = set()

    def decoy(self, ident, n_scored, line=None):
        """An id the gold does not have, read with ``ignore``: the error once the file names more than
        ``files.max_ids`` distinct ids (the gold's ``n_scored`` counted in), else None.

        The bound of the formats that give an id several rows (a series' horizon dates, an image's
        detections or masks), where :meth:`count` would bound rows, not ids.
        """
        if self.max_ids is None or ident in self._decoys:
            return None
        self._decoys.add(ident)
        return self.too_many_ids(line) if n_scored + len(self._decoys) > self.max_ids else None

    def too_many_ids(self, line=None):
        """The error of a file that names more than ``files.max_ids`` distinct ids."""
        what = "names more than %d test ids (files.max_ids, the number of public test ids)" % self.max_ids
        return self.source.whole(what) if line is None else self.source.at(line, what)

    def unknown(self, line, message):
        """None when an id the gold does not have is ignored; else the task's error ``message`` at ``line``."""
        if self.ignore:
            return None
        return self.source.whole(message) if line is None else self.source.at(line, message)

    def count(self, line):
        """One more prediction read: the error past ``files.max_ids`` (with ``ignore``), else None."""
        self.read += 1
        return self.limit(line) if self.max_ids is not None and self.read > self.max_ids else None

    def limit(self, line):
        """The error of a prediction past ``files.max_ids`` at ``line`` (None: the whole file)."""
        what = "has more than %d predictions (files.max_ids, the number of public test ids)" % self.max_ids
        return self.source.whole(what) if line is None else self.source.at(line, what)

    def missing(self, counted):
        """The error for test items without a prediction: ``counted`` (counts and an example id), or with
        ``ignore`` one sentence with neither."""
        return self.source.whole(self.MISSING if self.ignore else counted)
