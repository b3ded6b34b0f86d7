"""The whole report page in headless Chromium at 2, 10 and 60 systems, 800 and 1,400 px wide.

Runs ``docs/check_report_pages.py``'s checks (nothing cut off on the right, every figure loaded,
never stretched, never squeezed below 60 % of the width it could take; every in-page link has its
target) on reports written by ``PhaseResult.write`` for the competitions of ``test_report_layout``:
long system names, a broken run, a baseline and two groups.  Skipped without Playwright or a browser.

It caught the ranking figure squeezed to 99 px beside a ranking table that had grown rank-set columns.
"""

import importlib.util
import os
import shutil

import pytest
from test_report_layout import competition

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _checker():
    spec = importlib.util.spec_from_file_location(
        "check_report_pages", os.path.join(ROOT, "docs", "check_report_pages.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def page():
    sync_api = pytest.importorskip("playwright.sync_api")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    with sync_api.sync_playwright() as p:
        try:
            browser = (
                p.chromium.launch(executable_path=chromium, args=["--no-sandbox"]) if chromium else p.chromium.launch()
            )
        except Exception as exc:  # no browser on this machine
            pytest.skip("no headless Chromium: %s" % str(exc).splitlines()[0])
        yield browser.new_page(viewport={"width": 1400, "height": 900})
        browser.close()


@pytest.mark.parametrize("m", [pytest.param(2, marks=pytest.mark.slow), 10, pytest.param(60, marks=pytest.mark.slow)])
# 10 systems stay in the default run (about 20 s); 2 and 60 (about 50 s) in the slow one
def test_report_page_reads_whole_at_both_widths(m, page, tmp_path):
    out = str(tmp_path / ("report_%d" % m))
    competition(m).write(out, figure_formats=())  # the page embeds its own PNGs: no figure files are read here
    checker = _checker()
    problems = []
    for width in (800, 1400):
        problems += ["%d px: %s" % (width, p) for p in checker.check(page, out, width=width)]
    assert problems == []


def test_the_checker_finds_a_squeezed_figure(page, tmp_path):
    """A page whose figure sits beside a table too wide for both (the old layout) is reported."""
    out = tmp_path / "squeezed"
    out.mkdir()
    cells = "".join("<td>%s</td>" % ("x" * 30) for _ in range(30))
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    (out / "report.html").write_text(
        '<main><div style="display:grid;grid-template-columns:auto minmax(0,1fr)"><div><table><tr>%s</tr></table>'
        '</div><div><img alt="ranking" style="max-width:100%%;width:600px" src="data:image/png;base64,%s"></div>'
        "</div></main>" % (cells, png)
    )
    problems = _checker().check(page, str(out), width=1400)
    assert any("squeezed" in p for p in problems), problems


def test_the_checker_finds_hidden_columns_small_text_shared_labels_and_broken_names(page, tmp_path):
    """Each of the faults seen at 60 systems, on a page made to have it, is reported."""
    out = tmp_path / "faults"
    out.mkdir()
    wide = "<table><tr>%s</tr></table>" % "".join("<td>%s</td>" % ("x" * 30) for _ in range(30))
    png = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg=="
    (out / "report.html").write_text(
        '<main><div style="overflow:hidden">%s</div><div class="scroll" style="overflow-x:auto">%s</div>'
        '<figure><img alt="tiny" data-text-px="10" width="1" height="1" src="data:image/png;base64,%s"></figure>'
        '<table class="labels"><tbody><tr><td>team_a…_01</td></tr><tr><td>team_a…_01</td></tr></tbody></table>'
        '<table><tr><td style="width:60px;max-width:60px;overflow-wrap:anywhere">abcdefghijklmnopqrstuvw<wbr>_x'
        "</td></tr></table></main>" % (wide, wide, png)
    )
    problems = _checker().check(page, str(out), width=800)
    for expected in (
        "no way to scroll",
        "with no cue",
        "figure text of 5.0 px",
        "share the figure label",
        "inside a word",
    ):
        assert any(expected in p for p in problems), (expected, problems)


def test_the_checker_finds_hidden_key_columns_tall_names_an_off_screen_colour_bar_and_a_false_caption(page, tmp_path):
    """The classes of issue 37 at 800 px, each on a page made to have it: a key column behind a sideways scroll,
    a name wrapped onto 6 lines, a colour bar beyond the window, a caption promising stars the figure lacks."""
    out = tmp_path / "faults37"
    out.mkdir()
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    filler = "".join("<td>%s</td>" % ("x" * 30) for _ in range(6))
    (out / "report.html").write_text(
        '<main><div class="scroll" style="overflow-x:auto;border-right:3px solid #888"><table><thead><tr>'
        '<th class="key">System</th>%s<th class="key">Tied with winner</th></tr></thead><tbody><tr>'
        '<td class="name" style="width:40px;max-width:40px">%s</td>%s<td>y</td>'
        "</tr></tbody></table></div>"
        '<figure class="plot" style="overflow-x:auto"><img alt="heat" class="wide" style="max-width:none" '
        'width="2000" height="10" data-key-right="1900" data-marks="" src="data:image/png;base64,%s">'
        "<figcaption>cells with the stars of its max-t-adjusted p-value</figcaption></figure></main>"
        % ("<th>x</th>" * 6, "_<wbr>".join("part%d" % i for i in range(6)), filler, png)
    )
    problems = _checker().check(page, str(out), width=800)
    for expected in (
        'the column "Tied with winner" is off-screen',
        "wrap onto more than 3 lines",
        'the colour bar of "heat" is off-screen',
        'the caption of "heat" promises stars the figure does not draw',
    ):
        assert any(expected in p for p in problems), (expected, problems)
    assert not any('the column "System"' in p for p in problems), problems
