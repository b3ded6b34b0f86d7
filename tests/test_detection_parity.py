"""``task: detection`` against pycocotools 2.0.11 (``COCOeval``, ``iouType='bbox'``), on the same resamples.

A replicate is defined as pycocotools run on the *resampled data set*: each image drawn ``w`` times is
copied ``w`` times with new ids, its annotations and detections with it; the copies get ids in the
order of the original images (all copies of the first image in id order, then of the second...), and
within an image every list keeps its order.  :func:`resampled` builds that data set from the counts of
the scoring program's own resample stream (``core.resampling``), pycocotools scores it, and every one
of the twelve ``stats`` must equal ours to 1e-9 (ours: pycocotools' -1 is NaN).  The fast cases are
small synthetic sets that hold each hard case (crowd regions, more than 100 detections of one image
and category, tied scores inside and across images, empty images, a category without gold and one
without detections, boxes on the area ranges' bounds, zero-size boxes, duplicates); the example's
seven systems run under ``slow``.  VOC's AP50 is checked against a line-by-line transcription of the
VOC2010+ devkit's ``VOCevaldet`` and ``VOCap``.
"""

import contextlib
import copy
import io
import json
import os
import sys
import zipfile

import numpy as np
import pytest

from leaderboard_ci.core.replicates import compute_replicates
from leaderboard_ci.core.resampling import counts_from_indices, replicate_indices
from leaderboard_ci.tasks.detection import TASK
from leaderboard_ci.tasks.detection.boxes import RECALL_THRESHOLDS
from leaderboard_ci.tasks.detection.curves import thresholds_reached
from leaderboard_ci.tasks.detection.metrics import METRIC_ORDER, METRICS
from leaderboard_ci.tasks.shared.base import GoldStandard, MetricSpec
from leaderboard_ci.tasks.shared.scorer import SystemScorer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "detection")
sys.path.insert(0, EXAMPLE)

from synthetic import make_detections, make_gold, resampled  # noqa: E402

coco = pytest.importorskip("pycocotools.coco", reason="pycocotools (the test extra) is the reference")
cocoeval = pytest.importorskip("pycocotools.cocoeval")
mask_utils = pytest.importorskip("pycocotools.mask")

COCO_NAMES = METRIC_ORDER[:12]
SEED = 12345


# ---------------------------------------------------------------------------
# The reference and the resampled data set
# ---------------------------------------------------------------------------
def pycocotools_stats(gold, results):
    """pycocotools' twelve numbers (``COCOeval.stats``) of a gold dict and a results list."""
    with contextlib.redirect_stdout(io.StringIO()):
        gt = coco.COCO()
        gt.dataset = copy.deepcopy(gold)
        gt.createIndex()
        dt = gt.loadRes(copy.deepcopy(results))
        evaluation = cocoeval.COCOeval(gt, dt, "bbox")
        evaluation.evaluate()
        evaluation.accumulate()
        evaluation.summarize()
    return np.array(evaluation.stats)


def specs(names):
    return [MetricSpec(name, name, METRICS[name].info) for name in names]


def ours(gold, results, n_replicates=3, names=COCO_NAMES, block_rows=None, n_jobs=1):
    """Our values ``(1 + n_replicates, len(names))``: the full sample, then replicates 0.. of the stream."""
    values, labels, coded = TASK.encode_values(gold, {"system": results})
    standard = GoldStandard(values=values, labels=labels, task="detection")
    scorer = SystemScorer(specs(names), standard, coded["system"])
    full = [acc.full()[None, :] for acc in scorer.accumulators]
    rows = [scorer.scores(full)]
    if n_replicates:
        reps = compute_replicates(
            scorer.accumulators, standard.n, SEED, n_replicates, n_jobs=n_jobs, block_rows=block_rows
        )
        rows.append(scorer.scores(reps))
    return np.concatenate(rows, axis=0)


def reference(gold, results, n_replicates=3, stats=pycocotools_stats):
    """pycocotools' values on the full sample and on the resampled data sets of replicates 0.."""
    out = [stats(gold, results)]
    n = len(gold["images"])
    for indices in replicate_indices(SEED, n, 0, n_replicates):
        counts = counts_from_indices(indices[None, :], n)[0]
        out.append(stats(*resampled(gold, results, counts)))
    return np.array(out)


def assert_same(gold, results, n_replicates=3):
    mine = ours(gold, results, n_replicates)
    theirs = reference(gold, results, n_replicates)
    mine = np.where(np.isnan(mine), -1.0, mine)  # pycocotools' "undefined"
    np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-9)
    return mine


