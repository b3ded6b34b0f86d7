"""ICM-Soft's fast paths give the numbers of the plain ones (``tasks/soft_labels/icm_soft.py``).

* the end-of-phase batch (the gold's part of every replicate computed once for
  all systems, one product for all their columns) equals each system's own
  sums, and the report's intervals equal the per-submission program's;
* per-item coefficients (``_ClassPlan(gold, [(x, k_vector)], order)``, as a
  hierarchy's terms use) equal a plain loop over items;
* the order chosen per replicate is needed: a looser remainder bound fails the
  comparison with the direct path.

Timings are in ``benchmarks/task_icm.py``, not here.
"""

import math
import os

import numpy as np
import pytest

from leaderboard_ci.core.resampling import replicate_indices
from leaderboard_ci.tasks.shared.icm import ALPHA_1, ALPHA_2, BETA
from leaderboard_ci.tasks.soft_labels import icm_soft


def _data(seed, n, p_yes=0.3, systems=3):
    rng = np.random.RandomState(seed)
    votes = rng.binomial(6, p_yes, size=n) / 6.0
    gold = np.stack([votes, 1 - votes], axis=1)
    out = []
    for s in range(systems):
        yes = np.clip(votes + rng.normal(0, 0.1 + 0.1 * s, n), 0, 1)
        yes[rng.rand(n) < 0.05] = 1.0  # far tails (direct path) and repeated values
        yes[rng.rand(n) < 0.05] = 0.0  # zero weights (IC 0)
        out.append(np.stack([yes, 1 - yes], axis=1))
    return gold, out


def _weights(n, count, seed=5):
    return np.array([np.bincount(row, minlength=n) for row in replicate_indices(seed, n, 0, count)], dtype=float)


def _information(x, mu, sigma, total):
    """PyEvALL's IC of one weight, with math.erf (its tail probability rounding to 0 gives log2 N)."""
    if x == 0:
        return 0.0
    if sigma == 0:
        prob = 0.0 if x > mu else (1.0 if x < mu else 0.5)
    else:
        prob = 1.0 - 0.5 * (1.0 + math.erf((x - mu) / (sigma * math.sqrt(2.0))))
    return -math.log2(prob) if prob > 0 else math.log2(total)


def _naive(gold, predicted, weights, coefficients):
    """``sum_i w_i ICM_i`` per replicate by a loop over classes and items (PyEvALL's definition, scalar IC)."""
    out = []
    for w in weights:
        total = math.fsum(w.tolist())
        value = []
        for c in range(gold.shape[1]):
            g, p = gold[:, c].tolist(), predicted[:, c].tolist()
            mu = math.fsum(wi * gi for wi, gi in zip(w.tolist(), g)) / total
            sigma = math.fsum(wi * abs(gi - mu) for wi, gi in zip(w.tolist(), g)) / total
            for i in np.flatnonzero(w):
                terms = (
                    coefficients[c][i] * _information(p[i], mu, sigma, total)
                    + ALPHA_2 * _information(g[i], mu, sigma, total)
                    - BETA * _information(max(g[i], p[i]), mu, sigma, total)
                )
                value.append(w[i] * terms)
        out.append(math.fsum(value))
    return np.array(out)


def test_batch_equals_each_system():
    """Three systems on one gold: the batch's sums are each system's own, bit for bit (expansion and direct)."""
    n = 3000
    gold, systems = _data(1, n)
    weights = _weights(n, 48)
    softs = [icm_soft.SoftICM(gold, p) for p in systems]
    batch = icm_soft.SoftICMBatch(softs)
    state = icm_soft._GoldState(softs[0].golds, weights)
    assert (state.order > 0).any() and len(np.unique(state.order[state.order > 0])) > 1
    # some replicates take the wide product only, others the narrow one above their class's cut too
    orders = [state.class_orders[entry[0]] for entry in batch.stack.classes]
    cuts = [entry[2] for entry in batch.stack.classes]
    assert any((o > cut).any() and ((o > 0) & (o <= cut)).any() for o, cut in zip(orders, cuts))
    for own, shared in zip([s.sums(weights) for s in softs], batch.sums(weights)):
        for a, b in zip(own, shared):
            np.testing.assert_array_equal(a, b)


