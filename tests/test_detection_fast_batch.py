"""The COCO results reader's fast path (v9-det) reads what the record-by-record path reads, and refuses the same.

Two shortcuts make 10^6 detections cheap: a batch of records is decoded without the JSON integer hook when
its text holds no run of 4,000 digits (``json_documents.may_hold_long``, a C scan of a sample), and its
records are checked a column at a time (``files._batch_columns``), the record loop running only for a batch
that fails.  Each hostile batch below is read both ways (the slow way: the hook always, the loop always):
the same arrays, or the same sentence naming the same line and detection.
"""

import json
import re

import numpy as np
import pytest
from test_detection_inputs import RECORDS, gold_of, predictions_of

from leaderboard_ci.scoring.errors import SubmissionError
from leaderboard_ci.tasks.detection import features, files, matching
from leaderboard_ci.tasks.shared import json_documents, json_stream


def _records(n=40):
    rng = np.random.RandomState(5)
    out = []
    for i in range(n):
        record = dict(RECORDS[i % 3])
        record["bbox"] = [int(v) if i % 2 else round(float(v), 2) for v in rng.uniform(0, 90, 4)]
        record["score"] = round(float(rng.rand()), 3)
        out.append(record)
    return out


LONG = "1" * 4000
#: (name, the JSON text of record 27's replacement or of one of its fields)
HOSTILE = [
    ("clean", None),
    ("long_image_id", '{"image_id": %s, "category_id": 3, "bbox": [1, 2, 3, 4], "score": 0.5}' % LONG),
    ("long_negative_in_bbox", '{"image_id": 7001, "category_id": 3, "bbox": [1, -%s, 3, 4], "score": 0.5}' % LONG[1:]),
    ("long_score", '{"image_id": 7001, "category_id": 3, "bbox": [1, 2, 3, 4], "score": %s}' % LONG),
    ("huge_float_int", '{"image_id": 7001, "category_id": 3, "bbox": [1, 2, 1%s, 4], "score": 0.5}' % ("0" * 400)),
    ("nan_score", '{"image_id": 7001, "category_id": 3, "bbox": [1, 2, 3, 4], "score": NaN}'),
    ("infinite_box", '{"image_id": 7001, "category_id": 3, "bbox": [1, 2, Infinity, 4], "score": 0.5}'),
    ("negative_width", '{"image_id": 7001, "category_id": 3, "bbox": [1, 2, -3, 4], "score": 0.5}'),
    ("quoted_score", '{"image_id": 7001, "category_id": 3, "bbox": [1, 2, 3, 4], "score": "0.5"}'),
    ("quoted_image", '{"image_id": "7001", "category_id": 3, "bbox": [1, 2, 3, 4], "score": 0.5}'),
    ("quoted_box_number", '{"image_id": 7001, "category_id": 3, "bbox": [1, "2", 3, 4], "score": 0.5}'),
    ("bool_category", '{"image_id": 7001, "category_id": true, "bbox": [1, 2, 3, 4], "score": 0.5}'),
    ("bool_in_box", '{"image_id": 7001, "category_id": 3, "bbox": [1, 2, false, 4], "score": 0.5}'),
    ("float_ids", '{"image_id": 7001.0, "category_id": 3.0, "bbox": [1, 2, 3, 4], "score": 0.5}'),
    ("unknown_image", '{"image_id": 7004, "category_id": 3, "bbox": [1, 2, 3, 4], "score": 0.5}'),
    ("unknown_category", '{"image_id": 7001, "category_id": 4, "bbox": [1, 2, 3, 4], "score": 0.5}'),
    ("nested_box", '{"image_id": 7001, "category_id": 3, "bbox": [[1, 2], 3, 4, 5], "score": 0.5}'),
    ("three_numbers", '{"image_id": 7001, "category_id": 3, "bbox": [1, 2, 3], "score": 0.5}'),
    ("box_an_object", '{"image_id": 7001, "category_id": 3, "bbox": {"x": 1}, "score": 0.5}'),
    ("list_id", '{"image_id": [7001], "category_id": 3, "bbox": [1, 2, 3, 4], "score": 0.5}'),
    ("null_score", '{"image_id": 7001, "category_id": 3, "bbox": [1, 2, 3, 4], "score": null}'),
    ("missing_score", '{"image_id": 7001, "category_id": 3, "bbox": [1, 2, 3, 4]}'),
    ("missing_image", '{"category_id": 3, "bbox": [1, 2, 3, 4], "score": 0.5}'),
    ("a_list", "[7001, 3, [1, 2, 3, 4], 0.5]"),
    ("a_string", '"7001"'),
    ("a_number", "7001"),
    ("null", "null"),
]


def _text(replacement, indent):
    records = _records()
    texts = [json.dumps(r, indent=indent) for r in records]
    if replacement is not None:
        texts[27] = replacement
    return "[" + (",\n" if indent else ", ").join(texts) + "]"


