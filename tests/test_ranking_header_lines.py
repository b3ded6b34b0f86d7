"""A TREC run or qrels file whose first row is a header is told it is a header (file, line, what a line holds).

Session 9's sweep: ``qid Q0 docid rank score run`` on line 1 used to be told "query id 'qid' is not one
of the test queries".  A first row is a header when its numeric columns (a run's rank and score, the
qrels' relevance) hold no number; a header written with commas is told both, and a ``#`` line is a comment.
Nothing of the gold is named.
"""

import dataclasses

import pytest
from test_ranking_bad_inputs import assert_no_gold_leak, gold_of

from leaderboard_ci.scoring.errors import ConfigError, SubmissionError
from leaderboard_ci.scoring.readers import read_predictions

RUN_HEADER = (
    "looks like a header line (its 4th and 5th columns are not numbers), but a TREC run has no header; expected "
    "6 columns: query id, Q0, document id, rank, score, run tag on every line: start the file with the first data line"
)
QRELS_HEADER = (
    "looks like a header line (its 4th column is not a number), but a TREC qrels file has no header; expected "
    "4 columns: query id, iteration, document id, relevance on every line: start the file with the first data line"
)
COMMA_HEADER = (
    "; the line looks like a header with its columns separated by commas (','), but a TREC file has no header "
    "and separates its columns by spaces or tabs"
)

COMMENT = "; the line looks like a comment, but a TREC file has none: remove it"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("qid Q0 docid rank score run\ntopic1 Q0 docA 1 2.5 sys\n", "run.txt line 1: " + RUN_HEADER),
        ("\n\nquery\tQ0\tdocno\trank\tscore\ttag\ntopic1\tQ0\tdocA\t1\t2.5\tsys\n", "run.txt line 3: " + RUN_HEADER),
        ("topic1 Q0 docA rank score run\n", "run.txt line 1: " + RUN_HEADER),  # a known query id, still a header
        ("qid\u00a0Q0 docid rank score run\n", "run.txt line 1: " + RUN_HEADER),  # the line-by-line reader
        ("query_id,Q0,doc_id,rank,score,run\ntopic1,Q0,docA,1,2.5,s\n", "run.txt line 1: has 1 column"),
        ("\n\nquery_id,Q0,doc_id,rank,score,run\n", "run.txt line 3: has 1 column"),  # the first row, not line 1
        ("\n# run of 2026\ntopic1 Q0 docA 1 2.5 sys\n", "run.txt line 2: has 4 columns; expected 6 columns"),
        (
            "topic1;docA;2.5\n",
            "run.txt line 1: has 1 column; expected 6 columns: query id, Q0, document id, rank, "
            "score, run tag (a TREC run); its fields are separated by semicolons (';'), but a TREC file separates its "
            "6 columns by spaces or tabs",
        ),
        ("topic1 Q0 docA 1 2.5 sys\n#\u00a0end\n", "run.txt line 2: has 2 columns; expected 6 columns"),
        # not a header: a number among the numeric columns, or a later line
        ("topic1 Q0 docA 1 x run\n", "run.txt line 1: the score 'x' (the 5th column) is not a number"),
        ("qid Q0 docid 1 score run\n", "run.txt line 1: query id 'qid' is not one of the test queries"),
        ("topic1 Q0 docA 1 2 s\nqid Q0 docid rank score run\n", "run.txt line 2: query id 'qid' is not one of"),
    ],
)
def test_a_run_whose_first_row_is_a_header_is_told_so(tmp_path, text, expected):
    config, gold = gold_of(tmp_path)
    (tmp_path / "run.txt").write_text(text)
    with pytest.raises(SubmissionError) as info:
        read_predictions(str(tmp_path / "run.txt"), config, gold)
    message = str(info.value)
    assert message.startswith(expected), message
    assert message.endswith(COMMA_HEADER) == ("," in text), message
    assert message.endswith(COMMENT) == ("#" in text), message
    assert_no_gold_leak(message)


def test_a_header_is_told_so_when_unscored_queries_are_ignored(tmp_path):
    """``files.unscored_ids: ignore`` drops the lines of other queries: a header is still a header, not one of them."""
    config, gold = gold_of(tmp_path)
    config = dataclasses.replace(config, files=dataclasses.replace(config.files, unscored_ids="ignore"))
    (tmp_path / "run.txt").write_text("qid Q0 docid rank score run\ntopic1 Q0 docA 1 2.5 sys\n")
    with pytest.raises(SubmissionError) as info:
        read_predictions(str(tmp_path / "run.txt"), config, gold)
    assert str(info.value) == "run.txt line 1: " + RUN_HEADER, str(info.value)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("qid iter docid rel\ntopic1 0 docA 2\n", "ref/qrels.txt line 1: " + QRELS_HEADER),
        ("query_id,iteration,doc_id,relevance\ntopic1,0,docA,2\n", "ref/qrels.txt line 1: has 1 column"),
        ("topic1 0 docA 2\nqid iter docid rel\n", "ref/qrels.txt line 2: the relevance is not a whole number"),
        ("\nquery_id,iteration,doc_id,relevance\n", "ref/qrels.txt line 2: has 1 column"),
    ],
)
def test_qrels_whose_first_row_is_a_header_are_told_so(tmp_path, text, expected):
    with pytest.raises(ConfigError) as info:
        gold_of(tmp_path, text)
    message = str(info.value)
    assert message.startswith(expected), message
    assert message.endswith(COMMA_HEADER) == ("," in text), message
