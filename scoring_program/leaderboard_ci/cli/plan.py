"""``leaderboard-ci plan``: which differences of the official metric a test set can detect.

    leaderboard-ci plan [DIR] [--config FILE] [--gold FILE] [--pilot FILE ...] [--assume KEY=VALUE,...]
                        [--alpha 0.05] [--power 0.8] [--family-size M] [--difference D] [--output OUT]
                        [--jobs N] [--dask ADDRESS [--workers N]]

Reads the config and the gold as ``init`` and ``columns`` do, the pilots as the
scoring program reads a submission (a prediction file, or a submission zip),
and prints the plan of :mod:`leaderboard_ci.tools.plan` in words; ``--output``
also writes ``plan.md``, ``plan.png`` and ``plan.json``.  A mistake is one
sentence and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import sys
import tempfile
import zipfile

from ..console import entry_point
from ..scoring.errors import ConfigError, SubmissionError
from ..scoring.readers import read_predictions, read_submission
from ..tools.bundle import BUNDLE_DIR
from ..tools.organizer_files import read_given_gold
from ..tools.plan import ASSUMPTION_KEYS, DEFAULT_ASSUMPTIONS, assumed_plan, can_simulate, parse_assumptions, pilot_plan
from ..tools.plan_output import plan_paragraph, write_plan
from ..tools.scaffold import SetupError, load_organizer_config
from .common import add_execution_arguments, execution_from_args

__all__ = ["main", "make_parser", "load_inputs", "compute_plan"]


def make_parser():
    parser = argparse.ArgumentParser(
        prog="leaderboard-ci plan",
        description=(
            "Test-set planning: the minimal detectable difference (MDE) of the official metric for a paired "
            "comparison of two systems at the test set's size, and the size needed for a given difference. "
            "MDE(n) = (z_{1-alpha/(2m)} + z_power) * SE(n), with SE(n) the paired bootstrap's standard error "
            "of the difference, which scales like 1/sqrt(n) (checked on subsets)."
        ),
    )
    parser.add_argument(
        "folder",
        metavar="DIR",
        nargs="?",
        default=None,
        help="a competition folder (reference_data/config.yaml and its gold); default: the sample, "
        "unless --config is given",
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="a config.yaml, or a competition.yaml (then its folder's reference_data/config.yaml)",
    )
    parser.add_argument("--gold", metavar="FILE", help="the gold file (default: files.gold next to the config)")
    parser.add_argument(
        "--pilot",
        nargs="+",
        metavar="FILE",
        help="pilot predictions of two or more systems: prediction files or submission zips",
    )
    parser.add_argument(
        "--assume",
        metavar="KEY=VALUE,...",
        help="assumed rates instead of pilots, for label-valued gold: %s (default %s)"
        % ("; ".join("%s: %s" % item for item in sorted(ASSUMPTION_KEYS.items())), _default_text()),
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="the test's level, two-sided (default 0.05)")
    parser.add_argument("--power", type=float, default=0.8, help="the power to detect the difference (default 0.8)")
    parser.add_argument(
        "--family-size",
        type=int,
        default=1,
        metavar="M",
        help="comparisons corrected together (Bonferroni, the first step of Holm): alpha/M (default 1)",
    )
    parser.add_argument("--difference", type=float, metavar="D", help="also: the test-set size needed to detect D")
    parser.add_argument(
        "--cluster",
        metavar="COLUMN",
        help="a gold column whose values are clusters of items (passages, documents): each pilot pair's SE "
        "is multiplied by the square root of its design effect, estimated from the pilots (needs --pilot); "
        "default with pilots: the config's bootstrap.cluster, read as the scoring program reads it",
    )
    parser.add_argument(
        "--n-resamples", type=int, metavar="B", help="bootstrap resamples (default: the config's bootstrap.n_resamples)"
    )
    parser.add_argument("--output", metavar="OUT", help="write OUT/plan.md, plan.png and plan.json")
    add_execution_arguments(parser, blocks=False)  # the pilots' replicates: no blocks of systems
    return parser


def _default_text():
    return ",".join("%s=%g" % item for item in DEFAULT_ASSUMPTIONS)


def _config_path(args):
    if args.config is not None:
        if not os.path.isfile(args.config):
            raise SetupError("the config file %s does not exist" % args.config)
        if os.path.basename(args.config) == "competition.yaml":
            return os.path.join(os.path.dirname(os.path.abspath(args.config)), "reference_data", "config.yaml")
        return args.config
    folder = args.folder if args.folder is not None else BUNDLE_DIR
    if not os.path.isdir(folder):
        raise SetupError("the competition folder %s does not exist" % folder)
    path = os.path.join(folder, "reference_data", "config.yaml")
    if not os.path.isfile(path):
        raise SetupError("%s has no reference_data/config.yaml; give --config FILE" % folder)
    return path


def _read_gold(config, gold_path, config_path):
    return read_given_gold(config, gold_path, config.source, [os.path.dirname(os.path.abspath(config_path))])


def _read_pilot(path, config, gold):
    if not os.path.exists(path):
        raise SetupError("the pilot file %s does not exist" % path)
    workdir = None
    try:
        if zipfile.is_zipfile(path):
            workdir = tempfile.mkdtemp(prefix="leaderboard-ci-pilot-")
            try:
                with zipfile.ZipFile(path) as archive:
                    archive.extractall(workdir)
            except (zipfile.BadZipFile, OSError, RuntimeError) as exc:
                raise SetupError("the pilot %s cannot be unzipped (%s)" % (path, exc))
            return read_submission(workdir, config, gold)
        if os.path.isdir(path):  # an unzipped submission
            return read_submission(path, config, gold)
        return read_predictions(path, config, gold)
    except (SubmissionError, ConfigError) as exc:
        raise SetupError("the pilot %s cannot be used: %s" % (path, exc.message))
    finally:
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)


def _pilot_name(path, used):
    name = os.path.splitext(os.path.basename(path))[0] or "pilot"
    base, k = name, 2
    while name in used:
        name = "%s_%d" % (base, k)
        k += 1
    used.add(name)
    return name


def _cluster_codes(config, gold_path, config_path, column, gold):
    """One cluster code per gold unit, from the gold's ``column``, read as the gold is with ``bootstrap.cluster``.

    A gold table has it as a column; a task type's own gold format (CoNLL documents,
    SQuAD titles) when its reader gives per-unit values of that name; any task with
    unit ids, from the configured ``bootstrap.design_file``.
    """
    bootstrap = dataclasses.replace(config.bootstrap, cluster=column, strata=None)
    clustered = _read_gold(dataclasses.replace(config, bootstrap=bootstrap), gold_path, config_path)
    if clustered.n != gold.n:
        raise SetupError("the gold file %s has %d cluster values for %d items" % (gold_path, clustered.n, gold.n))
    return [int(code) for code in clustered.clusters]


def load_inputs(args):
    """``(config, gold, predictions, names, clusters)`` from the command's arguments (SetupError for a mistake)."""
    path = _config_path(args)
    if not os.path.isfile(path):
        raise SetupError("the config file %s does not exist" % path)
    config = load_organizer_config(path)
    gold_path = args.gold or os.path.join(os.path.dirname(os.path.abspath(path)), config.files.gold)
    gold = _read_gold(config, gold_path, path)
    predictions, names, used = [], [], set()
    for pilot in args.pilot or ():
        predictions.append(_read_pilot(pilot, config, gold))
        names.append(_pilot_name(pilot, used))
    clusters = None if args.cluster is None else _cluster_codes(config, gold_path, path, args.cluster, gold)
    return config, gold, predictions, names, clusters


