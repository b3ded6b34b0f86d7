"""``end_of_phase``: the organizer's command for the joint analysis of all submissions.

    leaderboard-ci-end-of-phase --reference REF_DIR --submissions PATH --out OUT_DIR
    (also leaderboard-ci end-of-phase ..., or python -m leaderboard_ci.cli.end_of_phase ...)

It uses the same configuration as the scoring program (the program's
``config.yaml`` merged with ``REF_DIR/config.yaml``, or ``--config``), hence
the same resamples, so every per-system CI equals the leaderboard's.
Submissions that fail the scoring program's validation are skipped and listed
in the report with the reason the participant saw.  Nothing is written outside
OUT_DIR (submissions are unpacked in a temporary folder that is removed).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
import zipfile
from contextlib import contextmanager
from dataclasses import replace

import pandas as pd

from .._version import __version__
from ..phase.analysis.blocked import SystemSource, analyze_blocks, open_run
from ..phase.execution.budget import check_client, parse_memory
from ..phase.ingestion.safe_unzip import UnzipLimits, safe_extract
from ..phase.ingestion.submissions import (
    INVENTORY_COLUMNS,
    find_submissions,
    load_systems,
    names_after_selection,
    submissions_table,
)
from ..report.formatting import correction_name
from ..report.scale import DEFAULT_TOP, PARQUET_HINT, parquet_available
from ..report.verdicts import family_notes
from ..scoring.config import load_config
from ..scoring.errors import ConfigError
from ..scoring.readers import read_baseline, read_gold
from . import shakeup as shakeup_cli
from .common import (
    add_execution_arguments,
    add_figure_files_argument,
    execution_from_args,
    organizer_command,
    parse_figure_files,
    parse_top,
)

__all__ = ["make_parser", "main", "run"]

DEFAULT_PROGRAM = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scoring_program/


def make_parser():
    parser = argparse.ArgumentParser(
        prog="leaderboard-ci-end-of-phase",
        description="Paired bootstrap analysis of all submissions of a Codabench/CodaLab phase: "
        "CIs, differences to the winner, all pairs with corrected p-values, competition "
        "indicators, and a report (HTML, JSON, CSV, Markdown, LaTeX, figures).",
    )
    parser.add_argument(
        "--reference",
        required=True,
        metavar="REF",
        help="the reference data: a folder (or zip) with the gold file, as given to the scoring program",
    )
    parser.add_argument(
        "--submissions",
        required=True,
        metavar="PATH",
        help="a folder of submission files/zips, a Codabench bulk_submissions.zip, or a CodaLab 'download all' zip",
    )
    parser.add_argument("--out", required=True, metavar="OUT_DIR", help="where to write the report")
    parser.add_argument(
        "--config", metavar="CONFIG", help="a config.yaml (default: the scoring program's, merged with REF/config.yaml)"
    )
    parser.add_argument(
        "--program",
        default=DEFAULT_PROGRAM,
        metavar="DIR",
        help="the scoring program folder (for its config.yaml and custom metrics)",
    )
    parser.add_argument("--names", metavar="MAP_CSV", help="a CSV 'submission,name' to rename systems")
    parser.add_argument(
        "--per-participant",
        choices=("all", "best", "last", "listed"),
        default="all",
        help="which runs of each participant to analyse: all (default, as the papers did), the best on the "
        "official metric or the last, each named by its owner, or those the --names map lists",
    )
    parser.add_argument(
        "--baseline",
        metavar="NAME",
        help="the system that is the baseline (default: the config's baseline file, if any)",
    )
    add_execution_arguments(parser)
    parser.add_argument(
        "--max-unpacked",
        metavar="SIZE",
        default="2GiB",
        help="the most bytes the submissions may take once unpacked or copied for reading "
        "(default 2GiB; raise it for big phases)",
    )
    parser.add_argument(
        "--workdir",
        metavar="DIR",
        help="where submissions are unpacked (default: a temporary folder, removed at the end); "
        "with a remote --dask cluster, a folder every worker can read",
    )
    parser.add_argument(
        "--top",
        default=str(DEFAULT_TOP),
        metavar="N",
        help="above N systems the page, the Markdown/LaTeX tables and the figures show the top N of "
        "each ranking and summaries of the whole field; every row stays in the CSV and Parquet "
        "files (default %d; 'all': every system everywhere)" % DEFAULT_TOP,
    )
    add_figure_files_argument(parser)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--version", action="version", version="leaderboard-ci %s" % __version__)
    shakeup_cli.add_arguments(parser, standalone=False)  # --public-reference ... or --split-column: the shake-up
    return parser


@contextmanager
def _progress_bar(enabled, total, desc="bootstrap", unit="resample"):
    """A tqdm bar's ``update`` on a terminal, else None; the bar is closed afterwards."""
    bar = None
    if enabled and sys.stderr.isatty():
        try:
            from tqdm.auto import tqdm  # optional: the bar shows only where tqdm is installed
        except ImportError:
            tqdm = None
        if tqdm is not None:
            bar = tqdm(total=total, desc=desc, unit=unit, leave=False)
    try:
        yield None if bar is None else bar.update
    finally:
        if bar is not None:
            bar.close()


