"""Ranking inputs that are wrong: one sentence naming the file, the line and what was expected.

No message may reveal a gold relevance judgment: the qrels' grades never
appear, and a prediction message names only what the participant wrote.
"""

import os
import re
import zipfile

import pytest

from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.errors import ConfigError, SubmissionError
from leaderboard_ci.scoring.readers import read_gold, read_predictions
from leaderboard_ci.tools.local_worker import run_scoring

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = os.path.join(ROOT, "scoring_program")

QRELS = "topic1 0 docA 2\ntopic1 0 docB 0\ntopic1 0 docSecret 1\ntopic2 0 docC 1\ntopic3 0 docD 3\n"
CLEAN_RUN = "topic1 Q0 docA 1 2.5 sys\ntopic1 Q0 docX 2 1.5 sys\ntopic2 Q0 docC 1 0.3 sys\n"
CONFIG = {
    "task": "ranking",
    "metric": "ndcg@10",
    "extra_metrics": ["map", "p@5"],
    "files": {"gold": "qrels.txt"},
    "bootstrap": {"n_resamples": 200, "n_jobs": 1},
}


def gold_of(tmp_path, text=QRELS, name="qrels.txt"):
    ref = tmp_path / "ref"
    ref.mkdir(exist_ok=True)
    (ref / name).write_text(text)
    config = parse_config(dict(CONFIG, files={"gold": name}))
    return config, read_gold(str(ref), config)


def assert_no_gold_leak(message):
    assert "docSecret" not in message
    assert not re.search(r"relevance (is |of |= )?[0-9]", message), message


PREDICTION_CASES = [
    (
        "five_columns",
        "topic1 Q0 docA 1 2.5\n",
        "run.txt line 1: has 5 columns; expected 6 columns: query id, Q0, "
        "document id, rank, score, run tag (a TREC run)",
    ),
    ("csv", "qid,docid,score\ntopic1,docA,1\n", "run.txt line 1: has 1 column; expected 6 columns"),
    ("qrels_submitted", QRELS, "run.txt line 1: has 4 columns; expected 6 columns"),
    (
        "score_text",
        CLEAN_RUN + "topic3 Q0 docD 1 high sys\n",
        "run.txt line 4: the score 'high' (the 5th column) is not a number; expected a number such as 0.5",
    ),
    (
        "score_nan",
        "topic1 Q0 docA 1 nan sys\n",
        "run.txt line 1: the score 'nan' (the 5th column) is not a finite number; expected a finite number",
    ),
    ("score_comma", "topic1 Q0 docA 1 0,5 sys\n", "run.txt line 1: the score '0,5' (the 5th column) is not a number"),
    (
        "score_overflow",
        "topic1 Q0 docA 1 1e309 sys\n",
        "run.txt line 1: the score '1e309' (the 5th column) is beyond the range of a double",
    ),
    (
        "duplicate",
        CLEAN_RUN + "topic1 Q0 docA 3 0.1 sys\n",
        "run.txt line 4: document 'docA' is retrieved again for query 'topic1' (first on line 1); rank each "
        "document once per query",
    ),
    (
        "unknown_query",
        CLEAN_RUN + "topic9 Q0 docA 1 0.1 sys\n",
        "run.txt line 4: query id 'topic9' is not one of the test queries; expected ids like 'topic1'",
    ),
    ("empty", "\n\n", "run.txt retrieves no document for any query"),
]


@pytest.mark.parametrize("name,text,message", PREDICTION_CASES, ids=[c[0] for c in PREDICTION_CASES])
def test_a_bad_run_gets_one_sentence_with_file_and_line(tmp_path, name, text, message):
    config, gold = gold_of(tmp_path)
    path = tmp_path / "run.txt"
    path.write_text(text)
    with pytest.raises(SubmissionError) as info:
        read_predictions(str(path), config, gold)
    assert str(info.value).startswith(message), str(info.value)
    assert "\n" not in str(info.value)
    assert_no_gold_leak(str(info.value))


