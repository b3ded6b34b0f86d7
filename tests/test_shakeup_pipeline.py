"""The shake-up end to end in memory (phase/shakeup/api.py -> pipeline -> analysis), both input modes.

* each participant's public and private score and interval equal the end-of-phase analysis of that
  set alone (``analyze``), hence the leaderboard's, and its rank sets are ``core.simultaneous.rank_sets``
  of those replicates;
* a participant whose public run fixes public items it could not have known is flagged, and the best
  public run is the one picked;
* the block size, the threads and Dask change no number (the same bytes of ``shakeup.json``);
* the same seed gives the same bytes, and two phases give what one split reference gives when the
  parts are the same items;
* bad inputs: one sentence each.
"""

import json

import numpy as np
import pandas as pd
import pytest

from leaderboard_ci.core.simultaneous import rank_sets
from leaderboard_ci.phase.analysis import analyze
from leaderboard_ci.phase.execution.runs import Execution
from leaderboard_ci.phase.shakeup import shakeup
from leaderboard_ci.scoring.errors import ConfigError

B = 300


def _competition(seed=0, n=600, m=6):
    """Gold, a split, and each participant's runs (oldest first); ``cheat`` fixes public items."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 3, n)
    split = np.where(rng.random(n) < 0.4, "public", "private")
    runs = {}
    for p in range(m):
        acc = 0.55 + 0.06 * p
        runs["team_%d" % p] = [
            np.where(rng.random(n) < acc, gold, (gold + rng.integers(1, 3, n)) % 3).tolist() for _ in range(1 + p % 3)
        ]
    base = np.where(rng.random(n) < 0.7, gold, (gold + 1) % 3)
    cheat = base.copy()
    fix = (split == "public") & (rng.random(n) < 0.6)
    cheat[fix] = gold[fix]
    runs["cheat"] = [base.tolist(), cheat.tolist()]
    return gold.tolist(), split.tolist(), runs


@pytest.fixture(scope="module")
def split_result():
    gold, split, runs = _competition()
    return shakeup(gold, runs, split=split, metric="accuracy", n_resamples=B, seed=11), (gold, split, runs)


def test_scores_and_intervals_equal_the_analysis_of_each_set_alone(split_result):
    result, (gold, split, runs) = split_result
    frame = result.participants.set_index("participant")
    parts = np.array(split)
    for side in ("public", "private"):
        items = np.flatnonzero(parts == side)
        chosen = {}
        for name, subs in runs.items():
            run = frame.loc[name, "public_run"]
            chosen[name] = [subs[int(run.rsplit("(", 1)[1].rstrip(")")) - 1][i] for i in items]
        alone = analyze([gold[i] for i in items], chosen, metric="accuracy", n_resamples=B, seed=11)
        systems = alone.official.systems.set_index("name")
        for name in runs:
            assert frame.loc[name, side] == systems.loc[name, "score"]
            assert frame.loc[name, side + "_low"] == systems.loc[name, "ci_low"]
            assert frame.loc[name, side + "_high"] == systems.loc[name, "ci_high"]
    # ranks and rank sets: core.simultaneous.rank_sets of the same replicates
    for scores, side in ((result.public, "public"), (result.private, "private")):
        sets = rank_sets(scores.replicates, scores.full, 1.0, 0.05)
        by_name = dict(zip(scores.names, zip(sets.rank, sets.low, sets.high, sets.low_marginal, sets.high_marginal)))
        for row in result.participants.itertuples(index=False):
            expected = by_name[row.participant]
            got = tuple(getattr(row, "%s_%s" % (side, c)) for c in ("rank", "rank_set_low", "rank_set_high"))
            assert got == expected[:3]
            assert getattr(row, side + "_rank_set_marginal_low") == expected[3]


def test_the_overfitted_participant_is_flagged_and_its_best_public_run_picked(split_result):
    result, _ = split_result
    row = result.participants.set_index("participant").loc["cheat"]
    assert row["public_run"] == "cheat (2)" and row["private_run"] == "cheat (2)"
    assert row["flagged"] and row["direction"] == "worse on private" and row["gap_high"] < 0
    assert row["submissions"] == 2 and row["scored"] == 2
    assert result.mode == "split" and result.public.n_items + result.private.n_items == 600
    # private rank order, then the public one
    assert list(result.participants["private_rank"]) == sorted(result.participants["private_rank"])


def test_block_size_threads_and_runs_change_nothing(split_result):
    result, (gold, split, runs) = split_result
    reference = result.to_json()
    for execution, block in ((Execution(n_jobs=1), 1), (Execution(n_jobs=2), 3)):
        other = shakeup(
            gold, runs, split=split, metric="accuracy", n_resamples=B, seed=11, execution=execution, block_size=block
        )
        assert other.to_json() == reference


def test_two_phases_on_the_same_items_give_the_split_numbers(split_result):
    result, (gold, split, runs) = split_result
    parts = np.array(split)
    pub, priv = np.flatnonzero(parts == "public"), np.flatnonzero(parts == "private")
    public_runs = {k: [[s[i] for i in pub] for s in v] for k, v in runs.items()}
    frame = result.participants.set_index("participant")
    private_runs = {}
    for name, subs in runs.items():
        k = int(frame.loc[name, "public_run"].rsplit("(", 1)[1].rstrip(")")) - 1
        private_runs[name] = [subs[k][i] for i in priv]
    phases = shakeup(
        [gold[i] for i in pub],
        public_runs,
        [gold[i] for i in priv],
        private_runs,
        metric="accuracy",
        n_resamples=B,
        seed=11,
    )
    a = phases.participants.drop(columns=["private_run"])
    b = result.participants.drop(columns=["private_run"])
    pd.testing.assert_frame_equal(a, b)
    assert phases.mode == "phases"
    assert json.loads(phases.to_json())["competition"] == json.loads(result.to_json())["competition"]


@pytest.mark.slow  # a LocalCluster takes seconds to start; test_execution.py runs Dask in the default selection
def test_dask_gives_the_same_bytes(split_result):
    pytest.importorskip("distributed")
    result, (gold, split, runs) = split_result
    spread = shakeup(
        gold,
        runs,
        split=split,
        metric="accuracy",
        n_resamples=B,
        seed=11,
        execution=Execution(dask="local", workers=2),
        block_size=4,
    )
    assert spread.to_json() == result.to_json()


def test_a_lower_is_better_metric_flags_a_larger_private_error():
    rng = np.random.default_rng(4)
    n = 500
    y = rng.normal(0, 1, n)
    split = np.where(rng.random(n) < 0.5, "public", "private")
    runs = {"p%d" % k: (y + rng.normal(0, 0.5 + 0.1 * k, n)).tolist() for k in range(5)}
    tuned = y + rng.normal(0, 0.8, n)
    tuned[split == "public"] = y[split == "public"] + rng.normal(0, 0.1, (split == "public").sum())
    runs["tuned"] = tuned.tolist()
    result = shakeup(y.tolist(), runs, split=split.tolist(), metric="mae", n_resamples=B)
    row = result.participants.set_index("participant").loc["tuned"]
    assert row["gap"] > 0 and row["flagged"] and row["direction"] == "worse on private"
    assert result.winners_curse.corrected >= result.winners_curse.score  # lower is better: corrected upwards


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"split": ["public"] * 10}, "split has 10 values"),
        ({"split": "private"}, "split has"),
        ({}, "give private_gold and private_runs"),
        ({"split": None, "private_gold": [0, 1], "private_runs": None}, "give private_gold and private_runs"),
    ],
)
def test_bad_arguments_are_one_sentence(kwargs, message):
    gold, split, runs = _competition(n=60, m=2)
    with pytest.raises(ValueError, match=message):
        shakeup(gold, runs, metric="accuracy", n_resamples=50, **kwargs)


def test_bca_is_refused_with_the_alternatives():
    gold, split, runs = _competition(n=60, m=2)
    with pytest.raises(ConfigError, match="percentile, basic or normal"):
        shakeup(gold, runs, split=split, metric="accuracy", n_resamples=50, method="bca")


def test_the_pick_of_a_participants_run():
    """best: the highest score, ties to the latest; last: the latest by day then id; listed: the names map's."""
    from leaderboard_ci.phase.analysis.blocks import SystemSource
    from leaderboard_ci.phase.ingestion.discovery import SubmissionEntry
    from leaderboard_ci.phase.shakeup.scoring import choose

    def run(name, day, number, renamed=False):
        entry = SubmissionEntry(
            name, "alice", str(number), "1", "2026-03-%02d_10-00" % day, name, "/x", "codabench", renamed=renamed
        )
        return SystemSource(name, entry=entry)

    runs = [run("a", 2, 30), run("b", 1, 40), run("c", 2, 31, renamed=True)]
    assert choose(runs, [0.7, 0.9, 0.9], "best", 1.0, "alice") == 2  # tie of b and c: c is the latest (day 2)
    assert choose(runs, [0.7, 0.9, 0.9], "best", -1.0, "alice") == 0  # lower is better
    assert choose(runs, [0.7, float("nan"), 0.6], "best", 1.0, "alice") == 0  # a failed score never wins
    assert choose(runs, [0.7, 0.9, 0.9], "last", 1.0, "alice") == 2  # day 2, id 31 after id 30
    assert choose(runs, [0.7, 0.9, 0.9], "listed", 1.0, "alice") == 2
    assert choose(runs[:2], [0.7, 0.9], "listed", 1.0, "alice") is None
    with pytest.raises(ConfigError, match="lists 2 runs of alice"):
        choose(runs + [run("d", 3, 50, renamed=True)], [0.1] * 4, "listed", 1.0, "alice")


