"""detailed_results.html: well-formed, self-contained, escaped, no NaN, no per-item data."""

import dataclasses
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser

import numpy as np
import pytest

from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.detailed_html import HISTOGRAM_BINS, render_detailed_results
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.tasks.shared.scorer import GoldStandard

NASTY = '<b>&"x"'
VOID = {"meta", "br", "wbr", "hr", "img", "input", "link", "col", "source"}
MODULE = os.path.join(
    os.path.dirname(__file__), os.pardir, "scoring_program", "leaderboard_ci", "scoring", "detailed_html.py"
)


class Page(HTMLParser):
    """Parses a page, checking that every non-void tag is closed in order."""

    def __init__(self, text):
        HTMLParser.__init__(self, convert_charrefs=True)
        self.stack, self.errors, self.counts, self.texts = [], [], {}, []
        self.rows, self.cell, self.code = [], None, []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.counts[tag] = self.counts.get(tag, 0) + 1
        if tag not in VOID:
            self.stack.append(tag)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = []
        elif tag == "code":
            self.code.append("")

    def handle_startendtag(self, tag, attrs):  # <line .../>: opened and closed at once
        self.counts[tag] = self.counts.get(tag, 0) + 1

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else None))
        else:
            self.stack.pop()
        if tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append("".join(self.cell).strip())
            self.cell = None

    def handle_data(self, data):
        self.texts.append(data)
        if self.cell is not None:
            self.cell.append(data)
        if "code" in self.stack:
            self.code[-1] += data

    @property
    def text(self):
        return " ".join(self.texts)


def _classification(n_resamples=2000, method="percentile", per_class=True):
    """A 3-class page with groups and a baseline, with the per-class table (None: the default, off)."""
    rng = np.random.RandomState(0)
    n = 2000
    labels = ("against", "favor", NASTY)
    y = rng.randint(0, 3, n)
    pred = np.where(rng.rand(n) < 0.7, y, rng.randint(0, 3, n))
    groups = rng.randint(0, 2, n)
    groups[:2] = 2  # a group of two items: absent from about 13% of the resamples
    data = {
        "metric": "f1_macro",
        "extra_metrics": ["accuracy"],
        "labels": list(labels),
        "groups": "lang",
        "baseline": {"file": "base.csv", "name": "majority & <co>"},
        "bootstrap": {"n_resamples": n_resamples, "method": method},
    }
    if per_class is not None:
        data["detailed_results"] = {"per_class": per_class}
    cfg = parse_config(data)
    gold = GoldStandard(
        values=y,
        labels=labels,
        groups=groups,
        group_values=("en", "es", "x<y>"),
        ids=tuple("item-SECRET-%05d" % i for i in range(n)),
        sha256="ab" * 32,
    )
    return cfg, evaluate(cfg, gold, pred, baseline=np.zeros(n, int))


def _regression():
    rng = np.random.RandomState(1)
    y = rng.normal(3.0, 1.0, 400)
    cfg = parse_config({"metric": "mae", "extra_metrics": ["r2", "pearson"], "bootstrap": {"n_resamples": 1000}})
    gold = GoldStandard(values=y, ids=tuple("item-SECRET-%05d" % i for i in range(400)), sha256="cd" * 32)
    return cfg, evaluate(cfg, gold, y + rng.normal(0.0, 0.6, 400))


def _headline(html):
    """The text of the headline paragraph."""
    return re.sub(r"<[^>]+>", "", re.search(r'<p class="headline">(.*?)</p>', html).group(1))


@pytest.fixture(scope="module")
def pages():
    out = {}
    for name, (cfg, result) in (
        ("classification", _classification()),
        ("regression", _regression()),
        ("bca", _classification(1000, "bca")),
    ):
        out[name] = (cfg, result, render_detailed_results(result, cfg))
    return out


@pytest.mark.parametrize("name", ["classification", "regression", "bca"])
def test_page_is_well_formed(pages, name):
    html = pages[name][2]
    assert html.startswith("<!DOCTYPE html>")
    page = Page(html)
    assert page.errors == [] and page.stack == []
    for tag in ("html", "head", "body", "main", "style", "footer"):
        assert page.counts.get(tag) == 1, tag
    assert page.counts["svg"] >= 2  # the intervals and the histogram are drawn


