"""Instance segmentation (``task: detection``, ``iou_type: segm``): ours against pycocotools, whole processes.

The data: ``--images`` COCO-sized images (480 to 640 pixels a side), about seven objects each (polygons,
compressed and uncompressed RLE, crowd regions), and a results file of compressed RLE masks near the
gold's plus ``--flood`` extra masks per image (``tests/test_detection_segm.py``'s generators).  Rows,
each one child process reaped with ``os.wait4`` (its own CPU and peak RSS; the load average beside):

* ours with B = 1 (start-up: read both files, rasterize the gold, every mask IoU, match) and with
  ``--b`` replicates, the scoring program as the worker runs it;
* pycocotools 2.0.11 through its API (``COCO``, ``loadRes``, ``COCOeval(iouType='segm')``, ``evaluate``,
  ``accumulate``, ``summarize``) on the full sample: one run, whose time a B-replicate loop over
  resampled data sets multiplies by about B (each resampled set is the same size).

The full-sample AP@[.50:.95] of both sides is printed: they must be equal.  Rerun::

    nice -n 10 python3 benchmarks/task_detection_segm.py --images 1000 --flood 93 --b 1000
"""

import argparse
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, os.pardir, "tests"))

from whole_process import PROGRAM, format_row, run_process  # noqa: E402

sys.path.insert(0, PROGRAM)

_PEER = """
import json, sys, contextlib, io
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval
with contextlib.redirect_stdout(io.StringIO()):
    gt = COCO(sys.argv[1])
    dt = gt.loadRes(sys.argv[2])
    e = COCOeval(gt, dt, "segm")
    e.evaluate()
    e.accumulate()
    e.summarize()
print(json.dumps({"map": float(e.stats[0])}))
"""


def make_data(folder, images, flood, seed=2026):
    from test_detection_segm import make_segm_gold, make_segm_results

    gold = make_segm_gold(seed, n_images=images, n_categories=10, sizes=(480, 641), objects=7.0)
    results = make_segm_results(gold, seed + 1, with_box=False, flood=flood, score_decimals=3)
    gold_path, results_path = os.path.join(folder, "instances.json"), os.path.join(folder, "segmentations.json")
    with open(gold_path, "w") as handle:
        json.dump(gold, handle)
    with open(results_path, "w") as handle:
        json.dump(results, handle)
    return gold_path, results_path, len(gold["annotations"]), len(results)


def ours_tree(folder, gold_path, results_path, n_resamples):
    tree = os.path.join(folder, "app_%d" % n_resamples)
    ref, res, out = (os.path.join(tree, "input", x) for x in ("ref", "res", "output"))
    for path in (ref, res, out):
        os.makedirs(path)
    shutil.copy(gold_path, os.path.join(ref, "instances.json"))
    shutil.copy(results_path, os.path.join(res, "segmentations.json"))
    config = {
        "task": "detection",
        "iou_type": "segm",
        "metric": "map",
        "files": {"gold": "instances.json", "predictions": "segmentations.json", "max_megabytes": 2000},
        "bootstrap": {"n_resamples": n_resamples, "n_jobs": 1},
    }
    with open(os.path.join(ref, "config.yaml"), "w") as handle:
        json.dump(config, handle)
    return [sys.executable, os.path.join(PROGRAM, "score.py"), os.path.join(tree, "input"), out], out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--images", type=int, default=1000)
    parser.add_argument("--flood", type=int, default=93, help="extra masks per image (about 100 masks an image)")
    parser.add_argument("--b", type=int, default=1000)
    args = parser.parse_args(argv)
    folder = tempfile.mkdtemp(prefix="segm_bench_")
    try:
        gold_path, results_path, n_gold, n_dets = make_data(folder, args.images, args.flood)
        print(
            "%d images, %d gold objects, %d result masks (%.0f MB); load %.2f"
            % (args.images, n_gold, n_dets, os.path.getsize(results_path) / 1e6, os.getloadavg()[0])
        )
        rows = []
        for b in (1, args.b):
            command, out = ours_tree(folder, gold_path, results_path, b)
            row = run_process("ours, B = %d (score.py, whole process)" % b, command)
            with open(os.path.join(out, "scores.json")) as handle:
                row["map"] = json.load(handle)["map"]
            rows.append(row)
        peer = run_process(
            "pycocotools COCOeval segm, full sample", [sys.executable, "-c", _PEER, gold_path, results_path]
        )
        peer["map"] = json.loads(peer["stdout_tail"].strip().splitlines()[-1])["map"]
        rows.append(peer)
        for row in rows:
            print(format_row(row), " map %.12f" % row["map"])
        print(
            "pycocotools x B = %d (scaled): %.0f s CPU, %.0fx our CPU at B = %d"
            % (args.b, peer["cpu"] * args.b, peer["cpu"] * args.b / rows[1]["cpu"], args.b)
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