def test_a_rare_class_multiplies_only_its_items_and_changes_no_bit(monkeypatch):
    """A class whose columns are 0 on most items (its weight 0 there) takes the sparse product (its items gathered
    with the tails', the narrow product of its rows over them): the same bits as every item in the wide product."""
    n = 3000
    rng = np.random.RandomState(3)
    gold, systems = _data(2, n)
    rare = np.where(rng.rand(n) < 0.2, rng.binomial(6, 0.3, n) / 6.0, 0.0)
    gold = np.concatenate([gold, rare[:, None]], axis=1)
    systems = [
        np.concatenate([p, np.where(rare > 0, np.clip(rare + rng.normal(0, 0.1, n), 0, 1), 0)[:, None]], 1)
        for p in systems[:2]
    ]
    weights = _weights(n, 48)
    sparse = icm_soft.SoftICMBatch([icm_soft.SoftICM(gold, p) for p in systems])
    assert sparse.stack.items is not None and 0 < sparse.stack.items.size <= icm_soft.SPARSE * n
    state = icm_soft._GoldState(sparse.golds, weights)
    entry = [e for e in sparse.stack.classes if e[-1]][0]  # the rare class: some rows above its cut
    assert (state.class_orders[entry[0]] > entry[2]).any()
    monkeypatch.setattr(icm_soft, "SPARSE", -1.0)
    dense = icm_soft.SoftICMBatch([icm_soft.SoftICM(gold, p) for p in systems])
    assert dense.stack.items is None
    for a, b in zip(sparse.sums(weights), dense.sums(weights)):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
    own = icm_soft.SoftICM(gold, systems[0])
    for x, y in zip(own.sums(weights), sparse.sums(weights)[0]):
        np.testing.assert_array_equal(x, y)


def _phase_equals_the_leaderboard(monkeypatch, gold, named, labels, hierarchy, n_resamples, seed):
    """The end of phase batches the systems, and each gets the per-submission program's score and interval."""
    pytest.importorskip("pandas")
    from leaderboard_ci.phase import Execution, analyze
    from leaderboard_ci.scoring.config import parse_config
    from leaderboard_ci.scoring.evaluation import evaluate
    from leaderboard_ci.tasks.shared.base import GoldStandard
    from leaderboard_ci.tasks.soft_labels.settings import SoftLabelsSettings

    calls = []
    original = icm_soft.SoftICMBatch.sums
    monkeypatch.setattr(icm_soft.SoftICMBatch, "sums", lambda self, w: calls.append(1) or original(self, w))
    extra = {} if hierarchy is None else {"hierarchy": hierarchy}
    settings = SoftLabelsSettings.parse(extra)
    gold_std = GoldStandard(values=gold, labels=tuple(labels), task="soft_labels", settings=settings)
    report = analyze(
        gold_std,
        named,
        metric="icm_soft",
        labels=list(labels),
        task="soft_labels",
        n_resamples=n_resamples,
        seed=seed,
        execution=Execution(n_jobs=1),
    )
    rows = dict((row[0], row[1:]) for row in report.official.systems[["name", "score", "ci_low", "ci_high"]].to_numpy())
    config = dict(task="soft_labels", labels=list(labels), metric="icm_soft", **extra)
    config = parse_config(dict(config, bootstrap={"n_resamples": n_resamples, "seed": seed}))
    assert calls, "the phase did not batch the systems"
    for name, values in named.items():
        official = evaluate(config, gold_std, values).scores[0]
        assert list(rows[name]) == [official.score, official.interval.low, official.interval.high]


