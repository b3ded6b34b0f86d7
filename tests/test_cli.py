"""end_of_phase on the sample competition: the report reproduces the leaderboard, robustly."""

import glob
import json
import os
import zipfile

import pytest

from leaderboard_ci.cli import end_of_phase as cli
from leaderboard_ci.tools.local_worker import run_scoring

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
PROGRAM = os.path.join(ROOT, "scoring_program")
REFERENCE = os.path.join(ROOT, "competition_bundle", "reference_data")
SAMPLES = sorted(glob.glob(os.path.join(ROOT, "competition_bundle", "sample_submissions", "*.zip")))
FAST_B = 2000


@pytest.fixture(scope="module")
def fast_reference(tmp_path_factory):
    """The sample competition's reference data with B = 2000 (same seed, same everything else)."""
    ref = tmp_path_factory.mktemp("ref")
    for name in os.listdir(REFERENCE):
        with open(os.path.join(REFERENCE, name), "rb") as src, open(str(ref / name), "wb") as dst:
            dst.write(src.read())
    text = (ref / "config.yaml").read_text().replace("n_resamples: 10000", "n_resamples: %d" % FAST_B)
    assert "n_resamples: %d" % FAST_B in text
    (ref / "config.yaml").write_text(text)
    return str(ref)


def _argv(reference, submissions, out, *extra):
    """An end-of-phase command line without progress bar or figure files (no test here reads them)."""
    return ["--reference", reference, "--submissions", submissions, "--out", str(out), "--no-progress"] + [
        "--figure-files",
        "none",
        *extra,
    ]


