"""Text files of predictions and gold labels: how they are named in messages, decoded and split into lines.

:class:`Source` is a file being read and the error it raises (the participant's
:class:`~leaderboard_ci.scoring.errors.SubmissionError` or the organizer's
:class:`~leaderboard_ci.scoring.errors.ConfigError`), :class:`Columns` the
columns a file may have, :class:`Table` its rows; :func:`iter_lines` streams a
file as numbered lines, decoded chunk by chunk (UTF-8 with or without a BOM,
UTF-16 with one; ``\\n``, ``\\r\\n`` or ``\\r`` line ends).  The formats
themselves are in :mod:`leaderboard_ci.scoring.formats`.  Standard library
only (Python 3.7).
"""
import codecs
import io
import os
import re

from .errors import SubmissionError

__all__ = ["Source", "Columns", "Table", "quote", "list_names", "iter_lines", "sniff_encoding", "without_blank_lines"]

_CHUNK = 1 << 20  # bytes decoded at a time
_SNIFF = 4096  # bytes looked at to recognize the encoding or a binary file
_NEWLINE = re.compile(r"\r\n|\r|\n")
_DECODERS = {
    "UTF-8": codecs.utf_8_decode,
    "UTF-16-LE": codecs.utf_16_le_decode,
    "UTF-16-BE": codecs.utf_16_be_decode,
}
_MAGIC = (
    (b"PK\x03\x04", "a zip archive (or an Excel .xlsx file)"),
    (b"\xd0\xcf\x11\xe0", "an Excel or Word file"),
    (b"%PDF", "a PDF file"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"\x89PNG", "a PNG image"),
)


def quote(value, limit=40):
    """``value`` in quotes for a message, shortened to ``limit`` characters."""
    text = str(value)
    if len(text) > limit:
        text = text[:limit] + "..."
    return repr(text)


def list_names(values, limit=8):
    """Up to ``limit`` names joined by commas, with a count of the rest."""
    values = [str(v) if len(str(v)) <= 40 else str(v)[:40] + "..." for v in values]
    shown = ", ".join(values[:limit])
    if len(values) > limit:
        shown += " and %d more" % (len(values) - limit)
    return shown


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
    def extension(self):
        return os.path.splitext(self.name)[1].lower()

    def at(self, line, message):
        """The error ``NAME line N: message``."""
        return self.error("%s line %d: %s" % (self.name, line, message))

    def whole(self, message):
        """The error ``NAME message`` about the whole file (``message`` starts with a verb)."""
        return self.error("%s %s" % (self.name, message))


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
    """

    def __init__(self, values, id=None, id_required=False, group=None, looks_like_data=None):
        self.values = tuple(values)
        self.id = id
        self.id_required = bool(id_required and id is not None)
        self.group = group
        self.looks_like_data = looks_like_data

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
    """The rows of a parsed file.

    Attributes
    ----------
    rows : iterator of tuple
        ``(line, id, value, group)``: strings, stripped; ``id`` and ``group``
        are None when the file has no such column.
    format : str
        One of ``lines``, ``csv``, ``tsv``, ``json``, ``jsonl``.
    has_ids : bool
        Whether every row carries an id.
    has_groups : bool
        Whether every row carries a group value.
    """

    def __init__(self, rows, format, has_ids=False, has_groups=False):
        self.rows = rows
        self.format = format
        self.has_ids = has_ids
        self.has_groups = has_groups


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
    byte-order mark.
    """
    if head.startswith(codecs.BOM_UTF8):
        return "UTF-8", 3
    if head.startswith(codecs.BOM_UTF32_LE) or head.startswith(codecs.BOM_UTF32_BE):
        raise source.whole("is UTF-32 text; save it as UTF-8")
    if head.startswith(codecs.BOM_UTF16_LE):
        return "UTF-16-LE", 2
    if head.startswith(codecs.BOM_UTF16_BE):
        return "UTF-16-BE", 2
    for magic, what in _MAGIC:
        if head.startswith(magic):
            raise source.whole("is %s, not a text file of predictions; put the text file itself "
                               "at the top of your zip" % what)
    if b"\x00" in head:
        if _looks_like_utf16(head):
            raise source.whole("is UTF-16 text without a byte-order mark; save it as UTF-8")
        raise source.whole("is a binary file, not a text file of predictions")
    sample = head[:_SNIFF]
    controls = sum(sample.count(bytes([c])) for c in range(32) if c not in (9, 10, 12, 13))
    if sample and controls > 0.05 * len(sample):
        raise source.whole("is a binary file, not a text file of predictions")
    return "UTF-8", 0


def _decode_failure(source, encoding, exc, data, pending, lineno):
    """The error for bytes that do not decode, naming the byte and its line."""
    decode = _DECODERS[encoding]
    before = pending + decode(data[:exc.start], "replace", True)[0]
    line = lineno + len(_NEWLINE.findall(before))
    if encoding == "UTF-8":
        return source.whole("is not UTF-8 text (byte 0x%02x at line %d); save it as UTF-8"
                            % (data[exc.start], line))
    return source.whole("is not valid UTF-16 text (at line %d); save it as UTF-8" % line)


def _blocks(handle):
    """The file's blocks of bytes from the current position, then one empty block to mark the end."""
    block = handle.read(_CHUNK)
    while block:
        yield block
        block = handle.read(_CHUNK)
    yield b""


def iter_lines(source):
    """Yield ``(line_number, text)`` for each line of the file, without line ends.

    Decodes block by block, so memory stays bounded by the longest line, and
    raises the source's error for binary or undecodable content.
    """
    with io.open(source.path, "rb") as handle:
        encoding, bom = sniff_encoding(source, handle.read(_SNIFF))
        handle.seek(bom)
        decode = _DECODERS[encoding]
        carry = b""  # undecoded bytes of a character cut by the block end
        pending = []  # pieces of the line not finished yet
        hold = ""  # a \r at the block end: maybe the first half of \r\n
        lineno = 1
        for block in _blocks(handle):
            final = not block
            data = carry + block
            try:
                text, used = decode(data, "strict", final)
            except UnicodeDecodeError as exc:
                raise _decode_failure(source, encoding, exc, data, "".join(pending) + hold, lineno)
            carry = data[used:]
            if "\x00" in text:
                raise source.whole("is a binary file, not a text file of predictions")
            text, hold = hold + text, ""
            if not final and text.endswith("\r"):
                text, hold = text[:-1], "\r"
            parts = _NEWLINE.split(text)
            if len(parts) == 1:
                pending.append(text)
                continue
            parts[0] = "".join(pending) + parts[0]
            pending = [parts.pop()]
            for part in parts:
                yield lineno, part
                lineno += 1
        last = "".join(pending)
        if last:
            yield lineno, last


def without_blank_lines(source, lines):
    """Yield the non-blank lines; a blank line followed by more data is an error."""
    blank = None
    for lineno, text in lines:
        if not text.strip():
            if blank is None:
                blank = lineno
            continue
        if blank is not None:
            raise source.at(blank, "the line is blank; remove blank lines (only trailing blank lines "
                                   "are allowed)")
        yield lineno, text
