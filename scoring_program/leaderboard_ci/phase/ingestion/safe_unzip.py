"""Unzipping untrusted archives safely, within limits.

Everything is written inside the destination folder.  A member whose name is
absolute, has a drive letter, a ``..`` component or a NUL (backslashes count
as separators) rejects the whole archive (:class:`Rejected`); symbolic links
and other special entries are skipped (``external_attr``), as are
``__MACOSX/`` and dotfiles.  Sizes are checked from the central directory
before anything is written (total, ratio per member, member count, directory
size; the end-of-central-directory record is parsed first, so a zip claiming
millions of members is refused before ``zipfile`` reads them) and again while
streaming: every copy counts its bytes and stops at the declared size and at
the budget, so a lying header cannot get past a limit.  See :class:`UnzipLimits`.

Standard library only.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import struct
import zipfile
import zlib
from dataclasses import dataclass

from ...scoring.errors import ConfigError
from ...scoring.text_files import quote

try:  # Python may be built without lzma; its zips then fail to open, which is reported
    from lzma import LZMAError
except ImportError:  # pragma: no cover
    LZMAError = zlib.error

__all__ = [
    "UnzipLimits",
    "Rejected",
    "safe_extract",
    "open_zip",
    "is_zip_file",
    "extract_members",
    "extract_zip_file",
    "safe_parts",
    "split_name",
    "is_ignored",
    "entry_kind",
    "check_member",
    "Allowance",
    "copy_counted",
    "create_file",
    "inside",
    "describe_error",
    "format_size",
    "directory_size",
    "CORRUPT_ERRORS",
    "ZIP_MAGIC",
    "IGNORED_NAMES",
    "KiB",
    "MiB",
    "GiB",
]


KiB = 1024


MiB = 1024 * KiB


GiB = 1024 * MiB


_CHUNK = 256 * KiB


ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


def _supported_methods():
    """The compression methods this Python can read (bzip2 and LZMA need their modules)."""
    methods = [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED]
    for method, module in ((zipfile.ZIP_BZIP2, "bz2"), (zipfile.ZIP_LZMA, "lzma")):
        try:
            __import__(module)
        except ImportError:  # pragma: no cover
            continue
        methods.append(method)
    return tuple(methods)


_SUPPORTED_METHODS = _supported_methods()
#: Names of compression methods (APPNOTE 4.4.5), for messages.
_METHOD_NAMES = {
    1: "Shrink",
    6: "Implode",
    9: "Deflate64",
    12: "bzip2",
    14: "LZMA",
    93: "Zstandard",
    95: "XZ",
    96: "JPEG",
    97: "WavPack",
    98: "PPMd",
    99: "AES encryption",
}


CORRUPT_ERRORS = (zipfile.BadZipFile, zlib.error, LZMAError, EOFError, struct.error)


_WINDOWS_RESERVED = frozenset(
    ["CON", "PRN", "AUX", "NUL"] + ["COM%d" % i for i in range(1, 10)] + ["LPT%d" % i for i in range(1, 10)]
)


IGNORED_NAMES = ("__MACOSX", "Thumbs.db", "desktop.ini")


@dataclass(frozen=True)
class UnzipLimits:
    """Bounds on what unpacking the submissions may write and read.

    Attributes
    ----------
    max_total_bytes : int
        Uncompressed bytes written for the whole run (default 2 GiB).
    max_submission_bytes : int
        Uncompressed bytes of one submission, and the size of one submission
        zip taken out of a bulk download (default 512 MiB).
    max_members : int
        Members of one zip, bulk or submission (default 10,000).
    max_ratio : float
        A member that expands more than this many times (default 200:1)...
    ratio_min_bytes : int
        ...and to more than this (default 1 MiB) is a zip bomb.
    max_directory_bytes : int
        Size of a zip's central directory, read into memory when it is
        opened (default 16 MiB; checked before opening).
    max_path_depth : int
        Folder levels of a member's name inside a submission (default 32).
    """

    max_total_bytes: int = 2 * GiB
    max_submission_bytes: int = 512 * MiB
    max_members: int = 10000
    max_ratio: float = 200.0
    ratio_min_bytes: int = 1 * MiB
    max_directory_bytes: int = 16 * MiB
    max_path_depth: int = 32

    def __post_init__(self):
        for name in (
            "max_total_bytes",
            "max_submission_bytes",
            "max_members",
            "max_ratio",
            "max_directory_bytes",
            "max_path_depth",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not value > 0:
                raise ValueError("UnzipLimits.%s must be positive, got %r" % (name, value))
        if self.ratio_min_bytes < 0:
            raise ValueError("UnzipLimits.ratio_min_bytes must be >= 0, got %r" % (self.ratio_min_bytes,))


class Rejected(Exception):
    """A submission (or the input) refused by a check; the message is the reason."""


def format_size(n):
    """A byte count for a message: ``512 MiB``, ``1.5 KiB``, ``12 bytes``."""
    for unit, scale in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if n >= scale:
            return ("%.1f" % (n / scale)).rstrip("0").rstrip(".") + " " + unit
    return "%d bytes" % n


def _shown(name):
    """A member name in a message: quoted, invisible characters made visible, shortened."""
    return quote(name, 80)


def split_name(name):
    """A member name's components; backslashes are separators, empty and '.' parts dropped."""
    return [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]


