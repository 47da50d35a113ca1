"""The workspace survives restarts: a run saved by one process reopens in another with every number and no
scoring; adding a system scores only that system; deleting works; several writers at once are safe."""

from __future__ import annotations

import subprocess
import sys
import threading

import numpy as np
import pandas as pd
import pytest

from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.io import load_folder
from mtdiag.metrics.base import Metric
from mtdiag.scoring.workspace import Workspace
from tests.conftest import REPO, SAMPLE

SAVE = """
import sys
from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.io import load_folder
from mtdiag.scoring.workspace import Workspace
report = evaluate(load_folder(sys.argv[2]), Options(metric_options={"chrf": {"word_order": 2}}))
print(Workspace(sys.argv[1]).save(report, "saved by another process"))
"""


def test_a_run_saved_by_another_process_reopens_without_scoring(tmp_path, monkeypatch):
    folder = SAMPLE / "tico19.en-fr"  # terms: every metric, term metrics included
    run = subprocess.run([sys.executable, "-c", SAVE, str(tmp_path), str(folder)], cwd=REPO, check=True,
                         capture_output=True, text=True).stdout.strip()
    expected = evaluate(load_folder(folder), Options(metric_options={"chrf": {"word_order": 2}}))

    def refuse(self, ctx, system):
        raise AssertionError("scored again")

    for cls in _metric_classes():
        monkeypatch.setattr(cls, "statistics", refuse)
    workspace = Workspace(tmp_path)  # a new process' view: nothing in memory
    runs = workspace.runs()
    assert list(runs["id"]) == [run] and runs["label"].iat[0] == "saved by another process"
    report = workspace.open(run)
    pd.testing.assert_frame_equal(report.corpus, expected.corpus, rtol=0, atol=0)
    pd.testing.assert_frame_equal(report.segments, expected.segments, rtol=0, atol=0)
    assert report.result("chrf", "Fairseq").signature == expected.result("chrf", "Fairseq").signature
    assert report.evalset.content_hash() == expected.evalset.content_hash()


def _metric_classes():
    seen, todo = set(), [Metric]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
    return [c for c in seen if "statistics" in vars(c)]


def test_adding_a_system_scores_only_that_system_and_deleting_works(tmp_path, monkeypatch):
    evalset = load_folder(SAMPLE / "wmt21.en-de")
    first = evalset.systems[0]
    base = evalset.with_hyps(evalset.hyps.drop(columns=[first]))
    workspace = Workspace(tmp_path)
    run = workspace.save(evaluate(base), "five systems")
    scored = []
    original = {cls: cls.statistics for cls in _metric_classes()}
    for cls, method in original.items():
        def spy(self, ctx, system, _method=method):
            if not self.info.compares_systems:  # those are scored again on every system (add_system)
                scored.append(system)
            return _method(self, ctx, system)
        monkeypatch.setattr(cls, "statistics", spy)
    grown = workspace.add_system(run, first, evalset.hyps[first].tolist())
    assert set(scored) == {first}
    reopened = workspace.open(grown)
    full = evaluate(evalset)
    pd.testing.assert_frame_equal(reopened.corpus.sort_index(), full.corpus.sort_index(), rtol=0, atol=1e-12)
    workspace.delete(run)
    assert list(workspace.runs()["id"]) == [grown]
    with pytest.raises(KeyError):
        workspace.open(run)


