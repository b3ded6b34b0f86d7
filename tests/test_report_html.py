"""report.html: self-contained, well-formed, every name escaped, skipped reasons and signature shown."""

import base64
import functools
import html
import re
from html.parser import HTMLParser

import _report_examples as E
import pytest

from leaderboard_ci.phase.analysis import analyze
from leaderboard_ci.report.html_report import render_report, resolution_notes
from leaderboard_ci.report.verdicts import family_sentence

#: The shared report examples (lru-cached analyses and pages) are built once: these modules run on one xdist worker.
pytestmark = pytest.mark.xdist_group("report_examples")

VOID = {"meta", "br", "img", "hr", "input", "link", "col", "source", "wbr"}


class Page(HTMLParser):
    """Checks that every non-void tag is closed in order; collects img sources and ids."""

    def __init__(self, text):
        HTMLParser.__init__(self, convert_charrefs=True)
        self.stack, self.errors, self.images, self.ids, self.links = [], [], [], [], []
        self.text = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img":
            self.images.append(attrs)
        if "id" in attrs:
            self.ids.append(attrs["id"])
        if tag == "a":
            self.links.append(attrs.get("href"))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("unexpected </%s> with %s open" % (tag, self.stack[-3:]))
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


@functools.lru_cache(maxsize=None)
def page(name):
    return render_report(E.ALL[name]())