def safe_parts(name):
    """The components of a member name, or :class:`Rejected` if it could escape its folder."""
    shown = _shown(name)
    if "\x00" in name:
        raise Rejected("the zip member %s has a NUL character in its name" % shown)
    text = name.replace("\\", "/")
    if text.startswith("/"):
        raise Rejected("the zip member %s has an absolute path" % shown)
    parts = split_name(text)
    if parts and re.match(r"^[A-Za-z]:", parts[0]):
        raise Rejected("the zip member %s starts with a drive letter" % shown)
    for part in parts:
        if part == "..":
            raise Rejected("the zip member %s has a '..' component (a path outside the zip)" % shown)
        if os.name == "nt" and (
            ":" in part or part.endswith((" ", ".")) or part.split(".")[0].upper() in _WINDOWS_RESERVED
        ):
            raise Rejected("the zip member %s is not a valid file name on Windows" % shown)
    return parts


def is_ignored(parts):
    """``__MACOSX/``, dotfiles, ``Thumbs.db`` and ``desktop.ini`` are never extracted."""
    return any(p.startswith(".") or p == "__MACOSX" for p in parts) or parts[-1] in IGNORED_NAMES


def entry_kind(info):
    """``file``, ``dir``, ``link`` or ``special``, from the name and the Unix mode bits."""
    kind = stat.S_IFMT(info.external_attr >> 16)
    if kind == stat.S_IFLNK:
        return "link"
    if kind == stat.S_IFDIR or info.filename.endswith(("/", "\\")):
        return "dir"
    if kind not in (0, stat.S_IFREG):
        return "special"
    return "file"


_EOCD = struct.Struct("<4s4H2LH")


_ZIP64_LOCATOR = struct.Struct("<4sLQL")


_ZIP64_EOCD = struct.Struct("<4sQ2H2L4Q")


def directory_size(handle):
    """``(members, directory bytes)`` from the end records of a zip, or None if there are none."""
    handle.seek(0, os.SEEK_END)
    size = handle.tell()
    start = max(0, size - _EOCD.size - 65535)
    handle.seek(start)
    tail = handle.read(size - start)
    pos = tail.rfind(b"PK\x05\x06")
    if pos < 0 or pos + _EOCD.size > len(tail):
        return None
    fields = _EOCD.unpack_from(tail, pos)
    count, directory = fields[4], fields[5]
    if count == 0xFFFF or directory == 0xFFFFFFFF:
        locator = start + pos - _ZIP64_LOCATOR.size
        if locator >= 0:
            handle.seek(locator)
            data = handle.read(_ZIP64_LOCATOR.size)
            if len(data) == _ZIP64_LOCATOR.size and data[:4] == b"PK\x06\x07":
                handle.seek(_ZIP64_LOCATOR.unpack(data)[2])
                record = handle.read(_ZIP64_EOCD.size)
                if len(record) == _ZIP64_EOCD.size and record[:4] == b"PK\x06\x06":
                    fields = _ZIP64_EOCD.unpack(record)
                    count, directory = fields[7], fields[8]
    return count, directory