# ---------------------------------------------------------------------------
# Small data sets, one hard case each
# ---------------------------------------------------------------------------
def small_gold(seed, n_images=40, n_categories=4, empty_share=0.1):
    return make_gold(
        seed, n_images=n_images, n_categories=n_categories, mean_objects=4.0, crowd_share=0.06, empty_share=empty_share
    )


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(dict(quality=0.8, seed=1), marks=pytest.mark.slow),
        pytest.param(dict(quality=0.7, seed=2, score_decimals=1), marks=pytest.mark.slow),  # ties
        pytest.param(dict(quality=0.6, seed=3, flood=0.3), marks=pytest.mark.slow),  # > 100 per image and category
        dict(quality=0.9, seed=4, score_decimals=2, flood=0.2),  # both: the fast representative
        dict(quality=0.3, seed=5),  # a poor system: few true positives, long false-positive tails
    ],
    ids=["plain", "ties", "maxdets", "ties_and_maxdets", "poor"],
)
def test_every_metric_equals_pycocotools_on_the_sample_and_three_resamples(case):
    gold = small_gold(case["seed"])
    params = dict(case)
    results = make_detections(gold, params.pop("quality"), params.pop("seed") + 100, **params)
    values = assert_same(gold, results)
    assert np.all(values[:, 0] > 0)  # the cases are not trivial


def test_categories_without_gold_or_without_detections_empty_images_and_crowds():
    gold = small_gold(7, n_images=30, n_categories=5, empty_share=0.2)
    counts = dict((c["id"], 0) for c in gold["categories"])
    for ann in gold["annotations"]:
        counts[ann["category_id"]] += 1
    unused = [c for c, n in counts.items() if n == 0]
    assert unused  # the generator lists a category that no annotation uses
    results = make_detections(gold, 0.7, 8, score_decimals=2)
    undetected = gold["categories"][0]["id"]
    results = [r for r in results if r["category_id"] != undetected]
    assert any(r["category_id"] in unused for r in results)  # detections of a category without gold
    empty = set(i["id"] for i in gold["images"]) - set(a["image_id"] for a in gold["annotations"])
    assert empty and any(r["image_id"] in empty for r in results)
    assert any(a["iscrowd"] for a in gold["annotations"])
    assert_same(gold, results)


def _box_gold():
    """Hand-made boxes on the area bounds (exactly 32**2 and 96**2), zero-size and duplicate detections."""
    images = [{"id": i} for i in (10, 20, 30)]
    annotations = [
        {"id": 1, "image_id": 10, "category_id": 1, "bbox": [0, 0, 32, 32], "area": 1024.0, "iscrowd": 0},
        {"id": 2, "image_id": 10, "category_id": 1, "bbox": [100, 100, 96, 96], "area": 9216.0, "iscrowd": 0},
        {"id": 3, "image_id": 20, "category_id": 2, "bbox": [0, 0, 200, 200], "area": 30000.0, "iscrowd": 1},
        {"id": 4, "image_id": 20, "category_id": 2, "bbox": [10, 10, 20, 20], "area": 400.0, "iscrowd": 0},
        {"id": 5, "image_id": 30, "category_id": 1, "bbox": [5, 5, 50, 40], "area": 1500.5, "iscrowd": 0},
    ]
    categories = [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "name": "c"}]
    results = [
        {"image_id": 10, "category_id": 1, "bbox": [0, 0, 32, 32], "score": 0.9},
        {"image_id": 10, "category_id": 1, "bbox": [0, 0, 32, 32], "score": 0.9},  # a duplicate, tied
        {"image_id": 10, "category_id": 1, "bbox": [100, 100, 96, 96], "score": 0.5},
        {"image_id": 10, "category_id": 1, "bbox": [300, 300, 0, 10], "score": 0.95},  # zero width
        {"image_id": 20, "category_id": 2, "bbox": [50, 50, 10, 10], "score": 0.8},  # inside the crowd
        {"image_id": 20, "category_id": 2, "bbox": [11, 11, 19, 19], "score": 0.8},
        {"image_id": 20, "category_id": 2, "bbox": [400, 0, 30, 30], "score": 0.8},  # tied false positive
        {"image_id": 30, "category_id": 1, "bbox": [5, 5, 50, 40], "score": 0.8},
        {"image_id": 30, "category_id": 3, "bbox": [5, 5, 50, 40], "score": 0.3},  # a category without gold
    ]
    return {"images": images, "annotations": annotations, "categories": categories}, results


def test_boxes_on_the_area_bounds_zero_size_boxes_and_duplicates():
    gold, results = _box_gold()
    assert_same(gold, results, n_replicates=6)


