"""A workspace that survives restarts: test sets, systems and computed reports in an embedded SQLite database.

``Workspace(folder)`` keeps ``folder/workspace.sqlite`` (default folder: ``$MTDIAG_WORKSPACE``, else
``~/.mtdiag/workspace``; the CLI's ``--workspace DIR``). A *run* is one test set scored under one set of options:

- the test set is stored as data, never as pickled objects (frames as JSON, the imported-metric descriptions as
  JSON), so a workspace folder from elsewhere cannot run code when opened;
- the report is stored as each (metric, system)'s per-segment sufficient statistics (``.npy`` bytes): reopening a
  run rebuilds every corpus and segment score from them with the metrics' formulas — no tokenising, no n-gram
  counting, no TER — exactly the numbers that were saved (:func:`mtdiag.api.report_from_statistics`);
- :meth:`Workspace.add_system` scores only the new system (its statistics need only its own output and the
  references) and stores the grown run;
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
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import pandas as pd

from mtdiag.api import Options, Report, evaluate, report_from_statistics
from mtdiag.evalset import EvalSet, ImportedMetricInfo
from mtdiag.tokenize import DEFAULT_TYPOGRAPHY

DEFAULT_FOLDER = Path.home() / ".mtdiag" / "workspace"
DB_FILE = "workspace.sqlite"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY, label TEXT NOT NULL, created REAL NOT NULL, data_hash TEXT NOT NULL,
    evalset TEXT NOT NULL, options TEXT NOT NULL, metrics TEXT NOT NULL,
    systems TEXT NOT NULL, segments INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS statistics (
    run TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, metric TEXT NOT NULL, system TEXT NOT NULL,
    stats BLOB NOT NULL, PRIMARY KEY (run, metric, system));
"""
_FRAMES = ("segments", "refs", "hyps", "terms", "human", "scores", "annotations")


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
    payload = {name: _frame_json(getattr(evalset, name)) for name in _FRAMES}
    payload |= {"name": evalset.name, "lang_pair": evalset.lang_pair, "warnings": list(evalset.warnings),
                "imported": [asdict(i) for i in evalset.imported]}
    return json.dumps(payload, ensure_ascii=False)


def evalset_from_json(text: str) -> EvalSet:
    payload = json.loads(text)
    frames = {name: _frame_back(payload[name], "seg" if name in ("segments", "refs", "hyps") else None)
              for name in _FRAMES}
    frames["refs"] = frames["refs"].astype(object)
    frames["hyps"] = frames["hyps"].astype(object)
    imported = tuple(ImportedMetricInfo(i["name"], i["higher_is_better"], i["source"],
                                        tuple(tuple(p) for p in i["system_scores"])) for i in payload["imported"])
    return EvalSet(**frames, name=payload["name"], lang_pair=payload["lang_pair"],
                   warnings=tuple(payload["warnings"]), imported=imported)


def options_to_json(options: Options) -> str:
    return json.dumps({"tokenize": options.tokenize, "lowercase": options.lowercase,
                       "metrics": list(options.metrics) if options.metrics is not None else None,
                       "metric_options": {m: dict(o) for m, o in options.metric_options},
                       "tgt_lang": options.tgt_lang, "typography": options.typography})


def options_from_json(text: str) -> Options:
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
    """Saved runs in ``folder/workspace.sqlite`` (see the module docstring)."""

    def __init__(self, folder: str | os.PathLike[str] | None = None):
        self.folder = Path(folder) if folder is not None else default_folder()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / DB_FILE
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30)
        db.execute("PRAGMA foreign_keys=ON")
        return db

    def save(self, report: Report, label: str | None = None) -> str:
        """Store a report (its test set, options and statistics); returns the run id."""
        run = uuid.uuid4().hex[:12]
        evalset = report.evalset
        rows = [(run, m, s, _array_bytes(report.result(m, s).stats)) for m in report.metrics for s in evalset.systems]
        with self._connect() as db:
            db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (run, label or evalset.name, time.time(), evalset.content_hash(), evalset_to_json(evalset),
                        options_to_json(report.options), json.dumps(list(report.metrics)),
                        json.dumps(list(evalset.systems), ensure_ascii=False), evalset.n_segments))
            db.executemany("INSERT INTO statistics VALUES (?, ?, ?, ?)", rows)
        return run

    def runs(self) -> pd.DataFrame:
        """Every saved run, newest first: ``id, label, created, systems, segments, metrics`` (from the runs table's
        summary columns: listing never reads a stored test set, so it stays fast however large the runs are)."""
        with self._connect() as db:
            rows = db.execute("SELECT id, label, created, systems, segments, metrics FROM runs "
                              "ORDER BY created DESC").fetchall()
        out = []
        for run, label, created, systems, segments, metrics in rows:
            out.append({"id": run, "label": label, "created": pd.Timestamp(created, unit="s"),
                        "systems": ", ".join(json.loads(systems)), "segments": segments,
                        "metrics": ", ".join(json.loads(metrics))})
        return pd.DataFrame(out, columns=["id", "label", "created", "systems", "segments", "metrics"])

    def _row(self, run: str) -> tuple:
        with self._connect() as db:
            row = db.execute("SELECT evalset, options, metrics FROM runs WHERE id = ?", (run,)).fetchone()
            stats = db.execute("SELECT metric, system, stats FROM statistics WHERE run = ?", (run,)).fetchall()
        if row is None:
            raise KeyError(f"no saved run {run!r}")
        return row, stats

    def open(self, run: str) -> Report:
        """The saved report, rebuilt from its statistics (nothing is scored again)."""
        (evalset_text, options_text, metrics_text), stats = self._row(run)
        statistics = {(m, s): _array_back(blob) for m, s, blob in stats}
        return report_from_statistics(evalset_from_json(evalset_text), options_from_json(options_text),
                                      tuple(json.loads(metrics_text)), statistics)

    def delete(self, run: str) -> None:
        with self._connect() as db:
            if db.execute("DELETE FROM runs WHERE id = ?", (run,)).rowcount == 0:
                raise KeyError(f"no saved run {run!r}")

    def add_system(self, run: str, name: str, lines: list[str], label: str | None = None) -> str:
        """A new run: the saved one plus system ``name`` (one output line per segment), scoring only that system;
        returns the new run's id."""
        report = self.open(run)
        evalset = report.evalset
        if name in evalset.systems:
            raise ValueError(f"the run already has a system named {name!r}")
        if len(lines) != evalset.n_segments:
            raise ValueError(f"{name}: has {len(lines)} lines but the test set has {evalset.n_segments}")
        alone = replace(evalset, hyps=pd.DataFrame({name: lines}, index=evalset.hyps.index, dtype=object))
        added = evaluate(alone, replace(report.options, metrics=report.metrics))
        grown = replace(evalset, hyps=pd.concat([evalset.hyps, alone.hyps], axis=1))
        statistics = {key: result.stats for key, result in report.results.items()}
        statistics |= {key: result.stats for key, result in added.results.items()}
        merged = report_from_statistics(grown, report.options, report.metrics, statistics)
        return self.save(merged, label or f"{self._label(run)} + {name}")

    def _label(self, run: str) -> str:
        with self._connect() as db:
            return db.execute("SELECT label FROM runs WHERE id = ?", (run,)).fetchone()[0]