def test_phase_report_equals_the_leaderboard(monkeypatch):
    """The end-of-phase analysis (batched) gives each system the per-submission program's interval."""
    gold, systems = _data(2, 1500)
    named = dict(("s%d" % j, p) for j, p in enumerate(systems))
    _phase_equals_the_leaderboard(monkeypatch, gold, named, ("YES", "NO"), None, 120, 7)


def test_per_item_coefficients_equal_a_loop_over_items():
    """``_ClassPlan`` with one coefficient per item (a hierarchy's terms): the expansion, the direct path and a loop."""
    n = 2500
    gold, (predicted, _, _) = _data(3, n)
    rng = np.random.RandomState(4)
    coefficients = [rng.choice([0.0, 1.0, 2.0, 3.5], size=n) for _ in range(2)]
    weights = _weights(n, 12, seed=6)

    def system(order):
        golds = [icm_soft._GoldClass(gold[:, c], order) for c in range(2)]
        plans = [
            icm_soft._ClassPlan(
                gold[:, c],
                ((predicted[:, c], coefficients[c]), (np.maximum(gold[:, c], predicted[:, c]), -BETA)),
                order,
                golds[c],
            )
            for c in range(2)
        ]
        return icm_soft.SoftICM.from_plans(plans, n)

    fast, plain = system(icm_soft.ORDER), system(0)
    assert any(plan.order for plan in fast.plans)
    _, a, _ = fast.sums(weights)
    _, b, _ = plain.sums(weights)
    c = _naive(gold, predicted, weights, coefficients)
    assert np.max(np.abs(a - c)) / n <= 1e-10
    assert np.max(np.abs(b - c)) / n <= 1e-12
    # a constant per-item vector is the scalar coefficient, bit for bit
    scalar = icm_soft.SoftICM(gold, predicted).sums(weights)
    golds = [icm_soft._GoldClass(gold[:, j], icm_soft.ORDER) for j in range(2)]
    vector = icm_soft.SoftICM.from_plans(
        [
            icm_soft._ClassPlan(
                gold[:, j],
                ((predicted[:, j], np.full(n, ALPHA_1)), (np.maximum(gold[:, j], predicted[:, j]), np.full(n, -BETA))),
                icm_soft.ORDER,
                golds[j],
            )
            for j in range(2)
        ],
        n,
    ).sums(weights)
    for x, y in zip(scalar, vector):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("tolerance, holds", [(icm_soft.TOLERANCE, True), (1e-4, False)])
def test_the_order_bound_is_what_keeps_the_expansion_exact(monkeypatch, tolerance, holds):
    """With the documented bound every replicate is within 1e-10 bits per item of the direct path; with a
    looser one (lower orders) some replicate is not: the comparison can fail."""
    monkeypatch.setattr(icm_soft, "TOLERANCE", tolerance)
    n = 3000
    gold, (predicted, _, _) = _data(8, n)
    weights = _weights(n, 40, seed=9)
    fast = icm_soft.SoftICM(gold, predicted)
    plain = icm_soft.SoftICM(gold, predicted, order=0)
    state = icm_soft._GoldState(fast.golds, weights)
    assert (state.order > 0).sum() >= 20
    error = np.max(np.abs(fast.sums(weights)[1] - plain.sums(weights)[1])) / n
    assert (error <= 1e-10) == holds, error


def test_phase_report_equals_the_leaderboard_over_a_hierarchy(monkeypatch):
    """ICM-Soft over a label tree: the systems share one batch and each gets the per-submission interval."""
    labels = ("NO", "DIRECT", "REPORTED", "JUDGEMENTAL")
    tree = {"DIRECT": "YES", "REPORTED": "YES", "JUDGEMENTAL": "YES"}
    n = 900
    rng = np.random.RandomState(11)
    gold = rng.multinomial(6, [0.5, 0.2, 0.2, 0.1], size=n) / 6.0
    named = {}
    for s in range(3):
        noisy = np.clip(gold + rng.normal(0, 0.1 + 0.1 * s, gold.shape), 0, 1)
        noisy[rng.rand(*gold.shape) < 0.1] = 0.0
        named["s%d" % s] = noisy
    _phase_equals_the_leaderboard(monkeypatch, gold, named, labels, tree, 60, 3)


