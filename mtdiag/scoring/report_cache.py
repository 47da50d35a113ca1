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

so a changed text, option, metric or library is a new file, never a stale report.

**Nothing read is trusted.** A file holds a checksum (:func:`digest`: SHA-256 of its name — the key above — and
every array's name, dtype, shape and bytes), and is read only when the checksum is right and the schema holds: the
metrics the options ask for, in order; the set's systems; per (metric, system) a two-dimensional numeric array of
one row per segment and the metric's number of statistics, every value finite (statistics are counts and sums).
Anything else — a damaged, truncated, altered or foreign file, one of another version — is removed and the set
scored again. The checksum finds damage; it is no signature (anyone who can write the folder can write a
checksum too), so the folder itself is kept private: made with mode 0700, and not used at all — a one-line
message on stderr, every report computed — when it is not this user's or others may write to it (an existing
``$MTDIAG_CACHE_DIR`` included).

Files are written whole (a temporary ``.part`` file renamed over) and read with ``allow_pickle=False``. After each
write the folder keeps the most recently used files, at most :data:`MAX_FILES` of them and :func:`max_bytes` in all
(``$MTDIAG_CACHE_MAX_MB``, default :data:`MAX_MB`), and removes ``.part`` files older than :data:`PART_AGE_S` (a
write killed half-way leaves one; a younger one may be a write under way).

