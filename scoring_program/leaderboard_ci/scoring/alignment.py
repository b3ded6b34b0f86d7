"""Prediction rows placed at their test items: by order, or by id (the gold's ids).

:func:`align_by_order` takes exactly ``n`` rows in file order;
:func:`align_by_id` places each row at its id's position in the gold order,
a batch of rows at a time (:attr:`~leaderboard_ci.scoring.text_files.Table.batches`):
a batch is checked at once with numpy and dict look-ups, and a batch where a
row needs a message is read again row by row, so every message is the one
row-by-row reading gives, at the same line.  With decoy ids
(``files.unscored_ids: ignore``) every row is read and its value checked,
scored or not, and no message gives a count of gold items.

Only the standard library and numpy (the per-submission path runs on Python
3.7 with numpy 1.17).
"""

import itertools
from array import array

import numpy as np

from ..tasks.shared.base import id_positions
from .text_files import quote

__all__ = ["align_by_order", "align_by_id"]


def _no_rows(source, table, n):
    count = " (%d)" % n if n is not None else ""
    if table.format in ("csv", "tsv"):
        return source.whole("has a header but no predictions; expected one line per test item%s" % count)
    return source.whole("has no predictions; expected one per test item%s" % count)


def _new_values(typecode):
    """Where parsed values are collected: a typed array, or a list for structured values (typecode None)."""
    return array(typecode) if typecode else []


def _finish(values, typecode, stack):
    """The collected values as the task's array."""
    if typecode is None:
        return stack(values)
    return np.frombuffer(values, dtype=np.float64 if typecode == "d" else np.int64)


def align_by_order(source, table, n, convert, typecode, stack):
    """Values in file order; there must be exactly ``n`` rows (reading stops at row n + 1)."""
    values = _new_values(typecode)
    for line, _, text, _ in table.rows:
        if len(values) == n:
            raise source.at(
                line,
                "more predictions than the %d test items; expected exactly %d "
                "predictions, one per test item in order" % (n, n),
            )
        values.append(convert(line, text))
    if not values:
        raise _no_rows(source, table, n)
    if len(values) < n:
        raise source.whole(
            "has %d predictions, expected %d (one per test item, in the order of the test set)" % (len(values), n)
        )
    return _finish(values, typecode, stack)


def _missing_ids(source, gold, seen, count):
    missing = gold.n - count
    shown = [gold.ids[k] for k in np.flatnonzero(~seen)[:3]]
    return source.whole(
        "is missing %d of the %d test ids (e.g. %s); give one prediction for every id"
        % (missing, gold.n, ", ".join(quote(i) for i in shown))
    )


def _line_array(lines):
    """A batch's line numbers as an int64 array (``lines`` is a ``range`` or a list)."""
    if isinstance(lines, range):
        return np.arange(lines.start, lines.stop, dtype=np.int64)
    return np.asarray(lines, dtype=np.int64).reshape(-1)


def _repeated_id(source, hashes, lines):
    """The first line whose id appeared before (ids compared by their hashes), or None.

    ``hashes`` and ``lines`` are lists of per-batch arrays (lines: ranges or
    lists).  One sort of all hashes finds whether any repeats; only then are
    the rows whose hash repeats looked at, in file order.
    """
    if not hashes:
        return None
    h = np.concatenate(hashes)
    del hashes[:]
    sorted_h = np.sort(h)
    repeats = sorted_h[1:][sorted_h[1:] == sorted_h[:-1]]
    del sorted_h
    if repeats.size == 0:
        return None
    rows = np.flatnonzero(np.isin(h, repeats))  # the rows of the ids that appear more than once
    sub = h[rows]
    order = np.argsort(sub, kind="stable")
    sorted_sub = sub[order]
    again = np.flatnonzero(sorted_sub[1:] == sorted_sub[:-1]) + 1
    second = rows[order[again]]
    k = int(np.argmin(second))
    first = rows[order[np.searchsorted(sorted_sub, sorted_sub[again[k]])]]
    line_of = np.concatenate([_line_array(part) for part in lines])
    return source.at(
        int(line_of[second[k]]),
        "the id appears again (first on line %d); give one prediction per id" % int(line_of[first]),
    )