@pytest.mark.parametrize("name", ["classification", "regression", "bca"])
def test_headline_shows_official_score_and_interval(pages, name):
    _, result, html = pages[name]
    s = result.official
    assert _headline(html) == "%s %.4f (95%% CI %.4f\u2013%.4f)" % (
        s.metric.title,
        s.score,
        s.interval.low,
        s.interval.high,
    )
    assert "same population" in html


@pytest.mark.parametrize("name", ["classification", "regression", "bca"])
def test_footer_has_the_signature_in_monospace_and_the_settings_in_words(pages, name):
    _, result, html = pages[name]
    assert str(result.signature) in Page(html).code
    footer = html[html.index("<footer>") :]
    assert "Signature" in footer
    method = {"percentile": "percentile", "bca": "BCa"}[result.signature.method]
    assert "%s bootstrap, 95%% confidence level, from %s resamples" % (
        method,
        "{:,}".format(result.signature.n_resamples),
    ) in re.sub(r"<[^>]+>", "", footer).replace(" (bias-corrected and accelerated)", "")


@pytest.mark.parametrize("name", ["classification", "regression", "bca"])
def test_page_is_self_contained(pages, name):
    html = pages[name][2].lower()
    for bad in ("http://", "https://", "<script", "src=", "href=", "url(", "@import", "<link", "<img", "<iframe"):
        assert bad not in html


def test_strings_from_config_and_data_are_escaped(pages):
    html = pages["classification"][2]
    for raw in (NASTY, "<co>", "x<y>"):
        assert raw not in html
    assert "&lt;b&gt;&amp;&quot;x&quot;" in html  # the class label
    assert "majority &amp; &lt;co&gt;" in html  # the baseline name
    assert "x&lt;y&gt;" in html  # a group value
    cells = [row[0] for row in Page(html).rows if row]
    assert NASTY in cells  # decoded back to the label


@pytest.mark.parametrize("name", ["classification", "regression", "bca"])
def test_no_nan_or_infinity_is_printed(pages, name):
    assert not re.search(r"\b(nan|inf|infinity)\b", pages[name][2], re.IGNORECASE)


def test_values_that_are_not_finite_become_dashes(pages):
    cfg, result, _ = pages["classification"]
    s = result.official
    broken = dataclasses.replace(
        s,
        score=float("nan"),
        interval=dataclasses.replace(s.interval, low=float("-inf"), high=float("nan")),
        replicates=np.full(s.replicates.shape, np.nan),
    )
    comparison = dataclasses.replace(result.baseline[0], difference=float("inf"), p_value=float("nan"))
    odd = dataclasses.replace(
        result, scores=(broken,) + result.scores[1:], baseline=(comparison,) + result.baseline[1:]
    )
    html = render_detailed_results(odd, cfg)
    assert not re.search(r"\b(nan|inf|infinity)\b", html, re.IGNORECASE)
    assert _headline(html) == "%s \u2013 (95%% CI \u2013\u2013\u2013)" % s.metric.title
    assert Page(html).errors == []


def test_every_score_has_a_table_row(pages):
    _, result, html = pages["classification"]
    rows = Page(html).rows
    for s in result.scores:
        group = "all items" if s.group is None else s.group
        expected = [
            "%s %s" % (s.metric.title, s.key),
            group,
            "%.4f" % s.score,
            "%.4f" % s.interval.low,
            "%.4f" % s.interval.high,
            "{:,}".format(s.n_items),
        ]
        assert expected in rows


def test_per_class_table_only_for_classification(pages):
    _, result, html = pages["classification"]
    rows = Page(html).rows
    for r in result.per_class:
        assert [
            r.label,
            "%.4f" % r.precision,
            "%.4f" % r.recall,
            "%.4f" % r.f1,
            "[%.4f, %.4f]" % (r.f1_interval.low, r.f1_interval.high),
            "{:,}".format(r.predicted),
        ] in rows
    assert "Per-class" in html
    assert "Per-class" not in pages["regression"][2]
    assert "baseline" not in pages["regression"][2].lower()


