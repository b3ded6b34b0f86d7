"""No item-level oracle in what a participant sees: submissions crafted to probe chosen items learn nothing.

The attack (issues 14 and 24): predict one class everywhere except 20 chosen
items, say '3' on 10 of them and '5' on 10 others.  A per-class table then
says which probed items are right (class 3 precision 1.0: all ten are 3s;
class 5 precision 0.0: none is a 5), and precision * predicted / recall gives
the gold's class counts.  ``detailed_results.min_count`` withholds the rows of
classes predicted (or in the gold) fewer times, which only makes the probe
larger, so the table is off by default (``detailed_results.per_class``).

Two parts:

* in process, with the table turned on, the ``min_count`` suppression hides
  the one-item probes of issue 14 (golds that differ in *which* probe items
  are right, with the same leaderboard scores, give the same per-class part);
  with ``min_count: 1`` the same pages differ, so that test can fail;
* as the worker runs the program (:func:`leaderboard_ci.tools.local_worker.run_scoring`),
  with the defaults, a 20-item probe sees the same bytes (scores.json,
  scores.txt, detailed_results.html, stdout, stderr) on two golds that differ
  in the probed items but give it the same leaderboard scores, for
  classification, multi-label classification and sequence labelling; with
  ``per_class: true`` the same two golds give different pages.
"""

import io
import json
import os
import re
from dataclasses import dataclass

import numpy as np
import pytest
import yaml

from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.detailed_html import render_detailed_results
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.tasks.shared.base import GoldStandard
from leaderboard_ci.tools.local_worker import run_scoring

K = 21  # class 0, and one class for each of the 20 probed items
PER_CLASS = 40
N_PROBES = 20
LABELS = tuple("c%02d" % k for k in range(K))


