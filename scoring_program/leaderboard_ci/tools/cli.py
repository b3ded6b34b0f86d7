"""``leaderboard-ci``: one command for the organizer's whole workflow.

    leaderboard-ci init DIR --gold gold.csv --config config.yaml [--baseline baseline.csv] [--title ...]
    leaderboard-ci columns config.yaml [--gold gold.csv]
    leaderboard-ci bundle [DIR] [--out ZIP] [--check ZIP] [--static]
    leaderboard-ci score SUBMISSION.zip (--competition-dir DIR | --reference REF) [--keep TREE]
    leaderboard-ci end-of-phase --reference REF --submissions PATH --out OUT
    leaderboard-ci shakeup --public-reference DEV --public-submissions DEV.zip --reference REF --submissions S --out OUT
    leaderboard-ci compare task1/report.json task2/report.json --out cmp
    leaderboard-ci benchmark benchmark.yaml --out OUT
    leaderboard-ci demo [--out DIR]
    leaderboard-ci sample-competition [--bundle-dir DIR]
    leaderboard-ci plan [DIR] [--pilot FILE ...] [--assume KEY=VALUE,...] [--difference D] [--output OUT]

Each subcommand is ``make_parser()`` + ``run_*(args, out) -> exit code``; a mistake is
one sentence on the output and exit code 2 (1 for a submission's or a bundle's
problems), never a traceback.  ``python -m leaderboard_ci.tools.cli`` runs the same
:func:`main` without the console script.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import tempfile
import zipfile

import yaml

from .._version import __version__
from .bundle import (
    BUNDLE_DIR,
    PROGRAM_DIR,
    REPO,
    SAMPLES_DIR,
    build_bundle,
    format_table,
    sample_submissions,
    score_one,
)
from .bundle_check import check_bundle
from .codalab import is_legacy, legacy_columns
from .scaffold import (
    PLATFORMS,
    SetupError,
    columns_yaml,
    group_values_of,
    init_competition,
    leaderboard_columns,
    load_organizer_config,
)

__all__ = ["main", "make_parser"]

#: Subcommands that hand their arguments to another module's ``main(argv)``.
_DELEGATED = {
    "end-of-phase": ("leaderboard_ci.phase.cli", "the end-of-phase analysis of all submissions"),
    "shakeup": (
        "leaderboard_ci.phase.shakeup.cli",
        "public-to-private shake-up: gaps beyond noise, rank agreement against noise, best of k, winner's curse",
    ),
    "compare": ("leaderboard_ci.report.compare", "competition indicators of several report.json side by side"),
    "benchmark": (
        "leaderboard_ci.phase.benchmark.cli",
        "a benchmark of several tasks and languages: ODESIA tables, gaps, aggregates, ranks",
    ),
    "demo": ("leaderboard_ci.tools.demo", "score every sample submission as Codabench would and print the leaderboard"),
    "sample-competition": (
        "leaderboard_ci.tools.sample_competition",
        "rebuild the sample competition's data from scikit-learn's digits",
    ),
    "plan": (
        "leaderboard_ci.tools.plan_cli",
        "test-set planning: the minimal detectable difference of the official metric, and the size needed",
    ),
}
#: What a kept tree may already contain (a previous run's tree, safe to replace).
_TREE_NAMES = {"program", "input", "output", "shared"}


def make_parser():
    parser = argparse.ArgumentParser(
        prog="leaderboard-ci",
        description=(
            "Bootstrap confidence intervals for Codabench/CodaLab leaderboards: scaffold a competition, "
            "build and check its bundle, score a submission as the worker does, analyse a phase."
        ),
    )
    parser.add_argument("--version", action="version", version="leaderboard-ci %s" % __version__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("init", help="write a complete competition folder from a gold file and a config")
    p.add_argument("folder", metavar="DIR", help="the new competition folder (absent or empty)")
    p.add_argument("--gold", required=True, metavar="FILE", help="the gold standard (private reference data)")
    p.add_argument(
        "--config",
        required=True,
        metavar="FILE",
        help="the scoring config.yaml (see the README's configuration reference)",
    )
    p.add_argument("--baseline", metavar="FILE", help="a baseline's predictions; every submission is compared with it")
    p.add_argument(
        "--data",
        metavar="FILE",
        action="append",
        default=[],
        help="another reference data file the config names (a forecasting history, a design file); repeatable",
    )
    p.add_argument("--title", help="the competition's title (default: from DIR's name)")
    p.add_argument(
        "--platform",
        choices=PLATFORMS,
        default="codabench",
        help="codabench: competition.yaml v2 (default); codalab: legacy CodaLab's v1.5, HTML pages, scores.txt",
    )

    p = sub.add_parser("columns", help="print the leaderboard columns (YAML) for the keys a config writes")
    p.add_argument("config", metavar="CONFIG", help="a config.yaml")
    p.add_argument(
        "--gold", metavar="FILE", help="the gold file, to read the group values (default: files.gold next to CONFIG)"
    )
    p.add_argument(
        "--platform",
        choices=PLATFORMS,
        default="codabench",
        help="codabench: a leaderboards[0].columns list (default); codalab: a v1.5 leaderboard.columns mapping",
    )

    p = sub.add_parser("bundle", help="build the uploadable bundle zip of a competition folder, and check it")
    p.add_argument(
        "folder",
        metavar="DIR",
        nargs="?",
        default=None,
        help="the competition folder, with competition.yaml (default: the sample, %s)" % os.path.relpath(BUNDLE_DIR),
    )
    p.add_argument(
        "--out",
        metavar="ZIP",
        help="where to write the zip (default: DIR_bundle.zip next to DIR; for the sample, dist/bundle.zip)",
    )
    p.add_argument("--check", metavar="ZIP", help="only check an existing bundle zip; build nothing")
    p.add_argument("--no-check", action="store_true", help="build without checking")
    p.add_argument("--static", action="store_true", help="check without running the scoring program")
    p.add_argument(
        "--submissions",
        nargs="*",
        default=None,
        metavar="ZIP",
        help="submission zips to score when checking (default: DIR/sample_submissions/*.zip)",
    )
    p.add_argument(
        "--program",
        default=None,
        metavar="DIR",
        help="the scoring program when DIR has no scoring_program/ (default: this package's)",
    )
    p.add_argument("--python", default=None, help="the interpreter that runs the scoring program")

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

    for name, (_, help_text) in _DELEGATED.items():
        sub.add_parser(name, help=help_text + " (leaderboard-ci %s --help)" % name, add_help=False)
    return parser


def main(argv=None, out=None):
    """Run a subcommand; returns its exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    out = sys.stdout if out is None else out
    if argv and argv[0] in _DELEGATED:
        import importlib

        module = importlib.import_module(_DELEGATED[argv[0]][0])
        return module.main(argv[1:])
    parser = make_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(out)
        return 2
    runner = {"init": run_init, "columns": run_columns, "bundle": run_bundle, "score": run_score}[args.command]
    try:
        return runner(args, out)
    except SetupError as exc:
        out.write("error: %s\n" % exc)
        return 2


