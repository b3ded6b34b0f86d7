"""Multi-label files: every format reads the same label sets, and every mistake is one sentence.

Each bad input runs through the platform adapter (``codabench.run``) as the worker runs it:
exit code 1 (participant) or 2 (organizer), one line on stderr naming the file and line,
no traceback, and never a gold label (the gold's labels here are names no prediction uses).
"""

import io
import json
import os

import numpy as np
import pytest

from leaderboard_ci.scoring import codabench
from leaderboard_ci.scoring.config import load_config
from leaderboard_ci.scoring.readers import read_gold, read_predictions

GOLD = "id,labels\nt1,alpha|beta\nt2,\nt3,gamma\nt4,alpha|gamma\n"
SECRET = "zeta_secret"  # a gold-only label: no message may show it
GOLD_WITH_SECRET = GOLD + "t5,%s\n" % SECRET
EXPECTED = np.array([[1, 1, 0], [0, 0, 0], [0, 0, 1], [1, 0, 1]], dtype=np.uint8)


def _setup(tmp_path, gold=GOLD, config="", prediction=None, name="predictions.csv"):
    program = tmp_path / "program"
    ref = tmp_path / "input" / "ref"
    res = tmp_path / "input" / "res"
    for folder in (program, ref, res):
        folder.mkdir(parents=True, exist_ok=True)
    (program / "config.yaml").write_text("task: multilabel\nmetric: f1_macro\nbootstrap: {n_resamples: 50}\n" + config)
    (ref / "gold.csv").write_text(gold)
    if prediction is not None:
        (res / name).write_text(prediction)
    return str(program), str(tmp_path / "input"), str(ref), str(res / name)


def _run(tmp_path, prediction, name="predictions.csv", gold=GOLD, config=""):
    program, input_dir, _, _ = _setup(tmp_path, gold, config, prediction, name)
    out, err = io.StringIO(), io.StringIO()
    code = codabench.run(input_dir, str(tmp_path / "output"), program, stdout=out, stderr=err)
    return code, err.getvalue()


@pytest.mark.parametrize(
    "name, text",
    [
        ("p.csv", "id,labels\nt4,gamma|alpha\nt1,alpha|beta\nt3,gamma\nt2,\n"),
        ("p.tsv", "id\tlabels\nt1\talpha|beta\nt2\t\nt3\tgamma\nt4\talpha|gamma\n"),
        ("p.csv", "id,gamma,alpha,beta\nt1,0,1,1\nt2,0,0,0\nt3,1,0,0\nt4,1,1,0\n"),
        ("p.json", '{"t1": ["alpha", "beta"], "t2": [], "t3": ["gamma"], "t4": ["alpha", "gamma"]}'),
        (
            "p.json",
            '[{"id": "t1", "labels": ["alpha", "beta"]}, {"id": "t2", "labels": []},\n'
            ' {"id": "t3", "labels": ["gamma"]}, {"id": "t4", "labels": ["gamma", "alpha"]}]',
        ),
        (
            "p.jsonl",
            '{"id": "t1", "labels": ["alpha", "beta"]}\n{"id": "t2", "labels": []}\n'
            '{"id": "t3", "labels": ["gamma"]}\n{"id": "t4", "labels": ["alpha", "gamma"]}\n\n',
        ),
        ("p.txt", 'id,labels\nt1,"alpha|beta"\nt2,\nt3,gamma\nt4, alpha | gamma \n'),
        ("p.json", '{"t1": "alpha|beta", "t2": "", "t3": ["gamma"], "t4": "alpha|gamma"}'),
    ],
)
def test_every_format_reads_the_same_label_sets(tmp_path, name, text):
    program, _, ref, path = _setup(tmp_path, prediction=text, name=name)
    config = load_config(program, ref)
    gold = read_gold(ref, config)
    assert gold.labels == ("alpha", "beta", "gamma")
    assert np.array_equal(np.asarray(gold.values), EXPECTED)
    assert np.array_equal(read_predictions(path, config, gold), EXPECTED)