@pytest.fixture(scope="module")
def report(fast_reference, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    assert cli.main(_argv(fast_reference, os.path.dirname(SAMPLES[0]), str(out))) == 0
    with open(str(out / "report.json"), encoding="utf-8") as handle:
        return str(out), json.load(handle)


def test_report_cis_equal_the_leaderboards(report, fast_reference, tmp_path):
    """Every system's score and CI in the report equal what the scoring program wrote."""
    _, data = report
    for path in SAMPLES:
        name = os.path.splitext(os.path.basename(path))[0]
        run = run_scoring(str(tmp_path / name), PROGRAM, fast_reference, path)
        assert run.returncode == 0, run.stderr
        for key in ("f1_macro", "accuracy"):
            row = next(s for s in data["metrics"][key]["systems"] if s["name"] == name)
            assert (row["score"], row["ci_low"], row["ci_high"]) == (
                run.scores[key],
                run.scores[key + "_ci_low"],
                run.scores[key + "_ci_high"],
            ), (name, key)


def test_every_output_is_written(report):
    out, data = report
    for name in ("report.html", "report.json", "tables.md", "tables.tex", "indicators.csv", "skipped.csv"):
        assert os.path.getsize(os.path.join(out, name)) > 0, name
    assert data["signature"]["n_resamples"] == FAST_B and data["signature"]["seed"] == 12345
    assert data["baseline"] == "majority class"  # the config's baseline file becomes a system
    assert len(data["systems"]) == len(SAMPLES) + 1
    assert data["metrics"]["f1_macro"]["winner"] == "rbf_svm"
    # --figure-files none: no figure files, while the page still shows its figures
    assert not os.path.exists(os.path.join(out, "figures"))
    with open(os.path.join(out, "report.html"), encoding="utf-8") as handle:
        assert handle.read().count("data:image/") >= 3


def test_figure_files_are_parsed_in_the_order_given():
    from leaderboard_ci.cli.common import parse_figure_files

    assert parse_figure_files("svg, PNG") == ("svg", "png")
    assert parse_figure_files("None") == ()


def _bulk_zip(path, entries, failed=None):
    with zipfile.ZipFile(path, "w") as archive:
        for i, sample in enumerate(entries):
            stem = os.path.splitext(os.path.basename(sample))[0]
            archive.write(sample, "%d_team_%s_PhaseId7_2025-03-0%d_12-30_submission.zip" % (100 + i, stem, 1 + i % 9))
        if failed:
            archive.writestr("failed.txt", "The following submissions failed to download:\n\n%s (HTTP 404)\n" % failed)


@pytest.mark.slow  # fast representatives: test_submissions.py::test_codabench_bulk_zip, test_benchmark_bulk.py
def test_codabench_bulk_zip_gives_the_same_numbers(report, fast_reference, tmp_path):
    _, folder_data = report
    bulk = str(tmp_path / "bulk_submissions.zip")
    _bulk_zip(bulk, SAMPLES, failed="999_lost_PhaseId7_2025-03-09_12-30_submission.zip")
    out = tmp_path / "out"
    assert cli.main(_argv(fast_reference, bulk, str(out), "--jobs", "1")) == 0
    data = json.loads((out / "report.json").read_text())
    by_name = {s["name"]: s for s in data["metrics"]["f1_macro"]["systems"]}
    for row in folder_data["metrics"]["f1_macro"]["systems"]:
        if row["name"] == "majority class":
            continue
        # each owner has one run here, so the system is named by its owner alone
        match = [s for n, s in by_name.items() if n.split(" (")[0] == "team_%s" % row["name"]]
        assert len(match) == 1, row["name"]
        assert (match[0]["score"], match[0]["ci_low"], match[0]["ci_high"]) == (
            row["score"],
            row["ci_low"],
            row["ci_high"],
        )
    assert any("download failed" in s["reason"] for s in data["skipped"])


def test_bad_submissions_are_skipped_with_the_participants_reason(fast_reference, tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    for sample in SAMPLES[:3]:
        (folder / os.path.basename(sample)).write_bytes(open(sample, "rb").read())
    with zipfile.ZipFile(str(folder / "broken.zip"), "w") as archive:
        archive.writestr("predictions.csv", "id,label\ndigit_0001,banana\n")
    (folder / "corrupt.zip").write_bytes(b"PK\x03\x04 not a zip at all")
    with zipfile.ZipFile(str(folder / "evil.zip"), "w") as archive:
        archive.writestr("../../escaped.csv", "id,label\n")
    before = set(os.listdir(str(tmp_path)))
    out = tmp_path / "out"
    assert cli.main(_argv(fast_reference, str(folder), str(out))) == 0
    assert set(os.listdir(str(tmp_path))) == before | {"out"}  # nothing written outside OUT
    assert not os.path.exists(str(tmp_path.parent / "escaped.csv"))
    skipped = {s["submission"]: s["reason"] for s in json.loads((out / "report.json").read_text())["skipped"]}
    assert len(skipped) == 3
    assert any("label 'banana' is not one of" in r for r in skipped.values())
    assert any("not a valid zip" in r for r in skipped.values())


@pytest.mark.slow  # fast representatives: test_distributed.py::test_threads_give_identical_results, test_pairs.py
def test_jobs_do_not_change_the_report(fast_reference, tmp_path):
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / ("jobs" + jobs)
        assert cli.main(_argv(fast_reference, os.path.dirname(SAMPLES[0]), str(out), "--jobs", jobs)) == 0
        data = json.loads((out / "report.json").read_text())
        outs.append(data["metrics"])
    assert outs[0] == outs[1]


@pytest.mark.slow  # fast representative: test_analysis.py::test_gains_against_the_baseline
def test_baseline_by_name_and_per_participant(fast_reference, tmp_path):
    out = tmp_path / "out"
    assert cli.main(_argv(fast_reference, os.path.dirname(SAMPLES[0]), str(out), "--baseline", "majority_class")) == 0
    data = json.loads((out / "report.json").read_text())
    assert data["baseline"] == "majority_class"
    gains = {g["name"]: g["gain"] for g in data["metrics"]["f1_macro"]["gains"]["systems"]}
    assert gains["majority_class"] == 0.0 and gains["rbf_svm"] > 90


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--reference", "/nonexistent/ref"], "--reference /nonexistent/ref is neither a folder nor a zip"),
        (["--jobs", "many"], "--jobs must be 'auto' or an integer from 1 to 256, got 'many'"),
        (["--baseline", "nobody"], "--baseline 'nobody' is not one of the systems"),
        (["--config", "/nonexistent.yaml"], "--config /nonexistent.yaml does not exist"),
        (["--figure-files", "png,gif"], "--figure-files must be 'none' or formats from png, pdf, svg separated"),
        (["--figure-files", "png,png"], "each once, got 'png,png'"),
    ],
)
def test_organizer_mistakes_get_one_line(argv, message, fast_reference, tmp_path, capsys):
    args = {"--reference": fast_reference, "--submissions": os.path.dirname(SAMPLES[0]), "--out": str(tmp_path / "out")}
    args["--figure-files"] = "none"
    for i in range(0, len(argv), 2):
        args[argv[i]] = argv[i + 1]
    flat = [x for pair in args.items() for x in pair] + ["--no-progress"]
    assert cli.main(flat) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and message in err[0], err


