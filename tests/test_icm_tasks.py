"""ICM and ICM-Norm as metrics of ``classification`` and ``multilabel`` equal PyEvALL 0.2.11, on replicates too.

The competitions these metrics serve (EXIST 2022, DIPROMATS 2023, EXIST 2023's
hard evaluations) ship CSV/TSV files; here gold and runs are written in those
tasks' ordinary formats, read by the program's readers and scored by
``evaluate``.  A replicate is checked against PyEvALL run on the data set whose
items are repeated by their resample counts (each copy under its own id), so the
label frequencies behind information content are those of the replicate's gold.
PyEvALL is driven through its metric classes (``tests/test_icm.py``'s helper).
"""

import os
import zipfile

import numpy as np
import pytest
from test_icm import pyevall

from leaderboard_ci.core.resampling import replicate_indices
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.errors import ConfigError
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.scoring.readers import read_gold, read_predictions
from leaderboard_ci.tasks.shared.icm import MonoLabelICM, Tree, hard_icm_terms, icm_from_sums

TOL = 1e-9
SEED = 7
N_CHECKED = 3  # replicates re-run through PyEvALL (tens of ms per metric and replicate)
NAMES = {"icm": "ICM", "icm_norm": "ICMNorm"}

# EXIST 2022 task 1 (binary) and task 2 (six classes, one of them rare)
EXIST22_T1 = ("sexist", "non-sexist")
EXIST22_T2 = (
    "non-sexist",
    "ideological-inequality",
    "stereotyping-dominance",
    "objectification",
    "sexual-violence",
    "misogyny-non-sexual-violence",
)
# EXIST 2023 task 2 (hierarchical mono-label) and a three-level tree
EXIST23_T2 = ("NO", "DIRECT", "REPORTED", "JUDGEMENTAL")
EXIST23_T2_TREE = {"DIRECT": "YES", "REPORTED": "YES", "JUDGEMENTAL": "YES"}
DEEP = ("a1", "a2", "b1", "b2", "c")
DEEP_TREE = {"a1": "A", "a2": "A", "b1": "B", "b2": "B", "A": "AB"}
# DIPROMATS 2023 task 3-like: fine techniques under coarse categories, "false" its own coarse label
DIPROMATS = ("1a", "1b", "2a", "2b", "2c", "3a", "false")
DIPROMATS_TREE = {"1a": "1", "1b": "1", "2a": "2", "2b": "2", "2c": "2", "3a": "3", "false": "false"}


def _pyevall_tree(tree, labels):
    """``{child: parent}`` as PyEvALL's nested hierarchy (a node: dict of its children, a leaf: [])."""
    children = {}
    for child, parent in tree.items():
        if child != parent:
            children.setdefault(parent, []).append(child)
    parents = dict((c, p) for c, p in tree.items() if c != p)

    def sub(node):
        return dict((c, sub(c)) for c in children[node]) if node in children else []

    nodes = list(labels) + [p for p in parents.values() if p not in labels]
    return dict((node, sub(node)) for node in dict.fromkeys(nodes) if node not in parents)


def _rows(n):
    """The full sample, then the first replicates of ``SEED`` (the rows each draws)."""
    return [list(range(n))] + [list(r) for r in replicate_indices(SEED, n, 0, N_CHECKED)]


def _check(scores, metrics, n, expected_of_rows):
    for b, rows in enumerate(_rows(n)):
        for key in metrics:
            expected = expected_of_rows(key, rows)
            got = scores[key].score if b == 0 else scores[key].replicates[b - 1]
            assert abs(got - expected) <= TOL, (key, b, got, expected)


def _config(task, labels, metrics, n_resamples=20, **settings):
    raw = {
        "task": task,
        "metric": metrics[0],
        "extra_metrics": list(metrics[1:]),
        "labels": list(labels),
        "files": {"gold": "gold.csv", "id_column": "id", "gold_column": "label"},
        "bootstrap": {"n_resamples": n_resamples, "seed": SEED, "n_jobs": 1},
    }
    raw.update(settings)
    return parse_config(raw)


