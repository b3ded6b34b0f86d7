"""ICM-Soft and ICM-Soft-Norm over a label hierarchy equal PyEvALL 0.2.11, on the data and on replicates.

A replicate is checked against PyEvALL run on the data set whose items are
repeated by their resample counts (each copy its own id), with PyEvALL's
nested hierarchy built from our ``{child: parent}``.
"""

import copy
import itertools
import math
import types
import zlib

import numpy as np
import pytest
from test_icm import TASK2, TASK3, _config, _write, make_data, pyevall

from leaderboard_ci.core.resampling import replicate_indices
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.scoring.readers import read_gold, read_predictions
from leaderboard_ci.tasks.shared.icm import Tree
from leaderboard_ci.tasks.soft_labels import icm_soft_tree
from leaderboard_ci.tasks.soft_labels.icm_soft import information

TOL = 1e-9
N_CHECKED = 3  # replicates re-run through PyEvALL

TASK2_TREE = {"DIRECT": "YES", "REPORTED": "YES", "JUDGEMENTAL": "YES"}
TASK3_LABELS = TASK3 + ("MISOGYNY-NON-SEXUAL-VIOLENCE",)  # EXIST 2023 task 3's five categories
TASK3_TREE = dict((label, "YES") for label in TASK3_LABELS[1:])
# three levels (DIPROMATS-like): technique -> category -> true
DEEP = ("false", "a1", "a2", "a3", "b1", "b2", "c1")
DEEP_TREE = {"a1": "A", "a2": "A", "a3": "A", "b1": "B", "b2": "B", "c1": "C", "A": "true", "B": "true", "C": "true"}


def nested(tree):
    """Our ``{child: parent}`` as PyEvALL's nested hierarchy (a dict where a level has subtrees, else a list)."""
    children_of = {}
    for child, parent in tree.items():
        children_of.setdefault(parent, []).append(child)

    def below(node):
        kids = children_of[node]
        if any(k in children_of for k in kids):
            return dict((k, below(k) if k in children_of else []) for k in kids)
        return list(kids)

    return dict((root, below(root)) for root in children_of if root not in tree)


def _with_zeros_and_absent(seed, gold, systems, labels, absent=None):
    """Exact zeros in predictions, labels left out of some predictions and, with ``absent``, a label no gold has."""
    rng = np.random.RandomState(seed)
    for name in systems:
        for ident, value in systems[name].items():
            value = dict(value)
            drop = labels[rng.randint(len(labels))]
            if rng.rand() < 0.2:
                value[drop] = 0.0
            elif rng.rand() < 0.2:
                value.pop(drop)
            if absent is not None and rng.rand() < 0.3:
                value[absent] = round(float(rng.uniform(0.05, 0.9)), 6)
            systems[name][ident] = value
    return gold, systems


def _data(case):
    labels, tree, multi, absent = CASES[case]
    seed = zlib.crc32(case.encode()) % 1000
    gold, systems = make_data(seed, 50, labels, multi)
    return _with_zeros_and_absent(seed, gold, systems, labels, absent)


CASES = {
    # EXIST 2023 task 2 (mono-label soft, source intention under YES)
    "task2": (TASK2, TASK2_TREE, False, None),
    # EXIST 2023 task 3 (multi-label soft, five categories under YES)
    "task3": (("NO",) + TASK3_LABELS[1:], TASK3_TREE, True, None),
    # three levels, multi-label
    "deep": (DEEP, DEEP_TREE, True, None),
    # the parent is a label too: gold and systems weigh YES beside its children (its own weight joins the max)
    "parent_label": (("NO", "YES") + TASK2[1:], TASK2_TREE, True, None),
    # predictions give weight to a label that no gold item lists (outside the tree: log2 N, as PyEvALL)
    "absent": (TASK2 + ("OTHER",), TASK2_TREE, False, "OTHER"),
}


