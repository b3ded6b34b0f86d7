"""COCO's evaluation parameters for boxes and its box IoU, as pycocotools defines them.

The constants are pycocotools' ``Params.setDetParams`` (``cocoeval.py``, 2.0.11),
computed with the same numpy expressions so that every threshold is the same
double:

* ``IOU_THRESHOLDS``: ``np.linspace(.5, 0.95, 10)``, T = 10;
* ``RECALL_THRESHOLDS``: ``np.linspace(.0, 1.00, 101)``, R = 101;
* ``MAX_DETS``: ``[1, 10, 100]``, per image *and category* (pycocotools keeps
  the first ``maxDet`` detections of each image-category pair by score);
* ``AREA_RANGES``: all ``[0, 1e10]``, small ``[0, 32**2]``, medium
  ``[32**2, 96**2]``, large ``[96**2, 1e10]``, both ends inclusive (an object
  of area exactly 1024 is small *and* medium).

:func:`box_iou` is the C function ``bbIou`` of pycocotools' ``maskApi.c``,
operation for operation: boxes are ``[x, y, width, height]``; the
intersection's width is ``min(x_d + w_d, x_g + w_g) - max(x_d, x_g)`` (0 when
not positive, likewise the height); the union is ``(area_d + area_g) -
intersection``, except for a crowd region, where it is the detection's area
(a detection inside a crowd region has IoU 1 with it, whatever the region's size).

Standard library and numpy only (Python 3.7, numpy 1.17).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "IOU_THRESHOLDS",
    "RECALL_THRESHOLDS",
    "MAX_DETS",
    "AREA_RANGES",
    "AREA_NAMES",
    "MIN_IOU",
    "box_iou",
    "in_area_range",
]

IOU_THRESHOLDS = np.linspace(0.5, 0.95, int(np.round((0.95 - 0.5) / 0.05)) + 1, endpoint=True)
RECALL_THRESHOLDS = np.linspace(0.0, 1.00, int(np.round((1.00 - 0.0) / 0.01)) + 1, endpoint=True)
MAX_DETS = (1, 10, 100)
AREA_RANGES = np.array([[0**2, 1e5**2], [0**2, 32**2], [32**2, 96**2], [96**2, 1e5**2]], dtype=np.float64)
AREA_NAMES = ("all", "small", "medium", "large")
#: The smallest IoU any threshold accepts (pycocotools compares with ``min(t, 1 - 1e-10)``).
MIN_IOU = float(min(IOU_THRESHOLDS[0], 1 - 1e-10))


def box_iou(detections, gold, crowd):
    """IoU of paired boxes, element by element, as pycocotools' ``bbIou`` computes it.

    Parameters
    ----------
    detections, gold : arrays ``(E, 4)`` of ``[x, y, width, height]``
    crowd : bool array ``(E,)``
        Whether the gold box is a crowd region (then the union is the detection's area).

    Returns
    -------
    ndarray ``(E,)`` of float64 in [0, 1] (0 where the boxes do not overlap).
    """
    d = np.asarray(detections, dtype=np.float64)
    g = np.asarray(gold, dtype=np.float64)
    w = np.minimum(d[:, 2] + d[:, 0], g[:, 2] + g[:, 0]) - np.maximum(d[:, 0], g[:, 0])
    h = np.minimum(d[:, 3] + d[:, 1], g[:, 3] + g[:, 1]) - np.maximum(d[:, 1], g[:, 1])
    overlap = (w > 0) & (h > 0)
    inter = w * h
    det_area = d[:, 2] * d[:, 3]
    union = np.where(np.asarray(crowd, dtype=bool), det_area, (det_area + g[:, 2] * g[:, 3]) - inter)
    out = np.zeros(d.shape[0])
    np.divide(inter, union, out=out, where=overlap)
    return out


def in_area_range(area):
    """``(4, n)`` bool: whether each area lies in each of :data:`AREA_RANGES` (both ends inclusive)."""
    area = np.asarray(area, dtype=np.float64)
    return (area[None, :] >= AREA_RANGES[:, :1]) & (area[None, :] <= AREA_RANGES[:, 1:])
