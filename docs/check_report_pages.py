#!/usr/bin/env python3
"""Open report.html (benchmark.html, shakeup.html) in headless Chromium (Playwright); check what a reader sees.

    pip install playwright            # the Python package; it drives the system's chromium
    PYTHONPATH=scoring_program python3 docs/check_report_pages.py OUT_DIR [OUT_DIR ...] [--shots DIR]

For each report folder: the page at 800 and 1,400 pixels wide; every element outside a
horizontally scrolling box must end inside the page's width (nothing cut
off); every figure is shown whole (its width on screen at most its natural
width, never cropped, never squeezed below 60 % of the width it could take) and its smallest text
(recorded by the report in the PNG, ``data-text-px``, times the figure's scale on screen) is at least
9 px (7 px in a window under 1,200 px, where figures shrink); a box that scrolls sideways says so
(a coloured right edge and a visible line "scroll sideways" above its content), and
nothing is hidden by ``overflow: hidden``; no two systems share a shortened figure label; no table cell
breaks a system name inside a word; at 1,400 px the page is at most 45,000 px high; every relative link
(the full tables above the threshold) names a file that exists; a truncated page shows its "Top N of M"
notes; the columns the report marks as key (``th.key``: rank, system, score, interval, tied with the
winner) are on screen without scrolling sideways; no system name (``td.name``) wraps onto more than 3 lines; a figure's
colour bar (``data-key-right``, recorded in its PNG) is on screen without scrolling sideways; a figure's
caption promises exactly the marks it draws (``data-marks``: values, stars).  Prints one line per problem
and a summary, and with ``--shots`` saves
a full-page screenshot per report.  Exit code 1 when a problem was found.
"""

import argparse
import os
import sys