def test_tied_true_and_false_positives_of_one_image_follow_the_resampled_order():
    """The tie convention: an image drawn twice repeats its tied pair as a whole (ABAB), as pycocotools does.

    One image holds a TP and an FP with the same score; another image is drawn too.  Ordering the
    copies AABB (weighting each detection by its count) would give another AP: pycocotools on the
    resampled data set must agree with ours, and the two orders must differ here.
    """
    gold = {
        "images": [{"id": 1}, {"id": 2}],
        "annotations": [
            {"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "area": 100.0, "iscrowd": 0},
            {"id": 2, "image_id": 2, "category_id": 1, "bbox": [0, 0, 10, 10], "area": 100.0, "iscrowd": 0},
            {"id": 3, "image_id": 2, "category_id": 1, "bbox": [50, 50, 10, 10], "area": 100.0, "iscrowd": 0},
        ],
        "categories": [{"id": 1, "name": "a"}],
    }
    results = [
        {"image_id": 1, "category_id": 1, "bbox": [30, 30, 10, 10], "score": 0.5},  # FP first in the file
        {"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "score": 0.5},  # TP, tied
        {"image_id": 2, "category_id": 1, "bbox": [0, 0, 10, 10], "score": 0.7},
        {"image_id": 2, "category_id": 1, "bbox": [90, 90, 10, 10], "score": 0.5},  # tied FP of image 2
    ]
    counts = np.array([[3, 1], [2, 2], [1, 3]], dtype=np.float64)
    mine = _map_of_counts(gold, results, counts)
    theirs = [pycocotools_stats(*resampled(gold, results, c))[0] for c in counts]
    np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-12)
    # weighting each detection by its image's count (its copies adjacent: AABB) gives other numbers
    aabb = _map_of_counts(gold, results, counts, expand_ties=False)
    assert np.max(np.abs(aabb - mine)) > 1e-3


def _map_of_counts(gold, results, counts, expand_ties=True):
    """Our AP@[.5:.95] for each row of image ``counts``; ``expand_ties=False``: tie blocks not expanded."""
    import leaderboard_ci.tasks.detection.features as features
    from leaderboard_ci.tasks.detection import curves

    class AdjacentCopies(curves.Curves):
        def __init__(self, *args, **kwargs):
            super(AdjacentCopies, self).__init__(*args, **kwargs)
            n = self.n
            self.tied_images = self.tied_images[:0]
            self._piece_start, self._piece_len = np.arange(n), np.ones(n, np.intp)
            self._piece_mixed, self._piece_slot = np.zeros(n, bool), np.full(n, -1, np.intp)

    original = features.Curves
    features.Curves = original if expand_ties else AdjacentCopies
    try:
        values, labels, coded = TASK.encode_values(gold, {"s": results})
        standard = GoldStandard(values=values, labels=labels, task="detection")
        scorer = SystemScorer(specs(("map",)), standard, coded["s"])
        return scorer.scores([scorer.accumulators[0]._from_weights(np.asarray(counts, float))])[:, 0]
    finally:
        features.Curves = original


# ---------------------------------------------------------------------------
# VOC's AP50 against the devkit, transcribed
# ---------------------------------------------------------------------------
def voc_devkit_ap50(gold, results):
    """``VOCevaldet`` + ``VOCap`` (VOC2010+), per class then the mean over classes with positives.

    Detections in image id order (file order within an image), sorted by a stable sort on -score
    (MATLAB's ``sort``); each takes the gold box of highest IoU (``ov > ovmax``: the first on ties), as
    pycocotools' ``bbIou`` computes it (no devkit +1: COCO boxes are continuous); crowd regions are
    VOC's difficult objects.
    """
    position = dict((image_id, p) for p, image_id in enumerate(sorted(i["id"] for i in gold["images"])))
    aps = []
    for category in sorted(c["id"] for c in gold["categories"]):
        boxes = {}
        for ann in gold["annotations"]:
            if ann["category_id"] == category:
                boxes.setdefault(ann["image_id"], []).append(ann)
        npos = sum(1 for anns in boxes.values() for a in anns if not a["iscrowd"])
        if npos == 0:
            continue
        dets = sorted((r for r in results if r["category_id"] == category), key=lambda r: position[r["image_id"]])
        order = np.argsort([-r["score"] for r in dets], kind="mergesort")
        detected, tp, fp = set(), np.zeros(len(dets)), np.zeros(len(dets))
        for d, i in enumerate(order):
            det = dets[i]
            anns = boxes.get(det["image_id"], [])
            ovmax, jmax = -np.inf, -1
            if anns:
                ious = mask_utils.iou([det["bbox"]], [a["bbox"] for a in anns], [int(a["iscrowd"]) for a in anns])[0]
                for j, ov in enumerate(ious):
                    if ov > ovmax:
                        ovmax, jmax = ov, j
            if ovmax >= 0.5:
                if not anns[jmax]["iscrowd"]:
                    if (det["image_id"], jmax) not in detected:
                        tp[d] = 1
                        detected.add((det["image_id"], jmax))
                    else:
                        fp[d] = 1
            else:
                fp[d] = 1
        tp, fp = np.cumsum(tp), np.cumsum(fp)
        rec = tp / npos
        with np.errstate(invalid="ignore"):
            prec = tp / (fp + tp)
        mrec = np.concatenate(([0.0], rec, [1.0]))
        mpre = np.concatenate(([0.0], prec, [0.0]))
        for i in range(mpre.size - 2, -1, -1):
            mpre[i] = np.fmax(mpre[i], mpre[i + 1])  # MATLAB's max ignores NaN (0/0 before any detection)
        i = np.flatnonzero(mrec[1:] != mrec[:-1])
        aps.append(np.sum((mrec[i + 1] - mrec[i]) * mpre[i + 1]))
    return float(np.mean(aps)) if aps else -1.0


@pytest.mark.parametrize("decimals", [None, 1])
def test_voc_ap50_equals_the_devkit_on_the_sample_and_three_resamples(decimals):
    gold = small_gold(11)
    results = make_detections(gold, 0.6, 12, score_decimals=decimals, flood=0.1)
    mine = ours(gold, results, names=("voc_ap50",))[:, 0]
    theirs = reference(gold, results, stats=lambda g, r: np.array([voc_devkit_ap50(g, r)]))[:, 0]
    np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-9)


