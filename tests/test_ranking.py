"""Ranking task: names, per-query parity with trec_eval (pytrec_eval) and ranx, replicates, readers.

pytrec_eval is trec_eval itself, so it is the reference for the tie convention
(score descending, document id descending); ranx breaks ties differently and
is used on tie-free runs (and for hit_rate@k and mrr@k, which trec_eval lacks).
"""

import json

import numpy as np
import pytest

from leaderboard_ci.core.resampling import counts_from_indices, replicate_indices
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.errors import ConfigError
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.scoring.readers import read_gold, read_predictions
from leaderboard_ci.tasks.ranking import metrics as ranking
from leaderboard_ci.tasks.registry import TASKS, find_metric
from leaderboard_ci.tasks.shared.base import GoldStandard

pytrec_eval = pytest.importorskip("pytrec_eval")

TOL = 1e-12
METRICS = ["ndcg@10", "ndcg", "map", "map@5", "mrr", "p@5", "recall@10", "hit_rate@3", "mrr@3", "p@1"]


def make_data(seed, n_queries=40, pool=25, ties=True, missing=4):
    """Random graded qrels and two runs (with score ties when ``ties``); some queries left out of the runs."""
    rng = np.random.default_rng(seed)
    qrels, runs = {}, [{}, {}]
    for q in range(n_queries):
        qid = "q%d" % (q * 7 % 101)
        docs = ["d%d" % d for d in rng.choice(200, size=pool, replace=False)]
        judged = rng.random(pool) < 0.7
        grades = rng.choice(4, size=pool, p=[0.55, 0.25, 0.12, 0.08])
        if q == 3:
            grades[:] = 0  # a query with no relevant document
        qrels[qid] = dict((d, int(g)) for d, g, j in zip(docs, grades, judged) if j)
        if not qrels[qid]:
            qrels[qid] = {docs[0]: 0}
        for r, run in enumerate(runs):
            if q < missing and r == 0:
                continue  # the first run does not answer these queries
            depth = int(rng.integers(1, pool + 1))
            chosen = rng.choice(pool, size=depth, replace=False)
            extra = ["u%d" % d for d in rng.choice(50, size=3, replace=False)]  # unjudged documents
            noise = rng.random(depth + 3)
            scores = np.round(noise, 1) if ties else noise
            run[qid] = dict((d, float(s)) for d, s in zip([docs[i] for i in chosen] + extra, scores))
    return qrels, runs


TREC = {"ndcg": "ndcg", "map": "map", "mrr": "recip_rank"}


def trec_measure(name, k):
    if k is None:
        return TREC[name]
    return {"ndcg": "ndcg_cut_%d", "map": "map_cut_%d", "p": "P_%d", "recall": "recall_%d"}[name] % k


def reference_per_query(qrels, run, metric, threshold=1):
    """The per-query value of ``metric`` from pytrec_eval (or ranx where trec_eval lacks it); 0 if not run."""
    name, options = find_metric(metric, "ranking")[1:]
    k = options.get("k")
    qids = list(qrels)
    if (name == "mrr" and k is not None) or name == "hit_rate":
        from ranx import Qrels, Run
        from ranx import evaluate as ranx_evaluate

        # ranx on a tie-free version of the run ordered as trec_eval orders it.
        untied = {}
        for qid, docs in run.items():
            order = sorted(docs.items(), key=lambda x: (x[1], x[0]), reverse=True)
            untied[qid] = dict((d, float(len(order) - i)) for i, (d, _) in enumerate(order))
        bin_qrels = dict((q, dict((d, int(r >= threshold)) for d, r in docs.items())) for q, docs in qrels.items())
        values = ranx_evaluate(
            Qrels(bin_qrels), Run(untied), "%s@%d" % (name, k), return_mean=False, make_comparable=True
        )
        table = dict(zip(Qrels(bin_qrels).keys(), np.atleast_1d(values)))
        return np.array([float(table.get(q, 0.0)) for q in qids])
    measure = trec_measure(name, k)
    level = 1 if name == "ndcg" else threshold
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {measure}, relevance_level=level)
    out = evaluator.evaluate(run)
    return np.array([out[q][measure] if q in out else 0.0 for q in qids])


