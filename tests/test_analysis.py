"""analyze() on a hand-made case, checked against independent computations.

Corrections through statsmodels itself; differences, CIs and p-values by a
plain loop over the same resamples; indicators by hand; the ranking by the
full-sample score (never the bootstrap mean).
"""

import os

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, f1_score
from statsmodels.stats.multitest import multipletests

from leaderboard_ci.core.resampling import replicate_indices
from leaderboard_ci.core.significance import stars
from leaderboard_ci.phase.analysis import Execution, analyze
from leaderboard_ci.scoring.errors import ConfigError

#: The shared report examples (lru-cached analyses and pages) are built once: these modules run on one xdist worker.
pytestmark = pytest.mark.xdist_group("report_examples")

B = 400  # the plain loop calls scikit-learn B x m times (800 took 27 s of CI)
SEED = 5


@pytest.fixture(scope="module")
def case():
    """Six systems on a 3-class task: clear gaps, a tie and an identical copy."""
    rng = np.random.default_rng(11)
    n = 300
    y = rng.choice(["neg", "neu", "pos"], size=n, p=[0.3, 0.4, 0.3])

    def system(accuracy, salt):
        r = np.random.default_rng(salt)
        wrong = r.random(n) > accuracy
        other = r.choice(["neg", "neu", "pos"], size=n)
        return np.where(wrong, other, y)

    df = pd.DataFrame(
        {
            "gold": y,
            "strong": system(0.92, 1),
            "tie_a": system(0.80, 2),
            "tie_b": system(0.80, 3),
            "weak": system(0.55, 4),
            "majority": "neu",
        }
    )
    df["strong_copy"] = df["strong"]
    result = analyze(
        df,
        "gold",
        metric="f1_macro",
        extra_metrics=["accuracy"],
        baseline="majority",
        n_resamples=B,
        seed=SEED,
        execution=Execution(n_jobs=2),
    )
    return df, result


def macro_f1(y, p):
    return f1_score(y, p, labels=["neg", "neu", "pos"], average="macro", zero_division=0)


def test_ranking_is_by_full_sample_score(case):
    df, result = case
    target = result.official
    names = [c for c in df.columns if c != "gold"]
    full = {name: macro_f1(df["gold"], df[name]) for name in names}
    expected = sorted(names, key=lambda k: (-full[k], k))
    assert list(target.systems["name"]) == expected
    assert target.winner == "strong"  # ties with strong_copy broken by name
    assert target.systems.set_index("name")["score"].to_dict() == pytest.approx(full, abs=1e-12)
    ranks = target.systems.set_index("name")["rank"]
    assert ranks["strong"] == ranks["strong_copy"] == 1 and target.systems.iloc[2]["rank"] == 3


def _naive_pairs(df, names, order, full, sign=1.0):
    """Plain loop over the same resamples: replicate scores, then each pair's statistics."""
    idx = replicate_indices(SEED, len(df), 0, B)
    y = df["gold"].to_numpy()
    reps = {k: np.array([macro_f1(y[r], df[k].to_numpy()[r]) for r in idx]) for k in names}
    out = []
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            d = sign * (reps[a] - reps[b])
            delta = sign * (full[a] - full[b])
            gamma = 100 * np.finfo(float).eps * max(1.0, abs(full[a]), abs(full[b]), abs(2 * delta))
            # The p-values invert the percentile interval: where numpy's quantile function of d crosses 0.
            greater, less = _crossing(np.sort(d), np.less_equal), 1.0 - _crossing(np.sort(d), np.less)
            floor = 1.0 / (B + 1)
            p_one = min(1.0, max(floor, greater))
            p_two = max(floor, min(1.0, 2 * min(greater, less)))
            if abs(delta) <= gamma and np.all(np.abs(d) <= gamma):  # an identical copy
                p_one = p_two = 1.0
            out.append((a, b, delta, np.percentile(d, 2.5), np.percentile(d, 97.5), p_two, p_one))
    return out


