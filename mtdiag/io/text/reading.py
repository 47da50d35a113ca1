"""A file's bytes from any source (a path, bytes, an upload), counted against the limits before anything is
parsed — gzip inflated chunk by chunk — and the one-segment-per-line reader."""

from __future__ import annotations

import os
import zlib
from pathlib import Path
from typing import Any, BinaryIO, Sequence, Union

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mtdiag.core.errors import InputError
from mtdiag.io.text.decoding import _count_breaks, as_lines, read_segments
from mtdiag.io.text.limits import DEFAULT_LIMITS, Limits
from mtdiag.io.text.long_and_empty import segment_warnings
from mtdiag.io.text.wording import quote

Source = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]", BinaryIO, "tuple[str, Any]"]
"""Bytes (content), a ``str``/``PathLike`` (a path), a binary file-like object (``.read()``; its ``.name`` is
the display name, e.g. Streamlit's ``UploadedFile``), or a ``(display_name, one_of_those)`` pair."""


def unpack(source: object, fallback: str) -> tuple[object, str]:
    """Split a source into (payload, display name)."""
    if isinstance(source, tuple):
        if len(source) != 2 or not isinstance(source[0], str):
            raise TypeError("a (display_name, data) pair needs a str name")
        return source[1], source[0]
    if isinstance(source, (str, os.PathLike)):
        return source, str(source)
    name = getattr(source, "name", None)
    if hasattr(source, "read") and isinstance(name, str) and name:
        return source, os.path.basename(name)
    return source, fallback


def _read_bytes(source: object, name: str | None, limits: Limits, fallback: str = "input") -> tuple[bytes, str]:
    """The raw bytes of a source and its display name; refuses missing paths and files over the size limit."""
    payload, display = unpack(source, fallback)
    display = name or display
    if isinstance(payload, (str, os.PathLike)):
        data = _read_path(Path(payload), display, limits)
    elif isinstance(payload, (bytes, bytearray, memoryview)):
        data = bytes(payload)
    elif hasattr(payload, "read"):
        data = _read_file_object(payload, display, limits)
    else:
        raise TypeError(f"{display}: expected bytes, a path or a binary file object, got {type(payload).__name__}")
    _check_size(len(data), display, limits)
    return data, display


def _read_file_object(handle: BinaryIO, display: str, limits: Limits) -> bytes:
    """Read a binary file object from its start (an upload may have been read before), up to the size limit."""
    size = getattr(handle, "size", None)  # Streamlit's UploadedFile knows its size
    if isinstance(size, int):
        _check_size(size, display, limits)
    if getattr(handle, "seekable", lambda: False)():
        handle.seek(0)
    data = handle.read(limits.max_file_bytes + 1)
    if not isinstance(data, bytes):
        raise TypeError(f"{display}: a file-like source must be opened in binary mode")
    if len(data) > limits.max_file_bytes:
        raise limits.exceeded(display, "max_file_bytes", "the file is too large")
    return data


def _read_path(path: Path, display: str, limits: Limits) -> bytes:
    """Read a file, checking existence and size before reading it."""
    try:
        if path.is_dir():
            raise InputError(display, "is a folder, not a file")
        _check_size(path.stat().st_size, display, limits)
        return path.read_bytes()
    except FileNotFoundError:
        raise InputError(display, "no such file") from None
    except PermissionError:
        raise InputError(display, "cannot read the file (permission denied)") from None
    except OSError as error:
        raise InputError(display, f"cannot read the file ({error.strerror or error})") from None


def _check_size(size: int, display: str, limits: Limits) -> None:
    if size > limits.max_file_bytes:
        raise limits.exceeded(display, "max_file_bytes", f"the file is too large: {size:,} bytes")


