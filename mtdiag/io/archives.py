"""A test set that is a tree of files — WMT's mt-metrics-eval layout (:mod:`mtdiag.io.mtme`) — wherever it is: a
folder on disk, or a ``.zip`` / ``.tar`` / ``.tar.gz`` / ``.tgz`` archive of one, uploaded and read in memory
(:class:`FileTree`, :func:`open_tree`).

An archive is hostile until read. What one may cost is bounded before and while it is read (:class:`TreeBounds`):

- **members**: at most :attr:`TreeBounds.members` files (a zip's count is read from its end-of-central-directory
  record before Python parses the directory, so a zip of millions of empty entries is refused in microseconds; a
  tar's members are counted as their headers stream by);
- **bytes**: each member inflates to at most ``Limits.max_file_bytes`` and all the members read from one archive to
  at most :attr:`TreeBounds.total_bytes`, counted as the bytes come out of the decompressor — never trusted from the
  headers (a zip bomb's header may claim 1 KB), so a bomb is stopped at the bound, not inflated whole;
- **paths**: a member's name is a relative path of plain names — absolute paths, drive letters, ``..``, empty or
  NUL-bearing names are refused (nothing is ever written to disk, but a name is shown and matched, and a ``..`` in
  it means the archive was made to escape a folder); tar links, devices and FIFOs are skipped, never followed;
- **work**: a zip member is inflated only when read (the layout reads one language pair's files of a release that
  holds many); a tar streams once, each member's header size counted against the bytes before it is skipped, and
  keeps its files in memory; encrypted zip members are refused.

A folder on the server is trusted (the operator put it there) but its walk is bounded by the same member count.
"""

from __future__ import annotations

import copy
import io
import os

import struct
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path


from mtdiag.core.errors import InputError
from mtdiag.io.text import DEFAULT_LIMITS, Limits, Source

ZIP_SUFFIXES = (".zip",)
TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz")
ARCHIVE_SUFFIXES = (*ZIP_SUFFIXES, *TAR_SUFFIXES)
MAX_MEMBERS = 20_000
"""Files of one archive or folder tree: the WMT23 year of mt-metrics-eval holds ~4,000 (13 language pairs, ~70 metrics
each at three levels), the whole release (WMT19–24) ~25,000 — a single year is what one opens."""
TOTAL_FACTOR = 5
"""The bytes read from one archive, at most, in files of the largest size allowed (``Limits.max_file_bytes``): 1 GB
with the command line's defaults, 160 MB under the dashboard's default memory budget — a WMT23 zh-en with 70
metrics is ~100 MB."""
_READ_CHUNK = 1 << 20
_EOCD = b"PK\x05\x06"
_ZIP64_LOCATOR = b"PK\x06\x07"


@dataclass(frozen=True)
class TreeBounds:
    """What one tree may cost (module docstring).

    ``members`` files, ``total_bytes`` inflated bytes read from it, and the input ``limits`` (``max_file_bytes`` per
    file, and how to raise it)."""

    members: int
    total_bytes: int
    limits: Limits

    @classmethod
    def of(cls, limits: Limits) -> "TreeBounds":
        """The bounds of a tree under ``limits``.

        :data:`MAX_MEMBERS` files, and :data:`TOTAL_FACTOR` times the limit per file (``max_file_bytes``) in bytes."""
        return cls(MAX_MEMBERS, TOTAL_FACTOR * limits.max_file_bytes, limits)

    def file_too_large(self, display: str, size: int | None = None) -> InputError:
        """The error for a file of the tree over ``max_file_bytes`` (of ``size`` bytes, when known)."""
        what = f"has {size:,} bytes" if size is not None else "inflates to more bytes than one file may have"
        return self.limits.exceeded(display, "max_file_bytes", what)

    def too_many_bytes(self, display: str) -> InputError:
        """The error for a tree whose files read inflate to more than ``total_bytes``."""
        return InputError(display, f"inflates to more than {self.total_bytes:,} bytes in the files read (the limit is "
                                   f"{TOTAL_FACTOR} times the limit per file, {self.limits.max_file_bytes:,} bytes)")


