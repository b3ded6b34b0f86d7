"""The files of a detection competition: COCO instances (the gold) and COCO results (a submission).

The gold (the organizer's, ``files.gold``)
    A COCO instances file, as ``pycocotools.coco.COCO`` reads it: an object
    with ``images`` (each with an ``id``, a number or a string, unique),
    ``categories`` (each with an ``id`` and a ``name``) and ``annotations``
    (each with ``image_id``, ``category_id``, ``bbox`` ``[x, y, width,
    height]``, ``area`` and ``iscrowd``; ``id`` unique when given, never 0:
    pycocotools would count a detection matched to annotation 0 as
    unmatched).  ``iscrowd`` missing is 0; an ``ignore`` flag is ignored, as
    pycocotools overwrites it with ``iscrowd``; ``segmentation`` and other
    keys are not read.  The resampling unit is the image; every image of
    ``images`` counts, annotated or not.

A submission (a participant's, or the organizer's baseline)
    A COCO results file, as ``COCO.loadRes`` reads it: a JSON list of
    ``{"image_id", "category_id", "bbox": [x, y, width, height], "score"}``
    (other keys are not read).  Every image id must be a test image and every
    category id a category of the gold (pycocotools refuses the former and
    silently drops the latter, which is always a mistake); width and height
    at least 0; every number finite.  An empty list is a valid submission
    that scores 0 (pycocotools fails on it).

Encoding (the units are the images, in increasing id order, as pycocotools
sorts them): the gold is one ``(g, 7)`` float array per image (``x, y, w, h,
area, crowd, category code``), a submission one ``(d, 6)`` array per image
(``x, y, w, h, score, category code``), each in file order (which breaks
score ties, as pycocotools' stable sort does).  Unit ids are the image ids as
JSON text (``397133``); labels are ``name (id)`` per category, in increasing
id order.

Messages: one sentence naming the file, the line and the record; a gold
value is never quoted; a participant's value is quoted through ``quote``.

Standard library and numpy only (Python 3.7, numpy 1.17).
"""

from __future__ import annotations

import itertools
import json
import math
import operator
import re
from array import array
from collections import OrderedDict

import numpy as np

from ..protocol import GoldData, SubmissionFormat
from ..shared.base import UnscoredIds
from ..shared.json_documents import LongNumber, kind
from ..shared.json_stream import JsonStream
from .boxes import in_area_range
from .matching import stable_order
from .metrics import METRICS, NAME, metric_area
from .segm_gold import BoxGold, gold_masks, image_sizes, is_segm, segmentation_problem
from .stats import gold_objects

__all__ = [
    "GOLD_COLUMNS",
    "DETECTION_COLUMNS",
    "GOLD_SHAPE",
    "RESULTS_SHAPE",
    "id_text",
    "category_ids",
    "gold_units",
    "results_arrays",
    "gold_from_coco",
    "results_from_list",
    "read_gold",
    "read_predictions",
    "encode_values",
    "submission_format",
]

#: Columns of a gold image's array and of a submission image's array.
GOLD_COLUMNS = ("x", "y", "w", "h", "area", "crowd", "category")
DETECTION_COLUMNS = ("x", "y", "w", "h", "score", "category")
GOLD_SHAPE = 'a COCO instances object {"images": [...], "annotations": [...], "categories": [...]}'
_EXAMPLE_RECORD = '{"image_id": 42, "category_id": 18, "bbox": [x, y, width, height], "score": 0.93}'
RESULTS_SHAPE = "a JSON list of detections like [%s, ...] (COCO's results format)" % _EXAMPLE_RECORD
#: The start of a JSON Lines file: an object on the first line, another object on the next.
_JSON_LINES = re.compile(r"\{[^\n]*\}[ \t\r]*\n\s*\{")
_NUMBER = (int, float)
_ID = (int, str)
_KEYS = ("image_id", "category_id", "bbox", "score")


