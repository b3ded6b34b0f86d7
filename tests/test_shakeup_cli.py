"""``leaderboard-ci shakeup`` and the end-of-phase report's shake-up section, on the example (examples/shakeup).

The example (the sample competition's digits split into public and private parts, one participant
probing the public part) is copied with B = 300 for speed.  Checked: the overfitted participant is
flagged in both input modes; every file is written; ``shakeup.json`` is plain JSON whose numbers the
CSV, Markdown and LaTeX tables show (each verdict beside an interval that agrees with it); the
figures draw the tables' numbers; the end of phase with the public phase's arguments carries the
section in ``report.html`` and ``report.json``; each mistake is one sentence and exit code 2.
"""

import csv
import io
import json
import os
import shutil

import numpy as np
import pytest

from leaderboard_ci.cli.main import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "shakeup")
PROBER = "probe_pat"


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    folder = tmp_path_factory.mktemp("shakeup_example")
    for layout in ("two_phases", "split"):
        shutil.copytree(os.path.join(EXAMPLE, layout), str(folder / layout))
    for root, _, files in os.walk(str(folder)):
        for name in files:
            if name == "config.yaml":
                path = os.path.join(root, name)
                with open(path) as handle:
                    text = handle.read()
                with open(path, "w") as handle:
                    handle.write(text.replace("n_resamples: 10000", "n_resamples: 300"))
    return folder


def _split_args(example, out):
    return [
        "shakeup",
        "--reference",
        str(example / "split" / "reference"),
        "--split-column",
        "Usage",
        "--submissions",
        str(example / "split" / "submissions.zip"),
        "--out",
        str(out),
        "--jobs",
        "1",
    ]


def _phases_args(example, out, command="shakeup"):
    two = example / "two_phases"
    return [
        command,
        "--public-reference",
        str(two / "public_reference"),
        "--public-submissions",
        str(two / "public_submissions.zip"),
        "--reference",
        str(two / "private_reference"),
        "--submissions",
        str(two / "private_submissions.zip"),
        "--out",
        str(out),
        "--jobs",
        "1",
    ]


@pytest.fixture(scope="module")
def split_run(example, tmp_path_factory):
    """The command's ``run`` (all of ``main`` but the parsing of argv and the catching of mistakes)."""
    from leaderboard_ci.cli.shakeup import make_parser, run

    out = tmp_path_factory.mktemp("split_report")
    stdout = io.StringIO()
    result = run(make_parser().parse_args(_split_args(example, out)[1:]), stdout)
    return out, result, stdout.getvalue()


@pytest.fixture(scope="module")
def split_report(split_run):
    return split_run[0]


def test_the_command_prints_the_verdicts(split_run):
    _, result, printed = split_run
    lines = printed.splitlines()
    assert lines[0].startswith("Shake-up (one reference split by Usage): 9 participants, 157 runs, public n = 218")
    assert "probe_pat (" in printed and "shakeup.html" in lines[-2]


def test_split_mode_flags_the_prober_and_writes_every_file(split_report):
    for name in (
        "shakeup.html",
        "shakeup.json",
        "shakeup/participants.csv",
        "shakeup/competition.csv",
        "shakeup/tables.md",
        "shakeup/tables.tex",
        "figures/shakeup-public_private.png",
        "figures/shakeup-rank_change.pdf",
        "figures/shakeup-gap_submissions.png",
    ):
        assert os.path.isfile(str(split_report / name)), name
    data = json.loads((split_report / "shakeup.json").read_text(encoding="utf-8"))
    assert data["kind"] == "shakeup" and data["mode"] == "split" and data["metric"] == "f1_macro"
    by_name = {p["participant"]: p for p in data["participants"]}
    prober = by_name[PROBER]
    assert prober["gap"]["flagged"] and prober["gap"]["direction"] == "worse on private"
    assert prober["submissions"] == 121 and prober["gap"]["ci_high"] < 0
    flagged = [p["participant"] for p in data["participants"] if p["gap"]["flagged"]]
    assert flagged == [PROBER]
    assert data["sets"]["public"]["n_items"] == 218 and data["sets"]["private"]["n_items"] == 322
    assert data["sets"]["private"]["signature"]["n_resamples"] == 300
    assert data["winners_curse"]["winner"] == data["participants"][0]["participant"]
    html = (split_report / "shakeup.html").read_text(encoding="utf-8")
    assert 'id="shakeup"' in html and PROBER in html and "worse on private" in html


