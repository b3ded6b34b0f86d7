"""``leaderboard-ci init``, ``columns`` and ``bundle``: write a competition folder, its columns, its bundle.

Each subcommand is ``add_*_parser(sub)`` (its arguments, on the subparsers of
:func:`leaderboard_ci.cli.main.make_parser`) and ``run_*(args, out) -> exit code``;
a mistake raises :class:`~leaderboard_ci.tools.scaffold.SetupError` (one sentence, exit code 2).
"""

from __future__ import annotations

import hashlib
import os

import yaml

from ..tools.bundle import BUNDLE_DIR, PROGRAM_DIR, REPO, SAMPLES_DIR, build_bundle, sample_submissions
from ..tools.bundle_check import check_bundle
from ..tools.codalab import is_legacy, legacy_columns
from ..tools.scaffold import (
    PLATFORMS,
    SetupError,
    columns_yaml,
    group_values_of,
    init_competition,
    leaderboard_columns,
    load_organizer_config,
)

__all__ = ["add_init_parser", "add_columns_parser", "add_bundle_parser", "run_init", "run_columns", "run_bundle"]


def add_init_parser(sub):
    """``init``: a complete competition folder from a gold file and a config."""
    p = sub.add_parser("init", help="write a complete competition folder from a gold file and a config")
    p.add_argument("folder", metavar="DIR", help="the new competition folder (absent or empty)")
    p.add_argument("--gold", required=True, metavar="FILE", help="the gold standard (private reference data)")
    p.add_argument(
        "--config",
        required=True,
        metavar="FILE",
        help="the scoring config.yaml (every key: docs/configuration.md, the configuration reference)",
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
    return p


def add_columns_parser(sub):
    """``columns``: the leaderboard columns of a config's keys."""
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
    return p


def add_bundle_parser(sub):
    """``bundle``: build and check the uploadable zip."""
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
    return p


# ---------------------------------------------------------------------------
# init and columns
# ---------------------------------------------------------------------------
def run_init(args, out):
    notes = []
    written = init_competition(
        args.folder,
        args.gold,
        args.config,
        baseline=args.baseline,
        title=args.title,
        platform=args.platform,
        data_files=args.data,
        notes=notes,
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
    for note in notes:
        out.write("note: %s\n" % note)
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
