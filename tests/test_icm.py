"""Soft labels (``task: soft_labels``) and the ICM family equal PyEvALL 0.2.11, on the data and on replicates.

A replicate is checked against PyEvALL run on the data set whose items are
repeated by their resample counts (each copy under its own id), so the
information content PyEvALL estimates from that gold is what the replicate
re-estimates.  PyEvALL is driven through its comparator and metric classes
directly (its file front end refuses repeated ids).
"""

import copy
import json
import logging
import uuid
import warnings
import zlib

import numpy as np
import pytest

from leaderboard_ci.core.resampling import replicate_indices
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.errors import ConfigError, SubmissionError
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.scoring.readers import read_gold, read_predictions
from leaderboard_ci.tasks.soft_labels import icm_soft
from leaderboard_ci.tasks.soft_labels.metrics import hard_sets

TOL = 1e-9
N_CHECKED = 4  # replicates re-run through PyEvALL (it takes ~50 ms per metric and replicate)

TASK1 = ("YES", "NO")
TASK2 = ("NO", "DIRECT", "REPORTED", "JUDGEMENTAL")
TASK2_TREE = {"DIRECT": "YES", "REPORTED": "YES", "JUDGEMENTAL": "YES"}
TASK3 = ("NO", "IDEOLOGICAL-INEQUALITY", "STEREOTYPING-DOMINANCE", "OBJECTIFICATION", "SEXUAL-VIOLENCE")
TASK3_TREE = dict((label, "YES") for label in TASK3[1:])


def _nested(tree):
    """Our ``{child: parent}`` as PyEvALL's nested hierarchy (``{parent: [children]}``, others as leaves)."""
    out = {}
    for child, parent in tree.items():
        out.setdefault(parent, []).append(child)
    return out


