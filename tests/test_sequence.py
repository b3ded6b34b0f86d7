"""Sequence labelling (``task: sequence``) equals seqeval on the full sample and on every replicate.

A replicate is given to seqeval as the list of drawn sentences (or the
sentences of the drawn documents), each repeated as many times as it is drawn;
ours re-weights the per-unit counts.  Both modes, all six schemes, every
average, to 1e-12.  Then the readers: CoNLL and JSON Lines, documents, and
one sentence per bad input naming file and line, never quoting the gold.
"""

import random
import warnings

import numpy as np
import pytest

seqeval = pytest.importorskip("seqeval")
from seqeval import scheme as seqeval_scheme  # noqa: E402
from seqeval.metrics import accuracy_score  # noqa: E402
from seqeval.metrics.sequence_labeling import get_entities  # noqa: E402
from seqeval.metrics.sequence_labeling import precision_recall_fscore_support as prfs_default  # noqa: E402
from seqeval.metrics.v1 import precision_recall_fscore_support as prfs_strict  # noqa: E402

from leaderboard_ci.core.resampling import replicate_indices  # noqa: E402
from leaderboard_ci.scoring.config import parse_config  # noqa: E402
from leaderboard_ci.scoring.errors import ConfigError, SubmissionError  # noqa: E402
from leaderboard_ci.scoring.evaluation import evaluate  # noqa: E402
from leaderboard_ci.scoring.readers import read_gold, read_predictions  # noqa: E402
from leaderboard_ci.tasks.sequence import metrics as sq  # noqa: E402
from leaderboard_ci.tasks.sequence.tagging import STRICT_PREFIXES  # noqa: E402

TOL = 1e-12
TYPES = ("LOC", "MISC", "ORG", "PER")
AVERAGED = ["%s_%s" % (m, a) for m in ("precision", "recall", "f1") for a in ("micro", "macro", "weighted")]


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------
def spans_to_tags(spans, length, scheme):
    """Well-formed tags of non-overlapping spans ``(type, start, end exclusive)`` in ``scheme``."""
    tags = ["O"] * length
    ordered = sorted(spans, key=lambda s: s[1])
    for k, (t, a, b) in enumerate(ordered):
        prev_adjacent = k > 0 and ordered[k - 1][2] == a and ordered[k - 1][0] == t
        next_adjacent = k + 1 < len(ordered) and ordered[k + 1][1] == b and ordered[k + 1][0] == t
        for i in range(a, b):
            tags[i] = "I-" + t
        if scheme == "IOB2" or (scheme == "IOB1" and prev_adjacent):
            tags[a] = "B-" + t
        elif scheme == "IOE2" or (scheme == "IOE1" and next_adjacent):
            tags[b - 1] = "E-" + t
        elif scheme in ("IOBES", "BILOU"):
            single, first, last = ("S", "B", "E") if scheme == "IOBES" else ("U", "B", "L")
            if b - a == 1:
                tags[a] = single + "-" + t
            else:
                tags[a], tags[b - 1] = first + "-" + t, last + "-" + t
    return tags


def random_spans(rng, length):
    spans, i = [], 0
    while i < length:
        if rng.random() < 0.3:
            size = min(length - i, rng.choice([1, 1, 2, 3]))
            spans.append((rng.choice(TYPES[:3] if rng.random() < 0.9 else TYPES), i, i + size))
            i += size
        else:
            i += 1
    return spans


def corpus(seed, n, scheme, noise=0.15):
    """Gold sentences (well formed in ``scheme``) and a noisy system's tags (any of the scheme's prefixes)."""
    rng = random.Random(seed)
    prefixes = STRICT_PREFIXES[scheme]
    gold, pred = [], []
    for _ in range(n):
        length = rng.randint(1, 12)
        spans = random_spans(rng, length)
        g = spans_to_tags(spans, length, scheme)
        if rng.random() < 0.5:
            p = list(g)
        else:
            p = spans_to_tags([s for s in spans if rng.random() < 0.8] + [], length, scheme)
        p = [
            ("O" if rng.random() < 0.5 else rng.choice(prefixes) + "-" + rng.choice(TYPES[:3]))
            if rng.random() < noise
            else t
            for t in p
        ]
        gold.append(g)
        pred.append(p)
    # every type occurs in the gold
    gold[0] = spans_to_tags([(t, i, i + 1) for i, t in enumerate(TYPES)], len(TYPES), scheme)
    pred[0] = list(gold[0])
    return gold, pred


