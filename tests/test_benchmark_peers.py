"""The peer-ratio inventory (``benchmarks/peers.py``) names scripts, pages and README rows that exist.

Nothing is timed here: the test only keeps the list a reader reruns from going stale.
"""

import os
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
