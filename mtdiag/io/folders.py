"""Test-set folders: which files a folder holds (:func:`folder_inputs`, by :mod:`mtdiag.io.naming`'s rule) and
reading one (:func:`load_folder`), or a folder-or-table path (:func:`load_path`)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from mtdiag.core.errors import InputError
from mtdiag.core.evalset import EvalSet
from mtdiag.io.files import TextFile, assemble, check_names, read_text_file
from mtdiag.io.annotations import ANNOTATION_FILES, with_error_annotations
from mtdiag.io.scores import METRIC_SCORES_FILE, with_metric_scores
from mtdiag.io.human_scores import HUMAN_SCORES_FILE, with_human_file
from mtdiag.io.labels import SEGMENT_LABELS_FILE, with_segment_labels
from mtdiag.io.naming import file_role, resolve_lang_pair
from mtdiag.io.tables import load_table
from mtdiag.io.term_files import folder_term_files
from mtdiag.io.text import DEFAULT_LIMITS, Limits, quote_names, read_lines


@dataclass(frozen=True)
class FolderInputs:
    """A folder's ``*.txt`` files by role (:func:`mtdiag.io.naming.file_role`).

    The source (or None), the references and the systems as ``(name, path)``, each sorted by name, and every ``*.txt``
    file seen."""

    src: Path | None
    refs: list[tuple[str, Path]]
    systems: list[tuple[str, Path]]
    files: list[Path]


def folder_inputs(path: str | os.PathLike[str]) -> FolderInputs:
    """The :class:`FolderInputs` of a folder: its ``*.txt`` files classified by role.

    Hidden, ``*.annotated.txt`` and README/LICENSE/notes files are no input; an :class:`InputError` when the path is no
    readable folder."""
    folder, display = Path(path), str(path)
    if not folder.exists():
        raise InputError(display, "no such folder")
    if not folder.is_dir():
        raise InputError(display, "is not a folder")
    try:
        files = [p for p in folder.iterdir() if p.is_file() and p.suffix.lower() == ".txt"]
    except OSError as error:
        raise InputError(display, f"cannot read the folder ({error.strerror or error})") from None
    files.sort(key=lambda p: (p.name.casefold(), p.name))
    src, refs, systems = None, [], []
    for file in files:
        role = file_role(file.name)
        if role is None:
            continue
        kind, name = role
        if kind == "src":
            src = file
        else:
            (refs if kind == "ref" else systems).append((name, file))
    by_name = lambda entry: (entry[0].casefold(), entry[0], entry[1].name)  # noqa: E731
    return FolderInputs(src, sorted(refs, key=by_name), sorted(systems, key=by_name),
                        [f for f in files if not f.name.startswith(".")])


def load_folder(path: str | os.PathLike[str], *, limits: Limits = DEFAULT_LIMITS) -> EvalSet:
    """An :class:`EvalSet` from a folder of text files, with the human and metric files found beside them.

    ``src.txt`` (optional), ``ref.txt``/``ref.NAME.txt`` (one or more), every other ``*.txt`` a system named by its stem
    without a ``testset.xx-yy.`` prefix (the rule of :mod:`mtdiag.io.naming`: ``*.annotated.txt``, README/LICENSE/notes
    are no input); human scores from ``mqm.seg.tsv`` when present (systems it rates that are not in the folder give a
    warning); metric scores computed elsewhere from ``metric_scores.tsv`` (:mod:`mtdiag.io.scores`); human error rows
    from ``mqm.errors.tsv`` / ``esa.jsonl`` (:mod:`mtdiag.io.annotations`, as read: weighed by the analysis's scheme,
    which makes their scores the human scores where ``mqm.seg.tsv`` gives none); segment labels from ``segments.tsv``
    (:mod:`mtdiag.io.labels`); ``lang_pair`` from the folder name, else the systems' ``testset.xx-yy.`` file names. Term
    occurrences come from ``terms.tsv``, else ``glossary*.tsv``, else ``src.annotated.txt``/``ref*.annotated.txt``
    (:mod:`mtdiag.io.term_matching`)."""
    folder, display = Path(path), str(path)
    inputs = folder_inputs(folder)
    paths, src, refs, hyps = inputs.files, inputs.src, inputs.refs, inputs.systems
    found = f"found {quote_names(p.name for p in paths)}" if paths else "found no .txt files"
    if not refs and src is None:
        raise InputError(display, f"no reference and no source file; expected ref.txt or ref.NAME.txt, or src.txt "
                                  f"for reference-free checks, {found}")
    if not hyps:
        raise InputError(display, f"no system output file; expected a NAME.txt besides src.txt and ref*.txt, {found}")
    check_names([(r, p.name) for r, p in refs], [(h, p.name) for h, p in hyps])
    warnings: list[str] = []

    def read(role: str, kind: str, file: Path) -> TextFile:
        return read_text_file(role, kind, (file.name, file), file.name, limits, warnings)

    src_file = read("src", "src", src) if src is not None else None
    ref_files = [read(r, "ref", p) for r, p in refs]
    hyp_files = [read(h, "system", p) for h, p in hyps]
    name = folder.resolve().name or display
    term_files = folder_term_files(folder, limits=limits)
    if not term_files and src_file is not None and ref_files and (folder / "src.annotated.txt").is_file():
        # tags only in the annotated copies: read them in place of the plain source and first reference
        annotated_ref = folder / f"ref.{ref_files[0].role}.annotated.txt"
        if not annotated_ref.is_file():
            annotated_ref = folder / "ref.annotated.txt"
        src_file = read("src", "src", folder / "src.annotated.txt")
        if annotated_ref.is_file():
            ref_files[0] = TextFile(ref_files[0].role, annotated_ref.name,
                                     read_lines(annotated_ref, annotated_ref.name, limits=limits, warnings=warnings))
    lang_pair = resolve_lang_pair(folders=[name], file_names=[p.name for _, p in hyps])
    evalset = assemble(src_file, ref_files, hyp_files, name=name, lang_pair=lang_pair,
                        human=None, warnings=warnings, term_files=term_files)
    return _with_extra_files(evalset, folder, limits)


def _with_extra_files(evalset: EvalSet, folder: Path, limits: Limits) -> EvalSet:
    """``evalset`` with what a folder's other files by their names add: metric scores, human scores, error
    annotations (their rows as read) and segment labels (those present)."""
    if (folder / METRIC_SCORES_FILE).is_file():
        evalset = with_metric_scores(evalset, folder / METRIC_SCORES_FILE, METRIC_SCORES_FILE, limits=limits)
    if (folder / HUMAN_SCORES_FILE).is_file():
        evalset = with_human_file(evalset, folder / HUMAN_SCORES_FILE, HUMAN_SCORES_FILE, limits=limits,
                                  absent="not in the folder")
    for file_name in ANNOTATION_FILES:
        if (folder / file_name).is_file():
            evalset = with_error_annotations(evalset, folder / file_name, file_name, limits=limits)
    if (folder / SEGMENT_LABELS_FILE).is_file():
        evalset = with_segment_labels(evalset, folder / SEGMENT_LABELS_FILE, SEGMENT_LABELS_FILE, limits=limits)
    return evalset


def extra_files(path: str | os.PathLike[str]) -> list[Path]:
    """The files besides the texts that :func:`load_folder` reads from a folder by their names.

    Human scores, metric scores and error annotations (those present)."""
    folder = Path(path)
    names = (HUMAN_SCORES_FILE, METRIC_SCORES_FILE, *ANNOTATION_FILES)
    return [folder / name for name in names if (folder / name).is_file()]


def load_path(path: str | os.PathLike[str], *, limits: Limits = DEFAULT_LIMITS) -> EvalSet:
    """A folder (:func:`load_folder`) or a ``.tsv``/``.csv``/``.jsonl`` table (:func:`load_table`)."""
    if Path(path).is_dir():
        return load_folder(path, limits=limits)
    if not Path(path).exists():
        raise InputError(str(path), "no such file or folder")
    return load_table(path, limits=limits)
