"""Notes where an interval rests on almost nothing, has heavy tails or is degenerate, for every task type.

For each task type a case that produces the note and one that does not, on the
participant's page (``evaluate`` -> ``warnings`` -> ``detailed_results.html``) and in
the end-of-phase report (``analyze`` -> ``TargetAnalysis.notes`` -> report.json);
and the participant's version is the same whichever unit is rare in the gold and
however rare it is (it names no rare unit and gives no gold count).
"""

import json

import numpy as np
import pytest

from leaderboard_ci.phase.analysis import Execution, analyze
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.detailed_html import render_detailed_results
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.scoring.validity import degenerate_interval_note, degenerate_notes, sparse_notes, tail_share
from leaderboard_ci.tasks.registry import task_type
from leaderboard_ci.tasks.shared.base import GoldStandard

B = 100


def _config(task, metric, extra=(), **more):
    data = {"task": task, "metric": metric, "extra_metrics": list(extra), "bootstrap": {"n_resamples": B}}
    data.update(more)
    return parse_config(data)


def _encoded(task, gold_values, systems, labels=None):
    values, labels, coded = task_type(task).encode_values(gold_values, systems, labels, None)
    return GoldStandard(values=values, labels=labels, task=task), coded


def _participant(config, gold, prediction):
    result = evaluate(config, gold, prediction)
    return result.warnings, render_detailed_results(result, config)


def _phase_notes(gold_values, systems, config):
    result = analyze(gold_values, systems, config=config, execution=Execution(n_jobs=1))
    report = json.loads(result.to_json())
    return result.official.notes, report


# ---------------------------------------------------------------------------
# The cases, one pair per task type: (task, config, gold values, a system) with and without the note
# ---------------------------------------------------------------------------
def _multilabel(rare):
    rng = np.random.default_rng(1)
    gold = [[x for x in "abc" if rng.random() < 0.5] for _ in range(120)]
    for i in range(rare):
        gold[i] = gold[i] + ["d"]
    system = [list(g) for g in gold]
    for i in range(0, 120, 7):
        system[i] = [x for x in "abc" if rng.random() < 0.5]
    system[-1] = system[-1] + ["d"] if "d" not in system[-1] else system[-1]
    return gold, system


def _sequence(rare):
    gold = [["B-PER", "I-PER", "O"]] * 60 + [["B-LOC", "O", "O"]] * rare + [["O", "B-PER", "O"]] * 20
    system = [list(s) for s in gold]
    system[0] = ["O", "O", "O"]
    return gold, system


def _ranking(queries):
    rng = np.random.default_rng(2)
    qrels = dict(("q%d" % q, dict(("d%d" % d, int(rng.integers(0, 3))) for d in range(6))) for q in range(queries))
    for q in qrels:
        qrels[q]["d0"] = 2
    run = dict((q, dict(("d%d" % d, float(rng.random())) for d in range(8))) for q in qrels)
    return list(qrels.items()), run


def test_multilabel_macro_average_over_a_rare_label():
    config = _config("multilabel", "f1_macro", ["f1_micro"])
    gold_values, system = _multilabel(2)
    gold, coded = _encoded("multilabel", gold_values, {"s": system})
    organizer = sparse_notes(config.metrics, gold)
    assert organizer == [organizer[0]] and "label 'd' has at most 3 gold items" in organizer[0]
    assert "macro-F1" in organizer[0] and "micro" not in organizer[0] and "89%" in organizer[0]
    warnings, html = _participant(config, gold, coded["s"])
    assert warnings[0].startswith("Some labels have very few items in the test data")
    assert "'d'" not in warnings[0] and "89%" in warnings[0]
    assert "Some labels have very few items" in html
    notes, report = _phase_notes(gold_values, {"s": system, "t": gold_values}, config)
    assert any("label 'd' has at most 3 gold items" in n for n in notes)
    assert report["metrics"]["f1_macro"]["notes"] == notes  # report.json carries them
    assert not any("label 'd'" in n for n in report["metrics"]["f1_micro"]["notes"])
    gold_values, system = _multilabel(30)
    gold, coded = _encoded("multilabel", gold_values, {"s": system})
    assert sparse_notes(config.metrics, gold) == [] and _participant(config, gold, coded["s"])[0] == ()