def _check_directory(path, limits):
    """Refuse, before :class:`zipfile.ZipFile` reads it, a central directory over the limits."""
    with open(path, "rb") as handle:
        found = directory_size(handle)
    if found is None:
        return
    count, directory = found
    if count > limits.max_members:
        raise Rejected("the zip has %d members, over the limit of %d" % (count, limits.max_members))
    if directory > limits.max_directory_bytes:
        raise Rejected(
            "the zip's directory is %s, over the limit of %s"
            % (format_size(directory), format_size(limits.max_directory_bytes))
        )


def open_zip(path, limits):
    """A :class:`zipfile.ZipFile` whose member count is within the limits, or :class:`Rejected`."""
    try:
        _check_directory(path, limits)
        archive = zipfile.ZipFile(path)
    except Rejected:
        raise
    except (OSError, ValueError, NotImplementedError) + CORRUPT_ERRORS as exc:
        raise Rejected("is not a valid zip file (%s)" % describe_error(exc))
    if len(archive.infolist()) > limits.max_members:
        archive.close()
        raise Rejected("the zip has %d members, over the limit of %d" % (len(archive.infolist()), limits.max_members))
    return archive


def is_zip_file(path):
    """Whether a file on disk is a zip, by its name or its first bytes."""
    if path.lower().endswith(".zip"):
        return True
    with open(path, "rb") as handle:
        return handle.read(4) in ZIP_MAGIC


def describe_error(exc):
    """A short, path-free description of an exception for a skip reason."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    if isinstance(exc, CORRUPT_ERRORS) or isinstance(exc, (ValueError, NotImplementedError, RuntimeError)):
        text = str(exc).split("\n")[0][:200]
        return "%s: %s" % (type(exc).__name__, text) if text else type(exc).__name__
    return type(exc).__name__


@dataclass(frozen=True)
class Allowance:
    """How many bytes may still be written, and the sentence for going over."""

    limit: int
    what: str

    def refuse(self, what_grew):
        return Rejected("%s %s" % (what_grew, self.what))


def copy_counted(source, target, declared, allowance, shown):
    """Copy ``source`` to ``target``, stopping as soon as it exceeds ``declared`` or the allowance.

    Parameters
    ----------
    source, target : binary file objects
    declared : int
        The size the header (or ``stat``) announced; more data is a lie.
    allowance : Allowance
    shown : str
        The member's name for messages.

    Returns
    -------
    int
        The bytes copied.
    """
    written = 0
    cap = min(declared, allowance.limit)
    while True:
        chunk = source.read(min(_CHUNK, cap - written + 1))
        if not chunk:
            return written
        written += len(chunk)
        if written > declared:
            raise Rejected(
                "the zip member %s holds more data than its header declares (%s)" % (shown, format_size(declared))
            )
        if written > allowance.limit:
            raise allowance.refuse("the submission expands to more than")
        target.write(chunk)


def create_file(path):
    """A new binary file that is not reached through a symbolic link."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    return os.fdopen(os.open(path, flags, 0o644), "wb")


def inside(root, parts):
    """``root/parts...``, checked to resolve inside ``root`` (which is a real path)."""
    target = os.path.join(root, *parts)
    if not os.path.realpath(target).startswith(root + os.sep):
        raise Rejected("the zip member %s resolves outside its folder" % _shown("/".join(parts)))
    return target


def _check_ratio(info, limits, shown):
    if info.file_size > limits.ratio_min_bytes and info.file_size > limits.max_ratio * max(info.compress_size, 1):
        raise Rejected(
            "the zip member %s expands %d:1 (%s from %s), like a zip bomb; the limit is %g:1"
            % (
                shown,
                info.file_size // max(info.compress_size, 1),
                format_size(info.file_size),
                format_size(info.compress_size),
                limits.max_ratio,
            )
        )