# ---------------------------------------------------------------------------
# init and columns
# ---------------------------------------------------------------------------
def run_init(args, out):
    written = init_competition(
        args.folder,
        args.gold,
        args.config,
        baseline=args.baseline,
        title=args.title,
        platform=args.platform,
        data_files=args.data,
    )
    with open(os.path.join(args.folder, "competition.yaml"), "rb") as handle:
        competition = yaml.safe_load(handle)
    if is_legacy(competition):
        columns = competition["leaderboard"]["columns"]
    else:
        columns = competition["leaderboards"][0]["columns"]
    out.write("wrote %s (%d files; %d leaderboard columns)\n" % (args.folder, len(written), len(columns)))
    for name in written:
        if not name.startswith("scoring_program/leaderboard_ci/"):
            out.write("  %s\n" % name)
    out.write("next: leaderboard-ci bundle %s\n" % args.folder)
    return 0


def run_columns(args, out):
    config = load_organizer_config(args.config)
    gold = args.gold
    if gold is None and config.groups is not None and config.groups.values is None:
        gold = os.path.join(os.path.dirname(os.path.abspath(args.config)), config.files.gold)
    columns = leaderboard_columns(config, group_values_of(config, gold))
    out.write("# %d columns: the keys the scoring program writes for %s\n" % (len(columns), args.config))
    if args.platform == "codalab":
        legacy = legacy_columns(columns, {"label": "Results", "rank": 1})
        for column in legacy.values():  # written out in full in each column: pasted anywhere, it needs no anchor
            column["leaderboard"] = dict(column["leaderboard"])
        out.write(yaml.safe_dump({"columns": legacy}, sort_keys=False, allow_unicode=True))
        return 0
    out.write(columns_yaml(columns))
    return 0