def id_text(value):
    """An image or category id as the JSON text the units and labels use, or None when it cannot be an id.

    Numbers equal to an integer (``7`` and ``7.0``, which pycocotools takes as equal) give the integer's
    text; strings their JSON text (``"a"`` quoted, so that the string ``"7"`` is not the number 7).
    """
    kind_of = type(value)
    if kind_of is int:
        return str(value)
    if kind_of is float and math.isfinite(value) and value.is_integer():
        return str(int(value))
    return json.dumps(value) if kind_of is str else None


def category_ids(labels):
    """``{category id text: code}`` from the gold's labels (``name (id)``)."""
    out = {}
    for code, label in enumerate(labels):
        out[label[label.rindex(" (") + 2 : -1]] = code
    return out


def _label(name, ident):
    name = name.strip() if isinstance(name, str) and name.strip() else "category"
    return "%s (%s)" % (name, ident)


# ---------------------------------------------------------------------------
# The gold
# ---------------------------------------------------------------------------
class _Gold(object):
    """The gold's records as they are read: images, categories, annotations (flat arrays)."""

    def __init__(self):
        self.images = []  # (line, id text, {key: scalar})
        self.categories = []  # (line, id text, name)
        self.ann = dict((k, array("d")) for k in ("x", "y", "w", "h", "area"))
        self.ann_crowd = array("b")
        self.ann_image = []  # id texts
        self.ann_category = []
        self.ann_where = []  # (line, index)
        self.ann_ids = {}
        self.segm = None  # iou_type segm: each annotation's segmentation
        self.masked = 0  # iou_type bbox: annotations that carry a segmentation anyway (init's note)


#: What each key of a gold annotation holds, for the message when it is missing.
_GOLD_KEYS = {
    "image_id": "the id of its image in images",
    "category_id": "the id of its category in categories",
    "bbox": "the object's box [x, y, width, height] (this competition scores boxes; from a mask, "
    "pycocotools.mask.toBbox gives it)",
    "area": "the object's area, which decides its small/medium/large range (COCO's: the segmentation's; "
    "pycocotools.mask.area)",
}


def _gold_problem(index, record):
    """What is wrong with annotation ``record`` (never quoting its values), or None."""
    if not isinstance(record, dict):
        return "is a JSON %s; expected an object with image_id, category_id, bbox, area and iscrowd" % kind(record)
    for key in ("image_id", "category_id", "bbox", "area"):
        if key not in record:
            return 'has no "%s"; expected %s' % (key, _GOLD_KEYS[key])
    box = record["bbox"]
    if not isinstance(box, list) or len(box) != 4 or any(type(v) not in _NUMBER for v in box):
        return "has a bbox that is not four numbers [x, y, width, height]"
    if not all(math.isfinite(v) for v in box) or box[2] < 0 or box[3] < 0:
        return "has a bbox with a number that is not finite, or a negative width or height"
    if type(record["area"]) not in _NUMBER or not math.isfinite(record["area"]) or record["area"] < 0:
        return "has an area that is not a finite number of at least 0"
    crowd = record.get("iscrowd", 0)
    if crowd not in (0, 1) or type(crowd) not in (int, bool):
        return "has an iscrowd that is not 0 or 1"
    ident = record.get("id")
    if ident is not None and id_text(ident) is None:
        return "has an id that is not a number or a string"
    if ident == 0 and type(ident) is not bool:
        return (
            "has the id 0, which pycocotools cannot match (it counts a detection matched to annotation 0 "
            "as a false positive); number the annotations from 1"
        )
    return None


