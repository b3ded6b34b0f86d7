"""``tasks/detection/masks.py`` against pycocotools 2.0.11's ``mask`` module on random masks and polygons.

Every function is compared with its pycocotools counterpart on the same inputs: ``encode`` and the
compressed string (``rleToString``), the string's decoding (``rleFrString``), ``area``, ``toBbox``
(with its quirks on zero-length runs), ``iou`` with and without crowd regions, and ``frPyObjects`` +
``merge`` of polygons (random, integer, half-pixel and tenth-pixel vertices, outside the image,
closed outlines and repeated points): the compressed strings must be equal, character for character.
"""

import numpy as np
import pytest

from leaderboard_ci.tasks.detection import masks as M

mask_utils = pytest.importorskip("pycocotools.mask", reason="pycocotools (the test extra) is the reference")


def _random_mask(rng, h, w):
    mask = (rng.random((h, w)) < rng.random()).astype(np.uint8)
    if rng.random() < 0.4:  # a rectangle: long runs, few of them
        mask[:] = 0
        y, x = rng.integers(0, h), rng.integers(0, w)
        mask[y : y + rng.integers(1, 12), x : x + rng.integers(1, 12)] = 1
    return mask


def _decoded(strings, h, w):
    counts, indptr, problem = M.decode_strings(strings)
    assert problem is None
    n = len(strings)
    return counts, indptr, M.masks_from_counts(counts, indptr, [h] * n, [w] * n)


def test_encode_decode_area_box_match_pycocotools():
    rng = np.random.default_rng(7)
    for _ in range(150):
        h, w = (int(v) for v in rng.integers(1, 40, 2))
        mask = _random_mask(rng, h, w)
        reference = mask_utils.encode(np.asfortranarray(mask))
        counts = M.encode(mask)
        assert M.to_string(counts) == reference["counts"].decode()
        decoded, indptr, masks = _decoded([reference["counts"].decode()], h, w)
        assert np.array_equal(decoded, counts)
        assert np.array_equal(M.to_counts(masks, 0), counts)
        assert masks.area[0] == mask_utils.area(reference)
        assert np.array_equal(M.boxes(masks)[0], mask_utils.toBbox(reference))


def test_large_counts_and_negative_differences_round_trip():
    """Counts of a 4000 x 4000 image (five-character groups) and differences of both signs."""
    rng = np.random.default_rng(3)
    h = w = 4000
    for _ in range(20):
        cuts = np.sort(rng.choice(h * w, size=int(rng.integers(1, 30)), replace=False))
        counts = np.diff(np.concatenate([[0], cuts, [h * w]]))
        reference = mask_utils.frPyObjects({"size": [h, w], "counts": [int(c) for c in counts]}, h, w)
        text = reference["counts"].decode()
        assert M.to_string(counts) == text
        decoded, indptr, masks = _decoded([text], h, w)
        assert np.array_equal(decoded, counts)
        assert masks.area[0] == mask_utils.area(reference)
        assert np.array_equal(M.boxes(masks)[0], mask_utils.toBbox(reference))


def test_box_quirks_of_zero_length_runs_match_pycocotools():
    """Uncompressed counts with zero-length runs, an odd or even number of counts, no foreground at all.

    pycocotools 2.0.11's ``toBbox`` is the box of the foreground pixels (zero-length runs do not
    count, unlike the ``rleToBbox`` of the COCO API's repository), ``[w, h, 1 - w, 1 - h]`` modulo
    2**32 without foreground, ``[0, 0, 0, 0]`` for fewer than two counts.
    """
    rng = np.random.default_rng(11)
    for _ in range(200):
        h, w = (int(v) for v in rng.integers(1, 12, 2))
        parts = rng.multinomial(h * w, np.ones(int(rng.integers(1, 9))) / 8.0)
        counts = [int(c) for c in parts]
        for _ in range(int(rng.integers(0, 3))):
            counts.insert(int(rng.integers(0, len(counts) + 1)), 0)
        if rng.random() < 0.1:
            counts = [0] * int(rng.integers(0, 3)) + [h * w] + [0] * int(rng.integers(0, 3))
        reference = mask_utils.frPyObjects({"size": [h, w], "counts": counts}, h, w)
        indptr = np.array([0, len(counts)])
        masks = M.masks_from_counts(np.array(counts), indptr, [h], [w])
        assert np.array_equal(M.boxes(masks, [len(counts)])[0], mask_utils.toBbox(reference))
        assert masks.area[0] == mask_utils.area(reference)


