"""EXIST 2023's own rules for hard labels, its annotation files and its kit's gold layout (issue 31).

EXIST derives each task's hard gold from its six annotators (the organizers' reader, EXISTReader, and the
overview: "the class annotated by more than 3 annotators" for task 1, "more than 2" for task 2, "the classes
annotated by more than 1 annotator" for task 3, where a majority of NO gives only NO); items with no such
class (a tie) are left out of the hard evaluation.  Here the hard gold is derived from the votes
*independently* (counts of annotators, no probabilities), and the scoring program, reading the same votes
from EXIST's own data set layout (an annotator's NO written ``-`` in tasks 2 and 3) with the documented
settings (``hard_threshold: 1/3``; ``hard_threshold: 1/6`` with ``hard_exclusive: NO``), must give every hard
metric PyEvALL 0.2.11 gives on that independent gold, on the full sample and on replicates (each drawn item
repeated as often as drawn).
"""

import json
from collections import Counter

import numpy as np
import pytest
from test_icm import PYEVALL_NAMES, TASK2, TASK2_TREE, TASK3, TASK3_TREE, _nested, pyevall

from leaderboard_ci.core.resampling import replicate_indices
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.errors import ConfigError
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.scoring.readers import read_gold, read_predictions
from leaderboard_ci.tasks.soft_labels.metrics import hard_sets

TOL = 1e-9
N_CHECKED = 3
HARD = ("icm_norm", "icm", "f1", "precision", "recall")
CATEGORIES = TASK3[1:]


def exist_votes(seed, n, task):
    """Six annotators per item, as EXIST 2023's data set writes them: task 2 one label each, task 3 a list,
    an annotator's NO written ``-``."""
    rng = np.random.RandomState(seed)
    out = {}
    for i in range(n):
        no_rate = rng.choice([0.2, 0.5, 0.8])
        votes = []
        for _ in range(6):
            if rng.rand() < no_rate:
                votes.append("-" if task == 2 else ["-"])
            elif task == 2:
                votes.append(str(rng.choice(TASK2[1:], p=[0.5, 0.3, 0.2])))
            else:
                votes.append([str(c) for c in rng.choice(CATEGORIES, size=rng.randint(1, 3), replace=False)])
        out["3%05d" % i] = votes
    return out


def exist_hard_gold(votes, task):
    """EXIST's hard gold from the annotators' votes alone (None: left out), ``-`` read as NO."""
    if task == 2:
        counts = Counter("NO" if v == "-" else v for v in votes).most_common()
        if counts[0][1] > 2 and (len(counts) == 1 or counts[1][1] != counts[0][1]):
            return counts[0][0]
        return None
    counts = Counter("NO" if label == "-" else label for v in votes for label in v)
    if counts["NO"] > 3:  # a majority of the six said NO
        return ["NO"]
    chosen = sorted(label for label, k in counts.items() if label != "NO" and k > 1)
    return chosen or None


def _hard_run(seed, ids, task):
    """A hard run (labels, as EXIST's hard runs are), so that PyEvALL scores exactly what the program reads."""
    rng = np.random.RandomState(seed)
    if task == 2:
        return dict((i, str(rng.choice(TASK2))) for i in ids)
    out = {}
    for i in ids:
        out[i] = ["NO"] if rng.rand() < 0.4 else [str(c) for c in rng.choice(CATEGORIES, rng.randint(1, 3), False)]
    return out


def _setup(tmp_path, task, n=120, seed=3):
    votes = exist_votes(seed, n, task)
    ref = tmp_path / "ref"
    ref.mkdir(exist_ok=True)
    key = "labels_task%d" % task
    dataset = dict((i, {"id_EXIST": i, "lang": "en", key: v, "split": "TEST_EN"}) for i, v in votes.items())
    (ref / "gold.json").write_text(json.dumps(dataset), encoding="utf-8")
    run = _hard_run(seed + 1, list(votes), task)
    path = tmp_path / "run.json"
    path.write_text(json.dumps([{"test_case": "EXIST2023", "id": i, "value": v} for i, v in run.items()]))
    settings = {"annotations": key}
    if task == 2:
        settings.update(labels=list(TASK2), hierarchy=TASK2_TREE, hard_threshold="1/3")
    else:
        settings.update(
            labels=list(TASK3), hierarchy=TASK3_TREE, hard_labels="multi", hard_threshold="1/6", hard_exclusive="NO"
        )
    config = parse_config(
        dict(
            settings,
            task="soft_labels",
            metric=HARD[0],
            extra_metrics=list(HARD[1:]),
            files={"gold": "gold.json"},
            bootstrap={"n_resamples": 20, "seed": 5, "n_jobs": 1},
        )
    )
    gold = read_gold(str(ref), config)
    return votes, run, config, gold, read_predictions(str(path), config, gold)


