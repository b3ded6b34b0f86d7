"""The outputs: section: which keys the program writes, their columns, the normal interval and _se."""

import numpy as np
import pytest

from leaderboard_ci.core.intervals import confidence_interval, ndtri
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.errors import ConfigError
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.scoring.outputs import written_columns, written_keys
from leaderboard_ci.tasks.shared.scorer import GoldStandard


@pytest.fixture(scope="module")
def diabetes():
    from sklearn.datasets import load_diabetes

    x, y = load_diabetes(return_X_y=True)
    sex = np.where(x[:, 1] > 0, 1, 0).astype(np.intp)
    gold = GoldStandard(values=y.astype(float), groups=sex, group_values=("female", "male"), sha256="a" * 64)
    good, bad = y + 30 * x[:, 2] * 10, np.full_like(y, y.mean())
    return gold, good, bad


def _config(outputs=None, **extra):
    data = {
        "metric": "mae",
        "extra_metrics": ["rmse"],
        "groups": "sex",
        "baseline": "baseline.csv",
        "bootstrap": {"n_resamples": 300, "seed": 1},
    }
    data.update(extra)
    if outputs is not None:
        data["outputs"] = outputs
    return parse_config(data)


# (outputs, number of keys for 2 metrics x (all + 2 groups) with a baseline), as docs/organizer-guide.md states.
COUNTS = [
    (None, 2 * 3 * 3 + 2 * 3 * 4),  # 42: everything
    ({"ci": False, "baseline": "official"}, 2 * 3 + 3 * 4),  # 18
    ({"groups": False, "baseline": "none"}, 2 * 3),  # 6
    ({"groups": ["female"], "baseline": "official", "baseline_ci": False}, 2 * 2 * 3 + 2 * 2),  # 16
    ({"ci": False, "groups": False, "baseline": "none", "se": True}, 2 * 2),  # 4
]


@pytest.mark.parametrize("outputs, count", COUNTS)
def test_written_keys_are_exactly_what_the_program_writes(diabetes, outputs, count):
    gold, good, bad = diabetes
    config = _config(outputs)
    keys = written_keys(config, gold.group_values)
    assert len(keys) == count == len(set(keys))
    scores = evaluate(config, gold, good, baseline=bad).leaderboard_scores(config)
    assert list(scores) == list(keys)


def test_columns_sort_by_the_metrics_direction(diabetes):
    gold = diabetes[0]
    columns = {c.key: c for c in written_columns(_config({"se": True}, extra_metrics=["r2"]), gold.group_values)}
    assert columns["mae"].sorting == "asc" and columns["mae_female_ci_high"].sorting == "asc"
    assert columns["r2"].sorting == "desc" and columns["r2_male_ci_low"].sorting == "desc"
    assert columns["mae_vs_base"].sorting == "desc"  # oriented: positive = better than the baseline
    assert columns["mae_vs_base_p"].sorting == "asc" and columns["mae_se"].sorting == "asc"
    assert all(len(c.title()) <= 36 for c in columns.values())


def test_long_group_values_give_titles_within_36_characters():
    config = parse_config(
        {"metric": "f1_macro", "groups": {"column": "g", "values": ["x" * 11, "y"]}, "baseline": "b.csv"}
    )
    titles = [c.title() for c in written_columns(config, ("x" * 11, "y"))]
    assert max(len(t) for t in titles) <= 36
    assert len(set(titles)) == len(titles)


@pytest.mark.parametrize(
    "outputs, message",
    [
        ({"ci": "yes"}, "outputs.ci must be true or false"),
        ({"baseline": "some"}, "outputs.baseline must be one of: all, official, none"),
        ({"colour": 1}, "outputs.colour is not a known key"),
        ({"groups": []}, "outputs.groups must be true, false or a list"),
    ],
)
def test_bad_outputs_say_what_is_allowed(outputs, message):
    with pytest.raises(ConfigError, match=message):
        _config(outputs)


def test_an_unknown_group_in_outputs_is_named():
    with pytest.raises(ConfigError, match="outputs.groups lists 'other'"):
        parse_config(
            {
                "metric": "mae",
                "groups": {"column": "sex", "values": ["female", "male"]},
                "outputs": {"groups": ["other"]},
            }
        )


def test_normal_interval_is_score_plus_minus_z_se():
    reps = np.random.default_rng(4).normal(3.0, 0.5, size=4000)
    iv = confidence_interval("normal", reps, 3.1, 0.9)
    se = np.std(reps, ddof=1)
    z = -ndtri(0.05)
    assert z == pytest.approx(1.6448536269514722, abs=1e-12)
    assert (iv.low, iv.high) == (pytest.approx(3.1 - z * se, abs=1e-12), pytest.approx(3.1 + z * se, abs=1e-12))


