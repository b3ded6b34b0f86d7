"""JSON documents and JSON Lines as tables of ``(line, id, value, group)`` rows.

A JSON document is read value by value from the decoded chunks of the file
(:class:`_JsonStream`, the shared
:class:`~leaderboard_ci.tasks.shared.json_stream.JsonStream`): only the text
not consumed yet is in memory, and the rows are produced lazily, so reading stops as soon as the answer is known.
Accepted shapes: a list of objects or of values, an object mapping ids to
values, either inside a wrapper object (``{"predictions": [...]}``), and
what pandas' ``DataFrame.to_json`` writes with ``orient`` ``records``,
``split``, ``index``, ``columns`` or ``table``.  Integers are kept as their
text (no ``int()`` of thousands of digits, which Python refuses), and
``RecursionError`` on deep nesting becomes a sentence naming the line.
Standard library only (Python 3.7).
"""

import json

from ..tasks.shared import json_documents
from ..tasks.shared.json_stream import MAX_VALUE_CHARS, JsonStream
from .text_files import Table, TextFile, list_names, quote, without_blank_lines
from .text_files import find_name as _find
from .text_files import names_a_column as _names_a_column
from .text_files import per_class_columns as _per_class

__all__ = ["json_table", "jsonl_table", "MAX_VALUE_CHARS"]

_EXPECTED = "one prediction per item"
#: Keys of an object wrapping the list of predictions (``{"predictions": [...]}``, pandas' ``data``).
_WRAPPERS = (
    "predictions",
    "prediction",
    "preds",
    "data",
    "results",
    "records",
    "items",
    "rows",
    "outputs",
    "output",
    "answers",
)
#: Keys skipped next to a wrapper (pandas' ``orient="table"`` and ``"split"``).
_SKIPPED = ("schema", "index", "meta", "metadata", "info", "version")
#: The JSON shapes accepted, for messages.
_JSON_SHAPES = (
    "a JSON list of objects like %s (pandas: df.to_json(orient='records')), a list of values, or an "
    "object mapping ids to values"
)


class _IntText(str):
    """A JSON integer kept as its text: no int() of thousands of digits (Python limits them), no rounding."""


def _int_text(digits):
    """``parse_int`` of the JSON decoders: short integers normalized (``-0`` is ``0``), long ones kept as text."""
    return _IntText(str(int(digits)) if len(digits) <= 18 else digits)


def _scalar_text(source, line, value, what):
    """A JSON scalar as the text a CSV file would hold."""
    if isinstance(value, str):
        return value.strip()
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, list):
        raise source.at(
            line,
            "the %s is a JSON list of %d item%s; expected a single value (one prediction "
            "per item)" % (what, len(value), "" if len(value) == 1 else "s"),
        )
    raise source.at(line, "the %s is a JSON object; expected a single value (one prediction per item)" % what)


class _JsonStream(JsonStream):
    """A JSON document read value by value (:class:`~leaderboard_ci.tasks.shared.json_stream.JsonStream`).

    Only the text not consumed yet (at least one block, and the value being
    read) is kept in memory; line numbers are counted as the text goes by.
    The sentences speak of predictions.
    """

    def __init__(self, source):
        super(_JsonStream, self).__init__(source, TextFile(source).chunks(), _EXPECTED, parse_int=_int_text)

    def invalid_message(self, what):
        return "not valid JSON (%s)" % what

    def nested_message(self):
        return (
            "the JSON value is nested too deeply (lists or objects inside each other "
            "hundreds of levels deep); expected %s" % _EXPECTED
        )

    def long_message(self, limit):
        return (
            "a single JSON value here is longer than {:,} characters, more than the predictions of a test set "
            "can be; expected {}".format(limit, _EXPECTED)
        )

    def extra_message(self):
        return "not valid JSON (extra data after the end); for one JSON value per line, name the file .jsonl"


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
        others = _per_class(keys, columns) if source.may_quote else None
        if others:
            raise source.at(
                line,
                "the object has one key per class (%s), as class probabilities or scores "
                "have; this competition expects one prediction per item: objects like %s"
                % (list_names(others, 4), columns.example()),
            )
        raise source.at(
            line,
            "the object has no %s key%s; expected objects like %s"
            % (" or ".join(quote(v) for v in columns.values), found, columns.example()),
        )
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