def _add_annotations(gold, batch, offset):
    for i, record in enumerate(batch.values):
        if gold.segm is not None and isinstance(record, dict) and "bbox" not in record:
            record = dict(record, bbox=[0, 0, 0, 0])  # masks need no box (COCOeval's segm IoU does not read it)
        problem = _gold_problem(offset + i, record)
        if problem is None:
            ident = record.get("id")
            key = id_text(ident) if ident is not None else None
            if key is not None and key in gold.ann_ids:
                problem = "has the id of annotations[%d]; annotation ids must be unique" % gold.ann_ids[key]
            elif id_text(record["image_id"]) is None or id_text(record["category_id"]) is None:
                problem = "has an image_id or category_id that is not a number or a string"
            elif gold.segm is not None:
                problem = (
                    segmentation_problem(record.get("segmentation"))
                    if "segmentation" in record
                    else ('has no "segmentation" (iou_type: segm scores masks)')
                )
        if problem is not None:
            yield batch.line_of(i), "annotations[%d] %s" % (offset + i, problem)
            return
        if key is not None:
            gold.ann_ids[key] = offset + i
        x, y, w, h = record["bbox"]
        for name, value in zip(("x", "y", "w", "h", "area"), (x, y, w, h, record["area"])):
            gold.ann[name].append(value)
        gold.ann_crowd.append(1 if record.get("iscrowd", 0) else 0)
        gold.ann_image.append(id_text(record["image_id"]))
        gold.ann_category.append(id_text(record["category_id"]))
        gold.ann_where.append(offset + i)
        if gold.segm is not None:
            gold.segm.append(record["segmentation"])
        elif record.get("segmentation"):
            gold.masked += 1


def _identified(what, batch, offset):
    """``(line, id text, record, index)`` of each record of ``images`` or ``categories``; an error on a record
    without an id is yielded as ``(line, message, None, None)``."""
    lines = batch.all_lines()
    for i, record in enumerate(batch.values):
        ident = id_text(record.get("id")) if isinstance(record, dict) else None
        if ident is None:
            yield lines[i], '%s[%d] has no "id" (a number or a string)' % (what, offset + i), None, None
            return
        yield lines[i], ident, record, offset + i


def _add_images(gold, batch, offset):
    for line, ident, record, index in _identified("images", batch, offset):
        if record is None:
            yield line, ident
            return
        fields = dict((k, v) for k, v in record.items() if k != "id" and isinstance(v, (str, int, float)))
        gold.images.append((line, ident, fields, index))


def _add_categories(gold, batch, offset):
    for line, ident, record, _ in _identified("categories", batch, offset):
        if record is None:
            yield line, ident
            return
        gold.categories.append((line, ident, record.get("name")))


_READERS = OrderedDict([("images", _add_images), ("annotations", _add_annotations), ("categories", _add_categories)])


def _read_gold_records(source, chunks, segm=False):
    """The gold's records (:class:`_Gold`), streamed; errors through ``source`` (one sentence each)."""
    stream = JsonStream(source, chunks, GOLD_SHAPE)
    stream.expect_start(
        "{",
        lambda c: ("is empty; expected %s" % GOLD_SHAPE) if not c else "is not a JSON object; expected %s" % GOLD_SHAPE,
    )
    gold = _Gold()
    gold.segm = [] if segm else None
    seen = {}
    for line, key in stream.members():
        reader = _READERS.get(key)
        if reader is None:
            stream.value()  # info, licenses, ...: not read
            continue
        if key in seen:
            raise source.at(line, '"%s" appears twice (first on line %d); expected %s' % (key, seen[key], GOLD_SHAPE))
        seen[key] = line
        if stream.peek() != "[":
            raise source.at(line, '"%s" is not a JSON list; expected %s' % (key, GOLD_SHAPE))
        offset = 0
        for batch in stream.batches():
            for where, message in reader(gold, batch, offset):
                raise source.at(where, message)
            offset += len(batch.values)
    stream.finish()
    for key in _READERS:
        if key not in seen:
            raise source.whole('has no "%s" list; expected %s' % (key, GOLD_SHAPE))
    return gold


