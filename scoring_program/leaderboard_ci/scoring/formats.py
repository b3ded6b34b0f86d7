"""Text files of predictions and gold labels: formats and rows.

A file is streamed, never read whole: :func:`~leaderboard_ci.scoring.text_files.iter_lines`
decodes it block by block and yields numbered lines, a JSON document is read
value by value from the decoded blocks (:class:`_JsonStream`), and
:func:`open_table` turns either into a :class:`Table`, whose rows are
``(line, id, value, group)`` tuples of stripped strings, produced lazily:
whoever reads them stops as soon as the answer is known (too many rows, a bad
line).  Nothing here knows the gold standard: alignment and the checks of
values are in :mod:`leaderboard_ci.scoring.readers`.

Encodings: UTF-8 with or without a byte-order mark, and UTF-16 with one; line
ends ``\\n``, ``\\r\\n``, ``\\r\\r\\n`` or ``\\r``.  Formats: one value per line (no
header), CSV / TSV with a header row, a JSON document and JSON Lines.  A JSON
document may be a list of objects or of values, an object mapping ids to
values, one of those inside a wrapper object (``{"predictions": [...]}``), or
what pandas' ``DataFrame.to_json`` writes with ``orient`` ``records``,
``split``, ``index``, ``columns`` or ``table``.

Every problem raises the error class of the :class:`Source` (the
participant's :class:`~leaderboard_ci.scoring.errors.SubmissionError`, or the
organizer's :class:`~leaderboard_ci.scoring.errors.ConfigError`) with one sentence
naming the file and line; whatever the parsers raise (``csv.Error``,
``RecursionError`` for deep nesting, Python's limit on integer digits) is
turned into such a sentence here.  CSV and TSV rows come in blocks
(:attr:`Table.batches`): a block of plain rows is split at once
(:func:`_plain_fields`, numpy counting the delimiters), any other goes
through :mod:`csv` row by row.  The standard library and numpy only: this
module is on the per-submission path, which must run on Python 3.7.
"""

import csv
import itertools
import operator
import re

import numpy as np

from ..tasks.shared import json_documents
from ..tasks.shared.header_rows import DATA_NOT_HEADER, FOLLOWING_ROWS, first_row_is_data
from .errors import data_not_header
from .json_tables import json_table, jsonl_table
from .text_files import (
    Columns,
    Source,
    Table,
    iter_blocks,
    iter_line_texts,
    iter_lines,
    list_names,
    quote,
    without_blank_lines,
)
from .text_files import find_name as _find
from .text_files import names_a_column as _names_a_column
from .text_files import per_class_columns as _per_class

__all__ = [
    "Source",
    "Columns",
    "Table",
    "FORMAT_NAMES",
    "quote",
    "list_names",
    "iter_lines",
    "open_table",
    "has_columns",
    "own_rows_test",
]

_EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl"}
_DELIMITERS = {"csv": ",", "tsv": "\t"}
_DELIMITER_NAMES = {",": "commas (',')", "\t": "tabs", ";": "semicolons (';')", "|": "vertical bars ('|')"}
#: How messages name each format.
FORMAT_NAMES = {"csv": "CSV", "tsv": "TSV", "json": "JSON", "jsonl": "JSON Lines", "lines": "one value per line"}
#: Characters of the first line looked at to choose a format.
_HEAD_CHARS = 1 << 16


# ---------------------------------------------------------------------------
# Choosing the format
# ---------------------------------------------------------------------------
def _split(line, delimiter):
    try:
        return [field.strip() for field in next(csv.reader([line], delimiter=delimiter, skipinitialspace=True))]
    except (csv.Error, StopIteration):
        return [line]


def _per_class_error(source, line, others, columns, delimiter):
    return source.at(
        line,
        "the header has one column per class (%s), as a file of class probabilities or "
        "scores has; this competition expects one prediction per item: the header %s and "
        "the predicted value on each line" % (list_names(others, 4), columns.describe_header(delimiter)),
    )


