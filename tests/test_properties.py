"""Property-based tests (hypothesis) of invariances and determinism.

(a) Shuffling the rows of a prediction file that has ids changes nothing: the
    files go through the real readers (``read_gold``, ``find_prediction_file``,
    ``read_predictions``) and ``evaluate``, and the leaderboard scores and CIs
    are identical, bit for bit.  Shuffling the GOLD file keeps every
    full-sample score (to rounding: a regression metric's centring constant is
    an order-dependent floating-point mean), but not the CIs: resample ``r`` is
    defined on the gold file's item positions (``resampling`` module), so the
    gold order is part of the signature (its sha256 changes too).
(b) Renaming classes by a bijection (gold and predictions alike) leaves every
    metric that names no class unchanged (accuracy, macro/micro/weighted
    F1, precision and recall, MCC, Cohen's kappa, balanced accuracy), scores
    and CIs, to rounding (the class order, hence the summation order, may
    change).  A metric that names classes (F1 over a labels subset, binary
    F1 with pos_label) follows the renaming: with the renamed names it gives
    the original value; with the old names, the value of the classes those
    names now denote.
(c) The same inputs give the same ``scores.json`` bytes (``platform.write_outputs``),
    whatever the number of threads.

Metric parity with scikit-learn on random labelings is in ``test_metrics.py``.
"""

import io
import os
import tempfile

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leaderboard_ci.scoring.codabench import write_outputs
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.scoring.readers import find_prediction_file, read_gold, read_predictions
from leaderboard_ci.tasks.shared.scorer import GoldStandard

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NAMES = ("against", "favor", "none", "neg", "pos", "x1", "10", "9", "Zeta", "b")
CLASS_FREE = [
    "accuracy",
    "f1_macro",
    "f1_micro",
    "f1_weighted",
    "precision_macro",
    "recall_weighted",
    "mcc",
    "cohen_kappa",
    "balanced_accuracy",
]


@st.composite
def labelled_items(draw, min_classes=2, max_classes=5, max_items=40):
    """(label names, gold codes, prediction codes): every class occurs in the gold."""
    k = draw(st.integers(min_classes, max_classes))
    names = draw(st.permutations(NAMES))[:k]
    n = draw(st.integers(k + 2, max_items))
    extra = draw(st.lists(st.integers(0, k - 1), min_size=n - k, max_size=n - k))
    gold = np.array(draw(st.permutations(list(range(k)) + extra)), dtype=np.intp)
    noise = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    keep = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    pred = np.where(keep, gold, noise).astype(np.intp)
    return tuple(names), gold, pred


def _config(metrics, seed, n_jobs=1, labels=None, method="percentile", **extra):
    data = {
        "metric": metrics[0],
        "extra_metrics": list(metrics[1:]),
        "bootstrap": {"n_resamples": 200, "seed": seed, "n_jobs": n_jobs, "method": method},
    }
    if labels is not None:
        data["labels"] = list(labels)
    data.update(extra)
    return parse_config(data)


def _write(path, header, rows):
    with io.open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(header + "\n")
        for row in rows:
            handle.write(",".join(row) + "\n")


def _score_files(folder, config, gold_rows, pred_rows):
    ref, res = os.path.join(folder, "ref"), os.path.join(folder, "res")
    for d in (ref, res):
        os.makedirs(d, exist_ok=True)
    _write(os.path.join(ref, "gold.csv"), "id,label", gold_rows)
    _write(os.path.join(res, "predictions.csv"), "id,prediction", pred_rows)
    gold = read_gold(ref, config)
    predictions = read_predictions(find_prediction_file(res, config), config, gold)
    return gold, evaluate(config, gold, predictions)