def _csv_rows(path):
    with open(str(path), newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_tables_show_the_json_numbers_and_verdicts_agree_with_intervals(split_report):
    from leaderboard_ci.report.formatting import format_ci, format_number

    data = json.loads((split_report / "shakeup.json").read_text(encoding="utf-8"))
    rows = {r["participant"]: r for r in _csv_rows(split_report / "shakeup" / "participants.csv")}
    markdown = (split_report / "shakeup" / "tables.md").read_text(encoding="utf-8")
    latex = (split_report / "shakeup" / "tables.tex").read_text(encoding="utf-8")
    html = (split_report / "shakeup.html").read_text(encoding="utf-8")
    for p in data["participants"]:
        row = rows[p["participant"]]
        assert float(row["gap"]) == p["gap"]["value"] and float(row["private"]) == p["private"]["score"]
        assert (row["flagged"] == "True") == p["gap"]["flagged"]
        gap = format_number(p["gap"]["value"], 4, signed=True).replace("-", "\u2212")
        interval = format_ci(p["gap"]["ci_low"], p["gap"]["ci_high"], 4).replace("-", "\u2212")
        name = p["participant"].replace("_", "\\_")
        line = [x for x in markdown.splitlines() if x.startswith("| %s | " % name) and gap in x]
        assert len(line) == 1 and interval in line[0], p["participant"]
        assert interval.replace("\u2212", "$-$") in latex.replace("$-$", "$-$")
        assert interval in html
        if p["gap"]["flagged"]:  # two-sided: a flag never sits beside an interval that contains 0
            assert p["gap"]["ci_high"] < 0 or p["gap"]["ci_low"] > 0
            assert p["gap"]["p_fdr_bh"] <= data["settings"]["alpha"]
    tau = data["competition"]["kendall_tau"]
    larger = data["competition"]["larger_than_noise"]
    assert larger == (tau["p_value"] < data["settings"]["alpha"])
    assert data["sentences"][0].startswith(
        "The shake-up is larger than noise" if larger else "The shake-up is within noise"
    )
    assert tau["noise_low"] <= tau["noise"] <= tau["noise_high"] and tau["ci_low"] <= tau["value"] <= tau["ci_high"]


def test_figures_draw_the_tables_numbers(split_run):
    from test_report_layout import _clipped_texts

    from leaderboard_ci.report.shakeup_plots import shakeup_figures

    result = split_run[1]
    figures = shakeup_figures(result)
    frame = result.participants.set_index("participant")

    def drawn(fig, gid):
        found = [a for a in fig.findobj() if getattr(a, "get_gid", lambda: None)() == gid]
        assert len(found) == 1, gid
        return found[0].get_xydata()

    for name, row in frame.iterrows():
        xy = drawn(figures["public_private"], "point:%s" % name)
        assert tuple(xy[0]) == (row["public"], row["private"])
        assert tuple(drawn(figures["public_private"], "public_ci:%s" % name)[:, 0]) == (
            row["public_low"],
            row["public_high"],
        )
        assert tuple(drawn(figures["public_private"], "private_ci:%s" % name)[:, 1]) == (
            row["private_low"],
            row["private_high"],
        )
        for side in ("public", "private"):
            bar = drawn(figures["rank_change"], "rankset:%s:%s" % (side, name))[:, 0]
            assert tuple(bar) == (row[side + "_rank_low"], row[side + "_rank_high"])
            assert drawn(figures["rank_change"], "rank:%s:%s" % (side, name))[0, 0] == row[side + "_rank"]
        assert drawn(figures["gap_submissions"], "gap:%s" % name)[0, 1] == row["gap"]
        assert tuple(drawn(figures["gap_submissions"], "gap_ci:%s" % name)[:, 1]) == (row["gap_low"], row["gap_high"])
    identity = drawn(figures["public_private"], "identity")
    assert np.allclose(identity[:, 0], identity[:, 1])
    for name, fig in figures.items():  # every text inside its canvas
        assert _clipped_texts(fig) == [], name


@pytest.mark.slow  # about 15 s: the split mode above is the default run's end-to-end representative
def test_two_phases_flag_the_prober(example, tmp_path):
    out = tmp_path / "two"
    assert main(_phases_args(example, out)) == 0
    data = json.loads((out / "shakeup.json").read_text(encoding="utf-8"))
    assert data["mode"] == "phases"
    flagged = [p["participant"] for p in data["participants"] if p["gap"]["flagged"]]
    assert flagged == [PROBER]
    prober = [p for p in data["participants"] if p["participant"] == PROBER][0]
    assert prober["public"]["run"].startswith(PROBER + " (probe_") and prober["private"]["run"].startswith(PROBER)


@pytest.mark.slow  # the end of phase and its report with figures: about 25 s
@pytest.mark.parametrize("mode", ["phases", "split"])
def test_end_of_phase_report_has_the_section(example, tmp_path, mode):
    out = tmp_path / mode
    if mode == "phases":
        args = _phases_args(example, out, "end-of-phase")
    else:
        args = _split_args(example, out)
        args[0] = "end-of-phase"
    assert main(args) == 0
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["schema_version"] == "1.6" and report["shakeup"]["mode"] == mode
    assert [p["participant"] for p in report["shakeup"]["participants"] if p["gap"]["flagged"]] == [PROBER]
    html = (out / "report.html").read_text(encoding="utf-8")
    assert '<section id="shakeup">' in html and 'id="shakeup-rank_change"' in html
    assert os.path.isfile(str(out / "shakeup" / "participants.csv"))
    assert os.path.isfile(str(out / "figures" / "shakeup-public_private.png"))


def test_end_of_phase_section_without_figures():
    """The section in the end-of-phase files (report.json, report.html, shakeup/*.csv) from the Python API."""
    from dataclasses import replace

    from leaderboard_ci.phase.analysis import analyze
    from leaderboard_ci.phase.shakeup import shakeup

    rng = np.random.default_rng(3)
    gold = rng.integers(0, 2, 300)
    runs = {"s%d" % k: [np.where(rng.random(300) < 0.6 + 0.05 * k, gold, 1 - gold).tolist()] for k in range(4)}
    split = np.where(rng.random(300) < 0.5, "public", "private").tolist()
    result = analyze(gold.tolist(), {k: v[0] for k, v in runs.items()}, metric="accuracy", n_resamples=200)
    section = shakeup(gold.tolist(), runs, split=split, metric="accuracy", n_resamples=200)
    combined = replace(result, shakeup=section)
    data = combined.to_dict()
    assert data["shakeup"]["participants"][0]["participant"] == section.participants["participant"].iloc[0]
    from leaderboard_ci.report.html_report import render_report

    html = render_report(combined, figures={})  # tables only
    assert '<section id="shakeup">' in html and html.index('id="shakeup"') < html.index('id="indicators"')
    assert "shakeup" not in result.to_dict()  # without the section: report.json as before


def _error(argv, capsys):
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    return code, err


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda a: a[: a.index("--public-submissions")] + a[a.index("--public-submissions") + 2 :],
            "needs both --public-reference and --public-submissions: --public-submissions is missing",
        ),
        (lambda a: a + ["--split-column", "Usage"], "not both"),
        (
            lambda a: [x for x in a if x not in ("--public-reference", "--public-submissions")][:1] + a[5:],
            "give the public phase",
        ),
    ],
)
def test_mode_mistakes_are_one_sentence(example, tmp_path, capsys, change, message):
    code, err = _error(change(_phases_args(example, tmp_path / "o")), capsys)
    assert code == 2 and len(err) == 1 and message in err[0] and "Traceback" not in err[0]