def encoded(qrels, runs, settings=None):
    gold_values, _, coded = ranking.encode_values(
        list(qrels.items()), dict(("r%d" % i, r) for i, r in enumerate(runs)), settings=settings
    )
    return GoldStandard(values=gold_values, ids=tuple(qrels), task="ranking"), [
        coded["r%d" % i] for i in range(len(runs))
    ]


# ---------------------------------------------------------------------------
# Names
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text,name,k",
    [
        ("ndcg@10", "ndcg", 10),
        ("nDCG@10", "ndcg", 10),
        ("ndcg_10", "ndcg", 10),
        ("ndcg_cut_10", "ndcg", 10),
        ("map", "map", None),
        ("map@100", "map", 100),
        ("map_cut_100", "map", 100),
        ("mrr", "mrr", None),
        ("recip_rank", "mrr", None),
        ("P@5", "p", 5),
        ("p_5", "p", 5),
        ("precision@5", "p", 5),
        ("recall@100", "recall", 100),
        ("hit_rate@10", "hit_rate", 10),
        ("success@1", "hit_rate", 1),
    ],
)
def test_the_name_is_the_configuration(text, name, k):
    task, found, options = find_metric(text)
    assert task is TASKS["ranking"] and found == name and options.get("k") == k


def test_config_keys_titles_and_settings():
    cfg = parse_config(
        {
            "task": "ranking",
            "metric": "ndcg@10",
            "extra_metrics": ["map", "map@100", "mrr", "p@5", "recall@100", "hit_rate@10", {"name": "ndcg", "k": 20}],
            "relevance_threshold": 2,
            "missing_queries": "skip",
        }
    )
    assert [m.key for m in cfg.metrics] == [
        "ndcg_10",
        "map",
        "map_100",
        "mrr",
        "p_5",
        "recall_100",
        "hit_rate_10",
        "ndcg_20",
    ]
    assert [m.title for m in cfg.metrics][:3] == ["nDCG@10", "MAP", "MAP@100"]
    assert cfg.metrics[0].option("k") == 10 and cfg.metrics[1].option("k") is None
    assert cfg.task_settings == ranking.RankingSettings(relevance_threshold=2, missing_queries="skip")


@pytest.mark.parametrize(
    "data,fragment",
    [
        ({"metric": "p"}, "p needs a cut-off"),
        ({"metric": "recall"}, "recall needs a cut-off"),
        ({"metric": {"name": "ndcg", "k": 0}}, "whole number from 1"),
        ({"metric": "ndcg@10", "relevance_threshold": 0}, "relevance_threshold must be a whole number >= 1"),
        ({"metric": "ndcg@10", "missing_queries": "drop"}, "missing_queries must be one of: zero, skip"),
    ],
)
def test_config_mistakes_say_what_is_allowed(data, fragment):
    with pytest.raises(ConfigError) as info:
        parse_config(dict(data, task="ranking"))
    assert fragment in str(info.value)


# ---------------------------------------------------------------------------
# Per-query parity
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("threshold", [1, 2])
@pytest.mark.parametrize("ties", [True, False])
def test_per_query_values_equal_trec_eval(threshold, ties):
    qrels, runs = make_data(5 + threshold, ties=ties)
    gold, coded = encoded(qrels, runs, ranking.RankingSettings(relevance_threshold=threshold))
    assert coded[0].shape == coded[1].shape == (len(qrels),)
    for run, rows in zip(runs, coded):
        for metric in METRICS:
            name, options = find_metric(metric, "ranking")[1:]
            ours = ranking.per_query_values(name, options.get("k"), gold.values, rows)
            expected = reference_per_query(qrels, run, metric, threshold)
            np.testing.assert_allclose(ours, expected, rtol=0, atol=TOL, err_msg=metric)


