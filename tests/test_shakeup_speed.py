"""The shake-up's speed cuts change no number (issue 35): code counts part by part, shared first-pass counts.

``_Stack`` sums :class:`CodeCounts` part by part (:class:`_CodeGroup`); the reference is the
one-hot product ``counts @ linear_matrix`` that it replaced, on random codes of every shape the
tasks build (a confusion matrix with groups, the reduced layout, unrelated codes, duplicates,
empty parts).  :class:`SharedCounts` lends one draw of a span's counts to several plans: the
scores equal a plan's own draw, and the span is drawn once.
"""

import numpy as np
import pytest

from leaderboard_ci.core.accumulators import CodeCounts
from leaderboard_ci.core.systems import SharedCounts, _Stack
from leaderboard_ci.phase.analysis.systems import build_plan
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.tasks.shared.scorer import GoldStandard


def _random_accumulators(rng, n):
    k, groups = int(rng.integers(1, 5)), int(rng.integers(1, 3))
    gold, g = rng.integers(0, k, n), rng.integers(0, groups, n)
    out = []
    for _ in range(int(rng.integers(1, 6))):
        pred = gold.copy() if rng.random() < 0.3 else rng.integers(0, k, n)
        out.append(CodeCounts(g * k * k + gold * k + pred, groups * k * k))  # the confusion layout
        if rng.random() < 0.5:  # the reduced layout: gold counts (the same for all) and predicted
            out.append(CodeCounts(g * k + gold, groups * k))
            out.append(CodeCounts(g * 2 * k + k * (gold == pred) + pred, groups * 2 * k))
        if rng.random() < 0.3:
            out.append(CodeCounts(rng.integers(0, 7, n), 7))
        if rng.random() < 0.2:
            out.append(out[0])
    return out


@pytest.mark.parametrize("seed", range(4))
def test_code_counts_part_by_part_equal_the_one_hot_product(seed):
    rng = np.random.default_rng(seed)
    for _ in range(40):
        n = int(rng.integers(1, 200))
        accumulators = _random_accumulators(rng, n)
        counts = rng.multinomial(n, np.full(n, 1.0 / n), size=int(rng.integers(1, 30)))
        for dtype in (np.float32, np.float64):
            stack = _Stack(accumulators, n, dtype)
            out = stack.outputs(counts.astype(dtype))
            for acc in accumulators:
                expected = acc.from_linear(counts.astype(dtype) @ acc.linear_matrix(dtype))
                assert out[id(acc)].dtype == np.int64
                np.testing.assert_array_equal(out[id(acc)], expected)


def _columns(group):
    """Product entries per replicate of a code group: sum over parts of items x columns."""
    return sum((stop - first) * matrix.shape[1] for first, stop, _, matrix in group.parts if matrix is not None)


def test_a_confusion_matrix_costs_k_minus_one_columns_per_system():
    rng = np.random.default_rng(5)
    gold = rng.integers(0, 3, 500)
    accumulators = [CodeCounts(gold * 3 + rng.integers(0, 3, 500), 9) for _ in range(4)]
    group = _Stack(accumulators, 500, np.float32).groups[9]
    assert len(group.parts) == 3
    assert sum(matrix.shape[1] for _, _, _, matrix in group.parts) == 3 * 4 * 2  # 3 gold classes x 4 systems x 2


def test_the_reduced_layout_costs_k_minus_one_columns_per_system_on_the_gold_parts():
    # K * correct + predicted takes K values on the items of one gold class: K - 1 columns
    # per system over those items (2K - 1 over all items with one part), the confusion's cost
    rng = np.random.default_rng(6)
    k, n, m = 4, 600, 5
    gold = rng.integers(0, k, n)
    accumulators = [CodeCounts(gold, k)]
    for _ in range(m):
        pred = rng.integers(0, k, n)
        accumulators.append(CodeCounts(k * (gold == pred) + pred, 2 * k))
    group = _Stack(accumulators, n, np.float32).groups[2 * k]
    assert len(group.parts) == k
    assert _columns(group) == n * m * (k - 1)
    alone = _Stack(accumulators[1:], n, np.float32).groups[2 * k]  # no shared gold counts: one part
    assert len(alone.parts) == 1 and _columns(alone) == n * m * (2 * k - 1)


