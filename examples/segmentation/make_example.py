"""Build the semantic-segmentation example competition: synthetic street scenes, resampled by video.

200 test images of 64 x 128 pixels, 20 short videos of 10 frames each: a sky over a horizon,
buildings and trees along it, a road widening towards the camera with cars driving on it and
people beside it, the camera panning from frame to frame.  Six classes: road, building,
vegetation, sky, car, person.  Each car and person has a one-pixel outline of ``ignore_index``
(255), as PASCAL VOC outlines its objects with "void".

Six systems of graded quality and a baseline.  A system predicts at an output stride (its labels
on a grid every ``stride`` pixels, upsampled by nearest neighbour: the blocky boundaries of a
real network's low-resolution output), misses small objects (cars, people) with some probability
and, in "hard" videos (fog), confuses buildings with the sky: errors shared by the frames of a
video, which is why the intervals resample whole videos (``bootstrap.cluster: video`` over
``reference_data/videos.csv``).  The baseline predicts a fixed layout (sky above row 26, a road
trapezoid below, vegetation beside it) without looking at the images.

The sample submissions use every format the program reads: grayscale PNGs written by Pillow
(adaptive filters: Sub, Up, Paeth rows), palette PNGs (the indices are the classes), PNGs
written by the package's own encoder, ``.npy`` and ``.npz`` files, at the top of the zip or
inside a folder.

    python examples/segmentation/make_example.py

Deterministic (``numpy.random.RandomState(0)``); needs numpy and Pillow.  Writes
``reference_data/masks/`` (the gold), ``reference_data/baseline/``, ``reference_data/videos.csv``,
``public_data/`` (the rendered test images, their ids and videos) and
``sample_submissions/*.zip``.  ``reference_data/config.yaml``, ``competition.yaml`` and
``pages/`` are written by hand.
"""

import io
import os
import shutil
import sys
import zipfile

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scoring_program"))

from leaderboard_ci.tasks.segmentation.png import encode_png  # noqa: E402

CLASSES = ["road", "building", "vegetation", "sky", "car", "person"]
ROAD, BUILDING, VEGETATION, SKY, CAR, PERSON = range(6)
IGNORE = 255
HEIGHT, WIDTH = 64, 128
VIDEOS, FRAMES = 20, 10
SEED = 0
#: name: (output stride, chance to miss a car or person, chance to confuse building and sky in a foggy video, format)
SYSTEMS = {
    "sharp": (2, 0.05, 0.1, "pillow"),
    "strong": (4, 0.1, 0.2, "palette"),
    "good": (4, 0.25, 0.35, "encoder"),
    "fair": (8, 0.35, 0.5, "npy"),
    "coarse": (8, 0.6, 0.7, "npz"),
    "blocky": (16, 0.8, 0.9, "nested"),
}
PALETTE = [128, 64, 128, 70, 70, 70, 107, 142, 35, 70, 130, 180, 0, 0, 142, 220, 20, 60]  # Cityscapes' colours


def image_id(video, frame):
    return "v%02d_f%02d" % (video, frame)