def test_tie_convention_is_trec_evals_not_insertion_order():
    qrels = {"q": {"a": 1, "b": 1, "z": 1}}
    run = {"q": {"a": 0.5, "b": 0.5, "c": 0.5, "d": 0.9, "z": 0.5}}  # z, c, b, a after d
    gold, (rows,) = encoded(qrels, [run])
    assert ranking.per_query_values("mrr", None, gold.values, rows)[0] == 0.5
    assert abs(ranking.per_query_values("map", None, gold.values, rows)[0] - (1 / 2 + 2 / 4 + 3 / 5) / 3) < TOL
    assert abs(reference_per_query(qrels, run, "map")[0] - (1 / 2 + 2 / 4 + 3 / 5) / 3) < TOL


def test_parity_with_ranx_on_tie_free_runs():
    from ranx import Qrels, Run
    from ranx import evaluate as ranx_evaluate

    qrels, runs = make_data(9, ties=False, missing=0)
    gold, coded = encoded(qrels, runs)
    for metric, ranx_name in (
        ("ndcg@10", "ndcg@10"),
        ("map", "map"),
        ("mrr", "mrr"),
        ("p@5", "precision@5"),
        ("recall@10", "recall@10"),
        ("map@5", "map@5"),
    ):
        name, options = find_metric(metric, "ranking")[1:]
        for run, rows in zip(runs, coded):
            # ranx drops queries with no relevant document; trec_eval and we score them 0.
            keep = [q for q in qrels if any(r > 0 for r in qrels[q].values())]
            ours = ranking.per_query_values(name, options.get("k"), gold.values, rows)
            table = dict(
                zip(
                    Qrels(qrels).keys(),
                    np.atleast_1d(
                        ranx_evaluate(Qrels(qrels), Run(run), ranx_name, return_mean=False, make_comparable=True)
                    ),
                )
            )
            for q in keep:
                assert abs(ours[list(qrels).index(q)] - table[q]) <= TOL, (metric, q)


# ---------------------------------------------------------------------------
# Replicates: exact means of the per-query values under the resample counts
# ---------------------------------------------------------------------------
def _config(missing="zero", n_resamples=40, seed=17):
    return parse_config(
        {
            "task": "ranking",
            "metric": METRICS[0],
            "extra_metrics": METRICS[1:],
            "missing_queries": missing,
            "bootstrap": {"n_resamples": n_resamples, "seed": seed, "n_jobs": 1},
        }
    )


@pytest.mark.parametrize("missing", ["zero", "skip"])
def test_every_replicate_is_the_reference_mean_weighted_by_the_counts(missing):
    qrels, runs = make_data(21)
    cfg = _config(missing)
    gold, coded = encoded(qrels, runs, cfg.task_settings)
    n = gold.n
    counts = counts_from_indices(replicate_indices(17, n, 0, 40), n)
    unanswered = 0
    for run, rows in zip(runs, coded):
        answered = np.array([1.0 if run.get(q) else 0.0 for q in qrels])
        unanswered += int(n - answered.sum())
        result = evaluate(cfg, gold, rows)
        for score in result.scores:
            per_query = reference_per_query(qrels, run, METRICS[[m.key for m in cfg.metrics].index(score.key)])
            if missing == "zero":
                full, reps = per_query.mean(), counts @ per_query / n
            else:
                full = (per_query * answered).sum() / answered.sum()
                reps = (counts @ (per_query * answered)) / (counts @ answered)
            assert abs(score.score - full) <= TOL, score.key
            np.testing.assert_allclose(score.replicates, reps, rtol=0, atol=TOL, err_msg=score.key)
    assert unanswered > 0  # the skip rule was exercised


def test_groups_of_queries_average_within_the_group():
    qrels, runs = make_data(4)
    cfg = parse_config(
        {
            "task": "ranking",
            "metric": "ndcg@10",
            "groups": "topic",
            "bootstrap": {"n_resamples": 30, "seed": 3, "n_jobs": 1},
        }
    )
    values, _, coded = ranking.encode_values(list(qrels.items()), {"r": runs[1]})
    codes = np.arange(len(qrels)) % 3
    gold = GoldStandard(values=values, ids=tuple(qrels), groups=codes, group_values=("a", "b", "c"), task="ranking")
    result = evaluate(cfg, gold, coded["r"])
    per_query = reference_per_query(qrels, runs[1], "ndcg@10")
    counts = counts_from_indices(replicate_indices(3, gold.n, 0, 30), gold.n)
    for score in result.scores[1:]:
        mask = (codes == ("a", "b", "c").index(score.group)).astype(float)
        assert abs(score.score - per_query[mask > 0].mean()) <= TOL
        np.testing.assert_allclose(score.replicates, counts @ (per_query * mask) / (counts @ mask), rtol=0, atol=TOL)