def test_the_grid_information_is_the_plain_one_bit_for_bit():
    """The direct path's ``(replicates, weights)`` grid (erfc's series alone on (3, 6)) equals ``information``
    elementwise on every range of z: below -6, (-6, -3], (-3, 3], (3, 6), from 6 on, and sigma = 0."""
    rng = np.random.RandomState(0)
    x = np.r_[rng.uniform(0, 1, 3000), 0.3, 0.5]
    mu = np.r_[rng.uniform(0, 0.6, 60), 0.3]
    sigma = np.r_[rng.uniform(0.001, 0.3, 60), 0.05]
    log_total = rng.uniform(5, 14, 61)
    z = (x[None, :] - mu[:, None]) / (sigma[:, None] * math.sqrt(2.0))
    for low, high in ((-np.inf, -6), (-6, -3), (-3, 3), (3, 6), (6, np.inf)):
        assert ((z > low) & (z < high)).sum() > 1000
    for s in (sigma, np.r_[sigma[:-1], 0.0]):
        grid = icm_soft._row_information(x, mu, s, log_total)
        plain = icm_soft.information(x[None, :], mu[:, None], s[:, None], log_total[:, None])
        np.testing.assert_array_equal(grid, plain)


def test_the_grid_computes_only_the_needed_cells_and_keeps_the_others_finite():
    """``_row_information(..., needed)`` equals ``information`` on the needed cells (every range of z) and holds
    finite values elsewhere, so a group of weight 0 adds a signed zero: the direct sums keep every bit."""
    rng = np.random.RandomState(1)
    x = np.r_[rng.uniform(0, 1, 2000), 0.3]
    mu, sigma = rng.uniform(0, 0.6, 40), rng.uniform(0.001, 0.3, 40)
    log_total = rng.uniform(5, 14, 40)
    needed = rng.rand(40, x.size) < 0.6
    grid = icm_soft._row_information(x, mu, sigma, log_total, needed)
    plain = icm_soft.information(x[None, :], mu[:, None], sigma[:, None], log_total[:, None])
    np.testing.assert_array_equal(grid[needed], plain[needed])
    assert np.isfinite(grid).all() and not np.array_equal(grid, plain)
    n = 600
    values = np.round(rng.uniform(0, 1, n), 3)
    groups = icm_soft._groups(
        [(values, np.full(n, ALPHA_1)), (np.maximum(values, 0.5), np.full(n, -BETA))], lambda v: v != 0
    )
    weights = _weights(n, 24)  # multinomial counts: a third of the cells weigh 0
    mu, sigma, log_total = mu[:24] * 0.5 + 0.2, sigma[:24] * 0.3 + 0.02, np.full(24, math.log2(n))
    fast = groups.sums(weights, None, mu, sigma, log_total)
    chosen = weights[:, groups.items] * groups.coefficients[None, :]
    grouped = np.add.reduceat(chosen, groups.starts, axis=1)
    terms = grouped * icm_soft.information(groups.x[None, :], mu[:, None], sigma[:, None], log_total[:, None])
    plain = np.zeros(24)
    for v in range(terms.shape[1]):  # group by group, left to right
        plain = plain + terms[:, v]
    np.testing.assert_array_equal(fast.view(np.int64), (plain + 0.0).view(np.int64))


