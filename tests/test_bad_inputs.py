"""Malformed submissions, run through the real entry point as Codabench's worker runs them.

Every case of ``tests/bad_inputs/cases.py`` is laid out in a fresh ``/app``-like
tree by :func:`leaderboard_ci.tools.local_worker.prepare_tree` and scored: on the
host by the program's ``main`` in this process (:func:`run_in_process`), in the
py37 image (py312 in the slow selection) by ``score.py`` through the metadata
command in a subprocess, as the worker runs it.  A rejected submission must exit with code 1
(2 for the organizer's mistakes) and print exactly one line on stderr
matching the case's message, with no traceback; an accepted one must score
exactly like the clean submission.  Nothing printed or written may reveal
the gold standard (see ``bad_inputs/leaks.py``).
"""

import contextlib
import importlib.util
import io
import os
import shutil
import sys
import traceback
import warnings

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = os.path.join(ROOT, "scoring_program")
if PROGRAM not in sys.path:
    sys.path.insert(0, PROGRAM)

from _forked_runs import ForkedScoring  # noqa: E402

from leaderboard_ci.scoring.config import load_config  # noqa: E402
from leaderboard_ci.scoring.errors import ConfigError  # noqa: E402
from leaderboard_ci.scoring.readers import find_prediction_file, read_gold, read_predictions  # noqa: E402
from leaderboard_ci.tools.local_worker import UnpackError, prepare_tree, run_scoring  # noqa: E402


