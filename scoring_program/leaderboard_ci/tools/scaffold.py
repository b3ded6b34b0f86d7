"""``leaderboard-ci init`` and ``leaderboard-ci columns``: a competition folder from a gold file and a config.

:func:`leaderboard_columns` turns the keys the program writes
(:func:`leaderboard_ci.scoring.outputs.written_columns`) into Codabench leaderboard
columns: one per key, ``sorting`` from the metric's direction, titles within 36
characters, precision 4.  :func:`init_competition` writes a folder that
``leaderboard-ci bundle`` builds and checks as it is.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import io
import os
import shutil
import struct
import tempfile
import zlib

import yaml

from ..core.resampling import draw_in_words
from ..scoring.config import CONFIG_NAME, FileSettings, merge_configs, parse_config, read_config
from ..scoring.errors import ConfigError, SubmissionError
from ..scoring.outputs import written_columns
from ..scoring.readers import read_baseline, read_gold, read_predictions
from ..tasks.registry import task_type
from .bundle import PROGRAM_DIR, program_entries, write_zip
from .codalab import legacy_competition_yaml, markdown_to_html
from .init_notes import init_notes, readme_notes
from .organizer_files import SetupError, as_given, check_gold_name, read_given_gold
from .plan_output import readme_plan_section

__all__ = [
    "SetupError",
    "load_organizer_config",
    "group_values_of",
    "leaderboard_columns",
    "columns_yaml",
    "init_competition",
]


def load_organizer_config(path):
    """Parse an organizer's ``config.yaml`` on its own (not merged over the sample's)."""
    if not os.path.isfile(path):
        raise SetupError("the config file %s does not exist" % path)
    try:
        return parse_config(
            read_config(path), source=os.path.basename(path), program_dir=os.path.dirname(os.path.abspath(path))
        )
    except ConfigError as exc:
        raise SetupError(exc.message)


def group_values_of(config, gold_path):
    """The group values of the gold file (None without groups); reads the gold as the program does."""
    if config.groups is None:
        return None
    if config.groups.values is not None and gold_path is None:
        return config.groups.values
    if gold_path is None or not os.path.exists(gold_path):
        raise SetupError(
            "the config groups items by %r but lists no groups.values, and the gold file %s "
            "is not there to read them from; give --gold FILE" % (config.groups.column, gold_path or "(none given)")
        )
    return read_given_gold(config, gold_path, config.source).group_values


def leaderboard_columns(config, group_values=None):
    """The Codabench columns (list of dicts) for every key ``config`` writes."""
    level = config.bootstrap.confidence_level
    return [
        {"title": c.title(level), "key": c.key, "index": i, "sorting": c.sorting, "precision": 4}
        for i, c in enumerate(written_columns(config, group_values))
    ]


def columns_yaml(columns):
    """The columns as the ``columns:`` block of a leaderboard, YAML text."""
    return yaml.safe_dump({"columns": columns}, sort_keys=False, allow_unicode=True, default_flow_style=False)


# ---------------------------------------------------------------------------
# init
# ---------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def _png(size=128):
    """A small logo: a PNG of interval bars, written with zlib (no imaging library)."""
    rows = []
    bars = [(0.20, 0.35, 0.80), (0.45, 0.25, 0.65), (0.70, 0.45, 0.90)]
    for y in range(size):
        row = bytearray([0])
        for x in range(size):
            colour = (255, 255, 255)
            for centre, low, high in bars:
                if abs(x / size - centre) < 0.06 and low <= 1 - y / size <= high:
                    colour = (31, 119, 180)
                if abs(x / size - centre) < 0.12 and abs(1 - y / size - (low + high) / 2) < 0.02:
                    colour = (214, 39, 40)
            row.extend(colour)
        rows.append(bytes(row))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
        + chunk(b"IEND", b"")
    )


def _copy(source, target):
    """Copy a gold or baseline file, or a folder of them (a task that reads folders: segmentation masks)."""
    if os.path.isdir(source):
        shutil.copytree(source, target)
    else:
        shutil.copy(source, target)


def _sample_entries(fmt, prediction_name):
    """``{name in the zip: bytes}`` of the sample submission: one file, or the files of a folder."""
    if fmt.sample_files:
        return dict(fmt.sample_files)
    return {prediction_name: fmt.sample.encode("utf-8")}


def _write(path, data):
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        os.makedirs(folder)
    mode = "wb" if isinstance(data, bytes) else "w"
    with io.open(path, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as handle:
        handle.write(data)


def _prediction_name(config, baseline, fmt):
    if config.files.predictions:
        return config.files.predictions
    if baseline:
        return os.path.splitext(fmt.file_name)[0] + os.path.splitext(baseline)[1]
    return fmt.file_name


def submission_format(config, gold):
    """The task type's :class:`~leaderboard_ci.tasks.protocol.SubmissionFormat` for this config and gold."""
    task = task_type(config.kind)
    if task.submission_format is None:
        raise SetupError("task type %s does not describe its submission format for init" % task.name)
    return task.submission_format(gold, config.files, config.metrics)


