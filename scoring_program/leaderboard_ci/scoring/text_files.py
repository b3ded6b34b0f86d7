"""Text files of predictions and gold labels: how they are named in messages, decoded and split into lines.

:class:`Source` is a file being read and the error it raises (the participant's
:class:`~leaderboard_ci.scoring.errors.SubmissionError` or the organizer's
:class:`~leaderboard_ci.scoring.errors.ConfigError`), :class:`Columns` the
columns a file may have, :class:`Table` its rows; :func:`iter_lines` streams a
file as numbered lines, decoded chunk by chunk (UTF-8 with or without a BOM,
UTF-16 with one; ``\\n``, ``\\r\\n``, ``\\r\\r\\n`` or ``\\r`` line ends, the last only in a file
whose first line end is one: elsewhere a ``\\r`` alone is text inside its line, as sacrebleu reads it).  The formats
themselves are in :mod:`leaderboard_ci.scoring.formats`.

Everything a message echoes from a participant's file (a file name, a header,
a cell) goes through :func:`escape` / :func:`quote` / :func:`list_names`: one
rule, here, that makes control characters, byte-order marks, zero-width and
other invisible characters visible (``\\x1b``, ``\\ufeff``) and shortens long
text, so that a message is always one readable line.  Standard library only
(Python 3.7).
"""

import codecs
import io
import itertools
import os
import re
import unicodedata

from .errors import SubmissionError

__all__ = [
    "Source",
    "Columns",
    "Table",
    "escape",
    "quote",
    "list_names",
    "one_line",
    "iter_blocks",
    "iter_lines",
    "iter_line_lists",
    "iter_line_texts",
    "TextFile",
    "sniff_encoding",
    "without_blank_lines",
    "find_name",
    "names_a_column",
    "per_class_columns",
    "MAX_LINE_CHARS",
]

_CHUNK = 1 << 20  # bytes decoded at a time
_SNIFF = 4096  # bytes looked at to recognize the encoding or a binary file
#: A line end: ``\\n`` after any number of ``\\r`` (``\\r\\r\\n`` is what Python's csv writer
#: writes on Windows without ``newline=''``), or a ``\\r`` alone.
_NEWLINE = re.compile(r"\r*\n|\r")
#: A line end in a file whose lines end in ``\\n`` (or ``\\r\\n``): there a ``\\r`` alone is text, not a line end.
_LF_NEWLINE = re.compile(r"\r*\n")
#: The longest line read as CSV, TSV or one value per line (a JSON document may be one line).
MAX_LINE_CHARS = 1 << 22
_BOM = "\ufeff"
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: Unicode categories shown escaped: controls, format characters (BOM, zero-width, bidi),
#: surrogates, private use, unassigned, line and paragraph separators.
_INVISIBLE = frozenset(("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"))
_DECODERS = {"UTF-8": codecs.utf_8_decode, "UTF-16-LE": codecs.utf_16_le_decode, "UTF-16-BE": codecs.utf_16_be_decode}
_MAGIC = (
    (b"PK\x03\x04", "a zip archive (or an Excel .xlsx file)"),
    (b"\xd0\xcf\x11\xe0", "an Excel or Word file"),
    (b"%PDF", "a PDF file"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"\x89PNG", "a PNG image"),
)


def _visible(ch):
    if ch == " " or not (ch.isspace() or unicodedata.category(ch) in _INVISIBLE):
        return ch
    code = ord(ch)
    if ch in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[ch]
    if code < 0x100:
        return "\\x%02x" % code
    return "\\u%04x" % code if code < 0x10000 else "\\U%08x" % code


def escape(value, limit=40):
    """``value`` as shown in a message: invisible characters made visible, cut to ``limit`` characters.

    Control characters (newlines, tabs, terminal escapes), byte-order marks,
    zero-width and bidirectional marks, surrogates and other characters that
    print as nothing are written as ``\\xNN`` / ``\\uNNNN``; a backslash stays
    a backslash.  Text longer than ``limit`` ends with ``...``.  The result is
    always one line.
    """
    text = value if isinstance(value, str) else str(value)
    cut = len(text) > limit
    if cut:
        text = text[:limit]
    if not text.isprintable():  # False for every character of the _INVISIBLE categories
        text = "".join(_visible(ch) for ch in text)
    return text + "..." if cut else text


