"""The last hostile files of issue 37: one sentence (or a right score), no traceback, no gold fact, bounded.

* a 100 MB QA answer: refused at ``qa.MAX_ANSWER_CHARS`` before it is normalized (it took 1.5-1.8 GB);
* a 188 MB soft-label file of unknown ids: its first unknown id stops the reading (every record was read first:
  1.8 GB, 16 s);
* a model name followed by 10^7 lines in a preference submission: the second line stops the reading;
* a lone CR inside a line of a hypotheses file is text of that line, as sacrebleu reads it (it ended the line:
  "line 801: more lines than the 800 test segments");
* numpy 1.17's RuntimeWarning on a soft-label file that omits a label: stderr stays empty.

The large files run in the slow selection in both stock images (``LEADERBOARD_CI_PY37`` / ``LEADERBOARD_CI_PY312``,
set by ``.ci/run``), with the program's CPU time and peak memory asserted (at most 10 s and 1 GB, the issue's
limits); the fast selection checks each rule on a small file.
"""

import json
import os
import re
import sys
import zipfile

import pytest

from leaderboard_ci.scoring import text_files
from leaderboard_ci.scoring.errors import SubmissionError
from leaderboard_ci.tasks.qa import metrics as qa
from leaderboard_ci.tools.local_worker import run_scoring

PROGRAM = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scoring_program")
BOOTSTRAP = {"n_resamples": 20, "n_jobs": 1}
SQUAD = (
    '{"version": "1.1", "data": [{"title": "t", "paragraphs": [{"context": "c", "qas": ['
    '{"id": "q1", "question": "?", "answers": [{"text": "Secret answer", "answer_start": 0}]},'
    '{"id": "q2", "question": "?", "answers": [{"text": "other words", "answer_start": 0}]}]}]}]}'
)
SECRETS = ("Secret answer", "secret-item", "zzsecret")


def _measured_python(folder, python):
    """An interpreter that runs ``python`` and writes the child's peak memory (KB) and CPU time (s) to a file."""
    out = os.path.join(folder, "usage.json")
    wrapper = os.path.join(folder, "python")
    with open(wrapper, "w") as handle:
        handle.write(
            "#!%s\nimport json, resource, subprocess, sys\nrc = subprocess.call([%r] + sys.argv[1:])\n"
            "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
            "json.dump({'kb': u.ru_maxrss, 'cpu': u.ru_utime + u.ru_stime}, open(%r, 'w'))\nsys.exit(rc)\n"
            % (sys.executable, python, out)
        )
    os.chmod(wrapper, 0o755)
    return wrapper, out


def _score(tmp_path, config, gold, files, python=None):
    """Run the scoring program as the worker does; returns (result, {'kb', 'cpu'} or None)."""
    import yaml

    ref = tmp_path / "ref"
    ref.mkdir(parents=True)
    for name, text in gold.items():
        (ref / name).write_text(text, encoding="utf-8")
    (ref / "config.yaml").write_text(yaml.safe_dump(dict(dict({"extra_metrics": []}, **config), bootstrap=BOOTSTRAP)))
    submission = str(tmp_path / "submission.zip")
    with zipfile.ZipFile(submission, "w", zipfile.ZIP_STORED) as archive:
        for name, content in files.items():
            archive.writestr(name, content.encode("utf-8") if isinstance(content, str) else content)
    usage = None
    if python is not None:
        python, usage = _measured_python(str(tmp_path), python)
    result = run_scoring(str(tmp_path / "root"), PROGRAM, str(ref), submission, python=python, timeout=600)
    if usage is not None:
        with open(usage) as handle:
            usage = json.load(handle)
    return result, usage


def _one_sentence(result, pattern, secrets=SECRETS):
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 1 and len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert re.search(pattern, lines[0]), lines[0]
    assert not any(secret in lines[0] for secret in secrets), lines[0]


# ---------------------------------------------------------------------------
# The cases: (config, gold files, submission files builder, pattern of the one sentence or None: scored)
# ---------------------------------------------------------------------------
QA = {"task": "qa", "metric": "f1", "files": {"gold": "gold.json"}}
SOFT = {"task": "soft_labels", "metric": "icm_soft", "labels": ["YES", "NO"], "files": {"gold": "gold.json"}}
SOFT["files"]["predictions"] = "run.json"
SOFT_GOLD = json.dumps(
    [
        {"test_case": "T", "id": "secret-item-%d" % i, "value": {"YES": 0.5 + 0.1 * (i % 3), "NO": 0.5 - 0.1 * (i % 3)}}
        for i in range(30)
    ]
)
PREFERENCE = {"task": "preference", "metric": "elo", "files": {"gold": "battles.csv"}}
BATTLES = "model_a,model_b,winner\n" + "".join("m%d,m%d,model_a\n" % (i % 3, (i + 1) % 3) for i in range(300))


