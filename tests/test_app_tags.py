"""Tags in the dashboard (issue 21 Build 4, AppTest): select rows of a table, tag them, find them with the slice box;
the tags of a saved run are kept in the workspace, survive a restart and are found again; data not saved keeps its
tags in the session until it is saved."""

from __future__ import annotations

import pandas as pd

from mtdiag.scoring.workspace import Workspace
from tests.test_app import (  # noqa: F401 - the autouse fixtures of the dashboard tests apply here too
    clear_caches, no_data_argument, shown, start, table_with, visit)
from tests.test_app_workspace import restart, save, workspace_folder  # noqa: F401 - the workspace fixture

SEGMENTS = "segments"


def select_rows(at, key: str, rows: list[int]):
    at.session_state[key] = {"selection": {"rows": rows, "columns": [], "cells": []}}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def tag(at, key: str, name: str, *, whole: bool = False, remove: bool = False):
    at.text_input(key=f"{key}_tag_name").set_value(name)
    if whole:
        at.radio(key=f"{key}_tag_scope").set_value("the whole segments")
    at.button(key=f"{key}_tag_remove" if remove else f"{key}_tag_add").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def queue(at) -> pd.DataFrame:
    return table_with(at, "seg_id", "system", "problem")


def keeps(at) -> str:
    return next(shown(c.value) for c in at.sidebar.caption if "The slice keeps" in shown(c.value))


def test_tags_of_a_saved_run_survive_a_restart_and_slice(workspace_folder):
    at = start()
    save(at, "news")
    at.button(key="run_open").click().run()
    visit(at, SEGMENTS).run()
    first = queue(at).head(2)
    select_rows(at, "seg_table", [0, 1])
    tag(at, "seg_table", "check later")
    assert any("Tagged 2 outputs" in shown(s.value) and "kept with the saved run" in shown(s.value)
               for s in at.success)
    run = Workspace(workspace_folder).runs()["id"].iat[0]
    stored = Workspace(workspace_folder).tags(run)
    assert sorted(zip(stored["seg"] + 1, stored["system"])) == sorted(zip(first["seg_id"], first["system"]))
    assert set(stored["tag"]) == {"check later"}
    assert queue(at).head(2)["tags"].tolist() == ["check later"] * 2  # the table shows them at once
    tag(at, "seg_table", "check later")  # again: nothing stored, and the message says so
    assert any(shown(s.value) == "Tagged 0 outputs “check later” (kept with the saved run); 2 outputs had it "
                                 "already." for s in at.success), [shown(s.value) for s in at.success]
    assert len(Workspace(workspace_folder).tags(run)) == 2

    restart()
    at = start()
    at.button(key="run_open").click().run()
    visit(at, SEGMENTS).run()
    table = queue(at)
    assert (table["tags"] == "check later").sum() == 2  # found again after the restart
    at.text_input(key="slice_where").set_value('tag == "check later"').run()
    assert not at.exception, [e.value for e in at.exception]
    wanted = sorted(set(first["seg_id"]))
    assert f"keeps **{len(wanted)}** of 117" in keeps(at)
    at.toggle(key="seg_strict").set_value(True).run()
    assert sorted(set(queue(at)["seg_id"])) == wanted  # the slice is exactly the tagged segments, by their ids
    for system, seg_id in zip(first["system"], first["seg_id"]):  # tag[SYSTEM] keeps the tagged output's segment
        at.text_input(key="slice_where").set_value(f'tag["{system}"] == "check later"').run()
        assert sorted(set(queue(at)["seg_id"])) == sorted(set(first.loc[first["system"] == system, "seg_id"]))


def test_tags_on_data_not_saved_stay_in_the_session_until_it_is_saved(workspace_folder):
    at = start()
    visit(at, SEGMENTS).run()
    at.toggle(key="seg_strict").set_value(True).run()
    first = queue(at).head(3)
    select_rows(at, "seg_table", [0, 1, 2])
    tag(at, "seg_table", "odd", whole=True)
    assert any("Tagged" in shown(s.value) and "save the run" in shown(s.value) for s in at.success)
    assert not (workspace_folder / "workspace.sqlite").exists()  # nothing written until a save
    tagged = queue(at)
    assert set(tagged.loc[tagged["seg_id"].isin(first["seg_id"]), "tags"]) == {"odd"}  # every output of them
    tag(at, "seg_table", "odd", whole=True, remove=True)  # the same rows are still selected
    assert set(queue(at)["tags"]) == {""} if "tags" in queue(at) else True
    select_rows(at, "seg_table", [0])
    tag(at, "seg_table", "odd", whole=True)
    save(at, "with tags")
    run = Workspace(workspace_folder).runs()["id"].iat[0]
    stored = Workspace(workspace_folder).tags(run)
    assert stored.values.tolist() == [[int(first["seg_id"].iat[0]) - 1, "", "odd"]]


