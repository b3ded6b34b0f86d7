"""Single-label classification: one class label per item.

The task type ``TASK``: its metrics, statistics, per-class table and McNemar's
test are in :mod:`.metrics`; its labels (the id and value columns,
:class:`~leaderboard_ci.tasks.shared.columns.ColumnFormat`) in :mod:`.files`.
"""

from ..protocol import TaskType
from ..shared.columns import ColumnFormat
from ..shared.sparse import macro_class_units
from .files import decode, encode_gold, encode_values, is_value, value_parser
from .metrics import METRICS, NAME, PAIR_TESTS, UNIT_TABLE, ClassificationSettings, Statistics

__all__ = ["TASK", "COLUMNS"]

#: The id and value columns, with the labels encoded as codes into the task's label set.
COLUMNS = ColumnFormat(parse_gold=encode_gold, parse_value=value_parser, is_value=is_value)

TASK = TaskType(
    name=NAME,
    metrics=METRICS,
    Statistics=Statistics,
    read_gold=COLUMNS.read_gold,
    read_predictions=COLUMNS.read_predictions,
    encode_values=encode_values,
    Settings=ClassificationSettings,
    decode=decode,
    submission_format=COLUMNS.submission_format,
    pair_tests=PAIR_TESTS,
    unit_table=UNIT_TABLE,
    sparse_units=macro_class_units,
)
