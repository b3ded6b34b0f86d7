"""Clustered and stratified resampling (bootstrap.cluster, bootstrap.strata): definition, engine, config.

The definition is re-implemented here from ``random_raw`` (the module docstring's words, not
our code); the engine's replicates are compared with scikit-learn's metrics on the resampled
items (each drawn cluster's items, concatenated); every execution gives the same bytes; the
leaderboard's interval is the report's.
"""

import dataclasses
import os
import textwrap

import numpy as np
import pytest

from leaderboard_ci.core.accumulators import CodeCounts, ExactSums
from leaderboard_ci.core.replicates import compute_replicates
from leaderboard_ci.core.resampling import Resampling, replicate_indices, unit_codes
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.errors import ConfigError
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.tasks.shared.scorer import GoldStandard


def documented_units(seed, clusters, strata, start, stop):
    """The module docstring's "Clusters and strata" definition, written independently."""
    n = len(strata)
    units = sorted(set(clusters), key=list(clusters).index) if clusters is not None else list(range(n))
    of_unit = {}
    for i in range(n):
        of_unit.setdefault(clusters[i] if clusters is not None else i, strata[i])
    unit_number = {u: k for k, u in enumerate(units)}
    strata_codes = sorted(set(of_unit.values()))
    members = [unit_number[u] for s in strata_codes for u in units if of_unit[u] == s]
    sizes = [sum(1 for u in units if of_unit[u] == s) for s in strata_codes]
    big_u = len(units)
    bit_generator = np.random.PCG64(seed)
    bit_generator.advance(start * big_u)
    raw = bit_generator.random_raw((stop - start) * big_u).tolist()
    rows = []
    for r in range(stop - start):
        row, o = [], 0
        for size in sizes:
            for j in range(o, o + size):
                u = (raw[r * big_u + j] >> 11) * 2.0**-53
                row.append(members[o + int(u * size)])
            o += size
        rows.append(row)
    return np.array(rows)


CLUSTERS = [0, 0, 1, 2, 2, 3, 4, 4, 4, 5]
STRATA = [0, 0, 1, 0, 0, 1, 1, 1, 1, 0]
# Golden values: they pin the clustered stream; if they move, every clustered CI published moves.
GOLDEN_CLUSTERS = [[1, 1, 4, 4, 2, 1], [3, 1, 4, 5, 1, 5], [4, 0, 2, 5, 4, 1]]
GOLDEN_CLUSTERS_IN_STRATA = [[0, 0, 5, 4, 3, 1], [2, 0, 5, 4, 1, 4], [5, 0, 2, 4, 4, 1]]
GOLDEN_STRATA_SEED7 = [[7, 10, 10, 1, 5, 11, 2, 11, 9, 3, 3, 3], [4, 4, 7, 7, 11, 11, 8, 11, 0, 0, 6, 0]]


def test_golden_values():
    assert Resampling(10, clusters=np.array(CLUSTERS)).unit_indices(12345, 0, 3).tolist() == GOLDEN_CLUSTERS
    both = Resampling(10, clusters=np.array(CLUSTERS), strata=np.array(STRATA))
    assert both.unit_indices(12345, 0, 3).tolist() == GOLDEN_CLUSTERS_IN_STRATA
    strata = np.array([2, 0, 1] * 4)
    assert Resampling(12, strata=strata).unit_indices(7, 0, 2).tolist() == GOLDEN_STRATA_SEED7


@pytest.mark.parametrize("seed, n, start, stop", [(12345, 10, 0, 3), (3, 257, 7, 40), (2**80 + 1, 5000, 1, 3)])
def test_item_bootstrap_is_the_special_case(seed, n, start, stop):
    """No clusters and one stratum: output for output the item bootstrap (the published numbers)."""
    for design in (Resampling(n), Resampling(n, strata=np.zeros(n, dtype=int))):
        assert design.trivial
        np.testing.assert_array_equal(design.unit_indices(seed, start, stop), replicate_indices(seed, n, start, stop))


@pytest.mark.parametrize("seed", [0, 12345, 2**100 + 7])
def test_matches_documented_definition(seed):
    rng = np.random.default_rng(seed % 1000)
    n = 300
    clusters = unit_codes(rng.integers(0, 40, n).tolist())[0]
    strata_of_cluster = rng.integers(0, 3, clusters.max() + 1)
    strata = strata_of_cluster[clusters]
    for c, s in ((clusters, strata), (clusters, np.zeros(n, int)), (None, strata)):
        design = Resampling(n, clusters=c, strata=s)
        expected = documented_units(seed, None if c is None else c.tolist(), s.tolist(), 5, 25)
        np.testing.assert_array_equal(design.unit_indices(seed, 5, 25), expected)