def quote(value, limit=40):
    """``value`` in quotes for a message, escaped and shortened (see :func:`escape`)."""
    text = escape(value, limit)
    if "'" in text and '"' not in text:
        return '"%s"' % text
    return "'%s'" % text.replace("'", "\\'")


def list_names(values, limit=8):
    """Up to ``limit`` names (escaped, each shortened) joined by commas, with a count of the rest."""
    values = list(values)
    shown = ", ".join(escape(v) for v in values[:limit])
    if len(values) > limit:
        shown += " and %d more" % (len(values) - limit)
    return shown


def one_line(message, limit=2000):
    """A message as one line on stderr: anything invisible escaped, at most ``limit`` characters.

    The last guard of the adapter: the messages are built from escaped
    pieces already; this catches a piece that was not.
    """
    return escape(message, limit)


class Source(object):
    """A file being read, and how to report its problems.

    Parameters
    ----------
    path : str
        Where the file is.
    name : str
        How messages name it (``predictions.csv``, ``sub/predictions.csv``,
        ``ref/gold.csv``), never an absolute path.
    error : type
        The exception class raised for its problems.
    may_quote : bool
        Whether messages may quote the file's content.  False for the gold
        standard, whose values must never be printed.
    """

    def __init__(self, path, name, error=SubmissionError, may_quote=True):
        self.path = path
        self.name = name
        self.error = error
        self.may_quote = may_quote

    @property
    def shown(self):
        """The name as messages print it (escaped, shortened in the middle when long)."""
        name = self.name
        if len(name) > 80:
            name = name[:38] + "..." + name[-38:]
        return escape(name, 200)

    @property
    def extension(self):
        return os.path.splitext(self.name)[1].lower()

    def at(self, line, message):
        """The error ``NAME line N: message``."""
        return self.error("%s line %d: %s" % (self.shown, line, message))

    def whole(self, message):
        """The error ``NAME message`` about the whole file (``message`` starts with a verb)."""
        return self.error("%s %s" % (self.shown, message))


class Columns(object):
    """The columns (or JSON keys) a file must or may have.

    Parameters
    ----------
    values : sequence of str
        Accepted names of the value column, in order of preference.
    id : str, optional
        The id column's name; None when ids are not used.
    id_required : bool
        Whether a file with a header (or JSON objects) must have the id column.
    group : str, optional
        A column every row must have (the gold standard's group column).
    looks_like_data : callable, optional
        ``looks_like_data(fields) -> bool``: whether a first line that lacks
        the expected columns is really a data row (a missing header).
    is_value : callable, optional
        ``is_value(text) -> bool``: whether a header field is a value of the
        task (a class label, a number); recognizes a header with one column
        per class (a file of class probabilities).
    what : str
        What the value column holds, for messages: ``"prediction"`` (a
        submission), ``"gold"`` (the gold standard).
    """

    def __init__(
        self, values, id=None, id_required=False, group=None, looks_like_data=None, is_value=None, what="prediction"
    ):
        self.values = tuple(values)
        self.id = id
        self.id_required = bool(id_required and id is not None)
        self.group = group
        self.looks_like_data = looks_like_data
        self.is_value = is_value
        self.what = what

    def expected(self):
        """The names a file should use: the id (when required) and the preferred value name."""
        return ([self.id] if self.id_required else []) + [self.values[0]]

    def example(self):
        """A JSON object with the expected keys, e.g. ``{"id": ..., "label": ...}``."""
        return "{%s}" % ", ".join('"%s": ...' % name for name in self.expected())

    def describe_header(self, delimiter):
        """The expected header line for a message, e.g. ``'id,label'``."""
        text = quote(delimiter.join(self.expected()), limit=200)
        return text if delimiter != "\t" else "%s (columns separated by a tab)" % text