def _encode_gold(gold, fail):
    """``(units dict)`` from the records; ``fail(line, message)`` raises (the file's or the API's error)."""
    if not gold.images:
        fail(None, "has no images; expected at least one test image in images")
    if not gold.categories:
        fail(None, "has no categories; expected the competition's categories in categories")
    kinds = set(text.startswith('"') for _, text, _, _ in gold.images)
    if len(kinds) > 1:
        fail(None, "mixes numbers and strings as image ids; use one kind")
    first = {}
    for line, text, _, index in gold.images:
        if text in first:
            fail(line, "images[%d] has the id of images[%d]; image ids must be unique" % (index, first[text]))
        first[text] = index
    cat_first = {}
    for line, text, _ in gold.categories:
        if text in cat_first:
            fail(line, "a category id appears twice in categories; category ids must be unique")
        cat_first[text] = line
    # images in increasing id order (pycocotools sorts them): numbers by value, strings by text
    numeric = not next(iter(kinds))
    order = sorted(
        range(len(gold.images)), key=lambda i: json.loads(gold.images[i][1]) if numeric else gold.images[i][1]
    )
    images = [gold.images[i] for i in order]
    position = dict((text, p) for p, (_, text, _, _) in enumerate(images))
    cat_numeric = all(not text.startswith('"') for _, text, _ in gold.categories)
    categories = sorted(gold.categories, key=lambda c: json.loads(c[1]) if cat_numeric else c[1])
    code = dict((text, k) for k, (_, text, _) in enumerate(categories))
    n_ann = len(gold.ann_image)
    img = np.empty(n_ann, dtype=np.intp)
    cat = np.empty(n_ann, dtype=np.intp)
    for j in range(n_ann):
        p = position.get(gold.ann_image[j])
        k = code.get(gold.ann_category[j])
        if p is None or k is None:
            what = "image_id is not the id of an image in images" if p is None else "category_id is not in categories"
            fail(None, "annotations[%d]: its %s" % (gold.ann_where[j], what))
        img[j], cat[j] = p, k
    columns = [np.frombuffer(gold.ann[name], dtype=np.float64) for name in ("x", "y", "w", "h", "area")]
    columns.append(np.frombuffer(gold.ann_crowd, dtype=np.int8).astype(np.float64))
    columns.append(cat.astype(np.float64))
    table = np.stack(columns, axis=1) if n_ann else np.zeros((0, len(GOLD_COLUMNS)))
    values = _per_image(table, img, len(images))
    design = OrderedDict()
    keys = set(images[0][2])
    for _, _, fields, _ in images[1:]:
        keys &= set(fields)
    for key in sorted(keys):
        design[key] = [v if isinstance(v, str) else json.dumps(v) for v in (fields[key] for _, _, fields, _ in images)]
    reference = BoxGold(gold.masked, n_ann) if gold.masked else None
    if gold.segm is not None:
        heights, widths, bad = image_sizes([fields for _, _, fields, _ in images])
        if bad is not None:
            fail(
                images[bad][0],
                "images[%d] has no height and width (positive integers), which masks need" % images[bad][3],
            )
        where = (gold.segm, gold.ann_where, img, cat, gold.ann_crowd)
        reference = gold_masks(*where, heights=heights, widths=widths, fail=lambda m: fail(None, m))
    return {
        "reference": reference,
        "lines": [line if line is not None else 1 for line, _, _, _ in images],
        "values": values,
        "labels": tuple(_label(name, text) for _, text, name in categories),
        "ids": [text for _, text, _, _ in images],
        "groups": None,
        "design": design,
    }


def _per_image(table, image, n_images):
    """An object array of ``n_images`` arrays: the rows of ``table`` of each image, in their order."""
    order = stable_order(image)
    bounds = np.searchsorted(image[order], np.arange(n_images + 1))
    out = np.empty(n_images, dtype=object)
    for i in range(n_images):
        out[i] = np.ascontiguousarray(table[order[bounds[i] : bounds[i + 1]]])
    return out


