"""Object detection (``task: detection``) at COCO val2017 scale: ours against a pycocotools loop, same run.

A self-contained benchmark (not collected by pytest).  The data, made once and cached in
``benchmarks/.cache/data/``: synthetic COCO-like instances of 5,000 images and 80 categories (about
36,000 boxes, crowd regions included) and one system's results with 100 detections per image (500,000,
scores rounded to 3 decimals: many ties), from ``examples/detection/synthetic.py``.

Cases, each a whole process under ``/usr/bin/time`` (wall, user + system CPU, peak RSS), one after the
other in the same run, with the load average before and after:

* **ours**: ``score.py`` as the Codabench worker runs it (``python3 score.py input output`` in a fresh
  ``/app``-like tree), the twelve COCO metrics (``map`` official), B = 1,000 bootstrap replicates of the
  images, one thread (``n_jobs: 1``) and two (``auto``);
* **ours, start-up**: the same with B = 1 (Python start-up, reading both files, matching, the layouts):
  the part that does not grow with B, shown apart;
* **pycocotools loop**: what a participant or organizer would run without this program: per replicate,
  the resampled data set (each drawn image copied with a new id, its annotations and detections with
  it; the counts of our own resample stream), then ``COCO`` / ``loadRes`` / ``COCOeval.evaluate`` /
  ``accumulate`` / ``summarize``; ``--peer-b`` replicates are run and their mean time is scaled to B
  (said so in the table);
* **faster-coco-eval loop**: the same with faster-coco-eval's ``COCOeval_faster`` (C++), when installed;
* **big file** (``--big-mb``): reading a results file of that size (the same images, 1,000
  detections per image) and scoring it with B = 100: wall, CPU and peak memory of the whole process.

The peers' rows are whole processes too (``/usr/bin/time``): their start-up, imports (timed apart),
reading and full sample as run, and their replicates' mean time multiplied by B.

* **flood** (``--flood N``): one submission of N detections an image (``--images``; 500 x 2,000 = 10^6,
  v9-large's case), ``score.py`` of ``--base`` (main's checkout) and of this checkout, one after the other
  for each interpreter of ``--pythons`` (the py37 image's venv and the system Python), scores.json bytes
  compared.

Run (about 10 minutes on a quiet 2-core machine, plus a few minutes the first time for the data)::

    nice -n 10 python3 benchmarks/task_detection.py --b 1000 --peer-b 3 --peer-seconds 100  # the docs' ratios
    nice -n 10 python3 benchmarks/task_detection.py --big-mb 500                            # + a 500 MB file
    python3 benchmarks/task_detection.py --flood 500 --images 2000 --b 1000 \
        --pythons ~/.cache/leaderboard-ci/py37/bin/python,python3 --nice 10                # 10^6 detections

Prints a table and appends it to ``benchmarks/results/task_detection.txt``.
"""

import argparse
import contextlib
import copy
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PROGRAM = os.path.join(ROOT, "scoring_program")
CACHE = os.path.join(HERE, ".cache", "data")
RESULTS = os.path.join(HERE, "results", "task_detection.txt")
sys.path.insert(0, PROGRAM)
sys.path.insert(0, os.path.join(ROOT, "examples", "detection"))

SEED = 12345
COCO_NAMES = ("map", "ap50", "ap75", "ap_small", "ap_medium", "ap_large", "ar1", "ar10", "ar100")


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------
def data_paths(images, categories):
    folder = os.path.join(CACHE, "detection_%d_%d" % (images, categories))
    return folder, os.path.join(folder, "instances.json"), os.path.join(folder, "detections.json")


def make_data(images, categories):
    from synthetic import make_detections, make_gold

    folder, gold_path, results_path = data_paths(images, categories)
    if os.path.exists(results_path):
        return gold_path, results_path
    os.makedirs(folder, exist_ok=True)
    gold = make_gold(7, n_images=images, n_categories=categories, mean_objects=7.3)
    results = make_detections(gold, 0.7, 8, per_image=100, score_decimals=3)
    with open(gold_path, "w") as handle:
        json.dump(gold, handle)
    with open(results_path + ".part", "w") as handle:
        json.dump(results, handle)
    os.replace(results_path + ".part", results_path)
    return gold_path, results_path


