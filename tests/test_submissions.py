"""leaderboard_ci.phase.ingestion.submissions: finding, safely unpacking and reading a phase's submissions.

Inputs are built on the fly in tmp_path from the sample competition (sklearn's
digits, 540 test items): its gold standard and its sample submission zips.
Hostile zips (zip-slip, symbolic links, bombs, lying headers) are written byte
by byte where zipfile would refuse to write them.
"""

import csv
import io
import os
import stat
import struct
import sys
import time
import zipfile
import zlib

import numpy as np
import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = os.path.join(REPO, "scoring_program")
if PROGRAM not in sys.path:
    sys.path.insert(0, PROGRAM)

from leaderboard_ci.phase.ingestion import safe_unzip, submissions  # noqa: E402
from leaderboard_ci.phase.ingestion.submissions import (  # noqa: E402
    FAILED_REASON,
    NamesMapWarning,
    SubmissionEntry,
    UnzipLimits,
    discover,
    load_systems,
    safe_extract,
)
from leaderboard_ci.scoring import readers  # noqa: E402
from leaderboard_ci.scoring.config import load_config  # noqa: E402
from leaderboard_ci.scoring.errors import ConfigError, SubmissionError  # noqa: E402

REFERENCE = os.path.join(REPO, "competition_bundle", "reference_data")
SAMPLES = os.path.join(REPO, "competition_bundle", "sample_submissions")
MiB = 1 << 20
EMPTY_MESSAGE = (
    "the submission is empty: the zip holds no prediction file; put your prediction file "
    "(e.g. predictions.csv) at the top of the zip"
)


# ---------------------------------------------------------------------------
# Fixtures and builders
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def config():
    return load_config(PROGRAM, REFERENCE)


@pytest.fixture(scope="module")
def gold(config):
    return readers.read_gold(REFERENCE, config)


def sample(name):
    """The bytes of a sample submission zip (e.g. ``knn``)."""
    with open(os.path.join(SAMPLES, name + ".zip"), "rb") as handle:
        return handle.read()


def predictions(name):
    """The predictions.csv inside a sample submission."""
    with zipfile.ZipFile(io.BytesIO(sample(name))) as archive:
        return archive.read("predictions.csv")


def zip_bytes(members, compression=zipfile.ZIP_DEFLATED):
    """A zip of ``members``: a list of ``(name or ZipInfo, bytes)``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in members:
            archive.writestr(name, data)
    return buffer.getvalue()


def write(path, data):
    path = str(path)
    parent = os.path.dirname(path)
    if not os.path.isdir(parent):
        os.makedirs(parent)
    with open(path, "wb") as handle:
        handle.write(data)
    return path


def codabench_name(submission_id, owner, phase, when, basename):
    """A bulk member's name exactly as Codabench builds it, then as the browser stores it."""
    name = "%s_%s_PhaseId%s_%s_%s" % (submission_id, owner, phase, when, basename)
    return name.replace(":", "_").replace("/", "_").replace("\\", "_")


def failed_txt(names):
    """Codabench's failed.txt for the (unreplaced) entry names."""
    lines = ["%s (HTTP 404)" % n for n in names]
    return ("The following submissions failed to download:\n\n%s" % "\n".join(lines)).encode("utf-8")


def symlink_info(name, target="/etc/passwd"):
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info, target.encode("utf-8")


def write_raw_zip(path, members, zip64_count=None):
    """Write a zip byte by byte, with headers that may lie.

    ``members``: dicts with ``name``, ``chunks`` (the stored or compressed
    data, streamed), ``method``, ``crc``, ``csize``, ``usize`` and optional
    ``flags`` and ``attr`` (external attributes).  With ``zip64_count`` the
    end records are zip64 ones claiming that many members.
    """
    with open(str(path), "wb") as out:
        central = []
        for m in members:
            name = m["name"].encode("utf-8")
            offset = out.tell()
            out.write(
                struct.pack(
                    "<4s5H3L2H",
                    b"PK\x03\x04",
                    20,
                    m.get("flags", 0),
                    m["method"],
                    0,
                    0x21,
                    m["crc"],
                    m["csize"],
                    m["usize"],
                    len(name),
                    0,
                )
                + name
            )
            written = 0
            for chunk in m["chunks"]:
                out.write(chunk)
                written += len(chunk)
            assert written == m["csize"]
            central.append(
                struct.pack(
                    "<4s6H3L5H2L",
                    b"PK\x01\x02",
                    0x031E,
                    20,
                    m.get("flags", 0),
                    m["method"],
                    0,
                    0x21,
                    m["crc"],
                    m["csize"],
                    m["usize"],
                    len(name),
                    0,
                    0,
                    0,
                    0,
                    m.get("attr", 0),
                    offset,
                )
                + name
            )
        start = out.tell()
        for record in central:
            out.write(record)
        size = out.tell() - start
        count = len(central)
        if zip64_count is not None:
            record64 = out.tell()
            out.write(struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, zip64_count, zip64_count, size, start))
            out.write(struct.pack("<4sLQL", b"PK\x06\x07", 0, record64, 1))
            count = 0xFFFF
        out.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, count, count, size, start, 0))
    return str(path)


def stored(name, data, **extra):
    member = dict(name=name, chunks=[data], method=0, crc=zlib.crc32(data), csize=len(data), usize=len(data))
    member.update(extra)
    return member


def zero_deflate(mebibytes):
    """Raw deflate chunks of ``mebibytes`` MiB of zeros, made without compressing them all.

    After a full flush the compressor starts afresh, so every MiB compresses to
    the same bytes: the stream is one block repeated (about 1 KiB per MiB).
    """
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = compressor.compress(bytes(MiB)) + compressor.flush(zlib.Z_FULL_FLUSH)
    block = compressor.compress(bytes(MiB)) + compressor.flush(zlib.Z_FULL_FLUSH)
    assert first == block
    return [block] * mebibytes + [compressor.flush()]


def zeros_crc(n_bytes):
    crc, block = 0, bytes(MiB)
    while n_bytes >= MiB:
        crc = zlib.crc32(block, crc)
        n_bytes -= MiB
    return zlib.crc32(bytes(n_bytes), crc)


def snapshot(root, exclude):
    """Every path under ``root`` except under ``exclude``, with sizes."""
    out = {}
    exclude = os.path.realpath(str(exclude))
    for folder, dirs, files in os.walk(str(root)):
        if os.path.realpath(folder).startswith(exclude):
            continue
        for name in dirs + files:
            path = os.path.join(folder, name)
            if not os.path.realpath(path).startswith(exclude):
                out[path] = os.lstat(path).st_size
    return out


def disk_usage(root):
    return sum(
        os.lstat(os.path.join(folder, name)).st_size for folder, _, files in os.walk(str(root)) for name in files
    )


