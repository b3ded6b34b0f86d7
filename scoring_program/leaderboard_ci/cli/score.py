"""``leaderboard-ci score``: score one submission exactly as the Codabench worker runs the program.

The run is :func:`leaderboard_ci.tools.bundle.score_one` (the worker's tree, the
metadata command, no shell); this module chooses the sources, prints the run's
output and compares the scores with the leaderboard's columns.
"""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import zipfile

import yaml

from ..tools.bundle import BUNDLE_DIR, PROGRAM_DIR, SAMPLES_DIR, format_table, score_one
from ..tools.codalab import is_legacy
from ..tools.scaffold import SetupError

__all__ = ["add_score_parser", "run_score", "format_scores"]

#: What a kept tree may already contain (a previous run's tree, safe to replace).
_TREE_NAMES = {"program", "input", "output", "shared"}


def add_score_parser(sub):
    """``score``: its sources, the kept tree, the interpreter and the time limit."""
    p = sub.add_parser("score", help="score one submission exactly as the Codabench worker runs the program")
    p.add_argument("submission", help="the submission zip (or a folder holding what it unpacks to)")
    p.add_argument(
        "--competition-dir",
        metavar="DIR",
        help="a competition folder: its reference_data/, scoring_program/ and competition.yaml",
    )
    p.add_argument("--reference", metavar="REF", help="the reference data: a folder or a zip")
    p.add_argument(
        "--program",
        metavar="DIR",
        help="the scoring program: a folder or a zip (default: DIR/scoring_program, else this package's)",
    )
    p.add_argument(
        "--competition",
        metavar="YAML",
        help="the competition.yaml whose columns are matched with the scores, or 'none' "
        "(default: DIR/competition.yaml, or the one next to REF's folder, else none)",
    )
    p.add_argument(
        "--keep",
        metavar="TREE",
        help="lay out the run's tree in TREE and keep it (empty, absent, "
        "or a previous run's tree); by default it is removed",
    )
    p.add_argument("--python", default=None, help="the interpreter that replaces python3 in the metadata command")
    p.add_argument("--timeout", type=float, default=600, help="seconds (Codabench's default limit: 600)")
    return p


# ---------------------------------------------------------------------------
# score
# ---------------------------------------------------------------------------
def _tree_root(keep):
    if keep is None:
        workdir = tempfile.mkdtemp(prefix="leaderboard-ci-run-")
        return os.path.join(workdir, "app"), workdir
    keep = os.path.abspath(keep)
    if os.path.isfile(keep):
        raise SetupError("--keep %s is a file; give a folder" % keep)
    if os.path.isdir(keep):
        extra = set(os.listdir(keep)) - _TREE_NAMES
        if extra:
            raise SetupError(
                "--keep %s holds other files (%s); give an empty or new folder, it is replaced by "
                "the run's tree" % (keep, ", ".join(sorted(extra)[:3]))
            )
    return keep, None


def _score_sources(args):
    """(reference, program, competition.yaml or None) for ``score``, never a silent default."""
    folder = args.competition_dir
    if folder is None and args.reference is None:
        inside = os.path.abspath(args.submission).startswith(os.path.abspath(SAMPLES_DIR) + os.sep)
        if not inside:
            raise SetupError(
                "give --competition-dir DIR (a competition folder) or --reference REF (its reference "
                "data); only the sample's own submissions are scored against the sample by default"
            )
        folder = BUNDLE_DIR
    if folder is not None:
        if not os.path.isfile(os.path.join(folder, "competition.yaml")):
            raise SetupError(
                "--competition-dir %s has no competition.yaml; give the folder leaderboard-ci init wrote" % folder
            )
    reference = args.reference or os.path.join(folder, "reference_data")
    if not os.path.exists(reference):
        raise SetupError("the reference data %s does not exist" % reference)
    program = args.program
    if program is None:
        own = os.path.join(folder, "scoring_program") if folder is not None else None
        program = own if own is not None and os.path.isdir(own) else PROGRAM_DIR
    if not os.path.exists(program):
        raise SetupError("the scoring program %s does not exist" % program)
    competition = args.competition
    if competition is None:
        if folder is not None:
            competition = os.path.join(folder, "competition.yaml")
        else:
            beside = os.path.join(os.path.dirname(os.path.abspath(reference)), "competition.yaml")
            competition = beside if os.path.isfile(beside) else "none"
    if competition != "none" and not os.path.isfile(competition):
        raise SetupError("--competition %s does not exist (give 'none' to compare with no leaderboard)" % competition)
    return reference, program, (None if competition == "none" else competition)


