"""The configuration reference page, generated from the schema: ``docs/configuration.md``.

Every key of ``config.yaml`` (top level and sections) with its type, default and
description comes from the dataclasses of :mod:`leaderboard_ci.scoring.config`
(:func:`leaderboard_ci.scoring.schema.schema_rows`); the metric entries' keys and
options from :mod:`leaderboard_ci.scoring.metric_config`; each task type's metrics,
options and own settings from the task registry.  The page is never edited by hand:
``tests/test_config_reference.py`` fails when it differs from what this module writes.

Usage::

    python3 -m leaderboard_ci.tools.config_reference > docs/configuration.md
    python3 -m leaderboard_ci.tools.config_reference --output docs/configuration.md
"""

from __future__ import annotations

import argparse
import html
import io
import sys

from ..console import entry_point
from ..scoring.config import CONFIG_NAME, Config, option_names, sections
from ..scoring.metric_config import ENTRY_KEYS, OPTION_DOCS
from ..scoring.schema import schema_rows
from ..tasks.registry import TASKS

__all__ = ["reference", "main", "COMMAND"]

#: The command that regenerates the page (from the repository's root).
COMMAND = "PYTHONPATH=scoring_program python3 -m leaderboard_ci.tools.config_reference --output docs/configuration.md"


def _cell(text):
    """Text for a Markdown table cell: pipes escaped, one line."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _code(text):
    """Text as code in a table cell; a pipe as an HTML entity in HTML code (Python-Markdown and GitHub alike)."""
    if text in ("", None):
        return ""
    text = str(text).replace("\n", " ")
    if "|" in text:
        return "<code>%s</code>" % html.escape(text).replace("|", "&#124;")
    return "`%s`" % text


def _table(header, rows):
    lines = ["| %s |" % " | ".join(header), "|" + "---|" * len(header)]
    lines += ["| %s |" % " | ".join(row) for row in rows]
    return lines


def _value(value):
    """A default value as YAML writes it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _summary(function):
    """The first paragraph of a docstring, on one line."""
    doc = (getattr(function, "__doc__", None) or "").strip()
    return " ".join(doc.split("\n\n")[0].split()).replace("``", "`")


def _top_level():
    lines = [
        "## Top-level keys",
        "",
        "Each section is a mapping of its own keys, described below; `groups` and `baseline` also take a "
        "single value (the column, the file).",
        "",
    ]
    rows = []
    for key, kind, default, literal, doc, section in schema_rows(Config):
        if section is not None:
            kind, doc = "section", "%s See [`%s`](#%s)." % (_summary(section), key, key)
        rows.append((_code(key), _cell(kind), _code(default) if literal else _cell(default), _cell(doc)))
    return lines + _table(("key", "type", "default", "description"), rows) + [""]


#: Pages of the site (``docs/``) that explain a section further, linked under its table.
SEE_ALSO = {
    "analysis": "[End of phase](end-of-phase.md), its [correction families](end-of-phase.md#correction-families) "
    "and [one side or two](method.md#one-side-or-two).",
    "outputs": "[The scores the program writes](organizer-guide.md#the-scores-the-program-writes).",
}
#: Each task type's page of the site, relative to this page.
TASK_PAGE = "tasks/%s.md"


def _section(name, cls):
    lines = ["## `%s`" % name, "", _summary(cls), ""]
    rows = [
        (_code("%s.%s" % (name, key)), _cell(kind), _code(default) if literal else _cell(default), _cell(doc))
        for key, kind, default, literal, doc, _ in schema_rows(cls)
    ]
    lines += _table(("key", "type", "default", "description"), rows) + [""]
    return lines + (["See also: %s" % SEE_ALSO[name], ""] if name in SEE_ALSO else [])


def _metric_entries():
    lines = [
        "## Metric entries",
        "",
        "`metric` and each entry of `extra_metrics` is a metric name (`metric: f1_macro`) or a mapping of "
        "these keys and the options its task type takes:",
        "",
    ]
    lines += _table(("key", "description"), [(_code(key), _cell(doc)) for key, doc in ENTRY_KEYS])
    options = []
    for module in TASKS.values():
        for option in module.metrics.options:
            if option not in options:
                options.append(option)
    lines += [
        "",
        "### Metric options",
        "",
        "An option not listed for a metric's task type is an error naming the options it takes.",
        "",
    ]
    rows = []
    for option in options:
        tasks = [m for m in TASKS.values() if option in m.metrics.options]
        own = [m.metrics.option_docs[option] for m in tasks if m.metrics.option_docs.get(option)]
        doc = own[0] if own else OPTION_DOCS.get(option, "")
        rows.append((_code(option), ", ".join(_code(m.name) for m in tasks), _cell(doc)))
    return lines + _table(("option", "task types", "description"), rows) + [""]


