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
  convention), vectorized over replicates (:mod:`.features`, :mod:`.stats`);
* **per-category table** (organizers; participants only with ``detailed_results.per_class``):
  AP, AP50 and AR@100 of each category (:func:`.stats.category_rows`).

Standard library and numpy only (Python 3.7, numpy 1.17).
"""

from ..protocol import TaskType, UnitTable
from .files import read_gold
from .metrics import METRICS, NAME
from .segm_gold import DetectionSettings, gold_notes
from .segm_results import encode_values, read_predictions, submission_format
from .stats import Statistics, category_rows, decode

__all__ = ["TASK"]

TASK = TaskType(
    name=NAME,
    metrics=METRICS,
    Settings=DetectionSettings,
    Statistics=Statistics,
    read_gold=read_gold,
    read_predictions=read_predictions,
    encode_values=encode_values,
    decode=decode,
    unit_name="image",
    gold_notes=gold_notes,
    submission_format=submission_format,
    unit_table=UnitTable("category", category_rows, ("AP50", "AR@100", "AP")),
)