def _record_rows(source, items, columns, format="json"):
    """Rows from ``(line, key, value)`` items of JSON: objects, plain values or id -> value."""
    first = next(items, None)
    if first is None:
        return Table(iter(()), format)
    line, key, value = first
    if key is not None:  # an object mapping id -> value
        return _keyed_rows(source, first, items, columns)
    if isinstance(value, dict):
        keys = _object_keys(source, line, value, columns)
        return _object_rows(source, first, items, keys, format)
    if isinstance(value, list):
        raise source.at(line, "each item is a JSON list; expected %s" % (_JSON_SHAPES % columns.example()))
    return Table(_value_rows(source, first, items), format)


def _keyed_rows(source, first, items, columns):
    if columns.group is not None:
        raise source.at(
            first[0], "an object mapping ids to values has no group %s; use a list of objects" % quote(columns.group)
        )

    def rows():
        for line, key, value in _chain(first, items):
            yield line, key.strip(), _scalar_text(source, line, value, "value"), None

    return Table(rows(), "json", has_ids=True)


def _object_rows(source, first, items, keys, format):
    ident, value_key, group = keys

    def rows():
        for line, _, obj in _chain(first, items):
            if not isinstance(obj, dict):
                raise source.at(
                    line,
                    "expected a JSON object like the first item, found %s"
                    % ("a list" if isinstance(obj, list) else "a single value"),
                )
            for key in (value_key, ident, group):
                if key is not None and key not in obj:
                    raise source.at(line, "the object has no %s key" % quote(key))
            yield (
                line,
                _scalar_text(source, line, obj[ident], "id") if ident is not None else None,
                _scalar_text(source, line, obj[value_key], "value"),
                _scalar_text(source, line, obj[group], "group") if group is not None else None,
            )

    return Table(rows(), format, has_ids=ident is not None, has_groups=group is not None)


def _value_rows(source, first, items):
    for line, _, value in _chain(first, items):
        if isinstance(value, dict):
            raise source.at(line, "expected a single value like the first item, found a JSON object")
        yield line, None, _scalar_text(source, line, value, "value"), None


def _chain(first, rest):
    yield first
    for item in rest:
        yield item


def _list_items(stream, finish, columns=None):
    """``(line, None, value)`` of the list at the stream's position; rows of lists when ``columns`` (split)."""
    for line, _ in stream.members():
        value = stream.value()
        if columns is not None:
            if not isinstance(value, list) or len(value) != len(columns):
                raise stream.source.at(
                    line,
                    "expected a row of %d values (the 'columns' of this JSON in the "
                    "layout of pandas' orient='split')" % len(columns),
                )
            value = dict(zip(columns, value))
        yield line, None, value
    finish()


def _names_column(key, columns):
    return key is not None and _names_a_column([key.strip()], columns)


def _object_table(source, stream, columns, finish):
    """The rows of a JSON object: a wrapper, a mapping id -> value, or pandas' split/index/columns layouts."""
    members = stream.members()
    split_columns = None
    while True:
        member = next(members, None)
        if member is None:
            if split_columns is not None:
                raise stream.error("the object has 'columns' but no 'data' list (pandas' orient='split')")
            finish()
            return Table(iter(()), "json")
        line, key = member
        name = key.strip().casefold()
        kind = stream.peek()
        if name == "columns" and kind == "[":
            split_columns = [str(c) for c in stream.value()]
            continue
        if name in _SKIPPED and kind in "[{":
            stream.value()
            continue
        break
    if name in _WRAPPERS and kind in "[{":

        def rest():
            for _ in members:  # what follows the wrapped list is ignored
                stream.value()
            finish()

        if kind == "[":
            return _record_rows(source, _list_items(stream, rest, split_columns), columns)
        return _object_table(source, stream, columns, rest)
    if kind not in "[{":
        if _names_column(key, columns):  # one record: read it, so that JSON Lines in a .json file is told
            stream.value()
            for _ in members:
                stream.value()
            finish()
            raise source.at(
                line, "the file is a single JSON object; expected a list of objects like %s" % columns.example()
            )

        def keyed():
            yield line, key, stream.value()
            for item_line, item_key in members:
                yield item_line, item_key, stream.value()
            finish()

        return _record_rows(source, keyed(), columns)
    if _names_column(key, columns):  # pandas orient='columns' (objects) or a dict of lists
        return _column_rows(source, stream, columns, members, (line, key), finish)
    if kind == "{":  # pandas orient='index': row key -> record; the key is the id when the record has none

        def records():
            item_line, item_key = line, key
            while True:
                record = stream.value()
                if isinstance(record, dict) and columns.id is not None and _find(list(record), columns.id) is None:
                    record = dict(record)
                    record[columns.id] = item_key
                yield item_line, None, record
                member = next(members, None)
                if member is None:
                    break
                item_line, item_key = member
            finish()

        return _record_rows(source, records(), columns)
    raise source.at(
        line, "the value of %s is a JSON list; expected %s" % (quote(key), _JSON_SHAPES % columns.example())
    )