def _crossing(s, below):
    """sup{q : Q(q) below 0} for sorted s (Q: linear interpolation, h = (B - 1) q), from the two values around 0."""
    k = int(np.count_nonzero(below(s, 0.0)))
    if k == 0:
        return 0.0
    if k == len(s):
        return 1.0
    return (k - 1 + (0.0 - s[k - 1]) / (s[k] - s[k - 1])) / (len(s) - 1)


def test_pairs_match_a_plain_loop_and_statsmodels(case):
    df, result = case
    target = result.official
    order = list(target.systems["name"])
    full = dict(zip(target.systems["name"], target.systems["score"]))
    naive = _naive_pairs(df, order, order, full)
    pairs = target.pairs
    assert list(zip(pairs["a"], pairs["b"])) == [(a, b) for a, b, *_ in naive]
    np.testing.assert_allclose(pairs["diff"], [r[2] for r in naive], atol=1e-12)
    np.testing.assert_allclose(pairs["ci_low"], [r[3] for r in naive], atol=1e-12)
    np.testing.assert_allclose(pairs["ci_high"], [r[4] for r in naive], atol=1e-12)
    # p-values: the inversion of the interval (the naive crossing is the formula; ours is settled exactly in
    # floating point, so they agree to rounding), and p < alpha exactly when the interval excludes 0.
    np.testing.assert_allclose(pairs["p_value"], [r[5] for r in naive], rtol=1e-12, atol=1e-15)  # two-sided
    np.testing.assert_allclose(pairs["p_one_sided"], [r[6] for r in naive], rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal((pairs["ci_low"] > 0) | (pairs["ci_high"] < 0), pairs["p_value"] < 0.05)
    assert (pairs["p_one_sided"] <= pairs["p_value"]).all()
    # Corrections: statsmodels on the whole family of pairs (family = all_pairs).
    for method in ("bonferroni", "holm", "fdr_bh"):
        expected = multipletests(pairs["p_value"], alpha=0.05, method=method)[1]
        np.testing.assert_allclose(pairs["p_" + method], expected, atol=0)
    assert list(pairs["stars"]) == [stars(p) for p in pairs["p_maxt"]]  # the primary (default: max-t)


def test_maxt_columns_equal_the_stepdown_on_the_same_replicates(case):
    from leaderboard_ci.core.simultaneous import maxt_stepdown, rank_sets

    _, result = case
    for target in result.targets.values():
        names = list(target.systems["name"])
        reps = target.replicates  # (B, m) in rank order
        full = target.systems["score"].to_numpy()
        where = {n: j for j, n in enumerate(names)}
        pairs = np.array([[where[a], where[b]] for a, b in zip(target.pairs["a"], target.pairs["b"])])
        test = maxt_stepdown(reps, full, pairs, target.metric.sign, 0.05)
        np.testing.assert_array_equal(target.pairs["p_maxt"], test.p_adjusted)
        np.testing.assert_array_equal(target.pairs["fw_low"], test.low)
        np.testing.assert_array_equal(target.pairs["fw_high"], test.high)
        assert target.critical_value == test.critical_simultaneous
        # Duality: the family-wise interval excludes 0 exactly when p_maxt < alpha.
        for frame in (target.pairs, target.vs_winner):
            excludes = (frame["fw_low"] > 0) | (frame["fw_high"] < 0)
            np.testing.assert_array_equal(excludes, frame["p_maxt"] < 0.05)
        np.testing.assert_array_equal(target.vs_winner["significant"], target.vs_winner["p_maxt"] < 0.05)
        sets = rank_sets(reps, full, target.metric.sign, 0.05)
        for column, values in (
            ("rank", sets.rank),
            ("rank_set_low", sets.low),
            ("rank_set_high", sets.high),
            ("rank_set_marginal_low", sets.low_marginal),
            ("rank_set_marginal_high", sets.high_marginal),
        ):
            np.testing.assert_array_equal(target.systems[column], values, err_msg=column)
        tied = target.systems["rank_set_low"] == 1
        np.testing.assert_array_equal(target.systems["tied_with_winner"], tied)
        assert target.tied_with_winner == list(target.systems["name"][tied])
        assert target.family_note is None  # B = 800 is plenty for the max-t step-down over 15 pairs


def test_family_note_names_the_resamples_needed():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 100)
    systems = {"s%d" % k: np.where(rng.random(100) < 0.6 + 0.03 * k, y, 1 - y) for k in range(8)}
    holm = analyze(y, systems, metric="accuracy", n_resamples=200, corrections=["holm"]).official
    # 28/(B+1) <= 0.05 needs B >= 559; about 10 replicates beyond alpha/28 needs B >= 5,600.
    assert "B = 200" in holm.family_note and "B >= 5,600" in holm.family_note
    assert "no difference can be significant" in holm.family_note
    assert analyze(y, systems, metric="accuracy", n_resamples=600).official.family_note is None
    # B = 300: the max-t step-down (primary) is resolved, but Holm and Bonferroni, shown beside it, are at
    # their floor (28/301 = 0.093): one sentence names them, and their indicators are empty, not "all tied".
    floor = analyze(y, systems, metric="accuracy", n_resamples=300).official
    assert "after Holm" in floor.family_note and "Bonferroni" in floor.family_note, floor.family_note
    assert "smallest adjusted p-value is 0.093" in floor.family_note and "B >= 559" in floor.family_note
    assert "max-t" not in floor.family_note.split("after", 1)[1].split("(", 1)[0]
    for block in ("ties_with_winner", "non_significant_pairs"):
        counts = floor.indicators[block]
        assert counts["holm"] is None and counts["bonferroni"] is None, counts
        assert isinstance(counts["maxt"], int) and isinstance(counts["fdr_bh"], int), counts
    assert np.nanmin(floor.pairs["p_holm"]) == pytest.approx(28 / 301)
    # max-t over 28 pairs: about 10 replicates beyond alpha (B >= 200) and B >= 10 n = 280.
    coarse = analyze(y, systems, metric="accuracy", n_resamples=100).official
    assert "not resolved" in coarse.family_note and "B >= 280" in coarse.family_note
    few = analyze(y, systems, metric="accuracy", n_resamples=15).official
    assert "B >= 280" in few.family_note and not few.vs_winner["significant"].any()