def gold_units(source, chunks, segm=False):
    """The gold units from a COCO instances file (see the module docstring); errors through ``source``.

    Returns ``{"lines", "values", "labels", "ids", "groups", "design"}``: ``design`` offers every
    scalar field all images have (``video_id``, ``location``...) to ``bootstrap.cluster``.
    """

    def fail(line, message):
        raise source.at(line, message) if line is not None else source.whole(message)

    return _encode_gold(_read_gold_records(source, chunks, segm), fail)


def gold_from_coco(coco, segm=False):
    """The gold units from a COCO instances dict (the Python API); ValueError says what is wrong."""
    if not isinstance(coco, dict):
        raise ValueError("the gold must be a COCO instances dict: %s" % GOLD_SHAPE)
    gold = _Gold()
    gold.segm = [] if segm else None

    class _Listed(object):
        def __init__(self, values):
            self.values, self.lines = values, [None] * len(values)

        def line_of(self, index):
            return None

        def all_lines(self):
            return self.lines

    for key, reader in _READERS.items():
        values = coco.get(key)
        if not isinstance(values, list):
            raise ValueError('the gold has no "%s" list: %s' % (key, GOLD_SHAPE))
        for _, message in reader(gold, _Listed(values), 0):
            raise ValueError("gold %s" % message)

    def fail(line, message):
        raise ValueError("the gold %s" % message)

    return _encode_gold(gold, fail)


# ---------------------------------------------------------------------------
# A submission
# ---------------------------------------------------------------------------
def _record_problem(record, images, categories, quote):
    """The sentence saying what is wrong with one detection record (a participant's values quoted)."""
    if not isinstance(record, dict):
        return "is a JSON %s; expected an object %s" % (kind(record), _EXAMPLE_RECORD)
    for key in _KEYS:
        if key not in record:
            hint = " (this competition scores boxes, not masks)" if key == "bbox" and "segmentation" in record else ""
            return 'has no "%s"%s; expected an object %s' % (key, hint, _EXAMPLE_RECORD)
    image = record["image_id"]
    text = id_text(image)
    if text is None or text not in images:
        hint = _quoting_hint(image, images, "test images")
        if hint:
            return "has the image_id %s, %s" % (_shown(image, quote), hint)
        return "has the image_id %s, which is not a test image (image ids look like %s)" % (
            _shown(image, quote),
            images.example,
        )
    category = record["category_id"]
    text = id_text(category)
    if text is None or text not in categories:
        hint = _quoting_hint(category, categories, "categories")
        if hint:
            return "has the category_id %s, %s" % (_shown(category, quote), hint)
        return (
            "has the category_id %s, which is not a category of this competition (the category ids are those of "
            "the categories list of the public data)" % _shown(category, quote)
        )
    box = record["bbox"]
    if not isinstance(box, list) or len(box) != 4 or any(type(v) not in _NUMBER for v in box):
        return "has the bbox %s; expected a list of four numbers [x, y, width, height]" % _shown(box, quote)
    if not all(math.isfinite(v) for v in box):
        return "has the bbox %s; expected four finite numbers [x, y, width, height]" % _shown(box, quote)
    if box[2] < 0 or box[3] < 0:
        return "has the bbox %s; expected [x, y, width, height] with width and height at least 0" % _shown(box, quote)
    score = record["score"]
    if isinstance(score, str) and type(_as_number(score)) in _NUMBER:
        return "has the score %s, a string; expected a number (a JSON number, not in quotes)" % _shown(score, quote)
    if type(score) not in _NUMBER or not math.isfinite(score):
        return "has the score %s; expected a finite number" % _shown(score, quote)
    return None


def _quoting_hint(value, known, what):
    """``"a string; the test images have number ids: ..."`` (or the reverse) when only the quotes differ, else ""."""
    if isinstance(value, str) and id_text(_as_number(value)) in known:
        return "a string; the %s have number ids: write it without quotes" % what
    if id_text(value) is not None and not isinstance(value, str) and json.dumps(id_text(value)) in known:
        return "a number; the %s have string ids: write it in quotes" % what
    return ""