# ---------------------------------------------------------------------------
# Reference
# ---------------------------------------------------------------------------
SCHEME_CLASSES = {name: getattr(seqeval_scheme, name) for name in sq.SCHEMES}


def for_seqeval(sentences, scheme, mode):
    """seqeval's default mode reads BILOU's L and U as E and S (our documented rule)."""
    if mode == "default" and scheme == "BILOU":
        return [[("E" + t[1:] if t[:1] == "L" else "S" + t[1:] if t[:1] == "U" else t) for t in s] for s in sentences]
    return sentences


def seqeval_scores(gold, pred, scheme, mode, zero_division):
    y_true, y_pred = for_seqeval(gold, scheme, mode), for_seqeval(pred, scheme, mode)
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for average in ("micro", "macro", "weighted"):
            if mode == "strict":
                p, r, f, _ = prfs_strict(
                    y_true, y_pred, average=average, zero_division=zero_division, scheme=SCHEME_CLASSES[scheme]
                )
            else:
                p, r, f, _ = prfs_default(y_true, y_pred, average=average, zero_division=zero_division)
            out["precision_" + average], out["recall_" + average], out["f1_" + average] = p, r, f
        out["accuracy"] = accuracy_score(y_true, y_pred)
    return out


# ---------------------------------------------------------------------------
# Entity extraction
# ---------------------------------------------------------------------------
def _pairs(tags):
    return [("O", "_") if t == "O" else (t[0], t[2:]) for t in tags]


@pytest.mark.parametrize("scheme", sq.SCHEMES)
def test_strict_extraction_equals_seqeval_tokens(scheme):
    rng = random.Random(7)
    prefixes = STRICT_PREFIXES[scheme]
    for _ in range(1500):
        tags = [
            ("O" if rng.random() < 0.35 else rng.choice(prefixes) + "-" + rng.choice("AB"))
            for _ in range(rng.randint(1, 8))
        ]
        ours = sorted(sq.entities_strict(_pairs(tags), scheme))
        ref = sorted((e.tag, e.start, e.end) for e in seqeval_scheme.Tokens(tags, SCHEME_CLASSES[scheme]).entities)
        assert ours == ref, tags


def test_default_extraction_equals_get_entities():
    rng = random.Random(8)
    for _ in range(3000):
        tags = [
            ("O" if rng.random() < 0.35 else rng.choice("BIES") + "-" + rng.choice("AB"))
            for _ in range(rng.randint(1, 8))
        ]
        ours = sorted((t, a, b - 1) for t, a, b in sq.entities_default(_pairs(tags)))
        assert ours == sorted(get_entities(tags)), tags


# ---------------------------------------------------------------------------
# Metrics: full sample and replicates, through the scoring program's readers
# ---------------------------------------------------------------------------
def write_conll(path, sentences, documents=None, tokens=True):
    with open(path, "w", encoding="utf-8") as handle:
        for i, sentence in enumerate(sentences):
            if documents is not None and (i == 0 or documents[i] != documents[i - 1]):
                handle.write("-DOCSTART- -X- -X- O\n\n")
            for k, tag in enumerate(sentence):
                handle.write(("w%d %s\n" % (k, tag)) if tokens else tag + "\n")
            handle.write("\n")


def config_for(scheme, mode, unit="sentence", zero_division=0, n_resamples=40, extra=None):
    data = {
        "task": "sequence",
        "metric": "f1_micro",
        "scheme": scheme,
        "mode": mode,
        "unit": unit,
        "extra_metrics": [m for m in AVERAGED if m != "f1_micro"] + ["accuracy"],
        "zero_division": zero_division,
        "files": {"gold": "gold.conll"},
        "bootstrap": {"n_resamples": n_resamples, "seed": 5, "n_jobs": 1},
    }
    data.update(extra or {})
    return parse_config(data)


