"""ICM-Soft over a label hierarchy: PyEvALL's recursion reduced once to per-item signed terms.

PyEvALL 0.2.11 (``ICMSoft`` with a hierarchy) scores an item as
``2 IC(P) + 2 IC(G) - 3 IC(P u G)`` where a weighted set's information content
is the recursion ``IC([s1] + rest) = IC(s1) + IC(rest) - IC(DCA(s1, rest))``:
``DCA`` holds, for each member ``s`` of ``rest`` sharing an ancestor with
``s1``, the deepest common ancestor weighted ``min(w1, w_s)`` (a soft union:
the larger weight when an ancestor comes twice), and ``u`` is the soft union
(the larger weight of each class).  The weights are the item's own (not
propagated); only the class's ``mu_c`` and ``sigma_c`` come from the gold
with every ancestor given the largest weight of its descendants
(:func:`propagated_gold`).

The recursion depends on class names and weights only, so every item's sets
reduce once to signed terms ``(class, weight, integer coefficient)``; a
replicate then evaluates ``sum_terms k IC_c(x)`` under its own ``(mu_c,
sigma_c, N)`` exactly as flat ICM-Soft does (:class:`.icm_soft.SoftICM`,
expansion or direct path).  The gold's terms ``IC(G_i)`` take the gold's few
distinct weights, so they become exact linear counts (``gold_terms`` of
:class:`.icm_soft._ClassPlan`) and give ``ICM(G, G) = IC(G)`` for the
normalization.

Checked (``tests/test_icm_tree.py``, against PyEvALL's own methods): the value
does not depend on the order of an item's labels, and a label of weight 0
changes nothing, so items are reduced in label order with zero weights left
out.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np

from ..shared.icm import ALPHA_1, BETA
from .icm_soft import ORDER, SoftICM, _ClassPlan, _GoldClass

__all__ = [
    "MAX_STEPS",
    "TreeReducer",
    "check_tree",
    "item_gold_columns",
    "item_slots",
    "propagated_gold",
    "reduce_items",
    "reduced_terms",
    "tree_soft_icm",
]

#: Steps of the memoized recursion allowed per item (EXIST 2023 task 3's seven nodes at once take 13; 32 leaves of
#: a binary tree of depth 5 take 113).
MAX_STEPS = 100000
_MEMO_LIMIT = 200000


class RecursionBound(ValueError):
    """An item whose recursion exceeds :data:`MAX_STEPS`."""


class TreeReducer(object):
    """``IC`` of weighted label sets as ``{(node, weight): coefficient}`` under a :class:`.icm.Tree`."""

    def __init__(self, tree):
        self.tree = tree
        self.memo = {}
        self.steps = 0

    def deepest_common(self, first, rest):
        """PyEvALL's ``calculate_set_deepest_common_ancestor``: ``((ancestor, min weight), ...)``, soft union."""
        out, where = [], {}
        node_a, weight_a = first
        for node, weight in rest:
            deepest = self.tree.deepest_common(node_a, node)
            if deepest is None:
                continue
            w = weight_a if weight_a < weight else weight
            if deepest in where:
                k = where[deepest]
                if w > out[k][1]:
                    out[k] = (deepest, w)
            else:
                where[deepest] = len(out)
                out.append((deepest, w))
        return tuple(out)

    def terms(self, members):
        """``IC(members)`` (a tuple of ``(node, weight)``) as ``{(node, weight): integer coefficient}``.

        The recursion compares weights (``<``, ``>``, ``==``, ``!= 0``) and nothing else, so it is run once
        per *pattern*: the members' nodes and the ranks 1, 2, ... of their distinct weights.  Items whose
        weights are ordered alike share it (a few hundred patterns at n = 10,000 on EXIST 2023 task 3's
        tree), and the ranks are mapped back to the weights.
        """
        values = sorted(set(w for _, w in members if w != 0))
        rank = dict((w, r + 1) for r, w in enumerate(values))
        pattern = tuple((node, rank.get(w, 0)) for node, w in members)
        return dict(((node, values[r - 1]), k) for (node, r), k in self._pattern_terms(pattern).items())

    def _pattern_terms(self, members):
        found = self.memo.get(members)
        if found is not None:
            return found
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise RecursionBound("more than %d steps" % MAX_STEPS)
        out = {}
        if len(members) == 1:
            out = {members[0]: 1} if members[0][1] != 0 else {}
        elif members:
            first, rest = members[0], members[1:]
            if first[1] != 0:
                out[first] = 1
            for key, k in self._pattern_terms(rest).items():
                out[key] = out.get(key, 0) + k
            for key, k in self._pattern_terms(self.deepest_common(first, rest)).items():
                out[key] = out.get(key, 0) - k
            out = dict((key, k) for key, k in out.items() if k and key[1] != 0)
        if len(self.memo) > _MEMO_LIMIT:
            self.memo.clear()
        self.memo[members] = out
        return out

    def item(self, gold, predicted):
        """``(ICM terms without IC(G), IC(G) terms)`` of one item: ``2 IC(P) - 3 IC(P u G)`` and ``IC(G)``."""
        self.steps = 0
        in_gold = dict(gold)
        union = tuple((node, max(w, predicted.get(node, 0.0))) for node, w in gold) + tuple(
            (node, w) for node, w in predicted.items() if node not in in_gold
        )
        system = {}
        for scale, members in ((ALPHA_1, tuple(predicted.items())), (-BETA, union)):
            for key, k in self.terms(members).items():
                system[key] = system.get(key, 0) + scale * k
        return dict((key, k) for key, k in system.items() if k), self.terms(gold)


