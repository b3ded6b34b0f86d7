"""Public entry points check their inputs first and say what they got."""
import numpy as np
import pytest

from leaderboard_ci.core.pairs import pair_statistics
from leaderboard_ci.core.permutation import permutation_pvalues
from leaderboard_ci.phase.analysis import analyze
from leaderboard_ci.phase.analysis.systems import build_plan
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.errors import ConfigError
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.tasks.base import GoldStandard
from leaderboard_ci.tasks.scorer import SystemScorer

CFG = parse_config({"metric": "f1_macro", "labels": ["a", "b", "c"], "bootstrap": {"n_resamples": 50}})
REG = parse_config({"metric": "mae", "bootstrap": {"n_resamples": 50}})
GOLD = GoldStandard(values=np.array([0, 1, 2, 0, 1]), labels=("a", "b", "c"))


def test_evaluate_refuses_a_short_prediction_array_instead_of_broadcasting():
    with pytest.raises(ValueError, match=r"predictions has 1 values for 5 gold items"):
        evaluate(CFG, GOLD, np.array([0]))
    with pytest.raises(ValueError, match=r"baseline has 4 values for 5 gold items"):
        evaluate(CFG, GOLD, np.array([0, 1, 2, 0, 1]), baseline=np.array([0, 1, 2, 0]))


@pytest.mark.parametrize("predictions, message", [
    (np.array([0, 1, 2, 0, 3]), "class codes from 0 to 2"),
    (np.array([0, 1, -1, 0, 1]), "class codes from 0 to 2"),
    (np.array([0.0, 1.0, 2.0, 0.0, 1.0]), "class codes from 0 to 2"),
    (np.array([[0, 1, 2, 0, 1]]), r"shape \(5,\)"),
])
def test_scorer_refuses_out_of_range_codes(predictions, message):
    with pytest.raises(ValueError, match=message):
        SystemScorer(CFG.metrics, GOLD, predictions)


def test_scorer_refuses_non_finite_regression_predictions():
    gold = GoldStandard(values=np.array([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="finite"):
        SystemScorer(REG.metrics, gold, np.array([1.0, np.nan, 3.0]))
    with pytest.raises(ValueError, match="regression metric"):
        SystemScorer(REG.metrics, GOLD, np.array([0, 1, 2, 0, 1]))  # a classification gold


def test_analyze_names_an_unknown_sides_value():
    with pytest.raises(ConfigError, match=r"analysis.sides must be one of: two, one, got 'three'"):
        analyze(["a", "b"], {"x": ["a", "b"]}, metric="accuracy", sides="three")


def test_analyze_names_the_system_with_the_wrong_length():
    with pytest.raises(ValueError, match=r"system 'x' has 1 predictions for 2 items"):
        analyze(["a", "b"], {"x": ["a"]}, metric="accuracy")
    with pytest.raises(ValueError, match=r"system 'y' has 3 encoded predictions for 5 gold items"):
        analyze(GOLD, {"y": np.array([0, 1, 2])}, config=CFG)


def test_pair_statistics_checks_shapes_indices_and_sign():
    reps = np.zeros((10, 3))
    full = np.zeros(3)
    with pytest.raises(ValueError, match=r"pairs must index the 3 systems \(0 to 2\), got values from 0 to 3"):
        pair_statistics(reps, full, np.array([[0, 3]]), 1.0)
    with pytest.raises(ValueError, match=r"shape \(B, m\)"):
        pair_statistics(reps, np.zeros(4), np.array([[0, 1]]), 1.0)
    with pytest.raises(ValueError, match="sign must be"):
        pair_statistics(reps, full, np.array([[0, 1]]), 0.5)
    with pytest.raises(ValueError, match="method must be one of: percentile, basic, bca"):
        pair_statistics(reps, full, np.array([[0, 1]]), 1.0, method="student")


def test_permutation_checks_its_matrices():
    preds = [np.array([0, 1, 2, 0, 1]), np.array([0, 1, 1, 0, 1])]
    plan = build_plan(CFG, GOLD, preds, ["a", "b"])
    with pytest.raises(ValueError, match=r"predictions must have shape \(n, 2\)"):
        permutation_pvalues(plan.scorers, plan.full_scores(), np.array([[0, 1]]), np.stack(preds), 1, 10)
    with pytest.raises(ValueError, match="pairs must index the 2 systems"):
        permutation_pvalues(plan.scorers, plan.full_scores(), np.array([[0, 2]]), np.stack(preds, 1), 1, 10)


def test_one_seed_bound_and_one_jobs_check_everywhere():
    from leaderboard_ci.core.parallel import check_jobs
    from leaderboard_ci.core.resampling import check_seed

    assert check_seed(2 ** 128 - 1) == 2 ** 128 - 1
    assert parse_config({"metric": "mae", "bootstrap": {"seed": 2 ** 100}}).bootstrap.seed == 2 ** 100
    for bad in (2 ** 128, -1):
        with pytest.raises(ConfigError, match=r"bootstrap.seed must be an integer from 0 to 2\*\*128-1"):
            parse_config({"metric": "mae", "bootstrap": {"seed": bad}})
    with pytest.raises(ValueError, match="n_jobs must be 'auto' or an integer from 1 to 256, got 0"):
        check_jobs(0)
    with pytest.raises(ConfigError, match="bootstrap.n_jobs must be 'auto' or an integer from 1 to 256, got 300"):
        parse_config({"metric": "mae", "bootstrap": {"n_jobs": 300}})
