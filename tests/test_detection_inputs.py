"""Detection inputs that are wrong, odd or huge: one sentence naming the file, the line and the record.

The gold holds distinctive numbers (box corners, areas, annotation ids) that no message may show; a
message about a submission quotes only what the participant wrote.  The readers stream the files
(:mod:`leaderboard_ci.tasks.detection.json_stream`): the tests cut the stream into tiny batches too,
so that every path (a batch parsed at once, a batch read record by record, a record cut across
chunks) meets every case.
"""

import gzip
import io
import json
import os
import re
import zipfile

import numpy as np
import pytest

from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.errors import ConfigError, SubmissionError
from leaderboard_ci.scoring.formats import Source
from leaderboard_ci.scoring.readers import read_gold, read_predictions
from leaderboard_ci.scoring.text_files import TextFile
from leaderboard_ci.tasks.shared import json_stream
from leaderboard_ci.tools.local_worker import run_scoring

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = os.path.join(ROOT, "scoring_program")

#: A gold with distinctive numbers: none of them may appear in a message.
SECRET_BOX = [123.456, 78.9012, 45.6789, 33.3171]
GOLD = {
    "info": {"description": "bad inputs"},
    "images": [{"id": 7001, "width": 640, "height": 480}, {"id": 7002}, {"id": 7003}],
    "categories": [{"id": 3, "name": "cat"}, {"id": 9, "name": "dog"}],
    "annotations": [
        {"id": 90417, "image_id": 7001, "category_id": 3, "bbox": SECRET_BOX, "area": 1234.5678, "iscrowd": 0},
        {"id": 90418, "image_id": 7002, "category_id": 9, "bbox": [10, 20, 30, 40], "area": 1111.25, "iscrowd": 0},
        {"id": 90419, "image_id": 7002, "category_id": 9, "bbox": [0, 0, 300, 300], "area": 5555.5, "iscrowd": 1},
    ],
}
RECORDS = [
    {"image_id": 7001, "category_id": 3, "bbox": [120.0, 80.0, 45.0, 33.0], "score": 0.9},
    {"image_id": 7002, "category_id": 9, "bbox": [10, 20, 30, 40], "score": 0.8},
    {"image_id": 7003, "category_id": 9, "bbox": [1, 1, 5, 5], "score": 0.1},
]
CONFIG = {
    "task": "detection",
    "metric": "map",
    "extra_metrics": ["ap50", "voc_ap50"],
    "files": {"gold": "instances.json", "predictions": "detections.json"},
    "bootstrap": {"n_resamples": 100, "n_jobs": 1},
}
SECRETS = ("123.456", "78.9012", "45.6789", "33.3171", "90417", "1234.5678", "5555.5")


def gold_of(tmp_path, gold=GOLD, text=None, config=CONFIG):
    ref = tmp_path / "ref"
    ref.mkdir(exist_ok=True)
    if isinstance(text, bytes):
        (ref / "instances.json").write_bytes(text)
    else:
        (ref / "instances.json").write_text(json.dumps(gold) if text is None else text, encoding="utf-8")
    parsed = parse_config(dict(config))
    return parsed, read_gold(str(ref), parsed)


def predictions_of(tmp_path, text, gold=None, name="detections.json"):
    config, standard = gold if gold is not None else gold_of(tmp_path)
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return read_predictions(str(path), config, standard)


def assert_no_gold_leak(message):
    for secret in SECRETS:
        assert secret not in message, message


def records_text(records, indent=None):
    return json.dumps(records, indent=indent)


def _with(index, **changes):
    records = [dict(r) for r in RECORDS]
    records[index].update(changes)
    for key, value in list(changes.items()):
        if value is _DROP:
            del records[index][key]
    return records


_DROP = object()