# ---------------------------------------------------------------------------
# bundle
# ---------------------------------------------------------------------------
def _default_out(folder):
    if os.path.abspath(folder) == os.path.abspath(BUNDLE_DIR):
        return os.path.join(REPO, "dist", "bundle.zip")
    folder = os.path.abspath(folder).rstrip(os.sep)
    return folder + "_bundle.zip"


def _check(path, args, folder, out):
    if args.submissions:
        submissions = args.submissions
    elif folder is not None:
        submissions = sample_submissions(os.path.join(folder, "sample_submissions"))
    else:
        submissions = sample_submissions(SAMPLES_DIR)
    for sub in submissions:
        if not os.path.isfile(sub):
            raise SetupError("the submission %s does not exist" % sub)
    out.write(
        "checking %s%s\n"
        % (
            path,
            ""
            if args.static
            else " (scoring %d submission%s with its program)"
            % (len(submissions), "" if len(submissions) == 1 else "s"),
        )
    )
    warnings = []
    problems = check_bundle(
        path, submissions=submissions, run_program=not args.static, python=args.python, warnings=warnings
    )
    for warning in warnings:
        out.write("  WARNING %s\n" % warning)
    for problem in problems:
        out.write("  PROBLEM %s\n" % problem)
    out.write("%d problem%s\n" % (len(problems), "" if len(problems) == 1 else "s"))
    return 0 if not problems else 1


def run_bundle(args, out):
    if args.check is not None:
        if not os.path.isfile(args.check):
            raise SetupError("the bundle %s does not exist" % args.check)
        return _check(args.check, args, args.folder, out)
    folder = args.folder if args.folder is not None else BUNDLE_DIR
    if not os.path.isdir(folder):
        raise SetupError("the competition folder %s does not exist" % folder)
    if not os.path.isfile(os.path.join(folder, "competition.yaml")):
        raise SetupError(
            "%s has no competition.yaml at its root; leaderboard-ci init DIR writes a complete "
            "competition folder" % folder
        )
    if args.folder is None:
        out.write("competition folder: %s (the sample; give DIR for yours)\n" % folder)
    target = args.out or _default_out(folder)
    program = args.program or PROGRAM_DIR
    try:
        names = build_bundle(target, bundle_dir=folder, program_dir=program)
    except FileNotFoundError as exc:
        raise SetupError(str(exc).split("\n")[0])
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise SetupError(
            "%s%s is not valid YAML: %s"
            % (
                os.path.join(folder, "competition.yaml"),
                " line %d" % (mark.line + 1) if mark else "",
                getattr(exc, "problem", None) or exc,
            )
        )
    except ValueError as exc:
        raise SetupError(str(exc))
    with open(target, "rb") as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()
    out.write("wrote %s (%d bytes, sha256 %s)\n" % (target, os.path.getsize(target), digest[:16]))
    for name in names:
        out.write("  %s\n" % name)
    if args.no_check:
        return 0
    code = _check(target, args, folder, out)
    if code != 0:
        # A zip with problems must not be mistaken for an uploadable bundle: remove it.
        os.remove(target)
        out.write("removed %s: fix the problems above and run bundle again (--no-check keeps the zip)\n" % target)
    return code


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
    """{key: title} of the first leaderboard of a competition.yaml."""
    try:
        with open(path, "rb") as handle:
            competition = yaml.safe_load(handle)
        if is_legacy(competition):  # CodaLab v1.5: {key: {label, ...}}
            return dict((key, c.get("label", "")) for key, c in competition["leaderboard"]["columns"].items())
        return dict((c["key"], c.get("title", "")) for c in competition["leaderboards"][0]["columns"])
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
            columns = _leaderboard_columns(competition) if competition else None
            _section(
                "scores (%s)" % ("scores.json" if run.scores_json_bytes is not None else "scores.txt"),
                format_scores(run.scores, columns),
                out,
            )
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


if __name__ == "__main__":
    sys.exit(main())
