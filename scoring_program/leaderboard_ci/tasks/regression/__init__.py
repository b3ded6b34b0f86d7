"""Regression: one real number per item.

The task type ``TASK``: its metrics and statistics are in :mod:`.metrics`, its
values (the id and value columns, :class:`~leaderboard_ci.tasks.shared.columns.ColumnFormat`)
in :mod:`.files`.
"""

from ..protocol import TaskType
from ..shared.columns import ColumnFormat
from .files import decode, encode_gold, encode_values, is_value, value_parser
from .metrics import METRICS, NAME, Statistics, item_contributions

__all__ = ["TASK", "COLUMNS"]

#: The id and value columns, with regression's encoding of a cell.
COLUMNS = ColumnFormat(parse_gold=encode_gold, parse_value=value_parser, is_value=is_value)

TASK = TaskType(
    name=NAME,
    metrics=METRICS,
    Statistics=Statistics,
    read_gold=COLUMNS.read_gold,
    read_predictions=COLUMNS.read_predictions,
    encode_values=encode_values,
    decode=decode,
    submission_format=COLUMNS.submission_format,
    item_contributions=item_contributions,
)
