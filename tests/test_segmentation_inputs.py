"""Segmentation submissions and gold folders, well and badly formed: the readers' one sentence each.

A small gold (8 masks of 12 x 20 pixels, 4 classes, an ignored corner) is written to
``ref/masks``; each case builds a submission folder as Codabench unzips it into ``res/`` and
reads it through the scoring program's reader (``read_submission``, as ``score.py`` does).
Accepted layouts must give the counts of the clean submission; every refusal is one
``SubmissionError`` sentence naming the file and what was expected, never a gold pixel or class
count.  One case runs ``score.py`` as the worker does (exit 1, one line on stderr).
"""

import dataclasses
import io
import os
import struct
import time
import zipfile
import zlib

import numpy as np
import pytest
import yaml

from leaderboard_ci.scoring.config import load_config
from leaderboard_ci.scoring.errors import ConfigError, SubmissionError
from leaderboard_ci.scoring.readers import read_gold, read_submission
from leaderboard_ci.tasks.segmentation.png import encode_png

LABELS = ["background", "lesion", "vessel", "bone"]
SHAPE = (12, 20)
N = 8
IDS = ["case_%02d" % i for i in range(N)]


def _gold_masks():
    rng = np.random.RandomState(42)
    masks = []
    for i in range(N):
        mask = np.zeros(SHAPE, dtype=np.uint8)
        mask[2 : 5 + i % 4, 3:12] = 1 + i % 3
        mask[rng.randint(0, 12), :] = 3
        mask[:2, :2] = 255
        masks.append(mask)
    return masks


GOLD = _gold_masks()
PRED = [np.roll(np.where(m == 255, 0, m), 1, axis=1).astype(np.uint8) for m in GOLD]


def npy_bytes(array, **kwargs):
    out = io.BytesIO()
    np.save(out, array, **kwargs)
    return out.getvalue()


def npz_bytes(**arrays):
    out = io.BytesIO()
    np.savez_compressed(out, **arrays)
    return out.getvalue()


@pytest.fixture(scope="module")
def competition(tmp_path_factory):
    ref = tmp_path_factory.mktemp("seg-ref")
    os.makedirs(str(ref / "masks"))
    for ident, mask in zip(IDS, GOLD):
        (ref / "masks" / (ident + ".png")).write_bytes(encode_png(mask))
    (ref / "config.yaml").write_text(
        yaml.safe_dump(
            {
                "task": "segmentation",
                "labels": LABELS,
                "metric": "miou",
                "files": {"gold": "masks", "max_megabytes": 0.5},
                "bootstrap": {"n_resamples": 20},
            }
        )
    )
    config = load_config(str(ref), path=str(ref / "config.yaml"))
    return str(ref), config, read_gold(str(ref), config)


def submit(tmp_path, files):
    """Write ``{relative name: bytes}`` as the unzipped submission folder; returns it."""
    res = tmp_path / "res"
    res.mkdir(parents=True)
    for name, data in files.items():
        path = res / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return str(res)


def clean(extension=".png", prefix=""):
    encode = {".png": encode_png, ".npy": npy_bytes, ".npz": lambda m: npz_bytes(mask=m)}[extension]
    return dict((prefix + ident + extension, encode(mask)) for ident, mask in zip(IDS, PRED))


def read(competition, res):
    _, config, gold = competition
    return read_submission(res, config, gold)


def refused(competition, tmp_path, files):
    with pytest.raises(SubmissionError) as info:
        read(competition, submit(tmp_path, files))
    message = str(info.value)
    assert "\n" not in message and "Traceback" not in message
    return message


@pytest.fixture(scope="module")
def expected(competition, tmp_path_factory):
    return read(competition, submit(tmp_path_factory.mktemp("clean"), clean()))


# ---------------------------------------------------------------------------
# Layouts read exactly like the clean submission
# ---------------------------------------------------------------------------
def _mixed():
    files = clean()
    files["case_01.npy"] = npy_bytes(PRED[1].astype(np.int64))
    del files["case_01.png"]
    files["case_02.npz"] = npz_bytes(arr_0=PRED[2])
    del files["case_02.png"]
    files["case_03.npy"] = npy_bytes(np.asfortranarray(PRED[3].astype(np.int32)))
    del files["case_03.png"]
    return files


@pytest.mark.parametrize(
    "files",
    [
        clean(".npy"),
        clean(".npz"),
        clean(prefix="predictions/"),
        _mixed(),
        dict(
            clean(prefix="out/"),
            **{
                "__MACOSX/out/._case_00.png": b"\x00\x05",
                "out/.DS_Store": b"x",
                "metadata": b"a: 1",
                "README.md": b"#",
            },
        ),
    ],
    ids=["npy", "npz", "wrapper-folder", "mixed-formats", "os-junk"],
)
def test_layouts_read_like_the_clean_submission(competition, tmp_path, expected, files):
    np.testing.assert_array_equal(read(competition, submit(tmp_path, files)), expected)