def compute_plan(args):
    """The :class:`~leaderboard_ci.tools.plan.Plan` the arguments ask for."""
    if args.pilot and args.assume:
        raise SetupError("give either --pilot files or --assume rates, not both")
    if args.pilot is not None and len(args.pilot) < 2:
        raise SetupError("--pilot needs the predictions of at least two systems (a paired difference)")
    if args.n_resamples is not None and args.n_resamples < 100:
        raise SetupError("--n-resamples must be at least 100, got %d" % args.n_resamples)
    try:
        execution = execution_from_args(args)  # checked first, whether or not pilots need it
        design = dict(
            alpha=args.alpha,
            power=args.power,
            family_size=args.family_size,
            difference=args.difference,
            n_resamples=args.n_resamples,
        )
        if args.cluster is not None and not args.pilot:
            raise SetupError(
                "--cluster needs pilot predictions (--pilot FILE FILE): the design effect is estimated from them"
            )
        config, gold, predictions, names, clusters = load_inputs(args)
        column = args.cluster
        if predictions and column is None and gold.clusters is not None:  # the competition's own bootstrap.cluster
            column, clusters = config.bootstrap.cluster, [int(c) for c in gold.clusters]
        if predictions:
            return pilot_plan(
                config,
                gold,
                predictions,
                names,
                clusters=clusters,
                cluster_column=column,
                execution=execution,
                **design,
            )
        if not can_simulate(gold):
            raise SetupError(
                "assumed rates describe systems that predict one label per item, and this gold holds other "
                "values; give pilot predictions of two or more systems (--pilot FILE FILE)"
            )
        assumptions = parse_assumptions(args.assume or "")
        return assumed_plan(config, gold, assumptions, **design)
    except ValueError as exc:
        raise SetupError(str(exc))


@entry_point
def main(argv=None, out=None):
    """Run ``leaderboard-ci plan``; returns the exit code."""
    out = sys.stdout if out is None else out
    args = make_parser().parse_args(argv)
    try:
        plan = compute_plan(args)
    except SetupError as exc:
        out.write("error: %s\n" % exc)
        return 2

    out.write(plan_paragraph(plan) + "\n")
    if args.output:
        for path in write_plan(plan, args.output):
            out.write("wrote %s\n" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
