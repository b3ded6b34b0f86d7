"""Hostile inputs for the readers of the task types with formats of their own (ranking, QA, CoNLL, ...).

Each file gets one sentence naming the file, the line and what was expected
(or is read right); the TREC-run reader, which works on blocks of bytes with
numpy, is checked against the plain per-line reader it replaced.
"""

import os
import random
import re

import numpy as np
import pytest
from _forked_runs import ForkedScoring

from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.errors import SubmissionError
from leaderboard_ci.scoring.readers import read_gold, read_predictions
from leaderboard_ci.tasks.ranking import files as ranking_files

RANKING = {"task": "ranking", "metric": "ndcg@10", "files": {"gold": "qrels.txt"}}


def _ranking_gold(tmp_path, qrels):
    ref = tmp_path / "ref"
    ref.mkdir(exist_ok=True)
    (ref / "qrels.txt").write_text(qrels, encoding="utf-8")
    config = parse_config(RANKING)
    return config, read_gold(str(ref), config)


def _reference_run(gold, rows):
    """The encoded run as the per-line reader made it: ``rows`` is ``[(qid, doc, score), ...]``."""
    index = dict((qid, q) for q, qid in enumerate(gold.ids))
    rankings = [[] for _ in gold.ids]
    for qid, doc, score in rows:
        rankings[index[qid]].append((doc, float(score) + 0.0))
    return ranking_files.run_array(gold.values, rankings)


def _random_case(rng, n_queries=7):
    prefix = rng.choice(["", "doc", "clueweb09-en0000-00-", "ñ", "x" * 300])
    docs = [prefix + str(rng.randint(0, 60)) + rng.choice(["", "a", "\u00e9", "zz"]) for _ in range(200)]
    qids = ["q%d" % q for q in range(n_queries)]
    qrels, seen = [], set()
    for _ in range(80):
        qid, doc = rng.choice(qids), rng.choice(docs)
        if (qid, doc) not in seen:
            seen.add((qid, doc))
            qrels.append("%s 0 %s %d" % (qid, doc, rng.randint(0, 3)))
    if ("q0", docs[0]) not in seen:
        qrels.append("q0 0 %s 1" % docs[0])
    rows, used = [], set()
    for _ in range(rng.randint(1, 400)):
        qid, doc = rng.choice(qids), rng.choice(docs)
        if (qid, doc) in used:
            continue
        used.add((qid, doc))
        score = rng.choice(["0", "-0", "1", "0.5", "%.2f" % rng.random(), "1e-3", "-2.5E+2", "3.", ".25"])
        rows.append((qid, doc, score))
    return "\n".join(qrels) + "\n", rows


@pytest.mark.parametrize("seed", range(40))
def test_the_block_reader_ranks_as_the_line_reader(tmp_path, seed):
    rng = random.Random(seed)
    qrels, rows = _random_case(rng)
    config, gold = _ranking_gold(tmp_path, qrels)
    text = "".join("%s Q0 %s %d %s run\n" % (q, d, k, s) for k, (q, d, s) in enumerate(rows))
    if seed % 3 == 1:
        text = text.replace("\n", "\r\n")
    if seed % 5 == 2:
        text = "\ufeff" + text.replace(" ", "\t")
    path = tmp_path / "run.txt"
    path.write_text(text, encoding="utf-8")
    got = read_predictions(str(path), config, gold)
    expected = _reference_run(gold, rows)
    assert np.array_equal(got["retrieved"], expected["retrieved"])
    assert np.array_equal(got["rank"], expected["rank"]), seed


SCORES = [
    "0",
    "-0",
    "+1",
    "1.",
    ".5",
    "-.5",
    "0.134",
    "123456789012345",
    "1234567890123456",
    "0.1000000000000001",
    "1e-3",
    "-2.5E+2",
    "9007199254740993",
    "3.14159265358979",
    "00012.5000",
    "1e308",
    "4.9e-324",
    "-0.0",
]


