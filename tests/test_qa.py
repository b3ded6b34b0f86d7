"""Extractive QA (``task: qa``) equals the SQuAD v1.1 evaluation script, item by item and on replicates.

The reference below is a plain re-implementation of the official
``evaluate-v1.1.py`` functions (``normalize_answer``, ``f1_score``,
``exact_match_score``, ``metric_max_over_ground_truths``, ``evaluate``), with
the Spanish variant (SQAC: the articles el, la, los, las, un, una, unos, unas
and the punctuation ¿ ¡ « » “ ” ‘ ’) written the same way.  A replicate is
given to it as the drawn questions, each repeated as often as it is drawn.
"""

import json
import random
import re
import string
from collections import Counter

import pytest

from leaderboard_ci.core.resampling import replicate_indices
from leaderboard_ci.phase.analysis import analyze
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.errors import ConfigError, SubmissionError
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.scoring.readers import read_gold, read_predictions
from leaderboard_ci.tasks.qa import metrics as qa

TOL = 1e-12


# ---------------------------------------------------------------------------
# The official SQuAD v1.1 formulas (evaluate-v1.1.py), re-implemented plainly
# ---------------------------------------------------------------------------
def normalize_answer(s, language="en"):
    def remove_articles(text):
        if language == "es":
            return re.sub(r"\b(el|la|los|las|un|una|unos|unas)\b", " ", text)
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        if language == "es":
            exclude |= set("¿¡«»“”‘’")
        return "".join(ch for ch in text if ch not in exclude)

    def lower(text):
        return text.lower()

    if language == "none":
        return s
    return white_space_fix(remove_articles(remove_punc(lower(s))))


def f1_score(prediction, ground_truth, language="en"):
    prediction_tokens = normalize_answer(prediction, language).split()
    ground_truth_tokens = normalize_answer(ground_truth, language).split()
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    return (2 * precision * recall) / (precision + recall)


def exact_match_score(prediction, ground_truth, language="en"):
    return normalize_answer(prediction, language) == normalize_answer(ground_truth, language)


def metric_max_over_ground_truths(metric_fn, prediction, ground_truths, language="en"):
    return max(metric_fn(prediction, gt, language) for gt in ground_truths)


def official_evaluate(dataset, predictions, language="en"):
    f1 = exact_match = total = 0
    for article in dataset:
        for paragraph in article["paragraphs"]:
            for qa_ in paragraph["qas"]:
                total += 1
                ground_truths = [x["text"] for x in qa_["answers"]]
                prediction = predictions[qa_["id"]]
                exact_match += metric_max_over_ground_truths(exact_match_score, prediction, ground_truths, language)
                f1 += metric_max_over_ground_truths(f1_score, prediction, ground_truths, language)
    return {"exact_match": 100.0 * exact_match / total, "f1": 100.0 * f1 / total}


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------
WORDS = [
    "the",
    "a",
    "an",
    "el",
    "la",
    "los",
    "unas",
    "Paris",
    "río",
    "Río",
    "año",
    "1998",
    "U.S.",
    "don't",
    "¿qué?",
    "«hola»",
    "state-of-the-art",
    "THE",
    "An",
    "Nile",
    "river",
    "of",
    "de",
    "and",
    "y",
    "café",
]


def make_dataset(seed, n):
    rng = random.Random(seed)
    qas, predictions = [], {}
    for i in range(n):
        answers = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5))) for _ in range(rng.randint(1, 3))]
        ident = "q%04d" % i
        qas.append({"id": ident, "question": "?", "answers": [{"text": a, "answer_start": 0} for a in answers]})
        r = rng.random()
        if r < 0.3:
            pred = rng.choice(answers)
        elif r < 0.5:
            pred = rng.choice(answers).upper() + rng.choice(["", ".", " the", ","])
        elif r < 0.55:
            pred = ""
        else:
            pred = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))
        predictions[ident] = pred
    # three articles, the questions split among them
    dataset = [{"title": "t%d" % k, "paragraphs": [{"context": "...", "qas": qas[k::3]}]} for k in range(3)]
    order = [q["id"] for article in dataset for q in article["paragraphs"][0]["qas"]]
    return {"version": "1.1", "data": dataset}, predictions, order


def _config(normalization="en", n_resamples=40, gold="gold.json"):
    return parse_config(
        {
            "task": "qa",
            "metric": "f1",
            "extra_metrics": ["exact_match"],
            "normalization": normalization,
            "files": {"gold": gold},
            "bootstrap": {"n_resamples": n_resamples, "seed": 3, "n_jobs": 1},
        }
    )