def _score(tmp_path, config, gold_rows, pred_rows):
    gold_rows, pred_rows = list(gold_rows), list(pred_rows)
    ref = tmp_path / "ref"
    ref.mkdir(exist_ok=True)
    (ref / "gold.csv").write_text("id,label\n" + "".join("%s,%s\n" % r for r in gold_rows), encoding="utf-8")
    path = tmp_path / "predictions.csv"
    path.write_text("id,label\n" + "".join("%s,%s\n" % r for r in pred_rows), encoding="utf-8")
    gold = read_gold(str(ref), config)
    assert list(gold.ids) == [i for i, _ in gold_rows]
    result = evaluate(config, gold, read_predictions(str(path), config, gold))
    return dict((s.key, s) for s in result.scores)


# ---------------------------------------------------------------------------
# classification: flat (binary, six classes) and hierarchical mono-label
# ---------------------------------------------------------------------------
def _mono_data(seed, n, labels, prior, hit=0.6):
    rng = np.random.RandomState(seed)
    ids = ["%06d" % (100000 + i) for i in range(n)]
    gold = [labels[k] for k in rng.choice(len(labels), size=n, p=prior)]
    pred = [g if rng.rand() < hit else labels[rng.randint(len(labels))] for g in gold]
    return ids, gold, pred


MONO = {
    "exist22_t1": (EXIST22_T1, [0.45, 0.55], None),
    "exist22_t2": (EXIST22_T2, [0.5, 0.15, 0.15, 0.1, 0.08, 0.02], None),
    "exist23_t2": (EXIST23_T2, [0.4, 0.25, 0.15, 0.2], EXIST23_T2_TREE),
    "three_levels": (DEEP, [0.3, 0.2, 0.2, 0.1, 0.2], DEEP_TREE),
    # a label that is the parent of another (a2 under a1): a miss between them has a1 as common ancestor
    "label_parent": (DEEP, [0.3, 0.2, 0.2, 0.1, 0.2], {"a1": "A", "a2": "a1", "b1": "A", "b2": "B"}),
}


@pytest.mark.parametrize("case", sorted(MONO))
def test_classification_icm_equals_pyevall_on_the_sample_and_replicates(tmp_path, case):
    labels, prior, tree = MONO[case]
    ids, gold, pred = _mono_data(len(case), 90, labels, prior)
    metrics = ("icm_norm", "icm")
    settings = {"hierarchy": tree} if tree else {}
    scores = _score(tmp_path, _config("classification", labels, metrics, **settings), zip(ids, gold), zip(ids, pred))
    hierarchy = _pyevall_tree(tree, labels) if tree else None

    def expected(key, rows):
        g = [("%s#%d" % (ids[i], k), gold[i]) for k, i in enumerate(rows)]
        p = [("%s#%d" % (ids[i], k), pred[i]) for k, i in enumerate(rows)]
        return pyevall(NAMES[key], g, p, hierarchy)

    _check(scores, metrics, len(ids), expected)


@pytest.mark.parametrize("tree", [None, DEEP_TREE, {"a1": "A", "a2": "a1", "b1": "A", "b2": "B", "c": "c"}])
def test_class_counts_give_the_per_item_coefficients_sums(tree):
    """MonoLabelICM (class counts, misses per common ancestor) equals hard_icm_terms' per-item sums, weighted."""
    from leaderboard_ci.tasks.shared.icm import tree_pairs

    rng = np.random.RandomState(3)
    labels = DEEP
    t = Tree(labels, tree_pairs((tree or {}).items()), flat=tree is None)
    g, p = rng.randint(0, 5, 300), rng.randint(0, 5, 300)
    p[:100] = g[:100]
    w = rng.poisson(1.0, (6, 300)).astype(float)
    k = len(labels)
    conf = np.stack([np.bincount(g * k + p, weights=row, minlength=k * k).reshape(k, k) for row in w])
    tp, pred, true = np.diagonal(conf, axis1=1, axis2=2), conf.sum(axis=1), conf.sum(axis=2)
    icm_counts = MonoLabelICM(t, labels)
    assert bool(icm_counts.lca_nodes) == (tree is not None)
    width = len(icm_counts.lca_nodes) + 1
    lca = np.stack([np.bincount(icm_counts.lca_codes(g, p), weights=row, minlength=width) for row in w])
    assert np.array_equal(icm_counts.lca_counts(conf), lca)  # the confusion layout's way to the same counts
    member, icm, self_icm = hard_icm_terms(t, [[labels[x]] for x in g], [[labels[x]] for x in p])
    got, got_self = icm_counts.scores(tp, pred, true, lca)
    np.testing.assert_allclose(got, icm_from_sums(w.sum(axis=1), w @ member, w @ icm), rtol=0, atol=1e-12)
    np.testing.assert_allclose(got_self, icm_from_sums(w.sum(axis=1), w @ member, w @ self_icm), rtol=0, atol=1e-12)


