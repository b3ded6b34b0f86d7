"""Hostile inputs for the readers of the task types with formats of their own (ranking, QA, CoNLL, ...).

Each file gets one sentence naming the file, the line and what was expected
(or is read right); the TREC-run reader, which works on blocks of bytes with
numpy, is checked against the plain per-line reader it replaced.
"""

import random

import numpy as np
import pytest

from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.readers import read_gold, read_predictions
from leaderboard_ci.tasks import ranking_files

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


def test_the_plain_decimals_are_what_float_gives(tmp_path):
    from leaderboard_ci.tasks import trec_runs

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