JSON_CASES = [
    ("syntax", '{"topic1": {"docA": 1.0,}\n}', "run.json line 1: is not valid JSON"),
    ("array", '{"topic1": [1, 2]}', "run.json query 'topic1' must map to an object {document id: score}"),
    (
        "string_score",
        '{"topic1": {"docA": "1.0"}}',
        "run.json query 'topic1', document 'docA': the score is a JSON string; expected a number",
    ),
    ("unknown", '{"nope": {"docA": 1}}', "run.json query id 'nope' is not one of the test queries"),
    (
        "twice",
        '{"topic1": {"docA": 1, "docA": 2}}',
        "run.json query 'topic1': document 'docA' is given twice; give each document once per query",
    ),
    ("query_twice", '{"topic1": {"docA": 1}, "topic1": {"docB": 2}}', "run.json has query 'topic1' twice"),
]


@pytest.mark.parametrize("name,text,message", JSON_CASES, ids=[c[0] for c in JSON_CASES])
def test_a_bad_json_run_names_the_query_and_document(tmp_path, name, text, message):
    config, gold = gold_of(tmp_path)
    path = tmp_path / "run.json"
    path.write_text(text)
    with pytest.raises(SubmissionError) as info:
        read_predictions(str(path), config, gold)
    assert str(info.value).startswith(message), str(info.value)
    assert_no_gold_leak(str(info.value))


GOLD_CASES = [
    (
        "columns",
        "topic1 0 docA\n",
        "ref/qrels.txt line 1: has 3 columns; expected 4 columns: query id, iteration, "
        "document id, relevance (TREC qrels)",
    ),
    ("grade", "topic1 0 docA 2\ntopic1 0 docB high\n", "ref/qrels.txt line 2: the relevance is not a whole number"),
    (
        "duplicate",
        "topic1 0 docSecret 2\ntopic1 0 docSecret 1\n",
        "ref/qrels.txt line 2: the same query and document were judged before, on line 1",
    ),
    ("none_relevant", "topic1 0 docA 0\n", "ref/qrels.txt judges no document relevant"),
    ("empty", "", "ref/qrels.txt has no relevance judgments"),
    (
        "json_twice",
        '{"topic1": {"docSecret": 1, "docSecret": 2}}',
        "ref/qrels.json query (not shown): document (not shown) is given twice",
    ),
]


@pytest.mark.parametrize("name,text,message", GOLD_CASES, ids=[c[0] for c in GOLD_CASES])
def test_a_bad_qrels_file_is_the_organizers_error_and_quotes_nothing(tmp_path, name, text, message):
    file_name = "qrels.json" if name.startswith("json") else "qrels.txt"
    with pytest.raises(ConfigError) as info:
        gold_of(tmp_path, text, file_name)
    assert str(info.value).startswith(message), str(info.value)
    assert_no_gold_leak(str(info.value))


def test_a_missing_query_counts_as_zero_or_is_skipped(tmp_path):
    from leaderboard_ci.scoring.evaluation import evaluate

    for missing, expected in (("zero", 3), ("skip", 2)):
        config = parse_config(dict(CONFIG, extra_metrics=[], missing_queries=missing, metric="hit_rate@1"))
        ref = tmp_path / missing
        ref.mkdir()
        (ref / "qrels.txt").write_text(QRELS)
        gold = read_gold(str(ref), config)
        path = ref / "run.txt"
        path.write_text(CLEAN_RUN)  # topic3 is not answered; topics 1 and 2 are hits at rank 1
        result = evaluate(config, gold, read_predictions(str(path), config, gold))
        assert result.scores[0].score == 2.0 / expected


def _tree(tmp_path, run_text, qrels=QRELS):
    ref = tmp_path / "reference_data"
    ref.mkdir()
    (ref / "qrels.txt").write_text(qrels)
    import yaml

    (ref / "config.yaml").write_text(yaml.safe_dump(CONFIG))
    zip_path = str(tmp_path / "submission.zip")
    with zipfile.ZipFile(zip_path, "w") as archive:
        archive.writestr("run.txt", run_text)
    return str(ref), zip_path


@pytest.mark.parametrize("run_text,code", [(CLEAN_RUN, 0), (CLEAN_RUN + "topic1 Q0 docA 3 x sys\n", 1)])
def test_through_the_worker_a_mistake_is_one_line_and_exit_1(tmp_path, run_text, code):
    ref, zip_path = _tree(tmp_path, run_text)
    result = run_scoring(str(tmp_path / "root"), PROGRAM, ref, zip_path)
    assert result.returncode == code, result.stderr
    if code:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "run.txt line 4: the score 'x' (the 5th column) is not a number" in lines[0], (
            result.stderr
        )
        assert "Traceback" not in result.stderr
        assert_no_gold_leak(result.stderr)
    else:
        assert result.stderr == ""