def test_classification_icm_with_many_classes_and_groups(tmp_path):
    """20 classes (the reduced layout: misses counted per common ancestor), flat and over a hierarchy, per group."""
    labels = tuple("c%02d" % k for k in range(20))
    tree = dict(("c%02d" % k, "P%d" % (k % 3)) for k in range(12))
    rng = np.random.RandomState(5)
    n = 80
    ids = ["i%03d" % i for i in range(n)]
    gold = [labels[k] for k in rng.randint(0, 20, n)]
    pred = [x if rng.rand() < 0.5 else labels[rng.randint(20)] for x in gold]
    groups = ["en" if i % 3 else "es" for i in range(n)]
    for settings in ({}, {"hierarchy": tree}):
        config = _config(
            "classification",
            labels,
            ("icm_norm", "icm"),
            groups={"column": "lang"},
            files={"gold": "gold.csv", "id_column": "id", "gold_column": "label"},
            **settings,
        )
        ref = tmp_path / ("ref%d" % len(settings))
        ref.mkdir()
        rows = "".join("%s,%s,%s\n" % r for r in zip(ids, gold, groups))
        (ref / "gold.csv").write_text("id,label,lang\n" + rows, encoding="utf-8")
        path = tmp_path / "predictions.csv"
        path.write_text("id,label\n" + "".join("%s,%s\n" % r for r in zip(ids, pred)), encoding="utf-8")
        g = read_gold(str(ref), config)
        result = evaluate(config, g, read_predictions(str(path), config, g))
        hierarchy = _pyevall_tree(tree, labels) if settings else None
        for s in result.scores:
            keep = [i for i in range(n) if s.group is None or groups[i] == s.group]
            expected = pyevall(
                NAMES[s.metric.name], [(ids[i], gold[i]) for i in keep], [(ids[i], pred[i]) for i in keep], hierarchy
            )
            assert abs(s.score - expected) <= TOL, (settings, s.key, s.score, expected)
        assert set(s.group for s in result.scores) == {None, "en", "es"}


# ---------------------------------------------------------------------------
# multilabel: flat, over the hierarchy's tree, and on the coarse level
# ---------------------------------------------------------------------------
def _multi_data(seed, n, labels, empty=0.1):
    rng = np.random.RandomState(seed)
    skew = rng.dirichlet(np.ones(len(labels)) * 3.0)
    ids = ["%06d" % (200000 + i) for i in range(n)]
    gold, pred = [], []
    for _ in range(n):
        g = [] if rng.rand() < empty else sorted(rng.choice(labels, size=rng.randint(1, 4), replace=False, p=skew))
        p = [x for x in g if rng.rand() < 0.7] + [x for x in labels if x not in g and rng.rand() < 0.1]
        gold.append(list(g))
        pred.append(p)
    return ids, gold, pred


# DIPROMATS 2023 task 3 as PyEvALL's tree has it: technique -> category -> true (three levels)
DIPROMATS_DEEP = dict(DIPROMATS_TREE, **{"1": "true", "2": "true", "3": "true"})
MULTI = {
    # flat: PyEvALL implements multi-label ICM only with a hierarchy; every label a top-level leaf is flat ICM
    "flat": (DIPROMATS, None, "fine"),
    "dipromats_tree": (DIPROMATS, DIPROMATS_TREE, "fine"),
    "dipromats_coarse": (DIPROMATS, DIPROMATS_TREE, "coarse"),
    "dipromats_three_levels": (DIPROMATS, DIPROMATS_DEEP, "fine"),
    "dipromats_three_levels_coarse": (DIPROMATS, DIPROMATS_DEEP, "coarse"),
}