def test_several_sessions_write_at_once(tmp_path):
    report = evaluate(load_folder(SAMPLE / "tico19.en-fr"), Options(metrics=("bleu",)))
    errors = []

    def save(i):
        try:
            Workspace(tmp_path).save(report, f"run {i}")
        except Exception as exc:  # noqa: BLE001 - the test reports any failure
            errors.append(exc)

    threads = [threading.Thread(target=save, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(Workspace(tmp_path).runs()) == 8
    assert np.isfinite(Workspace(tmp_path).open(Workspace(tmp_path).runs()["id"].iat[0]).corpus["bleu"]).all()


# --------------------------------------------------------------------------- damaged, foreign, read-only (issue 22)


@pytest.fixture(scope="module")
def small_report():
    from mtdiag.core.evalset import evalset_from_lists

    evalset = evalset_from_lists({"ref": [f"a b c {i}" for i in range(40)]},
                                 {"sys": [f"a b d {i}" for i in range(40)]})
    return evaluate(evalset, Options(metrics=("bleu", "chrf")))


def saved_workspace(folder, report, runs: int = 3):
    workspace = Workspace(folder)
    ids = [workspace.save(report, f"run {i}") for i in range(runs)]
    return workspace, ids


def damaged(tmp_path, small_report, kind: str):
    """A workspace file that is not a workspace: random bytes, only SQLite's 100-byte header, the first half of a
    real one, or another program's SQLite database."""
    import sqlite3

    good, _ = saved_workspace(tmp_path / "good", small_report)
    data = good.path.read_bytes()
    folder = tmp_path / kind
    folder.mkdir()
    path = folder / "workspace.sqlite"
    if kind == "foreign":
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE people (name TEXT)")
        sqlite3.connect(path).close()
    else:
        path.write_bytes({"corrupt": b"\x89PNG not a database " * 40, "header-only": data[:100],
                          "truncated": data[: len(data) // 2]}[kind])
    return folder, path


@pytest.mark.parametrize("kind", ["corrupt", "header-only", "truncated", "foreign"])
def test_a_damaged_or_foreign_workspace_is_named_in_one_line_and_never_written(tmp_path, small_report, kind):
    from mtdiag.core.errors import InputError

    folder, path = damaged(tmp_path, small_report, kind)
    before = path.read_bytes()
    errors = []
    for call in (lambda: Workspace(folder).runs(), lambda: Workspace(folder).open("abc"),
                 lambda: Workspace(folder).save(small_report)):
        with pytest.raises(InputError) as caught:
            call()
        errors.append(str(caught.value))
    for error in errors:
        assert error.startswith(f"{path}: ") and "\n" not in error
    if kind == "foreign":
        assert errors[0] == (f"{path}: is an SQLite database but not an mtdiag workspace (its tables: people); start "
                             "a new workspace (the dashboard offers it) or choose another folder")
    else:
        assert "is not a readable workspace database (" in errors[0]
    assert path.read_bytes() == before  # nothing written into it (no tables added to another program's database)


def test_a_busy_workspace_says_it_is_busy_never_that_it_is_unreadable(tmp_path, small_report, monkeypatch):
    """Issue 39, finding 9: another writer holding the tag transaction past the busy timeout was reported as "not a
    readable workspace database … move the file away". A held write lock: every writer waits, then is told to try
    again; the file is untouched and works once the other writer is done."""
    import sqlite3

    from mtdiag.scoring import workspace as ws
    from mtdiag.core.errors import InputError

    workspace, ids = saved_workspace(tmp_path, small_report)
    monkeypatch.setattr(ws, "BUSY_TIMEOUT_S", 0.2)
    other = sqlite3.connect(workspace.path, timeout=1)
    other.execute("BEGIN IMMEDIATE")  # another process's tag transaction, not finished
    try:
        for call in (lambda: workspace.add_tags(ids[0], [0], None, "t"), lambda: workspace.save(small_report),
                     lambda: workspace.delete(ids[0])):
            with pytest.raises(ws.WorkspaceBusy) as caught:
                call()
            assert isinstance(caught.value, InputError)
            assert str(caught.value) == (f"{workspace.path}: is busy: another session or process has been writing "
                                         "to it for over 0.2 s; try again in a moment (nothing was changed)")
        assert len(workspace.runs()) == len(ids)  # readers are not held up (WAL)
    finally:
        other.rollback()
        other.close()
    assert workspace.add_tags(ids[0], [0], None, "t") == 1  # free again: nothing was set aside


def test_a_damaged_workspace_is_set_aside_for_a_new_one(tmp_path, small_report):
    from mtdiag.scoring.workspace import set_aside

    folder, path = damaged(tmp_path, small_report, "corrupt")
    before = path.read_bytes()
    moved = set_aside(folder)
    assert moved.read_bytes() == before and moved.name.startswith("workspace.sqlite.unreadable-")
    workspace = Workspace(folder)
    run = workspace.save(small_report, "fresh")
    assert list(workspace.runs()["label"]) == ["fresh"] and workspace.open(run).corpus.shape == (1, 2)


def test_a_read_only_workspace_is_listed_and_opened_and_saving_says_why_not(tmp_path, small_report):
    import os
    import stat

    from mtdiag.core.errors import InputError

    workspace, ids = saved_workspace(tmp_path / "ro", small_report, runs=2)
    folder = workspace.folder
    assert sorted(p.name for p in folder.iterdir()) == ["workspace.sqlite"]  # closed: no -wal/-shm left
    files = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir()}
    os.chmod(workspace.path, stat.S_IRUSR | stat.S_IRGRP)
    os.chmod(folder, stat.S_IRUSR | stat.S_IXUSR)
    try:
        read_only = Workspace(folder)  # no journal mode, no CREATE TABLE, no file made (immutable, read-only)
        assert read_only.read_only
        assert sorted(read_only.runs()["id"]) == sorted(ids)
        pd.testing.assert_frame_equal(read_only.open(ids[0]).corpus, small_report.corpus)
        for call in (lambda: read_only.save(small_report), lambda: read_only.delete(ids[0]),
                     lambda: read_only.add_system(ids[0], "x", ["a"] * 40)):
            with pytest.raises(InputError, match=r"workspace\.sqlite: is read-only \(no write permission\): saved "
                                                 "runs can be listed and opened, but not saved"):
                call()
        assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir()} == files
        with pytest.raises(InputError, match="cannot create a workspace: .* is read-only"):
            Workspace(folder / "sub")
    finally:
        os.chmod(folder, stat.S_IRWXU)
        os.chmod(workspace.path, stat.S_IRUSR | stat.S_IWUSR)


def test_a_size_limit_removes_the_oldest_runs(tmp_path, small_report, monkeypatch):
    from mtdiag.core.errors import InputError
    from mtdiag.scoring.workspace import _used_bytes

    import sqlite3

    one, _ = saved_workspace(tmp_path / "measure", small_report, runs=1)
    with sqlite3.connect(one.path) as db:
        per_run = _used_bytes(db)
    monkeypatch.setenv("MTDIAG_WORKSPACE_MAX_MB", "1")
    assert Workspace(tmp_path / "env").max_bytes == 1_000_000
    limited = Workspace(tmp_path / "limited", max_bytes=int(per_run * 2.5))
    ids = [limited.save(small_report, f"run {i}") for i in range(6)]
    kept = list(limited.runs()["id"])
    assert kept[0] == ids[-1] and set(kept) < set(ids) and ids[0] not in kept  # newest first; oldest gone
    with sqlite3.connect(limited.path) as db:
        assert _used_bytes(db) <= limited.max_bytes
    assert limited.path.stat().st_size <= limited.max_bytes + per_run  # freed pages are handed back
    tiny = Workspace(tmp_path / "tiny", max_bytes=1000)
    with pytest.raises(InputError, match=r"this run takes .* MB, more than the workspace's limit of 0\.0 MB"):
        tiny.save(small_report)
    assert tiny.runs().empty