def test_split_mistakes_are_one_sentence(example, tmp_path, capsys):
    args = _split_args(example, tmp_path / "o")
    code, err = _error(args[:4] + ["Part"] + args[5:], capsys)
    assert code == 2 and len(err) == 1 and "--split-column Part" in err[0]
    code, err = _error(args + ["--public-value", "Visible"], capsys)
    assert code == 2 and len(err) == 1 and "--public-value 'Visible'" in err[0] and "Public" in err[0]
    code, err = _error(args + ["--public-value", "private"], capsys)
    assert code == 2 and len(err) == 1 and "both 'Private'" not in err[0] and "two values" in err[0]


def test_different_metrics_are_refused(example, tmp_path, capsys):
    config = example / "two_phases" / "other.yaml"
    config.write_text("metric: accuracy\nlabels: ['0','1','2','3','4','5','6','7','8','9']\n")
    args = _phases_args(example, tmp_path / "o") + ["--public-config", str(config)]
    code, err = _error(args, capsys)
    assert code == 2 and len(err) == 1 and "different official metrics" in err[0]


def test_hostile_downloads_and_references_are_one_sentence(example, tmp_path, capsys):
    binary = tmp_path / "noise.zip"
    binary.write_bytes(bytes(range(256)) * 64)
    empty = tmp_path / "empty"
    empty.mkdir()
    args = _phases_args(example, tmp_path / "o")
    at = args.index("--public-submissions") + 1
    for bad, expected in (
        (str(binary), "not a valid zip file"),
        (str(tmp_path / "missing.zip"), "does not exist"),
        (str(empty), "holds no submission"),
    ):
        changed = list(args)
        changed[at] = bad
        code, err = _error(changed, capsys)
        assert code == 2 and len(err) == 1 and expected in err[0] and "Traceback" not in err[0], (bad, err)
    changed = list(args)
    changed[args.index("--public-reference") + 1] = str(binary)
    code, err = _error(changed, capsys)
    assert code == 2 and len(err) == 1 and "public reference" in err[0]


