"""``files.unscored_ids: ignore`` in every task type that reads its own prediction format (issue 31).

Classification and regression read by the id/value columns (``tasks/shared/columns.ColumnFormat``), which go
through the scoring program's own alignment (``tests/test_batched_reading.py``); the other task types read their
files in a format of their own, and each must honour the setting the
same way: with ``error`` a prediction for an id the gold does not have is refused; with ``ignore`` it is read,
checked (a bad value is refused even under a decoy id) and dropped, so the scores are those of the file without
it; a missing scored item is reported with no count and no id.  The registry is walked: a new task type with its
own prediction format needs a case here (or a reason in ``NO_IDS``).
"""

import json

import numpy as np
import pytest

from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.errors import SubmissionError
from leaderboard_ci.scoring.readers import read_gold, read_predictions
from leaderboard_ci.tasks.registry import TASKS
from leaderboard_ci.tasks.shared.columns import ColumnFormat

#: Task types whose submissions carry no item ids, so that no id can be unscored.
NO_IDS = {
    "preference": "a submission is one line, the name of the participant's model",
    "segmentation": "a folder of masks named by image id: tests/test_segmentation_inputs.py has its case",
}


def _lines(rows):
    return "".join(row + "\n" for row in rows)


def _json_lines(records):
    return _lines(json.dumps(r) for r in records)


_SQUAD = {
    "version": "1.1",
    "data": [
        {
            "title": "t",
            "paragraphs": [
                {
                    "context": "alpha beta gamma",
                    "qas": [
                        {"id": "q%d" % i, "question": "?", "answers": [{"text": "beta", "answer_start": 6}]}
                        for i in range(3)
                    ],
                }
            ],
        }
    ],
}

#: task -> (config, gold file name, gold text, prediction file name, predictions of every scored id,
#: a prediction of the unscored id ``zz``, the same with a bad value, the predictions without one scored id)
_COCO = {
    "images": [{"id": i, "width": 100, "height": 100} for i in range(3)],
    "categories": [{"id": 1, "name": "cat"}],
    "annotations": [
        {"id": i + 1, "image_id": i, "category_id": 1, "bbox": [10, 10, 20, 20], "area": 400, "iscrowd": 0}
        for i in range(3)
    ],
}