def is_archive_name(name: str) -> bool:
    """Whether a file name is an archive this module opens (``.zip``, ``.tar``, ``.tar.gz``, ``.tgz``)."""
    return name.lower().endswith(ARCHIVE_SUFFIXES)


def member_path(name: str, display: str) -> str:
    """An archive member's name as a relative POSIX path (backslashes as separators, ``./`` dropped).

    Raises an :class:`InputError` naming the archive for a name that is absolute, climbs out (``..``) or holds a NUL."""
    cleaned = name.replace("\\", "/")
    parts = [p for p in cleaned.split("/") if p not in ("", ".")]
    if ("\x00" in cleaned or cleaned.startswith("/") or (len(cleaned) > 1 and cleaned[1] == ":")
            or ".." in parts):
        raise InputError(display, f"holds a member named {name[:80]!r}, outside the archive's own folder: refused "
                                  "(an archive's member names must be relative paths without '..')")
    return "/".join(parts)


class FileTree:
    """The files of a tree by relative POSIX path.

    :meth:`paths` lists them, :meth:`source` gives one as the :mod:`mtdiag.io` readers take it (a path on disk, or
    ``(display name, bytes)``)."""

    def __init__(self, name: str, paths: list[str]) -> None:
        self.name = name
        self._paths = tuple(sorted(paths))

    def paths(self) -> tuple[str, ...]:
        """The relative POSIX paths of the tree's files, sorted."""
        return self._paths

    def source(self, path: str) -> Source:
        """The file at ``path`` as the :mod:`mtdiag.io` readers take it: a path, or ``(display name, bytes)``."""
        raise NotImplementedError

    def display(self, path: str) -> str:
        """How messages name a file of the tree: ``archive.zip:wmt23/sources/en-de.txt``, or its path."""
        return f"{self.name}:{path}"

    def counted(self) -> "FileTree":
        """The tree for one reading of it — one language pair loaded.

        The bytes a reading inflates are counted against :attr:`TreeBounds.total_bytes` afresh (a tree opened once is
        read again for another pair or choice). Only a zip inflates as it is read; the others are themselves."""
        return self


class FolderTree(FileTree):
    """A folder on disk (read where it is)."""

    def __init__(self, root: Path, bounds: TreeBounds) -> None:
        paths = []
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            base = Path(folder).relative_to(root).as_posix()
            paths += [f if base == "." else f"{base}/{f}" for f in files if not f.startswith(".")]
            if len(paths) > bounds.members:
                raise InputError(str(root), f"holds more than {bounds.members:,} files: open the folder of one year "
                                            "(e.g. wmt23/), not a whole release")
        super().__init__(str(root), paths)
        self.root = root

    def source(self, path: str) -> Source:
        """The file's path on disk."""
        return self.root / path

    def display(self, path: str) -> str:
        """The file's path on disk, as messages name it."""
        return str(self.root / path)


class ZipTree(FileTree):
    """A zip archive in memory: members listed from its central directory, each inflated when read."""

    def __init__(self, name: str, data: bytes, bounds: TreeBounds) -> None:
        count = _zip_entries(data, name)
        if count > bounds.members:
            raise InputError(name, f"has {count:,} members; an archive may have at most {bounds.members:,}")
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(data))
        except (zipfile.BadZipFile, ValueError, NotImplementedError) as error:
            raise InputError(name, f"is not a readable zip file ({error})") from None
        self._info = {}
        for info in self._zip.infolist():
            if not info.is_dir():
                self._info[member_path(info.filename, name)] = info
        super().__init__(name, list(self._info))
        self._bounds, self._read = bounds, 0

    def counted(self) -> "ZipTree":
        """A copy of the tree whose count of inflated bytes starts at 0 (:meth:`FileTree.counted`)."""
        fresh = copy.copy(self)  # the same directory and archive; a counter of its own
        fresh._read = 0
        return fresh

    def source(self, path: str) -> Source:
        """The member at ``path`` inflated, as ``(display name, bytes)``.

        Raises an :class:`InputError` for an encrypted or unreadable member, or one that inflates past the tree's
        bounds."""
        info = self._info[path]
        if info.flag_bits & 0x1:
            raise InputError(self.display(path), "is encrypted: refused")
        bounds, display = self._bounds, self.display(path)
        parts, size = [], 0
        try:
            with self._zip.open(info) as member:
                while chunk := member.read(_READ_CHUNK):
                    size += len(chunk)
                    self._read += len(chunk)
                    if size > bounds.limits.max_file_bytes:
                        raise bounds.file_too_large(display)
                    if self._read > bounds.total_bytes:
                        raise bounds.too_many_bytes(self.name)
                    parts.append(chunk)
        except (zipfile.BadZipFile, EOFError, OSError, NotImplementedError, RuntimeError) as error:
            raise InputError(display, f"cannot be read from the zip file ({error})") from None
        return display, b"".join(parts)