def test_vs_winner_reads_the_winner_row(case):
    _, result = case
    target = result.official
    winner_rows = target.pairs[target.pairs["a"] == target.winner]
    vs = target.vs_winner
    assert list(vs["name"]) == list(winner_rows["b"])
    np.testing.assert_array_equal(vs["p_holm"], winner_rows["p_holm"])  # all_pairs family
    copy = vs.set_index("name").loc["strong_copy"]
    assert (copy["diff"], copy["ci_low"], copy["ci_high"], copy["p_value"]) == (0.0, 0.0, 0.0, 1.0)
    assert not copy["significant"]


def test_indicators_by_hand(case):
    _, result = case
    target = result.official
    ind = target.indicators
    scores = target.systems["score"].to_numpy()
    m = len(scores)
    assert (ind["n"], ind["m"], ind["possible_comparisons"]) == (300, 6, 15)
    assert ind["winner_minus_median"] == pytest.approx(abs(scores.max() - np.median(scores)), abs=1e-15)
    assert ind["cv"] == pytest.approx(100 * scores.std(ddof=1) / scores.mean(), rel=1e-12)
    assert ind["ppi"] == pytest.approx(100 * (1 - scores.max()), abs=1e-12)
    vs = target.vs_winner
    for method in ("none", "bonferroni", "holm", "fdr_bh"):
        column = "p_value" if method == "none" else "p_" + method
        assert ind["ties_with_winner"][method] == int((vs[column] > 0.05).sum())
        assert ind["non_significant_pairs"][method] == int((target.pairs[column] > 0.05).sum())
    assert ind["ties_with_winner"]["maxt"] == int((vs["p_maxt"] >= 0.05).sum())  # max-t decides by p < alpha
    assert ind["non_significant_pairs"]["maxt"] == int((target.pairs["p_maxt"] >= 0.05).sum())
    assert ind["ties_with_winner"]["holm"] >= 1  # the identical copy is always tied
    assert m * (m - 1) // 2 == len(target.pairs)


