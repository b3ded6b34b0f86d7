"""Text files of predictions and gold labels: decoding, formats and rows.

A file is streamed, never read whole (except a JSON document, which is one
value): :func:`iter_lines` decodes it chunk by chunk and yields numbered
lines, and :func:`open_table` turns the lines into a :class:`Table`, whose
rows are ``(line, id, value, group)`` tuples of stripped strings.  Nothing
here knows the gold standard: alignment and the checks of values are in
:mod:`leaderboard_ci.scoring.readers`.

Encodings: UTF-8 with or without a byte-order mark, and UTF-16 with one; line
ends ``\\n``, ``\\r\\n`` or ``\\r``.  Formats: one value per line (no header),
CSV / TSV with a header row, a JSON document (a list of objects, a list of
values, or an object mapping id to value) and JSON Lines.

Every problem raises the error class of the :class:`Source` (the
participant's :class:`~leaderboard_ci.scoring.errors.SubmissionError`, or the
organizer's :class:`~leaderboard_ci.scoring.errors.ConfigError`) with one sentence
naming the file and line.  Only the standard library is used: this module is
on the per-submission path, which must run on Python 3.7.
"""
import csv
import json
import re

from .text_files import Columns, Source, Table, iter_lines, list_names, quote, without_blank_lines

__all__ = ["Source", "Columns", "Table", "FORMAT_NAMES", "quote", "list_names", "iter_lines", "open_table"]

_JSON_SPACE = re.compile(r"[ \t\n\r]*")
_EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".json": "json", ".jsonl": "jsonl",
               ".ndjson": "jsonl"}
_DELIMITERS = {"csv": ",", "tsv": "\t"}
_DELIMITER_NAMES = {",": "commas (',')", "\t": "tabs", ";": "semicolons (';')", "|": "vertical bars ('|')"}
#: How messages name each format.
FORMAT_NAMES = {"csv": "CSV", "tsv": "TSV", "json": "JSON", "jsonl": "JSON Lines", "lines": "one value per line"}

# ---------------------------------------------------------------------------
# Choosing the format
# ---------------------------------------------------------------------------
def _split(line, delimiter):
    try:
        return [field.strip() for field in next(csv.reader([line], delimiter=delimiter,
                                                           skipinitialspace=True))]
    except (csv.Error, StopIteration):
        return [line]


def _find(names, wanted):
    """Index of ``wanted`` in ``names``: exact match first, then ignoring case; else None."""
    if wanted in names:
        return names.index(wanted)
    folded = [name.casefold() for name in names]
    if wanted.casefold() in folded:
        return folded.index(wanted.casefold())
    return None


def _names_a_column(fields, columns):
    wanted = ([columns.id] if columns.id else []) + list(columns.values)
    return any(_find(fields, name) is not None for name in wanted)


def _sniff_format(first, columns):
    """The format of a file whose extension does not tell, from its first line."""
    line = first.strip()
    if line.startswith("{"):
        try:
            return "jsonl" if isinstance(json.loads(line), dict) else "json"
        except ValueError:
            return "json"  # an object over several lines
    if line == "[" or line.startswith("[{") or line.startswith('["') or (
            line.startswith("[") and line.endswith("]") and "," in line):
        return "json"
    for delimiter in ("\t", ",", ";", "|"):
        if delimiter in line and _names_a_column(_split(line, delimiter), columns):
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


# ---------------------------------------------------------------------------
# Parsers
# ---------------------------------------------------------------------------
def _lines_table(source, lines):
    def rows():
        for lineno, text in lines:
            yield lineno, None, text.strip(), None
    return Table(rows(), "lines")


class _LineFeed(object):
    """Lines for :func:`csv.reader`, remembering where each record starts."""

    def __init__(self, lines):
        self._lines = iter(lines)
        self.start = None
        self._fresh = True

    def __iter__(self):
        return self

    def __next__(self):
        lineno, text = next(self._lines)
        if self._fresh:
            self.start, self._fresh = lineno, False
        return text

    def new_record(self):
        self._fresh = True


def _check_delimiter(source, header, delimiter, format):
    """A header without the expected delimiter but with another one: name both."""
    if delimiter in header:
        return
    for other in ("\t", ";", ",", "|"):
        if other != delimiter and len(_split(header, other)) > 1:
            raise source.at(1, "the columns are separated by %s, but a %s file must separate them by %s"
                               % (_DELIMITER_NAMES[other], FORMAT_NAMES[format], _DELIMITER_NAMES[delimiter]))