def _write(tmp_path, squad, predictions, gold_name="gold.json"):
    ref = tmp_path / "ref"
    ref.mkdir(exist_ok=True)
    (ref / gold_name).write_text(json.dumps(squad, ensure_ascii=False, indent=1), encoding="utf-8")
    (tmp_path / "predictions.json").write_text(json.dumps(predictions, ensure_ascii=False), encoding="utf-8")
    return str(ref), str(tmp_path / "predictions.json")


# ---------------------------------------------------------------------------
# Parity
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("language", ["en", "es", "none"])
def test_item_by_item_and_replicates_equal_the_official_script(tmp_path, language):
    squad, predictions, order = make_dataset(hash(language) % 100, 150)
    ref, pred_path = _write(tmp_path, squad, predictions)
    config = _config(language)
    gold = read_gold(ref, config)
    assert gold.ids == tuple(order)
    coded = read_predictions(pred_path, config, gold)
    # item by item
    em, f1 = qa.question_scores(gold.values, coded)
    answers = {
        q["id"]: [a["text"] for a in q["answers"]]
        for article in squad["data"]
        for p in article["paragraphs"]
        for q in p["qas"]
    }
    for i, ident in enumerate(order):
        assert em[i] == float(
            metric_max_over_ground_truths(exact_match_score, predictions[ident], answers[ident], language)
        )
        assert f1[i] == metric_max_over_ground_truths(f1_score, predictions[ident], answers[ident], language)
    assert 0 < em.sum() < len(em) and 0 < f1.sum()
    # full sample and replicates
    result = evaluate(config, gold, coded)
    full = official_evaluate(squad["data"], predictions, language)
    scores = {s.key: s for s in result.scores}
    for key in ("exact_match", "f1"):
        assert abs(scores[key].score - full[key] / 100.0) <= TOL
    for b, row in enumerate(replicate_indices(3, len(order), 0, 40)):
        replicate = [
            {
                "paragraphs": [
                    {"qas": [dict(id=order[i], answers=[{"text": t} for t in answers[order[i]]]) for i in row]}
                ]
            }
        ]
        expected = official_evaluate(replicate, predictions, language)
        for key in ("exact_match", "f1"):
            assert abs(scores[key].replicates[b] - expected[key] / 100.0) <= TOL, (key, b)


def test_id_to_answers_gold_and_analyze_api(tmp_path):
    squad, predictions, order = make_dataset(5, 60)
    answers = {
        q["id"]: [a["text"] for a in q["answers"]]
        for article in squad["data"]
        for p in article["paragraphs"]
        for q in p["qas"]
    }
    ref, pred_path = _write(tmp_path, answers, predictions, gold_name="answers.json")
    config = _config(gold="answers.json", n_resamples=30)
    gold = read_gold(ref, config)
    result = evaluate(config, gold, read_predictions(pred_path, config, gold))
    full = official_evaluate(squad["data"], predictions)
    assert abs(result.official.score - full["f1"] / 100.0) <= TOL
    other = {k: "" for k in predictions}
    phase = analyze(
        [answers[k] for k in order],
        {"sys": [predictions[k] for k in order], "empty": [other[k] for k in order]},
        config=config,
    )
    systems = phase.targets["f1"].systems
    scores = dict(zip(systems["name"], systems["score"]))
    assert abs(scores["sys"] - full["f1"] / 100.0) <= TOL and scores["empty"] == 0.0


def test_spanish_articles_are_the_stated_list():
    normalize = qa.normalizer("es")
    assert normalize("¿El Río de LA Plata, unos años?") == "río de plata años"
    assert normalize("lo que") == "lo que"  # "lo" is also a pronoun: kept
    assert qa.SPANISH_ARTICLES == ("el", "la", "los", "las", "un", "una", "unos", "unas")


def test_settings_are_validated():
    with pytest.raises(ConfigError) as info:
        _config("fr")
    assert "normalization must be one of: en, es, none" in str(info.value)


# ---------------------------------------------------------------------------
# Bad input: one sentence naming the file and line, never a gold answer
# ---------------------------------------------------------------------------
SECRET = "Zanzibarian secret answer"


@pytest.fixture
def gold_setup(tmp_path):
    squad = {
        "version": "1.1",
        "data": [
            {
                "paragraphs": [
                    {"qas": [{"id": "q1", "answers": [{"text": SECRET}]}, {"id": "q2", "answers": [{"text": "other"}]}]}
                ]
            }
        ],
    }
    ref, _ = _write(tmp_path, squad, {})
    config = _config()
    return tmp_path, config, read_gold(ref, config)