def _plan(n=300, m=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    preds = [np.where(rng.random(n) < q, y, rng.integers(0, 3, n)) for q in np.linspace(0.5, 0.9, m)]
    cfg = parse_config({"metric": "f1_macro", "bootstrap": {"n_resamples": 200}})
    return build_plan(cfg, GoldStandard(values=y, labels=("a", "b", "c")), preds, ["s%d" % j for j in range(m)])


def test_shared_counts_give_the_plans_own_numbers_and_are_drawn_once():
    alone = _plan(seed=1).scores_for_span(0, 120)
    cache = SharedCounts()
    drawn = []
    original = cache.get

    def spy(key, draw):
        return original(key, lambda: drawn.append(key) or draw())

    cache.get = spy
    for _ in range(3):  # other systems, the same test set and seed: the same counts
        plan = _plan(seed=1)
        plan.counts_cache = cache
        assert plan.scores_for_span(0, 120).tobytes() == alone.tobytes()
    assert len(drawn) == len(set(drawn)) >= 1
    cache.clear()


def test_shared_counts_keep_at_most_their_bytes():
    cache = SharedCounts(max_bytes=100)
    cache.get("a", lambda: np.zeros(10))  # 80 bytes: kept
    cache.get("b", lambda: np.zeros(10))  # the first one goes
    assert list(cache._table) == ["b"]
    cache.get("c", lambda: np.zeros(20))  # too large: drawn, not kept
    assert list(cache._table) == ["b"]


def _rank_set_cases(seed, count):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        m, b = int(rng.integers(2, 30)), int(rng.choice([50, 400]))
        base = rng.normal(size=m) * rng.choice([0.01, 0.1, 1.0])
        reps = base + rng.normal(size=(b, 1)) * 0.05 + rng.normal(size=(b, m)) * rng.choice([0.002, 0.02, 0.1])
        full = base.copy()
        if rng.random() < 0.4:  # a tie, and a near-copy (its own transform: both systems make their own pass)
            j, k = rng.integers(0, m, 2)
            full[k] = full[j]
            reps[:, k] = reps[:, j] + rng.normal(size=b) * 1e-6
        if rng.random() < 0.3:  # many exact ties
            full, reps = np.round(full, 1), np.round(reps, 2)
        yield reps, full, float(rng.choice([1, -1])), float(rng.choice([0.05, 0.2])), int(rng.choice([1, 2]))


@pytest.mark.parametrize("seed", range(2))
def test_marginal_rank_sets_from_the_first_pass_maxima_equal_their_own_pass(seed, monkeypatch):
    from leaderboard_ci.core import simultaneous, system_maxima

    for reps, full, sign, alpha, jobs in _rank_set_cases(seed, 10):
        new = simultaneous.rank_sets(reps, full, sign, alpha, n_jobs=jobs, chunk_pairs=(7, 64)[seed])
        with monkeypatch.context() as patch:
            patch.setattr(system_maxima.SystemMaxima, "wanted", classmethod(lambda cls, m, count: False))
            old = simultaneous.rank_sets(reps, full, sign, alpha, n_jobs=jobs, chunk_pairs=(7, 64)[seed])
        for field in ("low", "high", "low_marginal", "high_marginal"):
            np.testing.assert_array_equal(getattr(new, field), getattr(old, field))


def test_system_maxima_merge_pairs_in_any_order():
    from leaderboard_ci.core.system_maxima import SystemMaxima

    rng = np.random.default_rng(3)
    d = rng.normal(size=(5, 4))
    a, b = np.array([2, 0, 2, 1, 0]), np.array([0, 3, 3, 3, 1])
    tie = np.array([False, True, False, False, False])
    maxima = SystemMaxima(4, 4, tie)
    maxima.add(0, a, b, d)
    for j in range(4):
        own = [d[r] for r in range(5) if a[r] == j] + [(-d[r] if tie[r] else d[r]) for r in range(5) if b[r] == j]
        np.testing.assert_array_equal(maxima.reverse[j], np.max([np.zeros(4)] + own, axis=0))
        np.testing.assert_array_equal(maxima.top[j], np.max([np.zeros(4)] + [np.abs(x) for x in own], axis=0))


def _classification_case(rng):
    """A classification gold (2-5 classes, sometimes groups and an absent class) and systems with copies and ties."""
    n, k = int(rng.integers(5, 120)), int(rng.integers(2, 6))
    y = rng.integers(0, k - (1 if k > 2 and rng.random() < 0.3 else 0), n)
    groups = None
    if rng.random() < 0.5:
        groups = dict(groups=rng.integers(0, 2, n), group_values=("g0", "g1"))
    gold = GoldStandard(values=y, labels=tuple("abcde"[:k]), **(groups or {}))
    preds = []
    for _ in range(int(rng.integers(2, 9))):
        roll = rng.random()
        if roll < 0.2 and preds:
            preds.append(preds[-1].copy())  # an exact copy
        elif roll < 0.3:
            preds.append(y.copy())  # perfect
        elif roll < 0.4:
            preds.append(np.zeros(n, dtype=np.intp))  # one class only
        else:
            preds.append(np.where(rng.random(n) < rng.random(), y, rng.integers(0, k, n)))
    return gold, preds


@pytest.mark.parametrize("layout", ["reduced", "confusion"])
def test_systems_scored_in_one_call_give_the_bytes_of_one_call_each(layout):
    from leaderboard_ci.core import systems
    from leaderboard_ci.tasks.shared.scorer import SystemScorer

    rng = np.random.default_rng(7 if layout == "reduced" else 8)
    cfg = parse_config(
        {
            "metric": "f1_macro",
            "extra_metrics": ["accuracy", "balanced_accuracy", "cohen_kappa", "mcc", "precision_macro"],
            "bootstrap": {"n_resamples": 60},
        }
    )
    for _ in range(12):
        gold, preds = _classification_case(rng)
        scorers = [SystemScorer(cfg.metrics, gold, p, layout=layout) for p in preds]
        plan = systems.PairedPlan(scorers, gold.n, 3, ["s%d" % j for j in range(len(preds))])
        assert len(plan._scoring) < len(preds)  # some systems are scored together
        batched_full, batched = plan.full_scores(), plan.scores_for_span(0, 60)
        plan._scoring = [[j] for j in range(len(preds))]
        assert plan.full_scores().tobytes() == batched_full.tobytes()
        assert plan.scores_for_span(0, 60).tobytes() == batched.tobytes()


def test_scorers_that_hold_their_own_data_are_scored_alone():
    from leaderboard_ci.core.systems import _scoring_batches

    class Own:
        def batch_key(self):
            return None

    class Shared:
        def batch_key(self):
            return "same"

    assert _scoring_batches([Own(), Shared(), Own(), Shared(), object()]) == [[0], [1, 3], [2], [4]]


@pytest.mark.parametrize("k, rows", [(2, 7), (37, 11), (500, 5), (3000, 2)])
def test_discordant_pairs_in_blocks_equal_the_count_of_every_pair(k, rows, monkeypatch):
    # blocks of 3 rows; k = 3000 takes the wide tree (its last node's count passes int16)
    from leaderboard_ci.phase.shakeup import rank_agreement

    monkeypatch.setattr(rank_agreement, "DISCORDANT_ROWS", 3)
    rng = np.random.default_rng(k)
    y = rng.integers(0, max(2, k // 3), size=(rows, k)).astype(float)  # many ties
    y[0] = np.arange(k)[::-1]  # every pair discordant
    ranks = rank_agreement._dense_ranks(y)
    naive = [int(np.sum(np.triu(row[:, None] > row[None, :], 1))) for row in ranks]
    assert rank_agreement._discordant(ranks).tolist() == naive
    assert naive[0] == k * (k - 1) // 2


@pytest.mark.parametrize("jobs", [1, 2])
def test_replicates_from_a_later_start_are_those_rows_of_the_whole(jobs):
    # the shake-up's second pass scores the picked runs from replicate bias_rows on: the first pass has the rest
    from leaderboard_ci.core.systems import paired_scores

    plan = _plan(n=250, m=4, seed=3)
    whole = paired_scores(plan, 200, n_jobs=jobs)
    later = paired_scores(plan, 200, n_jobs=jobs, start=70)
    assert later.replicates.tobytes() == whole.replicates[70:].tobytes()
    assert later.full.tobytes() == whole.full.tobytes()
    with pytest.raises(ValueError, match="start must be a replicate number from 0 to 199"):
        paired_scores(plan, 200, start=200)
