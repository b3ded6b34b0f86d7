"""Object detection (``task: detection``): COCO's box metrics and PASCAL VOC's AP50, resampled by image.

* **parse** (:mod:`.files`): the gold is a COCO instances file, a submission a
  COCO results file (a JSON list of ``image_id, category_id, bbox, score``),
  both streamed in bounded memory (:mod:`.json_stream`);
* **per-image statistics**: detections are matched to gold boxes image by
  image as pycocotools' ``COCOeval.evaluateImg`` does (:mod:`.matching`), so
  each detection's outcome (true positive, false positive, ignored) per IoU
  threshold and area range, its score and each image's gold counts are the
  sufficient statistics;
* **metrics** (:mod:`.metrics`): the twelve numbers of ``COCOeval.summarize``
  (``map``, ``ap50``, ``ap75``, ``ap_small``, ``ap_medium``, ``ap_large``,
  ``ar1``, ``ar10``, ``ar100``, ``ar_small``, ``ar_medium``, ``ar_large``) and
  ``voc_ap50``; a replicate's are those pycocotools computes on the
  resampled data set (each drawn image copied with a new id), from weighted
  cumulative sums in one score order (:mod:`.curves`, which states the tie
  convention), vectorized over replicates (:mod:`.features`).

This module is the task's entry in the registry (the protocol of
:mod:`leaderboard_ci.tasks.protocol`); the numbers live in the modules above.

Standard library and numpy only (Python 3.7, numpy 1.17).
"""

from __future__ import annotations

import json
from collections import OrderedDict

import numpy as np

from ..base import MetricInfo
from ..protocol import SubmissionFormat, TaskType
from . import files
from .boxes import in_area_range
from .metrics import COCO_METRICS
from .stats import Statistics, gold_objects

__all__ = ["NAME", "METRICS", "ALIASES", "DetectionTask", "TASK", "read_gold", "read_predictions", "encode_values"]

NAME = "detection"

METRICS = OrderedDict(
    [
        ("map", MetricInfo(NAME, "higher", 1.0, "AP@[.50:.95]")),
        ("ap50", MetricInfo(NAME, "higher", 1.0, "AP50")),
        ("ap75", MetricInfo(NAME, "higher", 1.0, "AP75")),
        ("ap_small", MetricInfo(NAME, "higher", 1.0, "AP small")),
        ("ap_medium", MetricInfo(NAME, "higher", 1.0, "AP medium")),
        ("ap_large", MetricInfo(NAME, "higher", 1.0, "AP large")),
        ("ar1", MetricInfo(NAME, "higher", 1.0, "AR@1")),
        ("ar10", MetricInfo(NAME, "higher", 1.0, "AR@10")),
        ("ar100", MetricInfo(NAME, "higher", 1.0, "AR@100")),
        ("ar_small", MetricInfo(NAME, "higher", 1.0, "AR small")),
        ("ar_medium", MetricInfo(NAME, "higher", 1.0, "AR medium")),
        ("ar_large", MetricInfo(NAME, "higher", 1.0, "AR large")),
        ("voc_ap50", MetricInfo(NAME, "higher", 1.0, "VOC AP50")),
    ]
)
#: Other spellings (canonical: lower case, ``-`` and spaces as ``_``).
ALIASES = {
    "ap": "map",
    "coco_map": "map",
    "bbox_map": "map",
    "map_coco": "map",
    "ap@[.5:.95]": "map",
    "ap@[.50:.95]": "map",
    "map@[.5:.95]": "map",
    "map_50_95": "map",
    "ap_50": "ap50",
    "map50": "ap50",
    "map_50": "ap50",
    "ap_75": "ap75",
    "map75": "ap75",
    "map_75": "ap75",
    "aps": "ap_small",
    "apm": "ap_medium",
    "apl": "ap_large",
    "ar@1": "ar1",
    "ar@10": "ar10",
    "ar@100": "ar100",
    "ar_1": "ar1",
    "ar_10": "ar10",
    "ar_100": "ar100",
    "ars": "ar_small",
    "arm": "ar_medium",
    "arl": "ar_large",
    "voc_map": "voc_ap50",
    "voc_ap": "voc_ap50",
    "voc_map50": "voc_ap50",
    "pascal_voc_ap50": "voc_ap50",
}
OPTIONS = ()
_AREA_WORDS = ("", " of area up to 32\u00b2", " of area 32\u00b2 to 96\u00b2", " of area above 96\u00b2")