def _without_optimism(frame):
    return frame.drop(columns=["best_of_k_bias", "best_of_k_shrinkage"])


def test_the_optimism_on_fewer_replicates_is_the_optimism_of_those_replicates(split_result):
    """Two passes (issue 35): the optimism on the first 100 of B = 300 replicates, every other number on all 300.

    The first 100 replicates are the leaderboard's first 100, so the optimism equals that of a
    shake-up at B = 100 on all of its replicates; the picked runs, scores, intervals, ranks and
    gaps equal the one-pass shake-up at B = 300.  Blocks and threads change no byte.
    """
    result, (gold, split, runs) = split_result
    fewer = shakeup(gold, runs, split=split, metric="accuracy", n_resamples=B, seed=11, bias_resamples=100)
    pd.testing.assert_frame_equal(_without_optimism(fewer.participants), _without_optimism(result.participants))
    short = shakeup(gold, runs, split=split, metric="accuracy", n_resamples=100, seed=11, bias_resamples=None)
    for column in ("best_of_k_bias", "best_of_k_shrinkage"):
        np.testing.assert_array_equal(fewer.participants[column].values, short.participants[column].values)
    assert fewer.settings["best_of_k_resamples"] == 100 and result.settings["best_of_k_resamples"] == B
    spread = shakeup(
        gold,
        runs,
        split=split,
        metric="accuracy",
        n_resamples=B,
        seed=11,
        bias_resamples=100,
        block_size=1,
        execution=Execution(n_jobs=2),
    )
    assert spread.to_json() == fewer.to_json()


def test_two_phases_with_the_optimism_on_fewer_replicates():
    gold, split, runs = _competition(n=300, m=4)
    half = len(gold) // 2
    public = {k: [s[:half] for s in v] for k, v in runs.items()}
    private = {k: [v[-1][half:]] for k, v in runs.items()}
    args = (gold[:half], public, gold[half:], private)
    one = shakeup(*args, metric="accuracy", n_resamples=200, seed=3, bias_resamples=None)
    two = shakeup(*args, metric="accuracy", n_resamples=200, seed=3, bias_resamples=50)
    pd.testing.assert_frame_equal(_without_optimism(two.participants), _without_optimism(one.participants))
    short = shakeup(*args, metric="accuracy", n_resamples=50, seed=3, bias_resamples=None)
    np.testing.assert_array_equal(
        two.participants["best_of_k_bias"].values, short.participants["best_of_k_bias"].values
    )
    with pytest.raises(ConfigError, match="bias_resamples must be at least 2"):
        shakeup(*args, metric="accuracy", n_resamples=50, bias_resamples=1)