def test_multilabel_flags_a_label_the_system_predicts_at_most_three_times():
    # The note counts the system's own predictions of a label: on the participant's page only with
    # the per-label table, which the organizer turns on (off by default: the table is an item oracle).
    config = _config("multilabel", "f1_macro", detailed_results={"per_class": True})
    gold_values, system = _multilabel(30)
    system = [[x for x in s if x != "d"] for s in system]
    system[0] = system[0] + ["d"]
    gold, coded = _encoded("multilabel", gold_values, {"s": system})
    assert _participant(_config("multilabel", "f1_macro"), gold, coded["s"])[0] == ()  # the default
    warnings, _ = _participant(config, gold, coded["s"])
    assert warnings == (
        "In the test set, you predict label 'd' 1 time (at most 3), so the precision of that "
        "label in macro-F1 rests on almost nothing and the interval can cover far less than its "
        "nominal level.",
    )
    notes, _ = _phase_notes(gold_values, {"s": system, "t": gold_values}, config)
    assert any("1 system predicts some label at most 3 times (s)" in n for n in notes)


def test_sequence_macro_average_over_a_rare_entity_type():
    config = _config("sequence", "f1_macro", ["f1_micro"])
    gold_values, system = _sequence(2)
    gold, coded = _encoded("sequence", gold_values, {"s": system})
    organizer = sparse_notes(config.metrics, gold)
    assert len(organizer) == 1 and "entity type 'LOC' has at most 3 gold entities" in organizer[0]
    assert "93%" in organizer[0]
    warnings, _ = _participant(config, gold, coded["s"])
    assert len(warnings) == 1  # by default no note counts the submission's predictions of a type
    assert warnings[0].startswith("Some entity types have very few entities in the test data")
    assert "LOC" not in warnings[0]
    table = _config("sequence", "f1_macro", ["f1_micro"], detailed_results={"per_class": True})
    warnings, _ = _participant(table, gold, coded["s"])
    assert warnings[0].startswith("Some entity types have very few entities in the test data")
    assert warnings[1].startswith("In the test set, you predict entity type 'LOC' 2 times")  # its own predictions
    notes, _ = _phase_notes(gold_values, {"s": system, "t": gold_values}, config)
    assert any("entity type 'LOC' has at most 3 gold entities" in n for n in notes)
    gold_values, system = _sequence(20)
    gold, coded = _encoded("sequence", gold_values, {"s": system})
    assert sparse_notes(config.metrics, gold) == [] and _participant(config, gold, coded["s"])[0] == ()


@pytest.mark.parametrize("metric", ["roc_auc", "average_precision"])
def test_scores_rank_metrics_with_few_positives(metric):
    rng = np.random.default_rng(3)
    config = _config("scores", metric, labels=["0", "1"])
    for positives, flagged in ((6, True), (60, False)):
        y = np.array([1] * positives + [0] * (200 - positives))
        scores = np.clip(0.3 * y + rng.random(200) * 0.7, 0, 1)
        gold_values = [str(v) for v in y]
        gold, coded = _encoded("scores", gold_values, {"s": scores}, ["0", "1"])
        organizer = sparse_notes(config.metrics, gold)
        warnings, _ = _participant(config, gold, coded["s"])
        if flagged:
            assert len(organizer) == 1 and organizer[0].startswith(
                "In the test set, class '1' has at most 10 gold items"
            )
            assert "87%" in organizer[0]
            assert warnings[0].startswith("Some classes have very few items in the test data")
            assert "'1'" not in warnings[0]
        else:
            assert organizer == [] and warnings == ()