def _reference(metric, order, gold, prediction, rows, tree):
    ids = ["%s#%d" % (order[i], k) for k, i in enumerate(rows)]
    g = [(ident, gold[order[i]]) for ident, i in zip(ids, rows)]
    p = [(ident, prediction[order[i]]) for ident, i in zip(ids, rows)]
    return pyevall(metric, g, p, nested(tree))


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("system", ["good", "noisy"])
def test_scoring_program_equals_pyevall_with_a_hierarchy(tmp_path, case, system):
    """Per submission (files, config with ``hierarchy``, evaluate): the full sample and replicates, both metrics."""
    labels, tree, multi, _ = CASES[case]
    gold_map, systems = _data(case)
    prediction = systems[system]
    ref, path = _write(tmp_path, gold_map, prediction)
    config = _config(labels, ("icm_soft_norm", "icm_soft"), hierarchy=tree)
    gold = read_gold(ref, config)
    order = list(gold.ids)
    result = evaluate(config, gold, read_predictions(path, config, gold))
    scores = dict((s.key, s) for s in result.scores)
    everything = list(range(len(order)))
    flat = pyevall("ICMSoft", [(i, gold_map[i]) for i in order], [(i, prediction[i]) for i in order])
    for key, metric in (("icm_soft", "ICMSoft"), ("icm_soft_norm", "ICMSoftNorm")):
        expected = _reference(metric, order, gold_map, prediction, everything, tree)
        assert abs(scores[key].score - expected) <= TOL, (key, scores[key].score, expected)
        for b, rows in enumerate(replicate_indices(5, len(order), 0, N_CHECKED)):
            expected = _reference(metric, order, gold_map, prediction, list(rows), tree)
            assert abs(scores[key].replicates[b] - expected) <= TOL, (key, b, scores[key].replicates[b], expected)
    assert abs(scores["icm_soft"].score - flat) > 1e-3  # the hierarchy changes the score: the check can fail


def _pyevall_metric(tree, averages, deviations, n):
    """PyEvALL's ICMSoft object with the given class statistics, for its ``information_content`` method."""
    pytest.importorskip("pyevall")
    from pyevall.metrics.metrics import ICMSoft

    metric = ICMSoft("x")
    metric.gold_average, metric.gold_deviation = dict(averages), dict(deviations)
    return metric, types.SimpleNamespace(hierarchy=nested(tree), gold_df=[0] * n)


def test_reduction_equals_pyevall_recursion_in_any_order_and_with_zeros():
    """Our signed terms, evaluated, equal PyEvALL's ``information_content`` for every order of the set's members.

    Weights of 0 (PyEvALL keeps them in the recursion; we drop them) and parents named beside their children
    are included, on the three-level tree.
    """
    rng = np.random.RandomState(3)
    t = Tree(DEEP, sorted(DEEP_TREE.items()))
    nodes = list(t.nodes)
    averages = dict((c, float(rng.uniform(0.05, 0.4))) for c in nodes)
    deviations = dict((c, float(rng.uniform(0.05, 0.3))) for c in nodes)
    metric, comparator = _pyevall_metric(DEEP_TREE, averages, deviations, 40)
    reducer = icm_soft_tree.TreeReducer(t)
    for _ in range(150):
        members = [
            (c, float(rng.choice([0.0, 1 / 6.0, 0.5, 1.0, rng.uniform()])))
            for c in rng.choice(nodes, rng.randint(1, 6), replace=False)
        ]
        terms = reducer.terms(tuple((c, w) for c, w in members if w > 0))
        ours = math.fsum(
            k * float(information(np.array(w), averages[c], deviations[c], math.log2(40)))
            for (c, w), k in terms.items()
        )
        for perm in itertools.islice(itertools.permutations(members), 6):
            assert abs(metric.information_content(list(perm), comparator) - ours) <= TOL