class Table(object):
    """The rows of a parsed file, one at a time or in batches.

    Attributes
    ----------
    rows : iterator of tuple
        ``(line, id, value, group)``: strings, stripped; ``id`` and ``group``
        are None when the file has no such column.
    batches : iterator of tuple
        The same rows as ``(lines, ids, values, groups)``: a sequence of line
        numbers (a ``range`` for consecutive lines) and lists of strings
        (``ids`` / ``groups`` None when the file has no such column).  A
        problem found while reading comes after the batch of the rows before
        it, so a reader that checks each batch in order says what a reader of
        single rows says.  Read ``rows`` or ``batches``, not both.
    format : str
        One of ``lines``, ``csv``, ``tsv``, ``json``, ``jsonl``.
    has_ids : bool
        Whether every row carries an id.
    has_groups : bool
        Whether every row carries a group value.
    """

    def __init__(self, rows, format, has_ids=False, has_groups=False, batches=None):
        if rows is None:
            rows = _batch_rows(batches)
        if batches is None:
            batches = _row_batches(rows, has_ids, has_groups)
        self.rows = rows
        self.batches = batches
        self.format = format
        self.has_ids = has_ids
        self.has_groups = has_groups


#: Rows per batch made from single rows (JSON, JSON Lines, one value per line): the first batch has
#: ``FIRST_BATCH_ROWS``, each next one twice as many, up to ``BATCH_ROWS``, so that a reader stopping
#: early (an unknown id on row 541) has parsed at most about twice the rows it needed.
BATCH_ROWS = 1 << 16
FIRST_BATCH_ROWS = 256


def _batch_rows(batches):
    for lines, ids, values, groups in batches:
        for k, line in enumerate(lines):
            yield (line, ids[k] if ids is not None else None, values[k], groups[k] if groups is not None else None)


def _row_batches(rows, has_ids, has_groups):
    """Rows in growing batches (up to ``BATCH_ROWS``); a problem found while reading comes after the rows before it."""
    rows = iter(rows)
    size = min(FIRST_BATCH_ROWS, BATCH_ROWS)
    while True:
        lines, ids, values, groups = [], [], [], []
        problem = None
        try:
            for line, ident, value, group in itertools.islice(rows, size):
                lines.append(line)
                ids.append(ident)
                values.append(value)
                groups.append(group)
        except Exception as exc:  # re-raised once the rows before it are used
            problem = exc
        if lines:
            yield lines, ids if has_ids else None, values, groups if has_groups else None
        if problem is not None:
            raise problem
        if len(lines) < size:
            return
        size = min(2 * size, BATCH_ROWS)


# ---------------------------------------------------------------------------
# Headers
# ---------------------------------------------------------------------------
def find_name(names, wanted):
    """Index of ``wanted`` in ``names``: exact match first, then ignoring case; else None."""
    if wanted in names:
        return names.index(wanted)
    folded = [name.casefold() for name in names]
    if wanted.casefold() in folded:
        return folded.index(wanted.casefold())
    return None


def names_a_column(fields, columns):
    wanted = ([columns.id] if columns.id else []) + list(columns.values)
    return any(find_name(fields, name) is not None for name in wanted)


def per_class_columns(fields, columns):
    """The value columns of a header with one column per class (``id,0,1,...,9``), else None.

    That is what a file of class probabilities (or scores) looks like: the id,
    then two or more distinct columns each named like a value of the task.
    """
    if columns.is_value is None:
        return None
    ident = find_name(fields, columns.id) if columns.id else None
    others = [f for i, f in enumerate(fields) if i != ident]
    if len(others) < (2 if ident is not None else 3) or len(set(others)) != len(others):
        return None
    if not all(columns.is_value(f) for f in others):
        return None
    return others


# ---------------------------------------------------------------------------
# Decoding
# ---------------------------------------------------------------------------
def _looks_like_utf16(head):
    """Whether ``head`` is UTF-16 text without a byte-order mark (NULs at every other byte)."""
    sample = head[:_SNIFF]
    half = len(sample) // 2
    if half < 2:
        return False
    even = sample[0::2].count(0)
    odd = sample[1::2].count(0)
    return max(even, odd) > 0.4 * half and min(even, odd) < 0.05 * half