@pytest.mark.parametrize("case", sorted(MULTI))
def test_multilabel_icm_equals_pyevall_on_the_sample_and_replicates(tmp_path, case):
    labels, tree, level = MULTI[case]
    ids, gold, pred = _multi_data(len(case), 80, labels, empty=0.1 if tree is None else 0.0)
    prefix = "coarse_" if level == "coarse" else ""
    metrics = (prefix + "icm_norm", prefix + "icm")
    settings = {"hierarchy": tree} if tree else {}
    scores = _score(
        tmp_path,
        _config("multilabel", labels, metrics, **settings),
        [(i, "|".join(g)) for i, g in zip(ids, gold)],
        [(i, "|".join(p)) for i, p in zip(ids, pred)],
    )
    if level == "coarse":
        up = lambda sets: [sorted(set(tree[x] for x in s)) for s in sets]  # noqa: E731
        gold, pred = up(gold), up(pred)
        hierarchy = dict((c, []) for c in dict.fromkeys(tree[x] for x in labels))  # the labels' parents
    else:
        hierarchy = _pyevall_tree(tree, labels) if tree else dict((x, []) for x in labels)

    def expected(key, rows):
        g = [("%s#%d" % (ids[i], k), gold[i]) for k, i in enumerate(rows)]
        p = [("%s#%d" % (ids[i], k), pred[i]) for k, i in enumerate(rows)]
        return pyevall(NAMES[key[len(prefix) :]], g, p, hierarchy)

    _check(scores, metrics, len(ids), expected)


# ---------------------------------------------------------------------------
# Names, titles, signature and configuration mistakes
# ---------------------------------------------------------------------------
def test_names_titles_directions_and_signature():
    config = _config(
        "classification", EXIST23_T2, ("icm_norm", {"name": "icmnorm", "key": "n2"}, "icm"), hierarchy=EXIST23_T2_TREE
    )
    specs = dict((m.key, m) for m in config.metrics)
    assert specs["icm_norm"].title == "ICM-Norm" and specs["icm"].title == "ICM" and specs["n2"].name == "icm_norm"
    assert specs["icm"].info.direction == "higher" and specs["icm_norm"].info.best == 1.0
    from leaderboard_ci.tasks.registry import task_type
    from leaderboard_ci.tasks.shared.base import GoldStandard

    gold = GoldStandard(
        values=np.zeros(3, dtype=np.intp), labels=EXIST23_T2, task="classification", settings=config.task_settings
    )
    sig = task_type("classification").metrics["icm_norm"].signature(specs["icm_norm"], gold)
    assert sig == "alpha1:2|alpha2:2|beta:3|ic:gold-per-replicate|tree:2-level,5-nodes"
    flat = _config("multilabel", DIPROMATS, ("icm",))
    gold = GoldStandard(values=np.zeros((3, 7), dtype=np.int64), labels=DIPROMATS, task="multilabel")
    signature = task_type("multilabel").metrics["icm"].signature
    assert signature(flat.metrics[0], gold).endswith("tree:flat")


@pytest.mark.parametrize(
    "task, metrics, settings, message",
    [
        ("classification", ("accuracy",), {"hierarchy": EXIST23_T2_TREE}, "hierarchy is used only by icm and icm_norm"),
        ("classification", ("icm",), {"hierarchy": {"DIRECT": "YES", "YES": "DIRECT"}}, "cycle"),
        ("classification", ("icm",), {"hierarchy": ["DIRECT"]}, "hierarchy must map each label"),
        ("classification", ("icm",), {"hierarchy": {"MAYBE": "YES"}}, "neither one of the labels"),
        ("classification", ("icm_macro",), {}, None),
        ("multilabel", ("icm",), {"hierarchy": {"1a": "1b", "1b": "1a"}}, "icm over the hierarchy needs a tree"),
        ("multilabel", ("icm_norm",), {"hierarchy": {"1a": "1b", "1b": "1b"}}, "no coarse label for"),
    ],
)
def test_config_mistakes_are_one_sentence(task, metrics, settings, message):
    labels = EXIST23_T2 if task == "classification" else DIPROMATS
    with pytest.raises(ConfigError) as info:
        _config(task, labels, metrics, **settings)
    text = str(info.value)
    assert "\n" not in text and (message is None or message in text), text