# ---------------------------------------------------------------------------
# Properties of the computation
# ---------------------------------------------------------------------------
def test_block_size_threads_and_sub_blocks_change_no_bit(monkeypatch):
    gold = small_gold(21, n_images=50)
    results = make_detections(gold, 0.7, 22, score_decimals=1, flood=0.2)
    names = COCO_NAMES + ("voc_ap50",)
    first = ours(gold, results, n_replicates=40, names=names, block_rows=40)
    assert np.array_equal(first, ours(gold, results, n_replicates=40, names=names, block_rows=3))
    assert np.array_equal(first, ours(gold, results, n_replicates=40, names=names, block_rows=7, n_jobs=2))
    import leaderboard_ci.tasks.detection.features as features

    monkeypatch.setattr(features, "BLOCK_ELEMENTS", 1)  # one replicate per sub-block
    assert np.array_equal(first, ours(gold, results, n_replicates=40, names=names, block_rows=40))


def test_thresholds_reached_is_a_binary_search_of_the_recall_thresholds():
    rng = np.random.RandomState(0)
    npig = rng.randint(1, 400, 20000).astype(float)
    tp = np.floor(rng.rand(20000) * (npig + 1))
    recall = tp / npig
    recall[:101] = RECALL_THRESHOLDS  # the thresholds themselves, and the ratios that round next to them
    recall[101:301] = np.arange(200) / 200.0
    expected = np.searchsorted(RECALL_THRESHOLDS, recall, side="right")
    assert np.array_equal(thresholds_reached(recall), expected)
    wide = np.asfortranarray(recall.reshape(100, 200))  # what fancy indexing along axis 1 gives
    assert np.array_equal(thresholds_reached(wide), expected.reshape(100, 200))


def test_an_empty_submission_scores_zero_where_pycocotools_fails():
    gold = small_gold(31, n_images=10)
    values = ours(gold, [], n_replicates=2)
    assert np.all(values[:, :12] == 0)
    with pytest.raises(IndexError):  # loadRes reads anns[0]
        pycocotools_stats(gold, [])


# ---------------------------------------------------------------------------
# The example competition (slow: 28 pycocotools runs of 300 images)
# ---------------------------------------------------------------------------
def _example_systems():
    with open(os.path.join(EXAMPLE, "reference_data", "instances_test.json"), encoding="utf-8") as handle:
        gold = json.load(handle)
    systems = {}
    for name in sorted(os.listdir(os.path.join(EXAMPLE, "sample_submissions"))):
        with zipfile.ZipFile(os.path.join(EXAMPLE, "sample_submissions", name)) as z:
            systems[name[:-4]] = json.loads(z.read("detections.json").decode("utf-8"))
    with open(os.path.join(EXAMPLE, "reference_data", "baseline.json"), encoding="utf-8") as handle:
        systems["baseline"] = json.load(handle)
    return gold, systems


@pytest.mark.slow
@pytest.mark.parametrize(
    "system", ["cascade_swin", "dino_r50", "faster_rcnn_fpn", "retinanet_r50", "yolo_tiny", "ssd_mobile", "baseline"]
)
def test_the_example_equals_pycocotools_on_the_sample_and_three_resamples(system):
    gold, systems = _example_systems()
    assert_same(gold, systems[system])