def _metric_area(name):
    """The area range a metric's categories need a positive in (``voc_ap50``: all)."""
    if name in COCO_METRICS:
        kind, first, second = COCO_METRICS[name]
        return first if kind == "ap" else second
    return 0


def _check_defined(source, units, settings):
    """Refuse a configured metric that is undefined on the whole gold (no non-crowd box in its area range)."""
    metrics = (settings or {}).get("metrics") or ()
    gold = gold_objects(units["values"])
    for spec in metrics:
        if spec.task != NAME or spec.name not in METRICS:
            continue
        area = _metric_area(spec.name)
        if not np.any(~gold.crowd & in_area_range(gold.area)[area]):
            raise source.whole(
                "holds no non-crowd object%s, so metric %s is undefined (pycocotools reports -1); remove it "
                "from %s" % (_AREA_WORDS[area], spec.key, (settings or {}).get("config_name", "config.yaml"))
            )


def read_gold(source, lines, labels, settings):
    """The images of a COCO instances file (:func:`.files.read_gold`), the configured metrics checked."""
    units = files.read_gold(source, lines.chunks())
    _check_defined(source, units, settings)
    return units


def _quote(text):
    text = str(text)
    return repr(text if len(text) <= 40 else text[:40] + "...")


def read_predictions(source, lines, gold, settings):
    """A participant's COCO results file, one array of detections per gold image (:func:`.files.read_results`)."""
    return files.read_results(source, lines.chunks(), gold.ids, gold.labels, _quote)


def encode_values(gold_values, systems, labels=None, settings=None):
    """In-memory encoding: the gold a COCO instances dict, each system a COCO results list."""
    units = files.gold_from_coco(gold_values)
    coded = OrderedDict()
    for name, records in systems.items():
        coded[name] = files.results_from_list(records, units["ids"], units["labels"], name)
    return units["values"], units["labels"], coded


def decode(gold, values):
    """The per-image arrays, as they are (``x, y, w, h, area, crowd, category`` / ``x, y, w, h, score, category``)."""
    return np.asarray(values, dtype=object)


def submission_format(gold, files_section, metrics):
    """What participants submit: a COCO results file, one JSON list of detections for all test images."""
    ids = [json.loads(i) for i in (gold.ids or ())]
    categories = []
    for label in gold.labels or ():
        cut = label.rindex(" (")
        categories.append({"id": json.loads(label[cut + 2 : -1]), "name": label[:cut]})
    first = categories[0]["id"] if categories else 1
    sample = [{"image_id": i, "category_id": first, "bbox": [0.0, 0.0, 10.0, 10.0], "score": 0.5} for i in ids]
    shown = ",\n".join("  " + json.dumps(record) for record in sample[:2])
    public = json.dumps({"images": [{"id": i} for i in ids], "categories": categories}, indent=1) + "\n"
    return SubmissionFormat(
        unit="image",
        units="images",
        goal="Detect the objects of each of the {n} test images: a box, a category and a score for each object.",
        description=(
            "A **COCO results file** (what pycocotools' `loadRes` reads): one JSON list of detections for all "
            'test images, each `{"image_id": ..., "category_id": ..., "bbox": [x, y, width, height], '
            '"score": ...}` with the box in pixels from the top-left corner. The image and category ids are '
            "those of `image_info_test.json` in the public data. Only the 100 highest-scored detections of an "
            "image and category count for the COCO metrics, as in pycocotools.\n\n```\n[\n%s%s\n]\n```\n"
            % (shown, ",\n  ..." if len(sample) > 2 else "")
        ),
        file_name="detections.json",
        sample=json.dumps(sample) + "\n",
        public_files=(("image_info_test.json", public),),
    )


class DetectionTask(TaskType):
    """Object detection with COCO's box metrics (see the module's docstring); its metrics take no options."""

    NAME, METRICS, ALIASES, OPTIONS, Statistics = NAME, METRICS, ALIASES, OPTIONS, Statistics
    UNIT_VALUES_NAME = "image"
    OWN_GOLD_FORMAT = OWN_PREDICTION_FORMAT = True
    read_gold, read_predictions = staticmethod(read_gold), staticmethod(read_predictions)
    encode_values, decode = staticmethod(encode_values), staticmethod(decode)
    submission_format = staticmethod(submission_format)


TASK = DetectionTask()
