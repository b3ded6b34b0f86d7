"""The numpy + zlib PNG decoder of segmentation masks (``tasks/segmentation/png.py``).

Files are written here by a small encoder that chooses each row's filter (None, Sub, Up, Average,
Paeth, or a random one per row), the bit depth, palette or grayscale and Adam7 interlacing, so
every path of the decoder is exercised; Pillow reads the same files as the reference (it scales
grayscale below 8 bits to 0-255, so those are compared with the array written).  The decoder
with Pillow as its fast path and without it give the same arrays.  Then the hostile files: bad
CRCs, truncation, extra data, colour types, decompression bombs, each one phrase.
"""

import io
import struct
import time
import zlib

import numpy as np
import pytest

from leaderboard_ci.tasks.segmentation.png import PngError, decode_png, encode_png, unfilter

Image = pytest.importorskip("PIL.Image")

ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2))


def chunk(kind, payload):
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(payload, zlib.crc32(kind)))


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    return np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))


def _filter_rows(rows, bpp, kinds):
    """Forward PNG filters: each scanline (uint8) filtered with its kind; returns the bytes with kind bytes."""
    rows = rows.astype(np.int64)
    out = []
    previous = np.zeros(rows.shape[1], dtype=np.int64)
    for row, kind in zip(rows, kinds):
        a = np.concatenate([np.zeros(bpp, dtype=np.int64), row[:-bpp]])
        c = np.concatenate([np.zeros(bpp, dtype=np.int64), previous[:-bpp]])
        b = previous
        predicted = [0 * row, a, b, (a + b) // 2, _paeth(a, b, c)][kind]
        out.append(bytes([kind]) + ((row - predicted) % 256).astype(np.uint8).tobytes())
        previous = row
    return b"".join(out)


def _scanlines(mask, depth):
    """The unfiltered scanlines of a mask at a bit depth (big-endian pairs at 16, packed bits below 8)."""
    if depth == 16:
        return mask.astype(">u2").view(np.uint8).reshape(mask.shape[0], -1)
    if depth == 8:
        return mask.astype(np.uint8)
    per_byte = 8 // depth
    width = -(-mask.shape[1] // per_byte) * per_byte
    padded = np.zeros((mask.shape[0], width), dtype=np.uint8)
    padded[:, : mask.shape[1]] = mask
    groups = padded.reshape(mask.shape[0], -1, per_byte)
    shifts = np.arange(8 - depth, -1, -depth, dtype=np.uint8)
    return (groups << shifts).sum(axis=2).astype(np.uint8)


def write_png(mask, depth=8, palette=False, interlace=False, kinds="random", seed=0, split_idat=1, extra=b""):
    """A PNG of ``mask`` with the given layout; ``kinds`` is a filter type (0-4) or "random" per row."""
    rng = np.random.RandomState(seed)
    height, width = mask.shape
    bpp = 2 if depth == 16 else 1
    passes = [(0, 0, 1, 1)] if not interlace else ADAM7
    raw = b""
    for x0, y0, dx, dy in passes:
        sub = mask[y0::dy, x0::dx]
        if sub.size == 0:
            continue
        lines = _scanlines(sub, depth)
        chosen = rng.randint(0, 5, size=lines.shape[0]) if kinds == "random" else [kinds] * lines.shape[0]
        raw += _filter_rows(lines, bpp, chosen)
    data = zlib.compress(raw + extra, 6)
    parts = [data[i::split_idat] for i in range(split_idat)] if split_idat > 1 else [data]
    if split_idat > 1:  # consecutive IDAT chunks, cut at arbitrary places
        step = -(-len(data) // split_idat)
        parts = [data[i : i + step] for i in range(0, len(data), step)]
    header = struct.pack(">IIBBBBB", width, height, depth, 3 if palette else 0, 0, 0, 1 if interlace else 0)
    body = chunk(b"IHDR", header)
    if palette:
        body += chunk(b"PLTE", bytes(range(256)) * 3)  # 256 entries, colours irrelevant
        body += chunk(b"tRNS", b"\xff" * 4)
    body += chunk(b"tEXt", b"Comment\x00mask")
    for part in parts:
        body += chunk(b"IDAT", part)
    return b"\x89PNG\r\n\x1a\n" + body + chunk(b"IEND", b"")


def shapes_mask(rng, height, width, n_classes):
    rows, cols = np.mgrid[:height, :width]
    mask = np.zeros((height, width), dtype=np.int64)
    for _ in range(6):
        c = rng.randint(0, n_classes)
        cy, cx, r = rng.randint(0, height), rng.randint(0, width), rng.randint(2, max(3, height // 2))
        mask[(rows - cy) ** 2 + (cols - cx) ** 2 <= r * r] = c
    return mask


@pytest.mark.parametrize("depth", [1, 2, 4, 8, 16])
@pytest.mark.parametrize("interlace", [False, True])
@pytest.mark.parametrize("kinds", [0, 1, 2, 3, 4, "random"])
def test_every_filter_depth_and_interlace_decodes_to_the_mask(depth, interlace, kinds):
    rng = np.random.RandomState(depth * 7 + interlace)
    top = 2**depth
    for height, width in ((1, 1), (3, 5), (13, 17), (40, 33)):
        for mask in (shapes_mask(rng, height, width, top), rng.randint(0, top, size=(height, width))):
            data = write_png(mask, depth, interlace=interlace, kinds=kinds, seed=height)
            decoded = decode_png(data, 10**6, pillow=False)
            assert decoded.dtype == (np.uint16 if depth == 16 else np.uint8)
            np.testing.assert_array_equal(decoded, mask)
            np.testing.assert_array_equal(decode_png(data, 10**6), mask)  # the Pillow path where it applies
            if depth in (8, 16):  # Pillow scales grayscale below 8 bits: compare it at 8 and 16 only
                np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(data))).astype(np.int64), mask)


@pytest.mark.parametrize("depth", [1, 2, 4, 8])
def test_palette_indices_are_the_classes_as_pillow_reads_them(depth):
    rng = np.random.RandomState(depth)
    for interlace in (False, True):
        mask = shapes_mask(rng, 19, 23, 2**depth)
        data = write_png(mask, depth, palette=True, interlace=interlace, seed=depth)
        np.testing.assert_array_equal(decode_png(data, 10**6, pillow=False), mask)
        image = Image.open(io.BytesIO(data))
        assert image.mode == "P"
        np.testing.assert_array_equal(np.asarray(image), mask)


def test_files_pillow_writes_decode_like_pillow_reads_them():
    """Pillow's own encoder (adaptive filters, zlib levels, optimize) for L and P masks."""
    rng = np.random.RandomState(5)
    for mode in ("L", "P"):
        for optimize in (False, True):
            mask = shapes_mask(rng, 61, 97, 19).astype(np.uint8)
            mask[rng.rand(*mask.shape) < 0.02] = 7  # speckle: Paeth rows with many breaks
            image = Image.fromarray(mask)
            if mode == "P":
                image = image.convert("L").convert("P")
            out = io.BytesIO()
            image.save(out, "PNG", optimize=optimize)
            data = out.getvalue()
            expected = np.asarray(Image.open(io.BytesIO(data)))
            np.testing.assert_array_equal(decode_png(data, 10**6, pillow=False), expected)


def test_the_encoder_writes_what_pillow_and_the_decoder_read():
    rng = np.random.RandomState(2)
    for top in (2, 19, 256, 3000):
        mask = rng.randint(0, top, size=(21, 34))
        data = encode_png(mask)
        np.testing.assert_array_equal(decode_png(data, 10**6, pillow=False), mask)
        np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(data))).astype(np.int64), mask)