def check_tree(tree, labels):
    """ValueError (for the organizer) when an item with every label would exceed :data:`MAX_STEPS`."""
    count = len(labels)
    gold = tuple((label, (k + 1.0) / (count + 1.0)) for k, label in enumerate(labels))
    predicted = dict((label, (count - k) / (count + 1.5)) for k, label in enumerate(labels))
    try:
        TreeReducer(tree).item(gold, predicted)
    except RecursionBound:
        raise ValueError(
            "hierarchy: ICM-Soft over this tree needs more than %d steps of PyEvALL's recursion for an item with "
            "all %d labels; use a shallower hierarchy or fewer labels" % (MAX_STEPS, count)
        )


def propagated_gold(tree, labels, gold):
    """The gold over ``tree.nodes`` ``(n, nodes)``: a node's weight is the largest of its own and its descendants'."""
    gold = np.nan_to_num(np.asarray(gold, dtype=np.float64))
    out = np.zeros((gold.shape[0], len(tree.nodes)))
    for c, label in enumerate(labels):
        for node in tree.path(label) or (label,):
            k = tree.index[node]
            out[:, k] = np.maximum(out[:, k], gold[:, c])
    return out


def _sets(row, labels):
    return tuple((label, float(w)) for label, w in zip(labels, row.tolist()) if w > 0)


def tree_soft_icm(tree, labels, gold, predicted, order=ORDER, names=None, total=None, golds=None):
    """:class:`.icm_soft.SoftICM` of ICM-Soft over ``tree`` (a non-flat :class:`.icm.Tree` over ``labels``).

    ``gold`` and ``predicted`` are ``(n, len(labels))`` (NaN or 0: the label is absent).
    ``names``: item names for the error of an item beyond :data:`MAX_STEPS` (ValueError).
    ``total`` and ``golds`` as :class:`.icm_soft.SoftICM`'s (the largest replicate weight; the gold's
    per-node :class:`.icm_soft._GoldClass`, shared between systems, built here if None).
    """
    gold = np.nan_to_num(np.asarray(gold, dtype=np.float64))
    system_slots, gold_columns = reduced_terms(tree, labels, gold, predicted, names)
    column = propagated_gold(tree, labels, gold)
    n = gold.shape[0]
    plans = []
    for j in range(len(tree.nodes)):
        if golds is None:
            gold_class = _GoldClass(column[:, j], order, gold_terms=gold_columns[j])
        else:
            gold_class = golds[j]
        plans.append(_ClassPlan(column[:, j], system_slots[j], order, gold_class))
    return SoftICM.from_plans(plans, n if total is None else total)