def _converted(convert, lines, texts, typecode, rows=None):
    """The values of the texts at ``rows`` (all when None), every text checked; raises at the first bad line.

    An array, or a list when ``typecode`` is None.  ``convert(line, text)``
    depends on the text alone (the line only names the place in a message),
    so a batch of few distinct texts converts each once; if one is rejected,
    the batch is converted in order, which raises at its first bad line, as
    reading row by row does.
    """
    if typecode is None:
        values = list(map(convert, lines, texts))
        return values if rows is None else [values[k] for k in rows]
    dtype = np.float64 if typecode == "d" else np.int64
    batch = getattr(convert, "batch", None)  # a whole-batch check in C, when the task has one
    values = None if batch is None else batch(texts)
    if values is not None and values.dtype == dtype:
        return values if rows is None else values[rows]
    distinct = set(texts)
    known = None
    if 4 * len(distinct) <= len(texts):
        try:
            known = dict((text, convert(0, text)) for text in distinct)
        except Exception:  # noqa: BLE001 -- converted again in order below, which raises at the right line
            known = None
    if known is None:  # mostly distinct texts, or a bad one
        values = np.fromiter(map(convert, lines, texts), dtype, len(texts))
        return values if rows is None else values[rows]
    if rows is None:
        return np.fromiter(map(known.__getitem__, texts), dtype, len(texts))
    return np.array([known[texts[k]] for k in rows], dtype=dtype).reshape(-1)


class _Placed(object):
    """What the rows read so far place: the first row of each gold id (its position, line and value)."""

    def __init__(self, gold, typecode):
        self.seen = np.zeros(gold.n, dtype=bool)
        self.positions, self.lines, self.values = [], [], []
        self.typecode = typecode
        self.hashes, self.hash_lines = [], []  # of every row, for repeats, when unscored ids are ignored
        self._filter = None

    def maybe_scored(self, index, hashes):
        """Whether each id (by its hash) may be a gold id: a bit table of the gold ids' hashes' low bits.

        One numpy look-up a row instead of a dict look-up.  The table has at
        least 8 entries per gold id up to 2 million ids (16 MB), so at most one
        unscored id in eight comes out True there (and needs the dict).
        """
        if self._filter is None:
            size = 1 << max(16, min(24, (8 * len(index)).bit_length()))
            self._filter = np.zeros(size, dtype=bool)
            self._filter[np.fromiter(map(hash, index), np.int64, len(index)) & (size - 1)] = True
        return self._filter[hashes & (self._filter.size - 1)]

    def add(self, positions, lines, values):
        self.seen[positions] = True
        self.positions.append(np.asarray(positions, dtype=np.int64))
        self.lines.append(_line_array(lines))
        self.values.append(values)

    def first_line(self, position):
        for positions, lines in zip(self.positions, self.lines):
            found = np.flatnonzero(positions == position)
            if found.size:
                return int(lines[found[0]])
        raise AssertionError("position %d was never placed" % position)

    def count(self):
        return sum(p.size for p in self.positions)

    def aligned(self, stack):
        positions = np.concatenate(self.positions) if self.positions else np.zeros(0, dtype=np.int64)
        order = np.argsort(positions, kind="stable")
        if self.typecode is None:
            values = [v for part in self.values for v in part]
            return stack([values[i] for i in order])
        return np.concatenate(self.values)[order]


def _place_batch(placed, index, lines, ids, texts, convert, ignore):
    """Check and place one batch at once; False (nothing done) when a row needs the row-by-row reading.

    That is: an empty id, or (unscored ids being errors) an id the gold does
    not have or one already placed.  Values are converted for every row,
    scored or not, and a bad one raises at its line.
    """
    if "" in ids:
        return False
    if not ignore:
        positions = np.fromiter(map(index.get, ids, itertools.repeat(-1)), np.int64, len(ids))
        if np.any(positions < 0) or np.any(placed.seen[positions]) or np.unique(positions).size != positions.size:
            return False
        placed.add(positions, lines, _converted(convert, lines, texts, placed.typecode))
        return True
    hashes = np.fromiter(map(hash, ids), np.int64, len(ids))
    rows = np.flatnonzero(placed.maybe_scored(index, hashes))  # the dict decides
    positions = np.array([index.get(ids[k], -1) for k in rows], dtype=np.int64).reshape(-1)
    rows, positions = rows[positions >= 0], positions[positions >= 0]  # the scored rows
    _, first = np.unique(positions, return_index=True)  # a repeat is reported after the reading
    first.sort()
    rows, positions = rows[first], positions[first]
    fresh = ~placed.seen[positions]
    rows, positions = rows[fresh], positions[fresh]
    values = _converted(convert, lines, texts, placed.typecode, rows)  # checks every row's value
    placed.hashes.append(hashes)
    placed.hash_lines.append(lines)
    placed.add(positions, _line_array(lines)[rows], values)
    return True


