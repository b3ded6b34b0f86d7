"""A forecast's ``ds`` in another date form (``2020-1-2``, ``02/01/2020``) is told the form the program reads.

Session-9 sweep: the sentence named the line and an example date; it now says the form too (YYYY-MM-DD with a
two-digit month and day), which is what an unpadded or day-first date lacks.  A date-time of the same day reads.
"""

import pytest

from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.errors import SubmissionError
from leaderboard_ci.scoring.readers import read_gold, read_predictions

FORM = "expected dates as YYYY-MM-DD with a two-digit month and day, such as 2016-05-23"


@pytest.mark.parametrize("ds, told", [("2020-1-2", True), ("02/01/2020", True), ("2020-01-02T00:00:00", False)])
def test_a_date_in_another_form_is_told_the_form(tmp_path, ds, told):
    (tmp_path / "gold.csv").write_text("unique_id,ds,y\na,2020-01-01,1\na,2020-01-02,2\n")
    config = parse_config({"task": "forecasting", "metric": "mae", "files": {"gold": "gold.csv"}})
    gold = read_gold(str(tmp_path), config)
    (tmp_path / "forecasts.csv").write_text("unique_id,ds,yhat\na,2020-01-01,1\na,%s,2\n" % ds)
    if not told:
        read_predictions(str(tmp_path / "forecasts.csv"), config, gold)
        return
    with pytest.raises(SubmissionError) as info:
        read_predictions(str(tmp_path / "forecasts.csv"), config, gold)
    assert info.value.message == (
        "forecasts.csv line 3: the ds field '%s' is not one of the horizon's dates; %s (or date-times such as "
        "2016-05-23 14:00:00)" % (ds, FORM)
    ), info.value.message
