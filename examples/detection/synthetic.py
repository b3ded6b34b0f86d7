"""Synthetic COCO-like object detection: gold instances and detection results of graded quality.

Used by ``make_data.py`` (the example competition), by the detection tests
(parity with pycocotools) and by ``benchmarks/task_detection.py`` (COCO
val2017 scale).  numpy only; every draw comes from one ``RandomState`` seeded
by the caller, so the same arguments give the same bytes.

The gold (:func:`make_gold`): images of 640 x 480 with a Poisson number of
objects (a few images empty), categories of Zipf-like frequencies with
non-contiguous ids and one category that no annotation uses, box sizes
log-uniform from 6 to 350 pixels (small, medium and large objects in about
equal shares), an ``area`` below the box's (a segmentation's area, as in COCO)
and a few crowd regions.

A system (:func:`make_detections`) of ``quality`` q in (0, 1]: each object is
found with a probability that grows with q and with its size, its box jittered
by ``(1.05 - q)`` times its size, its category confused now and then; some
objects are found twice; a crowd region draws a few detections; false
positives are spread over random boxes and categories (the unused one
included), scored lower; ``per_image`` pads every image to that many
detections (the COCO convention of 100); ``score_decimals`` rounds the scores
(many ties within and across images).

:func:`resampled` builds the COCO data set of one bootstrap replicate (each drawn image copied with a new
id), so that a peer such as pycocotools can be run on exactly the replicate the program scores.
"""

import numpy as np

__all__ = ["make_gold", "make_detections", "CATEGORY_NAMES"]

CATEGORY_NAMES = (
    "person",
    "bicycle",
    "car",
    "motorcycle",
    "bus",
    "truck",
    "boat",
    "bird",
    "cat",
    "dog",
    "horse",
    "sheep",
    "cow",
    "bottle",
    "chair",
    "couch",
)
_WIDTH, _HEIGHT = 640.0, 480.0


def _box(rng, size_low, size_high):
    side = np.exp(rng.uniform(np.log(size_low), np.log(size_high)))
    aspect = np.exp(rng.normal(0.0, 0.35))
    w = min(side * np.sqrt(aspect), _WIDTH - 1.0)
    h = min(side / np.sqrt(aspect), _HEIGHT - 1.0)
    x = rng.uniform(0.0, _WIDTH - w)
    y = rng.uniform(0.0, _HEIGHT - h)
    return [round(float(x), 2), round(float(y), 2), round(float(w), 2), round(float(h), 2)]


def make_gold(seed, n_images=300, n_categories=10, mean_objects=6.0, crowd_share=0.03, empty_share=0.04):
    """A COCO instances dict: ``images``, ``annotations``, ``categories`` (one category unused)."""
    rng = np.random.RandomState(seed)
    ids = np.sort(rng.choice(np.arange(1, 4 * (n_categories + 1) + 1), n_categories + 1, replace=False))
    names = [CATEGORY_NAMES[i] if i < len(CATEGORY_NAMES) else "class%d" % i for i in range(n_categories + 1)]
    categories = [{"id": int(c), "name": names[i], "supercategory": "thing"} for i, c in enumerate(ids)]
    used = ids[:-1]
    freq = 1.0 / np.arange(1, n_categories + 1) ** 0.8
    freq /= freq.sum()
    image_ids = rng.choice(np.arange(1, 20 * n_images + 1), n_images, replace=False)
    images, annotations = [], []
    for image_id in image_ids:
        images.append(
            {"id": int(image_id), "width": int(_WIDTH), "height": int(_HEIGHT), "file_name": "%012d.jpg" % image_id}
        )
        count = 0 if rng.rand() < empty_share else rng.poisson(mean_objects)
        for _ in range(count):
            box = _box(rng, 6.0, 350.0)
            annotations.append(
                {
                    "image_id": int(image_id),
                    "category_id": int(used[rng.choice(n_categories, p=freq)]),
                    "bbox": box,
                    "area": round(box[2] * box[3] * rng.uniform(0.55, 0.95), 2),
                    "iscrowd": 0,
                }
            )
        if count and rng.rand() < crowd_share * 8:
            box = _box(rng, 120.0, 300.0)
            annotations.append(
                {
                    "image_id": int(image_id),
                    "category_id": int(used[rng.choice(n_categories, p=freq)]),
                    "bbox": box,
                    "area": round(box[2] * box[3] * 0.6, 2),
                    "iscrowd": 1,
                }
            )
    for i, ann in enumerate(annotations):
        ann["id"] = i + 1
    return {
        "info": {"description": "synthetic COCO-like detection (leaderboard-ci example)", "version": "1.0"},
        "licenses": [],
        "images": images,
        "annotations": annotations,
        "categories": categories,
    }