def _message(gold_setup, text):
    tmp_path, config, gold = gold_setup
    path = tmp_path / "predictions.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SubmissionError) as info:
        read_predictions(str(path), config, gold)
    message = str(info.value)
    assert "\n" not in message and "Zanzibar" not in message and "'other'" not in message
    return message


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"q1": "x"}', "predictions.json has no answer for 1 of the 2 test questions (e.g. 'q2')"),
        ('{"q1": "x", "q2": "y", "q3": "z"}', "predictions.json line 1: question id 'q3' is not in the test set"),
        (
            '{"q1": "x",\n "q2": 3}',
            "predictions.json line 2: the answer to question 'q2' is a JSON number; expected a string",
        ),
        ('{"q1": ["x"], "q2": "y"}', "the answer to question 'q1' is a JSON list"),
        ('{"q1": null, "q2": "y"}', "the answer to question 'q1' is a JSON null"),
        ('["x", "y"]', "predictions.json line 1: is a JSON list; expected a JSON object"),
        ('"x"', "predictions.json line 1: does not start a JSON object"),
        ("", "predictions.json is empty"),
        ('{"q1": "x", "q1": "y", "q2": "z"}', "question id 'q1' appears again (first on line 1)"),
        ('{"q1": "x", "q2": ' + "[" * 100000 + "]" * 100000 + "}", "line 1: the JSON is nested too deeply"),
        ('{"q1": "x", "q2": "y"', "predictions.json line 1: not valid JSON"),
        ('{"q1": "x", "q2": "y"} extra', "extra data after the object"),
    ],
)
def test_bad_predictions(gold_setup, text, expected):
    assert expected in _message(gold_setup, text)


def test_an_empty_answer_is_allowed_and_scores_zero(gold_setup):
    tmp_path, config, gold = gold_setup
    path = tmp_path / "predictions.json"
    path.write_text('{"q1": "", "q2": "Other"}')
    result = evaluate(config, gold, read_predictions(str(path), config, gold))
    scores = {s.key: s.score for s in result.scores}
    assert scores == {"f1": 0.5, "exact_match": 0.5}


def test_bad_gold_names_the_question_not_the_answer(tmp_path):
    ref = tmp_path / "ref"
    ref.mkdir()
    (ref / "gold.json").write_text('{"q1": ["a secret"],\n"q2": 5}')
    with pytest.raises(ConfigError) as info:
        read_gold(str(ref), _config())
    assert str(info.value) == "ref/gold.json line 2: question 'q2' needs a non-empty list of answer strings"
    (ref / "gold.json").write_text('{"data": [{"paragraphs": [{"qas": [{"id": "q1", "answers": []}]}]}]}')
    with pytest.raises(ConfigError) as info:
        read_gold(str(ref), _config())
    assert 'data[0].paragraphs[0].qas[0] needs "answers"' in str(info.value)


def test_both_layouts_give_the_same_bytes():
    from leaderboard_ci.core.accumulators import block_counts_factory
    from leaderboard_ci.tasks.shared.scorer import SystemScorer

    squad, predictions, order = make_dataset(17, 300)
    answers = {
        q["id"]: [a["text"] for a in q["answers"]]
        for article in squad["data"]
        for p in article["paragraphs"]
        for q in p["qas"]
    }
    config = _config()
    values, _, coded = qa.encode_values([answers[k] for k in order], {"s": [predictions[k] for k in order]}, None, None)
    from leaderboard_ci.tasks.shared.base import GoldStandard

    gold = GoldStandard(values=values, task="qa")
    plain = SystemScorer(config.metrics, gold, coded["s"])
    reduced = SystemScorer(config.metrics, gold, coded["s"], layout="reduced")
    idx = replicate_indices(3, gold.n, 0, 50)
    out = []
    for scorer in (plain, reduced):
        counts = block_counts_factory(idx, gold.n)
        full = scorer.scores([a.full()[None, :] for a in scorer.accumulators])
        reps = scorer.scores([a.block(idx, counts) for a in scorer.accumulators])
        out.append((full.tobytes(), reps.tobytes()))
    assert out[0] == out[1]
    assert type(plain.accumulators[0]).__name__ == "CodeCounts"
    assert type(reduced.accumulators[0]).__name__ == "ExactSums"