def make_big(results_path, megabytes):
    """A results file of about ``megabytes`` MB: the detections repeated with shifted boxes and new scores."""
    path = results_path.replace(".json", "_%dmb.json" % megabytes)
    if os.path.exists(path):
        return path
    with open(results_path) as handle:
        base = json.load(handle)
    rng = np.random.RandomState(3)
    size = os.path.getsize(results_path)
    copies = max(1, int(round(megabytes * 1e6 / size)))
    with open(path + ".part", "w") as out:
        out.write("[")
        first = True
        for c in range(copies):
            shift = rng.uniform(-3, 3, size=(len(base), 2))
            scores = np.round(rng.uniform(0.001, 1.0, len(base)), 3)
            parts = []
            for r, (dx, dy), s in zip(base, shift, scores):
                x, y, w, h = r["bbox"]
                parts.append(
                    '{"image_id": %d, "category_id": %d, "bbox": [%.2f, %.2f, %.2f, %.2f], "score": %s}'
                    % (r["image_id"], r["category_id"], x + dx, y + dy, w, h, repr(float(s)) if c else repr(r["score"]))
                )
            out.write(("" if first else ", ") + ", ".join(parts))
            first = False
        out.write("]\n")
    os.replace(path + ".part", path)
    return path


# ---------------------------------------------------------------------------
# Our program, as the worker runs it
# ---------------------------------------------------------------------------
def run_ours(gold_path, results_path, n_resamples, n_jobs, work, python=None, program=PROGRAM, nice=0):
    tree = os.path.join(work, "app")
    if os.path.exists(tree):
        shutil.rmtree(tree)
    ref, res, out = (
        os.path.join(tree, "input", "ref"),
        os.path.join(tree, "input", "res"),
        os.path.join(tree, "output"),
    )
    for folder in (ref, res, out):
        os.makedirs(folder)
    shutil.copy(gold_path, os.path.join(ref, "instances.json"))  # the program refuses links
    shutil.copy(results_path, os.path.join(res, "detections.json"))
    config = {
        "task": "detection",
        "metric": "map",
        "extra_metrics": list(COCO_NAMES[1:]) + ["ar_small", "ar_medium", "ar_large"],
        "files": {"gold": "instances.json", "predictions": "detections.json", "max_megabytes": 2000},
        "bootstrap": {"n_resamples": n_resamples, "n_jobs": n_jobs, "seed": SEED},
    }
    with open(os.path.join(ref, "config.yaml"), "w") as handle:
        json.dump(config, handle)
    command = ["/usr/bin/time", "-f", "%e %U %S %M", python or sys.executable, os.path.join(program, "score.py")]
    command = (["nice", "-n", str(nice)] if nice else []) + command + [os.path.join(tree, "input"), out]
    proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if proc.returncode != 0:
        raise SystemExit("score.py failed: %s" % proc.stderr[-2000:])
    wall, user, system, rss = proc.stderr.strip().split("\n")[-1].split()
    with open(os.path.join(out, "scores.json"), "rb") as handle:
        raw = handle.read()
    scores = json.loads(raw.decode("utf-8"))
    return dict(wall=float(wall), cpu=float(user) + float(system), rss_mb=int(rss) / 1024.0, scores=scores, raw=raw)