class MemoryTree(FileTree):
    """Files already in memory (a tar archive, read once)."""

    def __init__(self, name: str, files: dict[str, bytes]) -> None:
        super().__init__(name, list(files))
        self._files = files

    def source(self, path: str) -> Source:
        """The file at ``path`` as ``(display name, bytes)``."""
        return self.display(path), self._files[path]


def _zip_entries(data: bytes, display: str) -> int:
    """The number of entries a zip's end-of-central-directory record (or its zip64 record) declares, read before
    anything parses the directory itself."""
    at = data.rfind(_EOCD, max(0, len(data) - (1 << 16) - 22))
    if at < 0 or at + 22 > len(data):
        raise InputError(display, "is not a zip file (no end-of-central-directory record)")
    count = struct.unpack_from("<H", data, at + 10)[0]
    locator = at - 20
    if count == 0xFFFF and locator >= 0 and data[locator:locator + 4] == _ZIP64_LOCATOR:
        record = struct.unpack_from("<Q", data, locator + 8)[0]
        if record + 56 > len(data):
            raise InputError(display, "is not a readable zip file (its zip64 record points outside the file)")
        count = struct.unpack_from("<Q", data, record + 32)[0]
    return count


def _tar_files(name: str, data: bytes, bounds: TreeBounds) -> dict[str, bytes]:
    """The regular files of a tar (any compression tarfile reads), streamed once and bounded (module docstring)."""
    files: dict[str, bytes] = {}
    members = total = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r|*") as tar:
            for info in tar:
                members += 1
                if members > bounds.members:
                    raise InputError(name, f"has more than {bounds.members:,} members; an archive may have at most "
                                           f"{bounds.members:,}")
                total += info.size
                if total > bounds.total_bytes:
                    raise bounds.too_many_bytes(name)
                if not info.isreg():
                    continue  # folders, links, devices: nothing to read, never followed
                path = member_path(info.name, name)
                if info.size > bounds.limits.max_file_bytes:
                    raise bounds.file_too_large(f"{name}:{path}", info.size)
                handle = tar.extractfile(info)
                files[path] = handle.read(info.size) if handle is not None else b""
    except (tarfile.TarError, EOFError, OSError, ValueError) as error:
        raise InputError(name, f"is not a readable tar archive ({error})") from None
    return files


def open_tree(source: str | os.PathLike[str] | tuple[str, bytes], *, limits: Limits = DEFAULT_LIMITS) -> FileTree:
    """The file tree of a folder (a path) or of an archive (a path, or an upload's ``(name, bytes)``)."""
    bounds = TreeBounds.of(limits)
    if not isinstance(source, tuple):
        path = Path(source)
        if path.is_dir():
            return FolderTree(path, bounds)
        if not path.is_file():
            raise InputError(str(source), "no such file or folder")
        if path.stat().st_size > bounds.total_bytes:
            raise InputError(str(source), f"has {path.stat().st_size:,} bytes; an archive may have at most "
                                          f"{bounds.total_bytes:,}")
        source = (str(source), path.read_bytes())
    name, data = source
    lowered = name.lower()
    if lowered.endswith(ZIP_SUFFIXES):
        return ZipTree(name, data, bounds)
    if lowered.endswith(TAR_SUFFIXES):
        return MemoryTree(name, _tar_files(name, data, bounds))
    raise InputError(name, f"is no folder or archive; expected one of {', '.join(ARCHIVE_SUFFIXES)}")