# ---------------------------------------------------------------------------
# The per-submission path's other speed-ups (issue 31): the same numbers as the plain code
# ---------------------------------------------------------------------------
def test_the_series_gathers_each_centre_once_and_keeps_every_bit():
    """``_horner`` (one gather of a centre's coefficients) equals the plain loop taking each coefficient apart."""
    rng = np.random.RandomState(3)
    for function, start in ((math.erf, 0.0), (math.erfc, icm_soft._TAIL_FROM)):
        x = rng.uniform(start, icm_soft._LIMIT, 20000)
        fast = icm_soft._horner(x, function, start)
        centres, table = icm_soft._TABLES[function]
        j = np.rint((x - start) / icm_soft._STEP).astype(np.intp)
        h = x - centres[j]
        plain = table[icm_soft._DEGREE].take(j)
        for k in range(icm_soft._DEGREE - 1, -1, -1):
            plain = plain * h + table[k].take(j) if k else table[0].take(j) + plain * h
        np.testing.assert_array_equal(fast.view(np.int64), plain.view(np.int64))


def test_a_groups_sums_of_some_rows_are_those_rows_of_every_rows_sums():
    """``_Groups.sums`` over a subset of rows (many: a column take, rows picked after; few: rows gathered
    first) equals the same rows of the sums over every row, bit for bit."""
    rng = np.random.RandomState(4)
    n = 400
    x = np.round(rng.uniform(0, 1, n), 2)
    groups = icm_soft._groups([(x, np.full(n, ALPHA_1)), (np.maximum(x, 0.4), np.full(n, -BETA))], lambda v: v != 0)
    weights = _weights(n, 40)
    mu, sigma, log_total = rng.uniform(0.2, 0.5, 40), rng.uniform(0.05, 0.2, 40), np.full(40, math.log2(n))
    every = groups.sums(weights, None, mu, sigma, log_total)
    for rows in (np.arange(0, 40, 2)[:3], np.arange(0, 40, 2), np.flatnonzero(rng.rand(40) < 0.8)):
        some = groups.sums(weights, rows, mu[rows], sigma[rows], log_total[rows])
        np.testing.assert_array_equal(some, every[rows])


def test_counts_per_row_equal_one_bincount_over_the_block():
    """``counts_from_indices`` (one bincount per row) equals the block's single bincount with row offsets."""
    from leaderboard_ci.core.resampling import counts_from_indices

    n = 300
    indices = replicate_indices(11, n, 0, 37)
    plain = np.bincount((indices + np.arange(37)[:, None] * n).ravel(), minlength=37 * n).reshape(37, n)
    for dtype in (np.float64, None, np.int32):
        counts = counts_from_indices(indices, n, dtype=dtype)
        assert counts.dtype == (np.intp if dtype is None else dtype)
        np.testing.assert_array_equal(counts, plain)
    assert counts_from_indices(indices[:0], n).shape == (0, n)


def test_a_one_line_list_reads_as_the_same_list_over_many_lines():
    """A minified JSON list (decoded at once) gives the members of the same list written one record a line;
    a broken one-line list still gets the member-by-member error naming line 1."""
    import json

    from leaderboard_ci.scoring.errors import SubmissionError
    from leaderboard_ci.scoring.text_files import Source
    from leaderboard_ci.tasks.shared import json_documents

    records = [
        {"test_case": "EXIST2023", "id": str(i), "value": {"NO": 0.25 * (i % 5), "YES": 2**70}} for i in range(9)
    ]
    source = Source("run.json", "run.json")
    one = json.dumps(records)
    many = "[\n" + ",\n".join(json.dumps(r) for r in records) + "\n]\n"

    def read(text):
        return list(json_documents.members(source, text, "records", allow_list=True))

    assert [v for _, _, v in read(one)] == [v for _, _, v in read(many)] == records
    assert [line for line, _, _ in read(one)] == [1] * 9
    assert [line for line, _, _ in read(many)] == list(range(2, 11))
    for broken, message in (
        (one[:-1], "expected ',' or ']'"),
        (one + " []", "extra data"),
        ("[1, 2,]", "not valid JSON"),
    ):
        with pytest.raises(SubmissionError, match="run.json line 1: .*%s" % message):
            read(broken)


