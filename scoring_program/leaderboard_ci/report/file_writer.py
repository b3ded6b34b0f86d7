"""The report's file writer: files under one folder, refusing any path that leaves it.

Kept apart from :mod:`leaderboard_ci.report.files` so that section writers it calls
(:mod:`leaderboard_ci.report.shakeup_files`) can use it without an import cycle.
"""

import os
from collections import OrderedDict

__all__ = ["FIGURE_FORMATS", "_Writer"]

#: The formats each figure is saved in.
FIGURE_FORMATS = ("png", "pdf")


class _Writer:
    """Writes files under one folder, refusing any path that leaves it."""

    def __init__(self, out_dir):
        self.root = os.path.realpath(os.path.abspath(out_dir))
        os.makedirs(self.root, exist_ok=True)
        self.written = OrderedDict()

    def path(self, relative):
        path = os.path.realpath(os.path.join(self.root, relative))
        if os.path.commonpath([self.root, path]) != self.root or path == self.root:
            raise ValueError("refusing to write %r outside %s" % (relative, self.root))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return path

    def text(self, relative, text):
        path = self.path(relative)
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        self.written[relative] = path
        return path

    def csv(self, relative, frame):
        """``frame`` as CSV: pandas writes it to the file in chunks (no copy of the whole text in memory)."""
        path = self.path(relative)
        try:
            frame.to_csv(path, index=False, lineterminator="\n", encoding="utf-8")
        except TypeError:  # pandas < 1.5 names it line_terminator
            frame.to_csv(path, index=False, line_terminator="\n", encoding="utf-8")
        self.written[relative] = path
        return path

    def parquet(self, relative, frame):
        """``frame`` as Parquet (pyarrow), its index dropped; object columns stay strings."""
        path = self.path(relative)
        frame.to_parquet(path, index=False)
        self.written[relative] = path
        return path

    def figure(self, relative_stem, fig, formats, dpi):
        # lazy: matplotlib (report.plots), loaded only when figures are drawn
        from .plots import freeze_layout, save_figure

        for fmt in formats:
            relative = "%s.%s" % (relative_stem, fmt)
            save_figure(fig, self.path(relative)[: -len(fmt) - 1], formats=(fmt,), dpi=dpi)
            freeze_layout(fig)  # the layout is done: later formats reuse it
            self.written[relative] = self.path(relative)