PREDICTION_CASES = [
    ("empty_file", "", "detections.json is empty; expected a JSON list of detections"),
    ("blank_file", "  \n\n", "detections.json is empty; expected a JSON list of detections"),
    (
        "an_object",
        json.dumps({"annotations": RECORDS}),
        "detections.json line 1: is a JSON object; expected a JSON list of detections like "
        '[{"image_id": 42, "category_id": 18, "bbox": [x, y, width, height], "score": 0.93}, ...] '
        "(COCO's results format), as pycocotools' loadRes reads",
    ),
    ("not_json", "image_id,category_id\n1,2\n", "detections.json line 1: does not start a JSON list"),
    ("a_list_record", json.dumps([RECORDS[0], [1, 2, 3]]), "detections.json line 1: detection 2 is a JSON list"),
    (
        "no_score",
        records_text(_with(1, score=_DROP), indent=1),
        'detections.json line 13: detection 2 has no "score"; expected an object',  # "[", then 11 lines a record
    ),
    (
        "masks_not_boxes",
        json.dumps([{"image_id": 7001, "category_id": 3, "segmentation": {"counts": "x"}, "score": 0.5}]),
        'detections.json line 1: detection 1 has no "bbox" (this competition scores boxes, not masks)',
    ),
    (
        "unknown_image",
        json.dumps(_with(2, image_id=12)),
        "detections.json line 1: detection 3 has the image_id '12', which is not a test image "
        "(image ids look like 7001)",
    ),
    (
        "image_id_as_string",
        json.dumps(_with(0, image_id="7001")),
        "detections.json line 1: detection 1 has the image_id '7001', a string; the test images have "
        "number ids: write it without quotes",
    ),
    (
        "unknown_category",
        json.dumps(_with(0, category_id=0)),
        "detections.json line 1: detection 1 has the category_id '0', which is not a category of this competition",
    ),
    ("category_bool", json.dumps(_with(0, category_id=True)), "detection 1 has the category_id 'true', which is not"),
    (
        "three_numbers",
        json.dumps(_with(0, bbox=[1, 2, 3])),
        "detections.json line 1: detection 1 has the bbox '[1, 2, 3]'; expected a list of four numbers",
    ),
    ("bbox_strings", json.dumps(_with(0, bbox=["1", 2, 3, 4])), "detection 1 has the bbox '[\"1\", 2, 3, 4]'"),
    (
        "bbox_corners",
        json.dumps(_with(0, bbox=[[1, 2], [3, 4]])),
        "detection 1 has the bbox '[[1, 2], [3, 4]]'; expected",
    ),
    (
        "negative_width",
        json.dumps(_with(2, bbox=[5, 5, -3, 4])),
        "detection 3 has the bbox '[5, 5, -3, 4]'; expected [x, y, width, height] with width and height at least 0",
    ),
    (
        "nan_box",
        records_text(RECORDS)[:-1] + ', {"image_id": 7001, "category_id": 3, "bbox": [NaN, 1, 2, 3], "score": 0.5}]',
        "detection 4 has the bbox '[NaN, 1, 2, 3]'; expected four finite numbers",
    ),
    ("score_text", json.dumps(_with(0, score="high")), "detection 1 has the score 'high'; expected a finite number"),
    ("score_bool", json.dumps(_with(0, score=False)), "detection 1 has the score 'false'; expected a finite number"),
    (
        "score_infinite",
        records_text(RECORDS)[:-1] + ', {"image_id": 7001, "category_id": 3, "bbox": [1, 1, 2, 3], "score": Infinity}]',
        "detection 4 has the score 'Infinity'; expected a finite number",
    ),
    (
        "score_huge_integer",
        '[{"image_id": 7001, "category_id": 3, "bbox": [1, 1, 2, 3], "score": ' + "9" * 5000 + "}]",
        "detection 1 has the score '999999999999' (a number of 5000 digits); expected a finite number",
    ),
    ("truncated", records_text(RECORDS)[:-30], "detections.json line 1: not valid JSON"),
    ("extra_after", records_text(RECORDS) + " []", "not valid JSON (extra data after the end of the document)"),
    ("trailing_comma", records_text(RECORDS)[:-1] + ",]", "detections.json line 1: not valid JSON"),
    ("nested_deep", "[" * 100000 + "]" * 100000, "detections.json line 1: "),
]