def test_a_json_run_beyond_its_limit_is_refused_before_parsing(tmp_path, monkeypatch):
    config, gold = _ranking_gold(tmp_path, "q0 0 d1 1\n")
    path = tmp_path / "run.json"
    path.write_text('{"q0": {"d1": 1.0,%s "d2": 0.5}}' % (" " * 3000))
    assert read_predictions(str(path), config, gold)["retrieved"].tolist() == [2]
    monkeypatch.setattr(ranking_files, "MAX_JSON_RUN_BYTES", 2000)
    with pytest.raises(SubmissionError) as info:
        read_predictions(str(path), config, gold)
    assert str(info.value).startswith("run.json is a JSON run of 0.0 MB; a JSON run is read up to 0 MB")
    assert "send larger runs as TREC runs" in str(info.value)


def test_the_plain_decimals_are_what_float_gives(tmp_path):
    from leaderboard_ci.tasks.ranking import trec_runs

    raw = (" ".join(SCORES)).encode() + b"\x00" * 8
    data = np.frombuffer(raw, np.uint8)[:-8]
    starts, k = [], 0
    for token in SCORES:
        starts.append(k)
        k += len(token) + 1
    starts = np.array(starts)
    lengths = np.array([len(t) for t in SCORES])
    values, bad = trec_runs._scores(data, trec_runs._word_view(raw), starts, lengths)
    assert not bad.any()
    assert [v.hex() for v in values.tolist()] == [(float(t) + 0.0).hex() for t in SCORES]


# ---------------------------------------------------------------------------
# A hostile corpus through the scoring program, as the worker runs it
# ---------------------------------------------------------------------------
SECRETS = ("docSecret", "SECRETTYPE", "zeta_secret", "Secret answer")
PAD = " " * (4_500_000)  # inside a JSON document: one line longer than the 4,194,304-character line limit
QRELS = "topic1 0 docA 2\ntopic1 0 docSecret 1\ntopic2 0 docC 1\ntopic3 0 docD 3\n"
RUN = "topic1 Q0 docA 1 2.5 sys\ntopic1 Q0 docX 2 1.5 sys\ntopic2 Q0 docC 1 0.3 sys\n"
SQUAD = (
    '{"version": "1.1", "data": [{"title": "t", "paragraphs": [{"context": "c", "qas": ['
    '{"id": "q1", "question": "?", "answers": [{"text": "Secret answer", "answer_start": 0}]},'
    '{"id": "q2", "question": "?", "answers": [{"text": "other words", "answer_start": 0}]}]}]}]}'
)
CONLL = "EU B-SECRETTYPE\nrejects I-SECRETTYPE\ncalls O\n\nPeter B-PER\nBlackburn I-PER\nsays O\n"
MULTI_GOLD = "id,labels\nt1,alpha|beta\nt2,\nt3,gamma\nt4,alpha|gamma\nt5,zeta_secret\n"
SCORES_GOLD = "id,label\na,cat\nb,dog\nc,bird\nd,cat\n"
CLS_GOLD = "id,label\nx1,pos\nx2,neg\nx3,pos\n"

TASKS = {
    "ranking": ({"task": "ranking", "metric": "ndcg@10", "files": {"gold": "qrels.txt"}}, "qrels.txt", QRELS),
    "qa": ({"task": "qa", "metric": "f1", "files": {"gold": "gold.json"}}, "gold.json", SQUAD),
    "sequence": (
        {"task": "sequence", "metric": "f1_micro", "scheme": "IOB2", "files": {"gold": "gold.conll"}},
        "gold.conll",
        CONLL,
    ),
    "multilabel": (
        {"task": "multilabel", "metric": "f1_macro", "labels": ["alpha", "beta", "gamma", "zeta_secret"]},
        "gold.csv",
        MULTI_GOLD,
    ),
    "scores": ({"task": "scores", "metric": "roc_auc_ovr", "labels": ["cat", "dog", "bird"]}, "gold.csv", SCORES_GOLD),
    "classification": (
        {"task": "classification", "metric": "accuracy", "labels": ["pos", "neg"]},
        "gold.csv",
        CLS_GOLD,
    ),
}
BIG = "9" * 5000