@pytest.mark.parametrize(
    "gold_text, name",
    [
        ("id,alpha,beta,gamma\nt1,1,1,0\nt2,0,0,0\nt3,0,0,1\nt4,1,0,1\n", "gold.csv"),
        ('{"t1": ["alpha", "beta"], "t2": [], "t3": ["gamma"], "t4": ["alpha", "gamma"]}', "gold.json"),
    ],
)
def test_gold_formats(tmp_path, gold_text, name):
    program, _, ref, path = _setup(
        tmp_path,
        config="files: {gold: %s}\n" % name,
        prediction="id,labels\nt1,alpha|beta\nt2,\nt3,gamma\nt4,alpha|gamma\n",
    )
    with open(os.path.join(ref, name), "w") as handle:
        handle.write(gold_text)
    config = load_config(program, ref)
    gold = read_gold(ref, config)
    assert np.array_equal(np.asarray(gold.values), EXPECTED)


def test_custom_separator_and_configured_labels_keep_their_order(tmp_path):
    program, _, ref, path = _setup(
        tmp_path,
        gold=GOLD.replace("|", ";"),
        config="label_separator: ';'\nlabels: [gamma, beta, alpha, delta]\n",
        prediction='id,labels\nt1,alpha;beta\nt2,\nt3,gamma\nt4,"alpha;gamma"\n',
    )
    config = load_config(program, ref)
    gold = read_gold(ref, config)
    assert gold.labels == ("gamma", "beta", "alpha", "delta")
    assert read_predictions(path, config, gold)[3].tolist() == [1, 0, 1, 0]


BAD = [
    (
        "wrong separator",
        "id,labels\nt1,alpha;beta\nt2,\nt3,gamma\nt4,gamma\n",
        "",
        "predictions.csv line 2: label 'alpha;beta' is not one of the task's labels (labels are case-sensitive); "
        "labels in one cell are separated by '|', not ';'",
    ),
    (
        "unquoted commas",
        "id,labels\nt1,alpha,beta\n",
        "",
        "predictions.csv line 2: expected 2 fields, found 3 (a cell holding several labels must be in double quotes, "
        "or separate its labels by '|')",
    ),
    (
        "unknown label, configured labels",
        "id,labels\nt1,Alpha\nt2,\nt3,gamma\nt4,gamma\n",
        "labels: [alpha, beta, gamma]\n",
        "predictions.csv line 2: label 'Alpha' is not one of the labels: alpha, beta, gamma (labels are "
        "case-sensitive; did you mean 'alpha'?)",
    ),
    (
        "duplicate label",
        "id,labels\nt1,alpha|alpha\n",
        "",
        "predictions.csv line 2: the label 'alpha' appears twice in the item's labels; list each label once",
    ),
    (
        "empty label",
        "id,labels\nt1,alpha||beta\n",
        "",
        "predictions.csv line 2: a label is empty (two separators '|' in a row, or one at the start or end); "
        "remove the extra "
        "separator (an item with no labels is an empty cell)",
    ),
    (
        "non-0/1 indicator",
        "id,alpha,beta,gamma\nt1,1,2,0\n",
        "",
        "predictions.csv line 2: the column 'beta' holds '2'; expected 0 or 1",
    ),
    (
        "missing label column",
        "id,alpha,beta\nt1,1,0\n",
        "",
        "predictions.csv line 1: the header has 2 label columns; expected one 0/1 column per label (3)",
    ),
    (
        "missing label column, configured",
        "id,alpha,beta\nt1,1,0\n",
        "labels: [alpha, beta, gamma]\n",
        "predictions.csv line 1: the header has no 0/1 column for label 'gamma'; expected one column per label: "
        "alpha, beta, gamma",
    ),
    (
        "duplicate id",
        "id,labels\nt1,alpha\nt1,beta\n",
        "",
        "predictions.csv line 3: id 't1' appears again (first on line 2); give one prediction per id",
    ),
    (
        "extra id",
        "id,labels\nt1,alpha\nt2,\nt3,\nt4,\nt9,\n",
        "",
        "predictions.csv line 6: id 't9' is not in the test set; expected ids like 't1'",
    ),
    (
        "missing ids",
        "id,labels\nt1,alpha\nt2,\n",
        "",
        "predictions.csv is missing 2 of the 4 test ids (e.g. 't3', 't4'); give one prediction for every id",
    ),
    (
        "no id column",
        "labels\nalpha\n\n",
        "",
        "predictions.csv line 2: the item has no id; give each prediction its id (a 'id' column, or "
        '{"id": ..., "labels": [...]} objects)',
    ),
    (
        "blank line",
        "id,labels\nt1,alpha\n\nt2,\n",
        "",
        "predictions.csv line 3: the line is blank; remove blank lines (only trailing blank lines are allowed)",
    ),
    (
        "tsv with commas",
        "id,labels\nt1,alpha\n",
        "files: {format: tsv}\n",
        "predictions.csv line 1: the columns are separated by commas, but a TSV file must separate them by tabs",
    ),
    (
        "no labels column",
        "id,prediction_set\nt1,alpha\n",
        "",
        "predictions.csv line 1: the header has no labels column; the header should be 'id,labels' (the labels of "
        "an item in one cell) or 'id' followed by one 0/1 column per label",
    ),
]