#: The page's height as it opens (folded parts closed); then every ``<details>`` is opened, for the checks.
UNFOLD = """() => {
  const height = document.documentElement.scrollHeight;
  const folded = document.querySelectorAll('details:not([open])').length;
  for (const d of document.querySelectorAll('details')) d.open = true;
  return new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done({height, folded}))));
}"""
CHECK = """([minTextPx, MAX_NAME_LINES]) => {
  const width = document.documentElement.clientWidth;
  const problems = [];
  for (const el of document.querySelectorAll('main *')) {
    if (el.closest('.scroll, figure.plot')) continue;
    const box = el.getBoundingClientRect();
    if (box.width > 0 && box.right > width + 1) problems.push('cut off on the right: <' + el.tagName.toLowerCase()
        + (el.id ? ' id=' + el.id : '') + '> ends at ' + Math.round(box.right) + ' px of ' + width);
  }
  for (const img of document.querySelectorAll('img')) {
    if (img.getClientRects().length === 0) continue;  // folded away (a closed <details>)
    if (!img.complete || img.naturalWidth === 0) problems.push('figure not loaded: ' + img.alt);
    else if (img.getBoundingClientRect().width > img.naturalWidth + 1) problems.push('figure stretched: ' + img.alt);
    else if (img.getBoundingClientRect().width < 0.6 * Math.min(img.naturalWidth, width - 60))
      problems.push('figure squeezed to ' + Math.round(img.getBoundingClientRect().width) + ' px of '
                    + img.naturalWidth + ': ' + img.alt);
  }
  for (const img of document.querySelectorAll('img[data-text-px]')) {
    const box = img.getBoundingClientRect();
    if (!img.naturalWidth || box.width === 0) continue;
    const px = parseFloat(img.dataset.textPx) * box.width / img.naturalWidth;
    if (px < minTextPx) problems.push('figure text of ' + px.toFixed(1) + ' px (below ' + minTextPx + '): ' + img.alt);
  }
  for (const el of document.querySelectorAll('main *')) {
    if (el.scrollWidth <= el.clientWidth + 1 || el.clientWidth === 0) continue;
    const style = getComputedStyle(el);
    if (style.overflowX === 'hidden' || style.overflowX === 'clip')
      problems.push('content hidden on the right, no way to scroll: <' + el.tagName.toLowerCase() + ' class='
                    + el.className + '> ' + el.scrollWidth + ' px in ' + el.clientWidth);
    else if (style.overflowX === 'auto' || style.overflowX === 'scroll') {
      const colour = style.borderRightColor;
      const edge = parseFloat(style.borderRightWidth) >= 2 && !/rgba\\(.*, 0\\)$|transparent/.test(colour);
      const note = getComputedStyle(el, '::before');
      const says = /scroll/.test(note.content) && note.maxHeight !== '0px' && note.display !== 'none';
      if (!edge || !says)
        problems.push('scrolls sideways with no cue: <' + el.tagName.toLowerCase() + ' class=' + el.className + '> '
                      + el.scrollWidth
                      + ' px in ' + el.clientWidth + ' (' + (el.innerText || '').slice(0, 40).replace(/\\n/g, ' ')
                      + ')');
    }
  }
  for (const table of document.querySelectorAll('table.labels')) {
    const seen = new Set();
    for (const cell of table.querySelectorAll('tbody tr > :first-child')) {
      const text = cell.textContent.trim();
      if (seen.has(text)) problems.push('two systems share the figure label ' + text);
      seen.add(text);
    }
  }
  const breaks = new Set([' ', '_', '-', '.', '/', ',', ';', ':', '(', ')', '\u2212', '\u2013', '\u00a0']);
  let midWord = 0, example = '';
  for (const cell of document.querySelectorAll('td, th')) {
    if (!cell.querySelector('wbr') || cell.getClientRects().length === 0) continue;
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    let previous = null, top = null;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      previous = null;  // a break between two text nodes (at a <wbr>, before a tag) is allowed
      for (let i = 0; i < node.length; i++) {
        const range = document.createRange();
        range.setStart(node, i); range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (!rect) continue;
        const wrapped = top !== null && rect.top > top + 2 && previous !== null;
        if (wrapped && !breaks.has(previous) && !breaks.has(node.data[i])) {
          midWord++; if (!example) example = cell.innerText.slice(0, 60);
        }
        top = rect.top; previous = node.data[i];
      }
    }
  }
  if (midWord) problems.push(midWord + ' table cell(s) break a name inside a word, e.g. ' + example);
  // a column the report marks as key (th.key: rank, name, score, interval, tied) is on screen without scrolling
  for (const th of document.querySelectorAll('th.key')) {
    const box = th.closest('.scroll');
    if (!box || th.getClientRects().length === 0) continue;
    if (th.getBoundingClientRect().right > box.getBoundingClientRect().right + 1)
      problems.push('the column "' + th.innerText.replace(/\\s+/g, ' ') + '" is off-screen, behind a sideways scroll'
                    + ' (ends at ' + Math.round(th.getBoundingClientRect().right) + ' px of '
                    + Math.round(box.getBoundingClientRect().right) + ')');
  }
  // a system's name (td.name: one name per cell) that wraps onto more lines than a reader can follow
  let tall = 0, tallExample = '';
  for (const cell of document.querySelectorAll('td.name')) {
    if (cell.getClientRects().length === 0) continue;
    const range = document.createRange();
    range.selectNodeContents(cell);
    const tops = [];
    for (const rect of range.getClientRects()) {
      if (rect.width > 0 && !tops.some(t => Math.abs(t - rect.top) < 6)) tops.push(rect.top);
    }
    if (tops.length > MAX_NAME_LINES) { tall++; if (!tallExample) tallExample = tops.length + ' lines: '
      + cell.innerText.replace(/\\s+/g, ' ').slice(0, 60); }
  }
  if (tall) problems.push(tall + ' name cell(s) wrap onto more than ' + MAX_NAME_LINES + ' lines, e.g. ' + tallExample);
  for (const img of document.querySelectorAll('img')) {
    if (img.getClientRects().length === 0 || !img.naturalWidth) continue;
    const box = img.getBoundingClientRect(), scale = box.width / img.naturalWidth;
    // what a reader needs to read the figure (its colour bar) is on screen without scrolling sideways
    if (img.dataset.keyRight) {
      const frame = img.closest('figure') || img.parentElement;
      const visible = frame.getBoundingClientRect().left + frame.clientWidth;
      const right = box.left + parseFloat(img.dataset.keyRight) * scale;
      if (right > visible + 1) problems.push('the colour bar of "' + img.alt + '" is off-screen (ends at '
                                            + Math.round(right) + ' px, the window shows ' + Math.round(visible) + ')');
    }
    // the caption promises only the marks the figure draws (data-marks, recorded when it was drawn)
    if (img.dataset.marks !== undefined) {
      const caption = ((img.closest('figure') || {}).querySelector ? img.closest('figure').querySelector('figcaption')
                       : null);
      const text = caption ? caption.innerText : '';
      const drawn = img.dataset.marks.split(' ').filter(Boolean);
      for (const [mark, words] of [['stars', /\\bstars? of\\b/], ['values', /\\bits value\\b/]]) {
        if (words.test(text) && !drawn.includes(mark))
          problems.push('the caption of "' + img.alt + '" promises ' + mark + ' the figure does not draw');
        if (!words.test(text) && drawn.includes(mark))
          problems.push('the figure "' + img.alt + '" draws ' + mark + ' its caption does not mention');
      }
    }
  }
  const links = [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href'));
  const truncated = [...document.querySelectorAll('.truncated')].map(p => p.innerText);
  return {problems, links, truncated, opened: document.documentElement.scrollHeight,
          figures: document.querySelectorAll('img').length, rows: document.querySelectorAll('tr').length};
}"""