# ---------------------------------------------------------------------------
# (a) Row order
# ---------------------------------------------------------------------------
@SETTINGS
@given(
    data=labelled_items(),
    regression=st.booleans(),
    seed=st.integers(0, 2**32),
    method=st.sampled_from(["percentile", "bca"]),
    order=st.randoms(use_true_random=False),
)
def test_shuffling_prediction_rows_with_ids_changes_nothing(data, regression, seed, method, order):
    names, gold_codes, pred_codes = data
    n = gold_codes.size
    ids = ["item-%03d" % (7 * i % 1000) for i in range(n)]
    if regression:  # values written exactly (two decimals)
        gold_values = ["%.2f" % (c * 1.25 + 0.01 * i) for i, c in enumerate(gold_codes)]
        pred_values = ["%.2f" % (c * 1.5 - 0.02 * i) for i, c in enumerate(pred_codes)]
        config = _config(["mae", "pearson", "rmse"], seed, method=method)
    else:
        gold_values = [names[c] for c in gold_codes]
        pred_values = [names[c] for c in pred_codes]
        config = _config(["f1_macro", "accuracy", "mcc"], seed, labels=sorted(names), method=method)
    gold_rows = list(zip(ids, gold_values))
    pred_rows = list(zip(ids, pred_values))
    shuffled = list(pred_rows)
    order.shuffle(shuffled)
    with tempfile.TemporaryDirectory() as tmp:
        gold, base = _score_files(os.path.join(tmp, "a"), config, gold_rows, pred_rows)
        _, moved = _score_files(os.path.join(tmp, "b"), config, gold_rows, shuffled)
        assert moved.leaderboard_scores() == base.leaderboard_scores()
        # A shuffled GOLD file: same full-sample scores; the CIs may move (resamples follow gold positions).
        both = list(zip(gold_rows, pred_rows))
        order.shuffle(both)
        _, regold = _score_files(os.path.join(tmp, "c"), config, [g for g, _ in both], [p for _, p in both])
        # Equal to rounding, not bit for bit: regression sums are exact, but the centring constant
        # (the gold mean) is a floating-point sum whose last bit depends on the item order.
        for s, r in zip(base.scores, regold.scores):
            assert _close(s.score, r.score), (s.key, s.score, r.score)


# ---------------------------------------------------------------------------
# (b) Class names
# ---------------------------------------------------------------------------
def _evaluate_named(names, gold_codes, pred_codes, metrics, seed, mapping=None, method="percentile"):
    """Evaluate with class ``names`` (renamed through ``mapping``), labels in sorted order, as the reader does."""
    mapping = mapping or {}
    renamed = [mapping.get(x, x) for x in names]
    labels = tuple(sorted(renamed))
    code = {name: labels.index(name) for name in renamed}
    gold = GoldStandard(values=np.array([code[renamed[c]] for c in gold_codes], dtype=np.intp), labels=labels)
    pred = np.array([code[renamed[c]] for c in pred_codes], dtype=np.intp)
    config = _config(metrics, seed, labels=labels, method=method)
    return evaluate(config, gold, pred)


def _close(a, b, tol=1e-12):
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


@SETTINGS
@given(
    data=labelled_items(),
    seed=st.integers(0, 2**32),
    perm=st.randoms(use_true_random=False),
    method=st.sampled_from(["percentile", "basic", "bca"]),
)
def test_renaming_classes_keeps_metrics_that_name_no_class(data, seed, perm, method):
    names, gold_codes, pred_codes = data
    new = list(NAMES)
    perm.shuffle(new)
    mapping = dict(zip(names, new[: len(names)]))  # a bijection onto (possibly) other names
    base = _evaluate_named(names, gold_codes, pred_codes, CLASS_FREE, seed, method=method)
    renamed = _evaluate_named(names, gold_codes, pred_codes, CLASS_FREE, seed, mapping, method=method)
    for s, r in zip(base.scores, renamed.scores):
        assert s.key == r.key
        assert _close(s.score, r.score), (s.key, s.score, r.score)
        assert _close(s.interval.low, r.interval.low) and _close(s.interval.high, r.interval.high), s.key


def test_bca_bias_correction_is_stable_under_rounding_ties():
    # Found by the property above: renaming two classes reorders the classes, the weighted F1 of the
    # full sample and of the tied replicates round differently (0.6324786324786325 vs ...326), and
    # #{t* < t} changed from 97 to 98 of 200: the lower BCa endpoint moved from 0.3434 to 0.3449.
    # Ties within significance.tolerance now count half whichever way they round.
    names = ("against", "favor", "10", "neg", "pos")
    gold = np.array([0, 0, 2, 3, 2, 0, 0, 0, 0, 0, 4, 0, 1])
    pred = np.array([0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 1, 1])
    base = _evaluate_named(names, gold, pred, ["f1_weighted"], 0, method="bca").official
    renamed = _evaluate_named(names, gold, pred, ["f1_weighted"], 0, {"10": "neg", "neg": "10"}, method="bca").official
    assert _close(base.score, renamed.score)
    assert _close(base.interval.low, renamed.interval.low)