def _weight_ranks(weights):
    """``(ranks, values)`` of a set per row: ``ranks[i, l]`` is the rank 1, 2, ... of ``weights[i, l]`` among
    row ``i``'s distinct positive weights (0: not a member), ``values[i, r - 1]`` the weight of rank ``r``."""
    n, width = weights.shape
    order = np.argsort(weights, axis=1, kind="mergesort")
    ordered = np.take_along_axis(weights, order, axis=1)
    new = ordered > 0
    new[:, 1:] &= ordered[:, 1:] != ordered[:, :-1]
    counter = np.cumsum(new, axis=1)
    ranks = np.zeros((n, width), dtype=np.int64)
    np.put_along_axis(ranks, order, np.where(ordered > 0, counter, 0), axis=1)
    values = np.zeros((n, width))
    rows, cols = np.nonzero(new)
    values[rows, counter[rows, cols] - 1] = ordered[rows, cols]
    return ranks, values


def _pattern_members(labels, key, width, union):
    """The members ``((label, rank), ...)`` of one pattern (a list of ints), in :meth:`TreeReducer.item`'s order.

    A union lists the gold's labels first, then the predicted-only ones (``key[width:]`` flags the gold's).
    """
    ranks = key[:width]
    if not union:
        return tuple((labels[l], r) for l, r in enumerate(ranks) if r)
    in_gold = key[width:]
    first = tuple((labels[l], r) for l, r in enumerate(ranks) if r and in_gold[l])
    return first + tuple((labels[l], r) for l, r in enumerate(ranks) if r and not in_gold[l])


def _pattern_table(reducer, labels, patterns, width, union, first_item, names):
    """Every pattern's terms as one table: ``(offsets (u + 1,), nodes, ranks, coefficients)``."""
    index = reducer.tree.index
    offsets, nodes, ranks, coefficients = [0], [], [], []
    for u, key in enumerate(patterns.tolist()):
        reducer.steps = 0
        try:
            terms = reducer._pattern_terms(_pattern_members(labels, key, width, union))
        except RecursionBound:
            i = int(first_item[u])
            raise ValueError(
                "ICM-Soft over this hierarchy: item %s has %d labels with a positive probability, more than "
                "PyEvALL's recursion can take in %d steps; use a shallower hierarchy or fewer labels per item"
                % (repr(names[i]) if names is not None else i, sum(1 for r in key[:width] if r), MAX_STEPS)
            )
        for (node, r), k in terms.items():
            nodes.append(index[node])
            ranks.append(r)
            coefficients.append(k)
        offsets.append(len(nodes))
    return (
        np.array(offsets, dtype=np.int64),
        np.array(nodes, dtype=np.int64),
        np.array(ranks, dtype=np.int64),
        np.array(coefficients, dtype=np.float64),
    )


def _unique_rows(keys):
    """``np.unique(keys, axis=0, return_index=True, return_inverse=True)`` (inverse flat), for small non-negative
    integers by one int64 code per row (the digits of the row in base ``max + 1``: the same lexicographic order,
    about 10x faster than sorting the rows as records)."""
    width = keys.shape[1]
    base = int(keys.max()) + 1 if keys.size else 1
    if not keys.size or int(keys.min()) < 0 or width * math.log2(base) > 62:
        patterns, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
        return patterns, first, np.asarray(inverse).reshape(-1)
    code = np.zeros(keys.shape[0], dtype=np.int64)
    for column in range(width):
        code = code * base + keys[:, column]
    _, first, inverse = np.unique(code, return_index=True, return_inverse=True)
    return keys[first], first, np.asarray(inverse).reshape(-1)


def _root_groups(tree, labels):
    """The columns of ``labels`` grouped by the root of their tree (in label order): labels of different roots
    have no common ancestor."""
    groups = OrderedDict()
    for c, label in enumerate(labels):
        path = tree.path(label)
        groups.setdefault(path[0] if path else label, []).append(c)
    return [np.array(columns, dtype=np.intp) for columns in groups.values()]