def _utf16(text):
    return "\ufeff".encode("utf-16-le") + text.encode("utf-16-le")


#: (task, case name, {zip member: text or bytes}, regex of the one line on stderr, or None: accepted)
CORPUS = [
    ("ranking", "clean", {"run.txt": RUN}, None),
    ("ranking", "crlf_bom_tabs", {"run.txt": "\ufeff" + RUN.replace(" ", "\t").replace("\n", "\r\n")}, None),
    ("ranking", "utf16", {"run.txt": _utf16(RUN)}, None),
    ("ranking", "nbsp_inside", {"run.txt": RUN + "topic3 Q0 do\u00a0cZ 1 0.1 sys\n"}, r"^run\.txt line 4: has 7 col"),
    ("ranking", "nul", {"run.txt": RUN.replace("docX", "do\x00X")}, r"^run\.txt line 2: the line holds a NUL byte"),
    ("ranking", "minified_json", {"run.json": '{"topic1": {"docA": 1.5,%s "docB": 0.5}}' % PAD}, None),
    (
        "ranking",
        "json_string_score",
        {"run.json": '{"topic1": {"docA": "1.5"}}'},
        r"^run\.json query 'topic1', document 'docA': the score is a JSON string; expected a number",
    ),
    ("ranking", "json_overflow", {"run.json": '{"topic1": {"docA": 1e309}}'}, r"beyond the range of a double"),
    ("ranking", "json_long_int", {"run.json": '{"topic1": {"docA": %s}}' % BIG}, r"beyond the range of a double"),
    (
        "ranking",
        "json_deep",
        {"run.json": '{"topic1": ' + "[" * 100000 + "]" * 100000 + "}"},
        r"^run\.json holds JSON nested too deeply; expected two levels",
    ),
    (
        "ranking",
        "json_dup_doc",
        {"run.json": '{"topic1": {"docA": 1, "docA": 2}}'},
        r"^run\.json query 'topic1': document 'docA' is given twice",
    ),
    ("ranking", "score_1e308", {"run.txt": "topic1 Q0 docA 1 1e308 sys\n"}, None),
    (
        "ranking",
        "score_1e309",
        {"run.txt": RUN + "topic1 Q0 docB 3 1e309 sys\n"},
        r"^run\.txt line 4: the score '1e309' \(the 5th column\) is beyond the range of a double",
    ),
    ("ranking", "score_long", {"run.txt": "topic1 Q0 docA 1 %s sys\n" % BIG}, r"^run\.txt line 1: the score '9999"),
    (
        "ranking",
        "duplicate",
        {"run.txt": RUN + "topic1 Q0 docA 9 0.1 sys\n"},
        r"^run\.txt line 4: document 'docA' is retrieved again for query 'topic1' \(first on line 1\)",
    ),
    ("ranking", "unknown_first", {"run.txt": RUN + "nope Q0 d 1 1 r\n" * 1000}, r"^run\.txt line 4: query id 'nope'"),
    (
        "ranking",
        "long_line",
        {"run.txt": "topic1 Q0 " + "d" * 4_500_000 + " 1 1 r\n"},
        r"^run\.txt line 1: the line is longer than 4,194,304 characters",
    ),
    (
        "ranking",
        "two_folders",
        {"a/run.txt": RUN, "b/run.txt": RUN},
        r"^the submission has 2 folders holding a file named 'run\.txt' \(a/run\.txt, b/run\.txt\); expected one",
    ),
    ("qa", "clean", {"predictions.json": '{"q1": "an answer", "q2": "other"}'}, None),
    ("qa", "minified_long", {"predictions.json": '{"q1": "x",%s "q2": "y"}' % PAD}, None),
    ("qa", "utf16", {"predictions.json": _utf16('{"q1": "a", "q2": "b"}')}, None),
    (
        "qa",
        "long_number",
        {"predictions.json": '{"q1": %s, "q2": "b"}' % BIG},
        r"^predictions\.json line 1: the answer to question 'q1' is a JSON number; expected a string \(write it in",
    ),
    (
        "qa",
        "deep",
        {"predictions.json": '{"q1": ' + "[" * 100000 + "]" * 100000 + "}"},
        r"^predictions\.json line 1: the JSON is nested too deeply; expected \{",
    ),
    (
        "qa",
        "squad_submitted",
        {"predictions.json": SQUAD.replace("Secret answer", "x")},
        r"^predictions\.json line 1: holds the key 'version' of a SQuAD dataset file; expected the answers alone",
    ),
    ("qa", "unknown", {"predictions.json": '{"q9": "a", "q1": "b"}'}, r"^predictions\.json line 1: question id 'q9'"),
    ("qa", "list", {"predictions.json": '["a", "b"]'}, r"^predictions\.json line 1: is a JSON list; expected a JSON"),
    ("sequence", "clean", {"pred.conll": "EU O\nrejects O\ncalls O\n\nPeter B-PER\nBlackburn I-PER\nsays O\n"}, None),
    ("sequence", "crlf", {"pred.conll": "EU O\r\nrejects O\r\ncalls O\r\n\r\nPeter B-PER\r\nB I-PER\r\ns O\r\n"}, None),
    (
        "sequence",
        "missing_blank",
        {"pred.conll": "EU O\nrejects O\ncalls O\nPeter B-PER\nBlackburn I-PER\nsays O\n"},
        r"^pred\.conll line 4: sentence 1 \(from line 1\) should end before this line",
    ),
    (
        "sequence",
        "extra_blank",
        {"pred.conll": "EU O\n\nrejects O\ncalls O\n\nPeter B-PER\nBlackburn I-PER\nsays O\n"},
        r"^pred\.conll line 2: sentence 1 \(from line 1\) ends here after 1 token,",
    ),
    (
        "sequence",
        "nul",
        {"pred.conll": "EU O\nrejects \x00O\ncalls O\n\nPeter B-PER\nBlackburn I-PER\nsays O\n"},
        r"^pred\.conll line 2: the line holds a NUL byte",
    ),
    ("multilabel", "clean", {"predictions.csv": "id,labels\nt1,alpha\nt2,\nt3,gamma\nt4,beta\nt5,alpha\n"}, None),
    (
        "multilabel",
        "minified_json",
        {"predictions.json": '{"t1": ["alpha"], "t2": [],%s "t3": ["gamma"], "t4": [], "t5": []}' % PAD},
        None,
    ),
    (
        "multilabel",
        "unknown_first",
        {"predictions.csv": "id,labels\nt1,alpha\n" + "zz,alpha\n" * 100000},
        r"^predictions\.csv line 3: id 'zz' is not in the test set; expected ids like 't1'$",
    ),
    (
        "multilabel",
        "json_deep",
        {"predictions.json": '{"t1": ' + "[" * 100000 + "]" * 100000 + "}"},
        r"^predictions\.json line 1: the JSON is nested too deeply; expected",
    ),
    ("scores", "clean", {"predictions.csv": "id,cat,dog,bird\na,1,0,0\nb,0,1,0\nc,0,0,1\nd,1,0,0\n"}, None),
    (
        "scores",
        "1e308",
        {"predictions.csv": "id,cat,dog,bird\na,1e308,0,0\nb,0,1,0\nc,0,0,1\nd,1,0,0\n"},
        r"^predictions\.csv line 2: the .* '1e308' is out of range; expected a number between -1e100 and 1e100$",
    ),
    (
        "scores",
        "dup_column",
        {"predictions.csv": "id,cat,cat,bird\na,1,0,0\n"},
        r"^predictions\.csv line 1: the header names the column 'cat' twice; the header should be",
    ),
    (
        "scores",
        "unknown_first",
        {"predictions.csv": "id,cat,dog,bird\na,1,0,0\n" + "zz,1,0,0\n" * 100000},
        r"^predictions\.csv line 3: id 'zz' is not in the test set; expected ids like 'a'$",
    ),
    (
        "scores",
        "empty_id",
        {"predictions.csv": "id,cat,dog,bird\n,1,0,0\n"},
        r"^predictions\.csv line 2: the id is empty; expected",
    ),
    ("classification", "clean", {"predictions.csv": "id,label\nx1,pos\nx2,neg\nx3,neg\n"}, None),
    ("classification", "utf16_crlf", {"predictions.csv": _utf16("id,label\r\nx1,pos\r\nx2,neg\r\nx3,neg\r\n")}, None),
    (
        "classification",
        "empty_label",
        {"predictions.csv": "id,label\nx1,pos\nx2,\nx3,neg\n"},
        r"^predictions\.csv line 3: the prediction is empty; expected",
    ),
    (
        "classification",
        "dup_column",
        {"predictions.csv": "id,label,label\nx1,pos,pos\n"},
        r"^predictions\.csv line 1: the header names the column 'label' twice; expected each column once",
    ),
]


