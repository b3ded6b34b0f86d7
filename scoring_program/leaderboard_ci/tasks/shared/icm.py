"""The Information Contrast Model family (ICM, ICM-Norm, ICM-Soft, ICM-Soft-Norm), vectorized over resamples.

Definitions follow PyEvALL 0.2.11 (Amigó & Delgado 2022; EXIST 2023's official
evaluation), re-derived here in numpy.  Every quantity is computed from the
resample counts ``W`` (``(R, n)``: how often each item is drawn in replicate
``r``), so a replicate is exactly PyEvALL run on the data set whose items are
repeated by their counts: the information content is re-estimated from the
replicate's gold.

Hard labels (:func:`hard_icm_terms`)
    ``ICM_i = a1 IC(P_i) + a2 IC(G_i) - b IC(P_i u G_i)`` with ``a1 = a2 = 2``,
    ``b = 3``.  ``IC`` of one node is ``-log2 p(node)``, ``p`` the share of the
    gold items whose label set contains the node or a descendant (``1/N`` when
    none does); ``IC`` of a set is PyEvALL's recursion
    ``IC({x} u S) = IC(x) + IC(S) - IC(deepest common ancestors of x with S)``.
    That recursion only depends on the sets and the tree, so each item's
    ``ICM_i`` is an integer combination of the nodes' ``IC``: the per-item
    statistics are those integer coefficients and the node memberships, whose
    weighted sums are linear in ``W``.

Soft labels (:func:`.icm_soft.soft_icm_sums`)
    ``IC(c, x) = -log2(1 - Phi((x - mu_c) / sigma_c))`` for a weight ``x > 0``
    of class ``c``, 0 for ``x = 0``; ``mu_c`` is the mean of the gold weights of
    ``c`` and ``sigma_c`` their mean *absolute* deviation (PyEvALL's choice),
    both re-estimated per replicate; a probability that rounds to 0 gives
    ``log2 N``.  ``Phi`` is evaluated as ``0.5 * (1 + erf(z / sqrt 2))`` as
    Python's ``statistics.NormalDist`` does, so the tail rounds the same way.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

__all__ = [
    "ALPHA_1",
    "ALPHA_2",
    "BETA",
    "Tree",
    "MonoLabelICM",
    "hard_icm_terms",
    "icm_from_sums",
    "icm_signature",
    "norm",
    "parse_hierarchy",
    "tree_pairs",
    "check_hierarchy_labels",
    "hierarchy_tree",
    "pyevall_prf",
]

ALPHA_1, ALPHA_2, BETA = 2.0, 2.0, 3.0


# ---------------------------------------------------------------------------
# The label tree
# ---------------------------------------------------------------------------
class Tree:
    """A label hierarchy: ``parent[label]`` (None for a top-level label), in a fixed node order.

    Built from ``(child, parent)`` pairs; without a hierarchy every label is a
    top-level node and no two labels have a common ancestor (flat ICM).
    """

    def __init__(self, labels, pairs=None, flat=False):
        parent = OrderedDict()
        for label in labels:
            parent[label] = None
        for child, up in pairs or ():
            parent.setdefault(up, None)
            parent[child] = up
        self.flat = bool(flat)
        self.nodes = tuple(parent)
        self.index = dict((node, k) for k, node in enumerate(self.nodes))
        self.parent = parent
        self._common = {}  # (node, node) -> their deepest common ancestor (None: none)
        self._paths = {}
        for node in self.nodes:
            path, seen = [node], set([node])
            up = parent[node]
            while up is not None:
                if up in seen:
                    raise ValueError("the hierarchy has a cycle through %r" % (up,))
                seen.add(up)
                path.append(up)
                up = parent[up]
            self._paths[node] = tuple(reversed(path))

    def path(self, node):
        """Root-to-node labels, or None (flat: no node has ancestors to share)."""
        return None if self.flat else self._paths.get(node)

    def deepest_common(self, a, b):
        """The deepest common ancestor of nodes ``a`` and ``b`` (either may be it), or None (none, flat, unknown)."""
        key = (a, b)
        if key not in self._common:
            path_a, path_b = self.path(a), self.path(b)
            common = [e for e in path_a if e in path_b] if path_a is not None and path_b is not None else []
            self._common[key] = common[-1] if common else None
        return self._common[key]

    def membership(self, labels):
        """0/1 row over the nodes: the node is one of ``labels`` or an ancestor of one."""
        row = np.zeros(len(self.nodes))
        for label in labels:
            for node in self._paths[label]:
                row[self.index[node]] = 1.0
        return row


def _deepest_common(tree, first, rest):
    out = []
    for other in rest:
        common = tree.deepest_common(first, other)
        if common is not None and common not in out:
            out.append(common)
    return out


def _set_coefficients(tree, labels, memo):
    """``IC(labels)`` as ``{node: integer coefficient}`` (PyEvALL's recursion)."""
    key = tuple(labels)
    if key in memo:
        return memo[key]
    out = {}
    if labels:
        first, rest = labels[0], labels[1:]
        out[first] = out.get(first, 0) + 1
        for node, k in _set_coefficients(tree, rest, memo).items():
            out[node] = out.get(node, 0) + k
        for node, k in _set_coefficients(tree, _deepest_common(tree, first, rest), memo).items():
            out[node] = out.get(node, 0) - k
    memo[key] = out
    return out


def _coefficient_row(tree, labels, memo):
    row = np.zeros(len(tree.nodes))
    for node, k in _set_coefficients(tree, list(labels), memo).items():
        row[tree.index[node]] += k
    return row


def hard_icm_terms(tree, gold_sets, predicted_sets):
    """Per-item statistics of hard ICM: ``(membership, icm, self_icm)``, each ``(n, nodes)``.

    ``membership[i, k]`` is 1 when item ``i``'s gold has node ``k`` or a
    descendant; ``icm[i]`` and ``self_icm[i]`` are the integer coefficients of
    the nodes' information content in ``ICM(P_i, G_i)`` and ``ICM(G_i, G_i)``.
    A missing prediction is the empty set.
    """
    memo = {}
    n, k = len(gold_sets), len(tree.nodes)
    membership, icm, self_icm = np.zeros((n, k)), np.zeros((n, k)), np.zeros((n, k))
    for i, (gold, pred) in enumerate(zip(gold_sets, predicted_sets)):
        gold, pred = list(dict.fromkeys(gold)), list(dict.fromkeys(pred))
        union = pred + [g for g in gold if g not in pred]
        ic_g = _coefficient_row(tree, gold, memo)
        membership[i] = tree.membership(gold)
        icm[i] = (
            ALPHA_1 * _coefficient_row(tree, pred, memo) + ALPHA_2 * ic_g - BETA * _coefficient_row(tree, union, memo)
        )
        self_icm[i] = (ALPHA_1 + ALPHA_2 - BETA) * ic_g
    return membership, icm, self_icm


def icm_from_sums(total, membership, coefficients):
    """Mean ICM per replicate from the weighted sums (``total (R,)``, the others ``(R, nodes)``).

    ``IC(node) = log2 N - log2 max(freq, 1)``: a node no gold item has gets
    ``1/N`` as PyEvALL gives it.  The coefficients and frequencies are
    integers (exact sums); the products are summed over the nodes in their
    order, so every numpy gives the same bits.
    """
    total = np.asarray(total, dtype=np.float64)
    safe = np.where(total > 0, total, 1.0)
    ic = np.log2(safe)[:, None] - np.log2(np.maximum(membership, 1.0))
    coefficients = np.asarray(coefficients, dtype=np.float64)
    # a fixed order over the nodes, not einsum: its summation order varies with numpy's version, and the
    # py37 and py312 images must write the same bytes
    out = np.zeros(total.shape)
    for k in range(ic.shape[1]):
        out += coefficients[:, k] * ic[:, k]
    out /= safe
    return np.where(total > 0, out, np.nan)


def norm(score, self_score):
    """PyEvALL's normalization ``(ICM + ICM(G, G)) / (2 ICM(G, G))``, truncated at 0 (0 when ICM(G, G) is 0)."""
    score, self_score = np.asarray(score, dtype=np.float64), np.asarray(self_score, dtype=np.float64)
    den = np.where(self_score == 0, 1.0, 2.0 * self_score)
    out = np.maximum((score + self_score) / den, 0.0)
    return np.where(self_score == 0, 0.0, np.where(np.isnan(score), np.nan, out))


class MonoLabelICM:
    """Hard ICM and ICM(G, G) of mono-label classification from its class counts.

    With one label per item, PyEvALL's recursion gives ``ICM_i = (a1 + a2 - b)
    IC(g)`` on a hit and ``(a2 - b) IC(g) + (a1 - b) IC(p) + b IC(a)`` on a
    miss, ``a`` the deepest common ancestor of ``g`` and ``p`` in the tree (no
    term when they have none; ``a`` is ``p`` when ``p`` is an ancestor of
    ``g``).  So the per-item statistics of :func:`hard_icm_terms` sum to
    the per-class hits, predictions and gold counts the other metrics already
    have, plus, over a tree, the count of misses per deepest common ancestor:
    ``lca_codes`` gives each item's code (``len(lca_nodes)`` when it has none),
    a small linear accumulator, or :meth:`lca_counts` of a confusion matrix.

    Parameters
    ----------
    tree : Tree
        Its first ``len(labels)`` nodes are ``labels``, in order.
    labels : sequence of str
    """

    def __init__(self, tree, labels):
        labels = list(labels)
        if list(tree.nodes[: len(labels)]) != labels:
            raise ValueError("the tree's first nodes must be the labels, in order")
        singles = [[label] for label in labels]
        self.member, _, self.self_icm = hard_icm_terms(tree, singles, singles)
        self.k, self.n_nodes = len(labels), len(tree.nodes)
        lca = np.full((self.k, self.k), -1, dtype=np.intp)
        for g, gold in enumerate(labels):
            for p, pred in enumerate(labels):
                common = _deepest_common(tree, gold, [pred]) if g != p else []
                if common:
                    lca[g, p] = tree.index[common[0]]
        #: The nodes some miss has as deepest common ancestor, and each (gold, predicted) pair's code among them.
        self.lca_nodes = tuple(int(a) for a in np.unique(lca[lca >= 0]))
        position = dict((a, j) for j, a in enumerate(self.lca_nodes))
        self._pair_code = np.vectorize(lambda a: position.get(int(a), len(self.lca_nodes)), otypes=[np.intp])(lca)

    def lca_counts(self, confusion):
        """The code counts ``(R, len(lca_nodes) + 1)`` from a ``(R, K, K)`` gold x predicted confusion matrix."""
        c = np.asarray(confusion, dtype=np.float64)
        onehot = np.zeros((self.k * self.k, len(self.lca_nodes) + 1))
        onehot[np.arange(self.k * self.k), self._pair_code.ravel()] = 1.0
        return c.reshape(c.shape[0], -1) @ onehot  # integer sums: exact

    def lca_codes(self, gold, predicted):
        """Each item's deepest-common-ancestor code (``len(lca_nodes)``: a hit, or no common ancestor)."""
        return self._pair_code[np.asarray(gold, dtype=np.intp), np.asarray(predicted, dtype=np.intp)]

    def scores(self, tp, pred, true, lca_counts=None):
        """``(ICM, ICM(G, G))`` per (re)sample from ``(R, K)`` class counts and ``(R, len(lca_nodes) + 1)`` codes."""
        tp, pred, true = (np.asarray(a, dtype=np.float64) for a in (tp, pred, true))
        total = true.sum(axis=-1)
        member = true @ self.member
        coefficients = np.zeros(member.shape)
        coefficients[:, : self.k] = (
            (ALPHA_1 + ALPHA_2 - BETA) * tp + (ALPHA_2 - BETA) * (true - tp) + (ALPHA_1 - BETA) * (pred - tp)
        )
        if self.lca_nodes:
            if lca_counts is None:
                raise ValueError("ICM over a hierarchy needs the counts of the misses' common ancestors")
            counts = np.asarray(lca_counts, dtype=np.float64)
            for j, node in enumerate(self.lca_nodes):
                coefficients[:, node] += BETA * counts[:, j]
        return icm_from_sums(total, member, coefficients), icm_from_sums(total, member, true @ self.self_icm)


def parse_hierarchy(value, example='{DIRECT: "YES"}', parent="parent label", acyclic=True):
    """``((child, parent), ...)`` from a ``{child: parent}`` mapping (ValueError); with ``acyclic``, a cycle is refused.

    A label mapped to itself is top-level (the multi-label task's coarse
    level lets a label be its own coarse label).  ``parent`` names the mapped-to
    side in messages (the multi-label task's "coarse label").
    """
    if not isinstance(value, dict) or not value:
        raise ValueError("hierarchy must map each label to its %s, e.g. %s, got %r" % (parent, example, value))
    pairs = []
    for child, up in value.items():
        for what, name in (("label", child), (parent, up)):
            if isinstance(name, bool) or not isinstance(name, (str, int)) or not str(name).strip():
                raise ValueError("hierarchy: each %s must be a non-empty name, got %r" % (what, name))
        pairs.append((str(child).strip(), str(up).strip()))
    if acyclic:
        tree_pairs(pairs)
    return tuple(pairs)


def tree_pairs(pairs):
    """The ``(child, parent)`` pairs of a tree (self-mappings dropped), checked for a cycle (ValueError)."""
    out = tuple((child, parent) for child, parent in pairs if child != parent)
    Tree([], out)
    return out


def hierarchy_tree(labels, hierarchy):
    """ICM's label :class:`Tree`: over ``hierarchy`` (``(child, parent)`` pairs, self-mappings dropped), or flat."""
    return Tree(labels, tree_pairs(hierarchy or ()), flat=hierarchy is None)


def check_hierarchy_labels(hierarchy, labels):
    """Every child of ``hierarchy`` (``(child, parent)`` pairs) is one of ``labels`` or a parent (ValueError)."""
    parents = set(parent for _, parent in hierarchy)
    for child, _ in hierarchy:
        if child not in labels and child not in parents:
            raise ValueError(
                "hierarchy names %r, which is neither one of the labels (%s) nor a parent of one"
                % (child, ", ".join(labels))
            )


def icm_signature(tree):
    """ICM's parameters and what a replicate re-estimates, for the signature (``alpha1:2|...|tree:flat``)."""
    if tree.flat:
        shape = "flat"
    else:
        depth = max(len(tree.path(node)) for node in tree.nodes)
        shape = "%d-level,%d-nodes" % (depth, len(tree.nodes))
    return "alpha1:%g|alpha2:%g|beta:%g|ic:gold-per-replicate|tree:%s" % (ALPHA_1, ALPHA_2, BETA, shape)


# ---------------------------------------------------------------------------
# PyEvALL's precision, recall and F on hard labels
# ---------------------------------------------------------------------------
def pyevall_prf(true_positives, gold_counts, predicted_counts, alpha=0.5):
    """PyEvALL's macro precision, recall and F per replicate from ``(R, K)`` weighted counts.

    The classes are those the replicate's gold has (count > 0).  Recall and F
    average over them (F_c = 0 when the class is never predicted or never hit);
    precision averages over those that are also predicted (0 when none is:
    PyEvALL reports no value).
    """
    tp = np.asarray(true_positives, dtype=np.float64)
    gold = np.asarray(gold_counts, dtype=np.float64)
    pred = np.asarray(predicted_counts, dtype=np.float64)
    present = gold > 0
    n_present = present.sum(axis=1)
    safe_n = np.where(n_present > 0, n_present, 1.0)
    p = tp / np.where(pred > 0, pred, 1.0)
    r = tp / np.where(gold > 0, gold, 1.0)
    defined = present & (pred > 0)
    n_defined = defined.sum(axis=1)
    precision = np.where(
        n_defined > 0, np.where(defined, p, 0.0).sum(axis=1) / np.where(n_defined > 0, n_defined, 1), 0.0
    )
    recall = np.where(present, r, 0.0).sum(axis=1) / safe_n
    hit = defined & (tp > 0)
    f_c = 1.0 / (alpha / np.where(hit, p, 1.0) + (1.0 - alpha) / np.where(hit, r, 1.0))
    f = np.where(hit, f_c, 0.0).sum(axis=1) / safe_n
    empty = n_present == 0
    return (np.where(empty, np.nan, precision), np.where(empty, np.nan, recall), np.where(empty, np.nan, f))