def _set_terms(reducer, labels, weights, scale, union_gold=None, names=None):
    """Every item's ``scale * IC(set)`` terms: ``(items, nodes, weights, coefficients)`` arrays.

    ``IC`` of a set is the sum of ``IC`` of its members under each root, each in the set's order: the recursion
    ``IC(s1) + IC(rest) - IC(DCA(s1, rest))`` finds no common ancestor of ``s1`` with a member under another
    root, so by induction on the set's size the roots' parts add up.  Each root's labels are reduced on their
    own (:func:`_group_terms`): far fewer patterns than all labels at once (EXIST 2023 task 3: NO apart from
    the five categories under YES).  Integer coefficients: the terms' sums (:func:`_summed`) are exact in any order.
    """
    parts = [
        _group_terms(
            reducer,
            [labels[c] for c in columns],
            weights[:, columns],
            scale,
            None if union_gold is None else union_gold[:, columns],
            names,
        )
        for columns in _root_groups(reducer.tree, labels)
    ]
    return tuple(np.concatenate([part[k] for part in parts]) for k in range(4))


def _group_terms(reducer, labels, weights, scale, union_gold=None, names=None):
    """:func:`_set_terms` of labels that share one root.

    Items are grouped by pattern (:meth:`TreeReducer.terms`): the recursion runs once per pattern, and
    each item takes its pattern's terms with its own weights (a ragged expansion, no loop over items).
    """
    n, width = weights.shape
    ranks, values = _weight_ranks(weights)
    keys = ranks if union_gold is None else np.concatenate([ranks, union_gold.astype(np.int64)], axis=1)
    patterns, first_item, inverse = _unique_rows(keys)
    offsets, nodes, term_ranks, coefficients = _pattern_table(
        reducer, labels, patterns, width, union_gold is not None, first_item, names
    )
    per_item = (offsets[1:] - offsets[:-1])[inverse]
    items = np.repeat(np.arange(n), per_item)
    starts = np.cumsum(per_item) - per_item
    term = offsets[:-1][inverse][items] + np.arange(items.size) - np.repeat(starts, per_item)
    return items, nodes[term], values[items, term_ranks[term] - 1], scale * coefficients[term]


def _summed(items, nodes, weights, coefficients):
    """The terms with equal ``(item, node, weight)`` added, zero sums left out, sorted by node, item, weight."""
    order = np.lexsort((weights, items, nodes))
    items, nodes, weights, coefficients = items[order], nodes[order], weights[order], coefficients[order]
    if not items.size:
        return items, nodes, weights, coefficients
    start = np.ones(items.size, dtype=bool)
    start[1:] = (items[1:] != items[:-1]) | (nodes[1:] != nodes[:-1]) | (weights[1:] != weights[:-1])
    at = np.flatnonzero(start)
    sums = np.add.reduceat(coefficients, at)
    keep = sums != 0
    return items[at][keep], nodes[at][keep], weights[at][keep], sums[keep]


def _node_slots(items, weights, coefficients, n):
    """One node's terms (sorted by item, weight) as ``(x, k)`` vector pairs: slot ``s`` holds each item's ``s``-th."""
    if not items.size:
        return ()
    first = np.ones(items.size, dtype=bool)
    first[1:] = items[1:] != items[:-1]
    starts = np.flatnonzero(first)
    position = np.arange(items.size) - np.repeat(starts, np.diff(np.append(starts, items.size)))
    out = []
    for s in range(int(position.max()) + 1):
        at = position == s
        x, k = np.zeros(n), np.zeros(n)
        x[items[at]], k[items[at]] = weights[at], coefficients[at]
        out.append((x, k))
    return tuple(out)


def _node_gold_columns(items, weights, coefficients, n):
    """One node's gold terms as ``(distinct weights (m,), coefficients (n, m))``."""
    values = np.unique(weights)
    out = np.zeros((n, values.size))
    np.add.at(out, (items, np.searchsorted(values, weights)), coefficients)
    return values, out


