"""A workspace that survives restarts: test sets, systems and computed reports in an embedded SQLite database.

``Workspace(folder)`` keeps ``folder/workspace.sqlite`` (default folder: ``$MTDIAG_WORKSPACE``, else
``~/.mtdiag/workspace``; the CLI's ``--workspace DIR``). A *run* is one test set scored under one set of options:

- the test set is stored as data, never as pickled objects (frames as JSON, the imported-metric descriptions as
  JSON), so a workspace folder from elsewhere cannot run code when opened;
- the report is stored as each (metric, system)'s per-segment sufficient statistics (``.npy`` bytes): reopening a
  run rebuilds every corpus and segment score from them with the metrics' formulas — no tokenising, no n-gram
  counting, no TER — exactly the numbers that were saved (:func:`mtdiag.scoring.evaluate.report_from_statistics`);
- :meth:`Workspace.add_system` scores only the new system (its statistics need only its own output and the
  references) and stores the grown run;
- the user's tags (:mod:`mtdiag.core.tags`) are kept per run in their own table, so tagging a saved run
  (:meth:`Workspace.add_tags`, :meth:`Workspace.remove_tags`) writes a few rows in one transaction — inserts or
  deletes, never the run's tag set read, changed and written back — and never the stored test set; a workspace
  made before tags existed gets the table on its first write;
- concurrency: every call opens its own connection; the database runs in WAL mode with a busy timeout, so several
  dashboard sessions (threads) and processes can read while one writes.
"""

from __future__ import annotations

import io
import json
import os
import sqlite3
import time
import uuid
from contextlib import contextmanager
from dataclasses import asdict, replace
from pathlib import Path
from typing import Iterator

import numpy as np
import pandas as pd

from mtdiag.scoring.evaluate import Options, Report, evaluate, report_from_statistics, with_derived
from mtdiag.core.errors import InputError
from mtdiag.metrics import DerivedMetric, metric_info
from mtdiag.core.evalset import EvalSet, ImportedMetricInfo
from mtdiag.core.tags import TAG_COLUMNS, empty_tags, pair_rows, too_many
from mtdiag.core.tokenize import DEFAULT_TYPOGRAPHY

DEFAULT_FOLDER = Path.home() / ".mtdiag" / "workspace"
DB_FILE = "workspace.sqlite"
_TAGS_SCHEMA = """
CREATE TABLE IF NOT EXISTS tags (
    run TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, seg INTEGER NOT NULL, system TEXT NOT NULL,
    tag TEXT NOT NULL, PRIMARY KEY (run, seg, system, tag));
"""
_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY, label TEXT NOT NULL, created REAL NOT NULL, data_hash TEXT NOT NULL,
    evalset TEXT NOT NULL, options TEXT NOT NULL, metrics TEXT NOT NULL,
    systems TEXT NOT NULL, segments INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS statistics (
    run TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, metric TEXT NOT NULL, system TEXT NOT NULL,
    stats BLOB NOT NULL, PRIMARY KEY (run, metric, system));