def _as_number(text):
    try:
        return json.loads(text)
    except ValueError:
        return None


def _shown(value, quote):
    if isinstance(value, LongNumber):
        return "%s (a number of %d digits)" % (quote(str(value)[:12]), len(str(value)))
    if isinstance(value, str):
        return quote(value)
    try:
        text = json.dumps(value, allow_nan=True)
    except (TypeError, ValueError):
        text = str(value)
    return quote(text)


class _Ids(dict):
    """``{id text: code}`` with an example id for messages, and :attr:`raw`: ``{id as JSON decodes it: code}``.

    A record's id is looked up by its decoded value in :attr:`raw` (``7`` and ``7.0`` are one key, as in
    pycocotools; the string ``"7"`` is another); booleans, which Python counts as 0 and 1, are refused
    before the lookup.
    """

    def __init__(self, items, example):
        super(_Ids, self).__init__(items)
        self.example = example
        self.raw = dict((json.loads(text), code) for text, code in self.items())


class _Detections(object):
    """Columns of the detections read so far."""

    def __init__(self):
        self.columns = [array("d") for _ in range(5)]
        self.image = array("q")
        self.category = array("q")


_FIELDS = tuple(operator.itemgetter(key) for key in _KEYS)
_NUMBER_TYPES = frozenset(_NUMBER)
_LIST = frozenset((list,))
_FOUR = frozenset((4,))


def _batch_columns(values, images, categories):
    """A batch's columns ``(image codes, category codes, boxes, scores)`` when every record passes the type
    checks of :func:`_add_detections`' loop, else None (then the loop finds the first record that does not).

    The checks are made a column at a time (``map`` and ``set`` over the batch, C loops): every record an
    object with the four keys, no boolean id, every id a gold image's and category's, every bbox a list of
    four numbers (int or float) and every score a number.  ``files.unscored_ids: ignore`` is left to the loop
    (its id lookup counts the unscored images, record by record).
    """
    if type(images.raw) is not dict:
        return None
    try:
        image_ids, category_ids, boxes, scores = (list(map(field, values)) for field in _FIELDS)  # no tuple a record
        if bool in set(map(type, image_ids)) or bool in set(map(type, category_ids)):
            return None
        image = list(map(images.raw.get, image_ids))
        category = list(map(categories.raw.get, category_ids))
        if None in image or None in category:
            return None
        if not set(map(type, boxes)) <= _LIST or not set(map(len, boxes)) <= _FOUR:
            return None
        flat = list(itertools.chain.from_iterable(boxes))
        if not set(map(type, flat)) <= _NUMBER_TYPES or not set(map(type, scores)) <= _NUMBER_TYPES:
            return None
        return image, category, array("d", flat), array("d", scores)
    except (TypeError, KeyError, ValueError, OverflowError):
        return None


def _add_detections(out, values, images, categories):
    """Append a batch of records; the index of the first record that is not valid, or None."""
    start = len(out.image)
    fast = _batch_columns(values, images, categories) if len(values) > 1 else None
    if fast is not None:
        image, category, flat, scores = fast
        for k in range(4):
            out.columns[k].extend(flat[k::4])
        out.columns[4].extend(scores)
        out.image.extend(image)
        out.category.extend(category)
        return _first_not_finite(out, start)
    x, y, w, h, s = (c.append for c in out.columns)
    add_image, add_category = out.image.append, out.category.append
    image_get, category_get = images.raw.get, categories.raw.get
    start = len(out.image)
    for i, record in enumerate(values):
        try:
            image_id, category_id = record["image_id"], record["category_id"]
            image = image_get(image_id)
            category = category_get(category_id)
            box = record["bbox"]
            score = record["score"]
            if (
                image is None
                or category is None
                or type(image_id) is bool
                or type(category_id) is bool
                or type(box) is not list
                or len(box) != 4
                or type(score) not in _NUMBER
                or type(box[0]) not in _NUMBER
                or type(box[1]) not in _NUMBER
                or type(box[2]) not in _NUMBER
                or type(box[3]) not in _NUMBER
            ):
                return i
        except (TypeError, KeyError):
            return i
        x(box[0])
        y(box[1])
        w(box[2])
        h(box[3])
        s(score)
        add_image(image)
        add_category(category)
    return _first_not_finite(out, start)


