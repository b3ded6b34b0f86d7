"""Build the object-detection example competition: synthetic COCO-like images, six detectors and a baseline.

The data come from :mod:`synthetic` (next to this file): 300 test images of
640 x 480 with about six objects each over 10 categories (one more category
listed but never annotated), objects small, medium and large in about equal
shares, a few crowd regions and a few empty images.  The detectors differ in
quality (how many objects they find, how tight their boxes are, how often
they confuse categories or report a box twice); two of them round their scores
to two decimals (many tied scores, ordered as pycocotools orders them) and
one floods a few images with 120 extra boxes of one category (pycocotools
counts only the 100 best of an image and category).

Run from the repository root (deterministic; rewrites the data files):

    python3 examples/detection/make_data.py
"""

import io
import json
import os
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from synthetic import make_detections, make_gold  # noqa: E402

#: name -> (quality, seed, score decimals, flood share); the baseline goes to reference_data/.
SYSTEMS = {
    "cascade_swin": (0.86, 11, None, 0.0),
    "dino_r50": (0.858, 12, 2, 0.0),
    "faster_rcnn_fpn": (0.74, 13, None, 0.05),
    "retinanet_r50": (0.63, 14, 2, 0.0),
    "yolo_tiny": (0.55, 15, None, 0.0),
    "ssd_mobile": (0.42, 16, None, 0.0),
}
BASELINE = (0.6, 17, 1, 0.0)


def _json_text(value, indent=None):
    return json.dumps(value, indent=indent, ensure_ascii=False) + "\n"


def _write(path, text):
    with io.open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)


def _zip(path, name, text):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        info = zipfile.ZipInfo(name, date_time=(2025, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, text.encode("utf-8"))


def detections(gold, spec):
    quality, seed, decimals, flood = spec
    return make_detections(gold, quality, seed, score_decimals=decimals, flood=flood)


def main():
    gold = make_gold(2025, n_images=300, n_categories=10)
    ref = os.path.join(HERE, "reference_data")
    pub = os.path.join(HERE, "public_data")
    subs = os.path.join(HERE, "sample_submissions")
    for folder in (ref, pub, subs):
        if not os.path.isdir(folder):
            os.makedirs(folder)
    _write(os.path.join(ref, "instances_test.json"), _json_text(gold))
    _write(os.path.join(ref, "baseline.json"), _json_text(detections(gold, BASELINE)))
    public = {"info": gold["info"], "images": gold["images"], "categories": gold["categories"]}
    _write(os.path.join(pub, "image_info_test.json"), _json_text(public, indent=1))
    for name, spec in sorted(SYSTEMS.items()):
        _zip(os.path.join(subs, name + ".zip"), "detections.json", _json_text(detections(gold, spec)))
    crowd = sum(1 for a in gold["annotations"] if a["iscrowd"])
    print(
        "test: %d images, %d annotations (%d crowd), %d categories"
        % (len(gold["images"]), len(gold["annotations"]), crowd, len(gold["categories"]))
    )


if __name__ == "__main__":
    main()