# ---------------------------------------------------------------------------
# Files: TREC and JSON read to the same rows as the in-memory form
# ---------------------------------------------------------------------------
def write_qrels(path, qrels):
    with open(path, "w") as handle:
        for qid, docs in qrels.items():
            for doc, rel in docs.items():
                handle.write("%s 0 %s %d\n" % (qid, doc, rel))


def write_run(path, run, tag="sys"):
    with open(path, "w") as handle:
        for qid, docs in run.items():
            for rank, (doc, score) in enumerate(sorted(docs.items(), key=lambda x: -x[1]), 1):
                handle.write("%s Q0 %s %d %r %s\n" % (qid, doc, rank, score, tag))


def file_config(tmp_path, gold_name, **extra):
    return parse_config(dict({"task": "ranking", "metric": "ndcg@10", "files": {"gold": gold_name}}, **extra))


@pytest.mark.parametrize("gold_format", ["trec", "json"])
@pytest.mark.parametrize("run_format", ["trec", "json"])
def test_trec_and_json_files_read_like_the_in_memory_form(tmp_path, gold_format, run_format):
    qrels, runs = make_data(2)
    ref = tmp_path / "ref"
    ref.mkdir()
    gold_name = "qrels.txt" if gold_format == "trec" else "qrels.json"
    if gold_format == "trec":
        write_qrels(str(ref / gold_name), qrels)
    else:
        (ref / gold_name).write_text(json.dumps(qrels, indent=1))
    cfg = file_config(tmp_path, gold_name)
    gold = read_gold(str(ref), cfg)
    expected_gold, expected_runs = encoded(qrels, runs)
    assert gold.ids == tuple(qrels) and gold.task == "ranking"
    assert gold.values.tobytes() == expected_gold.values.tobytes()
    path = tmp_path / ("run.txt" if run_format == "trec" else "run.json")
    if run_format == "trec":
        write_run(str(path), runs[0])
    else:
        path.write_text(json.dumps(runs[0]))
    rows = read_predictions(str(path), cfg, gold)
    assert rows.tobytes() == expected_runs[0].tobytes()


def test_encoding_shapes_do_not_depend_on_the_system():
    qrels, runs = make_data(1)
    gold, coded = encoded(qrels, runs + [{}])
    assert len(set(c.dtype for c in coded)) == 1
    assert (coded[2]["retrieved"] == 0).all()
    assert np.stack(coded, axis=1).shape == (gold.n, 3)


@pytest.mark.parametrize("missing", ["zero", "skip"])
def test_analyze_takes_the_task_settings(missing):
    from leaderboard_ci.phase.analysis import Execution, analyze

    qrels, runs = make_data(12)
    result = analyze(
        list(qrels.items()),
        {"a": runs[0], "b": runs[1]},
        metric="p@5",
        n_resamples=50,
        execution=Execution(n_jobs=1),
        missing_queries=missing,
        relevance_threshold=2,
    )
    per_query = reference_per_query(qrels, runs[0], "p@5", threshold=2)
    answered = np.array([1.0 if runs[0].get(q) else 0.0 for q in qrels])
    expected = per_query.mean() if missing == "zero" else per_query.sum() / answered.sum()
    table = result.official.systems.set_index("name")
    assert abs(table.loc["a", "score"] - expected) <= TOL


def test_analyze_says_how_to_pass_the_qrels():
    from leaderboard_ci.phase.analysis import analyze

    qrels, runs = make_data(12)
    with pytest.raises(ValueError, match=r"list\(qrels.items\(\)\)"):
        analyze(qrels, {"a": runs[0]}, metric="ndcg@10", n_resamples=20)
