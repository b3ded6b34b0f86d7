#!/usr/bin/env python3
"""Score every sample submission as Codabench would and print the leaderboard.

    python scripts/demo.py                 # trees kept under out/demo/<submission>/
    python scripts/demo.py --out /tmp/demo

Each submission is run through the scoring program in a fresh tree
(``leaderboard_ci.tools.local_worker.run_scoring``: the metadata command, no
shell, the worker's folder layout), exactly as the platform runs it.  The
leaderboard is then printed sorted by the official score, each score with
its 95% interval, the gain over the baseline with its interval and p-value,
and which submissions are statistical ties (one's score inside the other's
interval, the rule of thumb of the competition's Evaluation page).  The
signature and the paths of the detailed_results.html pages follow.

The end-of-phase report (all-pairs tests, corrections) plugs in at
:func:`end_of_phase_report`, which runs the end-of-phase analysis.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from dataclasses import dataclass
from typing import List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from leaderboard_ci.tools.bundle import (PROGRAM_DIR, REFERENCE_DIR, REPO, SAMPLES_DIR, ScoredSubmission,  # noqa: E402
                          format_table, sample_submissions, score_one)
from leaderboard_ci.scoring.config import load_config  # noqa: E402

DEFAULT_OUT = os.path.join(REPO, "out", "demo")


@dataclass
class DemoRun:
    """Everything the demo computed; handed to :func:`end_of_phase_report`, which runs the end-of-phase analysis."""

    runs: List[ScoredSubmission]          # every submission, in the order scored
    ranked: List[ScoredSubmission]        # the scored ones, best first
    config: object                        # leaderboard_ci.scoring.config.Config of the competition
    out_dir: str
    seconds: float
    signature: Optional[str]
    submissions: str = SAMPLES_DIR        # what was scored, for the end-of-phase report
    reference: str = REFERENCE_DIR
    program: str = PROGRAM_DIR


def make_parser():
    parser = argparse.ArgumentParser(description="Score every sample submission as Codabench would and "
                                                 "print the leaderboard with confidence intervals.")
    parser.add_argument("--submissions", default=SAMPLES_DIR,
                        help="folder of submission zips (default: competition_bundle/sample_submissions)")
    parser.add_argument("--reference", default=REFERENCE_DIR,
                        help="reference data folder or zip (default: competition_bundle/reference_data)")
    parser.add_argument("--program", default=PROGRAM_DIR, help="scoring program folder or zip")
    parser.add_argument("--python", default=None, help="interpreter for the scoring program (default: this one)")
    parser.add_argument("--out", default=DEFAULT_OUT,
                        help="where each submission's tree is kept, one folder per submission "
                             "(default: out/demo; replaced on each run)")
    return parser


def _interval(scores, key, signed=False):
    fmt = "%+.4f" if signed else "%.4f"
    return (fmt + " [" + fmt + ", " + fmt + "]") % (scores[key], scores[key + "_ci_low"], scores[key + "_ci_high"])


def _ties(ranked, key):
    """For each submission, the ranks it is statistically tied with (score inside the other's interval)."""
    out = []
    for i, a in enumerate(ranked):
        tied = []
        for j, b in enumerate(ranked):
            if i == j:
                continue
            sa, sb = a.scores, b.scores
            if (sb[key + "_ci_low"] <= sa[key] <= sb[key + "_ci_high"]
                    or sa[key + "_ci_low"] <= sb[key] <= sa[key + "_ci_high"]):
                tied.append(str(j + 1))
        out.append(",".join(tied) if tied else "-")
    return out


def leaderboard_table(ranked, config):
    """The leaderboard as text: rank, submission, scores with CIs, gain over the baseline, ties."""
    official = config.official
    metrics = list(config.metrics)
    headers = ["#", "submission"] + ["%s [95%% CI]" % m.title for m in metrics]
    base_key = official.key + "_vs_base"
    has_base = ranked and all(base_key in r.scores for r in ranked)
    if has_base:
        headers += ["%s gain vs %s [95%% CI]" % (official.title, config.baseline.name), "p"]
    headers.append("tied with #")
    ties = _ties(ranked, official.key)
    rows = []
    for rank, (run, tie) in enumerate(zip(ranked, ties), start=1):
        row = [str(rank), run.name] + [_interval(run.scores, m.key) for m in metrics]
        if has_base:
            row += [_interval(run.scores, base_key, signed=True), "%.4f" % run.scores[base_key + "_p"]]
        row.append(tie)
        rows.append(row)
    return format_table(headers, rows, align=[">", "<"] + [">"] * (len(headers) - 2))


def end_of_phase_report(demo):
    """Run the end-of-phase analysis on the same submissions and print where the report is.

    The same configuration and seed as the scoring program, so the report's
    intervals are the leaderboard's; it adds the paired comparisons (all pairs,
    corrected p-values, indicators).  Returns the command's exit code.
    """
    from leaderboard_ci.phase import cli

    out = os.path.join(demo.out_dir, "report")
    print()
    print("End-of-phase analysis (paired bootstrap over all submissions):")
    code = cli.main(["--reference", demo.reference, "--submissions", demo.submissions, "--program", demo.program,
                     "--out", out])
    if code == 0:
        print("Open the report: %s" % os.path.join(out, "report.html"))
    return code


def main(argv=None):
    args = make_parser().parse_args(argv)
    submissions = sample_submissions(args.submissions)
    if not submissions:
        print("no submission zips in %s" % args.submissions)
        return 2
    out_dir = os.path.abspath(args.out)
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)

    start = time.time()
    runs = []
    for path in submissions:
        name = os.path.basename(path)[:-4]
        t0 = time.time()
        run = score_one(path, os.path.join(out_dir, name), program=args.program, reference=args.reference,
                        python=args.python)
        runs.append(run)
        status = "ok" if run.returncode == 0 and run.scores else "FAILED (exit %d)" % run.returncode
        print("scored %-24s %-16s %.1fs" % (name, status, time.time() - t0))
        if status != "ok":
            print("  " + (run.stderr.strip() or "(no message)").replace("\n", "\n  "))
    elapsed = time.time() - start

    scored = [r for r in runs if r.returncode == 0 and r.scores]
    if not scored:
        print("no submission was scored")
        return 1
    # The competition's settings, read from the tree the platform layout built.
    config = load_config(os.path.join(scored[0].root, "program"), os.path.join(scored[0].root, "input", "ref"))
    key = config.official.key
    ranked = sorted(scored, key=lambda r: (-config.official.sign * r.scores[key], r.name))

    print()
    print("Leaderboard (%d submissions, sorted by %s; %s)" % (len(ranked), config.official.title,
                                                            "higher is better" if config.official.sign > 0
                                                            else "lower is better"))
    print(leaderboard_table(ranked, config))
    print()
    print("'tied with': one's %s lies inside the other's 95%% interval (see the Evaluation page)."
          % config.official.title)
    signatures = sorted(set(r.signature for r in ranked if r.signature))
    if len(signatures) == 1:
        print("signature: %s" % signatures[0])
    else:
        for run in ranked:
            print("signature (%s): %s" % (run.name, run.signature))
    print()
    print("detailed results (open in a browser):")
    for run in ranked:
        print("  %s" % run.detailed_results)
    print()
    print("scored %d submissions in %.1f s (each in a fresh tree under %s)" % (len(runs), elapsed, out_dir))

    demo = DemoRun(runs=runs, ranked=ranked, config=config, out_dir=out_dir, seconds=elapsed,
                   signature=signatures[0] if len(signatures) == 1 else None, submissions=args.submissions,
                   reference=args.reference, program=args.program)
    code = end_of_phase_report(demo)
    if code:
        return code
    return 0 if len(scored) == len(runs) else 1


if __name__ == "__main__":
    sys.exit(main())