def _soft_run(n, ident="u%d"):
    record = '{"test_case": "T", "id": "%s", "value": {"YES": 0.25, "NO": 0.75}},\n' % ident
    return "[" + "".join(record % i for i in range(n)) + '{"test_case": "T", "id": "x", "value": {"YES": 1}}]'


def test_a_qa_answer_beyond_the_bound_is_one_sentence_and_one_at_the_bound_is_read(tmp_path):
    long = {"predictions.json": '{"q1": "%s", "q2": "b"}' % ("a" * (qa.MAX_ANSWER_CHARS + 1))}
    result, _ = _score(tmp_path / "long", QA, {"gold.json": SQUAD}, long)
    _one_sentence(
        result,
        r"^predictions\.json line 1: the answer to question 'q1' is 100,001 characters long; expected at most "
        r"100,000 \(an answer is a short span of text\)$",
    )
    at_bound = {"predictions.json": '{"q1": "%s", "q2": "other words"}' % ("a" * qa.MAX_ANSWER_CHARS)}
    result, _ = _score(tmp_path / "bound", QA, {"gold.json": SQUAD}, at_bound)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert result.scores["f1"] == pytest.approx(0.5)  # q1 scores 0, q2 scores 1


def test_a_soft_label_file_stops_at_its_first_unknown_id(tmp_path):
    """The records after the unknown id are not valid JSON: the sentence names the id, so they were never read."""
    run = '[{"test_case": "T", "id": "u0", "value": {"YES": 1}},\n{not json at all ' + "x" * 1000 + "]"
    result, _ = _score(tmp_path, SOFT, {"gold.json": SOFT_GOLD}, {"run.json": run})
    _one_sentence(result, r"^run\.json line 1: item id 'u0' is not in the test set; give one value per test item$")


def test_a_repeated_soft_label_id_says_the_fix(tmp_path):
    records = json.loads(SOFT_GOLD)
    run = json.dumps([dict(r, value={"YES": 0.5, "NO": 0.5}) for r in records + records[:1]], indent=0)
    result, _ = _score(tmp_path, SOFT, {"gold.json": SOFT_GOLD}, {"run.json": run})
    # the id quoted is the participant's own (its file repeats it); no gold answer is quoted
    _one_sentence(
        result, r"appears again \(first on line \d+\); give one value per item, each id once$", secrets=SECRETS[:1]
    )


def test_a_soft_label_file_omitting_a_label_leaves_stderr_empty(tmp_path):
    """numpy 1.17 warned on stderr here (a comparison with NaN); run in the image by the slow test below."""
    run = json.dumps([{"test_case": "T", "id": r["id"], "value": {"YES": 1.0}} for r in json.loads(SOFT_GOLD)])
    config = dict(SOFT, extra_metrics=["cross_entropy", "f1"])
    result, _ = _score(tmp_path, config, {"gold.json": SOFT_GOLD}, {"run.json": run})
    assert result.returncode == 0 and result.stderr == "", result.stderr


def _lines_of(tmp_path, data):
    path = tmp_path / "file.txt"
    path.write_bytes(data)
    source = text_files.Source(str(path), "file.txt")
    return [text for _, text in text_files.iter_lines(source)], text_files.TextFile(source).text()


def test_a_lone_cr_is_text_in_a_file_of_lf_line_ends_and_a_line_end_in_a_classic_mac_file(tmp_path):
    lines, whole = _lines_of(tmp_path, b"a b\nc\rd\ne\r\nf\r\r\ng\n")
    assert lines == ["a b", "c\rd", "e", "f", "g"] and whole == "a b\nc\rd\ne\nf\ng\n"
    lines, whole = _lines_of(tmp_path, b"a b\rc\rd\r")
    assert lines == ["a b", "c", "d"] and whole == "a b\nc\nd\n"
    # decided by the first line end, across the 1 MB blocks the file is decoded in
    filler = b"x" * 1500000 + b"\n"
    lines, _ = _lines_of(tmp_path, filler + b"y\rz\n" * 3)
    assert lines == ["x" * 1500000] + ["y\rz"] * 3


