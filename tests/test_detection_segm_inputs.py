"""``iou_type: segm`` inputs that are wrong, odd or huge: one sentence naming the file, the line and the record.

The gold's image sizes, areas, polygon coordinates and RLE counts are distinctive numbers that no
message may show (not even the size a participant's mask should have had); a message about a
submission quotes only what the participant wrote.  The end-to-end case runs the scoring program on a
``ref/`` + ``res/`` tree.
"""

import json
import os
import time

import numpy as np
import pytest

from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.errors import ConfigError, SubmissionError
from leaderboard_ci.scoring.readers import read_gold, read_predictions
from leaderboard_ci.tasks.detection import masks as M
from leaderboard_ci.tools.local_worker import run_scoring

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = os.path.join(ROOT, "scoring_program")

H, W = 47, 53  # the gold's secret image size
POLYGON = [3.125, 4.375, 40.5, 6.25, 22.75, 38.625]
GOLD = {
    "images": [{"id": 7001, "height": H, "width": W}, {"id": 7002, "height": H, "width": W}],
    "categories": [{"id": 3, "name": "cat"}],
    "annotations": [
        {"id": 91, "image_id": 7001, "category_id": 3, "segmentation": [POLYGON], "area": 611.375, "iscrowd": 0},
        {
            "id": 92,
            "image_id": 7002,
            "category_id": 3,
            "segmentation": {"size": [H, W], "counts": [100, 200, H * W - 300]},
            "area": 200.0,
            "iscrowd": 1,
        },
    ],
}
SECRETS = ("47", "53", "2491", "3.125", "40.5", "611.375", "22.75")
CONFIG = {
    "task": "detection",
    "iou_type": "segm",
    "metric": "map",
    "files": {"gold": "instances.json", "predictions": "detections.json"},
    "bootstrap": {"n_resamples": 50, "n_jobs": 1},
}


def _rle(h=H, w=W, start=110, length=150):
    counts = M.to_string([start, length, h * w - start - length])
    return {"size": [h, w], "counts": counts}


def _record(**changes):
    record = {"image_id": 7001, "category_id": 3, "segmentation": _rle(), "score": 0.5}
    record.update(changes)
    return record


def gold_of(tmp_path, gold=GOLD, config=CONFIG):
    ref = tmp_path / "ref"
    ref.mkdir(exist_ok=True)
    (ref / "instances.json").write_text(json.dumps(gold), encoding="utf-8")
    parsed = parse_config(dict(config))
    return parsed, read_gold(str(ref), parsed)


def predictions_of(tmp_path, records):
    config, standard = gold_of(tmp_path)
    path = tmp_path / "detections.json"
    path.write_text(json.dumps(records, indent=None), encoding="utf-8")
    return read_predictions(str(path), config, standard)


def _message(error):
    text = str(error)
    assert "\n" not in text and "Traceback" not in text
    for secret in SECRETS:
        assert secret not in text, text
    return text


