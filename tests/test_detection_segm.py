"""``task: detection`` with ``iou_type: segm`` against pycocotools 2.0.11 ``COCOeval(iouType='segm')``.

As for boxes (``test_detection_parity.py``), a replicate is pycocotools run on the resampled data set:
each image drawn ``w`` times is copied ``w`` times with new ids (its height and width kept), its
annotations and detections with it, in the order of the scoring program's own resample stream.  The
gold mixes polygons (several parts, vertices off the pixel grid and outside the image) and RLE
(compressed and uncompressed, crowd regions); the results are compressed RLE, with and without a
``bbox`` (pycocotools then takes a detection's area from its box, else from its mask), with tied
scores and more than 100 detections of one image and category.  Every one of the twelve numbers must
equal pycocotools' to 1e-12 (ours: pycocotools' -1 is NaN).
"""

import contextlib
import copy
import io

import numpy as np
import pytest

from leaderboard_ci.core.replicates import compute_replicates
from leaderboard_ci.core.resampling import counts_from_indices, replicate_indices
from leaderboard_ci.tasks.detection import TASK
from leaderboard_ci.tasks.detection.metrics import METRIC_ORDER, METRICS
from leaderboard_ci.tasks.detection.segm_gold import DetectionSettings
from leaderboard_ci.tasks.shared.base import GoldStandard, MetricSpec
from leaderboard_ci.tasks.shared.scorer import SystemScorer

coco = pytest.importorskip("pycocotools.coco", reason="pycocotools (the test extra) is the reference")
cocoeval = pytest.importorskip("pycocotools.cocoeval")
mask_utils = pytest.importorskip("pycocotools.mask")

COCO_NAMES = METRIC_ORDER[:12]
SEED = 12345
SEGM = DetectionSettings(iou_type="segm")


# ---------------------------------------------------------------------------
# Synthetic instance segmentation data
# ---------------------------------------------------------------------------
def _polygon(rng, cx, cy, radius):
    k = int(rng.integers(3, 9))
    angles = np.sort(rng.uniform(0, 2 * np.pi, k))
    r = radius * rng.uniform(0.5, 1.0, k)
    xy = np.stack([cx + r * np.cos(angles), cy + r * np.sin(angles)], axis=1)
    return [round(float(v), 2) for v in xy.ravel()]


def make_segm_gold(seed, n_images=24, n_categories=3, sizes=(80, 260), objects=3.0):
    """Images of random sizes in ``sizes``, about ``objects`` objects each (polygons, RLE, crowd RLE)."""
    rng = np.random.default_rng(seed)
    images, annotations = [], []
    for i in range(n_images):
        h, w = int(rng.integers(*sizes)), int(rng.integers(*sizes))
        image_id = 100 + 7 * i
        images.append({"id": image_id, "height": h, "width": w, "file_name": "%d.jpg" % image_id})
        for _ in range(int(rng.poisson(objects)) if i % 8 else 0):
            cx, cy = rng.uniform(-5, w + 5), rng.uniform(-5, h + 5)
            radius = float(np.exp(rng.uniform(np.log(4), np.log(110))))
            crowd = int(rng.random() < 0.08)
            parts = [_polygon(rng, cx, cy, radius)]
            if rng.random() < 0.2:
                parts.append(_polygon(rng, cx + radius, cy, radius / 2))
            rle = mask_utils.merge(mask_utils.frPyObjects(parts, h, w))
            if crowd or rng.random() < 0.15:
                mask = mask_utils.decode(rle)
                counts = [int(c) for c in _counts(mask)]
                segmentation = {"size": [h, w], "counts": counts}
                if not crowd:
                    segmentation = {"size": [h, w], "counts": rle["counts"].decode()}
            else:
                segmentation = parts
            area = float(mask_utils.area(rle)) + (0.5 if rng.random() < 0.3 else 0.0)
            annotations.append(
                {
                    "id": len(annotations) + 1,
                    "image_id": image_id,
                    "category_id": int(rng.integers(1, n_categories + 1)),
                    "segmentation": segmentation,
                    "area": area,
                    "bbox": [float(v) for v in mask_utils.toBbox(rle)],
                    "iscrowd": crowd,
                }
            )
    categories = [{"id": k, "name": "c%d" % k} for k in range(1, n_categories + 1)]
    return {"images": images, "annotations": annotations, "categories": categories}