def _read(tmp_path, text, gold):
    try:
        arrays = predictions_of(tmp_path, text, gold)
    except SubmissionError as error:
        return str(error)
    return [a.tobytes() + str(a.shape).encode() for a in arrays]


@pytest.mark.parametrize("batch", [300, None])
@pytest.mark.parametrize("indent", [None, 1])
def test_the_fast_path_reads_and_refuses_what_the_record_loop_does(tmp_path, monkeypatch, batch, indent):
    if batch is not None:
        monkeypatch.setattr(json_stream, "BATCH_CHARS", batch)
    gold = gold_of(tmp_path)
    taken = []
    real = files._batch_columns

    def counted(*args):
        out = real(*args)
        taken.append(out is not None)
        return out

    fast = {}
    monkeypatch.setattr(files, "_batch_columns", counted)
    for name, replacement in HOSTILE:
        del taken[:]
        fast[name] = _read(tmp_path, _text(replacement, indent), gold)
        if name == "clean":
            assert taken and all(taken)  # the fast path read every batch of the clean file
    assert isinstance(fast["clean"], list) and isinstance(fast["float_ids"], list)  # both read
    monkeypatch.setattr(files, "_batch_columns", lambda *args: None)
    monkeypatch.setattr(json_documents, "may_hold_long", lambda text: True)
    for name, replacement in HOSTILE:
        slow = _read(tmp_path, _text(replacement, indent), gold)
        assert fast[name] == slow, name
        if name in ("huge_float_int", "long_negative_in_bbox", "long_score"):  # no float holds it: the file sentence
            assert "holds a number too large to convert" in slow, (name, slow)
        elif name not in ("clean", "float_ids"):
            assert "detection 28 " in slow, (name, slow)


def test_the_python_api_takes_the_same_paths():
    records = _records()
    ids, labels = ["7001", "7002", "7003"], ("cat (3)", "dog (9)")
    fast = files.results_from_list(records, ids, labels, "s")
    bad = [dict(r) for r in records]
    bad[30]["bbox"] = (1, 2, 3, 4)  # a tuple: refused like any non-list
    with pytest.raises(ValueError, match="detection 31 has the bbox"):
        files.results_from_list(bad, ids, labels, "s")
    slow = []
    out = files._Detections()
    for record in records:  # one record a call: the loop only
        assert files._add_detections(out, [record], *files._gold_ids(ids, labels)) is None
    slow = files._encode_detections(out, 3)
    assert [a.tobytes() for a in fast] == [a.tobytes() for a in slow]


@pytest.mark.parametrize("seed", range(2))
def test_may_hold_long_finds_every_run_of_4000_digits(seed):
    rng = np.random.RandomState(seed)
    for _ in range(40):
        length = int(rng.choice([3998, 3999, 4000, 4001, 4500, 9000]))
        before = "".join(rng.choice(list('0123456789,."[] '), size=int(rng.randint(0, 1500))))
        after = "".join(rng.choice(list('0123456789,."[] '), size=int(rng.randint(0, 1500))))
        text = before + "x" + "7" * length + "x" + after
        assert json_documents.may_hold_long(text) == (re.search("[0-9]{4000}", text) is not None)


def test_without_the_hook_only_where_no_integer_can_be_long():
    long_negative = "[-%s, 1]" % ("9" * 4000)  # 4,001 characters: a LongNumber, as with the hook
    value = json_documents.loads(long_negative, parse_int=json_documents.integer)
    assert isinstance(value[0], json_documents.LongNumber) and value[1] == 1
    assert json_documents.loads("[12, 3.5]", parse_int=json_documents.integer) == [12, 3.5]


@pytest.mark.parametrize("n", [0, 1, 5000])
def test_detection_order_is_the_four_key_lexsort(n):
    rng = np.random.RandomState(n)
    image, category = rng.randint(40, size=n), rng.randint(7, size=n)
    score = np.round(rng.rand(n), 1)  # many ties, broken by file order
    score[::5] = -0.0  # equal to 0.0 in both sorts
    score[::9] = 0.0
    expected = np.lexsort((np.arange(n), -score, category, image))
    assert np.array_equal(matching.detection_order(image, category, score), expected)


@pytest.mark.parametrize("high", [3, 65536, 70000])
def test_stable_order_is_the_merge_sort(high):
    keys = np.random.RandomState(high).randint(high, size=20000)  # uint16 radix path below 65,536, else int64
    expected = np.argsort(keys, kind="mergesort")
    assert np.array_equal(matching.stable_order(keys), expected)
    assert np.array_equal(matching.stable_order(keys.astype(np.float64)), expected)


@pytest.mark.parametrize("n", [0, 7, 20000])
def test_the_curve_order_is_the_three_key_lexsort(n):
    rng = np.random.RandomState(n)
    rank, image = rng.randint(120, size=n), rng.randint(300, size=n)
    score = np.round(rng.rand(n), 2)
    score[::4] = -0.0
    expected = np.lexsort((rank, image, -score))
    assert np.array_equal(features._curve_order(rank, image, score), expected)