@pytest.mark.parametrize(
    "records, expected",
    [
        (
            [_record(), _record(segmentation=_rle(h=48, w=60))],
            "detections.json line 1: detection 2 has a segmentation of size '[48, 60]', not the size of image "
            "'7001' in the gold",
        ),
        (
            [_record(segmentation={"size": [H, W], "counts": [5, 6, 7]})],
            "detection 1 has segmentation counts that sum to 18, not the height times the width",
        ),
        (
            [_record(segmentation={"size": [H, W], "counts": "0a1 b"})],
            "detection 1 has a segmentation counts string that holds a character that is not one of COCO's 64",
        ),
        ([_record(segmentation={"size": [H, W], "counts": "1P"})], "ends inside a count"),
        ([_record(segmentation={"size": [H, W], "counts": "PPPPPP1"})], "holds a count longer than 6 characters"),
        ([_record(segmentation={"size": [H, W], "counts": ""})], "is an empty string"),
        (
            [_record(segmentation=[[1, 2, 3, 4, 5, 6]])],
            'detection 1 has a segmentation that is not COCO RLE {"size": [height, width], "counts": "..."}',
        ),
        ([_record(segmentation="abc")], "detection 1 has a segmentation that is not COCO RLE"),
        ([_record(segmentation={"size": [H], "counts": "0"})], "whose size is not [height, width]"),
        ([_record(segmentation={"size": [H, W], "counts": [1.5, 2]})], "neither a COCO RLE string nor a list"),
        ([_record(segmentation={"size": [H, W], "counts": [10**30, 2]})], "nor a list of integers from 0 to"),
        ([_record(segmentation={"size": [2, 2], "counts": [0] * 5 + [4]})], "nor a list of integers from 0 to"),
        ([_record(segmentation={"size": [H, W], "counts": "0" * (H * W + 2)})], "holds more counts than its image"),
        ([_record(segmentation={"size": [1e300, 2], "counts": "0"})], "size is not [height, width]"),
        (
            [_record(bbox=[1, 2, 3, 4]), _record()],
            "detection 2 has no bbox while detection 1 has one; as pycocotools takes the detections' areas",
        ),
        ([_record(segmentation=None, bbox=[1, 2, 3, 4])], "has a segmentation that is not COCO RLE"),
        ([{"image_id": 7001, "category_id": 3, "bbox": [1, 2, 3, 4], "score": 0.5}], 'has no "segmentation" (this'),
        ([_record(score=float("nan"))], "detection 1 has the score 'NaN'; expected a finite number"),
        ([_record(image_id=12)], "detection 1 has the image_id '12', which is not a test image"),
    ],
    ids=[
        "wrong_size",
        "counts_sum",
        "bad_characters",
        "unfinished",
        "long_group",
        "empty_string",
        "polygon",
        "a_string",
        "size_shape",
        "float_counts",
        "huge_count",
        "many_counts",
        "many_counts_string",
        "huge_size",
        "mixed_boxes",
        "null",
        "boxes_only",
        "nan_score",
        "unknown_image",
    ],
)
def test_bad_results_get_one_sentence(tmp_path, records, expected):
    with pytest.raises(SubmissionError) as caught:
        predictions_of(tmp_path, records)
    assert expected in _message(caught.value)


def _gold_with(**changes):
    gold = json.loads(json.dumps(GOLD))
    gold["annotations"][0].update(changes)
    return gold


@pytest.mark.parametrize(
    "gold, expected",
    [
        (_gold_with(segmentation=[[1, 2, 3, 4]]), "annotations[0] has a polygon that is not a list of at least three"),
        (_gold_with(segmentation=[[1, 2, 3, 4, 5]]), "annotations[0] has a polygon that is not a list"),
        (_gold_with(segmentation=[]), "annotations[0] has a segmentation that is neither polygons"),
        (_gold_with(segmentation=[[1, 2, 3, 4, 5, 1e400]]), "has a polygon with a coordinate that is not a finite"),
        (_gold_with(segmentation=[[0, 0, 1e9, 0, 0, 1e9]]), "annotations[0] has a polygon far outside its image"),
        (_gold_with(segmentation=[[0, 0, 1.7e308, 0, 0, 1]]), "annotations[0] has a polygon far outside its image"),
        (_gold_with(segmentation={"size": [H + 1, W], "counts": "0"}), "annotations[0] has an RLE segmentation whose"),
        (_gold_with(segmentation={"size": [H, W], "counts": [1, 2]}), "annotations[0] has RLE counts that are neg"),
        (_gold_with(segmentation={"size": [H, W], "counts": "o"}), "annotations[0] has an RLE counts string that"),
        (_gold_with(segmentation=None), "annotations[0] has a segmentation that is neither polygons"),
        (
            dict(GOLD, images=[{"id": 7001, "height": H}, GOLD["images"][1]]),
            "images[0] has no height and width (positive integers), which masks need",
        ),
    ],
    ids=["two_points", "odd", "empty", "inf", "far", "overflow", "size", "sum", "string", "null", "no_width"],
)
def test_bad_gold_gets_one_sentence_without_its_values(tmp_path, gold, expected):
    if gold["annotations"][0].get("segmentation") is None and "images" not in expected:
        del gold["annotations"][0]["segmentation"]
        expected = 'annotations[0] has no "segmentation"'
    with pytest.raises(ConfigError) as caught:
        gold_of(tmp_path, gold)
    assert expected in _message(caught.value)


def test_iou_type_is_checked():
    with pytest.raises(ConfigError) as caught:
        parse_config(dict(CONFIG, iou_type="mask"))
    assert "iou_type must be bbox (boxes) or segm (instance masks), got 'mask'" in str(caught.value)


