"""The end-of-phase example analyses the sample's majority-class baseline as one system (issue 37).

The sample competition submits its baseline too (``majority_class.zip`` holds the
configured ``baseline.csv`` byte for byte).  The documented command names that run with
``--baseline``, so the report has nine systems, not the nine submissions plus a second
copy of the baseline called ``majority class``.
"""

import os
import re
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUNDLE = os.path.join(ROOT, "competition_bundle")
PAGES = ("README.md", os.path.join("docs", "getting-started.md"))


def _end_of_phase_commands(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
        text = handle.read().replace("\\\n", " ")
    command = re.compile(r"\s*leaderboard-ci-end-of-phase .*sample_submissions")
    return [line for line in text.splitlines() if command.match(line)]


def test_the_submitted_baseline_is_the_configured_baseline_file():
    with open(os.path.join(BUNDLE, "reference_data", "baseline.csv"), "rb") as handle:
        baseline = handle.read()
    with zipfile.ZipFile(os.path.join(BUNDLE, "sample_submissions", "majority_class.zip")) as archive:
        submitted = [archive.read(info) for info in archive.infolist() if not info.is_dir()]
    assert submitted == [baseline]


def test_documented_end_of_phase_commands_count_the_baseline_once():
    for page in PAGES:
        commands = _end_of_phase_commands(page)
        assert commands, "%s shows no end-of-phase command on the sample submissions" % page
        for command in commands:
            assert "--baseline majority_class" in command, (page, command)