def _unzip_limits(args):
    """UnzipLimits with ``--max-unpacked`` as the run's total."""
    return UnzipLimits(max_total_bytes=parse_memory(args.max_unpacked, "--max-unpacked"))


def _reference_dir(path, workdir):
    if os.path.isdir(path):
        return path
    if os.path.isfile(path) and zipfile.is_zipfile(path):
        target = os.path.join(workdir, "reference")
        safe_extract(path, target, UnzipLimits())
        return target
    raise ConfigError("--reference %s is neither a folder nor a zip file" % path)


def _add_baseline(config, ref_dir, gold, coded, requested):
    """The baseline's name: --baseline NAME, else the config's baseline file as a system."""
    if requested is not None:
        if requested not in coded:
            raise ConfigError(
                "--baseline %r is not one of the systems: %s"
                % (requested, ", ".join(list(coded)[:10]) + (" ..." if len(coded) > 10 else ""))
            )
        return requested
    if config.baseline is None:
        return None
    name = config.baseline.name
    while name in coded:
        name += " (baseline)"
    coded[name] = read_baseline(ref_dir, config, gold)
    return name


#: The arguments that name files or folders: each is made absolute on the client before anything runs.
_PATH_ARGUMENTS = (
    "reference",
    "submissions",
    "out",
    "config",
    "program",
    "names",
    "workdir",
    "public_reference",
    "public_submissions",
    "public_config",
)


def _absolute_paths(args):
    """``args`` with every path made absolute against this process' working directory.

    Dask workers started in another folder (``dask worker`` run elsewhere) would resolve
    a relative path against their own folder and read another file, or none.
    """
    values = dict(vars(args))
    for key in _PATH_ARGUMENTS:
        if isinstance(values.get(key), str) and values[key]:
            values[key] = os.path.abspath(values[key])
    return argparse.Namespace(**values)


def run(args, stdout=None):
    """Run the analysis for parsed arguments; returns the PhaseResult.

    ``stdout`` (default: ``sys.stdout`` at the call, not at import) receives the
    progress and the summary; the "B too small" notes go to ``sys.stderr``.
    """
    stdout = sys.stdout if stdout is None else stdout
    args = _absolute_paths(args)
    started = time.time()
    top = parse_top(args.top)
    figure_formats = parse_figure_files(args.figure_files)  # checked before any work
    execution = execution_from_args(args)
    out_dir = args.out  # absolute: _absolute_paths
    workdir = tempfile.mkdtemp(prefix="leaderboard-ci-")
    try:
        ref_dir = _reference_dir(args.reference, workdir)
        if args.config:
            if not os.path.isfile(args.config):
                raise ConfigError("--config %s does not exist" % args.config)
            config = load_config(os.path.dirname(args.config), None, path=args.config)
        else:
            config = load_config(args.program, ref_dir)
        gold = read_gold(ref_dir, config)
        shakeup_mode = shakeup_cli.wants_shakeup(args)  # checked before any work
        if args.dask or args.memory_limit or args.block_size:
            inventory = []
            reference = (config, gold, ref_dir)
            result = _run_in_blocks(args, execution, reference, args.workdir or workdir, stdout, inventory)
            result = _with_shakeup(shakeup_mode, args, result, (ref_dir, config, gold), args.workdir or workdir, stdout)
            written = result.write(out_dir, top=top, figure_formats=figure_formats)
            written["submissions.csv"] = _write_inventory(out_dir, inventory)
            return _finish(result, written, out_dir, started, stdout)
        warnings_list, inventory = [], []
        coded, skipped, _ = load_systems(
            args.submissions,
            config,
            gold,
            os.path.join(workdir, "submissions"),
            names_map=args.names,
            per_participant=args.per_participant,
            limits=_unzip_limits(args),
            warnings_list=warnings_list,
            inventory=inventory,
        )
        for warning in warnings_list:
            stdout.write("warning: %s\n" % warning)
        baseline = _add_baseline(config, ref_dir, gold, coded, args.baseline)
        if not coded:
            raise ConfigError("no submission could be read (%d skipped)" % len(skipped))
        stdout.write(
            "Analysing %d systems on %d items with B=%d resamples (seed %d)...\n"
            % (len(coded), gold.n, config.bootstrap.n_resamples, config.bootstrap.seed)
        )
        sources = [SystemSource(name, values=values) for name, values in coded.items()]
        result = _analyze_sources(args, config, gold, sources, baseline, skipped, execution)
        result = _with_shakeup(shakeup_mode, args, result, (ref_dir, config, gold), workdir, stdout)
        written = result.write(out_dir, top=top, figure_formats=figure_formats)
        written["submissions.csv"] = _write_inventory(out_dir, inventory)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return _finish(result, written, out_dir, started, stdout)


def _with_shakeup(mode, args, result, private, workdir, stdout):
    """``result`` with the shake-up of :mod:`leaderboard_ci.phase.shakeup` when its arguments were given."""
    if mode is None:
        return result
    found = shakeup_cli.shakeup_from_args(args, os.path.join(workdir, "shakeup"), stdout, private)
    return replace(result, shakeup=found)


