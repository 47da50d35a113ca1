"""Read and validate every input into an :class:`~mtdiag.evalset.EvalSet`, at the edge, once.

Inputs (see ``shared/data/README.md``):

- plain text, one segment per line (``read_lines``), gathered from a folder (``load_folder``) or from named
  files / uploaded bytes (``load_files``);
- tables where the header names the roles (``read_table`` / ``load_table``): TSV (no quoting, as in WMT
  files), CSV (standard quoting) and JSONL (one object per line);
- human scores, a long TSV ``system, seg_id, score`` (``read_human_scores``).

Every problem is an :class:`InputError`: one sentence that starts with the file's name and, when known, ``line
N:``. Problems that leave the data usable (empty lines, very long segments, ignored numeric columns) become
warning strings collected into ``EvalSet.warnings``.

Text rules: UTF-8 (a BOM is stripped), or UTF-16 only with a byte-order mark; CRLF and CR become LF; lines split
on LF only — the line ends Python's universal newlines (and so sacrebleu) use, so ``U+2028`` and friends stay
inside a segment; one trailing newline does not make a segment; text is never unescaped or stripped.
"""

from __future__ import annotations

import codecs
import csv
import io as _stdio
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Mapping, Union

import pandas as pd

from mtdiag.errors import InputError
from mtdiag import terms as term_inputs
from mtdiag.evalset import EvalSet

__all__ = [
    "InputError",
    "Limits",
    "DEFAULT_LIMITS",
    "decode_text",
    "split_lines",
    "read_lines",
    "read_table",
    "load_table",
    "load_folder",
    "load_files",
    "load_path",
    "read_human_scores",
    "lang_pair_from_name",
    "system_name_from_stem",
]

Source = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]", BinaryIO, "tuple[str, Any]"]
"""Bytes (content), a ``str``/``PathLike`` (a path), a binary file-like object (``.read()``; its ``.name`` is
the display name, e.g. Streamlit's ``UploadedFile``), or a ``(display_name, one_of_those)`` pair."""