# ---------------------------------------------------------------------------
# --flood: one submission of many detections an image, main (--base) against this checkout
# ---------------------------------------------------------------------------
def make_flood(images, per_image, work):
    """A gold of ``images`` images (0-5 boxes each, 4 categories) and one results file of ``per_image``
    detections an image (integer boxes, 4-decimal scores: v9-large's 10^6 case), written under ``work``."""
    rng = np.random.RandomState(21)
    cats = [{"id": c, "name": n} for c, n in [(1, "person"), (2, "car"), (3, "dog"), (5, "bike")]]
    pictures, anns = [], []
    for i in range(images):
        pictures.append({"id": 100000 + i, "width": 640, "height": 480})
        for _ in range(rng.randint(0, 6)):
            w, h = float(rng.randint(4, 300)), float(rng.randint(4, 300))
            x, y = float(rng.randint(0, 640 - w)), float(rng.randint(0, 480 - h))
            box = {"id": len(anns) + 1, "image_id": 100000 + i, "category_id": int(rng.choice([1, 2, 3, 5]))}
            anns.append(dict(box, bbox=[x, y, w, h], area=w * h, iscrowd=0))
    gold_path, results_path = os.path.join(work, "flood_gold.json"), os.path.join(work, "flood_results.json")
    with open(gold_path, "w") as handle:
        json.dump({"images": pictures, "annotations": anns, "categories": cats}, handle)
    m = images * per_image
    ii, cc = rng.randint(images, size=m), rng.choice([1, 2, 3, 5], size=m)
    xy, wh, sc = rng.randint(0, 400, size=(m, 2)), rng.randint(5, 200, size=(m, 2)), rng.rand(m)
    record = '{"image_id":%d,"category_id":%d,"bbox":[%d,%d,%d,%d],"score":%.4f}'
    with open(results_path, "w") as handle:
        handle.write("[")
        for start in range(0, m, 100000):
            rows = range(start, min(m, start + 100000))
            text = ",".join(
                record % (100000 + ii[j], cc[j], xy[j, 0], xy[j, 1], wh[j, 0], wh[j, 1], sc[j]) for j in rows
            )
            handle.write(("," if start else "") + text)
        handle.write("]")
    return gold_path, results_path