def _column_index(source, header, columns, delimiter):
    """Positions ``(id, value, group)`` of the wanted columns in the header."""
    if source.may_quote:
        found = " (found: %s)" % list_names(header)
    else:
        found = " (found %d column%s)" % (len(header), "" if len(header) == 1 else "s")
    expected = columns.describe_header(delimiter)
    value = next((i for i in (_find(header, name) for name in columns.values) if i is not None), None)
    ident = _find(header, columns.id) if columns.id else None
    if value is None or (columns.id_required and ident is None):
        if columns.looks_like_data is not None and columns.looks_like_data(header):
            raise source.at(1, "the first line is data, not a header; start the file with the header %s"
                               % expected)
    if value is None:
        raise source.at(1, "the header has no prediction column %s%s; the header should be %s"
                           % (" or ".join(quote(name) for name in columns.values), found, expected))
    if columns.id_required and ident is None:
        raise source.at(1, "the header has no id column %s%s; the header should be %s"
                           % (quote(columns.id), found, expected))
    group = None
    if columns.group is not None:
        group = _find(header, columns.group)
        if group is None:
            raise source.at(1, "the header has no group column %s%s" % (quote(columns.group), found))
    folded = [name.casefold() for name in header]
    for index in (ident, value, group):
        if index is not None and folded.count(folded[index]) > 1:
            raise source.at(1, "the header names the column %s twice" % quote(header[index]))
    return ident, value, group


def _delimited_table(source, lines, format, columns):
    delimiter = _DELIMITERS[format]
    feed = _LineFeed(lines)
    reader = csv.reader(feed, delimiter=delimiter, skipinitialspace=True)
    try:
        header = next(reader)
    except StopIteration:
        raise _empty(source, format, columns)
    except csv.Error as exc:
        raise source.at(feed.start or 1, "cannot be read as %s (%s)" % (FORMAT_NAMES[format], exc))
    raw_header = delimiter.join(header)
    header = [name.strip() for name in header]
    _check_delimiter(source, raw_header, delimiter, format)
    ident, value, group = _column_index(source, header, columns, delimiter)
    width = len(header)

    def rows():
        while True:
            feed.new_record()
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                raise source.at(feed.start, "cannot be read as %s (%s)" % (FORMAT_NAMES[format], exc))
            if len(row) != width:
                hint = " (a value containing %s must be in double quotes)" % _DELIMITER_NAMES[delimiter] \
                    if len(row) > width and delimiter != "\t" else ""
                raise source.at(feed.start, "expected %d fields, found %d%s" % (width, len(row), hint))
            yield (feed.start,
                   row[ident].strip() if ident is not None else None,
                   row[value].strip(),
                   row[group].strip() if group is not None else None)

    return Table(rows(), format, has_ids=ident is not None, has_groups=group is not None)


def _scalar_text(source, line, value, what):
    """A JSON scalar as the text a CSV file would hold."""
    if isinstance(value, str):
        return value.strip()
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    raise source.at(line, "the %s is a JSON %s; expected a single value"
                          % (what, "list" if isinstance(value, list) else "object"))


class _Positions(object):
    """Line numbers of offsets in a text, counted incrementally (offsets must not decrease)."""

    def __init__(self, text):
        self.text = text
        self.offset = 0
        self.line = 1

    def line_of(self, offset):
        self.line += self.text.count("\n", self.offset, offset)
        self.offset = offset
        return self.line


def _json_error(source, exc):
    return source.at(exc.lineno, "not valid JSON (%s, column %d)" % (exc.msg, exc.colno))


def _json_items(source, text):
    """Yield ``(line, key, value)`` for the items of a top-level JSON list or object."""
    decoder = json.JSONDecoder()
    where = _Positions(text)

    def space(pos):
        return _JSON_SPACE.match(text, pos).end()

    def value_at(pos):
        try:
            return decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise _json_error(source, exc)

    pos = space(0)
    if pos == len(text):
        raise source.whole("is empty; expected a JSON list of predictions")
    opening = text[pos]
    if opening not in "[{":
        raise source.at(where.line_of(pos), "expected a JSON list or object, found %s"
                                            % ("a single value" if source.may_quote else "something else"))
    closing = "]" if opening == "[" else "}"
    pos = space(pos + 1)
    if text.startswith(closing, pos):
        pos = space(pos + 1)
    else:
        while True:
            key = None
            if opening == "{":
                key, pos = value_at(pos)
                if not isinstance(key, str):
                    raise source.at(where.line_of(pos), "not valid JSON (expected a key in double quotes)")
                pos = space(pos)
                if not text.startswith(":", pos):
                    raise source.at(where.line_of(pos), "not valid JSON (expected ':' after a key)")
                pos = space(pos + 1)
            line = where.line_of(pos)
            value, pos = value_at(pos)
            yield line, key, value
            pos = space(pos)
            if text.startswith(",", pos):
                pos = space(pos + 1)
            elif text.startswith(closing, pos):
                pos = space(pos + 1)
                break
            else:
                raise source.at(where.line_of(min(pos, len(text) - 1)),
                                "not valid JSON (expected ',' or '%s')" % closing)
    if pos != len(text):
        raise source.at(where.line_of(pos), "not valid JSON (extra data after the end); for one JSON "
                                            "value per line, name the file .jsonl")


