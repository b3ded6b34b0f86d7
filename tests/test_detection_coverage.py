"""Coverage of 95 % intervals for COCO's AP@[.50:.95] on a simulated population of images.

The population: an image holds ``Poisson(4)`` objects (at least one) of 3 categories, most of them of
the image's dominant category, boxes of 16 to 200 pixels on a 640 x 480 canvas.  Every image has a
*difficulty* ``d ~ N(0, 1)`` that a detector feels on all its objects at once: the probability of
finding an object (``sigmoid(1.2 - 1.2 d)``), the box jitter (``0.05 exp(0.5 d)`` of the object's size),
the number of false positives (``Poisson(exp(0.3 + 0.8 d))``) and the scores.  Objects of one image
are therefore not independent, which is why the bootstrap resamples images.  The truth is AP@[.50:.95]
of 200,000 images (the estimator's limit; computed once).

For each simulated test set of ``n`` images, two percentile intervals (B replicates):

* **image** bootstrap (the scoring program's: :class:`~leaderboard_ci.tasks.detection.features.SystemFeatures`
  on the resample counts of ``core.resampling``);
* **box** bootstrap, the contrast: after matching in the real images, every detection and every gold
  box is its own unit, drawn independently (what bootstrapping "the list of boxes" does).

Run the full study (the figures quoted in docs/tasks/detection.md)::

    python3 tests/test_detection_coverage.py --sets 1000 --n 200 1000 --b 1000

The default run holds a fast subset (n = 100, 40 test sets, B = 100), asserting the image bootstrap's
coverage within 3 binomial standard errors of 95 % and the box bootstrap's below it with intervals
narrower by a fifth at least; the full study (and the check of :data:`TRUTH`) is behind ``@pytest.mark.slow``.
"""

import argparse
import json
import sys
import time

import numpy as np
import pytest

from leaderboard_ci.core.intervals import confidence_interval
from leaderboard_ci.core.resampling import counts_from_indices, replicate_indices
from leaderboard_ci.tasks.detection.boxes import IOU_THRESHOLDS
from leaderboard_ci.tasks.detection.curves import Curves
from leaderboard_ci.tasks.detection.features import SystemFeatures
from leaderboard_ci.tasks.detection.matching import Detections, GoldObjects
from leaderboard_ci.tasks.detection.metrics import metric_values

K = 3
WIDTH, HEIGHT = 640.0, 480.0
TRUTH_IMAGES = 200000
#: AP@[.50:.95] of the population: ``truth()``, 200,000 images (50 s; test_the_truth_is_the_stated_value checks it).
TRUTH = 0.46349304901085975
_T = IOU_THRESHOLDS.shape[0]


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _boxes(rng, n):
    side = np.exp(rng.uniform(np.log(16.0), np.log(200.0), n))
    aspect = np.exp(rng.normal(0.0, 0.3, n))
    w, h = np.minimum(side * np.sqrt(aspect), WIDTH - 1), np.minimum(side / np.sqrt(aspect), HEIGHT - 1)
    return np.stack([rng.uniform(0, WIDTH - w), rng.uniform(0, HEIGHT - h), w, h], axis=1)


def population(rng, n_images):
    """``(GoldObjects, Detections)`` of ``n_images`` images drawn from the population."""
    difficulty = rng.normal(0.0, 1.0, n_images)
    counts = np.maximum(rng.poisson(4.0, n_images), 1)
    image = np.repeat(np.arange(n_images), counts)
    dominant = rng.randint(0, K, n_images)
    category = np.where(rng.rand(image.size) < 0.7, dominant[image], rng.randint(0, K, image.size))
    box = _boxes(rng, image.size)
    d = difficulty[image]
    found = rng.rand(image.size) < _sigmoid(1.2 - 1.2 * d)
    jitter = 0.05 * np.exp(0.5 * d)[found]
    size = box[found][:, 2:]
    det_box = box[found].copy()
    det_box[:, :2] += rng.normal(0.0, 1.0, (jitter.size, 2)) * jitter[:, None] * size
    det_box[:, 2:] *= np.exp(rng.normal(0.0, 1.0, (jitter.size, 2)) * jitter[:, None])
    det_score = _sigmoid(1.5 - d[found] + rng.normal(0.0, 1.0, jitter.size))
    n_fp = rng.poisson(np.exp(0.3 + 0.8 * difficulty))
    fp_image = np.repeat(np.arange(n_images), n_fp)
    fp_score = _sigmoid(-1.0 + 0.5 * difficulty[fp_image] + rng.normal(0.0, 1.0, fp_image.size))
    order = np.lexsort((np.arange(image.size), category, image))
    gold = GoldObjects(
        image[order], category[order], box[order], box[order, 2] * box[order, 3], np.zeros(image.size, bool)
    )
    dets = Detections(
        np.concatenate([image[found], fp_image]),
        np.concatenate([category[found], rng.randint(0, K, fp_image.size)]),
        np.concatenate([det_box, _boxes(rng, fp_image.size)]),
        np.round(np.concatenate([det_score, fp_score]), 3),
    )
    return gold, dets


def truth(seed=20261128):
    gold, dets = population(np.random.RandomState(seed), TRUTH_IMAGES)
    system = SystemFeatures(gold, dets, TRUTH_IMAGES, K)
    return float(metric_values("map", system.features(np.ones((1, TRUTH_IMAGES), dtype=np.int32)))[0])


