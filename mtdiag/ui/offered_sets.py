"""Finding the test sets the dashboard offers: the folders under ``--data DIR`` (``mtdiag serve --data DIR``
passes it to the dashboard after ``--``; ``MTDIAG_DATA`` works too) and under ``sample_data/``, richest first (most
references, then most systems), each read once per change of its files (:func:`load_folder`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import streamlit as st

from mtdiag import io as mio
from mtdiag.core.errors import InputError
from mtdiag.ui import layout_sets, state

SAMPLE_DIR = Path(__file__).resolve().parents[1] / "sample_data"  # package data: there in a checkout and a wheel


def script_argument(flag: str, argv: list[str] | None) -> str | None:
    """The value of ``flag`` (``--flag VALUE`` or ``--flag=VALUE``) among the script arguments."""
    argv = sys.argv[1:] if argv is None else argv
    for i, arg in enumerate(argv):
        if arg == flag and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(f"{flag}="):
            return arg.split("=", 1)[1]
    return None


def data_argument(argv: list[str] | None = None) -> str | None:
    """``--data DIR`` from the script arguments (``streamlit run app.py -- --data DIR``), else ``MTDIAG_DATA``."""
    return script_argument("--data", argv) or os.environ.get("MTDIAG_DATA") or None


def _inputs(folder: Path) -> mio.FolderInputs | None:
    """The folder's inputs by :mod:`mtdiag.io.naming`'s rule, or None when it cannot be read."""
    try:
        return mio.folder_inputs(folder)
    except InputError:
        return None


def _is_set(folder: Path) -> bool:
    """A test-set folder has a reference file, or a source and a system output (reference-free), by the io naming
    rule; or it is a WMT release in mt-metrics-eval's layout (:mod:`mtdiag.ui.layout_sets`)."""
    inputs = _inputs(folder)
    return (inputs is not None and bool(inputs.systems) and (bool(inputs.refs) or inputs.src is not None)) \
        or layout_sets.is_release(str(folder))


def _richness(folder: Path) -> tuple[int, int]:
    """(references, systems) of a folder, as :func:`mtdiag.io.load_folder` would read them."""
    inputs = _inputs(folder)
    return (len(inputs.refs), len(inputs.systems)) if inputs is not None else (0, 0)


@st.cache_data(show_spinner=False, ttl=60)
def find_sets(root: str) -> list[str]:
    """Test-set folders at ``root``: the folder itself when it is one, else its sub-folders (two levels deep) that are.

    Richest first (most references, then most systems), then by name."""
    base = Path(root)
    if not base.is_dir():
        return []
    if _is_set(base):
        return [str(base)]
    found = [p for p in sorted(base.iterdir()) if p.is_dir() and _is_set(p)]
    for sub in sorted(base.iterdir()):
        if sub.is_dir() and not _is_set(sub):
            found += [p for p in sorted(sub.iterdir()) if p.is_dir() and _is_set(p)]

    def order(p: Path):
        refs, systems = _richness(p)
        return (-refs, -systems, p.name)

    return [str(p) for p in sorted(found, key=order)]


def available_sets() -> list[str]:
    """Folders from ``--data`` first, then the sample sets (each once)."""
    sets: list[str] = []
    arg = data_argument()
    if arg:
        sets += find_sets(str(Path(arg).resolve()))
    for path in find_sets(str(SAMPLE_DIR)):
        if path not in sets:
            sets.append(path)
    return sets


def set_label(path: str) -> str:
    """A test set's name in the picker.

    ``sample_data/NAME`` for the package's samples, else its last two folders (``wmt21/en-ja``)."""
    p = Path(path)
    try:
        return "/".join(("sample_data", *p.resolve().relative_to(SAMPLE_DIR).parts))
    except ValueError:
        return "/".join(p.parts[-2:]) + (" (WMT release)" if layout_sets.is_release(path) else "")


def stamp(path: str) -> tuple:
    """Names, sizes and modification times of a folder's files: a changed file reloads the set."""
    return tuple(sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in Path(path).iterdir() if p.is_file()))


@st.cache_resource(show_spinner="Reading the test set …", max_entries=8)
def load_folder(path: str, files: tuple) -> state.Dataset:
    """A test-set folder, read once per change of its files (``files``: :func:`stamp`).

    Its human error rows are left as read (the session's scheme weighs them: :func:`mtdiag.ui.reports.report_for`)."""
    evalset = mio.load_folder(path, limits=state.session_limits())
    return state.Dataset(evalset, evalset.content_hash(), "folder", Path(path).name)


def folder_widgets(sets: list[str]) -> tuple[state.Dataset | None, list[str]]:
    """The test-set picker; returns (the chosen set, read, or None; the problems found)."""
    sb = st.sidebar
    if not sets:
        sb.warning("No test-set folder found: upload files instead.")
        return None, []
    path = sb.selectbox("Test set", sets, format_func=set_label, key="data_set")
    try:
        if layout_sets.is_release(path):
            return layout_sets.folder_dataset(path)
        return load_folder(path, stamp(path)), []
    except InputError as error:
        return None, [str(error)]