""" + _TAGS_SCHEMA
BUSY_TIMEOUT_S = 30.0  # how long an operation waits for another writer (SQLite's busy timeout)
_BUSY = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}


class WorkspaceBusy(InputError):
    """The workspace is healthy but another writer held it past :data:`BUSY_TIMEOUT_S`: try again, never set it aside.

    A busy workspace is not "an unreadable workspace database"."""


_FRAMES = ("segments", "refs", "hyps", "terms", "human", "scores", "annotations", "rated", "metric_spans",
           "human_systems")
# (the tags: their own table; a run saved before ``rated``/``metric_spans`` existed has neither)


def default_folder() -> Path:
    """The workspace folder when none is given: ``$MTDIAG_WORKSPACE``, else ``~/.mtdiag/workspace``."""
    return Path(os.environ.get("MTDIAG_WORKSPACE") or DEFAULT_FOLDER)


def _frame_json(frame: pd.DataFrame | None) -> str | None:
    return None if frame is None else frame.to_json(orient="split", force_ascii=False, date_format="iso")


def _frame_back(text: str | None, index_name: str | None) -> pd.DataFrame | None:
    if text is None:
        return None
    frame = pd.read_json(io.StringIO(text), orient="split", dtype=False)
    if index_name:
        frame.index = pd.RangeIndex(len(frame), name=index_name)
    return frame


def evalset_to_json(evalset: EvalSet) -> str:
    """``evalset`` as JSON text: its frames, name, language pair, warnings and imported metrics."""
    payload = {name: _frame_json(getattr(evalset, name)) for name in _FRAMES}
    payload |= {"name": evalset.name, "lang_pair": evalset.lang_pair, "warnings": list(evalset.warnings),
                "imported": [asdict(i) for i in evalset.imported]}
    return json.dumps(payload, ensure_ascii=False)


def evalset_from_json(text: str) -> EvalSet:
    """The EvalSet that :func:`evalset_to_json` wrote as ``text``."""
    payload = json.loads(text)
    frames = {name: _frame_back(payload.get(name), "seg" if name in ("segments", "refs", "hyps") else None)
              for name in _FRAMES}
    frames["refs"] = frames["refs"].astype(object)
    frames["hyps"] = frames["hyps"].astype(object)
    imported = tuple(ImportedMetricInfo(i["name"], i["higher_is_better"], i["source"],
                                        tuple(tuple(p) for p in i["system_scores"]), i.get("published", False))
                     for i in payload["imported"])

    return EvalSet(**frames, name=payload["name"], lang_pair=payload["lang_pair"],
                   warnings=tuple(payload["warnings"]), imported=imported)


def options_to_json(options: Options) -> str:
    """``options`` as JSON text."""
    return json.dumps({"tokenize": options.tokenize, "lowercase": options.lowercase,
                       "metrics": list(options.metrics) if options.metrics is not None else None,
                       "metric_options": {m: dict(o) for m, o in options.metric_options},
                       "tgt_lang": options.tgt_lang, "typography": options.typography})


def options_from_json(text: str) -> Options:
    """The Options that :func:`options_to_json` wrote as ``text``."""
    payload = json.loads(text)
    metrics = tuple(payload["metrics"]) if payload["metrics"] is not None else None
    return Options(tokenize=payload["tokenize"], lowercase=payload["lowercase"], metrics=metrics,
                   metric_options=payload["metric_options"], tgt_lang=payload["tgt_lang"],
                   typography=payload.get("typography", DEFAULT_TYPOGRAPHY))


def _array_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(array), allow_pickle=False)
    return buffer.getvalue()


def _array_back(data: bytes) -> np.ndarray:
    return np.load(io.BytesIO(data), allow_pickle=False)


class Workspace:
    """Saved runs in ``folder/workspace.sqlite`` (see the module docstring).

    Hostile or damaged files: a file that is no SQLite database, a truncated or header-only one, or an
    SQLite database of another program is never written to; every operation on it raises one
    :class:`~mtdiag.core.errors.InputError` naming the file (:func:`set_aside` moves it away so a new workspace can
    start). A workspace whose file or folder is read-only (no write permission, or no write bit — respected even
    for root) is opened read-only and immutable: nothing is created or changed, runs can be listed and opened, and
    saving, deleting or adding says why it cannot. ``max_bytes`` (default ``MTDIAG_WORKSPACE_MAX_MB``, else no
    limit) bounds the stored runs: after a save the oldest other runs are removed until the data fits.
    """

    def __init__(self, folder: str | os.PathLike[str] | None = None, *, max_bytes: int | None = None):
        self.folder = Path(folder) if folder is not None else default_folder()
        self.path = self.folder / DB_FILE
        self.max_bytes = default_max_bytes() if max_bytes is None else max_bytes
        self.read_only = _read_only(self.path) if self.path.exists() else _read_only(_existing_parent(self.folder))
        if self.read_only and not self.path.exists():
            raise InputError(str(self.path), f"cannot create a workspace: {_existing_parent(self.folder)} is read-only")
        if not self.read_only:
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise InputError(str(self.path), f"cannot create a workspace ({error.strerror or error})") from None
        with self._database() as db:
            tables = _tables(db)
            if not tables and not self.read_only:
                db.execute("PRAGMA auto_vacuum = INCREMENTAL")  # before the first table: freed pages can be released
                db.execute("PRAGMA journal_mode = WAL")
                db.execute("BEGIN IMMEDIATE")  # one creator; the tables appear together (another may have made them)
                if not _tables(db):
                    for statement in _SCHEMA.split(";"):
                        if statement.strip():
                            db.execute(statement)
                db.execute("COMMIT")
            elif tables:
                _check_schema(db, tables, str(self.path))

    @contextmanager
    def _database(self, *, write: bool = False) -> Iterator[sqlite3.Connection]:
        """One connection for one operation (read-only and immutable for a read-only workspace), committed and
        closed at the end; any SQLite failure becomes an :class:`InputError` naming the file."""
        if write and self.read_only:
            raise InputError(str(self.path), "is read-only (no write permission): saved runs can be listed and opened, "
                                             "but not saved, deleted or added to")
        db = None
        try:
            if self.read_only:
                db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
            else:
                db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S)
                db.execute("PRAGMA foreign_keys=ON")
            with db:  # a transaction: committed, or rolled back on an error
                yield db
        except sqlite3.OperationalError as error:
            if (getattr(error, "sqlite_errorcode", 0) or 0) & 0xFF in _BUSY:  # a healthy file another writer holds
                raise WorkspaceBusy(str(self.path), f"is busy: another session or process has been writing to it "
                                                    f"for over {BUSY_TIMEOUT_S:g} s; try again in a moment (nothing "
                                                    "was changed)") from None
            raise self._unreadable(error) from None
        except sqlite3.DatabaseError as error:  # every other sqlite3 failure but programming errors
            raise self._unreadable(error) from None
        finally:
            if db is not None:
                db.close()

    def _unreadable(self, error: sqlite3.DatabaseError) -> InputError:
        return InputError(str(self.path), f"is not a readable workspace database ({error}); start a new workspace "
                                          "(the dashboard offers it) or move the file away")

    def save(self, report: Report, label: str | None = None, tags: pd.DataFrame | None = None) -> str:
        """Store a report (its test set, options and statistics) and the user's ``tags`` of it; returns the run id.

        With a size limit, the oldest other runs are removed until the stored data fits (a run larger than the limit
        alone is refused)."""
        run = uuid.uuid4().hex[:12]
        evalset = report.evalset
        rows = [(run, m, s, _array_bytes(report.result(m, s).stats)) for m in report.metrics for s in evalset.systems]
        with self._database(write=True) as db:
            db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (run, label or evalset.name, time.time(), evalset.content_hash(), evalset_to_json(evalset),
                        options_to_json(report.options), json.dumps(list(report.metrics)),
                        json.dumps(list(evalset.systems), ensure_ascii=False), evalset.n_segments))
            db.executemany("INSERT INTO statistics VALUES (?, ?, ?, ?)", rows)
            _write_tags(db, run, tags)
            if self.max_bytes is not None:
                self._fit(db, run)
        return run

    def _fit(self, db: sqlite3.Connection, kept: str) -> None:
        """Remove the oldest runs but ``kept`` until the stored data (pages in use) is within ``max_bytes``; refuse
        (roll back) when ``kept`` alone is over it. Freed pages are handed back to the file system when the
        database was made with incremental auto-vacuum (every workspace made by this version), else reused."""
        while _used_bytes(db) > self.max_bytes:
            oldest = db.execute("SELECT id FROM runs WHERE id != ? ORDER BY created LIMIT 1", (kept,)).fetchone()
            if oldest is None:
                raise InputError(str(self.path), f"this run takes {_used_bytes(db) / 1e6:,.1f} MB, more than the "
                                                 f"workspace's limit of {self.max_bytes / 1e6:,.1f} MB "
                                                 "(MTDIAG_WORKSPACE_MAX_MB); it was not saved")
            db.execute("DELETE FROM runs WHERE id = ?", oldest)
        db.execute("PRAGMA incremental_vacuum").fetchall()  # stepped to the end: every free page released

    def runs(self) -> pd.DataFrame:
        """Every saved run, newest first: ``id, label, created, systems, segments, metrics``.

        From the runs table's summary columns: listing never reads a stored test set, so it stays fast however large
        the runs are."""
        with self._database() as db:
            rows = db.execute("SELECT id, label, created, systems, segments, metrics FROM runs "
                              "ORDER BY created DESC").fetchall()
        out = []
        for run, label, created, systems, segments, metrics in rows:
            out.append({"id": run, "label": label, "created": pd.Timestamp(created, unit="s"),
                        "systems": ", ".join(json.loads(systems)), "segments": segments,
                        "metrics": ", ".join(json.loads(metrics))})
        return pd.DataFrame(out, columns=["id", "label", "created", "systems", "segments", "metrics"])

    def _row(self, run: str) -> tuple:
        with self._database() as db:
            row = db.execute("SELECT evalset, options, metrics FROM runs WHERE id = ?", (run,)).fetchone()
            stats = db.execute("SELECT metric, system, stats FROM statistics WHERE run = ?", (run,)).fetchall()
        if row is None:
            raise KeyError(f"no saved run {run!r}")
        return row, stats

    def open(self, run: str) -> Report:
        """The saved report, rebuilt from its statistics (nothing is scored again); its tags are :meth:`tags`."""
        (evalset_text, options_text, metrics_text), stats = self._row(run)
        statistics = {(m, s): _array_back(blob) for m, s, blob in stats}
        return report_from_statistics(evalset_from_json(evalset_text), options_from_json(options_text),
                                      tuple(json.loads(metrics_text)), statistics)

    def tags(self, run: str) -> pd.DataFrame:
        """The tags kept with a run (:data:`mtdiag.core.tags.TAG_COLUMNS`; none in a workspace made before tags)."""
        with self._database() as db:
            if "tags" not in _tables(db):
                return empty_tags()
            rows = db.execute("SELECT seg, system, tag FROM tags WHERE run = ? ORDER BY seg, system, tag",
                              (run,)).fetchall()
        return pd.DataFrame(rows, columns=TAG_COLUMNS).astype({"seg": "int64"}) if rows else empty_tags()

    def add_tags(self, run: str, segs, systems, tag: str) -> int:
        """Put ``tag`` on the (segment, system) pairs given of a saved run; returns how many were stored.

        The pairs are as :func:`mtdiag.core.tags.pair_rows` names them; a pair that has the tag already is not stored
        again. One transaction, inserts only: sessions and processes tagging the same run at once lose nothing.
        :class:`ValueError` for a bad name or when the run would hold more than :data:`mtdiag.core.tags.MAX_TAGS` tags
        (then nothing is stored)."""
        rows = pair_rows(segs, systems, tag)
        with self._tag_transaction(run) as db:
            stored = _write_tags(db, run, rows)
            held = db.execute("SELECT COUNT(*) FROM tags WHERE run = ?", (run,)).fetchone()[0]
            if too_many(held):
                raise ValueError(too_many(held))  # rolls the transaction back
        return stored

    def remove_tags(self, run: str, segs, systems, tag: str) -> int:
        """Take ``tag`` off the (segment, system) pairs given of a saved run; returns how many were removed."""
        rows = pair_rows(segs, systems, tag, checked=False)
        with self._tag_transaction(run) as db:
            return db.executemany("DELETE FROM tags WHERE run = ? AND seg = ? AND system = ? AND tag = ?",
                                  _tag_values(run, rows)).rowcount

    @contextmanager
    def _tag_transaction(self, run: str) -> Iterator[sqlite3.Connection]:
        """A write transaction on the tags of ``run`` (a saved run: :class:`KeyError` otherwise), taken at once
        (``BEGIN IMMEDIATE``), so concurrent writers queue on the busy timeout instead of failing."""
        with self._database(write=True) as db:
            db.execute("BEGIN IMMEDIATE")
            if db.execute("SELECT 1 FROM runs WHERE id = ?", (run,)).fetchone() is None:
                raise KeyError(f"no saved run {run!r}")
            db.execute(_TAGS_SCHEMA)  # a workspace made before tags existed gets the table now
            yield db

    def delete(self, run: str) -> None:
        """Remove the saved run ``run`` (``KeyError`` when there is none)."""
        with self._database(write=True) as db:
            if db.execute("DELETE FROM runs WHERE id = ?", (run,)).rowcount == 0:
                raise KeyError(f"no saved run {run!r}")

    def add_system(self, run: str, name: str, lines: list[str], label: str | None = None) -> str:
        """A new run: the saved one plus system ``name`` (one output line per segment); returns the new run's id.

        Only that system is scored — but for the metrics that compare a system with the others
        (``MetricInfo.compares_systems``: consensus), which are scored again on every system, and the metrics derived
        from the others (predicted MQM and ESA, :func:`~mtdiag.scoring.evaluate.with_derived`), derived again from the
        grown run's statistics."""
        if self.read_only:
            with self._database(write=True):
                pass  # raises: says why nothing can be added
        report = self.open(run)
        evalset = report.evalset
        if name in evalset.systems:
            raise ValueError(f"the run already has a system named {name!r}")
        if len(lines) != evalset.n_segments:
            raise ValueError(f"{name}: has {len(lines)} lines but the test set has {evalset.n_segments}")
        alone = replace(evalset, hyps=pd.DataFrame({name: lines}, index=evalset.hyps.index, dtype=object))
        grown = replace(evalset, hyps=pd.concat([evalset.hyps, alone.hyps], axis=1))
        counted = tuple(m for m in report.metrics if not isinstance(report.metric(m), DerivedMetric))
        shared = tuple(m for m in counted if metric_info(m, report).compares_systems)
        own = tuple(m for m in counted if m not in shared)
        statistics = {key: result.stats for key, result in report.results.items() if key[0] in counted}
        for scored in ([evaluate(alone, replace(report.options, metrics=own))] if own else []) + (
                [evaluate(grown, replace(report.options, metrics=shared))] if shared else []):
            statistics |= {key: result.stats for key, result in scored.results.items()}
        merged = with_derived(report_from_statistics(grown, replace(report.options, metrics=report.metrics), counted,
                                                     statistics))
        return self.save(replace(merged, options=report.options), label or f"{self._label(run)} + {name}", self.tags(run))

    def _label(self, run: str) -> str:
        with self._database() as db:
            return db.execute("SELECT label FROM runs WHERE id = ?", (run,)).fetchone()[0]


