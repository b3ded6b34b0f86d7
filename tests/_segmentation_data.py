"""Synthetic segmentation data for the tests: structured masks (shapes on a background) and graded systems.

Shared by ``tests/test_segmentation*.py``; the example competition's builder
(``examples/segmentation/build.py``) draws its masks the same way.
"""

import numpy as np


def draw_masks(rng, n_images, height, width, n_classes, ignore_index=255, ignore_border=2, rare_class=None):
    """``n_images`` gold masks: class 0 background, rectangles and ellipses of the other classes, an ignored border.

    ``rare_class`` (an index) appears in only a few images.
    """
    rows, cols = np.mgrid[:height, :width]
    masks = []
    for _ in range(n_images):
        mask = np.zeros((height, width), dtype=np.uint8)
        for _ in range(rng.randint(2, 7)):
            c = rng.randint(1, n_classes)
            if rare_class is not None and c == rare_class and rng.rand() > 0.05:
                continue
            cy, cx = rng.randint(0, height), rng.randint(0, width)
            ry, rx = rng.randint(3, height // 3 + 4), rng.randint(3, width // 3 + 4)
            if rng.rand() < 0.5:
                inside = ((rows - cy) / float(ry)) ** 2 + ((cols - cx) / float(rx)) ** 2 <= 1.0
            else:
                inside = (abs(rows - cy) <= ry) & (abs(cols - cx) <= rx)
            mask[inside] = c
        if ignore_border and ignore_index is not None:
            b = ignore_border
            mask[:b, :] = ignore_index
            mask[:, :b] = ignore_index
        masks.append(mask)
    return masks


def predict(rng, gold, n_classes, quality, ignore_index=255):
    """A system's masks: the gold with shifted boundaries, swapped and dropped shapes and noise, by ``quality``."""
    out = []
    for mask in gold:
        pred = np.where(mask == ignore_index, 0, mask).astype(np.uint8)
        shift = int(round((1.0 - quality) * 4))
        if shift:
            pred = np.roll(pred, (rng.randint(-shift, shift + 1), rng.randint(-shift, shift + 1)), axis=(0, 1))
        for c in np.unique(pred):
            if c and rng.rand() > quality:
                pred[pred == c] = rng.randint(0, n_classes)
        noise = rng.rand(*pred.shape) < (1.0 - quality) * 0.05
        pred[noise] = rng.randint(0, n_classes, size=int(noise.sum()))
        out.append(pred)
    return out
