"""Bytes to segments: the encodings accepted, NUL bytes and undecodable bytes named (a document or archive given
as text named for what it is), line ends, blank segments.

Text rules: UTF-8 (a BOM is stripped), or UTF-16 only with a byte-order mark; CRLF and CR become LF; lines split
on LF only — the line ends Python's universal newlines (and so sacrebleu) use, so ``U+2028`` and friends stay
inside a segment; one trailing newline does not make a segment; text is never unescaped or stripped.
"""

from __future__ import annotations

import codecs
import re
from typing import Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from mtdiag.core.errors import InputError

ACCEPTED_ENCODINGS = "accepted encodings are UTF-8 and UTF-16 with a byte-order mark"
_BOMS = (
    (codecs.BOM_UTF32_LE, None),  # checked before UTF-16 LE, whose BOM is its prefix
    (codecs.BOM_UTF32_BE, None),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def _count_breaks(text: str | bytes) -> int:
    """Line breaks in ``text`` counting LF, CR and CRLF once each."""
    if isinstance(text, str):
        return text.count("\n") + text.count("\r") - text.count("\r\n")
    return text.count(b"\n") + text.count(b"\r") - text.count(b"\r\n")



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
_ZIP_MEMBERS = ((b"word/", "a Word document (.docx, a ZIP archive)"),
                (b"xl/", "an Excel workbook (.xlsx, a ZIP archive)"), (b"ppt/", "a PowerPoint file (.pptx, a ZIP archive)"),
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
    """The segments of a file's bytes, as :func:`split_lines` of :func:`decode_text` gives them.

    Same rules, same errors, built without a Python ``str`` per line: a UTF-8 body is validated and split by Arrow, so
    the decoded text never exists as one Python string; only a UTF-16 file (or invalid UTF-8, to name the bad byte) is
    decoded by Python first. The file's bytes can be dropped as soon as this returns."""
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