def _sniff_format(first, columns):
    """The format of a file whose extension does not tell, from (the start of) its first line."""
    line = first.strip()
    if line.startswith("{"):
        try:
            return "jsonl" if isinstance(json_documents.loads(line), dict) else "json"
        except (ValueError, RecursionError):
            return "json"  # an object over several lines (or a long one)
    if (
        line == "["
        or line.startswith("[{")
        or line.startswith('["')
        or line.startswith("[[")
        or (line.startswith("[") and (line.endswith("]") or len(first) >= _HEAD_CHARS) and "," in line)
    ):
        return "json"
    for delimiter in ("\t", ",", ";", "|"):
        if delimiter in line:
            fields = _split(line, delimiter)
            if _names_a_column(fields, columns) or _per_class(fields, columns):
                return "tsv" if delimiter == "\t" else "csv"  # ';' and '|' are then reported as wrong
    if any(_find([line], name) is not None for name in columns.values):
        if columns.looks_like_data is None or not columns.looks_like_data([line]):
            return "csv"  # one column under a header
    return "lines"


def _format_from_name(source, configured):
    """The configured format, else the one the file's extension names, else None."""
    if configured != "auto":
        return configured
    return _EXTENSIONS.get(source.extension)


def _head_line(source):
    """The start (up to ``_HEAD_CHARS``) of the file's first line, or None for a file without text."""
    text = ""
    for block, _final in iter_blocks(source):
        if "\x00" in block:  # iter_lines will name the line
            return text + block[: block.index("\x00")] or "\x00"
        text += block
        end = min((i for i in (text.find("\n"), text.find("\r")) if i >= 0), default=-1)
        if end >= 0:
            return text[:end]
        if len(text) >= _HEAD_CHARS:
            return text[:_HEAD_CHARS]
    return text if text else None


def has_columns(source, columns):
    """Whether a file's first line names the expected columns (a CSV/TSV header, or JSON keys).

    Reads at most the first ``_HEAD_CHARS`` characters; a file that cannot be
    read has no columns.
    """
    try:
        head = _head_line(source)
    except (source.error, IOError, OSError):
        return False
    if not head:
        return False
    wanted = [columns.values] + ([(columns.id,)] if columns.id_required else [])
    line = head.strip()
    if line.startswith(("{", "[")):
        folded = line.casefold()
        return all(any('"%s"' % name.casefold() in folded for name in names) for names in wanted)
    for delimiter in ("\t", ","):
        fields = _split(line, delimiter)
        if len(fields) > 1 or len(wanted) == 1:
            if all(any(_find(fields, name) is not None for name in names) for names in wanted):
                return True
    return False


# ---------------------------------------------------------------------------
# One value per line, CSV and TSV
# ---------------------------------------------------------------------------
def _lines_table(source, lines):
    def rows():
        for lineno, text in lines:
            yield lineno, None, text.strip(), None

    return Table(rows(), "lines")


_FIELD_LIMIT = re.compile(r"field larger than field limit \((\d+)\)")


def _csv_error(source, line, format, exc):
    """A csv.Error in plain words, naming the line where the record starts."""
    text = str(exc)
    limit = _FIELD_LIMIT.search(text)
    if limit:
        return source.at(
            line,
            "a field is longer than {:,} characters, the most one {} field may hold (a double "
            "quote that is never closed makes the rest of the file one field)".format(
                int(limit.group(1)), FORMAT_NAMES[format]
            ),
        )
    if "unexpected end of data" in text or "EOF" in text:
        return source.at(line, "a double quote opened on this line is never closed; remove the quote or close it")
    if "expected after" in text:
        return source.at(
            line,
            "a double quote closes a value but more text follows it before the next delimiter; "
            'a double quote inside a quoted value must be doubled ("")',
        )
    return source.at(line, "cannot be read as %s (%s)" % (FORMAT_NAMES[format], text))


def _check_delimiter(source, header, delimiter, format):
    """A header without the expected delimiter but with another one: name both."""
    if delimiter in header:
        return
    for other in ("\t", ";", ",", "|"):
        if other != delimiter and len(_split(header, other)) > 1:
            raise source.at(
                1,
                "the columns are separated by %s, but a %s file must separate them by %s"
                % (_DELIMITER_NAMES[other], FORMAT_NAMES[format], _DELIMITER_NAMES[delimiter]),
            )