def test_a_palette_png_is_read_by_its_indices(competition, tmp_path, expected):
    Image = pytest.importorskip("PIL.Image")
    files = {}
    for ident, mask in zip(IDS, PRED):
        image = Image.fromarray(mask, mode="L").convert("P")
        image.putpalette([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255] + [0] * 756)
        image = Image.frombytes("P", mask.shape[::-1], mask.tobytes())
        image.putpalette([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255] + [0] * 756)
        out = io.BytesIO()
        image.save(out, "PNG")
        files[ident + ".png"] = out.getvalue()
    np.testing.assert_array_equal(read(competition, submit(tmp_path, files)), expected)


# ---------------------------------------------------------------------------
# Refusals: one sentence naming the file and what was expected
# ---------------------------------------------------------------------------
def _with(change):
    files = clean()
    change(files)
    return files


def _png_chunks_broken(data, where):
    broken = bytearray(data)
    broken[where] ^= 0x5A
    return bytes(broken)


def _rgb_png():
    header = struct.pack(">IIBBBBB", SHAPE[1], SHAPE[0], 8, 2, 0, 0, 0)
    chunk = lambda kind, payload: (  # noqa: E731
        struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(payload, zlib.crc32(kind)))
    )
    raw = b"".join(b"\x00" + b"\x01\x02\x03" * SHAPE[1] for _ in range(SHAPE[0]))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


CASES = [
    ("empty", {}, r"^the submission holds no files; expected one file per test unit"),
    (
        "missing",
        _with(lambda f: [f.pop("case_03.png"), f.pop("case_05.png")]),
        r"no mask for 2 of the 8 test images \(case_03, case_05\)",
    ),
    ("extra", _with(lambda f: f.update({"case_99.png": encode_png(PRED[0])})), r"^case_99\.png names no test image"),
    (
        "twice",
        _with(lambda f: f.update({"case_04.npy": npy_bytes(PRED[4])})),
        r"case_04\.npy and case_04\.png are two masks of image case_04",
    ),
    (
        "csv",
        _with(lambda f: f.update({"predictions.csv": b"id,label\n"})),
        r"^predictions\.csv is not a mask; expected only masks \(\.png, \.npy or \.npz\)",
    ),
    (
        "deep",
        dict((("a/" * 7) + k, v) for k, v in clean().items()),
        r"^a/a/a/a/a/a/a/case_00\.png is nested 7 folders deep; expected the masks at the top of the zip or in "
        r"folders at most 6 deep$",
    ),
    (
        "two-folders",
        dict(clean(prefix="x/"), **{"y/case_00.png": encode_png(PRED[0])}),
        r"and 4 more name no test image",
    ),
    (
        "size-png",
        _with(lambda f: f.update({"case_02.png": encode_png(PRED[2][:, :19])})),
        r"^case_02\.png is 12 x 19 pixels; expected 12 x 20 pixels, the size of its test image",
    ),
    (
        "size-npy",
        _with(lambda f: f.update({"case_02.png": npy_bytes(PRED[2].T)})),
        r"^case_02\.png is 20 x 12 pixels; expected 12 x 20",
    ),
    (
        "channel",
        _with(lambda f: f.update({"case_06.png": npy_bytes(PRED[6][None])})),
        r"drop the channel axis \(mask\.squeeze\(\)\)",
    ),
    (
        "class",
        _with(lambda f: f.update({"case_01.png": encode_png(np.where(PRED[1] == 2, 7, PRED[1]))})),
        r"^case_01\.png holds 7 at row \d+, column \d+ \(counting from 0\); the class indices are 0 to 3$",
    ),
    (
        "ignore-value",
        _with(lambda f: f.update({"case_01.png": encode_png(np.full(SHAPE, 255))})),
        r"holds 255 at row 0, column 0",
    ),
    (
        "float",
        dict(clean(".npy"), **{"case_05.npy": npy_bytes(PRED[5].astype(np.float32))}),
        r"^case_05\.npy holds floating-point values; expected integer class indices",
    ),
    (
        "negative",
        dict(clean(".npy"), **{"case_05.npy": npy_bytes(PRED[5].astype(np.int8) - 1)}),
        r"holds the negative value -1",
    ),
    (
        "pickle",
        dict(
            clean(".npy"),
            **{"case_05.npy": npy_bytes(np.array([{"a": 1}] * 240, dtype=object).reshape(SHAPE), allow_pickle=True)},
        ),
        r"holds non-integer \(\|O\) values",
    ),
    (
        "npy-truncated",
        dict(clean(".npy"), **{"case_07.npy": npy_bytes(PRED[7])[:-30]}),
        r"^case_07\.npy is truncated: it holds 210 of the 240 bytes",
    ),
    (
        "npy-header",
        dict(clean(".npy"), **{"case_07.npy": b"\x93NUMPY\x01\x00\x10\x00{'descr': __import__}"}),
        r"header that is not numpy's",
    ),
    ("png-truncated", _with(lambda f: f.update({"case_00.png": f["case_00.png"][:40]})), r"^case_00\.png is truncated"),
    (
        "png-crc",
        _with(lambda f: f.update({"case_00.png": _png_chunks_broken(f["case_00.png"], 20)})),
        r"^case_00\.png is corrupt: the checksum of its IHDR chunk is wrong",
    ),
    ("rgb", _with(lambda f: f.update({"case_00.png": _rgb_png()})), r"is an RGB PNG; expected a one-channel mask"),
    (
        "jpeg-named-png",
        _with(lambda f: f.update({"case_00.png": b"\xff\xd8\xff\xe0JFIF" + b"\x00" * 50})),
        r"^case_00\.png is not a PNG file",
    ),
    (
        "npz-two",
        dict(clean(".npz"), **{"case_03.npz": npz_bytes(a=PRED[3], b=PRED[3])}),
        r"^case_03\.npz holds 2 arrays; expected exactly one",
    ),
    ("npz-junk", dict(clean(".npz"), **{"case_03.npz": b"PK\x03\x04 not a zip"}), r"is not a readable \.npz"),
    (
        "too-large",
        dict(clean(".npy"), **{"case_00.npy": npy_bytes(np.zeros((12, 20, 40), dtype=np.int64))}),
        r"^case_00\.npy is 76,928 bytes, more than the 67,712 a mask of this size may take",
    ),
]


