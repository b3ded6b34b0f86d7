"""Sample prediction tables for ``leaderboard-ci init``, in the format the scoring program will read.

A task whose submissions are tables (an id column and value columns) describes
them once, as a header and rows; :func:`table_format` says which format the
reader applies to the prediction file (``files.format``, else the file name's
extension, else CSV, as :func:`leaderboard_ci.scoring.formats.open_table`
decides), and :func:`table_sample` writes the rows in that format: a CSV sample
read as TSV (or the reverse) would fail the competition's own bundle check.

Standard library only (this module is in the per-submission layer, Python 3.7).
"""

import json
import os

__all__ = ["FORMAT_NOUNS", "table_format", "table_sample", "TableWords", "csv_cell"]

#: How the pages name each prediction format (the values of ``files.format``).
FORMAT_NOUNS = {"csv": "CSV", "tsv": "TSV", "json": "JSON", "jsonl": "JSON Lines", "lines": "plain-text"}
_EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl"}
_SUFFIXES = {"csv": ".csv", "tsv": ".tsv", "json": ".json", "jsonl": ".jsonl", "lines": ".txt"}
_SHOWN_ROWS = 3


class TableWords(object):
    """The words of a format: ``noun`` (CSV), ``row`` (row, record, line) and ``columns`` (columns, keys)."""

    def __init__(self, fmt):
        self.noun = FORMAT_NOUNS.get(fmt, "CSV")
        self.row = {"json": "record", "jsonl": "line", "lines": "line"}.get(fmt, "row")
        self.columns = "keys" if fmt in ("json", "jsonl") else "columns"
        self.header = fmt in ("csv", "tsv")


def table_format(files, default_name):
    """``(format, file name)`` of a prediction table: how the program will read the file init describes.

    ``files`` is the config's ``files:`` section; the name is ``files.predictions``
    or ``default_name`` (with the format's extension when ``files.format`` sets
    one); the format is ``files.format``, else the one the name's extension
    gives, else ``csv`` (a file whose first line names the columns).
    """
    if files.format != "auto":
        stem = os.path.splitext(default_name)[0]
        return files.format, files.predictions or stem + _SUFFIXES.get(files.format, ".txt")
    name = files.predictions or default_name
    return _EXTENSIONS.get(os.path.splitext(name)[1].lower(), "csv"), name


def csv_cell(value, delimiter=","):
    """``value`` as one cell of a CSV (quoted when it holds a comma, a quote or a line break) or TSV (tabs
    become spaces) line: the one cell writer of the task types."""
    text = str(value)
    if delimiter == "\t":
        return text.replace("\t", " ")
    return '"%s"' % text.replace('"', '""') if any(c in text for c in ',"\n') else text


def _json_value(value):
    return json.dumps(value, ensure_ascii=False)


def table_sample(fmt, header, rows):
    """``(sample, example)``: the whole file and its first rows (for a page), in format ``fmt``.

    Parameters
    ----------
    fmt : str
        ``csv``, ``tsv``, ``json`` (a list of records), ``jsonl`` (a record per
        line) or ``lines`` (the last column's values, one per line, no header).
    header : sequence of str
        The column names.
    rows : sequence of sequences
        The values of each row: strings, numbers (written as JSON numbers in
        JSON) or lists (JSON lists; give CSV cells as strings).
    """
    if fmt in ("json", "jsonl"):
        records = [
            "{%s}" % ", ".join("%s: %s" % (_json_value(k), _json_value(v)) for k, v in zip(header, row)) for row in rows
        ]
        if fmt == "jsonl":
            lines = records
            shown = records[:_SHOWN_ROWS] + (["..."] if len(records) > _SHOWN_ROWS else [])
        else:
            lines = ["["] + ["  %s%s" % (r, "," if k < len(records) - 1 else "") for k, r in enumerate(records)] + ["]"]
            shown = (
                ["["]
                + ["  %s," % r for r in records[:_SHOWN_ROWS]]
                + (["  ..."] if len(records) > _SHOWN_ROWS else [])
                + ["]"]
            )
            if len(records) <= _SHOWN_ROWS:
                shown = lines
    elif fmt == "lines":
        lines = [str(row[-1]) for row in rows]
        shown = lines[:_SHOWN_ROWS] + (["..."] if len(lines) > _SHOWN_ROWS else [])
    else:
        delimiter = "\t" if fmt == "tsv" else ","
        body = [delimiter.join(csv_cell(v, delimiter) for v in row) for row in rows]
        lines = [delimiter.join(csv_cell(h, delimiter) for h in header)] + body
        shown = lines[: _SHOWN_ROWS + 1] + (["..."] if len(body) > _SHOWN_ROWS else [])
    return "\n".join(lines) + "\n", "\n".join(shown)