ACCEPTED_ENCODINGS = "accepted encodings are UTF-8 and UTF-16 with a byte-order mark"
META_COLUMNS = frozenset({"seg_id", "doc", "doc_id", "id"})
DOC_COLUMNS = ("doc", "doc_id")
SRC_COLUMNS = frozenset({"src", "source"})
TABLE_FORMATS = {".tsv": "tsv", ".tab": "tsv", ".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}
HUMAN_SCORES_FILE = "mqm.seg.tsv"
TERMS_FILE = "terms.tsv"
_SHOWN_LINES = 5
_BOMS = (
    (codecs.BOM_UTF32_LE, None),  # checked before UTF-16 LE, whose BOM is its prefix
    (codecs.BOM_UTF32_BE, None),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_LANG_PAIR = re.compile(r"(?:^|[._\-])([a-z]{2,3})-([a-z]{2,3})$", re.IGNORECASE)
_SYSTEM_PREFIX = re.compile(r"^(?:[^.]+\.)?[a-z]{2,3}-[a-z]{2,3}\.", re.IGNORECASE)
_REF_BARE = re.compile(r"^(?:ref|reference)$", re.IGNORECASE)
_REF_SEPARATED = re.compile(r"^(?:ref|reference)[._\-: ](.+)$", re.IGNORECASE)
_REF_COMPACT = re.compile(r"^(?:ref|Ref|reference|Reference)([A-Z0-9]\w*)$")
_NOT_SYSTEM_FILES = re.compile(r"^(?:readme|license|licence|notes?)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Limits:
    """Size limits: a file over ``max_file_bytes`` is refused before decoding; a segment over
    ``max_segment_words`` whitespace-separated words or ``max_segment_chars`` characters is kept, with a warning
    (the character limit catches unspaced scripts such as Japanese)."""

    max_file_bytes: int = 200_000_000
    max_segment_words: int = 10_000
    max_segment_chars: int = 100_000


DEFAULT_LIMITS = Limits()


# --------------------------------------------------------------------------------------------------- helpers


def _quote(value: str, width: int = 40) -> str:
    """A value from a file, quoted and shortened for a message (control characters escaped)."""
    text = value if len(value) <= width else value[:width] + "…"
    return json.dumps(text, ensure_ascii=False)


def _names(values: Iterable[str]) -> str:
    """``a, b, c`` (empty names shown as ``""``)."""
    return ", ".join(v if v else '""' for v in values) or "none"


def _lines_phrase(numbers: list[int], noun: str = "line") -> str:
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


def _plural(count: int, noun: str) -> str:
    """``1 line`` / ``2 lines``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------------------------------- reading


def _unpack(source: object, fallback: str) -> tuple[object, str]:
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
    payload, display = _unpack(source, fallback)
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
        raise InputError(display, f"the file is too large (over the limit of {limits.max_file_bytes:,} bytes)")
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
        raise InputError(
            display, f"the file is too large ({size:,} bytes; the limit is {limits.max_file_bytes:,} bytes)"
        )


# --------------------------------------------------------------------------------------------------- decoding


def _looks_like_utf16(data: bytes) -> bool:
    """True when NUL bytes sit on every other byte, as in UTF-16 text without a byte-order mark."""
    sample = data[:4096]
    half = len(sample) // 2
    if half == 0:
        return False
    even, odd = sample[0::2].count(0), sample[1::2].count(0)
    return max(even, odd) >= max(4, 0.3 * half) and min(even, odd) <= 0.05 * half


def _nul_error(name: str, line: int, data: bytes | None) -> InputError:
    if data is not None and _looks_like_utf16(data):
        return InputError(name, "contains a NUL byte (UTF-16 without a byte-order mark? save it as UTF-8)", line)
    return InputError(name, "contains a NUL byte (binary file?)", line)


def _decode_error(name: str, body: bytes, codec: str, offset: int, error: UnicodeDecodeError) -> InputError:
    """Name the line, column and byte offset of the first byte ``codec`` cannot decode."""
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


def decode_text(data: bytes, name: str) -> str:
    """Decode a file's bytes to text with LF line ends, or raise :class:`InputError`.

    UTF-8 (a UTF-8 BOM is stripped) by default; UTF-16 LE/BE only when the file starts with its BOM. NUL bytes
    (outside UTF-16) mean a binary file; a file with nothing but whitespace is empty. CRLF and CR become LF.
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
    if not text.strip():
        raise InputError(name, "the file is empty")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def split_lines(text: str) -> list[str]:
    """Split LF-normalised text into segments; a single trailing newline does not make an extra segment."""
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n")


# --------------------------------------------------------------------------------------------------- warnings


def _segment_warnings(name: str, values: list[str], line_numbers: list[int] | None, limits: Limits,
                      column: str | None = None) -> list[str]:
    """Warnings for empty and very long segments (the data is kept as it is)."""
    where = f"{name}: column {_quote(column)}:" if column is not None else f"{name}:"
    lines = line_numbers or list(range(1, len(values) + 1))
    empty = [lines[i] for i, value in enumerate(values) if not value.strip()]
    long = [lines[i] for i, value in enumerate(values) if _too_long(value, limits)]
    found = []
    if empty:
        noun = "value" if column is not None else "line"
        plural = "" if len(empty) == 1 else "s"
        kept = "an empty segment" if len(empty) == 1 else "empty segments"
        found.append(f"{where} {len(empty)} empty {noun}{plural} ({_lines_phrase(empty)}) kept as {kept}")
    if long:
        plural = "" if len(long) == 1 else "s"
        found.append(
            f"{where} {len(long)} segment{plural} over {limits.max_segment_words:,} words or "
            f"{limits.max_segment_chars:,} characters ({_lines_phrase(long)}) kept whole; "
            "the dashboard shortens long segments on display"
        )
    return found


def _too_long(value: str, limits: Limits) -> bool:
    if len(value) > limits.max_segment_chars:
        return True
    # a text shorter than the word limit cannot hold more words than that: skip the split
    return len(value) > limits.max_segment_words and len(value.split()) > limits.max_segment_words


# --------------------------------------------------------------------------------------------------- plain text


def read_lines(source: Source, name: str | None = None, *, limits: Limits = DEFAULT_LIMITS,
               warnings: list[str] | None = None) -> list[str]:
    """The segments of a one-segment-per-line text file (bytes, path, file object or ``(name, data)``).

    Raises :class:`InputError` for unreadable, oversized, undecodable, binary or empty files; appends warnings
    (empty lines, very long segments) to ``warnings`` when given.
    """
    data, display = _read_bytes(source, name, limits)
    lines = split_lines(decode_text(data, display))
    if warnings is not None:
        warnings.extend(_segment_warnings(display, lines, None, limits))
    return lines


# --------------------------------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class _Table:
    """A parsed table: header, rows of strings, and the file line on which each row starts."""

    name: str
    header: list[str]
    rows: list[list[str]]
    lines: list[int]

    def column(self, index: int) -> list[str]:
        return [row[index] for row in self.rows]


def _table_format(display: str, fmt: str | None) -> str:
    if fmt is not None:
        if fmt not in ("tsv", "csv", "jsonl"):
            raise ValueError(f"unknown table format {fmt!r}; choose tsv, csv or jsonl")
        return fmt
    suffix = Path(display).suffix.lower()
    if suffix not in TABLE_FORMATS:
        raise InputError(display, "unknown table format; expected a .tsv, .csv or .jsonl file")
    return TABLE_FORMATS[suffix]


def _parse_delimited(text: str, name: str, fmt: str, limits: Limits) -> _Table:
    """TSV (no quoting: a quote is text) or CSV (standard quoting) via the csv module; rows checked for width."""
    if fmt == "tsv":
        dialect = {"delimiter": "\t", "quoting": csv.QUOTE_NONE}
    else:
        dialect = {"delimiter": ",", "quotechar": '"', "doublequote": True, "strict": True}
    limit = min(max(limits.max_file_bytes, 1), 2**31 - 1)
    if csv.field_size_limit() < limit:
        csv.field_size_limit(limit)  # only ever raised, so concurrent readers are unaffected
    reader = csv.reader(_stdio.StringIO(text.rstrip("\n")), **dialect)
    header: list[str] | None = None
    rows, lines = [], []
    last_line = 0
    try:
        for row in reader:
            start, last_line = last_line + 1, reader.line_num
            if header is None:
                if not any(cell.strip() for cell in row):
                    raise InputError(name, "the header is blank; the first line must name the columns", start)
                header = [cell.strip() for cell in row]
                continue
            if len(row) != len(header):
                got = "is blank" if not row else f"has {_plural(len(row), 'field')}"
                raise InputError(
                    name, f"{got} but the header has {len(header)} columns ({_names(header)})", start
                )
            rows.append(row)
            lines.append(start)
    except csv.Error as error:
        hint = "; an unclosed quote?" if "end of data" in str(error) else ""
        raise InputError(name, f"cannot parse the {fmt.upper()} row ({error}{hint})", last_line + 1) from None
    return _Table(name, header or [], rows, lines)


def _json_cell(value: object, key: str, name: str, line: int) -> str:
    """A JSONL value as text: strings as they are, numbers in their JSON form; anything else is an error."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return json.dumps(value)
    kind = {type(None): "null (a missing value)", bool: "true/false", list: "a list", dict: "an object"}
    raise InputError(name, f"{_quote(key)} is {kind.get(type(value), type(value).__name__)}; expected text", line)


def _parse_jsonl(text: str, name: str) -> _Table:
    """One JSON object per line (blank lines skipped); every object must have the first object's keys."""
    header: list[str] | None = None
    first_line = 1
    rows, lines = [], []
    for number, raw in enumerate(split_lines(text), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as error:
            raise InputError(name, f"not valid JSON ({error.msg} at column {error.colno})", number) from None
        if not isinstance(obj, dict):
            raise InputError(name, f"expected a JSON object, found {_json_kind(obj)}", number)
        keys = [str(k) for k in obj]
        if header is None:
            header, first_line = keys, number
        elif set(keys) != set(header):
            raise InputError(name, _key_mismatch(header, keys, first_line), number)
        rows.append([_json_cell(obj[k], k, name, number) for k in header])
        lines.append(number)
    return _Table(name, header or [], rows, lines)


def _json_kind(value: object) -> str:
    return {list: "a list", str: "a string", type(None): "null", bool: "true/false"}.get(type(value), "a number")


def _key_mismatch(expected: list[str], found: list[str], first_line: int) -> str:
    missing = [k for k in expected if k not in found]
    extra = [k for k in found if k not in expected]
    what = f"missing key {_quote(missing[0])}" if missing else f"unexpected key {_quote(extra[0])}"
    return f"{what} (line {first_line} has keys {_names(expected)}; this line has {_names(found)})"


def _parse_table(source: Source, name: str | None, fmt: str | None, limits: Limits) -> _Table:
    data, display = _read_bytes(source, name, limits)
    kind = _table_format(display, fmt)
    text = decode_text(data, display)
    table = _parse_jsonl(text, display) if kind == "jsonl" else _parse_delimited(text, display, kind, limits)
    if len(set(table.header)) != len(table.header):
        first = next(h for i, h in enumerate(table.header) if h in table.header[:i])
        where = [i + 1 for i, h in enumerate(table.header) if h == first]
        where_text = _lines_phrase(where, "column")
        raise InputError(display, f"column {_quote(first)} appears more than once ({where_text})", 1)
    if not table.rows:
        raise InputError(display, f"the file has a header ({_names(table.header)}) but no rows")
    return table


def read_table(source: Source, name: str | None = None, *, fmt: str | None = None,
               limits: Limits = DEFAULT_LIMITS) -> pd.DataFrame:
    """A TSV/CSV/JSONL file as a frame of strings (one column per header name, index 0..n-1), validated for
    shape: every row has every column. ``fmt`` (``tsv``/``csv``/``jsonl``) defaults to the file extension."""
    table = _parse_table(source, name, fmt, limits)
    return pd.DataFrame(table.rows, columns=table.header, dtype=object)


def _ref_name(column: str) -> str | None:
    """The reference name a column header declares (``ref`` -> ``ref``, ``ref.A``/``ref_A``/``refA`` -> ``A``)."""
    if _REF_BARE.match(column):
        return "ref"
    match = _REF_SEPARATED.match(column) or _REF_COMPACT.match(column)
    return match.group(1) if match else None


@dataclass
class _Roles:
    """Column indexes by role: source, document id, references and systems by name."""

    src: int | None = None
    doc: int | None = None
    refs: dict[str, int] = field(default_factory=dict)
    systems: dict[str, int] = field(default_factory=dict)


def _assign_roles(table: _Table, warnings: list[str]) -> _Roles:
    """Map header columns to roles: src, doc, references, systems; meta and numeric-only columns are skipped."""
    roles = _Roles()
    ref_columns: dict[str, str] = {}
    for index, column in enumerate(table.header):
        lower = column.lower()
        if lower in SRC_COLUMNS:
            if roles.src is not None:
                raise InputError(table.name, f"columns {_quote(table.header[roles.src])} and {_quote(column)} "
                                             "both name the source", 1)
            roles.src = index
        elif lower in META_COLUMNS:
            if lower in DOC_COLUMNS and roles.doc is None:
                roles.doc = index
        elif (ref := _ref_name(column)) is not None:
            if ref in roles.refs:
                raise InputError(table.name, f"columns {_quote(ref_columns[ref])} and {_quote(column)} both name "
                                             f"reference {_quote(ref)}", 1)
            roles.refs[ref], ref_columns[ref] = index, column
        elif _all_numbers(table.column(index)):
            label = f"column {_quote(column)}" if column else f"column {index + 1} has no name and"
            warnings.append(f"{table.name}: {label} holds only numbers, so it is not read as a system")
        elif not column:
            raise InputError(table.name, f"column {index + 1} has no name; name it src, ref or a system", 1)
        else:
            roles.systems[column] = index
    _check_roles(table, roles, ref_columns)
    return roles


def _all_numbers(values: list[str]) -> bool:
    filled = [v for v in values if v.strip()]
    return bool(filled) and all(_is_number(v) for v in filled)


def _check_roles(table: _Table, roles: _Roles, ref_columns: dict[str, str]) -> None:
    found = f"found columns {_names(table.header)}"
    if not roles.refs:
        raise InputError(table.name, f"no reference column; {found}; expected a column named ref "
                                     "(or ref.NAME, ref_NAME, refNAME for several)", 1)
    if not roles.systems:
        raise InputError(table.name, f"no system column; {found}; expected one text column per system "
                                     "besides src, ref* and seg_id/doc/doc_id/id", 1)
    for system in roles.systems:
        if system in roles.refs:
            raise InputError(table.name, f"system column {_quote(system)} has the same name as reference column "
                                         f"{_quote(ref_columns[system])}", 1)


def load_table(source: Source, name: str | None = None, *, fmt: str | None = None, lang_pair: str | None = None,
               limits: Limits = DEFAULT_LIMITS) -> EvalSet:
    """An :class:`EvalSet` from one TSV/CSV/JSONL table whose header names the roles.

    ``src``/``source`` is the source (optional); ``ref``, ``ref.X``, ``ref_X``, ``refX`` are references (named
    ``ref`` or ``X``); ``seg_id``, ``doc``, ``doc_id``, ``id`` are meta (``doc``/``doc_id`` becomes
    ``segments.doc``); every other text column is a system. Numeric-only columns are skipped with a warning.
    """
    warnings: list[str] = []
    table = _parse_table(source, name, fmt, limits)
    roles = _assign_roles(table, warnings)
    index = pd.RangeIndex(len(table.rows), name="seg")
    segments = pd.DataFrame(index=index)
    if roles.src is not None:
        segments["src"] = table.column(roles.src)
    if roles.doc is not None:
        segments["doc"] = table.column(roles.doc)
    text_columns = ([] if roles.src is None else [roles.src]) + list(roles.refs.values()) + list(
        roles.systems.values())
    for column in text_columns:
        warnings += _segment_warnings(table.name, table.column(column), table.lines, limits,
                                      column=table.header[column])
    stem = Path(table.name).stem
    return EvalSet(
        segments=segments,
        refs=pd.DataFrame({r: table.column(i) for r, i in roles.refs.items()}, index=index),
        hyps=pd.DataFrame({s: table.column(i) for s, i in roles.systems.items()}, index=index),
        name=stem,
        lang_pair=lang_pair or lang_pair_from_name(stem),
        warnings=tuple(warnings),
    )


# --------------------------------------------------------------------------------------------------- human scores


def _score_column(table: _Table, lowered: list[str]) -> int:
    """The score column: ``score``, else ``mqm_score``, else the single numeric column that is not an id."""
    for wanted in ("score", "mqm_score"):
        if wanted in lowered:
            return lowered.index(wanted)
    candidates = [
        i for i, column in enumerate(lowered)
        if column not in ("system", "seg_id") and not column.endswith("id") and _all_numbers(table.column(i))
    ]
    if len(candidates) == 1:
        return candidates[0]
    found = f"found columns {_names(table.header)}"
    if not candidates:
        raise InputError(table.name, f"no score column; {found}; expected score, mqm_score or one numeric column", 1)
    numeric = _names(table.header[i] for i in candidates)
    raise InputError(table.name, f"several numeric columns ({numeric}) could be the score; name one score", 1)


def _parse_seg_id(value: str, table: _Table, line: int, n_segments: int | None) -> int:
    try:
        seg_id = int(value.strip())
    except ValueError:
        raise InputError(table.name, f"seg_id {_quote(value)} is not a whole number", line) from None
    if seg_id < 1 or (n_segments is not None and seg_id > n_segments):
        limit = ""
        if n_segments is not None:
            limit = f"; the set has {_plural(n_segments, 'segment')}"
            limit += f", numbered 1 to {n_segments}" if n_segments > 1 else ""
        raise InputError(table.name, f"seg_id {seg_id} is out of range (seg_id is 1-based{limit})", line)
    return seg_id


def _parse_score(value: str, table: _Table, line: int) -> float | None:
    """A score, or None for blank (not rated); NaN also counts as not rated."""
    if not value.strip():
        return None
    try:
        score = float(value)
    except ValueError:
        raise InputError(table.name, f"score {_quote(value)} is not a number", line) from None
    if math.isnan(score):
        return None
    if math.isinf(score):
        raise InputError(table.name, f"score {_quote(value)} is not a finite number", line)
    return score + 0.0  # -0.0 (as written in MQM files) becomes 0.0


def read_human_scores(source: Source, name: str | None = None, n_segments: int | None = None, *,
                      limits: Limits = DEFAULT_LIMITS) -> pd.DataFrame:
    """Human judgements from a long TSV into a frame ``seg`` (0-based), ``system``, ``score``.

    The header has ``system``, ``seg_id`` (1-based, checked against ``n_segments`` when given) and a score
    column (``score``, ``mqm_score`` or the one numeric non-id column). A blank score means not rated and the row
    is dropped; system names (``ref.A``, ``ref-A``, …) are kept as they are. A system rated twice on the same
    segment is an error.
    """
    table = _parse_table(source, name, "tsv", limits)
    lowered = [h.lower() for h in table.header]
    for required in ("system", "seg_id"):
        if required not in lowered:
            raise InputError(table.name, f"missing column {required}; found columns {_names(table.header)}; "
                                         "expected system, seg_id and a score column", 1)
    system_at, seg_at, score_at = lowered.index("system"), lowered.index("seg_id"), _score_column(table, lowered)
    seen: dict[tuple[str, int], int] = {}
    records = []
    for row, line in zip(table.rows, table.lines):
        system = row[system_at].strip()
        if not system:
            raise InputError(table.name, "the system name is empty", line)
        seg_id = _parse_seg_id(row[seg_at], table, line, n_segments)
        score = _parse_score(row[score_at], table, line)
        if (system, seg_id) in seen:
            raise InputError(table.name, f"a second row for system {system}, seg_id {seg_id} "
                                         f"(the first is on line {seen[system, seg_id]})", line)
        seen[system, seg_id] = line
        if score is not None:
            records.append((seg_id - 1, system, score))
    frame = pd.DataFrame(records, columns=["seg", "system", "score"])
    return frame.astype({"seg": "int64", "score": "float64"})


# --------------------------------------------------------------------------------------------------- assembling


@dataclass(frozen=True)
class _TextFile:
    """One read text file with its role name (reference or system name) and display name."""

    role: str
    display: str
    lines: list[str]


def _check_names(refs: list[tuple[str, str]], hyps: list[tuple[str, str]]) -> None:
    """Refuse empty names, duplicate reference or system names, and a system named like a reference."""
    for kind, entries in (("reference", refs), ("system", hyps)):
        first: dict[str, str] = {}
        for role, display in entries:
            if not role.strip():
                raise InputError(display, f"the {kind} name is empty")
            if role in first:
                raise InputError(display, f"{kind} name {_quote(role)} is already used by {first[role]}")
            first[role] = display
    ref_files = dict(refs)
    for role, display in hyps:
        if role in ref_files:
            raise InputError(display, f"system name {_quote(role)} is also the name of reference {ref_files[role]}")


def _line_count_error(file: _TextFile, expected: _TextFile) -> InputError:
    n, m = len(file.lines), len(expected.lines)
    hint = ""
    if n == m + 1 and not file.lines[-1].strip():
        hint = f" (the last line of {file.display} is empty: an extra blank line at the end?)"
    return InputError(file.display, f"has {_plural(n, 'line')} but {expected.display} has {m}{hint}")


def _assemble(src: _TextFile | None, refs: list[_TextFile], hyps: list[_TextFile], *, name: str,
              lang_pair: str | None, human: pd.DataFrame | None, warnings: list[str],
              term_files: list[_TextFile | term_inputs.TermFile] = ()) -> EvalSet:
    """Check line counts against the first reference, take inline ``<term>`` tags out of source and reference
    lines, read term files, and build the :class:`EvalSet`."""
    expected = refs[0]
    for file in ([src] if src else []) + refs[1:] + hyps:
        if len(file.lines) != len(expected.lines):
            raise _line_count_error(file, expected)
    src, refs, tagged = _strip_tags(src, refs)
    found_terms = term_inputs.build_terms(src.lines if src else None, refs[0].lines, lang_pair, list(term_files))
    if not len(found_terms):
        found_terms = tagged
    index = pd.RangeIndex(len(expected.lines), name="seg")
    segments = pd.DataFrame(index=index)
    if src is not None:
        segments["src"] = src.lines
    return EvalSet(
        segments=segments,
        refs=pd.DataFrame({f.role: f.lines for f in refs}, index=index),
        hyps=pd.DataFrame({f.role: f.lines for f in hyps}, index=index),
        terms=found_terms if len(found_terms) else None,
        human=human,
        name=name,
        lang_pair=lang_pair,
        warnings=tuple(warnings),
    )


def _strip_tags(src: _TextFile | None, refs: list[_TextFile]):
    """Source and references without inline ``<term>`` tags, and the term occurrences the tags give."""
    def strip(file: _TextFile):
        if not term_inputs.has_term_tags(file.lines):
            return file, None
        pairs = [term_inputs.strip_term_tags(line, file.display, i) for i, line in enumerate(file.lines, start=1)]
        return _TextFile(file.role, file.display, [p[0] for p in pairs]), [p[1] for p in pairs]

    src, src_tags = strip(src) if src is not None else (None, None)
    stripped = [strip(f) for f in refs]
    refs = [f for f, _ in stripped]
    tagged = term_inputs.empty_terms()
    if src_tags is not None:
        tagged = term_inputs.terms_from_tags(src_tags, stripped[0][1], src.display)
    return src, refs, tagged


def _read_term_file(source: Source, display: str, limits: Limits) -> term_inputs.TermFile:
    table = read_table(source, display, fmt="tsv", limits=limits)
    return term_inputs.TermFile(display, [str(c) for c in table.columns], table.astype(str).values.tolist())


def _folder_term_files(folder: Path, limits: Limits) -> list[term_inputs.TermFile]:
    """``terms.tsv`` when the folder has one, else every ``glossary*.tsv``, else the ``*.annotated.txt`` tags
    (returned as none here: tags in ``src.annotated.txt``/``ref*.annotated.txt`` are read by the caller)."""
    if (folder / TERMS_FILE).is_file():
        return [_read_term_file(folder / TERMS_FILE, TERMS_FILE, limits)]
    glossaries = sorted(folder.glob("glossary*.tsv"))
    return [_read_term_file(p, p.name, limits) for p in glossaries]


def _entries(named: Mapping[str, Source] | Iterable[tuple[str, Source]]) -> list[tuple[str, Source]]:
    return list(named.items()) if isinstance(named, Mapping) else [tuple(e) for e in named]


def _display_of(source: Source, fallback: str) -> str:
    return _unpack(source, fallback)[1]


def load_files(src: Source | None = None, refs: Mapping[str, Source] | Iterable[tuple[str, Source]] = (),
               hyps: Mapping[str, Source] | Iterable[tuple[str, Source]] = (), *, name: str = "data",
               lang_pair: str | None = None, human: Source | None = None, terms: Source | None = None,
               limits: Limits = DEFAULT_LIMITS) -> EvalSet:
    """An :class:`EvalSet` from named files: uploads (bytes or ``(file_name, bytes)``) or paths (the CLI).

    ``refs``/``hyps`` map a reference/system name to a source; a list of ``(name, source)`` pairs is accepted
    too, so that a name given twice is reported. Every file must have as many lines as the first reference.
    ``human`` is an optional human-score TSV (see :func:`read_human_scores`); ``terms`` an optional terms TSV
    (``seg_id, src_term, tgt_term``) or glossary TSV (``source, target``); inline ``<term>`` tags in the source
    and reference lines are read without it (:mod:`mtdiag.terms`).
    """
    term_source = terms
    ref_entries, hyp_entries = _entries(refs), _entries(hyps)
    if not ref_entries:
        raise InputError(None, "no reference file given; at least one is needed")
    if not hyp_entries:
        raise InputError(None, "no system output file given; at least one is needed")
    _check_names([(r, _display_of(s, f"reference {r}")) for r, s in ref_entries],
                 [(h, _display_of(s, f"system {h}")) for h, s in hyp_entries])
    warnings: list[str] = []

    def read(role: str, source: Source, fallback: str) -> _TextFile:
        data, display = _read_bytes(source, None, limits, fallback)
        lines = split_lines(decode_text(data, display))
        warnings.extend(_segment_warnings(display, lines, None, limits))
        return _TextFile(role, display, lines)

    src_file = read("src", src, "source") if src is not None else None
    ref_files = [read(r, s, f"reference {r}") for r, s in ref_entries]
    hyp_files = [read(h, s, f"system {h}") for h, s in hyp_entries]
    scores = None
    if human is not None:
        scores = read_human_scores(human, _display_of(human, "human scores"), len(ref_files[0].lines),
                                   limits=limits)
    term_files = [] if term_source is None else [
        _read_term_file(term_source, _display_of(term_source, "terms"), limits)]
    return _assemble(src_file, ref_files, hyp_files, name=name, lang_pair=lang_pair, human=scores,
                     warnings=warnings, term_files=term_files)


# --------------------------------------------------------------------------------------------------- folders


def lang_pair_from_name(name: str) -> str | None:
    """The language pair at the end of a folder or file name: ``wmt21.en-de``, ``en-de``, ``tico19-en-fr``
    -> ``en-de``/``en-fr`` (lower-cased); None when there is none."""
    match = _LANG_PAIR.search(Path(name).name)
    return f"{match.group(1)}-{match.group(2)}".lower() if match else None


def system_name_from_stem(stem: str) -> str:
    """A system name from a file stem, without a ``testset.xx-yy.`` prefix:
    ``newstest2021.en-de.Facebook-AI`` -> ``Facebook-AI``; ``tico19dev.en-fr.Fairseq`` -> ``Fairseq``."""
    stripped = _SYSTEM_PREFIX.sub("", stem, count=1)
    return stripped or stem


def _classify_folder(paths: list[Path]) -> tuple[Path | None, list[tuple[str, Path]], list[tuple[str, Path]]]:
    """Split a folder's ``*.txt`` files into source, references and systems, each sorted by name
    (``*.annotated.txt`` and README-like files are left alone)."""
    src, refs, hyps = None, [], []
    for path in paths:
        lower = path.name.lower()
        if lower.endswith(".annotated.txt") or _NOT_SYSTEM_FILES.match(lower):
            continue
        if lower == "src.txt":
            src = path
        elif lower == "ref.txt":
            refs.append(("ref", path))
        elif lower.startswith("ref."):
            refs.append((path.name[4:-4], path))
        else:
            hyps.append((system_name_from_stem(path.stem), path))
    by_name = lambda entry: (entry[0].casefold(), entry[0], entry[1].name)  # noqa: E731
    return src, sorted(refs, key=by_name), sorted(hyps, key=by_name)


def _folder_files(folder: Path, display: str) -> list[Path]:
    if not folder.exists():
        raise InputError(display, "no such folder")
    if not folder.is_dir():
        raise InputError(display, "is not a folder")
    files = [p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")]
    return sorted((p for p in files if p.suffix.lower() == ".txt"), key=lambda p: (p.name.casefold(), p.name))


def _unknown_score_systems(scores: pd.DataFrame, refs: list[str], systems: list[str], display: str) -> list[str]:
    known = set(systems) | set(refs) | {f"ref{sep}{r}" for r in refs for sep in ".-_"}
    unknown = sorted(set(scores["system"]) - known)
    if not unknown:
        return []
    return [f"{display}: scores for systems not in the folder ({_names(unknown)}) are kept but match no output"]


def load_folder(path: str | os.PathLike[str], *, limits: Limits = DEFAULT_LIMITS) -> EvalSet:
    """An :class:`EvalSet` from a folder: ``src.txt`` (optional), ``ref.txt``/``ref.NAME.txt`` (one or more),
    every other ``*.txt`` (not ``*.annotated.txt``) a system named by its stem without a ``testset.xx-yy.``
    prefix; human scores from ``mqm.seg.tsv`` when present; ``lang_pair`` from the folder name.
    Term occurrences come from ``terms.tsv``, else ``glossary*.tsv``, else ``src.annotated.txt``/``ref*.annotated.txt`` (:mod:`mtdiag.terms`)."""
    folder, display = Path(path), str(path)
    paths = _folder_files(folder, display)
    src, refs, hyps = _classify_folder(paths)
    found = f"found {_names(p.name for p in paths)}" if paths else "found no .txt files"
    if not refs:
        raise InputError(display, f"no reference file; expected ref.txt or ref.NAME.txt, {found}")
    if not hyps:
        raise InputError(display, f"no system output file; expected a NAME.txt besides src.txt and ref*.txt, {found}")
    _check_names([(r, p.name) for r, p in refs], [(h, p.name) for h, p in hyps])
    warnings: list[str] = []

    def read(role: str, file: Path) -> _TextFile:
        lines = read_lines(file, file.name, limits=limits, warnings=warnings)
        return _TextFile(role, file.name, lines)

    src_file = read("src", src) if src is not None else None
    ref_files = [read(r, p) for r, p in refs]
    hyp_files = [read(h, p) for h, p in hyps]
    human = None
    if (folder / HUMAN_SCORES_FILE).is_file():
        human = read_human_scores(folder / HUMAN_SCORES_FILE, HUMAN_SCORES_FILE, len(ref_files[0].lines),
                                  limits=limits)
        warnings += _unknown_score_systems(human, [f.role for f in ref_files], [f.role for f in hyp_files],
                                           HUMAN_SCORES_FILE)
        if human.empty:
            warnings.append(f"{HUMAN_SCORES_FILE}: no segment is rated, so there are no human scores")
            human = None
    name = folder.resolve().name or display
    term_files = _folder_term_files(folder, limits)
    if not term_files and src_file is not None and (folder / "src.annotated.txt").is_file():
        # tags only in the annotated copies: read them in place of the plain source and first reference
        annotated_ref = folder / f"ref.{ref_files[0].role}.annotated.txt"
        if not annotated_ref.is_file():
            annotated_ref = folder / "ref.annotated.txt"
        src_file = read("src", folder / "src.annotated.txt")
        if annotated_ref.is_file():
            ref_files[0] = _TextFile(ref_files[0].role, annotated_ref.name,
                                     read_lines(annotated_ref, annotated_ref.name, limits=limits, warnings=warnings))
    return _assemble(src_file, ref_files, hyp_files, name=name, lang_pair=lang_pair_from_name(name),
                     human=human, warnings=warnings, term_files=term_files)


def load_path(path: str | os.PathLike[str], *, limits: Limits = DEFAULT_LIMITS) -> EvalSet:
    """A folder (:func:`load_folder`) or a ``.tsv``/``.csv``/``.jsonl`` table (:func:`load_table`)."""
    if Path(path).is_dir():
        return load_folder(path, limits=limits)
    if not Path(path).exists():
        raise InputError(str(path), "no such file or folder")
    return load_table(path, limits=limits)
