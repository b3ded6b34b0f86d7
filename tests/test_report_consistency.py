"""The report agrees with its own numbers: HTML, Markdown and LaTeX tables against report.json (the n of
groups included), p-values that never look like the other side of a threshold, the winner is never the
baseline, and "tied with the winner" is one list everywhere."""
import json
import re
from html.parser import HTMLParser

import numpy as np
import pytest

import _report_examples as E
from leaderboard_ci.phase.analysis import analyze
from leaderboard_ci.report.formatting import MINUS, format_ci, format_number, format_p, latex_escape
from leaderboard_ci.report.html_report import render_report, target_anchor
from leaderboard_ci.report.json_report import result_to_json
from leaderboard_ci.report.tables import tables_latex, tables_markdown, target_tables


# ---------------------------------------------------------------------------
# Parsing what the renderers wrote
# ---------------------------------------------------------------------------
def _markdown_rows(text):
    rows = []
    for line in text.splitlines():
        if line.startswith("|") and not set(line) <= set("|-: "):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            rows.append([re.sub(r"\\(.)", r"\1", c) for c in cells])
    return rows


def _latex_rows(text):
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if line.endswith(r"\\") and "&" in line:
            cells = [c.strip() for c in re.split(r"(?<!\\)&", line[:-2])]
            rows.append([c.replace("$-$", "-").replace("$<$", "<") for c in cells])
    return rows


def _latex_name(name):
    return latex_escape(name).replace("$-$", "-").replace("$<$", "<")