def test_se_key_is_the_replicates_standard_deviation(diabetes):
    gold, good, bad = diabetes
    config = _config({"se": True}, bootstrap={"n_resamples": 300, "seed": 1, "method": "normal"})
    result = evaluate(config, gold, good, baseline=bad)
    scores = result.leaderboard_scores(config)
    s = result.official
    assert scores["mae_se"] == pytest.approx(np.std(s.replicates, ddof=1), rel=1e-12)
    assert scores["mae_ci_high"] - scores["mae"] == pytest.approx(-ndtri(0.025) * scores["mae_se"], rel=1e-9)


# ---------------------------------------------------------------------------
# Warnings where an interval rests on almost nothing (scoring/validity.py)
# ---------------------------------------------------------------------------
def test_a_class_with_few_gold_items_or_predictions_is_flagged_in_plain_words():
    gold = np.array([0] * 100 + [1] * 100 + [2] * 2)
    predictions = gold.copy()
    predictions[:10] = 1  # class 0 predicted 90 times, 1 110 times, 2 twice
    # participants read this page: the rare gold class is not named (a fact of the gold); their own
    # predictions of a class are counted only with the per-class table, the organizer's opt-in
    default = parse_config({"metric": "f1_macro", "bootstrap": {"n_resamples": 100}})
    result = evaluate(default, GoldStandard(values=gold, labels=("0", "1", "2")), predictions)
    assert len(result.warnings) == 1 and result.warnings[0].startswith("Some classes have very few items")
    config = parse_config(
        {"metric": "f1_macro", "bootstrap": {"n_resamples": 100}, "detailed_results": {"per_class": True}}
    )
    result = evaluate(config, GoldStandard(values=gold, labels=("0", "1", "2")), predictions)
    assert len(result.warnings) == 2
    assert result.warnings[0].startswith("Some classes have very few items in the test data")
    assert "'2'" not in result.warnings[0]
    assert "you predict class '2' 2 times (at most 3)" in result.warnings[1]
    assert all(" 2 gold" not in w for w in result.warnings)  # never a gold count
    # the organizer's report names it
    from leaderboard_ci.scoring.validity import sparse_class_notes

    named = sparse_class_notes(config.metrics, ("0", "1", "2"), gold, predictions)
    assert "class '2' has at most 3 gold items" in named[0]
    # accuracy is not macro-averaged: no warning
    plain = parse_config({"metric": "accuracy", "bootstrap": {"n_resamples": 100}})
    assert evaluate(plain, GoldStandard(values=gold, labels=("0", "1", "2")), predictions).warnings == ()


def test_groups_are_checked_too():
    gold = np.array([0, 1, 2] * 60)
    groups = np.array([0] * 170 + [1] * 10)  # group 'small' has 3-4 items per class
    config = parse_config({"metric": "balanced_accuracy", "groups": "g", "bootstrap": {"n_resamples": 100}})
    result = evaluate(
        config,
        GoldStandard(values=gold, labels=("a", "b", "c"), groups=groups, group_values=("big", "small")),
        gold.copy(),
    )
    # participants: the group with rare classes is not named either
    assert result.warnings[0].startswith("Some classes have very few items in the test data")
    assert "small" not in " ".join(result.warnings)
    from leaderboard_ci.scoring.validity import sparse_class_notes

    named = sparse_class_notes(config.metrics, ("a", "b", "c"), gold, gold.copy(), groups, ("big", "small"))
    assert [w.split(",")[0] for w in named][:1] == ["In group 'small'"]


def test_heavy_tailed_errors_flag_rmse_not_normal_ones():
    rng = np.random.default_rng(2)
    y = rng.normal(size=300)
    config = parse_config({"metric": "rmse", "extra_metrics": ["mae"], "bootstrap": {"n_resamples": 100}})
    heavy = evaluate(config, GoldStandard(values=y), y + rng.standard_t(2, size=300)).warnings
    assert len(heavy) == 1 and "heavy tails" in heavy[0] and "RMSE" in heavy[0]
    assert evaluate(config, GoldStandard(values=y), y + rng.normal(size=300)).warnings == ()


@pytest.mark.parametrize("metric, title", [("mae", "MAE below baseline"), ("r2", "R² minus baseline")])
def test_a_difference_column_is_titled_by_what_it_holds(metric, title):
    """``KEY_vs_base`` holds the baseline minus X for a lower-is-better metric: "X below baseline", not "X minus"."""
    config = parse_config({"metric": metric, "baseline": {"file": "b.csv"}, "bootstrap": {"n_resamples": 50}})
    (column,) = [c for c in written_columns(config) if c.part == "vs_base"]
    assert column.title() == title
    rng = np.random.RandomState(0)
    y = rng.normal(size=60)
    gold = GoldStandard(values=y)
    mine, base = y + rng.normal(scale=0.1, size=60), y + rng.normal(scale=1.0, size=60)
    result = evaluate(config, gold, mine, baseline=base)
    (comparison,) = [b for b in result.baseline if b.key == column.key]
    score = result.scores[0].score
    held = comparison.difference
    if metric == "mae":  # below the baseline: the baseline's MAE minus mine, positive as mine is better
        assert held == pytest.approx(comparison.baseline_score - score) and held > 0
    else:
        assert held == pytest.approx(score - comparison.baseline_score) and held > 0