def _design():
    """Base gold codes, the probe submission, and per pair of probes the three items whose labels vary."""
    n = K * PER_CLASS
    base = np.repeat(np.arange(K), PER_CLASS)
    rng = np.random.default_rng(7)
    base = base[rng.permutation(n)]
    prediction = np.zeros(n, dtype=np.intp)
    pairs = []
    used = set()
    for p in range(N_PROBES // 2):
        a, b = 2 * p + 1, 2 * p + 2
        # two probe items and one decoy, taken from classes a and b so that the base counts stay equal
        j1 = next(i for i in range(n) if base[i] == a and i not in used)
        used.add(j1)
        j2 = next(i for i in range(n) if base[i] == b and i not in used)
        used.add(j2)
        m = next(i for i in range(n) if base[i] == 0 and i not in used)
        used.add(m)
        prediction[j1], prediction[j2] = a, b  # each probe is the only prediction of its class
        pairs.append((a, b, j1, j2, m))
    return base, prediction, pairs


def _gold(base, pairs, choice):
    """The gold with, per pair, the first (j1 right, j2 wrong) or second (j1 wrong, j2 right) variant.

    Variant 1: j1 = a, j2 = a, m = b.  Variant 2: j1 = b, j2 = b, m = a.  The
    counts of a and b swap between the variants (41 and 40), and macro-F1 and
    accuracy of the probe submission are the same in both; class 0 holds m in
    neither.
    """
    codes = base.copy()
    for (a, b, j1, j2, m), second in zip(pairs, choice):
        codes[j1], codes[j2], codes[m] = (b, b, a) if second else (a, a, b)
    return codes


def _config(**detailed):
    data = {
        "metric": "f1_macro",
        "extra_metrics": ["accuracy"],
        "labels": list(LABELS),
        "bootstrap": {"n_resamples": 200},
    }
    if detailed:
        data["detailed_results"] = detailed
    return parse_config(data)


def _page(codes, prediction, config):
    result = evaluate(config, GoldStandard(values=codes, labels=LABELS), prediction)
    return result, render_detailed_results(result, config)


def _per_class_part(html):
    """The per-class section and every note naming a class."""
    section = re.search(r"<section><h2>Per-class scores</h2>.*?</section>", html)
    notes = re.findall(r"<li>[^<]*class[^<]*</li>", html)
    return (section.group(0) if section else ""), notes


CHOICES = [
    tuple([False] * 10),
    tuple([True] * 10),
    tuple(k % 2 == 0 for k in range(10)),
    tuple(k < 3 for k in range(10)),
]


@pytest.fixture(scope="module")
def design():
    return _design()


def test_the_probe_submission_has_the_same_leaderboard_scores_in_every_variant(design):
    base, prediction, pairs = design
    config = _config()
    scores = []
    for choice in CHOICES:
        result, _ = _page(_gold(base, pairs, choice), prediction, config)
        scores.append([round(s.score, 12) for s in result.scores])
    assert all(s == scores[0] for s in scores)


def test_the_per_class_table_tells_nothing_about_one_item_probes(design):
    base, prediction, pairs = design
    config = _config(per_class=True)
    parts = [_per_class_part(_page(_gold(base, pairs, choice), prediction, config)[1]) for choice in CHOICES]
    assert parts[0][0]  # the section is there, with the rows of the classes that have enough items
    assert all(part == parts[0] for part in parts[1:])


def test_without_the_threshold_the_table_is_an_oracle(design):
    base, prediction, pairs = design
    config = _config(per_class=True, min_count=1)
    parts = [_per_class_part(_page(_gold(base, pairs, choice), prediction, config)[1]) for choice in CHOICES]
    assert parts[0] != parts[1]


def _rows(html):
    section = _per_class_part(html)[0]
    rows = [re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", section)]
    return [cells for cells in rows if cells]  # not the header row


@pytest.mark.parametrize("min_count", [1, 10, 25])
def test_shown_rows_have_enough_predictions_and_gold_items(design, min_count):
    base, prediction, pairs = design
    codes = _gold(base, pairs, CHOICES[2])
    _, html = _page(codes, prediction, _config(per_class=True, min_count=min_count))
    predicted = np.bincount(prediction, minlength=K)
    support = np.bincount(codes, minlength=K)
    rows = _rows(html)
    assert len(rows) == K
    for k, cells in enumerate(rows):
        shown = cells[1] != "\u2013"
        assert shown == (predicted[k] >= min_count and support[k] >= min_count), (k, cells)
        assert cells[-1] == "{:,}".format(predicted[k])


def test_no_per_class_part_unless_the_organizer_turns_it_on(design):
    base, prediction, pairs = design
    for config in (_config(), _config(per_class=False), _config(min_count=1)):
        for choice in CHOICES:
            _, html = _page(_gold(base, pairs, choice), prediction, config)
            assert "Per-class" not in html and _per_class_part(html) == ("", [])


# ---------------------------------------------------------------------------
# As the worker runs the program: a 20-item probe sees the same bytes on two golds
# ---------------------------------------------------------------------------
# Two golds that differ in the probed items but give the probe submission the same
# leaderboard scores, its intervals and its comparison with the baseline to the last
# bit: every resample sees the same per-unit counts of the official and extra metrics
# (the resampling unit is the item, the movie, the sentence).  For single-label
# classification that means the same right and wrong items, so the golds differ in
# what the 10 wrongly predicted probes really are (3s or 7s); for multi-label
# classification and sequence labelling, in *which* of the probed labels or entities
# are right.  What else the participant then sees must be the same too: it would
# otherwise tell them something about the probed items that the leaderboard does not.
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
PROGRAM = os.path.join(ROOT, "scoring_program")
PROBE_B = 200


@dataclass(frozen=True)
class ProbeCase:
    config: dict  # the ref/ config.yaml, without detailed_results
    golds: tuple  # two {file name: text} of ref/ (gold, baseline)
    submission: dict  # {file name: text}
    unit: str  # the per-unit table's heading: "Per-class"
    changed: int  # how many gold lines (items, tokens) the two golds differ in: all of them probed


def _classification_probe():
    """'0' everywhere, '3' on 10 items that are 3s and '5' on 10 items that are 3s (gold A) or 7s (gold B)."""
    rng = np.random.default_rng(24)
    n = 400
    labels = rng.integers(0, 10, n)
    ids = ["t%03d" % i for i in range(n)]
    threes = [4 * k + k % 2 for k in range(10)]  # probed with '3', right in both golds (both groups)
    others = [50 + 3 * k for k in range(10)]  # probed with '5', wrong in both golds
    assert not set(threes) & set(others)
    prediction = ["0"] * n
    for i in threes:
        labels[i], prediction[i] = 3, "3"
    for i in others:
        prediction[i] = "5"

    def gold(other_label):
        values = labels.copy()
        values[others] = other_label
        rows = ["%s,%d,%s" % (ids[i], values[i], "en" if i % 2 else "es") for i in range(n)]
        return {
            "gold.csv": "id,label,lang\n" + "\n".join(rows) + "\n",
            "baseline.csv": "id,label\n" + "".join("%s,0\n" % i for i in ids),
        }

    config = {
        "metric": "accuracy",
        "extra_metrics": [],
        "labels": [str(k) for k in range(10)],
        "groups": "lang",
        "baseline": {"file": "baseline.csv", "name": "all zeros"},
        "bootstrap": {"n_resamples": PROBE_B},
    }
    submission = {"predictions.csv": "id,label\n" + "".join("%s,%s\n" % p for p in zip(ids, prediction))}
    return ProbeCase(config, (gold(3), gold(7)), submission, "Per-class", 10)


def _multilabel_probe():
    """{a, b} on 20 movies that are {a} (gold A) or {b} (gold B): one of two labels right either way."""
    rng = np.random.default_rng(25)
    n = 200
    ids = ["m%03d" % i for i in range(n)]
    sets = [[x for x in "abcd" if rng.random() < 0.4] for _ in range(n)]
    prediction = [[x for x in "abcd" if (x in s) != (rng.random() < 0.2)] for s in sets]
    probes = list(range(0, 100, 5))
    for i in probes:
        prediction[i] = ["a", "b"]

    def gold(label):
        values = [[label] if i in probes else s for i, s in enumerate(sets)]
        return {"gold.csv": "id,labels\n" + "".join("%s,%s\n" % (ids[i], "|".join(v)) for i, v in enumerate(values))}

    config = {
        "task": "multilabel",
        "metric": "f1_micro",
        "extra_metrics": ["precision_micro", "recall_micro", "f1_samples", "jaccard_samples", "hamming_loss"],
        "labels": list("abcd"),
        "label_separator": "|",
        "files": {"gold": "gold.csv", "gold_column": "labels"},
        "bootstrap": {"n_resamples": PROBE_B},
    }
    submission = {"predictions.json": json.dumps(dict(zip(ids, prediction)), indent=1)}
    return ProbeCase(config, (gold("a"), gold("b")), submission, "Per-label", 20)


def _sequence_probe():
    """10 sentences tagged 'Ann B-PER saw O Rome B-LOC': both PER (gold A) or both LOC (gold B)."""
    rng = np.random.default_rng(26)
    names = {"PER": ["Ann", "Bo", "Cy"], "LOC": ["Rome", "Oslo", "Lima"], "ORG": ["Acme", "Initech"]}
    body = []
    for _ in range(80):
        types = rng.choice(sorted(names), size=2)
        body.append(
            [(str(rng.choice(names[types[0]])), "B-" + types[0]), ("met", "O"), ("in", "O")]
            + [(str(rng.choice(names[types[1]])), "B-" + types[1]), (".", "O")]
        )
    guesses = [[(w, t if k % 7 else "O") for w, t in s] for k, s in enumerate(body)]  # some entities missed

    def conll(sentences):
        return "\n".join("".join("%s %s\n" % pair for pair in s) for s in sentences)

    probe = [("Ann", "B-PER"), ("saw", "O"), ("Rome", "B-LOC")]

    def gold(kind):
        sentences = list(body)
        for k in range(10):
            sentences.insert(8 * k, [("Ann", "B-" + kind), ("saw", "O"), ("Rome", "B-" + kind)])
        return {"gold.conll": conll(sentences)}

    submission = list(guesses)
    for k in range(10):
        submission.insert(8 * k, probe)
    config = {
        "task": "sequence",
        "metric": "f1_micro",
        "extra_metrics": ["precision_micro", "recall_micro", "accuracy"],
        "files": {"gold": "gold.conll", "predictions": "predictions.conll"},
        "labels": ["LOC", "ORG", "PER"],
        "bootstrap": {"n_resamples": PROBE_B},
    }
    return ProbeCase(
        config, (gold("PER"), gold("LOC")), {"predictions.conll": conll(submission)}, "Per-entity type", 20
    )


PROBES = {"classification": _classification_probe, "multilabel": _multilabel_probe, "sequence": _sequence_probe}


def _folder(path, files):
    os.makedirs(path)
    for name, text in files.items():
        with io.open(os.path.join(path, name), "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    return path


def _seen(run):
    """Everything the participant sees of a run: exit code, stdout, stderr and every output file."""
    out = run.output_dir
    files = {}
    for name in sorted(os.listdir(out)):
        with open(os.path.join(out, name), "rb") as handle:
            files[name] = handle.read()
    return run.returncode, run.stdout, run.stderr, files


@pytest.fixture(scope="module", params=sorted(PROBES))
def probe_runs(request, tmp_path_factory):
    """``(case, {(per_class, gold 0 or 1): seen})``: the probe scored as the worker does on both golds."""
    case = PROBES[request.param]()
    work = tmp_path_factory.mktemp("probe-" + request.param)
    submission = _folder(str(work / "submission"), case.submission)
    seen = {}
    for per_class in (None, True):
        config = dict(case.config)
        if per_class is not None:
            config["detailed_results"] = {"per_class": per_class}
        for g, gold in enumerate(case.golds):
            name = "%s-%d" % ("default" if per_class is None else "table", g)
            files = dict(gold, **{"config.yaml": yaml.safe_dump(config, sort_keys=False)})
            reference = _folder(str(work / ("ref-" + name)), files)
            run = run_scoring(str(work / name), PROGRAM, reference, submission, timeout=300)
            assert run.returncode == 0, run.stderr
            seen[(per_class, g)] = _seen(run)
    return case, seen


def _changed_lines(case):
    """``[(gold line, submission line)]`` where the two golds differ (the files are aligned line by line)."""
    name = next(n for n in case.golds[0] if n.startswith("gold"))
    a, b = (gold[name].splitlines() for gold in case.golds)
    submitted = next(iter(case.submission.values()))
    assert len(a) == len(b)
    if submitted.startswith("{"):  # multi-label JSON: the submission's {id: labels}
        guesses = json.loads(submitted)
        return [(x, guesses[x.split(",")[0]]) for x, y in zip(a, b) if x != y]
    guesses = submitted.splitlines()
    return [(x, guesses[k]) for k, (x, y) in enumerate(zip(a, b)) if x != y]


def test_the_two_golds_differ_only_in_probed_items_and_give_the_same_leaderboard(probe_runs):
    case, seen = probe_runs
    assert [n for n in case.golds[0] if case.golds[0][n] != case.golds[1][n]] == [next(iter(case.golds[0]))]
    changed = _changed_lines(case)
    assert len(changed) == case.changed
    probes = {"Per-class": ("3", "5"), "Per-label": (["a", "b"],), "Per-entity type": ("B-PER", "B-LOC")}[case.unit]
    for _, guess in changed:  # every gold line that differs is one the probe guessed on
        assert any(guess == p or re.split("[ ,]", str(guess))[-1] == p for p in probes), guess
    for per_class in (None, True):
        scores = [seen[(per_class, g)][3]["scores.json"] for g in (0, 1)]
        assert scores[0] == scores[1]  # the score, its interval, the baseline's columns: every byte
    assert seen[(None, 0)][3]["scores.json"] == seen[(True, 0)][3]["scores.json"]


def test_with_the_defaults_the_probe_sees_the_same_bytes_on_both_golds(probe_runs):
    case, seen = probe_runs
    assert seen[(None, 0)] == seen[(None, 1)]
    page = seen[(None, 0)][3]["detailed_results.html"].decode("utf-8")
    assert "Per-" not in page and "Predicted" not in page


def test_with_the_table_on_the_same_golds_give_different_pages(probe_runs):
    """The control: the comparison above can fail, and does, with the organizer's opt-in."""
    case, seen = probe_runs
    pages = [seen[(True, g)][3]["detailed_results.html"].decode("utf-8") for g in (0, 1)]
    assert "<h2>%s scores</h2>" % case.unit in pages[0]
    assert pages[0] != pages[1]
    assert [_table(p) for p in pages][0] != [_table(p) for p in pages][1]


def _table(page):
    """``{unit: (precision, recall, F1, F1 CI, predicted)}`` of the per-unit table."""
    section = re.search(r"<h2>Per-[^<]* scores</h2>.*?</section>", page).group(0)
    rows = [re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", section)]
    return dict((cells[0], tuple(cells[1:])) for cells in rows if cells)


def test_with_the_table_on_precision_times_predicted_over_recall_counts_the_gold(probe_runs):
    """The attack of issue 24 on the classification probe: class 3's gold count moves by the 10 wrong probes."""
    case, seen = probe_runs
    if case.unit != "Per-class":
        pytest.skip("the arithmetic of single-label classes")
    counts = []
    for g in (0, 1):
        table = _table(seen[(True, g)][3]["detailed_results.html"].decode("utf-8"))
        precision, recall, _, _, predicted = table["3"]
        assert (precision, table["5"][0]) == ("1.0000", "0.0000")  # the ten 3-probes are 3s, no 5-probe is a 5
        counts.append(round(float(precision) * int(predicted) / float(recall)))
    assert counts[0] - counts[1] == 10  # gold A: the ten 5-probes are 3s
