#!/usr/bin/env python3
"""Regenerate the ODESIA example's screenshots in docs/ (headless Chromium, Playwright).

    pip install playwright            # the Python package; it drives the system's chromium
    PYTHONPATH=scoring_program python3 docs/make_odesia_screenshots.py [--out OUT]

Runs ``leaderboard-ci benchmark examples/odesia/benchmark.yaml`` (into OUT, default a temporary
folder), checks the page as ``docs/check_report_pages.py`` does (nothing cut off at 800 and 1,400
px, every table cell equal to benchmark.json, the rank figures' data equal to the tables), then
photographs ODESIA's three tables: the top of the page as a reader sees it at 1,400 and 800 px
(the tables scroll sideways), and each table whole (en, es, gap), unscrolled.  PNGs are reduced to
a 64-colour palette to keep the repository small.  Exit code 1 when the check finds a problem.
"""

import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import check_report_pages  # noqa: E402

#: The first three sections of the page: ODESIA's tables (en, es, gap).
TABLES = (("odesia_table_en.png", 0), ("odesia_table_es.png", 1), ("odesia_table_gap.png", 2))
#: Everything a wide window shows, for the whole-table pictures.
UNSCROLL = (
    "main{max-width:none !important} .scroll{overflow:visible !important;border:none !important}"
    " .scroll::before{display:none !important}"
)


def _small(path):
    from PIL import Image

    image = Image.open(path).convert("RGB")
    image.quantize(colors=64, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
    return os.path.getsize(path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", help="where the benchmark writes its report (default: a temporary folder)")
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="the browser to drive")
    args = parser.parse_args(argv)
    out = args.out or os.path.join(tempfile.mkdtemp(prefix="odesia-shots-"), "odesia")
    if not os.path.isfile(os.path.join(out, "benchmark.html")):
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "scoring_program"))
        subprocess.run(
            [sys.executable, "-m", "leaderboard_ci.cli.main", "benchmark", "examples/odesia/benchmark.yaml"]
            + ["--out", out],
            cwd=ROOT,
            env=env,
            check=True,
        )
    from playwright.sync_api import sync_playwright

    page_url = "file://" + os.path.join(os.path.abspath(out), "benchmark.html")
    problems = 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        for width in (800, 1400):
            problems += len(check_report_pages.check(page, out, None, width))
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(page_url)
            sections = page.query_selector_all("main section")
            bottom = sections[2].bounding_box()
            shot = os.path.join(HERE, "odesia_tables_%d.png" % width)
            clip = {"x": 0, "y": 0, "width": width, "height": bottom["y"] + bottom["height"]}
            page.screenshot(path=shot, clip=clip, full_page=True)
            print("%s: %d bytes" % (shot, _small(shot)))
        page.set_viewport_size({"width": 3200, "height": 900})
        page.goto(page_url)
        page.add_style_tag(content=UNSCROLL)
        page.evaluate(check_report_pages.UNFOLD)  # waits two frames: the new layout is measured
        sections = page.query_selector_all("main section")
        for name, k in TABLES:
            shot = os.path.join(HERE, name)
            box = sections[k].bounding_box()
            right = sections[k].query_selector("table").bounding_box()
            width = right["x"] + right["width"] - box["x"] + 8
            page.screenshot(path=shot, clip={"x": box["x"], "y": box["y"], "width": width, "height": box["height"]})
            print("%s: %d bytes" % (shot, _small(shot)))
        browser.close()
    print("%d problem(s)" % problems)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
