#!/usr/bin/env python3
"""Open report.html files in headless Chromium (Playwright) and check what a reader sees.

    pip install playwright            # the Python package; it drives the system's chromium
    PYTHONPATH=scoring_program python3 docs/check_report_pages.py OUT_DIR [OUT_DIR ...] [--shots DIR]

For each report folder: the page at 800 and 1,400 pixels wide; every element outside a
horizontally scrolling box must end inside the page's width (nothing cut
off); every figure is shown whole (its width on screen at most its natural
width, never cropped, never squeezed below 60 % of the width it could take); every relative link (the full tables
above the
threshold) names a file that exists; a truncated page shows its "Top N of M"
notes.  Prints one line per problem and a summary, and with ``--shots`` saves
a full-page screenshot per report.  Exit code 1 when a problem was found.
"""

import argparse
import os
import sys

CHECK = """() => {
  const width = document.documentElement.clientWidth;
  const problems = [];
  for (const el of document.querySelectorAll('main *')) {
    if (el.closest('.scroll')) continue;
    const box = el.getBoundingClientRect();
    if (box.width > 0 && box.right > width + 1) problems.push('cut off on the right: <' + el.tagName.toLowerCase()
        + (el.id ? ' id=' + el.id : '') + '> ends at ' + Math.round(box.right) + ' px of ' + width);
  }
  for (const img of document.querySelectorAll('img')) {
    if (!img.complete || img.naturalWidth === 0) problems.push('figure not loaded: ' + img.alt);
    else if (img.getBoundingClientRect().width > img.naturalWidth + 1) problems.push('figure stretched: ' + img.alt);
    else if (img.getBoundingClientRect().width < 0.6 * Math.min(img.naturalWidth, width - 60))
      problems.push('figure squeezed to ' + Math.round(img.getBoundingClientRect().width) + ' px of '
                    + img.naturalWidth + ': ' + img.alt);
  }
  const links = [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href'));
  const truncated = [...document.querySelectorAll('.truncated')].map(p => p.innerText);
  return {problems, links, truncated, height: document.documentElement.scrollHeight,
          figures: document.querySelectorAll('img').length, rows: document.querySelectorAll('tr').length};
}"""


def check(page, folder, shots=None, width=1400):
    path = os.path.join(os.path.abspath(folder), "report.html")
    page.set_viewport_size({"width": width, "height": 900})
    page.goto("file://" + path)
    found = page.evaluate(CHECK)
    problems = list(found["problems"])
    for href in found["links"]:
        if href.startswith("#"):
            if page.query_selector("[id='%s']" % href[1:]) is None:
                problems.append("in-page link to a missing id: %s" % href)
        elif not os.path.isfile(os.path.join(os.path.abspath(folder), href)):
            problems.append("link to a missing file: %s" % href)
    files = [h for h in found["links"] if not h.startswith("#")]
    print(
        "%s at %d px: %d px high, %d figures, %d table rows, %d file links, %d truncation notes"
        % (path, width, found["height"], found["figures"], found["rows"], len(files), len(found["truncated"]))
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
    parser.add_argument("folders", nargs="+", help="folders written by write_report / PhaseResult.write")
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