@SETTINGS
@given(
    data=labelled_items(min_classes=3),
    seed=st.integers(0, 2**32),
    perm=st.randoms(use_true_random=False),
    size=st.integers(1, 2),
)
def test_a_labels_subset_follows_the_renaming(data, seed, perm, size):
    names, gold_codes, pred_codes = data
    shuffled = list(names)
    perm.shuffle(shuffled)
    sigma = dict(zip(names, shuffled))  # a permutation of the task's own names
    inverse = {v: k for k, v in sigma.items()}
    subset = list(names[:size])

    def f1_over(labels, mapping=None):
        metric = {"name": "f1", "average": "macro", "labels": list(labels), "key": "f1_subset"}
        return _evaluate_named(names, gold_codes, pred_codes, [metric], seed, mapping).official

    base = f1_over(subset)
    follows = f1_over([sigma[x] for x in subset], sigma)  # renamed data, renamed subset: same value
    assert _close(base.score, follows.score) and _close(base.interval.low, follows.interval.low)
    assert _close(base.interval.high, follows.interval.high)
    old_names = f1_over(subset, sigma)  # renamed data, old names: the classes they now denote
    assert _close(old_names.score, f1_over([inverse[x] for x in subset]).score)


@SETTINGS
@given(data=labelled_items(min_classes=2, max_classes=2), seed=st.integers(0, 2**32))
def test_binary_pos_label_follows_the_renaming(data, seed):
    names, gold_codes, pred_codes = data
    sigma = {names[0]: names[1], names[1]: names[0]}  # swap the two names

    def f1(pos, mapping=None):
        metric = {"name": "f1", "average": "binary", "pos_label": pos}
        return _evaluate_named(names, gold_codes, pred_codes, [metric], seed, mapping).official

    for pos in names:
        assert _close(f1(pos).score, f1(sigma[pos], sigma).score)
        assert _close(f1(pos).interval.low, f1(sigma[pos], sigma).interval.low)
        assert _close(f1(pos, sigma).score, f1(sigma[pos]).score)  # the old name now denotes the other class


# ---------------------------------------------------------------------------
# (c) Bytes
# ---------------------------------------------------------------------------
@SETTINGS
@given(
    data=labelled_items(),
    seed=st.integers(0, 2**63 - 1),
    method=st.sampled_from(["percentile", "basic", "bca"]),
    with_baseline=st.booleans(),
)
def test_same_inputs_give_the_same_scores_json_bytes(data, seed, method, with_baseline):
    names, gold_codes, pred_codes = data
    labels = tuple(sorted(names))
    gold = GoldStandard(values=gold_codes, labels=labels)
    baseline = np.roll(pred_codes, 1) if with_baseline else None
    extra = {"baseline": {"file": "baseline.csv", "name": "shifted"}} if with_baseline else {}
    outputs = []
    with tempfile.TemporaryDirectory() as tmp:
        for run, n_jobs in enumerate((1, 1, 3)):
            config = _config(
                ["f1_macro", "accuracy", "mcc"], seed, n_jobs=n_jobs, labels=labels, method=method, **extra
            )
            result = evaluate(
                config,
                GoldStandard(values=gold_codes.copy(), labels=labels),
                pred_codes.copy(),
                baseline=None if baseline is None else baseline.copy(),
            )
            out = os.path.join(tmp, "out%d" % run)
            write_outputs(result, config, out)
            with open(os.path.join(out, "scores.json"), "rb") as handle:
                scores_json = handle.read()
            with open(os.path.join(out, "scores.txt"), "rb") as handle:
                outputs.append((scores_json, handle.read()))
    assert outputs[0] == outputs[1] == outputs[2]
    assert gold.n == gold_codes.size
