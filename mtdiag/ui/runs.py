"""Saved runs (:mod:`mtdiag.scoring.workspace`, folder from ``--workspace DIR`` / ``MTDIAG_WORKSPACE`` /
:func:`mtdiag.scoring.workspace.default_folder`): save the current report under a label, list, open (the report is rebuilt
from the stored statistics and put into the report store: nothing is scored), delete (after a confirmation), and
add a system to a saved run (only that system is scored). A workspace file that cannot be used is named in one line,
with a button that sets it aside; every other part of the dashboard keeps working."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from mtdiag.core import highlight
from mtdiag import io as mio
from mtdiag.core.errors import InputError
from mtdiag.io.files import read_text_file
from mtdiag.ui import reports, state
from mtdiag.ui.offered_sets import script_argument
from mtdiag.ui.uploads import TEXT_TYPES
from mtdiag.scoring.workspace import DB_FILE, Workspace, WorkspaceBusy, default_folder, set_aside

OPEN_RUN = "_mtdiag_open_run"  # the saved run shown instead of the loaded data: its id
WORKSPACE_NOTE = "_mtdiag_workspace_note"  # (kind, text) from a button's callback, shown in Saved runs on the next run


def workspace_argument(argv: list[str] | None = None) -> Path:
    """The workspace folder: ``--workspace DIR`` from the script arguments, else the default folder.

    ``--workspace DIR`` comes from ``mtdiag serve --workspace DIR``; the default is
    :func:`mtdiag.scoring.workspace.default_folder` (``MTDIAG_WORKSPACE``, else ``~/.mtdiag/workspace``)."""
    given = script_argument("--workspace", argv)
    return Path(given) if given else default_folder()


@st.cache_resource(show_spinner=False, max_entries=4)
def _workspace(folder: str) -> Workspace:
    return Workspace(folder)


def _runs(folder: Path):
    """The saved runs (:meth:`mtdiag.scoring.workspace.Workspace.runs`); none, without creating anything, when the
    folder has no workspace yet. A file that is no workspace raises :class:`InputError` (naming it)."""
    if not (folder / DB_FILE).exists():
        return None
    return _workspace(str(folder)).runs()


def opened_run(folder: Path) -> state.Current | None:
    """The saved run this session opened, from the report store or rebuilt; None when none is open.

    Rebuilt by :meth:`mtdiag.scoring.workspace.Workspace.open` (statistics → scores: nothing is scored). None also
    when it was deleted meanwhile, or the workspace cannot be read any more (the Saved runs section then says why)."""
    run = st.session_state.get(OPEN_RUN)
    if run is None:
        return None
    if not (folder / DB_FILE).exists():  # another workspace folder since (never create one to look)
        del st.session_state[OPEN_RUN]
        return None
    try:
        report = reports.stored_report(f"run:{folder}:{run}", lambda: _workspace(str(folder)).open(run))
        runs = _runs(folder)
    except WorkspaceBusy as error:  # another writer holds it: the run stays chosen, the next run tries again
        st.session_state[WORKSPACE_NOTE] = ("error", str(error))
        return None
    except (KeyError, InputError):  # deleted by another session, or the file is damaged
        del st.session_state[OPEN_RUN]
        return None
    label = runs.set_index("id")["label"].get(run, run) if runs is not None else run
    data = state.Dataset(report.evalset, f"run:{run}", "saved", f"saved run: {label}", saved_in=(str(folder), run))
    return state.Current(data, report.options, report)


def saved_runs(current: state.Current | None, folder: Path) -> list[str]:
    """Draw the "Saved runs" expander (save this run, the list, open, delete, add a system); returns the problems.

    Deleting is confirmed. A workspace file that cannot be used is named here, with a button that sets it aside and
    starts a new workspace: every other part of the app keeps working; a read-only workspace lists and opens runs,
    and saving says why it cannot."""
    problems: list[str] = []
    note = st.session_state.pop(WORKSPACE_NOTE, None)
    with st.sidebar.expander("Saved runs", expanded=st.session_state.get(OPEN_RUN) is not None or bool(note)):
        st.caption(f"Workspace: {highlight.escape_markdown(str(folder))}")
        if note:
            (st.error if note[0] == "error" else st.info)(highlight.escape_markdown(note[1]))
        try:
            runs = _runs(folder)
        except WorkspaceBusy as error:  # healthy, held by another writer: try again, never set it aside
            st.error(highlight.escape_markdown(str(error)))
            return problems
        except InputError as error:
            _offer_a_new_workspace(folder, error)
            return problems
        read_only = runs is not None and _workspace(str(folder)).read_only
        if current is not None and _save_this_run(current, folder):
            runs = _runs(folder)
        if runs is None or runs.empty:
            st.caption("No saved runs yet.")
            return problems
        if read_only:
            st.caption("This workspace is read-only: its runs can be opened, not deleted or added to.")
        st.dataframe(runs[["label", "created", "systems", "segments"]], hide_index=True, key="run_table")
        titles = {row.id: f"{row.label} · {row.created:%Y-%m-%d %H:%M} UTC" for row in runs.itertuples()}
        run = st.selectbox("Run", list(titles), format_func=titles.__getitem__, key="run_pick")
        left, right = st.columns(2)
        if left.button("Open", key="run_open"):
            st.session_state[OPEN_RUN] = run
            st.rerun()
        if read_only:
            return problems
        confirm = st.checkbox("Yes, delete this run", key="run_delete_confirm")
        right.button("Delete", key="run_delete", disabled=not confirm, on_click=_delete_run, args=(folder, run))
        problems += _add_a_system(folder, run)
    return problems


def _save_this_run(current: state.Current, folder: Path) -> bool:
    """The label box and the "Save this run" button; True when the run was saved (the list is then read again)."""
    label = st.text_input("Label", key="run_label", placeholder=current.data.label)
    if not st.button("Save this run", key="run_save"):
        return False
    try:
        _workspace(str(folder)).save(current.report, label.strip() or current.data.label, current.tags)
    except InputError as error:  # read-only, over the size limit, or damaged meanwhile
        st.error(highlight.escape_markdown(str(error)))
        return False
    st.success(f"Saved as {highlight.escape_markdown(label.strip() or current.data.label)}.")
    return True


def _add_a_system(folder: Path, run: str) -> list[str]:
    """The upload that adds a system to saved run ``run`` and saves it as a new run (then opened); returns the
    problems to show."""
    added = st.file_uploader("Add a system to this run (one segment per line)", type=TEXT_TYPES,
                             key="run_add_file")
    if added is None:
        return []
    name = st.text_input("System name", value=mio.system_name_from_file(added.name),
                         key=f"run_add_name_{added.name}")
    if not st.button("Add and save", key="run_add"):
        return []
    try:
        new = _add_system(folder, run, name, added)
    except InputError as error:
        return [str(error)]
    except ValueError as error:  # a name already used, a line count that differs
        return [f"{added.name}: {error}"]
    st.session_state[OPEN_RUN] = new
    st.rerun()
    return []


def _offer_a_new_workspace(folder: Path, error: InputError) -> None:
    """The workspace file cannot be used: say so in one line, and offer to set it aside and start anew."""
    st.error(highlight.escape_markdown(str(error)))
    st.button("Start a new workspace", key="run_new_workspace", on_click=_start_a_new_workspace, args=(folder,),
              help="The unreadable file is kept beside it, renamed workspace.sqlite.unreadable-DATE-TIME; the next "
                   "save makes a new workspace.")


def _start_a_new_workspace(folder: Path) -> None:
    try:
        moved = set_aside(folder)
    except OSError as error:
        st.session_state[WORKSPACE_NOTE] = ("error", f"{folder / DB_FILE}: cannot be moved aside "
                                                     f"({error.strerror or error})")
        return
    _workspace.clear()
    st.session_state[WORKSPACE_NOTE] = ("info", f"The unreadable file was kept as {moved.name}; the next save starts "
                                                "a new workspace.")


def _delete_run(folder: Path, run: str) -> None:
    """The Delete button's callback (before the widgets exist, so the confirmation can be unticked)."""
    try:
        _workspace(str(folder)).delete(run)
    except KeyError:  # another session deleted it first
        pass
    except InputError as error:  # shown in the Saved runs section on this run
        st.session_state[WORKSPACE_NOTE] = ("error", str(error))
    if st.session_state.get(OPEN_RUN) == run:
        del st.session_state[OPEN_RUN]
    st.session_state["run_delete_confirm"] = False


def _add_system(folder: Path, run: str, name: str, uploaded) -> str:
    """The saved run plus the uploaded system (checked like any uploaded output), scoring only that system
    (:meth:`mtdiag.scoring.workspace.Workspace.add_system`); returns the new run's id."""
    name = mio.clean_name(name)
    if not name:
        raise InputError(uploaded.name, "the system name is empty")
    lines = read_text_file(name, "system", (uploaded.name, uploaded.getvalue()), uploaded.name,
                           state.session_limits(), []).lines
    return _workspace(str(folder)).add_system(run, name, lines)