def _column_index(source, header, columns, delimiter, line=1):
    """Positions ``(id, value, group)`` of the wanted columns in the header."""
    if source.may_quote:
        found = " (found: %s)" % list_names(header)
    else:
        found = " (found %d column%s)" % (len(header), "" if len(header) == 1 else "s")
    expected = columns.describe_header(delimiter)
    value = next((i for i in (_find(header, name) for name in columns.values) if i is not None), None)
    ident = _find(header, columns.id) if columns.id else None
    if value is None or (columns.id_required and ident is None):
        others = _per_class(header, columns) if source.may_quote else None
        if others:
            raise _per_class_error(source, line, others, columns, delimiter)
        if columns.looks_like_data is not None and columns.looks_like_data(header):
            raise data_not_header(source.at(line, DATA_NOT_HEADER % expected))
    if value is None:
        raise source.at(
            line,
            "the header has no %s column %s%s; the header should be %s"
            % (columns.what, " or ".join(quote(name) for name in columns.values), found, expected),
        )
    if columns.id_required and ident is None:
        raise source.at(
            line, "the header has no id column %s%s; the header should be %s" % (quote(columns.id), found, expected)
        )
    group = None
    if columns.group is not None:
        group = _find(header, columns.group)
        if group is None:
            raise source.at(line, "the header has no group column %s%s" % (quote(columns.group), found))
    folded = [name.casefold() for name in header]
    for index in (ident, value, group):
        if index is not None and folded.count(folded[index]) > 1:
            raise source.at(
                line,
                "the header names the column %s twice; expected each column once, e.g. the header %s"
                % (quote(header[index]), columns.describe_header(delimiter)),
            )
    return ident, value, group


def _blank(row):
    return not row or (len(row) == 1 and not row[0].strip())


def _delimited_table(source, format, columns):
    """CSV or TSV, parsed over the file's lines a block at a time.

    A block whose lines are all plain rows (:func:`_plain_fields`) is split
    with ``str.split``; any other block goes through :mod:`csv`, row by row,
    which says what is wrong.  ``reader.line_num`` counts the lines fed to
    the reader, and ``skipped`` the lines of plain blocks: together they are
    the file's line numbers up to the first blank line (a run of blank lines
    is fed as one); after a blank line any data is an error named at that
    blank line, so the numbers are exact wherever a message uses them.

    The steps: the header is read now (its errors are raised here); the rows are
    read as the table's batches are consumed (:class:`_DelimitedReader`).
    """
    parser = _DelimitedReader(source, format)
    ident, _, group = parser.read_header(columns)
    return Table(None, format, has_ids=ident is not None, has_groups=group is not None, batches=parser.batches())