CASES = {
    "detection": (
        {"metric": "ap"},
        "instances.json",
        json.dumps(_COCO),
        "results.json",
        [
            json.dumps({"image_id": i, "category_id": 1, "bbox": [10 + i, 10, 20, 20], "score": 0.5 + i / 10})
            for i in range(3)
        ],
        json.dumps({"image_id": 99, "category_id": 1, "bbox": [10, 10, 20, 20], "score": 0.9}),
        json.dumps({"image_id": 99, "category_id": 1, "bbox": [10, 10, -20, 20], "score": 0.9}),
    ),
    "forecasting": (
        {"metric": "mae", "extra_metrics": ["smape"]},
        "gold.csv",
        _lines(["unique_id,ds,y", "a,2020-01-01,1.0", "b,2020-01-01,2.0", "c,2020-01-01,4.0"]),
        "forecast.csv",
        ["unique_id,ds,yhat", "a,2020-01-01,1.5", "b,2020-01-01,2.5", "c,2020-01-01,3.0"],
        "zz,2020-01-01,9.0",
        "zz,2020-01-01,nan",
    ),
    "generation": (
        {"metric": "bleu", "extra_metrics": ["exact_match"]},
        "references.jsonl",
        _json_lines({"id": "s%d" % i, "references": ["the cat %d sat" % i]} for i in range(3)),
        "hyp.jsonl",
        [json.dumps({"id": "s%d" % i, "hypothesis": "the cat sat"}) for i in range(3)],
        json.dumps({"id": "zz", "hypothesis": "a decoy"}),
        json.dumps({"id": "zz", "hypothesis": 3}),
    ),
    "multilabel": (
        {"metric": "f1_macro", "labels": ["red", "green"], "files": {"gold_column": "labels"}},
        "gold.csv",
        _lines(["id,labels", "a,red", "b,green|red", "c,green"]),
        "pred.csv",
        ["id,labels", "a,red", "b,green", "c,green"],
        "zz,red",
        "zz,purple",
    ),
    "qa": (
        {"metric": "f1"},
        "gold.json",
        json.dumps(_SQUAD),
        "pred.json",
        None,  # a JSON object: built below
        None,
        None,
    ),
    "ranking": (
        {"metric": "ndcg@10"},
        "qrels.txt",
        _lines(["t%d 0 d%d %d" % (q, d, (q + d) % 3) for q in range(3) for d in range(4)]),
        "run.txt",
        ["t%d Q0 d%d %d %g run" % (q, d, d + 1, 1.0 / (d + 1)) for q in range(3) for d in range(4)],
        "zz Q0 d1 1 0.5 run",
        "zz Q0 d1 1 nan run",
    ),
    "scores": (
        {"metric": "log_loss", "labels": ["cat", "dog"]},
        "gold.csv",
        _lines(["id,label", "a,cat", "b,dog", "c,cat"]),
        "pred.csv",
        ["id,cat,dog", "a,0.7,0.3", "b,0.2,0.8", "c,0.6,0.4"],
        "zz,0.5,0.5",
        "zz,0.5,bad",
    ),
    "sequence": (
        {"metric": "f1_micro"},
        "gold.jsonl",
        _json_lines(
            {"id": "s%d" % i, "tokens": ["w1", "w2"], "tags": ["B-PER", "O"] if i % 2 else ["O", "B-LOC"]}
            for i in range(3)
        ),
        "pred.jsonl",
        [json.dumps({"id": "s%d" % i, "tags": ["B-PER", "O"]}) for i in range(3)],
        json.dumps({"id": "zz", "tags": ["O", "B-LOC"]}),
        json.dumps({"id": "zz", "tags": ["O", "B-XYZ"]}),
    ),
    "soft_labels": (
        {"metric": "icm_soft", "extra_metrics": ["cross_entropy", "f1"], "labels": ["YES", "NO"]},
        "gold.json",
        json.dumps([{"test_case": "T", "id": str(i), "value": {"YES": i / 3.0, "NO": 1 - i / 3.0}} for i in range(3)]),
        "run.json",
        None,  # a JSON list: built below
        None,
        None,
    ),
}


def _json_document(task, rows):
    if task == "qa":
        return "{\n" + ",\n".join(rows) + "\n}\n"
    return "[\n" + ",\n".join(rows) + "\n]\n"


def _rows(task):
    """``(scored rows, decoy row, bad decoy row)`` of ``task``'s prediction file."""
    case = CASES[task]
    if task == "qa":
        return ['"q%d": "beta"' % i for i in range(3)], '"zz": "gamma"', '"zz": 3'
    if task == "soft_labels":
        record = '{"test_case": "T", "id": "%s", "value": {"YES": %s, "NO": 0.5}}'
        return [record % (i, 0.4) for i in range(3)], record % ("zz", 0.3), record % ("zz", 7)
    return case[4], case[5], case[6]


def _text(task, rows):
    if task in ("detection", "qa", "soft_labels"):
        return _json_document(task, rows)
    return _lines(rows)


def _read(tmp_path, task, rows, ignore, max_ids=None):
    config, gold_name, gold_text, pred_name = CASES[task][:4]
    data = dict(config, task=task)
    data["files"] = dict(config.get("files", {}), gold=gold_name, predictions=pred_name)
    data["files"]["unscored_ids"] = "ignore" if ignore else "error"
    if max_ids is not None:
        data["files"]["max_ids"] = max_ids
    parsed = parse_config(data)
    ref = tmp_path / "ref"
    ref.mkdir(exist_ok=True)
    (ref / gold_name).write_text(gold_text, encoding="utf-8")
    path = tmp_path / pred_name
    path.write_text(_text(task, rows), encoding="utf-8")
    gold = read_gold(str(ref), parsed)
    return read_predictions(str(path), parsed, gold)


