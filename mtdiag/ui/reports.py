"""The reports a session gets (``docs/dashboard.md``, "How it stays fast"): scored once per texts and options
(:func:`scored_report`, on the set without its human judgements; the metrics derived from the others — predicted
MQM — added after the first page is drawn, :func:`complete`), then joined with the session's human judgements weighed
by its scheme (:func:`report_for`: nothing scored again). Every report lives in the store of
:mod:`mtdiag.ui.state` (:func:`mtdiag.ui.state.report_store`: shared by the sessions, bounded, swept), under the keys
:func:`mtdiag.ui.state.report_key` and :func:`mtdiag.ui.state.judged_key`.
"""

from __future__ import annotations

import threading
from typing import Callable

import streamlit as st

from mtdiag.core import highlight
from mtdiag.pipeline.inputs import (DEFAULT_WEIGHTS, ErrorWeights, Options, Report, evaluate, judged, prepared,
                                    report_cache, underived, warm_up_statistics, with_derived)
from mtdiag.ui.state import FIRST, Dataset, judged_key, report_key, report_store


def report_for(data: Dataset, options: Options, weights: ErrorWeights = DEFAULT_WEIGHTS) -> Report:
    """The report of ``data`` under ``options`` with its human judgements weighed by ``weights``.

    The scored report (:func:`scored_report`: maybe without its derived metrics yet) joined with them
    (:func:`mtdiag.pipeline.inputs.judged`: nothing scored again), kept in the report store under :func:`judged_key`.
    Once the scored report is complete, the derived metrics its judgements make available are added
    (:func:`with_derived`: predicted ESA where the human scores are ESA; the judge's evidence is the scored report's, on
    the same context)."""
    scored = scored_report(data, options)
    pending = underived(scored)
    key = judged_key(data, options, weights) + ("|first" if pending else "")

    def build() -> Report:
        report = judged(scored, data.evalset, weights)
        return report if pending else with_derived(report)

    return stored_report(key, build)


def scored_report(data: Dataset, options: Options) -> Report:
    """The scored report of ``data``'s texts under ``options`` (:func:`report_key`), on the set without judgements.

    Scored on the set without its human judgements: from the store; for a test-set folder from its file on disk
    (:mod:`mtdiag.scoring.report_cache`: the sample sets open without scoring once a server or ``make install`` scored
    them); else scored now with a progress bar — every metric but those derived from the report of the others
    (predicted MQM: its error spans cost as much as the rest), which :func:`complete` adds once the first page is
    drawn, with the checks' flags and the words' support the queue and the spans read (:func:`complete`: on two
    cores they ran beside the metrics, yet doubled the wait for the first page — 2.2 → 4.5 s on 10 systems of WMT21
    en-de — as they hold Python's lock). Uploads are never written to disk."""
    store = report_store()
    key = report_key(data, options)
    report = store.get(key)
    if report is None and data.origin == "folder":
        report = report_cache.load(data.evalset.without_judgements(), options)
        if report is not None:
            store.put(key, report)
    if report is not None:
        return report
    first = store.get(key + FIRST)
    if first is None:
        bar = st.progress(0.0, text=f"Computing metrics for {highlight.escape_markdown(data.label)} …")
        first = evaluate(data.evalset.without_judgements(), options, progress=_bar(bar), derive=False)
        bar.empty()
        store.put(key + FIRST, first)
    if not underived(first):
        store.put(key, first)
        if data.origin == "folder":
            report_cache.save(first)
    return first


def _bar(bar) -> Callable[[float, str], None]:
    def progress(fraction: float, message: str) -> None:  # the message names systems: user text
        bar.progress(min(max(float(fraction), 0.0), 1.0), text=highlight.escape_markdown(message))

    return progress


def complete(data: Dataset, options: Options) -> bool:
    """Add the derived metrics to the scored report of ``data`` under ``options``; True once it is stored.

    The report is :func:`scored_report`'s first one; a progress bar shows in the sidebar. Called after the page is
    drawn, so the first page shows every other metric at once; the checks that read no metric run here first
    (:func:`mtdiag.pipeline.inputs.prepared`); True when the completed report is stored (the next run
    draws it). A derivation that fails leaves the first report as the completed one and says why once
    (:data:`DERIVE_FAILED`)."""
    store = report_store()
    key = report_key(data, options)
    first = store.get(key + FIRST)
    if first is None or store.get(key) is not None:
        return False
    bar = st.sidebar.progress(0.0, text="Running the checks, then the metrics derived from the others (the error "
                                        "spans mtdiag predicts) …")
    try:
        prepared(first)  # the checks and the words' support, on the first report's context (the pages reuse them)
        report = with_derived(first, _bar(bar))
    except (ValueError, RuntimeError, MemoryError) as error:
        report = first
        st.session_state[DERIVE_FAILED] = f"{', '.join(underived(first))} could not be computed: {error}"
    bar.empty()
    store.put(key, report)
    if data.origin == "folder" and report is not first:
        report_cache.save(report)
    st.session_state[WARM_UP] = True  # once the page is drawn again with them (:func:`warm_up`)
    return True


WARM_UP = "_mtdiag_warm_up"  # session key: a report was completed; the run that draws it warms what pages import


def warm_up() -> None:
    """After the run that drew a completed report: import ``scipy.stats`` in the background, once per server.

    :func:`_load_statistics` does it; only when :func:`complete` asked for it in this session."""
    if st.session_state.pop(WARM_UP, False):
        _load_statistics()


@st.cache_resource(show_spinner=False)
def _load_statistics() -> threading.Thread:
    """Once per server: import ``scipy.stats`` in a background thread.

    :func:`mtdiag.pipeline.inputs.warm_up_statistics` does the import, so that the first visit of a page of human
    scores does not wait 0.9-1.2 s for it. Not earlier than after a completed report's page is drawn: beside the
    scoring, the first page or its redraw with the derived metrics it would take their CPU; a sample set that opens
    from disk never waits for it."""
    thread = threading.Thread(target=warm_up_statistics, name="mtdiag-load-statistics", daemon=True)
    thread.start()
    return thread


DERIVE_FAILED = "_mtdiag_derive_failed"  # session key: why the derived metrics were not computed (said once)


def stored_report(key: str, build: Callable[[], Report]) -> Report:
    """A report that is not computed here, from the report store under ``key``, else built and stored there.

    Such a report is a saved run that ``build`` rebuilds from its stored statistics
    (:meth:`mtdiag.scoring.workspace.Workspace.open`); stored, it expires and is swept like any other."""
    store = report_store()
    report = store.get(key)
    if report is None:
        report = build()
        store.put(key, report)
    return report
