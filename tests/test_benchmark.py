"""Benchmarks of several tasks: every number re-derived by a plain loop over the same resamples."""

import functools
import json
import os
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, f1_score, matthews_corrcoef, mean_absolute_error

from leaderboard_ci.core.resampling import counts_from_indices, replicate_indices
from leaderboard_ci.phase.benchmark.benchmark import analyze_benchmark, load_benchmark, seed_for_test_set

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "benchmark", "benchmark.yaml")
B = 100  # the plain loop calls scikit-learn once per replicate, system and language
METRICS = {
    "digits": lambda y, p, w: f1_score(y, p, average="macro", sample_weight=w),
    "wine": lambda y, p, w: accuracy_score(y, p, sample_weight=w),
    "breast_cancer": lambda y, p, w: matthews_corrcoef(y, p, sample_weight=w),
    "diabetes": lambda y, p, w: mean_absolute_error(y, p, sample_weight=w),
}


@pytest.fixture(scope="module")
def result():
    definition = replace(load_benchmark(EXAMPLE), n_resamples=B)
    return analyze_benchmark(definition, n_jobs=1)


def _read(folder, name):
    return pd.read_csv(os.path.join(folder, name))


@functools.lru_cache(maxsize=None)
def _loop_scores(task, language, names, column):
    """Full-sample and replicate scores of every system and the mean baseline, by scikit-learn."""
    base = os.path.join(ROOT, "examples", "benchmark", language, task)
    gold = _read(os.path.join(base, "reference_data"), "gold.csv")
    y = gold[column].to_numpy()
    n = len(y)
    counts = counts_from_indices(replicate_indices(seed_for_test_set(12345, task, language), n, 0, B), n)
    metric = METRICS[task]

    def scores(pred):
        return metric(y, pred, None), np.array([metric(y, pred, counts[b]) for b in range(B)])

    systems = {
        name: scores(_read(os.path.join(base, "submissions"), name + ".csv")[column].to_numpy()) for name in names
    }
    baselines = [
        scores(_read(os.path.join(base, "reference_data"), f)[column].to_numpy())
        for f in sorted(os.listdir(os.path.join(base, "reference_data")))
        if f.startswith("baseline_")
    ]
    b_full = np.mean([b[0] for b in baselines])
    b_reps = np.mean([b[1] for b in baselines], axis=0)
    return systems, b_full, b_reps


@pytest.mark.parametrize("task, column, best, sign", [("digits", "label", 1.0, 1.0), ("diabetes", "value", None, -1.0)])
def test_gain_and_gap_equal_a_plain_loop(result, task, column, best, sign):
    names = list(result.systems)
    per_language = {}
    for language in ("en", "es"):
        systems, b_full, b_reps = _loop_scores(task, language, tuple(names), column)
        r = best if (best is not None and sign > 0 and b_full < best) else 0.0  # ODESIA's rule
        per_language[language] = {
            name: (
                100 * sign * (s_full - b_full) / abs(b_full - r),
                100 * sign * (s_reps - b_reps) / np.abs(b_reps - r),
            )
            for name, (s_full, s_reps) in systems.items()
        }
        gains = result.gains[(result.gains.task == task) & (result.gains.language == language)].set_index("system")
        for name, (g, reps) in per_language[language].items():
            assert gains.loc[name, "gain"] == pytest.approx(g, rel=1e-12, abs=1e-12)
            assert gains.loc[name, "ci_low"] == pytest.approx(np.percentile(reps, 2.5), rel=1e-12, abs=1e-12)
            assert gains.loc[name, "ci_high"] == pytest.approx(np.percentile(reps, 97.5), rel=1e-12, abs=1e-12)
            assert gains.loc[name, "reference_point"] == r
    gaps = result.gaps[result.gaps.task == task].set_index("system")
    for name in names:
        d = per_language["en"][name][0] - per_language["es"][name][0]
        reps = per_language["en"][name][1] - per_language["es"][name][1]
        assert gaps.loc[name, "gap"] == pytest.approx(d, rel=1e-12, abs=1e-12)
        assert gaps.loc[name, "ci_low"] == pytest.approx(np.percentile(reps, 2.5), rel=1e-12, abs=1e-9)
        assert gaps.loc[name, "ci_high"] == pytest.approx(np.percentile(reps, 97.5), rel=1e-12, abs=1e-9)
        p = (np.count_nonzero(np.abs(reps - d) >= abs(d) - 1e-9) + 1) / (B + 1)
        assert gaps.loc[name, "p_value"] == pytest.approx(p, abs=1.0 / (B + 1))


def test_test_sets_are_resampled_independently(result):
    seeds = [ts.seed for ts in result.test_sets]
    assert len(set(seeds)) == len(seeds)
    en, es = [ts for ts in result.test_sets if ts.task.name == "wine"]
    assert en.n_items != es.n_items or not np.array_equal(
        replicate_indices(en.seed, en.n_items, 0, 5), replicate_indices(es.seed, es.n_items, 0, 5)
    )