def expected_message(tmp_path, files):
    """The SubmissionError the scoring program gives for a submission holding ``files`` (in ``res/``)."""
    config = load_config(PROGRAM, REFERENCE)
    gold = readers.read_gold(REFERENCE, config)
    res = tmp_path / "expected" / "res"
    for name, data in files.items():
        write(res / name, data)
    with pytest.raises(SubmissionError) as caught:
        readers.read_predictions(readers.find_prediction_file(str(res), config), config, gold)
    return caught.value.message


def reasons(skipped):
    return dict(skipped)


# ---------------------------------------------------------------------------
# Layouts
# ---------------------------------------------------------------------------
def test_folder_of_sample_zips(tmp_path, config, gold):
    names = ["knn", "rbf_svm", "majority_class", "decision_tree"]
    for name in names:
        write(tmp_path / "in" / (name + ".zip"), sample(name))
    coded, skipped, entries = load_systems(str(tmp_path / "in"), config, gold, str(tmp_path / "work"))
    assert list(coded) == sorted(names)
    assert skipped == []
    assert [e.layout for e in entries] == ["plain"] * 4
    knn = readers.read_predictions(write(tmp_path / "direct" / "predictions.csv", predictions("knn")), config, gold)
    assert np.array_equal(coded["knn"], knn)
    assert coded["knn"].shape == (gold.n,)
    entry = entries[[e.name for e in entries].index("knn")]
    assert entry.source == "knn.zip" and entry.owner == "knn" and entry.submission_id is None
    assert os.path.realpath(entry.path).startswith(os.path.realpath(str(tmp_path / "work")) + os.sep)


def test_folder_with_files_folders_and_junk(tmp_path, config, gold):
    folder = tmp_path / "in"
    write(folder / "a_zip.zip", sample("knn"))
    write(folder / "plain.csv", predictions("rbf_svm"))
    write(folder / "team_folder" / "predictions.csv", predictions("decision_tree"))
    write(folder / "__MACOSX" / "._a_zip.zip", b"junk")
    write(folder / ".DS_Store", b"junk")
    write(folder / "no_extension_zip", sample("gaussian_nb"))  # a zip recognized by its first bytes
    coded, skipped, entries = load_systems(str(folder), config, gold, str(tmp_path / "work"))
    assert list(coded) == ["a_zip", "no_extension_zip", "plain", "team_folder"]
    assert skipped == []
    by_name = {e.name: e for e in entries}
    assert by_name["team_folder"].path == str(folder / "team_folder")  # read in place
    assert by_name["plain"].source == "plain.csv"


def test_same_stem_names_are_made_unique(tmp_path, config, gold):
    write(tmp_path / "in" / "knn.zip", sample("knn"))
    write(tmp_path / "in" / "knn.csv", predictions("rbf_svm"))
    coded, skipped, entries = load_systems(str(tmp_path / "in"), config, gold, str(tmp_path / "work"))
    assert sorted(coded) == ["knn", "knn #2"]
    assert len(set(e.owner for e in entries)) == 2  # plain entries are their own participants


def make_codabench_bulk(path, extra=(), failed=(), prefix=""):
    """A bulk_submissions.zip as Codabench's browser code builds it (stored members)."""
    members = [
        (codabench_name(101, "alice_smith", 7, "2024-05-01:13-22", "submission.zip"), sample("knn")),
        (codabench_name(9, "bob", 7, "2024-04-30:02-59", "my preds.zip"), sample("rbf_svm")),
        (codabench_name(102, "alice_smith", 7, "2024-05-02:00-01", "submission.zip"), sample("majority_class")),
    ] + list(extra)
    if failed:
        members.append(("failed.txt", failed_txt(failed)))
    members = [(prefix + name, data) for name, data in members]
    return write(path, zip_bytes(members, zipfile.ZIP_STORED))


def test_codabench_bulk_zip(tmp_path, config, gold):
    lost = "125_carol_x_PhaseId7_2024-05-02:10-11_submission.zip"
    path = make_codabench_bulk(tmp_path / "bulk_submissions.zip", failed=[lost])
    coded, skipped, entries = load_systems(path, config, gold, str(tmp_path / "work"))
    # natural order of the entries; alice's two runs share their file name, so their ids tell them apart
    assert list(coded) == ["bob", "alice_smith (101)", "alice_smith (102)"]
    assert skipped == [("carol_x (125)", FAILED_REASON)]
    alice = entries[1]
    assert alice == SubmissionEntry(
        name="alice_smith (101)",
        owner="alice_smith",
        submission_id="101",
        phase_id="7",
        date="2024-05-01_13-22",
        source="101_alice_smith_PhaseId7_2024-05-01_13-22_submission.zip",
        path=alice.path,
        layout="codabench",
        file="submission.zip",
    )
    assert entries[0].source.endswith("_my preds.zip")
    assert np.array_equal(
        coded["alice_smith (101)"],
        readers.read_predictions(write(tmp_path / "direct" / "predictions.csv", predictions("knn")), config, gold),
    )


def test_codabench_bulk_only_failures(tmp_path, config, gold):
    lost = failed_txt(["5_a_PhaseId1_2024-01-01:00-00_x.zip"])
    path = write(tmp_path / "bulk.zip", zip_bytes([("failed.txt", lost)]))
    entries, skipped = discover(path, str(tmp_path / "work"))
    assert entries == [] and skipped == [("a (5)", FAILED_REASON)]
    with pytest.raises(ConfigError, match="no submission .* could be used.*download failed"):
        load_systems(path, config, gold, str(tmp_path / "work"))


def test_codabench_bulk_wrapped_in_a_folder_and_unpacked(tmp_path, config, gold):
    path = make_codabench_bulk(tmp_path / "wrapped.zip", prefix="bulk_submissions/")
    coded, skipped, _ = load_systems(path, config, gold, str(tmp_path / "work"))
    assert list(coded) == ["bob", "alice_smith (101)", "alice_smith (102)"] and skipped == []
    # the same bulk download unpacked by the organizer into a folder
    bulk = make_codabench_bulk(tmp_path / "bulk.zip", failed=["7_zed_PhaseId7_2024-05-02:10-11_s.zip"])
    with zipfile.ZipFile(bulk) as archive:
        archive.extractall(str(tmp_path / "unpacked"))
    coded, skipped, entries = load_systems(str(tmp_path / "unpacked"), config, gold, str(tmp_path / "work2"))
    assert list(coded) == ["bob", "alice_smith (101)", "alice_smith (102)"]
    assert skipped == [("zed (7)", FAILED_REASON)]
    assert entries[0].date == "2024-04-30_02-59" and entries[0].layout == "codabench"