@pytest.mark.parametrize("batch", [None, 40])
@pytest.mark.parametrize("name,text,message", PREDICTION_CASES, ids=[c[0] for c in PREDICTION_CASES])
def test_a_bad_submission_gets_one_sentence_with_file_line_and_record(
    tmp_path, monkeypatch, name, text, message, batch
):
    if batch is not None:
        monkeypatch.setattr(json_stream, "BATCH_CHARS", batch)
    gold = gold_of(tmp_path)
    with pytest.raises(SubmissionError) as info:
        predictions_of(tmp_path, text, gold)
    text_out = str(info.value)
    assert message in text_out, text_out
    assert "\n" not in text_out
    assert_no_gold_leak(text_out)


#: Files that are not a JSON text at all: one sentence about the file as a whole (or its line), as other readers give.
NOT_TEXT = [
    ("png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), "detections.json is a PNG image"),
    ("gzip", gzip.compress(records_text(RECORDS).encode("utf-8")), "detections.json is a gzip archive"),
    ("latin1", records_text(RECORDS)[:-1].encode("utf-8") + b', "caf\xe9"]', "detections.json is not UTF-8 text"),
    ("utf32", records_text(RECORDS).encode("utf-32"), "detections.json is UTF-32 text; save it as UTF-8"),
    ("nul", records_text(RECORDS).encode("utf-8").replace(b", ", b",\x00 ", 1), "detections.json line 1: the line"),
    (
        "json_lines",
        "\n".join(json.dumps(r) for r in RECORDS).encode("utf-8"),
        "line 1: holds one JSON object per line (JSON Lines); expected a JSON list",
    ),
]


@pytest.mark.parametrize("name,data,message", NOT_TEXT, ids=[c[0] for c in NOT_TEXT])
def test_binary_wrong_encodings_and_json_lines_get_one_sentence(tmp_path, name, data, message):
    with pytest.raises(SubmissionError) as info:
        predictions_of(tmp_path, data)
    assert message in str(info.value) and "\n" not in str(info.value), str(info.value)


def test_duplicate_detections_are_scored_as_pycocotools_scores_them(tmp_path):
    gold = gold_of(tmp_path)
    twice = _scores(tmp_path, records_text(RECORDS + RECORDS), gold)
    assert sum(part.shape[0] for part in twice) == 2 * sum(
        part.shape[0] for part in _scores(tmp_path, records_text(RECORDS), gold, "c.json")
    )


def _scores(tmp_path, text, gold=None, name="detections.json"):
    return predictions_of(tmp_path, text, gold, name)


def _same(a, b):
    assert a.shape == b.shape
    for x, y in zip(a, b):
        assert np.array_equal(x, y)


ACCEPTED = [
    ("pretty", lambda: records_text(RECORDS, indent=4)),
    ("crlf", lambda: records_text(RECORDS, indent=2).replace("\n", "\r\n")),
    ("extra_keys", lambda: json.dumps([dict(r, id=i, area=0, segmentation=[[1, 2]]) for i, r in enumerate(RECORDS)])),
    ("float_ids", lambda: json.dumps([dict(r, image_id=float(r["image_id"])) for r in RECORDS])),
    ("bom", lambda: "\ufeff" + records_text(RECORDS)),
]


@pytest.mark.parametrize("name,make", ACCEPTED, ids=[a[0] for a in ACCEPTED])
def test_odd_but_valid_files_read_like_the_clean_one(tmp_path, name, make):
    gold = gold_of(tmp_path)
    _same(_scores(tmp_path, make(), gold), _scores(tmp_path, records_text(RECORDS), gold, "clean.json"))


def test_utf16_and_an_empty_list_are_read(tmp_path):
    gold = gold_of(tmp_path)
    clean = _scores(tmp_path, records_text(RECORDS), gold, "clean.json")
    _same(_scores(tmp_path, records_text(RECORDS).encode("utf-16"), gold), clean)
    empty = _scores(tmp_path, "[]\n", gold, "empty.json")
    assert all(part.shape == (0, 6) for part in empty)


def _many_records(n, seed=0):
    rng = np.random.RandomState(seed)
    out = []
    for i in range(n):
        out.append(
            {
                "image_id": int(7001 + i % 3),
                "category_id": [3, 9][i % 2],
                "bbox": [round(float(v), 2) for v in rng.uniform(0, 100, 4)],
                "score": round(float(rng.rand()), 3),
                "note": "a},{b" if i % 97 == 0 else "plain",  # a cut candidate inside a string
            }
        )
    return out


@pytest.mark.parametrize("batch", [64, 1000, None])
@pytest.mark.parametrize("indent", [None, 1])
def test_the_stream_reads_what_json_reads_in_any_batches(tmp_path, monkeypatch, batch, indent):
    if batch is not None:
        monkeypatch.setattr(json_stream, "BATCH_CHARS", batch)
    records = _many_records(3000)
    text = json.dumps(records, indent=indent)
    path = tmp_path / "big.json"
    path.write_text(text, encoding="utf-8")
    source = Source(str(path), "big.json")
    stream = json_stream.JsonStream(source, TextFile(source).chunks(), "a list")
    stream.expect_start("[", lambda c: "no list")
    values, lines = [], []
    for part in stream.batches():
        values.extend(part.values)
        lines.extend(part.all_lines())
    stream.finish()
    assert values == records
    if indent is not None:  # each record's line: where its "{" is
        starts = [i + 1 for i, line in enumerate(text.split("\n")) if line.strip() in ("{", "[{")]
        assert lines == starts[: len(lines)]


@pytest.mark.parametrize("batch", [200, None])
def test_a_bad_record_deep_in_a_long_file_is_named_by_its_line_and_number(tmp_path, monkeypatch, batch):
    if batch is not None:
        monkeypatch.setattr(json_stream, "BATCH_CHARS", batch)
    records = [{"image_id": 7001 + i % 3, "category_id": 3, "bbox": [1, 2, 3, 4], "score": 0.5} for i in range(4000)]
    records[3210]["bbox"] = [1, 2, 3]
    text = json.dumps(records, indent=1)
    line = [i + 1 for i, row in enumerate(text.split("\n")) if row == " {"][3210]  # where the record's "{" is
    with pytest.raises(SubmissionError) as info:
        predictions_of(tmp_path, text)
    assert "detections.json line %d: detection 3211 has the bbox '[1, 2, 3]'" % line in str(info.value)


def test_a_record_longer_than_the_limit_is_refused(tmp_path, monkeypatch):
    # a record that goes on past the text read so far (a batch, 1 MB chunks) is refused beyond the limit
    monkeypatch.setattr(json_stream, "BATCH_CHARS", 1000)
    monkeypatch.setattr(json_stream, "MAX_VALUE_CHARS", 100000)
    text = '[{"image_id": 7001, "category_id": 3, "bbox": [1, 2, 3, 4], "score": 0.5, "x": "' + "y" * 3000000 + '"}]'
    with pytest.raises(SubmissionError) as info:
        predictions_of(tmp_path, text)
    assert "detections.json line 1: a single JSON value here is longer than 100,000 characters" in str(info.value)


# ---------------------------------------------------------------------------
# The gold: the organizer's mistakes, never quoted
# ---------------------------------------------------------------------------
def _gold_with(**changes):
    gold = json.loads(json.dumps(GOLD))
    for key, value in changes.items():
        if key.startswith("ann_"):
            gold["annotations"][0][key[4:]] = value
        else:
            gold[key] = value
    return gold


GOLD_CASES = [
    ("not_an_object", "[1, 2]", "ref/instances.json line 1: is not a JSON object; expected a COCO instances object"),
    ("no_images", json.dumps({"annotations": [], "categories": []}), 'ref/instances.json has no "images" list'),
    ("no_bbox", _gold_with(ann_bbox=None), "annotations[0] has a bbox that is not four numbers [x, y, width, height]"),
    ("negative", _gold_with(ann_bbox=[1, 2, -3, 4]), "annotations[0] has a bbox with a number that is not finite"),
    ("no_area", _gold_with(ann_area="big"), "annotations[0] has an area that is not a finite number of at least 0"),
    ("crowd_two", _gold_with(ann_iscrowd=2), "annotations[0] has an iscrowd that is not 0 or 1"),
    ("id_zero", _gold_with(ann_id=0), "annotations[0] has the id 0, which pycocotools cannot match"),
    (
        "duplicate_ann_id",
        _gold_with(annotations=GOLD["annotations"] + [dict(GOLD["annotations"][1])]),
        "annotations[3] has the id of annotations[1]; annotation ids must be unique",
    ),
    (
        "duplicate_image",
        _gold_with(images=GOLD["images"] + [{"id": 7002}]),
        "images[3] has the id of images[1]; image ids must be unique",
    ),
    ("unknown_image", _gold_with(ann_image_id=1), "annotations[0]: its image_id is not the id of an image in images"),
    ("unknown_category", _gold_with(ann_category_id=4), "annotations[0]: its category_id is not in categories"),
    ("binary", b"\x01\x02\x03\x04\x05\x06" * 20, "ref/instances.json is a binary file, not a text file"),
    ("gzip", gzip.compress(b"{}"), "ref/instances.json is a gzip archive, not a text file; put the text file itself"),
    ("mixed_ids", _gold_with(images=GOLD["images"] + [{"id": "x"}]), "mixes numbers and strings as image ids"),
]


@pytest.mark.parametrize("name,gold,message", GOLD_CASES, ids=[c[0] for c in GOLD_CASES])
def test_a_bad_gold_is_the_organizers_error_and_quotes_nothing(tmp_path, name, gold, message):
    with pytest.raises(ConfigError) as info:
        if isinstance(gold, (str, bytes)):
            gold_of(tmp_path, text=gold)
        else:
            gold_of(tmp_path, gold)
    assert message in str(info.value) and "predictions" not in str(info.value), str(info.value)
    assert_no_gold_leak(str(info.value))


def test_a_metric_undefined_on_the_gold_is_refused(tmp_path):
    config = dict(CONFIG, extra_metrics=["ap_large"])
    with pytest.raises(ConfigError) as info:
        gold_of(tmp_path, config=config)
    assert "holds no non-crowd object of area above 96\u00b2, so metric ap_large is undefined" in str(info.value)


def test_the_gold_offers_its_image_fields_to_bootstrap_cluster(tmp_path):
    gold = _gold_with(images=[{"id": 7001, "video": "a"}, {"id": 7002, "video": "a"}, {"id": 7003, "video": "b"}])
    config = dict(CONFIG, bootstrap=dict(CONFIG["bootstrap"], cluster="video"))
    _, standard = gold_of(tmp_path, gold, config=config)
    assert standard.clusters is not None and list(standard.clusters) == [0, 0, 1]


# ---------------------------------------------------------------------------
# Through the worker
# ---------------------------------------------------------------------------
def _tree(tmp_path, text):
    ref = tmp_path / "reference"
    ref.mkdir()
    (ref / "instances.json").write_text(json.dumps(GOLD))
    (ref / "config.yaml").write_text(json.dumps(CONFIG))
    sub = tmp_path / "submission.zip"
    with zipfile.ZipFile(str(sub), "w") as z:
        z.writestr("detections.json", text)
    return str(ref), str(sub)


def test_through_the_worker_a_mistake_is_one_line_and_exit_1(tmp_path):
    ref, sub = _tree(tmp_path, json.dumps(_with(1, bbox=[1, 2])))
    run = run_scoring(str(tmp_path / "run"), PROGRAM, ref, sub)
    assert run.returncode == 1
    lines = run.stderr.strip().split("\n")
    assert len(lines) == 1 and re.match(r"detections\.json line 1: detection 2 has the bbox", lines[0]), run.stderr
    assert_no_gold_leak(run.stderr + run.stdout)


def test_through_the_worker_a_clean_file_in_a_nested_folder_with_macosx_junk_scores(tmp_path):
    ref, _ = _tree(tmp_path, json.dumps(RECORDS))
    sub = str(tmp_path / "nested.zip")
    with zipfile.ZipFile(sub, "w") as z:
        z.writestr("my_run/detections.json", json.dumps(RECORDS))
        z.writestr("__MACOSX/my_run/._detections.json", b"\x00\x05\x16\x07junk")
    run = run_scoring(str(tmp_path / "run"), PROGRAM, ref, sub)
    assert run.returncode == 0 and run.stderr == "", run.stderr
    assert 0 < run.scores["map"] <= 1 and run.scores["voc_ap50"] > 0
    with io.open(os.path.join(run.output_dir, "detailed_results.html"), encoding="utf-8") as handle:
        assert_no_gold_leak(handle.read())
