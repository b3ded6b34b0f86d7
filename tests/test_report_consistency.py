"""The report agrees with its own numbers: HTML, Markdown and LaTeX tables against report.json (the n of
groups included), p-values that never look like the other side of a threshold, the winner is never the
baseline, and "tied with the winner" is one list everywhere."""

import json
import re
from html.parser import HTMLParser

import _report_examples as E
import numpy as np
import pandas as pd
import pytest

from leaderboard_ci.phase.analysis import analyze
from leaderboard_ci.report.formatting import MINUS, correction_name, format_ci, format_number, format_p, latex_escape
from leaderboard_ci.report.html_report import render_report, target_anchor
from leaderboard_ci.report.json_report import result_to_json
from leaderboard_ci.report.scale import target_folders
from leaderboard_ci.report.tables import tables_latex, tables_markdown, target_tables
from leaderboard_ci.report.verdicts import DIRECTION_MARK, format_rank_set, interval_header, verdict_mark

#: The shared report examples (lru-cached analyses and pages) are built once: these modules run on one xdist worker.
pytestmark = pytest.mark.xdist_group("report_examples")


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


def _latex_plain(cell):
    """A LaTeX cell with the signs the renderer writes as math turned back into text."""
    for latex, text in (("$-$", "-"), ("$<$", "<"), (r"$\ddagger$", "\u2021"), (r"$\dagger$", "\u2020")):
        cell = cell.replace(latex, text)
    return cell


def _latex_rows(text):
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if line.endswith(r"\\") and "&" in line:
            cells = [c.strip() for c in re.split(r"(?<!\\)&", line[:-2])]
            rows.append([_latex_plain(c) for c in cells])
    return rows


def _latex_name(name):
    return _latex_plain(latex_escape(name))


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
    """What each system's row must show (score, CI and both rank sets), formatted from report.json's numbers."""
    systems = {}
    for s in metric["systems"]:
        cells = {"score": format_number(s["score"], 4), "95% CI": format_ci(s["ci_low"], s["ci_high"], 4)}
        for kind, heading in (("simultaneous", "Rank set, simultaneous"), ("marginal", "Rank set, marginal")):
            if s["rank_set"][kind] is not None:
                cells[heading] = format_rank_set(*s["rank_set"][kind])
        systems[s["name"]] = cells
    return systems


def _expected_comparisons(metric, alpha):
    """Each vs-winner row by column heading, formatted from report.json's numbers."""
    out = {}
    for v in metric["vs_winner"]:
        cells = {
            "Difference": format_number(v["diff"], 4),
            MARGINAL: format_ci(v["ci_low"], v["ci_high"], 4),
            "p (this pair alone)": format_p(v["p_value"], alpha=alpha),
            "Stars": verdict_mark(v),
        }
        for c, p in v["p_adjusted"].items():
            cells["p (%s)" % correction_name(c, header=True)] = format_p(p, alpha=alpha)
        if v["fw_low"] is not None:
            cells[FAMILY_WISE] = format_ci(v["fw_low"], v["fw_high"], 4)
        out[v["name"]] = cells
    return out


MARGINAL = interval_header(False, "95%")
FAMILY_WISE = interval_header(True, "95%")


def _tables_by_header(rows, first):
    """The rows under each header row that starts with ``first``, as {heading: cell} mappings."""
    header, out = None, []
    for row in rows:
        if row[: len(first)] == first:
            header = row
            continue
        if header is not None and len(row) == len(header) and row[0] != "":  # "": the next table's header
            out.append(dict(zip([h.replace("\\%", "%") for h in header], row)))
        else:
            header = None
    return out


def _excludes_zero(text):
    low, high = (float(x) for x in text.replace(MINUS, "-").strip("[]").split(", "))
    return not low <= 0.0 <= high


