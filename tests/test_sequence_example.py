"""The sequence-labelling example competition (``examples/sequence``) end to end.

The bundle builds and passes the checker; every sample submission scores
through ``score.py`` exactly as the worker runs it, and its scores equal
seqeval's on the same files; the end-of-phase CLI writes the report; and, with
``LEADERBOARD_CI_PY37`` / ``LEADERBOARD_CI_PY312`` set, the py37 and py312
image environments give the same bytes.
"""
import glob
import io
import json
import os
import subprocess
import sys
import warnings
import zipfile

import pytest

from leaderboard_ci.tools.bundle import build_bundle
from leaderboard_ci.tools.bundle_check import check_bundle
from leaderboard_ci.tools.local_worker import run_scoring

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
EXAMPLE = os.path.join(ROOT, "examples", "sequence")
PROGRAM = os.path.join(ROOT, "scoring_program")
REFERENCE = os.path.join(EXAMPLE, "reference_data")
SUBMISSIONS = sorted(glob.glob(os.path.join(EXAMPLE, "sample_submissions", "*.zip")))
IMAGES = {"py37": "LEADERBOARD_CI_PY37", "py312": "LEADERBOARD_CI_PY312"}


def _documents(lines):
    """Sentences of (token, tag) per line, and each sentence's document number."""
    sentences, documents, current, doc = [], [], [], -1
    for line in lines:
        fields = line.split()
        if not fields:
            if current:
                sentences.append(current)
                documents.append(doc)
                current = []
            continue
        if fields[0] == "-DOCSTART-":
            doc += 1
            continue
        current.append(fields[-1])
    if current:
        sentences.append(current)
        documents.append(doc)
    return sentences, documents


def _submission_tags(path):
    with zipfile.ZipFile(path) as z:
        return _documents(io.TextIOWrapper(z.open("predictions.conll"), encoding="utf-8"))[0]


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("bundle") / "ner.zip")
    build_bundle(out, bundle_dir=EXAMPLE)
    return out


def test_bundle_passes_the_checker(bundle, tmp_path):
    problems = check_bundle(bundle, submissions=SUBMISSIONS, workdir=str(tmp_path / "work"))
    assert [str(p) for p in problems] == []


def test_every_sample_submission_scores_like_seqeval(tmp_path):
    pytest.importorskip("seqeval")
    from seqeval.metrics import accuracy_score
    from seqeval.metrics.v1 import precision_recall_fscore_support
    from seqeval.scheme import IOB2

    with io.open(os.path.join(REFERENCE, "gold.conll"), encoding="utf-8") as handle:
        gold, _ = _documents(handle)
    assert len(SUBMISSIONS) == 5
    for path in SUBMISSIONS:
        result = run_scoring(str(tmp_path / os.path.basename(path)), PROGRAM, REFERENCE, path)
        assert result.returncode == 0, result.stderr
        assert result.stderr == ""
        pred = _submission_tags(path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = {
                "f1_macro": precision_recall_fscore_support(gold, pred, average="macro", scheme=IOB2)[2],
                "f1_micro": precision_recall_fscore_support(gold, pred, average="micro", scheme=IOB2)[2],
                "accuracy": accuracy_score(gold, pred),
            }
        for key, value in expected.items():
            assert abs(result.scores[key] - value) <= 1e-12, (path, key)
            assert result.scores[key + "_ci_low"] <= value <= result.scores[key + "_ci_high"]
        assert os.path.exists(os.path.join(result.output_dir, "detailed_results.html"))
        with io.open(os.path.join(result.output_dir, "detailed_results.html"), encoding="utf-8") as handle:
            page = handle.read()
        assert "entity type" in page and "PER" in page


def test_end_of_phase_cli_writes_the_report(tmp_path):
    out = str(tmp_path / "report")
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "end_of_phase.py"), "--reference", REFERENCE,
                           "--submissions", os.path.join(EXAMPLE, "sample_submissions"), "--out", out,
                           "--no-progress", "--jobs", "1"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    with open(os.path.join(out, "report.json")) as handle:
        report = json.load(handle)
    assert "f1_macro" in json.dumps(report)
    assert os.path.exists(os.path.join(out, "report.html"))


@pytest.mark.image
@pytest.mark.parametrize("image", sorted(IMAGES))
def test_every_sample_scores_identically_in_the_image(image, tmp_path):
    python = os.environ.get(IMAGES[image])
    if not python:
        pytest.skip("set %s to the %s image's interpreter (.ci/run does)" % (IMAGES[image], image))
    for path in SUBMISSIONS:
        name = os.path.basename(path)
        here = run_scoring(str(tmp_path / ("here-" + name)), PROGRAM, REFERENCE, path)
        there = run_scoring(str(tmp_path / name), PROGRAM, REFERENCE, path, python=python)
        assert there.returncode == 0, "%s in %s: %s" % (name, image, there.stderr)
        assert there.stderr == ""
        assert there.scores_json_bytes == here.scores_json_bytes, "%s differs in %s" % (name, image)