def test_scores_log_loss_with_a_true_class_given_zero_probability_has_heavy_tails():
    rng = np.random.default_rng(4)
    config = _config("scores", "log_loss", ["brier", "roc_auc"], labels=["0", "1"])
    y = rng.integers(0, 2, size=300)
    p = np.where(y == 1, rng.uniform(0.55, 0.9, 300), rng.uniform(0.1, 0.45, 300))
    zero = np.where(np.arange(300) == 5, 1.0 - y, p)  # the true class of item 5 gets probability 0
    gold, coded = _encoded("scores", [str(v) for v in y], {"fine": p, "zero": zero}, ["0", "1"])
    assert _participant(config, gold, coded["fine"])[0] == ()
    warnings, html = _participant(config, gold, coded["zero"])
    assert len(warnings) == 1 and "heavy tails" in warnings[0] and "log loss" in warnings[0]
    assert "%" not in warnings[0]  # the participant's version gives no share nor count
    assert "heavy tails" in html
    terms = task_type("scores").item_contributions(config.metrics[0], gold, coded["zero"])[0]
    assert tail_share(terms) == pytest.approx(sum(sorted(terms)[-3:]) / terms.sum(), rel=1e-12)
    assert terms.max() > 36 and tail_share(terms) > 0.2  # one term of 36 beside terms below 1
    fine = task_type("scores").item_contributions(config.metrics[0], gold, coded["fine"])[0]
    assert tail_share(fine) < 0.2


def test_regression_mae_outliers_have_heavy_tails_and_rmse_is_named_once():
    rng = np.random.default_rng(5)
    y = rng.normal(size=300)
    config = _config("regression", "mae", ["rmse", "mse"])
    gold = GoldStandard(values=y)
    outliers = y + rng.normal(size=300)
    outliers[:3] += 100.0
    warnings, _ = _participant(config, gold, outliers)
    assert len(warnings) == 2
    assert "absolute error" in warnings[0] and "MAE" in warnings[0]
    assert "squared error" in warnings[1] and "RMSE and MSE" in warnings[1] and "90%" in warnings[1]
    assert _participant(config, gold, y + rng.normal(size=300))[0] == ()
    notes, _ = _phase_notes(list(y), {"outliers": outliers, "plain": y + rng.normal(size=300)}, config)
    assert any("heavy tails" in n and "(outliers)" in n for n in notes)


def test_ranking_mean_over_a_handful_of_queries():
    config = _config("ranking", "map")
    gold_values, run = _ranking(8)
    gold, coded = _encoded("ranking", gold_values, {"s": run})
    organizer = sparse_notes(config.metrics, gold)
    assert organizer == [
        "In the test set, only 8 queries have a relevant document (at most 10), so MAP rests on "
        "almost nothing: such intervals can cover less than their nominal level (a bootstrap over so "
        "few units can cover well below its nominal level)."
    ]
    warnings, _ = _participant(config, gold, coded["s"])
    assert warnings[0].startswith("Few queries in the test data have a relevant document") and "8" not in warnings[0]
    gold_values, run = _ranking(40)
    gold, coded = _encoded("ranking", gold_values, {"s": run})
    assert sparse_notes(config.metrics, gold) == [] and _participant(config, gold, coded["s"])[0] == ()


def test_classification_macro_and_plain_metrics():
    gold = np.array([0] * 100 + [1] * 100 + [2] * 2)
    config = _config("classification", "f1_macro", labels=["0", "1", "2"])
    assert (
        "class '2' has at most 3 gold items"
        in sparse_notes(config.metrics, GoldStandard(values=gold, labels=("0", "1", "2")))[0]
    )
    plain = _config("classification", "accuracy", ["mcc"], labels=["0", "1", "2"])
    assert sparse_notes(plain.metrics, GoldStandard(values=gold, labels=("0", "1", "2")), gold) == []


