"""The sidebar: which data (a test-set folder, :mod:`mtdiag.ui.offered_sets`; or uploaded files,
:mod:`mtdiag.ui.uploads`), the options (:mod:`mtdiag.ui.options`) and the saved runs (:mod:`mtdiag.ui.runs`).

Every input problem (``mtdiag.io.InputError``: file and line) is shown as an ``st.error`` on the page; the data
loaded before stays loaded. Those messages quote file names and values from the files, so :func:`sidebar` returns
them Markdown-escaped (:func:`mtdiag.core.highlight.escape_markdown`), like every file, system and set name shown here.

Switching to other data (another set, new uploads, an added system) puts every choice control of the pages
(system, metric, reference, column and dimension pickers, filters) back to its default for the new data, and a
choice that is no longer among its options is replaced: :func:`mtdiag.ui.widgets.follow`, which assigns the value
so that the browser shows the value the page uses. Free-form inputs (search text, toggles, numbers) keep what the
user typed: they name nothing of the data. Nothing here computes a metric.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from mtdiag.core import highlight
from mtdiag.pipeline import inputs
from mtdiag.core.errors import InputError
from mtdiag.ui import options as option_widgets
from mtdiag.ui import layout_sets, offered_sets, reports, runs, slicing, state, tagging, uploads

MODES = ("Test set folder", "Upload files")
LAST_GOOD = "_mtdiag_last_good"


def sidebar() -> tuple[state.Current | None, list[str]]:
    """Draw the sidebar, load the data, compute (or fetch) the report; returns (current, input problems).

    On a problem the last data loaded successfully stays in use.
    """
    sb = st.sidebar
    sb.title("mtdiag")
    sb.caption("Diagnostic evaluation of machine-translation output")
    folder = runs.workspace_argument()
    opened = runs.opened_run(folder)
    if opened is not None:
        return _show_saved_run(opened, folder)
    mode = sb.radio("Data", MODES, key="data_mode", horizontal=True)
    if mode == MODES[0]:
        data, problems = offered_sets.folder_widgets(offered_sets.available_sets())
        if data is not None:
            data, problems = uploads.extra_systems(data)
    else:
        data, problems = uploads.upload_widgets()
    data, more = uploads.addition_widgets(data)
    problems += more
    if data is None:
        data = st.session_state.get(LAST_GOOD)
    if data is None:  # nothing loaded yet (e.g. upload mode from the start): fall back to the first set
        sets = offered_sets.available_sets()
        if sets:
            try:
                data = offered_sets.load_folder(sets[0], offered_sets.stamp(sets[0]))
            except InputError as error:
                problems.append(str(error))
    if data is None:
        return None, [highlight.escape_markdown(p) for p in problems]
    problems = [f"{highlight.escape_markdown(p)}  \nThe data loaded before stays in use "
                f"({highlight.escape_markdown(data.label)})." for p in problems]
    chosen = layout_sets.scoring_choice(data, option_widgets.option_widgets(data))
    weights, weights_problem = uploads.chosen_error_weights()
    if weights_problem:
        problems.append(highlight.escape_markdown(weights_problem))
    options = _scoring(data, chosen)
    report, too_large, weights = _scored(data, options, weights, problems)
    previous = st.session_state.get(LAST_GOOD)
    if too_large and previous is not None and previous.data_key != data.data_key:  # the data before stays
        refusal = len(problems) - 1
        options = _scoring(previous, chosen)
        report, _, weights = _scored(previous, options, weights, problems)
        if report is not None:
            problems[refusal] += (f"  \nThe data loaded before stays in use "
                                  f"({highlight.escape_markdown(previous.label)}).")
            data = previous
    _summary(data)  # the data the pages show (or the data refused)
    if report is None:
        return None, problems
    st.session_state[LAST_GOOD] = data
    current = tagging.apply(state.Current(data, options, report, weights))
    problems += [highlight.escape_markdown(p) for p in runs.saved_runs(current, folder)]
    return current, problems


def _scoring(data: state.Dataset, options):
    """``options`` with the metrics the slice's flags read, in the input path's order (:func:`mtdiag.pipeline.inputs.scoring`);
    an expression that cannot be read leaves them as they are (the slice box says why, every segment is shown)."""
    try:
        return inputs.scoring(data.evalset, options, slicing.current_expression())
    except ValueError:
        return options


def _scored(data: state.Dataset, options, weights, problems: list[str]):
    """(the report of ``data`` under ``options`` with its human error rows weighed by ``weights``, or None; whether
    it was refused for the memory it needs; the scheme that weighed them); a problem is appended to ``problems``
    (escaped) when there is no report. A set over the session's budget is refused before scoring
    (:func:`mtdiag.ui.state.over_budget`: the server stays up for the other sessions), and an allocation that fails
    while scoring (``MemoryError``, numpy's ``_ArrayMemoryError``) is said in one line. A row the chosen weights
    file has no weight for is said in one line naming the file and the line, and the default scheme weighs the
    rows meanwhile."""
    too_large = state.over_budget(data)
    if too_large:
        problems.append(too_large)
        return None, True, weights
    try:
        try:
            return reports.report_for(data, options, weights), False, weights
        except InputError as error:
            problems.append(f"{highlight.escape_markdown(str(error))}  \nThe human error rows are weighed by the "
                            f"{inputs.DEFAULT_WEIGHTS.name} scheme meanwhile.")
            return reports.report_for(data, options, inputs.DEFAULT_WEIGHTS), False, inputs.DEFAULT_WEIGHTS
    except (ValueError, RuntimeError) as error:  # e.g. a tokeniser that is not installed
        problems.append(f"The metrics cannot be computed with these options: {highlight.escape_markdown(error)}")
        return None, False, weights
    except MemoryError:
        state.release_memory()
        problems.append(f"Scoring {highlight.escape_markdown(data.label)} needs more memory than the server has "
                        f"free. {state.OUT_OF_MEMORY_HINT}")
        return None, True, weights


def _show_saved_run(current: state.Current, folder: Path) -> tuple[state.Current, list[str]]:
    """The sidebar while a saved run is open: its name, its options (those it was saved with), a way back."""
    sb = st.sidebar
    sb.info(f"Showing the {highlight.escape_markdown(current.data.label)}, as saved (nothing recomputed).")
    if sb.button("Close the saved run", key="run_close"):
        del st.session_state[runs.OPEN_RUN]
        st.rerun()
    _summary(current.data)
    options = current.options
    shown = [f"tokeniser {options.tokenize}", "lower-cased" if options.lowercase else "case-sensitive"]
    shown += [f"{metric} {option}={value}" for metric, chosen in options.metric_options for option, value in chosen]
    sb.caption("Options: " + highlight.escape_markdown(", ".join(shown)))
    current = tagging.apply(current)
    return current, [highlight.escape_markdown(p) for p in runs.saved_runs(current, folder)]


def _summary(data: state.Dataset) -> None:
    ev = data.evalset
    extras = []
    if ev.terms is not None and len(ev.terms):
        extras.append(f"{len(ev.terms)} term occurrences")
    if ev.human is not None and len(ev.human):
        extras.append(f"{len(ev.human)} human scores")
    if ev.metric_spans is not None and len(ev.metric_spans):
        extras.append(f"{len(ev.metric_spans)} metric error spans")
    lines = [f"**{highlight.escape_markdown(data.label)}**"
             + (f" ({highlight.escape_markdown(ev.lang_pair)})" if ev.lang_pair else ""),
             f"{ev.n_segments:,} segments · {len(ev.systems)} systems · "
             + (f"{len(ev.ref_names)} reference" + ("s" if len(ev.ref_names) != 1 else "") if ev.has_references
                else "no reference (reference-free checks)")]
    if extras:
        lines.append(" · ".join(extras))
    st.sidebar.caption("  \n".join(lines))
    if ev.warnings:
        with st.sidebar.expander(f"{len(ev.warnings)} input warning" + ("s" if len(ev.warnings) != 1 else "")):
            for warning in ev.warnings:
                st.caption(highlight.escape_markdown(warning))
