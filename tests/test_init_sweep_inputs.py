"""What the session-8 init sweep found in the readers: each class of mistake told in one sentence.

Ranking: a run or qrels file written as CSV, or with a header line, is told so (it used to say only
"has 1 column"); a JSON run's NaN score is named NaN (it was "beyond the range of a double"), a JSON
object given as a score is called an object (it was "a JSON list"), and a JSON list instead of
``{query id: {document id: score}}`` is named as such (it was read as TREC lines).
"""

import json

import pytest
from test_ranking_bad_inputs import gold_of as _ranking_gold

from leaderboard_ci.scoring.errors import ConfigError, SubmissionError
from leaderboard_ci.scoring.readers import read_predictions

CSV_HINT = "; the columns are separated by commas (','), but a TREC file separates them by spaces or tabs"
HEADER_HINT = "; the line looks like a header, but a TREC file has none: start it with the first data line"


RUNS = [
    ("run.txt", "topic1,Q0,docA,1,2.5,sys\n", "run.txt line 1: has 1 column; expected 6 columns", CSV_HINT),
    ("run.txt", "query_id\tdoc_id\tscore\ntopic1\tdocA\t1\n", "run.txt line 1: has 3 columns", HEADER_HINT),
    ("run.txt", "topic1 Q0 docA 1 2.5 sys\ntopic2 Q0 docC 1\n", "run.txt line 2: has 4 columns", ""),
    ("run.json", json.dumps({"topic1": {"docA": float("nan")}}), "run.json query 'topic1', document 'docA'", ""),
    ("run.json", '{"topic1": {"docA": {"x": 1}}}', "run.json query 'topic1', document 'docA': the score is", ""),
    ("run.json", "[1, 2, 3]", "run.json is a JSON list; expected a JSON object {query id: {document id: score}}", ""),
]


@pytest.mark.parametrize("name, text, start, hint", RUNS)
def test_a_ranking_run_in_another_shape_is_told_what_it_is(tmp_path, name, text, start, hint):
    config, gold = _ranking_gold(tmp_path)
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(SubmissionError) as info:
        read_predictions(str(path), config, gold)
    message = str(info.value)
    assert message.startswith(start), message
    assert message.endswith(hint) if hint else ("header" not in message and "separated" not in message), message
    if "nan" in text.lower():
        assert message.endswith("the score is NaN; expected a finite number"), message
    if '"x"' in text:
        assert "the score is a JSON object; expected a number" in message, message
    assert "docSecret" not in message and "\n" not in message


@pytest.mark.parametrize(
    "text, start, hint",
    [
        ("topic1,0,docA,2\ntopic2,0,docC,1\n", "ref/qrels.txt line 1: has 1 column; expected 4 columns", CSV_HINT),
        ("query_id\tdoc_id\trelevance\ntopic1\tdocA\t2\n", "ref/qrels.txt line 1: has 3 columns", HEADER_HINT),
        ("topic1 0 docA 2\ntopic1 docB 1\n", "ref/qrels.txt line 2: has 3 columns; expected 4 columns", ""),
        (
            '[{"q": "topic1"}]',
            "ref/qrels.txt is a JSON list; expected a JSON object {query id: {document id: relevance}}",
            "",
        ),
    ],
)
def test_qrels_in_another_shape_are_told_what_they_are(tmp_path, text, start, hint):
    with pytest.raises(ConfigError) as info:
        _ranking_gold(tmp_path, text)
    message = str(info.value)
    assert message.startswith(start) and message.endswith(hint), message
    assert "docA" not in message and "\n" not in message


ML_GOLD = 'id,labels\nt1,"joy|fear, anger"\nt2,\nt3,big sadness\n'
ML_LABELS = 'labels: [joy, "fear, anger", big sadness]\n'
ML_LISTED = "the labels: 'joy', 'fear, anger', 'big sadness'"