def sniff_encoding(source, head):
    """Return ``(encoding, bom_length)`` from the first bytes of a file.

    Raises the source's error for binary files and for UTF-16 without a
    byte-order mark.  A stray NUL in an otherwise text file is left for
    :func:`iter_lines`, which names its line.
    """
    if head.startswith(codecs.BOM_UTF8):
        return "UTF-8", 3
    if head.startswith(codecs.BOM_UTF32_LE) or head.startswith(codecs.BOM_UTF32_BE):
        raise source.whole("is UTF-32 text; save it as UTF-8")
    if head.startswith(codecs.BOM_UTF16_LE):
        return "UTF-16-LE", 2
    if head.startswith(codecs.BOM_UTF16_BE):
        return "UTF-16-BE", 2
    participant = source.error is SubmissionError  # the gold is not "predictions", nor in "your zip"
    for magic, what in _MAGIC:
        if head.startswith(magic):
            raise source.whole(
                "is %s, not a text file of predictions; put the text file itself at the top of your zip" % what
                if participant
                else "is %s, not a text file; put the text file itself in the reference data" % what
            )
    sample = head[:_SNIFF]
    if b"\x00" in sample and _looks_like_utf16(head):
        raise source.whole("is UTF-16 text without a byte-order mark; save it as UTF-8")
    controls = sum(sample.count(bytes([c])) for c in range(32) if c not in (9, 10, 12, 13))
    if sample and controls > max(0.05 * len(sample), 3):  # a short text with a stray control is read as text
        raise source.whole("is a binary file, not a text file%s" % (" of predictions" if participant else ""))
    return "UTF-8", 0


def _decode_failure(source, encoding, bom, position, byte):
    """The error for bytes that do not decode, naming the byte and its line (found by reading up to it again)."""
    decode = _DECODERS[encoding]
    line, tail = 1, ""
    with io.open(source.path, "rb") as handle:
        handle.seek(bom)
        left = position - bom
        while left > 0:
            data = handle.read(min(_CHUNK, left))
            if not data:
                break
            left -= len(data)
            text = decode(data, "replace", False)[0]
            line += _count_ends(tail + text) - _count_ends(tail)
            tail = text[-1:]
    if encoding == "UTF-8":
        return source.whole("is not UTF-8 text (byte 0x%02x at line %d); save it as UTF-8" % (byte, line))
    return source.whole("is not valid UTF-16 text (at line %d); save it as UTF-8" % line)


def _cr_ends(text, decided=None):
    """Whether a ``\\r`` alone ends a line: decided by the first text holding a line end (``decided`` once known).

    Only a file whose first line end is a ``\\r`` alone (a classic Mac file) has them; in a file of ``\\n`` or
    ``\\r\\n`` line ends a lone ``\\r`` is text inside its line.  None while no line end was seen.
    """
    if decided is not None or ("\n" not in text and "\r" not in text):
        return decided
    return _NEWLINE.search(text).group() == "\r"


def _count_ends(text, cr_ends=True):
    """How many line ends ``text`` holds (see ``_NEWLINE``), without a Python loop over lines."""
    if "\r" not in text or cr_ends is False:
        return text.count("\n")
    for _ in range(4):
        if "\r\n" not in text:
            return text.count("\n") + text.count("\r")
        text = text.replace("\r\n", "\n")
    return len(_NEWLINE.findall(text))


def _normalized(text, cr_ends=True):
    """``text`` with every line end (see ``_NEWLINE``) written ``\\n``, with ``str.replace``.

    The regular expression costs about 0.35 us per line, ``str.replace`` a
    tenth of that.  Each ``\\r\\n`` pass folds one ``\\r`` of every ``\\r...\\r\\n`` run
    into its ``\\n``; the lone ``\\r`` left are line ends (text, when ``cr_ends`` is False: see
    :func:`_cr_ends`).  After four passes (a run of five ``\\r`` before a ``\\n``) the expression decides.
    """
    if "\r" not in text:
        return text
    for _ in range(4):
        if "\r\n" not in text:
            return text if cr_ends is False else text.replace("\r", "\n")
        text = text.replace("\r\n", "\n")
    return "\n".join((_LF_NEWLINE if cr_ends is False else _NEWLINE).split(text))