def test_a_lone_cr_inside_a_hypothesis_scores_as_sacrebleu_reads_it(tmp_path):
    sacrebleu = pytest.importorskip("sacrebleu")
    refs = ["the cat sat on the mat number %d today" % i for i in range(120)]
    hyps = ["the cat sat on a mat number %d" % i for i in range(120)]
    hyps[99] = "the cat\rsat on\ra mat number 99"
    config = {"task": "generation", "metric": "bleu", "files": {"gold": "references.txt", "predictions": "hyp.txt"}}
    result, _ = _score(
        tmp_path, config, {"references.txt": "\n".join(refs) + "\n"}, {"hyp.txt": "\n".join(hyps) + "\n"}
    )
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert result.scores["bleu"] == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs]).score, abs=1e-9)


# ---------------------------------------------------------------------------
# The large files, in both images: CPU time and peak memory
# ---------------------------------------------------------------------------
GENERATION_EXAMPLE = os.path.join(os.path.dirname(PROGRAM), "examples", "generation", "reference_data")


def _example_references():
    with open(os.path.join(GENERATION_EXAMPLE, "references.jsonl"), encoding="utf-8") as handle:
        return handle.read()


def _worst_allowed_hypotheses():
    """Per segment of the generation example, 1,000 words (the longest TER takes) of its first reference,
    repeated and shuffled: the costliest file for BLEU's and chrF++'s counts and TER's search together.
    The benchmark's workload of that name (benchmarks/ter_long_segments.py), the same text."""
    benchmarks = os.path.join(os.path.dirname(PROGRAM), "benchmarks")
    sys.path.insert(0, benchmarks)
    try:
        from ter_long_segments import example_hypotheses
    finally:
        sys.path.remove(benchmarks)
    return "".join(" ".join(words) + "\n" for words in example_hypotheses(1000))


LARGE = {
    "generation_worst_allowed_file": (
        {
            "task": "generation",
            "metric": "bleu",
            "extra_metrics": ["chrf_pp", "ter", "wer"],
            "files": {"gold": "references.jsonl", "predictions": "hypotheses.txt"},
        },
        lambda: {"references.jsonl": _example_references()},
        lambda: {"hypotheses.txt": _worst_allowed_hypotheses()},
        r"^hypotheses\.txt line \d+: scoring the hypotheses up to this one takes longer than the scoring program "
        r"allows for this test set; expected shorter hypotheses",
    ),
    "qa_100MB_answer": (
        QA,
        lambda: {"gold.json": SQUAD},
        lambda: {"predictions.json": '{"q1": "%s", "q2": "b"}' % ("word " * 20000000)},
        r"^predictions\.json line 1: the answer to question 'q1' is 100,000,000 characters long",
    ),
    "soft_188MB_unknown_ids": (
        SOFT,
        lambda: {"gold.json": SOFT_GOLD},
        lambda: {"run.json": _soft_run(2600000)},
        r"^run\.json line 1: item id 'u0' is not in the test set",
    ),
    "preference_name_and_10M_lines": (
        PREFERENCE,
        lambda: {"battles.csv": BATTLES},
        lambda: {"model.txt": "m1\n" + "x y\n" * 10000000},
        r"^model\.txt line 2: is a second line; expected one line: the name of your model in the arena$",
    ),
    "soft_label_omitted_numpy_warning": (
        dict(SOFT, extra_metrics=["cross_entropy"]),
        lambda: {"gold.json": SOFT_GOLD},
        lambda: {
            "run.json": json.dumps(
                [{"test_case": "T", "id": r["id"], "value": {"YES": 1}} for r in json.loads(SOFT_GOLD)]
            )
        },
        None,
    ),
}


@pytest.mark.slow
@pytest.mark.image
@pytest.mark.parametrize("image", ["py37", "py312"])
@pytest.mark.parametrize("case", sorted(LARGE))
def test_the_large_hostile_files_in_the_images(tmp_path, image, case):
    python = os.environ.get({"py37": "LEADERBOARD_CI_PY37", "py312": "LEADERBOARD_CI_PY312"}[image])
    if not python:
        pytest.skip("set LEADERBOARD_CI_%s to the %s image's interpreter (.ci/run does)" % (image.upper(), image))
    config, gold, files, pattern = LARGE[case]
    result, usage = _score(tmp_path, config, gold(), files(), python=python)
    if pattern is None:
        assert result.returncode == 0 and result.stderr == "", result.stderr
    else:
        _one_sentence(result, pattern)
    assert usage["cpu"] <= 10.0, usage  # the limits: 10 s and 1 GB
    assert usage["kb"] <= 1024 * 1024, usage


