"""No merge-conflict markers in any tracked text file (docs/validity.md carried one from a merge for weeks:
mkdocs renders it as text, and no other test reads that page)."""

import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKER = re.compile(r"^(<{7}|>{7})( |$)|^={7}$", re.MULTILINE)
TEXT = (".py", ".md", ".yaml", ".yml", ".cfg", ".toml", ".txt", ".html", ".css", ".js", ".tex", ".sh", ".json")


def _tracked():
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [name for name in out.splitlines() if name.endswith(TEXT) or "/" not in name and "." not in name]


def test_no_tracked_text_file_holds_a_conflict_marker():
    found = []
    for name in _tracked():
        path = os.path.join(ROOT, name)
        if not os.path.isfile(path) or os.path.getsize(path) > 5 * 10**6:
            continue
        with open(path, encoding="utf-8", errors="replace") as handle:
            for match in MARKER.finditer(handle.read()):
                found.append("%s: %r" % (name, match.group(0)))
    assert found == []
