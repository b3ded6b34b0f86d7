"""The soft-label task's own ``config.yaml`` keys: how hard labels are derived, the label tree, the annotations.

Python 3.7, the standard library only (and the label tree's check).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from ..settings import TaskSettings, setting
from ..shared.icm import Tree, check_hierarchy_labels
from .icm_soft_tree import check_tree

__all__ = ["SoftLabelsSettings", "HARD_MODES", "MAJORITY", "SOFT", "HARD"]

HARD_MODES = ("mono", "multi")
#: ``hard_exclusive``'s default share: a label given by a majority of the annotators.
MAJORITY = 0.5
#: The soft ICM metrics (which need a bounded recursion over ``hierarchy``) and the hard metrics.
SOFT = ("icm_soft", "icm_soft_norm")
HARD = ("icm", "icm_norm", "f1", "precision", "recall")
_DOCS = {
    "hard_labels": "How hard labels are derived for the hard metrics: mono (the one label above hard_threshold, "
    "items with none are left out; predictions: the most probable label) or multi (every label above "
    "hard_threshold, for gold and predictions).",
    "hard_threshold": "A label is in the hard gold when its probability is above this, a number or a fraction "
    "(EXIST 2023 with six annotators, 'more than k of 6': 1/2 for task 1, 1/3 for task 2, 1/6 for task 3; "
    "default 0.5). A share within 1e-6 of it is not above it.",
    "hard_exclusive": "hard_labels multi: a label that is only ever a hard gold label alone, and the share above "
    'which it is (EXIST 2023 task 3: "NO", or {"NO": 1/2}: a majority of NO gives only NO; below it NO is no hard '
    "label and the item's hard labels are the other labels above hard_threshold).",
    "hierarchy": "{label: parent label} for ICM, ICM-Norm, ICM-Soft and ICM-Soft-Norm (EXIST 2023 tasks 2 and 3); "
    "without it they are flat.",
    "annotations": "The gold holds annotators' labels: 'value' (the item's value is the list, one label or list of "
    "labels per annotator) or the key of each item's object that holds it (EXIST 2023: labels_task1). An "
    "annotator's '-' (EXIST's NO in tasks 2 and 3) is the label NO when the labels have NO and not '-'.",
}


def _hard_labels(mode):
    if mode not in HARD_MODES:
        raise ValueError("hard_labels must be one of: %s, got %r" % (", ".join(HARD_MODES), mode))
    return mode


def _hard_threshold(value):
    return _share(value, "hard_threshold")


def _hard_exclusive(exclusive):
    if exclusive is None:
        return None
    if isinstance(exclusive, dict) and len(exclusive) == 1:
        ((label, share),) = exclusive.items()
    else:
        label, share = exclusive, MAJORITY
    if not isinstance(label, str) or not label.strip():
        raise ValueError(
            'hard_exclusive must be a label (e.g. "NO") or {label: share} (e.g. {"NO": 1/2}), got %r%s'
            % (
                exclusive,
                " (YAML reads a bare NO or YES as a boolean: quote the label)" if label in (True, False) else "",
            )
        )
    return (label.strip(), _share(share, "hard_exclusive's share"))


def _hierarchy(hierarchy):
    if hierarchy is None:
        return None
    if not isinstance(hierarchy, dict) or not hierarchy:
        raise ValueError(
            'hierarchy must map each label to its parent label, e.g. {DIRECT: "YES"}, got %r' % (hierarchy,)
        )
    pairs = []
    for child, parent in hierarchy.items():
        for value in (child, parent):
            if not isinstance(value, str) or not value.strip():
                raise ValueError("hierarchy: each label and parent must be a non-empty name, got %r" % (value,))
        pairs.append((child.strip(), parent.strip()))
    Tree([], pairs)  # refuses a cycle
    return tuple(pairs)


def _annotations(annotations):
    if annotations is None:
        return None
    if not isinstance(annotations, str) or not annotations.strip():
        raise ValueError("annotations must be 'value' or the key holding each item's labels, got %r" % (annotations,))
    return annotations.strip()


def _share(value, what):
    """A threshold in [0, 1): a number or a fraction ``"a/b"`` (``1/3``: more than 2 of 6 annotators)."""
    if isinstance(value, str):
        parts = value.split("/")
        try:
            value = int(parts[0]) / float(int(parts[1])) if len(parts) == 2 else float(value)
        except (ValueError, ZeroDivisionError):
            raise ValueError("%s must be a number or a fraction such as 1/3, got %r" % (what, value))
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1:
        raise ValueError("%s must be a number in [0, 1) or a fraction such as 1/3, got %r" % (what, value))
    return float(value)


@dataclass(frozen=True)
class SoftLabelsSettings(TaskSettings):
    """How the hard metrics' labels are derived, the label tree of the ICM metrics, where annotations are."""

    hard_labels: str = setting("mono", _DOCS["hard_labels"], _hard_labels)
    hard_threshold: float = setting(0.5, _DOCS["hard_threshold"], _hard_threshold)
    hard_exclusive: Optional[Tuple[str, float]] = setting(None, _DOCS["hard_exclusive"], _hard_exclusive)
    hierarchy: Optional[Tuple[Tuple[str, str], ...]] = setting(None, _DOCS["hierarchy"], _hierarchy)
    annotations: Optional[str] = setting(None, _DOCS["annotations"], _annotations)

    def check(self, metrics, labels):
        """The hierarchy's labels must be the configured labels, and ICM-Soft's recursion over it bounded
        (ValueError).  ``hard_exclusive`` needs ``hard_labels: multi`` and one of the labels."""
        exclusive = self.hard_exclusive
        if exclusive is not None:
            if self.hard_labels != "multi":
                raise ValueError("hard_exclusive is a rule of multi-label hard gold: set hard_labels: multi")
            if labels is not None and exclusive[0] not in labels:
                raise ValueError("hard_exclusive names %r, which is not one of the labels" % (exclusive[0],))
        hierarchy = self.hierarchy
        if hierarchy is not None and labels is not None and any(spec.name in SOFT for spec in metrics):
            check_tree(Tree(labels, hierarchy), labels)
        if hierarchy is not None and labels is not None:
            check_hierarchy_labels(hierarchy, labels)