def test_strata_keep_their_sizes_and_clusters_bring_their_items():
    rng = np.random.default_rng(1)
    n = 200
    clusters = np.sort(rng.integers(0, 30, n))
    clusters = unit_codes(clusters.tolist())[0]
    strata = (clusters % 3).astype(int)
    design = Resampling(n, clusters=clusters, strata=strata)
    units = design.unit_indices(9, 0, 50)
    for s in range(3):
        in_s = np.flatnonzero(design.unit_stratum == s)
        drawn = np.isin(units, in_s).sum(axis=1)
        np.testing.assert_array_equal(drawn, np.full(50, in_s.size))
    counts = design.item_counts(units)
    for c in range(design.n_units):  # an item's count is its cluster's
        members = np.flatnonzero(clusters == c)
        np.testing.assert_array_equal(counts[:, members], np.repeat((units == c).sum(axis=1)[:, None], members.size, 1))
    assert counts.sum(axis=1).max() <= design.weight_bound


def test_every_cluster_must_lie_in_one_stratum():
    with pytest.raises(ValueError, match="one stratum"):
        Resampling(4, clusters=np.array([0, 0, 1, 1]), strata=np.array([0, 1, 1, 1]))


# ---------------------------------------------------------------------------
# The engine against scikit-learn on the resampled items
# ---------------------------------------------------------------------------
def _clustered_case(n_clusters=60, seed=0):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 21, n_clusters)  # QA-like: 1 to 20 questions per passage
    clusters = np.repeat(np.arange(n_clusters), sizes)
    n = clusters.size
    y = rng.integers(0, 3, n)
    skill = rng.random(n_clusters)[clusters]  # within-cluster correlation of errors
    pred = np.where(rng.random(n) < 0.4 + 0.5 * skill, y, rng.integers(0, 3, n))
    return y, pred, clusters


def _config(**bootstrap):
    return parse_config(
        {
            "metric": "f1_macro",
            "extra_metrics": ["accuracy", "mcc"],
            "labels": ["0", "1", "2"],
            "bootstrap": dict({"n_resamples": 200, "seed": 11}, **bootstrap),
        }
    )


def _gold(y, clusters=None, strata=None):
    return GoldStandard(values=np.asarray(y), labels=("0", "1", "2"), clusters=clusters, strata=strata)


def test_replicates_equal_sklearn_on_the_resampled_items():
    from sklearn.metrics import accuracy_score, f1_score, matthews_corrcoef

    y, pred, clusters = _clustered_case()
    strata = (clusters % 2).astype(np.intp)
    for c, s in ((clusters, None), (clusters, strata), (None, strata)):
        gold = _gold(y, c, s)
        # the engine's replicates (the small-cluster correction, tested below, expands them afterwards)
        result = evaluate(_config(cluster="c" if c is not None else None, cluster_correction=False), gold, pred)
        units = gold.resampling().unit_indices(11, 0, 200)
        members = [np.flatnonzero(clusters == k) for k in range(clusters.max() + 1)]
        for r in (0, 1, 57, 199):
            items = np.concatenate([members[u] for u in units[r]]) if c is not None else units[r]
            expected = [
                f1_score(y[items], pred[items], average="macro", labels=[0, 1, 2], zero_division=0),
                accuracy_score(y[items], pred[items]),
                matthews_corrcoef(y[items], pred[items]),
            ]
            got = [s_.replicates[r] for s_ in result.scores]
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def test_point_estimate_does_not_depend_on_the_resampling():
    y, pred, clusters = _clustered_case()
    plain = evaluate(_config(), _gold(y), pred)
    clustered = evaluate(_config(cluster="c"), _gold(y, clusters), pred)
    assert [s.score for s in plain.scores] == [s.score for s in clustered.scores]


