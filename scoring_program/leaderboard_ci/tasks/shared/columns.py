"""The id and value columns as a reader a task type opts into: :class:`ColumnFormat`.

A gold table (CSV, TSV, JSON, JSON Lines, or one value per line) with an id
column, the gold column and optionally a group column; a prediction file with
the id column and one of the accepted prediction columns, matched to the gold
by id (or by order when neither has ids).  The scoring program does the
reading, the alignment and the messages (:meth:`GoldInput.rows
<leaderboard_ci.tasks.protocol.GoldInput.rows>`, :meth:`PredictionFile.values
<leaderboard_ci.tasks.protocol.PredictionFile.values>`); the task gives only
how one cell is encoded::

    COLUMNS = ColumnFormat(parse_gold=encode_gold, parse_value=value_parser, is_value=is_value)
    TASK = TaskType(..., read_gold=COLUMNS.read_gold, read_predictions=COLUMNS.read_predictions,
                    submission_format=COLUMNS.submission_format)

A task may take one half and read the other itself (``scores`` reads the gold
labels by the columns and its files of class probabilities itself).

Python 3.7, numpy only.
"""

from __future__ import annotations

import numpy as np

from ..prediction_tables import TableWords, table_format, table_sample
from ..protocol import GoldData, SubmissionFormat

__all__ = ["ColumnFormat"]


def _never(gold, text):
    return False


class ColumnFormat(object):
    """How a task reads the id and value columns: the encoding of one cell.

    Parameters
    ----------
    parse_gold : callable
        ``parse_gold(source, lines, values, context) -> (encoded values,
        labels)``: the gold column's texts (one per row; ``lines`` their line
        numbers) into the array the statistics use; messages through
        ``source.at(line, ...)``, never quoting a gold value.
    parse_value : callable
        ``parse_value(file, gold, context) -> (convert(line, text), typecode)``:
        one participant value into its encoding (``file.quote`` quotes the
        participant's text); ``typecode`` is ``"q"`` (int64), ``"d"`` (float64)
        or None (structured values, then ``stack`` builds the array).
    is_value : callable, optional
        ``is_value(gold, text) -> bool``: whether a would-be header field is
        really a value (the file has no header).  Default: never.
    stack : callable, optional
        ``stack(values, gold, context) -> array`` of the parsed values in gold
        order, for typecode None.
    """

    def __init__(self, parse_gold, parse_value, is_value=None, stack=None):
        self.parse_gold = parse_gold
        self.parse_value = parse_value
        self.is_value = is_value or _never
        self.stack = stack

    def read_gold(self, gold, context):
        """The protocol's ``read_gold``: the gold column's rows, encoded by ``parse_gold``."""
        rows = gold.rows()
        values, labels = self.parse_gold(gold.source, rows.lines, rows.values, context)
        return GoldData(rows.lines, values, labels, rows.ids, rows.groups, rows.design)

    def read_predictions(self, submission, gold, context):
        """The protocol's ``read_predictions``: the prediction column, aligned with the gold."""
        predictions = submission.file()
        convert, typecode = self.parse_value(predictions, gold, context)
        stack = None
        if typecode is None:

            def stack(values):
                return self.stack(values, gold, context)

        def is_value(text):
            return self.is_value(gold, text)

        return predictions.values(convert, typecode, stack, is_value)

    def submission_format(self, gold, files, metrics):
        """The protocol's ``submission_format``: a CSV of the id column and the gold column.

        The sample holds one constant value (the first label, or 0) for every id.
        """
        fmt, name = table_format(files, "predictions.csv")
        words = TableWords(fmt)
        value = gold.labels[0] if gold.labels else (0 if fmt in ("json", "jsonl") else "0")
        target = files.gold_column
        ids = gold.ids
        n = int(np.asarray(gold.values).shape[0])
        if ids is not None and files.id_column and fmt != "lines":
            header, rows = (files.id_column, target), [(i, value) for i in ids]
            what = "one %s per test item, in any order, with the %s `%s` and `%s`" % (
                words.row,
                words.columns,
                files.id_column,
                target,
            )
            public = (("test_ids.txt", "\n".join(ids) + "\n"),)
        else:
            header, rows = (target,), [(value,)] * n
            if fmt == "lines":
                what = "one value per line, without a header, in the order of the test items"
            elif words.header:
                what = "a header `%s`, then one value per line, in the order of the test items" % target
            else:
                what = "one %s per test item, in the order of the test items, with the %s `%s`" % (
                    words.row,
                    words.columns,
                    target,
                )
            public = (("test_ids.txt", "\n".join(ids) + "\n"),) if ids is not None else ()
        labels = (
            " The %s is one of: %s." % (target, ", ".join("`%s`" % label for label in gold.labels))
            if gold.labels and len(gold.labels) <= 30
            else ""
        )
        sample, example = table_sample(fmt, header, rows)
        return SubmissionFormat(
            unit="test item",
            units="test items",
            goal="Predict the %s of each of the {n} test items." % target,
            description="A %s file with %s.%s\n\n```\n%s\n```\n" % (words.noun, what, labels, example),
            file_name=name,
            sample=sample,
            public_files=public,
        )
