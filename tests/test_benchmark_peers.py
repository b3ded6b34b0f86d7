"""The peer-ratio inventory (``benchmarks/peers.py``) names scripts, pages and README rows that exist.

Nothing is timed here: the test only keeps the list a reader reruns from going stale.
"""

import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCHMARKS = os.path.join(ROOT, "benchmarks")


@pytest.fixture(scope="module")
def peers():
    sys.path.insert(0, BENCHMARKS)
    try:
        import peers as module
    finally:
        sys.path.remove(BENCHMARKS)
    return module


def test_every_claim_runs_a_script_that_exists(peers):
    names = [claim.name for claim in peers.CLAIMS]
    assert len(names) == len(set(names))
    for claim in peers.CLAIMS:
        script = next(part for part in claim.command if part.endswith(".py"))
        assert os.path.isfile(os.path.join(ROOT, script)), claim.name


def test_every_claim_names_a_page_that_exists_and_the_readme_lists_it(peers):
    with open(os.path.join(BENCHMARKS, "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    for claim in peers.CLAIMS:
        page = claim.page.split(" ")[0].rstrip(",")
        assert os.path.isfile(os.path.join(ROOT, page)), claim.name
        assert "`%s`: `" % claim.name in readme, claim.name


def test_an_unknown_claim_is_refused(peers, capsys):
    with pytest.raises(SystemExit):
        peers.main(["no-such-claim"])
    assert "unknown claim no-such-claim" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# Every peer ratio the docs quote has a row in the inventory (benchmarks/README.md, *Peer ratios*)
# ---------------------------------------------------------------------------
PEER_NAMES = (
    "scipy",
    "scikit-learn",
    "compstats",
    "bootci",
    "sacrebleu",
    "pycocotools",
    "faster-coco-eval",
    "utilsforecast",
    "ranx",
    "seqeval",
    "squad",
    "fastchat",
    "pyevall",
    "confidenceinterval",
)
_NUMBER = r"\d[\d,]*(?:\.\d+)?"
# "455x", "2.4×", "5-31x", "2.5 x 10^4"; a space before the x only in the "a x 10^k" form ("64 x 128" is a size)
RATIO = re.compile(
    r"(?<![\w.^,])(%s)(?:\s?[-–]\s?(%s))?(?:\s[x×]\s10\^(\d+)(?!\d)(?!\s?s\b)|[x×](?!\s?\d))(?!\w)" % (_NUMBER, _NUMBER)
)
# Ratios in a unit that names a peer but are not peer ratios: (page, figure) -> why
NOT_PEER_RATIOS = {
    ("docs/performance.md", 100.0): "the target (at least 100x faster than CompStats), not a measurement",
    ("docs/performance.md", 7.4): "our previous ROC-AUC path against this one",
    ("docs/performance.md", 3.0): "the calibration workload against a quiet machine",
    ("docs/performance.md", 1.8): "ROC-AUC against our macro-F1 (the ratio column of the same table)",
    ("docs/performance.md", 2.8): "ROC-AUC against our macro-F1 (the ratio column of the same table)",
}


def _units(text):
    """Sentences of paragraphs, and table rows each with its header (where a table names its peers)."""
    header, paragraph = None, []
    for line in text.splitlines() + [""]:
        stripped = line.strip()
        if stripped.startswith("|"):
            yield from _sentences(paragraph)
            paragraph = []
            if header is None:
                header = stripped
            elif not re.match(r"^\|[\s|:-]+\|$", stripped):
                yield header + " " + stripped
            continue
        header = None
        if stripped:
            paragraph.append(stripped)
        else:
            yield from _sentences(paragraph)
            paragraph = []


def _sentences(lines):
    return re.split(r"(?<=[.;])\s+(?=[A-Z*(\[`])", " ".join(lines)) if lines else []


def _figures(text):
    """The ratio figures of ``text``: (low, high) pairs, low == high for a single figure."""
    out = []
    for low, high, power in RATIO.findall(text):
        scale = 10.0 ** int(power) if power else 1.0
        a = float(low.replace(",", "")) * scale
        b = float(high.replace(",", "")) * scale if high else a
        out.append((a, b))
    return out


def _peer_claims():
    pages = [os.path.join("docs", p) for p in _markdown_pages()] + ["README.md"]
    for page in pages:
        with open(os.path.join(ROOT, page), encoding="utf-8") as handle:
            text = handle.read()
        for unit in _units(text):
            peers = [name for name in PEER_NAMES if name in unit.lower().replace("sklearn", "scikit-learn")]
            figures = _figures(unit) if peers else []
            if figures:
                yield page, peers, figures, unit


def _markdown_pages():
    docs = os.path.join(ROOT, "docs")
    for folder, _dirs, files in os.walk(docs):
        for name in sorted(files):
            if name.endswith(".md") and name != "configuration.md":  # generated from the schema
                yield os.path.relpath(os.path.join(folder, name), docs)


def _inventory_rows():
    """The *Peer ratios* table of benchmarks/README.md: (pages it names, its whole text lowercased)."""
    with open(os.path.join(BENCHMARKS, "README.md"), encoding="utf-8") as handle:
        text = handle.read()
    section = text.split("## Peer ratios", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        if line.startswith("| ") and not line.startswith("| claim"):
            cells = line.split(" | ")
            pages = set(re.findall(r"(docs/[\w/.-]+\.md|README\.md)", cells[0]))
            rows.append((pages, line.lower().replace("sklearn", "scikit-learn"), _figures(cells[1])))
    return rows


def test_the_claim_finder_sees_ratios_and_not_sizes():
    assert _figures("SciPy 2.4× and 5-31x, a loop 1,532* (53×), 2.5 x 10^4") == [
        (2.4, 2.4),
        (5.0, 31.0),
        (53.0, 53.0),
        (25000.0, 25000.0),
    ]
    assert _figures("512 x 1024 masks, 2 x wins + ties, numpy 2.x, 10,000 x 5 values, 1.3 × 10^6 s") == []
    units = list(_units("a | b\n\n| n | scipy |\n|---|---|\n| 10 | 3× |\n\nOne. Two scipy 4×.\n"))
    assert "| n | scipy | | 10 | 3× |" in units and "Two scipy 4×." in units


def test_every_peer_ratio_in_the_docs_has_an_inventory_row_that_quotes_it():
    rows = _inventory_rows()
    problems = []
    for page, peers, figures, unit in _peer_claims():
        mine = [row for row in rows if page in row[0] and any(name in row[1] for name in peers)]
        if not mine:
            problems.append("%s: no inventory row for %s: %s" % (page, "/".join(peers), unit[:160]))
            continue
        quoted = [span for row in mine for span in row[2]]
        for low, high in figures:
            if all((page, x) in NOT_PEER_RATIOS for x in (low, high)):
                continue
            if not any(a <= low and high <= b for a, b in quoted):
                problems.append("%s: %gx-%gx is not in its inventory row: %s" % (page, low, high, unit[:160]))
    assert not problems, "\n".join(problems)
