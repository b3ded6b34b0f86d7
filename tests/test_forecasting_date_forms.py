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


def test_dates_alone_parse_as_they_do_beside_date_times():
    """A block of 10-character dates takes the short path (10 columns); its keys and kinds are the long path's."""
    import numpy as np

    from leaderboard_ci.tasks.forecasting import timestamps

    fields = ["2016-05-23", "1969-12-31", "2000-02-29", "2001-02-29", "2016-5-23x", "0001-01-01", "9999-12-31"]
    fields += ["2016-13-01", "2016-00-10", "20160523..", "2016-05-2a", "2016/05/23"]
    longer = fields + ["2016-05-23 14:00:00"]  # one date-time: every field read on 19 columns
    keys = []
    for group in (fields, longer):
        data = np.frombuffer("".join(group).encode("ascii") + b"\x00" * 8, dtype=np.uint8)
        lengths = np.array([len(f) for f in group], dtype=np.int64)
        keys.append(timestamps.parse(data, np.cumsum(lengths) - lengths, lengths))
    assert np.array_equal(keys[0][0], keys[1][0][:-1]) and np.array_equal(keys[0][1], keys[1][1][:-1])
    assert (
        keys[0][1].tolist()
        == [timestamps.TIME] * 3 + [timestamps.BAD] * 2 + [timestamps.TIME] * 2 + [timestamps.BAD] * 5
    )