def test_icm_takes_no_average():
    with pytest.raises(ConfigError, match="takes no average"):
        _config("classification", EXIST22_T1, ({"name": "icm", "average": "macro"},))
    with pytest.raises(ConfigError, match="takes no average"):
        _config("multilabel", DIPROMATS, ({"name": "icm_norm", "average": "macro"},))


def _zip(path, name, text):
    with zipfile.ZipFile(str(path), "w") as z:
        z.writestr(name, text)
    return str(path)


# ---------------------------------------------------------------------------
# The scoring program end to end and the end of phase
# ---------------------------------------------------------------------------
def _competition(tmp_path, n=150, n_systems=4, hierarchy=""):
    """An EXIST 2022 task 2-like reference folder (``metric: icm_norm``) and ``n_systems`` submissions."""
    ids, gold, _ = _mono_data(11, n, EXIST22_T2, MONO["exist22_t2"][1])
    ref = tmp_path / "reference_data"
    ref.mkdir()
    (ref / "gold.tsv").write_text("id\tlabel\n" + "".join("%s\t%s\n" % r for r in zip(ids, gold)), encoding="utf-8")
    (ref / "config.yaml").write_text(
        "metric: icm_norm\nextra_metrics: [icm, accuracy]\nlabels: [%s]\n"
        "files: {gold: gold.tsv, id_column: id, gold_column: label}\n"
        "bootstrap: {n_resamples: 500, seed: 99}\n%s" % (", ".join(EXIST22_T2), hierarchy),
        encoding="utf-8",
    )
    subs = tmp_path / "submissions"
    subs.mkdir()
    rng = np.random.RandomState(4)
    paths = []
    for s in range(n_systems):
        hit = 0.3 + 0.15 * s
        pred = [g if rng.rand() < hit else EXIST22_T2[rng.randint(6)] for g in gold]
        text = "id\tlabel\n" + "".join("%s\t%s\n" % r for r in zip(ids, pred))
        paths.append(_zip(subs / ("system%d.zip" % s), "predictions.tsv", text))
    return str(ref), str(subs), paths, ids, gold


@pytest.fixture(scope="module")
def competition(tmp_path_factory):
    return _competition(tmp_path_factory.mktemp("icm_competition"))


def test_the_program_scores_icm_norm_in_a_fresh_tree(competition, tmp_path):
    from leaderboard_ci.tools.local_worker import run_scoring

    ref, _, paths, ids, gold = competition
    program = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scoring_program")
    run = run_scoring(str(tmp_path / "run"), program, ref, paths[2])
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    with zipfile.ZipFile(paths[2]) as z:
        pred = [line.split("\t")[1] for line in z.read("predictions.tsv").decode().splitlines()[1:]]
    g = [(i, x) for i, x in zip(ids, gold)]
    p = [(i, x) for i, x in zip(ids, pred)]
    assert abs(run.scores["icm_norm"] - pyevall("ICMNorm", g, p)) <= TOL
    assert abs(run.scores["icm"] - pyevall("ICM", g, p)) <= TOL
    assert run.scores["icm_norm_ci_low"] <= run.scores["icm_norm"] <= run.scores["icm_norm_ci_high"]


def test_the_end_of_phase_gives_the_leaderboards_intervals(competition, tmp_path):
    import json

    from leaderboard_ci.cli import end_of_phase as cli
    from leaderboard_ci.tools.local_worker import run_scoring

    ref, subs, paths, _, _ = competition
    out = tmp_path / "report"
    assert (
        cli.main(
            ["--reference", ref, "--submissions", subs, "--out", str(out), "--no-progress", "--figure-files", "none"]
        )
        == 0
    )
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    program = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scoring_program")
    for path in paths:
        name = os.path.splitext(os.path.basename(path))[0]
        run = run_scoring(str(tmp_path / name), program, ref, path)
        assert run.returncode == 0, run.stderr
        for key in ("icm_norm", "icm"):
            row = next(s for s in data["metrics"][key]["systems"] if s["name"] == name)
            assert (row["score"], row["ci_low"], row["ci_high"]) == (
                run.scores[key],
                run.scores[key + "_ci_low"],
                run.scores[key + "_ci_high"],
            ), (name, key)