def test_codabench_scoring_results_are_not_submissions(tmp_path, config, gold):
    result = (
        "res_" + codabench_name(101, "alice", 7, "2024-05-01:13-22", "prediction_result.zip"),
        zip_bytes([("scores.json", b"{}")]),
    )
    path = make_codabench_bulk(tmp_path / "bulk.zip", extra=[result])
    coded, skipped, _ = load_systems(path, config, gold, str(tmp_path / "work"))
    assert len(coded) == 3
    assert skipped == [(result[0], "a Codabench scoring result (res_...), not a submission")]


def test_legacy_codalab_zip(tmp_path, config, gold):
    members = [
        ("team_names_and_members.txt", b"Team: Foo; members: alice, bob\n"),
        ("alice - 1 submission.zip", sample("knn")),
        ("alice - 1 output.zip", zip_bytes([("scores.txt", b"f1_macro: 0.9\n")])),
        ("alice - 1 profile.txt", b"Organization: x\n"),
        ("alice - 1 method.txt", b"method_name: knn\n"),
        ("alice - 2 submission.zip", sample("rbf_svm")),
        ("Team Foo  - 3 submission.zip", sample("decision_tree")),  # CodaLab's "Team %s " adds a space
        ("Team Foo  - 3 output.zip", zip_bytes([("scores.txt", b"f1_macro: 0.8\n")])),
        ("detailed_results.html", b"<html></html>"),
    ]
    path = write(tmp_path / "competition-12-results.zip", zip_bytes(members))
    coded, skipped, entries = load_systems(path, config, gold, str(tmp_path / "work"))
    assert list(coded) == ["alice (1)", "alice (2)", "Team Foo"]  # one submission: the owner's name
    assert skipped == []
    assert [(e.owner, e.submission_id, e.layout) for e in entries] == [
        ("alice", "1", "codalab"),
        ("alice", "2", "codalab"),
        ("Team Foo", "3", "codalab"),
    ]


@pytest.mark.parametrize(
    "member", ["bob-4-input.zip", "bob -4 submission.zip", "bob-  4_submission.zip", "BOB - 4 SUBMISSION.ZIP"]
)
def test_legacy_names_are_read_liberally(tmp_path, config, gold, member):
    write(tmp_path / "in" / member, sample("knn"))
    coded, _, entries = load_systems(str(tmp_path / "in"), config, gold, str(tmp_path / "work"))
    assert entries[0].submission_id == "4" and entries[0].owner.lower() == "bob"
    assert entries[0].layout == "codalab"


def test_single_submission_zip(tmp_path, config, gold):
    coded, skipped, entries = load_systems(os.path.join(SAMPLES, "knn.zip"), config, gold, str(tmp_path / "work"))
    assert list(coded) == ["knn"] and skipped == []
    assert entries[0].source == "knn.zip"
    # a zip of a folder holding the predictions is one submission too
    path = write(tmp_path / "mine.zip", zip_bytes([("mine/", b""), ("mine/predictions.csv", predictions("knn"))]))
    coded, skipped, entries = load_systems(path, config, gold, str(tmp_path / "work"))
    assert list(coded) == ["mine"] and skipped == []


def test_container_of_plain_zips_and_of_folders(tmp_path, config, gold):
    path = write(tmp_path / "all.zip", zip_bytes([("knn.zip", sample("knn")), ("svm.zip", sample("rbf_svm"))]))
    coded, _, _ = load_systems(path, config, gold, str(tmp_path / "work"))
    assert list(coded) == ["knn", "svm"]
    path = write(
        tmp_path / "folders.zip",
        zip_bytes(
            [("team_a/predictions.csv", predictions("knn")), ("team_b/out/predictions.csv", predictions("rbf_svm"))]
        ),
    )
    coded, skipped, _ = load_systems(path, config, gold, str(tmp_path / "work"))
    assert list(coded) == ["team_a", "team_b"] and skipped == []  # one folder down, as on Codabench


def test_duplicate_submissions_are_separate_systems(tmp_path, config, gold):
    same = sample("knn")
    members = [
        (codabench_name(1, "alice", 3, "2024-05-01:00-00", "s.zip"), same),
        (codabench_name(2, "bob", 3, "2024-05-01:00-01", "s.zip"), same),
    ]
    path = write(tmp_path / "bulk.zip", zip_bytes(members, zipfile.ZIP_STORED))
    coded, skipped, _ = load_systems(path, config, gold, str(tmp_path / "work"))
    assert list(coded) == ["alice", "bob"]
    assert np.array_equal(coded["alice"], coded["bob"])


# ---------------------------------------------------------------------------
# Participants' mistakes: skipped with the leaderboard's message
# ---------------------------------------------------------------------------
def test_empty_submissions_are_skipped_with_the_participants_message(tmp_path, config, gold):
    folder = tmp_path / "in"
    write(folder / "empty.zip", zip_bytes([]))
    write(folder / "mac_only.zip", zip_bytes([("__MACOSX/._predictions.csv", b"x"), (".hidden.csv", b"x")]))
    write(folder / "good.zip", sample("knn"))
    (folder / "empty_folder").mkdir()
    coded, skipped, _ = load_systems(str(folder), config, gold, str(tmp_path / "work"))
    assert list(coded) == ["good"]
    assert reasons(skipped) == {"empty": EMPTY_MESSAGE, "mac_only": EMPTY_MESSAGE, "empty_folder": EMPTY_MESSAGE}


def test_reader_errors_are_the_exact_leaderboard_message(tmp_path, config, gold):
    bad = predictions("knn").replace(b"digit_0010,", b"digit_0010,ten", 1)
    nested = predictions("knn").replace(b"\n", b"\r\n").replace(b"id,label", b"id;label")
    write(tmp_path / "in" / "bad_label.zip", zip_bytes([("predictions.csv", bad)]))
    write(tmp_path / "in" / "two_files.zip", zip_bytes([("a.csv", bad), ("b.csv", bad)]))
    write(tmp_path / "in" / "semicolons.zip", zip_bytes([("sub/predictions.csv", nested)]))
    write(tmp_path / "in" / "good.zip", sample("knn"))
    coded, skipped, _ = load_systems(str(tmp_path / "in"), config, gold, str(tmp_path / "work"))
    got = reasons(skipped)
    assert got["bad_label"] == expected_message(tmp_path / "e1", {"predictions.csv": bad})
    assert got["two_files"] == expected_message(tmp_path / "e2", {"a.csv": bad, "b.csv": bad})
    assert got["semicolons"] == expected_message(tmp_path / "e3", {"sub/predictions.csv": nested})
    assert "sub/predictions.csv" in got["semicolons"]  # named relative to res/, as on the leaderboard