@pytest.mark.parametrize("task", [2, 3])
def test_the_derived_hard_gold_is_exists(tmp_path, task):
    """The hard gold the program derives from the shares equals EXIST's rule applied to the votes."""
    votes, _, config, gold, _ = _setup(tmp_path, task)
    settings = gold.settings
    derived = hard_sets(
        gold.values,
        gold.labels,
        settings.hard_labels,
        settings.hard_threshold,
        gold=True,
        exclusive=settings.hard_exclusive,
    )
    expected = [exist_hard_gold(votes[i], task) for i in gold.ids]
    ours = [None if d is None else (d[0] if task == 2 else sorted(d)) for d in derived]
    assert ours == expected
    kept = sum(e is not None for e in expected)
    assert 0.3 * gold.n < kept < gold.n  # the rule keeps some items and leaves ties out: the check can fail


@pytest.mark.parametrize("task", [2, 3])
def test_hard_metrics_equal_pyevall_on_exists_hard_gold(tmp_path, task):
    votes, run, config, gold, predictions = _setup(tmp_path, task)
    result = evaluate(config, gold, predictions)
    scores = dict((s.key, s) for s in result.scores)
    order = list(gold.ids)
    tree = _nested(TASK2_TREE if task == 2 else TASK3_TREE)
    rows_list = [np.arange(len(order))] + list(replicate_indices(5, len(order), 0, N_CHECKED))
    for b, rows in enumerate(rows_list):
        hard_gold, hard_pred = [], []
        for k, i in enumerate(rows):
            expected = exist_hard_gold(votes[order[i]], task)
            if expected is not None:
                hard_gold.append(("%s#%d" % (order[i], k), expected))
                hard_pred.append(("%s#%d" % (order[i], k), run[order[i]]))
        for key in HARD:
            reference = pyevall(PYEVALL_NAMES[key], hard_gold, hard_pred, tree if key in ("icm", "icm_norm") else None)
            got = scores[key].score if b == 0 else scores[key].replicates[b - 1]
            assert abs(got - reference) <= TOL, (task, key, b, got, reference)


def test_a_threshold_just_below_a_third_is_what_breaks_task_2():
    """With 2 of 6 votes a label is not above 1/3 (EXIST: more than 2); 0.3333 keeps it, a rounded share of
    2/6 (0.33333334) is not above 1/3 either."""
    labels = TASK2
    shares = np.array(
        [[2 / 6.0, 2 / 6.0, 1 / 6.0, 1 / 6.0], [3 / 6.0, 2 / 6.0, 1 / 6.0, 0.0], [0.33333334] * 2 + [1 / 6.0] * 2]
    )
    assert hard_sets(shares, labels, "mono", 1 / 3.0, gold=True) == [None, ["NO"], None]
    assert hard_sets(shares, labels, "mono", 0.3333, gold=True) == [None, None, None]
    config = parse_config({"task": "soft_labels", "metric": "f1", "labels": list(labels), "hard_threshold": "1/3"})
    assert config.task_settings.hard_threshold == 1 / 3.0


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"hard_threshold": "1/0"}, "hard_threshold must be a number or a fraction such as 1/3"),
        ({"hard_threshold": "a third"}, "hard_threshold must be a number or a fraction such as 1/3"),
        ({"hard_threshold": 1.5}, "hard_threshold must be a number in [0, 1)"),
        ({"hard_exclusive": "NO"}, "hard_exclusive is a rule of multi-label hard gold: set hard_labels: multi"),
        ({"hard_exclusive": "MAYBE", "hard_labels": "multi"}, "hard_exclusive names 'MAYBE', which is not one"),
        ({"hard_exclusive": {"NO": 2}, "hard_labels": "multi"}, "hard_exclusive's share must be a number in [0, 1)"),
    ],
)
def test_bad_hard_label_settings_say_what_is_expected(settings, message):
    with pytest.raises(ConfigError) as info:
        parse_config(dict(settings, task="soft_labels", metric="f1", labels=list(TASK3)))
    assert message in str(info.value)