def _reads_the_columns(task):
    """Whether the task's predictions are read by the shared id/value-column reader."""
    return isinstance(getattr(task.read_predictions, "__self__", None), ColumnFormat)


def test_every_task_with_its_own_prediction_format_has_a_case():
    own = sorted(name for name in TASKS if not _reads_the_columns(TASKS[name]))
    assert sorted(set(CASES) | set(NO_IDS)) == own


def _equal(a, b):
    if isinstance(a, np.ndarray) and a.dtype.names:
        return all(_equal(a[f], b[f]) for f in a.dtype.names)
    if isinstance(a, np.ndarray) and a.dtype == object:  # one array per unit (detection: per image)
        return a.shape == np.shape(b) and all(_equal(x, y) for x, y in zip(a.ravel(), np.asarray(b).ravel()))
    return np.array_equal(np.asarray(a), np.asarray(b)) or (
        np.asarray(a).dtype.kind == "f" and np.allclose(a, b, equal_nan=True, rtol=0, atol=0)
    )


@pytest.mark.parametrize("task", sorted(CASES))
def test_unscored_ids_are_refused_or_read_checked_and_dropped(tmp_path, task):
    scored, decoy, bad = _rows(task)
    head = scored[:1] if task in ("forecasting", "multilabel", "scores") else []
    body = scored[len(head) :]
    plain = _read(tmp_path, task, scored, ignore=False)
    with pytest.raises(SubmissionError, match="not"):  # error (the default): the task's own sentence
        _read(tmp_path, task, head + body[:1] + [decoy] + body[1:], ignore=False)
    # ignore: the decoy changes nothing
    with_decoy = _read(tmp_path, task, head + body[:1] + [decoy] + body[1:], ignore=True)
    assert _equal(with_decoy, plain)
    # ignore: a decoy's value is still checked
    with pytest.raises(SubmissionError):
        _read(tmp_path, task, head + [bad] + body, ignore=True)
    # ignore: a missing scored item is reported with neither a count nor an id
    if task not in ("detection", "ranking"):  # an image or query without predictions is one without detections
        with pytest.raises(SubmissionError) as info:
            _read(tmp_path, task, head + body[1:] + [decoy], ignore=True)
        message = str(info.value)
        assert "of the 3" not in message and " 3 " not in message and "'s0'" not in message, message
        assert "some of the test ids" in message, message


#: A second row of the decoy id ``zz`` in the formats that give an id several rows (a series' dates, an
#: image's detections, a query's documents): the bound counts ids, not rows.
_SECOND_DECOY_ROW = {
    "detection": json.dumps({"image_id": 99, "category_id": 1, "bbox": [30, 30, 20, 20], "score": 0.4}),
    "forecasting": "zz,2020-01-02,8.0",
    "ranking": "zz Q0 d2 2 0.4 run",
}


@pytest.mark.parametrize("task", sorted(CASES))
def test_decoys_are_bounded_by_max_ids_in_every_task(tmp_path, task):
    """One policy (``tasks/shared/base.UnscoredIds``): with ``ignore`` a file names at most ``files.max_ids``
    ids, the scored and the decoys together, however many rows each id has."""
    scored, decoy, _ = _rows(task)
    head = scored[:1] if task in ("forecasting", "multilabel", "scores") else []
    body = scored[len(head) :]
    rows = head + body + [decoy] + ([_SECOND_DECOY_ROW[task]] if task in _SECOND_DECOY_ROW else [])
    plain = _read(tmp_path, task, scored, ignore=False)
    assert _equal(_read(tmp_path, task, rows, ignore=True, max_ids=4), plain)
    with pytest.raises(SubmissionError, match="files.max_ids"):
        _read(tmp_path, task, rows, ignore=True, max_ids=3)


def test_every_task_with_several_rows_per_id_has_a_second_decoy_row():
    assert set(_SECOND_DECOY_ROW) <= set(CASES)