@pytest.mark.parametrize(
    "cell, hint",
    [
        ("joy;fear, anger", "; labels in one cell are separated by '|', not ';'"),  # was: not ','
        ("joy/big sadness", "; labels in one cell are separated by '|', not '/'"),
        ("sadness, joy", "; labels in one cell are separated by '|', not ','"),  # ',' outside every label
        ("Joy", " (labels are case-sensitive; did you mean 'joy'?)"),
    ],
)
def test_multilabel_labels_with_commas_and_spaces_are_listed_and_hinted_right(tmp_path, cell, hint):
    """Configured labels holding ', ' and spaces: the list quotes them, the separator hint is the one used."""
    from test_multilabel_inputs import _run

    prediction = "id\tlabels\nt1\t%s\nt2\t\nt3\tjoy\n" % cell
    code, err = _run(tmp_path, prediction, name="predictions.tsv", gold=ML_GOLD, config=ML_LABELS)
    assert code == 1, err
    assert err.strip() == "predictions.tsv line 2: label %r is not one of %s%s" % (cell, ML_LISTED, hint), err


@pytest.mark.parametrize("unit", ["sentence", "document"])
def test_init_writes_a_json_lines_sample_for_a_json_lines_sequence_task(tmp_path, unit):
    """files.predictions: predictions.jsonl: init wrote a CoNLL sample under that name and refused its own file."""
    import io
    import zipfile

    from leaderboard_ci.cli.main import main

    tags = [["B-PER", "I-PER", "O"], ["O", "B-LOC"], ["O"], ["B-ORG", "O", "O", "B-PER"]]
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        "".join(
            json.dumps({"id": "s%d" % i, "document": "d%d" % (i // 2), "tags": t}) + "\n" for i, t in enumerate(tags)
        )
    )
    config = tmp_path / "config.yaml"
    config.write_text(
        "task: sequence\nscheme: IOB2\nunit: %s\nmetric: f1_micro\nbootstrap: {n_resamples: 20}\n"
        "files: {gold: gold.jsonl, predictions: predictions.jsonl}\n" % unit
    )
    out = io.StringIO()
    folder = tmp_path / "competition"
    assert main(["init", str(folder), "--gold", str(gold), "--config", str(config)], out) == 0, out.getvalue()
    with zipfile.ZipFile(str(folder / "sample_submissions" / "format_example.zip")) as archive:
        assert archive.namelist() == ["predictions.jsonl"]
        lines = [json.loads(line) for line in archive.read("predictions.jsonl").decode("utf-8").splitlines()]
    assert [line["tags"] for line in lines] == [["O"] * len(t) for t in tags]
    assert [line.get("id") for line in lines] == (["s0", "s1", "s2", "s3"] if unit == "sentence" else [None] * 4)
    assert '{"id": "s1", "tags"' in (folder / "pages" / "evaluation.md").read_text()


def test_the_plan_init_writes_for_a_large_gold_simulates_a_bounded_test_set(monkeypatch):
    """10^6 items: init spent 2.5 minutes simulating the README's plan on a test set of the gold's size.

    The SE of a paired difference is sigma / sqrt(n) with sigma per item (what the plan says), so sigma is
    estimated on ``simulated_items`` (init: SIMULATED_ITEMS) for a larger gold; a gold with clusters or strata
    keeps its size.  Here (scaled down to stay fast): the closed form sqrt(q / n) for accuracy
    (q = 1 - agreement) at n = 20,000 from 2,000 simulated items.
    """
    import math

    import numpy as np
    from test_plan import _config

    from leaderboard_ci.tasks.shared.base import GoldStandard
    from leaderboard_ci.tools import plan as P

    sizes = []
    simulate = P.simulated_gold
    monkeypatch.setattr(P, "simulated_gold", lambda gold, n, rng: sizes.append(n) or simulate(gold, n, rng))
    labels = tuple("012")
    gold = GoldStandard(values=(np.arange(20000) % 3).astype(np.intp), labels=labels)
    config = _config("accuracy", labels=list(labels), n_resamples=200)
    rates = {"accuracy": 0.7, "agreement": 0.8}
    plan = P.assumed_plan(config, gold, rates, n_resamples=200, simulated_items=2000, check_scaling=False)
    assert sizes == [2000] and plan.n == 20000
    assert plan.se == pytest.approx(math.sqrt(0.2 / 20000), rel=0.25)
    sizes[:] = []

    def stop(*args, **kwargs):
        raise RuntimeError("stop")  # only the size a clustered gold is simulated at is checked

    monkeypatch.setattr(P, "paired_replicates", stop)
    clustered = GoldStandard(values=gold.values, labels=labels, clusters=np.arange(20000) // 10)
    with pytest.raises(RuntimeError):
        P.assumed_plan(config, clustered, rates, n_resamples=200, simulated_items=2000, check_scaling=False)
    assert sizes == [20000]
