"""Detection fields whose only mistake is their quotes are told so (the session-9 sweep, in both images).

A ``category_id`` written ``"3"`` used to be told it "is not a category of this competition"; a score ``"0.5"``
"expected a finite number"; an ``image_id`` given as a number where the gold's ids are strings, that it
is no test image.  Each now says what the value is and what to write.  Nothing of the gold is named.
"""

import json

import pytest
from test_detection_inputs import CONFIG, GOLD, _with, assert_no_gold_leak, gold_of, predictions_of

from leaderboard_ci.scoring.errors import ConfigError, SubmissionError

STRING_IDS = dict(
    GOLD,
    images=[
        dict(image, id="img%d" % image["id"]) if image["id"] != 7003 else dict(image, id="7003")
        for image in GOLD["images"]
    ],
    annotations=[dict(a, image_id="img%d" % a["image_id"]) for a in GOLD["annotations"]],
)


@pytest.mark.parametrize(
    "gold, records, message",
    [
        (
            GOLD,
            _with(0, category_id="3"),
            "detection 1 has the category_id '3', a string; the categories have number ids: write it without quotes",
        ),
        (
            GOLD,
            _with(1, score="0.5"),
            "detection 2 has the score '0.5', a string; expected a number (a JSON number, not in quotes)",
        ),
        (
            STRING_IDS,
            [{"image_id": 7003, "category_id": 3, "bbox": [1, 1, 5, 5], "score": 0.1}],
            "detection 1 has the image_id '7003', a number; the test images have string ids: write it in quotes",
        ),
        (GOLD, _with(0, category_id=4), "detection 1 has the category_id '4', which is not a category"),  # unchanged
    ],
)
def test_a_field_that_differs_only_by_its_quotes_is_told_so(tmp_path, gold, records, message):
    standard = gold_of(tmp_path, gold=gold, config=CONFIG)
    with pytest.raises(SubmissionError) as info:
        predictions_of(tmp_path, json.dumps(records), standard)
    text = str(info.value)
    assert text.startswith("detections.json line 1: " + message), text
    assert_no_gold_leak(text)


@pytest.mark.parametrize(
    "key, expected",
    [
        (
            "bbox",
            "expected the object's box [x, y, width, height] (this competition scores boxes; from a mask, "
            "pycocotools.mask.toBbox gives it)",
        ),
        ("area", "expected the object's area, which decides its small/medium/large range"),
        ("image_id", "expected the id of its image in images"),
    ],
)
def test_a_gold_annotation_without_a_key_is_told_what_the_key_holds(tmp_path, key, expected):
    """A mask-only COCO gold (RLE segmentation, no bbox) is told to give the box, and how to compute it."""
    annotations = [dict(a) for a in GOLD["annotations"]]
    annotations[0]["segmentation"] = {"size": [480, 640], "counts": "PPYo0"}
    del annotations[0][key]
    with pytest.raises(ConfigError) as info:
        gold_of(tmp_path, gold=dict(GOLD, annotations=annotations), config=CONFIG)
    text = str(info.value)
    assert text.startswith('ref/instances.json line 1: annotations[0] has no "%s"; %s' % (key, expected)), text
