"""Reports of test-set folders kept on disk, so that a server's first page does not score what an earlier server
(or ``make install``) already scored.

A report is its per-segment statistics (:func:`mtdiag.scoring.evaluate.report_from_statistics` rebuilds the corpus and segment
scores from them by each metric's formulas, nothing tokenised or counted again), so one ``.npz`` file per
(data, options, code) holds it: every ``(metric, system)`` array and the metrics' names. The file's name is a digest
of

- the test set's content (:meth:`mtdiag.core.evalset.EvalSet.content_hash`: every text and extra),
- the options made explicit for the set (:meth:`mtdiag.scoring.evaluate.Options.resolved`: tokeniser, case, metrics and their
  options),
- the code that computes statistics: every ``.py`` file of the package (:func:`code_digest`) and the versions of
  the libraries whose output enters a statistic (sacrebleu's tokenisers, rapidfuzz's alignments, numpy),
- the registered metrics (:func:`registered_digest`): options that name no metrics mean "every registered one",
  so a metric registered at run time — and the source of its module — is part of the key. A report scored with a
  plug-in is never read by a process without it (which could not rebuild its scores), nor the reverse; a
  plug-in whose source cannot be read makes the report one that is not kept,

so a changed text, option, metric or library is a new file, never a stale report. Files are written whole (a
temporary file renamed over) and read with ``allow_pickle=False``; a file that cannot be read is removed and the set
scored again. The folder keeps the :data:`MAX_FILES` most recently used files.

The dashboard uses it for the test-set folders it offers (the package's sample sets and ``--data DIR``): those are
files on the server already. Uploaded data is never written to disk (docs/dashboard.md), and the command line
always scores (its timings are measured against sacrebleu's).

Where: ``$MTDIAG_CACHE_DIR``, else ``$XDG_CACHE_HOME/mtdiag/reports``, else ``~/.cache/mtdiag/reports``; a folder
that cannot be written is no cache (the report is computed as before).
"""

from __future__ import annotations

import hashlib
import inspect
import os
import tempfile
import zipfile
from functools import cache
from importlib import metadata
from pathlib import Path

import numpy as np

from mtdiag.core.evalset import EvalSet
from mtdiag.metrics import REGISTRY as METRICS
from mtdiag.metrics import metric_classes
from mtdiag.scoring.evaluate import Options, ProgressCallback, Report, evaluate, report_from_statistics

MAX_FILES = 32
"""Reports kept (the most recently used): a sample set's statistics take 0.5-3 MB."""
LIBRARIES = ("numpy", "rapidfuzz", "sacrebleu")
"""Libraries whose output enters a statistic (their version is part of the key)."""
PACKAGE = Path(__file__).resolve().parents[1]
"""The package (``mtdiag/``) whose every module :func:`code_digest` reads."""


def folder() -> Path:
    """Where the reports are kept (module docstring)."""
    given = os.environ.get("MTDIAG_CACHE_DIR")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "mtdiag" / "reports"