def test_unfilter_takes_rows_in_any_mix_of_filters():
    """The vectorized unfiltering equals a scalar loop over the bytes (a property test on random rows)."""
    rng = np.random.RandomState(9)
    for bpp in (1, 2):
        data = rng.randint(0, 256, size=(60, 1 + 8 * bpp)).astype(np.uint8)
        data[:, 0] = rng.randint(0, 5, size=60)
        out = unfilter(data, bpp)
        previous = [0] * (data.shape[1] - 1)
        for r in range(data.shape[0]):
            row = []
            for i, f in enumerate(data[r, 1:].tolist()):
                a = row[i - bpp] if i >= bpp else 0
                b = previous[i]
                c = previous[i - bpp] if i >= bpp else 0
                p = a + b - c
                paeth = (
                    a
                    if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c)
                    else (b if abs(p - b) <= abs(p - c) else c)
                )
                row.append((f + [0, a, b, (a + b) // 2, paeth][data[r, 0]]) % 256)
            assert out[r].tolist() == row, (bpp, r, data[r, 0])
            previous = row


# ---------------------------------------------------------------------------
# Hostile files: one phrase each, bounded in time and memory
# ---------------------------------------------------------------------------
def _good():
    return write_png(shapes_mask(np.random.RandomState(0), 20, 30, 6), kinds="random")


def _refused(data, max_pixels=10**6):
    with pytest.raises(PngError) as info:
        decode_png(data, max_pixels, pillow=False)
    text = str(info.value)
    assert "\n" not in text and not text[0].isupper()
    return text


def test_broken_files_are_one_phrase_each():
    good = _good()
    assert "signature" in _refused(b"GIF89a" + good[6:])
    assert "truncated" in _refused(good[: len(good) // 2])
    assert "truncated" in _refused(good[:-12])  # no IEND
    corrupt = bytearray(good)
    corrupt[40] ^= 0xFF
    assert "checksum" in _refused(bytes(corrupt))
    header = struct.pack(">IIBBBBB", 30, 20, 8, 2, 0, 0, 0)
    rgb = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b"")
    assert "RGB" in _refused(rgb)
    for colour, name in ((6, "RGBA"), (4, "grayscale-with-alpha")):
        data = rgb.replace(chunk(b"IHDR", header), chunk(b"IHDR", header[:9] + bytes([colour]) + header[10:]))
        assert name in _refused(data)
    odd = struct.pack(">IIBBBBB", 30, 20, 3, 0, 0, 0, 0)
    assert "bit depth 3" in _refused(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", odd) + chunk(b"IEND", b""))
    mask = shapes_mask(np.random.RandomState(1), 20, 30, 6)
    assert "more bytes" in _refused(write_png(mask, extra=b"\x00" * 50))
    short = write_png(mask)
    idat = zlib.compress(_filter_rows(mask[:10].astype(np.uint8), 1, [0] * 10))
    start = short.index(b"IDAT") - 4
    end = short.index(b"IEND") - 4
    assert "truncated" in _refused(short[:start] + chunk(b"IDAT", idat) + short[end:])
    bad_filter = short[:start] + chunk(b"IDAT", zlib.compress(b"\x07" * (20 * 31))) + short[end:]
    assert "filter type 7" in _refused(bad_filter)
    garbage = short[:start] + chunk(b"IDAT", b"not zlib at all") + short[end:]
    assert "cannot be decompressed" in _refused(garbage)
    critical = short[:start] + chunk(b"ABCD", b"") + short[start:]
    assert "critical chunk ABCD" in _refused(critical)
    split = (
        short[:start] + chunk(b"IDAT", idat[:5]) + chunk(b"tEXt", b"a\x00b") + chunk(b"IDAT", idat[5:]) + short[end:]
    )
    assert "split" in _refused(split)
    assert "no image data" in _refused(short[:start] + short[end:])


def test_split_idat_chunks_are_one_stream():
    mask = shapes_mask(np.random.RandomState(4), 30, 40, 6)
    np.testing.assert_array_equal(decode_png(write_png(mask, split_idat=5), 10**6, pillow=False), mask)


def test_a_huge_header_is_refused_before_anything_is_decompressed():
    header = struct.pack(">IIBBBBB", 100000, 100000, 8, 0, 0, 0, 0)
    bomb = zlib.compress(b"\x00" * (1 << 24), 9)  # 16 MB of zeros in ~16 KB: never inflated
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", bomb) + chunk(b"IEND", b"")
    start = time.process_time()
    assert "10,000,000,000 pixels" not in _refused(data)  # the message gives the size as width x height
    assert "100,000 x 100,000 pixels" in _refused(data, max_pixels=64 * 2**20)
    assert time.process_time() - start < 1.0


def test_a_zlib_bomb_inflates_no_further_than_the_header_allows():
    """A small header over a stream of 64 MB of zeros: refused after inflating the header's size plus one byte."""
    header = struct.pack(">IIBBBBB", 64, 64, 8, 0, 0, 0, 0)
    bomb = zlib.compress(b"\x00" * (64 << 20), 9)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", bomb) + chunk(b"IEND", b"")
    start = time.process_time()
    assert "more bytes" in _refused(data)
    assert time.process_time() - start < 1.0
