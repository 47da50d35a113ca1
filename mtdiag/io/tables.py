"""Tables whose header names the roles: TSV (no quoting, as in WMT files), CSV (standard quoting) and JSONL (one
object per line) — :func:`read_table`, :func:`load_table`, and :func:`read_text_column` for a table given where
one text file is expected (``docs/inputs.md``)."""

from __future__ import annotations

import csv
import io as _stdio
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from mtdiag.errors import InputError
from mtdiag.evalset import EvalSet
from mtdiag.io.naming import lang_pair_from_name, ref_name_from_column
from mtdiag.io.text import (
    DEFAULT_LIMITS,
    Limits,
    Source,
    _is_number,
    _lines_phrase,
    _names,
    _plural,
    _quote,
    _segment_warnings,
    check_segment_chars,
    decode_text,
    read_counted,
    split_lines,
)

META_COLUMNS = frozenset({"seg_id", "doc", "doc_id", "id"})
DOC_COLUMNS = ("doc", "doc_id")
SRC_COLUMNS = frozenset({"src", "source"})
TABLE_FORMATS = {".tsv": "tsv", ".tab": "tsv", ".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}


def is_table_name(file_name: str) -> bool:
    """True when a file name's extension makes it a table (``.tsv``, ``.tab``, ``.csv``, ``.jsonl``, ``.ndjson``)."""
    return Path(file_name).suffix.lower() in TABLE_FORMATS


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


def _check_cells(name: str, rows: int, columns: int, limits: Limits) -> None:
    """Refuse a table whose rows (at most its lines) times its columns pass ``limits.max_cells``, before its rows
    are parsed."""
    if rows * columns > limits.max_cells:
        raise limits.exceeded(name, "max_cells", f"too many cells: up to {rows:,} rows x {columns:,} columns")


def _parse_delimited(text: str, name: str, fmt: str, limits: Limits, n_lines: int) -> _Table:
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
                _check_cells(name, n_lines - start, len(header), limits)
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
    raise InputError(name, f"{_quote(key)} is {kind.get(type(value), type(value).__name__)}; expected text", line)


def _parse_jsonl(text: str, name: str, nested: bool, limits: Limits, n_lines: int) -> _Table:
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
        obj = _json_object(raw, name, number)
        if not isinstance(obj, dict):
            raise InputError(name, f"expected a JSON object, found {_json_kind(obj)}", number)
        keys = [str(k) for k in obj]
        if header is None:
            header, first_line = keys, number
            _check_cells(name, n_lines - number + 1, len(header), limits)
        elif set(keys) != set(header):
            raise InputError(name, _key_mismatch(header, keys, first_line), number)
        rows.append([_json_cell(obj[k], k, name, number, nested) for k in header])
        lines.append(number)
    return _Table(name, header or [], rows, lines)


def _json_object(raw: str, name: str, line: int) -> object:
    """One JSONL line parsed; syntax errors, numbers over Python's digit limit (``ValueError``) and nesting
    deeper than the interpreter's recursion limit (``RecursionError``) become an :class:`InputError` on the line."""
    try:
        return json.loads(raw)
    except json.JSONDecodeError as error:
        raise InputError(name, f"not valid JSON ({error.msg} at column {error.colno})", line) from None
    except ValueError:  # the one other ValueError json raises: an integer over Python's digit limit
        raise InputError(name, f"not readable JSON (a number has more than {sys.get_int_max_str_digits():,} "
                               "digits)", line) from None
    except RecursionError:
        raise InputError(name, "not readable JSON (nested too deeply)", line) from None


def _json_kind(value: object) -> str:
    return {list: "a list", str: "a string", type(None): "null", bool: "true/false"}.get(type(value), "a number")


def _key_mismatch(expected: list[str], found: list[str], first_line: int) -> str:
    missing = [k for k in expected if k not in found]
    extra = [k for k in found if k not in expected]
    what = f"missing key {_quote(missing[0])}" if missing else f"unexpected key {_quote(extra[0])}"
    return f"{what} (line {first_line} has keys {_names(expected)}; this line has {_names(found)})"


def _parse_table(source: Source, name: str | None, fmt: str | None, limits: Limits, *, nested: bool = False) -> _Table:
    """A table's rows, refused before parsing when its lines, cells or the characters of a cell pass a limit
    (:class:`~mtdiag.io.text.Limits`: lines are counted on the bytes, cells as soon as the header is known)."""
    data, display, lines = read_counted(source, name, limits)
    kind = _table_format(display, fmt)
    text = decode_text(data, display)
    del data
    if kind == "jsonl":
        table = _parse_jsonl(text, display, nested, limits, lines)
    else:
        table = _parse_delimited(text, display, kind, limits, lines)
    del text
    for index, column in enumerate(table.header):
        check_segment_chars(table.column(index), display, limits, table.lines, column=column)
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
        elif (ref := ref_name_from_column(column)) is not None:
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
    if not roles.refs and roles.src is None:  # without references the source is what the checks read
        raise InputError(table.name, f"no reference or source column; {found}; expected a column named ref "
                                     "(or ref.NAME, ref_NAME, refNAME for several), or src for reference-free "
                                     "checks", 1)
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
    if not roles.refs and not any(text.strip() for text in segments["src"]):
        raise InputError(table.name, f"column {_quote(table.header[roles.src])} is empty and there is no reference "
                                     "column: the outputs have nothing to be checked against", 1)
    stem = Path(table.name).stem
    return EvalSet(
        segments=segments,
        refs=pd.DataFrame({r: table.column(i) for r, i in roles.refs.items()}, index=index),
        hyps=pd.DataFrame({s: table.column(i) for s, i in roles.systems.items()}, index=index),
        name=stem,
        lang_pair=lang_pair or lang_pair_from_name(stem),
        warnings=tuple(warnings),
    )


_ROLE_NOUN = {"src": "source", "ref": "reference", "system": "system output"}


def _text_column_index(table: _Table, role: str) -> int:
    """The column of a table that holds the one text column wanted as ``role`` (``src``, ``ref`` or ``system``).

    Meta columns (``seg_id``, ``doc``, ``doc_id``, ``id``) and numeric-only columns are never text. The one text
    column left is taken whatever its name; among several, the one the table rules give the role (``src``/``source``
    for the source, a single ``ref``/``ref.NAME`` column for a reference, a single column that is neither for a
    system); anything else is ambiguous and an :class:`InputError` lists the columns and says which to keep.
    """
    text = [i for i, column in enumerate(table.header)
            if column.lower() not in META_COLUMNS and not _all_numbers(table.column(i))]
    if len(text) == 1:
        return text[0]
    sources = [i for i in text if table.header[i].lower() in SRC_COLUMNS]
    refs = [i for i in text if i not in sources and ref_name_from_column(table.header[i]) is not None]
    systems = [i for i in text if i not in sources and i not in refs]
    wanted = {"src": sources, "ref": refs, "system": systems}[role]
    if len(wanted) == 1:
        return wanted[0]
    rule = {"src": "a src or source column", "ref": "one ref or ref.NAME column",
            "system": "one column besides src, ref* and seg_id/doc/doc_id/id"}[role]
    found = f"text columns {_names(table.header[i] for i in text)}" if text else "no text column"
    raise InputError(table.name, f"is read as a table with one text column for the {_ROLE_NOUN[role]}, but it "
                                 f"has {found}; keep only that column, or give it {rule}", 1)


def read_text_column(source: Source, name: str | None = None, *, role: str = "system",
                     limits: Limits = DEFAULT_LIMITS) -> tuple[str, str, list[str], list[int]]:
    """A TSV/CSV/JSONL file given where one text file is expected (a ``--ref``, ``--hyp`` or ``--src``, or an
    entry of :func:`mtdiag.io.load_files`): its display name, the name of its one text column
    (:func:`_text_column_index` says which), that column's segments and the file line of each segment."""
    table = _parse_table(source, name, None, limits)
    index = _text_column_index(table, role)
    return table.name, table.header[index], table.column(index), table.lines