def test_unexpected_reader_exception_is_skipped(tmp_path, config, gold, monkeypatch):
    write(tmp_path / "in" / "knn.zip", sample("knn"))
    write(tmp_path / "in" / "svm.zip", sample("rbf_svm"))
    real = readers.read_submission

    def flaky(path, config, gold):
        if "00002" in path:
            raise RuntimeError("boom")
        return real(path, config, gold)

    monkeypatch.setattr(readers, "read_submission", flaky)
    coded, skipped, _ = load_systems(str(tmp_path / "in"), config, gold, str(tmp_path / "work"))
    assert list(coded) == ["knn"] and skipped == [("svm", "could not be read: RuntimeError")]


def test_nested_zip_is_not_opened(tmp_path, config, gold):
    inner = sample("knn")
    write(tmp_path / "in" / "zip_in_zip.zip", zip_bytes([("inner.zip", inner)]))
    write(tmp_path / "in" / "good.zip", sample("rbf_svm"))
    work = tmp_path / "work"
    coded, skipped, entries = load_systems(str(tmp_path / "in"), config, gold, str(work))
    assert list(coded) == ["good"]
    assert reasons(skipped)["zip_in_zip"] == expected_message(tmp_path / "e", {"inner.zip": inner})
    found = [name for _, _, files in os.walk(str(work)) for name in files]
    assert "inner.zip" in found and found.count("predictions.csv") == 1  # only good's: inner.zip stayed shut