#: The smallest figure text a reader gets on screen (px), the highest page (px) at 1,400 px wide.
MIN_TEXT_PX = 9.0
#: ... and in a window narrower than 1,200 px, where figures shrink to the window's width.
MIN_TEXT_PX_NARROW = 7.0
MAX_HEIGHT = 45000
#: The most lines a system name may wrap onto in a table cell (a 55-character name takes 3 at 800 px).
MAX_NAME_LINES = 3


#: The page each kind of report folder has: an end of phase's report, a benchmark's (ODESIA's tables), a shake-up's.
PAGES = ("report.html", "benchmark.html", "shakeup.html")


def report_page(folder):
    """The folder's report page: ``report.html`` (end of phase), ``benchmark.html`` or ``shakeup.html``."""
    for name in PAGES:
        path = os.path.join(os.path.abspath(folder), name)
        if os.path.isfile(path):
            return path
    raise SystemExit("%s has neither %s" % (folder, " nor ".join(PAGES)))


#: Every table of a benchmark page as text: [{caption, header: [...], rows: [[...], ...]}, ...].
TABLES = """() => [...document.querySelectorAll('main section h3')].map(h => {
  const table = h.nextElementSibling.querySelector('table');
  const text = el => el.innerText.replace(/\u2212/g, '-').trim();
  return {caption: h.innerText, header: [...table.querySelectorAll('thead th')].map(text),
          rows: [...table.querySelectorAll('tbody tr')].map(tr => [...tr.children].map(text))};
})"""


def _expected_cells(report):
    """benchmark.json's numbers as the tables must show them: {(table, system, column): text}."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scoring_program"))
    from leaderboard_ci.report.formatting import format_ci, format_number, format_p

    def p_text(value):
        text = format_p(value)
        return "p" + text if text.startswith("<") else "p=" + text

    cells = {}
    for r in report["scores"]:
        cells["scores_" + r["language"], r["system"], r["task"]] = "%s %s" % (
            format_number(r["score"], 4),
            format_ci(r["ci_low"], r["ci_high"], 4),
        )
    for r in report["gaps"]:
        cells["gaps", r["system"], r["task"]] = "%s %s %s" % (
            format_number(r["gap"], 2, signed=True),
            format_ci(r["ci_low"], r["ci_high"], 2, signed=True),
            p_text(r["p_value"]),
        )
    for r in report["gains"]:
        cells["gains_" + r["language"], r["system"], r["task"]] = "%s %s" % (
            format_number(r["gain"], 2, signed=True),
            format_ci(r["ci_low"], r["ci_high"], 2, signed=True),
        )
    ranks = dict(((r["scope"], r["system"]), r) for r in report["rank_intervals"])
    for r in report["aggregates"]:
        interval = ranks.get((r["scope"], r["system"]), {})
        cells["aggregate", r["system"], r["scope"]] = "%s %s rank %d [%s, %s]" % (
            format_number(r["value"], 2),
            format_ci(r["ci_low"], r["ci_high"], 2),
            r["rank"],
            interval.get("rank_pct_low"),
            interval.get("rank_pct_high"),
        )
    # The aggregate table's last column is the critical-difference diagram's average rank of each system.
    cd = report.get("critical_difference") or {}
    for name, rank in zip(cd.get("systems", []), cd.get("average_ranks", [])):
        cells["aggregate", name, "Average rank"] = format_number(rank, 2)
    return cells


def _figure_ranks(report):
    """The rank figures (drawn from rank_intervals) against the tables: per test set, the rank of each system is
    its place by score (ties share the best place); on the aggregates, the aggregate table's rank."""
    problems = []
    ranks = dict(((r["scope"], r["system"]), r) for r in report["rank_intervals"])
    direction = dict(((t["task"], t["language"]), t["direction"]) for t in report["test_sets"])
    for r in report["scores"]:
        sign = 1 if direction[r["task"], r["language"]] == "higher" else -1
        rivals = [x for x in report["scores"] if (x["task"], x["language"]) == (r["task"], r["language"])]
        place = 1 + sum(sign * (x["score"] - r["score"]) > 0 for x in rivals)
        shown = ranks.get(("%s (%s)" % (r["task"], r["language"]), r["system"]))
        if shown is None or shown["rank"] != place or not shown["rank_pct_low"] <= place <= shown["rank_pct_high"]:
            problems.append(
                "rank figure of %s (%s), %s: rank %s, its score's place is %d"
                % (r["task"], r["language"], r["system"], shown and shown["rank"], place)
            )
    for r in report["aggregates"]:
        shown = ranks.get((r["scope"], r["system"]))
        if shown is None or shown["rank"] != r["rank"]:
            problems.append(
                "rank figure of %s, %s: rank %s, the table's %d"
                % (r["scope"], r["system"], shown and shown["rank"], r["rank"])
            )
    return problems