def _load(name):
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bad_inputs", name + ".py")
    spec = importlib.util.spec_from_file_location("bad_inputs_" + name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


cases = _load("cases")
leaks = _load("leaks")

REJECTED = [c for c in cases.CASES if not c.accept]
ACCEPTED = [c for c in cases.CASES if c.accept]


def _clean_case(task):
    return cases.case("clean_" + task, {"predictions.csv": cases.TASKS[task]["clean"]}, task=task, accept=True)


CLEAN = {task: _clean_case(task) for task in cases.TASKS}


# ---------------------------------------------------------------------------
# Running the corpus
# ---------------------------------------------------------------------------
class Programs(object):
    """Copies of scoring_program/, one per config text.

    ``light``: the folder holds only ``config.yaml``, for runs that call the program in this process
    (:func:`run_in_process`) or read with its functions: they need its configuration, not its files.
    """

    def __init__(self, base, compiled=None, light=False):
        if not light and compiled is None:
            raise ValueError("a full copy needs ``compiled``: conftest.py's program_compiled_by(python)")
        self.base = base
        self.compiled = compiled  # a copy already compiled by the interpreter that runs it (conftest.py)
        self.light = light
        self.made = {}

    def get(self, config_text):
        if config_text not in self.made:
            path = os.path.join(self.base, "program_%d" % len(self.made))
            if self.light:
                os.makedirs(path)
            else:  # each run copies the .pyc files instead of compiling the program again
                shutil.copytree(self.compiled, path)
            with open(os.path.join(path, "config.yaml"), "w") as handle:
                handle.write(config_text)
            self.made[config_text] = path
        return self.made[config_text]


def _prepare(case, base, programs):
    work = os.path.join(base, case.name)
    submission = cases.build(case, work)
    reference = cases.write_tree(os.path.join(work, "reference"), cases.reference_files(case))
    return work, programs.get(cases.config_text(case)), reference, submission


def _outputs(result):
    """Every text the participant can see: stdout, stderr and the output files."""
    texts = {"stdout": result.stdout, "stderr": result.stderr}
    for folder, _, names in os.walk(result.output_dir):
        for name in names:
            path = os.path.join(folder, name)
            with open(path, "rb") as handle:
                texts[os.path.relpath(path, result.root)] = handle.read().decode("utf-8", "replace")
    return texts


def _gold_text(case):
    """The gold to search the outputs for: the case's own (with ids), else its task's."""
    ref = cases.reference_files(case)
    text = ref.get("gold.csv", ref.get("answers.csv", ""))
    text = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    return text if text.startswith("id,") else cases.TASKS[case.task]["gold"]


def _show_on_stderr(message, category, filename, lineno, file=None, line=None):
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def run_in_process(root, program, reference, submission):
    """What :func:`run_scoring` returns, with the program's ``main`` called in this process on the same tree.

    A fresh interpreter's start-up (about 0.5 s of CPU here, numpy's import most of it) is most of a corpus
    case's cost, and copying the program's ~350 files into each tree most of the rest: the program is
    read where it is.  The image tests below run every case through the metadata command in a subprocess, as the
    worker does, so the host's runs need not.  What a subprocess would show is kept: stdout and stderr, every
    warning as a fresh interpreter prints it (once per place, on stderr), an uncaught exception's traceback
    and exit code 1, ``sys.exit``'s code.
    """
    from leaderboard_ci.scoring import codabench
    from leaderboard_ci.tools.local_worker import collect_run

    empty = os.path.join(os.path.dirname(root), "no_program")
    os.makedirs(empty, exist_ok=True)  # the tree's program/ stays empty: main reads ``program``'s config in place
    prepare_tree(root, empty, reference, submission)
    out, err = io.StringIO(), io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        warnings.resetwarnings()  # a fresh interpreter's filters (and no registry of warnings already shown)
        for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
            warnings.simplefilter("ignore", category)
        warnings.showwarning = _show_on_stderr  # not pytest's recorder: on stderr, where the participant reads
        argv = [os.path.join(root, "input"), os.path.join(root, "output")]
        try:
            code = codabench.main(argv, program_dir=program)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:  # what the interpreter would print for an uncaught exception
            traceback.print_exc(file=err)
            code = 1
    return collect_run(root, code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Run every case (and each task's clean submission) once, in this process (see :func:`run_in_process`)."""
    base = str(tmp_path_factory.mktemp("corpus"))
    programs = Programs(base, light=True)
    todo = list(cases.CASES) + list(CLEAN.values())
    results = []
    for case in todo:
        work, program, reference, submission = _prepare(case, base, programs)
        results.append(run_in_process(os.path.join(work, "app"), program, reference, submission))
    return dict((case.name, result) for case, result in zip(todo, results))


# ---------------------------------------------------------------------------
# The corpus itself
# ---------------------------------------------------------------------------
def test_corpus_covers_enough_malformed_submissions():
    participant = [c for c in REJECTED if c.code == 1]
    organizer = [c for c in REJECTED if c.code == 2]
    assert len(participant) >= 40
    assert len(organizer) >= 6
    assert len(ACCEPTED) >= 6
    assert cases.names_are_unique()
    assert all(c.expect for c in REJECTED) and not any(c.expect for c in ACCEPTED)


def test_every_class_of_issue_14_has_at_least_three_new_cases():
    by_class = {}
    for name, klass in cases.ISSUE14.items():
        by_class.setdefault(klass, []).append(name)
    by_class[8] = list(cases.ARCHIVES)
    assert sorted(by_class) == list(range(1, 9))
    assert all(len(names) >= 3 for names in by_class.values()), by_class


def test_checked_in_files_match_the_corpus():
    for name, data in cases.checked_in_sources().items():
        assert cases.CheckedIn(name).read() == data, name
    junk = cases.CheckedIn("binary_junk.bin").read()
    assert b"\x00" in junk and len(junk) > 1000
    inner = cases.CheckedIn("inner.zip").read()
    assert inner.startswith(b"PK\x03\x04")


# ---------------------------------------------------------------------------
# Rejected submissions and organizer mistakes
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("case", REJECTED, ids=[c.name for c in REJECTED])
def test_rejected_with_one_clear_sentence(case, runs):
    result = runs[case.name]
    lines = result.stderr.splitlines()
    assert result.returncode == case.code, result.stderr
    assert len(lines) == 1 and lines[0].strip(), result.stderr
    assert case.expect and __import__("re").search(case.expect, lines[0]), lines[0]
    assert "Traceback" not in result.stdout + result.stderr
    assert result.scores is None
    assert result.root not in result.stderr  # no absolute container paths


def _gold_sha256(case):
    import hashlib

    data = cases.reference_files(case).get("gold.csv")
    data = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(data).hexdigest() if data else None


@pytest.mark.parametrize("case", cases.CASES + list(CLEAN.values()), ids=[c.name for c in cases.CASES] + list(CLEAN))
def test_nothing_reveals_the_gold_standard(case, runs):
    result = runs[case.name]
    texts = _outputs(result)
    assert leaks.find_leaks(texts, _gold_text(case), distinctive_values=case.task == "reg") == []
    digest = _gold_sha256(case)
    if digest:  # the gold file's hash would let anyone confirm a reconstructed gold offline
        assert not [where for where, text in texts.items() if digest[:8] in text]
    if result.returncode == 0:
        assert leaks.mentions_ids(texts, _gold_text(case)) == []


# ---------------------------------------------------------------------------
# Accepted submissions score exactly like the clean file
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("case", ACCEPTED, ids=[c.name for c in ACCEPTED])
def test_accepted_end_to_end_like_the_clean_file(case, runs):
    result, clean = runs[case.name], runs[CLEAN[case.task].name]
    assert clean.returncode == 0, clean.stderr
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.scores_json_bytes == clean.scores_json_bytes


def _read_directly(case, base, programs):
    work, program, reference, submission = _prepare(case, base, programs)
    root = prepare_tree(os.path.join(work, "app"), program, reference, submission)
    config = load_config(os.path.join(root, "program"), os.path.join(root, "input", "ref"))
    gold = read_gold(os.path.join(root, "input", "ref"), config)
    path = find_prediction_file(os.path.join(root, "input", "res"), config)
    return read_predictions(path, config, gold)


@pytest.mark.parametrize("case", ACCEPTED, ids=[c.name for c in ACCEPTED])
def test_accepted_reads_like_the_clean_file(case, tmp_path):
    programs = Programs(str(tmp_path), light=True)
    got = _read_directly(case, str(tmp_path), programs)
    clean = _read_directly(CLEAN[case.task], str(tmp_path), programs)
    assert got.dtype == clean.dtype
    np.testing.assert_array_equal(got, clean)


# ---------------------------------------------------------------------------
# The leak checker must catch leaks
# ---------------------------------------------------------------------------
GOLD = cases.TASKS["cls"]["gold"]
REG_GOLD = cases.TASKS["reg"]["gold"]


@pytest.mark.parametrize(
    "message",
    [
        "predictions.csv line 5: expected %r for id %s" % (cases.GOLD_LABELS[3], cases.IDS[3]),
        "id %s should be %s" % (cases.IDS[7], cases.GOLD_LABELS[7]),
        "wrong at {'%s': '%s'}" % (cases.IDS[12], cases.GOLD_LABELS[12]),
        "gold line: %s,%s" % (cases.IDS[0], cases.GOLD_LABELS[0]),
        "the gold labels are %s" % ", ".join(cases.GOLD_LABELS[5:10]),
        "sequence %s" % "".join(cases.GOLD_LABELS[:6]),
        "sequence %s" % "".join(cases.GOLD_LABELS[10:14]),
    ],
)
def test_leak_checker_flags_a_leaky_message(message):
    assert leaks.find_leaks({"stderr": message}, GOLD)


INT_GOLD = cases.TASKS["int"]["gold"]


@pytest.mark.parametrize(
    "message",
    [
        "codes: %s" % ", ".join(cases.INT_GOLD[:8]),
        "codes: %s" % " ".join(cases.INT_GOLD[3:12]),
        "%s,%s" % (cases.IDS[2], cases.INT_GOLD[2]),
    ],
)
def test_leak_checker_flags_integer_labels(message):
    assert leaks.find_leaks({"stderr": message}, INT_GOLD)


@pytest.mark.parametrize(
    "message",
    [
        "label '1.0' is not one of: 0, 1, 2 (write 1, not 1.0)",
        "f1_macro 0.200110 [0.120001, 0.212200] B: 200 200.0 2002",
    ],
)
def test_leak_checker_passes_integer_label_lists_and_numbers(message):
    assert leaks.find_leaks({"stderr": message}, INT_GOLD) == []


def test_leak_checker_flags_a_regression_value():
    message = "predictions.csv line 3: expected a value near %s" % cases.GOLD_VALUES[1]
    assert leaks.find_leaks({"stderr": message}, REG_GOLD, distinctive_values=True)


@pytest.mark.parametrize(
    "message",
    [
        "predictions.csv line 17: label 'favour' is not one of: against, favor, none",
        "predictions.csv is missing 3 of the 30 test ids (e.g. 'q7x-004', 'q7x-010', 'q7x-021')",
        "predictions.csv line 4: label 'Favor' is not one of: against, favor, none (labels are case-sensitive; "
        "did you mean 'favor'?)",
    ],
)
def test_leak_checker_passes_a_clean_message(message):
    assert leaks.find_leaks({"stderr": message}, GOLD) == []


def test_leak_checker_sees_ids_in_successful_outputs():
    assert leaks.mentions_ids({"output/detailed_results.html": "<td>%s</td>" % cases.IDS[4]}, GOLD)
    assert leaks.mentions_ids({"output/detailed_results.html": "<td>q7x-0045</td>"}, GOLD) == []


# ---------------------------------------------------------------------------
# The whole corpus in the stock images' environments (run by .ci/run)
# ---------------------------------------------------------------------------
IMAGES = {"py37": "LEADERBOARD_CI_PY37", "py312": "LEADERBOARD_CI_PY312"}


@pytest.mark.image
# py312 in the slow selection: py37 (Python 3.7, numpy 1.17: the image furthest from the host's) represents it in CI,
# where the py312 image still scores every example's samples and the sample competition (test_examples, test_images)
@pytest.mark.parametrize("image", ["py37", pytest.param("py312", marks=pytest.mark.slow)])
def test_the_corpus_in_the_image(image, runs, tmp_path, program_compiled_by):
    """Every case, through score.py in a fresh /app-like tree with the image's Python: same outcome, one line.

    An accepted case must write the bytes the host's Python wrote for its task's clean submission (the module's
    ``runs``: the default tests' host runs of the whole corpus, shared when both run in one session as in CI).
    """
    python = os.environ.get(IMAGES[image])
    if not python:
        pytest.skip("set %s to the %s image's interpreter (.ci/run does)" % (IMAGES[image], image))
    base = str(tmp_path)
    programs = Programs(base, compiled=program_compiled_by(python))
    todo = list(cases.CASES) + list(CLEAN.values())
    prepared = [_prepare(case, base, programs) for case in todo]

    jobs = [
        (os.path.join(work, "app"), program, reference, submission) for work, program, reference, submission in prepared
    ]
    # each run a fork of an image interpreter that has imported numpy and the program (tests/_forked_runs.py)
    with ForkedScoring(python, preload=programs.compiled) as scoring:
        results = scoring.map(jobs)
    failures = []
    for case, result in zip(todo, results):
        lines = result.stderr.splitlines()
        if case.accept or case.name.startswith("clean_"):
            ok = (
                result.returncode == 0
                and result.stderr == ""
                and result.scores_json_bytes == runs[CLEAN[case.task].name].scores_json_bytes
            )
        else:
            ok = (
                result.returncode == case.code
                and len(lines) == 1
                and result.scores is None
                and __import__("re").search(case.expect, lines[0]) is not None
                and "Traceback" not in result.stdout + result.stderr
                and not os.listdir(result.output_dir)
            )
        if not ok:
            failures.append("%s: exit %d, %r" % (case.name, result.returncode, result.stderr[:300]))
    assert failures == []


# ---------------------------------------------------------------------------
# Archives (issue 14, class 8): one sentence wherever anything is unpacked
# ---------------------------------------------------------------------------
def _bad_archive(kind):
    extra = cases.ARCHIVES[kind]
    data = cases.TASKS["cls"]["clean"].encode("utf-8")
    return cases.raw_zip([("predictions.csv", data, extra.get("flags", 0), extra.get("method", 0))])


def _one_sentence(text):
    assert "\n" not in text and "Traceback" not in text and text.strip(), text
    return text


ARCHIVE_REASON = r"the zip member 'predictions\.csv' is (encrypted \(password-protected\)|compressed with method \d+)"


@pytest.mark.parametrize("kind", sorted(cases.ARCHIVES))
def test_archives_in_the_worker_emulation(kind, tmp_path):
    path = tmp_path / "submission.zip"
    path.write_bytes(_bad_archive(kind))
    reference = cases.write_tree(str(tmp_path / "ref"), {"gold.csv": cases.TASKS["cls"]["gold"]})
    with pytest.raises(UnpackError) as excinfo:
        run_scoring(str(tmp_path / "app"), PROGRAM, reference, str(path))
    message = _one_sentence(str(excinfo.value))
    assert __import__("re").match(r"^submission\.zip cannot be unpacked: " + ARCHIVE_REASON, message), message


@pytest.mark.parametrize("kind", sorted(cases.ARCHIVES))
def test_archives_in_the_end_of_phase_ingestion(kind, tmp_path):
    from leaderboard_ci.phase.ingestion.discovery import discover
    from leaderboard_ci.phase.ingestion.safe_unzip import safe_extract

    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "team.zip").write_bytes(_bad_archive(kind))
    entries, skipped = discover(str(folder), str(tmp_path / "work"))
    assert entries == [] and len(skipped) == 1
    assert __import__("re").match("^" + ARCHIVE_REASON, _one_sentence(skipped[0][1])), skipped
    bulk = tmp_path / "bulk.zip"  # a bulk download whose member is the bad zip's bad member itself
    bulk.write_bytes(_bad_archive(kind))
    entries, skipped = discover(str(bulk), str(tmp_path / "work2"))
    assert entries == [] and len(skipped) == 1
    _one_sentence(skipped[0][1])
    with pytest.raises(ConfigError) as excinfo:
        safe_extract(str(folder / "team.zip"), str(tmp_path / "ref"))
    assert __import__("re").match(
        "^team\\.zip cannot be extracted: " + ARCHIVE_REASON, _one_sentence(str(excinfo.value))
    )


@pytest.fixture(scope="module")
def cls_program(tmp_path_factory, program_compiled_by):
    base = str(tmp_path_factory.mktemp("cls_program"))
    return Programs(base, compiled=program_compiled_by(sys.executable)).get(cases.CLS_CONFIG)


@pytest.mark.parametrize("kind", sorted(cases.ARCHIVES))
def test_archives_inside_a_submission_through_score_py(kind, tmp_path, cls_program):
    reference = cases.write_tree(str(tmp_path / "ref"), {"gold.csv": cases.TASKS["cls"]["gold"]})
    program = cls_program
    submission = cases.write_tree(str(tmp_path / "sub"), {"predictions.zip": _bad_archive(kind)})
    result = run_scoring(str(tmp_path / "app"), program, reference, submission)
    assert result.returncode == 1 and result.scores is None
    assert result.stderr == (
        "predictions.zip is a zip archive (or an Excel .xlsx file), not a text file of "
        "predictions; put the text file itself at the top of your zip\n"
    )


def test_with_decoy_ids_the_page_and_the_signature_give_no_count_of_scored_items(runs):
    """files.unscored_ids: ignore: how many of the public ids are scored is a fact of the gold."""
    accepted = [c for c in cases.CASES if c.accept and c.config is not None and "unscored_ids: ignore" in c.config]
    assert accepted, "the corpus needs an accepted case in decoy mode"
    for case in accepted:
        result = runs[case.name]
        assert result.returncode == 0, result.stderr
        n = len(_gold_text(case).strip().splitlines()) - 1  # data rows of the gold file
        texts = _outputs(result)
        for where, text in texts.items():
            assert "|n:%d|" % n not in text, where  # the signature field
            assert "%d test items" % n not in text and "{:,} test items".format(n) not in text, where
