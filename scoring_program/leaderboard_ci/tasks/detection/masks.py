"""Binary masks as pycocotools defines them: run-length encoding, polygons, area, box and mask IoU.

A mask of an ``h x w`` image is read in *column-major* order (pixel ``(y, x)``
is number ``x * h + y``) and stored by COCO as run lengths (``counts``)
alternating background and foreground, background first (a mask starting
with foreground has the count 0 first).  pycocotools (``maskApi.c``, 2.0.11)
offers three forms, all read here with its semantics, in numpy only:

* **uncompressed RLE** ``{"size": [h, w], "counts": [c0, c1, ...]}``;
* **compressed RLE** ``{"size": [h, w], "counts": "<string>"}``
  (``rleFrString``): each count is written as a little-endian group of
  6-bit characters ``chr(48 + v)``, 5 bits of value each, bit 0x20 meaning
  "more characters follow" and, on a group's last character, bit 0x10 the
  sign; a count from the fourth on is stored as its difference with the
  count two before it.  Counts are 32-bit unsigned in C, so the sums are
  taken modulo 2**32.  This reader accepts groups of at most six
  characters (any count of an image below 2**29 pixels needs no more; a
  longer group overflows C's ``int`` shifts in pycocotools);
* **polygons** ``[[x1, y1, x2, y2, ...], ...]`` of an image's ``height`` and
  ``width`` (``rleFrPoly``, then ``rleMerge`` of the parts): the vertices
  are scaled by 5 and rounded (``(int)(5 x + .5)``, a truncation toward
  zero), the closed outline is walked pixel by pixel on that fine grid
  (along the longer axis, the other coordinate rounded the same way), and
  every step of the fine x across a pixel centre toggles the column's
  pixels from the boundary's y (``ceil((min(v) + .5) / 5 - .5)``, clipped
  to ``[0, h]``) on; a pixel is foreground when an odd number of toggles
  precede it in column-major order.  The parts of a polygon list are united.

Internally a mask is its foreground intervals ``[start, end)`` of pixel
numbers (:class:`Masks`); two masks' IoU is exact integer arithmetic on
them, as ``rleIou``: ``intersection / union``, the union being the
detection's area for a crowd region, and 0 when they share no pixel.  The
intersection is read off the gold mask's cumulative pixel count at the
detection's interval bounds (one ``searchsorted`` for all pairs), and only
pairs whose boxes (``rleToBbox``) overlap are computed, as pycocotools
prunes them with ``bbIou``.

Standard library and numpy only (Python 3.7, numpy 1.17).

References
----------
Lin et al., *Microsoft COCO: Common Objects in Context*, ECCV 2014; the
COCO API, ``common/maskApi.c`` and ``PythonAPI/pycocotools/_mask.pyx``.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

__all__ = [
    "MAX_PIXELS",
    "MAX_GROUP",
    "MAX_POLYGON_STEPS",
    "Masks",
    "decode_strings",
    "masks_from_counts",
    "counts_problems",
    "polygon_intervals",
    "union_intervals",
    "masks_from_intervals",
    "to_counts",
    "to_string",
    "encode",
    "boxes",
    "box_overlap",
    "mask_iou",
]

#: The most pixels an image with masks may have (compressed counts need at most six characters below it).
MAX_PIXELS = 1 << 29
#: The most characters of one compressed count.
MAX_GROUP = 6
#: The most fine-grid steps one polygon's outline may take (bounds time and memory; 2 * 10**7).
MAX_POLYGON_STEPS = 20000000
_SCALE = 5.0
_WRAP = 1 << 32
#: Pair-interval elements per chunk of :func:`mask_iou` (memory only, never a result).
_CHUNK = 1 << 20

Masks = namedtuple("Masks", "height width indptr starts ends area")
Masks.__doc__ = """Foreground intervals of ``n`` masks.

Attributes
----------
height, width : int64 arrays ``(n,)``
indptr : int64 array ``(n + 1,)``
    Mask ``i``'s intervals are ``starts[indptr[i]:indptr[i + 1]]``.