@pytest.mark.parametrize("name, files, pattern", CASES, ids=[c[0] for c in CASES])
def test_each_mistake_is_one_sentence_naming_the_file(competition, tmp_path, name, files, pattern):
    import re

    message = refused(competition, tmp_path, files)
    assert re.search(pattern, message), message


def test_the_masks_total_size_is_bounded_by_max_megabytes(competition, tmp_path):
    ref, config, gold = competition
    small = dataclasses.replace(config, files=dataclasses.replace(config.files, max_megabytes=0.01))
    files = dict(("case_%02d.npy" % i, npy_bytes(PRED[i].astype(np.int64))) for i in range(N))
    with pytest.raises(SubmissionError) as info:
        res = submit(tmp_path, files)
        read_submission(res, small, gold)
    assert str(info.value) == "the submission's files are 0.016 MB together; the limit is 0.01 MB"


def test_many_extra_files_are_named_in_a_short_list(competition, tmp_path):
    """1,010 extra masks: one sentence naming five and counting the rest (the listing itself stops at 200,000)."""
    files = clean()
    files.update(("junk/%04d.png" % i, b"") for i in range(1010))
    message = refused(competition, tmp_path, files)
    assert message.startswith("junk/0000.png, junk/0001.png, junk/0002.png, junk/0003.png, junk/0004.png and 1005 more")


def test_a_symbolic_link_is_refused(competition, tmp_path):
    res = submit(tmp_path, clean())
    os.remove(os.path.join(res, "case_01.png"))
    os.symlink(os.path.join(res, "case_00.png"), os.path.join(res, "case_01.png"))
    with pytest.raises(SubmissionError, match="case_01.png is a symbolic link"):
        read(competition, res)