# ---------------------------------------------------------------------------
# Degenerate intervals
# ---------------------------------------------------------------------------
def test_a_zero_width_interval_says_it_is_not_certainty():
    note = degenerate_interval_note(1.0, 1.0, "MCC, all items", 1.0, "MCC")
    assert note.startswith("MCC, all items: the interval [1, 1] has zero width: every resample gave the same value")
    assert "not certainty" in note and "rule of three" in note
    assert degenerate_interval_note(100.0, 100.0, "gain", None) is not None  # a difference too
    assert degenerate_interval_note(0.8, 0.9, "F1", 1.0) is None
    assert degenerate_interval_note(float("nan"), float("nan"), "F1", 1.0) is None
    bound = degenerate_interval_note(0.99, 1.0, "accuracy, all items", 1.0, "accuracy")
    assert "ends at 1, the best value accuracy can take" in bound and "not certainty" in bound


def test_the_page_notes_perfect_and_almost_perfect_predictions():
    gold = np.array([0, 1] * 100)
    config = _config("classification", "mcc", ["accuracy"], labels=["0", "1"])
    _, html = _participant(config, GoldStandard(values=gold, labels=("0", "1")), gold.copy())
    assert "MCC, all items: the interval [1, 1] has zero width" in html
    assert "accuracy, all items: the interval [1, 1] has zero width" in html
    one_error = gold.copy()
    one_error[0] = 1
    _, html = _participant(config, GoldStandard(values=gold, labels=("0", "1")), one_error)
    assert "accuracy, all items: the interval ends at 1, the best value accuracy can take" in html
    noisy = np.where(np.random.default_rng(0).random(200) < 0.2, 1 - gold, gold)
    _, html = _participant(config, GoldStandard(values=gold, labels=("0", "1")), noisy)
    assert "zero width" not in html and "best value" not in html


def test_a_constant_score_is_not_explained_as_no_errors():
    """A zero-width interval away from the best value (constant scores: ROC-AUC 0.5) is not "no errors"."""
    note = degenerate_interval_note(0.5, 0.5, "ROC-AUC, all items", 1.0, "ROC-AUC")
    assert "zero width" in note and "ROC-AUC of 0.5 for scores that are all equal" in note
    assert "rule of three" not in note and "no errors" not in note
    difference = degenerate_interval_note(0.0, 0.0, "MCC minus the baseline", None)
    assert "identical predictions" in difference and "rule of three" not in difference
    gold = np.array([0, 1] * 100)
    config = _config("scores", "roc_auc", labels=["0", "1"])
    _, html = _participant(config, GoldStandard(values=gold, labels=("0", "1"), task="scores"), np.full(200, 0.3))
    assert "the interval [0.5, 0.5] has zero width" in html and "rule of three" not in html
    notes = degenerate_notes("ROC-AUC", 1.0, ["flat", "perfect"], [0.5, 1.0], [0.5, 1.0])
    assert notes[0].startswith("1 system has a zero-width ROC-AUC interval (perfect)") and "rule of three" in notes[0]
    assert notes[1].startswith("1 system has a zero-width ROC-AUC interval (flat)") and "all equal" in notes[1]


def test_qa_has_no_sparse_units_but_a_perfect_system_gets_the_zero_width_note():
    config = _config("qa", "exact_match")
    answers = ["answer %d" % i for i in range(50)]
    gold, coded = _encoded("qa", answers, {"s": answers})
    assert sparse_notes(config.metrics, gold, coded["s"]) == []
    warnings, html = _participant(config, gold, coded["s"])
    assert warnings == () and "the interval [1, 1] has zero width" in html