def _check_rendered(rows, metric, alpha, name_of=str):
    """Every system and vs-winner row of one rendering equals report.json, and every verdict agrees with the
    interval beside it; returns the number of rows checked."""
    checked = 0
    systems = _expected_rows(metric, alpha)
    by_name = {name_of(n): n for n in systems}
    for row in _tables_by_header(rows, ["Rank", "System"]):
        name = by_name[row["System"]]
        expected = systems[name]
        score_heading = [
            h for h in row if h not in ("Rank", "System") and not h.startswith(("95%", "Rank set", "Letters", "Tied"))
        ][0]
        assert row[score_heading] == expected["score"] and row["95% CI"] == expected["95% CI"], (name, row)
        for heading in ("Rank set, simultaneous", "Rank set, marginal"):
            assert (heading in row) == (heading in expected), heading
            if heading in row:
                assert row[heading] == expected[heading], (name, heading, row)
        checked += 1
    comparisons = _expected_comparisons(metric, alpha)
    by_name = {name_of(n): n for n in comparisons}
    primary = metric["stars_correction"]
    verdicts = {v["name"]: v for v in metric["vs_winner"]}
    for row in _tables_by_header(rows, ["System", "Difference"]):
        name = by_name[row["System"]]
        expected = comparisons[name]
        for heading, text in row.items():
            if heading in expected:
                assert text == expected[heading], (name, heading, row)
        verdict = verdicts[name]
        # the interval beside the verdict, and the p-value it goes with
        dual = FAMILY_WISE if verdict["interval"] == "family_wise" else MARGINAL
        assert list(row).index(dual) == 2, row  # right after the difference
        p_heading = "p (%s)" % correction_name(primary, header=True) if dual == FAMILY_WISE else "p (this pair alone)"
        p = verdict["p_adjusted"][primary] if dual == FAMILY_WISE else verdict["p_value"]
        direction = dual == FAMILY_WISE and bool(verdict.get("direction_only"))
        assert _excludes_zero(row[dual]) == (p < alpha and not direction), (name, row)
        assert row[p_heading] == format_p(p, alpha=alpha)
        if dual == FAMILY_WISE:  # the verdict itself: the interval's, or a direction only, marked
            stars = row["Stars"].rstrip(DIRECTION_MARK)
            assert row["Stars"].endswith(DIRECTION_MARK) == direction, row
            assert verdict["significant"] == bool(stars.strip("\u2020")) == (p < alpha), row
            assert _excludes_zero(row[dual]) == (verdict["significant"] and not direction), row
        heading = "Significant (%s)" % correction_name(primary)
        if heading in row:
            expected = "no" if not verdict["significant"] else ("direction" + DIRECTION_MARK if direction else "yes")
            assert row[heading] == expected, row
        checked += 1
    return checked


EXAMPLES = ["groups", "regression", "classification"]


@pytest.mark.parametrize("example", EXAMPLES)
def test_markdown_and_latex_tables_equal_report_json(example):
    result = E.ALL[example]()
    report = json.loads(result_to_json(result))
    alpha = result.signature.alpha
    checked = 0
    for key, target in result.targets.items():
        metric = report["metrics"][key]
        tables = target_tables(result, target)
        for text, parse, escape in (
            (tables_markdown(tables, title=target.title), _markdown_rows, str),
            (tables_latex(tables, title=target.title), _latex_rows, _latex_name),
        ):
            checked += _check_rendered(parse(text), metric, alpha, escape)
            # the n of the target (a group's own size) in the caption
            n = metric["indicators"]["n"]
            assert "n = %d" % n in text
            assert all("n = %d" % other not in text for other in {report["n_items"]} - {n})
    assert checked > 20


@pytest.mark.parametrize("example", EXAMPLES)
def test_csv_tables_equal_report_json(example, tmp_path):
    """systems.csv and vs_winner.csv hold report.json's numbers, and every verdict agrees with its interval."""
    result = E.ALL[example]()
    written = result.write(str(tmp_path), figures=False)
    report = json.loads(open(written["report.json"], encoding="utf-8").read())
    alpha = result.signature.alpha
    folders = target_folders(result)
    for key, metric in report["metrics"].items():
        systems = pd.read_csv(written["%s/systems.csv" % folders[key]])
        for s, (_, row) in zip(metric["systems"], systems.iterrows()):
            assert s["name"] == row["name"] and s["score"] == pytest.approx(row["score"], rel=1e-12)
            for kind, (lo, hi) in (
                ("simultaneous", ("rank_set_low", "rank_set_high")),
                ("marginal", ("rank_set_marginal_low", "rank_set_marginal_high")),
            ):
                if s["rank_set"][kind] is not None:
                    assert s["rank_set"][kind] == [int(row[lo]), int(row[hi])]
        vs = pd.read_csv(written["%s/vs_winner.csv" % folders[key]])
        for v, (_, row) in zip(metric["vs_winner"], vs.iterrows()):
            assert v["name"] == row["name"] and v["ci_low"] == pytest.approx(row["ci_low"], rel=1e-12)
            if "fw_low" in vs.columns:
                assert v["fw_low"] == pytest.approx(row["fw_low"], rel=1e-12)
                excludes = row["fw_low"] > 0 or row["fw_high"] < 0
                assert bool(row["significant"]) == (row["p_maxt"] < alpha)
                assert excludes == (bool(row["significant"]) and not bool(row["direction_only"]))
            assert (row["ci_low"] > 0 or row["ci_high"] < 0) == (row["p_value"] < alpha), row