def _table_kind(caption):
    """Which of benchmark.json's lists a table of the page shows, from its caption."""
    words = caption.split()
    if caption.startswith("Results per task in "):
        return "scores_" + words[4].rstrip(":")
    if caption.startswith("Gap between languages"):
        return "gaps"
    if caption.startswith("Gain over the baseline in "):
        return "gains_" + words[5].rstrip(",")
    if caption.startswith("Mean gain over tasks"):
        return "aggregate"
    return None


def check_benchmark_tables(page, folder):
    """The benchmark page's tables against benchmark.json, cell by cell (the same rounding): problems found."""
    import json

    with open(os.path.join(os.path.abspath(folder), "benchmark.json"), encoding="utf-8") as handle:
        report = json.load(handle)
    expected = _expected_cells(report)
    problems, compared, seen = [], 0, set()
    for table in page.evaluate(TABLES):
        kind = _table_kind(table["caption"])
        if kind is None:
            continue
        columns = [h.split(" (")[0] for h in table["header"]]
        for row in table["rows"]:
            for column, text in zip(columns[1:], row[1:]):
                key = (kind, row[0], column)
                if key not in expected:
                    continue
                seen.add(key)
                compared += 1
                if " ".join(text.split()) != expected[key]:
                    problems.append(
                        "%s, %s, %s: the page shows %r, benchmark.json gives %r"
                        % (kind, row[0], column, text, expected[key])
                    )
    problems += _figure_ranks(report)
    missing = sorted(set(expected) - seen)
    if missing:
        problems.append("%d number(s) of benchmark.json not in any table, e.g. %s" % (len(missing), missing[0]))
    print("  %d table cells agree with benchmark.json" % (compared - len(problems)))
    return problems


def check(page, folder, shots=None, width=1400, max_height=MAX_HEIGHT):
    path = report_page(folder)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto("file://" + path)
    unfolded = page.evaluate(UNFOLD)  # what a reader can unfold is checked too
    found = page.evaluate(CHECK, [MIN_TEXT_PX if width >= 1200 else MIN_TEXT_PX_NARROW, MAX_NAME_LINES])
    found.update(unfolded)
    problems = list(found["problems"])
    if width >= 1400 and max_height and found["height"] > max_height:
        problems.append(
            "the page is %d px high (more than %d): fold or cut what a reader does not need"
            % (found["height"], max_height)
        )
    for href in found["links"]:
        if href.startswith("#"):
            if page.query_selector("[id='%s']" % href[1:]) is None:
                problems.append("in-page link to a missing id: %s" % href)
        elif not os.path.isfile(os.path.join(os.path.abspath(folder), href)):
            problems.append("link to a missing file: %s" % href)
    if path.endswith("benchmark.html") and width >= 1400:
        problems += check_benchmark_tables(page, folder)
    files = [h for h in found["links"] if not h.startswith("#")]
    print(
        "%s at %d px: %d px high (%d px with its %d folded parts open), %d figures, %d table rows, %d file links, "
        "%d truncation notes"
        % (
            path,
            width,
            found["height"],
            found["opened"],
            found["folded"],
            found["figures"],
            found["rows"],
            len(files),
            len(found["truncated"]),
        )
    )
    for note in found["truncated"]:
        print("  note: %s" % note.replace("\n", " ")[:200])
    if shots:
        os.makedirs(shots, exist_ok=True)
        shot = os.path.join(shots, "%s_%d.png" % (os.path.basename(os.path.normpath(folder)), width))
        page.screenshot(path=shot, full_page=True)
        print("  screenshot: %s" % shot)
    for problem in problems:
        print("  PROBLEM %s" % problem)
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "folders", nargs="+", help="folders written by write_report / PhaseResult.write, or by leaderboard-ci benchmark"
    )
    parser.add_argument("--shots", help="save a full-page screenshot of each report here")
    parser.add_argument("--widths", type=int, nargs="+", default=[800, 1400], help="window widths (px)")
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="the browser to drive")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    problems = 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        for folder in args.folders:
            for width in args.widths:
                problems += len(check(page, folder, args.shots, width))
        browser.close()
    print("%d problem(s)" % problems)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