def flood(args):
    """``--flood``: ``score.py`` of ``--base`` and of this checkout on one many-detection submission, each
    interpreter of ``--pythons`` in turn, the two sides one after the other; scores.json bytes compared."""
    work = tempfile.mkdtemp(prefix="detection-flood-")
    lines = [
        "# python3 benchmarks/task_detection.py %s, %s UTC, %d CPUs, load average %s"
        % (" ".join(sys.argv[1:]), time.strftime("%Y-%m-%d %H:%M", time.gmtime()), os.cpu_count(), _load()),
        "data: %d images, %d detections an image (%d in all), B = %d, n_jobs 1"
        % (args.images, args.flood, args.images * args.flood, args.b),
        "%-12s %-10s %9s %9s %9s %11s" % ("python", "checkout", "wall s", "CPU s", "peak MB", "load"),
    ]
    try:
        gold_path, results_path = make_flood(args.images, args.flood, work)
        for python in args.pythons.split(","):
            out = {"base": [], "this": []}
            sides = (("base", os.path.join(args.base, "scoring_program")), ("this", PROGRAM)) * args.repeat
            for side, program in sides:  # alternated: base, this, base, this ...
                before = _load()
                r = run_ours(gold_path, results_path, args.b, 1, work, python, program, args.nice)
                out[side].append(r)
                lines.append(
                    "%-12s %-10s %9.1f %9.1f %9.0f %11s"
                    % (
                        os.path.basename(os.path.dirname(os.path.dirname(python))) or python,
                        side,
                        r["wall"],
                        r["cpu"],
                        r["rss_mb"],
                        before + "->" + _load(),
                    )
                )
            lines.append(
                "    ratio base/this (each side's least): %.2fx CPU, %.2fx wall; scores.json bytes %s"
                % (
                    min(r["cpu"] for r in out["base"]) / min(r["cpu"] for r in out["this"]),
                    min(r["wall"] for r in out["base"]) / min(r["wall"] for r in out["this"]),
                    "identical" if len(set(r["raw"] for r in out["base"] + out["this"])) == 1 else "DIFFERENT",
                )
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = "\n".join(lines) + "\n"
    print(text)
    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    with open(RESULTS, "a") as handle:
        handle.write("\n" + text)


# ---------------------------------------------------------------------------
# The peers, one replicate after the other (run in a child process)
# ---------------------------------------------------------------------------
def _evaluate(peer, gold, results):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        if peer == "pycocotools":
            from pycocotools.coco import COCO
            from pycocotools.cocoeval import COCOeval
        else:
            from faster_coco_eval import COCO
            from faster_coco_eval import COCOeval_faster as COCOeval
        gt = COCO()
        gt.dataset = copy.deepcopy(gold)
        gt.createIndex()
        dt = gt.loadRes(copy.deepcopy(results))
        evaluation = COCOeval(gt, dt, "bbox")
        evaluation.evaluate()
        evaluation.accumulate()
        evaluation.summarize()
    return list(evaluation.stats)


def peer_child(peer, gold_path, results_path, n_replicates, seconds=None):
    """In a child process: import, read, the full sample, then resampled data sets; times as JSON.

    Runs ``n_replicates`` replicates, or fewer (at least one) once ``seconds`` of replicates are spent.
    """
    from synthetic import resampled

    from leaderboard_ci.core.resampling import counts_from_indices, replicate_indices

    start = time.time(), time.process_time()
    with contextlib.redirect_stdout(io.StringIO()):
        if peer == "pycocotools":
            import pycocotools.cocoeval  # noqa: F401
        else:
            import faster_coco_eval  # noqa: F401
    imports = (time.time() - start[0], time.process_time() - start[1])
    with open(gold_path) as handle:
        gold = json.load(handle)
    with open(results_path) as handle:
        results = json.load(handle)
    start = time.time(), time.process_time()
    full = _evaluate(peer, gold, results)
    full_times = (time.time() - start[0], time.process_time() - start[1])
    n = len(gold["images"])
    times = []
    for indices in replicate_indices(SEED, n, 0, n_replicates):
        t0, c0 = time.time(), time.process_time()
        counts = counts_from_indices(indices[None, :], n)[0]
        stats = _evaluate(peer, *resampled(gold, results, counts))
        times.append((time.time() - t0, time.process_time() - c0, stats[0]))
        if seconds is not None and sum(t[0] for t in times) >= seconds:
            break
    print(json.dumps({"imports": imports, "full": full, "full_times": full_times, "replicates": times}))


def run_peer(peer, gold_path, results_path, n_replicates, seconds=None):
    command = ["/usr/bin/time", "-f", "%e %U %S %M", sys.executable, os.path.abspath(__file__), "--peer-child", peer]
    command += ["--gold", gold_path, "--results", results_path, "--peer-b", str(n_replicates)]
    if seconds is not None:
        command += ["--peer-seconds", str(seconds)]
    proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if proc.returncode != 0:
        return None, proc.stderr.strip().split("\n")[-2:]
    wall, user, system, rss = proc.stderr.strip().split("\n")[-1].split()
    out = json.loads(proc.stdout.strip().split("\n")[-1])
    out.update(wall=float(wall), cpu=float(user) + float(system), rss_mb=int(rss) / 1024.0)
    return out, None


# ---------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------
def _load():
    return "%.1f" % os.getloadavg()[0]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--images", type=int, default=5000)
    parser.add_argument("--categories", type=int, default=80)
    parser.add_argument("--b", type=int, default=1000)
    parser.add_argument("--peer-b", type=int, default=3, help="replicates each peer runs at most (scaled to B)")
    parser.add_argument(
        "--peer-seconds",
        type=float,
        help="stop a peer's replicates once they took this long (at least one runs): a slow peer runs fewer",
    )
    parser.add_argument("--peers", default="pycocotools,faster-coco-eval")
    parser.add_argument("--big-mb", type=int, default=0)
    parser.add_argument("--flood", type=int, default=0, help="detections an image: --base against this checkout")
    parser.add_argument("--base", default="/work/main", help="--flood: the other checkout (main)")
    parser.add_argument("--pythons", default=sys.executable, help="--flood: interpreters, comma-separated")
    parser.add_argument("--repeat", type=int, default=1, help="--flood: runs of each side, alternated")
    parser.add_argument("--nice", type=int, default=0, help="--flood: run score.py under nice -n NICE")
    parser.add_argument("--peer-child")
    parser.add_argument("--gold")
    parser.add_argument("--results")
    args = parser.parse_args(argv)
    if args.peer_child:
        return peer_child(args.peer_child, args.gold, args.results, args.peer_b, args.peer_seconds)
    if args.flood:
        return flood(args)

    gold_path, results_path = make_data(args.images, args.categories)
    with open(gold_path) as handle:
        gold = json.load(handle)
    boxes = len(gold["annotations"])
    lines = [
        "# python3 benchmarks/task_detection.py %s, %s UTC, %d CPUs, load average %s (beside each figure too)"
        % (
            " ".join(sys.argv[1:] if argv is None else argv),
            time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
            os.cpu_count(),
            " ".join("%.1f" % x for x in os.getloadavg()),
        ),
        "data: %d images, %d categories, %d gold boxes (%d crowd), %.0f MB of results (%d detections per image)"
        % (
            args.images,
            args.categories,
            boxes,
            sum(1 for a in gold["annotations"] if a["iscrowd"]),
            os.path.getsize(results_path) / 1e6,
            100,
        ),
    ]
    del gold
    work = tempfile.mkdtemp(prefix="detection-bench-")
    rows = []
    try:
        before = _load()
        startup = run_ours(gold_path, results_path, 1, 1, work)
        rows.append(("ours, B = 1 (start-up: read, match)", startup, before, _load(), ""))
        for jobs in (1, "auto"):
            before = _load()
            ours = run_ours(gold_path, results_path, args.b, jobs, work)
            rows.append(("ours, B = %d, n_jobs %s" % (args.b, jobs), ours, before, _load(), ""))
            if jobs == 1:
                reference = ours
        for peer in [p for p in args.peers.split(",") if p]:
            before = _load()
            out, error = run_peer(peer, gold_path, results_path, args.peer_b, args.peer_seconds)
            if out is None:
                lines.append("%s: not run (%s)" % (peer, " ".join(error)))
                continue
            # The whole process with its replicates scaled to B: start-up, imports, reading and the full
            # sample once, as run; the replicates' mean times B.
            done = len(out["replicates"])
            per_rep = np.mean([t[0] for t in out["replicates"]])
            per_rep_cpu = np.mean([t[1] for t in out["replicates"]])
            scaled = dict(
                wall=out["wall"] + per_rep * (args.b - done),
                cpu=out["cpu"] + per_rep_cpu * (args.b - done),
                rss_mb=out["rss_mb"],
            )
            note = (
                "* the whole process as run: %.1f s wall, %.1f s CPU (imports %.1f s, full sample %.1f s, "
                "%d replicate(s) of %.1f s each, %.1f s CPU); the replicates scaled to B = %d; its full-sample map %.6f"
                % (
                    out["wall"],
                    out["cpu"],
                    out["imports"][0],
                    out["full_times"][0],
                    done,
                    per_rep,
                    per_rep_cpu,
                    args.b,
                    out["full"][0],
                )
            )
            rows.append(("%s loop, B = %d*" % (peer, args.b), scaled, before, _load(), note))
            diff = abs(out["full"][0] - reference["scores"]["map"])
            lines.append(
                "%s full-sample map %.9f, ours %.9f (|diff| %.1e)"
                % (peer, out["full"][0], reference["scores"]["map"], diff)
            )
        if args.big_mb:
            big = make_big(results_path, args.big_mb)
            before = _load()
            out = run_ours(gold_path, big, 100, 1, work)
            rows.append(
                ("ours, %.0f MB results file, B = 100" % (os.path.getsize(big) / 1e6), out, before, _load(), "")
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    ours_wall, ours_cpu = reference["wall"], reference["cpu"]
    lines.append("%-44s %9s %9s %9s %11s %10s" % ("case", "wall s", "CPU s", "peak MB", "load", "ratio"))
    for name, r, before, after, note in rows:
        ratio = ""
        if "loop" in name:
            ratio = "%.0fx / %.0fx CPU" % (r["wall"] / ours_wall, r["cpu"] / ours_cpu)
        lines.append(
            "%-44s %9.1f %9.1f %9.0f %11s %10s" % (name, r["wall"], r["cpu"], r["rss_mb"], before + "->" + after, ratio)
        )
        if note:
            lines.append("    " + note)
    lines.append("ratio: the peer's time over ours (B = %d, n_jobs 1), wall and CPU" % args.b)
    text = "\n".join(lines) + "\n"
    print(text)
    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    with open(RESULTS, "a") as handle:
        handle.write("\n" + text)


if __name__ == "__main__":
    main()