@pytest.mark.parametrize("what, text, config, message", BAD, ids=[b[0] for b in BAD])
def test_bad_predictions_are_one_sentence(tmp_path, what, text, config, message):
    code, err = _run(tmp_path, text, config=config)
    assert code == 1
    assert err == message + "\n"


BAD_JSON = [
    (
        "p.json",
        '{"t1": 7}',
        'p.json line 1: the labels are a JSON int; expected a list of labels such as ["a", "b"] (an empty list '
        "for none)",
    ),
    (
        "p.json",
        '{"t1": ["alpha", 3.5]}',
        "p.json line 1: the list of labels holds a JSON float; expected label names as strings",
    ),
    (
        "p.json",
        '{"t1": ["alpha"],\n "t2": [}',
        "p.json line 2: not valid JSON (Expecting value); expected "
        + '{"id": ["label", ...], ...} or a list of objects [{"id": ..., "labels": [...]}, ...]',
    ),
    (
        "p.jsonl",
        '{"id": "t1", "labels": ["alpha"]}\n{"id": "t2", "labels": ["beta"]',
        "p.jsonl line 2: not valid JSON (Expecting ',' delimiter); JSON Lines hold one JSON object per line",
    ),
    (
        "p.jsonl",
        '{"id": "t1", "label_set": ["alpha"]}\n',
        'p.jsonl line 1: the object has no "labels" key; expected objects like {"id": ..., "labels": [...]}',
    ),
]


@pytest.mark.parametrize("name, text, message", BAD_JSON)
def test_bad_json_is_one_sentence(tmp_path, name, text, message):
    code, err = _run(tmp_path, text, name=name)
    assert code == 1
    assert err == message + "\n"


def test_unknown_label_never_reveals_the_gold_label_set(tmp_path):
    text = "id,labels\nt1,zeta_secrt\nt2,\nt3,\nt4,\nt5,\n"
    code, err = _run(tmp_path, text, gold=GOLD_WITH_SECRET)
    assert code == 1
    assert (
        err == "predictions.csv line 2: label 'zeta_secrt' is not one of the task's labels (labels are "
        "case-sensitive)\n"
    )
    for label in ("alpha", "beta", "gamma", SECRET):
        assert label not in err


@pytest.mark.parametrize(
    "gold, config, message",
    [
        (
            "id,labels\nt1,alpha||beta\n",
            "",
            "ref/gold.csv line 2: a label is empty (two separators '|' in a row, or one at the start or end); "
            "remove the extra "
            "separator (an item with no labels is an empty cell)",
        ),
        (
            "id,labels\nt1,alpha\nt2,%s\n" % SECRET,
            "labels: [alpha, beta]\n",
            "ref/gold.csv line 3: a label is not in the labels list of config.yaml; add it to labels",
        ),
        (
            "id,labels\nt1,%s|%s\n" % (SECRET, SECRET),
            "",
            "ref/gold.csv line 2: a label appears twice in the item's labels; list each label once",
        ),
        (
            "id,labels\nt1,alpha\nt2,%s\n" % SECRET,
            "hierarchy: {alpha: A}\n",
            "ref/gold.csv line 3: a label has no coarse label in hierarchy; "
            "map every label (a label may map to itself)",
        ),
        (
            "id,labels\nt1,alpha\nt1,beta\n",
            "",
            "ref/gold.csv line 3: id 't1' appears again (first on line 2); gold ids must be unique",
        ),
    ],
)
def test_bad_gold_is_an_organizer_sentence_without_gold_labels(tmp_path, gold, config, message):
    code, err = _run(tmp_path, "id,labels\nt1,alpha\n", gold=gold, config=config)
    assert code == 2
    assert err == "Scoring configuration error (for the competition organizers): %s\n" % message
    assert SECRET not in err


