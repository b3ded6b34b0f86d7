"""Every YAML snippet of the documentation and the README reads as its reader intends when copied.

The class of bug (issue 37): ``labels: [NO, DIRECT, ...]`` and ``hierarchy: {DIRECT: YES}`` in a page read as
booleans (YAML 1.1, which PyYAML implements, takes ``yes``/``no``/``on``/``off``/``y``/``n`` in any case as
``true``/``false``), so the copied config is refused.  Every fenced ``yaml`` block of ``docs/`` and
``README.md``, and every inline flow mapping or list (``{...: ...}``, ``[...]``) in their text, is scanned:

* it parses (a block; an inline fragment that is not YAML is prose and skipped);
* no plain (unquoted) scalar is one of YAML 1.1's boolean words other than ``true``/``false``: such a
  word is meant as a string (a label) and must be quoted;
* a block that is a scoring configuration (a mapping with ``metric``) is a valid configuration as the
  program parses it (``parse_config``; a baseline without ``file`` gets one, as ``init --baseline`` gives it).

Whether copied task-page configs run with the stock program is another test's job (issue 31); this one is
about how the YAML itself is read.  The same checks run on the text of the schema's and the task types'
settings documentation (the source of docs/configuration.md and of messages).
"""

import glob
import io
import os
import re

import pytest
import yaml

from leaderboard_ci.scoring.config import parse_config

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True)) + [os.path.join(ROOT, "README.md")]
#: The boolean words besides true/false that PyYAML (the program's reader) resolves, in any case; YAML 1.1's
#: y and n are not among them (yaml.safe_load("[y, n]") gives two strings).
BOOLEAN_WORDS = {"yes", "no", "on", "off"}
_BLOCK = re.compile(r"^```ya?ml[^\n]*\n(.*?)^```", re.S | re.M)
_FLOW = re.compile(r"[\{\[][^{}\[\]\n]*[:,][^{}\[\]\n]*[\}\]]")


def _read(path):
    with io.open(path, encoding="utf-8") as handle:
        return handle.read()


def _where(path, text, start):
    return "%s line %d" % (os.path.relpath(path, ROOT), text.count("\n", 0, start) + 1)


def blocks():
    """``(where, text)`` of every fenced yaml block."""
    out = []
    for path in PAGES:
        text = _read(path)
        out += [(_where(path, text, m.start()), m.group(1)) for m in _BLOCK.finditer(text)]
    return out


def boolean_words(text):
    """The plain scalars of ``text`` that YAML 1.1 reads as booleans but are not written true/false."""
    return [
        token.value
        for token in yaml.scan(text, Loader=yaml.SafeLoader)
        if isinstance(token, yaml.ScalarToken) and token.plain and token.value.lower() in BOOLEAN_WORDS
    ]


BLOCKS = blocks()


def test_the_docs_have_yaml_blocks():
    assert len(BLOCKS) >= 15  # 20 when written; none may be dropped by a change of the pattern


@pytest.mark.parametrize("where, text", BLOCKS, ids=[w for w, _ in BLOCKS])
def test_a_yaml_block_parses_and_quotes_its_boolean_words(where, text):
    documents = list(yaml.safe_load_all(text))
    found = boolean_words(text)
    assert not found, "%s: quote %s (YAML reads them as true/false)" % (where, ", ".join(sorted(set(found))))
    data = documents[0] if len(documents) == 1 else None
    if isinstance(data, dict) and "metric" in data:
        if isinstance(data.get("baseline"), dict) and not data["baseline"].get("file"):
            data["baseline"] = dict(data["baseline"], file="baseline.csv")  # as init --baseline sets it
        parse_config(data, source=where)


def _fragments(text):
    for match in _FLOW.finditer(text):
        try:
            found = boolean_words(match.group(0))
        except yaml.YAMLError:
            continue  # prose in brackets, not YAML
        yield match, found


def test_inline_yaml_quotes_its_boolean_words():
    problems = []
    for path in PAGES:
        text = _read(path)
        for match, found in _fragments(text):
            if found:
                problems.append("%s: %s" % (_where(path, text, match.start()), match.group(0)))
    assert not problems, "quote YAML's boolean words (yes, no, on, off) used as labels:\n" + "\n".join(problems)


def test_the_settings_documentation_quotes_its_boolean_words():
    """docs/configuration.md is generated from these, and messages quote the same examples."""
    from leaderboard_ci.tasks.shared.icm import parse_hierarchy
    from leaderboard_ci.tools.config_reference import reference

    texts = reference().split("\n")  # every task's settings, as docs/configuration.md writes them
    texts += [parse_hierarchy.__defaults__[0]]
    problems = [t for t in texts for m, found in _fragments(t) if found]
    assert not problems, problems


def test_the_scan_finds_the_reported_snippets():
    """The checks can fail: the issue's snippets, unquoted, are caught; quoted, they pass."""
    bad = "labels: [NO, DIRECT, REPORTED, JUDGEMENTAL]\nhierarchy: {DIRECT: YES, REPORTED: YES}\n"
    assert sorted(boolean_words(bad)) == ["NO", "YES", "YES"]
    good = 'labels: ["NO", DIRECT]\nhierarchy: {DIRECT: "YES"}\nflag: true\n'
    assert boolean_words(good) == []
    assert [found for _, found in _fragments("e.g. {DIRECT: YES} and [a, b]")] == [["YES"], []]