def pyevall(metric, gold, pred, hierarchy=None):
    """PyEvALL's ``metric`` on ``[(id, value)]`` lists (the value a dict, a label or a list of labels).

    PyEvALL 0.2.11 pins pandas 2.2.3 and reads string columns as object dtype; under pandas 3
    it runs with ``future.infer_string`` off (its own environment needs no such switch).
    """
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyevall")  # the PyEvALL parity tests skip without it; the others run
    if hasattr(pd.options, "future") and hasattr(pd.options.future, "infer_string"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pd.option_context("future.infer_string", False):
                return _pyevall(metric, gold, pred, hierarchy)
    return _pyevall(metric, gold, pred, hierarchy)


def _pyevall(metric, gold, pred, hierarchy):
    import pandas as pd
    from pyevall.comparators import comparators as pyevall_comparators
    from pyevall.metrics import metrics as pyevall_metrics
    from pyevall.utils.utils import PyEvALLUtils

    logging.disable(logging.CRITICAL)
    eid = str(uuid.uuid4())
    PyEvALLUtils.load_configuration(eid, hierarchy=copy.deepcopy(hierarchy), log_level="ERROR")
    frame = lambda rows: pd.DataFrame(  # noqa: E731
        {"test_case": "T", "id": [i for i, _ in rows], "value": [copy.deepcopy(v) for _, v in rows]}
    )
    comparator = pyevall_comparators.PyEvALLComparator(frame(pred), frame(gold), "T", eid)
    m = getattr(pyevall_metrics, metric)(eid)
    m.evaluate(comparator)
    return m.result.get("average")


# ---------------------------------------------------------------------------
# Synthetic EXIST 2023 data: six annotators per tweet
# ---------------------------------------------------------------------------
def make_data(seed, n, labels, multi=False, annotators=6):
    rng = np.random.RandomState(seed)
    skew = rng.dirichlet(np.ones(len(labels)) * 4.0)
    gold, systems = {}, {"good": {}, "noisy": {}}
    for i in range(n):
        ident = "2%05d" % i
        if multi:
            votes = [list(rng.choice(labels, size=rng.randint(1, 3), replace=False, p=skew)) for _ in range(annotators)]
            counts = dict((label, sum(label in v for v in votes)) for label in labels)
        else:
            votes = list(rng.choice(labels, size=annotators, p=skew))
            counts = dict((label, votes.count(label)) for label in labels)
        gold[ident] = dict((label, counts[label] / float(annotators)) for label in labels)
        truth = np.array([gold[ident][label] for label in labels])
        good = np.clip(truth + rng.normal(0, 0.15, len(labels)), 0.0, 1.0)
        noisy = rng.dirichlet(np.ones(len(labels)))
        if not multi:
            good = good / good.sum() if good.sum() > 0 else np.ones(len(labels)) / len(labels)
        systems["good"][ident] = dict((label, round(float(v), 6)) for label, v in zip(labels, good))
        systems["noisy"][ident] = dict((label, round(float(v), 6)) for label, v in zip(labels, noisy))
    return gold, systems


def _write(tmp_path, gold, prediction):
    ref = tmp_path / "ref"
    ref.mkdir(exist_ok=True)
    records = [{"test_case": "EXIST2023", "id": k, "value": v} for k, v in gold.items()]
    (ref / "gold.json").write_text(json.dumps(records, indent=1), encoding="utf-8")
    records = [{"test_case": "EXIST2023", "id": k, "value": v} for k, v in prediction.items()]
    path = tmp_path / "run.json"
    path.write_text(json.dumps(records, indent=1), encoding="utf-8")
    return str(ref), str(path)


def _config(labels, metrics, n_resamples=30, **settings):
    raw = {
        "task": "soft_labels",
        "metric": metrics[0],
        "extra_metrics": list(metrics[1:]),
        "labels": list(labels),
        "files": {"gold": "gold.json"},
        "bootstrap": {"n_resamples": n_resamples, "seed": 5, "n_jobs": 1},
    }
    raw.update(settings)
    return parse_config(raw)


SOFT = ("icm_soft_norm", "icm_soft", "cross_entropy")
HARD = ("icm_norm", "icm", "f1", "precision", "recall")
PYEVALL_NAMES = {
    "icm_soft": "ICMSoft",
    "icm_soft_norm": "ICMSoftNorm",
    "cross_entropy": "CrossEntropy",
    "icm": "ICM",
    "icm_norm": "ICMNorm",
    "f1": "FMeasure",
    "precision": "Precision",
    "recall": "Recall",
}


def _reference(order, gold, prediction, rows, labels, settings, metrics):
    """PyEvALL on the items ``rows`` (repeats kept, each copy its own id)."""
    ids = ["%s#%d" % (order[i], k) for k, i in enumerate(rows)]
    out = {}
    soft_gold = [(ident, gold[order[i]]) for ident, i in zip(ids, rows)]
    soft_pred = [(ident, prediction[order[i]]) for ident, i in zip(ids, rows)]
    mode, threshold = settings.get("hard_labels", "mono"), settings.get("hard_threshold", 0.5)
    g_matrix = np.array([[gold[order[i]][label] for label in labels] for i in rows])
    p_matrix = np.array([[prediction[order[i]][label] for label in labels] for i in rows])
    g_sets = hard_sets(g_matrix, labels, mode, threshold, gold=True)
    p_sets = hard_sets(p_matrix, labels, mode, threshold, gold=False)
    hard_gold, hard_pred = [], []
    for ident, g, p in zip(ids, g_sets, p_sets):
        if g is None:
            continue
        hard_gold.append((ident, g[0] if mode == "mono" else g))
        if p:
            hard_pred.append((ident, p[0] if mode == "mono" else p))
    tree = settings.get("hierarchy")
    for key in metrics:
        if key in SOFT:
            out[key] = pyevall(PYEVALL_NAMES[key], soft_gold, soft_pred)
        else:
            hierarchy = _nested(tree) if tree and key in ("icm", "icm_norm") else None
            out[key] = pyevall(PYEVALL_NAMES[key], hard_gold, hard_pred, hierarchy)
    return out


CASES = {
    # EXIST 2023 task 1: sexism identification, hard label = more than 3 of 6 annotators
    "task1": (TASK1, False, {"hard_threshold": 0.5}, SOFT + HARD),
    # task 2: source intention, hierarchical mono-label, more than 2 of 6
    "task2": (TASK2, False, {"hard_threshold": 1.0 / 3, "hierarchy": TASK2_TREE}, ("cross_entropy",) + HARD),
    "task2_soft": (TASK2, False, {"hard_threshold": 1.0 / 3}, SOFT + HARD),
    # task 3: sexism categorization, hierarchical multi-label, more than 1 of 6
    "task3": (TASK3, True, {"hard_labels": "multi", "hard_threshold": 1.0 / 6, "hierarchy": TASK3_TREE}, HARD),
    "task3_soft": (TASK3, True, {"hard_labels": "multi", "hard_threshold": 1.0 / 6}, SOFT),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("system", ["good", "noisy"])
def test_full_sample_and_replicates_equal_pyevall(tmp_path, case, system):
    labels, multi, settings, metrics = CASES[case]
    gold_map, systems = make_data(zlib.crc32(case.encode()) % 1000, 60, labels, multi)
    prediction = systems[system]
    ref, path = _write(tmp_path, gold_map, prediction)
    config = _config(labels, metrics, **settings)
    gold = read_gold(ref, config)
    order = list(gold.ids)
    result = evaluate(config, gold, read_predictions(path, config, gold))
    scores = dict((s.key, s) for s in result.scores)
    full = _reference(order, gold_map, prediction, list(range(len(order))), labels, settings, metrics)
    for key in metrics:
        assert abs(scores[key].score - full[key]) <= TOL, (key, scores[key].score, full[key])
    for b, rows in enumerate(replicate_indices(5, len(order), 0, N_CHECKED)):
        expected = _reference(order, gold_map, prediction, list(rows), labels, settings, metrics)
        for key in metrics:
            assert abs(scores[key].replicates[b] - expected[key]) <= TOL, (
                key,
                b,
                scores[key].replicates[b],
                expected[key],
            )


def test_icm_norm_is_not_trivially_truncated():
    """A system close to the gold gets an ICM-Soft-Norm and an ICM-Norm strictly between 0 and 1 (tests can fail)."""
    labels = TASK1
    gold_map, systems = make_data(7, 80, labels)
    order = sorted(gold_map)
    ref = _reference(order, gold_map, systems["good"], list(range(80)), labels, {}, ("icm_soft_norm", "icm_norm"))
    assert 0 < ref["icm_soft_norm"] < 1 and 0 < ref["icm_norm"] < 1, ref


def test_erf_is_within_two_ulps_of_math_erf():
    import math

    x = np.linspace(-4, 4, 40001)
    ours = icm_soft.erf(x)
    exact = np.array([math.erf(v) for v in x])
    assert np.all(np.abs(ours - exact) <= 2 * np.spacing(np.abs(exact)) + 1e-300)


def test_annotator_labels_give_the_shares(tmp_path):
    ref = tmp_path / "ref"
    ref.mkdir()
    data = {
        "100001": {"id_EXIST": "100001", "labels_task1": ["YES", "YES", "NO", "YES", "NO", "NO"]},
        "100002": {"id_EXIST": "100002", "labels_task1": ["NO", "NO", "NO", "NO", "NO", "YES"]},
    }
    (ref / "gold.json").write_text(json.dumps(data), encoding="utf-8")
    gold = read_gold(str(ref), _config(TASK1, ("icm_soft",), annotations="labels_task1"))
    assert gold.values.tolist() == [[0.5, 0.5], [1 / 6.0, 5 / 6.0]]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", "is empty"),
        ("[1, 2]", 'line 1: each element must be an object with "id" and "value"'),
        ('{"200000": {"YES": 1.5, "NO": 0}}', "outside [0, 1]"),
        ('{"200000": {"MAYBE": 1}}', "'MAYBE' is not a label of this task; the labels are YES, NO"),
        ('{"200000": {"YES": "x"}}', "is a string; expected a number in [0, 1] (write it without quotes)"),
        ('{"999": {"YES": 1}}', "item id '999' is not in the test set"),
        ('{"200000": {"YES": 1}, "200000": {"NO": 1}}', "appears again"),
        ('{"200000": {"YES": 1}', "not valid JSON"),
        ('{"200000": 3}', "the value is a number"),
        ("[" * 100000, "nested too deeply"),
        ('{"200000": {"YES": NaN, "NO": 1}}', "is not a finite number"),
        ('{"200000": ["YES", 1]}', "the value is a list"),
    ],
)
def test_bad_predictions_get_one_sentence(tmp_path, text, expected):
    gold_map, systems = make_data(1, 3, TASK1)
    ref, path = _write(tmp_path, gold_map, systems["good"])
    with open(path, "w") as handle:
        handle.write(text)
    config = _config(TASK1, ("icm_soft",))
    gold = read_gold(ref, config)
    with pytest.raises(SubmissionError) as info:
        read_predictions(path, config, gold)
    message = str(info.value)
    assert expected in message and "\n" not in message and "Traceback" not in message
    assert "0.5" not in message and "0.3333" not in message  # no gold probability leaks