def make_detections(gold, quality, seed, per_image=None, score_decimals=None, flood=0.0):
    """A COCO results list (``image_id, category_id, bbox, score``) of a system of ``quality`` in (0, 1].

    ``flood``: the share of images that also get 120 low-scored boxes of one category (beyond
    pycocotools' 100 per image and category, so that ``maxDets`` truncates).
    """
    rng = np.random.RandomState(seed)
    cat_ids = [c["id"] for c in gold["categories"]]
    by_image = {}
    for ann in gold["annotations"]:
        by_image.setdefault(ann["image_id"], []).append(ann)
    miss = 1.05 - quality
    results = []
    for image in gold["images"]:
        image_id = image["id"]
        dets = []
        for ann in by_image.get(image_id, ()):
            x, y, w, h = ann["bbox"]
            if ann["iscrowd"]:
                for _ in range(rng.randint(0, 4)):
                    sw, sh = w * rng.uniform(0.1, 0.4), h * rng.uniform(0.1, 0.4)
                    box = [x + rng.uniform(0, w - sw), y + rng.uniform(0, h - sh), sw, sh]
                    dets.append((box, ann["category_id"], rng.normal(0.5, 0.15)))
                continue
            size = np.sqrt(w * h)
            found = quality ** (0.5 + 12.0 / size)
            for copy in range(2):
                if rng.rand() >= (found if copy == 0 else 0.05 + 0.2 * miss):
                    break
                jitter = 0.03 + miss * (0.12 if copy == 0 else 0.25)
                box = [
                    x + rng.normal(0.0, jitter) * w,
                    y + rng.normal(0.0, jitter) * h,
                    w * np.exp(rng.normal(0.0, jitter)),
                    h * np.exp(rng.normal(0.0, jitter)),
                ]
                category = ann["category_id"] if rng.rand() >= 0.15 * miss else cat_ids[rng.randint(len(cat_ids))]
                score = rng.normal(0.35 + 0.55 * quality, 0.15) * (1.0 if copy == 0 else 0.7)
                dets.append((box, category, score))
        for _ in range(rng.poisson(1.5 + 8.0 * miss)):
            dets.append((_box(rng, 6.0, 300.0), cat_ids[rng.randint(len(cat_ids))], rng.normal(0.25, 0.12)))
        if flood and rng.rand() < flood:
            category = cat_ids[rng.randint(len(cat_ids))]
            for _ in range(120):
                dets.append((_box(rng, 6.0, 200.0), category, rng.uniform(0.001, 0.2)))
        if per_image is not None:
            while len(dets) < per_image:
                dets.append((_box(rng, 6.0, 300.0), cat_ids[rng.randint(len(cat_ids))], rng.uniform(0.001, 0.1)))
            dets.sort(key=lambda d: -d[2])
            dets = dets[:per_image]
        order = rng.permutation(len(dets))
        for i in order:
            box, category, score = dets[i]
            score = float(min(max(score, 0.001), 1.0))
            if score_decimals is not None:
                score = round(score, score_decimals)
            results.append(
                {
                    "image_id": int(image_id),
                    "category_id": int(category),
                    "bbox": [round(float(v), 2) for v in box],
                    "score": score,
                }
            )
    return results


def resampled(gold, results, counts):
    """The resampled data set of ``counts`` (one per image, images in increasing id order).

    Copies of the image at position p get new ids in the order (p, copy); annotations are renumbered
    from 1 in the new order; each list keeps its order within an image.
    """
    ids = sorted(image["id"] for image in gold["images"])
    annotations, detections = {}, {}
    for ann in gold["annotations"]:
        annotations.setdefault(ann["image_id"], []).append(ann)
    for det in results:
        detections.setdefault(det["image_id"], []).append(det)
    images, anns, dets = [], [], []
    for position, image_id in enumerate(ids):
        for _ in range(int(counts[position])):
            new = len(images) + 1
            images.append({"id": new})
            for ann in annotations.get(image_id, ()):
                anns.append(dict(ann, image_id=new, id=len(anns) + 1))
            for det in detections.get(image_id, ()):
                dets.append(dict(det, image_id=new))
    return {"images": images, "annotations": anns, "categories": gold["categories"]}, dets