def test_end_of_phase_degenerate_notes_are_aggregated():
    config = _config("classification", "accuracy", labels=["0", "1"])
    spec = config.metrics[0]
    notes = degenerate_notes(
        spec.title, spec.info.best, ["a", "b", "c", "d"], [1.0, 0.98, 0.7, 1.0], [1.0, 1.0, 0.8, 1.0]
    )
    assert notes[0].startswith("2 systems have a zero-width accuracy interval (a, d): every resample")
    assert "among n items" in notes[0]
    assert notes[1].startswith("1 system has its accuracy interval ending at 1, the best value it can take (b)")
    concrete = degenerate_notes(spec.title, spec.info.best, ["a"], [1.0], [1.0], n_items=36)[0]
    assert "among 36 items, a 95% bound on the error rate is still about 3/36 = 0.083" in concrete
    assert degenerate_notes(spec.title, spec.info.best, ["c"], [0.7], [0.8]) == []
    assert degenerate_notes("gain", None, ["b"], [98.0], [100.0]) == []  # no bound given: only zero width


# ---------------------------------------------------------------------------
# The participant's version reveals nothing about the gold
# ---------------------------------------------------------------------------
def _golds_differing_in_the_rare_unit():
    """Classification golds that differ only in which class is rare and how rare (1 to 3 items)."""
    base = np.array([0] * 60 + [1] * 60 + [2] * 60 + [3] * 60)
    out = []
    for rare, count in ((2, 1), (2, 3), (3, 2), (1, 0)):
        codes = base.copy()
        idx = np.flatnonzero(codes == rare)
        codes[idx[count:]] = 0
        out.append(codes)
    return out


def test_participant_warnings_are_the_same_whichever_class_is_rare():
    config = _config("classification", "f1_macro", ["recall_macro", "accuracy"], labels=["a", "b", "c", "d"])
    prediction = np.array([0, 1, 2, 3] * 60)
    pages = []
    for codes in _golds_differing_in_the_rare_unit():
        gold = GoldStandard(values=codes, labels=("a", "b", "c", "d"))
        warnings = evaluate(config, gold, prediction).warnings
        organizer = sparse_notes(config.metrics, gold, prediction, participant=False)
        assert any("at most 3 gold items" in n for n in organizer)  # the organizer is told which
        pages.append(warnings)
    assert pages[0] and all(p == pages[0] for p in pages[1:])
    assert not any(c in pages[0][0] for c in ("'a'", "'b'", "'c'", "'d'"))


@pytest.mark.parametrize("count", [0, 1, 3])
def test_multilabel_participant_warnings_do_not_depend_on_the_rare_labels_count(count):
    config = _config("multilabel", "f1_macro", labels=list("abcd"))
    gold_values, system = _multilabel(count)
    system = [[x for x in s if x != "d"] for s in system]
    gold, coded = _encoded("multilabel", gold_values, {"s": system}, list("abcd"))
    warnings = evaluate(config, gold, coded["s"]).warnings
    reference_gold, _ = _encoded("multilabel", _multilabel(2)[0], {"s": system}, list("abcd"))
    assert warnings == evaluate(config, reference_gold, coded["s"]).warnings


def test_scores_rank_metrics_with_few_negatives_or_a_rare_class_of_a_macro_average():
    config = _config("scores", "roc_auc", labels=["0", "1"])
    gold, _ = _encoded("scores", ["1"] * 195 + ["0"] * 5, {}, ["0", "1"])
    assert sparse_notes(config.metrics, gold)[0].startswith("In the test set, class '0' has at most 10 gold items")
    macro = _config("scores", "roc_auc_ovr", labels=["a", "b", "c"])
    gold, _ = _encoded("scores", ["a"] * 4 + ["b"] * 100 + ["c"] * 96, {}, ["a", "b", "c"])
    assert sparse_notes(macro.metrics, gold)[0].startswith("In the test set, class 'a' has at most 10 gold items")
    gold, _ = _encoded("scores", ["a"] * 40 + ["b"] * 100 + ["c"] * 60, {}, ["a", "b", "c"])
    assert sparse_notes(macro.metrics, gold) == []
