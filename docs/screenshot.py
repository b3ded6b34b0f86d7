"""What the screenshot scripts share: one page photographed by headless Chromium, saved as a small PNG.

    apt-get install -y chromium

:func:`photograph` runs ``chromium --headless --screenshot`` on a local HTML page at a window
``width`` pixels wide, keeps the top ``height`` pixels and writes them with a 256-colour palette
(the pictures of the docs stay small).  Used by ``make_report_screenshots.py`` and
``make_shakeup_screenshot.py``.
"""

import os
import subprocess
import tempfile

#: Chromium's flags for a quiet, reproducible headless run (no network, no first-run pages, no scrollbars).
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
)


def photograph(page, target, height, width=1280, chromium="chromium"):
    """Photograph the HTML file ``page`` at ``width`` pixels; save its top ``height`` pixels as ``target``."""
    from PIL import Image  # matplotlib's dependency; only these scripts need it here

    with tempfile.TemporaryDirectory(prefix="docs-shot-") as work:
        shot = os.path.join(work, "shot.png")
        subprocess.run(
            [chromium]
            + list(CHROMIUM_FLAGS)
            + ["--screenshot=%s" % shot, "--window-size=%d,%d" % (width, height + 200), "file://%s" % page],
            check=True,
            capture_output=True,
        )
        image = Image.open(shot).convert("RGB").crop((0, 0, width, height))
    image.quantize(colors=256, method=Image.Quantize.MAXCOVERAGE, dither=Image.Dither.NONE).save(target, optimize=True)
    print("wrote %s" % target)
