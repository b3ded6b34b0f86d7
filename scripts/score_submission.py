#!/usr/bin/env python3
"""Score one submission zip on this machine exactly as Codabench's worker would.

    python scripts/score_submission.py my_submission.zip
    python scripts/score_submission.py sub.zip --reference dist/reference_data.zip --keep /tmp/run1

A fresh tree is laid out (``program/``, ``input/ref/``, ``input/res/`` with
the unpacked zip plus the worker's ``metadata`` file, ``output/``), the
command of the program's ``metadata.yaml`` is run without a shell, with the
program folder as working directory (see
``leaderboard_ci.tools.local_worker.run_scoring``).  The program's exit code, its
stdout and stderr, the scores and the output folder (with
``detailed_results.html``) are printed.  ``LEADERBOARD_CI_DEBUG=1`` is set
so that an internal error shows its traceback to you, the organizer.

The exit code is the scoring program's: 0 scored, 1 the submission's fault,
2 the configuration's or gold data's, 3 an internal error.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import yaml  # noqa: E402

from leaderboard_ci.tools.bundle import BUNDLE_DIR, PROGRAM_DIR, REFERENCE_DIR, format_table, score_one  # noqa: E402
from leaderboard_ci.tools.local_worker import UnpackError  # noqa: E402

#: What a kept tree may already contain (a previous run's tree, safe to replace).
_TREE_NAMES = {"program", "input", "output", "shared"}


def make_parser():
    parser = argparse.ArgumentParser(
        description="Score a submission zip locally, exactly as the Codabench worker runs the scoring program.")
    parser.add_argument("submission", help="the submission zip (as a participant uploads it), or a folder "
                                           "holding what the zip would unpack to")
    parser.add_argument("--reference", default=REFERENCE_DIR,
                        help="reference data: a folder or a zip (default: competition_bundle/reference_data)")
    parser.add_argument("--program", default=PROGRAM_DIR,
                        help="the scoring program: a folder or a zip (default: the repository's scoring_program)")
    parser.add_argument("--python", default=None,
                        help="the interpreter that replaces python3 in the metadata command "
                             "(default: this one, %s)" % sys.executable)
    parser.add_argument("--keep", metavar="DIR", default=None,
                        help="lay out the run's tree in DIR (empty, absent, or a previous run's tree) "
                             "instead of a new temporary folder")
    parser.add_argument("--timeout", type=float, default=600, help="seconds (Codabench's default limit: 600)")
    parser.add_argument("--competition", default=os.path.join(BUNDLE_DIR, "competition.yaml"),
                        help="competition.yaml whose leaderboard columns are matched with the scores "
                             "(default: competition_bundle/competition.yaml)")
    return parser


def _tree_root(keep):
    if keep is None:
        return os.path.join(tempfile.mkdtemp(prefix="leaderboard-ci-run-"), "app")
    keep = os.path.abspath(keep)
    if os.path.isfile(keep):
        raise ValueError("--keep %s is a file; give a folder" % keep)
    if os.path.isdir(keep):
        extra = set(os.listdir(keep)) - _TREE_NAMES
        if extra:
            raise ValueError("--keep %s holds other files (%s); give an empty or new folder, "
                             "it is replaced by the run's tree" % (keep, ", ".join(sorted(extra)[:3])))
    return keep


def _print_section(title, text, out):
    out.write("---- %s ----\n" % title)
    text = text.rstrip("\n")
    out.write((text if text else "(empty)") + "\n")


def leaderboard_columns(path):
    """{key: title} of the first leaderboard of a competition.yaml ({} if unreadable)."""
    try:
        with open(path, "rb") as handle:
            competition = yaml.safe_load(handle)
        return {c["key"]: c.get("title", "") for c in competition["leaderboards"][0]["columns"]}
    except (OSError, yaml.YAMLError, KeyError, IndexError, TypeError):
        return {}


def format_scores(scores, columns=None):
    """The scores as a table; with ``columns`` ({key: title}), where each one shows on the leaderboard."""
    def value(v):
        return "%.6f" % v if isinstance(v, float) else repr(v)
    if not columns:
        return format_table(["key", "value"], [(k, value(v)) for k, v in scores.items()])
    rows = [(k, value(v), columns.get(k, "(not a leaderboard column)")) for k, v in scores.items()]
    rows += [(k, "MISSING", title) for k, title in columns.items() if k not in scores]
    return format_table(["key", "value", "leaderboard column"], rows, align=["<", ">", "<"])


def main(argv=None, out=None):
    out = sys.stdout if out is None else out
    parser = make_parser()
    args = parser.parse_args(argv)
    for what, path in (("submission", args.submission), ("--reference", args.reference),
                       ("--program", args.program)):
        if not os.path.exists(path):
            out.write("error: %s %s does not exist\n" % (what, path))
            return 2 if what != "submission" else 1
    if os.path.isfile(args.submission) and not zipfile.is_zipfile(args.submission):
        out.write("The submission %s is not a zip file; Codabench would fail it before scoring.\n"
                  % args.submission)
        return 1
    try:
        root = _tree_root(args.keep)
    except ValueError as exc:
        out.write("error: %s\n" % exc)
        return 2
    env = dict(os.environ)
    env["LEADERBOARD_CI_DEBUG"] = "1"
    try:
        run = score_one(args.submission, root, program=args.program, reference=args.reference,
                        python=args.python, env=env, timeout=args.timeout)
    except UnpackError as exc:  # encrypted members, unknown compression, unsafe names: one sentence
        out.write("The submission cannot be scored: %s; Codabench would fail it before scoring.\n" % exc)
        return 1
    except zipfile.BadZipFile as exc:
        # The worker cannot unpack it either: the submission fails before scoring.
        out.write("The submission %s is not a valid zip file (%s); Codabench would fail it.\n"
                  % (args.submission, exc))
        return 1
    except RuntimeError as exc:  # the program wrote output/metadata
        out.write("error: %s\n" % exc)
        return 3
    out.write("submission: %s\n" % os.path.abspath(args.submission))
    out.write("exit code:  %d\n" % run.returncode)
    _print_section("stdout", run.stdout, out)
    _print_section("stderr", run.stderr, out)
    if run.scores is not None:
        _print_section("scores (%s)" % ("scores.json" if run.scores_json_bytes is not None else "scores.txt"),
                       format_scores(run.scores, leaderboard_columns(args.competition)), out)
    else:
        out.write("no scores were written\n")
    out.write("output folder: %s\n" % run.output_dir)
    if os.path.exists(run.detailed_results):
        out.write("detailed results: %s\n" % run.detailed_results)
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