def _column_rows(source, stream, columns, members, first, finish):
    """Rows of ``{"id": {...} or [...], "label": {...} or [...]}`` (pandas' orient='columns', or lists)."""
    table = {}
    lines = {}
    member = first
    while member is not None:
        line, key = member
        value = stream.value()
        if not isinstance(value, (dict, list)):
            raise source.at(
                line,
                "the value of %s is a single value, but the first key's is a column of "
                "values; expected %s" % (quote(key), _JSON_SHAPES % columns.example()),
            )
        table[key.strip()] = value
        lines[key.strip()] = line
        member = next(members, None)
    finish()
    names = list(table)
    record_keys = {}
    for name in (
        ([columns.id] if columns.id else []) + list(columns.values) + ([columns.group] if columns.group else [])
    ):
        index = _find(names, name)
        if index is not None:
            record_keys.setdefault(name, names[index])
    value_name = next((record_keys[v] for v in columns.values if v in record_keys), None)
    if value_name is None:
        raise source.at(
            first[0],
            "the object has no %s column (found keys: %s); expected %s"
            % (" or ".join(quote(v) for v in columns.values), list_names(names), _JSON_SHAPES % columns.example()),
        )
    main = table[value_name]
    order = list(main) if isinstance(main, dict) else list(range(len(main)))
    line = lines[value_name]

    def cell(name, index):
        column = table[name]
        try:
            return column[index] if isinstance(column, dict) else column[index]
        except (KeyError, IndexError, TypeError):
            raise source.at(
                lines[name],
                "the column %s has no value for row %s, which the column %s has"
                % (quote(name), quote(index), quote(value_name)),
            )

    def records():
        for index in order:
            yield line, None, dict((name, cell(name, index)) for name in set(record_keys.values()))

    return _record_rows(source, records(), columns)


def json_table(source, columns):
    """A JSON document, read value by value (see :class:`_JsonStream`)."""
    stream = _JsonStream(source)
    opening = stream.peek()
    if opening == "":
        raise source.whole("is empty; expected %s" % (_JSON_SHAPES % columns.example()))
    if opening not in "[{":
        raise stream.error(
            "expected a JSON list or object, found %s" % ("a single value" if source.may_quote else "something else")
        )
    if opening == "[":
        return _record_rows(source, _list_items(stream, stream.finish), columns)
    return _object_table(source, stream, columns, stream.finish)


def _jsonl_items(source, lines):
    decoder = json.JSONDecoder(parse_int=_int_text)
    for lineno, text in without_blank_lines(source, lines):
        try:
            value = json_documents.paused_collection(decoder.decode, text)
        except ValueError as exc:
            raise source.at(lineno, "not valid JSON (%s)" % getattr(exc, "msg", "syntax error"))
        except RecursionError:
            raise source.at(
                lineno,
                "the JSON value is nested too deeply (lists or objects inside each other "
                "hundreds of levels deep); expected one prediction per line",
            )
        if isinstance(value, list):
            raise source.at(lineno, "expected one JSON object or value per line, found a list")
        yield lineno, None, value


def jsonl_table(source, lines, columns):
    return _record_rows(source, _jsonl_items(source, lines), columns, "jsonl")
