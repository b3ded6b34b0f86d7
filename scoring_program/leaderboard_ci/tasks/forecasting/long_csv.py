"""Long-format CSV/TSV files (``unique_id,ds,y`` and the like) read in blocks with numpy.

A file of 10^7 lines holds 10^7 rows of a few short fields: making a Python
object per field would cost minutes.  Blocks of whole lines (about 1 MB, from
:class:`~leaderboard_ci.scoring.text_files.TextFile`) are split on their bytes
instead: the delimiters and line ends are found with numpy, each row's fields
become ``(start, length)`` pairs into the block's bytes, and the callers turn a
column into numbers, dates or series indices at once (:mod:`.timestamps`, the
number parser of :mod:`~leaderboard_ci.tasks.trec_runs`, hashed id lookup).

A field in double quotes that holds no quote (``"M1"``, as R's ``write.csv``
writes) is read without its quotes on the fast path; a block with any other
quoting goes through :mod:`csv`, row by row, which says what is wrong.  Blank
lines may only end the file.  Every problem is the source's error, naming the
line.  Standard library and numpy only.
"""

from __future__ import annotations

import csv

import numpy as np

from ..ranking import trec_runs

__all__ = ["Block", "read_header", "following_rows", "iter_blocks", "text_blocks", "token_text"]

_PAD = b"\x00" * 8
_QUOTE = 34
_SPACE = 32


class Block(object):
    """The rows of one block: ``data`` (uint8), ``view`` (8-byte words for hashing), ``starts`` and
    ``lengths`` ``(rows, width)`` of every field, and ``lines`` ``(rows,)``."""

    def __init__(self, raw, starts, lengths, lines):
        self.raw = raw
        self.data = np.frombuffer(raw, dtype=np.uint8)
        self.view = trec_runs.word_view(raw)
        self.starts = starts
        self.lengths = lengths
        self.lines = lines

    @property
    def rows(self):
        return len(self.lines)

    def field(self, row, column):
        """The text of one field (for a message)."""
        return token_text(self.data, self.starts[row, column], self.lengths[row, column])


def token_text(data, start, length):
    return bytes(data[int(start) : int(start) + int(length)]).decode("utf-8", "replace")


def text_blocks(lines):
    """``(first line, text, count)`` blocks of a TextFile (its own) or of ``(line, text)`` pairs."""
    if hasattr(lines, "blocks"):
        for block in lines.blocks():
            yield block
        return
    first, texts = None, []
    for line, text in lines:
        if first is None:
            first = line
        elif line != first + len(texts) or len(texts) >= 1 << 15:
            yield first, "\n".join(texts), len(texts)
            first, texts = line, []
        texts.append(text)
    if texts:
        yield first, "\n".join(texts), len(texts)


def _split_header(text, delimiter):
    try:
        return [field.strip() for field in next(csv.reader([text], delimiter=delimiter))]
    except (csv.Error, StopIteration):
        return [text.strip()]


def following_rows(rest, delimiter):
    """The non-blank rows of ``rest`` (what :func:`read_header` leaves) as fields; it consumes ``rest``."""
    for _first, text, _count in rest:
        for line_text in text.split("\n"):
            if line_text.strip():
                yield _split_header(line_text, delimiter)


def read_header(source, blocks):
    """``(header fields, delimiter, line, rest)``: the first non-blank line, and an iterator of what follows.

    ``rest`` yields the remaining ``(first line, text, count)`` blocks (the
    header's block without the lines up to the header).  The delimiter is a
    tab when the header holds tabs and no comma, else a comma.
    """
    blocks = iter(blocks)
    for first, text, _count in blocks:
        lines = text.split("\n")
        for k, line_text in enumerate(lines):
            if line_text.strip():
                delimiter = "\t" if ("\t" in line_text and "," not in line_text) else ","
                header = _split_header(line_text, delimiter)
                rest_lines = lines[k + 1 :]
                head = [(first + k + 1, "\n".join(rest_lines), len(rest_lines))] if rest_lines else []
                return header, delimiter, first + k, _chain(head, blocks)
    raise source.whole("is empty; expected a header line and one row per series and date")


def _chain(first, rest):
    for item in first:
        yield item
    for item in rest:
        yield item


class _BlankTracker(object):
    """Blank lines may only end the file: remembers the first blank line after data."""

    def __init__(self, source):
        self.source = source
        self.blank = None

    def check(self, first_data_line):
        if self.blank is not None and first_data_line is not None and first_data_line > self.blank:
            raise self.source.at(
                self.blank, "the line is blank; remove blank lines (only trailing blank lines are allowed)"
            )


def iter_blocks(source, blocks, width, delimiter):
    """Yield a :class:`Block` per block of data lines (``width`` fields a row); the first problem raises."""
    try:
        for block in _blocks(source, blocks, width, delimiter):
            yield block
    except _BlankInside as exc:
        raise source.at(exc.line, "the line is blank; remove blank lines (only trailing blank lines are allowed)")


def _blocks(source, blocks, width, delimiter):
    blanks = _BlankTracker(source)
    for first, text, _count in blocks:
        if not text.strip():
            if blanks.blank is None:
                blanks.blank = first
            continue
        block = _fast_block(text, first, width, delimiter)
        if block is None:  # quoting, or a row with another number of fields: the csv module says which
            block = _csv_block(source, text, first, width, delimiter)
        block, blank_line = _drop_blank_rows(block)
        if block.rows:
            blanks.check(int(block.lines[0]))
        if blank_line is not None and blanks.blank is None:
            blanks.blank = blank_line
        if block.rows:
            yield block


