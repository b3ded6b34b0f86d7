"""``init`` on a COCO gold whose annotations carry masks, with a box config: it says the masks go unscored.

COCO instances files carry a ``segmentation`` beside each ``bbox``; ``iou_type`` defaults to ``bbox``, so
an organizer who meant mask AP would otherwise get box AP without a word.  The note counts the annotations
with a mask and names the setting; with ``iou_type: segm``, or a gold without masks, there is no note.
"""

import io
import json
import os

import pytest

from leaderboard_ci.cli.main import main

SQUARE = [[2.0, 2.0, 12.0, 2.0, 12.0, 12.0, 2.0, 12.0]]


def _gold(masked):
    images = [{"id": i, "width": 40, "height": 30, "file_name": "%d.jpg" % i} for i in range(1, 7)]
    annotations = []
    for i in range(1, 7):
        record = {"id": i, "image_id": i, "category_id": 1 + i % 2, "bbox": [2, 2, 10, 10], "area": 100, "iscrowd": 0}
        if i <= masked:
            record["segmentation"] = SQUARE
        annotations.append(record)
    categories = [{"id": 1, "name": "cat"}, {"id": 2, "name": "dog"}]
    return {"images": images, "annotations": annotations, "categories": categories}


def _init(tmp, masked, iou_type):
    gold = os.path.join(tmp, "instances_test.json")
    with io.open(gold, "w", encoding="utf-8") as handle:
        json.dump(_gold(masked), handle)
    config = os.path.join(tmp, "config.yaml")
    with io.open(config, "w", encoding="utf-8") as handle:
        handle.write(
            "task: detection\n%smetric: ap50\nfiles: {gold: instances_test.json, predictions: detections.json}\n"
            "bootstrap: {n_resamples: 20}\n" % ("iou_type: %s\n" % iou_type if iou_type else "")
        )
    out = io.StringIO()
    folder = os.path.join(tmp, "competition")
    assert main(["init", folder, "--gold", gold, "--config", config], out) == 0, out.getvalue()
    with io.open(os.path.join(folder, "README.md"), encoding="utf-8") as handle:
        return [line for line in out.getvalue().splitlines() if line.startswith("note:")], handle.read()


CASES = [(4, None, True), (4, "bbox", True), (6, "segm", False), (0, None, False)]


@pytest.mark.parametrize("masked, iou_type, noted", CASES)
def test_init_says_when_a_box_competition_leaves_the_golds_masks_unscored(tmp_path, masked, iou_type, noted):
    notes, readme = _init(str(tmp_path), masked, iou_type)
    if noted:
        assert notes == [
            "note: 4 of the 6 gold annotations carry a segmentation (a mask), and this competition scores boxes "
            "(iou_type: bbox, the default): to score the masks as COCOeval(iouType='segm') does, add "
            "'iou_type: segm' to config.yaml (docs/tasks/detection.md)"
        ], notes
        assert "## Notes on the gold\n\n* 4 of the 6 gold annotations carry a segmentation" in readme
    else:
        assert notes == [] and "Notes on the gold" not in readme