class WorkCounter:
    """Counts a file's bytes, lines, tags and header cells as its bytes arrive, refusing at the first limit passed.

    Tags are counted for XML and SGML (``markup``), the cells of its header line for a table (given its ``delimiter``);
    all of them at once for a plain file, chunk by chunk while a ``.gz`` inflates. The limits (:class:`Limits`) are
    checked before anything is parsed. Counting is C: ``bytes.count`` per chunk."""

    def __init__(self, display: str, limits: Limits, *, markup: bool = False, delimiter: bytes | None = None) -> None:
        self.display, self.limits, self.markup, self.delimiter = display, limits, markup, delimiter
        self.bytes = self.breaks = self.tags = 0
        self.header_cells = 1
        self._ends_line = True

    def add(self, chunk: bytes, *, inflated: bool = False) -> None:
        """Count one chunk of the file's bytes (``inflated``: from a ``.gz``); an :class:`InputError` past a limit."""
        limits = self.limits
        self.bytes += len(chunk)
        if inflated and self.bytes > limits.max_file_bytes:
            raise limits.exceeded(self.display, "max_file_bytes",
                                  f"decompresses to more than {limits.max_file_bytes:,} bytes")
        self.breaks += _count_breaks(chunk) if b"\r" in chunk else chunk.count(b"\n")
        if self.breaks > limits.max_rows:
            raise limits.exceeded(self.display, "max_rows", "too many lines", limits.max_rows + 1)
        if self.markup:
            self.tags += chunk.count(b"<")
            if self.tags > limits.max_cells:
                raise limits.exceeded(self.display, "max_cells", f"more than {limits.max_cells:,} tags")
        if self.delimiter is not None:
            self._count_header(chunk)
        if chunk:
            self._ends_line = chunk.endswith((b"\n", b"\r"))

    def _count_header(self, chunk: bytes) -> None:
        """Count the delimiters of the first line (header cells; for CSV at most, a quoted cell may hold one) until
        its line break arrives."""
        ends = [i for i in (chunk.find(b"\n"), chunk.find(b"\r")) if i >= 0]
        self.header_cells += chunk.count(self.delimiter, 0, min(ends) if ends else len(chunk))
        if ends:
            self.delimiter = None  # the header is counted
        if self.header_cells > self.limits.max_cells:
            raise self.limits.exceeded(self.display, "max_cells",
                                       f"a header of more than {self.limits.max_cells:,} cells", 1)

    @property
    def lines(self) -> int:
        """The file's lines (a last line without a line break counts)."""
        return self.breaks + (not self._ends_line)

    def finish(self) -> int:
        """Check the last line and return the number of lines."""
        if self.lines > self.limits.max_rows:
            raise self.limits.exceeded(self.display, "max_rows", "too many lines", self.limits.max_rows + 1)
        return self.lines


_INFLATE_CHUNK = 1 << 20
_INFLATE_WINDOW = 1 << 14
MEMBER_BYTES = 1 << 16
"""What one gzip member counts for against the file-size limit, at least: 64 KiB, the block size of BGZF (bgzip,
htslib), the widest use of many members — so a file may have one member per 64 KiB of the limit (3,051 under the
default 200 MB). Every member costs the inflater a fixed amount of work whatever it holds: a 4 MB file of 200,000
empty members (20 bytes each) inflated to nothing while taking seconds."""


def _after_padding(view: memoryview, position: int) -> int:
    """The first position from ``position`` on that is not a zero byte (gzip allows zero padding after a member),
    found a window at a time."""
    while position < len(view) and view[position] == 0:
        window = bytes(view[position:position + _INFLATE_WINDOW])
        position += len(window) - len(window.lstrip(b"\x00"))
    return position


