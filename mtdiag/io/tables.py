"""Tables whose header names the roles: TSV (no quoting, as in WMT files), CSV (standard quoting) and JSONL (one
object per line) — :func:`read_table`, :func:`load_table`, and :func:`read_text_column` for a table given where
one text file is expected (``docs/inputs.md``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from mtdiag.core.errors import InputError
from mtdiag.core.evalset import EvalSet
from mtdiag.io.naming import lang_pair_from_name, ref_name_from_column
from mtdiag.io.parsing import TABLE_FORMATS, Table, all_numbers, parse_table
from mtdiag.io.text import DEFAULT_LIMITS, Limits, Source, column_warnings, quote, quote_names

META_COLUMNS = frozenset({"seg_id", "doc", "doc_id", "id"})
DOC_COLUMNS = ("doc", "doc_id")
SRC_COLUMNS = frozenset({"src", "source"})


def is_table_name(file_name: str) -> bool:
    """True when a file name's extension makes it a table (``.tsv``, ``.tab``, ``.csv``, ``.jsonl``, ``.ndjson``)."""
    return Path(file_name).suffix.lower() in TABLE_FORMATS


def read_table(source: Source, name: str | None = None, *, fmt: str | None = None,
               limits: Limits = DEFAULT_LIMITS) -> pd.DataFrame:
    """A TSV/CSV/JSONL file as a frame of strings, one column per header name (index 0..n-1).

    Validated for shape: every row has every column. ``fmt`` (``tsv``/``csv``/``jsonl``) defaults to the file
    extension."""
    table = parse_table(source, name, fmt, limits)
    return pd.DataFrame(table.rows, columns=table.header, dtype=object)


@dataclass
class _Roles:
    """Column indexes by role: source, document id, references and systems by name."""

    src: int | None = None
    doc: int | None = None
    refs: dict[str, int] = field(default_factory=dict)
    systems: dict[str, int] = field(default_factory=dict)


def _assign_roles(table: Table, warnings: list[str]) -> _Roles:
    """Map header columns to roles: src, doc, references, systems; meta and numeric-only columns are skipped."""
    roles = _Roles()
    ref_columns: dict[str, str] = {}
    for index, column in enumerate(table.header):
        lower = column.lower()
        if lower in SRC_COLUMNS:
            if roles.src is not None:
                raise InputError(table.name, f"columns {quote(table.header[roles.src])} and {quote(column)} "
                                             "both name the source", 1)
            roles.src = index
        elif lower in META_COLUMNS:
            if lower in DOC_COLUMNS and roles.doc is None:
                roles.doc = index
        elif (ref := ref_name_from_column(column)) is not None:
            if ref in roles.refs:
                raise InputError(table.name, f"columns {quote(ref_columns[ref])} and {quote(column)} both name "
                                             f"reference {quote(ref)}", 1)
            roles.refs[ref], ref_columns[ref] = index, column
        elif all_numbers(table.column(index)):
            label = f"column {quote(column)}" if column else f"column {index + 1} has no name and"
            warnings.append(f"{table.name}: {label} holds only numbers, so it is not read as a system")
        elif not column:
            raise InputError(table.name, f"column {index + 1} has no name; name it src, ref or a system", 1)
        else:
            roles.systems[column] = index
    _check_roles(table, roles, ref_columns)
    return roles


def _check_roles(table: Table, roles: _Roles, ref_columns: dict[str, str]) -> None:
    found = f"found columns {quote_names(table.header)}"
    if not roles.refs and roles.src is None:  # without references the source is what the checks read
        raise InputError(table.name, f"no reference or source column; {found}; expected a column named ref "
                                     "(or ref.NAME, ref_NAME, refNAME for several), or src for reference-free "
                                     "checks", 1)
    if not roles.systems:
        raise InputError(table.name, f"no system column; {found}; expected one text column per system "
                                     "besides src, ref* and seg_id/doc/doc_id/id", 1)
    for system in roles.systems:
        if system in roles.refs:
            raise InputError(table.name, f"system column {quote(system)} has the same name as reference column "
                                         f"{quote(ref_columns[system])}", 1)


def load_table(source: Source, name: str | None = None, *, fmt: str | None = None, lang_pair: str | None = None,
               limits: Limits = DEFAULT_LIMITS) -> EvalSet:
    """An :class:`EvalSet` from one TSV/CSV/JSONL table whose header names the roles.

    ``src``/``source`` is the source (optional); ``ref``, ``ref.X``, ``ref_X``, ``refX`` are references (named
    ``ref`` or ``X``); ``seg_id``, ``doc``, ``doc_id``, ``id`` are meta (``doc``/``doc_id`` becomes
    ``segments.doc``); every other text column is a system. Numeric-only columns are skipped with a warning.
    """
    warnings: list[str] = []
    table = parse_table(source, name, fmt, limits)
    roles = _assign_roles(table, warnings)
    index = pd.RangeIndex(len(table.rows), name="seg")
    segments = pd.DataFrame(index=index)
    if roles.src is not None:
        segments["src"] = table.column(roles.src)
    if roles.doc is not None:
        segments["doc"] = table.column(roles.doc)
    text_columns = ([] if roles.src is None else [roles.src]) + list(roles.refs.values()) + list(
        roles.systems.values())
    warnings += column_warnings(table.name, [table.header[i] for i in text_columns],
                                [row[i] for row in table.rows for i in text_columns], table.lines, limits)
    if not roles.refs and not any(text.strip() for text in segments["src"]):
        raise InputError(table.name, f"column {quote(table.header[roles.src])} is empty and there is no reference "
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


def _text_column_index(table: Table, role: str) -> int:
    """The column of a table that holds the one text column wanted as ``role`` (``src``, ``ref`` or ``system``).

    Meta columns (``seg_id``, ``doc``, ``doc_id``, ``id``) and numeric-only columns are never text. The one text
    column left is taken whatever its name; among several, the one the table rules give the role (``src``/``source``
    for the source, a single ``ref``/``ref.NAME`` column for a reference, a single column that is neither for a
    system); anything else is ambiguous and an :class:`InputError` lists the columns and says which to keep.
    """
    text = [i for i, column in enumerate(table.header)
            if column.lower() not in META_COLUMNS and not all_numbers(table.column(i))]
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
    found = f"text columns {quote_names(table.header[i] for i in text)}" if text else "no text column"
    raise InputError(table.name, f"is read as a table with one text column for the {_ROLE_NOUN[role]}, but it "
                                 f"has {found}; keep only that column, or give it {rule}", 1)


def read_text_column(source: Source, name: str | None = None, *, role: str = "system",
                     limits: Limits = DEFAULT_LIMITS) -> tuple[str, str, list[str], list[int]]:
    """A TSV/CSV/JSONL file given where one text file is expected, as its one text column.

    Such a file is a ``--ref``, ``--hyp`` or ``--src``, or an entry of :func:`mtdiag.io.load_files`. Returns its display
    name, the name of its one text column (:func:`_text_column_index` says which), that column's segments and the file
    line of each segment."""
    table = parse_table(source, name, None, limits)
    index = _text_column_index(table, role)
    return table.name, table.header[index], table.column(index), table.lines