def test_expansion_equals_direct_path_with_a_hierarchy():
    """Every replicate the expansion takes equals the direct evaluation (order 0) to 1e-10 bits (task 3's tree)."""
    n, labels = 3000, ("NO",) + TASK3_LABELS[1:]
    rng = np.random.RandomState(8)
    gold = rng.binomial(6, [0.5, 0.2, 0.15, 0.1, 0.1, 0.25], size=(n, len(labels))) / 6.0
    predicted = np.clip(gold + rng.normal(0, 0.2, gold.shape), 0, 1)
    predicted[rng.rand(n, len(labels)) < 0.1] = 0.0
    t = Tree(labels, sorted(TASK3_TREE.items()))
    weights = np.array([np.bincount(r, minlength=n) for r in replicate_indices(9, n, 0, 40)], dtype=float)
    fast = icm_soft_tree.tree_soft_icm(t, labels, gold, predicted)
    plain = icm_soft_tree.tree_soft_icm(t, labels, gold, predicted, order=0)
    assert any(plan.order for plan in fast.plans)
    for a, b in zip(fast.sums(weights), plain.sums(weights)):
        assert np.max(np.abs(a - b) / n) <= 1e-10


def test_large_sample_replicates_equal_pyevall():
    """At n = 1,000 the replicates take the expansion; PyEvALL on the repeated data set agrees to 1e-9."""
    n, labels = 1000, TASK2
    rng = np.random.RandomState(4)
    gold = rng.multinomial(6, [0.4, 0.3, 0.2, 0.1], size=n) / 6.0
    predicted = np.clip(gold + rng.normal(0, 0.2, gold.shape), 0, 1)
    t = Tree(labels, sorted(TASK2_TREE.items()))
    soft = icm_soft_tree.tree_soft_icm(t, labels, gold, predicted)
    assert any(plan.order for plan in soft.plans)
    rows = replicate_indices(2, n, 0, 1)
    weights = np.array([np.bincount(row, minlength=n) for row in rows], dtype=float)
    total, sums, _ = soft.sums(weights)
    as_dict = lambda row: dict(zip(labels, row.tolist()))  # noqa: E731
    for b, row in enumerate(rows):
        g = [("%d#%d" % (i, k), as_dict(gold[i])) for k, i in enumerate(row)]
        p = [("%d#%d" % (i, k), as_dict(predicted[i])) for k, i in enumerate(row)]
        assert abs(sums[b] / total[b] - pyevall("ICMSoft", g, p, nested(TASK2_TREE))) <= TOL


def test_an_item_beyond_the_bound_gets_one_sentence(monkeypatch):
    monkeypatch.setattr(icm_soft_tree, "MAX_STEPS", 3)
    t = Tree(DEEP, sorted(DEEP_TREE.items()))
    gold = np.full((2, len(DEEP)), 0.5)
    with pytest.raises(ValueError) as info:
        icm_soft_tree.tree_soft_icm(t, DEEP, gold, copy.deepcopy(gold), names=["t1", "t2"])
    message = str(info.value)
    assert "item 't1'" in message and "\n" not in message and "0.5" not in message


def test_a_tree_beyond_the_bound_is_refused_at_configuration(monkeypatch):
    from leaderboard_ci.scoring.errors import ConfigError

    _config(DEEP, ("icm_soft",), hierarchy=DEEP_TREE)
    monkeypatch.setattr(icm_soft_tree, "MAX_STEPS", 5)
    with pytest.raises(ConfigError) as info:
        _config(DEEP, ("icm_soft",), hierarchy=DEEP_TREE)
    assert "more than 5 steps" in str(info.value) and "\n" not in str(info.value)
    _config(DEEP, ("icm_norm",), hierarchy=DEEP_TREE)  # the hard ICM has no such recursion per item