def _first_not_finite(out, start):
    """The index (from ``start``) of the first detection with a number not finite or a negative width or
    height, or None: checked for the whole batch at once."""
    n = len(out.image) - start
    if n:
        block = np.stack([np.frombuffer(c, dtype=np.float64)[start:] for c in out.columns], axis=1)
        bad = ~np.isfinite(block).all(axis=1) | (block[:, 2] < 0) | (block[:, 3] < 0)
        if bad.any():
            return int(np.flatnonzero(bad)[0])
    return None


def _gold_ids(ids, labels):
    images = _Ids(((text, i) for i, text in enumerate(ids)), ids[0] if ids else "")
    categories = _Ids(category_ids(labels).items(), "")
    return images, categories


class _DecoyRaw(dict):
    """``files.unscored_ids: ignore``: an image id the gold does not have maps to the decoy code ``n``."""

    def __init__(self, raw, decoy, unscored):
        super(_DecoyRaw, self).__init__(raw)
        self.decoy = decoy
        self.unscored = unscored

    def get(self, key, default=None):
        found = super(_DecoyRaw, self).get(key)
        if found is not None or type(key) not in _NUMBER + (str,):
            return found
        if isinstance(key, str) and super(_DecoyRaw, self).get(_as_number(key)) is not None:
            return None  # a test image's number id written as a string: refused with its own sentence
        error = self.unscored.decoy(key, self.decoy)  # at most files.max_ids images in all
        if error is not None:
            raise error
        return self.decoy


class _DecoyIds(_Ids):
    """The gold's image ids, where any other id stands for an unscored image (read, checked, dropped)."""

    def __init__(self, images, unscored):
        super(_DecoyIds, self).__init__(images.items(), images.example)
        self.raw = _DecoyRaw(images.raw, len(images), unscored)

    def __contains__(self, text):
        return text is not None


def _encode_detections(out, n_images):
    n = len(out.image)
    columns = [np.frombuffer(c, dtype=np.float64) for c in out.columns]
    columns.append(np.frombuffer(out.category, dtype=np.int64).astype(np.float64))
    table = np.stack(columns, axis=1) if n else np.zeros((0, len(DETECTION_COLUMNS)))
    image = np.frombuffer(out.image, dtype=np.int64)
    scored = image < n_images  # an unscored image's detections (files.unscored_ids: ignore) are dropped
    if not scored.all():
        table, image = table[scored], image[scored]
    return _per_image(table, image, n_images)


def open_results(source, chunks, gold_ids, labels, unscored, shape):
    """``(stream, images, categories)`` of a results file (boxes or masks) whose opening ``[`` is read.

    The gold's image and category ids (decoys too with ``unscored_ids: ignore``); a file that does not
    open a JSON list is told what it holds instead (empty, JSON Lines, one object) and ``shape``.
    """
    images, categories = _gold_ids(gold_ids, labels)
    if unscored is not None and unscored.ignore:
        images = _DecoyIds(images, unscored)
    stream = JsonStream(source, chunks, shape)

    def found(char):
        if not char:
            return "is empty; expected %s (an empty list [] if you have no detection)" % shape
        if char == "{" and _JSON_LINES.match(stream.text, stream.pos, stream.pos + (1 << 16)):
            return "holds one JSON object per line (JSON Lines); expected %s: the objects in one list" % shape
        if char == "{":
            return "is a JSON object; expected %s, as pycocotools' loadRes reads" % shape
        return "does not start a JSON list; expected %s" % shape

    stream.expect_start("[", found)
    return stream, images, categories