def _score(tmp_path, config, gold, pred, documents=None):
    ref = tmp_path / "ref"
    ref.mkdir(exist_ok=True)
    write_conll(str(ref / config.files.gold), gold, documents)
    write_conll(str(tmp_path / "pred.conll"), pred, documents, tokens=False)
    gold_std = read_gold(str(ref), config)
    predictions = read_predictions(str(tmp_path / "pred.conll"), config, gold_std)
    return gold_std, evaluate(config, gold_std, predictions)


@pytest.mark.parametrize("scheme", sq.SCHEMES)
@pytest.mark.parametrize("mode", sq.MODES)
def test_every_metric_equals_seqeval_on_full_sample_and_replicates(tmp_path, scheme, mode):
    gold, pred = corpus(hash((scheme, mode)) % 1000, 60, scheme)
    config = config_for(scheme, mode, zero_division=0)
    gold_std, result = _score(tmp_path, config, gold, pred)
    assert gold_std.n == len(gold)
    expected_full = seqeval_scores(gold, pred, scheme, mode, 0)
    rows = replicate_indices(5, len(gold), 0, 40)
    expected_reps = [seqeval_scores([gold[i] for i in row], [pred[i] for i in row], scheme, mode, 0) for row in rows]
    checked = 0
    for score in result.scores:
        assert abs(score.score - expected_full[score.key]) <= TOL, score.key
        np.testing.assert_allclose(
            score.replicates, [e[score.key] for e in expected_reps], rtol=0, atol=TOL, err_msg=score.key
        )
        checked += 1
    assert checked == 10


@pytest.mark.parametrize("zero_division", [0, 1])
def test_zero_division_and_types_absent_from_a_replicate(tmp_path, zero_division):
    # A rare type (one sentence) is missing from many replicates: seqeval's macro then averages over the
    # types present, and weighted/recall use zero_division where nothing is true.
    gold, pred = corpus(3, 25, "IOB2", noise=0.3)
    gold.append(["B-RARE", "I-RARE", "O"])
    pred.append(["O", "B-RARE", "O"])
    config = config_for(
        "IOB2", "default", zero_division=zero_division, n_resamples=60, extra={"labels": list(TYPES) + ["RARE"]}
    )
    _, result = _score(tmp_path, config, gold, pred)
    rows = replicate_indices(5, len(gold), 0, 60)
    assert any(len(gold) - 1 not in row for row in rows)
    for score in result.scores:
        expected = [
            seqeval_scores([gold[i] for i in row], [pred[i] for i in row], "IOB2", "default", zero_division)[score.key]
            for row in rows
        ]
        np.testing.assert_allclose(score.replicates, expected, rtol=0, atol=TOL, err_msg=score.key)


