"""Detection in the end of phase and on the participant's page: the per-category AP table and its privacy.

The per-category table (the task's ``UnitTable``: AP@[.50:.95] with its interval, AP50, AR@100) is
the organizers': the end-of-phase analysis shows it, titled by the task's column titles, and its AP
values equal pycocotools' per-category precision averaged over thresholds and recall points.  A
participant's ``detailed_results.html`` shows it only when the organizer sets
``detailed_results.per_class: true``, and then only the categories the submission predicted, and the
gold holds, at least ``min_count`` times (the rule classes follow).
"""

import contextlib
import copy
import io
import os
import sys

import numpy as np
import pytest

from leaderboard_ci.phase.analysis import analyze
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.detailed_html import render_detailed_results
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.tasks.detection import TASK
from leaderboard_ci.tasks.shared.base import GoldStandard

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples", "detection"))

from synthetic import make_detections, make_gold  # noqa: E402

coco = pytest.importorskip("pycocotools.coco", reason="pycocotools (the test extra) is the reference")
cocoeval = pytest.importorskip("pycocotools.cocoeval")


@pytest.fixture(scope="module")
def data():
    gold = make_gold(41, n_images=60, n_categories=5, mean_objects=4.0)
    systems = {"good": make_detections(gold, 0.85, 42, score_decimals=2), "fair": make_detections(gold, 0.6, 43)}
    return gold, systems


def pycocotools_category_ap(gold, results):
    """``{category id: AP@[.50:.95]}`` from pycocotools' precision array (area all, maxDets 100)."""
    with contextlib.redirect_stdout(io.StringIO()):
        gt = coco.COCO()
        gt.dataset = copy.deepcopy(gold)
        gt.createIndex()
        evaluation = cocoeval.COCOeval(gt, gt.loadRes(copy.deepcopy(results)), "bbox")
        evaluation.evaluate()
        evaluation.accumulate()
    precision = evaluation.eval["precision"][:, :, :, 0, -1]  # (T, R, K)
    out = {}
    for k, cat in enumerate(evaluation.params.catIds):
        values = precision[:, :, k]
        if np.all(values > -1):
            out[cat] = float(values.mean())
    return out


def test_the_end_of_phase_shows_ap_per_category_as_pycocotools_computes_it(data):
    gold, systems = data
    phase = analyze(gold, systems, metric="map", extra_metrics=["ap50"], task="detection", n_resamples=50)
    units = phase.units
    assert units is not None
    assert units.attrs["unit_name"] == "category" and units.attrs["titles"] == ("AP50", "AR@100", "AP")
    for name, results in systems.items():
        expected = pycocotools_category_ap(gold, results)
        mine = units[units["system"] == name]
        assert len(mine) == len(expected)  # the unused category (no gold) has no row
        for row in mine.itertuples(index=False):
            category = int(row.unit[row.unit.rindex("(") + 1 : -1])
            assert abs(row.f1 - expected[category]) <= 1e-9, (name, row.unit)


def _config(per_class, min_count=5):
    return parse_config(
        {
            "task": "detection",
            "metric": "map",
            "bootstrap": {"n_resamples": 50, "n_jobs": 1},
            "detailed_results": {"per_class": per_class, "min_count": min_count},
        }
    )


def test_the_participants_page_shows_the_table_only_when_the_organizer_allows_it(data):
    gold, systems = data
    values, labels, coded = TASK.encode_values(gold, systems)
    standard = GoldStandard(values=values, labels=labels, task="detection")
    for per_class in (False, True):
        config = _config(per_class)
        result = evaluate(config, standard, coded["good"])
        assert [r.label for r in result.per_class]  # the rows exist; the page decides what it shows
        page = render_detailed_results(result, config)
        assert ("Per-category scores" in page) == per_class
        if per_class:
            assert "<th>AP50</th><th>AR@100</th><th>AP</th><th>AP 95% CI</th>" in page
            assert "Precision" not in page


def test_a_category_with_few_gold_boxes_or_detections_is_withheld(data):
    gold, systems = data
    values, labels, coded = TASK.encode_values(gold, systems)
    standard = GoldStandard(values=values, labels=labels, task="detection")
    config = _config(True, min_count=10**6)
    result = evaluate(config, standard, coded["good"])
    page = render_detailed_results(result, config)
    for row in result.per_class:
        assert "%.4f" % row.f1 not in page  # every row below the threshold: no score shown