def _in_gold_order(placed, gold, start, ids):
    """Whether the batch's ids are the gold's ids at the same positions (rows ``start ..``), none placed yet.

    The usual file, written in the gold's order: its rows are placed at once (one comparison in C),
    with the same result as the look-ups (gold ids are unique and non-empty).
    """
    stop = start + len(ids)
    return stop <= gold.n and tuple(ids) == gold.ids[start:stop] and not np.any(placed.seen[start:stop])


def _place_rows(source, placed, index, gold, lines, ids, texts, convert, ignore):
    """Check and place one batch row by row: the reference semantics, and the messages."""
    positions, kept_lines, values = [], [], []
    first_lines = {}
    hashes = []
    for line, ident, text in zip(lines, ids, texts):
        if ident == "":
            raise source.at(line, "the id is empty; expected the id of a test item in the id column")
        value = convert(line, text)
        position = index.get(ident)
        if ignore:
            hashes.append(hash(ident))
            if position is None or position in first_lines or placed.seen[position]:
                continue  # an unscored id; a repeat is reported after the reading, like any other
        elif position is None:
            raise source.at(line, "id %s is not a test id; expected ids like %s" % (quote(ident), quote(gold.ids[0])))
        elif position in first_lines or placed.seen[position]:
            first = first_lines[position] if position in first_lines else placed.first_line(position)
            raise source.at(
                line, "id %s appears again (first on line %d); give one prediction per id" % (quote(ident), first)
            )
        first_lines[position] = line
        positions.append(position)
        kept_lines.append(line)
        values.append(value)
    if ignore:
        placed.hashes.append(np.array(hashes, dtype=np.int64))
        placed.hash_lines.append(lines)
    if placed.typecode is not None:
        values = np.array(values, dtype=np.float64 if placed.typecode == "d" else np.int64)
    placed.add(np.array(positions, dtype=np.int64), kept_lines, values)


def align_by_id(source, table, gold, convert, typecode, stack, unscored="error", max_rows=None):
    """Values placed at their id's position in the gold order.

    With ``unscored`` ``"error"`` an id the gold does not have stops the
    reading; with ``"ignore"`` it is read and checked like any other (so that
    no message depends on whether an id is scored) and left out, and no
    message gives a count of gold items.  Reading stops at row ``max_rows + 1``
    (``files.max_ids`` when unscored ids are ignored: nothing else bounds the
    rows but the file size).

    The rows come in batches (:attr:`Table.batches`), each checked at once
    with numpy and dict look-ups (:func:`_place_batch`); a batch where a
    row needs a message is read again row by row (:func:`_place_rows`), so
    every message is the one row-by-row reading gives, at the same line.
    """
    ignore = unscored == "ignore"
    index = None  # the id -> position map, built when a batch is not in the gold's order
    placed = _Placed(gold, typecode)
    rows = 0
    for lines, ids, texts, _ in table.batches:
        over = None
        if max_rows is not None and rows + len(lines) > max_rows:
            over = lines[max_rows - rows]
            keep = max_rows - rows
            lines, ids, texts = lines[:keep], ids[:keep], texts[:keep]
        if lines and not ignore and _in_gold_order(placed, gold, rows, ids):
            placed.add(np.arange(rows, rows + len(ids)), lines, _converted(convert, lines, texts, typecode))
        elif lines:
            index = id_positions(gold.ids) if index is None else index
            if not _place_batch(placed, index, lines, ids, texts, convert, ignore):
                _place_rows(source, placed, index, gold, lines, ids, texts, convert, ignore)
        rows += len(lines)
        if over is not None:
            raise source.at(
                over,
                "more than {:,} predictions, the most this competition accepts (one per public "
                "test id); give one prediction per test id".format(max_rows),
            )
    if ignore:
        repeated = _repeated_id(source, placed.hashes, placed.hash_lines)
        if repeated is not None:
            raise repeated
    if not rows:
        raise _no_rows(source, table, None if ignore else gold.n)
    count = placed.count()
    if count < gold.n:
        if ignore:
            raise source.whole(
                "has no prediction for some of the test ids; give one prediction for every id of the test set"
            )
        raise _missing_ids(source, gold, placed.seen, count)
    return placed.aligned(stack)