def _drop_blank_rows(block):
    """The block without its blank rows (width-1 rows of empty text), and the first blank line after data."""
    blank = (block.lengths.sum(axis=1) == 0) if block.rows else np.zeros(0, dtype=bool)
    if not blank.any():
        return block, None
    rows = np.flatnonzero(~blank)
    first_blank = int(np.flatnonzero(blank)[0])
    if len(rows) and rows[-1] > first_blank:
        raise _BlankInside(int(block.lines[first_blank]))
    return Block(block.raw, block.starts[rows], block.lengths[rows], block.lines[rows]), int(block.lines[first_blank])


class _BlankInside(Exception):
    def __init__(self, line):
        Exception.__init__(self, line)
        self.line = line


def _fast_block(text, first, width, delimiter):
    """The block split on its bytes, or None when its quoting needs the csv module."""
    raw = text.encode("utf-8") + b"\n" + _PAD
    data = np.frombuffer(raw, dtype=np.uint8)[:-8]
    mark = ord(delimiter)
    newlines = np.flatnonzero(data == 10)
    breaks = np.flatnonzero((data == mark) | (data == 10))
    per_line = np.diff(np.concatenate(([0], np.searchsorted(breaks, newlines, side="right")))) - 1
    lines = np.arange(first, first + len(newlines), dtype=np.int64)
    line_start = np.concatenate(([0], newlines[:-1] + 1))
    empty = newlines == line_start
    regular = (per_line == width - 1) | empty
    if not regular.all():
        return None
    keep = np.flatnonzero(~empty)
    bounds = np.concatenate(([-1], breaks))
    # the breaks of the kept lines: line l's fields end at breaks[b_l .. b_l + width - 1]
    first_break = np.concatenate(([0], np.cumsum(per_line + 1)[:-1]))
    index = first_break[keep][:, None] + np.arange(width)[None, :]
    ends = breaks[index] if len(keep) else np.zeros((0, width), dtype=np.int64)
    starts = bounds[index] + 1 if len(keep) else np.zeros((0, width), dtype=np.int64)
    starts, lengths = _strip(data, starts.astype(np.int64), (ends - starts).astype(np.int64))
    if (data == _QUOTE).any():
        quoted = (lengths >= 2) & (data[starts] == _QUOTE) & (data[np.maximum(starts + lengths - 1, 0)] == _QUOTE)
        quotes_inside = _count_quotes(data, starts, lengths)
        if np.any(quotes_inside != np.where(quoted, 2, 0)):
            return None
        starts = np.where(quoted, starts + 1, starts)
        lengths = np.where(quoted, lengths - 2, lengths)
    all_lines = np.zeros((len(lines), width), dtype=np.int64)
    all_lengths = np.zeros((len(lines), width), dtype=np.int64)
    all_lines[keep] = starts
    all_lengths[keep] = lengths
    return Block(raw, all_lines, all_lengths, lines)


def _strip(data, starts, lengths):
    """Fields without leading and trailing spaces (vectorized, a few passes)."""
    for _ in range(64):
        lead = (lengths > 0) & (data[np.minimum(starts, len(data) - 1)] <= _SPACE) & _is_space(data, starts)
        if not lead.any():
            break
        starts = starts + lead
        lengths = lengths - lead
    for _ in range(64):
        tail_at = np.maximum(starts + lengths - 1, 0)
        trail = (lengths > 0) & _is_space(data, tail_at)
        if not trail.any():
            break
        lengths = lengths - trail
    return starts, lengths


def _is_space(data, at):
    byte = data[np.minimum(at, len(data) - 1)]
    return (byte == 32) | (byte == 9) | (byte == 13)


def _count_quotes(data, starts, lengths):
    """How many double quotes each field holds."""
    quotes = np.flatnonzero(data == _QUOTE)
    flat_start = starts.ravel()
    flat_end = flat_start + lengths.ravel()
    count = np.searchsorted(quotes, flat_end) - np.searchsorted(quotes, flat_start)
    return count.reshape(starts.shape)


def _csv_block(source, text, first, width, delimiter):
    """A block read by the csv module (quoted fields, wrong field counts): a Block, or its first bad row's error."""
    parts, starts, lengths, lines = [], [], [], []
    offset = 0
    reader = csv.reader(text.split("\n"), delimiter=delimiter, strict=True)
    line = first
    while True:
        before = reader.line_num
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise source.at(first + before, "cannot be read as CSV (%s); check the quotes" % exc)
        start = first + before
        if reader.line_num != before + 1:
            raise source.at(
                start, "a double quote opened on this line is not closed on it; remove the quote or close it"
            )
        line = start
        if not row or (len(row) == 1 and not row[0].strip()):
            starts.append([0] * width)
            lengths.append([0] * width)
            lines.append(line)
            continue
        if len(row) != width:
            raise source.at(line, "expected %d fields, found %d" % (width, len(row)))
        row_starts, row_lengths = [], []
        for value in row:
            encoded = value.strip().encode("utf-8")
            parts.append(encoded)
            row_starts.append(offset)
            row_lengths.append(len(encoded))
            offset += len(encoded)
        starts.append(row_starts)
        lengths.append(row_lengths)
        lines.append(line)
    raw = b"".join(parts) + _PAD
    return Block(
        raw,
        np.array(starts, dtype=np.int64).reshape(-1, width),
        np.array(lengths, dtype=np.int64).reshape(-1, width),
        np.array(lines, dtype=np.int64),
    )