def inflate_counted(data: bytes, counter: WorkCounter) -> bytes:
    """The inflated bytes of gzip ``data`` (every member), counted by ``counter`` one chunk of at most 1 MiB at a time.

    A file that inflates past a limit is refused as soon as it does, never inflated whole to be measured.

    Linear in the compressed bytes: the input is handed to zlib in windows of 16 KiB from a ``memoryview`` (zlib copies
    what a call leaves over — ``unconsumed_tail``, ``unused_data`` — so a call given the whole rest of the file copied
    it at every member: quadratic in the members), and zero padding is skipped a window at a time. Members are counted:
    more than one per :data:`MEMBER_BYTES` of the file-size limit is refused."""
    limits = counter.limits
    max_members = max(1, limits.max_file_bytes // MEMBER_BYTES)
    parts: list[bytes] = []
    view = memoryview(data)
    position, members = 0, 0
    try:
        while (position := _after_padding(view, position)) < len(view):
            members += 1
            if members > max_members:
                raise limits.exceeded(counter.display, "max_file_bytes",
                                      f"more than {max_members:,} gzip members, each counted as at least "
                                      f"{MEMBER_BYTES // 1024} KiB against the file-size limit")
            stream = zlib.decompressobj(16 + zlib.MAX_WBITS)  # a gzip member
            while not stream.eof and position < len(view):
                window = view[position:position + _INFLATE_WINDOW]
                pending = window
                while pending and not stream.eof:
                    chunk = stream.decompress(pending, _INFLATE_CHUNK)
                    pending = stream.unconsumed_tail
                    if chunk:
                        counter.add(chunk, inflated=True)
                        parts.append(chunk)
                position += len(window) - (len(stream.unused_data) if stream.eof else len(pending))
            if not stream.eof:
                raise InputError(counter.display, "is not a readable gzip file (it ends before its end-of-stream "
                                                  "marker: truncated?)")
    except zlib.error as error:
        raise InputError(counter.display, f"is not a readable gzip file ({error})") from None
    counter.finish()
    return b"".join(parts)


def read_counted(source: Source, name: str | None, limits: Limits, fallback: str = "input", *,
                 markup: bool = False, delimiter: bytes | None = None, inflate: bool = False) -> tuple[bytes, str, int]:
    """The bytes of a source (inflated when ``inflate``), its display name and its number of lines.

    They are refused before any parsing when they pass a limit (:class:`WorkCounter`; the compressed bytes count against
    the file-size limit too)."""
    data, display = _read_bytes(source, name, limits, fallback)
    counter = WorkCounter(display, limits, markup=markup, delimiter=delimiter)
    if inflate:
        return inflate_counted(data, counter), display, counter.lines
    counter.add(data)
    return data, display, counter.finish()


def check_segment_chars(values: Sequence[str], display: str, limits: Limits,
                        line_numbers: Sequence[int] | None = None, column: str | None = None) -> None:
    """Refuse a segment (or table cell) over ``limits.max_segment_chars`` characters, naming its line.

    Lengths come from Arrow: no Python loop."""
    if not len(values):
        return
    lengths = pc.utf8_length(pa.array(as_lines(values))).to_numpy(zero_copy_only=False)
    over = np.flatnonzero(lengths > limits.max_segment_chars)
    if len(over):
        first = int(over[0])
        line = first + 1 if line_numbers is None else int(line_numbers[first])
        where = f" in column {quote(column)}" if column is not None else ""
        raise limits.exceeded(display, "max_segment_chars",
                              f"a segment{where} of {int(lengths[first]):,} characters", line)

def read_lines(source: Source, name: str | None = None, *, limits: Limits = DEFAULT_LIMITS,
               warnings: list[str] | None = None) -> list[str]:
    """The segments of a one-segment-per-line text file (bytes, path, file object or ``(name, data)``).

    Raises :class:`InputError` for unreadable, undecodable, binary or empty files and files over a limit
    (:class:`Limits`); appends warnings
    (empty lines, very long segments) to ``warnings`` when given.
    """
    data, display, _ = read_counted(source, name, limits)
    lines = read_segments(data, display)
    check_segment_chars(lines, display, limits)
    if warnings is not None:
        warnings.extend(segment_warnings(display, lines, None, limits))
    return list(lines)