def test_every_path_is_resolved_on_the_client(tmp_path, monkeypatch):
    """Relative paths become absolute before anything runs: Dask workers in another folder see the same files.

    (The cluster started from the command line, in tests/test_blocks.py, runs the whole scenario; it is slow.)
    """
    monkeypatch.chdir(tmp_path)
    args = cli.make_parser().parse_args(
        ["--reference", "ref", "--submissions", "subs.zip", "--out", "out", "--config", "c.yaml", "--names", "n.csv"]
    )
    resolved = cli._absolute_paths(args)
    for key, given in (
        ("reference", "ref"),
        ("submissions", "subs.zip"),
        ("out", "out"),
        ("config", "c.yaml"),
        ("names", "n.csv"),
    ):
        assert getattr(resolved, key) == os.path.join(str(tmp_path), given)
    assert resolved.no_progress == args.no_progress and resolved.dask == args.dask  # nothing else changes


def _codabench_bulk(path):
    """A bulk download: user101 has two runs with distinct files (dashes in the date, as unzip tools write it)."""
    runs = [
        (101, "user101", "2026-11-20-10-00", "decision_tree"),
        (102, "user101", "2026-11-20-11-00", "knn"),
        (103, "user2", "2026-11-20-12-00", "rbf_svm"),
        (104, "user2", "2026-11-21-12-00", "gaussian_nb"),
    ]
    by_name = dict((os.path.splitext(os.path.basename(p))[0], p) for p in SAMPLES)
    with zipfile.ZipFile(str(path), "w") as bulk:
        for sid, owner, date, sample in runs:
            bulk.write(by_name[sample], "%d_%s_PhaseId7_%s_%s.zip" % (sid, owner, date, sample))
    return str(path)


@pytest.mark.parametrize("blocks", [pytest.param(False, marks=pytest.mark.slow), True])  # the same selection code
def test_a_bulk_download_is_named_by_owner_and_selected_per_participant(fast_reference, tmp_path, blocks):
    import pandas as pd

    bulk = _codabench_bulk(tmp_path / "bulk_submissions.zip")
    out = tmp_path / "out"
    blocks = ["--block-size", "1"] if blocks else []
    assert cli.main(_argv(fast_reference, bulk, out, "--per-participant", "last", *blocks)) == 0
    data = json.loads((out / "report.json").read_text())
    names = set(s["name"] for s in data["metrics"]["f1_macro"]["systems"])
    assert {"user101", "user2"} <= names and not any("PhaseId" in n or "(" in n for n in names), names
    table = pd.read_csv(str(out / "submissions.csv"), dtype=str, keep_default_na=False)
    assert list(table.columns) == ["system", "owner", "submission_id", "phase_id", "date", "file", "source", "status"]
    kept = table[table.status == "analysed"]
    assert dict(zip(kept.submission_id, kept.system)) == {"102": "user101", "104": "user2"}
    assert set(table[table.status != "analysed"].status) == {"not selected (per participant: last)"}
    # with every run analysed, an owner's runs are told apart by their file names
    out_all = tmp_path / "all"
    assert cli.main(_argv(fast_reference, bulk, out_all, *blocks)) == 0
    data = json.loads((out_all / "report.json").read_text())
    names = set(s["name"] for s in data["metrics"]["f1_macro"]["systems"])
    assert {"user101 (decision_tree)", "user101 (knn)", "user2 (rbf_svm)", "user2 (gaussian_nb)"} <= names
