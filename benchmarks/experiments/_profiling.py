"""Shared by the profiling scripts: print the top of a cProfile run."""

import io
import pstats


def print_top(prof, top):
    """The ``top`` functions by internal time, from the header line on."""
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(top)
    lines = [ln for ln in out.getvalue().splitlines() if ln.strip()]
    start = next(i for i, ln in enumerate(lines) if "ncalls" in ln)
    print("\n".join(lines[start : start + top + 1]))