def test_documents_are_the_resampling_unit(tmp_path):
    gold, pred = corpus(11, 48, "IOBES")
    documents = [i // 4 for i in range(len(gold))]
    config = config_for("IOBES", "strict", unit="document")
    gold_std, result = _score(tmp_path, config, gold, pred, documents)
    assert gold_std.n == 12
    members = [[i for i in range(len(gold)) if documents[i] == d] for d in range(12)]
    rows = replicate_indices(5, 12, 0, 40)
    for score in result.scores:
        expected = [
            seqeval_scores(
                [gold[i] for d in row for i in members[d]],
                [pred[i] for d in row for i in members[d]],
                "IOBES",
                "strict",
                0,
            )[score.key]
            for row in rows
        ]
        np.testing.assert_allclose(score.replicates, expected, rtol=0, atol=TOL, err_msg=score.key)
        full = seqeval_scores(gold, pred, "IOBES", "strict", 0)[score.key]
        assert abs(score.score - full) <= TOL


def test_per_type_rows_equal_seqeval_per_type(tmp_path):
    gold, pred = corpus(21, 80, "IOB2")
    config = config_for("IOB2", "default")
    gold_std, result = _score(tmp_path, config, gold, pred)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p, r, f, support = prfs_default(gold, pred, average=None)
    names = sorted(set(t for t, _, _ in get_entities(gold)) | set(t for t, _, _ in get_entities(pred)))
    assert result.unit_name == "entity type"
    rows = {row.label: row for row in result.per_class}
    for k, name in enumerate(names):
        assert abs(rows[name].precision - p[k]) <= TOL and abs(rows[name].recall - r[k]) <= TOL
        assert abs(rows[name].f1 - f[k]) <= TOL
        assert rows[name].f1_interval.low <= rows[name].f1 + TOL


def test_jsonl_with_ids_in_any_order_scores_like_conll(tmp_path):
    import json

    gold, pred = corpus(31, 30, "IOB2")
    config = config_for("IOB2", "strict", extra={"files": {"gold": "gold.jsonl"}})
    ref = tmp_path / "ref"
    ref.mkdir()
    with open(str(ref / "gold.jsonl"), "w") as handle:
        for i, tags in enumerate(gold):
            handle.write(json.dumps({"id": "s%d" % i, "tokens": ["w"] * len(tags), "tags": tags}) + "\n")
    order = list(range(len(pred)))
    random.Random(0).shuffle(order)
    with open(str(tmp_path / "pred.jsonl"), "w") as handle:
        for i in order:
            handle.write(json.dumps({"id": "s%d" % i, "tags": pred[i]}) + "\n")
    gold_std = read_gold(str(ref), config)
    assert gold_std.ids == tuple("s%d" % i for i in range(len(gold)))
    result = evaluate(config, gold_std, read_predictions(str(tmp_path / "pred.jsonl"), config, gold_std))
    expected = seqeval_scores(gold, pred, "IOB2", "strict", 0)
    for score in result.scores:
        assert abs(score.score - expected[score.key]) <= TOL, score.key


def test_analyze_api_matches_seqeval_and_runs_the_permutation_test():
    from leaderboard_ci.phase.analysis import analyze

    gold, pred = corpus(41, 40, "IOB2")
    other = [list(reversed(p)) for p in pred]
    config = config_for(
        "IOB2", "strict", n_resamples=30, extra={"analysis": {"test": "permutation", "n_permutations": 50}}
    )
    phase = analyze(gold, {"a": pred, "b": other}, config=config)
    systems = phase.targets["f1_macro"].systems
    scores = dict(zip(systems["name"], systems["score"]))
    assert abs(scores["a"] - seqeval_scores(gold, pred, "IOB2", "strict", 0)["f1_macro"]) <= TOL
    assert abs(scores["b"] - seqeval_scores(gold, other, "IOB2", "strict", 0)["f1_macro"]) <= TOL
    assert "p_permutation" in phase.targets["f1_macro"].pairs


# ---------------------------------------------------------------------------
# Bad inputs: one sentence, file and line, never a gold tag
# ---------------------------------------------------------------------------
def _gold_and_config(tmp_path, mode="default", scheme="IOB2"):
    ref = tmp_path / "ref"
    ref.mkdir()
    gold = [["B-SECRETTYPE", "I-SECRETTYPE", "O"], ["O", "B-PER"]]
    write_conll(str(ref / "gold.conll"), gold)
    config = config_for(scheme, mode, extra={"labels": None})
    return read_gold(str(ref), config), config


def _message(tmp_path, text, mode="default", scheme="IOB2", name="pred.conll", lists_types=False):
    gold_std, config = _gold_and_config(tmp_path, mode, scheme)
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(SubmissionError) as info:
        read_predictions(str(path), config, gold_std)
    message = str(info.value)
    assert "\n" not in message
    # The entity types are the task's label set (public, like classification's labels); no gold tag is quoted.
    assert lists_types or "SECRETTYPE" not in message
    return message


def test_missing_sentences(tmp_path):
    assert _message(tmp_path, "O\nO\nO\n") == (
        "pred.conll line 3: the file ends after sentence 1, but the test set has 2 sentences; expected one "
        "sentence per test sentence, in order, separated by blank lines"
    )


def test_token_count_mismatch(tmp_path):
    message = _message(tmp_path, "O\nO\nO\n\nO\n")
    assert message.startswith("pred.conll line 5: the file ends after 1 token of sentence 2 (from line 5)")
    assert "the test sentence has 2" in message


def test_a_missing_blank_line_is_named_where_it_belongs(tmp_path):
    message = _message(tmp_path, "O\nO\nO\nO\nO\n")
    assert message.startswith("pred.conll line 4: sentence 1 (from line 1) should end before this line"), message
    assert "expected a blank line here" in message


def test_an_extra_blank_line_is_named_where_it_is(tmp_path):
    message = _message(tmp_path, "O\nO\n\nO\n\nO\nO\n")
    assert message.startswith("pred.conll line 3: sentence 1 (from line 1) ends here after 2 tokens"), message


def test_extra_sentence(tmp_path):
    message = _message(tmp_path, "O\nO\nO\n\nO\nO\n\nO\n")
    assert message.startswith("pred.conll line 8: sentence 3 starts here, but the test set has 2 sentences")


def test_invalid_tag_and_scheme_breaking_tag(tmp_path):
    message = _message(tmp_path, "O\nO\nO\n\nO\nX-PER\n")
    assert message.startswith("pred.conll line 6: tag 'X-PER' is not a tag of scheme IOB2")


def test_strict_mode_refuses_a_prefix_the_scheme_lacks(tmp_path):
    message = _message(tmp_path, "O\nO\nO\n\nO\nE-PER\n", mode="strict")
    assert message.startswith("pred.conll line 6: tag 'E-PER' breaks scheme IOB2 (strict mode")


def test_unknown_entity_type(tmp_path):
    message = _message(tmp_path, "O\nO\nO\n\nO\nB-FOO\n", lists_types=True)
    assert message.startswith("pred.conll line 6: tag 'B-FOO' has entity type 'FOO', which is not one of the")


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"id": 1, "tags": ["O"]}\n[1, 2]\n', "line 2: expected a JSON object"),
        ('{"tags": "O O O"}\n', 'line 1: "tags" must be a list of strings'),
        ('{"tags": ["O", 3]}\n', 'line 1: "tags" must be a list of strings'),
        (
            '{"tags": ["O", "O", "O"]}\n{"tags": [' + "[" * 100000 + "]" * 100000 + "]}\n",
            "line 2: the JSON is nested too deeply",
        ),
        ('{"tags": ["O", "O", "O"]\n', "line 1: not valid JSON"),
    ],
)
def test_jsonl_predictions(tmp_path, text, expected):
    assert expected in _message(tmp_path, text, name="pred.jsonl")