def test_no_per_class_table_unless_the_organizer_turns_it_on():
    """Off by default (an item oracle, tests/test_probes.py): no table, no class's F1 note, no class named."""
    cfg, result = _classification(per_class=None)
    assert result.per_class  # computed, not shown
    html = render_detailed_results(result, cfg)
    assert "Per-class" not in html and "Precision" not in html and "Predicted" not in html
    assert "F1 of class" not in html
    labels = {r.label for r in result.per_class}
    assert not [row for row in Page(html).rows if row and row[0] in labels]
    assert html == render_detailed_results(result, _classification(per_class=False)[0])


def test_baseline_rows_give_signed_difference_p_value_and_verdict(pages):
    _, result, html = pages["classification"]
    rows = Page(html).rows
    verdicts = set()
    for c in result.baseline:
        row = next(
            r for r in rows if r[:2] == [c.metric.title, "all items" if c.group is None else c.group] and len(r) == 7
        )
        assert row[3] == "%+.4f" % c.difference
        assert row[5] == ("< 0.0001" if c.p_value < 1e-4 else "%.4f" % c.p_value)
        verdict = "better" if c.interval.low > 0 else ("worse" if c.interval.high < 0 else "unclear")
        assert row[6] == verdict
        verdicts.add(verdict)
    assert "better" in verdicts
    assert "positive means better than the baseline" in html


def test_notes_report_resamples_without_the_small_group(pages):
    _, result, html = pages["classification"]
    small = [s for s in result.scores if s.group == "x<y>"]
    assert small and all(s.interval.n_valid < result.signature.n_resamples for s in small)
    expected = "%s of %s resamples had no items" % (
        "{:,}".format(result.signature.n_resamples - small[0].interval.n_valid),
        "{:,}".format(result.signature.n_resamples),
    )
    assert expected in html
    assert "Notes" not in pages["regression"][2]
    assert "Per-class F1 intervals use the percentile method" in pages["bca"][2]


def test_histogram_is_binned_and_marks_the_interval(pages):
    _, result, html = pages["classification"]
    s = result.official
    assert 1 <= html.count("<rect") <= HISTOGRAM_BINS
    for text in ("CI low %.4f" % s.interval.low, "CI high %.4f" % s.interval.high, "observed %.4f" % s.score):
        assert text in html


def test_page_stays_small_with_ten_thousand_resamples():
    cfg, result = _classification(10000)
    html = render_detailed_results(result, cfg)
    assert len(html.encode("utf-8")) < 60000
    assert html.count("<rect") <= HISTOGRAM_BINS
    # p = 1 / (B + 1) is below the 4 decimals the page prints:
    assert result.baseline[0].p_value < 1e-4
    assert ["< 0.0001"] == [row[5] for row in Page(html).rows if row[:2] == ["macro-F1", "all items"] and len(row) == 7]


@pytest.mark.parametrize("name", ["classification", "regression"])
def test_no_item_ids_or_per_item_values(pages, name):
    html = pages[name][2]
    assert "SECRET" not in html and "item-" not in html


def test_degenerate_replicates_render():
    labels = ("a", "b")
    y = np.array([0, 1] * 50)
    cfg = parse_config({"metric": "accuracy", "labels": list(labels), "bootstrap": {"n_resamples": 200}})
    result = evaluate(cfg, GoldStandard(values=y, labels=labels, sha256="e" * 64), y.copy())
    html = render_detailed_results(result, cfg)
    assert _headline(html) == "accuracy 1.0000 (95% CI 1.0000\u20131.0000)"
    assert html.count("<rect") == 1
    assert not re.search(r"\b(nan|inf)\b", html, re.IGNORECASE)
    assert Page(html).errors == []


def test_module_is_python37_compatible():
    vermin = shutil.which("vermin")
    if vermin is None:
        pytest.skip("vermin is not installed")
    out = subprocess.run(
        [vermin, "-t=3.7-", "--violations", "--no-tips", MODULE],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )
    assert out.returncode == 0, out.stdout
