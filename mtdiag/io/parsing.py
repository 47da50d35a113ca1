"""What every table reader of :mod:`mtdiag.io` shares: a table parsed into a header and rows of strings
(:func:`parse_table`: TSV with no quoting, as in WMT files, CSV with standard quoting, JSONL with one object per
line; bounded by :class:`~mtdiag.io.text.Limits` before it is parsed), and the cells every reader reads the same
way — a 1-based segment id (:func:`parse_seg_id`), a score (:func:`parse_score`), a column of numbers
(:func:`all_numbers`), and one JSON line (:func:`json_line`: a lone surrogate escape is refused, never replaced,
:func:`refuse_lone_surrogates`). Every problem is an :class:`~mtdiag.core.errors.InputError` naming the file and the
line."""

from __future__ import annotations

import csv
import io as _stdio
import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mtdiag.core.errors import InputError
from mtdiag.io.text import (
    SHOWN_NAMES,
    Limits,
    Source,
    check_segment_chars,
    decode_text,
    is_number,
    lines_phrase,
    plural,
    quote,
    quote_names,
    read_counted,
    split_lines,
    unpack,
)

TABLE_FORMATS = {".tsv": "tsv", ".tab": "tsv", ".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}
DELIMITERS = {"tsv": "\t", "csv": ","}
MAX_SEG_ID = 10**12
"""The largest ``seg_id`` read when the segment count is not known (no file within the size limit has more
lines); a larger one is out of range rather than an integer overflow in the frame."""
_SEG_ID = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class Table:
    """A parsed table: header, rows of strings, and the file line on which each row starts."""

    name: str
    header: list[str]
    rows: list[list[str]]
    lines: list[int]

    def column(self, index: int) -> list[str]:
        """The cells of column ``index``, one per row."""
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


def _check_cells(name: str, rows: int, columns: int, limits: Limits, noun: str = "rows") -> None:
    """Refuse a table whose rows (at most its lines) times its columns pass ``limits.max_cells``, before its rows
    are parsed."""
    if rows * columns > limits.max_cells:
        raise limits.exceeded(name, "max_cells", f"too many cells: up to {rows:,} {noun} x {columns:,} columns")


def check_columns(name: str, columns: int, limits: Limits, line: int | None = None, about: str = "",
                  what: str = "columns", detail: str = "") -> None:
    """Refuse a table of more than ``limits.max_columns`` columns, or of too many of anything that becomes one.

    ``about``: "up to " when the count is a bound. Anything else that becomes a column of its own downstream, with work
    of its own, is refused the same way (``what``: the systems and references of an XML or SGML set, the metrics of a
    score or span file: a 466 KB XML file of 5,000 systems took the dashboard 553 s of CPU and 7.9 GB; 16,000 span
    metrics made a report 3.4 times slower)."""
    if columns > limits.max_columns:
        each = "" if what == "columns" else ", each a column of its own"
        raise limits.exceeded(name, "max_columns", f"too many {what}: {about}{columns:,}{detail}{each}", line)


def _parse_delimited(text: str, name: str, fmt: str, limits: Limits, n_lines: int) -> Table:
    """TSV (no quoting: a quote is text) or CSV (standard quoting) via the csv module; rows checked for width.

    The header's cells count against ``limits.max_cells`` like any row's, before anything is parsed: its width is
    the delimiters of the first line (for CSV at most: a quoted cell may hold a comma), and a file of nothing but a
    header line is refused without splitting it into cells."""
    delimiter = DELIMITERS[fmt]
    if fmt == "tsv":
        dialect = {"delimiter": delimiter, "quoting": csv.QUOTE_NONE}
    else:
        dialect = {"delimiter": delimiter, "quotechar": '"', "doublequote": True, "strict": True}
    limit = min(max(limits.max_file_bytes, 1), 2**31 - 1)
    if csv.field_size_limit() < limit:
        csv.field_size_limit(limit)  # only ever raised, so concurrent readers are unaffected
    text = text.rstrip("\n")
    first_end = text.find("\n")
    first = text if first_end < 0 else text[:first_end]
    width = first.count(delimiter) + 1
    _check_cells(name, n_lines, width, limits, "lines")  # the header counted
    if first_end < 0:
        shown = next(csv.reader([delimiter.join(first.split(delimiter, SHOWN_NAMES)[:SHOWN_NAMES])],
                                **{**dialect, "strict": False}))
        raise InputError(name, f"the file has a header ({quote_names([c.strip() for c in shown], width)}) but no rows")
    check_columns(name, width, limits, 1, "up to " if fmt == "csv" else "")
    reader = csv.reader(_stdio.StringIO(text), **dialect)
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
                _check_cells(name, n_lines - start, len(header), limits)
                continue
            if len(row) != len(header):
                got = "is blank" if not row else f"has {plural(len(row), 'field')}"
                raise InputError(
                    name, f"{got} but the header has {len(header)} columns ({quote_names(header)})", start
                )
            rows.append(row)
            lines.append(start)
    except csv.Error as error:
        hint = "; an unclosed quote?" if "end of data" in str(error) else ""
        raise InputError(name, f"cannot parse the {fmt.upper()} row ({error}{hint})", last_line + 1) from None
    return Table(name, header or [], rows, lines)


def _json_cell(value: object, key: str, name: str, line: int, nested: bool = False) -> str:
    """A JSONL value as text: strings as they are, numbers in their JSON form, lists and objects as JSON text when
    the reader takes them (``nested``, e.g. error spans); anything else is an error."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return json.dumps(value)
    if nested and isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    kind = {type(None): "null (a missing value)", bool: "true/false", list: "a list", dict: "an object"}
    raise InputError(name, f"{quote(key)} is {kind.get(type(value), type(value).__name__)}; expected text", line)


def _parse_jsonl(text: str, name: str, nested: bool, limits: Limits, n_lines: int) -> Table:
    """One JSON object per line (blank lines skipped); every object must have the first object's keys. The first
    object's keys are bounded before it is parsed (at most its colons) and the cells (keys x lines) after."""
    header: list[str] | None = None
    first_line = 1
    rows, lines = [], []
    for number, raw in enumerate(split_lines(text), start=1):
        if not raw.strip():
            continue
        if header is None and raw.count(":") > limits.max_cells:  # keys at most: bounded before parsing
            raise limits.exceeded(name, "max_cells", f"too many cells: an object of up to {raw.count(':'):,} keys",
                                  number)
        obj = json_line(raw, name, number)
        if not isinstance(obj, dict):
            raise InputError(name, f"expected a JSON object, found {_json_kind(obj)}", number)
        keys = [str(k) for k in obj]
        if header is None:
            header, first_line = keys, number
            check_columns(name, len(header), limits, number)
            _check_cells(name, n_lines - number + 1, len(header), limits)
        elif set(keys) != set(header):
            raise InputError(name, _key_mismatch(header, keys, first_line), number)
        rows.append([_json_cell(obj[k], k, name, number, nested) for k in header])
        lines.append(number)
    return Table(name, header or [], rows, lines)


def json_line(raw: str, name: str, line: int) -> object:
    """One JSONL line parsed; anything that cannot be parsed or kept is an :class:`InputError` on the line.

    Syntax errors, numbers over Python's digit limit (``ValueError``), nesting deeper than the interpreter's recursion
    limit (``RecursionError``) and lone surrogate escapes (:func:`refuse_lone_surrogates`) become the error."""
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as error:
        raise InputError(name, f"not valid JSON ({error.msg} at column {error.colno})", line) from None
    except ValueError:  # the one other ValueError json raises: an integer over Python's digit limit
        raise InputError(name, f"not readable JSON (a number has more than {sys.get_int_max_str_digits():,} "
                               "digits)", line) from None
    except RecursionError:
        raise InputError(name, "not readable JSON (nested too deeply)", line) from None
    refuse_lone_surrogates(value, raw, name, line)
    return value


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def refuse_lone_surrogates(value: object, raw: str, name: str, line: int | None) -> None:
    """Refuse a JSON value holding a lone surrogate.

    JSON may escape one (``"\\ud800"``, RFC 8259 §8.2), but it is no character — it cannot be stored, shown or written
    as UTF-8. Only a value whose text ``raw`` has such an escape is searched (a pair, ``"\\ud83d\\ude00"``, is one
    character and is kept); the search is iterative, so any depth that parsed is searched."""
    if not _SURROGATE_ESCAPE.search(raw):
        return
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError as error:
                    code = ord(item[error.start])
                    raise InputError(name, f"a JSON string holds the escape \\u{code:04x}, a lone surrogate (half of "
                                           "a UTF-16 pair, not a character); write the character itself", line) from None
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _json_kind(value: object) -> str:
    return {list: "a list", str: "a string", type(None): "null", bool: "true/false"}.get(type(value), "a number")


def _key_mismatch(expected: list[str], found: list[str], first_line: int) -> str:
    missing = [k for k in expected if k not in found]
    extra = [k for k in found if k not in expected]
    what = f"missing key {quote(missing[0])}" if missing else f"unexpected key {quote(extra[0])}"
    return f"{what} (line {first_line} has keys {quote_names(expected)}; this line has {quote_names(found)})"


def _first_long_column(table: Table, limits: Limits) -> int | None:
    """The first column holding a cell over ``limits.max_segment_chars`` characters, or None: every cell's length
    from one Arrow array (no per-column pass: a table may have many columns)."""
    width = len(table.header)
    if not table.rows or not width:
        return None
    cells = pa.array([cell for row in table.rows for cell in row], type=pa.large_string())
    over = np.flatnonzero(pc.utf8_length(cells).to_numpy(zero_copy_only=False) > limits.max_segment_chars)
    return int((over % width).min()) if len(over) else None


def parse_table(source: Source, name: str | None, fmt: str | None, limits: Limits, *, nested: bool = False) -> Table:
    """A table's rows, refused before parsing when its lines, cells or the characters of a cell pass a limit.

    The limits are :class:`~mtdiag.io.text.Limits`: lines are counted on the bytes; a TSV or CSV header's cells on
    the bytes too, then lines x columns before any row is parsed; a JSONL table's cells as soon as its first object
    is read."""
    shown = name or unpack(source, "input")[1]
    delimiter = DELIMITERS.get(fmt or TABLE_FORMATS.get(Path(shown).suffix.lower(), "jsonl"))
    data, display, lines = read_counted(source, name, limits, delimiter=delimiter and delimiter.encode())
    kind = _table_format(display, fmt)
    text = decode_text(data, display)
    del data
    if kind == "jsonl":
        table = _parse_jsonl(text, display, nested, limits, lines)
    else:
        table = _parse_delimited(text, display, kind, limits, lines)
    del text
    long_column = _first_long_column(table, limits)
    if long_column is not None:  # the message names the first such cell of the first such column
        check_segment_chars(table.column(long_column), display, limits, table.lines, column=table.header[long_column])
    if len(set(table.header)) != len(table.header):
        seen: set[str] = set()
        first = next(h for h in table.header if h in seen or seen.add(h))
        where = [i + 1 for i, h in enumerate(table.header) if h == first]
        where_text = lines_phrase(where, "column")
        raise InputError(display, f"column {quote(first)} appears more than once ({where_text})", 1)
    if not table.rows:
        raise InputError(display, f"the file has a header ({quote_names(table.header)}) but no rows")
    return table


def all_numbers(values: list[str]) -> bool:
    """Whether every non-blank value is a number, and there is at least one."""
    filled = [v for v in values if v.strip()]
    return bool(filled) and all(is_number(v) for v in filled)



def parse_seg_id(value: str, table: Table, line: int, n_segments: int | None) -> int:
    """A 1-based segment id parsed from ``value``: ASCII digits only, at least 1 and at most ``n_segments``.

    ``١``, ``²``, ``1_0``, ``+1`` are refused; the upper bound is :data:`MAX_SEG_ID` when the count is not known."""
    digits = value.strip()
    if not _SEG_ID.fullmatch(digits):
        raise InputError(table.name, f"seg_id {quote(value)} is not a whole number", line)
    if len(digits.lstrip("0")) > len(str(MAX_SEG_ID)):
        raise InputError(table.name, f"seg_id {quote(digits)} is out of range (seg_id is 1-based; at most "
                                     f"{MAX_SEG_ID:,})", line)
    seg_id = int(digits)
    if seg_id < 1 or seg_id > (n_segments if n_segments is not None else MAX_SEG_ID):
        limit = f"; at most {MAX_SEG_ID:,}"
        if n_segments is not None:
            limit = f"; the set has {plural(n_segments, 'segment')}"
            limit += f", numbered 1 to {n_segments}" if n_segments > 1 else ""
        raise InputError(table.name, f"seg_id {seg_id} is out of range (seg_id is 1-based{limit})", line)
    return seg_id


def parse_score(value: str, table: Table, line: int) -> float | None:
    """A score, or None for blank (not rated); NaN also counts as not rated."""
    if not value.strip():
        return None
    try:
        score = float(value)
    except ValueError:
        raise InputError(table.name, f"score {quote(value)} is not a number", line) from None
    if math.isnan(score):
        return None
    if math.isinf(score):
        raise InputError(table.name, f"score {quote(value)} is not a finite number", line)
    return score + 0.0  # -0.0 (as written in MQM files) becomes 0.0