def test_an_npz_bomb_inflates_no_further_than_the_bound(competition, tmp_path):
    """A 32 MB array of zeros compressed into a small .npz: refused from its declared size, in little time."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("mask.npy", "w", force_zip64=True) as handle:
            handle.write(b"\x93NUMPY\x01\x00v\x00" + b" " * 118)
            block = b"\x00" * (1 << 20)
            for _ in range(32):
                handle.write(block)
    files = dict(clean(".npz"), **{"case_00.npz": out.getvalue()})
    start = time.process_time()
    assert "more than the" in refused(competition, tmp_path, files)
    assert time.process_time() - start < 2.0


def test_names_with_invisible_characters_are_escaped(competition, tmp_path):
    message = refused(competition, tmp_path, dict(clean(), **{"case\u202e_0\x1b[31m.png": encode_png(PRED[0])}))
    assert "\x1b" not in message and "\u202e" not in message and "names no test image" in message


def test_messages_never_quote_the_gold(competition, tmp_path):
    """A refused mask's message names the participant's values and the image size, never gold pixels or counts."""
    _, _, gold = competition
    secrets = set(str(int(v)) for v in np.asarray(gold.values).ravel() if v > 20)
    for _, files, _ in CASES:
        with pytest.raises(SubmissionError) as info:
            read(competition, submit(tmp_path / str(len(os.listdir(str(tmp_path)))), files))
        words = set(str(info.value).replace(",", " ").replace(";", " ").split())
        assert not (words & secrets), str(info.value)


# ---------------------------------------------------------------------------
# The organizer's gold folder
# ---------------------------------------------------------------------------
def _gold_error(tmp_path, masks, config_extra=None):
    ref = tmp_path / "ref"
    (ref / "masks").mkdir(parents=True)
    for name, data in masks.items():
        (ref / "masks" / name).write_bytes(data)
    data = {"task": "segmentation", "labels": LABELS, "metric": "miou", "files": {"gold": "masks"}}
    data.update(config_extra or {})
    (ref / "config.yaml").write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError) as info:
        read_gold(str(ref), load_config(str(ref), path=str(ref / "config.yaml")))
    return str(info.value)


def test_gold_mistakes_name_the_file_without_its_values(tmp_path):
    bad = GOLD[0].copy()
    bad[5, 5] = 17
    message = _gold_error(tmp_path / "a", {"case_00.png": encode_png(bad)})
    assert message.startswith("ref/masks/case_00.png holds a value that is neither a class index (0 to 3")
    assert "17" not in message and "row" not in message
    assert "ref/masks holds no files" in _gold_error(tmp_path / "b", {"notes.md": b"#"})
    assert "is truncated" in _gold_error(tmp_path / "c", {"case_00.png": encode_png(GOLD[0])[:30]})
    message = _gold_error(tmp_path / "d", {"case_00.png": encode_png(GOLD[0])}, {"files": {"gold": "nowhere"}})
    assert "the gold file ref/nowhere (files.gold) is missing" in message


def test_the_program_exits_1_with_one_line(competition, tmp_path):
    from leaderboard_ci.tools.local_worker import run_scoring

    ref, _, _ = competition
    archive = tmp_path / "sub.zip"
    with zipfile.ZipFile(str(archive), "w") as handle:
        for name, data in _with(lambda f: f.pop("case_03.png")).items():
            handle.writestr("preds/" + name, data)
    run = run_scoring(
        str(tmp_path / "run"),
        os.path.join(os.path.dirname(os.path.dirname(__file__)), "scoring_program"),
        ref,
        str(archive),
    )
    assert run.returncode == 1 and run.scores is None
    assert run.stderr.strip().count("\n") == 0 and "no mask for 1 of the 8 test images (case_03)" in run.stderr


# ---------------------------------------------------------------------------
# files.unscored_ids: ignore (decoy images in the public test set)
# ---------------------------------------------------------------------------
def _ignoring(competition, **files):
    ref, config, gold = competition
    return (
        ref,
        dataclasses.replace(config, files=dataclasses.replace(config.files, unscored_ids="ignore", **files)),
        gold,
    )


def test_unscored_masks_are_refused_or_read_checked_and_dropped(competition, tmp_path, expected):
    decoy = np.zeros((5, 7), dtype=np.uint8)  # an unscored image may have any size
    with_decoy = dict(clean(), **{"zz_decoy.png": encode_png(decoy)})
    assert "zz_decoy" in refused(competition, tmp_path / "a", with_decoy)  # error (the default)
    ignoring = _ignoring(competition)
    assert np.array_equal(read(ignoring, submit(tmp_path / "b", with_decoy)), expected)
    bad = dict(clean(), **{"zz_decoy.png": encode_png(np.full((5, 7), 9, dtype=np.uint8))})
    with pytest.raises(SubmissionError, match="zz_decoy"):  # a decoy's values are still checked
        read(ignoring, submit(tmp_path / "c", bad))
    short = dict(with_decoy)
    del short[IDS[3] + ".png"]
    with pytest.raises(SubmissionError) as info:  # a missing scored mask: neither a count nor an id
        read(ignoring, submit(tmp_path / "d", short))
    message = str(info.value)
    assert "some of the test images" in message and IDS[3] not in message and not any(c.isdigit() for c in message), (
        message
    )
    with pytest.raises(SubmissionError, match="max_ids"):
        read(_ignoring(competition, max_ids=N), submit(tmp_path / "e", with_decoy))