The dashboard uses it for the test-set folders it offers (the package's sample sets and ``--data DIR``): those are
files on the server already. Uploaded data is never written to disk (docs/dashboard.md), and the command line
always scores (its timings are measured against sacrebleu's).

Where: ``$MTDIAG_CACHE_DIR``, else ``$XDG_CACHE_HOME/mtdiag/reports``, else ``~/.cache/mtdiag/reports``; a folder
that cannot be written, or that others could write, is no cache (the report is computed as before).
"""

from __future__ import annotations

import hashlib
import inspect
import os
import stat
import sys
import tempfile
import time
import zipfile
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Sequence

import numpy as np

from mtdiag.core.evalset import EvalSet
from mtdiag.metrics import REGISTRY as METRICS
from mtdiag.metrics import metric_classes
from mtdiag.scoring.evaluate import (Options, ProgressCallback, Report, default_metrics, evaluate,
                                     report_from_statistics)

MAX_FILES = 32
"""Reports kept (the most recently used): a sample set's statistics take 0.5-3 MB."""
MAX_MB = 256
"""Megabytes the kept reports may take in all (``$MTDIAG_CACHE_MAX_MB``): a file larger is neither kept nor read."""
PART_AGE_S = 600
"""A ``.part`` file this old is a write that died (a report is written in well under a second)."""
DAMAGED = (OSError, ValueError, TypeError, KeyError, IndexError, EOFError, ArithmeticError, zipfile.BadZipFile)
"""What reading a file that is not a report of this set can raise: the file is removed, the set scored again."""
_REFUSED: set[str] = set()  # folders already said to be unsafe (the message once per process)
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


def max_bytes() -> int:
    """The bytes the kept reports may take in all: ``$MTDIAG_CACHE_MAX_MB`` megabytes, else :data:`MAX_MB`."""
    try:
        return int(float(os.environ.get("MTDIAG_CACHE_MAX_MB", MAX_MB)) * 2**20)
    except ValueError:
        return MAX_MB * 2**20


def usable(where: Path, create: bool = False) -> bool:
    """Whether ``where`` may hold reports: a folder of this user that no one else may write.

    It is made with mode 0700 when ``create`` and it is not there. A folder that fails says so once on stderr."""
    try:
        if create and not where.exists():
            where.mkdir(parents=True, mode=0o700)
        found = where.stat()
    except OSError:
        return False
    why = ("not a folder" if not stat.S_ISDIR(found.st_mode)
           else "owned by another user" if hasattr(os, "geteuid") and found.st_uid != os.geteuid()
           else "writable by others" if found.st_mode & (stat.S_IWGRP | stat.S_IWOTH) else None)
    if why is None:
        return True
    if str(where) not in _REFUSED:
        _REFUSED.add(str(where))
        print(f"mtdiag: the report cache {where} is {why} (mode {found.st_mode & 0o777:o}): not used; make it "
              "private (chmod 700) or set MTDIAG_CACHE_DIR to a folder of your own", file=sys.stderr)
    return False


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
    """A digest of the registered metrics; None when a metric's source cannot be read: then no report is kept.

    It covers each name with its class, and the source of every class's module outside the package (the package's own
    are in :func:`code_digest`). A source cannot be read for a metric defined in an interactive session."""
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
    """The file name (without suffix) of ``evalset``'s report under ``options``.

    None when it cannot be kept (:func:`registered_digest`)."""
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


def digest(name: str, arrays: dict[str, np.ndarray]) -> np.ndarray:
    """The checksum of a report's file named ``name`` (its key) holding ``arrays``.

    SHA-256 of the name and of every array's name, dtype, shape and bytes, in name order."""
    sha = hashlib.sha256(name.encode())
    for array_name in sorted(arrays):
        array = np.ascontiguousarray(arrays[array_name])
        sha.update(f"\x1f{array_name}\x1f{array.dtype.str}\x1f{array.shape}\x1f".encode())
        sha.update(array.tobytes())
    return np.array(sha.hexdigest())


def load(evalset: EvalSet, options: Options) -> Report | None:
    """The report of ``evalset`` under ``options`` from its file, None when there is none.

    Also None when the file is not a report of this set under these options — damaged, altered, of another version, or
    naming a metric this process does not know —: then it is removed (module docstring)."""
    path = _path(evalset, options)
    if path is None or not usable(path.parent):
        return None
    try:
        report = _read(path, evalset, options)
    except FileNotFoundError:
        return None
    except DAMAGED:  # damaged, truncated, altered, another's or another version's
        _remove(path)
        return None
    try:
        os.utime(path)  # most recently used: kept longest
    except OSError:
        pass
    return report


def _read(path: Path, evalset: EvalSet, options: Options) -> Report:
    """The report stored at ``path``, its checksum and schema checked (``ValueError`` when one fails)."""
    if path.stat().st_size > max_bytes():
        raise ValueError("larger than the cache may hold")
    with np.load(path, allow_pickle=False) as stored:
        arrays = {name: stored[name] for name in stored.files}
    if str(arrays.pop("digest", "")) != str(digest(path.stem, arrays)):
        raise ValueError("the checksum does not match")
    metrics = tuple(str(m) for m in arrays["metrics"])
    expected = tuple(options.metrics) if options.metrics is not None else default_metrics(evalset)
    if metrics != expected or [str(s) for s in arrays["systems"]] != list(evalset.systems):
        raise ValueError("another report's metrics or systems")
    statistics = {}
    for i, metric in enumerate(metrics):
        for j, system in enumerate(evalset.systems):
            values = arrays[_name(i, j)]
            if values.dtype.kind not in "iuf" or values.ndim != 2 or len(values) != evalset.n_segments \
                    or not np.isfinite(values).all():
                raise ValueError(f"the statistics of {metric} for {system} are not one finite row per segment")
            statistics[(metric, system)] = values
    return report_from_statistics(evalset, options, metrics, statistics)  # checks each metric's columns


def save(report: Report) -> Path | None:
    """Write ``report``'s statistics to its file with their checksum (then prune the folder); returns the path.

    None when the folder cannot be written or is not private, the report is not kept (:func:`key`), or it is larger
    than the cache may hold."""
    target = _path(report.evalset, report.options)
    if target is None:
        return None
    systems = report.evalset.systems
    arrays = {_name(i, j): np.ascontiguousarray(report.result(m, s).stats)
              for i, m in enumerate(report.metrics) for j, s in enumerate(systems)}
    arrays |= {"metrics": np.array(report.metrics, dtype=str), "systems": np.array(systems, dtype=str)}
    if sum(a.nbytes for a in arrays.values()) > max_bytes() or not usable(target.parent, create=True):
        return None
    part = None
    try:
        with tempfile.NamedTemporaryFile(dir=target.parent, suffix=".part", delete=False) as handle:
            part = Path(handle.name)
            np.savez(handle, digest=digest(target.stem, arrays), **arrays)
        os.replace(part, target)
    except OSError:
        if part is not None:
            _remove(part)
        return None
    _prune(target.parent)
    return target


def _prune(where: Path) -> None:
    """Keep the most recently used reports, at most :data:`MAX_FILES` and :func:`max_bytes` in all; remove
    ``.part`` files older than :data:`PART_AGE_S`."""
    try:
        files = [(p, p.stat()) for p in where.glob("*.npz")]
        parts = [(p, p.stat()) for p in where.glob("*.part")]
    except OSError:
        return
    stale = time.time() - PART_AGE_S
    for part, found in parts:
        if found.st_mtime < stale:
            _remove(part)
    total, cap = 0, max_bytes()
    for rank, (path, found) in enumerate(sorted(files, key=lambda f: f[1].st_mtime, reverse=True)):
        total += found.st_size
        if rank >= MAX_FILES or total > cap:
            _remove(path)


def _remove(path: Path) -> None:
    """Remove a file if it is there and can be removed (a cache that cannot be tidied still works)."""
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass


def evaluate_stored(evalset: EvalSet, options: Options = Options(),
                    progress: ProgressCallback | None = None) -> Report:
    """:func:`mtdiag.scoring.evaluate.evaluate`, read from disk when it can be, else computed and written.

    Read from disk when this set was scored before with these options and this code; else computed (with
    ``progress``) and written."""
    report = load(evalset, options)
    if report is None:
        report = evaluate(evalset, options, progress=progress)
        save(report)
    return report


def store_folders(root: Path, names: Sequence[str] = ()) -> list[str]:
    """Score every test-set folder under ``root`` into the cache, as the dashboard opens them; returns their names.

    The folders under ``root`` (``mtdiag/sample_data``) — those ``names`` only, when given — are scored with the default
    options. ``make install`` runs it (``python -m mtdiag.scoring.report_cache FOLDER [NAME ...]``; ``make run`` for the
    set the dashboard opens on), with the compiled kernel loaded first."""
    from mtdiag.core.errors import InputError
    from mtdiag.io import load_folder
    from mtdiag.metrics.ter_engine import load_kernel

    load_kernel()
    stored = []
    for path in sorted(p for p in Path(root).iterdir() if p.is_dir() and (not names or p.name in names)):
        try:
            evalset = load_folder(path)
        except InputError:  # not a test set
            continue
        evaluate_stored(evalset)
        stored.append(path.name)
    return stored


if __name__ == "__main__":  # python -m mtdiag.scoring.report_cache FOLDER (make install)
    import sys

    names = store_folders(Path(sys.argv[1]), sys.argv[2:])
    print(f"kept on disk ({folder()}): the reports of {', '.join(names)}")