def test_bad_gold_tag_is_an_organizer_error_without_the_tag(tmp_path):
    ref = tmp_path / "ref"
    ref.mkdir()
    (ref / "gold.conll").write_text("w B-PER\nw Q-SECRET\n")
    with pytest.raises(ConfigError) as info:
        read_gold(str(ref), config_for("IOB2", "default"))
    assert str(info.value).startswith("ref/gold.conll line 2: the tag is not a tag of scheme IOB2")
    assert "SECRET" not in str(info.value)


def test_settings_are_validated():
    with pytest.raises(ConfigError) as info:
        config_for("IOB3", "default")
    assert "scheme must be one of: IOB1, IOB2, IOE1, IOE2, IOBES, BILOU" in str(info.value)
    with pytest.raises(ConfigError):
        config_for("IOB2", "lenient")


def test_a_long_tag_is_shortened_and_a_bad_gold_prefix_is_not_named(tmp_path):
    message = _message(tmp_path, "O\nO\nO\n\nO\nX-" + "P" * 5000 + "\n")
    assert len(message) < 300 and "PPP..." in message
    ref = tmp_path / "ref2"
    ref.mkdir()
    (ref / "gold.conll").write_text("w B-PER\nw U-PER\n")
    with pytest.raises(ConfigError) as info:
        read_gold(str(ref), config_for("IOB2", "default"))
    assert str(info.value).startswith("ref/gold.conll line 2: the tag has a prefix, which scheme IOB2 does not use")


def test_counts_in_the_sentences_have_the_right_number():
    from leaderboard_ci.tasks.shared.words import counted

    assert [counted(n, "token") for n in (0, 1, 2)] == ["0 tokens", "1 token", "2 tokens"]
    assert counted(1, "more token line") == "1 more token line" and counted(1, "datum", "data") == "1 datum"
    assert counted(3, "datum", "data") == "3 data"
