"""Reading one mask file: PNG, ``.npy`` or ``.npz``, bounded in bytes and pixels.

:func:`read_mask` returns the mask as a 2-d array of unsigned class indices
(uint8, or uint16 when a value exceeds 255), or raises :class:`MaskError` with
a phrase that starts with a verb (``is truncated: ...``); the caller puts the
file's name in front.  Nothing here knows the gold: the caller checks the
shape and the values (:func:`check_values`).

* **PNG**: :func:`.png.decode_png` (8-bit grayscale or palette, and the other
  one-channel depths; numpy and zlib, Pillow only as a faster path).
* **.npy**: the header is parsed here (``ast.literal_eval`` of at most
  :data:`MAX_HEADER` characters, never a pickle), the shape and dtype are
  checked before any data is read, and the file must hold exactly the bytes
  the header announces.  Integer and boolean arrays only.
* **.npz**: a zip holding exactly one ``.npy`` (``np.savez`` /
  ``np.savez_compressed`` of one array); the member is read with a bound on
  its decompressed size, so a zip bomb costs at most that bound.

Standard library and numpy only (Python 3.7, numpy 1.17).
"""

from __future__ import annotations

import ast
import os
import struct
import zipfile
import zlib

import numpy as np

from .png import PNG_SIGNATURE, PngError, decode_png

__all__ = ["MaskError", "MASK_EXTENSIONS", "MAX_HEADER", "read_mask", "check_values", "mask_shape_text"]

#: File extensions read as masks (lower case).
MASK_EXTENSIONS = (".png", ".npy", ".npz")
#: The longest ``.npy`` header read (numpy's own limit is 10,000 characters).
MAX_HEADER = 65536
_NPY_MAGIC = b"\x93NUMPY"
_SAVE_HINT = "save it with numpy.save(path, mask.astype(numpy.uint8))"


class MaskError(ValueError):
    """What is wrong with a mask file, as a phrase starting with a verb; the caller names the file."""


def mask_shape_text(shape):
    """``"512 x 1024 pixels"`` (height x width) for a message."""
    return "{:,} x {:,} pixels".format(*shape) if len(shape) == 2 else "an array of shape %s" % (tuple(shape),)


def _read_bounded(path, max_bytes):
    size = os.stat(path).st_size
    if size > max_bytes:
        raise MaskError(
            "is {:,} bytes, more than the {:,} a mask of this size may take; save it as an 8-bit PNG or a "
            "uint8 .npy".format(size, int(max_bytes))
        )
    with open(path, "rb") as handle:
        return handle.read(int(max_bytes) + 1)


def _check_shape(shape, expected, max_pixels):
    if len(shape) != 2:
        raise MaskError(
            "holds %s; expected a 2-d mask (height x width) of class indices" % mask_shape_text(shape)
            if len(shape) != 3 or 1 not in (shape[0], shape[-1])
            else "holds an array of shape %s; expected a 2-d mask (height x width): drop the channel axis "
            "(mask.squeeze())" % (tuple(shape),)
        )
    if expected is not None and tuple(shape) != tuple(expected):
        raise MaskError(
            "is %s; expected %s, the size of its test image" % (mask_shape_text(shape), mask_shape_text(expected))
        )
    if shape[0] * shape[1] > max_pixels:
        raise MaskError("is %s, more than the {:,} a mask may have".format(max_pixels) % mask_shape_text(shape))
    if shape[0] * shape[1] == 0:
        raise MaskError("has no pixels (%s); expected a mask of its test image" % mask_shape_text(shape))


def _npy_header(data, where):
    """``(shape, fortran_order, dtype, offset)`` of the ``.npy`` bytes ``data`` (MaskError)."""
    if not data.startswith(_NPY_MAGIC) or len(data) < 10:
        raise MaskError("is not a .npy file%s; %s" % (where, _SAVE_HINT))
    major = data[6:7]
    if major == b"\x01":
        (length,), start = struct.unpack("<H", data[8:10]), 10
    elif major in (b"\x02", b"\x03"):
        if len(data) < 12:
            raise MaskError("is truncated%s: it ends inside its header; %s" % (where, _SAVE_HINT))
        (length,), start = struct.unpack("<I", data[8:12]), 12
    else:
        raise MaskError("is a .npy file of a version numpy does not write%s; %s" % (where, _SAVE_HINT))
    if length > MAX_HEADER:
        raise MaskError("has a header of {:,} bytes%s; expected a header of numpy.save".format(length) % where)
    if start + length > len(data):
        raise MaskError("is truncated%s: it ends inside its header; %s" % (where, _SAVE_HINT))
    try:
        header = ast.literal_eval(data[start : start + length].decode("latin-1"))
        descr, fortran, shape = header["descr"], header["fortran_order"], header["shape"]
        if not isinstance(descr, str) or not isinstance(shape, tuple) or not isinstance(fortran, bool):
            raise TypeError("not a plain array")
        dtype = np.dtype(descr)
        shape = tuple(int(s) for s in shape)
    except Exception:  # noqa: BLE001 - any malformed header is the same mistake for the participant
        raise MaskError("has a header that is not numpy's%s; %s" % (where, _SAVE_HINT))
    if any(s < 0 for s in shape):
        raise MaskError("has a header that is not numpy's%s; %s" % (where, _SAVE_HINT))
    return shape, fortran, dtype, start + length