# ---------------------------------------------------------------------------
# The weaker sentences of issue 37, each with its fix
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "number,expected",
    [
        ('"0.8"', r"the probability of 'YES' is a string; expected a number in \[0, 1\] \(write it without quotes\)$"),
        ("9" * 5000, r"the probability of 'YES' \('9999.*\.\.\.'\) is outside \[0, 1\]$"),
        (
            "1" + "0" * 400,
            r"the probability of 'YES' \('1000.*\.\.\.'\) is outside \[0, 1\]$",
        ),  # no float: was a traceback
        ("NaN", r"the probability of 'YES' is not a finite number \(NaN or Infinity\); expected a number in \[0, 1\]$"),
    ],
    ids=["string", "5000_digits", "400_digits", "nan"],
)
def test_a_soft_probability_that_is_no_probability_is_named_for_what_it_is(tmp_path, number, expected):
    from leaderboard_ci.tasks.soft_labels import files as soft_label_files
    from leaderboard_ci.tasks.soft_labels.reading import quote as _quote

    path = tmp_path / "run.json"
    path.write_text('{"a": {"YES": %s}}' % number)
    source = text_files.Source(str(path), "run.json")
    items = soft_label_files.read_items(source, text_files.TextFile(source), gold=False)
    with pytest.raises(SubmissionError) as caught:
        soft_label_files.encode_items(source, items, {"YES": 0, "NO": 1}, ("YES", "NO"), gold=False, quote=_quote)
    assert re.search(r"^run\.json line 1: " + expected, str(caught.value)), str(caught.value)


def test_a_short_text_with_a_stray_control_character_is_read_as_text(tmp_path):
    """16 bytes with one escape character were 'a binary file'; now the reader names the cell it spoils."""
    path = tmp_path / "p.csv"
    path.write_bytes(b"id,label\nx1,p\x1bos\n")
    assert text_files.sniff_encoding(text_files.Source(str(path), "p.csv"), path.read_bytes()) == ("UTF-8", 0)
    binary = tmp_path / "b.bin"
    binary.write_bytes(bytes(range(16)))
    with pytest.raises(SubmissionError, match=r"^b\.bin is a binary file"):
        text_files.sniff_encoding(text_files.Source(str(binary), "b.bin"), binary.read_bytes())


def test_a_named_prediction_file_in_two_folders_says_where_and_the_fix(tmp_path):
    config = {"task": "classification", "metric": "accuracy", "labels": ["pos", "neg"]}
    config["files"] = {"predictions": "digits_en.csv"}
    table = "id,label\nx1,pos\nx2,neg\nx3,pos\n"
    result, _ = _score(tmp_path, config, {"gold.csv": table}, {"a/digits_en.csv": table, "b/digits_en.csv": table})
    _one_sentence(
        result,
        r"^the submission has 2 folders holding a file named 'digits_en\.csv' \(a/digits_en\.csv, b/digits_en\.csv\);"
        r" expected one prediction file, at the top of the zip or in a single folder: zip only the file to be scored$",
    )


@pytest.mark.parametrize(
    "name,text,expected",
    [
        (
            "predictions.csv",
            "id,labels\nt1,alpha||beta\nt2,beta\n",
            r"line 2: a label is empty \(two separators '\|' in a row, or one at the start or end\); remove the extra",
        ),
        (
            "predictions.json",
            '{"t1": ["alpha", ""],\n"t2": ["beta"]}',
            r"line 1: a label is an empty string; leave it out of the list \(an item with no labels is \[\]\)$",
        ),
    ],
    ids=["separators", "json_list"],
)
def test_an_empty_multilabel_label_says_the_fix(tmp_path, name, text, expected):
    from leaderboard_ci.scoring.config import parse_config
    from leaderboard_ci.scoring.readers import read_gold, read_predictions

    config = parse_config({"task": "multilabel", "metric": "f1_macro", "labels": ["alpha", "beta"]})
    (tmp_path / "ref").mkdir()
    (tmp_path / "ref" / "gold.csv").write_text("id,labels\nt1,alpha|beta\nt2,beta\n")
    gold = read_gold(str(tmp_path / "ref"), config)
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(SubmissionError) as caught:
        read_predictions(str(path), config, gold)
    assert re.search("^" + re.escape(name) + " " + expected, str(caught.value)), str(caught.value)
