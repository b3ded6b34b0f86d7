"""Soft labels (learning with disagreement): per-item label distributions, scored as PyEvALL scores EXIST 2023.

The task type protocol (see ``docs/adding_a_task_type.md``) for a gold of
per-item ``{label: probability}`` (or the annotators' labels they come from)
and predictions of the same shape (``docs/tasks/soft_labels.md``):

* **parse**: :mod:`.soft_label_files` (EXIST 2023 / PyEvALL JSON);
* **soft metrics**: ICM-Soft, ICM-Soft-Norm (:func:`.icm.soft_icm_sums`, the
  gold's per-label mean and mean absolute deviation re-estimated in every
  replicate from the resample counts; over ``hierarchy``, :mod:`.icm_soft_tree`),
  PyEvALL's cross-entropy and mean absolute error (per-item means: exact sums);
* **hard metrics** on the hard labels derived from the distributions by the
  campaign's rule (``hard_labels``, ``hard_threshold``, ``hard_exclusive``): ICM,
  ICM-Norm (flat or over ``hierarchy``, :func:`.icm.hard_icm_terms`: linear
  per-item sums) and PyEvALL's macro precision, recall and F (:func:`.icm.pyevall_prf`).

Every metric equals PyEvALL 0.2.11 run on the data set whose items are
repeated by their resample counts (``tests/test_icm.py``).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict

import numpy as np

from ...core.accumulators import ExactSums, _FromCounts
from ..legacy import TaskType
from ..shared.base import MetricInfo, UnscoredIds
from ..shared.icm import Tree, check_hierarchy_labels, hard_icm_terms, icm_from_sums, norm, pyevall_prf
from .files import encode_items, read_items
from .icm_soft import SoftICM, SoftICMBatch
from .icm_soft_tree import check_tree, tree_soft_icm

__all__ = ["NAME", "METRICS", "SoftLabelsTask", "TASK", "hard_sets", "cross_entropy_terms"]

NAME = "soft_labels"
SMOOTH = 0.001  # PyEvALL's cross-entropy smoothing of non-positive probabilities
HARD_MODES = ("mono", "multi")
#: A share counts as above a threshold when it exceeds it by more than this: 2/6 written 0.33333334 is not
#: above 1/3 (annotators' shares k/m of up to 1,000 annotators differ by far more).
SLACK = 1e-6
#: ``hard_exclusive``'s default share: a label given by a majority of the annotators.
MAJORITY = 0.5

METRICS = {
    "icm_soft": MetricInfo(NAME, "higher", None, "ICM-Soft", ppi=False),
    "icm_soft_norm": MetricInfo(NAME, "higher", 1.0, "ICM-Soft-Norm", ppi=False),
    "cross_entropy": MetricInfo(NAME, "lower", None, "cross-entropy", ppi=False),
    "mae": MetricInfo(NAME, "lower", 0.0, "MAE", ppi=False),
    "icm": MetricInfo(NAME, "higher", None, "ICM (hard)", ppi=False),
    "icm_norm": MetricInfo(NAME, "higher", 1.0, "ICM-Norm (hard)", ppi=False),
    "f1": MetricInfo(NAME, "higher", 1.0, "macro F1 (hard)"),
    "precision": MetricInfo(NAME, "higher", 1.0, "macro precision (hard)"),
    "recall": MetricInfo(NAME, "higher", 1.0, "macro recall (hard)"),
}
ALIASES = {
    "icmsoft": "icm_soft",
    "icmsoftnorm": "icm_soft_norm",
    "ce": "cross_entropy",
    "crossentropy": "cross_entropy",
    "mean_absolute_error": "mae",
    "icmnorm": "icm_norm",
    "fmeasure": "f1",
    "f_measure": "f1",
    "f1_macro": "f1",
    "macro_f1": "f1",
}
_SOFT = ("icm_soft", "icm_soft_norm")
_HARD = ("icm", "icm_norm", "f1", "precision", "recall")
OPTIONS = ()
SETTINGS = ("hard_labels", "hard_threshold", "hard_exclusive", "hierarchy", "annotations")
SETTING_DOCS = {
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


# ---------------------------------------------------------------------------
# Settings
# ---------------------------------------------------------------------------
def parse_settings(values):
    """Validated ``hard_labels``, ``hard_threshold``, ``hierarchy`` and ``annotations`` (ValueError)."""
    mode = values.get("hard_labels", "mono")
    if mode not in HARD_MODES:
        raise ValueError("hard_labels must be one of: %s, got %r" % (", ".join(HARD_MODES), mode))
    threshold = _share(values.get("hard_threshold", 0.5), "hard_threshold")
    out = {"hard_labels": mode, "hard_threshold": threshold}
    exclusive = values.get("hard_exclusive")
    if exclusive is not None:
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
        out["hard_exclusive"] = (label.strip(), _share(share, "hard_exclusive's share"))
    hierarchy = values.get("hierarchy")
    if hierarchy is not None:
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
        out["hierarchy"] = tuple(pairs)
    annotations = values.get("annotations")
    if annotations is not None:
        if not isinstance(annotations, str) or not annotations.strip():
            raise ValueError(
                "annotations must be 'value' or the key holding each item's labels, got %r" % (annotations,)
            )
        out["annotations"] = annotations.strip()
    return out


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


def check_config(metrics, settings, labels):
    """The hierarchy's labels must be the configured labels, and ICM-Soft's recursion over it bounded (ValueError).

    ``hard_exclusive`` needs ``hard_labels: multi`` and one of the labels.
    """
    exclusive = settings.get("hard_exclusive")
    if exclusive is not None:
        if settings.get("hard_labels", "mono") != "multi":
            raise ValueError("hard_exclusive is a rule of multi-label hard gold: set hard_labels: multi")
        if labels is not None and exclusive[0] not in labels:
            raise ValueError("hard_exclusive names %r, which is not one of the labels" % (exclusive[0],))
    hierarchy = settings.get("hierarchy")
    if hierarchy is not None and labels is not None and any(spec.name in _SOFT for spec in metrics):
        check_tree(Tree(labels, hierarchy), labels)
    if hierarchy is not None and labels is not None:
        check_hierarchy_labels(hierarchy, labels)


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------
def _quote(text):
    text = str(text)
    return repr(text if len(text) <= 40 else text[:40] + "...")


def read_gold(source, lines, labels, settings):
    """The gold distributions ``(n, C)`` (NaN: a label the item's object omits), its ids and labels."""
    annotations = settings.get("annotations")
    items = read_items(source, lines, annotations=annotations, gold=True)
    if labels is None:
        found = set()
        for _, _, value in items:
            if isinstance(value, dict):
                found.update(k for k in value if isinstance(k, str))
            elif isinstance(value, str):
                found.add(value)
            elif isinstance(value, list):
                for v in value:
                    found.update(
                        [v]
                        if isinstance(v, str)
                        else [x for x in v if isinstance(x, str)]
                        if isinstance(v, list)
                        else []
                    )
        labels = tuple(sorted(found))
    index = dict((label, k) for k, label in enumerate(labels))
    values = encode_items(source, items, index, labels, gold=True, annotators=annotations is not None)
    seen = {}
    for line, ident, _ in items:
        if ident in seen:
            raise source.at(
                line,
                "item id %s appears again (first on line %d); gold ids must be unique" % (_quote(ident), seen[ident]),
            )
        seen[ident] = line
    return {
        "lines": [line for line, _, _ in items],
        "values": values,
        "labels": tuple(labels),
        "ids": [ident for _, ident, _ in items],
        "groups": None,
    }


def read_predictions(source, lines, gold, settings):
    """A participant's distributions in gold order; every gold item needs one.

    Another id is refused, or with ``files.unscored_ids: ignore`` read, checked and dropped
    (:class:`~.base.UnscoredIds`).  Ids are checked as each item is read: a large file of unknown ids stops at
    its first line instead of after every record.
    """
    unscored = UnscoredIds(source, settings)
    position = dict((ident, i) for i, ident in enumerate(gold.ids))
    found = np.zeros(len(gold.ids), dtype=bool)
    first = {}

    def check(line, ident):
        error = unscored.count(line)
        if error is not None:
            raise error
        if ident in first:
            raise source.at(
                line,
                "item id %s appears again (first on line %d); give one value per item, each id once"
                % (_quote(ident), first[ident]),
            )
        first[ident] = line
        i = position.get(ident)
        if i is None:
            error = unscored.unknown(
                line, "item id %s is not in the test set; give one value per test item" % _quote(ident)
            )
            if error is not None:
                raise error
            return
        found[i] = True

    items = read_items(source, lines, gold=False, check=check)
    public = settings.get("public_labels")
    index = dict((label, k) for k, label in enumerate(gold.labels))
    values = encode_items(source, items, index, public, gold=False, quote=_quote)  # every value checked
    out = np.full(gold.values.shape, np.nan)
    for row, (_, ident, _) in enumerate(items):
        i = position.get(ident)
        if i is not None:  # else an unscored id (files.unscored_ids: ignore), read and checked
            out[i] = values[row]
    if not found.all():
        missing = int((~found).sum())
        raise unscored.missing(
            "has no value for %d of the %d test items (e.g. %s); give one value per item"
            % (missing, len(found), _quote(gold.ids[int(np.flatnonzero(~found)[0])]))
        )
    return out


def encode_values(gold_values, systems, labels=None, settings=None):
    """In-memory encoding: ``{label: probability}`` per item (ValueError naming the system)."""
    gold_values = list(gold_values)
    if labels is None:
        labels = tuple(sorted(set(k for d in gold_values for k in d)))
    index = dict((label, k) for k, label in enumerate(labels))

    def encode(rows, who):
        out = np.full((len(rows), len(labels)), np.nan)
        for i, row in enumerate(rows):
            if not isinstance(row, dict):
                raise ValueError("%s: item %d is not a {label: probability} dict" % (who, i))
            for label, p in row.items():
                if label not in index or not 0 <= float(p) <= 1:
                    raise ValueError(
                        "%s: item %d has %r: %r (labels %s, probabilities in [0, 1])" % (who, i, label, p, labels)
                    )
                out[i, index[label]] = float(p)
        return out

    gold = encode(gold_values, "the gold")
    coded = {}
    for name, rows in systems.items():
        rows = list(rows)
        if len(rows) != len(gold_values):
            raise ValueError("system %r has %d values for %d items" % (name, len(rows), len(gold_values)))
        coded[name] = encode(rows, "system %r" % (name,))
    return gold, tuple(labels), coded


def decode(gold, values):
    return np.asarray(values, dtype=np.float64)


# ---------------------------------------------------------------------------
# Hard labels and per-item terms
# ---------------------------------------------------------------------------
def hard_sets(weights, labels, mode, threshold, gold, exclusive=None):
    """Hard label sets of each item (lists; None: no hard gold, the item is left out of the hard metrics).

    "Above" a threshold is more than :data:`SLACK` above it.  Gold: the labels above ``threshold`` (mono:
    exactly one, else None); with ``exclusive = (label, share)`` (multi), that label alone when its share is
    above ``share``, else the other labels above ``threshold`` (EXIST 2023 task 3: a majority of NO gives
    only NO).  Predictions: mono, the most probable label (the first in label order on a tie; none when
    every probability is 0); multi, the labels above ``threshold``.
    """
    w = np.nan_to_num(np.asarray(weights, dtype=np.float64))
    alone = None
    if exclusive is not None and gold and mode == "multi":
        alone = (list(labels).index(exclusive[0]), exclusive[1])
    out = []
    for row in w:
        above = [labels[k] for k in np.flatnonzero(row > threshold + SLACK)]
        if alone is not None:
            label = labels[alone[0]]
            above = [label] if row[alone[0]] > alone[1] + SLACK else [x for x in above if x != label]
        if mode == "multi":
            out.append(above if (above or not gold) else None)
        elif gold:
            out.append(above if len(above) == 1 else None)
        else:
            out.append([labels[int(np.argmax(row))]] if row.max() > 0 else [])
    return out


def cross_entropy_terms(gold, predicted):
    """PyEvALL's per-item cross-entropy (bits): both sides' present entries smoothed and normalized."""

    def smooth(values):
        present = ~np.isnan(values)
        filled = np.where(present, values, 1.0)  # no comparison with NaN (numpy 1.17 warns on stderr)
        v = np.where(present, np.where(filled <= 0, SMOOTH, filled), 0.0)
        return v / v.sum(axis=1, keepdims=True), present

    g, g_present = smooth(np.asarray(gold, dtype=np.float64))
    p, p_present = smooth(np.asarray(predicted, dtype=np.float64))
    both = g_present & p_present
    return -np.where(both, g * np.log2(np.where(both, p, 1.0)), 0.0).sum(axis=1)


def mae_terms(gold, predicted):
    """PyEvALL's ``MAE`` per item and label: ``(present (n, C), |g - p| (n, C))``.

    ``present`` marks the labels an item's gold object lists; a label no object lists is not one of the
    classes PyEvALL averages over, and an omitted value (gold or prediction) counts as 0.
    """
    g = np.asarray(gold, dtype=np.float64)
    present = (~np.isnan(g)).astype(np.float64)
    return present, np.abs(np.nan_to_num(g) - np.nan_to_num(np.asarray(predicted, dtype=np.float64)))


def mae_from_sums(sums):
    """MAE of each row of summed ``[items, present (C), |g - p| (C)]``: over the labels some drawn gold lists.

    ``sum_c D_c / (K N)``, ``K`` the labels with ``present_c > 0``: PyEvALL's mean over items of the mean
    over its gold's classes, on the data set the replicate draws.
    """
    sums = np.asarray(sums, dtype=np.float64)
    c = (sums.shape[1] - 1) // 2
    total, present, distance = sums[:, 0], sums[:, 1 : 1 + c], sums[:, 1 + c :]
    listed = present > 0
    k = listed.sum(axis=1)
    summed = np.zeros(sums.shape[0])
    for label in range(c):  # in label order: the same bytes in every numpy
        summed = summed + np.where(listed[:, label], distance[:, label], 0.0)
    ok = (total > 0) & (k > 0)
    return np.where(ok, summed / np.where(ok, k * total, 1.0), np.nan)


class _SoftICM(_FromCounts):
    """``(N, sum of ICM-Soft_i, sum of ICM-Soft(G_i, G_i))`` per replicate, the IC re-estimated from its counts.

    Systems scored against the same gold (and group) share the gold's part of
    every replicate: :meth:`batch_key` and :meth:`batch` let the end-of-phase
    analysis compute it once per block for all of them, with identical bytes.
    """

    n_features = 3
    what = "ICM-Soft"
    #: Replicates per block the per-submission program gives it (within its memory bound): the expansion's
    #: products are bound by reading their columns on few rows, by arithmetic on 128 (about 4 times faster).
    min_block_rows = 128

    def __init__(self, gold, predicted, n_total, items=None, total=None, golds=None, tree=None, names=None):
        super(_SoftICM, self).__init__(n_total, items)
        sub = slice(None) if items is None else items
        self._args = (gold, predicted, tree, names)
        self._gold = np.nan_to_num(gold[sub])
        self.total = int(n_total if total is None else total)  # a group's weight can exceed its size
        if tree is None:
            self.soft = SoftICM(self._gold, np.nan_to_num(predicted[sub]), total=self.total, golds=golds)
        else:  # over a hierarchy: PyEvALL's recursion reduced to per-item terms (:mod:`.icm_soft_tree`)
            names = names if names is None or items is None else [names[i] for i in items]
            self.soft = tree_soft_icm(
                tree[0], tree[1], gold[sub], predicted[sub], names=names, total=self.total, golds=golds
            )

    def _from_weights(self, weights):
        return np.stack(self.soft.sums(weights), axis=1)

    def for_total(self, total):
        """This accumulator, or one whose sums stay exact up to a replicate's total weight ``total``."""
        if int(total).bit_length() <= self.total.bit_length():
            return self
        gold, predicted, tree, names = self._args
        return _SoftICM(gold, predicted, self.n_total, self.items, total, self.soft.golds, tree, names)

    def batch_key(self):
        """Equal for accumulators on the same gold, items and exactness bound (they can share a batch)."""
        digest = hashlib.sha1(np.ascontiguousarray(self._gold).view(np.uint8))
        if self.items is not None:
            digest.update(np.ascontiguousarray(self.items).view(np.uint8))
        tree = self._args[2]  # systems over one hierarchy share the gold's per-node terms too
        shape = None if tree is None else (tuple(tree[0].nodes), tuple(tree[1]))
        return (digest.hexdigest(), self._gold.shape, self.n_total, self.total, shape)

    @staticmethod
    def batch(members):
        """An object whose ``block(indices, counts)`` gives every member's :meth:`block`, the gold's part once."""
        return _SoftICMBlocks(members)


class _SoftICMBlocks(object):
    def __init__(self, members):
        self.members = list(members)
        self.batch = SoftICMBatch([acc.soft for acc in self.members])

    def block(self, indices, counts):
        weights = self.members[0]._subset(counts())
        return [np.stack(sums, axis=1) for sums in self.batch.sums(weights)]


class Statistics:
    """Per-item statistics of one system: soft ICM from the counts, the rest exact linear sums."""

    def __init__(self, add, gold, predictions, metrics, group_codes, n_groups, layout=None):
        values = np.asarray(gold.values, dtype=np.float64)
        p = np.asarray(predictions, dtype=np.float64)
        if p.shape != values.shape:
            raise ValueError("predictions must have shape %s (one weight per label), got %s" % (values.shape, p.shape))
        if np.any(np.nan_to_num(p) < 0) or np.any(np.nan_to_num(p) > 1):
            raise ValueError("predicted probabilities must lie in [0, 1]")
        settings = dict(gold.settings)
        labels = tuple(gold.labels)
        mode = settings.get("hard_labels", "mono")
        threshold = settings.get("hard_threshold", 0.5)
        exclusive = settings.get("hard_exclusive")
        names = set(spec.name for spec in metrics)
        self.n = values.shape[0]
        masks = [None] + ([np.asarray(group_codes) == j for j in range(n_groups)] if gold.groups is not None else [])
        self._soft = {}
        if names & set(_SOFT):
            tree = None
            if settings.get("hierarchy") is not None:
                tree = (Tree(labels, settings.get("hierarchy")), labels)
            for j, mask in enumerate(masks):
                items = None if mask is None else np.flatnonzero(mask)
                self._soft[j] = add(_SoftICM(values, p, self.n, items, tree=tree, names=gold.ids))
        columns = []
        self._blocks = {}

        def put(j, key, block):
            self._blocks[(j, key)] = (len(columns), block.shape[1])
            columns.extend(block.T)

        if "cross_entropy" in names:
            ce = cross_entropy_terms(values, p)[:, None]
            for j, mask in enumerate(masks):
                m = np.ones(self.n) if mask is None else mask.astype(np.float64)
                put(j, "ce", np.concatenate([m[:, None], ce * m[:, None]], axis=1))
        if "mae" in names:
            present, distance = mae_terms(values, p)
            for j, mask in enumerate(masks):
                m = (np.ones(self.n) if mask is None else mask.astype(np.float64))[:, None]
                put(j, "mae", np.concatenate([m, present * m, distance * m], axis=1))
        if names & set(_HARD):
            tree = Tree(labels, settings.get("hierarchy"), flat=settings.get("hierarchy") is None)
            gold_sets = hard_sets(values, labels, mode, threshold, gold=True, exclusive=exclusive)
            pred_sets = hard_sets(p, labels, mode, threshold, gold=False)
            kept = np.array([s is not None for s in gold_sets])
            gs = [s or [] for s in gold_sets]
            member, icm, self_icm = hard_icm_terms(tree, gs, pred_sets)
            gi = np.array([[label in s for label in labels] for s in gs], dtype=np.float64).reshape(self.n, -1)
            pi = np.array([[label in s for label in labels] for s in pred_sets], dtype=np.float64).reshape(self.n, -1)
            for j, mask in enumerate(masks):
                m = kept if mask is None else kept & mask
                m = m.astype(np.float64)[:, None]
                put(
                    j,
                    "hard",
                    np.concatenate([m, member * m, icm * m, self_icm * m, gi * m, pi * m, gi * pi * m], axis=1),
                )
            self._nodes = len(tree.nodes)
            self._labels = len(labels)
        self._sums = add(ExactSums(np.stack(columns, axis=1))) if columns else None

    def prepare(self, stats):
        return stats

    def _block(self, stats, j, key):
        start, width = self._blocks[(j, key)]
        return np.asarray(stats[self._sums], dtype=np.float64)[:, start : start + width]

    def score(self, stats, spec, j):
        name = spec.name
        if name in _SOFT:
            s = np.asarray(stats[self._soft[j]], dtype=np.float64)
            total = s[:, 0]
            safe = np.where(total > 0, total, 1.0)
            icm = np.where(total > 0, s[:, 1] / safe, np.nan)
            return icm if name == "icm_soft" else norm(icm, s[:, 2] / safe)
        if name == "cross_entropy":
            b = self._block(stats, j, "ce")
            return np.where(b[:, 0] > 0, b[:, 1] / np.where(b[:, 0] > 0, b[:, 0], 1.0), np.nan)
        if name == "mae":
            return mae_from_sums(self._block(stats, j, "mae"))
        b = self._block(stats, j, "hard")
        k, c = self._nodes, self._labels
        total = b[:, 0]
        if name in ("icm", "icm_norm"):
            member, icm, self_icm = b[:, 1 : 1 + k], b[:, 1 + k : 1 + 2 * k], b[:, 1 + 2 * k : 1 + 3 * k]
            score = icm_from_sums(total, member, icm)
            return score if name == "icm" else norm(score, icm_from_sums(total, member, self_icm))
        base = 1 + 3 * k
        gi, pi, tp = b[:, base : base + c], b[:, base + c : base + 2 * c], b[:, base + 2 * c : base + 3 * c]
        precision, recall, f = pyevall_prf(tp, gi, pi)
        return {"precision": precision, "recall": recall, "f1": f}[name]


def item_contributions(spec, gold, predictions):
    """The per-item cross-entropies (non-negative) of ``cross_entropy``, the per-item absolute errors of ``mae``;
    None for the other metrics."""
    if spec.name == "mae":
        present, distance = mae_terms(gold.values, predictions)
        listed = present.any(axis=0)
        return distance[:, listed].sum(axis=1) / max(1, int(listed.sum())), "absolute error", None
    if spec.name != "cross_entropy":
        return None
    return np.maximum(cross_entropy_terms(gold.values, predictions), 0.0), "cross-entropy", None


# -- What participants submit (leaderboard-ci init's pages and sample) -----------------------------------------------
def submission_format(gold, files, metrics):
    """What participants submit: a PyEvALL JSON run, ``[{"test_case", "id", "value": {label: probability}}]``.

    The sample gives every test item the uniform distribution over the configured labels (a constant: it
    reveals no gold value); the public file lists the test ids only.
    """
    import json  # here, not at the top: this function is the task's only JSON writer

    from ..legacy import SubmissionFormat

    labels = list(gold.labels or ())
    ids = list(gold.ids or ())
    settings = dict(gold.settings or ())
    mode = settings.get("hard_labels", "mono")
    threshold = settings.get("hard_threshold", 0.5)
    uniform = 1.0 / len(labels) if labels else 0.0

    def record(ident):
        return '{"test_case": "EXIST2023", "id": %s, "value": {%s}}' % (
            json.dumps(ident, ensure_ascii=False),
            ", ".join("%s: %r" % (json.dumps(label, ensure_ascii=False), uniform) for label in labels),
        )

    shown = ",\n".join(record(i) for i in ids[:2]) + (",\n..." if len(ids) > 2 else "")
    hard = (
        "the hard metrics compare your most probable label with an item's gold label, the label whose share of "
        "annotators is above %g (hard_threshold; items with no such label are left out of the hard metrics)" % threshold
        if mode == "mono"
        else "the hard metrics compare label sets: every label whose probability is above %g (hard_threshold), "
        "in the gold and in your predictions alike" % threshold
    )
    hard_used = any(spec.name in _HARD for spec in metrics or ())
    tree = ""
    if settings.get("hierarchy"):
        children = OrderedDict()
        for child, parent in settings["hierarchy"]:
            children.setdefault(parent, []).append(child)
        tree = (
            " The labels form a tree, which ICM and ICM-Soft read (a label's ancestors share its information, so a "
            "prediction of a sibling or of the parent earns partial credit): %s."
            % "; ".join("`%s` under `%s`" % ("`, `".join(kids), parent) for parent, kids in children.items())
        )
    return SubmissionFormat(
        unit="test item",
        units="test items",
        goal="Predict the distribution of labels (the share of annotators giving each) of each of the {n} test items.",
        description=(
            "A JSON file, a PyEvALL / EXIST 2023 run: a list with one object per test item, in any order, "
            '`{"test_case": ..., "id": ..., "value": {label: probability, ...}}`, every probability in [0, 1]. '
            'Also accepted: one object `{"id": {label: probability, ...}, ...}`, or a label (or a list of labels) '
            "as the value for a hard prediction. The labels are %s.%s%s\n\n```\n[\n%s\n]\n```\n"
            % (
                ", ".join("`%s`" % label for label in labels),
                tree,
                (" For scoring, %s." % hard) if hard_used else "",
                shown,
            )
        ),
        file_name="predictions.json",
        sample="[\n" + ",\n".join(record(i) for i in ids) + "\n]\n",
        public_files=(("test_ids.txt", "\n".join(ids) + "\n"),) if ids else (),
    )


class SoftLabelsTask(TaskType):
    """Per-item label distributions (see the module's docstring); the metrics take no options."""

    NAME, METRICS, ALIASES, OPTIONS, SETTINGS, Statistics = NAME, METRICS, ALIASES, OPTIONS, SETTINGS, Statistics
    SETTING_DOCS = SETTING_DOCS
    OWN_GOLD_FORMAT = OWN_PREDICTION_FORMAT = True
    parse_settings, check_config = staticmethod(parse_settings), staticmethod(check_config)
    read_gold, read_predictions = staticmethod(read_gold), staticmethod(read_predictions)
    encode_values, decode = staticmethod(encode_values), staticmethod(decode)
    item_contributions = staticmethod(item_contributions)
    submission_format = staticmethod(submission_format)


TASK = SoftLabelsTask()
