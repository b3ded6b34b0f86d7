"""``leaderboard-ci demo``: score every sample submission as Codabench would and print the leaderboard.

    leaderboard-ci demo                    # trees kept under out/demo/<submission>/
    leaderboard-ci demo --out /tmp/demo
    python -m leaderboard_ci.cli.demo      # the same, without the console script

Each submission is run through the scoring program in a fresh tree
(``leaderboard_ci.tools.local_worker.run_scoring``: the metadata command, no
shell, the worker's folder layout), exactly as the platform runs it.  The
leaderboard is then printed sorted by the official score, each score with
its 95% interval, the difference from the baseline with its interval and p-value,
and which submissions are tied with the winner: the end-of-phase analysis'
decision (paired test, corrected p-values), the same as the report's.  The
signature and the paths of the detailed_results.html pages follow.

The end-of-phase report (all-pairs tests, corrections) plugs in at
:func:`end_of_phase_report`, which runs the end-of-phase analysis.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import sys
import time
from dataclasses import dataclass
from typing import List, Optional

from ..console import entry_point
from ..report.formatting import correction_name
from ..scoring.config import load_config
from ..scoring.errors import ConfigError
from ..tools.bundle import (
    PROGRAM_DIR,
    REFERENCE_DIR,
    REPO,
    SAMPLES_DIR,
    ScoredSubmission,
    format_table,
    sample_submissions,
    score_one,
)
from . import end_of_phase

DEFAULT_OUT = os.path.join(REPO, "out", "demo")


@dataclass
class DemoRun:
    """Everything the demo computed; handed to :func:`end_of_phase_report`, which runs the end-of-phase analysis."""

    runs: List[ScoredSubmission]  # every submission, in the order scored
    ranked: List[ScoredSubmission]  # the scored ones, best first
    config: object  # leaderboard_ci.scoring.config.Config of the competition
    out_dir: str
    seconds: float
    signature: Optional[str]
    submissions: str = SAMPLES_DIR  # what was scored, for the end-of-phase report
    reference: str = REFERENCE_DIR
    program: str = PROGRAM_DIR


def make_parser():
    parser = argparse.ArgumentParser(
        prog="leaderboard-ci demo",
        description="Score every sample submission as Codabench would and "
        "print the leaderboard with confidence intervals.",
    )
    parser.add_argument(
        "--submissions",
        default=SAMPLES_DIR,
        help="folder of submission zips (default: competition_bundle/sample_submissions)",
    )
    parser.add_argument(
        "--reference",
        default=REFERENCE_DIR,
        help="reference data folder or zip (default: competition_bundle/reference_data)",
    )
    parser.add_argument("--program", default=PROGRAM_DIR, help="scoring program folder or zip")
    parser.add_argument("--python", default=None, help="interpreter for the scoring program (default: this one)")
    parser.add_argument(
        "--out",
        default=DEFAULT_OUT,
        help="where each submission's tree is kept, one folder per submission "
        "(default: out/demo; replaced on each run)",
    )
    return parser


def _interval(scores, key, signed=False):
    fmt = "%+.4f" if signed else "%.4f"
    return (fmt + " [" + fmt + ", " + fmt + "]") % (scores[key], scores[key + "_ci_low"], scores[key + "_ci_high"])


def _ties(ranked, analysis):
    """For each submission, whether the end-of-phase analysis finds it tied with the winner.

    The one definition used everywhere (report, API, detailed results): not significantly
    different from the winner by the paired test with the configured correction.  Interval
    overlap is not that test.
    """
    if analysis is None:
        return ["?"] * len(ranked)
    target = analysis.official
    tied = set(target.tied_with_winner)
    return ["winner" if run.name == target.winner else ("yes" if run.name in tied else "no") for run in ranked]


def leaderboard_table(ranked, config, analysis=None):
    """The leaderboard as text: rank, submission, scores with CIs, difference from the baseline, ties."""
    official = config.official
    metrics = list(config.metrics)
    headers = ["#", "submission"] + ["%s [95%% CI]" % m.title for m in metrics]
    base_key = official.key + "_vs_base"
    has_base = ranked and all(base_key in r.scores for r in ranked)
    if has_base:
        headers += ["%s minus %s [95%% CI]" % (official.title, config.baseline.name), "p"]
    headers.append("tied with the winner")
    ties = _ties(ranked, analysis)
    rows = []
    for rank, (run, tie) in enumerate(zip(ranked, ties), start=1):
        row = [str(rank), run.name] + [_interval(run.scores, m.key) for m in metrics]
        if has_base:
            row += [_interval(run.scores, base_key, signed=True), "%.4f" % run.scores[base_key + "_p"]]
        row.append(tie)
        rows.append(row)
    return format_table(headers, rows, align=[">", "<"] + [">"] * (len(headers) - 2))


def baseline_submission(demo):
    """The name of the submission whose predictions are the baseline file, byte for byte, or None.

    The sample competition submits its majority-class baseline as well: without
    this the report would rank it twice (``majority class`` from the
    configuration, ``majority_class`` from the submissions).
    """
    import zipfile

    if demo.config is None or demo.config.baseline is None:
        return None
    path = os.path.join(demo.reference, demo.config.baseline.file)
    if not os.path.isfile(path):
        return None
    with open(path, "rb") as handle:
        expected = handle.read()
    for run in demo.runs:
        try:
            with zipfile.ZipFile(run.path) as archive:
                members = [i for i in archive.infolist() if not i.is_dir() and i.file_size == len(expected)]
                if any(archive.read(info) == expected for info in members):
                    return run.name
        except (OSError, zipfile.BadZipFile):
            continue
    return None


def end_of_phase_analysis(demo):
    """The end-of-phase analysis of the same submissions: ``(exit code, PhaseResult or None, its printout)``.

    The same configuration and seed as the scoring program, so the report's
    intervals are the leaderboard's; it adds the paired comparisons (all pairs,
    corrected p-values, indicators) and decides who is tied with the winner.
    """
    out = os.path.join(demo.out_dir, "report")
    argv = ["--reference", demo.reference, "--submissions", demo.submissions, "--program", demo.program]
    argv += ["--out", out, "--no-progress"]
    same = baseline_submission(demo)
    if same is not None:  # the baseline was submitted too: that system is the baseline, not a second copy of it
        argv += ["--baseline", same]
    args = end_of_phase.make_parser().parse_args(argv)
    printed = io.StringIO()
    try:
        result = end_of_phase.run(args, stdout=printed)
    except ConfigError as exc:
        return 2, None, "error: %s\n" % exc.message
    return 0, result, printed.getvalue() + "Open the report: %s\n" % os.path.join(out, "report.html")


def end_of_phase_report(demo):
    """Run the end-of-phase analysis and print where the report is; returns its exit code."""
    code, _, text = end_of_phase_analysis(demo)
    print()
    print("End-of-phase analysis (paired bootstrap over all submissions):")
    sys.stdout.write(text)
    return code


@entry_point
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
        run = score_one(
            path, os.path.join(out_dir, name), program=args.program, reference=args.reference, python=args.python
        )
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

    demo = DemoRun(
        runs=runs,
        ranked=ranked,
        config=config,
        out_dir=out_dir,
        seconds=elapsed,
        signature=None,
        submissions=args.submissions,
        reference=args.reference,
        program=args.program,
    )
    code, analysis, analysis_text = end_of_phase_analysis(demo)

    print()
    print(
        "Leaderboard (%d submissions, sorted by %s; %s)"
        % (len(ranked), config.official.title, "higher is better" if config.official.sign > 0 else "lower is better")
    )
    print(leaderboard_table(ranked, config, analysis))
    print()
    if analysis is not None:
        print(
            "'tied with the winner': not significantly different from %s by the end-of-phase paired test "
            "(%s correction, alpha %g), the report's definition; overlapping intervals are not that test."
            % (
                analysis.official.winner,
                correction_name(analysis.signature.primary, long=True),
                analysis.signature.alpha,
            )
        )
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

    demo.signature = signatures[0] if len(signatures) == 1 else None
    print()
    print("End-of-phase analysis (paired bootstrap over all submissions):")
    sys.stdout.write(analysis_text)
    if code:
        return code
    return 0 if len(scored) == len(runs) else 1


if __name__ == "__main__":
    sys.exit(main())