def _reference(tmp_path, task):
    import yaml

    config, gold_name, gold_text = TASKS[task]
    ref = tmp_path / "reference_data"
    ref.mkdir()
    (ref / gold_name).write_text(gold_text, encoding="utf-8")
    config = dict(config, extra_metrics=[], bootstrap={"n_resamples": 20, "n_jobs": 1})
    config["files"] = dict(config.get("files", {}), gold=gold_name)
    (ref / "config.yaml").write_text(yaml.safe_dump(config))
    return str(ref)


def _submission(tmp_path, files):
    import zipfile

    path = str(tmp_path / "submission.zip")
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content.encode("utf-8") if isinstance(content, str) else content)
    return path


PROGRAM = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scoring_program")


def _job(tmp_path, case, program=PROGRAM):
    """``(root, program, reference, submission)`` of ``case``, in ``tmp_path``."""
    task, _, files, _ = case
    return str(tmp_path / "root"), program, _reference(tmp_path, task), _submission(tmp_path, files)


def _check(tmp_path, case, python=None, program=PROGRAM):
    from leaderboard_ci.tools.local_worker import run_scoring

    _judge(case, run_scoring(*_job(tmp_path, case, program), python=python))


def _judge(case, result):
    task, name, _, expect = case
    if expect is None:
        assert result.returncode == 0, "%s/%s: %s" % (task, name, result.stderr)
        return
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 1, "%s/%s: %s" % (task, name, result.stderr)
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert re.search(expect, lines[0]), "%s/%s: %s" % (task, name, lines[0])
    assert not any(secret in lines[0] for secret in SECRETS), lines[0]
    assert len(lines[0]) < 600, lines[0]


