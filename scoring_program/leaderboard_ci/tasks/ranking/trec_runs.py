"""TREC runs read in blocks with numpy: no Python object per line, so a run of 10^7 lines fits in time and memory.

A block of whole lines (about 1 MB, from :func:`~leaderboard_ci.scoring.text_files.iter_line_texts`)
is split into tokens on its bytes; each row keeps its query (an index into the
gold's queries), its score (float64), its line and where its document id lies
in one buffer of document-id bytes.  At the end, duplicates and the judged
documents are found by sorting 64-bit hashes of ``(query, document id)``
(every candidate then compared byte by byte), and the rank of each judged
document is one plus the number of the query's documents with a higher
score, or an equal score and a greater document id (trec_eval's order: score
descending, then document id descending; UTF-8 byte order is code point order).

Memory: about 24 bytes per line plus the document ids' bytes, and a few
sorts of the rows.  Standard library and numpy only (Python 3.7, numpy 1.17).
"""

import os
import re
import warnings

import numpy as np

__all__ = [
    "RUN_COLUMNS",
    "columns_hint",
    "header_line",
    "RunRows",
    "Queries",
    "capacity",
    "parse_block",
    "add_query_docs",
    "encode_rows",
]

#: What a line of a run holds, for messages.
RUN_COLUMNS = "6 columns: query id, Q0, document id, rank, score, run tag"
#: Whitespace that ``str.split`` splits on beyond ASCII: a block holding any is split line by line in Python.
_UNICODE_SPACE = re.compile("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
_ASCII_SPACE = np.zeros(256, dtype=bool)
_ASCII_SPACE[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = True
_MIX = np.uint64(0x9E3779B97F4A7C15)
_WORDS = 32  # 8-byte words of a token compared with numpy; longer tokens are compared in Python
#: ``_MASKS[r]`` keeps the first ``r`` bytes of a big-endian word (0 <= r <= 8).
_MASKS = np.array([0] + [((1 << (8 * r)) - 1) << (8 * (8 - r)) for r in range(1, 9)], dtype=np.uint64)
_PAD = b"\x00" * 8
_BATCH = 1 << 20  # rows hashed at a time (bounds the temporary arrays)


def _word_view(data):
    """Every 8 bytes of ``data`` (bytes, padded with 8 zero bytes) as an overlapping big-endian uint64."""
    return np.ndarray((len(data) - 7,), dtype=">u8", buffer=data, strides=(1,))


def _word(view, starts, lengths, k):
    """Bytes ``8k .. 8k+7`` of each token as a uint64, zero past the token's end."""
    rest = np.clip(lengths - 8 * k, 0, 8)
    at = starts + 8 * k if k == 0 else np.minimum(starts + 8 * k, len(view) - 1)  # past the end: masked out
    return view[at].astype(np.uint64) & _MASKS[rest]


def _hash(view, starts, lengths, seed):
    """A 64-bit hash of each token (and of ``seed``, an integer array), ``_BATCH`` rows at a time."""
    out = np.empty(len(starts), dtype=np.uint64)
    for begin in range(0, len(starts), _BATCH):
        part = slice(begin, begin + _BATCH)
        out[part] = _hash_batch(view, starts[part], lengths[part], seed[part])
    return out


def _hash_batch(view, starts, lengths, seed):
    with np.errstate(over="ignore"):
        h = (seed.astype(np.uint64) + np.uint64(1)) * _MIX ^ lengths.astype(np.uint64)
        rows = None
        for k in range(_WORDS):
            if k:
                rows = np.flatnonzero(lengths > 8 * k) if rows is None else rows[lengths[rows] > 8 * k]
                if len(rows) == 0:
                    break
                mixed = (h[rows] ^ _word(view, starts[rows], lengths[rows], k)) * _MIX
                h[rows] = mixed ^ (mixed >> np.uint64(29))
            else:
                h = (h ^ _word(view, starts, lengths, 0)) * _MIX
                h ^= h >> np.uint64(29)
    return h


def _same(view_a, starts_a, lengths_a, view_b, starts_b, lengths_b):
    """Whether token ``i`` of a equals token ``i`` of b, byte by byte."""
    same = lengths_a == lengths_b
    rows = np.flatnonzero(same)
    for k in range(_WORDS):
        rows = rows[lengths_a[rows] > 8 * k]
        if len(rows) == 0:
            return same
        differ = _word(view_a, starts_a[rows], lengths_a[rows], k) != _word(view_b, starts_b[rows], lengths_b[rows], k)
        same[rows[differ]] = False
        rows = rows[~differ]
    raw_a, raw_b = view_a.base, view_b.base
    for r in rows[lengths_a[rows] > 8 * _WORDS].tolist():
        a, b = int(starts_a[r]), int(starts_b[r])
        same[r] = bytes(raw_a[a : a + lengths_a[r]]) == bytes(raw_b[b : b + lengths_b[r]])
    return same


class RunRows(object):
    """The rows of a run as arrays, filled block by block (see :func:`parse_block`).

    The arrays are allocated once for ``max_rows`` rows and ``max_bytes`` bytes
    of document ids (bounds from the file's size): the memory is reserved,
    not used, until rows are written, and nothing is copied or concatenated.
    """

    def __init__(self, max_rows, max_bytes):
        self.query = np.empty(max_rows, dtype=np.int32)
        self.score = np.empty(max_rows, dtype=np.float64)
        self.offset = np.empty(max_rows, dtype=np.int64)
        self.length = np.empty(max_rows, dtype=np.int32)
        self.line = np.empty(max_rows, dtype=np.int64)
        self.buffer = np.empty(max_bytes + 8, dtype=np.uint8)
        self.n = 0
        self.size = 0  # bytes in the buffer so far

    def add(self, query, score, data, starts, lengths, lines):
        """Append rows whose document ids are ``data[starts[i] : starts[i] + lengths[i]]`` (uint8 ``data``)."""
        total = int(lengths.sum())
        count = len(lengths)
        if self.n + count > len(self.query) or self.size + total > len(self.buffer) - 8:
            raise MemoryError("more rows than the file's size allows")  # pragma: no cover
        begin = np.cumsum(lengths) - lengths
        self.buffer[self.size : self.size + total] = data[
            np.arange(total, dtype=np.int64) + np.repeat(starts - begin, lengths)
        ]
        rows = slice(self.n, self.n + count)
        self.query[rows] = query
        self.score[rows] = score
        self.offset[rows] = begin + self.size
        self.length[rows] = lengths
        self.line[rows] = lines
        self.n += count
        self.size += total

    def arrays(self):
        """``(query, score, offset, length, line, buffer)`` of the rows added (views, no copy)."""
        n = self.n
        self.buffer[self.size : self.size + 8] = 0
        buffer = self.buffer[: self.size + 8]
        return self.query[:n], self.score[:n], self.offset[:n], self.length[:n], self.line[:n], buffer


def capacity(path, shortest_row):
    """``(max rows, max document-id bytes)`` of a file of ``path``'s size whose rows take ``shortest_row`` bytes."""
    try:
        size = os.path.getsize(path)
    except (OSError, TypeError):
        size = 1 << 28  # no file (lines given in memory): reserve, the pages are used only when written
    return size // shortest_row + 1, 2 * size  # UTF-16 text of three-byte UTF-8 characters: 1.5x


# ---------------------------------------------------------------------------
# Parsing a block of lines
# ---------------------------------------------------------------------------
class Queries(object):
    """The gold's query ids, for looking up the query column of a block (UTF-8 bytes, hashed)."""

    def __init__(self, ids):
        encoded = [i.encode("utf-8") for i in ids]
        self.data = b"".join(encoded) + _PAD
        self.lengths = np.array([len(e) for e in encoded], dtype=np.int64)
        self.starts = np.cumsum(self.lengths) - self.lengths
        self.view = _word_view(self.data)
        h = _hash(self.view, self.starts, self.lengths, np.zeros(len(encoded), np.int64))
        self.order = np.argsort(h, kind="stable")
        self.sorted = h[self.order]

    def lookup(self, view, starts, lengths):
        """The gold index of each token, -1 for a token that is no query id."""
        h = _hash(view, starts, lengths, np.zeros(len(starts), np.int64))
        change = np.ones(len(h), dtype=bool)  # a run lists a query's lines together: look up each change
        change[1:] = (h[1:] != h[:-1]) | (lengths[1:] != lengths[:-1])
        rows = np.flatnonzero(change)
        at = np.minimum(np.searchsorted(self.sorted, h[rows]), len(self.sorted) - 1)
        candidate = self.order[at]
        found = (self.sorted[at] == h[rows]) & _same(
            view, starts[rows], lengths[rows], self.view, self.starts[candidate], self.lengths[candidate]
        )
        index = np.where(found, candidate, -1)
        return index[np.cumsum(change) - 1]


def parse_block(source, first_line, text, count, queries, rows, unknown, bad_score, decoy=None):
    """Add the rows of ``count`` lines of ``text`` (lines ``first_line``...) to ``rows``.

    ``queries`` is :class:`Queries`; ``unknown(line, qid)`` and ``bad_score(line, text)``
    make the errors.  The first problem in line order is raised.  ``unknown`` None: the lines of
    a query that is no test query are checked and dropped (``files.unscored_ids: ignore``), each
    first passed to ``decoy(line, qid)``, which may return an error (too many query ids).
    """
    if not _is_ascii(text) and _UNICODE_SPACE.search(text) is not None:
        return _parse_lines(source, first_line, text, queries, rows, unknown, bad_score, decoy)
    raw = ("\n" + text + "\n").encode("utf-8") + _PAD
    data = np.frombuffer(raw, dtype=np.uint8)[:-8]
    space = _ASCII_SPACE[data]
    change = np.flatnonzero(space[1:] != space[:-1]) + 1
    starts, ends = change[0::2], change[1::2]
    newlines = np.flatnonzero(data == 10)
    per_line = np.diff(np.searchsorted(starts, newlines))
    wrong = np.flatnonzero((per_line != 0) & (per_line != 6))
    if len(wrong):
        line_text = text.split("\n")[int(wrong[0])]
        first = first_line == 1 and not per_line[: wrong[0]].any()  # the file's first row
        raise _columns_error(source, first_line + int(wrong[0]), int(per_line[wrong[0]]), line_text, first)
    if len(starts) == 0:
        return
    lines = first_line + np.flatnonzero(per_line)
    starts, lengths = starts.reshape(-1, 6), (ends - starts).reshape(-1, 6)
    view = _word_view(raw)
    query = queries.lookup(view, starts[:, 0], lengths[:, 0])
    score, score_bad = _scores(data, view, starts[:, 4], lengths[:, 4])
    problem = ((query < 0) if unknown is not None else np.zeros(query.shape, dtype=bool)) | score_bad
    if first_line == 1 and (query[0] < 0 or score_bad[0]):
        fields = [_token(data, starts[0, c], lengths[0, c]) for c in range(6)]
        error = header_line(source, int(lines[0]), fields)
        if error is not None:
            raise error
    if problem.any():
        k = int(np.flatnonzero(problem)[0])
        if query[k] < 0 and unknown is not None:
            raise unknown(int(lines[k]), _token(data, starts[k, 0], lengths[k, 0]))
        raise bad_score(int(lines[k]), _token(data, starts[k, 4], lengths[k, 4]))
    if unknown is None and (query < 0).any():  # the lines of unscored queries: checked, dropped
        for k in np.flatnonzero(query < 0).tolist() if decoy is not None else ():
            error = decoy(int(lines[k]), _token(data, starts[k, 0], lengths[k, 0]))
            if error is not None:
                raise error
        keep = query >= 0
        query, score, starts, lengths, lines = query[keep], score[keep], starts[keep], lengths[keep], lines[keep]
        if not len(query):
            return
    rows.add(query, score, data, starts[:, 2], lengths[:, 2], lines)


def _is_ascii(text):
    try:
        return text.isascii()  # Python 3.7: O(1)
    except AttributeError:  # pragma: no cover
        return False


def _token(data, start, length):
    return data[start : start + length].tobytes().decode("utf-8", "replace")


def _scores(data, view, starts, lengths):
    """The scores (float64) and whether each is bad (not a number, not finite, hexadecimal, or with ``_``).

    Plain decimals of at most 16 characters (``0.25``, ``-3``, ``.5``, ``12.``)
    are parsed with numpy: at most 15 digits make an exact integer ``m``, and
    ``m / 10**k`` is one correctly rounded division, the value ``float()``
    gives.  Any other token goes to ``strtod`` (:func:`numpy.fromstring`).
    """
    values, ok = _plain_decimals(view, starts, lengths)
    other = np.flatnonzero(~ok)
    if len(other):
        values[other] = _strtod(data, starts[other], lengths[other])
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(values)
    return values + 0.0, bad  # + 0.0: -0.0 ties with 0.0, as in Python


def _plain_decimals(view, starts, lengths):
    n = len(starts)
    width = int(min(lengths.max(), 16)) if n else 0
    ok = lengths <= 16
    mantissa = np.zeros(n, dtype=np.int64)
    decimals = np.zeros(n, dtype=np.int64)
    digits = np.zeros(n, dtype=np.int64)
    dot = np.zeros(n, dtype=bool)
    negative = np.zeros(n, dtype=bool)
    word = None
    for i in range(width):
        if i % 8 == 0:
            word = _word(view, starts, lengths, i // 8)
        c = ((word >> np.uint64(56 - 8 * (i % 8))) & np.uint64(0xFF)).astype(np.int64)
        inside = lengths > i
        digit = c - 48
        is_digit = inside & (digit >= 0) & (digit <= 9)
        is_dot = inside & (c == 46)
        allowed = ~inside | is_digit | is_dot
        if i == 0:
            negative = inside & (c == 45)
            allowed |= negative | (inside & (c == 43))
        ok &= allowed & ~(is_dot & dot)
        mantissa = np.where(is_digit, mantissa * 10 + digit, mantissa)
        decimals += is_digit & dot
        digits += is_digit
        dot |= is_dot
    ok &= (digits > 0) & (digits <= 15)
    values = mantissa / np.power(10.0, decimals)
    values[negative] *= -1.0
    return values, ok


def _strtod(data, starts, lengths):
    """Numbers of the tokens by C's strtod (NaN for a token that is none), checked token by token on doubt."""
    n = len(starts)
    total = int(lengths.sum())
    begin = np.cumsum(lengths) - lengths
    picked = data[np.arange(total, dtype=np.int64) + np.repeat(starts - begin, lengths)]
    joined = np.full(total + n + 1, 32, dtype=np.uint8)
    joined[-1] = ord("0")  # a last number: strtod stopping at a bad token leaves it unread
    joined[np.arange(total, dtype=np.int64) + np.repeat(np.arange(n), lengths)] = picked
    odd = np.zeros(256, dtype=bool)
    odd[[ord("_"), ord("x"), ord("X")]] = True
    odd[128:] = True
    if not odd[picked].any():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                values = np.fromstring(joined.tobytes().decode("ascii"), dtype=np.float64, sep=" ")
            except ValueError:
                values = None
        if values is not None and len(values) == n + 1:
            return values[:n]
    return np.array(
        [_float(data[s : s + k].tobytes()) for s, k in zip(starts.tolist(), lengths.tolist())], dtype=np.float64
    )


def _float(token):
    """Python's float of a token, NaN when it is none (or holds ``_``, which Python allows)."""
    if b"_" in token:
        return float("nan")
    try:
        return float(token)
    except (ValueError, OverflowError):
        return float("nan")


def _parse_lines(source, first_line, text, queries, rows, unknown, bad_score, decoy=None):
    """One block split line by line with ``str.split`` (a block holding non-ASCII whitespace)."""
    index = dict((queries.data[s : s + n], q) for q, (s, n) in enumerate(zip(queries.starts, queries.lengths)))
    query, score, docs, lines = [], [], [], []
    seen = False  # a row before this one
    for k, line_text in enumerate(text.split("\n")):
        fields = line_text.split()
        if not fields:
            continue
        line = first_line + k
        first = first_line == 1 and not seen
        seen = True
        if len(fields) != 6:
            raise _columns_error(source, line, len(fields), line_text, first)
        error = header_line(source, line, fields) if first else None
        if error is not None:
            raise error
        q = index.get(fields[0].encode("utf-8"))
        if q is None and unknown is not None:
            raise unknown(line, fields[0])
        value = _float(fields[4].encode("utf-8"))
        if not np.isfinite(value):
            raise bad_score(line, fields[4])
        if q is None:  # an unscored query's line (files.unscored_ids: ignore): checked, dropped
            error = None if decoy is None else decoy(line, fields[0])
            if error is not None:
                raise error
            continue
        query.append(q)
        score.append(value + 0.0)
        docs.append(fields[2].encode("utf-8"))
        lines.append(line)
    if lines:
        _add_docs(rows, query, score, docs, lines)


def _add_docs(rows, query, score, docs, lines):
    lengths = np.array([len(d) for d in docs], dtype=np.int64)
    rows.add(query, score, np.frombuffer(b"".join(docs) + _PAD, np.uint8), np.cumsum(lengths) - lengths, lengths, lines)


def _columns_error(source, line, count, text, first):
    return source.at(
        line,
        "has %d column%s; expected %s (a TREC run)%s"
        % (count, "" if count == 1 else "s", RUN_COLUMNS, columns_hint(text, 6, first)),
    )


_DELIMITERS = ((",", "commas (',')"), (";", "semicolons (';')"), ("|", "vertical bars ('|')"))
_ANY_SEPARATOR = re.compile(r"[\s,;|]+")


def columns_hint(text, expected, first):
    """What a TREC line (run or qrels) with the wrong number of columns most likely is, for its message.

    A line that another delimiter splits into the ``expected`` columns was written as CSV (or with
    semicolons, bars); a line starting with ``#`` is a comment; a ``first`` line (the file's first
    row) without a single number is a header.  TREC files have neither.  A line of one column that
    another delimiter splits (into another count) is named for that delimiter.  Returns ``""`` when
    none holds.  Judged by the line itself (nothing of the gold).
    """
    if text.lstrip().startswith("#"):
        return "; the line looks like a comment, but a TREC file has none: remove it"
    for delimiter, name in _DELIMITERS:
        split = text.split(delimiter)
        if len(split) == expected:
            if first and _float_or_none(split) is None:
                return (
                    "; the line looks like a header with its columns separated by %s, but a TREC file has no "
                    "header and separates its columns by spaces or tabs" % name
                )
            return "; the columns are separated by %s, but a TREC file separates them by spaces or tabs" % name
    fields = _ANY_SEPARATOR.split(text.strip())
    if first and fields and _float_or_none(fields) is None:
        return "; the line looks like a header, but a TREC file has none: start it with the first data line"
    if len(text.split()) == 1:
        for delimiter, name in _DELIMITERS:
            if len(text.split(delimiter)) > 1:
                return "; its fields are separated by %s, but a TREC file separates its %d columns by %s" % (
                    name,
                    expected,
                    "spaces or tabs",
                )
    return ""


def header_line(source, line, fields, numeric=(3, 4), columns=RUN_COLUMNS, kind="TREC run"):
    """The error for a first row whose ``numeric`` fields are none of them numbers (a header), else None.

    A TREC run (or qrels file) has no header: ``qid Q0 docid rank score run`` would otherwise be told
    that ``qid`` is no test query.  Judged by the row itself (nothing of the gold).
    """
    if _float_or_none([fields[i] for i in numeric]) is not None:
        return None
    return source.at(
        line,
        "looks like a header line (its %s %s), but a %s has no header; expected %s on every line: start the "
        "file with the first data line"
        % (
            " and ".join(_ORDINALS[i] for i in numeric),
            "columns are not numbers" if len(numeric) > 1 else "column is not a number",
            kind,
            columns,
        ),
    )


_ORDINALS = ("1st", "2nd", "3rd", "4th", "5th", "6th")


def _float_or_none(fields):
    """The first field that is a number, or None."""
    for field in fields:
        try:
            return float(field)
        except ValueError:
            continue
    return None


def add_query_docs(rows, q, pairs):
    """Add one query's ``(document id, score)`` pairs (a JSON run, scores checked) to ``rows``."""
    if pairs:
        _add_docs(
            rows,
            [q] * len(pairs),
            [float(v) for _, v in pairs],
            [d.encode("utf-8") for d, _ in pairs],
            [0] * len(pairs),
        )


# ---------------------------------------------------------------------------
# Duplicates, judged documents and ranks
# ---------------------------------------------------------------------------
def _sorted_keys(h):
    """The hashes with their low bits replaced by the row, sorted, and the mask of those bits."""
    bits = max(int(len(h)).bit_length(), 1)
    low = np.uint64((1 << bits) - 1)
    h &= ~low
    h |= np.arange(len(h), dtype=np.uint64)
    h.sort()
    return h, low


def _first_duplicate(keys, low, query, view, offset, length, line):
    """``(line, first line, row)`` of the first line that repeats a query's document, else None."""
    top = keys & ~low
    pairs = np.flatnonzero(top[1:] == top[:-1])
    if len(pairs) == 0:
        return None
    a, b = (keys[pairs] & low).astype(np.int64), (keys[pairs + 1] & low).astype(np.int64)
    true = (query[a] == query[b]) & _same(view, offset[a], length[a], view, offset[b], length[b])
    if not true.any():
        return None
    a, b = a[true], b[true]
    later = np.where(line[a] > line[b], a, b)
    earlier = np.where(line[a] > line[b], b, a)
    k = int(np.argmin(line[later]))
    return int(line[later[k]]), int(line[earlier[k]]), int(later[k])


def _gold_rows(values):
    """The judged documents of the encoded gold: ``(query, column, view, offset, length)``."""
    q, j = np.nonzero(values["grade"] > 0)
    docs = [d.encode("utf-8") for d in values["doc"][q, j].tolist()]
    length = np.array([len(d) for d in docs], dtype=np.int64)
    view = _word_view(b"".join(docs) + _PAD)
    return q.astype(np.int32), j, view, np.cumsum(length) - length, length


def encode_rows(rows, gold_values, n_queries, duplicate_error):
    """The encoded run (see :func:`~leaderboard_ci.tasks.ranking.files.run_array`) of the rows read.

    ``duplicate_error(line, first_line, document, query)`` makes the error
    for a document given twice for one query (``query``: its gold index).
    """
    query, score, offset, length, line, buffer = rows.arrays()
    m = gold_values.dtype["grade"].shape[0]
    out = np.zeros(n_queries, dtype=[("retrieved", np.int64), ("rank", np.int64, (m,))])
    if len(query) == 0:
        return out
    view = _word_view(buffer)
    keys, low = _sorted_keys(_hash(view, offset, length, query))
    duplicate = _first_duplicate(keys, low, query, view, offset, length, line)
    if duplicate is not None:
        row = duplicate[2]
        doc = buffer[offset[row] : offset[row] + length[row]].tobytes().decode("utf-8", "replace")
        raise duplicate_error(duplicate[0], duplicate[1], doc, int(query[row]))
    del line
    out["retrieved"] = np.bincount(query, minlength=n_queries)
    gq, gj, gview, goffset, glength = _gold_rows(gold_values)
    if len(gq) == 0:
        return out
    hit, g = _judged(keys, low, query, view, offset, length, gq, gview, goffset, glength)
    del keys
    if len(hit):
        out["rank"][gq[g], gj[g]] = _ranks(query, score, view, offset, length, hit)
    return out


def _judged(keys, low, query, view, offset, length, gq, gview, goffset, glength):
    """``(rows, gold rows)``: the run's rows that are judged documents, and which."""
    gh = _hash(gview, goffset, glength, gq) & ~low
    lo = np.searchsorted(keys, gh)
    hi = np.searchsorted(keys, gh | low, side="right")
    count = hi - lo
    g = np.repeat(np.arange(len(gh)), count)
    first = np.repeat(lo - (np.cumsum(count) - count), count)
    run = (keys[first + np.arange(len(g))] & low).astype(np.int64)
    exact = (query[run] == gq[g]) & _same(view, offset[run], length[run], gview, goffset[g], glength[g])
    return run[exact], g[exact]


def _ranks(query, score, view, offset, length, hit):
    """The rank of each row of ``hit`` among its query's rows: score descending, then document id descending."""
    keyed = np.empty(len(query), dtype=np.complex128)  # sorts by query, then score
    keyed.real = query
    keyed.imag = score
    ordered = np.sort(keyed)
    mine = keyed[hit]
    end = np.searchsorted(ordered, query[hit] + 0.5)
    right = np.searchsorted(ordered, mine, side="right")
    left = np.searchsorted(ordered, mine, side="left")
    del ordered
    ranks = 1 + end - right
    tied = np.flatnonzero(right - left > 1)
    if len(tied):
        ranks[tied] += _greater_among_ties(keyed, view, offset, length, hit[tied])
    return ranks


def _greater_among_ties(keyed, view, offset, length, targets):
    """For each target row, how many rows of its (query, score) have a greater document id."""
    levels = np.unique(keyed[targets])
    at = np.minimum(np.searchsorted(levels, keyed), len(levels) - 1)
    members = np.flatnonzero(levels[at] == keyed)
    group = at[members]
    order = _doc_order(group, view, offset[members], length[members])
    ranked = members[order]
    grouped = group[order]
    position = np.empty(len(keyed), dtype=np.int64)
    position[ranked] = np.arange(len(ranked)) - np.searchsorted(grouped, grouped)
    return position[targets]


def _doc_order(group, view, offset, length):
    """The order of rows by ``group`` ascending, then document id descending (byte order)."""
    order = np.lexsort((~_word(view, offset, length, 0), group))
    for k in range(1, _WORDS):
        o_off, o_len = offset[order], length[order]
        same = group[order][1:] == group[order][:-1]
        for i in range(k):
            w = _word(view, o_off, o_len, i)
            same &= w[1:] == w[:-1]
        if not same.any():
            return order
        run = np.cumsum(np.concatenate(([True], ~same))) - 1
        sub = np.flatnonzero(np.bincount(run)[run] > 1)
        if not (o_len[sub] > 8 * k).any():
            return order
        w = _word(view, o_off[sub], o_len[sub], k)
        order[sub] = order[sub][np.lexsort((~w, run[sub]))]
    raw = view.base
    docs = [bytes(raw[o : o + n]) for o, n in zip(offset.tolist(), length.tolist())]
    by_doc = sorted(range(len(group)), key=docs.__getitem__, reverse=True)
    return np.array(by_doc, dtype=np.int64)[np.argsort(group[by_doc], kind="stable")]


# ---------------------------------------------------------------------------
# Shared with the other readers of long text files (the forecasting task's CSV files)
# ---------------------------------------------------------------------------
#: Every 8 bytes of a padded buffer as big-endian words (see :func:`_word_view`).
word_view = _word_view
#: ``(values, bad)`` of number tokens (see :func:`_scores`).
parse_numbers = _scores
#: 64-bit hashes of tokens (see :func:`_hash`) and their byte-by-byte comparison (:func:`_same`).
hash_tokens = _hash
same_tokens = _same