def _object_keys(source, line, obj, columns):
    """Keys ``(id, value, group)`` of the first JSON object, checked like a header."""
    keys = [str(k) for k in obj]
    found = " (found keys: %s)" % list_names(keys) if source.may_quote else ""
    value = None
    for name in columns.values:
        index = _find(keys, name)
        if index is not None:
            value = keys[index]
            break
    if value is None:
        raise source.at(line, "the object has no %s key%s; expected objects like %s"
                              % (" or ".join(quote(v) for v in columns.values), found, columns.example()))
    ident = None
    if columns.id is not None:
        index = _find(keys, columns.id)
        ident = keys[index] if index is not None else None
        if ident is None and columns.id_required:
            raise source.at(line, "the object has no id key %s%s" % (quote(columns.id), found))
    group = None
    if columns.group is not None:
        index = _find(keys, columns.group)
        if index is None:
            raise source.at(line, "the object has no group key %s%s" % (quote(columns.group), found))
        group = keys[index]
    return ident, value, group


def _record_rows(source, items, columns):
    """Rows from ``(line, key, value)`` items of JSON: objects, plain values or id -> value.

    ``items`` is a list (a JSON document, already parsed) or an iterator (JSON Lines).
    """
    if isinstance(items, list):
        first, items = (items[0], items[1:]) if items else (None, [])
    else:
        first = next(items, None)
    if first is None:
        return Table(iter(()), "json")
    line, key, value = first
    if key is not None:  # an object mapping id -> value
        return _keyed_rows(source, first, items, columns)
    if isinstance(value, dict):
        keys = _object_keys(source, line, value, columns)
        return _object_rows(source, first, items, keys)
    return Table(_value_rows(source, first, items), "json")


def _keyed_rows(source, first, items, columns):
    if columns.group is not None:
        raise source.at(first[0], "an object mapping ids to values has no group %s; use a list of objects"
                                  % quote(columns.group))
    keys = [first[1]] + [item[1] for item in items]  # a JSON document: items is a list
    value_key = any(_find(keys, name) is not None for name in columns.values)
    if columns.id is not None and _find(keys, columns.id) is not None and value_key:
        raise source.at(first[0], "the file is a single JSON object; expected a list of objects like %s"
                                  % columns.example())

    def rows():
        for line, key, value in _chain(first, items):
            yield line, key.strip(), _scalar_text(source, line, value, "value"), None
    return Table(rows(), "json", has_ids=True)


def _object_rows(source, first, items, keys):
    ident, value_key, group = keys

    def rows():
        for line, _, obj in _chain(first, items):
            if not isinstance(obj, dict):
                raise source.at(line, "expected a JSON object like the first item, found a single value")
            if value_key not in obj:
                raise source.at(line, "the object has no %s key" % quote(value_key))
            if ident is not None and ident not in obj:
                raise source.at(line, "the object has no %s key" % quote(ident))
            if group is not None and group not in obj:
                raise source.at(line, "the object has no %s key" % quote(group))
            yield (line,
                   _scalar_text(source, line, obj[ident], "id") if ident is not None else None,
                   _scalar_text(source, line, obj[value_key], "value"),
                   _scalar_text(source, line, obj[group], "group") if group is not None else None)
    return Table(rows(), "json", has_ids=ident is not None, has_groups=group is not None)


def _value_rows(source, first, items):
    for line, _, value in _chain(first, items):
        if isinstance(value, dict):
            raise source.at(line, "expected a single value like the first item, found a JSON object")
        yield line, None, _scalar_text(source, line, value, "value"), None


def _chain(first, rest):
    yield first
    for item in rest:
        yield item


def _json_table(source, lines, columns):
    """A JSON document, parsed whole (so that a syntax error is reported before any value)."""
    text = "\n".join(part for _, part in lines)
    return _record_rows(source, list(_json_items(source, text)), columns)


def _jsonl_items(source, lines):
    for lineno, text in without_blank_lines(source, lines):
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise source.at(lineno, "not valid JSON (%s)" % getattr(exc, "msg", "syntax error"))
        if isinstance(value, list):
            raise source.at(lineno, "expected one JSON object or value per line, found a list")
        yield lineno, None, value


def _jsonl_table(source, lines, columns):
    table = _record_rows(source, _jsonl_items(source, lines), columns)
    table.format = "jsonl"
    return table


def _empty(source, format, columns):
    """The error for a file without content, saying what it should hold."""
    if format in _DELIMITERS:
        return source.whole("is empty; expected the header %s and one line per test item"
                            % columns.describe_header(_DELIMITERS[format]))
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
    lines = iter_lines(source)
    first = next(lines, None)
    if first is None:
        raise _empty(source, _format_from_name(source, format), columns)
    lines = _chain(first, lines)
    format = _format_from_name(source, format) or _sniff_format(first[1], columns)
    if format == "json":
        return _json_table(source, lines, columns)
    lines = without_blank_lines(source, lines)
    if format == "jsonl":
        return _jsonl_table(source, lines, columns)
    if format in _DELIMITERS:
        return _delimited_table(source, lines, format, columns)
    return _lines_table(source, lines)