def _task(module):
    name = module.name
    described = sys.modules[TASKS.module_name(name)]  # its docstring opens with what the task scores
    lines = ["### `%s`" % name, "", "%s Its page: [%s](%s)." % (_summary(described), name, TASK_PAGE % name), ""]
    metrics = [
        (_code(metric), _cell(info.title), _cell(info.direction), _code(_value(info.best)))
        for metric, info in sorted((n, m.info) for n, m in module.metrics.items())
    ]
    lines += _table(("metric", "title", "better", "best"), metrics)
    names = ", ".join(_code(n) for n in module.metrics.known_names())
    lines += ["", "Names: %s." % names]
    aliases = dict((alias, _code(name)) for alias, name in module.metrics.aliases.items())
    aliases.update(
        (spelling, _code("{%s}" % ", ".join(["name: %s" % name] + ["%s: %s" % o for o in sorted(options.items())])))
        for spelling, (name, options) in module.metrics.shorthands.items()
    )
    if aliases:
        lines += ["", "Aliases: %s." % ", ".join("%s = %s" % (_code(a), aliases[a]) for a in sorted(aliases))]
    options = module.metrics.options
    lines += ["", "Metric options: %s." % (", ".join(_code(o) for o in options) if options else "none")]
    settings = module.Settings.keys()
    if settings:
        defaults = module.Settings.defaults()
        docs = module.Settings.docs()
        lines += ["", "Top-level keys of this task type:", ""]
        if any(docs.values()):
            lines += _table(
                ("key", "default", "description"),
                [(_code(key), _code(_value(defaults.get(key))), _cell(docs.get(key, ""))) for key in settings],
            )
        else:
            lines += _table(("key", "default"), [(_code(key), _code(_value(defaults.get(key)))) for key in settings])
    return lines + [""]


def _options():
    owners = dict((key, module.name) for module in TASKS.values() for key in module.Settings.keys())
    rows = [
        (
            _code(name),
            _code(section) if section else "task type %s" % _code(owners[name]) if name in owners else "top level",
        )
        for name, section in option_names().items()
    ]
    return (
        [
            "## Python API options",
            "",
            "`analyze()` and `config_from_options()` take these keys as keyword arguments, each validated as in "
            '`%s` (`analyze(gold, systems, metric="f1_macro", n_resamples=2000, alpha=0.01)`):' % CONFIG_NAME,
            "",
        ]
        + _table(("option", "section"), rows)
        + [""]
    )


def reference():
    """The whole page, Markdown for MkDocs (Material), as a string."""
    lines = [
        "# Configuration reference",
        "",
        "<!-- Generated from the configuration schema by `python3 -m leaderboard_ci.tools.config_reference`; "
        "do not edit: edit the dataclasses in scoring_program/leaderboard_ci/scoring/config.py and regenerate "
        "with: %s -->" % COMMAND,
        "",
        "The scoring program reads `scoring_program/%s`; an optional `reference_data/%s` is merged over it key "
        "by key, so one program can serve several tasks. Every mistake stops the program with one sentence that "
        "names the file, the key and the allowed values." % (CONFIG_NAME, CONFIG_NAME),
        "",
    ]
    lines += _top_level()
    for name, cls in sections().items():
        lines += _section(name, cls)
    lines += _metric_entries()
    lines += [
        "## Task types",
        "",
        "`task:` names one of these; without it the official metric's name decides. A task type's own "
        "settings are top-level keys of `%s`." % CONFIG_NAME,
        "",
    ]
    for module in TASKS.values():
        lines += _task(module)
    lines += _options()
    return "\n".join(lines).rstrip("\n") + "\n"


@entry_point
def main(argv=None):
    """Print the page, or write it to ``--output``; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="python3 -m leaderboard_ci.tools.config_reference",
        description="Write the configuration reference page (Markdown).",
    )
    parser.add_argument("--output", "-o", help="write here instead of standard output")
    args = parser.parse_args(argv)
    text = reference()
    if args.output:
        with io.open(args.output, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
