"""Saved runs in the dashboard (issue 15, Build 4): save a run, "restart" (every cache and the report store
emptied, a new AppTest session), reopen it with no metric of the run scored again, add a system scoring only that
system, delete it after a confirmation; ``--workspace DIR`` and ``MTDIAG_WORKSPACE`` choose the folder."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import streamlit as st

import mtdiag.scoring.evaluate
import mtdiag.ui.reports as ui_reports
import mtdiag.scoring.workspace
from mtdiag.metrics.chrf_consensus import ChrfConsensus
from mtdiag.metrics.consensus import Consensus
from mtdiag.ui import runs
from mtdiag.scoring.workspace import Workspace
from tests.test_app import (  # noqa: F401 - the autouse fixtures of the dashboard tests apply here too
    PAGES, clear_caches, de_lines, lines_file, no_data_argument, shown, sidebar_text, start, table_with, visit)
from tests.test_workspace import _metric_classes

LIKENESS = "human"
SYSTEMS = ["eTranslation", "Facebook-AI", "Online-W", "UEdin", "VolcTrans-AT", "VolcTrans-GLAT"]


@pytest.fixture(autouse=True)
def workspace_folder(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "workspace"
    monkeypatch.setenv("MTDIAG_WORKSPACE", str(folder))
    return folder


def overview(at) -> pd.DataFrame:
    visit(at, "overview").run()
    assert not at.exception, [e.value for e in at.exception]
    return table_with(at, "otem", "bleu")


def refuse_scoring(monkeypatch) -> list[str]:
    """Make every way of scoring fail (the entry point wherever it was imported, and every metric's statistics but
    the reference-free ones: the queue's consensus view, docs/triage.md, and the outputs' agreement the
    suspect-reference check reads — consensus's and chrF consensus's counts — are not part of a report with
    references, so a saved run does not hold them and the Segments page computes them from the run's outputs);
    returns the list the refusals are recorded in (an exception inside Streamlit may be shown, not raised)."""
    calls: list[str] = []

    def refuse(*args, **kwargs):
        calls.append("scored")
        raise AssertionError("scored again")

    for module in (mtdiag.scoring.evaluate, ui_reports, mtdiag.scoring.workspace):
        monkeypatch.setattr(module, "evaluate", refuse)
    for cls in _metric_classes():
        if cls not in (Consensus, ChrfConsensus):
            monkeypatch.setattr(cls, "statistics", refuse)
    return calls


def restart() -> None:
    """What a server restart forgets: every cache, the report store with it."""
    st.cache_data.clear()
    st.cache_resource.clear()


def save(at, label: str):
    at.text_input(key="run_label").set_value(label)
    at.button(key="run_save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_saved_run_reopens_after_a_restart_without_scoring(workspace_folder, monkeypatch):
    at = start()
    expected = overview(at)
    assert sorted(expected.index, key=SYSTEMS.index) == SYSTEMS  # ranked by chrF on the Overview
    save(at, "news <b>2021</b>")
    assert any("Saved as" in shown(s.value) for s in at.success)
    runs = Workspace(workspace_folder).runs()
    assert list(runs["label"]) == ["news <b>2021</b>"] and runs["segments"].iat[0] == 117
    assert runs["systems"].iat[0] == ", ".join(SYSTEMS)

    restart()
    at = start()  # the new server opens on the sample set (scored); from here on nothing may be scored
    with monkeypatch.context() as patch:
        calls = refuse_scoring(patch)
        assert at.selectbox(key="run_pick").value == runs["id"].iat[0]
        assert "news <b>2021</b>" in at.selectbox(key="run_pick").options[0]  # format_func: the label, as data
        at.button(key="run_open").click().run()
        assert not at.exception, [e.value for e in at.exception]
        assert "saved run: news <b>2021</b>" in sidebar_text(at)
        reopened = overview(at)
        pd.testing.assert_frame_equal(reopened, expected)
        for page in PAGES[1:]:
            if page != LIKENESS:
                visit(at, page).run()
                assert not at.exception, (page, [e.value for e in at.exception])
        assert calls == []
    # Human likeness scores every system against each held-out reference (Amigó et al. 2006): not part of the
    # report, so not saved — that page (and only that one) scores, as it does for a report just computed.
    visit(at, LIKENESS).run()
    assert not at.exception, [e.value for e in at.exception]
    # closing the run goes back to the loaded data
    at.button(key="run_close").click().run()
    assert "wmt21.en-de" in sidebar_text(at) and "saved run" not in sidebar_text(at)


def test_a_report_opened_once_is_served_from_the_report_store(workspace_folder, monkeypatch):
    at = start()
    save(at, "first")
    opened = []
    original = Workspace.open

    def count(self, run):
        opened.append(run)
        return original(self, run)

    monkeypatch.setattr(Workspace, "open", count)
    at.button(key="run_open").click().run()
    overview(at)
    visit(at, "segments").run()
    assert len(opened) == 1


def test_adding_a_system_to_a_saved_run_scores_only_that_system(workspace_folder, monkeypatch):
    at = start()
    save(at, "six systems")
    scored = []
    for cls in _metric_classes():
        def spy(self, ctx, system, _method=cls.statistics):
            if not self.info.compares_systems:  # those are scored again on every system (Workspace.add_system)
                scored.append(system)
            return _method(self, ctx, system)
        monkeypatch.setattr(cls, "statistics", spy)
    at.file_uploader(key="run_add_file").set_value(lines_file("mine.txt", de_lines("ref.D.txt"))).run()
    assert at.text_input(key="run_add_name_mine.txt").value == "mine"
    at.button(key="run_add").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert set(scored) == {"mine"}
    assert sorted(overview(at).index) == sorted([*SYSTEMS, "mine"])
    assert "saved run: six systems + mine" in sidebar_text(at)
    assert list(Workspace(workspace_folder).runs()["label"]) == ["six systems + mine", "six systems"]


def test_adding_a_system_with_the_wrong_line_count_says_so(workspace_folder):
    at = start()
    save(at, "six systems")
    at.file_uploader(key="run_add_file").set_value(("short.txt", b"one\ntwo\n", "text/plain")).run()
    at.button(key="run_add").click().run()
    assert not at.exception
    assert any("short.txt: short: has 2 lines but the test set has 117" in shown(e.value) for e in at.error)
    assert len(Workspace(workspace_folder).runs()) == 1


def test_deleting_needs_a_confirmation(workspace_folder):
    at = start()
    save(at, "to delete")
    assert at.button(key="run_delete").disabled
    at.checkbox(key="run_delete_confirm").check().run()
    assert not at.button(key="run_delete").disabled
    at.button(key="run_delete").click().run()
    assert not at.exception
    assert Workspace(workspace_folder).runs().empty
    assert any("No saved runs yet" in c.value for c in at.sidebar.caption)


def test_an_open_run_deleted_elsewhere_falls_back_to_the_data(workspace_folder):
    at = start()
    save(at, "gone")
    at.button(key="run_open").click().run()
    Workspace(workspace_folder).delete(at.selectbox(key="run_pick").value)  # another session deletes it
    restart()
    at.run()
    assert not at.exception
    assert "wmt21.en-de" in sidebar_text(at)


def test_no_workspace_is_created_until_something_is_saved(workspace_folder):
    at = start()
    assert not workspace_folder.exists()
    assert any("No saved runs yet" in c.value for c in at.sidebar.caption)


def test_workspace_argument(tmp_path, monkeypatch):
    assert runs.workspace_argument(["--data", "x", "--workspace", str(tmp_path)]) == tmp_path
    assert runs.workspace_argument([f"--workspace={tmp_path}"]) == tmp_path
    monkeypatch.setenv("MTDIAG_WORKSPACE", "/somewhere")
    assert runs.workspace_argument([]) == Path("/somewhere")
    monkeypatch.delenv("MTDIAG_WORKSPACE")
    assert runs.workspace_argument([]) == Path.home() / ".mtdiag" / "workspace"


def test_serve_passes_the_workspace_to_the_app(monkeypatch, tmp_path):
    import subprocess

    from mtdiag import cli

    commands = []
    monkeypatch.setattr(subprocess, "call", lambda command: commands.append(command) or 0)
    assert cli.main(["serve", "--data", "d", "--workspace", str(tmp_path), "--port", "8600"]) == 0
    assert commands[0][-5:] == ["--", "--data", "d", "--workspace", str(tmp_path)]
    assert commands[0][1:4] == ["-m", "mtdiag.ui.serve", "run"]  # Streamlit's command line, the imports started


# ------------------------------------------------------------------------- damaged and read-only (issue 22)


@pytest.mark.parametrize("kind", ["corrupt", "header-only", "truncated", "foreign"])
def test_a_damaged_workspace_is_named_the_app_keeps_working_and_a_new_one_can_start(workspace_folder, tmp_path,
                                                                                    kind):
    from mtdiag.scoring.evaluate import Options, evaluate
    from mtdiag.io import load_folder
    from tests.conftest import SAMPLE
    from tests.test_workspace import damaged

    report = evaluate(load_folder(SAMPLE / "tico19.en-fr"), Options(metrics=("bleu",)))
    folder, path = damaged(tmp_path, report, kind)
    workspace_folder.mkdir(parents=True)
    path.rename(workspace_folder / "workspace.sqlite")
    at = start()  # the sidebar lists the runs on every rerun: one bad file must not break the pages
    errors = [shown(e.value) for e in at.sidebar.error]
    assert len(errors) == 1 and errors[0].startswith(f"{workspace_folder / 'workspace.sqlite'}: ")
    for page in PAGES:
        visit(at, page).run()
        assert not at.exception, (page, [e.value for e in at.exception])
    assert "wmt21.en-de" in sidebar_text(at)
    at.button(key="run_new_workspace").click().run()
    assert not at.exception and not at.sidebar.error
    assert [p.name.startswith("workspace.sqlite.unreadable-") for p in workspace_folder.iterdir()] == [True]
    save(at, "after the damage")
    assert list(Workspace(workspace_folder).runs()["label"]) == ["after the damage"]


def test_a_read_only_workspace_lists_and_opens_runs_and_saving_says_why_not(workspace_folder):
    import os
    import stat

    at = start()
    save(at, "kept")
    path = workspace_folder / "workspace.sqlite"
    os.chmod(path, stat.S_IRUSR)
    os.chmod(workspace_folder, stat.S_IRUSR | stat.S_IXUSR)
    try:
        restart()
        at = start()
        assert any("read-only" in c.value for c in at.sidebar.caption)
        with pytest.raises(KeyError):
            at.button(key="run_delete")  # nothing offered that cannot work
        at.button(key="run_open").click().run()
        assert not at.exception and "saved run: kept" in sidebar_text(at)
        at.button(key="run_close").click().run()
        save(at, "refused")
        errors = [shown(e.value) for e in at.sidebar.error]
        assert any("workspace.sqlite: is read-only (no write permission): saved runs can be listed and opened" in e
                   for e in errors), errors
    finally:
        os.chmod(workspace_folder, stat.S_IRWXU)
        os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
    assert list(Workspace(workspace_folder).runs()["label"]) == ["kept"]
