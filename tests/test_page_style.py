"""One style sheet: every page the package writes starts with :data:`leaderboard_ci.page_style.BASE_CSS`.

The detailed results (the participant's page, written by the scoring program) and the report pages
(end of phase, shake-up, benchmark) used to carry two copies of the same rules that had drifted
(other heading sizes, another accent colour).  Each sheet now is the shared base plus the page's own
rules, and no page sets one property of one selector twice (an own rule may add, never contradict).
"""

import re

from leaderboard_ci import page_style
from leaderboard_ci.report import benchmark_report, html_report, shakeup_html
from leaderboard_ci.report.html_style import CSS as REPORT_CSS
from leaderboard_ci.scoring.detailed_html import CSS as DETAILED_CSS


def declarations(css):
    """``{(selector, property): [values]}`` of a sheet (at-rules' blocks skipped: they hold keyframes)."""
    css = re.sub(r"@[^{]+\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}", "", css.replace("\n", ""))
    found = {}
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        for selector in selectors.split(","):
            for declaration in filter(None, body.split(";")):
                name, value = declaration.split(":", 1)
                found.setdefault((selector.strip(), name.strip()), []).append(value.strip())
    return found


def test_every_page_starts_with_the_shared_sheet():
    assert DETAILED_CSS.startswith(page_style.BASE_CSS % {"width": 940})
    assert REPORT_CSS.startswith(page_style.BASE_CSS % {"width": 1200})
    for module in (html_report, shakeup_html, benchmark_report):  # the report pages use the report's sheet
        assert module.CSS is REPORT_CSS, module.__name__


def test_no_page_sets_a_property_twice():
    for sheet in (DETAILED_CSS, REPORT_CSS):
        twice = dict((key, values) for key, values in declarations(sheet).items() if len(values) > 1)
        assert twice == {}


def test_the_checker_sees_a_contradiction():
    contradicting = page_style.page_css("h2{font-size:18px}", width=940)
    assert declarations(contradicting)[("h2", "font-size")] == ["21px", "18px"]
