"""The workspace survives restarts: a run saved by one process reopens in another with every number and no
scoring; adding a system scores only that system; deleting works; several writers at once are safe."""

from __future__ import annotations

import subprocess
import sys
import threading

import numpy as np
import pandas as pd
import pytest

from mtdiag.api import Options, evaluate
from mtdiag.io import load_folder
from mtdiag.metrics.base import Metric
from mtdiag.workspace import Workspace
from tests.conftest import REPO, SAMPLE

SAVE = """
import sys
from mtdiag.api import Options, evaluate
from mtdiag.io import load_folder
from mtdiag.workspace import Workspace
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