def image_replicates(gold, dets, n, b, seed):
    """AP@[.50:.95] of the sample and of ``b`` image-bootstrap replicates (the scoring program's)."""
    system = SystemFeatures(gold, dets, n, K)
    weights = np.ones((b + 1, n), dtype=np.int32)
    weights[1:] = counts_from_indices(replicate_indices(seed, n, 0, b), n, dtype=np.int32)
    values = metric_values("map", system.features(weights))
    return values[0], values[1:]


def box_replicates(gold, dets, n, b, seed):
    """AP@[.50:.95] under the box bootstrap: gold boxes drawn as independent units, images ignored.

    A unit is a gold box with the detections matched to it at IoU .50, or an unmatched detection
    alone; the units are drawn with replacement, as many as there are.
    """
    system = SystemFeatures(gold, dets, n, K)
    outcome = system.matches.coco[:_T]  # area range "all": rows 0 .. T-1
    n_gold = gold.image.shape[0]
    box = system.matches.matched_box
    alone = np.flatnonzero(box < 0)
    unit = box.copy()
    unit[alone] = n_gold + np.arange(alone.size)
    units = n_gold + alone.size
    draws = counts_from_indices(replicate_indices(seed, units, 0, b), units, dtype=np.int32)
    out = np.zeros((b, K))
    valid = np.zeros((b, K), dtype=bool)
    for k in range(K):
        idx = np.flatnonzero(dets.category == k)
        order = idx[np.lexsort((system.matches.rank[idx], unit[idx], -dets.score[idx]))]
        order = order[system.matches.rank[order] < 100]
        curves = Curves(
            unit[order],
            dets.score[order],
            outcome[:, order],
            np.zeros(_T, np.intp),
            np.ones((1, order.size), bool),
            units,
        )
        npig = draws[:, :n_gold][:, gold.category == k].sum(axis=1).astype(np.float64)
        sums, _ = curves.sums(draws, np.repeat(npig[:, None], _T, axis=1))
        out[:, k] = sums.sum(axis=1) / (101.0 * _T)
        valid[:, k] = npig > 0
    return np.where(valid.any(axis=1), (out * valid).sum(axis=1) / np.maximum(valid.sum(axis=1), 1), np.nan)


def study(n, sets, b, seed=1, true_value=None, box=True, log=None):
    """``{"image": coverage, "box": coverage, ...}`` over ``sets`` test sets of ``n`` images.

    ``log``: a text file that receives one JSON line per test set (its intervals), so that a long run
    cut short still tells its coverage so far.
    """
    true_value = TRUTH if true_value is None else true_value
    rng = np.random.RandomState(seed)
    hits = {"image": 0, "box": 0}
    widths = {"image": [], "box": []}
    for s in range(sets):
        gold, dets = population(rng, n)
        point, reps = image_replicates(gold, dets, n, b, seed * 100003 + s)
        kinds = [("image", reps)]
        if box:
            kinds.append(("box", box_replicates(gold, dets, n, b, seed * 100003 + s)))
        for kind, values in kinds:
            values = values[~np.isnan(values)]
            interval = confidence_interval("percentile", values, point, 0.95)
            hits[kind] += interval.low <= true_value <= interval.high
            widths[kind].append(interval.high - interval.low)
            if log is not None:
                record = dict(n=n, b=b, seed=seed, set=s, kind=kind, low=interval.low, high=interval.high)
                log.write(json.dumps(record) + "\n")
                log.flush()
    out = {"n": n, "sets": sets, "b": b, "truth": true_value}
    for kind in ("image", "box") if box else ("image",):
        out[kind] = hits[kind] / float(sets)
        out[kind + "_width"] = float(np.median(widths[kind]))
    return out


def _tolerance(sets, p=0.95):
    return 3.0 * np.sqrt(p * (1 - p) / sets)


def test_the_image_bootstrap_covers_and_the_box_bootstrap_is_too_narrow():
    result = study(100, 40, 100, seed=3, true_value=TRUTH)
    assert abs(result["image"] - 0.95) <= _tolerance(40), result
    assert result["box"] < result["image"] and result["box_width"] < 0.8 * result["image_width"], result


@pytest.mark.slow
def test_the_truth_is_the_stated_value():
    assert abs(truth() - TRUTH) <= 1e-12


@pytest.mark.slow
@pytest.mark.parametrize("n", [200, 1000])
def test_coverage_at_the_target_sizes(n):
    result = study(n, 1000, 1000, seed=7 + n, true_value=TRUTH, box=False)
    assert abs(result["image"] - 0.95) <= 0.02, result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", type=int, default=1000)
    parser.add_argument("--n", type=int, nargs="+", default=[200, 1000])
    parser.add_argument("--b", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out")
    parser.add_argument("--log", help="a JSON-lines file: one line per test set and kind of interval")
    parser.add_argument("--no-box", action="store_true", help="the image bootstrap only")
    args = parser.parse_args(argv)
    log = open(args.log, "a") if args.log else None
    start = time.time()
    true_value = TRUTH
    print("truth: AP@[.50:.95] = %.5f (%d images)" % (true_value, TRUTH_IMAGES), flush=True)
    results = []
    for n in args.n:
        result = study(n, args.sets, args.b, seed=args.seed + n, true_value=true_value, box=not args.no_box, log=log)
        result["seconds"] = time.time() - start
        results.append(result)
        print(json.dumps(result), flush=True)
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(results, handle, indent=1)


if __name__ == "__main__":
    sys.exit(main())