def test_tied_set_and_letters(case):
    _, result = case
    target = result.official
    tied = set(target.tied_with_winner)
    assert {"strong", "strong_copy"} <= tied and "majority" not in tied
    letters = target.systems.set_index("name")["letters"]
    assert letters["strong"] == letters["strong_copy"]
    assert not set(letters["strong"]) & set(letters["majority"])
    # Systems sharing a letter are exactly those not significantly different (primary correction).
    different = {
        frozenset((a, b)) for a, b, p in zip(target.pairs["a"], target.pairs["b"], target.pairs["p_maxt"]) if p < 0.05
    }
    for a in letters.index:
        for b in letters.index:
            if a < b:
                assert (frozenset((a, b)) in different) == (not set(letters[a]) & set(letters[b]))


def test_gains_against_the_baseline(case):
    _, result = case
    gains = result.official.gains.set_index("name")
    scores = result.official.systems.set_index("name")["score"]
    b = scores["majority"]
    for name in scores.index:
        assert gains.loc[name, "gain"] == pytest.approx(100 * (scores[name] - b) / abs(b - 1.0), abs=1e-10)
    assert gains.loc["majority", "gain"] == 0.0


def test_a_metric_without_a_best_value_gets_no_percentage_gain():
    """ICM has no fixed scale: a gain as a share of the way to r = 0 (gains of 169 %) would be a fake best."""
    from leaderboard_ci.report.tables import gains_table

    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 200)
    systems = {"s%d" % k: np.where(rng.random(200) < 0.5 + 0.1 * k, y, (y + 1) % 3) for k in range(3)}
    systems["prior"] = np.zeros(200, dtype=int)
    result = analyze(y, systems, metric="icm", n_resamples=100, baseline="prior")
    icm = result.official
    assert icm.gains is None and gains_table(result, icm) is None
    assert any("ICM has no fixed best value" in n and "analysis.reference_point" in n for n in icm.notes)
    chosen = analyze(y, systems, metric="icm", n_resamples=100, baseline="prior", reference_point=1.0).official
    assert chosen.gains is not None and chosen.gains.attrs["reference_point"] == 1.0


def test_mcnemar_beside_accuracy(case):
    from scipy.stats import binomtest

    df, result = case
    pairs = result.targets["accuracy"].pairs.set_index(["a", "b"])
    right = {k: (df[k] == df["gold"]).to_numpy() for k in df.columns if k != "gold"}
    only_a = int((right["strong"] & ~right["weak"]).sum())
    only_b = int((right["weak"] & ~right["strong"]).sum())
    expected = binomtest(only_a, only_a + only_b, 0.5, alternative="greater").pvalue
    assert pairs.loc[("strong", "weak"), "p_mcnemar"] == pytest.approx(expected, rel=1e-12)
    assert "p_mcnemar" not in result.official.pairs.columns  # only for accuracy
    assert accuracy_score(df["gold"], df["strong"]) == result.targets["accuracy"].systems.iloc[0]["score"]


def test_one_sided_mode_uses_berg_kirkpatrick_throughout():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 200)
    systems = {"s%d" % k: np.where(rng.random(200) < q, y, 1 - y) for k, q in enumerate((0.9, 0.85, 0.7))}
    two = analyze(y, systems, metric="accuracy", n_resamples=400).official.pairs
    one = analyze(y, systems, metric="accuracy", n_resamples=400, sides="one").official.pairs
    np.testing.assert_array_equal(one["p_value"], two["p_one_sided"])
    assert "p_one_sided" not in one.columns
    np.testing.assert_allclose(one["p_holm"], multipletests(one["p_value"], method="holm")[1])