def _npy_mask(data, expected, max_pixels, where=""):
    shape, fortran, dtype, offset = _npy_header(data, where)
    if dtype.kind not in "biu" or dtype.hasobject:
        raise MaskError(
            "holds %s values%s; expected integer class indices (convert with mask.astype(numpy.uint8))"
            % ("floating-point" if dtype.kind in "fc" else "non-integer (%s)" % dtype.str, where)
        )
    _check_shape(shape, expected, max_pixels)
    need = shape[0] * shape[1] * dtype.itemsize
    if len(data) - offset < need:
        raise MaskError(
            "is truncated%s: it holds {:,} of the {:,} bytes its header announces; {}".format(
                len(data) - offset, need, _SAVE_HINT
            )
            % where
        )
    if len(data) - offset > need:
        raise MaskError("holds more bytes than its header announces%s; %s" % (where, _SAVE_HINT))
    values = np.frombuffer(data, dtype=dtype, count=shape[0] * shape[1], offset=offset)
    return values.reshape(shape, order="F" if fortran else "C")


def _npz_mask(path, expected, max_pixels, max_bytes):
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        raise MaskError("is not a readable .npz (zip) file; save the mask with numpy.savez_compressed(path, mask)")
    with archive:
        members = [m for m in archive.infolist() if not m.filename.endswith("/")]
        if len(members) != 1 or not members[0].filename.endswith(".npy"):
            raise MaskError(
                "holds %d arrays; expected exactly one, the mask (numpy.savez_compressed(path, mask))"
                % sum(1 for m in members if m.filename.endswith(".npy"))
            )
        member = members[0]
        if member.file_size > max_bytes:
            raise MaskError(
                "holds an array of {:,} bytes, more than the {:,} a mask of this size may take".format(
                    member.file_size, int(max_bytes)
                )
            )
        try:
            with archive.open(member) as handle:
                data = handle.read(int(max_bytes) + 1)
        except (zipfile.BadZipFile, zlib.error, OSError, EOFError, ValueError, NotImplementedError, RuntimeError):
            raise MaskError("is corrupt: its array cannot be decompressed; save the mask again")
    if len(data) > max_bytes:
        raise MaskError("holds an array larger than a mask of this size may take")
    return _npy_mask(data, expected, max_pixels, " (its array %s)" % member.filename[:40])


def read_mask(path, max_pixels, max_bytes, expected=None, pillow=True):
    """The mask in file ``path`` as a 2-d array of unsigned integers (uint8, or uint16 above 255).

    Parameters
    ----------
    path : str
    max_pixels : int
        The most pixels a mask may have (checked before decoding).
    max_bytes : int
        The most bytes the file (or an ``.npz``'s array) may have.
    expected : tuple of int, optional
        The ``(height, width)`` the mask must have (checked before decoding).
    pillow : bool
        Let Pillow decode 8-bit PNGs when it is installed (the same values).

    Raises
    ------
    MaskError
        A phrase starting with a verb; the caller names the file.
    """
    extension = os.path.splitext(path)[1].lower()
    if extension == ".npz":
        mask = _npz_mask(path, expected, max_pixels, max_bytes)
    else:
        data = _read_bounded(path, max_bytes)
        if extension == ".npy" or data.startswith(_NPY_MAGIC):
            mask = _npy_mask(data, expected, max_pixels)
        elif data.startswith(PNG_SIGNATURE) or extension == ".png":
            try:
                mask = decode_png(data, max_pixels if expected is None else expected[0] * expected[1], pillow)
            except PngError as exc:
                raise MaskError(str(exc))
            _check_shape(mask.shape, expected, max_pixels)
        else:
            raise MaskError("is not a mask; expected a PNG, .npy or .npz file")
    return _unsigned(mask)


def _unsigned(mask):
    """The mask as uint8 (values up to 255) or uint16 (up to 65535); MaskError for others."""
    if mask.dtype == np.uint8:
        return mask
    if mask.dtype == np.bool_:
        return mask.view(np.uint8)
    low, high = int(mask.min()), int(mask.max())
    if low < 0:
        raise MaskError("holds the negative value %d; expected class indices (0 or more)" % low)
    if high > 65535:
        raise MaskError("holds the value {:,}; expected class indices (at most 65,535)".format(high))
    return mask.astype(np.uint8 if high <= 255 else np.uint16)


def check_values(mask, n_classes, allowed=None):
    """``None``, or the phrase saying which value of ``mask`` is not a class index below ``n_classes``.

    ``allowed`` is one more value that may appear (the gold's ``ignore_index``).
    The phrase names the first such pixel (row and column) and its value: the
    caller's file, never the gold's, so it may be quoted to its author.
    """
    k = int(n_classes)
    if int(mask.max()) < k:
        return None
    bad = mask >= k
    if allowed is not None:
        bad &= mask != allowed
    if not bad.any():
        return None
    first = int(np.argmax(bad.ravel()))
    row, column = divmod(first, mask.shape[1])
    return "holds %d at row %d, column %d (counting from 0); the class indices are 0 to %d" % (
        int(mask.ravel()[first]),
        row,
        column,
        k - 1,
    )