def test_a_config_naming_its_task_imports_no_other_task_type():
    """Start-up: reading a soft-label config (with the task's own keys) imports the soft-label task alone."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from leaderboard_ci.scoring.config import parse_config\n"
        "parse_config({'task': 'soft_labels', 'labels': ['YES', 'NO'], 'hierarchy': {'YES': 'ALL'},"
        " 'metric': 'icm_soft_norm', 'extra_metrics': []})\n"
        "print(sorted(set(m.split('.')[2] for m in sys.modules if m.startswith('leaderboard_ci.tasks.')"
        " and m.count('.') >= 2)))\n"
    )
    import leaderboard_ci

    root = os.path.dirname(os.path.dirname(leaderboard_ci.__file__))
    done = subprocess.run([sys.executable, "-c", code], cwd=root, stdout=subprocess.PIPE, universal_newlines=True)
    tasks = eval(done.stdout.strip())
    assert "soft_labels" in tasks
    assert not set(tasks) & {"classification", "generation", "detection", "forecasting", "segmentation", "ranking"}


def test_gold_term_columns_equal_to_value_columns_are_multiplied_once(monkeypatch):
    """A hierarchy node's gold terms that repeat its distinct-value columns (or each other) are not appended again:
    fewer product columns, and the moments and ``sum w IC(G)`` of every replicate bit for bit those of the plain
    concatenation."""
    rng = np.random.RandomState(6)
    n = 500
    gold = rng.randint(0, 4, n) / 3.0
    values = np.unique(gold)
    onehot = (gold[:, None] == values[None, :]).astype(float)
    own = rng.randint(-3, 2, (n, 1)).astype(float)  # a term column of its own
    terms = (np.r_[values[1:], 0.4, 0.9], np.concatenate([onehot[:, 1:], own, onehot[:, 2:3]], axis=1))
    weights = _weights(n, 30)
    total = weights.sum(axis=1)
    shared = icm_soft._GoldClass(gold, icm_soft.ORDER, gold_terms=terms)
    assert shared.onehot.shape[1] == values.size + 1
    monkeypatch.setattr(
        icm_soft, "_with_columns", lambda a, b: (np.concatenate([a, b], axis=1), a.shape[1] + np.arange(b.shape[1]))
    )
    plain = icm_soft._GoldClass(gold, icm_soft.ORDER, gold_terms=terms)
    assert plain.onehot.shape[1] == values.size + 5
    for ours, theirs in zip(
        shared.moments(weights @ shared.onehot, total), plain.moments(weights @ plain.onehot, total)
    ):
        np.testing.assert_array_equal(ours, theirs)


def test_scaling_by_powers_of_two_is_ldexp_bit_for_bit():
    """``_scaled`` (a multiplication by ``2**e``) equals ``np.ldexp`` on ordinary, subnormal and extreme exponents."""
    rng = np.random.RandomState(8)
    values = rng.normal(size=(50, 6)) * np.array([1.0, 1e-300, 1e300, 3.0, 1e-310, 0.0])
    for exponents in ([0, -40, -40, 52, -1022, 1023], [5, -1030, 2, 1, 0, 3], [0, 0, -9, 0, 0, 1024], [-60] * 6):
        exponents = np.array(exponents, dtype=np.int64)
        ours = icm_soft._scaled(values, exponents)
        np.testing.assert_array_equal(ours.view(np.int64), np.ldexp(values, exponents[None, :]).view(np.int64))


def test_unique_rows_by_one_code_equal_numpys_unique_rows():
    """The tree's weight patterns found by one int64 code per row equal ``np.unique(axis=0)``: rows, first items,
    inverse (and rows it cannot code, negative or too wide, go to numpy itself)."""
    from leaderboard_ci.tasks.soft_labels.icm_soft_tree import _unique_rows

    rng = np.random.RandomState(9)
    for keys in (
        rng.randint(0, 4, (3000, 12)),
        rng.randint(0, 2, (500, 3)),
        np.zeros((7, 6), dtype=np.int64),
        rng.randint(-2, 3, (300, 4)),
        rng.randint(0, 2**20, (300, 5)),
    ):
        keys = keys.astype(np.int64)
        ours = _unique_rows(keys)
        rows, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
        for a, b in zip(ours, (rows, first, np.asarray(inverse).reshape(-1))):
            np.testing.assert_array_equal(a, b)


def test_the_expansion_in_one_pass_equals_the_loop_over_orders():
    """``_expanded`` (every ``(k, j)`` column at once, added left to right) equals the loop adding one term at a
    time, bit for bit, with rows of different orders (the terms above a row's order multiplied by 0)."""
    rng = np.random.RandomState(10)
    rows, top = 40, 7
    levels = [rng.normal(size=rows)] + [rng.normal(size=(rows, k + 1)) * 10.0**-k for k in range(1, top + 1)]
    a, c = rng.uniform(-0.2, 0.2, rows), rng.uniform(-0.2, 0.2, rows)
    orders = rng.randint(3, top + 1, rows)
    pa, pc = [np.ones_like(a)], [np.ones_like(c)]
    for _ in range(top):
        pa.append(pa[-1] * a)
        pc.append(pc[-1] * c)
    plain = levels[0].copy()
    for k in range(1, top + 1):
        keep = np.where(orders >= k, 1.0, 0.0)
        for j in range(k + 1):
            plain += levels[k][:, j] * (pa[j] * pc[k - j] * keep)
    np.testing.assert_array_equal(icm_soft._expanded(levels, a, c, orders).view(np.int64), plain.view(np.int64))
    np.testing.assert_array_equal(icm_soft._expanded(levels[:1], a, c, orders), levels[0])


def _loop_orders(gold, mu, sigma):
    """The order per replicate by the plain loop over orders (the smallest whose Lagrange bound holds)."""
    safe_sigma = np.where(sigma > 0, sigma, 1.0)
    a, c = gold.sigma0 / safe_sigma - 1.0, (gold.mu0 - mu) / safe_sigma
    out = np.zeros(mu.shape, dtype=np.intp)
    for r in range(mu.size):
        shift = abs(a[r]) * gold.reach + abs(c[r])
        if not (sigma[r] > 0 and np.isfinite(a[r]) and np.isfinite(c[r]) and shift <= icm_soft.MAX_SHIFT):
            continue
        power = 1.0
        for _ in range(icm_soft.MIN_ORDER + 1):
            power *= shift
        for k in range(icm_soft.MIN_ORDER, gold.order + 1):
            if gold.bounds[k + 1] * power <= icm_soft.TOLERANCE:
                out[r] = k
                break
            power *= shift
    return out


def test_the_orders_in_one_pass_equal_the_loop_over_replicates_and_orders():
    """``_GoldClass.orders`` (the powers of the shift by one accumulate) picks each replicate's order as the loop
    does, over every order from MIN_ORDER to the plan's, the direct path (0), sigma = 0 and NaN moments."""
    rng = np.random.RandomState(0)
    seen = set()
    for spread in (0.01, 0.05, 0.2):
        gold = icm_soft._GoldClass(rng.binomial(6, 0.3, 2000) / 6.0, icm_soft.ORDER)
        mu = gold.mu0 * (1 + rng.normal(0, spread, 2000))
        sigma = gold.sigma0 * (1 + rng.normal(0, spread, 2000))
        sigma[::50], mu[::77] = 0.0, np.nan
        order = gold.orders(mu, sigma)[2]
        np.testing.assert_array_equal(order, _loop_orders(gold, mu, sigma))
        seen.update(order.tolist())
    assert {0, icm_soft.MIN_ORDER + 1, icm_soft.ORDER - 1} <= seen