def results_arrays(source, chunks, gold_ids, labels, quote, unscored=None):
    """A participant's COCO results file as one ``(d, 6)`` array per gold image (see the module docstring).

    Parameters
    ----------
    source : Source
        The file (its errors are the participant's).
    chunks : iterator of (str, bool)
        The decoded text (``TextFile.chunks``).
    gold_ids : sequence of str
        The gold's image ids (:func:`id_text`), in unit order.
    labels : tuple of str
        The gold's category labels (``name (id)``).
    quote : callable
        Quotes a participant's text for a message.
    unscored : UnscoredIds, optional
        ``files.unscored_ids``: with ``ignore`` a detection on an image the gold does not have is
        read, checked like any other and dropped (at most ``files.max_ids`` images in all).
    """
    stream, images, categories = open_results(source, chunks, gold_ids, labels, unscored, RESULTS_SHAPE)
    out = _Detections()
    offset = 0
    for batch in stream.batches():
        bad = _add_detections(out, batch.values, images, categories)
        if bad is not None:
            problem = _record_problem(batch.values[bad], images, categories, quote)
            raise source.at(batch.line_of(bad), "detection %d %s" % (offset + bad + 1, problem))
        offset += len(batch.values)
    stream.finish()
    return _encode_detections(out, len(gold_ids))


def results_from_list(records, gold_ids, labels, name):
    """A system's results list (the Python API) as :func:`results_arrays` encodes it; ValueError names ``name``."""
    if not isinstance(records, list):
        raise ValueError("system %r: expected %s" % (name, RESULTS_SHAPE))
    images, categories = _gold_ids(gold_ids, labels)
    out = _Detections()
    bad = _add_detections(out, records, images, categories)
    if bad is not None:
        problem = _record_problem(records[bad], images, categories, repr)
        raise ValueError("system %r: detection %d %s" % (name, bad + 1, problem))
    return _encode_detections(out, len(gold_ids))


# ---------------------------------------------------------------------------
# The task protocol's readers
# ---------------------------------------------------------------------------
_AREA_WORDS = ("", " of area up to 32\u00b2", " of area 32\u00b2 to 96\u00b2", " of area above 96\u00b2")


def _check_defined(source, values, context):
    """Refuse a configured metric that is undefined on the whole gold (no non-crowd box in its area range)."""
    gold = gold_objects(values)
    counted = ~gold.crowd & in_area_range(gold.area)  # (4, boxes)
    for spec in context.metrics:
        if spec.task == NAME and spec.name in METRICS and not np.any(counted[metric_area(spec.name)]):
            area = metric_area(spec.name)
            raise source.whole(
                "holds no non-crowd object%s, so metric %s is undefined (pycocotools reports -1); remove it "
                "from %s" % (_AREA_WORDS[area], spec.key, context.config_name)
            )


def read_gold(gold, context):
    """The images of a COCO instances file (:func:`gold_units`), the configured metrics checked."""
    units = gold_units(gold.source, gold.lines().chunks(), is_segm(context.settings))
    _check_defined(gold.source, units["values"], context)
    return GoldData(
        units["lines"], units["values"], units["labels"], units["ids"], None, units["design"], units["reference"]
    )


def read_predictions(submission, gold, context):
    """A participant's COCO results file, one array of detections per gold image (:func:`results_arrays`)."""
    found = submission.file()
    return results_arrays(
        found.source, found.lines().chunks(), gold.ids, gold.labels, found.quote, UnscoredIds(found.source, context)
    )


def encode_values(gold_values, systems, labels=None, settings=None):
    """In-memory encoding: the gold a COCO instances dict, each system a COCO results list."""
    units = gold_from_coco(gold_values)
    coded = OrderedDict()
    for name, records in systems.items():
        coded[name] = results_from_list(records, units["ids"], units["labels"], name)
    return units["values"], units["labels"], coded


def submission_format(gold, files, metrics):
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