# ---------------------------------------------------------------------------
# Corrupt and hostile zips
# ---------------------------------------------------------------------------
def test_corrupt_and_truncated_zips_are_skipped(tmp_path, config, gold):
    folder = tmp_path / "in"
    knn = sample("knn")
    write(folder / "random.zip", os.urandom(5000))
    write(folder / "truncated.zip", knn[: len(knn) // 2])
    write(folder / "zero.zip", b"")
    data = predictions("knn")
    raw = zip_bytes([("predictions.csv", data)], zipfile.ZIP_STORED)
    at = raw.index(data[:20]) + 10
    write(folder / "bad_crc.zip", raw[:at] + bytes([raw[at] ^ 0x55]) + raw[at + 1 :])
    deflated = zip_bytes([("predictions.csv", data)])
    at = deflated.index(b"predictions.csv") + len("predictions.csv") + 40
    write(folder / "bad_deflate.zip", deflated[:at] + b"\xff" * 30 + deflated[at + 30 :])
    write(folder / "good.zip", knn)
    coded, skipped, _ = load_systems(str(folder), config, gold, str(tmp_path / "work"))
    assert list(coded) == ["good"]
    got = reasons(skipped)
    assert set(got) == {"bad_crc", "bad_deflate", "random", "truncated", "zero"}
    for name in got:
        assert got[name].startswith("is not a valid zip file"), (name, got[name])
    assert "CRC" in got["bad_crc"]


def hostile_submission(name):
    """A submission zip with a good predictions.csv and one member named ``name``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("predictions.csv", predictions("knn"))
        archive.writestr(zipfile.ZipInfo(name), b"id,label\nowned,1\n")  # ZipInfo keeps the name as given
    return buffer.getvalue()


def test_zip_slip_is_refused_and_nothing_escapes(tmp_path, config, gold):
    absolute = str(tmp_path / "abs_evil.csv")
    assert absolute.startswith("/")
    hostile = {
        "dotdot": "../../evil.csv",
        "deep_dotdot": "a/b/../../../evil_deep.csv",
        "absolute": absolute,
        "backslash": "..\\..\\evil_backslash.csv",
        "drive": "C:/evil_drive.csv",
        "drive_relative": "C:evil_drive2.csv",
        "unc": "\\\\server\\share\\evil_unc.csv",
    }
    members = [
        (codabench_name(i + 1, owner, 1, "2024-05-01:00-00", "s.zip"), hostile_submission(name))
        for i, (owner, name) in enumerate(sorted(hostile.items()))
    ]
    members.append((zipfile.ZipInfo("../../evil_member.zip"), sample("knn")))  # slip at the bulk level
    members.append((codabench_name(99, "honest", 1, "2024-05-01:00-00", "s.zip"), sample("knn")))
    bulk = write(tmp_path / "input" / "bulk.zip", zip_bytes(members, zipfile.ZIP_STORED))
    (tmp_path / "deep" / "er").mkdir(parents=True)
    work = tmp_path / "deep" / "er" / "work"
    before = snapshot(tmp_path, work)
    coded, skipped, _ = load_systems(bulk, config, gold, str(work))
    assert list(coded) == ["honest"]
    got = reasons(skipped)
    assert len(got) == len(hostile) + 1
    label = dict((owner, owner) for owner in hostile)  # one submission each: named by the owner
    # the member name is quoted as every message quotes one (shortened past 80 characters: tmp_path varies)
    assert got[label["absolute"]] == "the zip member %s has an absolute path" % safe_unzip._shown(absolute)
    assert got[label["dotdot"]] == "the zip member '../../evil.csv' has a '..' component (a path outside the zip)"
    assert "'..' component" in got[label["deep_dotdot"]] and "'..' component" in got[label["backslash"]]
    assert "drive letter" in got[label["drive"]] and "drive letter" in got[label["drive_relative"]]
    assert "absolute path" in got[label["unc"]]
    assert "'..' component" in got["evil_member"]
    assert snapshot(tmp_path, work) == before  # nothing written outside workdir
    for folder, _, names in os.walk(str(tmp_path)):
        assert not any(n.startswith(("evil", "abs_evil")) for n in names), folder
    # and nothing was left half-extracted for the refused submissions
    assert sum(files.count("predictions.csv") for _, _, files in os.walk(str(work))) == 1


def test_symlink_members_are_skipped(tmp_path, config, gold):
    with_link = zip_bytes(
        [("predictions.csv", predictions("knn")), symlink_info("passwd.txt"), symlink_info("up", "../../..")]
    )
    only_link = zip_bytes([symlink_info("predictions.csv")])
    write(tmp_path / "in" / "with_link.zip", with_link)
    write(tmp_path / "in" / "only_link.zip", only_link)
    work = tmp_path / "work"
    coded, skipped, entries = load_systems(str(tmp_path / "in"), config, gold, str(work))
    assert list(coded) == ["with_link"]
    assert entries[0].notes == ("ignored the symbolic link 'passwd.txt'", "ignored the symbolic link 'up'")
    assert skipped == [
        (
            "only_link",
            "the zip holds no prediction file, only the symbolic link 'predictions.csv', which is never "
            "followed; put the file itself in the zip",
        )
    ]
    for folder, dirs, files in os.walk(str(work)):
        for name in dirs + files:
            assert not os.path.islink(os.path.join(folder, name))
        assert "passwd.txt" not in files


def test_top_level_symlink_in_folder_is_skipped(tmp_path, config, gold):
    write(tmp_path / "elsewhere" / "knn.zip", sample("knn"))
    write(tmp_path / "in" / "real.zip", sample("rbf_svm"))
    os.symlink(str(tmp_path / "elsewhere" / "knn.zip"), str(tmp_path / "in" / "link.zip"))
    coded, skipped, _ = load_systems(str(tmp_path / "in"), config, gold, str(tmp_path / "work"))
    assert list(coded) == ["real"]
    assert skipped == [("link.zip", "is a symbolic link; put the file itself in the folder")]


def test_encrypted_and_unsupported_members_are_skipped(tmp_path, config, gold):
    data = predictions("knn")
    (tmp_path / "in").mkdir()
    write_raw_zip(tmp_path / "in" / "encrypted.zip", [stored("predictions.csv", data, flags=0x1)])
    write_raw_zip(tmp_path / "in" / "aes.zip", [stored("predictions.csv", data, method=99)])
    write(tmp_path / "in" / "good.zip", sample("knn"))
    coded, skipped, _ = load_systems(str(tmp_path / "in"), config, gold, str(tmp_path / "work"))
    assert list(coded) == ["good"]
    assert reasons(skipped) == {
        "encrypted": "the zip member 'predictions.csv' is encrypted (password-protected), so it cannot be read; "
        "zip the files again without a password",
        # method 99 is WinZip's AES encryption
        "aes": "the zip member 'predictions.csv' is encrypted (password-protected), so it cannot be read; zip the "
        "files again without a password",
    }


def test_zip_bomb_by_ratio_with_lowered_limits(tmp_path, config, gold):
    (tmp_path / "in").mkdir()
    write_raw_zip(
        tmp_path / "in" / "bomb.zip",
        [
            dict(
                name="predictions.csv",
                chunks=zero_deflate(20),
                method=8,
                crc=zeros_crc(20 * MiB),
                csize=sum(map(len, zero_deflate(20))),
                usize=20 * MiB,
            )
        ],
    )
    write(tmp_path / "in" / "good.zip", sample("knn"))
    work = tmp_path / "work"
    limits = UnzipLimits(max_submission_bytes=64 * MiB)
    coded, skipped, _ = load_systems(str(tmp_path / "in"), config, gold, str(work), limits=limits)
    assert list(coded) == ["good"]
    assert "like a zip bomb" in reasons(skipped)["bomb"]
    assert disk_usage(work) < MiB


def test_zip_bomb_with_default_limits(tmp_path, config, gold):
    """A real 600 MiB bomb (about 600 KiB on disk), streamed to disk and refused from its directory."""
    chunks = zero_deflate(600)
    (tmp_path / "in").mkdir()
    path = write_raw_zip(
        tmp_path / "in" / "bomb.zip",
        [
            dict(
                name="predictions.csv",
                chunks=chunks,
                method=8,
                crc=zeros_crc(600 * MiB),
                csize=sum(map(len, chunks)),
                usize=600 * MiB,
            )
        ],
    )
    assert os.path.getsize(path) < MiB
    with zipfile.ZipFile(path) as archive:  # it is a valid zip, as a bomb should be
        assert archive.getinfo("predictions.csv").file_size == 600 * MiB
    write(tmp_path / "in" / "good.zip", sample("knn"))
    work = tmp_path / "work"
    started = time.time()
    coded, skipped, _ = load_systems(str(tmp_path / "in"), config, gold, str(work))
    assert time.time() - started < 30
    assert list(coded) == ["good"]
    assert reasons(skipped)["bomb"] == (
        "the zip member 'predictions.csv' expands 1011:1 (600 MiB from 607.6 KiB), like a zip bomb; the limit is 200:1"
    )
    assert disk_usage(work) < MiB


def test_many_compressible_members_hit_the_submission_limit(tmp_path, config, gold):
    """Members under the ratio limit whose sum is over the per-submission limit."""
    text = b"".join(b"%08d,some text that compresses moderately %d\n" % (i, i * 7919 % 1000) for i in range(20000))
    members = [("predictions.csv", predictions("knn"))] + [("extra_%d.txt" % i, text) for i in range(5)]
    write(tmp_path / "in" / "big.zip", zip_bytes(members))
    write(tmp_path / "in" / "good.zip", sample("knn"))
    work = tmp_path / "work"
    limits = UnzipLimits(max_submission_bytes=2 * MiB)
    coded, skipped, _ = load_systems(str(tmp_path / "in"), config, gold, str(work), limits=limits)
    assert list(coded) == ["good"]
    assert reasons(skipped)["big"].startswith("the submission's members declare ")
    assert reasons(skipped)["big"].endswith("more than the limit of 2 MiB per submission")
    assert disk_usage(work) < MiB


def test_total_limit_for_the_run(tmp_path, config, gold):
    size = len(predictions("knn"))
    for i in range(6):
        write(tmp_path / "in" / ("s%d.zip" % i), sample("knn"))
    work = tmp_path / "work"
    limits = UnzipLimits(max_total_bytes=3 * size + 10, max_submission_bytes=10 * size)
    coded, skipped, _ = load_systems(str(tmp_path / "in"), config, gold, str(work), limits=limits)
    assert list(coded) == ["s0", "s1", "s2"]
    assert [label for label, _ in skipped] == ["s3", "s4", "s5"]
    assert all("what is left of the run's limit" in reason for _, reason in skipped)
    assert disk_usage(work) <= 3 * size + 10


def test_member_count_limit(tmp_path, config, gold):
    many = zip_bytes([("predictions.csv", predictions("knn"))] + [("junk%d.txt" % i, b"x") for i in range(30)])
    write(tmp_path / "in" / "many.zip", many)
    write(tmp_path / "in" / "good.zip", sample("knn"))
    limits = UnzipLimits(max_members=10)
    coded, skipped, _ = load_systems(str(tmp_path / "in"), config, gold, str(tmp_path / "work"), limits=limits)
    assert list(coded) == ["good"]
    assert skipped == [("many", "the zip has 31 members, over the limit of 10")]
    # the bulk zip itself over the limit is the organizer's problem
    bulk = write(tmp_path / "bulk.zip", zip_bytes([("s%d.zip" % i, sample("knn")) for i in range(12)]))
    with pytest.raises(ConfigError, match="bulk.zip: the zip has 12 members, over the limit of 10"):
        discover(bulk, str(tmp_path / "work"), limits)


def test_member_count_is_read_from_zip64_end_records_before_opening(tmp_path, config, gold):
    """A directory claiming 70,000 members is refused before zipfile parses it."""
    (tmp_path / "in").mkdir()
    path = write_raw_zip(
        tmp_path / "in" / "claims.zip", [stored("predictions.csv", predictions("knn"))], zip64_count=70000
    )
    with zipfile.ZipFile(path) as archive:  # zipfile itself would happily open it
        assert archive.namelist() == ["predictions.csv"]
    with open(path, "rb") as handle:
        assert safe_unzip.directory_size(handle)[0] == 70000
    write(tmp_path / "in" / "good.zip", sample("knn"))
    coded, skipped, _ = load_systems(str(tmp_path / "in"), config, gold, str(tmp_path / "work"))
    assert list(coded) == ["good"]
    assert skipped == [("claims", "the zip has 70000 members, over the limit of 10000")]


def lying_member(declared, crc_of):
    """predictions.csv declaring ``declared`` bytes but inflating to 10 MiB of zeros."""
    chunks = zero_deflate(10)
    return dict(
        name="predictions.csv",
        chunks=chunks,
        method=8,
        crc=zeros_crc(crc_of),
        csize=sum(map(len, chunks)),
        usize=declared,
    )


def test_lying_header_cannot_write_more_than_declared(tmp_path, config, gold):
    (tmp_path / "in").mkdir()
    # the CRC matches the declared 1000 bytes: the data past them is never written
    write_raw_zip(tmp_path / "in" / "liar.zip", [lying_member(1000, 1000)])
    # the CRC is the real one: the member is corrupt
    write_raw_zip(tmp_path / "in" / "liar_crc.zip", [lying_member(1000, 10 * MiB)])
    write(tmp_path / "in" / "good.zip", sample("knn"))
    work = tmp_path / "work"
    coded, skipped, entries = load_systems(str(tmp_path / "in"), config, gold, str(work))
    assert list(coded) == ["good"]
    got = reasons(skipped)
    assert got["liar_crc"].startswith("is not a valid zip file") and "CRC" in got["liar_crc"]
    assert "liar" in got  # 1000 NUL bytes are not predictions: the reader says so
    assert disk_usage(work) < 1000 + 2 * len(predictions("knn"))


def test_streaming_count_stops_a_member_longer_than_its_header(tmp_path, config, gold, monkeypatch):
    """Even if the zip library returned more than the header says, the copy stops at the declared size."""
    write(tmp_path / "in" / "liar.zip", zip_bytes([("predictions.csv", b"id,label\n")]))
    real_open = zipfile.ZipFile.open

    def generous_open(self, name, *args, **kwargs):
        info = name if isinstance(name, zipfile.ZipInfo) else self.getinfo(name)
        if info.filename == "predictions.csv":
            return io.BytesIO(b"x" * (info.file_size + 10 * MiB))
        return real_open(self, name, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", generous_open)
    work = tmp_path / "work"
    entries, skipped = discover(str(tmp_path / "in"), str(work))
    assert entries == []
    assert skipped == [("liar", "the zip member 'predictions.csv' holds more data than its header declares (9 bytes)")]
    assert disk_usage(work) == 0  # the partial file was removed with its folder


def test_copy_counted_stops_at_the_budget():
    class Endless(object):
        served = 0

        def read(self, n):
            self.served += n
            return b"\0" * n

    source, target = Endless(), io.BytesIO()
    allowance = safe_unzip.Allowance(3 * MiB, "the test limit")
    with pytest.raises(safe_unzip.Rejected, match="more than the test limit"):
        safe_unzip.copy_counted(source, target, 10**12, allowance, "'x'")
    assert len(target.getvalue()) <= 3 * MiB
    assert source.served <= 3 * MiB + 1


def test_deep_paths_and_duplicate_or_conflicting_names(tmp_path, config, gold):
    deep = "/".join(["d"] * 40) + "/predictions.csv"
    write(tmp_path / "in" / "deep.zip", zip_bytes([(deep, predictions("knn"))]))
    write(tmp_path / "in" / "conflict.zip", zip_bytes([("a", b"file"), ("a/predictions.csv", predictions("knn"))]))
    with pytest.warns(UserWarning, match="Duplicate name"):  # zipfile warns while the test builds it
        twice = zip_bytes([("predictions.csv", b"garbage"), ("predictions.csv", predictions("knn"))])
    write(tmp_path / "in" / "twice.zip", twice)
    coded, skipped, _ = load_systems(str(tmp_path / "in"), config, gold, str(tmp_path / "work"))
    assert list(coded) == ["twice"]  # the last of two equal names wins, as with zipfile.extractall
    got = reasons(skipped)
    assert "nested 40 folders deep" in got["deep"]
    assert got["conflict"].startswith("could not be extracted (")


# ---------------------------------------------------------------------------
# Scale
# ---------------------------------------------------------------------------
def test_a_thousand_tiny_submissions(tmp_path, config, gold):
    labels = predictions("knn")
    members = []
    for i in range(1000):
        inner = zip_bytes([("predictions.csv", labels)])
        members.append(
            (
                codabench_name(
                    1000 + i, "user_%d" % (i % 250), 3, "2024-05-01:%02d-%02d" % (i // 60 % 60, i % 60), "s.zip"
                ),
                inner,
            )
        )
    bulk = write(tmp_path / "bulk.zip", zip_bytes(members, zipfile.ZIP_STORED))
    started = time.time()
    coded, skipped, entries = load_systems(bulk, config, gold, str(tmp_path / "work"))
    elapsed = time.time() - started
    assert len(coded) == 1000 and skipped == []
    assert len(set(e.path for e in entries)) == 1000
    assert elapsed < 60, elapsed
    assert len(set(e.owner for e in entries)) == 250


# ---------------------------------------------------------------------------
# Names map
# ---------------------------------------------------------------------------
def names_csv(tmp_path, rows, header=("submission", "name")):
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    return write(tmp_path / "names.csv", buffer.getvalue().encode("utf-8"))


def test_names_map_renames_by_entry_name_id_or_default_name(tmp_path, config, gold):
    bulk = make_codabench_bulk(tmp_path / "bulk.zip", failed=["125_carol_PhaseId7_2024-05-02:10-11_s.zip"])
    mapping = names_csv(
        tmp_path,
        [
            ("101_alice_smith_PhaseId7_2024-05-01_13-22_submission.zip", "Alice run 1"),
            ("102", "Alice run 2"),
            ("bob (9)", "Bob's system"),
            ("carol (125)", "Carol"),  # skipped, but known: no warning
            ("nobody (1)", "Ghost"),
        ],
    )
    notes = []
    coded, skipped, entries = load_systems(
        bulk, config, gold, str(tmp_path / "work"), names_map=mapping, warnings_list=notes
    )
    assert list(coded) == ["Bob's system", "Alice run 1", "Alice run 2"]
    assert [e.name for e in entries] == list(coded)
    assert notes == ["the names map names.csv, line 6: no submission matches 'nobody (1)'"]
    with pytest.warns(NamesMapWarning, match="nobody"):
        load_systems(bulk, config, gold, str(tmp_path / "work"), names_map=mapping)


def test_names_map_mistakes_are_config_errors(tmp_path, config, gold):
    bulk = make_codabench_bulk(tmp_path / "bulk.zip")
    work = str(tmp_path / "work")
    with pytest.raises(ConfigError, match="two systems are named 'Same'"):
        load_systems(bulk, config, gold, work, names_map=names_csv(tmp_path, [("101", "Same"), ("9", "Same")]))
    with pytest.raises(ConfigError, match="two systems are named 'bob'"):
        load_systems(bulk, config, gold, work, names_map=names_csv(tmp_path, [("101", "bob")]))
    with pytest.raises(ConfigError, match="must start with the header submission,name"):
        load_systems(bulk, config, gold, work, names_map=names_csv(tmp_path, [("101", "x")], header=("id", "x")))
    with pytest.raises(ConfigError, match="lists '101' twice"):
        load_systems(bulk, config, gold, work, names_map=names_csv(tmp_path, [("101", "x"), ("101", "y")]))
    with pytest.raises(ConfigError, match="both rename alice_smith \\(101\\)"):
        load_systems(
            bulk, config, gold, work, names_map=names_csv(tmp_path, [("101", "x"), ("alice_smith (101)", "y")])
        )
    with pytest.raises(ConfigError, match="does not exist"):
        load_systems(bulk, config, gold, work, names_map=str(tmp_path / "missing.csv"))
    legacy = write(
        tmp_path / "legacy.zip",
        zip_bytes([("alice - 2 submission.zip", sample("knn")), ("bob - 2 submission.zip", sample("knn"))]),
    )
    with pytest.raises(ConfigError, match="'2' matches 2 submissions"):
        load_systems(legacy, config, gold, work, names_map=names_csv(tmp_path, [("2", "x")]))


# ---------------------------------------------------------------------------
# One run per participant
# ---------------------------------------------------------------------------
def participant_bulk(tmp_path):
    members = [
        (codabench_name(10, "alice", 3, "2024-05-01:10-00", "s.zip"), sample("majority_class")),
        (codabench_name(11, "alice", 3, "2024-05-02:59-00", "s.zip"), sample("rbf_svm")),
        (codabench_name(12, "alice", 3, "2024-05-02:01-00", "s.zip"), sample("shallow_tree")),  # later hour
        (codabench_name(20, "bob", 3, "2024-05-01:00-00", "s.zip"), sample("knn")),
        (codabench_name(21, "bob", 3, "2024-05-01:30-00", "s.zip"), sample("knn")),  # a tie
        (codabench_name(22, "bob", 3, "2024-05-03:00-00", "s.zip"), zip_bytes([("p.csv", b"broken")])),
        (codabench_name(30, "carol", 3, "2024-05-01:00-00", "s.zip"), sample("gaussian_nb")),
    ]
    return write(tmp_path / "bulk.zip", zip_bytes(members, zipfile.ZIP_STORED))


def test_per_participant_best_and_last(tmp_path, config, gold):
    bulk = participant_bulk(tmp_path)
    coded_all, skipped, _ = load_systems(bulk, config, gold, str(tmp_path / "w1"))
    assert len(coded_all) == 6 and [label for label, _ in skipped] == ["bob (22)"]
    scores = {name: submissions._official_score(config, gold, values) for name, values in coded_all.items()}
    assert scores["alice (11)"] > max(scores["alice (10)"], scores["alice (12)"])  # rbf_svm wins
    assert "carol" in scores  # carol has one run: her name alone
    best, skipped_best, entries = load_systems(bulk, config, gold, str(tmp_path / "w2"), per_participant="best")
    # one run each, named by its owner; the id of the run kept stays on the entry
    assert list(best) == ["alice", "bob", "carol"]
    assert [e.submission_id for e in entries] == ["11", "21", "30"]  # bob's tie goes to the latest
    assert np.array_equal(best["alice"], coded_all["alice (11)"])
    assert skipped_best == skipped
    assert [e.owner for e in entries] == ["alice", "bob", "carol"]
    last, _, entries = load_systems(bulk, config, gold, str(tmp_path / "w3"), per_participant="last")
    # alice: same day, id 12 > 11 although its minutes-seconds are smaller; bob: 22 is unreadable
    assert [e.submission_id for e in entries] == ["12", "21", "30"]
    assert np.array_equal(last["alice"], coded_all["alice (12)"])
    with pytest.raises(ConfigError, match="per_participant must be one of: all, best, last, listed"):
        load_systems(bulk, config, gold, str(tmp_path / "w4"), per_participant="first")


def test_best_follows_the_metric_direction(tmp_path, gold):
    from leaderboard_ci.scoring.config import parse_config

    config = parse_config({"metric": "accuracy", "labels": list(gold.labels)})
    bulk = participant_bulk(tmp_path)
    best, _, _ = load_systems(bulk, config, gold, str(tmp_path / "w"), per_participant="best")
    accuracy = {
        name: float(np.mean(values == gold.values))
        for name, values in load_systems(bulk, config, gold, str(tmp_path / "w2"))[0].items()
    }
    for owner in ("alice", "bob", "carol"):
        runs = {n: a for n, a in accuracy.items() if n.startswith(owner)}
        assert float(np.mean(best[owner] == gold.values)) == max(runs.values())


def test_owners_with_several_runs_are_told_apart_by_file_name(tmp_path, config, gold):
    # Codabench's date is '%Y-%m-%d:%M-%S'; unzip tools write the ':' as '_' or '-' (or keep it)
    members = [
        (codabench_name(101, "user101", 7, "2026-11-20-10-00", "decision_tree.zip"), sample("decision_tree")),
        (codabench_name(102, "user101", 7, "2026-11-20:11-00", "knn.zip"), sample("knn")),
        (codabench_name(103, "user_2", 7, "2026-11-21_00-00", "submission.zip"), sample("rbf_svm")),
    ]
    path = write(tmp_path / "bulk.zip", zip_bytes(members, zipfile.ZIP_STORED))
    coded, skipped, entries = load_systems(path, config, gold, str(tmp_path / "w"))
    assert list(coded) == ["user101 (decision_tree)", "user101 (knn)", "user_2"]
    assert [(e.owner, e.submission_id, e.phase_id, e.file) for e in entries] == [
        ("user101", "101", "7", "decision_tree.zip"),
        ("user101", "102", "7", "knn.zip"),
        ("user_2", "103", "7", "submission.zip"),
    ]
    # the names map still takes the id, the member's name or 'owner (id)'
    mapping = names_csv(tmp_path, [("101", "Tree"), ("user101 (102)", "KNN"), ("user_2 (103)", "SVM")])
    renamed, _, _ = load_systems(path, config, gold, str(tmp_path / "w2"), names_map=mapping)
    assert list(renamed) == ["Tree", "KNN", "SVM"]


def test_listed_keeps_the_runs_the_names_map_lists(tmp_path, config, gold):
    bulk = participant_bulk(tmp_path)
    mapping = names_csv(tmp_path, [("10", "Alice (primary run)"), ("21", "Bob")])
    inventory = []
    coded, skipped, entries = load_systems(
        bulk, config, gold, str(tmp_path / "w"), names_map=mapping, per_participant="listed", inventory=inventory
    )
    assert list(coded) == ["Alice (primary run)", "Bob"]
    assert [e.submission_id for e in entries] == ["10", "21"]
    with pytest.raises(ConfigError, match="keeps the submissions the names map lists"):
        load_systems(bulk, config, gold, str(tmp_path / "w2"), per_participant="listed")
    with pytest.raises(ConfigError, match="lists none of the submissions"):
        load_systems(
            bulk,
            config,
            gold,
            str(tmp_path / "w3"),
            names_map=names_csv(tmp_path, [("999", "x")]),
            per_participant="listed",
        )


def test_the_inventory_lists_every_submission_and_what_became_of_it(tmp_path, config, gold):
    bulk = participant_bulk(tmp_path)
    inventory = []
    coded, _, _ = load_systems(bulk, config, gold, str(tmp_path / "w"), per_participant="best", inventory=inventory)
    assert [row["submission_id"] for row in inventory] == ["10", "11", "12", "20", "21", "22", "30"]
    status = {row["submission_id"]: row["status"] for row in inventory}
    assert status["11"] == status["21"] == status["30"] == "analysed"
    assert status["10"] == "not selected (per participant: best)"
    assert status["22"].startswith("skipped: ")
    assert {row["system"] for row in inventory if row["status"] == "analysed"} == set(coded)
    assert all(len(row) == len(submissions.INVENTORY_COLUMNS) for row in inventory)


# ---------------------------------------------------------------------------
# The organizer's mistakes
# ---------------------------------------------------------------------------
def test_organizer_mistakes_are_config_errors(tmp_path, config, gold):
    work = str(tmp_path / "work")
    with pytest.raises(ConfigError, match="does not exist"):
        discover(str(tmp_path / "nope"), work)
    with pytest.raises(ConfigError, match="neither a folder nor a zip file"):
        discover(write(tmp_path / "notes.txt", b"hello"), work)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="holds no submission"):
        discover(str(tmp_path / "empty"), work)
    with pytest.raises(ConfigError, match="is not a valid zip file .*download it again"):
        discover(write(tmp_path / "bulk.zip", b"PK\x03\x04" + os.urandom(100)), work)
    write(tmp_path / "bad" / "a.zip", b"not a zip")
    write(tmp_path / "bad" / "b.zip", zip_bytes([]))
    with pytest.raises(ConfigError, match=r"all 2 were skipped \(a: is not a valid zip file"):
        load_systems(str(tmp_path / "bad"), config, gold, work)


def test_workdir_inside_the_submissions_folder_is_not_a_submission(tmp_path, config, gold):
    folder = tmp_path / "in"
    write(folder / "knn.zip", sample("knn"))
    coded, skipped, _ = load_systems(str(folder), config, gold, str(folder / "work"))
    assert list(coded) == ["knn"] and skipped == []
    coded, skipped, _ = load_systems(str(folder), config, gold, str(folder / "work"))  # again, work now full
    assert list(coded) == ["knn"] and skipped == []
    other = tmp_path / "other"
    write(other / "knn.zip", sample("knn"))
    for _ in range(2):  # workdir is PATH itself; the second run sees the first one's output
        coded, skipped, _ = load_systems(str(other), config, gold, str(other))
        assert list(coded) == ["knn"] and skipped == []
    assert len([n for n in os.listdir(str(other)) if n.startswith("submissions-")]) == 2


def test_safe_extract(tmp_path):
    dest = tmp_path / "ref"
    notes = safe_extract(
        write(tmp_path / "ref.zip", zip_bytes([("gold.csv", b"id,label\n"), symlink_info("l")])), str(dest)
    )
    assert os.listdir(str(dest)) == ["gold.csv"] and notes == ["ignored the symbolic link 'l'"]
    bad = write(tmp_path / "slip.zip", zip_bytes([("gold.csv", b"x"), (zipfile.ZipInfo("../evil.csv"), b"x")]))
    with pytest.raises(ConfigError, match=r"slip.zip cannot be extracted: .*'\.\.' component"):
        safe_extract(bad, str(tmp_path / "ref2"))
    assert not os.path.exists(str(tmp_path / "ref2")) and not os.path.exists(str(tmp_path / "evil.csv"))


def test_limits_are_validated():
    with pytest.raises(ValueError, match="max_members"):
        UnzipLimits(max_members=0)
    assert UnzipLimits().max_total_bytes == 2 * 1024**3 and UnzipLimits().max_submission_bytes == 512 * MiB


def test_targets_must_resolve_inside_the_folder(tmp_path):
    """Behind the name checks: a path through a symbolic link that leaves the folder is refused."""
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "outside").mkdir()
    os.symlink(str(tmp_path / "outside"), str(root / "link"))
    real = os.path.realpath(str(root))
    assert safe_unzip.inside(real, ["a", "b.csv"]) == os.path.join(real, "a", "b.csv")
    with pytest.raises(safe_unzip.Rejected, match="resolves outside its folder"):
        safe_unzip.inside(real, ["link", "evil.csv"])


def test_unsafe_member_in_a_container_of_folders_refuses_its_folder(tmp_path, config, gold):
    members = [
        ("team_a/predictions.csv", predictions("knn")),
        (zipfile.ZipInfo("team_a/../../evil.csv"), b"x"),
        ("team_b/predictions.csv", predictions("rbf_svm")),
        (zipfile.ZipInfo("/evil_abs.csv"), b"x"),
    ]
    path = write(tmp_path / "folders.zip", zip_bytes(members))
    work = tmp_path / "work"
    coded, skipped, _ = load_systems(path, config, gold, str(work))
    assert list(coded) == ["team_b"]
    assert skipped == [
        ("evil_abs", "the zip member '/evil_abs.csv' has an absolute path"),
        ("team_a", "the zip member 'team_a/../../evil.csv' has a '..' component (a path outside the zip)"),
    ]
    assert sorted(os.listdir(str(tmp_path))) == ["folders.zip", "work"]
    # the same below a folder wrapping the whole zip
    wrapped = write(
        tmp_path / "wrapped.zip",
        zip_bytes(
            [("all/" + n if isinstance(n, str) else n, d) for n, d in members[:1] + members[2:3]]
            + [(zipfile.ZipInfo("all/../evil_wrap.csv"), b"x")]
        ),
    )
    coded, skipped, _ = load_systems(wrapped, config, gold, str(tmp_path / "work2"))
    assert list(coded) == ["team_a", "team_b"]
    assert skipped == [
        ("evil_wrap", "the zip member 'all/../evil_wrap.csv' has a '..' component (a path outside the zip)")
    ]
