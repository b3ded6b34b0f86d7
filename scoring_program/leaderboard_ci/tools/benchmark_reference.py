"""The ``benchmark.yaml`` reference section of ``docs/tasks/benchmarks.md``, generated from its schema.

Every key of ``benchmark.yaml`` (top level, ``tasks:`` entries, ``aggregate:``
and ``critical_difference:``) with its type, default and description comes from
the dataclasses of :mod:`leaderboard_ci.phase.benchmark.definition`
(:func:`leaderboard_ci.scoring.schema.schema_rows`), as
:mod:`.config_reference` writes ``docs/configuration.md``.  The section sits
between two markers of the page and is never edited by hand:
``tests/test_benchmark_definition.py`` fails when it differs from what this module writes.

Usage::

    python3 -m leaderboard_ci.tools.benchmark_reference            # print the section
    python3 -m leaderboard_ci.tools.benchmark_reference --write docs/tasks/benchmarks.md
"""

from __future__ import annotations

import argparse
import io
import sys

from ..console import entry_point
from ..phase.benchmark.definition import (
    AggregateSettings,
    BenchmarkSettings,
    BenchmarkTaskSettings,
    CriticalDifferenceSettings,
)
from ..scoring.schema import schema_rows
from .config_reference import _cell, _code, _summary, _table

__all__ = ["section", "replace_section", "main", "COMMAND", "BEGIN", "END"]

#: The command that regenerates the section (from the repository's root).
COMMAND = (
    "PYTHONPATH=scoring_program python3 -m leaderboard_ci.tools.benchmark_reference --write docs/tasks/benchmarks.md"
)
BEGIN = "<!-- benchmark.yaml reference: generated from the schema by %s; do not edit -->" % COMMAND
END = "<!-- end of the generated benchmark.yaml reference -->"
_PARTS = (
    ("", BenchmarkSettings),
    ("tasks[i].", BenchmarkTaskSettings),
    ("aggregate.", AggregateSettings),
    ("critical_difference.", CriticalDifferenceSettings),
)


def _rows(prefix, cls):
    rows = []
    for key, kind, default, literal, doc, sub in schema_rows(cls):
        if sub is not None:
            kind, doc = "section", "%s See `%s.*` below." % (_summary(sub), key)
        rows.append((_code(prefix + key), _cell(kind), _code(default) if literal else _cell(default), _cell(doc)))
    return rows


def section():
    """The reference section (Markdown), from :data:`BEGIN` to :data:`END`."""
    lines = [
        BEGIN,
        "",
        "### `benchmark.yaml` keys",
        "",
        "Read through the configuration schema, as `config.yaml` is: an unknown key (with a close match), a "
        "value of the wrong type or range, a task without submissions or listed twice is one sentence naming "
        "`benchmark.yaml` and the key; a YAML mistake names its line. Paths are relative to the file.",
        "",
    ]
    rows = [row for prefix, cls in _PARTS for row in _rows(prefix, cls)]
    lines += _table(("key", "type", "default", "description"), rows)
    return "\n".join(lines + ["", END])


def replace_section(text):
    """``text`` (the page) with its generated section replaced by :func:`section`."""
    if BEGIN.split(":")[0] not in text or END not in text:
        raise ValueError("the page has no generated benchmark.yaml section (markers %r ... %r)" % (BEGIN, END))
    head = text[: text.index(BEGIN.split(":")[0])]
    tail = text[text.index(END) + len(END) :]
    return head + section() + tail


@entry_point
def main(argv=None):
    """Print the section, or rewrite it in the page given to ``--write``; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="python3 -m leaderboard_ci.tools.benchmark_reference",
        description="Write the benchmark.yaml reference section (Markdown).",
    )
    parser.add_argument("--write", help="the page whose generated section to rewrite")
    args = parser.parse_args(argv)
    if not args.write:
        sys.stdout.write(section() + "\n")
        return 0
    with io.open(args.write, encoding="utf-8") as handle:
        text = handle.read()
    with io.open(args.write, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(replace_section(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
