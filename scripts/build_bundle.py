#!/usr/bin/env python3
"""Build (and check) the uploadable Codabench bundle of the sample competition.

    python scripts/build_bundle.py --out dist/bundle.zip          # build, then check
    python scripts/build_bundle.py --check dist/bundle.zip        # check an existing zip

The bundle has ``competition.yaml`` at the zip's root (Codabench's
``unpack_competition`` looks nowhere else), the logo and pages, and the task
and phase data as zips at the root: ``scoring_program.zip`` (a copy of the
repository's ``scoring_program/``, ``metadata.yaml`` at its root, without
caches or egg-info), ``reference_data.zip``, ``public_data.zip`` and
``starting_kit.zip``.

Why pre-zipped rather than folders: the unpacker accepts both, but for a
folder it calls ``zip_if_directory``, which writes ``NAME.zip`` into the
*parent* of the unpacking directory (outside it, shared by concurrent
unpackings) and with the files' current timestamps.  A zip is uploaded as is.

The zip's bytes depend only on the files' contents (sorted entries, fixed
timestamps), so building twice gives the same file.

``--check`` validates a bundle against the unpacker, serializer and worker
rules (see :func:`bundle_tools.check_bundle`) and scores the sample
submissions with the bundle's own scoring program to make sure every
leaderboard column is written.  Exit code 0 = no problem, 1 = problems.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from leaderboard_ci.tools.bundle import BUNDLE_DIR, PROGRAM_DIR, REPO, build_bundle, sample_submissions  # noqa: E402
from leaderboard_ci.tools.bundle_check import check_bundle  # noqa: E402


def make_parser():
    parser = argparse.ArgumentParser(description="Build and check the Codabench bundle of the sample competition.")
    parser.add_argument("--out", default=os.path.join(REPO, "dist", "bundle.zip"),
                        help="where to write the bundle zip (default: dist/bundle.zip)")
    parser.add_argument("--check", metavar="BUNDLE", nargs="?", const=True, default=None,
                        help="only check a bundle zip (default: the --out path); build nothing")
    parser.add_argument("--no-check", action="store_true", help="build without checking")
    parser.add_argument("--static", action="store_true",
                        help="check without running the scoring program on the sample submissions")
    parser.add_argument("--bundle-dir", default=BUNDLE_DIR, help="the competition folder (default: %(default)s)")
    parser.add_argument("--program", default=PROGRAM_DIR, help="the scoring program folder (default: %(default)s)")
    parser.add_argument("--submissions", nargs="*", default=None,
                        help="submission zips to score when checking (default: the sample submissions)")
    parser.add_argument("--python", default=None, help="the interpreter that runs the scoring program")
    return parser


def run_check(path, args):
    submissions = args.submissions if args.submissions else sample_submissions(
        os.path.join(args.bundle_dir, "sample_submissions"))
    print("checking %s%s" % (path, "" if args.static else
                             " (scoring %d sample submissions with its program)" % len(submissions)))
    warnings = []
    problems = check_bundle(path, submissions=submissions, run_program=not args.static, python=args.python,
                            warnings=warnings)
    for warning in warnings:
        print("  WARNING %s" % warning)
    for problem in problems:
        print("  PROBLEM %s" % problem)
    print("%d problem%s" % (len(problems), "" if len(problems) == 1 else "s"))
    return 0 if not problems else 1


def main(argv=None):
    args = make_parser().parse_args(argv)
    if args.check is not None:
        path = args.out if args.check is True else args.check
        return run_check(path, args)
    names = build_bundle(args.out, bundle_dir=args.bundle_dir, program_dir=args.program)
    with open(args.out, "rb") as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()
    print("wrote %s (%d bytes, sha256 %s)" % (args.out, os.path.getsize(args.out), digest[:16]))
    for name in names:
        print("  %s" % name)
    if args.no_check:
        return 0
    return run_check(args.out, args)


if __name__ == "__main__":
    sys.exit(main())
