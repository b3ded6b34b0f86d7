"""``leaderboard-ci shakeup``: the public-to-private shake-up of a competition, from its downloads.

Two phases (a public/development phase and the private/final one, each with its
reference data and its download)::

    leaderboard-ci shakeup --public-reference DEV_REF --public-submissions DEV.zip \\
        --reference FINAL_REF --submissions FINAL.zip --out OUT

One reference whose gold has a public/private column (Kaggle's ``Usage``), each
submission scored on both parts::

    leaderboard-ci shakeup --reference REF --split-column Usage --submissions ALL.zip --out OUT

Participants are matched by owner.  The same arguments add the shake-up to the
end-of-phase report (:func:`add_arguments` is shared with
:mod:`leaderboard_ci.cli.end_of_phase`).  Mistakes are one sentence and exit code 2.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections import OrderedDict

from .._version import __version__
from ..core.parallel import resolve_jobs
from ..phase.analysis.blocks import SystemSource
from ..phase.execution.budget import parse_memory
from ..phase.execution.runs import Execution
from ..phase.ingestion.safe_unzip import UnzipLimits
from ..phase.ingestion.submissions import find_submissions
from ..phase.shakeup.pipeline import DEFAULT_BIAS_RESAMPLES, DEFAULT_BLOCK_SIZE, check_sets, run_shakeup
from ..phase.shakeup.references import (
    TestSet,
    load_reference,
    official_only,
    split_reference,
    subset_gold,
    without_groups,
)
from ..phase.shakeup.scoring import SELECTIONS, ParticipantRuns
from ..report.shakeup_words import summary_sentences
from ..scoring.errors import ConfigError
from .common import organizer_command, parse_count_or_all, parse_jobs, parse_top

__all__ = ["make_parser", "add_arguments", "wants_shakeup", "shakeup_from_args", "main"]

DEFAULT_PROGRAM = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scoring_program/


def add_arguments(parser, standalone=True):
    """The shake-up's arguments; ``standalone=False`` adds only those the end of phase lacks."""
    group = parser.add_argument_group(
        "shake-up (public to private)" if not standalone else "the two test sets",
        None
        if standalone
        else "with --public-reference and --public-submissions (two phases), or --split-column (one reference "
        "split in two), the report gets a section on the shake-up from the public to the private leaderboard",
    )
    if standalone:
        group.add_argument(
            "--reference",
            required=True,
            metavar="REF",
            help="the private (final) phase's reference data, or with --split-column the one reference of both parts",
        )
        group.add_argument(
            "--submissions",
            required=True,
            metavar="PATH",
            help="the private phase's download (a Codabench bulk_submissions.zip, a CodaLab zip or a folder), or "
            "with --split-column the one download",
        )
    group.add_argument("--public-reference", metavar="REF", help="the public (development) phase's reference data")
    group.add_argument("--public-submissions", metavar="PATH", help="the public phase's download")
    group.add_argument(
        "--public-config",
        metavar="CONFIG",
        help="the public phase's config.yaml (default: the program's, merged with the public reference's)",
    )
    group.add_argument(
        "--split-column",
        metavar="COLUMN",
        help="one reference split in two: the gold column that says each item's part (e.g. Usage)",
    )
    group.add_argument("--public-value", default="Public", metavar="VALUE", help="the public part's value (Public)")
    group.add_argument("--private-value", default="Private", metavar="VALUE", help="the private part's value (Private)")
    group.add_argument(
        "--public-select",
        choices=SELECTIONS,
        default="best",
        help="each participant's public run: its best public score (default, what a public leaderboard shows), "
        "its last, or the one --names lists; with --split-column the run whose two parts are compared",
    )
    group.add_argument(
        "--private-select",
        choices=SELECTIONS,
        default="last",
        help="two phases: each participant's run of the private phase (default: its last)",
    )
    group.add_argument(
        "--bias-resamples",
        default=str(DEFAULT_BIAS_RESAMPLES),
        metavar="N",
        help="replicates (the first N of B) the best-of-k optimism is measured on, or 'all' for every one of B "
        "(default %(default)s: about 1%% Monte-Carlo error; 'all' scores every public run on all B replicates, "
        "about B / N times the optimism's scoring); every other number uses all B",
    )
    if standalone:
        group.add_argument(
            "--block-size",
            type=int,
            default=DEFAULT_BLOCK_SIZE,
            metavar="N",
            help="runs per block task (whole participants; default %d)" % DEFAULT_BLOCK_SIZE,
        )