@pytest.mark.slow  # the plain loop over every test set; fast representative: test_gain_and_gap_equal_a_plain_loop
def test_aggregate_ranks_and_rank_intervals_equal_a_plain_loop(result):
    names = list(result.systems)
    gains = {}
    for ts in result.test_sets:
        systems, b_full, b_reps = _loop_scores(
            ts.task.name, ts.task.language, tuple(names), "value" if ts.task.name == "diabetes" else "label"
        )
        sign = ts.metric.sign
        r = 1.0 if (sign > 0 and b_full < 1.0) else 0.0
        gains[ts.label] = {
            n: (100 * sign * (f - b_full) / abs(b_full - r), 100 * sign * (reps - b_reps) / np.abs(b_reps - r))
            for n, (f, reps) in systems.items()
        }
    full = np.array([[gains[label][n][0] for label in gains] for n in names]).mean(axis=1)
    reps = np.array([[gains[label][n][1] for label in gains] for n in names]).mean(axis=1)  # (m, B)
    agg = result.aggregates[result.aggregates.scope == "all"].set_index("system")
    np.testing.assert_allclose(agg.loc[names, "value"], full, rtol=1e-12)
    np.testing.assert_allclose(agg.loc[names, "ci_low"], np.percentile(reps, 2.5, axis=1), rtol=1e-12)
    rank_of = {n: 1 + int(np.sum(full > full[i])) for i, n in enumerate(names)}
    assert {n: int(agg.loc[n, "rank"]) for n in names} == rank_of
    best = reps == reps.max(axis=0)  # (m, B): tied firsts share the replicate
    first = (best / best.sum(axis=0)).mean(axis=1)
    ranks = result.rank_intervals[result.rank_intervals.scope == "all"].set_index("system")
    np.testing.assert_allclose(ranks.loc[names, "p_first"], first, rtol=0, atol=1e-12)
    rep_ranks = 1 + (reps[None, :, :] > reps[:, None, :]).sum(axis=1)  # (m, B)
    for scope, frame in result.rank_intervals.groupby("scope"):  # a probability over systems in every scope
        assert frame["p_first"].sum() == pytest.approx(1.0, abs=1e-12), scope
    for i, n in enumerate(names):
        ordered = np.sort(rep_ranks[i])
        assert ranks.loc[n, "rank_pct_low"] == ordered[int(np.floor(0.025 * (B - 1)))]
        assert ranks.loc[n, "rank_pct_high"] == ordered[int(np.ceil(0.975 * (B - 1)))]


def test_friedman_and_nemenyi_equal_the_reference_packages(result):
    from scipy.stats import friedmanchisquare

    autorank = pytest.importorskip("autorank")

    cd = result.critical_difference
    names = cd["systems"]
    table = pd.DataFrame(
        {
            n: [
                float(
                    result.gains[
                        (result.gains.system == n)
                        & (result.gains.task == ts.task.name)
                        & (result.gains.language == ts.task.language)
                    ]["gain"].iloc[0]
                )
                for ts in result.test_sets
            ]
            for n in names
        }
    )
    stat, p = friedmanchisquare(*[table[n] for n in names])
    assert cd["friedman_statistic"] == pytest.approx(stat, rel=1e-12)
    assert cd["friedman_p"] == pytest.approx(p, rel=1e-12)
    ranked = table.rank(axis=1, ascending=False).mean(axis=0)
    np.testing.assert_allclose(cd["average_ranks"], ranked[names].to_numpy(), rtol=1e-12)
    reference = autorank._util._critical_distance(0.05, len(names), len(table))
    assert cd["cd"] == pytest.approx(reference, rel=2e-3)  # autorank's qsturng is an approximation


def test_report_files(result, tmp_path):
    written = result.write(str(tmp_path))
    for name in (
        "benchmark.json",
        "benchmark.html",
        "tables.md",
        "tables.tex",
        "scores.csv",
        "gaps.csv",
        "aggregates.csv",
        "rank_intervals.csv",
        "figures/critical_difference.png",
        "figures/ranks_all.png",
    ):
        assert name in written, name
    data = json.loads(open(written["benchmark.json"], encoding="utf-8").read())
    assert data["aggregate_of"] == "gain" and len(data["test_sets"]) == 8
    html = open(written["benchmark.html"], encoding="utf-8").read()
    assert "Results per task in en" in html and "Results per task in es" in html and "Gap between languages" in html
    assert "http://" not in html and "https://" not in html
    md = open(written["tables.md"], encoding="utf-8").read()
    assert md.count("**Results per task in") == 2


def test_degenerate_intervals_are_noted(result):
    """Every zero-width score interval (e.g. wine-es: no errors) is named in a note; none is invented."""
    found = 0
    for ts in result.test_sets:
        rows = result.scores[
            (result.scores.task == ts.task.name) & (result.scores.language.astype(str) == str(ts.task.language))
        ]
        zero = sorted(rows.system[rows.ci_low == rows.ci_high])
        prefix = "%s: " % ts.label
        notes = [n for n in result.notes if n.startswith(prefix) and "zero-width %s interval" % ts.metric.title in n]
        if zero:
            found += 1
            assert len(notes) == 1 and "not certainty" in notes[0]
            listed = notes[0].split(" interval (")[1].split(")")[0].split(", ")
            assert sorted(listed) == zero
            assert "among %d items" % ts.n_items in notes[0]
        else:
            assert notes == []
    assert found >= 1
