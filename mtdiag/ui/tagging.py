"""Tagging in the dashboard: select rows of any table that lists segments, give them a tag, find them again with a
slice (``tag == "check"``) — ``docs/slices.md``; the tags themselves are :mod:`mtdiag.core.tags`.

Where the tags live:

- on a saved run (Saved runs → Open), in the workspace with the run (:meth:`mtdiag.scoring.workspace.Workspace.add_tags`):
  each click one transaction (inserts or deletes only, so two sessions tagging at once lose nothing), read again on
  every run of the script, so they survive a restart and every session sees them; the message counts what was
  stored;
- on data not saved yet, in this session, per set of texts (:attr:`mtdiag.ui.state.Dataset.scoring_key`: a human
  file added keeps them); *Save this run* keeps them with the run.

:func:`apply` makes them the run's :attr:`mtdiag.ui.state.Current.tags` before any page draws — an input of the
session, never written into a report: the slice box gives them to the slice (:mod:`mtdiag.ui.slicing`), the slice
finder's page to the finder, the HTML report's download and *Save this run* to theirs; tables show them in a
``tags`` column (:func:`with_tags_column`) and offer :func:`tag_rows` under a table whose rows are selected.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from mtdiag.core import highlight, tags
from mtdiag.core.errors import InputError
from mtdiag.ui import state
from mtdiag.scoring.workspace import Workspace

SESSION_TAGS = "_mtdiag_tags"  # session key: {scoring key: tag frame} for data that is not a saved run
_NOTE = "_mtdiag_tag_note"  # session key: {table key: (kind, message)} from the last tagging click
WHOLE, OUTPUTS = "the whole segments", "the selected outputs"


def _stored(data: state.Dataset) -> pd.DataFrame:
    if data.saved_in is not None:
        folder, run = data.saved_in
        return Workspace(folder).tags(run)
    return st.session_state.get(SESSION_TAGS, {}).get(data.scoring_key, tags.empty_tags())


def apply(current: state.Current) -> state.Current:
    """``current`` with the user's tags (:attr:`mtdiag.ui.state.Current.tags`).

    The tags are of whole-set segments: tables name segments by their whole-set ids, also in a slice. A workspace
    that cannot be read keeps the tags ``current`` has."""
    try:
        frame = _stored(current.data)
    except InputError:
        frame = current.tags
    applied = replace(current, tags=frame)
    state.set_current(applied)
    return applied


def _current() -> state.Current | None:
    """This run's data, or None in a script that draws a table without loaded data (tests of the widgets)."""
    ref = st.session_state.get(state.SESSION_KEY)
    return ref() if ref is not None else None


def with_tags_column(frame: pd.DataFrame) -> pd.DataFrame:
    """A displayed table with a ``tags`` column after ``seg_id`` when the run has tags; else the table as it is.

    The table: ``seg_id`` as people see it, maybe ``system``; the tags: :func:`mtdiag.core.tags.tag_labels`."""
    current = _current()
    if current is None or "seg_id" not in frame.columns or "tags" in frame.columns:
        return frame
    found = current.tags
    if found is None or not len(found):
        return frame
    systems = frame["system"].astype(str).to_numpy() if "system" in frame.columns else None
    labels = tags.tag_labels(found, frame["seg_id"].to_numpy(), systems)
    out = frame.copy()
    out.insert(list(out.columns).index("seg_id") + 1, "tags", labels)
    return out


def taggable(frame: pd.DataFrame) -> bool:
    """Whether the rows of a displayed table can be tagged: they name segments (``seg_id``) of the loaded run."""
    return "seg_id" in frame.columns and _current() is not None


def _change(data: state.Dataset, rows: pd.DataFrame, add: bool, key: str) -> None:
    """A button's callback: add the tag typed (or remove it) to ``rows`` and keep the result where the tags live.
    The name and the scope are read from their widgets' state now: a callback's arguments were fixed when the
    button was drawn, before the name was typed."""
    tag = str(st.session_state.get(f"{key}_tag_name") or "")
    whole = "system" not in rows.columns or st.session_state.get(f"{key}_tag_scope") == WHOLE
    note_key = key
    segs = rows["seg_id"].to_numpy(dtype="int64") - 1
    systems = None if whole or "system" not in rows.columns else rows["system"].astype(str).tolist()
    notes = st.session_state.setdefault(_NOTE, {})
    try:
        if data.saved_in is not None:  # one transaction in the workspace: concurrent sessions lose nothing
            folder, run = data.saved_in
            workspace = Workspace(folder)
            changed = (workspace.add_tags if add else workspace.remove_tags)(run, segs, systems, tag)
        else:  # this session's own tags: no other session writes them
            before = _stored(data)
            after = (tags.add_tag if add else tags.remove_tag)(before, segs, systems, tag)
            st.session_state.setdefault(SESSION_TAGS, {})[data.scoring_key] = after
            changed = abs(len(after) - (0 if before is None else len(before)))
    except (ValueError, InputError, KeyError) as error:
        notes[note_key] = ("error", f"The tag was not changed: {error}")
        return
    notes[note_key] = ("ok", _said(changed, len(tags.pair_rows(segs, systems, tag, checked=False)), add,
                                   systems is None, tag, data.saved_in is not None))


def _said(changed: int, asked: int, add: bool, whole: bool, tag: str, saved: bool) -> str:
    """What a tagging click did, counting only the rows stored (or removed): ``changed`` of the ``asked`` pairs."""
    def rows(n: int) -> str:
        return f"{n} {'segment' if whole else 'output'}{'s' if n != 1 else ''}"

    name = str(tag).strip()
    verb = "Tagged" if add else "Removed the tag from"
    where = "kept with the saved run" if saved else "kept in this session; save the run (Saved runs) to keep them"
    rest = asked - changed
    unchanged = f"; {rows(rest)} {'had it already' if add else 'did not have it'}" if rest else ""
    return f"{verb} {rows(changed)} “{name}” ({where}){unchanged}."


def tag_rows(rows: pd.DataFrame, *, key: str) -> None:
    """Under a table with rows selected: a tag name and buttons that add it to the selected rows or remove it.

    The help of the name lists the tags used so far. The tagged are the outputs when the rows are (system, segment)
    pairs, or their whole segments."""
    current = _current()
    if current is None or not len(rows):
        return
    used = tags.tag_names(current.tags)
    with st.container(border=True):
        st.caption(f"Tag the {len(rows):,} selected row{'s' if len(rows) != 1 else ''}; then find them with the "
                   'slice `tag == "NAME"`.')
        columns = st.columns([3, 2, 1, 1], vertical_alignment="bottom")
        columns[0].text_input(
            "Tag", key=f"{key}_tag_name", max_chars=tags.MAX_TAG_CHARS, placeholder="e.g. check later",
            help="A name of up to {} characters. Used so far: {}".format(
                tags.MAX_TAG_CHARS, highlight.escape_markdown(", ".join(used)) if used else "none"))
        if "system" in rows.columns:
            columns[1].radio("Tag", [OUTPUTS, WHOLE], key=f"{key}_tag_scope", label_visibility="collapsed")
        chosen = rows[[c for c in ("seg_id", "system") if c in rows.columns]].copy()
        columns[2].button("Add tag", key=f"{key}_tag_add", on_click=_change, args=(current.data, chosen, True, key),
                          type="primary")
        columns[3].button("Remove", key=f"{key}_tag_remove", on_click=_change, args=(current.data, chosen, False, key))
    note = st.session_state.get(_NOTE, {}).pop(key, None)
    if note is not None:
        kind, text = note
        (st.error if kind == "error" else st.success)(highlight.escape_markdown(text))