def make_parser():
    parser = argparse.ArgumentParser(
        prog="leaderboard-ci shakeup",
        description="Public-to-private shake-up of a competition: each participant's public and private score with "
        "intervals, the gap with its interval and a false-discovery flag, ranks with rank sets, Kendall's tau "
        "against what noise alone gives, the optimism of the best of k public submissions, the winner's curse.",
    )
    add_arguments(parser)
    parser.add_argument("--out", required=True, metavar="OUT_DIR", help="where to write the report")
    parser.add_argument("--config", metavar="CONFIG", help="the private (or split) reference's config.yaml")
    parser.add_argument("--program", default=DEFAULT_PROGRAM, metavar="DIR", help="the scoring program folder")
    parser.add_argument("--names", metavar="MAP_CSV", help="a CSV 'submission,name' to rename runs (both phases)")
    parser.add_argument("--jobs", default="auto", metavar="N", help="threads (default: all cores)")
    parser.add_argument("--dask", metavar="ADDRESS", help="run the blocks on Dask: tcp://host:8786 or 'local'")
    parser.add_argument("--workers", type=int, metavar="N", help="workers of --dask local")
    parser.add_argument("--max-unpacked", default="2GiB", metavar="SIZE", help="the most bytes unpacked (2GiB)")
    parser.add_argument("--workdir", metavar="DIR", help="where submissions are unpacked (default: a temporary folder)")
    parser.add_argument("--top", default="60", metavar="N", help="participants the rank-change figure shows (60; all)")
    parser.add_argument("--version", action="version", version="leaderboard-ci %s" % __version__)
    return parser


def wants_shakeup(args):
    """``phases``, ``split`` or None, after checking that the arguments name one complete mode."""
    public = [a for a in ("public_reference", "public_submissions") if vars(args)[a]]
    split = args.split_column
    if split and public:
        raise ConfigError(
            "give --split-column (one reference split in two) or --public-reference and "
            "--public-submissions (two phases), not both"
        )
    if split:
        return "split"
    if len(public) == 1:
        missing = "--public-submissions" if public[0] == "public_reference" else "--public-reference"
        raise ConfigError(
            "the public phase needs both --public-reference and --public-submissions: %s is missing" % missing
        )
    return "phases" if public else None


def parse_bias_resamples(text):
    """``--bias-resamples``: a whole number of at least 2, or 'all' (None: every one of B)."""
    return parse_count_or_all(text, 2, "--bias-resamples must be a whole number of at least 2, or 'all', got %r")


def _participants(entries, skipped):
    """``ParticipantRuns`` per owner, in the download's order; unpacking failures counted for their owner."""
    owners = OrderedDict()
    for entry in entries:
        owners.setdefault(entry.owner, []).append(SystemSource(entry.name, entry=entry))
    failed = dict((key, 0) for key in owners)
    for label, _ in skipped:
        owner = max((key for key in owners if label == key or label.startswith(key + " (")), key=len, default=None)
        if owner is not None:
            failed[owner] += 1
    return [ParticipantRuns(key, tuple(runs), len(runs) + failed[key]) for key, runs in owners.items()]


def _download(path, workdir, args, label, limits, warnings_out):
    warnings_list = []
    entries, skipped = find_submissions(
        path,
        os.path.join(workdir, "submissions-" + label),
        names_map=args.names,
        per_participant="all",
        limits=limits,
        warnings_list=warnings_list,
    )
    warnings_out.extend(warnings_list)
    if not entries:
        raise ConfigError(
            "the %sdownload %s holds no readable submission (%d skipped)"
            % ("" if label == "split" else label + " ", path, len(skipped))
        )
    return _participants(entries, skipped), skipped