def _split_lines(text):
    """``text`` split at its line ends: ``_NEWLINE.split(text)``, ten times faster."""
    return _normalized(text).split("\n")


def _blocks(handle):
    """The file's blocks of bytes from the current position, then one empty block to mark the end."""
    block = handle.read(_CHUNK)
    while block:
        yield block
        block = handle.read(_CHUNK)
    yield b""


def iter_blocks(source):
    """Yield ``(text, final)``: the file decoded block by block (about 1 MB each).

    Checks the encoding (:func:`sniff_encoding`) and every byte; the
    byte-order mark, and any more of them that a producer wrote on top of
    the first (a doubled BOM), are dropped.  ``final`` is True for the last
    block (which may be empty).
    """
    with io.open(source.path, "rb") as handle:
        encoding, bom = sniff_encoding(source, handle.read(_SNIFF))
        handle.seek(bom)
        decode = _DECODERS[encoding]
        carry = b""  # undecoded bytes of a character cut by the block end
        start = True
        offset = bom  # where data starts in the file
        for block in _blocks(handle):
            final = not block
            data = carry + block
            try:
                text, used = decode(data, "strict", final)
            except UnicodeDecodeError as exc:
                raise _decode_failure(source, encoding, bom, offset + exc.start, data[exc.start])
            carry = data[used:]
            offset += used
            if start:
                stripped = text.lstrip(_BOM)
                if stripped or final:
                    start = False
                text = stripped
            yield text, final


def _line_blocks(source):
    """Yield ``(text, final)``: the blocks of :func:`iter_blocks` with every line end written ``\\n``.

    The one prelude of the block readers (:func:`iter_line_texts` and :meth:`TextFile.chunks`): a
    ``\\r`` at a block's end waits for the next block (it may start ``\\r\\n`` or ``\\r\\r\\n``);
    whether a lone ``\\r`` ends a line is decided by the file's first line end (:func:`_cr_ends`);
    a NUL byte raises the source's error naming its line (:func:`_nul_error`).
    """
    hold = ""  # \r at the block end: maybe the start of \r\n or \r\r\n
    lineno = 1  # the line the block starts in
    cr_ends = None  # whether a lone \r ends a line: decided by the first line end (see _cr_ends)
    for text, final in iter_blocks(source):
        text, hold = hold + text, ""
        if not final:
            kept = text.rstrip("\r")
            text, hold = kept, text[len(kept) :]
        cr_ends = _cr_ends(text, cr_ends)
        if "\x00" in text:
            raise _nul_error(source, lineno + _count_ends(text[: text.index("\x00")], cr_ends))
        text = _normalized(text, cr_ends)
        lineno += text.count("\n")
        yield text, final


def _nul_error(source, lineno):
    """The one sentence for a NUL byte, at line ``lineno``."""
    return source.at(
        lineno,
        "the line holds a NUL byte (\\x00), which a text file of "
        "predictions cannot contain; save the file as plain UTF-8 text",
    )


