"""Bytes to decoded lines: sources (paths, bytes, uploads), size limits, encodings, segment warnings.

Text rules: UTF-8 (a BOM is stripped), or UTF-16 only with a byte-order mark; CRLF and CR become LF; lines split
on LF only — the line ends Python's universal newlines (and so sacrebleu) use, so ``U+2028`` and friends stay
inside a segment; one trailing newline does not make a segment; text is never unescaped or stripped.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Mapping, Sequence, Union

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from mtdiag.core.errors import InputError

Source = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]", BinaryIO, "tuple[str, Any]"]
"""Bytes (content), a ``str``/``PathLike`` (a path), a binary file-like object (``.read()``; its ``.name`` is
the display name, e.g. Streamlit's ``UploadedFile``), or a ``(display_name, one_of_those)`` pair."""

ACCEPTED_ENCODINGS = "accepted encodings are UTF-8 and UTF-16 with a byte-order mark"
_SHOWN_LINES = 5
_BOMS = (
    (codecs.BOM_UTF32_LE, None),  # checked before UTF-16 LE, whose BOM is its prefix
    (codecs.BOM_UTF32_BE, None),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


LIMIT_SETTINGS: dict[str, tuple[str, str, int]] = {
    "max_file_bytes": ("--max-file-mb", "MTDIAG_MAX_FILE_MB", 1_000_000),
    "max_rows": ("--max-rows", "MTDIAG_MAX_ROWS", 1),
    "max_cells": ("--max-cells", "MTDIAG_MAX_CELLS", 1),
    "max_segment_chars": ("--max-segment-chars", "MTDIAG_MAX_SEGMENT_CHARS", 1),
    "max_columns": ("--max-columns", "MTDIAG_MAX_COLUMNS", 1),
}
"""Each limit's command-line flag, environment variable (read by the dashboard and the command line) and the unit
its value is given in (file sizes in MB, 10^6 bytes)."""


@dataclass(frozen=True)
class Limits:
    """What one input file may cost: limits on the *work* it causes, not only its bytes.

    Every reader counts before it parses: ``max_file_bytes`` bytes (for ``.gz``, the inflated bytes, counted while
    inflating), ``max_rows`` lines, ``max_cells`` table cells (rows x columns; for XML and SGML, tags) and
    ``max_segment_chars`` characters in any one segment or cell, ``max_columns`` columns of a table (each column is a
    system, a reference or a score with work of its own: a one-row table of 100,000 columns fits the cell limit and
    still costs minutes). A file over a limit is refused with an
    :class:`InputError` naming the file, the limit and how to raise it (:meth:`exceeded`). ``how_to_raise`` may say,
    per limit name, what sets it where the flag and variable do not (the dashboard's memory budget).

    ``long_segment_words`` and ``long_segment_chars`` are no limits: a segment over either is kept, with a warning
    (the character count catches unspaced scripts such as Japanese).
    """

    max_file_bytes: int = 200_000_000
    max_rows: int = 2_000_000
    max_cells: int = 20_000_000
    max_segment_chars: int = 1_000_000
    max_columns: int = 1_000
    long_segment_words: int = 10_000
    long_segment_chars: int = 100_000
    how_to_raise: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_environment(cls, environ: "Mapping[str, str] | None" = None, **given: int | None) -> "Limits":
        """The default limits, each replaced by its environment variable when set (``MTDIAG_MAX_ROWS`` …,
        :data:`LIMIT_SETTINGS`), then by ``given`` values that are not None (command-line flags, already in the
        limit's own unit: bytes, lines, cells, characters). A variable that is not a positive whole number is a
        ``ValueError`` naming it."""
        environ = os.environ if environ is None else environ
        values: dict[str, int] = {}
        for field_name, (_, variable, unit) in LIMIT_SETTINGS.items():
            raw = environ.get(variable, "").strip()
            if raw:
                if not raw.isascii() or not raw.isdigit() or int(raw) < 1:
                    raise ValueError(f"{variable}={raw!r}: expected a whole number of at least 1")
                values[field_name] = int(raw) * unit
        values.update({k: v for k, v in given.items() if v is not None})
        return cls(**values)

    def exceeded(self, display: str, field_name: str, what: str, line: int | None = None) -> InputError:
        """The error for a file over limit ``field_name``: ``what`` it has, the limit and how to raise it."""
        flag, variable, _ = LIMIT_SETTINGS[field_name]
        how = dict(self.how_to_raise).get(
            field_name, f"raise it with {flag} N on the command line, or {variable} for the dashboard")
        limit = f"{getattr(self, field_name):,} {_LIMIT_NOUNS[field_name]}"
        return InputError(display, f"{what} (the limit is {limit}; {how})", line)


_LIMIT_NOUNS = {"max_file_bytes": "bytes per file", "max_rows": "lines per file", "max_cells": "cells per file",
                "max_segment_chars": "characters per segment", "max_columns": "columns per table"}


DEFAULT_LIMITS = Limits()


# --------------------------------------------------------------------------------------------------- helpers


def quote(value: str, width: int = 40) -> str:
    """A value from a file, quoted and shortened for a message (control characters escaped)."""
    text = value if len(value) <= width else value[:width] + "…"
    return json.dumps(text, ensure_ascii=False)


SHOWN_NAMES = 10


def quote_names(values: Iterable[str], total: int | None = None) -> str:
    """``a, b, c`` (empty names shown as ``""``); of more than ten (or of ``total`` names, when ``values`` holds
    only the first), the first ten and ``… N in all``: a message stays short whatever the file holds."""
    values = list(values)
    total = len(values) if total is None else total
    shown = ", ".join(v if v else '""' for v in values[:SHOWN_NAMES]) or "none"
    return shown + (f", … {total:,} in all" if total > SHOWN_NAMES else "")


def lines_phrase(numbers: list[int], noun: str = "line") -> str:
    """``line 3`` / ``lines 3 and 7`` / ``lines 3, 7, 9, 10, 15, …`` (first few of many)."""
    if len(numbers) == 1:
        return f"{noun} {numbers[0]}"
    shown = [str(n) for n in numbers[:_SHOWN_LINES]]
    if len(numbers) > _SHOWN_LINES:
        return f"{noun}s " + ", ".join(shown) + ", …"
    return f"{noun}s " + ", ".join(shown[:-1]) + " and " + shown[-1]


def _count_breaks(text: str | bytes) -> int:
    """Line breaks in ``text`` counting LF, CR and CRLF once each."""
    if isinstance(text, str):
        return text.count("\n") + text.count("\r") - text.count("\r\n")
    return text.count(b"\n") + text.count(b"\r") - text.count(b"\r\n")


def plural(count: int, noun: str) -> str:
    """``1 line`` / ``2 lines``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------------------------------- reading


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
    """Counts a file's bytes, lines, (for XML and SGML, ``markup``) tags and (for a table, given its ``delimiter``)
    the cells of its header line as its bytes arrive — all of them at once for a plain file, chunk by chunk while a
    ``.gz`` inflates — and refuses at the first limit passed, before anything is parsed (:class:`Limits`).
    Counting is C: ``bytes.count`` per chunk."""

    def __init__(self, display: str, limits: Limits, *, markup: bool = False, delimiter: bytes | None = None) -> None:
        self.display, self.limits, self.markup, self.delimiter = display, limits, markup, delimiter
        self.bytes = self.breaks = self.tags = 0
        self.header_cells = 1
        self._ends_line = True

    def add(self, chunk: bytes, *, inflated: bool = False) -> None:
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
empty members (20 bytes each) inflated to nothing while taking seconds (issue 39)."""


def _after_padding(view: memoryview, position: int) -> int:
    """The first position from ``position`` on that is not a zero byte (gzip allows zero padding after a member),
    found a window at a time."""
    while position < len(view) and view[position] == 0:
        window = bytes(view[position:position + _INFLATE_WINDOW])
        position += len(window) - len(window.lstrip(b"\x00"))
    return position


def inflate_counted(data: bytes, counter: WorkCounter) -> bytes:
    """The inflated bytes of gzip ``data`` (every member), counted by ``counter`` one chunk of at most 1 MiB at a
    time: a file that inflates past a limit is refused as soon as it does, never inflated whole to be measured.

    Linear in the compressed bytes: the input is handed to zlib in windows of 16 KiB from a ``memoryview`` (zlib
    copies what a call leaves over — ``unconsumed_tail``, ``unused_data`` — so a call given the whole rest of the
    file copied it at every member: quadratic in the members), and zero padding is skipped a window at a time.
    Members are counted: more than one per :data:`MEMBER_BYTES` of the file-size limit is refused."""
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
    """The bytes of a source (inflated when ``inflate``), its display name and its number of lines, refused before
    any parsing when they pass a limit (:class:`WorkCounter`; the compressed bytes count against the file-size
    limit too)."""
    data, display = _read_bytes(source, name, limits, fallback)
    counter = WorkCounter(display, limits, markup=markup, delimiter=delimiter)
    if inflate:
        return inflate_counted(data, counter), display, counter.lines
    counter.add(data)
    return data, display, counter.finish()


def check_segment_chars(values: Sequence[str], display: str, limits: Limits,
                        line_numbers: Sequence[int] | None = None, column: str | None = None) -> None:
    """Refuse a segment (or table cell) over ``limits.max_segment_chars`` characters, naming its line (lengths from
    Arrow: no Python loop)."""
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


# --------------------------------------------------------------------------------------------------- decoding


def _looks_like_utf16(data: bytes) -> bool:
    """True when NUL bytes sit on every other byte, as in UTF-16 text without a byte-order mark."""
    sample = data[:4096]
    half = len(sample) // 2
    if half == 0:
        return False
    even, odd = sample[0::2].count(0), sample[1::2].count(0)
    return max(even, odd) >= max(4, 0.3 * half) and min(even, odd) <= 0.05 * half


_SAVE_AS_TEXT = "save it as plain text (UTF-8, one segment per line) and give that file"
_UNPACK = "unpack it and give the text files inside (UTF-8, one segment per line)"
_SIGNATURES = ((b"%PDF-", "a PDF document", _SAVE_AS_TEXT),
               (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "a Word or Excel file (.doc, .xls)", _SAVE_AS_TEXT),
               (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive", _UNPACK), (b"Rar!\x1a\x07", "a RAR archive", _UNPACK))
"""Magic bytes of the files most often given by mistake for a text file, what they are and what to do (the
ZIP-based office files: :data:`_ZIP_MEMBERS`)."""
_ZIP_MEMBERS = ((b"word/", "a Word document (.docx, a ZIP archive)"), (b"xl/", "an Excel workbook (.xlsx, a ZIP archive)"),
                (b"ppt/", "a PowerPoint file (.pptx, a ZIP archive)"),
                (b"application/vnd.oasis.opendocument", "an OpenDocument file (.odt, .ods, a ZIP archive)"))
"""Member names (or the mimetype member's text) near a ZIP's start that say which office file it is."""


def _document_error(name: str, data: bytes) -> InputError | None:
    """The error for a document or archive given as a text file (a ``.docx`` renamed ``.txt``), recognised by its
    first bytes; None for anything else. Said instead of the NUL byte or invalid UTF-8 it holds."""
    if data.startswith(b"PK\x03\x04"):
        head = data[:65_536]
        kind = next((what for member, what in _ZIP_MEMBERS if member in head), None)
        found = ("a ZIP archive", _UNPACK) if kind is None else (kind, _SAVE_AS_TEXT)
    else:
        found = next(((what, advice) for magic, what, advice in _SIGNATURES if data.startswith(magic)), None)
    return None if found is None else InputError(name, f"looks like {found[0]}, not plain text: {found[1]}")


def _nul_error(name: str, line: int, data: bytes | None) -> InputError:
    document = _document_error(name, data) if data is not None else None
    if document is not None:
        return document
    if data is not None and _looks_like_utf16(data):
        return InputError(name, "contains a NUL byte (UTF-16 without a byte-order mark? save it as UTF-8)", line)
    return InputError(name, "contains a NUL byte (binary file?)", line)


def _decode_error(name: str, body: bytes, codec: str, offset: int, error: UnicodeDecodeError) -> InputError:
    """Name the line, column and byte offset of the first byte ``codec`` cannot decode (or what kind of document
    the file is, when it is one: :func:`_document_error`)."""
    document = _document_error(name, body)
    if document is not None:
        return document
    before = body[: error.start].decode(codec)
    line = _count_breaks(before) + 1
    column = len(re.split(r"\r\n|\r|\n", before)[-1]) + 1
    bad = body[error.start : max(error.end, error.start + 1)]
    shown = " ".join(f"0x{b:02X}" for b in bad)
    what = f"byte {shown} is" if len(bad) == 1 else f"bytes {shown} are"
    return InputError(
        name,
        f"{what} not valid {codec.upper()} at column {column} (byte offset {offset + error.start}); "
        f"{ACCEPTED_ENCODINGS}",
        line,
    )


def decode_text(data: bytes, name: str, *, allow_blank: bool = False) -> str:
    """Decode a file's bytes to text with LF line ends, or raise :class:`InputError`.

    UTF-8 (a UTF-8 BOM is stripped) by default; UTF-16 LE/BE only when the file starts with its BOM. NUL bytes
    (outside UTF-16) mean a binary file; a file with nothing but whitespace is empty — unless ``allow_blank``
    and it has a line break (a system output of empty lines: it output nothing). CRLF and CR become LF.
    """
    codec, bom_length = "utf-8", 0
    for bom, bom_codec in _BOMS:
        if data.startswith(bom):
            if bom_codec is None:
                raise InputError(name, f"the file is UTF-32 (byte-order mark); {ACCEPTED_ENCODINGS}", 1)
            codec, bom_length = bom_codec, len(bom)
            break
    body = data[bom_length:]
    if codec == "utf-8" and b"\x00" in body:
        raise _nul_error(name, _count_breaks(body[: body.index(b"\x00")]) + 1, body)
    try:
        text = body.decode(codec)
    except UnicodeDecodeError as error:
        raise _decode_error(name, body, codec, bom_length, error) from None
    if "\x00" in text:
        raise _nul_error(name, _count_breaks(text[: text.index("\x00")]) + 1, None)
    if not text.strip() and not (allow_blank and _count_breaks(text)):
        raise InputError(name, "the file is empty")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def split_lines(text: str) -> list[str]:
    """Split LF-normalised text into segments; a single trailing newline does not make an extra segment."""
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n")


Lines = pd.api.extensions.ExtensionArray
"""Segments as pandas' Arrow-backed ``str`` array: one contiguous UTF-8 buffer plus offsets, no Python object per
line (a 1M-line file of 177 MB takes about 185 MB this way, against about 300 MB as a list of ``str``)."""

_PY_WHITESPACE = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                  "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
"""Exactly the characters for which Python's ``str.isspace()`` is true (``tests/test_scale_io.py`` checks it over
every code point), so that the vectorised checks below agree with ``str.strip()`` and ``str.split()``."""
_BLANK_PATTERN = "^[" + "".join(f"\\x{{{ord(c):x}}}" for c in _PY_WHITESPACE) + "]*$"


def as_lines(values: Sequence[str]) -> Lines:
    """``values`` (a list of ``str`` or an array of them) as an Arrow-backed ``str`` array (no copy if it is one)."""
    if isinstance(values, pd.api.extensions.ExtensionArray) and values.dtype == "str":
        return values
    return pd.array(list(values) if not isinstance(values, (list, np.ndarray)) else values, dtype="str")


def blank_mask(values: Sequence[str]) -> np.ndarray:
    """Boolean array: which values are empty or whitespace only (``not value.strip()``), computed by Arrow."""
    array = pa.array(as_lines(values))  # pandas' Arrow array itself (``__arrow_array__``), no copy
    return pc.match_substring_regex(array, _BLANK_PATTERN).to_numpy(zero_copy_only=False).astype(bool)


def read_segments(data: bytes, name: str, *, allow_blank: bool = False) -> Lines:
    """The segments of a file's bytes, as :func:`split_lines` of :func:`decode_text` gives them (same rules, same
    errors), built without a Python ``str`` per line: a UTF-8 body is validated and split by Arrow, so the decoded
    text never exists as one Python string; only a UTF-16 file (or invalid UTF-8, to name the bad byte) is decoded
    by Python first. The file's bytes can be dropped as soon as this returns."""
    codec, bom_length = "utf-8", 0
    for bom, bom_codec in _BOMS:
        if data.startswith(bom):
            codec, bom_length = bom_codec or "utf-32", len(bom)
            break
    if codec != "utf-8":
        return as_lines(split_lines(decode_text(data, name, allow_blank=allow_blank)))
    nul = data.find(b"\x00", bom_length)
    if nul >= 0:
        raise _nul_error(name, _count_breaks(data[bom_length:nul]) + 1, data[bom_length:])
    bounds = pa.py_buffer(np.array([bom_length, len(data)], dtype=np.int64))
    body = pa.Array.from_buffers(pa.large_binary(), 1, [None, bounds, pa.py_buffer(data)])  # no copy
    try:
        text = body.cast(pa.large_string())  # validates UTF-8, no copy
    except pa.ArrowInvalid:
        decode_text(data, name, allow_blank=allow_blank)  # raises the error naming line, column and byte
        raise  # Arrow and Python disagree on validity: never silently
    has_break = data.find(b"\n", bom_length) >= 0
    if data.find(b"\r", bom_length) >= 0:
        has_break = True
        text = pc.replace_substring(pc.replace_substring(text, "\r\n", "\n"), "\r", "\n")
    split = pc.split_pattern(text, "\n").flatten()  # the one copy of the text
    del text, body
    if len(split) > 1 and not split[len(split) - 1].as_py():  # one trailing newline makes no segment
        split = split.slice(0, len(split) - 1)
    lines = pd.array(split, dtype="str")
    if blank_mask(lines).all() and not (allow_blank and has_break):
        raise InputError(name, "the file is empty")
    return lines


# --------------------------------------------------------------------------------------------------- warnings


def segment_warnings(name: str, values: list[str], line_numbers: list[int] | None, limits: Limits,
                      column: str | None = None) -> list[str]:
    """Warnings for empty and very long segments (the data is kept as it is)."""
    where = f"{name}: column {quote(column)}:" if column is not None else f"{name}:"
    array = as_lines(values)
    lines = np.arange(1, len(array) + 1) if line_numbers is None else np.asarray(line_numbers, dtype=np.int64)
    return _warnings_of(where, lines[blank_mask(array)].tolist(), lines[_long_mask(array, limits)].tolist(),
                        "value" if column is not None else "line", limits)


def column_warnings(name: str, columns: Sequence[str], cells: Sequence[str], line_numbers: Sequence[int],
                    limits: Limits) -> list[str]:
    """:func:`segment_warnings` of every column of a table at once: ``cells`` holds the rows one after the other
    (``len(columns)`` cells each, the row of line ``line_numbers[i]``), measured by Arrow in one pass — no work per
    column but for the columns that have something to say (a one-row table of 1,000 columns took 1–2.5 ms per
    column, issue 39). Up to :data:`SHOWN_NAMES` columns get their own lines; more columns with empty or long
    values get one line per kind, naming the first ten."""
    width = len(columns)
    if not width or not len(cells):
        return []
    array = as_lines(cells)
    empty, long = blank_mask(array).reshape(-1, width), _long_mask(array, limits).reshape(-1, width)
    lines = np.asarray(line_numbers, dtype=np.int64)
    flagged = np.flatnonzero(empty.any(axis=0) | long.any(axis=0))
    if len(flagged) <= SHOWN_NAMES:
        return [warning for i in flagged for warning in _warnings_of(
            f"{name}: column {quote(columns[i])}:", lines[empty[:, i]].tolist(), lines[long[:, i]].tolist(), "value",
            limits)]
    found = []
    for mask, what in ((empty, "empty values, kept as empty segments"),
                       (long, f"segments over {limits.long_segment_words:,} words or "
                              f"{limits.long_segment_chars:,} characters, kept whole")):
        having = np.flatnonzero(mask.any(axis=0))
        if len(having):
            names = quote_names([quote(columns[i]) for i in having[:SHOWN_NAMES]], len(having))
            found.append(f"{name}: {len(having):,} columns have {what} ({names}; {int(mask.sum()):,} cells)")
    return found


def _warnings_of(where: str, empty: list[int], long: list[int], noun: str, limits: Limits) -> list[str]:
    """The lines of :func:`segment_warnings` for one column (or file): its empty and its long segments' lines."""
    found = []
    if empty:
        ending = "" if len(empty) == 1 else "s"
        kept = "an empty segment" if len(empty) == 1 else "empty segments"
        found.append(f"{where} {len(empty)} empty {noun}{ending} ({lines_phrase(empty)}) kept as {kept}")
    if long:
        ending = "" if len(long) == 1 else "s"
        found.append(
            f"{where} {len(long)} segment{ending} over {limits.long_segment_words:,} words or "
            f"{limits.long_segment_chars:,} characters ({lines_phrase(long)}) kept whole; "
            "the dashboard shortens long segments on display"
        )
    return found


def _long_mask(array: Lines, limits: Limits) -> np.ndarray:
    """Which values have over ``long_segment_chars`` characters or over ``long_segment_words`` words (Python's
    ``str.split()``); lengths come from Arrow, and only a value longer than the word limit (in characters) can
    hold more words than it, so only those few are split."""
    lengths = pc.utf8_length(pa.array(array)).to_numpy(zero_copy_only=False)
    mask = lengths > limits.long_segment_chars
    for i in np.flatnonzero(~mask & (lengths > limits.long_segment_words)):
        mask[i] = len(array[i].split()) > limits.long_segment_words
    return mask

# --------------------------------------------------------------------------------------------------- plain text


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