def draw_video(rng):
    """The ``FRAMES`` label maps of one video (before the ignored outlines) and whether it is foggy."""
    horizon = rng.randint(22, 31)
    foggy = rng.rand() < 0.3
    pan = rng.randint(-2, 3)
    buildings = [(rng.randint(-20, WIDTH + 20), rng.randint(12, 40), rng.randint(4, horizon - 4)) for _ in range(5)]
    trees = [(rng.randint(-10, WIDTH + 10), rng.randint(4, 10)) for _ in range(rng.randint(1, 5))]
    cars = [
        (rng.randint(0, WIDTH), rng.randint(horizon + 6, HEIGHT - 4), rng.randint(-3, 4))
        for _ in range(rng.randint(0, 4))
    ]
    people = [
        (rng.randint(0, WIDTH), rng.randint(horizon + 4, HEIGHT - 6), rng.choice([-1, 1]))
        for _ in range(rng.randint(0, 3))
    ]
    rows, cols = np.mgrid[:HEIGHT, :WIDTH]
    frames = []
    for f in range(FRAMES):
        shift = pan * f
        labels = np.full((HEIGHT, WIDTH), SKY, dtype=np.uint8)
        labels[horizon:, :] = VEGETATION
        for x, w, top in buildings:
            x = x + shift
            labels[top:horizon, max(x, 0) : max(min(x + w, WIDTH), 0)] = BUILDING
        for x, r in trees:
            inside = ((rows - horizon) / float(r)) ** 2 + ((cols - x - shift) / float(r + 2)) ** 2 <= 1.0
            labels[inside] = VEGETATION
        depth = (rows - horizon).clip(0) / float(HEIGHT - horizon)
        half = 4 + depth * (WIDTH * 0.45)
        road = (rows >= horizon) & (np.abs(cols - WIDTH / 2.0 - shift * 0.3) <= half)
        labels[road] = ROAD
        objects = np.zeros((HEIGHT, WIDTH), dtype=bool)
        for x, y, speed in cars:
            size = 2 + int(6 * (y - horizon) / float(HEIGHT - horizon))
            x = (x + speed * f) % WIDTH
            box = (np.abs(rows - y) <= size // 2 + 1) & (np.abs(cols - x) <= size)
            labels[box] = CAR
            objects |= box
        for x, y, step in people:
            x = (x + step * f) % WIDTH
            body = ((rows - y) / 4.0) ** 2 + ((cols - x) / 1.6) ** 2 <= 1.0
            labels[body] = PERSON
            objects |= body
        frames.append((labels, objects))
    return frames, foggy


def outline(labels, objects):
    """The gold: ``labels`` with a one-pixel ``ignore_index`` outline around each car and person."""
    grown = objects.copy()
    grown[1:, :] |= objects[:-1, :]
    grown[:-1, :] |= objects[1:, :]
    grown[:, 1:] |= objects[:, :-1]
    grown[:, :-1] |= objects[:, 1:]
    gold = labels.copy()
    gold[grown & ~objects] = IGNORE
    return gold


def predict(labels, stride, miss, confuse, foggy, rng):
    """A system's mask: the labels seen on a grid every ``stride`` pixels, with missed objects and fog errors."""
    seen = labels.copy()
    for c in (CAR, PERSON):
        if np.any(seen == c) and rng.rand() < miss:
            seen[seen == c] = ROAD if c == CAR else VEGETATION
    if foggy and rng.rand() < confuse:
        seen[seen == BUILDING] = SKY
    offset = stride // 2
    grid = seen[offset::stride, offset::stride]
    return np.repeat(np.repeat(grid, stride, axis=0), stride, axis=1)[:HEIGHT, :WIDTH].astype(np.uint8)


def layout_prior():
    """The baseline: sky above row 26, a road trapezoid below it, vegetation beside the road."""
    rows, cols = np.mgrid[:HEIGHT, :WIDTH]
    mask = np.full((HEIGHT, WIDTH), SKY, dtype=np.uint8)
    mask[26:, :] = VEGETATION
    half = 4 + (rows - 26).clip(0) / float(HEIGHT - 26) * (WIDTH * 0.45)
    mask[(rows >= 26) & (np.abs(cols - WIDTH / 2.0) <= half)] = ROAD
    return mask


def render(labels):
    """The test image a participant sees: class colours, shaded towards the horizon."""
    colours = np.array(PALETTE, dtype=np.float64).reshape(-1, 3)
    image = colours[labels]
    image *= (0.75 + 0.25 * np.linspace(0, 1, HEIGHT))[:, None, None]
    return Image.fromarray(image.clip(0, 255).astype(np.uint8), "RGB")


def pillow_png(mask, palette=False):
    image = Image.fromarray(mask, "L")
    if palette:
        image = Image.frombytes("P", (WIDTH, HEIGHT), mask.tobytes())
        image.putpalette(PALETTE + [0] * (768 - len(PALETTE)))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def saved(mask, fmt):
    """``(extension, bytes)`` of a mask in a sample submission's format."""
    if fmt in ("pillow", "nested"):
        return ".png", pillow_png(mask)
    if fmt == "palette":
        return ".png", pillow_png(mask, palette=True)
    if fmt == "encoder":
        return ".png", encode_png(mask)
    out = io.BytesIO()
    if fmt == "npy":
        np.save(out, mask)
        return ".npy", out.getvalue()
    np.savez_compressed(out, mask=mask)
    return ".npz", out.getvalue()


def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def main():
    rng = np.random.RandomState(SEED)
    scenes, fog = [], []
    for _ in range(VIDEOS):
        frames, foggy = draw_video(rng)
        scenes.append(frames)
        fog.append(foggy)
    ids = [image_id(v, f) for v in range(VIDEOS) for f in range(FRAMES)]
    reference = os.path.join(HERE, "reference_data")
    masks = fresh(os.path.join(reference, "masks"))
    baseline = fresh(os.path.join(reference, "baseline"))
    public = fresh(os.path.join(HERE, "public_data"))
    images = fresh(os.path.join(public, "images"))
    prior = layout_prior()
    for v, frames in enumerate(scenes):
        for f, (labels, objects) in enumerate(frames):
            name = image_id(v, f) + ".png"
            with open(os.path.join(masks, name), "wb") as handle:
                handle.write(encode_png(outline(labels, objects)))
            with open(os.path.join(baseline, name), "wb") as handle:
                handle.write(encode_png(prior))
            render(labels).save(os.path.join(images, name))
    videos = "id,video\n" + "".join("%s,v%02d\n" % (i, int(i[1:3])) for i in ids)
    for folder in (reference, public):
        with open(os.path.join(folder, "videos.csv"), "w") as handle:
            handle.write(videos)
    with open(os.path.join(public, "test_ids.txt"), "w") as handle:
        handle.write("\n".join(ids) + "\n")
    samples = fresh(os.path.join(HERE, "sample_submissions"))
    for name, (stride, miss, confuse, fmt) in SYSTEMS.items():
        with zipfile.ZipFile(os.path.join(samples, name + ".zip"), "w", zipfile.ZIP_DEFLATED) as archive:
            for v, frames in enumerate(scenes):
                for f, (labels, _) in enumerate(frames):
                    extension, data = saved(predict(labels, stride, miss, confuse, fog[v], rng), fmt)
                    folder = {"npy": "predictions/", "nested": "%s/" % name}.get(fmt, "")
                    archive.writestr(folder + image_id(v, f) + extension, data)
    logo = Image.fromarray(np.array(PALETTE, dtype=np.uint8).reshape(-1, 3)[scenes[3][4][0]], "RGB")
    logo.resize((256, 128), Image.NEAREST).save(os.path.join(HERE, "logo.png"))


if __name__ == "__main__":
    main()