def test_exact_sums_hold_for_the_cluster_weight_bound():
    """A replicate can weigh more items than n: the exact split is rebuilt for the bound."""
    rng = np.random.default_rng(2)
    values = rng.standard_normal(50) * 1e3
    clusters = np.array([0] * 40 + list(range(1, 11)))  # one big cluster: the bound is 11 * 40
    design = Resampling(50, clusters=clusters)
    assert design.weight_bound == 440
    acc = ExactSums(values)
    wide = acc.for_total(design.weight_bound)
    assert wide is not acc and wide.total == 440 and acc.for_total(50) is acc
    (out,) = compute_replicates([acc], 50, 5, 30, resampling=design)
    counts = design.item_counts(design.unit_indices(5, 0, 30))
    expected = [float(np.sum(np.array([np.longdouble(v) for v in values]) * row)) for row in counts]
    np.testing.assert_allclose(out[:, 0], expected, rtol=1e-15)


@pytest.mark.parametrize("block_rows", [1, 3, 64])
def test_threads_and_blocks_change_nothing(block_rows):
    y, pred, clusters = _clustered_case()
    design = Resampling(y.size, clusters=clusters, strata=(clusters % 3).astype(np.intp))
    accs = [CodeCounts(y * 3 + pred, 9), ExactSums((y == pred).astype(float) * 0.1)]
    one = compute_replicates(accs, y.size, 4, 90, n_jobs=1, resampling=design)
    other = compute_replicates(accs, y.size, 4, 90, n_jobs=2, block_rows=block_rows, resampling=design)
    for a, b in zip(one, other):
        assert a.tobytes() == b.tobytes()


def test_bca_uses_the_leave_one_cluster_out_jackknife():
    y, pred, clusters = _clustered_case(n_clusters=30)
    result = evaluate(_config(cluster="c", method="bca"), _gold(y, clusters), pred)
    assert all(np.isfinite([s.interval.low, s.interval.high]).all() for s in result.scores)