starts, ends : int64 arrays
    Sorted, disjoint, non-touching ``[start, end)`` column-major pixel numbers.
area : int64 array ``(n,)``
    Foreground pixels (pycocotools' ``area``).
"""


def _segment_cumsum(values, first):
    """Cumulative sums of ``values`` restarted wherever ``first`` is True (int64)."""
    total = np.cumsum(values, dtype=np.int64)
    starts = np.flatnonzero(first)
    base = np.zeros(values.shape[0], dtype=np.int64)
    if values.shape[0]:
        before = total[starts] - values[starts]
        base = before[np.cumsum(first) - 1]
    return total - base


def decode_strings(texts, max_counts=None):
    """Counts of compressed RLE strings, as pycocotools' ``rleFrString``.

    Parameters
    ----------
    texts : sequence of str
    max_counts : int array, optional
        The most counts each string may hold (``h * w + 1``: no mask needs more); checked on the
        characters alone, before any per-character integer array is made (bounds memory).

    Returns
    -------
    (counts, indptr, problem)
        ``counts`` int64 (modulo 2**32, as C's ``uint``), string ``i``'s at
        ``counts[indptr[i]:indptr[i + 1]]``; ``problem`` is None or ``(i, what)``:
        the first string that cannot be read and why.
    """
    n = len(texts)
    lengths = np.array([len(t) for t in texts], dtype=np.int64)
    empty = np.flatnonzero(lengths == 0)
    joined = "".join(texts)
    if empty.size:
        return None, None, (int(empty[0]), "is an empty string")
    try:
        raw = joined.encode("ascii")
    except UnicodeEncodeError as error:
        where = int(np.searchsorted(np.cumsum(lengths), error.start, side="right"))
        return None, None, (where, "holds a character that is not one of COCO's 64 ('0' to 'o')")
    byte = np.frombuffer(raw, dtype=np.uint8).astype(np.int16)
    ends_of_strings = np.cumsum(lengths)
    bad = np.flatnonzero((byte < 48) | (byte > 111))
    if bad.size:
        where = int(np.searchsorted(ends_of_strings, bad[0], side="right"))
        return None, None, (where, "holds a character that is not one of COCO's 64 ('0' to 'o')")
    last = ((byte - 48) & 0x20) == 0  # a group's last character
    unfinished = np.flatnonzero(~last[ends_of_strings - 1])
    if unfinished.size:
        return None, None, (int(unfinished[0]), "ends inside a count (its last character says more follow)")
    if max_counts is not None:
        groups = np.add.reduceat(last.astype(np.int64), ends_of_strings - lengths)
        over = np.flatnonzero(groups > np.asarray(max_counts))
        if over.size:
            return None, None, (int(over[0]), "holds more counts than its image has pixels (plus one)")
    group_end = np.flatnonzero(last)
    del last
    value = np.zeros(group_end.shape[0], dtype=np.int64)
    for lo in range(0, group_end.shape[0], _CHUNK):  # blocks of counts: bounded temporaries
        end = group_end[lo : lo + _CHUNK]
        start = np.empty_like(end)
        start[0] = group_end[lo - 1] + 1 if lo else 0
        start[1:] = end[:-1] + 1
        size = end - start + 1
        long_group = np.flatnonzero(size > MAX_GROUP)
        if long_group.size:
            where = int(np.searchsorted(ends_of_strings, end[long_group[0]], side="right"))
            return None, None, (where, "holds a count longer than 6 characters")
        # character k of a count's group holds its bits 5k to 5k + 4 (at most six characters)
        part = value[lo : lo + _CHUNK]
        for k in range(MAX_GROUP):
            has = np.flatnonzero(size > k)
            part[has] += ((byte[start[has] + k].astype(np.int64) - 48) & 0x1F) << (5 * k)
        negative = ((byte[end] - 48) & 0x10) != 0
        part -= np.where(negative, np.left_shift(1, 5 * size), 0)
    # counts from the fourth on are differences with the count two before: two running sums per string
    string_of_group = np.searchsorted(ends_of_strings, group_end, side="right")
    del group_end
    indptr = np.zeros(n + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(np.bincount(string_of_group, minlength=n))
    # a count's parity within its string, from small arrays (no int64 array per count besides the values)
    odd = np.resize(np.array([False, True]), value.shape[0]) ^ (indptr[:-1] % 2 == 1)[string_of_group]
    leading = np.zeros(value.shape[0], dtype=bool)
    leading[indptr[:-1][indptr[1:] > indptr[:-1]]] = True
    counts = value
    for chain in (odd, ~odd & ~leading):  # odd counts; even counts from the third
        where = np.flatnonzero(chain)
        owner = string_of_group[where]
        first = np.ones(where.shape[0], dtype=bool)
        first[1:] = owner[1:] != owner[:-1]
        counts[where] = _segment_cumsum(value[where], first)
    return np.mod(counts, _WRAP), indptr, None


def counts_problems(counts, indptr, height, width):
    """Per mask, what is wrong with its counts (None when nothing): a negative count, or a sum other than h*w.

    The sentence's end follows "counts that": ``include a negative count`` or ``sum to 12, not ...``.
    """
    n = indptr.shape[0] - 1
    per = np.diff(indptr)
    owner = np.repeat(np.arange(n), per)
    negative = np.bincount(owner, weights=(counts < 0), minlength=n) > 0
    total = np.zeros(n, dtype=np.int64)
    np.add.at(total, owner, counts)
    out = [None] * n
    for i in np.flatnonzero(negative | (total != height * width) | (per == 0)):
        out[int(i)] = (
            "include a negative count" if negative[i] else "sum to %d, not the height times the width" % int(total[i])
        )
    return out


def masks_from_counts(counts, indptr, height, width):
    """:class:`Masks` of valid run lengths (counts non-negative, summing to ``h * w`` per mask)."""
    counts = np.asarray(counts, dtype=np.int64)
    n = indptr.shape[0] - 1
    per = np.diff(indptr)
    owner = np.repeat(np.arange(n), per)
    j = np.arange(counts.shape[0]) - indptr[owner]
    first = j == 0
    end = _segment_cumsum(counts, first)
    fg = (j % 2 == 1) & (counts > 0)
    starts, ends, which = (end - counts)[fg], end[fg], owner[fg]
    return masks_from_intervals(starts, ends, which, height, width)


def masks_from_intervals(starts, ends, which, height, width):
    """:class:`Masks` of intervals ``[starts, ends)`` of mask ``which`` (sorted by mask then start, disjoint)."""
    height = np.asarray(height, dtype=np.int64)
    width = np.asarray(width, dtype=np.int64)
    n = height.shape[0]
    starts = np.asarray(starts, dtype=np.int64)
    ends = np.asarray(ends, dtype=np.int64)
    which = np.asarray(which, dtype=np.int64)
    # intervals that touch (a zero-length background run between them) become one
    touch = np.zeros(starts.shape[0], dtype=bool)
    touch[1:] = (starts[1:] == ends[:-1]) & (which[1:] == which[:-1])
    if touch.any():
        keep = ~touch
        group = np.cumsum(keep) - 1
        new_ends = np.zeros(int(keep.sum()), dtype=np.int64)
        np.maximum.at(new_ends, group, ends)
        starts, ends, which = starts[keep], new_ends, which[keep]
    per = np.bincount(which, minlength=n).astype(np.int64) if which.size else np.zeros(n, np.int64)
    indptr = np.zeros(n + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(per)
    area = np.zeros(n, dtype=np.int64)
    if which.size:
        area = np.bincount(which, weights=ends - starts, minlength=n).astype(np.int64)
    return Masks(height, width, indptr, starts, ends, area)


def _vertices(polygons):
    """``(px, py, polygon of each vertex, next vertex)``: the vertices scaled by 5 and truncated as C's ``(int)``."""
    sizes = np.array([len(p) // 2 for p in polygons], dtype=np.int64)
    xy = np.concatenate([np.asarray(p, dtype=np.float64) for p in polygons]).reshape(-1, 2)
    with np.errstate(over="ignore", invalid="ignore"):
        fine = np.trunc(_SCALE * xy + 0.5)
    owner = np.repeat(np.arange(sizes.shape[0]), sizes)
    following = np.arange(owner.shape[0]) + 1
    ends = np.cumsum(sizes)
    following[ends - 1] = ends - sizes  # the outline is closed: the last vertex goes back to the first
    return fine[:, 0], fine[:, 1], owner, following


def polygon_steps(polygons):
    """Per polygon, how many fine-grid points :func:`polygon_intervals` walks (``inf`` when not finite)."""
    px, py, owner, following = _vertices(polygons)
    with np.errstate(invalid="ignore"):
        d = np.maximum(np.abs(px[following] - px), np.abs(py[following] - py)) + 1
    d = np.where(np.isfinite(d), d, np.inf)
    return np.bincount(owner, weights=d, minlength=len(polygons))


def polygon_intervals(polygons, heights, widths):
    """Foreground intervals of polygons ``[x1, y1, x2, y2, ...]`` (``rleFrPoly``), all at once.

    Parameters
    ----------
    polygons : list of sequences of numbers
        Each at least three finite points; the caller bounds the outlines' length first
        (:func:`polygon_steps`).
    heights, widths : int arrays
        Each polygon's image size.

    Returns
    -------
    (starts, ends, polygon) int64 arrays, sorted by polygon then start.
    """
    heights = np.asarray(heights, dtype=np.int64)
    widths = np.asarray(widths, dtype=np.int64)
    fx, fy, owner, following = _vertices(polygons)
    px, py = fx.astype(np.int64), fy.astype(np.int64)
    xs, xe, ys, ye = px, px[following], py, py[following]
    dx, dy = np.abs(xe - xs), np.abs(ye - ys)
    along_x = dx >= dy
    flip = (along_x & (xs > xe)) | (~along_x & (ys > ye))
    xs, xe = np.where(flip, xe, xs), np.where(flip, xs, xe)
    ys, ye = np.where(flip, ye, ys), np.where(flip, ys, ye)
    steps = np.maximum(dx, dy)
    slope = np.where(along_x, (ye - ys) / np.where(dx > 0, dx, 1).astype(np.float64), 0.0)
    slope = np.where(~along_x, (xe - xs) / np.where(dy > 0, dy, 1).astype(np.float64), slope)
    length = steps + 1
    seg = np.repeat(np.arange(xs.shape[0]), length)
    d = np.arange(int(length.sum())) - np.repeat(np.cumsum(length) - length, length)
    t = np.where(flip[seg], steps[seg] - d, d)
    tf = t.astype(np.float64)
    on_x = along_x[seg]
    u = np.where(on_x, t + xs[seg], np.trunc(xs[seg] + slope[seg] * tf + 0.5).astype(np.int64))
    v = np.where(on_x, np.trunc(ys[seg] + slope[seg] * tf + 0.5).astype(np.int64), t + ys[seg])
    poly = owner[seg]
    moved = np.flatnonzero((u[1:] != u[:-1]) & (poly[1:] == poly[:-1])) + 1
    u1, u0, who = u[moved], u[moved - 1], poly[moved]
    h, w = heights[who], widths[who]
    xd = (np.where(u1 < u0, u1, u1 - 1).astype(np.float64) + 0.5) / _SCALE - 0.5
    ok = (np.floor(xd) == xd) & (xd >= 0) & (xd <= w - 1)
    yd = (np.minimum(v[moved], v[moved - 1]).astype(np.float64) + 0.5) / _SCALE - 0.5
    yd = np.ceil(np.minimum(np.maximum(yd, 0.0), h.astype(np.float64)))
    toggles = xd[ok].astype(np.int64) * h[ok] + yd[ok].astype(np.int64)
    who = who[ok]
    # a pixel is foreground when an odd number of toggles precede it: pair them up, the image's end closing
    size = heights * widths
    odd = np.flatnonzero(np.bincount(who, minlength=len(polygons)) % 2 == 1)
    toggles = np.concatenate([toggles, size[odd]])
    who = np.concatenate([who, odd])
    order = np.lexsort((toggles, who))
    toggles, who = toggles[order], who[order]
    starts, ends, which = toggles[0::2], np.minimum(toggles[1::2], size[who[1::2]]), who[0::2]
    keep = ends > starts
    return starts[keep], ends[keep], which[keep]


def union_intervals(starts, ends, group):
    """The union of the intervals of each ``group`` (``rleMerge``, ``intersect=0``), sorted by group then start."""
    position = np.concatenate([starts, ends])
    step = np.concatenate([np.ones(starts.shape[0], np.int64), -np.ones(ends.shape[0], np.int64)])
    owner = np.concatenate([group, group])
    order = np.lexsort((-step, position, owner))  # at one position, starts before ends: touching parts join
    depth = np.cumsum(step[order])  # every group's intervals balance, so depth is 0 between groups
    position, owner = position[order], owner[order]
    before = np.concatenate([[0], depth[:-1]])
    opened = np.flatnonzero((depth > 0) & (before == 0))
    closed = np.flatnonzero((depth == 0) & (before > 0))
    return position[opened], position[closed], owner[opened]


def to_counts(masks, i):
    """The canonical counts of mask ``i`` (what pycocotools' encode or merge writes), an int64 array."""
    s = masks.starts[masks.indptr[i] : masks.indptr[i + 1]]
    e = masks.ends[masks.indptr[i] : masks.indptr[i + 1]]
    total = int(masks.height[i]) * int(masks.width[i])
    bounds = np.concatenate([[0], np.stack([s, e], axis=1).ravel(), [total]])
    counts = np.diff(bounds)
    if counts.shape[0] > 1 and counts[-1] == 0:
        counts = counts[:-1]
    return counts


def to_string(counts):
    """The compressed string of ``counts`` (``rleToString``)."""
    counts = [int(c) for c in counts]
    out = []
    for i, c in enumerate(counts):
        x = c - counts[i - 2] if i > 2 else c
        more = True
        while more:
            ch = x & 0x1F
            x >>= 5
            more = x != -1 if ch & 0x10 else x != 0
            out.append(chr(48 + (ch | 0x20 if more else ch)))
    return "".join(out)


def encode(mask):
    """Canonical counts of a 2-d 0/1 array (``rleEncode`` of pycocotools' ``encode``)."""
    flat = np.asarray(mask, dtype=bool).ravel(order="F")
    change = np.flatnonzero(flat[1:] != flat[:-1]) + 1
    bounds = np.concatenate([[0], change, [flat.shape[0]]])
    counts = np.diff(bounds)
    return np.concatenate([[0], counts]) if flat.shape[0] and flat[0] else counts


def boxes(masks, n_counts=None):
    """``(n, 4)`` ``[x, y, w, h]`` of each mask, as pycocotools 2.0.11's ``toBbox``.

    The box of the foreground pixels; pycocotools' quirks are kept: a mask of fewer than two
    counts (``n_counts``, when given) has the box ``[0, 0, 0, 0]``, and one with no foreground
    pixel ``[w, h, 1 - w, 1 - h]`` with the sizes wrapped to 32-bit unsigned integers.
    """
    n = masks.height.shape[0]
    h = masks.height
    owner = np.repeat(np.arange(n), np.diff(masks.indptr))
    hh = h[owner]
    first, last = masks.starts, masks.ends - 1
    x0, x1 = first // hh, last // hh
    x_min, y_min = masks.width.copy(), h.copy()
    x_max, y_max = np.zeros(n, np.int64), np.zeros(n, np.int64)
    np.minimum.at(x_min, owner, x0)
    np.maximum.at(x_max, owner, x1)
    np.minimum.at(y_min, owner, first % hh)
    np.maximum.at(y_max, owner, last % hh)
    span = np.zeros(n, dtype=bool)
    span[owner[x1 > x0]] = True
    y_min = np.where(span, 0, y_min)
    y_max = np.where(span, h - 1, y_max)
    sizes = np.mod(np.stack([x_max - x_min + 1, y_max - y_min + 1], axis=1), _WRAP)
    out = np.concatenate([np.stack([x_min, y_min], axis=1), sizes], axis=1).astype(np.float64)
    if n_counts is not None:
        out[np.asarray(n_counts) < 2] = 0.0
    return out


def box_overlap(a, b):
    """Whether paired boxes ``[x, y, w, h]`` overlap with a positive area (``bbIou > 0``)."""
    w = np.minimum(a[:, 2] + a[:, 0], b[:, 2] + b[:, 0]) - np.maximum(a[:, 0], b[:, 0])
    h = np.minimum(a[:, 3] + a[:, 1], b[:, 3] + b[:, 1]) - np.maximum(a[:, 1], b[:, 1])
    return (w > 0) & (h > 0)


def mask_iou(det, gold, pair_det, pair_gold, crowd):
    """IoU of paired masks (``rleIou``): masks of one size; ``crowd`` per pair (the union is the detection's area).

    Parameters
    ----------
    det, gold : Masks
    pair_det, pair_gold : int arrays ``(P,)``
        Indices into ``det`` and ``gold``.
    crowd : bool array ``(P,)``

    Returns
    -------
    float64 array ``(P,)``: ``intersection / union``, 0 where the masks share no pixel.
    """
    pair_det = np.asarray(pair_det, dtype=np.int64)
    pair_gold = np.asarray(pair_gold, dtype=np.int64)
    n_pairs = pair_det.shape[0]
    inter = np.zeros(n_pairs, dtype=np.int64)
    # gold intervals laid end to end: gold g's pixel p is number offset[g] + p
    size = gold.height * gold.width
    offset = np.concatenate([[0], np.cumsum(size)[:-1]]) if size.size else np.zeros(0, np.int64)
    g_owner = np.repeat(np.arange(size.shape[0]), np.diff(gold.indptr))
    g_start = gold.starts + offset[g_owner]
    g_len = gold.ends - gold.starts
    g_before = np.cumsum(g_len) - g_len

    def covered(position):
        k = np.searchsorted(g_start, position, side="right") - 1
        inside = np.minimum(position - g_start[np.maximum(k, 0)], g_len[np.maximum(k, 0)])
        return np.where(k >= 0, g_before[np.maximum(k, 0)] + inside, 0)

    per_pair = np.diff(det.indptr)[pair_det]
    done = 0
    cum = np.cumsum(per_pair)
    while done < n_pairs:
        base = cum[done - 1] if done else 0
        stop = max(int(np.searchsorted(cum, base + _CHUNK, side="right")), done + 1)
        c = per_pair[done:stop]
        total = int(c.sum())
        if total:
            which = np.repeat(np.arange(done, stop), c)
            k = np.repeat(det.indptr[pair_det[done:stop]], c) + (np.arange(total) - np.repeat(np.cumsum(c) - c, c))
            shift = offset[pair_gold[which]]
            hit = covered(det.ends[k] + shift) - covered(det.starts[k] + shift)
            inter[done:stop] = np.bincount(which - done, weights=hit, minlength=stop - done).astype(np.int64)
        done = stop
    union = np.where(crowd, det.area[pair_det], det.area[pair_det] + gold.area[pair_gold] - inter)
    out = np.zeros(n_pairs)
    np.divide(inter.astype(np.float64), union.astype(np.float64), out=out, where=inter > 0)
    return out