FAST = [c for c in CORPUS if c[1] in ("minified_json", "long_number", "missing_blank", "1e308", "unknown_first")]


@pytest.mark.parametrize("case", FAST, ids=["%s-%s" % c[:2] for c in FAST])
def test_a_hostile_file_gets_one_sentence_or_is_read(tmp_path, case):
    _check(tmp_path, case)


@pytest.mark.image
# py312 in the slow selection; py37, the image furthest from the host's, represents it in CI (as for the bad inputs)
@pytest.mark.parametrize("image", ["py37", pytest.param("py312", marks=pytest.mark.slow)])
def test_the_hostile_corpus_in_the_images(tmp_path, image, program_compiled_by):
    python = os.environ.get({"py37": "LEADERBOARD_CI_PY37", "py312": "LEADERBOARD_CI_PY312"}[image])
    if not python:
        pytest.skip("set LEADERBOARD_CI_%s to the %s image's interpreter (.ci/run does)" % (image.upper(), image))
    program = program_compiled_by(python)
    jobs = []
    for k, case in enumerate(CORPUS):
        folder = tmp_path / ("%d" % k)
        folder.mkdir()
        jobs.append(_job(folder, case, program))
    # each run a fork of an image interpreter that has imported numpy and the program (tests/_forked_runs.py)
    with ForkedScoring(python, preload=program) as scoring:
        results = scoring.map(jobs)
    failures = []
    for case, result in zip(CORPUS, results):
        try:
            _judge(case, result)
        except AssertionError as exc:
            failures.append(str(exc).splitlines()[0])
    assert not failures, "\n".join(failures)