@pytest.mark.parametrize("example", EXAMPLES)
def test_json_verdicts_agree_with_their_intervals(example):
    result = E.ALL[example]()
    report = json.loads(result_to_json(result))
    alpha = result.signature.alpha
    for metric in report["metrics"].values():
        primary = metric["stars_correction"]
        for v in metric["vs_winner"] + metric["pairs"]:
            assert (v["ci_low"] > 0 or v["ci_high"] < 0) == (v["p_value"] < alpha), v
            if v["interval"] == "family_wise":
                excludes = v["fw_low"] > 0 or v["fw_high"] < 0
                assert excludes == (v["p_adjusted"][primary] < alpha and not v["direction_only"]), v
                if "significant" in v:
                    assert excludes == (v["significant"] and not v["direction_only"])
        for s in metric["systems"]:
            if s["rank_set"]["simultaneous"] is not None:
                low, high = s["rank_set"]["simultaneous"]
                assert s["tied_with_winner"] == (low == 1)
                assert low <= s["rank"] <= high
                m_low, m_high = s["rank_set"]["marginal"]
                assert low <= m_low <= s["rank"] <= m_high <= high  # the simultaneous set holds the marginal one


@pytest.mark.parametrize("example", EXAMPLES)
def test_html_tables_equal_report_json(example):
    result = E.ALL[example]()
    report = json.loads(result_to_json(result))
    parser = _Tables()
    page = render_report(result, figures={})
    parser.feed(page)
    for key, _target in result.targets.items():
        metric = report["metrics"][key]
        rows = [[c.replace(MINUS, "-") for c in r] for r in parser.sections[target_anchor(key)]]
        assert _check_rendered(rows, metric, result.signature.alpha) >= 2 * len(metric["systems"]) - 1
        for row in _tables_by_header(rows, ["Rank", "System"]):
            tied = row["System"] in metric["tied_with_winner"] and row["System"] != metric["winner"]
            assert (row["Tied with winner"] == "\u2713") == tied  # the winner is not ticked as tied with itself
        n = metric["indicators"]["n"]
        section = page.split('id="%s"' % target_anchor(key))[1].split("</section>")[0]
        assert "n = %s items" % "{:,}".format(n) in section


def test_group_n_is_the_groups_own_size():
    result = E.with_groups()
    report = json.loads(result_to_json(result))
    sizes = {key: m["indicators"]["n"] for key, m in report["metrics"].items()}
    assert sizes["f1_macro"] == report["n_items"] == sum(v for k, v in sizes.items() if k != "f1_macro")
    assert len(set(sizes.values())) == 3


@pytest.mark.parametrize(
    "value, text",
    [
        (0.0504, "0.0504"),
        (0.0496, "0.0496"),
        (0.05, "0.050"),
        (0.0501, "0.0501"),
        (0.04995, "0.04995"),
        (0.634, "0.634"),
        (0.0099, "0.0099"),
        (0.01, "0.010"),
        (0.1004, "0.1004"),
        (0.0004, "<0.001"),
        (0.00104, "0.00104"),
        (0.2, "0.200"),
    ],
)
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
    result = analyze([str(g) for g in gold], systems, metric="accuracy", baseline="strong baseline", n_resamples=200)
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
    result = analyze(
        [str(g) for g in gold], {"a": [str(x) for x in a], "b": [str(x) for x in b]}, metric="f1_macro", n_resamples=100
    )
    notes = result.official.notes
    assert any("class '2' has at most 3 gold items" in n for n in notes)
    assert any("1 system predicts some class at most 3 times (a)" in n for n in notes)
    html = render_report(result, figures={})
    assert "class &#x27;2&#x27; has at most 3 gold items" in html or "class '2' has at most 3 gold items" in html
    rng = np.random.default_rng(3)
    y = rng.normal(size=300)
    result = analyze(
        list(y),
        {"heavy": y + rng.standard_t(2, size=300), "normal": y + rng.normal(size=300)},
        metric="rmse",
        n_resamples=100,
    )
    assert any("heavy tails" in n and "(heavy)" in n for n in result.official.notes)