def test_a_participant_whose_runs_all_fail_is_left_out_with_a_note(tmp_path):
    """Split mode on a folder of plain files: one participant's file is not a prediction file."""
    from leaderboard_ci.cli.shakeup import make_parser, shakeup_from_args

    ref = tmp_path / "ref"
    ref.mkdir()
    rng = np.random.default_rng(0)
    n = 200
    gold = rng.integers(0, 2, n)
    usage = np.where(np.arange(n) % 2 == 0, "Public", "Private")
    ref.joinpath("gold.csv").write_text(
        "id,label,Usage\n" + "".join("i%d,%d,%s\n" % (i, g, u) for i, (g, u) in enumerate(zip(gold, usage)))
    )
    ref.joinpath("config.yaml").write_text(
        "metric: accuracy\nextra_metrics: []\nlabels: ['0', '1']\nbootstrap: {n_resamples: 200}\n"
    )
    subs = tmp_path / "subs"
    subs.mkdir()
    for k in range(3):
        pred = np.where(rng.random(n) < 0.6 + 0.1 * k, gold, 1 - gold)
        subs.joinpath("team%d.csv" % k).write_text(
            "id,label\n" + "".join("i%d,%d\n" % (i, p) for i, p in enumerate(pred))
        )
    subs.joinpath("broken.csv").write_bytes(b"\x00\xff" * 100)
    args = make_parser().parse_args(
        ["--reference", str(ref), "--split-column", "Usage", "--submissions", str(subs), "--out", str(tmp_path / "o")]
    )
    work = tmp_path / "work"
    work.mkdir()
    result = shakeup_from_args(args, str(work), io.StringIO())  # the analysis; writing is tested above
    assert sorted(result.participants["participant"]) == ["team0", "team1", "team2"]
    assert result.notes == ["1 participant left out: no run could be read on the reference (broken)"]
    assert list(result.skipped["participant"]) == ["broken"] and list(result.skipped["phase"]) == ["public"]
    reason = result.skipped["reason"].iloc[0]  # what the participant was told: its file and what to do
    assert reason.startswith("broken.csv ") and "UTF-8" in reason and "\n" not in reason and "gold" not in reason


@pytest.mark.slow  # fast representative: test_bias_resamples_reaches_run_shakeup
def test_bias_resamples_reaches_the_optimism(example, tmp_path):
    """``--bias-resamples N`` end to end: the optimism on the first N replicates, as the report's settings say."""
    out = tmp_path / "bias"
    assert main(_split_args(example, out) + ["--bias-resamples", "40"]) == 0
    with open(str(out / "shakeup.json")) as handle:
        data = json.load(handle)
    assert data["settings"]["best_of_k_resamples"] == 40


@pytest.mark.parametrize("value, expected", [("40", 40), (None, 1000)])
def test_bias_resamples_reaches_run_shakeup(example, tmp_path, monkeypatch, value, expected):
    """The option's value (default 1000; 'all' is None: every one of B) is what the shake-up is run with."""
    from leaderboard_ci.cli import shakeup as command

    seen = {}

    class Stop(Exception):
        pass

    def record(*args, **kwargs):
        seen.update(kwargs)
        raise Stop()

    monkeypatch.setattr(command, "run_shakeup", record)
    argv = _split_args(example, tmp_path / "o")[1:] + ([] if value is None else ["--bias-resamples", value])
    with pytest.raises(Stop):
        command.run(command.make_parser().parse_args(argv), io.StringIO())
    assert seen["bias_resamples"] == expected
    assert command.parse_bias_resamples("all") is None  # every one of B


@pytest.mark.parametrize("value", ["1", "0", "-5", "many", "2.5", ""])
def test_bad_bias_resamples_is_one_sentence(example, tmp_path, capsys, value):
    commands = ("shakeup", "end-of-phase") if value == "1" else ("shakeup",)
    for command in commands:
        code, err = _error(_phases_args(example, tmp_path / "o", command) + ["--bias-resamples", value], capsys)
        assert code == 2 and len(err) == 1 and "--bias-resamples must be a whole number" in err[0], err
        assert repr(value) in err[0] and "Traceback" not in err[0]