def test_scores_json_has_the_configured_keys(tmp_path):
    config = "extra_metrics: [jaccard_samples, hamming_loss, subset_accuracy]\n"
    code, err = _run(tmp_path, "id,labels\nt1,alpha\nt2,\nt3,gamma\nt4,alpha|beta\n", config=config)
    assert code == 0, err
    with open(str(tmp_path / "output" / "scores.json")) as handle:
        scores = json.load(handle)
    assert list(scores)[:3] == ["f1_macro", "f1_macro_ci_low", "f1_macro_ci_high"]
    assert {"jaccard_samples", "hamming_loss", "subset_accuracy"} <= set(scores)
    html = (tmp_path / "output" / "detailed_results.html").read_text()
    assert "Per-label" not in html and "gamma" not in html  # the per-label table is the organizer's opt-in
    table = tmp_path / "table"
    table.mkdir()
    predictions = "id,labels\nt1,alpha\nt2,\nt3,gamma\nt4,alpha|beta\n"
    code, err = _run(table, predictions, config=config + "detailed_results: {per_class: true, min_count: 1}\n")
    assert code == 0, err
    html = (table / "output" / "detailed_results.html").read_text()
    assert "Per-label scores" in html and "gamma" in html


def test_groups_column_and_bca(tmp_path):
    gold = "id,labels,lang\nt1,alpha|beta,en\nt2,,es\nt3,gamma,en\nt4,alpha|gamma,es\nt5,beta,en\nt6,gamma,es\n"
    config = (
        "groups: lang\nextra_metrics: [f1_samples, coarse_f1_micro]\nhierarchy: {alpha: A, beta: A, gamma: G}\n"
        "bootstrap: {n_resamples: 60, method: bca}\n"
    )
    code, err = _run(
        tmp_path, "id,labels\nt1,alpha\nt2,\nt3,gamma|beta\nt4,alpha|gamma\nt5,beta\nt6,\n", gold=gold, config=config
    )
    assert code == 0, err
    with open(str(tmp_path / "output" / "scores.json")) as handle:
        scores = json.load(handle)
    for key in ("f1_macro_en", "f1_macro_es", "f1_samples_en", "coarse_f1_micro_es", "f1_macro_ci_low"):
        assert key in scores
    # t2 and t6 (es) have nothing predicted: the es samples-F1 counts t2 (0/0) as zero_division = 0.
    assert scores["f1_samples_es"] == pytest.approx((0 + 1 + 0) / 3.0)


def test_without_ids_items_align_by_order(tmp_path):
    program, _, ref, path = _setup(
        tmp_path,
        gold="labels\nalpha|beta\n\ngamma\nalpha|gamma\n",
        config="files: {id_column: null}\n",
        prediction='[["alpha", "beta"], [], ["gamma"], ["gamma", "alpha"]]',
        name="p.json",
    )
    config = load_config(program, ref)
    gold = read_gold(ref, config)
    assert gold.ids is None
    assert np.array_equal(read_predictions(path, config, gold), EXPECTED)
    code, err = _run(
        tmp_path / "again",
        "labels\nalpha\n",
        gold="labels\nalpha|beta\n\ngamma\nalpha|gamma\n",
        config="files: {id_column: null}\n",
    )
    assert code == 1
    assert err == "predictions.csv has 1 predictions, expected 4 (one per test item, in the order of the test set)\n"