def test_a_bad_tag_name_is_one_line_and_changes_nothing(workspace_folder):
    at = start()
    visit(at, SEGMENTS).run()
    select_rows(at, "seg_table", [0])
    tag(at, "seg_table", "   ")
    assert any("The tag was not changed: a tag needs a name" in shown(e.value) for e in at.error)
    tag(at, "seg_table", "a\u200bb")
    assert any("control or invisible" in shown(e.value) for e in at.error)
    assert "tags" not in queue(at).columns


def test_tables_of_other_pages_show_and_take_tags(workspace_folder):
    at = start()
    visit(at, SEGMENTS).run()
    at.toggle(key="seg_strict").set_value(True).run()
    first = queue(at).iloc[0]
    select_rows(at, "seg_table", [0])
    tag(at, "seg_table", "seen", whole=True)
    visit(at, "compare").run()
    assert not at.exception, [e.value for e in at.exception]
    differ = table_with(at, "seg_id", "tags")
    assert set(differ.loc[differ["seg_id"] == first["seg_id"], "tags"]) <= {"seen"}
    assert set(differ.loc[differ["seg_id"] != first["seg_id"], "tags"]) <= {""}


def test_the_tags_column_is_wide_enough_for_its_longest_tag(workspace_folder):
    """Issue 37: in the Segments queue (rows that wrap three lines) the tags column had the width of its header, and
    "check later" wrapped letter by letter. The column is as wide as the longest word of its tags: a tag wraps
    between words, never inside one."""
    import json

    from mtdiag.ui.widgets import TEXT_CHAR_PX, tags_width

    at = start()
    visit(at, SEGMENTS).run()
    select_rows(at, "seg_table", [0])
    tag(at, "seg_table", "check later")
    columns = json.loads(at.dataframe(key="seg_table").proto.columns)
    assert columns["tags"]["width"] >= len("later") * TEXT_CHAR_PX
    assert tags_width(pd.Series(["needs-a-native-speaker, x"])) == len("needs-a-native-speaker") * TEXT_CHAR_PX + 16
    assert tags_width(pd.Series(["", "x"])) == 75 and tags_width(pd.Series(["a" * 200])) == 240  # bounded


def finder_expressions(at) -> list[str]:
    visit(at, "slices").run()
    assert not at.exception, [e.value for e in at.exception]
    return table_with(at, "expression", "size")["expression"].tolist()


def test_one_sessions_tags_never_reach_another_sessions_slice_finder(workspace_folder):
    """Issue 39, finding 4: session A tags segments of data it has not saved and opens the Slice finder; session B
    (the same data, the same server, no tags) opens it too. A cached frame keyed without its input (the session's
    tags) gave B the slices ``tag == "secretA-note"`` with A's numbers."""
    a = start()
    visit(a, SEGMENTS).run()
    select_rows(a, "seg_table", list(range(60)))
    tag(a, "seg_table", "secretA-note", whole=True)
    assert 'tag == "secretA-note"' in finder_expressions(a)  # A's own tags are slices of A's data
    b = start()
    assert not any("secretA-note" in e for e in finder_expressions(b))


def test_tagging_a_busy_saved_run_says_try_again_and_offers_nothing_drastic(workspace_folder, monkeypatch):
    """Issue 39, finding 9: another writer holds the workspace past the busy timeout. The click says the workspace
    is busy and to try again — not that it is unreadable, and no button offers to set a healthy file aside."""
    import sqlite3

    from mtdiag.scoring import workspace as ws

    at = start()
    save(at, "news")
    at.button(key="run_open").click().run()
    visit(at, SEGMENTS).run()
    select_rows(at, "seg_table", [0])
    monkeypatch.setattr(ws, "BUSY_TIMEOUT_S", 0.2)
    other = sqlite3.connect(workspace_folder / "workspace.sqlite", timeout=1)
    other.execute("BEGIN IMMEDIATE")
    try:
        tag(at, "seg_table", "later")
        errors = [shown(e.value) for e in at.error]
        assert any("The tag was not changed" in e and "is busy" in e and "try again" in e for e in errors), errors
        assert not any("not a readable workspace" in e for e in errors)
        assert not [b for b in at.button if b.key == "run_new_workspace"]
    finally:
        other.rollback()
        other.close()
    tag(at, "seg_table", "later")
    assert any("Tagged 1 output" in shown(s.value) for s in at.success)