def check_member(info, limits, shown):
    """Refuse, in one sentence, a member that cannot be read: encrypted, compressed an unknown way, a bomb."""
    if info.flag_bits & 0x1 or info.compress_type == 99:
        raise Rejected(
            "the zip member %s is encrypted (password-protected), so it cannot be read; zip the "
            "files again without a password" % shown
        )
    if info.compress_type not in _SUPPORTED_METHODS:
        name = _METHOD_NAMES.get(info.compress_type)
        raise Rejected(
            "the zip member %s is compressed with method %d%s, which cannot be read; zip the files "
            "again with the standard deflate method" % (shown, info.compress_type, " (%s)" % name if name else "")
        )
    _check_ratio(info, limits, shown)


def _plan(infos, limits, strip, skip_ignored=True):
    """Validated ``(info, parts, kind)`` to extract, the declared total, and notes; or :class:`Rejected`."""
    plan, notes, declared = [], [], 0
    for info in infos:
        parts = safe_parts(info.filename)[strip:]
        if not parts or (skip_ignored and is_ignored(parts)):
            continue
        shown = _shown("/".join(parts))
        if len(parts) > limits.max_path_depth:
            raise Rejected(
                "the zip member %s is nested %d folders deep, over the limit of %d"
                % (shown, len(parts) - 1, limits.max_path_depth)
            )
        kind = entry_kind(info)
        if kind in ("link", "special"):
            notes.append("ignored the %s %s" % ("symbolic link" if kind == "link" else "special file", shown))
            continue
        if kind == "file":
            check_member(info, limits, shown)
            declared += info.file_size
        plan.append((info, parts, kind))
    return plan, declared, notes


def extract_members(archive, infos, dest, limits, allowance, strip=0, skip_ignored=True):
    """Extract ``infos`` of ``archive`` into the new folder ``dest``; returns ``(bytes, notes)``.

    Every name is checked before anything is written; sizes are checked from
    the central directory, then counted while streaming.  With
    ``skip_ignored`` False, ``__MACOSX/``, dotfiles and the like are extracted
    too (as Codabench's worker does with a submission).
    """
    plan, declared, notes = _plan(infos, limits, strip, skip_ignored)
    if declared > allowance.limit:
        raise allowance.refuse("the submission's members declare %s, more than" % format_size(declared))
    os.makedirs(dest)
    root = os.path.realpath(dest)
    written = 0
    for info, parts, kind in plan:
        target = inside(root, parts)
        if kind == "dir":
            os.makedirs(target, exist_ok=True)
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        left = Allowance(allowance.limit - written, allowance.what)
        with archive.open(info) as source, create_file(target) as output:
            written += copy_counted(source, output, info.file_size, left, _shown("/".join(parts)))
    return written, notes


def extract_zip_file(path, dest, limits, allowance, skip_ignored=True):
    """Extract a whole zip on disk into ``dest``; returns ``(bytes, notes)``."""
    with open_zip(path, limits) as archive:
        return extract_members(archive, archive.infolist(), dest, limits, allowance, skip_ignored=skip_ignored)


def safe_extract(path, dest, limits=UnzipLimits()):
    """Extract a zip into ``dest`` with every check of this module (e.g. a reference-data zip).

    Parameters
    ----------
    path : str
        The zip.
    dest : str
        A folder that does not exist yet (or is empty).
    limits : UnzipLimits
        ``max_total_bytes`` bounds the whole extraction.

    Returns
    -------
    list of str
        Notes on what was left out (symbolic links, special files).

    Raises
    ------
    ConfigError
        If the zip is corrupt, unsafe or over a limit (nothing is left in ``dest``).
    """
    if os.path.isdir(dest) and os.listdir(dest):
        raise ConfigError("cannot extract %s: %s is not empty" % (os.path.basename(path), dest))
    if os.path.isdir(dest):
        os.rmdir(dest)
    allowance = Allowance(limits.max_total_bytes, "the limit of %s" % format_size(limits.max_total_bytes))
    try:
        return extract_zip_file(path, dest, limits, allowance)[1]
    except Exception as exc:  # any failure: nothing half-extracted is left behind
        shutil.rmtree(dest, ignore_errors=True)
        reason = str(exc) if isinstance(exc, Rejected) else describe_error(exc)
        raise ConfigError("%s cannot be extracted: %s" % (os.path.basename(path), reason))
