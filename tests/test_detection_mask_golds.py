"""COCO golds and results that carry masks (RLE compressed or not, polygons) score as their boxes alone do.

``task: detection`` scores boxes (pycocotools' ``iouType='bbox'``), and ``segmentation`` is not read: a gold
holding every COCO mask form (compressed and uncompressed RLE, polygons; ``iscrowd`` 0 and 1; empty images,
a category without instances) and results carrying malformed masks (a wrong size, counts that do not sum to
h x w, bad characters, a 2-point polygon, NaN coordinates) read to the same arrays as the same files
without their masks, and pycocotools (``iouType='bbox'``) run on the mask-carrying data gives our twelve
numbers on the full sample and on replicates (``test_detection_parity.assert_same``).  Session-9 sweep.
"""

import json
import os
import sys

import numpy as np
import pytest

from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.readers import read_gold, read_predictions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples", "detection"))
from synthetic import make_detections, make_gold  # noqa: E402

mask_utils = pytest.importorskip("pycocotools.mask", reason="pycocotools (the test extra) makes the masks")

CONFIG = {
    "task": "detection",
    "metric": "map",
    "files": {"gold": "instances.json", "predictions": "detections.json"},
    "bootstrap": {"n_resamples": 20, "n_jobs": 1},
}
HOSTILE = [
    {"size": [7, 9], "counts": [63, 1]},  # wrong size, and counts beyond it
    {"size": [480, 640], "counts": [5, 5]},  # does not sum to h x w
    {"size": [480, 640], "counts": "\u00e9\x00~~ZZ"},  # not COCO's alphabet
    [[1.0, 2.0, 3.0, 4.0]],  # a polygon of 2 points
    [[float("nan"), 1.0, 2.0, 3.0, 4.0, 5.0]],
]


def _with_masks(gold):
    """The gold with a mask on every annotation: compressed RLE, uncompressed RLE or a polygon, in turn."""
    out = dict(gold, annotations=[dict(a) for a in gold["annotations"]])
    for k, a in enumerate(out["annotations"]):
        x, y, w, h = [int(round(v)) for v in a["bbox"]]
        mask = np.zeros((480, 640), dtype=np.uint8, order="F")
        mask[y : y + max(h, 1), x : x + max(w, 1)] = 1
        if k % 3 == 0:
            rle = mask_utils.encode(mask)
            a["segmentation"] = {"size": rle["size"], "counts": rle["counts"].decode("ascii")}
        elif k % 3 == 1:
            flat = mask.flatten(order="F")
            runs = np.diff(np.r_[0, np.flatnonzero(np.diff(flat)) + 1, flat.size]).tolist()
            a["segmentation"] = {"size": [480, 640], "counts": ([0] if flat[0] else []) + runs}
        else:
            a["segmentation"] = [[x, y, x + w, y, x + w, y + h, x, y + h]]
    return out


def _read(folder, gold, results):
    ref = folder / "ref"
    ref.mkdir(parents=True)
    (ref / "instances.json").write_text(json.dumps(gold, allow_nan=True))
    (folder / "detections.json").write_text(json.dumps(results, allow_nan=True))
    config = parse_config(dict(CONFIG))
    standard = read_gold(str(ref), config)
    return standard, read_predictions(str(folder / "detections.json"), config, standard)


def test_masks_in_the_gold_and_the_results_change_nothing(tmp_path):
    gold = make_gold(8, n_images=30, n_categories=3, mean_objects=3.0, crowd_share=0.15, empty_share=0.15)
    results = make_detections(gold, 0.7, 9)
    masked = [dict(r, segmentation=HOSTILE[k % len(HOSTILE)]) for k, r in enumerate(results)]
    plain_gold, plain = _read(tmp_path / "plain", gold, results)
    mask_gold, with_masks = _read(tmp_path / "masks", _with_masks(gold), masked)
    assert any(a["iscrowd"] for a in gold["annotations"]) and len(gold["categories"]) == 4  # one without instances
    for a, b in ((plain_gold.values, mask_gold.values), (plain, with_masks)):  # one array of rows per image
        assert len(a) == len(b) == 30 and all(x.tobytes() == y.tobytes() for x, y in zip(a, b))


def test_pycocotools_scores_the_mask_carrying_files_as_we_do():
    """The twelve COCO numbers of the full sample and two replicates, pycocotools on the same mask-carrying data."""
    from test_detection_parity import assert_same

    gold = make_gold(8, n_images=30, n_categories=3, mean_objects=3.0, crowd_share=0.15, empty_share=0.15)
    results = make_detections(gold, 0.7, 9)
    masked = [dict(r, segmentation=HOSTILE[k % len(HOSTILE)]) for k, r in enumerate(results)]
    assert_same(_with_masks(gold), masked, n_replicates=2)