@cache
def code_digest() -> str:
    """A digest of the package's Python source and of :data:`LIBRARIES`' versions: what computes a statistic."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        digest.update(str(path.relative_to(PACKAGE)).encode())
        digest.update(path.read_bytes())
    for name in LIBRARIES:
        try:
            digest.update(f"{name}={metadata.version(name)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{name}=none".encode())
    return digest.hexdigest()


def registered_digest() -> str | None:
    """A digest of the registered metrics: each name with its class, and the source of every class's module outside
    the package (the package's own are in :func:`code_digest`); None when such a source cannot be read (a metric
    defined in an interactive session): then no report is kept."""
    digest = hashlib.sha256(METRICS.fingerprint().encode())
    for cls in METRICS.values():
        module = inspect.getmodule(cls)
        path = getattr(module, "__file__", None)
        if path is not None and PACKAGE in Path(path).resolve().parents:
            continue
        try:
            digest.update(inspect.getsource(module).encode())
        except (OSError, TypeError):
            return None
    return digest.hexdigest()


def key(evalset: EvalSet, options: Options) -> str | None:
    """The file name (without suffix) of ``evalset``'s report under ``options``; None when it cannot be kept
    (:func:`registered_digest`)."""
    registered = registered_digest()
    if registered is None:
        return None
    parts = (evalset.content_hash(), repr(options.resolved(evalset)), code_digest(), registered)
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]


def _name(metric: int, system: int) -> str:
    """The array of the ``metric``-th metric's statistics of the ``system``-th system in a report's file."""
    return f"m{metric}_s{system}"


def _path(evalset: EvalSet, options: Options) -> Path | None:
    name = key(evalset, options)
    return None if name is None else folder() / f"{name}.npz"


def load(evalset: EvalSet, options: Options) -> Report | None:
    """The report of ``evalset`` under ``options`` from its file, None when there is none (or it cannot be read,
    or names a metric this process does not know: then it is removed)."""
    path = _path(evalset, options)
    if path is None:
        return None
    try:
        with np.load(path, allow_pickle=False) as stored:
            metrics = tuple(str(m) for m in stored["metrics"])
            if [str(s) for s in stored["systems"]] != list(evalset.systems):
                raise ValueError("another set's systems")
            unknown = set(metrics) - set(metric_classes(evalset))
            if unknown:
                raise ValueError(f"metrics this process does not know: {sorted(unknown)}")
            statistics = {(m, s): stored[_name(i, j)] for i, m in enumerate(metrics)
                          for j, s in enumerate(evalset.systems)}
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):  # damaged, truncated, or another's
        _remove(path)
        return None
    try:
        os.utime(path)  # most recently used: kept longest
    except OSError:
        pass
    return report_from_statistics(evalset, options, metrics, statistics)


def save(report: Report) -> Path | None:
    """Write ``report``'s statistics to its file (then keep the :data:`MAX_FILES` most recent); the path, or None
    when the folder cannot be written or the report is not kept (:func:`key`)."""
    target = _path(report.evalset, report.options)
    if target is None:
        return None
    systems = report.evalset.systems
    arrays = {_name(i, j): np.ascontiguousarray(report.result(m, s).stats)
              for i, m in enumerate(report.metrics) for j, s in enumerate(systems)}
    part = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=target.parent, suffix=".part", delete=False) as handle:
            part = Path(handle.name)
            np.savez(handle, metrics=np.array(report.metrics, dtype=str), systems=np.array(systems, dtype=str),
                     **arrays)
        os.replace(part, target)
    except OSError:
        if part is not None:
            _remove(part)
        return None
    _prune(target.parent)
    return target


def _prune(where: Path) -> None:
    """Remove all but the :data:`MAX_FILES` most recently used reports."""
    try:
        files = sorted(where.glob("*.npz"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return
    for old in files[MAX_FILES:]:
        _remove(old)


def _remove(path: Path) -> None:
    """Remove a file if it is there and can be removed (a cache that cannot be tidied still works)."""
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass


def evaluate_stored(evalset: EvalSet, options: Options = Options(),
                    progress: ProgressCallback | None = None) -> Report:
    """:func:`mtdiag.scoring.evaluate.evaluate`, read from disk when this set was scored before with these options and this
    code, else computed (with ``progress``) and written."""
    report = load(evalset, options)
    if report is None:
        report = evaluate(evalset, options, progress=progress)
        save(report)
    return report


def store_folders(root: Path) -> list[str]:
    """Score every test-set folder under ``root`` (``mtdiag/sample_data``) with the default options into the
    cache, as the dashboard opens them; returns their names. ``make install`` runs it (``python -m
    mtdiag.scoring.report_cache FOLDER``), with the compiled kernel loaded first."""
    from mtdiag.core.errors import InputError
    from mtdiag.io import load_folder
    from mtdiag.metrics.ter_engine import load_kernel

    load_kernel()
    stored = []
    for path in sorted(p for p in Path(root).iterdir() if p.is_dir()):
        try:
            evalset = load_folder(path)
        except InputError:  # not a test set
            continue
        evaluate_stored(evalset)
        stored.append(path.name)
    return stored


if __name__ == "__main__":  # python -m mtdiag.scoring.report_cache FOLDER (make install)
    import sys

    names = store_folders(Path(sys.argv[1]))
    print(f"kept on disk ({folder()}): the reports of {', '.join(names)}")
