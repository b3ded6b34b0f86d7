"""No item-level oracle in detailed_results.html: submissions crafted to probe chosen items learn nothing.

The attack (issue 14): predict one class everywhere except up to 20 chosen
items, each the only prediction of its class.  Without precautions that
class's precision on the page is 1 or 0: the item's correctness, which the
leaderboard score does not give.  The test builds golds that differ only in
*which* probe items are right, in such a way that every leaderboard score of
the probe submission is the same (the class counts too), and checks that the
per-class part of the page is then the same as well: it tells nothing about
the probed items beyond the leaderboard.  With the suppression turned down to
``min_count: 1`` the same pages differ, so the test can fail.
"""

import re

import numpy as np
import pytest

from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.detailed_html import render_detailed_results
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.tasks.base import GoldStandard

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


def test_the_per_class_table_tells_nothing_about_probed_items(design):
    base, prediction, pairs = design
    config = _config()
    parts = [_per_class_part(_page(_gold(base, pairs, choice), prediction, config)[1]) for choice in CHOICES]
    assert parts[0][0]  # the section is there, with the rows of the classes that have enough items
    assert all(part == parts[0] for part in parts[1:])


def test_without_the_threshold_the_table_is_an_oracle(design):
    base, prediction, pairs = design
    config = _config(min_count=1)
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
    _, html = _page(codes, prediction, _config(min_count=min_count))
    predicted = np.bincount(prediction, minlength=K)
    support = np.bincount(codes, minlength=K)
    rows = _rows(html)
    assert len(rows) == K
    for k, cells in enumerate(rows):
        shown = cells[1] != "\u2013"
        assert shown == (predicted[k] >= min_count and support[k] >= min_count), (k, cells)
        assert cells[-1] == "{:,}".format(predicted[k])


def test_organizers_can_turn_the_table_off(design):
    base, prediction, pairs = design
    _, html = _page(_gold(base, pairs, CHOICES[0]), prediction, _config(per_class=False))
    assert "Per-class" not in html and _per_class_part(html) == ("", [])