def _counts(mask):
    flat = mask.ravel(order="F")
    change = np.flatnonzero(flat[1:] != flat[:-1]) + 1
    counts = np.diff(np.concatenate([[0], change, [flat.size]]))
    return np.concatenate([[0], counts]) if flat[0] else counts


def make_segm_results(gold, seed, with_box=True, flood=0, score_decimals=2):
    """Masks near the gold's (shifted, grown or shrunk), false masks, and ``flood`` extra ones per image."""
    rng = np.random.default_rng(seed)
    sizes = dict((im["id"], (im["height"], im["width"])) for im in gold["images"])
    n_categories = len(gold["categories"])
    out = []

    def add(image_id, category, mask):
        rle = mask_utils.encode(np.asfortranarray(mask.astype(np.uint8)))
        record = {
            "image_id": image_id,
            "category_id": category,
            "segmentation": {"size": [int(v) for v in rle["size"]], "counts": rle["counts"].decode()},
            "score": round(float(rng.random()), score_decimals),
        }
        if with_box:
            record["bbox"] = [float(v) for v in mask_utils.toBbox(rle)]
        out.append(record)

    for ann in gold["annotations"]:
        h, w = sizes[ann["image_id"]]
        if rng.random() < 0.15:
            continue
        segm = ann["segmentation"]
        rle = mask_utils.merge(mask_utils.frPyObjects(segm, h, w)) if isinstance(segm, list) else segm
        if isinstance(rle.get("counts"), list):
            rle = mask_utils.frPyObjects(rle, h, w)
        mask = mask_utils.decode(rle)
        mask = np.roll(mask, (int(rng.integers(-2, 3)), int(rng.integers(-2, 3))), axis=(0, 1))
        category = ann["category_id"] if rng.random() < 0.9 else int(rng.integers(1, n_categories + 1))
        add(ann["image_id"], category, mask)
    for image in gold["images"]:
        h, w = image["height"], image["width"]
        for _ in range(int(rng.integers(0, 3)) + flood):
            mask = np.zeros((h, w), dtype=np.uint8)
            y, x = int(rng.integers(0, h)), int(rng.integers(0, w))
            mask[y : y + int(rng.integers(1, 40)), x : x + int(rng.integers(1, 40))] = 1
            add(image["id"], int(rng.integers(1, n_categories + 1)) if not flood else 1, mask)
    rng.shuffle(out)
    return out


def resampled(gold, results, counts):
    """The resampled data set: each image copied ``counts`` times with new ids, its height and width kept."""
    images = sorted(gold["images"], key=lambda im: im["id"])
    annotations, detections = {}, {}
    for ann in gold["annotations"]:
        annotations.setdefault(ann["image_id"], []).append(ann)
    for det in results:
        detections.setdefault(det["image_id"], []).append(det)
    new_images, anns, dets = [], [], []
    for position, image in enumerate(images):
        for _ in range(int(counts[position])):
            new = len(new_images) + 1
            new_images.append(dict(image, id=new))
            for ann in annotations.get(image["id"], ()):
                anns.append(dict(ann, image_id=new, id=len(anns) + 1))
            for det in detections.get(image["id"], ()):
                dets.append(dict(det, image_id=new))
    return {"images": new_images, "annotations": anns, "categories": gold["categories"]}, dets


# ---------------------------------------------------------------------------
# Ours and theirs
# ---------------------------------------------------------------------------
def pycocotools_segm(gold, results):
    with contextlib.redirect_stdout(io.StringIO()):
        gt = coco.COCO()
        gt.dataset = copy.deepcopy(gold)
        gt.createIndex()
        if not results:
            return np.full(12, -1.0)
        dt = gt.loadRes(copy.deepcopy(results))
        evaluation = cocoeval.COCOeval(gt, dt, "segm")
        evaluation.evaluate()
        evaluation.accumulate()
        evaluation.summarize()
    return np.array(evaluation.stats)


def ours(gold, results, n_replicates):
    values, labels, coded = TASK.encode_values(gold, {"system": results}, settings=SEGM)
    standard = GoldStandard(values=values, labels=labels, task="detection", settings=SEGM)
    specs = [MetricSpec(name, name, METRICS[name].info) for name in COCO_NAMES]
    scorer = SystemScorer(specs, standard, coded["system"])
    rows = [scorer.scores([acc.full()[None, :] for acc in scorer.accumulators])]
    if n_replicates:
        rows.append(scorer.scores(compute_replicates(scorer.accumulators, standard.n, SEED, n_replicates)))
    return np.concatenate(rows, axis=0)