def shakeup_from_args(args, workdir, stdout, private=None):
    """The :class:`~.results.ShakeupResult` of parsed arguments (a mode must be given: :func:`wants_shakeup`).

    ``private`` is ``(reference folder, config, gold)`` already read (the end of phase's); else
    ``--reference`` is read here.
    """
    mode = wants_shakeup(args)
    bias_resamples = parse_bias_resamples(args.bias_resamples)  # before anything is read
    limits = UnzipLimits(max_total_bytes=parse_memory(args.max_unpacked, "--max-unpacked"))
    program = args.program
    if private is None:
        private = load_reference(args.reference, program, workdir, "private", args.config)
    ref_dir, config, gold = private
    notes = []
    if mode == "split":
        public_items, private_items, neither = split_reference(
            ref_dir, config, gold, args.split_column, args.public_value, args.private_value
        )
        scoring = official_only(config)
        where = "ref/%s, %s = %%s" % (config.files.gold, args.split_column)
        public = TestSet("public", scoring, subset_gold(gold, public_items), public_items, where % args.public_value)
        private_set = TestSet(
            "private", scoring, subset_gold(gold, private_items), private_items, where % args.private_value
        )
        if neither:
            notes.append(
                "%d items of ref/%s are in neither part (their %s is neither %s nor %s)"
                % (neither, config.files.gold, args.split_column, args.public_value, args.private_value)
            )
        readers = ((scoring, gold), None)
        check_sets(public, private_set)
        participants, skipped = _download(args.submissions, workdir, args, "split", limits, notes)
        private_participants = None
    else:
        pub_dir, pub_config, pub_gold = load_reference(
            args.public_reference, program, workdir, "public", args.public_config
        )
        public = TestSet(
            "public",
            official_only(pub_config),
            without_groups(pub_gold),
            None,
            "public reference ref/%s" % pub_config.files.gold,
        )
        private_set = TestSet(
            "private", official_only(config), without_groups(gold), None, "private reference ref/%s" % config.files.gold
        )
        readers = ((pub_config, pub_gold), (config, gold))
        check_sets(public, private_set)  # before any download is unpacked
        public_warnings, private_warnings = [], []
        participants, _ = _download(args.public_submissions, workdir, args, "public", limits, public_warnings)
        private_participants, _ = _download(args.submissions, workdir, args, "private", limits, private_warnings)
        # one names map serves both phases: a row is worth a warning only when it matches in neither
        notes.extend(w for w in public_warnings if w in set(private_warnings))
    jobs = parse_jobs(args.jobs)
    execution = Execution(n_jobs=1 if args.dask else jobs, dask=args.dask, workers=args.workers)
    block_size = args.block_size or DEFAULT_BLOCK_SIZE  # the end of phase has its own --block-size, None by default
    runner = execution.open_runner()
    try:
        runs = sum(len(p.runs) for p in participants) + sum(len(p.runs) for p in private_participants or ())
        stdout.write(
            "Shake-up (%s): %d participants, %d runs, public n = %d, private n = %d, B = %d, on %s.\n"
            % (
                "one reference split by %s" % args.split_column if mode == "split" else "two phases",
                len(participants),
                runs,
                public.n,
                private_set.n,
                private_set.config.bootstrap.n_resamples,
                runner.address,
            )
        )
        local = getattr(runner, "in_process", False)
        return run_shakeup(
            public,
            private_set,
            participants,
            private_participants,
            public_reader=readers[0],
            private_reader=readers[1],
            select=args.public_select,
            private_select=args.private_select,
            runner=runner,
            n_jobs=resolve_jobs(jobs) if local else 1,
            block_size=block_size,
            bias_resamples=bias_resamples,
            notes=notes,
            sources=OrderedDict([("public_source", public.source), ("private_source", private_set.source)]),
        )
    finally:
        runner.close()


def print_summary(result, stdout):
    """The verdict sentences of the shake-up, one per line."""
    for sentence in summary_sentences(result):
        stdout.write(sentence + "\n")
    for note in result.notes:
        if note.startswith("With B = "):
            sys.stderr.write("warning: %s.\n" % note)


def run(args, stdout=None):
    """Run the command for parsed arguments; returns the ShakeupResult."""
    stdout = sys.stdout if stdout is None else stdout
    if wants_shakeup(args) is None:
        raise ConfigError(
            "give the public phase (--public-reference and --public-submissions) or a split column "
            "(--split-column); see leaderboard-ci shakeup --help"
        )
    for key in (
        "reference",
        "submissions",
        "public_reference",
        "public_submissions",
        "out",
        "config",
        "public_config",
        "program",
        "names",
        "workdir",
    ):
        if getattr(args, key, None):
            setattr(args, key, os.path.abspath(getattr(args, key)))
    top = parse_top(args.top)
    started = time.time()
    workdir = tempfile.mkdtemp(prefix="leaderboard-ci-shakeup-", dir=args.workdir)
    try:
        result = shakeup_from_args(args, workdir, stdout)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    written = result.write(args.out, top=top)
    print_summary(result, stdout)
    stdout.write("Report: %s (%d files)\n" % (os.path.join(args.out, "shakeup.html"), len(written)))
    stdout.write("Done in %.1f s.\n" % (time.time() - started))
    return result


@organizer_command
def main(argv=None):
    """Entry point; returns the exit code (0 ok, 2 organizer error)."""
    run(make_parser().parse_args(argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