def test_the_scores_task_scores_icm_on_the_arg_max_labels():
    """``scores`` takes classification's metrics on its predicted labels: ICM on the arg-max equals PyEvALL's."""
    from leaderboard_ci.phase.analysis import analyze

    rng = np.random.RandomState(8)
    labels = ("a", "b", "c")
    y = [labels[k] for k in rng.choice(3, 120, p=[0.5, 0.3, 0.2])]
    onehot = np.array([[x == label for label in labels] for x in y], dtype=float)
    systems = dict(("s%d" % s, onehot * (0.5 + 0.4 * s) + rng.dirichlet(np.ones(3), 120)) for s in range(3))
    result = analyze(y, systems, metric="icm_norm", extra_metrics=["icm"], n_resamples=50, seed=1, task="scores")
    ids = ["%d" % i for i in range(120)]
    for metric, name in (("icm_norm", "ICMNorm"), ("icm", "ICM")):
        table = result.targets[metric].systems.set_index("name")
        for s, p in systems.items():
            pred = [labels[k] for k in p.argmax(axis=1)]
            expected = pyevall(name, list(zip(ids, y)), list(zip(ids, pred)))
            assert abs(table.loc[s, "score"] - expected) <= TOL, (metric, s)


def test_icm_norm_is_0_where_pyevall_divides_by_zero(tmp_path):
    """Every gold item of one class: ICM(G, G) = 0, PyEvALL raises; the documented value is 0."""
    ids = ["%03d" % i for i in range(30)]
    pred = ["sexist" if i % 3 else "non-sexist" for i in range(30)]
    config = _config("classification", EXIST22_T1, ("icm_norm", "icm"))
    scores = _score(tmp_path, config, [(i, "sexist") for i in ids], list(zip(ids, pred)))
    assert scores["icm_norm"].score == 0.0 and np.all(scores["icm_norm"].replicates == 0.0)
    expected = pyevall("ICM", [(i, "sexist") for i in ids], list(zip(ids, pred)))
    assert abs(scores["icm"].score - expected) <= TOL
    with pytest.raises(ZeroDivisionError):
        pyevall("ICMNorm", [(i, "sexist") for i in ids], list(zip(ids, pred)))


@pytest.mark.parametrize("task", ["classification", "multilabel"])
def test_end_of_phase_stacking_equals_the_per_submission_replicates_bit_for_bit(task):
    """Three systems stacked at the end of phase give each system's own replicates, bit for bit."""
    from leaderboard_ci.core.replicates import compute_replicates
    from leaderboard_ci.phase.analysis.systems import score_systems
    from leaderboard_ci.tasks.shared.base import GoldStandard
    from leaderboard_ci.tasks.shared.scorer import SystemScorer

    rng = np.random.RandomState(6)
    n, b = 120, 200
    if task == "classification":
        labels, tree = EXIST23_T2, EXIST23_T2_TREE
        y = rng.randint(0, 4, n).astype(np.intp)
        systems = [np.where(rng.rand(n) < hit, y, rng.randint(0, 4, n)).astype(np.intp) for hit in (0.3, 0.5, 0.8)]
        metrics = ["icm"]
    else:
        labels, tree = DIPROMATS, DIPROMATS_TREE
        y = (rng.rand(n, 7) < 0.25).astype(np.int64)
        systems = [np.where(rng.rand(n, 7) < hit, y, 1 - y).astype(np.int64) for hit in (0.6, 0.75, 0.9)]
        metrics = ["icm", "coarse_icm_norm", "f1_macro"]
    config = parse_config(
        {
            "task": task,
            "metric": "icm_norm",
            "extra_metrics": metrics,
            "labels": list(labels),
            "hierarchy": tree,
            "bootstrap": {"n_resamples": b, "seed": SEED},
        }
    )
    gold = GoldStandard(values=y, labels=labels, task=task, settings=config.task_settings)
    stacked = score_systems(config, gold, systems, ["a", "b", "c"])
    for j, system in enumerate(systems):
        scorer = SystemScorer(config.metrics, gold, system)
        full = scorer.scores([a.full()[None, :] for a in scorer.accumulators])[0]
        reps = scorer.scores(compute_replicates(scorer.accumulators, gold.n, SEED, b))
        assert np.array_equal(stacked.full[j], full)
        assert np.array_equal(stacked.replicates[:, j, :], reps)