def theirs(gold, results, n_replicates):
    out = [pycocotools_segm(gold, results)]
    n = len(gold["images"])
    for indices in replicate_indices(SEED, n, 0, n_replicates):
        out.append(pycocotools_segm(*resampled(gold, results, counts_from_indices(indices[None, :], n)[0])))
    return np.array(out)


def assert_same(gold, results, n_replicates=2):
    mine = ours(gold, results, n_replicates)
    mine = np.where(np.isnan(mine), -1.0, mine)
    np.testing.assert_allclose(mine, theirs(gold, results, n_replicates), rtol=0, atol=1e-12)
    return mine


@pytest.mark.parametrize(
    "case",
    [
        dict(seed=1, with_box=False),  # the fast representative: areas from the masks
        pytest.param(dict(seed=2, with_box=True), marks=pytest.mark.slow),  # areas from the boxes
        pytest.param(dict(seed=3, with_box=False, score_decimals=1, flood=110), marks=pytest.mark.slow),
    ],
    ids=["mask_areas", "box_areas", "ties_and_maxdets"],
)
def test_every_metric_equals_pycocotools_segm_on_the_sample_and_resamples(case):
    gold = make_segm_gold(case["seed"])
    params = dict(case)
    seed = params.pop("seed")
    results = make_segm_results(gold, seed + 100, **params)
    values = assert_same(gold, results)
    assert np.all(values[:, 0] > 0.05)  # not trivial
    kinds = set(type(a["segmentation"]).__name__ for a in gold["annotations"])
    assert kinds == {"list", "dict"}
    assert any(a["iscrowd"] for a in gold["annotations"])


def test_box_areas_and_mask_areas_differ_where_pycocotools_does():
    """With boxes a detection's area is its box's (loadRes), and the area-range numbers follow it."""
    gold = make_segm_gold(2, n_images=10)
    boxed = make_segm_results(gold, 102, with_box=True)
    bare = [dict((k, v) for k, v in r.items() if k != "bbox") for r in boxed]
    with_box, without = assert_same(gold, boxed, 0), assert_same(gold, bare, 0)
    assert not np.array_equal(with_box, without)


def test_box_results_unchanged_by_the_default_setting():
    """``iou_type`` defaults to bbox: a box submission scores as before."""
    gold = make_segm_gold(4, n_images=6)
    results = [dict(r, bbox=r["bbox"]) for r in make_segm_results(gold, 104, with_box=True)]
    values, labels, coded = TASK.encode_values(gold, {"s": results})
    assert coded["s"][0].shape[1] == 6
    values_segm, _, coded_segm = TASK.encode_values(gold, {"s": results}, settings=SEGM)
    assert coded_segm["s"][0].shape[1] >= 7
    assert all(np.array_equal(a, b) for a, b in zip(values, values_segm))


def test_chunk_sizes_change_nothing(monkeypatch):
    """The pair and interval chunks bound memory only: the encoded detections are the same bytes."""
    from leaderboard_ci.tasks.detection import masks, segm_gold, segm_results

    gold = make_segm_gold(5, n_images=8)
    results = make_segm_results(gold, 105, with_box=False, flood=3)
    _, _, before = TASK.encode_values(gold, {"s": results}, settings=SEGM)
    monkeypatch.setattr(segm_results, "_PAIR_CHUNK", 1)
    monkeypatch.setattr(masks, "_CHUNK", 2)
    monkeypatch.setattr(segm_gold, "_POLYGON_CHUNK", 7)
    _, _, after = TASK.encode_values(gold, {"s": results}, settings=SEGM)
    assert sum(a.shape[0] for a in before["s"]) == len(results)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(before["s"], after["s"]))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(20, 36))
def test_random_data_sets_equal_pycocotools(seed):
    """Sixteen random data sets (1-4 categories, small to COCO-sized objects, boxes or not, floods, ties)."""
    rng = np.random.default_rng(seed)
    gold = make_segm_gold(
        seed,
        n_images=int(rng.integers(5, 30)),
        n_categories=int(rng.integers(1, 5)),
        sizes=(int(rng.integers(20, 60)), 200),
        objects=float(rng.uniform(1, 6)),
    )
    results = make_segm_results(
        gold,
        seed + 1,
        with_box=bool(seed % 2),
        flood=int(rng.integers(0, 3)) * 50,
        score_decimals=int(rng.integers(1, 4)),
    )
    assert_same(gold, results)
