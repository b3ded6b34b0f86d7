"""A JSON integer beyond 4,000 digits (:class:`~leaderboard_ci.tasks.shared.json_documents.LongNumber`) in a message.

Python >= 3.11 refuses ``int()`` of such a text, so the readers keep it as a ``LongNumber``; a message that
quotes a list or an object holding one (a bbox, a label list) must show its digits, cut as every quoted
value is, never the class's ``repr`` (``<leaderboard_ci.tasks.shared.json_documents.LongNumber object ...>``).
"""

import json

import pytest
from test_detection_inputs import RECORDS, predictions_of

from leaderboard_ci.scoring.errors import SubmissionError
from leaderboard_ci.tasks.shared import json_documents

DIGITS = "9" * 5000


def test_a_long_number_inside_a_list_reads_as_its_digits():
    value = json_documents.loads("[1, %s]" % DIGITS, parse_int=json_documents.integer)
    assert isinstance(value[1], json_documents.LongNumber)
    assert repr(value) == "[1, %s]" % DIGITS and str(value[1]) == DIGITS


@pytest.mark.parametrize("field", ["bbox", "score", "image_id", "category_id"])
def test_a_detection_message_quotes_the_digits_of_a_long_number(tmp_path, field):
    records = [dict(r) for r in RECORDS]
    text = json.dumps(records)
    first = json.dumps(records[0])
    changed = dict(records[0])
    changed[field] = [1, 2, 0, 10] if field == "bbox" else 0
    old, new = ("[1, 2, 0, 10]", "[1, 2, %s, 10]" % DIGITS) if field == "bbox" else ('"%s": 0' % field, None)
    replacement = json.dumps(changed).replace(old, new or '"%s": %s' % (field, DIGITS))
    assert DIGITS in replacement
    with pytest.raises(SubmissionError) as caught:
        predictions_of(tmp_path, text.replace(first, replacement, 1))
    message = str(caught.value)
    assert "detection 1 " in message and "999999999" in message, message
    assert "leaderboard_ci" not in message and "object at" not in message, message
    assert len(message) < 400, message