def iter_line_texts(source, max_chars=MAX_LINE_CHARS):
    """Yield ``(first_line_number, text, count)``: ``count`` whole lines joined by ``\\n``, a block at a time.

    Decodes block by block (:func:`iter_blocks`), so memory stays bounded by
    the longest line, which may have at most ``max_chars`` characters (None:
    no limit).  Every line end is written ``\\n``.  A block of nothing but blank
    lines (trailing blank lines, say) comes as a single blank line, and the
    line numbers after it stay exact.  A NUL byte raises the source's error
    naming its line.  Readers that go line by line use :func:`iter_lines`;
    the CSV reader takes the blocks whole (:func:`iter_line_lists`), or
    splits a block of plain rows at once.
    """
    pending = []  # pieces of the line not finished yet
    pending_chars = 0
    lineno = 1
    last_blank = False
    for text, _ in _line_blocks(source):
        if text and not text.strip() and (not pending or not "".join(pending).strip()):
            ends = text.count("\n")  # a block of blank lines: one Python step, not one per line
            if ends:
                if not last_blank:
                    yield lineno, "", 1
                    last_blank = True
                lineno += ends
                pending, pending_chars = [], 0
            continue
        cut = text.rfind("\n")
        if cut < 0:
            pending.append(text)
            pending_chars += len(text)
            if max_chars is not None and pending_chars > max_chars:
                raise _long_line(source, lineno, max_chars)
            continue
        whole = "".join(pending) + text[:cut] if pending else text[:cut]
        last = text[cut + 1 :]
        pending, pending_chars = [last], len(last)
        if max_chars is not None and len(whole) > max_chars:
            lengths = [len(part) for part in whole.split("\n")]
            if max(lengths) > max_chars:
                index = next(k for k, length in enumerate(lengths) if length > max_chars)
                raise _long_line(source, lineno + index, max_chars)
        count = whole.count("\n") + 1
        yield lineno, whole, count
        last_blank = not whole[whole.rfind("\n") + 1 :].strip()
        lineno += count
    last = "".join(pending)
    if last:
        if max_chars is not None and len(last) > max_chars:
            raise _long_line(source, lineno, max_chars)
        yield lineno, last, 1


def iter_line_lists(source, max_chars=MAX_LINE_CHARS):
    """Yield ``(first_line_number, lines)``: the file's lines, without line ends, a block at a time.

    The blocks of :func:`iter_line_texts`, split into lines.
    """
    for lineno, text, _ in iter_line_texts(source, max_chars):
        yield lineno, text.split("\n")


def iter_lines(source, max_chars=MAX_LINE_CHARS):
    """Yield ``(line_number, text)`` for each line of the file, without line ends (see :func:`iter_line_lists`)."""
    for first, lines in iter_line_lists(source, max_chars):
        for lineno, text in enumerate(lines, first):
            yield lineno, text


def _long_line(source, lineno, max_chars):
    return source.at(
        lineno,
        "the line is longer than {:,} characters, more than a line of predictions "
        "can be; check the line ends and the quotes".format(max_chars),
    )


def without_blank_lines(source, lines):
    """Yield the non-blank lines; a blank line followed by more data is an error."""
    blank = None
    for lineno, text in lines:
        if not text.strip():
            if blank is None:
                blank = lineno
            continue
        if blank is not None:
            raise source.at(blank, "the line is blank; remove blank lines (only trailing blank lines are allowed)")
        yield lineno, text


class TextFile(object):
    """A text file that a task's own reader takes as lines, as blocks of lines, as chunks or as one document.

    Iterating gives ``(line number, text)`` like :func:`iter_lines` (lines of
    at most ``max_chars`` characters); :meth:`blocks` gives the blocks of
    :func:`iter_line_texts`; :meth:`chunks` the decoded file in pieces of about
    1 MB, for a reader that streams one long document; :meth:`text` the whole decoded file, every line end
    written ``\\n``, with no limit on a line (a JSON document may be one line;
    the file's size is limited before reading).  :meth:`starts_with` looks at
    the first character that is not whitespace.
    """

    def __init__(self, source, max_chars=MAX_LINE_CHARS):
        self.source = source
        self.max_chars = max_chars

    def __iter__(self):
        return iter_lines(self.source, self.max_chars)

    def blocks(self):
        return iter_line_texts(self.source, self.max_chars)

    def chunks(self):
        """Yield ``(text, final)``: the decoded file about 1 MB at a time, with no limit on a line.

        For a document read as a stream (a minified JSON list of millions of
        records is one line): every line end is written ``\\n`` (a ``\\r`` at a
        chunk's end waits for the next chunk), and a NUL byte is an error naming its line.
        """
        return _line_blocks(self.source)

    def source_size(self):
        """The file's size in bytes."""
        return os.path.getsize(self.source.path)

    def first_character(self):
        """The first character that is not whitespace ('' for a blank file)."""
        for text, _ in iter_blocks(self.source):
            stripped = text.lstrip()
            if stripped:
                return stripped[0]
        return ""

    def text(self):
        """The whole file as one string (see the class); a NUL byte is an error naming its line."""
        return "".join(text for text, _ in self.chunks())