class _DelimitedReader:
    """The state of one CSV or TSV file read in blocks: the csv reader, the block it is fed, line counts.

    Parameters
    ----------
    source : the file (:func:`~leaderboard_ci.scoring.text_files.iter_line_texts` reads it)
    format : {"csv", "tsv"}

    Attributes
    ----------
    current : iterator of str
        The lines of the block being fed to the csv reader.
    blank : int or None
        The line of the first blank line after the header (data after it is an error).
    skipped : int
        The lines of plain blocks, split without the csv reader.
    """

    def __init__(self, source, format):
        self.source = source
        self.format = format
        self.delimiter = _DELIMITERS[format]
        self.blocks = iter_line_texts(source)
        self.current = iter(())
        self.reader = csv.reader(self._feed(), delimiter=self.delimiter, skipinitialspace=True, strict=True)
        self.blank = None
        self.skipped = 0
        self.columns = self.width = None

    def _feed(self):
        """The lines the csv reader reads: the current block's, then the next block's."""
        while True:
            lines = self.current
            for text in lines:
                yield text
            if self.current is not lines:  # a new block was handed over
                continue
            block = next(self.blocks, None)
            if block is None:
                return
            self.current = iter(block[1].split("\n"))

    def read_header(self, columns):
        """Read the header line (after leading blank lines) and find the columns.

        Returns
        -------
        (ident, value, group)
            The columns' indices (:func:`_column_index`; ``ident`` and ``group`` may be None).
        """
        source, reader = self.source, self.reader
        blank = None
        while True:
            before = reader.line_num
            try:
                header = next(reader)
            except StopIteration:
                raise _empty(source, self.format, columns)
            except csv.Error as exc:
                raise _csv_error(source, before + 1, self.format, exc)
            if not _blank(header):
                break
            blank = before + 1 if blank is None else blank
        first = before + 1
        if blank is not None:
            raise _blank_error(source, blank)
        if reader.line_num != first:
            raise _multiline_error(source, first, reader.line_num)
        raw_header = self.delimiter.join(header)
        header = [name.strip() for name in header]
        _check_delimiter(source, raw_header, self.delimiter, self.format)
        self.columns = _column_index(source, header, columns, self.delimiter, first)
        self.width = len(header)
        return self.columns

    def _csv_rows(self, lines, ids, values, groups):
        """The rows of the block in ``current`` through the csv reader, appended; raises at a bad row."""
        source, reader, width, delimiter = self.source, self.reader, self.width, self.delimiter
        ident, value, group = self.columns
        blank = self.blank
        line = self.skipped + reader.line_num
        while operator.length_hint(self.current):
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                raise _csv_error(source, line + 1, self.format, exc)
            start, line = line + 1, self.skipped + reader.line_num
            if _blank(row):
                blank = self.blank = start if blank is None else blank
                continue
            if blank is not None:
                raise _blank_error(source, blank)
            if line != start:
                raise _multiline_error(source, start, line)
            if len(row) != width:
                hint = (
                    " (a value containing %s must be in double quotes)" % _DELIMITER_NAMES[delimiter]
                    if len(row) > width and delimiter != "\t"
                    else ""
                )
                raise source.at(start, "expected %d fields, found %d%s" % (width, len(row), hint))
            lines.append(start)
            if ids is not None:
                ids.append(row[ident].strip())
            values.append(row[value].strip())
            if groups is not None:
                groups.append(row[group].strip())

    def batches(self):
        """``(lines, ids, values, groups)`` per block: plain blocks split at once, others through :mod:`csv`."""
        ident, value, group = self.columns
        width = self.width
        while True:
            if operator.length_hint(self.current):
                rest = list(self.current)  # the rest of the block the header came from
                text, count = "\n".join(rest), len(rest)
            else:
                text, count = next(self.blocks, (None, None, None))[1:]
                if text is None:
                    return
            fields = _plain_fields(text, count, self.delimiter, width)
            if fields is not None:
                if self.blank is not None:
                    raise _blank_error(self.source, self.blank)
                start = self.skipped + self.reader.line_num + 1
                self.skipped += count
                yield (
                    range(start, start + count),
                    fields[ident::width] if ident is not None else None,
                    fields[value::width],
                    fields[group::width] if group is not None else None,
                )
                continue
            self.current = iter(text.split("\n"))
            lines, values = [], []
            ids = [] if ident is not None else None
            groups = [] if group is not None else None
            try:
                self._csv_rows(lines, ids, values, groups)
            except self.source.error:
                if lines:
                    yield lines, ids, values, groups
                raise
            if lines:
                yield lines, ids, values, groups


def _plain_fields(text, count, delimiter, width):
    """The fields of the ``count`` lines of ``text``, stripped, in one list, when every line is a plain row; else None.

    A plain row has ``width - 1`` delimiters, no double quote except around
    whole fields that hold neither a quote nor a delimiter (``"id","label"``,
    as R's ``write.csv`` writes), and is no longer than the csv module's
    field limit: :mod:`csv` would split it at its delimiters and take the
    quotes off, as ``str.split`` and ``str.replace`` do (both are stripped).  The
    delimiters are counted per line with numpy over the UTF-8 bytes (a
    multi-byte character has no byte below 0x80).  Costs about 0.1 us a
    row, against about 0.5 us for the csv module and a Python step per row.
    """
    if width < 2 or not text:
        return None
    try:
        data = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    except UnicodeEncodeError:
        return None
    mark = ord(delimiter)
    breaks = np.flatnonzero((data == 10) | (data == mark))  # delimiters and line ends, in order
    if breaks.size != width * count - 1:
        return None
    ends = breaks[width - 1 :: width]
    if ends.size != count - 1 or not np.all(data[ends] == 10):
        return None
    bounds = np.concatenate(([-1], ends, [data.size]))
    if int(np.max(np.diff(bounds))) - 1 > csv.field_size_limit():
        return None
    if '"' in text:
        if not _simply_quoted(data, breaks, mark):
            return None
        text = text.replace('"', "")
    fields = text.replace("\n", delimiter).split(delimiter)
    spaces = np.count_nonzero((data <= 32) | (data >= 128))
    if spaces != count - 1 + (breaks.size - (count - 1) if mark <= 32 else 0):
        fields = [field.strip() for field in fields]  # white space (or non-ASCII text, which may hold some)
    return fields