def _finish(result, written, out_dir, started, stdout):
    _print_summary(result, written, out_dir, time.time() - started, stdout)
    if result.shakeup is not None:
        shakeup_cli.print_summary(result.shakeup, stdout)
    return result


def _write_inventory(out_dir, rows):
    """``submissions.csv``: every submission found, its ids, and whether it was analysed, and why not."""
    columns = list(rows[0]) if rows else list(INVENTORY_COLUMNS)
    path = os.path.join(out_dir, "submissions.csv")
    pd.DataFrame(rows, columns=columns).to_csv(path, index=False)
    return path


def _run_in_blocks(args, execution, reference, workdir, stdout, inventory=None):
    """The analysis in blocks of systems (--memory-limit, --dask): see :mod:`leaderboard_ci.phase.analysis.blocked`."""
    config, gold, ref_dir = reference
    warnings_list = []
    entries, skipped = find_submissions(
        args.submissions,
        os.path.join(workdir, "submissions"),
        names_map=args.names,
        per_participant=args.per_participant,
        limits=_unzip_limits(args),
        warnings_list=warnings_list,
    )
    for warning in warnings_list:
        stdout.write("warning: %s\n" % warning)
    sources = [SystemSource(entry.name, entry=entry) for entry in entries]
    names = set(entry.name for entry in entries)
    baseline = args.baseline
    if baseline is not None and baseline not in names:
        raise ConfigError(
            "--baseline %r is not one of the systems: %s"
            % (baseline, ", ".join(sorted(names)[:10]) + (" ..." if len(names) > 10 else ""))
        )
    if baseline is None and config.baseline is not None:
        baseline = config.baseline.name
        while baseline in names:
            baseline += " (baseline)"
        sources.append(SystemSource(baseline, baseline_dir=ref_dir))
    if not sources:
        raise ConfigError("no submission could be read (%d skipped)" % len(skipped))
    kept = []
    result = _analyze_sources(
        args,
        config,
        gold,
        sources,
        baseline,
        skipped,
        execution,
        stdout=stdout,
        per_participant=args.per_participant,
        chosen_out=kept,
    )
    if inventory is not None:
        renames = names_after_selection(entries, args.per_participant)
        skipped_now = [(row[0], row[1]) for row in result.skipped.itertuples(index=False)]
        inventory.extend(submissions_table(entries, skipped_now, set(kept), renames, args.per_participant))
    return result


def _analyze_sources(
    args, config, gold, sources, baseline, skipped, execution, stdout=None, per_participant="all", chosen_out=None
):
    """Plan, open the runner and analyse ``sources`` (the one path of both runs).

    With ``stdout`` (a run in blocks) the runner, the plan and the client check are printed first.
    """
    with open_run(config, gold, sources, execution) as run:
        if stdout is not None:
            stdout.write(
                "Analysing %d submissions on %d items with B=%d resamples (seed %d) on %s.\n"
                % (len(sources), gold.n, config.bootstrap.n_resamples, config.bootstrap.seed, run.runner.address)
            )
            stdout.write(run.plan.describe())
            warning = check_client(run.plan.blocks)
            if warning:
                stdout.write("warning: %s\n" % warning)
        unit = "resample" if run.plan.blocks.in_process else "task"
        with _progress_bar(not args.no_progress, run.plan.progress_total, unit=unit) as tick:
            return analyze_blocks(
                config,
                gold,
                sources,
                run.plan,
                run.runner,
                baseline=baseline,
                skipped=skipped,
                per_participant=per_participant,
                n_jobs=run.n_jobs,
                progress=tick,
                chosen_out=chosen_out,
            )


def _print_summary(result, written, out_dir, seconds, stdout, stderr=None):
    """The winner, the ties, where the report is; each "B too small" note on stderr, one line each."""
    stderr = sys.stderr if stderr is None else stderr
    for note in family_notes(result):
        stderr.write("warning: %s\n" % " ".join(str(note).split()))
    target = result.official
    stdout.write("\n%s: winner %s (%.4f)\n" % (target.title, target.winner, target.systems.iloc[0]["score"]))
    tied = [n for n in target.tied_with_winner if n != target.winner]
    primary = result.signature.primary
    if "rank_set_low" in target.systems.columns:
        stdout.write(
            "Tied with the winner (1 in their simultaneous rank set, alpha %g): %s\n"
            % (result.signature.alpha, ", ".join(tied) if tied else "none")
        )
    else:
        stdout.write(
            "Not significantly different from the winner (%s correction, alpha %g): %s\n"
            % (correction_name(primary, long=True), result.signature.alpha, ", ".join(tied) if tied else "none")
        )
    if len(result.skipped):
        stdout.write("Skipped %d submission(s); see the report.\n" % len(result.skipped))
    if not parquet_available():
        stdout.write("%s.\n" % PARQUET_HINT)
    stdout.write("Report: %s\n" % os.path.join(out_dir, "report.html"))
    stdout.write("Done in %.1f s.\n" % seconds)


@organizer_command
def main(argv=None):
    """Entry point; returns the exit code (0 ok, 2 organizer error)."""
    run(make_parser().parse_args(argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