def test_the_exist_kit_gold_layout_reads_as_the_run_format(tmp_path):
    """``{id: {"soft_label": {...}, "hard_label": ...}}`` (EXIST's evaluation kit) gives the same gold."""
    shares = {"1": {"YES": 0.5, "NO": 0.5}, "2": {"YES": 1 / 6.0, "NO": 5 / 6.0}}
    config = parse_config(
        {"task": "soft_labels", "metric": "icm_soft", "labels": ["YES", "NO"], "files": {"gold": "g.json"}}
    )
    golds = []
    for layout in (
        [{"test_case": "EXIST2023", "id": i, "value": v} for i, v in shares.items()],
        dict((i, {"soft_label": v, "hard_label": "YES"}) for i, v in shares.items()),
    ):
        ref = tmp_path / ("ref%d" % len(golds))
        ref.mkdir()
        (ref / "g.json").write_text(json.dumps(layout), encoding="utf-8")
        golds.append(read_gold(str(ref), config))
    assert golds[0].ids == golds[1].ids and np.array_equal(golds[0].values, golds[1].values)


def test_an_annotators_dash_is_no(tmp_path):
    ref = tmp_path / "ref"
    ref.mkdir()
    data = {"1": {"labels_task2": ["-", "-", "DIRECT", "-", "REPORTED", "DIRECT"]}}
    (ref / "gold.json").write_text(json.dumps(data), encoding="utf-8")
    config = parse_config(
        {"task": "soft_labels", "metric": "f1", "labels": list(TASK2), "annotations": "labels_task2"}
        | {"files": {"gold": "gold.json"}}
    )
    assert read_gold(str(ref), config).values.tolist() == [[0.5, 2 / 6.0, 1 / 6.0, 0.0]]


def _soft_data(seed, n):
    rng = np.random.RandomState(seed)
    gold, run = {}, {}
    for i in range(n):
        g = rng.multinomial(6, [0.4, 0.3, 0.2, 0.1]) / 6.0
        p = rng.dirichlet(np.ones(4))
        gold["%d" % i] = dict(zip(TASK2, [float(x) for x in g]))
        run["%d" % i] = dict((label, round(float(x), 5)) for label, x in zip(TASK2, p) if x > 0.05)  # some omitted
    return gold, run


def test_mae_equals_pyevall(tmp_path):
    """PyEvALL's MAE (mean over items of the mean absolute difference over the gold's classes), on the full
    sample and replicates; an omitted prediction counts 0."""
    gold_map, run = _soft_data(4, 80)
    ref = tmp_path / "ref"
    ref.mkdir()
    (ref / "gold.json").write_text(json.dumps([{"test_case": "T", "id": i, "value": v} for i, v in gold_map.items()]))
    path = tmp_path / "run.json"
    path.write_text(json.dumps([{"test_case": "T", "id": i, "value": v} for i, v in run.items()]))
    config = parse_config(
        {
            "task": "soft_labels",
            "metric": "mae",
            "labels": list(TASK2),
            "files": {"gold": "gold.json"},
            "bootstrap": {"n_resamples": 20, "seed": 5, "n_jobs": 1},
        }
    )
    gold = read_gold(str(ref), config)
    score = evaluate(config, gold, read_predictions(str(path), config, gold)).scores[0]
    order = list(gold.ids)
    for b, rows in enumerate([np.arange(len(order))] + list(replicate_indices(5, len(order), 0, N_CHECKED))):
        ids = ["%s#%d" % (order[i], k) for k, i in enumerate(rows)]
        reference = pyevall(
            "MAE", [(x, gold_map[order[i]]) for x, i in zip(ids, rows)], [(x, run[order[i]]) for x, i in zip(ids, rows)]
        )
        got = score.score if b == 0 else score.replicates[b - 1]
        assert abs(got - reference) <= TOL, (b, got, reference)