# ---------------------------------------------------------------------------
# The proof of the issue: 540 items copied 5 times
# ---------------------------------------------------------------------------
def test_copies_with_a_cluster_column_give_the_originals_width():
    """5 copies of each item, the cluster the original id: the width of the originals (+-15 %); without, ~1/sqrt(5)."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    from sklearn.naive_bayes import GaussianNB

    x, y = load_digits(return_X_y=True)
    xtr, xte, ytr, yte = train_test_split(x, y, test_size=540, random_state=0, stratify=y)
    pred = GaussianNB().fit(xtr, ytr).predict(xte)
    labels = tuple(str(k) for k in range(10))
    config = parse_config(
        {"metric": "f1_macro", "extra_metrics": ["accuracy"], "labels": list(labels), "bootstrap": {"seed": 5}}
    )
    clustered_config = dataclasses.replace(
        config, bootstrap=dataclasses.replace(config.bootstrap, cluster="orig", cluster_correction=False)
    )
    original = evaluate(config, GoldStandard(values=yte, labels=labels), pred)
    y5, p5 = np.tile(yte, 5), np.tile(pred, 5)
    clusters = np.tile(np.arange(540), 5)
    copies = evaluate(config, GoldStandard(values=y5, labels=labels), p5)
    clustered = evaluate(clustered_config, GoldStandard(values=y5, labels=labels, clusters=clusters), p5)
    for o, c, k in zip(original.scores, clustered.scores, copies.scores):
        width = o.interval.high - o.interval.low
        assert abs((c.interval.high - c.interval.low) / width - 1) < 0.15, o.key
        # in fact the same interval: cluster c of the copies is drawn exactly when item c of the originals is
        np.testing.assert_allclose([c.interval.low, c.interval.high], [o.interval.low, o.interval.high], rtol=1e-12)
        assert abs((k.interval.high - k.interval.low) / width * np.sqrt(5) - 1) < 0.15, o.key


# ---------------------------------------------------------------------------
# The leaderboard's interval is the report's, on every execution
# ---------------------------------------------------------------------------
def _report_numbers(result):
    t = result.official
    return t.systems[["name", "score", "ci_low", "ci_high"]].to_numpy().tolist()


@pytest.mark.parametrize("strata", [False, True])
def test_leaderboard_equals_report_on_every_execution(strata):
    pytest.importorskip("pandas")
    from leaderboard_ci.phase import Execution, analyze

    y, pred, clusters = _clustered_case(n_clusters=40, seed=4)
    rng = np.random.default_rng(0)
    systems = {"s%d" % j: np.where(rng.random(y.size) < 0.2 * j, y, pred) for j in range(4)}
    gold = _gold(y, clusters, (clusters % 2).astype(np.intp) if strata else None)
    options = dict(metric="f1_macro", labels=["0", "1", "2"], n_resamples=120, seed=11)
    base = analyze(gold, systems, execution=Execution(n_jobs=1), **options)
    threads = analyze(gold, systems, execution=Execution(n_jobs=2), **options)
    blocks = analyze(gold, systems, execution=Execution(block_size=2), **options)
    assert _report_numbers(threads) == _report_numbers(base) == _report_numbers(blocks)
    config = _config(n_resamples=120, cluster="c", strata="s" if strata else None)
    rows = {row[0]: row[1:] for row in _report_numbers(base)}
    for name, values in systems.items():
        official = evaluate(config, gold, values).scores[0]
        assert rows[name] == [official.score, official.interval.low, official.interval.high]


# ---------------------------------------------------------------------------
# Configuration and files
# ---------------------------------------------------------------------------
def _score(tmp_path, gold_text, config_text, predictions="id,label\na,0\nb,1\nc,1\nd,0\n"):
    from leaderboard_ci.scoring.codabench import run

    ref = tmp_path / "in" / "ref"
    res = tmp_path / "in" / "res"
    ref.mkdir(parents=True)
    res.mkdir(parents=True)
    (ref / "gold.csv").write_text(gold_text)
    (ref / "config.yaml").write_text(textwrap.dedent(config_text))
    (res / "predictions.csv").write_text(predictions)
    import io

    out, err = io.StringIO(), io.StringIO()
    program = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scoring_program")
    code = run(str(tmp_path / "in"), str(tmp_path / "out"), program, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_a_missing_cluster_column_is_one_organizer_sentence(tmp_path):
    gold = "id,label,doc\na,0,x\nb,1,x\nc,1,y\nd,0,y\n"
    code, out, err = _score(
        tmp_path, gold, "metric: accuracy\nextra_metrics: []\nbootstrap:\n  cluster: passage\n  n_resamples: 50\n"
    )
    assert code != 0
    assert err.count("\n") == 1 and "organizers" in err and "bootstrap.cluster 'passage'" in err
    assert "ref/gold.csv" in err and "x" not in err.replace("xt", "")


def test_a_cluster_column_scores_and_is_in_the_signature(tmp_path):
    gold = "id,label,doc\na,0,x\nb,1,x\nc,1,y\nd,0,y\n"
    code, out, err = _score(
        tmp_path, gold, "metric: accuracy\nextra_metrics: []\nbootstrap:\n  cluster: doc\n  n_resamples: 50\n"
    )
    assert code == 0, err
    assert "|cluster:doc|" in out
    assert "only 2" in (tmp_path / "out" / "detailed_results.html").read_text()


def test_a_cluster_spanning_strata_is_refused(tmp_path):
    gold = "id,label,doc,lang\na,0,x,en\nb,1,x,es\nc,1,y,es\nd,0,y,es\n"
    config = "metric: accuracy\nextra_metrics: []\nbootstrap:\n  cluster: doc\n  strata: lang\n  n_resamples: 50\n"
    code, _, err = _score(tmp_path, gold, config)
    assert code != 0 and "spans several strata" in err and "en" not in err.replace("then", "")


def test_same_column_twice_is_refused():
    with pytest.raises(ConfigError, match="name the same column"):
        parse_config({"metric": "accuracy", "bootstrap": {"cluster": "doc", "strata": "doc"}})


def test_notes_for_few_and_unequal_clusters():
    from leaderboard_ci.scoring.resampling_units import design_notes

    config = _config(cluster="doc")
    few = _gold(np.zeros(12, int), np.repeat(np.arange(4), 3))
    assert any("only 4" in note for note in design_notes(config, few))
    sizes = [100] + [1] * 30
    unequal = _gold(np.zeros(sum(sizes), int), np.repeat(np.arange(31), sizes))
    notes = design_notes(config, unequal)
    assert len(notes) == 1 and "unequal" in notes[0]
    assert not design_notes(config, _gold(np.zeros(60, int), np.repeat(np.arange(30), 2)))
    hidden = design_notes(config, few, hide_counts=True)  # decoy ids: no count of the gold
    assert hidden and all("4" not in note.replace("about 20", "") for note in hidden)


# ---------------------------------------------------------------------------
# Tasks with a gold format of their own: QA (SQuAD titles, paragraphs), sequence (documents)
# ---------------------------------------------------------------------------
def _example_gold(tmp_path, example, cluster):
    import shutil

    import yaml

    from leaderboard_ci.scoring.config import load_config
    from leaderboard_ci.scoring.readers import read_gold

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ref = tmp_path / "ref"
    shutil.copytree(os.path.join(root, "examples", example, "reference_data"), str(ref))
    data = yaml.safe_load((ref / "config.yaml").read_text())
    data.setdefault("bootstrap", {})["cluster"] = cluster
    (ref / "config.yaml").write_text(yaml.safe_dump(data))
    config = load_config(os.path.join(root, "scoring_program"), str(ref))
    return read_gold(str(ref), config)


def test_qa_clusters_are_squad_articles_and_paragraphs(tmp_path):
    import json

    gold = _example_gold(tmp_path / "a", "qa", "title")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "examples", "qa", "reference_data", "gold.json")) as handle:
        data = json.load(handle)["data"]
    titles = [a["title"] for a in data for p in a["paragraphs"] for _ in p["qas"]]
    assert gold.clusters.tolist() == unit_codes(titles)[0].tolist()
    paragraphs = _example_gold(tmp_path / "b", "qa", "paragraph")
    expected = [(i, j) for i, a in enumerate(data) for j, p in enumerate(a["paragraphs"]) for _ in p["qas"]]
    assert paragraphs.clusters.tolist() == unit_codes(expected)[0].tolist()


def test_sequence_clusters_are_documents(tmp_path):
    gold = _example_gold(tmp_path, "sequence", "document")
    assert gold.clusters is not None and gold.clusters.shape == (gold.n,)
    assert np.all(np.diff(gold.clusters) >= 0)  # CoNLL documents are consecutive


def test_a_task_whose_file_cannot_carry_clusters_says_so(tmp_path):
    with pytest.raises(ConfigError, match=r"bootstrap.cluster 'topic': the ranking gold format of ref/qrels.txt gives"):
        _example_gold(tmp_path, "ranking", "topic")


def test_ranking_query_clusters_from_a_design_file(tmp_path):
    """bootstrap.design_file: a CSV of query ids and topics (any task with unit ids)."""
    from leaderboard_ci.scoring.config import load_config
    from leaderboard_ci.scoring.readers import read_gold

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    plain = _example_gold(tmp_path / "plain", "ranking", None)
    ref = tmp_path / "plain" / "ref"
    topics = ["t%d" % (k // 3) for k in range(plain.n)]
    rows = ["id,topic"] + ["%s,%s" % pair for pair in zip(plain.ids, topics)]
    (ref / "topics.csv").write_text("\n".join(rows[:1] + rows[1:][::-1]) + "\n")  # any row order
    text = (ref / "config.yaml").read_text().replace("cluster: null", "cluster: topic\n  design_file: topics.csv")
    (ref / "config.yaml").write_text(text)
    config = load_config(os.path.join(root, "scoring_program"), str(ref))
    gold = read_gold(str(ref), config)
    assert gold.clusters.tolist() == unit_codes(topics)[0].tolist()
    (ref / "topics.csv").write_text("\n".join(rows[:-1]) + "\n")  # one query without a topic
    with pytest.raises(ConfigError, match=r"design_file ref/topics.csv has no 'topic' for 1 unit of the gold"):
        read_gold(str(ref), config)


def test_dask_gives_the_same_numbers():
    """Clusters within strata on Dask workers (the plan rebuilt there from its recipe): the same bytes."""
    pytest.importorskip("distributed")
    from leaderboard_ci.phase import Execution, analyze

    y, pred, clusters = _clustered_case(n_clusters=40, seed=5)
    rng = np.random.default_rng(1)
    systems = {"s%d" % j: np.where(rng.random(y.size) < 0.2 * j, y, pred) for j in range(3)}
    gold = _gold(y, clusters, (clusters % 2).astype(np.intp))
    options = dict(metric="f1_macro", labels=["0", "1", "2"], n_resamples=100, seed=11)
    base = analyze(gold, systems, execution=Execution(n_jobs=1), **options)
    on_dask = analyze(gold, systems, execution=Execution(dask="local", workers=2), **options)
    assert _report_numbers(on_dask) == _report_numbers(base)
    assert on_dask.official.replicates.tobytes() == base.official.replicates.tobytes()


def test_scores_task_roc_auc_and_average_precision_with_clusters(tmp_path):
    """The scores task (ROC-AUC from item counts, AP from cells): sklearn on resampled items; report = leaderboard."""
    import csv
    import shutil
    import zipfile

    import yaml
    from sklearn.metrics import average_precision_score, roc_auc_score

    from leaderboard_ci.phase import Execution, analyze
    from leaderboard_ci.scoring.config import load_config
    from leaderboard_ci.scoring.readers import read_gold, read_predictions

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ref = tmp_path / "ref"
    shutil.copytree(os.path.join(root, "examples", "scores", "reference_data"), str(ref))
    with open(str(ref / "gold.csv")) as handle:
        rows = list(csv.reader(handle))
    rows = [rows[0] + ["patient"]] + [row + ["p%d" % (k // 4)] for k, row in enumerate(rows[1:])]
    with open(str(ref / "gold.csv"), "w", newline="") as handle:
        csv.writer(handle).writerows(rows)
    data = yaml.safe_load((ref / "config.yaml").read_text())
    data["extra_metrics"] = ["average_precision"]
    data["bootstrap"].update(cluster="patient", n_resamples=300, cluster_correction=False)  # the engine's replicates
    data.pop("baseline")
    (ref / "config.yaml").write_text(yaml.safe_dump(data))
    config = load_config(os.path.join(root, "scoring_program"), str(ref))
    gold = read_gold(str(ref), config)
    assert gold.resampling().n_units == -(-gold.n // 4)
    systems = {}
    for name in ("knn", "gaussian_nb"):
        folder = tmp_path / name
        with zipfile.ZipFile(os.path.join(root, "examples", "scores", "sample_submissions", name + ".zip")) as z:
            z.extractall(str(folder))
        path = os.path.join(str(folder), sorted(os.listdir(str(folder)))[0])
        systems[name] = read_predictions(path, config, gold)
    report = analyze(gold, systems, config=config, execution=Execution(n_jobs=1))
    y = np.asarray(gold.values) == list(gold.labels).index("malignant")
    units = gold.resampling().unit_indices(config.bootstrap.seed, 0, 3)
    members = [np.flatnonzero(gold.clusters == c) for c in range(gold.clusters.max() + 1)]
    for name, values in systems.items():
        result = evaluate(config, gold, values)
        row = report.official.systems.set_index("name").loc[name]
        assert [row["score"], row["ci_low"], row["ci_high"]] == [
            result.official.score,
            result.official.interval.low,
            result.official.interval.high,
        ]
        scores = np.asarray(values, dtype=float)
        scores = scores[:, -1] if scores.ndim == 2 else scores
        for r in range(3):
            items = np.concatenate([members[u] for u in units[r]])
            expected = [roc_auc_score(y[items], scores[items]), average_precision_score(y[items], scores[items])]
            np.testing.assert_allclose([s.replicates[r] for s in result.scores], expected, atol=1e-12)


def test_permutation_swaps_whole_clusters_and_mcnemar_is_the_clustered_one():
    """Copies x3 with the original as cluster: the cluster permutation p-values are the originals' item ones, and
    McNemar's test is Durkalski et al.'s cluster-robust one (tests/test_clustered_pair_tests.py)."""
    from leaderboard_ci.phase import Execution, analyze
    from leaderboard_ci.tasks.shared.sign_test import mcnemar_clustered_pvalues

    y, pred, clusters = _clustered_case(n_clusters=30, seed=6)
    y, pred = y[:150], pred[:150]
    other = np.where(np.arange(y.size) % 3 == 0, y, pred)
    options = dict(metric="accuracy", labels=["0", "1", "2"], n_resamples=60, seed=11, execution=Execution(n_jobs=1))
    original = analyze(_gold(y), {"a": pred, "b": other}, test="permutation", n_permutations=500, **options)
    copies = np.tile(np.arange(y.size), 3)
    clustered = analyze(
        _gold(np.tile(y, 3), copies),
        {"a": np.tile(pred, 3), "b": np.tile(other, 3)},
        test="permutation",
        n_permutations=500,
        **options,
    )
    one, three = original.official.pairs, clustered.official.pairs
    assert "p_permutation" in one.columns and one["p_permutation"].tolist() == three["p_permutation"].tolist()
    assert "p_mcnemar" in one.columns and "p_mcnemar" in three.columns
    right = np.tile(pred == y, 3), np.tile(other == y, 3)
    a_first = three["a"].iloc[0] == "a"
    expected = mcnemar_clustered_pvalues(right[0 if a_first else 1], right[1 if a_first else 0], copies, "two")
    assert three["p_mcnemar"].iloc[0] == pytest.approx(float(expected), rel=1e-12)


def test_cluster_permutation_with_one_item_per_cluster_is_the_item_test():
    from leaderboard_ci.core.permutation import permutation_pvalues
    from leaderboard_ci.tasks.shared.scorer import SystemScorer

    y, pred, _ = _clustered_case(n_clusters=40, seed=9)
    systems = [pred, np.where(np.arange(y.size) % 5 == 0, y, pred), np.where(np.arange(y.size) % 2 == 0, y, pred)]
    config = _config()
    gold = _gold(y)
    scorers = [SystemScorer(config.metrics, gold, p, layout="reduced") for p in systems]
    full = np.stack([s.scores([a.full()[None, :] for a in s.accumulators])[0] for s in scorers])
    pairs = np.array([[0, 1], [0, 2], [1, 2]])
    stacked = np.stack(systems, axis=1)
    items = permutation_pvalues(scorers, full, pairs, stacked, 3, 300)
    units = permutation_pvalues(scorers, full, pairs, stacked, 3, 300, clusters=np.arange(y.size))
    for a, b in zip(items, units):
        np.testing.assert_array_equal(a, b)


def test_bca_report_equals_leaderboard_with_clusters():
    from leaderboard_ci.phase import Execution, analyze

    y, pred, clusters = _clustered_case(n_clusters=25, seed=8)
    systems = {"a": pred, "b": np.where(np.arange(y.size) % 4 == 0, y, pred)}
    gold = _gold(y, clusters)
    report = analyze(
        gold,
        systems,
        metric="f1_macro",
        labels=["0", "1", "2"],
        n_resamples=150,
        seed=11,
        method="bca",
        execution=Execution(n_jobs=1),
    )
    rows = {row[0]: row[1:] for row in _report_numbers(report)}
    config = _config(n_resamples=150, cluster="c", method="bca")
    for name, values in systems.items():
        official = evaluate(config, gold, values).scores[0]
        assert rows[name] == [official.score, official.interval.low, official.interval.high]


# ---------------------------------------------------------------------------
# The small-cluster correction (bootstrap.cluster_correction)
# ---------------------------------------------------------------------------
def test_the_correction_expands_every_replicate_by_the_designs_factor():
    """Replicates = full + k (raw - full) with k = sqrt(mean C_s/(C_s - 1)) t_(C-S)/z, kept within the best value;
    the interval follows, and the signature says k."""
    from scipy.stats import norm, t

    y, pred, clusters = _clustered_case(n_clusters=24, seed=3)
    strata = (clusters % 2).astype(np.intp)
    gold = _gold(y, clusters, strata)
    raw = evaluate(_config(cluster="c", strata="s", cluster_correction=False), gold, pred)
    fixed = evaluate(_config(cluster="c", strata="s"), gold, pred)
    sizes = np.bincount(np.unique(np.stack([clusters, strata], 1), axis=0)[:, 1]).astype(float)
    k = np.sqrt(np.mean(sizes / (sizes - 1))) * t.ppf(0.975, 24 - 2) / norm.ppf(0.975)
    assert gold.resampling().expansion(0.95) == pytest.approx(k, rel=1e-10)
    for a, b in zip(raw.scores, fixed.scores):
        expected = np.minimum(a.score + k * (a.replicates - a.score), 1.0)  # f1, accuracy, mcc: best 1
        np.testing.assert_allclose(b.replicates, expected, rtol=1e-12, atol=1e-15)
        assert b.score == a.score
        assert b.interval.high - b.interval.low > a.interval.high - a.interval.low
    assert "|k:%g|" % float("%.4g" % k) in str(fixed.signature)
    assert "|k:" not in str(raw.signature) and "|k:" not in str(evaluate(_config(), _gold(y), pred).signature)


def test_no_correction_for_the_item_bootstrap():
    assert Resampling(100).expansion(0.95) == 1.0
    assert Resampling(6, clusters=np.array([0, 0, 1, 1, 2, 2])).expansion(0.95) > 1.2  # 3 clusters: t_2