def _simply_quoted(data, breaks, mark):
    """Whether every double quote in ``data`` opens or closes a whole field with no quote or break inside."""
    quotes = np.flatnonzero(data == 34)
    if quotes.size % 2:
        return False
    opens, closes = quotes[0::2], quotes[1::2]
    before = data[np.maximum(opens - 1, 0)]
    after = data[np.minimum(closes + 1, data.size - 1)]
    return bool(
        np.all((opens == 0) | (before == 10) | (before == mark))
        and np.all((closes == data.size - 1) | (after == 10) | (after == mark))
        and np.array_equal(np.searchsorted(breaks, opens), np.searchsorted(breaks, closes))
    )


def _blank_error(source, line):
    return source.at(line, "the line is blank; remove blank lines (only trailing blank lines are allowed)")


def _multiline_error(source, start, end):
    return source.at(
        start,
        "a double quote opened on this line is not closed on it (the value runs on to line "
        "%d); remove the quote or close it" % end,
    )


def _empty(source, format, columns):
    """The error for a file without content, saying what it should hold."""
    if format in _DELIMITERS:
        return source.whole(
            "is empty; expected the header %s and one line per test item" % columns.describe_header(_DELIMITERS[format])
        )
    return source.whole("is empty; expected one prediction per test item")


def open_table(source, format, columns):
    """Open a file and return its :class:`Table` (rows are read lazily).

    Parameters
    ----------
    source : Source
    format : str
        ``auto``, ``csv``, ``tsv``, ``lines``, ``json`` or ``jsonl``.  With
        ``auto`` the extension decides (``.csv``, ``.tsv``, ``.json``,
        ``.jsonl``); other files are JSON when they start like JSON, CSV or
        TSV when their first line is a header naming the expected columns,
        and one value per line otherwise.
    columns : Columns
    """
    format = _format_from_name(source, format)
    if format != "json":
        first = _head_line(source)
        if first is None:
            raise _empty(source, format, columns)
        format = format or _sniff_format(first, columns)
    if format == "json":
        return json_table(source, columns)
    lines = without_blank_lines(source, iter_lines(source))
    if format == "jsonl":
        return jsonl_table(source, lines, columns)
    if format in _DELIMITERS:
        return _delimited_table(source, format, columns)
    first = next(lines, None)
    if first is None:
        raise _empty(source, format, columns)
    return _lines_table(source, _chain(first, lines))


def _chain(first, rest):
    yield first
    for item in rest:
        yield item


def own_rows_test(source, names):
    """``looks_like_data(fields)`` judged by the file's own next rows (:func:`first_row_is_data`).

    For the organizer's files: whether a first line without the expected
    columns is a data row; the rows after it are split by the delimiter that
    splits the first line into as many fields.
    """

    def looks_like_data(fields):
        lines = itertools.islice((text for _, text in iter_lines(source) if text.strip()), FOLLOWING_ROWS + 1)
        lines = list(lines)
        if not lines:
            return False
        delimiter = next((d for d in (",", "\t", ";", "|") if len(_row_fields(lines[0], d)) == len(fields)), ",")
        return first_row_is_data(fields, (_row_fields(text, delimiter) for text in lines[1:]), names)

    return looks_like_data


def _row_fields(text, delimiter):
    try:
        return next(csv.reader([text], delimiter=delimiter))
    except (csv.Error, StopIteration):
        return [text]
