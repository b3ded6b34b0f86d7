"""A COCO JSON of masks (RLE or polygons) among, or instead of, a segmentation submission's masks is told how to
convert it: COCO's masks are per object, the task reads one mask of class indices per image (session-9 sweep).
"""

import json
import re

import pytest
from test_segmentation_inputs import clean, competition, refused  # noqa: F401 (competition: a fixture)

HINT = (
    " (COCO masks, RLE or polygons, are per object: paint each image's objects into one mask of class indices "
    "first, e.g. with pycocotools.mask.decode)"
)
RESULTS = json.dumps([{"image_id": "case_00", "category_id": 1, "segmentation": {"size": [12, 20], "counts": "PP0"}}])


@pytest.mark.parametrize(
    "name, extra, hinted",
    [
        ("alone", {"segm_results.json": RESULTS.encode()}, True),
        ("beside", dict(clean(), **{"instances.JSON": RESULTS.encode()}), True),
        ("csv", dict(clean(), **{"predictions.csv": b"id,label\n"}), False),
    ],
)
def test_a_coco_json_of_masks_is_told_how_to_convert_it(competition, tmp_path, name, extra, hinted):  # noqa: F811
    message = refused(competition, tmp_path, extra)
    assert re.match(r"^\S+ is not a mask; expected only masks \(\.png, \.npy or \.npz\)", message), message
    assert message.endswith(HINT) == hinted, message