def test_per_row_family_corrects_each_row():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 200)
    systems = {"s%d" % k: np.where(rng.random(200) < q, y, 1 - y) for k, q in enumerate((0.9, 0.8, 0.7, 0.6))}
    res = analyze(y, systems, metric="accuracy", n_resamples=400, family="per_row")
    pairs = res.official.pairs
    for _a, rows in pairs.groupby("a", sort=False):
        np.testing.assert_allclose(rows["p_holm"], multipletests(rows["p_value"], method="holm")[1])
    vs = res.official.vs_winner
    np.testing.assert_allclose(vs["p_bonferroni"], np.minimum(1, vs["p_value"] * len(vs)))
    # The max-t step-down within each row too, on the same replicates.
    from leaderboard_ci.core.simultaneous import maxt_stepdown

    target = res.official
    names = list(target.systems["name"])
    full = target.systems["score"].to_numpy()
    for a, rows in pairs.groupby("a", sort=False):
        own = np.array([[names.index(a), names.index(b)] for b in rows["b"]])
        test = maxt_stepdown(target.replicates, full, own, 1, 0.05)
        np.testing.assert_array_equal(rows["p_maxt"], test.p_adjusted)
        np.testing.assert_array_equal(rows["fw_low"], test.low)
    np.testing.assert_array_equal(vs["p_maxt"], pairs[pairs["a"] == target.winner]["p_maxt"])


def test_lower_is_better_metric_ranks_and_orients():
    from sklearn.datasets import load_diabetes

    x, y = load_diabetes(return_X_y=True)
    systems = {"good": y + 20 * x[:, 0], "bad": y + 60 * x[:, 3] + 15, "mean": np.full_like(y, y.mean())}
    res = analyze(y, systems, metric="mae", n_resamples=300)
    target = res.official
    assert target.winner == "good" and target.metric.direction == "lower"
    assert (target.pairs["diff"] > 0).all()  # better-ranked minus worse-ranked, oriented
    assert target.indicators["ppi"] is None and "target's units" in target.indicators["ppi_reason"]


def test_permutation_test_is_selectable():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 150)
    systems = {"a": np.where(rng.random(150) < 0.85, y, (y + 1) % 3), "b": np.where(rng.random(150) < 0.6, y, 0)}
    systems["a_copy"] = systems["a"].copy()
    res = analyze(y, systems, metric="f1_macro", n_resamples=200, test="permutation", n_permutations=500)
    pairs = res.official.pairs.set_index(["a", "b"])
    assert "p_permutation" in pairs.columns and "p_bootstrap" in pairs.columns
    copy_pair = pairs.loc[("a", "a_copy")] if ("a", "a_copy") in pairs.index else pairs.loc[("a_copy", "a")]
    assert copy_pair["p_value"] == 1.0 and copy_pair["exact"]
    assert pairs.loc[("a", "b"), "p_value"] < 0.01


def test_permutation_refuses_spearman():
    y = np.arange(30.0)
    with pytest.raises(ConfigError, match="permutation test needs metrics that are sums"):
        analyze(y, {"a": y + 1, "b": y[::-1]}, metric="spearman", n_resamples=50, test="permutation")


