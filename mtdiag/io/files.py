"""Assembling an :class:`~mtdiag.core.evalset.EvalSet` from named files (:func:`load_files`): uploads or the CLI's
paths; the checks every set gets (names, line counts, inline term tags) are shared with the folder loader."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import pandas as pd

from mtdiag.io import term_matching as term_inputs
from mtdiag.core.errors import InputError
from mtdiag.core.evalset import EvalSet
from mtdiag.io.human_scores import with_human_file
from mtdiag.io.naming import clean_name
from mtdiag.io.tables import is_table_name, read_text_column
from mtdiag.io.term_files import read_term_file
from mtdiag.io.text import (
    DEFAULT_LIMITS,
    Limits,
    Source,
    blank_mask,
    check_segment_chars,
    plural,
    quote,
    read_counted,
    read_segments,
    segment_warnings,
    unpack,
)


@dataclass(frozen=True)
class TextFile:
    """One read text file with its role name (reference or system name) and display name."""

    role: str
    display: str
    lines: Sequence[str]  # a list, or an Arrow-backed ``str`` array from :func:`read_segments` (text files)

    def all_blank(self) -> bool:
        """Whether every line is empty or whitespace (a system that output nothing; for others an empty file)."""
        return bool(blank_mask(self.lines).all())


def empty_output_warning(display: str) -> str:
    """The warning for a system file of nothing but line breaks: a system that output nothing (kept)."""
    return f"{display}: every line is empty: the system outputs nothing (kept, scored as empty output)"


def read_text_file(role: str, kind: str, source: Source, fallback: str, limits: Limits,
                   warnings: list[str]) -> TextFile:
    """One source, reference or system file (``kind`` ``src``, ``ref`` or ``system``) as segments named ``role``.

    A file whose name ends in a table extension (``.tsv``, ``.tab``, ``.csv``, ``.jsonl``, ``.ndjson``) is read as
    a table with one text column (:func:`mtdiag.io.tables.read_text_column`), never as raw lines; any other file
    has one segment per line. A system file of nothing but line breaks is a system that output nothing: it is
    read (its line count is checked by :func:`assemble`, which warns); for sources and references it is empty.
    """
    payload, display = unpack(source, fallback)
    if is_table_name(display):
        display, column, lines, numbers = read_text_column((display, payload), role=kind, limits=limits)
        warnings.extend(segment_warnings(display, lines, numbers, limits, column=column))
        return TextFile(role, display, lines)
    data, display, _ = read_counted(source, None, limits, fallback)
    lines = read_segments(data, display, allow_blank=kind == "system")
    del data
    check_segment_chars(lines, display, limits)
    file = TextFile(role, display, lines)
    if not file.all_blank():
        warnings.extend(segment_warnings(display, lines, None, limits))
    return file


def check_names(refs: list[tuple[str, str]], hyps: list[tuple[str, str]]) -> None:
    """Refuse empty names, duplicate reference or system names, and a system named like a reference."""
    for kind, entries in (("reference", refs), ("system", hyps)):
        first: dict[str, str] = {}
        for role, display in entries:
            if not role.strip():
                raise InputError(display, f"the {kind} name is empty")
            if role in first:
                raise InputError(display, f"{kind} name {quote(role)} is already used by {first[role]}")
            first[role] = display
    ref_files = dict(refs)
    for role, display in hyps:
        if role in ref_files:
            raise InputError(display, f"system name {quote(role)} is also the name of reference {ref_files[role]}")


def _line_count_error(file: TextFile, expected: TextFile) -> InputError:
    """The line counts differ (a file of nothing but empty lines is empty)."""
    if file.all_blank():
        return InputError(file.display, "the file is empty")
    n, m = len(file.lines), len(expected.lines)
    hint = ""
    if n == m + 1 and not file.lines[n - 1].strip():
        hint = f" (the last line of {file.display} is empty: an extra blank line at the end?)"
    return InputError(file.display, f"has {plural(n, 'line')} but {expected.display} has {m}{hint}")


def assemble(src: TextFile | None, refs: list[TextFile], hyps: list[TextFile], *, name: str,
              lang_pair: str | None, human: pd.DataFrame | None, warnings: list[str],
              term_files: list[TextFile | term_inputs.TermFile] = ()) -> EvalSet:
    """The :class:`EvalSet` of read text files, after checking their line counts.

    Checks line counts against the first reference, or the source where there is none (warning about systems that output
    nothing), takes inline ``<term>`` tags out of source and reference lines, reads term files, and builds the
    :class:`EvalSet` (without references when none is given: the reference-free checks and metrics)."""
    expected = refs[0] if refs else src
    for file in [f for f in ([src] if src else []) + refs + hyps if f is not expected]:
        if len(file.lines) != len(expected.lines):
            raise _line_count_error(file, expected)
    warnings = [*warnings, *(empty_output_warning(f.display) for f in hyps if f.all_blank())]
    src, refs, tagged = _strip_tags(src, refs, warnings)
    ref_lines = refs[0].lines if refs else [""] * len(expected.lines)
    found_terms = term_inputs.build_terms(src.lines if src else None, ref_lines, lang_pair, list(term_files), warnings)
    if not len(found_terms):
        found_terms = tagged
    index = pd.RangeIndex(len(expected.lines), name="seg")
    segments = pd.DataFrame(index=index)
    if src is not None:
        segments["src"] = src.lines
    return EvalSet(
        segments=segments,
        refs=pd.DataFrame({f.role: f.lines for f in refs}, index=index) if refs else pd.DataFrame(index=index),
        hyps=pd.DataFrame({f.role: f.lines for f in hyps}, index=index),
        terms=found_terms if len(found_terms) else None,
        human=human,
        name=name,
        lang_pair=lang_pair,
        warnings=tuple(warnings),
    )


def _strip_tags(src: TextFile | None, refs: list[TextFile], warnings: list[str]):
    """Source and references without inline ``<term>`` tags, and the term occurrences the tags give (stray tags
    are warnings appended to ``warnings``)."""
    def strip(file: TextFile):
        if not term_inputs.has_term_tags(file.lines):
            return file, None
        pairs = [term_inputs.strip_term_tags(line, file.display, i, warnings)
                 for i, line in enumerate(file.lines, start=1)]
        return TextFile(file.role, file.display, [p[0] for p in pairs]), [p[1] for p in pairs]

    src, src_tags = strip(src) if src is not None else (None, None)
    stripped = [strip(f) for f in refs]
    refs = [f for f, _ in stripped]
    tagged = term_inputs.empty_terms()
    if src_tags is not None:  # without a reference, the source's tags give terms with no reference surface
        ref_tags, ref_display = (stripped[0][1], refs[0].display) if refs else (None, None)
        tagged = term_inputs.terms_from_tags(src_tags, ref_tags, src.display, ref_display)
    return src, refs, tagged


def _entries(named: Mapping[str, Source] | Iterable[tuple[str, Source]]) -> list[tuple[str, Source]]:
    """``(name, source)`` pairs with names stripped of surrounding whitespace (``a`` and ``a `` are one name)."""
    pairs = list(named.items()) if isinstance(named, Mapping) else [tuple(e) for e in named]
    return [(clean_name(name) if isinstance(name, str) else name, source) for name, source in pairs]


def _display_of(source: Source, fallback: str) -> str:
    return unpack(source, fallback)[1]


def load_files(src: Source | None = None, refs: Mapping[str, Source] | Iterable[tuple[str, Source]] = (),
               hyps: Mapping[str, Source] | Iterable[tuple[str, Source]] = (), *, name: str = "data",
               lang_pair: str | None = None, human: Source | None = None, terms: Source | None = None,
               limits: Limits = DEFAULT_LIMITS) -> EvalSet:
    """An :class:`EvalSet` from named files: uploads (bytes or ``(file_name, bytes)``) or paths (the CLI).

    ``refs``/``hyps`` map a reference/system name to a source; a list of ``(name, source)`` pairs is accepted
    too, so that a name given twice is reported (names are stripped of surrounding whitespace first). Every file
    must have as many lines as the first reference. A ``.tsv``/``.csv``/``.jsonl`` file is read as a table with
    one text column (:func:`read_text_file`). Human scores for systems that are not loaded give a warning.
    ``human`` is an optional human-score TSV, or an error file whose rows give the human scores under the
    analysis's scheme (:func:`mtdiag.io.human_scores.with_human_file`); ``terms`` an optional terms TSV
    (``seg_id, src_term, tgt_term``) or glossary TSV (``source, target``); inline ``<term>`` tags in the source
    and reference lines are read without it (:mod:`mtdiag.io.term_matching`).
    """
    term_source = terms
    ref_entries, hyp_entries = _entries(refs), _entries(hyps)
    if not ref_entries and src is None:
        raise InputError(None, "no reference and no source given: give the source (for reference-free checks) or "
                               "a reference, or both")
    if not hyp_entries:
        raise InputError(None, "no system output file given; at least one is needed")
    check_names([(r, _display_of(s, f"reference {r}")) for r, s in ref_entries],
                 [(h, _display_of(s, f"system {h}")) for h, s in hyp_entries])
    warnings: list[str] = []
    src_file = read_text_file("src", "src", src, "source", limits, warnings) if src is not None else None
    ref_files = [read_text_file(r, "ref", s, f"reference {r}", limits, warnings) for r, s in ref_entries]
    hyp_files = [read_text_file(h, "system", s, f"system {h}", limits, warnings) for h, s in hyp_entries]
    term_files = [] if term_source is None else [
        read_term_file(term_source, _display_of(term_source, "terms"), limits=limits)]
    evalset = assemble(src_file, ref_files, hyp_files, name=name, lang_pair=lang_pair, human=None,
                       warnings=warnings, term_files=term_files)
    if human is None:
        return evalset
    return with_human_file(evalset, human, _display_of(human, "human scores"), limits=limits)