def test_iou_matches_pycocotools_with_crowd_regions_and_any_chunk(monkeypatch):
    rng = np.random.default_rng(5)
    for chunk in (M._CHUNK, 3):
        monkeypatch.setattr(M, "_CHUNK", chunk)
        for _ in range(60):
            h, w = (int(v) for v in rng.integers(1, 30, 2))
            rles = [mask_utils.encode(np.asfortranarray(_random_mask(rng, h, w))) for _ in range(7)]
            crowd = rng.integers(0, 2, 3)
            reference = mask_utils.iou(rles[:4], rles[4:], [int(c) for c in crowd])
            _, _, masks = _decoded([r["counts"].decode() for r in rles], h, w)
            pair_det = np.repeat(np.arange(4), 3)
            pair_gold = np.tile(np.arange(4, 7), 4)
            got = M.mask_iou(masks, masks, pair_det, pair_gold, crowd[pair_gold - 4].astype(bool))
            assert np.array_equal(got.reshape(4, 3), reference)


def _polygon(rng, h, w):
    k = int(rng.integers(3, 12))
    kind = int(rng.integers(0, 4))
    top = max(h, w)
    if kind == 0:
        p = rng.uniform(-5, top + 5, 2 * k)
    elif kind == 1:
        p = rng.integers(-3, top + 3, 2 * k).astype(float)
    elif kind == 2:
        p = np.round(rng.uniform(-2, top + 2, 2 * k) * 2) / 2
    else:
        p = np.round(rng.uniform(0, top, 2 * k) * 10) / 10
    p = [float(v) for v in p]
    if rng.random() < 0.2:
        p = p + p[:2]  # closed outline: last point repeats the first
    if rng.random() < 0.2:
        p = p[:4] + p[2:4] + p[4:]  # a repeated point
    return p


def test_polygons_match_frpyobjects_and_merge_exactly():
    rng = np.random.default_rng(1)
    for trial in range(400):
        h, w = (int(v) for v in rng.integers(1, 60 if trial % 10 else 700, 2))
        parts = [_polygon(rng, h, w) for _ in range(int(rng.integers(1, 4)))]
        reference = mask_utils.merge(mask_utils.frPyObjects(parts, h, w))
        starts, ends, which = M.polygon_intervals(parts, [h] * len(parts), [w] * len(parts))
        starts, ends, which = M.union_intervals(starts, ends, np.zeros_like(which))
        masks = M.masks_from_intervals(starts, ends, which, [h], [w])
        assert M.to_string(M.to_counts(masks, 0)) == reference["counts"].decode(), (h, w, parts)
        assert masks.area[0] == mask_utils.area(reference)


@pytest.mark.parametrize(
    "strings, index, words",
    [
        (["0", ""], 1, "empty"),
        (["0", "1a\u00e9"], 1, "not one of COCO's 64"),
        (["0", "1 2"], 1, "not one of COCO's 64"),
        (["0", "1p"], 1, "not one of COCO's 64"),
        (["0", "1P"], 1, "ends inside a count"),
        (["0", "PPPPPP1"], 1, "longer than 6 characters"),
    ],
)
def test_unreadable_strings_are_named(strings, index, words):
    counts, indptr, problem = M.decode_strings(strings)
    assert counts is None and problem[0] == index and words in problem[1]


def test_counts_problems_name_the_mask():
    counts = np.array([3, 1, 2, -1, 5, 4, 2])
    indptr = np.array([0, 3, 5, 7])
    problems = M.counts_problems(counts, indptr, np.array([2, 2, 1]), np.array([3, 2, 5]))
    assert problems[0] is None
    assert problems[1] == "include a negative count"
    assert "sum to 6" in problems[2]