def _submission_format(config, gold, baseline):
    """``(format, prediction file name)``: the task's format, described for the name participants use.

    The name is ``files.predictions``, else the task's default with the
    baseline's extension; the task describes the file again under that name,
    so that a sample read as TSV (by its name or ``files.format``) is a TSV.
    """
    fmt = submission_format(config, gold)
    name = _prediction_name(config, baseline, fmt)
    if name != fmt.file_name:
        files = dataclasses.replace(config.files, predictions=name)
        fmt = submission_format(dataclasses.replace(config, files=files), gold)
    return fmt, name


def _check_sample(staging, config, gold, name, sample, source):
    """The program must read the sample init writes; a config it cannot serve stops init with one sentence."""
    folder = os.path.join(staging, "sample_check")
    path = os.path.join(folder, name)
    _write(path, sample)
    try:
        read_predictions(path, config, gold)
    except (SubmissionError, ConfigError) as exc:
        raise SetupError(
            "%s: the scoring program cannot read a submission in the format this config sets (files.format "
            "%s, the prediction file %s): %s" % (source, config.files.format, name, exc.message)
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _init_settings(data, gold, baseline, source):
    """What init adds to the organizer's config: ``baseline.file`` (``--baseline``), ``files.gold`` (``--gold``).

    ``files.gold`` is set to the given gold's name when the config leaves it at
    its default and the extensions differ (``gold.tsv`` would otherwise be read
    as ``gold.csv``, a CSV).  A ``baseline`` section without a file and without
    ``--baseline`` is refused here, in the organizer's terms.
    """
    added = {}
    current = data.get("baseline")
    if baseline is not None:
        name = current.get("name", "baseline") if isinstance(current, dict) else "baseline"
        added["baseline"] = {"file": os.path.basename(baseline), "name": name}
    elif isinstance(current, dict) and not current.get("file"):
        raise SetupError(
            "%s names a baseline (%s) without its file; give its predictions with --baseline FILE (init sets "
            "baseline.file), or remove the baseline section" % (source, current.get("name", "baseline"))
        )
    files = data.get("files") if isinstance(data.get("files"), dict) else {}
    default = FileSettings.__dataclass_fields__["gold"].default
    if not files.get("gold") and os.path.splitext(gold)[1].lower() != os.path.splitext(default)[1]:
        added["files"] = {"gold": os.path.basename(gold)}
    return added


def _config_text(config_path, original, data, source):
    """The config init writes: the organizer's text, with what init set appended (or the merged config)."""
    with io.open(config_path, encoding="utf-8-sig") as handle:
        text = handle.read()
    added = [key for key in data if data[key] != original.get(key)]
    if not added:
        return text
    flags = " and ".join(("--%s" % key if key == "baseline" else "--gold") for key in added)
    if any(key in original for key in added):
        # A second key would be read silently (the last one wins): write the merged config.
        return "# Written by leaderboard-ci init from %s, with %s.\n" % (source, flags) + yaml.safe_dump(
            data, sort_keys=False, allow_unicode=True
        )
    return (
        text.rstrip("\n")
        + "\n\n# Added by leaderboard-ci init (%s):\n" % flags
        + yaml.safe_dump(dict((key, data[key]) for key in added), sort_keys=False, allow_unicode=True)
    )


def _evaluation_page(config, rows, metrics, level, n_items, prediction_name, fmt, design, folder):
    """The Evaluation page: what to submit, the scores, the columns, what the intervals mean, the baseline."""
    return """# Evaluation

## What you submit

{what}
{description}
Any mistake in the {file} is reported in the submission's error log in one sentence naming it,
and the submission is not scored. The starting kit holds a sample submission in this format.

## The scores

{metrics}

## The leaderboard columns

| Column | Key | Sorted |
| --- | --- | --- |
{rows}

## What the intervals mean

The test set is a sample of {sample}. On another {another} from the same source, every submission
would score a little differently. The **{level} confidence interval** ("CI low" to "CI high") is the
range of scores your predictions could plausibly get on a test set like this one. Two submissions whose
difference is small compared with their intervals may differ by luck.

The intervals come from the **bootstrap**: {draw}; your
score is recomputed on that resample, and this is repeated B = {b} times from a fixed seed
({seed}), so every submission is scored on exactly the same resamples. The interval is read from those
B scores ({method} method).
{baseline}
The detailed results of each submission show the same numbers with a plain-language explanation.
""".format(
        what=(
            "A zip file of the files described below, at the top of the zip or inside one folder "
            "(`%s/` in the starting kit is an example)." % prediction_name
            if folder
            else "A zip file holding one file, `%s` (any name works when it is the only file in the zip)."
            % prediction_name
        ),
        file="files" if folder else "file",
        description=fmt.description,
        metrics=metrics,
        rows=rows,
        draw=_draw(config, n_items, fmt.units, design),
        sample=(
            "%d clusters of %s (%d %s, grouped by `%s`)"
            % (design.n_units, fmt.units, n_items, fmt.units, config.bootstrap.cluster)
            if design is not None and config.bootstrap.cluster
            else "%d %s" % (n_items, fmt.units)
        ),
        another=(
            "%d clusters" % design.n_units
            if design is not None and config.bootstrap.cluster
            else "%d %s" % (n_items, fmt.units)
        ),
        level=level,
        b=config.bootstrap.n_resamples,
        seed=config.bootstrap.seed,
        method=config.bootstrap.method,
        baseline=(
            "\n## The baseline\n\nEvery submission is compared with the baseline (%s) on the same "
            "resamples. The difference from it is oriented so that **positive means better than the "
            "baseline**, also for metrics where lower is better; its interval and a one-sided p-value (how "
            "often a difference this large would appear if you were no better than the baseline) are shown.\n"
            % config.baseline.name
        )
        if config.baseline is not None
        else "",
    )


def _pages(title, config, columns, n_items, prediction_name, fmt, design=None, folder=False):
    level = "%g%%" % (100 * config.bootstrap.confidence_level)
    rows = "\n".join(
        "| %s | `%s` | %s |" % (c["title"], c["key"], "higher first" if c["sorting"] == "desc" else "lower first")
        for c in columns
    )
    metrics = "\n".join(
        "* **%s** (`%s`, %s)%s" % (m.title, m.key, m.better, " — official: it ranks the leaderboard" if i == 0 else "")
        for i, m in enumerate(config.metrics)
    )
    overview = (
        "# %s\n\n%s The leaderboard shows every score with its %s bootstrap confidence interval, so you "
        "can see which differences between submissions are real and which are ties.\n\nSee the Data page "
        "for what you download, the Evaluation page for the scores and the Terms page for the rules.\n"
        % (title, fmt.goal.format(n=n_items), level)
    )
    evaluation = _evaluation_page(config, rows, metrics, level, n_items, prediction_name, fmt, design, folder)
    public = ", ".join("`%s`" % name for name, _ in fmt.public_files)
    data = (
        "# Data\n\n* **Public data** (`public_data.zip`): what you predict from%s.\n"
        "* **Starting kit** (`starting_kit.zip`): `%s`, a sample submission in the expected format (it "
        "scores, but poorly), and a README. Zip your own %s the same way:\n\n"
        "      %s\n\n"
        "The test set has %d %s; the answers stay private (only the scoring program sees them).\n"
        % (
            " (" + public + ")" if public else "",
            prediction_name + ("/" if folder else ""),
            "files" if folder else "file",
            _zip_command(prediction_name, folder),
            n_items,
            fmt.units,
        )
    )
    terms = (
        "# Terms and conditions\n\n* Submissions are scored automatically; scores, intervals and "
        "detailed results are shown on the leaderboard.\n* The organizers may publish the leaderboard "
        "and a summary of the results, including statistical comparisons between submissions.\n\n"
        "By registering, you accept these terms.\n"
    )
    return {"overview.md": overview, "evaluation.md": evaluation, "data.md": data, "terms.md": terms}


def _zip_command(prediction_name, folder):
    if folder:
        return "cd %s && zip -r ../submission.zip . && cd .." % prediction_name
    return "zip submission.zip %s" % prediction_name


def _draw(config, n_items, units, design):
    """How a resample is drawn (items, clusters of a column, within strata), for the Evaluation page."""
    bs = config.bootstrap
    return draw_in_words(
        n_items,
        units,
        cluster=bs.cluster,
        n_clusters=design.n_units if design is not None and bs.cluster else None,
        strata=bs.strata,
        n_strata=design.n_strata if design is not None and bs.strata else None,
    )


def _starting_kit(prediction_name, fmt, folder=False):
    """The starting kit: the sample prediction file (or folder of files) and a README saying how to submit it."""
    readme = (
        "# Starting kit\n\n`%s` is a sample submission in the format the scoring program reads (a constant "
        "or empty prediction: it scores, but poorly).\n\n## The format\n\n%s\n## Submitting\n\n"
        "Put your own predictions in %s of the same format and zip %s:\n\n"
        "    %s\n\nthen upload `submission.zip` on the My Submissions page. A mistake in the "
        "%s is reported in the error log in one sentence naming it.\n"
        % (
            prediction_name + ("/" if folder else ""),
            fmt.description,
            "files" if folder else "a file",
            "them" if folder else "it alone",
            _zip_command(prediction_name, folder),
            "files" if folder else "file",
        )
    )
    if folder:
        files = dict((prediction_name + "/" + name, data) for name, data in fmt.sample_files)
        files["README.md"] = readme
        return files
    return {"README.md": readme, prediction_name: fmt.sample}


def _public_data(fmt, n_items):
    readme = "# Public data\n\nThe test set has %d %s.%s\n" % (
        n_items,
        fmt.units,
        ("\n\n" + "\n".join("* `%s`" % name for name, _ in fmt.public_files)) if fmt.public_files else "",
    )
    files = {"README.md": readme}
    files.update(dict(fmt.public_files))
    return files


def _competition_yaml(title, columns, config, n_items, name, units="test items"):
    start = datetime.date.today().strftime("%Y-%m-%d 00:00:00")
    competition = {
        "version": 2,
        "title": title,
        "description": "Scores with %g%% bootstrap confidence intervals (leaderboard-ci)."
        % (100 * config.bootstrap.confidence_level),
        "image": "logo.png",
        "terms": "pages/terms.md",
        "docker_image": "codalab/codalab-legacy:py37",
        "registration_auto_approve": True,
        "enable_detailed_results": True,
        "show_detailed_results_in_submission_panel": True,
        "show_detailed_results_in_leaderboard": True,
        "pages": [
            {"title": "Overview", "file": "pages/overview.md"},
            {"title": "Evaluation", "file": "pages/evaluation.md"},
            {"title": "Data", "file": "pages/data.md"},
            {"title": "Terms", "file": "pages/terms.md"},
        ],
        "tasks": [
            {
                "index": 0,
                "name": title[:100],
                "description": "Predict each of the %d %s." % (n_items, units),
                "scoring_program": "scoring_program.zip",
                "reference_data": "reference_data.zip",
            }
        ],
        "phases": [
            {
                "index": 0,
                "name": "Evaluation",
                "description": "Submit your predictions, zipped.",
                "start": start,
                "execution_time_limit": 600,
                "max_submissions_per_day": 5,
                "max_submissions": 100,
                "tasks": [0],
                "starting_kit": "starting_kit.zip",
                "public_data": "public_data.zip",
            }
        ],
        "leaderboards": [
            {"title": "Results", "key": "main", "submission_rule": "Force_Last", "primary_index": 0, "columns": columns}
        ],
    }
    head = (
        "# Codabench v2 competition bundle, written by leaderboard-ci init.\n"
        "# Build and check the uploadable zip with:  leaderboard-ci bundle %s\n"
        "# The leaderboard columns are the keys the scoring program writes for reference_data/config.yaml;\n"
        "# after changing the config, print them again with:  leaderboard-ci columns reference_data/config.yaml\n"
        % name
    )
    return head + yaml.safe_dump(competition, sort_keys=False, allow_unicode=True, default_flow_style=False)


#: The platforms ``init`` writes a competition for: Codabench (competition.yaml v2) and legacy CodaLab (v1.5).
PLATFORMS = ("codabench", "codalab")


def init_competition(
    folder, gold, config_path, baseline=None, title=None, platform="codabench", data_files=(), notes=None
):
    """Write a complete competition folder; returns the list of files written (relative paths).

    Parameters
    ----------
    folder : str
        The new folder (absent or empty).
    gold : str
        The gold file; copied into ``reference_data/`` under the config's ``files.gold``.
    config_path : str
        The organizer's ``config.yaml`` (complete on its own: it becomes the scoring
        program's ``config.yaml`` and ``reference_data/config.yaml``).
    baseline : str, optional
        A prediction file; copied into ``reference_data/`` and set as ``baseline.file``.
    title : str, optional
        The competition's title (default: from the folder's name).
    platform : {"codabench", "codalab"}
        Codabench's competition.yaml v2 with Markdown pages, or legacy CodaLab's v1.5 with HTML pages
        and the leaderboard read from ``scores.txt``.
    data_files : sequence of str
        More files of the reference data, copied under their own names: what the config names besides
        the gold (a forecasting history or per-series file, a ``bootstrap.design_file``).
    notes : list, optional
        Receives init's notes to the organizer about the gold (sentences, :mod:`.init_notes`),
        which the README holds too.
    """
    config_text, config, source = _checked_config(folder, gold, config_path, baseline, platform, data_files)
    name = os.path.basename(os.path.abspath(folder))
    title = title or name.replace("_", " ").replace("-", " ").strip().title()
    staging = tempfile.mkdtemp(prefix="leaderboard-ci-init-")
    try:
        gold_data = _stage_reference(staging, config, config_text, gold, baseline, data_files)
        found = init_notes(config, gold_data)
        if notes is not None:
            notes.extend(found)
        _stage_competition(staging, title, name, config, source, gold_data, baseline, platform, found)
        return _publish(staging, folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _checked_config(folder, gold, config_path, baseline, platform, data_files):
    """``(config.yaml text, Config, the config's file name)`` of ``init``'s arguments, after checking every file."""
    for path in data_files:
        if not os.path.isfile(path):
            raise SetupError("the reference data file %s (--data) does not exist" % path)
    if platform not in PLATFORMS:
        raise SetupError("--platform must be one of %s, got %r" % (", ".join(PLATFORMS), platform))
    if os.path.isfile(folder) or (os.path.isdir(folder) and os.listdir(folder)):
        raise SetupError("%s already exists and is not empty; init writes a new competition folder" % folder)
    if not os.path.exists(gold):
        raise SetupError("the gold file %s does not exist" % gold)
    if baseline is not None and not os.path.exists(baseline):
        raise SetupError("the baseline file %s does not exist" % baseline)
    if not os.path.isfile(config_path):
        raise SetupError("the config file %s does not exist" % config_path)
    try:
        data = read_config(config_path)
    except ConfigError as exc:
        raise SetupError(exc.message)
    original = dict(data)
    source = os.path.basename(config_path)
    data = merge_configs(data, _init_settings(data, gold, baseline, source))
    try:
        config = parse_config(data, source=source, program_dir=os.path.dirname(os.path.abspath(config_path)))
    except ConfigError as exc:
        raise SetupError(exc.message)
    if config.baseline is not None and baseline is None:
        raise SetupError(
            "%s names a baseline file (%s) but no --baseline FILE was given" % (source, config.baseline.file)
        )
    if any(m.custom_path for m in config.metrics):
        raise SetupError(
            "%s uses a custom metric; init copies only the built-in program, so add the metric's "
            "file to scoring_program/ by hand after init with a config without it" % source
        )
    check_gold_name(config, gold, source)
    return _config_text(config_path, original, data, source), config, source


def _stage_reference(staging, config, config_text, gold, baseline, data_files):
    """``reference_data/`` and ``scoring_program/`` in ``staging``; returns the gold as the program reads it."""
    ref = os.path.join(staging, "reference_data")
    os.makedirs(ref)
    _copy(gold, os.path.join(ref, config.files.gold))
    for path in data_files:
        _copy(path, os.path.join(ref, os.path.basename(path)))
    if baseline is not None:
        _copy(baseline, os.path.join(ref, config.baseline.file))
    _write(os.path.join(ref, CONFIG_NAME), config_text)
    gold_data = _check_reference(ref, config, gold, baseline)
    for name, data_bytes in program_entries(PROGRAM_DIR).items():
        if name != CONFIG_NAME:
            _write(os.path.join(staging, "scoring_program", *name.split("/")), data_bytes)
    _write(os.path.join(staging, "scoring_program", CONFIG_NAME), config_text)
    return gold_data


def _stage_competition(staging, title, name, config, source, gold_data, baseline, platform, notes=()):
    """competition.yaml, the pages, the starting kit, the public data, sample submissions, logo and README."""
    columns = leaderboard_columns(config, gold_data.group_values)
    fmt, prediction_name = _submission_format(config, gold_data, baseline)
    folder_task = bool(fmt.sample_files)  # the task reads a folder of files
    writer = legacy_competition_yaml if platform == "codalab" else _competition_yaml
    _write(os.path.join(staging, "competition.yaml"), writer(title, columns, config, gold_data.n, name, fmt.units))
    if not folder_task:  # a folder's sample files are checked by the bundle check's run
        _check_sample(staging, config, gold_data, prediction_name, fmt.sample, source)
    pages = _pages(title, config, columns, gold_data.n, prediction_name, fmt, gold_data.resampling(), folder_task)
    for page, text in pages.items():
        if platform == "codalab":  # CodaLab shows the page files as HTML
            page, text = page[:-3] + ".html", markdown_to_html(text)
        _write(os.path.join(staging, "pages", page), text)
    for path, text in _starting_kit(prediction_name, fmt, folder_task).items():
        _write(os.path.join(staging, "starting_kit", path), text)
    for path, text in _public_data(fmt, gold_data.n).items():
        _write(os.path.join(staging, "public_data", path), text)
    # A file the program accepts, so that the bundle check has a submission to score without --baseline.
    write_zip(os.path.join(staging, "sample_submissions", "format_example.zip"), _sample_entries(fmt, prediction_name))
    _write(os.path.join(staging, "logo.png"), _png())
    if baseline is not None:
        write_zip(
            os.path.join(staging, "sample_submissions", "baseline.zip"), _baseline_entries(baseline, prediction_name)
        )
    readme = _readme(title, name, baseline is not None, platform) + readme_notes(notes)
    # What this test set can detect (leaderboard-ci plan), appended to the README.
    readme += readme_plan_section(config, gold_data, name, prediction_name)
    _write(os.path.join(staging, "README.md"), readme)


def _publish(staging, folder):
    """Copy the staged competition into ``folder``; returns the files written (sorted relative paths)."""
    if not os.path.isdir(folder):
        os.makedirs(folder)
    written = []
    for root, _, files in os.walk(staging):
        for name in files:
            rel = os.path.relpath(os.path.join(root, name), staging)
            target = os.path.join(folder, rel)
            if not os.path.isdir(os.path.dirname(target)):
                os.makedirs(os.path.dirname(target))
            shutil.copy2(os.path.join(root, name), target)
            written.append(rel.replace(os.sep, "/"))
    return sorted(written)


def _baseline_entries(baseline, prediction_name):
    """``{name in the zip: bytes}`` of the baseline as a submission: the file, or a folder's files."""
    if not os.path.isdir(baseline):
        with open(baseline, "rb") as handle:
            return {prediction_name: handle.read()}
    entries = {}
    for root, _, files in os.walk(baseline):
        for name in files:
            path = os.path.join(root, name)
            with open(path, "rb") as handle:
                entries[os.path.relpath(path, baseline).replace(os.sep, "/")] = handle.read()
    return entries


def _check_reference(ref, config, gold, baseline):
    """Read the gold (and baseline) as the program will: a mistake stops init with one sentence naming the file."""
    try:
        data = read_gold(ref, config)
        if config.baseline is not None:
            read_baseline(ref, config, data)
    except ConfigError as exc:
        raise SetupError(as_given(exc.message, config, gold, baseline))
    return data


def _readme(title, name, has_baseline, platform="codabench"):
    return """# {title}

Written by `leaderboard-ci init`. What is here:

* `competition.yaml`: the {platform} bundle description; its leaderboard columns are the keys the
  scoring program writes for `reference_data/config.yaml`{scores_file}.
* `reference_data/`: the gold file and `config.yaml` (private: only the scoring program sees them).
* `scoring_program/`: the drop-in scoring program, with the same `config.yaml`.
* `pages/`, `logo.png`: what participants read (the Data page describes the downloads).
* `public_data/`: what participants download to predict from. It holds the test ids (or query ids),
  and the inputs a gold file carries without its answers (a SQuAD gold's contexts and questions, as
  `test.json`): **add the other test inputs** (texts, features, the document collection) before you bundle.
* `starting_kit/`: a sample prediction file in the format the program reads, and a README.
* `sample_submissions/`: submissions the bundle check scores ({samples}); add your own zips.

Next steps:

    leaderboard-ci bundle {name}                 # build {name}_bundle.zip and check it (0 problems)
    leaderboard-ci score SUBMISSION.zip --competition-dir {name}
    leaderboard-ci columns {name}/reference_data/config.yaml   # after changing the config

Edit `reference_data/config.yaml` and `scoring_program/config.yaml` together (they are the same file).
""".format(
        title=title,
        name=name,
        samples="the format example" + (" and the baseline" if has_baseline else ""),
        platform="legacy CodaLab (v1.5)" if platform == "codalab" else "Codabench v2",
        scores_file=" (to `scores.txt`, which CodaLab reads)" if platform == "codalab" else "",
    )