class _Tables(HTMLParser):
    """The tables of each ``<section id=...>`` of the page: {section id: [[row cells], ...]}."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.sections, self.section, self.cell, self.row = {}, None, None, None

    def handle_starttag(self, tag, attrs):
        if tag == "section":
            self.section = dict(attrs).get("id")
            self.sections.setdefault(self.section, [])
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []
        elif tag == "span" and self.cell is not None and "tag" in (dict(attrs).get("class") or ""):
            self.cell.append("\0")  # a "winner"/"baseline" tag after the name: cut it off

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.row.append("".join(self.cell).split("\0")[0].strip())
            self.cell = None
        elif tag == "tr" and self.row is not None:
            if self.section is not None:
                self.sections[self.section].append(self.row)
            self.row = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def _row(rows, name):
    found = [r for r in rows if name in r[:2]]
    assert found, "no row for %r" % name
    return found[0]


def _expected_rows(metric, alpha):
    """What each system's row and vs-winner row must show, formatted from report.json's numbers."""
    systems = {s["name"]: [format_number(s["score"], 4), format_ci(s["ci_low"], s["ci_high"], 4)]
               for s in metric["systems"]}
    vs = {}
    for v in metric["vs_winner"]:
        ps = [format_p(v["p_value"], alpha=alpha)] + [format_p(v["p_adjusted"][c], alpha=alpha)
                                                      for c in v["p_adjusted"]]
        vs[v["name"]] = [format_number(v["diff"], 4), format_ci(v["ci_low"], v["ci_high"], 4)] + ps
    return systems, vs


EXAMPLES = ["groups", "regression", "classification"]


@pytest.mark.parametrize("example", EXAMPLES)
def test_markdown_and_latex_tables_equal_report_json(example):
    result = E.ALL[example]()
    report = json.loads(result_to_json(result))
    alpha = report["settings"]["alpha"] if "alpha" in report["settings"] else result.signature.alpha
    checked = 0
    for key, target in result.targets.items():
        metric = report["metrics"][key]
        tables = target_tables(result, target)
        systems, vs = _expected_rows(metric, alpha)
        for text, parse, escape in ((tables_markdown(tables, title=target.title), _markdown_rows, str),
                                    (tables_latex(tables, title=target.title), _latex_rows, _latex_name)):
            rows = parse(text)
            for name, cells in systems.items():
                row = _row(rows, escape(name))
                assert row[2:4] == cells, (key, name, row)
                checked += 1
            for name, cells in vs.items():
                row = [r for r in rows if r[0] == escape(name) and r[2].startswith("[") and r[1] == cells[0]]
                assert row and row[0][1:1 + len(cells)] == cells, (key, name, rows)
                checked += 1
            # the n of the target (a group's own size) in the caption
            n = metric["indicators"]["n"]
            assert "n = %d" % n in text
            assert all("n = %d" % other not in text for other in {report["n_items"]} - {n})
    assert checked > 20


@pytest.mark.parametrize("example", EXAMPLES)
def test_html_tables_equal_report_json(example):
    result = E.ALL[example]()
    report = json.loads(result_to_json(result))
    parser = _Tables()
    parser.feed(render_report(result, figures={}))
    for key, target in result.targets.items():
        metric = report["metrics"][key]
        rows = [[c.replace(MINUS, "-") for c in r] for r in parser.sections[target_anchor(key)]]
        systems, vs = _expected_rows(metric, result.signature.alpha)
        for name, cells in systems.items():
            row = _row(rows, name)
            assert row[2:4] == cells, (key, name, row)
            assert (row[5] == "\u2713") == (name in metric["tied_with_winner"])  # one list of ties
        for name, cells in vs.items():
            row = [r for r in rows if r[0] == name and r[2].startswith("[") and r[1] == cells[0]]
            assert row and row[0][1:1 + len(cells)] == cells, (key, name)
            assert (row[0][-1] == "no") == (name in metric["tied_with_winner"])
        n = metric["indicators"]["n"]
        section = render_report(result, figures={}).split('id="%s"' % target_anchor(key))[1].split("</section>")[0]
        assert "n = %s items" % "{:,}".format(n) in section


def test_group_n_is_the_groups_own_size():
    result = E.with_groups()
    report = json.loads(result_to_json(result))
    sizes = {key: m["indicators"]["n"] for key, m in report["metrics"].items()}
    assert sizes["f1_macro"] == report["n_items"] == sum(v for k, v in sizes.items() if k != "f1_macro")
    assert len(set(sizes.values())) == 3


@pytest.mark.parametrize("value, text", [
    (0.0504, "0.0504"), (0.0496, "0.0496"), (0.05, "0.050"), (0.0501, "0.0501"), (0.04995, "0.04995"),
    (0.634, "0.634"), (0.0099, "0.0099"), (0.01, "0.010"), (0.1004, "0.1004"), (0.0004, "<0.001"),
    (0.00104, "0.00104"), (0.2, "0.200"),
])
def test_p_values_never_look_like_the_other_side_of_a_threshold(value, text):
    assert format_p(value) == text
    shown = float(text.lstrip("<"))
    for threshold in (0.001, 0.01, 0.05, 0.1):
        assert (shown <= threshold) == (value <= threshold)


def test_p_values_respect_a_configured_alpha():
    assert format_p(0.0252, alpha=0.025) == "0.0252"
    assert format_p(0.0252) == "0.025"


def test_the_winner_is_never_the_baseline_and_the_report_says_when_it_scores_better():
    rng = np.random.default_rng(21)
    n = 300
    gold = rng.integers(0, 3, n)
    def noisy(acc):
        pred = gold.copy()
        flip = rng.random(n) > acc
        pred[flip] = rng.integers(0, 3, int(flip.sum()))
        return [str(x) for x in pred]
    systems = {"strong baseline": noisy(0.9), "team_a": noisy(0.7), "team_b": noisy(0.6)}
    result = analyze([str(g) for g in gold], systems, metric="accuracy", baseline="strong baseline",
                     n_resamples=200)
    target = result.official
    assert target.winner == "team_a"
    assert list(target.systems["name"])[:2] == ["team_a", "strong baseline"]
    assert any("the baseline strong baseline scores better" in note for note in target.notes)
    html = render_report(result, figures={})
    assert "The baseline strong baseline scores better than the winner" in html
    report = json.loads(result_to_json(result))
    assert report["metrics"]["accuracy"]["winner"] == "team_a"


def test_the_report_flags_classes_and_errors_that_rest_on_almost_nothing():
    gold = np.array([0] * 100 + [1] * 100 + [2] * 2)
    a, b = gold.copy(), gold.copy()
    a[:10], b[:20] = 1, 2
    result = analyze([str(g) for g in gold], {"a": [str(x) for x in a], "b": [str(x) for x in b]},
                     metric="f1_macro", n_resamples=100)
    notes = result.official.notes
    assert any("class '2' has at most 3 gold items" in n for n in notes)
    assert any("1 system predicts some class at most 3 times (a)" in n for n in notes)
    html = render_report(result, figures={})
    assert "class &#x27;2&#x27; has at most 3 gold items" in html or "class '2' has at most 3 gold items" in html
    rng = np.random.default_rng(3)
    y = rng.normal(size=300)
    result = analyze(list(y), {"heavy": y + rng.standard_t(2, size=300), "normal": y + rng.normal(size=300)},
                     metric="rmse", n_resamples=100)
    assert any("heavy tails" in n and "(heavy)" in n for n in result.official.notes)
