"""Reading term files (terms TSVs and glossaries) into :class:`mtdiag.io.term_matching.TermFile` tables; what the terms mean
(matching, inline tags) is :mod:`mtdiag.io.term_matching`."""

from __future__ import annotations

from pathlib import Path

from mtdiag.io import term_matching as term_inputs
from mtdiag.core.errors import InputError
from mtdiag.io.parsing import MAX_SEG_ID, parse_table
from mtdiag.io.text import DEFAULT_LIMITS, Limits, Source, quote

TERMS_FILE = "terms.tsv"
_SEG_ID_COLUMNS = ("seg_id", "segment", "seg")  # mtdiag.io.term_matching' names for the segment column


def read_term_file(source: Source, name: str | None = None, *, limits: Limits = DEFAULT_LIMITS) -> term_inputs.TermFile:
    """A terms or glossary TSV as a :class:`~mtdiag.io.term_matching.TermFile` (header and rows of strings).

    Segment ids must be written in ASCII digits: ``²`` or ``١`` (which Python's ``int`` reads as 1 or refuses
    with a ``ValueError``) are an :class:`InputError` naming the line, and so is a number of more digits than
    :data:`~mtdiag.io.parsing.MAX_SEG_ID` (never converted: Python refuses over 4,300 digits); the range check
    against the set's segments is :mod:`mtdiag.io.term_matching`'.
    """
    table = parse_table(source, name, "tsv", limits)
    lowered = [h.strip().lower() for h in table.header]
    seg_at = next((lowered.index(c) for c in _SEG_ID_COLUMNS if c in lowered), None)
    if seg_at is not None:
        for row, line in zip(table.rows, table.lines):
            digits = row[seg_at].strip()
            if not digits.isascii():
                raise InputError(table.name, f"seg_id {quote(row[seg_at])} is not a segment number "
                                             "(write it in the digits 0-9)", line)
            if len(digits.lstrip("0")) > len(str(MAX_SEG_ID)):
                raise InputError(table.name, f"seg_id {quote(digits)} is out of range (at most {MAX_SEG_ID:,})", line)
    return term_inputs.TermFile(table.name, list(table.header), [list(row) for row in table.rows])


def folder_term_files(folder: Path, *, limits: Limits = DEFAULT_LIMITS) -> list[term_inputs.TermFile]:
    """The term files of a folder: ``terms.tsv`` when it has one, else every ``glossary*.tsv`` (sorted), else none.

    Tags in ``src.annotated.txt``/``ref*.annotated.txt`` are read by :func:`mtdiag.io.load_folder`."""
    if (folder / TERMS_FILE).is_file():
        return [read_term_file(folder / TERMS_FILE, TERMS_FILE, limits=limits)]
    return [read_term_file(p, p.name, limits=limits) for p in sorted(folder.glob("glossary*.tsv"))]