def reduced_terms(tree, labels, gold, predicted, names=None):
    """Every item's terms, per node of ``tree.nodes``: ``(system slots, gold columns)``, vectorized.

    ``system`` holds ``2 IC(P_i) - 3 IC(P_i u G_i)`` as :func:`_node_slots` pairs, ``gold`` holds
    ``IC(G_i)`` as :func:`_node_gold_columns`; the same numbers as :func:`reduce_items` item by item
    (``tests/test_icm_tree.py``).  The weights' patterns are found with numpy and the recursion runs
    once per pattern (a few hundred at n = 10,000 on EXIST 2023 task 3's tree).
    """
    gold = np.nan_to_num(np.asarray(gold, dtype=np.float64))
    predicted = np.nan_to_num(np.asarray(predicted, dtype=np.float64))
    n = gold.shape[0]
    in_gold = gold > 0
    union = np.where(in_gold, np.maximum(gold, predicted), predicted)
    reducer = TreeReducer(tree)
    parts = [
        _set_terms(reducer, labels, predicted, ALPHA_1, names=names),
        _set_terms(reducer, labels, union, -BETA, union_gold=in_gold, names=names),
    ]
    system = _summed(*(np.concatenate([p[c] for p in parts]) for c in range(4)))
    own = _summed(*_set_terms(reducer, labels, gold, 1.0, names=names))
    system_slots, gold_columns = [], []
    for j in range(len(tree.nodes)):
        at = system[1] == j
        system_slots.append(_node_slots(system[0][at], system[2][at], system[3][at], n))
        at = own[1] == j
        gold_columns.append(_node_gold_columns(own[0][at], own[2][at], own[3][at], n))
    return system_slots, gold_columns


def reduce_items(tree, labels, gold, predicted, names=None):
    """Every item's terms, per node: ``(system, gold)``, each a list over ``tree.nodes`` of ``{item: {weight: k}}``.

    ``system`` holds ``2 IC(P_i) - 3 IC(P_i u G_i)``, ``gold`` holds ``IC(G_i)``.  Item by item, in
    pure Python: the reference :func:`reduced_terms` is tested against (with :func:`item_slots` and
    :func:`item_gold_columns`), as the program computed it before.
    """
    gold = np.nan_to_num(np.asarray(gold, dtype=np.float64))
    predicted = np.nan_to_num(np.asarray(predicted, dtype=np.float64))
    n, nodes = gold.shape[0], tree.nodes
    reducer = TreeReducer(tree)
    system_terms = [dict() for _ in nodes]  # node -> item -> {weight: coefficient}
    gold_terms = [dict() for _ in nodes]
    for i in range(n):
        g = _sets(gold[i], labels)
        try:
            system, own = reducer.item(g, dict(_sets(predicted[i], labels)))
        except RecursionBound:
            raise ValueError(
                "ICM-Soft over this hierarchy: item %s has %d labels with a positive probability, more than "
                "PyEvALL's recursion can take in %d steps; use a shallower hierarchy or fewer labels per item"
                % (repr(names[i]) if names is not None else i, len(dict(g + _sets(predicted[i], labels))), MAX_STEPS)
            )
        for target, terms in ((system_terms, system), (gold_terms, own)):
            for (node, w), k in terms.items():
                slot = target[tree.index[node]].setdefault(i, {})
                slot[w] = slot.get(w, 0) + k
    return system_terms, gold_terms


def item_slots(per_item, n):
    """Per-item ``{weight: k}`` as ``(x, k)`` vector pairs: slot ``s`` holds each item's ``s``-th term."""
    width = max([len(terms) for terms in per_item.values()] or [0])
    out = [(np.zeros(n), np.zeros(n)) for _ in range(width)]
    for i, terms in per_item.items():
        for s, w in enumerate(sorted(terms)):
            out[s][0][i], out[s][1][i] = w, terms[w]
    return tuple(out)


def item_gold_columns(per_item, n):
    """Per-item ``{weight: k}`` of the gold's terms as ``(distinct weights (m,), coefficients (n, m))``."""
    values = sorted(set(w for terms in per_item.values() for w in terms))
    where = dict((w, m) for m, w in enumerate(values))
    out = np.zeros((n, len(values)))
    for i, terms in per_item.items():
        for w, k in terms.items():
            out[i, where[w]] += k
    return np.array(values, dtype=np.float64), out