def test_bad_gold_never_quotes_a_gold_value(tmp_path):
    ref = tmp_path / "ref"
    ref.mkdir()
    (ref / "gold.json").write_text('{"1": {"YES": 0.5, "SECRET": 0.5}}', encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        read_gold(str(ref), _config(TASK1, ("icm_soft",)))
    assert "SECRET" not in str(info.value) and "line 1" in str(info.value)


def test_settings_are_validated():
    for bad in ({"hard_labels": "both"}, {"hard_threshold": 1.0}, {"hierarchy": {"A": "A"}}, {"annotations": 3}):
        with pytest.raises(ConfigError):
            _config(TASK1, ("icm_soft",), **bad)
    _config(TASK2, ("icm_soft",), hierarchy=TASK2_TREE)  # ICM-Soft over a hierarchy: tests/test_icm_tree.py


def _large(seed, n, p_yes):
    rng = np.random.RandomState(seed)
    votes = rng.binomial(6, p_yes, size=n) / 6.0
    gold = np.stack([votes, 1 - votes], axis=1)
    predicted = np.clip(gold + rng.normal(0, 0.2, gold.shape), 0, 1)
    predicted[rng.rand(n) < 0.1, 0] = 0.0  # zero weights (IC 0) and far tails both occur
    return gold, predicted


@pytest.mark.parametrize("n, p_yes", [(3000, 0.3), (3000, 0.05), (400, 0.3)])
def test_the_expansion_equals_the_direct_path(n, p_yes):
    """Every replicate the expansion takes equals the direct evaluation (order 0) to 1e-10 bits."""
    gold, predicted = _large(n, n, p_yes)
    weights = np.array([np.bincount(row, minlength=n) for row in replicate_indices(9, n, 0, 60)], dtype=float)
    fast = icm_soft.SoftICM(gold, predicted)
    plain = icm_soft.SoftICM(gold, predicted, order=0)
    assert any(plan.order for plan in fast.plans)
    for a, b in zip(fast.sums(weights), plain.sums(weights)):
        assert np.max(np.abs(a - b) / n) <= 1e-10


def test_large_sample_replicates_equal_pyevall():
    """At n = 1,200 the replicates take the expansion; PyEvALL on the repeated data set agrees to 1e-9."""
    n = 1200
    gold, predicted = _large(4, n, 0.3)
    soft = icm_soft.SoftICM(gold, predicted)
    rows = replicate_indices(2, n, 0, 2)
    weights = np.array([np.bincount(row, minlength=n) for row in rows], dtype=float)
    total, sums, _ = soft.sums(weights)
    for b, row in enumerate(rows):
        g = [("%d#%d" % (i, k), {"YES": gold[i, 0], "NO": gold[i, 1]}) for k, i in enumerate(row)]
        p = [("%d#%d" % (i, k), {"YES": predicted[i, 0], "NO": predicted[i, 1]}) for k, i in enumerate(row)]
        assert abs(sums[b] / total[b] - pyevall("ICMSoft", g, p)) <= TOL


def test_hard_hierarchical_mono_label_equals_pyevall(tmp_path):
    """EXIST 2023 task 2 with hard labels (strings in the run format) over its tree: ICM, ICM-Norm, F."""
    rng = np.random.RandomState(11)
    ids = ["3%05d" % i for i in range(80)]
    prior = [0.4, 0.25, 0.15, 0.2]
    gold = dict((i, TASK2[k]) for i, k in zip(ids, rng.choice(4, size=80, p=prior)))
    pred = dict((i, gold[i] if rng.rand() < 0.6 else TASK2[rng.choice(4, p=prior)]) for i in ids)
    ref, path = _write(tmp_path, gold, pred)
    metrics = ("icm_norm", "icm", "f1", "precision", "recall")
    config = _config(TASK2, metrics, hierarchy=TASK2_TREE)
    g = read_gold(ref, config)
    result = evaluate(config, g, read_predictions(path, config, g))
    scores = dict((s.key, s) for s in result.scores)
    names = {"icm_norm": "ICMNorm", "icm": "ICM", "f1": "FMeasure", "precision": "Precision", "recall": "Recall"}
    rows = [list(range(80))] + [list(r) for r in replicate_indices(5, 80, 0, N_CHECKED)]
    for b, row in enumerate(rows):
        gs = [("%s#%d" % (ids[i], k), gold[ids[i]]) for k, i in enumerate(row)]
        ps = [("%s#%d" % (ids[i], k), pred[ids[i]]) for k, i in enumerate(row)]
        for key in metrics:
            hierarchy = _nested(TASK2_TREE) if key.startswith("icm") else None
            expected = pyevall(names[key], gs, ps, hierarchy)
            got = scores[key].score if b == 0 else scores[key].replicates[b - 1]
            assert abs(got - expected) <= TOL, (key, b, got, expected)
