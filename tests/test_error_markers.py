"""The "first line is data, not a header" error carries a marker (``data_not_header``), not only its text.

``scoring/resampling_units.py`` keeps that error of a ``bootstrap.design_file`` (it names the line) and
rewords every other; it used to tell them apart by matching the message's text.
"""

import pytest

from leaderboard_ci.scoring.errors import ConfigError, SubmissionError, data_not_header
from leaderboard_ci.scoring.formats import Columns, Source, open_table, own_rows_test


@pytest.mark.parametrize(
    "text, marked",
    [
        ("q1,t0\nq2,t0\nq3,t1\n", True),  # no header: the first row is data
        ("query,group\nq1,t0\nq2,t1\n", False),  # a header, with other names
        ("id,topic\nq1,t0\n", None),  # reads
    ],
)
def test_a_headerless_table_error_is_marked(tmp_path, text, marked):
    path = tmp_path / "topics.csv"
    path.write_text(text)
    source = Source(str(path), "ref/topics.csv", error=ConfigError, may_quote=False)
    columns = Columns(("topic",), id="id", id_required=True, looks_like_data=own_rows_test(source, ("id", "topic")))
    if marked is None:
        assert [row[1] for row in open_table(source, "auto", columns).rows] == ["q1"]
        return
    with pytest.raises(ConfigError) as info:
        list(open_table(source, "auto", columns).rows)
    assert info.value.data_not_header is marked, info.value.message
    assert info.value.message.startswith("ref/topics.csv line 1: "), info.value.message


def test_the_marker_is_off_by_default_and_set_on_the_error_given():
    error = SubmissionError("x.csv line 1: ...")
    assert error.data_not_header is False and ConfigError("...").data_not_header is False
    assert data_not_header(error) is error and error.data_not_header is True