_COLUMNS = {"runs": ["id", "label", "created", "data_hash", "evalset", "options", "metrics", "systems", "segments"],
            "statistics": ["run", "metric", "system", "stats"]}


def _tag_values(run: str, tags: pd.DataFrame) -> list[tuple]:
    return [(run, int(seg), str(system), str(tag)) for seg, system, tag in tags[TAG_COLUMNS].itertuples(index=False)]


def _write_tags(db: sqlite3.Connection, run: str, tags: pd.DataFrame | None) -> int:
    """Insert the tags not stored yet; returns how many were new."""
    if tags is None or not len(tags):
        return 0
    db.execute(_TAGS_SCHEMA)  # a workspace made before tags existed gets the table now
    return db.executemany("INSERT OR IGNORE INTO tags VALUES (?, ?, ?, ?)", _tag_values(run, tags)).rowcount


def _tables(db: sqlite3.Connection) -> set[str]:
    return {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _check_schema(db: sqlite3.Connection, tables: set[str], display: str) -> None:
    """Refuse an SQLite database that is not a workspace (another program's tables, or ours with other columns)."""
    for table, columns in _COLUMNS.items():
        found = [row[1] for row in db.execute(f"PRAGMA table_info({table})")] if table in tables else []
        if found != columns:
            names = ", ".join(sorted(tables))
            raise InputError(display, f"is an SQLite database but not an mtdiag workspace (its tables: {names}); "
                                      "start a new workspace (the dashboard offers it) or choose another folder")


def _used_bytes(db: sqlite3.Connection) -> int:
    """The bytes of the pages in use (the file's pages minus its free list)."""
    pages = db.execute("PRAGMA page_count").fetchone()[0] - db.execute("PRAGMA freelist_count").fetchone()[0]
    return pages * db.execute("PRAGMA page_size").fetchone()[0]


def _existing_parent(path: Path) -> Path:
    """``path``, or its nearest ancestor that exists (where a new folder would be made)."""
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def _read_only(path: Path) -> bool:
    """Whether ``path`` (a file, or the folder a workspace is in) cannot or must not be written: no write access,
    or no write bit at all (respected even by root, who could write anyway); for a file, its folder too (SQLite
    writes its journal beside it)."""
    def unwritable(p: Path) -> bool:
        return not os.access(p, os.W_OK) or not p.stat().st_mode & 0o222

    return unwritable(path) or (path.is_file() and unwritable(path.parent))


def default_max_bytes() -> int | None:
    """The workspace size limit from ``MTDIAG_WORKSPACE_MAX_MB`` (MB, 10^6 bytes), else None (no limit)."""
    raw = os.environ.get("MTDIAG_WORKSPACE_MAX_MB", "").strip()
    if not raw:
        return None
    if not raw.isascii() or not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"MTDIAG_WORKSPACE_MAX_MB={raw!r}: expected a whole number of MB, at least 1")
    return int(raw) * 1_000_000


def set_aside(folder: str | os.PathLike[str]) -> Path:
    """Move a workspace file that cannot be used (and its ``-wal``/``-shm`` companions) aside; returns the new path.

    It goes next to it, as ``workspace.sqlite.unreadable-<time>``, so that a new workspace can start in the folder.
    Nothing is deleted."""
    path = Path(folder) / DB_FILE
    target = path.with_name(f"{DB_FILE}.unreadable-{time.strftime('%Y%m%d-%H%M%S')}")
    for suffix in ("", "-wal", "-shm"):
        companion = path.with_name(path.name + suffix)
        if companion.exists():
            companion.rename(target.with_name(target.name + suffix))
    return target