def test_the_permutation_test_runs_on_icm_and_a_system_against_itself_gets_p_1():
    from leaderboard_ci.phase.analysis import analyze
    from leaderboard_ci.tasks.shared.base import GoldStandard

    rng = np.random.RandomState(12)
    y = (rng.rand(80, 7) < 0.25).astype(np.int64)
    p = np.where(rng.rand(80, 7) < 0.8, y, 1 - y).astype(np.int64)
    other = np.where(rng.rand(80, 7) < 0.7, y, 1 - y).astype(np.int64)
    config = parse_config(
        {
            "task": "multilabel",
            "metric": "icm_norm",
            "labels": list(DIPROMATS),
            "hierarchy": DIPROMATS_TREE,
            "bootstrap": {"n_resamples": 200, "seed": SEED},
            "analysis": {"test": "permutation", "n_permutations": 200},
        }
    )
    gold = GoldStandard(values=y, labels=DIPROMATS, task="multilabel", settings=config.task_settings)
    pairs = analyze(gold, {"a": p, "b": p.copy(), "c": other}, config=config).official.pairs
    same = pairs[((pairs["a"] == "a") & (pairs["b"] == "b")) | ((pairs["a"] == "b") & (pairs["b"] == "a"))]
    assert len(same) == 1 and float(same["p_value"].iloc[0]) == 1.0
    assert ((pairs["p_value"] > 0) & (pairs["p_value"] <= 1)).all()


def _multilabel_competition(tmp_path):
    """A DIPROMATS-like reference folder (``metric: icm_norm`` over the hierarchy) and one submission."""
    ids, gold, pred = _multi_data(21, 120, DIPROMATS, empty=0.0)
    ref = tmp_path / "reference_data"
    ref.mkdir()
    (ref / "gold.csv").write_text("id,labels\n" + "".join("%s,%s\n" % (i, "|".join(g)) for i, g in zip(ids, gold)))
    hierarchy = ", ".join("'%s': '%s'" % kv for kv in DIPROMATS_TREE.items())
    (ref / "config.yaml").write_text(
        "task: multilabel\nmetric: icm_norm\nextra_metrics: [icm, coarse_icm_norm, f1_macro]\n"
        "labels: [%s]\nhierarchy: {%s}\nfiles: {gold: gold.csv, id_column: id, gold_column: labels}\n"
        "bootstrap: {n_resamples: 300, seed: 3}\n" % (", ".join("'%s'" % x for x in DIPROMATS), hierarchy)
    )
    text = "id,labels\n" + "".join("%s,%s\n" % (i, "|".join(p)) for i, p in zip(ids, pred))
    return str(ref), _zip(tmp_path / "run.zip", "predictions.csv", text)


@pytest.mark.image
@pytest.mark.parametrize("task", ["classification", "classification_tree", "multilabel"])
def test_the_py37_and_py312_images_write_the_same_bytes(task, tmp_path):
    from leaderboard_ci.tools.local_worker import run_scoring

    pythons = [os.environ.get(v) for v in ("LEADERBOARD_CI_PY37", "LEADERBOARD_CI_PY312")]
    if not all(pythons):
        pytest.skip("set LEADERBOARD_CI_PY37 and LEADERBOARD_CI_PY312 to the images' interpreters (.ci/run does)")
    if task.startswith("classification"):
        tree = "hierarchy: {%s}\n" % ", ".join("%s: sexist" % c for c in EXIST22_T2[1:4])
        ref, _, paths, _, _ = _competition(tmp_path, hierarchy=tree if task.endswith("tree") else "")
        path = paths[1]
    else:
        ref, path = _multilabel_competition(tmp_path)
    program = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scoring_program")
    runs = [run_scoring(str(tmp_path / ("run%d" % k)), program, ref, path, python=py) for k, py in enumerate(pythons)]
    for run in runs:
        assert run.returncode == 0 and run.stderr == "", run.stderr
        assert "icm_norm_ci_low" in run.scores
    assert runs[0].scores_json_bytes == runs[1].scores_json_bytes