def test_codabench_run_with_a_hierarchy_config_equals_pyevall(tmp_path):
    """The scoring program end to end (ref/config.yaml with EXIST 2023 task 3's tree, res/run.json, scores.json)."""
    import io
    import json
    import os

    from leaderboard_ci.scoring.codabench import run

    labels, tree, multi, _ = CASES["task3"]
    gold_map, systems = _data("task3")
    ref, path = _write(tmp_path, gold_map, systems["good"])
    hierarchy = ", ".join('"%s": "YES"' % label for label in labels[1:])
    config = (
        "task: soft_labels\nlabels: [%s]\nhard_labels: multi\nhard_threshold: 0.166667\nhierarchy: {%s}\n"
        "metric: icm_soft_norm\nextra_metrics: [icm_soft]\nfiles: {gold: gold.json}\nbootstrap: {n_resamples: 20}\n"
        % (", ".join('"%s"' % label for label in labels), hierarchy)
    )
    os.makedirs(str(tmp_path / "res"))
    os.rename(path, str(tmp_path / "res" / "run.json"))
    (tmp_path / "ref" / "config.yaml").write_text(config, encoding="utf-8")
    program = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scoring_program")
    err = io.StringIO()
    assert run(str(tmp_path), str(tmp_path / "out"), program, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()
    scores = json.loads((tmp_path / "out" / "scores.json").read_text(encoding="utf-8"))
    order = sorted(gold_map)
    for key, metric in (("icm_soft", "ICMSoft"), ("icm_soft_norm", "ICMSoftNorm")):
        expected = _reference(metric, order, gold_map, systems["good"], list(range(len(order))), tree)
        assert abs(scores[key] - expected) <= TOL, (key, scores[key], expected)


@pytest.mark.parametrize("shape", ["task3", "deep", "forest"])
def test_vectorized_reduction_equals_the_item_by_item_one(shape):
    """``reduced_terms`` (patterns found with numpy, one recursion per pattern and root) equals ``reduce_items``
    (PyEvALL's recursion over the whole set) item by item.

    Every node's system slots and gold columns, bit for bit, on weights with ties, zeros, NaN, a parent
    named beside its children (the three-level tree), items with no positive prediction, and labels of three
    roots interleaved in label order (the forest: each root's part reduced apart, in the set's order).
    """
    rng = np.random.RandomState(11)
    if shape == "task3":
        labels = ("NO",) + TASK3_LABELS[1:]
        t = Tree(labels, sorted(TASK3_TREE.items()))
    elif shape == "forest":
        labels = ("x1", "y1", "x2", "z", "y2", "x3", "Y")
        t = Tree(labels, [("x1", "X"), ("x2", "X"), ("x3", "X2"), ("X2", "X"), ("y1", "Y"), ("y2", "Y")])
    else:
        labels = DEEP + ("A",)
        t = Tree(labels, sorted(DEEP_TREE.items()))
    n = 400
    gold = rng.binomial(6, 0.3, size=(n, len(labels))) / 6.0
    predicted = np.where(
        rng.rand(n, len(labels)) < 0.5, rng.choice([0.0, 0.25, 0.5], (n, len(labels))), rng.rand(n, len(labels))
    )
    predicted[rng.rand(n, len(labels)) < 0.05] = np.nan
    predicted[:5] = 0.0
    slots, columns = icm_soft_tree.reduced_terms(t, labels, gold, predicted)
    system, own = icm_soft_tree.reduce_items(t, labels, gold, predicted)
    for j in range(len(t.nodes)):
        expected = icm_soft_tree.item_slots(system[j], n)
        assert len(slots[j]) == len(expected)
        for (x, k), (x0, k0) in zip(slots[j], expected):
            np.testing.assert_array_equal(x, x0)
            np.testing.assert_array_equal(k, k0)
        values, matrix = columns[j]
        values0, matrix0 = icm_soft_tree.item_gold_columns(own[j], n)
        np.testing.assert_array_equal(values, values0)
        np.testing.assert_array_equal(matrix, matrix0)
    assert any(len(s) for s in slots) and any(c[0].size for c in columns)