@pytest.mark.parametrize("name", ["classification", "groups", "regression", "one"])
def test_page_is_self_contained_and_well_formed(name):
    text = page(name)
    assert text.startswith("<!DOCTYPE html>")
    lowered = text.lower()
    for forbidden in ("http://", "https://", "<script", "<link", "@import", "url(", "<iframe", "<object"):
        assert forbidden not in lowered, forbidden
    parsed = Page(text)
    assert not parsed.errors and not parsed.stack, parsed.errors[:3]
    for image in parsed.images:
        assert image["src"].startswith("data:image/png;base64,")
        assert base64.b64decode(image["src"].split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
        assert image.get("alt")
    for href in parsed.links:  # in-page links only, and each points at an existing id
        assert href.startswith("#") and href[1:] in parsed.ids
    assert len(parsed.ids) == len(set(parsed.ids))


def test_every_figure_is_embedded():
    parsed = Page(page("classification"))
    assert len(parsed.images) == 5 * len(E.classification().targets)  # rank sets included
    assert len(Page(page("one")).images) == 1


def test_every_name_appears_escaped():
    text = page("classification")
    for name in E.NASTY:
        assert html.escape(name, quote=True) in text, name
    assert "<script>alert(1)</script>" not in text
    assert "a_b & c%" not in text  # only as a_b &amp; c%
    group_text = page("groups")
    assert "es&lt;&amp;&gt;" in group_text and "es<&>" not in group_text


def test_skipped_submissions_and_their_reasons_are_shown():
    text = page("classification")
    section = text[text.index('id="skipped"') :]
    assert "Skipped submissions (2)" in section
    for submission, reason in E.SKIPPED:
        assert html.escape(submission, quote=True) in section
        assert html.escape(reason, quote=True) in section
    assert "No submission was skipped" in page("regression")


def test_footer_has_the_signature_and_settings_the_primary_correction():
    result = E.classification()
    text = page("classification")
    footer = text[text.index("<footer>") :]
    assert html.escape(str(result.signature)) in footer
    assert "<b>Romano-Wolf max-t step-down</b> decides the stars, the letters and who is tied with the winner" in text
    settings = text[text.index('id="settings"') : text.index("<footer>")]
    assert "stars and letters from</td><td>Romano-Wolf max-t step-down" in settings
    assert "all_pairs (all m(m\u22121)/2 pairs)" in settings


def test_explanations_follow_the_configured_family_and_test():
    rng_gold = ["0", "1"] * 60
    systems = {"a": ["0", "1"] * 60, "b": ["0", "0"] * 60, "c": ["1", "1"] * 60}
    result = analyze(
        rng_gold, systems, metric="accuracy", n_resamples=200, family="per_row", test="permutation", n_permutations=200
    )
    text = render_report(result, figures={})
    assert "over each system&#x27;s comparisons with the systems ranked below it" in text
    assert "paired permutation test" in text
    assert "<img" not in text  # figures={} means none


def test_winner_ties_and_letters_are_marked():
    result = E.classification()
    text = page("classification")
    target = result.official
    section = text[text.index('id="t-f1-macro"') : text.index('id="t-accuracy"')]
    # every system tied with the winner is ticked, the winner itself is not (its tag says it)
    assert target.winner in set(target.tied_with_winner)
    assert section.count("&#10003;") == len(target.tied_with_winner) - 1
    assert '<span class="tag win">winner</span>' in section
    assert '<span class="tag">baseline</span>' in section
    for letters in target.systems["letters"]:
        assert '<td class="letters">%s</td>' % letters in section  # its own class: it scrolls, key columns stay
    # the differences table marks intervals containing 0 in red: the family-wise ones and the marginal ones
    red = re.findall(r'<td class="n zero">([^<]*)</td>', section)
    family_wise = sum(1 for r in target.vs_winner.itertuples() if r.fw_low <= 0 <= r.fw_high)
    marginal = sum(1 for r in target.vs_winner.itertuples() if r.ci_low <= 0 <= r.ci_high)
    assert len(red) == family_wise + marginal and family_wise >= 1
    # a family-wise interval is red exactly when the row is not significant (its verdict)
    assert family_wise == int((~target.vs_winner["significant"].astype(bool)).sum())


def test_thirty_systems_stay_small_and_say_when_b_is_too_small():
    result = E.many_systems(
        30
    )  # B = 300: too few for the max-t step-down over 435 pairs (10 x 435), far too few for Holm
    text = render_report(result)
    assert len(text.encode("utf-8")) < 3 * 1024 * 1024
    note = result.official.family_note
    assert note and "B >= 4,350 is needed" in note and "family-note" in text
    assert not Page(text).errors
    gold, systems = E.many_systems_data(30)
    holm = analyze(gold, systems, metric="f1_macro", n_resamples=300, primary="holm")
    note = family_sentence(holm.official)
    # 435/(B + 1) <= 0.05 needs B >= 8,699; about 10 replicates beyond alpha/435 needs B >= 87,000
    assert note and "B >= 87,000 is needed" in note and "Holm" in note
    text = render_report(holm, figures={})
    header = text[: text.index('id="summary"')]
    assert header.count(html.escape(note)) == 1  # the headline
    section = text[text.index('id="t-f1-macro"') :]
    assert section.count(html.escape(note)) == 1  # and the target's section, once: no second sentence saying it
    assert resolution_notes(holm, holm.official) == []


def test_resolution_notes_are_quiet_when_b_is_large_enough():
    result = E.two_systems()  # one comparison, B = 300: the smallest p 1/301 < 0.05 but > 0.001
    notes = resolution_notes(result, result.official)
    assert len(notes) == 1 and "strongest mark possible here is **" in notes[0]
    assert resolution_notes(E.one_system(), E.one_system().official) == []


def test_to_html_writes_the_file(tmp_path):
    path = tmp_path / "report.html"
    text = E.one_system().to_html(str(path))
    assert path.read_text(encoding="utf-8") == text


def test_the_all_pairs_note_says_which_way_each_cell_subtracts():
    """Higher is better: column - row; lower is better (MAE): row - column, as the cells are computed."""
    higher = page("classification")
    lower = page("regression")
    higher_note = higher[higher.index('id="t-f1-macro"') :].split("<h3>All pairs")[1].split("</p>")[0]
    lower_note = lower[lower.index('id="t-mae"') :].split("<h3>All pairs")[1].split("</p>")[0]
    assert "column &minus; row" in higher_note or "column \u2212 row" in higher_note
    assert ("row &minus; column" in lower_note or "row \u2212 column" in lower_note) and "better lower" in lower_note
    # the heading of the winner's bootstrap distribution reads as its axis subtracts
    assert "<h3>Winner \u2212 runner-up</h3>" in higher and "<h3>Runner-up \u2212 winner</h3>" in lower


def test_the_runner_up_caption_subtracts_as_its_heading_for_lower_is_better():
    """Under a "Runner-up − winner" heading (MAE) the caption says the runner-up minus the winner (issue 37)."""
    for name, heading, caption in (
        ("classification", "Winner \u2212 runner-up", "The winner minus the runner-up on each bootstrap resample"),
        ("regression", "Runner-up \u2212 winner", "The runner-up minus the winner (lower is better, so positive"),
    ):
        text = page(name)
        section = text.split("<h3>%s</h3>" % heading, 1)[1].split("<h3>", 1)[0]
        assert caption in section, section[-600:]
        assert ("winner minus the runner-up" in section) == (name == "classification")
