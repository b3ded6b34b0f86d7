"""Soft labels (learning with disagreement): per-item label distributions, scored as PyEvALL scores EXIST 2023.

The metrics and statistics (see ``docs/adding_a_task_type.md``) of a gold of
per-item ``{label: probability}`` (or the annotators' labels they come from)
and predictions of the same shape (``docs/tasks/soft_labels.md``):

* **parse**: :mod:`.files` (EXIST 2023 / PyEvALL JSON), :mod:`.reading`;
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

import numpy as np

from ...core.accumulators import ExactSums, _FromCounts
from ..metrics import Metric, Metrics
from ..shared.icm import Tree, hard_icm_terms, icm_from_sums, norm, pyevall_prf
from .icm_soft import SoftICM, SoftICMBatch
from .icm_soft_tree import tree_soft_icm
from .settings import HARD, SOFT, SoftLabelsSettings

__all__ = ["NAME", "METRICS", "Statistics", "item_contributions", "hard_sets", "cross_entropy_terms"]

NAME = "soft_labels"
SMOOTH = 0.001  # PyEvALL's cross-entropy smoothing of non-positive probabilities
#: A share counts as above a threshold when it exceeds it by more than this: 2/6 written 0.33333334 is not
#: above 1/3 (annotators' shares k/m of up to 1,000 annotators differ by far more).
SLACK = 1e-6

#: The catalog (the metrics take no options): adding a metric is one entry here and its sums in
#: :class:`Statistics`.
METRICS = Metrics(
    [
        Metric(NAME, "icm_soft", "ICM-Soft", "higher", None, ppi=False, aliases=("icmsoft",)),
        Metric(NAME, "icm_soft_norm", "ICM-Soft-Norm", "higher", 1.0, ppi=False, aliases=("icmsoftnorm",)),
        Metric(NAME, "cross_entropy", "cross-entropy", "lower", None, ppi=False, aliases=("ce", "crossentropy")),
        Metric(NAME, "mae", "MAE", "lower", 0.0, ppi=False, aliases=("mean_absolute_error",)),
        Metric(NAME, "icm", "ICM (hard)", "higher", None, ppi=False),
        Metric(NAME, "icm_norm", "ICM-Norm (hard)", "higher", 1.0, ppi=False, aliases=("icmnorm",)),
        Metric(NAME, "f1", "macro F1 (hard)", "higher", 1.0, aliases=("fmeasure", "f_measure", "f1_macro", "macro_f1")),
        Metric(NAME, "precision", "macro precision (hard)", "higher", 1.0),
        Metric(NAME, "recall", "macro recall (hard)", "higher", 1.0),
    ]
)


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
    #: :meth:`block` reads only the counts (the replicates drawn ahead need no indices: core/replicates.DrawAhead).
    counts_only = True

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

    @staticmethod
    def counts_only(metrics):
        """True when every statistic of ``metrics`` (specs) reads the resample counts alone (ICM-Soft's)."""
        return bool(metrics) and all(spec.name in SOFT for spec in metrics)

    def __init__(self, add, gold, predictions, metrics, group_codes, n_groups, layout=None):
        values = np.asarray(gold.values, dtype=np.float64)
        p = np.asarray(predictions, dtype=np.float64)
        if p.shape != values.shape:
            raise ValueError("predictions must have shape %s (one weight per label), got %s" % (values.shape, p.shape))
        if np.any(np.nan_to_num(p) < 0) or np.any(np.nan_to_num(p) > 1):
            raise ValueError("predicted probabilities must lie in [0, 1]")
        settings = SoftLabelsSettings.of(gold)
        labels = tuple(gold.labels)
        mode, threshold, exclusive = settings.hard_labels, settings.hard_threshold, settings.hard_exclusive
        names = set(spec.name for spec in metrics)
        self.n = values.shape[0]
        masks = [None] + ([np.asarray(group_codes) == j for j in range(n_groups)] if gold.groups is not None else [])
        self._soft = {}
        if names & set(SOFT):
            tree = None
            if settings.hierarchy is not None:
                tree = (Tree(labels, settings.hierarchy), labels)
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
        if names & set(HARD):
            tree = Tree(labels, settings.hierarchy, flat=settings.hierarchy is None)
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
        if name in SOFT:
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