def _leaderboard_columns(path):
    """``({key: title}, legacy)``: the first leaderboard of a competition.yaml, and whether it is CodaLab v1.5."""
    try:
        with open(path, "rb") as handle:
            competition = yaml.safe_load(handle)
        if is_legacy(competition):  # CodaLab v1.5: {key: {label, ...}}, read from scores.txt
            columns = competition["leaderboard"]["columns"]
            return dict((key, c.get("label", "")) for key, c in columns.items()), True
        return dict((c["key"], c.get("title", "")) for c in competition["leaderboards"][0]["columns"]), False
    except (OSError, yaml.YAMLError, KeyError, IndexError, TypeError):
        raise SetupError("%s has no readable leaderboards[0].columns (nor a v1.5 leaderboard.columns)" % path)


def format_scores(scores, columns=None):
    """The scores as a table; with ``columns`` ({key: title}), where each one shows on the leaderboard."""

    def value(v):
        return "%.6f" % v if isinstance(v, float) else repr(v)

    if columns is None:
        return format_table(["key", "value"], [(k, value(v)) for k, v in scores.items()])
    rows = [(k, value(v), columns.get(k, "(not a leaderboard column)")) for k, v in scores.items()]
    rows += [(k, "MISSING", title) for k, title in columns.items() if k not in scores]
    return format_table(["key", "value", "leaderboard column"], rows, align=["<", ">", "<"])


def _section(title, text, out):
    out.write("---- %s ----\n" % title)
    text = text.rstrip("\n")
    out.write((text if text else "(empty)") + "\n")


def run_score(args, out):
    if not os.path.exists(args.submission):
        out.write("error: the submission %s does not exist\n" % args.submission)
        return 1
    if os.path.isfile(args.submission) and not zipfile.is_zipfile(args.submission):
        out.write("The submission %s is not a zip file; Codabench would fail it before scoring.\n" % args.submission)
        return 1
    reference, program, competition = _score_sources(args)
    root, workdir = _tree_root(args.keep)
    env = dict(os.environ)
    env["LEADERBOARD_CI_DEBUG"] = "1"
    out.write("submission:       %s\n" % os.path.abspath(args.submission))
    out.write("reference data:   %s\n" % os.path.abspath(reference))
    out.write("scoring program:  %s\n" % os.path.abspath(program))
    out.write(
        "columns compared: %s\n"
        % (
            os.path.abspath(competition)
            if competition
            else "none (--competition none)"
            if args.competition == "none"
            else "none"
        )
    )
    try:
        try:
            run = score_one(
                args.submission,
                root,
                program=program,
                reference=reference,
                python=args.python,
                env=env,
                timeout=args.timeout,
            )
        except zipfile.BadZipFile as exc:
            out.write(
                "The submission %s is not a valid zip file (%s); Codabench would fail it.\n" % (args.submission, exc)
            )
            return 1
        except RuntimeError as exc:  # the program wrote output/metadata
            out.write("error: %s\n" % exc)
            return 3
        out.write("exit code:  %d\n" % run.returncode)
        _section("stdout", run.stdout, out)
        _section("stderr", run.stderr, out)
        if run.scores is not None:
            columns, legacy = _leaderboard_columns(competition) if competition else (None, False)
            scores, label = run.scores, ("scores.json" if run.scores_json_bytes is not None else "scores.txt")
            text_scores = os.path.join(run.output_dir, "scores.txt")
            if legacy and os.path.isfile(text_scores):  # what legacy CodaLab reads
                with io.open(text_scores, encoding="utf-8") as handle:
                    scores, label = yaml.safe_load(handle), "scores.txt, which CodaLab reads"
            _section("scores (%s)" % label, format_scores(scores, columns), out)
        else:
            out.write("no scores were written\n")
        if workdir is None:
            out.write("output folder: %s\n" % run.output_dir)
            if os.path.exists(run.detailed_results):
                out.write("detailed results: %s\n" % run.detailed_results)
        else:
            out.write("the run's tree was removed (--keep TREE keeps output/ and detailed_results.html)\n")
        return run.returncode
    finally:
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)