def test_scoring_program_end_to_end(tmp_path):
    """A perfect and a shifted mask: the scores pycocotools gives (AP 1 on image 7001; the crowd is ignored)."""
    ref = tmp_path / "input_ref"
    ref.mkdir()
    (ref / "instances.json").write_text(json.dumps(GOLD), encoding="utf-8")
    import yaml

    (ref / "config.yaml").write_text(yaml.safe_dump(CONFIG), encoding="utf-8")
    starts, ends, which = M.polygon_intervals([POLYGON], [H], [W])
    masks = M.masks_from_intervals(starts, ends, which, [H], [W])
    exact = {"size": [H, W], "counts": M.to_string(M.to_counts(masks, 0))}
    res = tmp_path / "input_res"
    res.mkdir()
    records = [_record(segmentation=exact, score=0.9), _record(image_id=7002, score=0.3)]
    (res / "detections.json").write_text(json.dumps(records), encoding="utf-8")
    run = run_scoring(str(tmp_path / "run"), PROGRAM, str(ref), str(res))
    assert run.returncode == 0, run.stderr
    assert run.scores["map"] == pytest.approx(1.0, abs=1e-12)


@pytest.mark.slow
def test_a_hundred_thousand_masks_read_in_bounded_time(tmp_path):
    """10**5 compressed masks of 640 x 480 on 1,000 images: read and matched in well under a minute."""
    rng = np.random.default_rng(0)
    h, w = 480, 640
    images = [{"id": i + 1, "height": h, "width": w} for i in range(1000)]
    anns = []
    for i in range(1000):
        for _ in range(5):
            x, y = rng.uniform(0, w - 80), rng.uniform(0, h - 80)
            side = rng.uniform(10, 80)
            poly = [x, y, x + side, y, x + side, y + side, x, y + side]
            anns.append(
                dict(id=len(anns) + 1, image_id=i + 1, category_id=1, segmentation=[poly], area=side * side, iscrowd=0)
            )
    gold = dict(images=images, annotations=anns, categories=[{"id": 1, "name": "a"}])
    records = []
    for k in range(100000):
        start = int(rng.integers(0, h * w - 5000))
        segmentation = _rle(h, w, start, int(rng.integers(1, 5000)))
        records.append(_record(image_id=k % 1000 + 1, category_id=1, segmentation=segmentation))
    config, standard = gold_of(tmp_path, gold)
    path = tmp_path / "detections.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    began = time.process_time()
    values = read_predictions(str(path), config, standard)
    assert len(values) == 1000 and time.process_time() - began < 120


def test_decoy_images_are_read_checked_and_dropped(tmp_path):
    """``files.unscored_ids: ignore``: masks of images the gold does not have are checked, then left out."""
    config = dict(CONFIG, files=dict(CONFIG["files"], unscored_ids="ignore"))
    parsed, standard = gold_of(tmp_path, config=config)
    path = tmp_path / "detections.json"
    decoy = _record(image_id=9999, segmentation=_rle(h=10, w=20, start=5, length=50))
    path.write_text(json.dumps([_record(), decoy]), encoding="utf-8")
    values = read_predictions(str(path), parsed, standard)
    assert [v.shape[0] for v in values] == [1, 0]
    bad = dict(decoy, segmentation={"size": [10, 20], "counts": [5, 6]})
    path.write_text(json.dumps([_record(), bad]), encoding="utf-8")
    with pytest.raises(SubmissionError) as caught:
        read_predictions(str(path), parsed, standard)
    assert "detection 2 has segmentation counts that sum to 11" in _message(caught.value)


def test_the_participants_format_and_sample_are_masks_the_program_accepts(tmp_path):
    from leaderboard_ci.tasks.detection import TASK

    config, standard = gold_of(tmp_path)
    fmt = TASK.submission_format(standard, config.files, config.metrics)
    assert fmt.file_name == "segmentations.json" and '"segmentation": {"size": [height, width]' in fmt.description
    public = json.loads(fmt.public_files[0][1])
    assert public["images"][0] == {"id": 7001, "height": H, "width": W}  # participants need the sizes
    path = tmp_path / "detections.json"
    path.write_text(fmt.sample, encoding="utf-8")
    values = read_predictions(str(path), config, standard)
    assert [v.shape[0] for v in values] == [1, 1]
    boxes = gold_of(tmp_path, config=dict(CONFIG, iou_type="bbox", files=dict(CONFIG["files"])), gold=_boxed())
    assert TASK.submission_format(boxes[1], boxes[0].files, boxes[0].metrics).file_name == "detections.json"


def _boxed():
    gold = json.loads(json.dumps(GOLD))
    for ann in gold["annotations"]:
        ann["bbox"] = [1, 2, 3, 4]
    return gold