def test_groups_give_one_target_each_and_gaps():
    rng = np.random.default_rng(9)
    n = 240
    y = rng.integers(0, 2, n)
    lang = np.where(np.arange(n) % 3 == 0, "es", "en")
    systems = {"good": np.where(rng.random(n) < 0.9, y, 1 - y), "base": np.zeros(n, int)}
    res = analyze(y, systems, metric="accuracy", groups=lang, baseline="base", n_resamples=300)
    assert list(res.targets) == ["accuracy", "accuracy_en", "accuracy_es"]
    assert res.targets["accuracy_es"].indicators["n"] == int((lang == "es").sum()) == 80
    assert res.official.indicators["n"] == n
    es = res.targets["accuracy_es"].systems.set_index("name")["score"]
    assert es["good"] == pytest.approx(np.mean(systems["good"][lang == "es"] == y[lang == "es"]))
    gaps = res.group_gaps.set_index("name")
    gain = {g: res.targets["accuracy_" + g].gains.set_index("name")["gain"]["good"] for g in ("en", "es")}
    assert gaps.loc["good", "gap"] == pytest.approx(gain["en"] - gain["es"])
    assert gaps.loc["good", "groups"] == "en - es"


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"metric": "f1_macro", "baseline": "nobody"}, "baseline 'nobody' is not one of the systems"),
        ({"metric": "f1_macro", "colour": "red"}, "unexpected keyword argument 'colour'"),
    ],
)
def test_api_errors(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        analyze([0, 1, 1], {"a": [0, 1, 0]}, **kwargs)


def test_unknown_prediction_label_is_named():
    with pytest.raises(ValueError, match="system 'a' predicts 'maybe'"):
        analyze(["yes", "no"], {"a": ["yes", "maybe"]}, metric="accuracy")


def test_per_unit_table_equals_scikit_learn_per_class_scores():
    from sklearn.metrics import precision_recall_fscore_support

    rng = np.random.default_rng(5)
    labels = ["neg", "neu", "pos"]
    gold = [labels[c] for c in rng.integers(0, 3, 200)]
    systems = {
        "s%d" % j: [g if rng.random() < 0.6 + 0.1 * j else labels[rng.integers(0, 3)] for g in gold] for j in range(3)
    }
    result = analyze(gold, systems, metric="f1_macro", n_resamples=100)
    units = result.units
    assert units.attrs["unit_name"] == "class"
    assert list(dict.fromkeys(units["system"])) == list(result.official.systems["name"])  # rank order
    for name, preds in systems.items():
        p, r, f, _ = precision_recall_fscore_support(gold, preds, labels=labels, zero_division=0)
        rows = units[units["system"] == name].set_index("unit").loc[labels]
        np.testing.assert_allclose(rows["precision"], p, rtol=0, atol=1e-12)
        np.testing.assert_allclose(rows["recall"], r, rtol=0, atol=1e-12)
        np.testing.assert_allclose(rows["f1"], f, rtol=0, atol=1e-12)
        assert list(rows["predicted"]) == [preds.count(label) for label in labels]
    assert analyze([1.0, 2.0, 3.0], {"a": [1.0, 2.0, 2.0]}, metric="mae", n_resamples=20).units is None


def test_group_gap_and_its_ci_equal_a_plain_loop_over_the_groups_replicates():
    import sys

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _report_examples as E

    result = E.with_groups()
    gaps = result.group_gaps.set_index("name")
    a, b = [t for t in result.targets.values() if t.group is not None][:2]
    for target in (a, b):
        assert target.gains is not None
    for name in gaps.index:
        reps = {}
        for target in (a, b):
            names = list(target.systems["name"])
            j, k = names.index(name), names.index(target.gains.attrs["baseline"])
            r = target.gains.attrs["reference_point"]
            with np.errstate(divide="ignore", invalid="ignore"):
                reps[target.group] = (
                    100 * (target.replicates[:, j] - target.replicates[:, k]) / np.abs(target.replicates[:, k] - r)
                )
        d = reps[a.group] - reps[b.group]
        d = d[np.isfinite(d)]
        expected = float(a.gains.set_index("name").loc[name, "gain"]) - float(
            b.gains.set_index("name").loc[name, "gain"]
        )
        assert gaps.loc[name, "gap"] == pytest.approx(expected, abs=1e-12)
        assert gaps.loc[name, "ci_low"] == pytest.approx(np.percentile(d, 2.5), abs=1e-9)
        assert gaps.loc[name, "ci_high"] == pytest.approx(np.percentile(d, 97.5), abs=1e-9)
