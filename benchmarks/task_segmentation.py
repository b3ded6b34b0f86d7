"""Segmentation task: the whole scoring program on 500 masks of 512 x 1024 with 19 classes, B = 10,000.

    python benchmarks/task_segmentation.py                   # the brief's scale (data cached in .cache/)
    python benchmarks/task_segmentation.py --images 50 --resamples 1000

Data (made once, cached in ``benchmarks/.cache/segmentation/``): ``--images`` gold masks of
512 x 1024 pixels, 19 classes drawn as a street scene (sky, buildings, road, sidewalk at
fixed bands, then 25 rectangles and ellipses of the other classes, an ignored border of
``ignore_index`` 255), and one system's masks: the gold seen at output stride 8 (blocky
boundaries) with a tenth of the shapes given another class.  Each set is written as PNGs
by Pillow (adaptive filters: what datasets ship) and as ``.npy`` files.

Timed, each case one child process run as the Codabench worker runs the program
(``python3 score.py input output``, a fresh ``input/ref`` + ``input/res`` tree prepared
untimed), wall and CPU time and peak RSS of that child (``os.wait4``):

* **ours, PNG** (Pillow present: it decodes the checked 8-bit PNGs);
* **ours, PNG, numpy decoder** (Pillow made unimportable, as in an image without it);
* **ours, npy**;
* interpreter start-up and the program's imports alone (``import leaderboard_ci.scoring.codabench``).

Peers, in the same run, on the same resample rows (``replicate_indices``) and checked equal to
ours on the replicates they compute:

* **per-pixel loop**: each replicate rebuilt from the pixels, the confusion matrix of the drawn
  images by ``np.bincount`` of their pixel codes (the codes computed once, a generous peer), the
  metrics from it; run on ``--loop-resamples`` replicates and scaled to B;
* **per-image matrices + loop**: the per-image confusion matrices once, then one weighted sum
  per replicate in a Python loop (the sufficient statistics without the vectorized product).

Prints ``os.getloadavg()`` beside the figures; writes ``results/task_segmentation.txt`` with ``--out``.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, os.pardir)
PROGRAM = os.path.join(ROOT, "scoring_program")
sys.path.insert(0, PROGRAM)

from leaderboard_ci.core.resampling import replicate_indices  # noqa: E402
from leaderboard_ci.tasks.segmentation.counts import confusion_matrix  # noqa: E402

CLASSES = 19
HEIGHT, WIDTH = 512, 1024
IGNORE = 255
METRICS = ["miou", "dice", "pixel_accuracy", "mean_accuracy", "fwiou", "image_iou", "image_dice"]
NO_PILLOW = (
    "import runpy, sys; sys.modules['PIL'] = None; sys.argv = sys.argv[1:]; "
    "runpy.run_path(sys.argv[0], run_name='__main__')"
)


def scene(rng):
    """One gold mask: bands of sky (10), building (2), sidewalk (1), road (0), then 25 shapes of other classes."""
    mask = np.zeros((HEIGHT, WIDTH), dtype=np.uint8)
    horizon = rng.randint(180, 260)
    mask[:horizon] = 10
    for _ in range(8):
        x, w, top = rng.randint(0, WIDTH), rng.randint(40, 200), rng.randint(20, horizon - 10)
        mask[top:horizon, x : x + w] = 2
    mask[horizon : horizon + 40] = 1
    mask[horizon + 40 :] = 0
    for _ in range(25):
        c = rng.randint(3, CLASSES)
        if c == 10:
            continue
        cy, cx = rng.randint(0, HEIGHT), rng.randint(0, WIDTH)
        ry, rx = rng.randint(5, 80), rng.randint(5, 120)
        y0, y1, x0, x1 = max(cy - ry, 0), min(cy + ry + 1, HEIGHT), max(cx - rx, 0), min(cx + rx + 1, WIDTH)
        if rng.rand() < 0.5:
            rows, cols = np.ogrid[y0:y1, x0:x1]
            inside = ((rows - cy) / float(ry)) ** 2 + ((cols - cx) / float(rx)) ** 2 <= 1.0
            mask[y0:y1, x0:x1][inside] = c
        else:
            mask[y0:y1, x0:x1] = c
    mask[:4], mask[-4:], mask[:, :4], mask[:, -4:] = IGNORE, IGNORE, IGNORE, IGNORE
    return mask


def predicted(gold, rng, stride=8):
    """The gold seen at output stride 8 (blocky boundaries), a tenth of its classes swapped for another."""
    seen = np.where(gold == IGNORE, 0, gold).astype(np.uint8)
    for c in np.unique(seen):
        if rng.rand() < 0.1:
            seen[seen == c] = rng.randint(0, CLASSES)
    grid = seen[stride // 2 :: stride, stride // 2 :: stride]
    return np.repeat(np.repeat(grid, stride, axis=0), stride, axis=1)


def make_data(folder, n_images, seed=0):
    """Write (once) ``gold_png``, ``gold_npy``, ``pred_png``, ``pred_npy`` folders of ``n_images`` masks."""
    done = os.path.join(folder, "done-%d" % n_images)
    if os.path.exists(done):
        return
    from PIL import Image

    rng = np.random.RandomState(seed)
    for name in ("gold_png", "gold_npy", "pred_png", "pred_npy"):
        shutil.rmtree(os.path.join(folder, name), ignore_errors=True)
        os.makedirs(os.path.join(folder, name))
    for i in range(n_images):
        gold = scene(rng)
        pred = predicted(gold, rng)
        for kind, mask in (("gold", gold), ("pred", pred)):
            Image.fromarray(mask).save(os.path.join(folder, kind + "_png", "img_%04d.png" % i))
            np.save(os.path.join(folder, kind + "_npy", "img_%04d.npy" % i), mask)
    open(done, "w").close()


def write_reference(folder, gold_kind, resamples, seed):
    ref = os.path.join(folder, "ref-" + gold_kind)
    shutil.rmtree(ref, ignore_errors=True)
    os.makedirs(ref)
    shutil.copytree(os.path.join(folder, "gold_" + gold_kind), os.path.join(ref, "masks"))
    config = {
        "task": "segmentation",
        "labels": ["c%02d" % c for c in range(CLASSES)],
        "metric": METRICS[0],
        "extra_metrics": METRICS[1:],
        "files": {"gold": "masks", "max_megabytes": 2000},
        "bootstrap": {"n_resamples": resamples, "seed": seed},
    }
    with open(os.path.join(ref, "config.yaml"), "w") as handle:
        json.dump(config, handle)  # JSON is YAML
    return ref


def run_child(argv, cwd=None):
    """``(wall seconds, CPU seconds, peak RSS bytes, stdout, stderr, returncode)`` of one child process."""
    import tempfile

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        return (
            wall,
            usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss * 1024,
            out.read(),
            err.read(),
            os.waitstatus_to_exitcode(status),
        )


def score_case(folder, gold_kind, pred_kind, resamples, seed, pillow=True):
    from leaderboard_ci.tools.local_worker import metadata_command, prepare_tree

    ref = write_reference(folder, gold_kind, resamples, seed)
    root = os.path.join(folder, "run")
    prepare_tree(root, PROGRAM, ref, os.path.join(folder, "pred_" + pred_kind))
    argv = metadata_command(os.path.join(root, "program"), root, python=sys.executable)
    if not pillow:
        argv = [sys.executable, "-c", NO_PILLOW] + argv[1:]
    wall, cpu, rss, _, err, code = run_child(argv, cwd=os.path.join(root, "program"))
    if code != 0:
        raise RuntimeError(err.decode("utf-8", "replace"))
    with open(os.path.join(root, "output", "scores.json")) as handle:
        scores = json.load(handle)
    return wall, cpu, rss, scores


def load_masks(folder, kind, n):
    return [np.load(os.path.join(folder, kind + "_npy", "img_%04d.npy" % i)) for i in range(n)]


def miou_of(matrix):
    tp = np.diagonal(matrix).astype(float)
    union = matrix.sum(axis=0) + matrix.sum(axis=1) - tp
    present = union > 0
    return float(np.mean(tp[present] / union[present]))


def our_replicates(gold, pred, seed, resamples):
    """Our first ``resamples`` mIoU replicates, in this process (to check the peers compute the same)."""
    from leaderboard_ci.scoring.config import parse_config
    from leaderboard_ci.scoring.evaluation import evaluate
    from leaderboard_ci.tasks.protocol import GoldStandard
    from leaderboard_ci.tasks.segmentation.task import encode_values

    labels = tuple("c%02d" % c for c in range(CLASSES))
    config = parse_config(
        {
            "task": "segmentation",
            "labels": list(labels),
            "metric": "miou",
            "bootstrap": {"n_resamples": resamples, "seed": seed},
        }
    )
    values, labels, coded = encode_values(gold, {"s": pred}, labels)
    standard = GoldStandard(values=values, labels=labels, task="segmentation")
    return evaluate(config, standard, coded["s"]).scores[0].replicates


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--images", type=int, default=500)
    parser.add_argument("--resamples", type=int, default=10000)
    parser.add_argument("--loop-resamples", type=int, default=2)
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--out", action="store_true", help="write results/task_segmentation.txt")
    args = parser.parse_args(argv)
    n, b = args.images, args.resamples
    folder = os.path.join(HERE, ".cache", "segmentation", "n%d" % n)
    os.makedirs(folder, exist_ok=True)
    start = time.perf_counter()
    make_data(folder, n)
    lines = [
        "segmentation benchmark: %d masks of %d x %d, %d classes, B = %d, 7 metrics (%s)"
        % (n, HEIGHT, WIDTH, CLASSES, b, ", ".join(METRICS)),
        "data ready in %.1f s; load average before: %s" % (time.perf_counter() - start, os.getloadavg()),
    ]
    startup = run_child(
        [sys.executable, "-c", "import sys; sys.path.insert(0, %r); import leaderboard_ci.scoring.codabench" % PROGRAM]
    )
    lines.append(
        "start-up and imports alone: %.2f s wall, %.2f s CPU, %.0f MB" % (startup[0], startup[1], startup[2] / 1e6)
    )
    rows = []
    reference_scores = None
    for label, gold_kind, pred_kind, pillow in (
        ("ours, PNG (Pillow decodes)", "png", "png", True),
        ("ours, PNG (numpy decoder, no Pillow)", "png", "png", False),
        ("ours, npy", "npy", "npy", True),
    ):
        wall, cpu, rss, scores = score_case(folder, gold_kind, pred_kind, b, args.seed, pillow)
        if reference_scores is None:
            reference_scores = scores
        assert scores == reference_scores, label  # the same numbers whatever the format and decoder
        rows.append((label, wall, cpu, rss))
        lines.append(
            "%s: %.1f s wall, %.1f s CPU, %.0f MB peak; load %s" % (label, wall, cpu, rss / 1e6, os.getloadavg())
        )

    # Peers, in this process: the masks as arrays (reading not timed: the peers get it free).
    gold = load_masks(folder, "gold", n)
    pred = load_masks(folder, "pred", n)
    indices = replicate_indices(args.seed, n, 0, max(args.loop_resamples, 2))
    codes = []
    for g, p in zip(gold, pred):
        keep = g != IGNORE
        codes.append(g[keep].astype(np.intp) * CLASSES + p[keep])

    def per_pixel_loop():
        out = []
        for row in indices[: args.loop_resamples]:
            matrix = np.zeros(CLASSES * CLASSES, dtype=np.int64)
            for i in row:
                matrix += np.bincount(codes[i], minlength=CLASSES * CLASSES)
            out.append(miou_of(matrix.reshape(CLASSES, CLASSES)))
        return out

    cpu0, t0 = time.process_time(), time.perf_counter()
    loop_values = per_pixel_loop()
    loop_wall, loop_cpu = time.perf_counter() - t0, time.process_time() - cpu0
    scale = b / float(args.loop_resamples)

    matrices = np.array([confusion_matrix(g, p, CLASSES, IGNORE) for g, p in zip(gold, pred)], dtype=np.int64)
    all_indices = replicate_indices(args.seed, n, 0, b)

    def per_image_loop():
        out = np.empty(b)
        for r, row in enumerate(all_indices):
            out[r] = miou_of(matrices[row].sum(axis=0))
        return out

    cpu0, t0 = time.perf_counter(), time.process_time()
    image_values = per_image_loop()
    image_wall = time.perf_counter() - cpu0
    image_cpu = time.process_time() - t0
    assert np.allclose(loop_values, image_values[: args.loop_resamples], rtol=0, atol=1e-12)
    ours_replicates = our_replicates(gold, pred, args.seed, args.loop_resamples)
    assert np.allclose(ours_replicates, loop_values, rtol=0, atol=1e-12)
    ours = rows[0]
    lines.append("")
    lines.append("| implementation | wall s | CPU s | peak MB | wall / ours (PNG) |")
    lines.append("|---|---:|---:|---:|---:|")
    for label, wall, cpu, rss in rows:
        lines.append("| %s | %.1f | %.1f | %.0f | %.2fx |" % (label, wall, cpu, rss / 1e6, wall / ours[1]))
    lines.append(
        "| per-pixel loop (mIoU only, reading free), scaled from B=%d | %.0f | %.0f | - | %.0fx |"
        % (args.loop_resamples, loop_wall * scale, loop_cpu * scale, loop_wall * scale / ours[1])
    )
    lines.append(
        "| per-image matrices + loop over B (mIoU only, reading free) | %.1f | %.1f | - | %.2fx |"
        % (image_wall, image_cpu, image_wall / ours[1])
    )
    lines.append("")
    lines.append(
        "ours mIoU %.6f [%.6f, %.6f]; the loops' replicates equal ours to 1e-12; load after: %s"
        % (reference_scores["miou"], reference_scores["miou_ci_low"], reference_scores["miou_ci_high"], os.getloadavg())
    )
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(os.path.join(HERE, "results", "task_segmentation.txt"), "w") as handle:
            handle.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
